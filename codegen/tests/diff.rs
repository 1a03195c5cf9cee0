//! `wiregen diff`: Riptide 2.0 → 2.1 and the R-Type RFC → the game build classified as the
//! protocols' notes say they changed, every shipped schema equal to itself, and a constructed
//! pair for each rule.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use wiregen::diff::{self, Change, Class, Side};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn changes(old: &Path, new: &Path) -> Vec<Change> {
    let load = |f: &Path| Side::load(f, Some(&repo())).unwrap_or_else(|d| panic!("{d}"));
    diff::diff(&load(old), &load(new))
}

fn find<'a>(cs: &'a [Change], rule: &str, path: &str) -> &'a Change {
    cs.iter()
        .find(|c| c.rule == rule && c.path == path)
        .unwrap_or_else(|| panic!("no {rule} at {path} in\n{}", list(cs)))
}

fn list(cs: &[Change]) -> String {
    cs.iter().map(|c| format!("{c}\n")).collect()
}

#[test]
fn riptide_2_0_to_2_1_breaks_the_wire() {
    let cs = changes(
        &repo().join("schema/riptide-2.0.yaml"),
        &repo().join("schema/riptide-2.1.yaml"),
    );
    let layout = find(&cs, "LAYOUT_CHANGED", "protocol.layout");
    assert_eq!(layout.class, Class::Breaking);
    let connect = find(&cs, "VALUE_RENUMBERED", "HeaderKind.Connect");
    assert_eq!(connect.class, Class::Breaking);
    assert_eq!(connect.old.as_deref(), Some("schema/riptide-2.0.yaml:52:7"));
    assert_eq!(connect.new.as_deref(), Some("schema/riptide-2.1.yaml:57:7"));
    assert_eq!(
        find(&cs, "VALUE_REMOVED", "HeaderKind.AckExtra").class,
        Class::Breaking
    );
    assert_eq!(
        find(&cs, "WIDTH_CHANGED", "Message.header").message,
        "u8 → u4"
    );
    // Notify takes the tag 2.0's Disconnect had: old readers would misread it.
    assert_eq!(
        find(&cs, "CASE_ADDED", "Message.body.Notify").class,
        Class::Breaking
    );
    assert_eq!(
        find(&cs, "TYPE_CHANGED", "UserMessage.message_id").class,
        Class::Breaking
    );
    let renamed = find(&cs, "FIELD_RENAMED", "Ack.received_bits");
    assert_eq!(renamed.class, Class::DissectorOnly);
    assert_eq!(
        find(&cs, "VALUE_ADDED", "DisconnectReason.PoorConnection").class,
        Class::Safe
    );
}

/// Riptide 2.1 → 2.2: the Ack's for_seq present only when its flag says so, nothing else on the
/// wire (the Disconnect a stopping server sends is the same layout, now written right).
#[test]
fn riptide_2_1_to_2_2_changes_the_ack_alone() {
    let cs = changes(
        &repo().join("schema/riptide-2.1.yaml"),
        &repo().join("schema/riptide-2.2.yaml"),
    );
    let condition = find(&cs, "CONDITION_CHANGED", "Ack.for_seq");
    assert_eq!(condition.class, Class::Breaking);
    assert_eq!(condition.message, "present always → when `has_for_seq`");
    let flag = find(&cs, "ROLE_CHANGED", "Ack.has_for_seq");
    assert_eq!(flag.class, Class::Breaking);
    let breaking: Vec<&str> = cs
        .iter()
        .filter(|c| c.class == Class::Breaking)
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(breaking, ["Ack.has_for_seq", "Ack.for_seq"]);
}

#[test]
fn the_rtype_rfc_to_the_game_build() {
    let cs = changes(
        &repo().join("schema/rtype.yaml"),
        &repo().join("schema/rtype-impl.yaml"),
    );
    let moved = find(&cs, "VALUE_RENUMBERED", "Command.REQ_JOIN_ROOM");
    assert_eq!(
        moved.message,
        "value `REQ_JOIN_ROOM` renumbered 0x03 → 0x05"
    );
    assert_eq!(moved.new.as_deref(), Some("schema/rtype-impl.yaml:26:7"));
    assert_eq!(
        find(&cs, "CASE_REPLACED", "Packet.payload.ReqJoinRoom").class,
        Class::Breaking
    );
    assert_eq!(
        find(&cs, "FIELD_ADDED", "CInput.client_tick").class,
        Class::Breaking
    );
    assert_eq!(
        find(&cs, "PORTS_CHANGED", "protocol.transport").class,
        Class::DissectorOnly
    );
    // New commands fall into the RFC's `default: bytes`.
    assert_eq!(
        find(&cs, "CASE_ADDED", "Packet.payload.ReqLobbyList").class,
        Class::Safe
    );
    assert_eq!(
        find(&cs, "VALUE_ADDED", "Command.REQ_LOBBY_LIST").class,
        Class::Safe
    );
}

#[test]
fn every_shipped_schema_equals_itself() {
    for dir in ["schema", "schema/examples"] {
        for entry in fs::read_dir(repo().join(dir)).unwrap() {
            let file = entry.unwrap().path();
            if file.extension().is_some_and(|e| e == "yaml") {
                let cs = changes(&file, &file);
                assert!(cs.is_empty(), "{}:\n{}", file.display(), list(&cs));
            }
        }
    }
}

const BASE: &str = r#"
protocol: { name: demo, title: Demo, root: Packet, endian: little }
enums:
  Kind: { type: u8, values: { PING: 1, DATA: 2, BYE: 3, OLD: 9 } }
  Shut: { type: u8, closed: true, values: { A: 0, B: 1 } }
flags:
  Opts: { type: u8, bits: { FAST: 0x01 } }
types:
  Packet:
    doc: One datagram.
    fields:
      - { name: magic, type: u16, const: 0xBEEF }
      - { name: kind, type: Kind }
      - { name: opts, type: Opts }
      - { name: shut, type: Shut }
      - { name: seq, type: u32, doc: Sequence. }
      - { name: size, type: u16 }
      - { name: extra, type: u8, if: opts.FAST }
      - name: body
        length: size
        switch:
          on: kind
          cases: { PING: empty, DATA: Data, BYE: empty }
          default: bytes
  Data:
    fields:
      - { name: items, type: "u8[]", prefix: u8 }
      - { name: tail, type: bytes, prefix: u8 }
"#;

/// The changes from BASE to BASE with every `from` replaced by `to`.
fn edit(from: &str, to: &str) -> Vec<Change> {
    assert!(BASE.contains(from), "{from}");
    let dir = std::env::temp_dir().join(format!("wiregen-diff-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    fs::write(&old, BASE).unwrap();
    fs::write(&new, BASE.replace(from, to)).unwrap();
    changes(&old, &new)
}

#[test]
fn each_rule_on_a_constructed_pair() {
    use Class::*;
    let cases: &[(&str, &str, Class, &str, &str)] = &[
        ("{ name: seq, type: u32, doc: Sequence. }", "{ name: seq, type: u16, doc: Sequence. }", Breaking, "WIDTH_CHANGED", "Packet.seq"),
        ("{ name: seq, type: u32, doc: Sequence. }", "{ name: seq, type: u32be, doc: Sequence. }", Breaking, "BYTE_ORDER_CHANGED", "Packet.seq"),
        ("{ name: seq, type: u32, doc: Sequence. }", "{ name: seq, type: u32, doc: Sequence number. }", DissectorOnly, "DOC_CHANGED", "Packet.seq"),
        ("{ name: seq, type: u32, doc: Sequence. }", "{ name: serial, type: u32, doc: Sequence. }", DissectorOnly, "FIELD_RENAMED", "Packet.serial"),
        ("{ name: magic, type: u16, const: 0xBEEF }", "{ name: magic, type: u16, const: 0xBEEE }", Breaking, "ROLE_CHANGED", "Packet.magic"),
        ("{ name: extra, type: u8, if: opts.FAST }", "{ name: extra, type: u8 }", Breaking, "CONDITION_CHANGED", "Packet.extra"),
        ("length: size", "length: size - 1", Breaking, "SIZE_RULE_CHANGED", "Packet.body"),
        ("PING: 1, DATA: 2", "PING: 4, DATA: 2", Breaking, "VALUE_RENUMBERED", "Kind.PING"),
        ("values: { PING: 1, DATA: 2, BYE: 3, OLD: 9 }", "values: { PING: 1, DATA: 2, BYE: 3 }", Breaking, "VALUE_REMOVED", "Kind.OLD"),
        ("values: { PING: 1, DATA: 2, BYE: 3, OLD: 9 }", "values: { PING: 1, DATA: 2, BYE: 3, OLD: 9, HELLO: 4 }", Safe, "VALUE_ADDED", "Kind.HELLO"),
        ("values: { A: 0, B: 1 }", "values: { A: 0, B: 1, C: 2 }", Breaking, "VALUE_ADDED", "Shut.C"),
        ("values: { A: 0, B: 1 }", "values: { A: 0, BEE: 1 }", DissectorOnly, "VALUE_RENAMED", "Shut.BEE"),
        ("bits: { FAST: 0x01 }", "bits: { FAST: 0x01, SAFE: 0x02 }", Safe, "VALUE_ADDED", "Opts.SAFE"),
        ("bits: { FAST: 0x01 }", "bits: { FAST: 0x04 }", Breaking, "VALUE_RENUMBERED", "Opts.FAST"),
        ("DATA: Data, BYE: empty }", "DATA: Data }", Breaking, "CASE_REMOVED", "Packet.body.Bye"),
        ("values: { PING: 1, DATA: 2, BYE: 3, OLD: 9 }", "values: { PING: 1, DATA: 2, BYE: 3, OLD: 9, HELLO: 4 }", Safe, "VALUE_ADDED", "Kind.HELLO"),
        ("DATA: Data, BYE: empty }\n          default: bytes", "DATA: Data, BYE: empty }", Breaking, "CASE_REMOVED", "Packet.body"),
        ("      - { name: seq, type: u32, doc: Sequence. }\n      - { name: size, type: u16 }", "      - { name: size, type: u16 }\n      - { name: seq, type: u32, doc: Sequence. }", Breaking, "FIELD_MOVED", "Packet.size"),
        ("      - { name: tail, type: bytes, prefix: u8 }", "      - { name: tail, type: bytes, prefix: u8 }\n      - { name: more, type: u8, if: \"len(tail) > 0\" }", Safe, "FIELD_ADDED", "Data.more"),
        ("      - { name: shut, type: Shut }", "      - { name: shut, type: Shut }\n      - { name: pad, type: u8 }", Breaking, "FIELD_ADDED", "Packet.pad"),
        ("Data", "Payload", DissectorOnly, "TYPE_RENAMED", "Payload"),
        ("prefix: u8 }", "prefix: u16 }", Breaking, "SIZE_RULE_CHANGED", "Data.items"),
        ("{ name: tail, type: bytes, prefix: u8 }", "{ name: tail, type: string, prefix: u8 }", Breaking, "TYPE_CHANGED", "Data.tail"),
    ];
    for (from, to, class, rule, path) in cases {
        let cs = edit(from, to);
        let c = find(&cs, rule, path);
        assert_eq!(c.class, *class, "{rule} at {path}:\n{}", list(&cs));
        let breaking = cs.iter().filter(|c| c.class == Breaking).count();
        if *class != Breaking {
            assert_eq!(breaking, 0, "{rule}: nothing else breaks\n{}", list(&cs));
        }
    }
    // A case added where old readers keep unknown tags is safe; where they refuse them, not.
    let added = edit(
        "values: { PING: 1, DATA: 2, BYE: 3, OLD: 9 }",
        "values: { PING: 1, DATA: 2, BYE: 3, OLD: 9, HELLO: 4 }",
    );
    assert!(!added.iter().any(|c| c.rule == "CASE_ADDED"));
    let cs = edit(
        "cases: { PING: empty, DATA: Data, BYE: empty }\n          default: bytes",
        "cases: { PING: empty, DATA: Data, BYE: empty, 4: empty }\n          default: bytes",
    );
    assert_eq!(
        find(&cs, "CASE_ADDED", "Packet.body.Tag4").class,
        Safe,
        "{}",
        list(&cs)
    );
    let strict = BASE.replace("\n          default: bytes", "");
    let dir = std::env::temp_dir().join(format!("wiregen-diff-strict-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    fs::write(&old, &strict).unwrap();
    fs::write(
        &new,
        strict.replace("BYE: empty }", "BYE: empty, 4: empty }"),
    )
    .unwrap();
    let cs = changes(&old, &new);
    assert_eq!(
        find(&cs, "CASE_ADDED", "Packet.body.Tag4").class,
        Breaking,
        "{}",
        list(&cs)
    );
}

#[test]
fn the_command_exits_non_zero_on_breaking_changes_unless_allowed() {
    let wiregen = env!("CARGO_BIN_EXE_wiregen");
    let (old, new) = (
        repo().join("schema/rtype.yaml"),
        repo().join("schema/rtype-impl.yaml"),
    );
    let run = |allow: &[&str]| {
        let mut c = Command::new(wiregen);
        c.arg("diff").arg(&old).arg(&new);
        for a in allow {
            c.args(["--allow", a]);
        }
        c.output().unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("breaking[VALUE_RENUMBERED]: Command.REQ_JOIN_ROOM"),
        "{text}"
    );
    let all = [
        "VALUE_RENUMBERED",
        "CASE_REPLACED",
        "FIELD_ADDED",
        "FIELD_REMOVED:SEntityState",
    ];
    let out = run(&all);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("[allowed]"), "{text}");
    // A misspelt rule is refused with the rule it was probably meant to be (it once allowed
    // nothing, silently).
    let out = run(&["VALUE_RENUMBRED"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("did you mean 'VALUE_RENUMBERED'?"), "{err}");
    let same = Command::new(wiregen)
        .arg("diff")
        .arg(&old)
        .arg(&old)
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0));
}

/// Every rule `--allow` takes is documented where its refusal points (docs/spec.md).
#[test]
fn every_rule_is_documented() {
    let spec = std::fs::read_to_string(repo().join("docs/spec.md")).unwrap();
    for rule in wiregen::diff::Rule::ALL {
        assert!(spec.contains(rule.name()), "{rule} is not in docs/spec.md");
    }
}
