//! `wiregen check` from `cargo test`: every committed generated file (crates, dissectors,
//! wirecat's registry, fuzz targets) is what the schemas generate now, for this repository and
//! for the fixture root.

use std::path::Path;
use wiregen::pipeline;

fn check(root: &Path) {
    let generation = pipeline::all_outputs(root).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        generation.errors.0.is_empty(),
        "{}: every schema generates both outputs:\n{}",
        root.display(),
        generation.errors
    );
    let outputs = generation.outputs;
    assert!(!outputs.is_empty(), "{}: no outputs", root.display());
    let problems = pipeline::stale(root, &outputs);
    assert!(
        problems.is_empty(),
        "{}: run `cargo run -p wiregen -- generate` (and `--root tests/fixture generate`) and commit:\n{}",
        root.display(),
        problems.join("\n")
    );
}

#[test]
fn committed_outputs_are_fresh() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    check(&repo);
    check(&repo.join("tests/fixture"));
}
