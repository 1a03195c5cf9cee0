//! The `wiregen` command: generate Rust and Lua from schemas anywhere (named on the command line,
//! listed in a `wiregen.toml`, or this repository's own layout), check that committed outputs
//! are fresh, install dissectors into Wireshark, and verify that a schema's crate and dissector
//! agree.

mod config;
mod install;
mod verify;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use wiregen::backend::Output;
use wiregen::{pipeline, Builder};

#[derive(Parser)]
#[command(
    name = "wiregen",
    version,
    about = "YAML wire-format schemas → Rust codecs and Wireshark Lua dissectors",
    long_about = "YAML wire-format schemas → Rust codecs and Wireshark Lua dissectors.\n\n\
        Without schema arguments, `generate` and `check` read `wiregen.toml` in --root (schemas, \
        rust_out, lua_out, crates, serde, arbitrary), or, when there is none, use this \
        repository's layout (schema/ → generated/ and dissectors/)."
)]
struct Cli {
    /// The folder holding `wiregen.toml` (or `schema/`, `generated/`, `dissectors/`).
    #[arg(long, default_value = ".", global = true)]
    root: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(clap::Args, Default)]
struct Targets {
    /// Schema files (any path); none: wiregen.toml or the repository layout.
    schemas: Vec<PathBuf>,
    /// Where the Rust goes: one `<protocol>.rs` per schema for
    /// `wiregen_runtime::include_protocol!`, or a crate folder per schema with --crates.
    #[arg(long)]
    rust_out: Option<PathBuf>,
    /// Where the dissectors go (`<protocol>.lua`).
    #[arg(long)]
    lua_out: Option<PathBuf>,
    /// Write a crate per schema (Cargo.toml, src/) instead of one file.
    #[arg(long)]
    crates: bool,
    /// With --crates: the `wiregen-runtime` crate the crates depend on by path (a checkout's
    /// `runtime/`). By default: the runtime found in a folder above the output, else the one of
    /// the wiregen source this binary was built from, else `wiregen-runtime = "0.1"`.
    #[arg(long, requires = "crates")]
    runtime_path: Option<PathBuf>,
    /// Derive serde's Serialize and Deserialize on every type (one-file form).
    #[arg(long)]
    serde: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Generate outputs (the default command); says what it wrote.
    Generate(Targets),
    /// Exit non-zero, naming each file, when generated outputs are stale.
    Check(Targets),
    /// Copy dissectors into Wireshark's personal Lua plugin folder, replacing older copies of
    /// the same protocols.
    Install(install::Args),
    /// Prove a schema's two outputs agree: thousands of arbitrary valid messages encoded by its
    /// crate and dissected by its dissector in tshark, every field compared, then hostile
    /// datagrams that must raise no Lua error. Exits non-zero on any disagreement.
    Verify(verify::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Generate(Targets::default())) {
        Command::Generate(t) => match outputs(&cli.root, &t) {
            Ok(Generated::Repository(g)) => generate_repository(&cli.root, g),
            Ok(Generated::Files(plan)) => with_limits(&plan, write),
            Err(e) => fail(&e),
        },
        Command::Check(t) => match outputs(&cli.root, &t) {
            Ok(Generated::Repository(g)) => check_repository(&cli.root, g),
            Ok(Generated::Files(plan)) => with_limits(&plan, check),
            Err(e) => fail(&e),
        },
        Command::Install(args) => install::run(&cli.root, &args),
        Command::Verify(args) => verify::run(&args),
    }
}

/// What a command generates: this repository's whole layout, or a configured set of files.
enum Generated {
    Repository(pipeline::Generation),
    Files(wiregen::internal::Plan),
}

fn outputs(root: &std::path::Path, t: &Targets) -> Result<Generated, String> {
    let builder = if !t.schemas.is_empty() {
        let lua_out = t.lua_out.clone();
        let rust_out = t.rust_out.clone().ok_or_else(|| {
            "name the output: --rust-out DIR (and --lua-out DIR for dissectors)".to_string()
        })?;
        let mut b = Builder::new()
            .schemas(&t.schemas)
            .rust_out(rust_out)
            .crates(t.crates)
            .serde(t.serde);
        if let Some(l) = lua_out {
            b = b.lua_out(l);
        }
        if let Some(runtime) = &t.runtime_path {
            // The manifests are elsewhere: a path as typed (relative to here) would not hold.
            let absolute = std::path::absolute(runtime).map_err(|e| e.to_string())?;
            b = b.runtime_path(absolute);
        }
        Some(b)
    } else {
        config::builder(root)?
    };
    match builder {
        Some(b) => b.outputs().map(Generated::Files).map_err(|e| e.to_string()),
        None => pipeline::all_outputs(root).map(Generated::Repository),
    }
}

/// Runs `command` on the files of `plan`; what a backend cannot generate yet is reported too
/// (the rest is still written or checked), and makes the command fail.
fn with_limits(plan: &wiregen::internal::Plan, command: fn(&[Output]) -> ExitCode) -> ExitCode {
    eprint!("{}", plan.not_generated);
    match command(&plan.outputs) {
        _ if !plan.not_generated.0.is_empty() => ExitCode::FAILURE,
        code => code,
    }
}

fn fail(e: &str) -> ExitCode {
    eprintln!("{}", e.trim_end());
    ExitCode::FAILURE
}

/// Writes what changed and says so, file by file, or that nothing changed.
fn write(files: &[Output]) -> ExitCode {
    let mut changed = 0;
    for o in files {
        match wiregen::internal::write_if_changed(o) {
            Ok(w) if w.changed => {
                println!("wrote {}", o.path);
                changed += 1;
            }
            Ok(_) => {}
            Err(e) => return fail(&e.to_string()),
        }
    }
    if changed == 0 {
        println!("nothing changed ({} files up to date)", files.len());
    }
    ExitCode::SUCCESS
}

/// Generated crates are laid out by rustfmt: without it every one of them differs.
fn rustfmt_hint() {
    if !wiregen::backend::rust::rustfmt_installed() {
        eprintln!(
            "hint: rustfmt is not installed, and generated crates are laid out by it \
             (`rustup component add rustfmt`)"
        );
    }
}

fn check(files: &[Output]) -> ExitCode {
    let stale = pipeline::stale_files(std::path::Path::new(""), files);
    for problem in &stale {
        eprintln!("{problem}");
    }
    if stale.is_empty() {
        println!("all {} generated files are up to date", files.len());
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "{} generated file(s) out of date: run `wiregen generate`",
            stale.len()
        );
        rustfmt_hint();
        ExitCode::FAILURE
    }
}

fn generate_repository(root: &std::path::Path, g: pipeline::Generation) -> ExitCode {
    // Schema errors and backend limits: reported, and the command fails, but what could be
    // generated still is (one schema's mistake does not hold back the other outputs).
    eprint!("{}", g.errors);
    let failed = !g.errors.0.is_empty();
    let files: Vec<Output> = g
        .outputs
        .iter()
        .map(|o| Output {
            path: root.join(&o.path).display().to_string(),
            contents: o.contents.clone(),
        })
        .collect();
    let written = write(&files);
    if failed {
        // A schema that failed produced nothing: its committed files are not orphans.
        return ExitCode::FAILURE;
    }
    for orphan in pipeline::orphans(root, &g.outputs) {
        let _ = std::fs::remove_file(root.join(&orphan));
        println!("removed {orphan} (no schema produces it)");
    }
    written
}

fn check_repository(root: &std::path::Path, g: pipeline::Generation) -> ExitCode {
    eprint!("{}", g.errors);
    if !g.errors.0.is_empty() {
        // Outputs of a schema with errors cannot be compared: fix the schema first.
        return ExitCode::FAILURE;
    }
    let problems = pipeline::stale(root, &g.outputs);
    for problem in &problems {
        eprintln!("{problem}");
    }
    if problems.is_empty() {
        println!("all {} generated files are up to date", g.outputs.len());
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "{} generated file(s) out of date: run `cargo run -p wiregen -- generate` and commit",
            problems.len()
        );
        rustfmt_hint();
        ExitCode::FAILURE
    }
}
