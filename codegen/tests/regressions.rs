//! Schemas nobody in this repository wrote that once broke an output (a crate that did not
//! compile, a disagreement, a Lua error: `tests/regressions/*.yaml`, each saying what went
//! wrong), proven again by `wiregen verify` in real tshark. The schemas the generator now
//! refuses instead are broken schemas (`tests/broken/69-…` to `73-…`).

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn schemas_that_once_failed_verify() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut schemas: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    schemas.sort();
    assert!(schemas.len() >= 14, "{} regression schemas", schemas.len());
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("regressions");
    // A schema may say what verify must be told about it (`# verify: --unreachable Item`, with
    // the reason beside it): those run on their own.
    let extra = |schema: &Path| -> Vec<String> {
        std::fs::read_to_string(schema)
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("# verify: "))
            .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect()
    };
    let (alone, together): (Vec<_>, Vec<_>) = schemas.iter().partition(|s| !extra(s).is_empty());
    let mut runs: Vec<(Vec<&PathBuf>, Vec<String>)> = vec![(together, Vec::new())];
    runs.extend(alone.into_iter().map(|s| (vec![s], extra(s))));
    let mut summaries = Vec::new();
    let mut report = String::new();
    let mut success = true;
    for (files, args) in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_wiregen"))
            .arg("verify")
            .args(&files)
            .args(["--messages", "300", "--hostile", "300", "--work-dir"])
            .arg(&work)
            .args(&args)
            .output()
            .expect("runs wiregen verify");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        success &= out.status.success();
        // One summary line per schema, each ending in "ok".
        summaries.extend(
            stdout
                .lines()
                .filter(|l| l.contains(" messages agree field by field "))
                .map(str::to_string),
        );
        report += &stdout;
        report += &String::from_utf8_lossy(&out.stderr);
    }
    assert!(
        success && summaries.len() == schemas.len(),
        "{} of {} schemas verified:\n{report}",
        summaries.iter().filter(|l| l.ends_with(": ok")).count(),
        schemas.len()
    );
}

/// The golden snippets whose Lua shows values in other trees than their own (cases shown in
/// their type's tree, types shown without a subtree: `subtree: false`) are proven like the
/// schemas above: the dissector's fields are the crate's, whatever tree holds them.
#[test]
fn tree_shapes_of_the_golden_snippets_verify() {
    let text = verify_golden(&["subtrees.yaml", "inline_cases.yaml"], "tree-shapes");
    for name in ["subtrees", "inline_cases"] {
        assert!(
            text.contains(&format!("{name}: 500 of 500 messages agree field by field")),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{name}: coverage:"))
                    && l.contains("switch cases reached")),
            "{text}"
        );
    }
    assert!(
        text.contains(
            "subtrees: coverage: 8 of 8 types, 16 of 16 fields, 19 of 19 switch cases reached"
        ),
        "{text}"
    );
}

/// A proof that never looked at a case is no proof: verify fails naming a switch case no valid
/// message can take (here `kind`'s `max` leaves case 3 out, which validation does not see), and
/// passes once the case is declared unreachable. A case validation proves untakeable (outside
/// `valid`: W0002) is not waited for, and said so.
#[test]
fn verify_fails_naming_a_case_no_message_takes() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unreached-case");
    std::fs::create_dir_all(&work).unwrap();
    let schema = work.join("unreached.yaml");
    let write = |limit: &str| {
        std::fs::write(
            &schema,
            format!(
                "protocol: {{ name: unreached, title: Unreached, root: Packet, transport: {{ udp: {{ ports: [40999] }} }} }}\n\
                 types:\n  \
                   Packet:\n    fields:\n      \
                     - {{ name: kind, type: u8, {limit} }}\n      \
                     - name: body\n        \
                       switch: {{ on: kind, cases: {{ 1: Move, 2: empty, 3: {{ type: Move, name: Teleport }} }}, default: bytes }}\n  \
                   Move: {{ fields: [ {{ name: x, type: i16 }} ] }}\n"
            ),
        )
        .unwrap();
    };
    let verify = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_wiregen"))
            .arg("verify")
            .arg(&schema)
            .args(["--messages", "200", "--hostile", "50", "--work-dir"])
            .arg(work.join("work"))
            .args(extra)
            .output()
            .expect("runs wiregen verify");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    write("max: 2");
    let (ok, text) = verify(&[]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("case PacketBody.Teleport NEVER TAKEN"),
        "{text}"
    );
    assert!(
        text.contains("no message reached case 'PacketBody.Teleport'"),
        "{text}"
    );
    // Every other case was taken: the default by kinds 0 and 4 and up.
    assert!(text.contains("3 of 4 switch cases reached"), "{text}");
    let (ok, text) = verify(&["--unreachable", "PacketBody.Teleport"]);
    assert!(ok, "{text}");
    assert!(
        text.contains("case PacketBody.Teleport NEVER TAKEN (declared unreachable)"),
        "{text}"
    );
    write("valid: [1, 2, 4]");
    let (ok, text) = verify(&[]);
    assert!(ok, "{text}");
    assert!(
        text.contains("case PacketBody.Teleport: no message can take it (W0002), not counted"),
        "{text}"
    );
    assert!(text.contains("3 of 3 switch cases reached"), "{text}");
}

/// Negative constants of signed integers (`const: -1`; refused before as "written as their wire
/// bits"): the golden snippet's crate, dissector and C# agree in real tshark, every field reached,
/// and hostile datagrams (constants that differ) raise no Lua error.
#[test]
fn negative_constants_of_the_golden_snippet_verify() {
    let text = verify_golden(&["negative_constants.yaml"], "negative-constants");
    for line in [
        "negative_constants: coverage: 1 of 1 types, 8 of 8 fields, 0 of 0 switch cases reached",
        "negative_constants: C#: coverage: 1 of 1 types, 8 of 8 fields, 0 of 0 switch cases reached",
        "negative_constants: 500 of 500 messages agree field by field (4500 fields",
        "300 hostile datagrams, 0 errors: ok",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
}

/// `wiregen verify` of golden snippets `files` (500 messages, 300 hostile datagrams, in work
/// folder `work`), which must succeed: what it said.
fn verify_golden(files: &[&str], work: &str) -> String {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let out = Command::new(env!("CARGO_BIN_EXE_wiregen"))
        .arg("verify")
        .args(files.iter().map(|s| golden.join(s)))
        .args(["--messages", "500", "--hostile", "300", "--work-dir"])
        .arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join(work))
        .output()
        .expect("runs wiregen verify");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    text
}
