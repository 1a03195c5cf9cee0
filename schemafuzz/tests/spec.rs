//! The spec tools on schemas we did not write: for 300 seeds, the published JSON Schema accepts
//! every file, the reference documents draw every type (a type of one fixed size with exactly
//! that many bits), and `wiregen diff` finds a schema equal to itself.

use std::path::Path;
use wiregen::diff::{self, Side};
use wiregen::{backend, lower};

#[test]
fn random_schemas_validate_document_and_equal_themselves() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let schema = std::fs::read_to_string(repo.join("docs/wiregen.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&schema).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("schemafuzz-spec");
    std::fs::create_dir_all(&dir).unwrap();
    let mut problems = Vec::new();
    for seed in 0..300 {
        let files = wiregen_schemafuzz::schema_files(seed, &repo.join("schema"));
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
            let doc: serde_json::Value = serde_norway::from_str(text).unwrap();
            for e in validator.iter_errors(&doc) {
                problems.push(format!("seed {seed}: {name}: {e} at {}", e.instance_path()));
            }
        }
        let path = dir.join(&files.last().unwrap().0);
        let side = Side::load(&path, None).unwrap();
        let p = &side.p;
        let lowered = lower::lower(p);
        let docs = backend::doc::generate(p, &lowered, "out");
        for (sid, s) in p.structs.iter().enumerate() {
            if !docs[0].contents.contains(&format!("### `{}`", s.name)) {
                problems.push(format!("seed {seed}: no section for {}", s.name));
            }
            // A type of one fixed size is drawn with exactly that many bits.
            if let Some(bits) = lower::struct_bits(p, sid) {
                let cells = backend::doc::diagram(p, &lowered, sid).cells;
                let drawn: Option<u64> = cells.iter().map(|c| c.bits).sum();
                if drawn != Some(bits) {
                    problems.push(format!(
                        "seed {seed}: {} is {bits} bits, drawn {drawn:?}",
                        s.name
                    ));
                }
            }
        }
        // A schema equals itself: the same loaded side on both.
        let same = diff::diff(&side, &side);
        for c in same {
            problems.push(format!("seed {seed}: differs from itself: {c}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
