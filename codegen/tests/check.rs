//! `wiregen check` from `cargo test`: every committed generated file (crates, dissectors,
//! wirecat's registry, fuzz targets) is what the schemas generate now, for this repository and
//! for the fixture root (each described by its `wiregen.toml`), and no file in their output
//! folders is an orphan.

use std::path::Path;
use wiregen::pipeline;

fn check(root: &Path) {
    let plan = wiregen::Builder::from_config(root)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("{}: no wiregen.toml", root.display()))
        .outputs()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        plan.errors.0.is_empty() && plan.not_generated.0.is_empty(),
        "{}: every schema generates both outputs:\n{}{}",
        root.display(),
        plan.errors,
        plan.not_generated
    );
    assert!(!plan.outputs.is_empty(), "{}: no outputs", root.display());
    let mut problems = pipeline::stale_files(Path::new(""), &plan.outputs);
    problems.extend(
        plan.orphans
            .iter()
            .map(|o| format!("orphan: {}", o.display())),
    );
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
