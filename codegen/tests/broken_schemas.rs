//! A corpus of broken schemas (`tests/broken/*.yaml`): each file's leading `# error:` comments
//! are exactly the diagnostics the generator must print for it (file:line:column, message,
//! hint), and the generator must not panic on any of them. One test per schema; a difference
//! is shown as a unified diff. `UPDATE_BROKEN=1 cargo test -p wiregen --test broken_schemas`
//! rewrites those lines with what the generator prints now: review the diff.
//!
//! Each line carries the diagnostic's stable code (`error[E0302]`): a message may be reworded,
//! but a schema mistake keeps its code (`docs/diagnostics.md`).

mod common;

use common::Failure;
use datatest_stable::Utf8Path;
use std::path::Path;
use wiregen::pipeline;

fn broken_schema(file: &Utf8Path, text: String) -> datatest_stable::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(file.as_std_path());
    let expected: Vec<&str> = text
        .lines()
        .map_while(|l| l.strip_prefix("# error: "))
        .collect();
    if expected.is_empty() {
        let why = "a broken schema starts with the `# error:` lines it must get";
        return Err(Failure(why.into()).into());
    }
    let got: Vec<String> = match std::panic::catch_unwind(|| pipeline::load(&root, &file)) {
        Ok(Ok(p)) => {
            let (_, problems) =
                pipeline::outputs(&p, &wiregen::backend::rust::RuntimeDep::Published);
            problems.0.iter().map(|d| d.to_string()).collect()
        }
        Ok(Err(d)) => d.0.iter().map(|d| d.to_string()).collect(),
        Err(_) => vec!["PANIC".to_string()],
    };
    let update = std::env::var_os("UPDATE_BROKEN").is_some_and(|v| v != "0");
    if update && expected != got && !got.iter().any(|g| g == "PANIC") {
        let rest: Vec<&str> = text.lines().skip(expected.len()).collect();
        let header: Vec<String> = got.iter().map(|g| format!("# error: {g}")).collect();
        let rewritten = header.join("\n") + "\n" + &rest.join("\n") + "\n";
        std::fs::write(&file, rewritten).map_err(|e| Failure(e.to_string()))?;
        return Ok(());
    }
    let (expected, got) = (expected.join("\n") + "\n", got.join("\n") + "\n");
    match common::diff(&expected, &got, "expected", "got") {
        None => Ok(()),
        Some(diff) => Err(Failure(format!(
            "its diagnostics differ from its `# error:` lines:\n{diff}"
        ))
        .into()),
    }
}

datatest_stable::harness! {
    { test = broken_schema, root = "tests/broken", pattern = r"^[^/]+\.yaml$" },
}
