//! The generator's schemas (and extensions) are valid by construction and generate both outputs: 300 seeds
//! through validation and both backends (no compiler, no tshark: `schemafuzz` and `./test.sh`
//! build and run what they generate).

use std::path::Path;
use wiregen::pipeline;

#[test]
fn every_seed_validates_and_generates_both_outputs() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let schema_dir = repo.join("schema");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("schemafuzz-valid");
    std::fs::create_dir_all(&dir).unwrap();
    let mut problems = Vec::new();
    let (mut applications, mut extensions) = (0, 0);
    for seed in 0..300 {
        let files = wiregen_schemafuzz::schema_files(seed, &schema_dir);
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let (name, text) = files.last().unwrap();
        applications += usize::from(text.contains("application:"));
        extensions += usize::from(text.contains("extends:"));
        let path = dir.join(name);
        match pipeline::load(&dir, &path) {
            Err(d) => problems.push(format!("seed {seed}: refused:\n{d}\n{text}")),
            Ok(p) => {
                let (_, diags) =
                    pipeline::outputs(&p, &wiregen::backend::rust::RuntimeDep::Published);
                if !diags.0.is_empty() {
                    problems.push(format!("seed {seed}: not generated:\n{diags}\n{text}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The mix is what the generator promises: some applications among the protocols.
    assert!(
        (30..=90).contains(&applications),
        "{applications} applications in 300 seeds"
    );
    assert!(
        (20..=70).contains(&extensions),
        "{extensions} extensions in 300 seeds"
    );
    // The same seed is the same schema.
    assert_eq!(wiregen_schemafuzz::schema(7), wiregen_schemafuzz::schema(7));
}
