//! Schemas in, files out: runs every schema through validation and both backends.

use crate::backend::rust::RuntimeDep;
use crate::backend::{self, Output};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Backend, Protocol};
use crate::lower::{lower, Lowered};
use crate::validate;
use std::fs;
use std::path::{Path, PathBuf};

/// Where the outputs of a repository go, relative to its root (this repository's
/// `wiregen.toml`; [`outputs`] writes these paths).
pub const GENERATED_DIR: &str = "generated";
pub const DISSECTOR_DIR: &str = "dissectors";

/// A schema file that cannot be read, as a diagnostic of that file.
pub(crate) fn unreadable(display: &str, e: std::io::Error) -> Diagnostics {
    Diagnostics(vec![Diagnostic {
        code: Code::E0005,
        file: display.to_string(),
        line: 1,
        col: 1,
        message: format!("cannot read: {e}"),
        hint: None,
    }])
}

/// Loads and validates one schema, shown in messages relative to `root`.
pub fn load(root: &Path, file: &Path) -> Result<Protocol, Diagnostics> {
    load_recording(file, Some(root)).map(|(p, _)| p)
}

/// Loads and validates one schema, and gives every file it read: itself and the schemas it
/// extends or rides on (found relative to it). Paths are shown relative to `root` when given,
/// else as they are.
pub fn load_recording(
    file: &Path,
    root: Option<&Path>,
) -> Result<(Protocol, Vec<PathBuf>), Diagnostics> {
    let shown = |p: &Path| {
        root.and_then(|r| p.strip_prefix(r).ok())
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let read = std::cell::RefCell::new(vec![file.to_path_buf()]);
    let display = shown(file);
    let source = fs::read_to_string(file).map_err(|e| unreadable(&display, e))?;
    let resolve = |name: &str| -> Result<(String, String), String> {
        let path = file.parent().unwrap_or(Path::new(".")).join(name);
        let text = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the base schema '{name}': {e}"))?;
        read.borrow_mut().push(path.clone());
        Ok((shown(&path), text))
    };
    let p = validate::load_with(&display, &source, &resolve)?;
    Ok((p, read.into_inner()))
}

/// A folder of the wiregen source this binary was built from (`runtime`, `verify`), when it is
/// still there (a checkout, or `cargo install --path codegen`; not a crate from crates.io).
pub fn source_folder(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?.join(name);
    let manifest = fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let wiregen_crate = manifest.contains(&format!("name = \"wiregen-{name}\""));
    wiregen_crate.then(|| dir.canonicalize().unwrap_or(dir))
}

/// The version requirement generated manifests put on wiregen's own crates (`wiregen-runtime`,
/// `wiregen-verify`).
pub const WIREGEN_VERSION: &str = "0.1";

/// The `rust-version` generated crates declare: the runtime's (the workspace's `rust-version`;
/// clippy's `incompatible_msrv` holds generated code to it in CI).
pub const GENERATED_RUST_VERSION: &str = "1.75";

/// A manifest's dependency on one of wiregen's own crates at `path` (a checkout), keeping the
/// version requirement for publishing; `/` separators on every platform.
pub fn path_dependency(path: &str) -> String {
    format!(
        "{{ version = \"{WIREGEN_VERSION}\", path = \"{}\" }}",
        path.replace('\\', "/")
    )
}

/// Every output file of one protocol that its backends can generate, and a diagnostic for each
/// one they cannot (validation found the construct; see `validate/checks/limits.rs`).
pub fn outputs(p: &Protocol, runtime: &RuntimeDep) -> (Vec<Output>, Diagnostics) {
    let rust = |l: &Lowered| {
        backend::rust::generate(p, l, &format!("{GENERATED_DIR}/{}", p.name), runtime)
    };
    let lua = format!("{DISSECTOR_DIR}/{}.lua", p.name);
    generate(
        p,
        &rust,
        Paths {
            lua: Some(&lua),
            csharp: None,
            doc: None,
        },
    )
}

/// Where the outputs beside the Rust go (`None`: not wanted).
#[derive(Clone, Copy, Default)]
pub(crate) struct Paths<'a> {
    pub(crate) lua: Option<&'a str>,
    pub(crate) csharp: Option<&'a str>,
    pub(crate) doc: Option<&'a str>,
}

/// The outputs of `p` its backends can generate: the Rust `rust` gives, the dissector at
/// `lua_path` and the reference documents in `doc_dir` when they are wanted. Each limit of a wanted output is reported (and stops that
/// output only), and so is a backend's refusal validation let through.
pub(crate) fn generate(
    p: &Protocol,
    rust: &dyn Fn(&Lowered) -> Result<Vec<Output>, backend::Internal>,
    paths: Paths,
) -> (Vec<Output>, Diagnostics) {
    let Paths {
        lua: lua_path,
        csharp: csharp_path,
        doc: doc_dir,
    } = paths;
    let wanted = |b: Backend| match b {
        Backend::Rust => true,
        Backend::Lua => lua_path.is_some(),
        Backend::CSharp => csharp_path.is_some(),
    };
    let mut out = Vec::new();
    let mut problems = Diagnostics(
        p.limits
            .iter()
            .filter(|l| wanted(l.backend))
            .map(|l| l.diagnostic.clone())
            .collect(),
    );
    // What validation let through and a backend still refused is a bug of the generator.
    let internal = |backend: Backend, u: backend::Internal| {
        Diagnostic {
        code: Code::I0001,
        file: p.source.clone(),
        line: 1,
        col: 1,
        message: format!(
            "internal error of the {} backend: {} (validation should have reported it at its position)",
            backend.language(),
            u.0
        ),
        hint: Some("please report this schema".into()),
    }
    };
    // Lowered once, rendered by each backend.
    let lowered = lower(p);
    if p.generates(Backend::Rust) {
        match rust(&lowered) {
            Ok(o) => out.extend(o),
            Err(u) => problems.0.push(internal(Backend::Rust, u)),
        }
    }
    if let Some(path) = lua_path.filter(|_| p.generates(Backend::Lua)) {
        match backend::lua::generate(p, &lowered, path) {
            Ok(o) => out.extend(o),
            Err(u) => problems.0.push(internal(Backend::Lua, u)),
        }
    }
    if let Some(path) = csharp_path.filter(|_| p.generates(Backend::CSharp)) {
        match backend::csharp::generate(p, &lowered, path) {
            Ok(o) => out.extend(o),
            Err(u) => problems.0.push(internal(Backend::CSharp, u)),
        }
    }
    if let Some(dir) = doc_dir {
        out.extend(backend::doc::generate(p, &lowered, dir));
    }
    (out, problems)
}

/// Each of `outputs` (paths relative to `root`) that is missing or differs on disk, one line each.
pub fn stale_files(root: &Path, outputs: &[Output]) -> Vec<String> {
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
    problems
}
