//! Release habits of the published crates (`wiregen-runtime`, `wiregen`, `wiregen-verify`):
//! their declared `rust-version` is honest against their dependencies, and every one carries
//! the metadata and license files a crates.io release needs.

use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use wiregen_tests::repo_root;

const PUBLISHED: &[&str] = &["wiregen-runtime", "wiregen", "wiregen-verify"];

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(repo_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// `1.75` or `1.75.0` as (major, minor, patch).
fn version(v: &str) -> (u64, u64, u64) {
    let mut parts = v.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[test]
fn no_dependency_needs_a_newer_rust_than_the_published_crates_declare() {
    let meta = metadata();
    let packages: HashMap<&str, &Value> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let nodes: HashMap<&str, &Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let mut too_new = Vec::new();
    for name in PUBLISHED {
        let (id, pkg) = packages
            .iter()
            .find(|(_, p)| p["name"] == *name)
            .unwrap_or_else(|| panic!("{name} is a workspace member"));
        let declared = pkg["rust_version"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} declares no rust-version"));
        // Every package it builds with (normal and build dependencies, transitively).
        let mut seen = BTreeMap::new();
        let mut todo = vec![*id];
        while let Some(at) = todo.pop() {
            for dep in nodes[at]["deps"].as_array().unwrap() {
                let kinds = dep["dep_kinds"].as_array().unwrap();
                let builds_with = kinds.iter().any(|k| k["kind"] != "dev");
                let dep_id = dep["pkg"].as_str().unwrap();
                if builds_with && seen.insert(dep_id, ()).is_none() {
                    todo.push(dep_id);
                }
            }
        }
        for dep in seen.keys() {
            let p = packages[dep];
            if let Some(needs) = p["rust_version"].as_str() {
                if version(needs) > version(declared) {
                    too_new.push(format!(
                        "{name} declares rust-version {declared}, but {} {} needs {needs}",
                        p["name"].as_str().unwrap(),
                        p["version"].as_str().unwrap()
                    ));
                }
            }
        }
    }
    assert!(too_new.is_empty(), "{}", too_new.join("\n"));
}

#[test]
fn published_crates_carry_metadata_and_licenses() {
    let meta = metadata();
    for name in PUBLISHED {
        let pkg = meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == *name)
            .unwrap();
        for key in ["description", "license", "readme", "rust_version"] {
            assert!(pkg[key].is_string(), "{name} has no {key}");
        }
        for key in ["keywords", "categories", "authors"] {
            assert!(
                pkg[key].as_array().is_some_and(|a| !a.is_empty()),
                "{name} has no {key}"
            );
        }
        let dir = std::path::Path::new(pkg["manifest_path"].as_str().unwrap())
            .parent()
            .unwrap()
            .to_path_buf();
        for file in ["LICENSE-MIT", "LICENSE-APACHE"] {
            let text = std::fs::read_to_string(dir.join(file))
                .unwrap_or_else(|e| panic!("{name}: {file}: {e}"));
            assert!(
                text.contains("Permission is hereby granted") || text.contains("Apache License")
            );
        }
        let readme = dir.join(pkg["readme"].as_str().unwrap());
        assert!(readme.is_file(), "{name}: {} is missing", readme.display());
    }
    let changelog = std::fs::read_to_string(repo_root().join("CHANGELOG.md")).unwrap();
    assert!(changelog.contains("## [Unreleased]"));
}
