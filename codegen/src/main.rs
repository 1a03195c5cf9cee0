//! The `wiregen` command: generate Rust and Lua from schemas anywhere (named on the command line,
//! listed in a `wiregen.toml`, or this repository's own layout), check that committed outputs
//! are fresh, install dissectors into Wireshark, and verify that a schema's crate and dissector
//! agree.

mod compare;
mod doc;
mod install;
mod verify;

use clap::{Parser, Subcommand};
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
use wiregen::internal::Plan;
use wiregen::{pipeline, Builder};

#[derive(Parser)]
#[command(
    name = "wiregen",
    version,
    about = "YAML wire-format schemas → Rust codecs and Wireshark Lua dissectors",
    long_about = "YAML wire-format schemas → Rust codecs and Wireshark Lua dissectors.\n\n\
        Without schema arguments, `generate` and `check` read `wiregen.toml` in --root (schemas, \
        schema_dirs, rust_out, lua_out, crates, serde, arbitrary, keep_going, prune, wirecat, \
        fuzz; see `wiregen::Builder`)."
)]
struct Cli {
    /// The folder holding `wiregen.toml`.
    #[arg(long, default_value = ".", global = true)]
    root: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(clap::Args, Default)]
struct Targets {
    /// Schema files (any path); none: those wiregen.toml names.
    schemas: Vec<PathBuf>,
    /// Where the Rust goes: one `<protocol>.rs` per schema for
    /// `wiregen_runtime::include_protocol!`, or a crate folder per schema with --crates.
    #[arg(long)]
    rust_out: Option<PathBuf>,
    /// Where the dissectors go (`<protocol>.lua`).
    #[arg(long)]
    lua_out: Option<PathBuf>,
    /// Where the C# codecs go (`<Protocol>.cs` and the runtime's three `Wiregen*.cs`).
    #[arg(long)]
    csharp_out: Option<PathBuf>,
    /// Write a crate per schema (Cargo.toml, src/) instead of one file.
    #[arg(long)]
    crates: bool,
    /// With --crates: the `wiregen-runtime` crate the crates depend on by path (a checkout's
    /// `runtime/`). Without it: the published `wiregen-runtime = "0.1"`.
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
    /// Write reference documents (Markdown and one self-contained HTML page per schema): every
    /// type's packet diagram and field table, switches, checksums, enums, flags, layering.
    Doc(doc::Args),
    /// Compare two versions of a schema: every difference classified as wire-breaking,
    /// dissector-only or a safe addition, at file:line:col of both; exits 1 on a breaking one
    /// not allowed with --allow.
    Diff(compare::Args),
    /// Say what a diagnostic code means (`wiregen explain E0510`), or list every code.
    Explain {
        /// The code, as a diagnostic prints it; none lists them all.
        code: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Generate(Targets::default())) {
        Command::Generate(t) => match plan(&cli.root, &t) {
            Ok(plan) => with_problems(&plan, generate),
            Err(e) => fail(&e),
        },
        Command::Check(t) => match plan(&cli.root, &t) {
            Ok(plan) => with_problems(&plan, check),
            Err(e) => fail(&e),
        },
        Command::Install(args) => install::run(&cli.root, &args),
        Command::Verify(args) => verify::run(&args),
        Command::Doc(args) => doc::run(&args),
        Command::Diff(args) => compare::run(&args),
        Command::Explain { code } => explain(code.as_deref()),
    }
}

/// `wiregen explain [CODE]`.
fn explain(code: Option<&str>) -> ExitCode {
    use wiregen::diag::{explain, Code};
    match code.map(|c| (c, Code::parse(c))) {
        None => {
            for c in Code::ALL {
                println!("{c}  {}", c.summary());
            }
            ExitCode::SUCCESS
        }
        Some((_, Some(c))) => {
            print!("{}", explain(c));
            ExitCode::SUCCESS
        }
        Some((text, None)) => fail(&format!(
            "no diagnostic code '{text}' (`wiregen explain` lists them all)"
        )),
    }
}

/// What a command generates: the schemas named on the command line, or those `wiregen.toml`
/// names.
fn plan(root: &Path, t: &Targets) -> Result<Plan, String> {
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
        if let Some(cs) = &t.csharp_out {
            b = b.csharp_out(cs);
        }
        match &t.runtime_path {
            Some(runtime) => {
                // The manifests are elsewhere: a path as typed (relative to here) would not hold.
                let absolute = std::path::absolute(runtime).map_err(|e| e.to_string())?;
                b = b.runtime_path(absolute);
            }
            None if t.crates => eprintln!(
                "note: the crates depend on the published wiregen-runtime; \
                 --runtime-path <checkout>/runtime names a checkout's instead"
            ),
            None => {}
        }
        b
    } else {
        Builder::from_config(root)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| {
                format!(
                    "no {} in {}: name schema files (with --rust-out DIR), or write one \
                     (docs/your-game.md)",
                    wiregen::internal::CONFIG_FILE,
                    root.display()
                )
            })?
    };
    builder.outputs().map_err(|e| e.to_string())
}

/// Runs `command` on `plan`; schema errors (with `keep_going`) and what a backend cannot
/// generate yet are reported too (the rest is still written or checked), and make the command
/// fail.
fn with_problems(plan: &Plan, command: fn(&Plan) -> ExitCode) -> ExitCode {
    eprint!("{}{}{}", plan.errors, plan.not_generated, plan.warnings);
    match command(plan) {
        _ if !plan.errors.0.is_empty() || !plan.not_generated.0.is_empty() => ExitCode::FAILURE,
        code => code,
    }
}

fn fail(e: &str) -> ExitCode {
    eprintln!("{}", e.trim_end());
    ExitCode::FAILURE
}

/// Writes what changed and removes orphans, saying so file by file, or that nothing changed.
fn generate(plan: &Plan) -> ExitCode {
    let files = &plan.outputs;
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
    match plan.remove_orphans() {
        Ok(removed) => {
            for path in removed {
                println!("removed {} (no schema generates it)", path.display());
                changed += 1;
            }
        }
        Err(e) => return fail(&e.to_string()),
    }
    if changed == 0 {
        println!("nothing changed ({} files up to date)", files.len());
    }
    ExitCode::SUCCESS
}

/// Says which files differ from what the schemas generate, are missing, or are orphans.
fn check(plan: &Plan) -> ExitCode {
    let files = &plan.outputs;
    let mut stale = pipeline::stale_files(Path::new(""), files);
    for orphan in &plan.orphans {
        stale.push(format!(
            "orphan: {} (no schema generates it)",
            orphan.display()
        ));
    }
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
        ExitCode::FAILURE
    }
}
