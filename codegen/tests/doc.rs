//! The reference documents (`wiregen doc`): the R-Type header drawn as the RFC draws it, bit
//! streams and bit groups drawn where their bits are, and the documents of every shipped schema
//! committed fresh (`wiregen check` too).

use std::fs;
use std::path::{Path, PathBuf};
use wiregen::{backend, lower, pipeline};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The rows of a text diagram: each box's label and width in bits, up to the first box of
/// variable length (drawn to its row's end, labelled as the schema names the field).
fn rows(diagram: &str) -> Vec<Vec<(String, usize)>> {
    diagram
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            let inner = &l[1..l.len() - 1];
            inner
                .split('|')
                .map(|cell| (cell.trim().to_string(), cell.len().div_ceil(2)))
                .collect()
        })
        .collect()
}

/// The R-Type RFC's header rows: names from its diagram, widths from its field definitions.
fn rfc_rows() -> Vec<Vec<(String, usize)>> {
    let text = fs::read_to_string(repo().join("tests/specs/rtype-rtp-header.txt")).unwrap();
    let width = |name: &str| -> usize {
        let at = text
            .find(&format!("{name} ("))
            .unwrap_or_else(|| panic!("{name} defined"));
        let rest = &text[at + name.len() + 2..];
        rest[..rest.find(" bits)").unwrap()].parse().unwrap()
    };
    text.lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|name| (name.trim().to_string(), width(name.trim())))
                .collect()
        })
        .collect()
}

fn rtype_diagram() -> String {
    let p = pipeline::load(&repo(), &repo().join("schema/rtype.yaml")).unwrap();
    let l = lower::lower(&p);
    backend::doc::diagram(&p, &l, p.root).text()
}

#[test]
fn the_rtype_header_is_drawn_as_the_rfc_draws_it() {
    // The RFC's names for the schema's fields.
    let names = [
        ("Magic Number", "magic"),
        ("Command ID", "command"),
        ("Flags", "flags"),
        ("Sequence ID", "sequence"),
        ("Ack ID", "ack"),
        ("Fragment ID", "fragment_id"),
        ("Frag Index", "fragment_index"),
        ("Total Frags", "fragment_count"),
        ("Payload Size", "payload_size"),
        ("Checksum", "checksum"),
    ];
    let rfc: Vec<Vec<(String, usize)>> = rfc_rows()
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|(name, bits)| {
                    let ours = names.iter().find(|(n, _)| *n == name).unwrap().1;
                    (ours.to_string(), bits)
                })
                .collect()
        })
        .collect();
    assert_eq!(rfc.len(), 5, "the RFC draws five rows of 32 bits");
    let diagram = rtype_diagram();
    let ours = rows(&diagram);
    assert_eq!(ours[..5], rfc[..], "\n{diagram}");
    // Then the payload, to the end.
    assert_eq!(ours[5], vec![("payload".to_string(), 32)], "\n{diagram}");
    // And the committed reference shows exactly this diagram.
    let md = fs::read_to_string(repo().join("docs/protocols/rtype.md")).unwrap();
    assert!(md.contains(&diagram), "docs/protocols/rtype.md is stale");
}

#[test]
fn lsb_first_streams_are_numbered_in_stream_order() {
    let p = pipeline::load(&repo(), &repo().join("schema/game-protocol.yaml")).unwrap();
    let l = lower::lower(&p);
    let sid = p
        .structs
        .iter()
        .position(|s| s.name == "ServerMessage")
        .unwrap();
    let diagram = backend::doc::diagram(&p, &l, sid).text();
    assert!(diagram.starts_with("bit stream, least significant bit of each byte first"));
    // A 1-bit variant, then the body: the variant's label does not fit a 1-bit box, so it is
    // keyed.
    let first = &rows(&diagram)[0];
    assert_eq!(first[0], ("a".to_string(), 1), "\n{diagram}");
    assert!(diagram.contains("\na: variant\n"), "\n{diagram}");
}

#[test]
fn bit_groups_are_drawn_where_their_bits_are() {
    // control: a big-endian u16 packed low bits first (kind in the low 4): on the wire the
    // length's 12 bits come first. status: one byte, first field in the high bit. word: a
    // little-endian u32 scatters its fields over its bytes: drawn as one integer.
    let file = repo().join("codegen/tests/golden/bit_groups.yaml");
    let p = pipeline::load(&repo(), &file).unwrap();
    let l = lower::lower(&p);
    let diagram = backend::doc::diagram(&p, &l, p.root).text();
    let row = |cells: &[(&str, usize)]| -> Vec<(String, usize)> {
        cells.iter().map(|(n, w)| (n.to_string(), *w)).collect()
    };
    let expected = vec![
        row(&[
            ("length", 12),
            ("kind", 4),
            ("a", 1),
            ("b", 1),
            ("level", 3),
            ("spare", 3),
            ("", 8),
        ]),
        row(&[("word", 24), ("extra?", 8)]),
        row(&[("", 8), ("payload", 24)]),
    ];
    assert_eq!(rows(&diagram), expected, "\n{diagram}");
    for key in ["a: urgent", "b: has_extra"] {
        assert!(diagram.contains(key), "{key}\n{diagram}");
    }
}

#[test]
fn a_wiregen_toml_with_doc_out_and_json_schema_writes_and_checks_them() {
    let dir = std::env::temp_dir().join(format!("wiregen-doc-toml-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("schema")).unwrap();
    fs::copy(
        repo().join("schema/rtype.yaml"),
        dir.join("schema/rtype.yaml"),
    )
    .unwrap();
    fs::write(
        dir.join("wiregen.toml"),
        "schemas = [\"schema/rtype.yaml\"]\nrust_out = \"src\"\ndoc_out = \"reference\"\n\
         json_schema = \"wiregen.schema.json\"\nprune = true\n",
    )
    .unwrap();
    let wiregen = env!("CARGO_BIN_EXE_wiregen");
    let run = |cmd: &str| {
        std::process::Command::new(wiregen)
            .args(["--root"])
            .arg(&dir)
            .arg(cmd)
            .output()
            .unwrap()
    };
    assert!(run("generate").status.success());
    let html = fs::read_to_string(dir.join("reference/rtype.html")).unwrap();
    assert!(dir.join("reference/rtype.md").is_file());
    assert_eq!(
        fs::read_to_string(dir.join("wiregen.schema.json")).unwrap(),
        wiregen::schema::json_schema()
    );
    // One self-contained page: nothing fetched when it is opened (the SVG namespace is a name).
    for fetch in ["src=", "<link", "@import", "url("] {
        assert!(!html.contains(fetch), "{fetch} in the HTML");
    }
    assert_eq!(
        html.matches("http").count(),
        html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert!(run("check").status.success());
    // A stale reference fails `check`, naming it; a reference no schema makes is an orphan.
    fs::write(dir.join("reference/rtype.md"), "edited").unwrap();
    fs::write(dir.join("reference/old.md"), "gone").unwrap();
    let out = run("check");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.contains("stale:") && text.contains("rtype.md"),
        "{text}"
    );
    assert!(
        text.contains("orphan:") && text.contains("old.md"),
        "{text}"
    );
}
