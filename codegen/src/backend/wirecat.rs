//! The wirecat registry: the generated crates wirecat links, one line each. Everything else
//! wirecat does goes through the `wiregen_runtime` traits those crates implement.

use super::header::{header, Comment, Source};
use super::Output;
use crate::ir::Protocol;
use crate::naming;
use std::path::Path;

/// The registry of the wirecat crate in `dir`: `to_crates` is the generated crates' folder as
/// seen from `dir`, `runtime` the manifest's `wiregen-runtime` location (`path = "../runtime"`).
pub fn generate(
    protocols: &[&Protocol],
    dir: &Path,
    to_crates: &str,
    runtime: &str,
) -> Vec<Output> {
    let mut deps = String::new();
    let mut features = String::new();
    let mut names = String::new();
    let mut arms = String::new();
    for p in protocols {
        deps.push_str(&format!(
            "{} = {{ path = \"{to_crates}/{}\", features = [\"serde\"], optional = true }}\n",
            naming::crate_name(p),
            p.name
        ));
        features.push_str(&format!("    \"dep:{}\",\n", naming::crate_name(p)));
        names.push_str(&format!("        \"{}\",\n", p.name));
        arms.push_str(&format!(
            "            \"{0}\" => job.run::<{0}::Protocol>(),\n",
            p.name
        ));
    }
    let toml_header = header(Comment::Hash, Source::AllSchemas);
    let cargo = format!(
        r#"{toml_header}[package]
name = "wirecat"
version = "0.1.0"
edition = "2021"
description = "Decode and craft messages of every wiregen schema from the command line"
publish = false

[lib]
path = "src/lib.rs"

# The binary links every protocol of this repository; a game's own wirecat depends on the
# library alone (`default-features = false`, builds in about a minute) and calls
# `wirecat::run::<mygame::Protocol>()`; `features = ["export"]` adds `wirecat export`.
[[bin]]
name = "wirecat"
path = "src/main.rs"
required-features = ["repository"]

[features]
default = ["repository", "export"]
repository = [
{features}]
# `wirecat export`: Arrow columns laid out from the schema's types and filled from the decoded
# messages, written as Parquet
# (arrow and parquet take most of a first build: minutes on two cores).
export = ["dep:arrow-array", "dep:arrow-buffer", "dep:arrow-schema", "dep:parquet"]

[dependencies]
arrow-array = {{ version = "57", optional = true }}
arrow-buffer = {{ version = "57", optional = true }}
arrow-schema = {{ version = "57", optional = true }}
clap = {{ version = "4", features = ["derive"] }}
ctrlc = "3"
etherparse = "0.21"
flate2 = "1"
indicatif = "0.18"
mio = {{ version = "1", features = ["os-poll", "net"] }}
parquet = {{ version = "57", default-features = false, features = ["arrow", "snap"], optional = true }}
pcap-file = "2"
rand_chacha = "0.10"
serde = {{ version = "1", features = ["derive"] }}
serde_json = {{ version = "1", features = ["preserve_order"] }}
serde_norway = "0.9"
wiregen-runtime = {{ {runtime}, features = ["serde"] }}

# The protocols the repository's wirecat binary links.
{deps}"#
    );
    let rust_header = header(Comment::Slashes, Source::AllSchemas);
    let registry = format!(
        r#"{rust_header}
use wirecat::Job;

/// Every protocol of the repository's schemas.
pub struct All;

impl wirecat::Registry for All {{
    const NAMES: &'static [&'static str] = &[
{names}    ];

    fn run<J: Job>(name: &str, job: J) -> Option<J::Output> {{
        Some(match name {{
{arms}            _ => return None,
        }})
    }}
}}
"#
    );
    vec![
        Output {
            path: dir.join("Cargo.toml").display().to_string(),
            contents: cargo,
        },
        Output {
            path: dir.join("src/registry.rs").display().to_string(),
            contents: registry,
        },
    ]
}
