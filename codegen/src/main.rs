//! `wiregen generate` writes every output of every schema; `wiregen check` fails when a committed
//! output differs from what generation produces now.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use wiregen::pipeline;

#[derive(Parser)]
#[command(
    name = "wiregen",
    version,
    about = "YAML wire-format schemas → Rust codecs and Wireshark dissectors"
)]
struct Cli {
    /// Repository root (holding schema/, generated/, dissectors/).
    #[arg(long, default_value = ".", global = true)]
    root: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate every output from schema/ (the default).
    Generate,
    /// Exit non-zero, naming each file, when committed outputs are stale.
    Check,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let pipeline::Generation { outputs, errors } = match pipeline::all_outputs(&cli.root) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    // Schema errors and backend limits: reported, and the command fails, but what could be
    // generated still is (one schema's mistake does not hold back the other outputs).
    eprint!("{errors}");
    let failed = !errors.0.is_empty();
    match cli.command.unwrap_or(Command::Generate) {
        Command::Generate => {
            for o in &outputs {
                let path = cli.root.join(&o.path);
                if std::fs::read_to_string(&path).ok().as_deref() == Some(o.contents.as_str()) {
                    continue;
                }
                if let Some(dir) = path.parent() {
                    if let Err(e) = std::fs::create_dir_all(dir) {
                        eprintln!("{}: {e}", dir.display());
                        return ExitCode::FAILURE;
                    }
                }
                if let Err(e) = std::fs::write(&path, &o.contents) {
                    eprintln!("{}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
                println!("wrote {}", o.path);
            }
            if failed {
                // A schema that failed produced nothing: its committed files are not orphans.
                return ExitCode::FAILURE;
            }
            for orphan in pipeline::orphans(&cli.root, &outputs) {
                let _ = std::fs::remove_file(cli.root.join(&orphan));
                println!("removed {orphan} (no schema produces it)");
            }
            ExitCode::SUCCESS
        }
        Command::Check => {
            if failed {
                // Outputs of a schema with errors cannot be compared: fix the schema first.
                return ExitCode::FAILURE;
            }
            let problems = pipeline::stale(&cli.root, &outputs);
            for problem in &problems {
                eprintln!("{problem}");
            }
            if problems.is_empty() {
                println!("all {} generated files are up to date", outputs.len());
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "{} generated file(s) out of date: run `cargo run -p wiregen -- generate` and commit",
                    problems.len()
                );
                ExitCode::FAILURE
            }
        }
    }
}
