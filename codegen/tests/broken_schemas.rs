//! A corpus of broken schemas (`tests/broken/*.yaml`): each file's leading `# error:` comments
//! are exactly the diagnostics the generator must print for it (file:line:column, message,
//! hint), and the generator must not panic on any of them.

use std::path::Path;
use wiregen::pipeline;

#[test]
fn every_broken_schema_gets_its_messages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let dir = root.join("broken");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "{} broken schemas", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let expected: Vec<String> = text
            .lines()
            .map_while(|l| l.strip_prefix("# error: "))
            .map(str::to_string)
            .collect();
        let got: Vec<String> = match std::panic::catch_unwind(|| pipeline::load(&root, file)) {
            Ok(Ok(p)) => {
                let (_, problems) = pipeline::outputs(&p, &pipeline::runtime_dep(&root));
                problems.0.iter().map(|d| d.to_string()).collect()
            }
            Ok(Err(d)) => d.0.iter().map(|d| d.to_string()).collect(),
            Err(_) => vec!["PANIC".to_string()],
        };
        if got.is_empty() || got != expected {
            failures.push(format!(
                "{}:\n  expected {expected:#?}\n  got {got:#?}",
                file.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
