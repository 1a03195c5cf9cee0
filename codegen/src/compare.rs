//! `wiregen diff OLD NEW`: every difference between two versions of a schema, classified
//! (`wiregen::diff`); exits 1 when one breaks the wire and is not allowed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wiregen::diff::{self, Class, Side};

#[derive(clap::Args)]
pub struct Args {
    /// The schema as it was.
    old: PathBuf,
    /// The schema as it is.
    new: PathBuf,
    /// Accept a wire-breaking change: its rule (`VALUE_RENUMBERED`), or a rule at a path and
    /// what is under it (`FIELD_ADDED:Packet`); repeatable.
    #[arg(long, value_name = "RULE[:PATH]")]
    allow: Vec<diff::Allowance>,
    /// Print the changes as JSON (an array of {class, rule, path, message, old, new}).
    #[arg(long)]
    json: bool,
}

fn load(file: &Path) -> Result<Side, ExitCode> {
    Side::load(file, None).map_err(|d| {
        eprint!("{d}");
        ExitCode::from(2)
    })
}

pub fn run(args: &Args) -> ExitCode {
    let (old, new) = match (load(&args.old), load(&args.new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let changes = diff::diff(&old, &new);
    let refused: Vec<_> = changes
        .iter()
        .filter(|c| c.class == Class::Breaking && !diff::allowed(c, &args.allow))
        .collect();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&changes).unwrap_or_default()
        );
    } else {
        for c in &changes {
            let allowed = c.class == Class::Breaking && diff::allowed(c, &args.allow);
            println!("{c}{}", if allowed { " [allowed]" } else { "" });
        }
        let count = |class| changes.iter().filter(|c| c.class == class).count();
        if changes.is_empty() {
            println!(
                "no differences: the two schemas describe the same wire and the same dissector"
            );
        } else {
            println!(
                "{} breaking ({} allowed), {} dissector-only, {} safe",
                count(Class::Breaking),
                count(Class::Breaking) - refused.len(),
                count(Class::DissectorOnly),
                count(Class::Safe)
            );
        }
    }
    if refused.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
