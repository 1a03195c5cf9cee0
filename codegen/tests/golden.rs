//! Golden snippets: one small schema per construct in `tests/golden/`, with the Rust (`.rs`, the
//! generated `codec.rs`), Lua (`.lua`) and C# (`.cs`, where the C# codec is generated) it
//! generates committed beside it. A change to the
//! generator shows, in review, exactly what it changes in the output. One test per snippet; a
//! difference is shown as a unified diff.
//!
//! `UPDATE_GOLDEN=1 cargo test -p wiregen --test golden` rewrites the committed outputs.

mod common;

use common::Failure;
use datatest_stable::Utf8Path;
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
    let runtime = wiregen::backend::rust::RuntimeDep::Published;
    let (outputs, problems) = pipeline::outputs(&p, &runtime);
    assert!(problems.0.is_empty(), "{problems}");
    let stem = schema.file_stem().unwrap().to_string_lossy().to_string();
    let csharp = p.generates(wiregen::ir::Backend::CSharp).then(|| {
        let l = wiregen::lower::lower(&p);
        let out = wiregen::backend::csharp::generate(&p, &l, "golden.cs")
            .unwrap_or_else(|e| panic!("{}: {}", schema.display(), e.0));
        (format!("{stem}.cs"), out[0].contents.clone())
    });
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
        .chain(csharp)
        .collect()
}

/// The committed outputs of one snippet schema are what it generates.
fn snippet(schema: &Utf8Path) -> datatest_stable::Result<()> {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join(schema.as_std_path());
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v != "0");
    let outputs = snippet_outputs(&schema);
    assert!(
        (2..=3).contains(&outputs.len()),
        "{}: a .rs, a .lua and a .cs",
        schema.display()
    );
    let mut differ = String::new();
    for (name, text) in outputs {
        let path = golden_dir().join(&name);
        if update {
            std::fs::write(&path, &text)?;
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let (old, new) = (format!("{name} (committed)"), format!("{name} (generated)"));
        differ += &common::diff(&committed, &text, &old, &new).unwrap_or_default();
    }
    if differ.is_empty() {
        Ok(())
    } else {
        Err(Failure(format!(
            "the snippet's outputs differ (run `UPDATE_GOLDEN=1 cargo test -p wiregen --test golden` \
             and review the diff):\n{differ}"
        ))
        .into())
    }
}

datatest_stable::harness! {
    { test = snippet, root = "tests/golden", pattern = r"^[^/]+\.yaml$" },
}
