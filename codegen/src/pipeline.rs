//! Schemas in, files out: runs every schema through validation and both backends.

use crate::backend::rust::RuntimeDep;
use crate::backend::{self, Output};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::Protocol;
use crate::validate;
use std::fs;
use std::path::{Path, PathBuf};

/// Where the outputs of a repository go, relative to its root.
pub const SCHEMA_DIR: &str = "schema";
pub const GENERATED_DIR: &str = "generated";
pub const DISSECTOR_DIR: &str = "dissectors";

/// Every `*.yaml` schema under `root/schema`, sorted.
pub fn schema_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = root.join(SCHEMA_DIR);
    let entries = fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let is_schema = |p: &PathBuf| p.extension().is_some_and(|x| x == "yaml" || x == "yml");
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(is_schema)
        .collect();
    // Application schemas on top of the transports: `schema/examples/`.
    if let Ok(examples) = fs::read_dir(dir.join("examples")) {
        files.extend(
            examples
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(is_schema),
        );
    }
    files.sort();
    Ok(files)
}

/// Loads and validates one schema; `display` is the path used in messages.
pub fn load(root: &Path, file: &Path) -> Result<Protocol, Diagnostics> {
    let display = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    let source = fs::read_to_string(file).map_err(|e| {
        Diagnostics(vec![Diagnostic {
            file: display.clone(),
            line: 1,
            col: 1,
            message: format!("cannot read: {e}"),
            hint: None,
        }])
    })?;
    // A base schema is read relative to the file that extends it.
    let resolve = |name: &str| -> Result<(String, String), String> {
        let path = file.parent().unwrap_or(root).join(name);
        let text = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the base schema '{name}': {e}"))?;
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        Ok((shown, text))
    };
    validate::load_with(&display, &source, &resolve)
}

/// How crates generated under `root` depend on `wiregen-runtime`: by path when `root` is this
/// repository or inside it (the runtime crate is found in `root` or a folder above it), and by
/// version requirement otherwise (a crate published to crates.io).
pub fn runtime_dep(root: &Path) -> RuntimeDep {
    const VERSION: &str = "0.1";
    let absolute = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for (ups, dir) in absolute.ancestors().enumerate() {
        let manifest = dir.join("runtime/Cargo.toml");
        let is_runtime =
            fs::read_to_string(&manifest).is_ok_and(|m| m.contains("name = \"wiregen-runtime\""));
        if is_runtime {
            // From `<root>/generated/<crate>` up to `root`, then up to `dir`.
            let path = "../".repeat(2 + ups) + "runtime";
            return RuntimeDep(format!("{{ version = \"{VERSION}\", path = \"{path}\" }}"));
        }
    }
    RuntimeDep(format!("\"{VERSION}\""))
}

/// Every output file of one protocol.
pub fn outputs(p: &Protocol, runtime: &RuntimeDep) -> Result<Vec<Output>, Diagnostics> {
    let unsupported = |u: backend::Unsupported| {
        Diagnostics(vec![Diagnostic {
            file: p.source.clone(),
            line: 1,
            col: 1,
            message: u.0,
            hint: None,
        }])
    };
    let mut out = backend::rust::generate(p, &format!("{GENERATED_DIR}/{}", p.name), runtime)
        .map_err(unsupported)?;
    out.extend(
        backend::lua::generate(p, &format!("{DISSECTOR_DIR}/{}.lua", p.name))
            .map_err(unsupported)?,
    );
    Ok(out)
}

/// Every output of every schema, plus the files that tie them together (the wirecat registry).
pub fn all_outputs(root: &Path) -> Result<Vec<Output>, String> {
    let mut protocols = Vec::new();
    let mut errors = Diagnostics::default();
    for file in schema_files(root)? {
        match load(root, &file) {
            Ok(p) => protocols.push(p),
            Err(d) => errors.0.extend(d.0),
        }
    }
    let mut out = Vec::new();
    let runtime = runtime_dep(root);
    for p in &protocols {
        match outputs(p, &runtime) {
            Ok(o) => out.extend(o),
            Err(d) => errors.0.extend(d.0),
        }
    }
    if !errors.0.is_empty() {
        return Err(errors.to_string());
    }
    // wirecat links the crates of the main repository only (not of test fixtures).
    if root.join("wirecat/src/main.rs").is_file() {
        out.extend(backend::wirecat::generate(&protocols));
    }
    if root.join("fuzz").is_dir() {
        out.extend(backend::fuzz::generate(&protocols));
    }
    Ok(out)
}

/// What `wiregen check` reports: every committed output that is stale, missing or orphaned
/// (one line each); empty when all are fresh.
pub fn stale(root: &Path, outputs: &[Output]) -> Vec<String> {
    let mut problems = Vec::new();
    for o in outputs {
        match fs::read_to_string(root.join(&o.path)) {
            Ok(text) if text == o.contents => {}
            Ok(_) => problems.push(format!(
                "stale: {} (differs from what its schema generates)",
                o.path
            )),
            Err(_) => problems.push(format!("missing: {}", o.path)),
        }
    }
    for orphan in orphans(root, outputs) {
        problems.push(format!("orphan: {orphan} (no schema generates it)"));
    }
    problems
}

/// Files under the generated folders that no schema produces any more.
pub fn orphans(root: &Path, outputs: &[Output]) -> Vec<String> {
    let mut found = Vec::new();
    for dir in [GENERATED_DIR, DISSECTOR_DIR] {
        collect(root, &root.join(dir), &mut found);
    }
    found.retain(|f| !outputs.iter().any(|o| &o.path == f) && !f.contains("/target/"));
    found.sort();
    found
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.display().to_string());
        }
    }
}
