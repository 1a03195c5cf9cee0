//! Schemas nobody in this repository wrote that once broke an output (a crate that did not
//! compile, a disagreement, a Lua error: `tests/regressions/*.yaml`, each saying what went
//! wrong), proven again by `wiregen verify` in real tshark. The schemas the generator now
//! refuses instead are broken schemas (`tests/broken/69-…` to `73-…`).

use std::path::Path;
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
    let out = Command::new(env!("CARGO_BIN_EXE_wiregen"))
        .arg("verify")
        .args(&schemas)
        .args(["--messages", "300", "--hostile", "300", "--work-dir"])
        .arg(&work)
        .output()
        .expect("runs wiregen verify");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // One summary line per schema, each ending in "ok".
    let summaries: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("fuzz: ") && l.contains(" messages agree "))
        .collect();
    assert!(
        out.status.success() && summaries.len() == schemas.len(),
        "{} of {} schemas verified:\n{stdout}\n{stderr}",
        summaries.iter().filter(|l| l.ends_with(": ok")).count(),
        schemas.len()
    );
}
