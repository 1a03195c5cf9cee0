//! Golden snippets: one small schema per construct in `tests/golden/`, with the Rust (`.rs`, the
//! generated `codec.rs`) and Lua (`.lua`) it generates committed beside it. A change to the
//! generator shows, in review, exactly what it changes in the output.
//!
//! `UPDATE_GOLDEN=1 cargo test -p wiregen --test golden` rewrites the committed outputs.

use std::path::{Path, PathBuf};
use wiregen::pipeline;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// (file name, generated text) of the outputs a snippet is compared on.
fn snippet_outputs(schema: &Path) -> Vec<(String, String)> {
    let dir = golden_dir();
    let p = pipeline::load(&dir, schema).unwrap_or_else(|d| panic!("{d}"));
    // The runtime dependency is not part of a snippet: a fixed one keeps them independent of
    // where the repository lives.
    let runtime = wiregen::backend::rust::RuntimeDep("\"0.1\"".into());
    let (outputs, problems) = pipeline::outputs(&p, &runtime);
    assert!(problems.0.is_empty(), "{problems}");
    let stem = schema.file_stem().unwrap().to_string_lossy().to_string();
    outputs
        .into_iter()
        .filter_map(|o| {
            if o.path.ends_with("/src/codec.rs") {
                Some((format!("{stem}.rs"), o.contents))
            } else if o.path.ends_with(".lua") {
                Some((format!("{stem}.lua"), o.contents))
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn generated_code_matches_the_golden_snippets() {
    let dir = golden_dir();
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v != "0");
    let mut schemas: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    schemas.sort();
    assert!(schemas.len() >= 15, "{} golden schemas", schemas.len());
    let mut differ = Vec::new();
    for schema in &schemas {
        let outputs = snippet_outputs(schema);
        assert_eq!(outputs.len(), 2, "{}: a .rs and a .lua", schema.display());
        for (name, text) in outputs {
            let path = dir.join(&name);
            if update {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(committed) if committed == text => {}
                Ok(committed) => {
                    let line = committed
                        .lines()
                        .zip(text.lines())
                        .position(|(a, b)| a != b)
                        .map_or(committed.lines().count().min(text.lines().count()), |i| i);
                    differ.push(format!(
                        "{name}: differs from line {} (committed: {:?}, generated: {:?})",
                        line + 1,
                        committed.lines().nth(line).unwrap_or("<end>"),
                        text.lines().nth(line).unwrap_or("<end>")
                    ));
                }
                Err(_) => differ.push(format!("{name}: missing")),
            }
        }
    }
    assert!(
        differ.is_empty(),
        "golden snippets differ (run `UPDATE_GOLDEN=1 cargo test -p wiregen --test golden` and review the diff):\n{}",
        differ.join("\n")
    );
}
