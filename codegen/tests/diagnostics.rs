//! Schema mistakes are reported as `file:line:column: error[CODE]: message (hint)`, never as panics.

use wiregen::validate;

const BASE: &str = r#"protocol:
  name: demo
  title: Demo
  root: Packet
enums:
  Kind:
    type: u8
    values:
      A: 1
      B: 2
types:
  Packet:
    fields:
      - name: kind
        type: Kind
      - name: payload_size
        type: u16
      - name: payload
        length: payload_size
        switch:
          on: kind
          cases:
            A: Body
          default: bytes
  Body:
    fields:
      - name: x
        type: u32
"#;

fn errors(src: &str) -> Vec<String> {
    match validate::load("schema/demo.yaml", src) {
        Ok(_) => vec![],
        Err(d) => d.0.iter().map(|d| d.to_string()).collect(),
    }
}

fn one_error(src: &str) -> String {
    let e = errors(src);
    assert_eq!(e.len(), 1, "{e:#?}");
    e[0].clone()
}

#[test]
fn the_base_schema_is_valid() {
    assert_eq!(errors(BASE), Vec::<String>::new());
}

#[test]
fn misspelt_field_in_an_expression() {
    let src = BASE.replace("length: payload_size", "length: paylod_size");
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:19:17: error[E0510]: unknown field 'paylod_size' (did you mean 'payload_size'?)"
    );
}

#[test]
fn field_used_before_it_is_read() {
    let src = BASE
        .replace("length: payload_size", "length: later")
        .replace(
            "          default: bytes\n",
            "          default: bytes\n      - name: later\n        type: u8\n",
        );
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:19:17: error[E0510]: unknown field 'later' ('later' comes later; only earlier fields can be used here)"
    );
}

#[test]
fn unknown_type_with_suggestion() {
    let src = BASE.replace("A: Body", "A: Bodi");
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:23:16: error[E0416]: unknown type 'Bodi' (did you mean 'Body'?)"
    );
    let src = BASE.replace("type: Kind", "type: Kinf");
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:15:15: error[E0232]: unknown type 'Kinf' (did you mean 'Kind'?)"
    );
}

#[test]
fn unknown_case_value() {
    let src = BASE.replace("A: Body", "C: Body");
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:23:13: error[E0413]: 'C' is not a value of enum 'Kind' (did you mean 'A'?)"
    );
}

#[test]
fn duplicate_field() {
    let src = BASE.replace(
        "      - name: x\n        type: u32\n",
        "      - name: x\n        type: u32\n      - name: x\n        type: u8\n",
    );
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:29:15: error[E0218]: duplicate field 'x' in type 'Body'"
    );
}

#[test]
fn type_cycle() {
    let src = BASE.replace(
        "      - name: x\n        type: u32\n",
        "      - name: x\n        type: Packet\n",
    );
    let e = errors(&src);
    assert!(
        e.iter().any(|e| e.starts_with(
            "schema/demo.yaml:12:3: error[E1101]: type cycle: Packet → Body → Packet"
        )),
        "{e:#?}"
    );
}

#[test]
fn bad_widths_and_constants() {
    let src = BASE.replace("type: u32", "type: u65");
    assert!(one_error(&src)
        .starts_with("schema/demo.yaml:28:15: error[E0220]: integer width 65 is outside 1..64"));
    let src = BASE.replace("type: u32", "type: u12");
    assert_eq!(one_error(&src), "schema/demo.yaml:28:15: error[E0221]: a 12-bit integer in a byte-aligned layout (use a whole number of bytes, a bit group (an integer with 'fields'), or 'layout: lsb-bits')");
    let src = BASE.replace(
        "        type: u32\n",
        "        type: u8\n        const: 256\n",
    );
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:29:16: error[E0336]: constant 0x100 does not fit in 8 bits"
    );
}

#[test]
fn expression_syntax_and_types() {
    let src = BASE.replace("length: payload_size", "length: payload_size +");
    assert!(
        one_error(&src).starts_with("schema/demo.yaml:19:"),
        "{:?}",
        errors(&src)
    );
    let src = BASE.replace("length: payload_size", "length: payload_size == 3");
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:19:17: error[E0501]: 'payload_size == 3' is a condition where an integer is needed"
    );
}

#[test]
fn unknown_keys_and_bad_yaml() {
    let src = BASE.replace("        type: u32\n", "        typ: u32\n");
    let e = one_error(&src);
    assert!(
        e.starts_with(
            "schema/demo.yaml:28:9: error[E0001]: types.Body.fields[0]: unknown field `typ`"
        ),
        "{e}"
    );
    let e = one_error("protocol: [");
    assert!(
        e.starts_with("schema/demo.yaml:1:") && e.contains("error[E0001]"),
        "{e}"
    );
}

#[test]
fn unknown_checksum_algorithm() {
    let src = BASE.replace(
        "        type: u32\n",
        "        type: u16\n        checksum: crc16-ccitt-flase\n",
    );
    assert_eq!(one_error(&src), "schema/demo.yaml:29:19: error[E1001]: unknown checksum algorithm 'crc16-ccitt-flase' (did you mean 'crc16-ccitt-false'?)");
}

#[test]
fn type_cycle_through_a_default_variant() {
    // Body's switch falls back to Packet for every other tag: Packet holds itself.
    let src = BASE.replace("          default: bytes\n", "          default: Body\n").replace(
        "      - name: x\n        type: u32\n",
        "      - name: x\n        type: u8\n      - name: inner\n        switch:\n          on: x\n          cases:\n            0: empty\n          default: Packet\n",
    );
    let e = errors(&src);
    assert!(
        e.iter()
            .any(|e| e.contains("type cycle: Packet → Body → Packet")),
        "{e:#?}"
    );
}

/// BASE with a state table recorded from Announce and read by Update.
fn with_state(extra_types: &str) -> String {
    BASE.replace(
        "  root: Packet\n",
        "  root: Packet\n  state:\n    kinds:\n      items: Kind\n      record:\n        - { in: Announce, key: id, items: entries.kind }\n",
    ) + "  Announce:\n    fields:\n      - { name: id, type: u8 }\n      - { name: entries, type: \"Entry[]\", count: 2 }\n  Entry:\n    fields:\n      - { name: kind, type: Kind }\n"
        + extra_types
}

#[test]
fn state_tables_and_list_items() {
    let update = "  Update:\n    fields:\n      - { name: id, type: u8 }\n      - { name: v, type: \"Item[]\", count: 1, state: { kinds: id } }\n  Item:\n    fields:\n      - { name: i, type: u8 }\n      - name: value\n        switch:\n          on: \"kinds[i]\"\n          cases:\n            A: Body\n";
    assert_eq!(errors(&with_state(update)), Vec::<String>::new());
    // A misspelt table, where a field selects it and where a tag reads it.
    let e = errors(&with_state(&update.replace("kinds", "kind")));
    assert_eq!(
        e,
        vec![
            "schema/demo.yaml:44:55: error[E0319]: unknown state table 'kind' (did you mean 'kinds'?)",
            "schema/demo.yaml:50:16: error[E0505]: 'kind' is not a state table (did you mean 'kinds'?)",
        ]
    );
    // A list item anywhere but a switch tag.
    let src = with_state(update).replace("count: 1, state", "count: \"kinds[0]\", state");
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:44:44: error[E0504]: 'kinds[...]' can only be a switch's tag (a list item chooses the layout of a value: 'switch: { on: ... }')"
    );
    // A record whose items are not of the table's enum.
    let src = with_state(update).replace("items: entries.kind", "items: entries.knd");
    assert_eq!(
        one_error(&src),
        "schema/demo.yaml:9:43: error[E0710]: 'knd' is not a field of 'Entry' (did you mean 'kind'?)"
    );
}

#[test]
fn sequence_reassembly_mistakes() {
    let src = BASE.replace(
        "  root: Packet\n",
        "  root: Packet\n  sequence_reassembly:\n    - { in: Packet, fields: [kind], sequence: payload_sise, first: \"kind == 1\", last: \"kind == 2\", piece_size: 100 }\n",
    );
    assert_eq!(
        errors(&src),
        vec![
            "schema/demo.yaml:6:30: error[E0804]: 'kind' must be a bytes field",
            "schema/demo.yaml:6:47: error[E0710]: 'payload_sise' is not a field of 'Packet' (did you mean 'payload_size'?)",
        ]
    );
}

/// A construct one backend cannot generate stops that output only: the other is still written,
/// and the limit is reported at the construct, naming the output it stops.
#[test]
fn a_backend_limit_stops_only_its_own_output() {
    let src = "protocol: { name: demo, title: Demo, layout: lsb-bits, root: P, transport: { udp: { ports: [7000] } } }
types:
  P:
    fields:
      - { name: stamp, type: Stamp }
enums:
  Stamp: { type: u40, values: { ZERO: 0 } }
";
    let p = validate::load("schema/demo.yaml", src).expect("valid schema");
    let runtime = wiregen::backend::rust::RuntimeDep::Published;
    let (outputs, problems) = wiregen::pipeline::outputs(&p, &runtime);
    let paths: Vec<&str> = outputs.iter().map(|o| o.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "generated/demo/Cargo.toml",
            "generated/demo/src/lib.rs",
            "generated/demo/src/codec.rs"
        ]
    );
    let problems: Vec<String> = problems.0.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        problems,
        ["schema/demo.yaml:5:30: error[L0108]: 'stamp': an enum of 40 bits in a bit stream: not generated for Lua yet, so the Lua dissector is not written (at most 32 bits per enum or flag set in bit streams; integers may have up to 64)"]
    );
}

/// A type nothing reads is a warning at its name (its code is generated, never used): the
/// base schema has none; a type no field or case names has one, and the outputs still come.
#[test]
fn a_type_nothing_reads_is_a_warning() {
    let base = validate::load("schema/demo.yaml", BASE).expect("valid schema");
    assert!(base.warnings.is_empty(), "{:?}", base.warnings);
    let src = format!("{BASE}  Orphan:\n    fields:\n      - name: y\n        type: u8\n");
    let p = validate::load("schema/demo.yaml", &src).expect("a warning is no error");
    let warnings: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        ["schema/demo.yaml:29:3: warning[W0001]: nothing reads type 'Orphan': the root does not \
          hold it, nor does any type the outputs decode (use it in a field or a switch case, or \
          remove it)"]
    );
}

/// Switch cases no message can take are warnings at their switch, and a proof's coverage list
/// leaves them out (so `wiregen verify` does not wait for them): a case outside its tag's
/// `valid` (W0002); a case a second switch on the same tag has no case for, without a default
/// (W0003: schemafuzz seed 211 made such a case, which no message can carry, a coverage failure);
/// and a default that second switch leaves no value for (W0004).
#[test]
fn cases_no_message_can_take_are_warnings_and_left_out_of_coverage() {
    let src = r#"protocol:
  name: demo
  title: Demo
  root: Packet
types:
  Packet:
    fields:
      - { name: kind, type: u8, valid: [1, 2] }
      - { name: mike, switch: { on: kind, cases: { 1: Body, 2: empty, 3: empty } } }
      - { name: oscar, switch: { on: kind, cases: { 1: empty } } }
      - { name: papa, switch: { on: kind, cases: { 1: empty }, default: bytes } }
  Body:
    fields:
      - { name: x, type: u8 }
"#;
    let p = validate::load("schema/demo.yaml", src).expect("warnings are no errors");
    let warnings: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "schema/demo.yaml:9:23: warning[W0003]: case 'Tag2' of 'mike' can never be taken: \
             'oscar', also on 'kind', has no case for its values and no default, so a message \
             with one does not decode (give 'oscar' a case or a default for them, or remove this \
             case)",
            "schema/demo.yaml:9:23: warning[W0002]: case 'Tag3' of 'mike' can never be taken: \
             'kind' allows none of its values (remove the case, or allow its values in 'kind')",
            "schema/demo.yaml:11:23: warning[W0004]: the default of 'papa' can never be taken: \
             'oscar', also on 'kind', has cases only for values this switch's cases take, and no \
             default (remove the default, or give 'oscar' one)",
        ]
    );
    let cases: Vec<String> = wiregen::coverage::coverage_list(&p)
        .lines()
        .filter_map(|l| l.strip_prefix("case\t"))
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        cases,
        ["PacketMike.Body", "PacketOscar.Tag1", "PacketPapa.Tag1"]
    );
}

/// `subtree: false` where the dissector makes no subtree to leave out is said (W0005), at the
/// key: on the root, on a field of one line, on bools packed 8 a byte and on a compressed value;
/// on a struct field, an array or a switch it is taken without a word.
#[test]
fn a_subtree_left_out_where_there_is_none_is_a_warning() {
    let src = r#"protocol:
  name: demo
  title: Demo
  root: Packet
types:
  Packet:
    subtree: false
    fields:
      - { name: a, type: u8, subtree: false }
      - { name: n, type: u8 }
      - { name: bits, type: "bool[]", count: n, packed: true, subtree: false }
      - { name: inner, type: Inner, subtree: false }
      - { name: list, type: "Inner[]", prefix: u8, subtree: false }
      - { name: packed, type: Inner, prefix: u16, compression: zlib, subtree: false }
  Inner:
    fields:
      - { name: x, type: u8 }
"#;
    let p = validate::load("schema/demo.yaml", src).expect("warnings are no errors");
    let warnings: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "schema/demo.yaml:7:5: warning[W0005]: 'subtree: false' on 'Packet' changes nothing: \
             the root is shown as the protocol's item (leave it out)",
            "schema/demo.yaml:9:30: warning[W0005]: 'subtree: false' on 'a' changes nothing: its \
             value is shown as one line (leave it out)",
            "schema/demo.yaml:11:63: warning[W0005]: 'subtree: false' on 'bits' changes nothing: \
             bools packed 8 a byte are one list over their bytes (leave it out)",
            "schema/demo.yaml:14:70: warning[W0005]: 'subtree: false' on 'packed' changes \
             nothing: a compressed value keeps its subtree: it says where the decompressed bytes \
             are shown (leave it out)",
        ]
    );
}
