//! `wiregen.toml`: a repository names its schemas and where their outputs go, so that a bare
//! `wiregen generate` (or `check`) there does the right thing. This repository has one too.
//!
//! ```toml
//! schemas = ["schema/mygame.yaml"]   # files, and/or every *.yaml of folders:
//! schema_dirs = ["schema"]
//! rust_out = "src/generated"   # one <protocol>.rs per schema (or a crate each: crates = true)
//! lua_out = "dissectors"
//! doc_out = "docs/protocol"    # a Markdown and an HTML reference per schema
//! json_schema = "wiregen.schema.json"   # the schema language's JSON Schema, for editors
//! crates = false
//! keep_going = false           # one schema's errors do not hold back the others' outputs
//! prune = false                # rust_out and lua_out are wiregen's: remove what no schema makes
//! wirecat = "wirecat"          # write the registry of a wirecat crate linking the crates
//! fuzz = "fuzz"                # write cargo-fuzz targets for the crates
//! runtime = "../wiregen/runtime"  # crates depend on this wiregen-runtime (default: published)
//! generator = "../wiregen/codegen"  # the fuzz crate's wiregen (default: published)
//! ```

use crate::builder::{Builder, Error};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The file's name, in the folder it describes.
pub const FILE: &str = "wiregen.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    schemas: Vec<String>,
    #[serde(default)]
    schema_dirs: Vec<String>,
    rust_out: String,
    lua_out: Option<String>,
    csharp_out: Option<String>,
    doc_out: Option<String>,
    json_schema: Option<String>,
    #[serde(default)]
    crates: bool,
    #[serde(default)]
    serde: bool,
    #[serde(default)]
    arbitrary: bool,
    #[serde(default)]
    keep_going: bool,
    #[serde(default)]
    prune: bool,
    wirecat: Option<String>,
    fuzz: Option<String>,
    runtime: Option<String>,
    generator: Option<String>,
}

impl Builder {
    /// The builder `root/wiregen.toml` describes (its paths relative to `root`), or `None` when
    /// there is no such file. Its keys are the methods of this type: `schemas`, `schema_dirs`,
    /// `rust_out`, `lua_out`, `crates`, `serde`, `arbitrary`, `keep_going`, `prune`, `wirecat`,
    /// `fuzz`.
    pub fn from_config(root: impl AsRef<Path>) -> Result<Option<Self>, Error> {
        builder(root.as_ref())
    }
}

/// The builder `root/wiregen.toml` describes (paths relative to `root`), or `None` without one.
fn builder(root: &Path) -> Result<Option<Builder>, Error> {
    let path = root.join(FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let c: Config =
        toml::from_str(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
    if c.schemas.is_empty() && c.schema_dirs.is_empty() {
        return Err(Error::Config(format!(
            "{}: name the schemas (schemas = [...] or schema_dirs = [...])",
            path.display()
        )));
    }
    let at = PathBuf::from;
    let mut b = Builder::new()
        .schemas(&c.schemas)
        .rust_out(at(&c.rust_out))
        .crates(c.crates)
        .serde(c.serde)
        .arbitrary(c.arbitrary)
        .keep_going(c.keep_going)
        .prune(c.prune);
    // Paths as the file writes them when it is here (`generated/x`, not `./generated/x`).
    if root != Path::new(".") {
        b = b.base(root);
    }
    for dir in &c.schema_dirs {
        b = b.schema_dir(at(dir));
    }
    if let Some(l) = &c.lua_out {
        b = b.lua_out(at(l));
    }
    if let Some(cs) = &c.csharp_out {
        b = b.csharp_out(at(cs));
    }
    if let Some(d) = &c.doc_out {
        b = b.doc_out(at(d));
    }
    if let Some(j) = &c.json_schema {
        b = b.json_schema(at(j));
    }
    if let Some(w) = &c.wirecat {
        b = b.wirecat(at(w));
    }
    if let Some(f) = &c.fuzz {
        b = b.fuzz(at(f));
    }
    if let Some(r) = &c.runtime {
        b = b.runtime_path(at(r));
    }
    if let Some(g) = &c.generator {
        b = b.generator_path(at(g));
    }
    Ok(Some(b))
}
