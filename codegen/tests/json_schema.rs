//! The published JSON Schema of the schema language (`docs/wiregen.schema.json`): fresh,
//! accepting every schema wiregen accepts (shipped, golden, regressions), and refusing every
//! broken schema whose mistake is one of shape (E0001: an unknown key, a wrong type of value),
//! which is what an editor's YAML language server can flag while typing.

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn validator() -> jsonschema::Validator {
    let text = fs::read_to_string(repo().join("docs/wiregen.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).expect("the published schema is a valid JSON Schema")
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

/// The document as JSON, as a YAML language server sees it (`None` when it is not YAML).
fn as_json(path: &Path) -> Option<serde_json::Value> {
    serde_norway::from_str(&fs::read_to_string(path).unwrap()).ok()
}

#[test]
fn the_published_schema_is_what_the_loader_accepts() {
    let committed = fs::read_to_string(repo().join("docs/wiregen.schema.json")).unwrap();
    assert!(
        committed == wiregen::schema::json_schema(),
        "docs/wiregen.schema.json is stale: run `wiregen generate`"
    );
}

#[test]
fn every_accepted_schema_validates() {
    let v = validator();
    let mut dirs = vec![repo().join("schema"), repo().join("schema/examples")];
    dirs.push(repo().join("codegen/tests/golden"));
    dirs.push(repo().join("codegen/tests/regressions"));
    dirs.push(repo().join("tests/fixture/schema"));
    let mut checked = 0;
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        for file in yaml_files(dir) {
            let doc = as_json(&file).unwrap_or_else(|| panic!("{} is YAML", file.display()));
            let errors: Vec<String> = v
                .iter_errors(&doc)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
            checked += 1;
        }
    }
    assert!(checked >= 80, "only {checked} schemas found");
}

#[test]
fn shape_mistakes_are_refused() {
    let v = validator();
    let mut refused = Vec::new();
    for file in yaml_files(&repo().join("codegen/tests/broken")) {
        let text = fs::read_to_string(&file).unwrap();
        if !text
            .lines()
            .next()
            .is_some_and(|l| l.contains("error[E0001]"))
        {
            continue;
        }
        // YAML syntax errors are the language server's parser's to report.
        let Some(doc) = as_json(&file) else { continue };
        assert!(
            !v.is_valid(&doc),
            "{} passes the JSON Schema",
            file.display()
        );
        refused.push(file);
    }
    assert!(refused.len() >= 5, "{refused:?}");
}
