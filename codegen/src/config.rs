//! `wiregen.toml`: a user's repository names its schemas and where their outputs go, so that a
//! bare `wiregen generate` (or `check`) there does the right thing.
//!
//! ```toml
//! schemas = ["schema/mygame.yaml"]
//! rust_out = "src/generated"   # one <protocol>.rs per schema (or a crate each: crates = true)
//! lua_out = "dissectors"
//! ```

use serde::Deserialize;
use std::path::Path;
use wiregen::Builder;

pub const FILE: &str = "wiregen.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    schemas: Vec<String>,
    rust_out: String,
    /// Where the dissectors go, relative to the file.
    pub lua_out: Option<String>,
    #[serde(default)]
    crates: bool,
    #[serde(default)]
    serde: bool,
    #[serde(default)]
    arbitrary: bool,
}

/// `root/wiregen.toml`, or `None` without one.
pub fn load(root: &Path) -> Result<Option<Config>, String> {
    let path = root.join(FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    toml::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The builder `root/wiregen.toml` describes (paths relative to `root`), or `None` without one.
pub fn builder(root: &Path) -> Result<Option<Builder>, String> {
    let Some(c) = load(root)? else {
        return Ok(None);
    };
    let mut b = Builder::new()
        .schemas(c.schemas.iter().map(|s| root.join(s)))
        .rust_out(root.join(&c.rust_out))
        .crates(c.crates)
        .serde(c.serde)
        .arbitrary(c.arbitrary);
    if let Some(l) = &c.lua_out {
        b = b.lua_out(root.join(l));
    }
    Ok(Some(b))
}
