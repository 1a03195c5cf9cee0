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
use crate::backend::Output;
use crate::diag::Diagnostics;
use crate::ir::{Backend, Protocol};
use crate::pipeline;
use std::fmt;
use std::path::{Path, PathBuf};

/// Which schemas to generate and where their outputs go.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    schemas: Vec<PathBuf>,
    rust_out: Option<PathBuf>,
    lua_out: Option<PathBuf>,
    crates: bool,
    runtime_path: Option<PathBuf>,
    options: ModuleOptions,
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

    /// Writes each schema's Rust as a crate of its own (`<rust_out>/<protocol>/Cargo.toml`,
    /// `src/`) with `serde` and `arbitrary` features, instead of one file to include.
    pub fn crates(mut self, on: bool) -> Self {
        self.crates = on;
        self
    }

    /// Crates ([`Builder::crates`]) depend on the runtime crate in this folder, by its path as
    /// given. Default: the `runtime/` of a wiregen checkout in a folder above the output, else
    /// the one of the wiregen source this generator was built from when it is still there,
    /// else the published version.
    pub fn runtime_path(mut self, dir: impl AsRef<Path>) -> Self {
        self.runtime_path = Some(dir.as_ref().to_path_buf());
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
        if plan.rust_blocked {
            return Err(Error::Schema(plan.not_generated));
        }
        for d in &plan.not_generated.0 {
            if in_build_script {
                println!("cargo:warning={d}");
            } else {
                eprintln!("{d}");
            }
        }
        Ok(written)
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
        let mut protocols: Vec<Protocol> = Vec::new();
        let mut named: Vec<PlannedProtocol> = Vec::new();
        let mut read: Vec<PathBuf> = Vec::new();
        let mut errors = Diagnostics::default();
        // Each named schema, then what it builds on (found while loading it).
        let mut queue: Vec<PathBuf> = self.schemas.clone();
        while let Some(file) = queue.pop() {
            if read.contains(&file) {
                continue;
            }
            match load_recording(&file) {
                Ok((p, files)) => {
                    if self.schemas.contains(&file) {
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
        if !errors.0.is_empty() {
            return Err(Error::Schema(errors));
        }
        let mut out = Vec::new();
        let mut not_generated = Diagnostics::default();
        let runtime = match &self.runtime_path {
            Some(dir) => rust::RuntimeDep(pipeline::path_dependency(&dir.display().to_string())),
            None => pipeline::runtime_dep_in(&rust_out),
        };
        for p in &protocols {
            let rust = |l: &crate::lower::Lowered| {
                if self.crates {
                    let dir = rust_out.join(&p.name);
                    rust::generate(p, l, &dir.display().to_string(), &runtime)
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
            let (o, problems) = pipeline::generate(p, &rust, lua.as_deref());
            out.extend(o);
            not_generated.0.extend(problems.0);
        }
        named.reverse();
        Ok(Plan {
            outputs: out,
            protocols: named,
            read,
            rust_blocked: protocols.iter().any(|p| !p.generates(Backend::Rust)),
            not_generated,
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
    /// Whether some schema's Rust is among what is missing.
    pub rust_blocked: bool,
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

/// Loads a schema from any path (shown as given), and every file it read: itself and the
/// schemas it extends or rides on.
fn load_recording(file: &Path) -> Result<(Protocol, Vec<PathBuf>), Diagnostics> {
    let read = std::cell::RefCell::new(vec![file.to_path_buf()]);
    let display = file.display().to_string();
    let source = std::fs::read_to_string(file).map_err(|e| pipeline::unreadable(&display, e))?;
    let resolve = |name: &str| -> Result<(String, String), String> {
        let path = file.parent().unwrap_or(Path::new(".")).join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        read.borrow_mut().push(path.clone());
        Ok((path.display().to_string(), text))
    };
    let p = crate::validate::load_with(&display, &source, &resolve)?;
    Ok((p, read.into_inner()))
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
