//! `wiregen doc SCHEMA… -o DIR`: the reference documents of schemas anywhere, without a
//! `wiregen.toml` (whose `doc_out` makes `generate` and `check` keep them fresh).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wiregen::{backend, lower, pipeline};

#[derive(clap::Args)]
pub struct Args {
    /// Schema files.
    #[arg(required = true)]
    schemas: Vec<PathBuf>,
    /// The folder the documents go to: `<protocol>.md` and `<protocol>.html` per schema.
    #[arg(short, long)]
    out: PathBuf,
}

pub fn run(args: &Args) -> ExitCode {
    let mut failed = false;
    for schema in &args.schemas {
        match pipeline::load(Path::new(""), schema) {
            Ok(p) => {
                let lowered = lower::lower(&p);
                let dir = args.out.display().to_string();
                for o in backend::doc::generate(&p, &lowered, &dir) {
                    match wiregen::internal::write_if_changed(&o) {
                        Ok(_) => println!("wrote {}", o.path),
                        Err(e) => {
                            eprintln!("{e}");
                            failed = true;
                        }
                    }
                }
            }
            Err(d) => {
                eprint!("{d}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
