//! Generating from a `build.rs` (the way `prost-build` does) or into any folder: schema files by
//! path, the Rust and the Lua where the caller says.
//!
//! ```no_run
//! // build.rs of a game crate (which depends on `wiregen-runtime`):
//! fn main() -> Result<(), wiregen::Error> {
//!     wiregen::Builder::new()
//!         .schema("schema/mygame.yaml")
//!         .lua_out("dissectors")
//!         .compile()?;
//!     Ok(())
//! }
//! // src/lib.rs:
//! // wiregen_runtime::include_protocol!(mygame);
//! ```

use crate::backend::rust::{self, ModuleOptions};
use crate::backend::{self, Output};
use crate::diag::Diagnostics;
use crate::ir::{Backend, Protocol};
use crate::pipeline;
use std::fmt;
use std::path::{Path, PathBuf};

/// Which schemas to generate and where their outputs go.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    schemas: Vec<PathBuf>,
    schema_dirs: Vec<PathBuf>,
    rust_out: Option<PathBuf>,
    lua_out: Option<PathBuf>,
    csharp_out: Option<PathBuf>,
    doc_out: Option<PathBuf>,
    json_schema: Option<PathBuf>,
    crates: bool,
    runtime_path: Option<PathBuf>,
    generator_path: Option<PathBuf>,
    options: ModuleOptions,
    keep_going: bool,
    prune: bool,
    wirecat: Option<PathBuf>,
    fuzz: Option<PathBuf>,
    base: Option<PathBuf>,
}

/// One file generation wrote or found unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// False when the file already held exactly this text (it is not touched, so cargo does not
    /// rebuild what includes it).
    pub changed: bool,
}

/// Why generation failed: schema errors (each `file:line:col: message (hint)`), or a file that
/// could not be read or written.
pub enum Error {
    /// The schemas' mistakes, each at its position.
    Schema(Diagnostics),
    /// A file that could not be read or written.
    Io(PathBuf, std::io::Error),
    /// No Rust output folder given and no `OUT_DIR` (not running as a build script).
    NoRustOut,
    /// A `wiregen.toml` that cannot be read as one.
    Config(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Schema(d) => write!(f, "{}", d.to_string().trim_end()),
            Error::Io(path, e) => write!(f, "{}: {e}", path.display()),
            Error::NoRustOut => write!(
                f,
                "no Rust output folder: call rust_out(), or run as a build script (OUT_DIR)"
            ),
            Error::Config(message) => write!(f, "{message}"),
        }
    }
}

/// Shown as the message itself: a build script that returns this error prints it readably.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{self}")
    }
}

impl std::error::Error for Error {}

impl Builder {
    /// A builder of no schemas yet, writing Rust into `OUT_DIR` and no Lua.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a schema file (any path). A schema it extends or rides on (`extends`,
    /// `application.transport`) is found relative to it and generated alongside.
    pub fn schema(mut self, path: impl AsRef<Path>) -> Self {
        self.schemas.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds several schema files.
    pub fn schemas<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        self.schemas
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// Adds every schema (`*.yaml`, `*.yml`) directly in `dir`, in the order of their names.
    pub fn schema_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.schema_dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// Where the Rust goes (default: `OUT_DIR`): one `<protocol>.rs` per schema, for
    /// `wiregen_runtime::include_protocol!`, or a crate folder per schema with
    /// [`Builder::crates`].
    pub fn rust_out(mut self, dir: impl AsRef<Path>) -> Self {
        self.rust_out = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Where the dissectors go (`<protocol>.lua`); none are written without it.
    pub fn lua_out(mut self, dir: impl AsRef<Path>) -> Self {
        self.lua_out = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Where the C# codecs go (`<Protocol>.cs`, and the runtime's `WiregenRuntime.cs`,
    /// `WiregenReader.cs` and `WiregenWriter.cs` they all use); none are written without it.
    pub fn csharp_out(mut self, dir: impl AsRef<Path>) -> Self {
        self.csharp_out = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Where the reference documents go: `<protocol>.md` and `<protocol>.html` (one
    /// self-contained page) per schema, each type with its packet diagram and field table;
    /// none are written without it.
    pub fn doc_out(mut self, dir: impl AsRef<Path>) -> Self {
        self.doc_out = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Writes the JSON Schema of the schema language to this file, for editors with a YAML
    /// language server (`# yaml-language-server: $schema=<path>` atop a schema).
    pub fn json_schema(mut self, file: impl AsRef<Path>) -> Self {
        self.json_schema = Some(file.as_ref().to_path_buf());
        self
    }

    /// The folder the dissectors go to, if any (under [`Builder::base`]).
    pub fn lua_dir(&self) -> Option<PathBuf> {
        let base = self.base.clone().unwrap_or_default();
        self.lua_out.as_ref().map(|l| base.join(l))
    }

    /// The folder the other paths given are relative to (default: the current one), as a
    /// `wiregen.toml`'s paths are relative to its folder. Messages and generated comments show
    /// paths as given (`schema/game.yaml`, not `../game/schema/game.yaml`).
    pub fn base(mut self, dir: impl AsRef<Path>) -> Self {
        self.base = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Writes each schema's Rust as a crate of its own (`<rust_out>/<protocol>/Cargo.toml`,
    /// `src/`) with `serde` and `arbitrary` features, instead of one file to include.
    pub fn crates(mut self, on: bool) -> Self {
        self.crates = on;
        self
    }

    /// Crates ([`Builder::crates`]) and the wirecat crate depend on the runtime crate in this
    /// folder (relative to the base folder, or absolute), by a path from their own folder.
    /// Default: the published `wiregen-runtime`. Nothing is looked for on the machine: the
    /// manifests are a function of the schemas and of this choice.
    pub fn runtime_path(mut self, dir: impl AsRef<Path>) -> Self {
        self.runtime_path = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The fuzz crate ([`Builder::fuzz`]) depends on the generator crate (`wiregen`) in this
    /// folder, by a path from its own folder. Default: the published `wiregen`.
    pub fn generator_path(mut self, dir: impl AsRef<Path>) -> Self {
        self.generator_path = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Derives `serde::Serialize`/`Deserialize` on every type (one-file form; crates have a
    /// `serde` feature instead).
    pub fn serde(mut self, on: bool) -> Self {
        self.options.serde = on;
        self
    }

    /// Derives `arbitrary::Arbitrary` on every type (one-file form).
    pub fn arbitrary(mut self, on: bool) -> Self {
        self.options.arbitrary = on;
        self
    }

    /// Goes on past a schema with errors: the other schemas' outputs are still generated (and
    /// written by [`Builder::compile`], which then fails with every error). Default: the first
    /// error stops everything, nothing is written.
    pub fn keep_going(mut self, on: bool) -> Self {
        self.keep_going = on;
        self
    }

    /// The Rust and Lua output folders belong to wiregen: a file in them that no schema
    /// generates any more (a schema renamed or removed) is listed in [`Plan::orphans`] and
    /// removed by [`Builder::compile`] (`target/` folders excepted). Default: off.
    pub fn prune(mut self, on: bool) -> Self {
        self.prune = on;
        self
    }

    /// Writes the registry of a wirecat crate in `dir` (`Cargo.toml`, `src/registry.rs`) that
    /// links every generated crate ([`Builder::crates`]), so its binary reads all the
    /// protocols. The crate's own `src/main.rs` and `src/lib.rs` are not generated.
    pub fn wirecat(mut self, dir: impl AsRef<Path>) -> Self {
        self.wirecat = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Writes a cargo-fuzz crate in `dir` (`Cargo.toml`, `fuzz_targets/<protocol>.rs`): one
    /// target per generated crate ([`Builder::crates`]) and one for the generator itself.
    pub fn fuzz(mut self, dir: impl AsRef<Path>) -> Self {
        self.fuzz = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Generates every output. In a build script it also tells cargo to rerun when a schema
    /// (or a schema it builds on) changes.
    ///
    /// A construct only the dissector cannot show yet (see [`Plan::not_generated`]) does not
    /// hold back the Rust: it is written, the limit is printed (a cargo warning in a build
    /// script), and the dissector is not written. A limit of the Rust backend is an error.
    pub fn compile(&self) -> Result<Vec<Written>, Error> {
        let in_build_script = std::env::var_os("OUT_DIR").is_some();
        let plan = self.outputs()?;
        if in_build_script {
            for file in &plan.read {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
        let written = plan
            .outputs
            .iter()
            .map(write_if_changed)
            .collect::<Result<Vec<_>, _>>()?;
        if !plan.errors.0.is_empty() {
            let mut all = plan.errors;
            all.0.extend(plan.not_generated.0);
            return Err(Error::Schema(all));
        }
        plan.remove_orphans()?;
        if plan.rust_blocked {
            return Err(Error::Schema(plan.not_generated));
        }
        for d in plan.not_generated.0.iter().chain(&plan.warnings.0) {
            if in_build_script {
                println!("cargo:warning={d}");
            } else {
                eprintln!("{d}");
            }
        }
        Ok(written)
    }

    /// Each named schema in order, then what they build on (found while loading them): the
    /// protocols, the named ones, every file read and every error.
    fn load(&self, base: &Path) -> Result<Loaded, Error> {
        let mut schemas: Vec<PathBuf> = self.schemas.iter().map(|s| base.join(s)).collect();
        for dir in &self.schema_dirs {
            schemas.extend(schemas_in(&base.join(dir))?);
        }
        let mut protocols: Vec<Protocol> = Vec::new();
        let mut named: Vec<PlannedProtocol> = Vec::new();
        let mut read: Vec<PathBuf> = Vec::new();
        let mut errors = Diagnostics::default();
        let mut queue: std::collections::VecDeque<PathBuf> = schemas.iter().cloned().collect();
        while let Some(file) = queue.pop_front() {
            if read.contains(&file) {
                continue;
            }
            match pipeline::load_recording(&file, Some(base)) {
                Ok((p, files)) => {
                    if schemas.contains(&file) {
                        named.push(PlannedProtocol {
                            schema: file.clone(),
                            name: p.name.clone(),
                            application_on: p.application.as_ref().map(|a| a.transport.clone()),
                            claims_by_preference: p
                                .application
                                .as_ref()
                                .is_some_and(|a| a.own_id.is_some()),
                        });
                    }
                    read.push(file.clone());
                    queue.extend(files.into_iter().filter(|f| f != &file));
                    if !protocols.iter().any(|q| q.name == p.name) {
                        protocols.push(p);
                    }
                }
                Err(d) => {
                    read.push(file);
                    errors.0.extend(d.0);
                }
            }
        }
        Ok(Loaded {
            protocols,
            named,
            read,
            errors,
        })
    }

    /// The outputs of one protocol (its crate or module, dissector, C# codec, documents), and
    /// what its backends cannot generate.
    fn protocol_outputs(
        &self,
        p: &Protocol,
        rust_out: &Path,
        runtime: &rust::RuntimeDep,
    ) -> (Vec<Output>, Diagnostics) {
        let rust = |l: &crate::lower::Lowered| {
            if self.crates {
                let dir = rust_out.join(&p.name);
                rust::generate(p, l, &dir.display().to_string(), runtime)
            } else {
                let path = rust_out.join(format!("{}.rs", p.name));
                let contents = rust::generate_module(p, l, self.options)?;
                Ok(vec![Output {
                    path: path.display().to_string(),
                    contents,
                }])
            }
        };
        let lua = self
            .lua_out
            .as_ref()
            .map(|dir| dir.join(format!("{}.lua", p.name)).display().to_string());
        let doc = self.doc_out.as_ref().map(|dir| dir.display().to_string());
        let csharp = self.csharp_out.as_ref().map(|dir| {
            dir.join(backend::csharp::file_name(p))
                .display()
                .to_string()
        });
        pipeline::generate(
            p,
            &rust,
            pipeline::Paths {
                lua: lua.as_deref(),
                csharp: csharp.as_deref(),
                doc: doc.as_deref(),
            },
        )
    }

    /// Every file this configuration generates (paths as they will be written), every schema
    /// file read, and what could not be generated; nothing is written. Schema errors are an
    /// error; a backend's limit only stops that backend's output.
    pub fn outputs(&self) -> Result<Plan, Error> {
        let rust_out = match (&self.rust_out, std::env::var_os("OUT_DIR")) {
            (Some(dir), _) => dir.clone(),
            (None, Some(out)) => PathBuf::from(out),
            (None, None) => return Err(Error::NoRustOut),
        };
        // Files are read and written at `base`; messages and generated text show paths as given.
        let base = self.base.clone().unwrap_or_default();
        let Loaded {
            protocols,
            named,
            read,
            errors,
        } = self.load(&base)?;
        if !errors.0.is_empty() && !self.keep_going {
            return Err(Error::Schema(errors));
        }
        let mut out = Vec::new();
        let mut crates: Vec<&Protocol> = Vec::new();
        let mut warnings = Diagnostics::default();
        let mut not_generated = Diagnostics::default();
        // From `<rust_out>/<crate>` up to `rust_out` first.
        let runtime = match &self.runtime_path {
            Some(dir) => rust::RuntimeDep::Path(format!(
                "../{}",
                relative(&base.join(dir), &base.join(&rust_out))
            )),
            None => rust::RuntimeDep::Published,
        };
        for p in &protocols {
            let (o, problems) = self.protocol_outputs(p, &rust_out, &runtime);
            if o.iter().any(|f| f.path.ends_with("Cargo.toml")) {
                crates.push(p);
            }
            out.extend(o);
            not_generated.0.extend(problems.0);
            warnings.0.extend(p.warnings.iter().cloned());
        }
        // What ties the crates together: paths from those folders to the crates, and to
        // wiregen's own crates where the caller named their folders (else their published
        // version).
        let wiregen_crate = |given: &Option<PathBuf>, from: &Path| match given {
            Some(dir) => format!("path = \"{}\"", relative(&base.join(dir), from)),
            None => format!("version = \"{}\"", pipeline::WIREGEN_VERSION),
        };
        if let Some(dir) = &self.wirecat {
            out.extend(backend::wirecat::generate(
                &crates,
                dir,
                &relative(&base.join(&rust_out), &base.join(dir)),
                &wiregen_crate(&self.runtime_path, &base.join(dir)),
            ));
        }
        if let Some(dir) = &self.fuzz {
            out.extend(backend::fuzz::generate(
                &crates,
                dir,
                &relative(&base.join(&rust_out), &base.join(dir)),
                &wiregen_crate(&self.generator_path, &base.join(dir)),
            ));
        }
        if let Some(dir) = &self.csharp_out {
            out.extend(backend::csharp::runtime_outputs(dir));
            let riptide = &backend::csharp::riptide::rides_on_riptide;
            if protocols
                .iter()
                .any(|p| riptide(p) && p.generates(Backend::CSharp))
            {
                out.push(Output {
                    path: dir
                        .join(backend::csharp::riptide::RUNTIME_FILE)
                        .display()
                        .to_string(),
                    contents: backend::csharp::riptide::RUNTIME.to_string(),
                });
            }
        }
        if let Some(file) = &self.json_schema {
            out.push(Output {
                path: file.display().to_string(),
                contents: crate::schema::json_schema(),
            });
        }
        for o in &mut out {
            o.path = base.join(&o.path).display().to_string();
        }
        let orphans = if self.prune && errors.0.is_empty() {
            let mut owned = vec![base.join(&rust_out)];
            owned.extend(self.lua_out.as_ref().map(|l| base.join(l)));
            owned.extend(self.csharp_out.as_ref().map(|l| base.join(l)));
            owned.extend(self.doc_out.as_ref().map(|d| base.join(d)));
            orphans(&owned, &out)
        } else {
            // A schema with errors produced nothing: its committed files are not orphans.
            Vec::new()
        };
        Ok(Plan {
            outputs: out,
            protocols: named,
            read,
            rust_blocked: protocols.iter().any(|p| !p.generates(Backend::Rust)),
            not_generated,
            warnings,
            errors,
            orphans,
        })
    }
}

/// What a [`Builder`] would write.
#[derive(Debug)]
pub struct Plan {
    /// Every file, with its path as it will be written.
    pub outputs: Vec<Output>,
    /// The protocols of the named schemas, in the order named.
    pub protocols: Vec<PlannedProtocol>,
    /// Every schema file read (the named ones and those they build on).
    pub read: Vec<PathBuf>,
    /// Each construct a backend cannot generate yet, at its schema position: that backend's
    /// output of that schema is missing from `outputs`.
    pub not_generated: Diagnostics,
    /// What is probably not what the schemas mean, though everything is generated (`W…`:
    /// a type nothing reads).
    pub warnings: Diagnostics,
    /// Whether some schema's Rust is among what is missing.
    pub rust_blocked: bool,
    /// With [`Builder::keep_going`], the schemas' errors (those schemas have no outputs).
    pub errors: Diagnostics,
    /// With [`Builder::prune`], the files in the output folders no schema generates.
    pub orphans: Vec<PathBuf>,
}

impl Plan {
    /// Removes the [`Plan::orphans`]; gives what it removed.
    pub fn remove_orphans(&self) -> Result<&[PathBuf], Error> {
        for path in &self.orphans {
            std::fs::remove_file(path).map_err(|e| Error::Io(path.clone(), e))?;
        }
        Ok(&self.orphans)
    }
}

/// Every schema file directly in `dir`, by name.
fn schemas_in(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    let is_schema = |p: &PathBuf| p.extension().is_some_and(|x| x == "yaml" || x == "yml");
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && is_schema(p))
        .collect();
    files.sort();
    Ok(files)
}

/// Files under the `owned` folders that none of `outputs` is (`target/` folders left alone).
fn orphans(owned: &[PathBuf], outputs: &[Output]) -> Vec<PathBuf> {
    fn collect(dir: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    collect(&path, found);
                }
            } else {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    for dir in owned {
        collect(dir, &mut found);
    }
    found.retain(|f| !outputs.iter().any(|o| Path::new(&o.path) == f));
    found.sort();
    found.dedup();
    found
}

/// The path of `to` as seen from the folder `from`, `/`-separated (`../generated`): both are
/// made absolute first.
fn relative(to: &Path, from: &Path) -> String {
    // Canonical up to the deepest folder that exists, so that a symbolic link on the way reads
    // the same whether or not the rest of the path exists yet.
    let absolute = |p: &Path| {
        let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        p.ancestors()
            .find_map(|above| {
                let rest = p.strip_prefix(above).ok()?;
                Some(above.canonicalize().ok()?.join(rest))
            })
            .unwrap_or(p.clone())
    };
    let (to, from) = (absolute(to), absolute(from));
    let (to, from): (Vec<_>, Vec<_>) = (to.components().collect(), from.components().collect());
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// A protocol a named schema describes.
#[derive(Debug, Clone)]
pub struct PlannedProtocol {
    /// Its schema file.
    pub schema: PathBuf,
    /// `protocol.name`: its crate's folder, its dissector's file name, its filter prefix.
    pub name: String,
    /// For an application schema, the protocol it rides on.
    pub application_on: Option<String>,
    /// An application on a transport without message ids: its dissector reads payloads only
    /// where its preferences say (`<name>.udp_ports`, `<name>.every_payload`).
    pub claims_by_preference: bool,
}

/// Writes `o` unless the file already holds exactly its text.
pub fn write_if_changed(o: &Output) -> Result<Written, Error> {
    let path = PathBuf::from(&o.path);
    if std::fs::read_to_string(&path).ok().as_deref() == Some(o.contents.as_str()) {
        return Ok(Written {
            path,
            changed: false,
        });
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    }
    std::fs::write(&path, &o.contents).map_err(|e| Error::Io(path.clone(), e))?;
    Ok(Written {
        path,
        changed: true,
    })
}

/// What loading a configuration's schemas gave (see [`Builder::load`]).
struct Loaded {
    protocols: Vec<Protocol>,
    named: Vec<PlannedProtocol>,
    read: Vec<PathBuf>,
    errors: Diagnostics,
}
