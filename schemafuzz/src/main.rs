//! `schemafuzz`: random schemas through `wiregen verify`.
//!
//! ```text
//! schemafuzz [--seeds 1..20] [--messages 300] [--hostile 300] [--work-dir target/schemafuzz]
//!            [--wiregen target/debug/wiregen]
//! schemafuzz --print 7            # the schema of seed 7, to shrink by hand
//! ```
//!
//! Each seed's schema is written to the work folder and verified; the summary counts the seeds
//! that pass; those verify could not prove because the encoder refused too many random values
//! (every message made agreed: said, not failed); the schemas the validator refused (a bug of
//! the generator or of the validator: the schemas are valid by construction); and the failures
//! (a crate that does not compile or compiles with warnings, a disagreement, a Lua error, a
//! panic). The exit status is non-zero on any failure or refusal. `schemafuzz/run.sh` runs it
//! for hours.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

struct Args {
    seeds: std::ops::Range<u64>,
    messages: usize,
    hostile: usize,
    work_dir: PathBuf,
    wiregen: PathBuf,
    print: Option<u64>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        seeds: 1..21,
        messages: 300,
        hostile: 300,
        work_dir: PathBuf::from("target/schemafuzz"),
        wiregen: PathBuf::from("target/debug/wiregen"),
        print: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--seeds" => {
                let v = value()?;
                let (lo, hi) = v.split_once("..").ok_or("--seeds takes lo..hi")?;
                let parse = |s: &str| s.parse::<u64>().map_err(|e| format!("--seeds: {e}"));
                a.seeds = parse(lo)?..parse(hi)?;
            }
            "--messages" => a.messages = value()?.parse().map_err(|e| format!("{e}"))?,
            "--hostile" => a.hostile = value()?.parse().map_err(|e| format!("{e}"))?,
            "--work-dir" => a.work_dir = value()?.into(),
            "--wiregen" => a.wiregen = value()?.into(),
            "--print" => a.print = Some(value()?.parse().map_err(|e| format!("{e}"))?),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(a)
}

enum Outcome {
    Ok,
    /// Every message made agreed, but the encoder refused too many random values for verify
    /// to call it proven (a limit of the random values, not a disagreement: said, not failed).
    Unproven(String),
    Refused(String),
    Failed(String),
}

fn main() -> ExitCode {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("schemafuzz: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(seed) = a.print {
        let schema_dir = std::env::current_dir()
            .map(|d| d.join("schema"))
            .unwrap_or_else(|_| "schema".into());
        for (name, text) in wiregen_schemafuzz::schema_files(seed, &schema_dir) {
            println!("# ---- {name}");
            print!("{text}");
        }
        return ExitCode::SUCCESS;
    }
    if let Err(e) = std::fs::create_dir_all(&a.work_dir) {
        eprintln!("schemafuzz: cannot create {}: {e}", a.work_dir.display());
        return ExitCode::from(2);
    }
    let (mut ok, mut unproven, mut refused, mut failed) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for seed in a.seeds.clone() {
        let outcome = run(&a, seed);
        match outcome {
            Outcome::Ok => {
                println!("seed {seed}: ok");
                ok.push(seed);
            }
            Outcome::Unproven(why) => {
                println!("seed {seed}: unproven (too few random values accepted)\n{why}");
                unproven.push(seed);
            }
            Outcome::Refused(why) => {
                println!("seed {seed}: REFUSED by the validator\n{why}");
                refused.push(seed);
            }
            Outcome::Failed(why) => {
                println!("seed {seed}: FAILED\n{why}");
                failed.push(seed);
            }
        }
    }
    println!(
        "schemafuzz: {} seeds: {} ok, {} unproven {:?}, {} refused by the validator {:?}, {} failed {:?}",
        a.seeds.end - a.seeds.start,
        ok.len(),
        unproven.len(),
        unproven,
        refused.len(),
        refused,
        failed.len(),
        failed
    );
    if refused.is_empty() && failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Writes seed `seed`'s schema and verifies it.
fn run(a: &Args, seed: u64) -> Outcome {
    // Applications ride on this repository's transports, named by absolute path; an
    // extension is written beside its base.
    let schema_dir = std::env::current_dir()
        .map(|d| d.join("schema"))
        .unwrap_or_else(|_| "schema".into());
    let files = if schema_dir.join("riptide-2.1.yaml").is_file() {
        wiregen_schemafuzz::schema_files(seed, &schema_dir)
    } else {
        vec![(
            format!("seed-{seed}.yaml"),
            wiregen_schemafuzz::schema(seed),
        )]
    };
    let mut path = a.work_dir.clone();
    for (name, text) in &files {
        path = a.work_dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            return Outcome::Failed(format!("cannot write {}: {e}", path.display()));
        }
    }
    let out = Command::new(&a.wiregen)
        .arg("verify")
        .arg(&path)
        .args(["--messages", &a.messages.to_string()])
        .args(["--hostile", &a.hostile.to_string()])
        .args(["--seed", &seed.to_string()])
        .arg("--work-dir")
        .arg(a.work_dir.join("verify"))
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => return Outcome::Failed(format!("cannot run {}: {e}", a.wiregen.display())),
    };
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = tail[tail.len().saturating_sub(12)..].join("\n");
    // The generated crate must compile without a warning (users deny them).
    let warned = text
        .lines()
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0].starts_with("warning") && w[1].contains("crates/fuzz/src"));
    // Verify's last line: "N of N messages agree ...: FAILED" with no problem but too few
    // messages made ("only 22 of 300 messages could be made").
    let too_few = text.contains("messages could be made: too few")
        && !text.contains("disagreement")
        && text.contains(", 0 errors: FAILED");
    if out.status.success() && warned {
        Outcome::Failed(format!(
            "the generated crate compiles with warnings:\n{text}"
        ))
    } else if out.status.success() {
        Outcome::Ok
    } else if too_few && !warned {
        Outcome::Unproven(tail)
    } else if !text.contains("building the verifier")
        && !text.contains("internal error")
        && !text.contains("panicked")
    {
        Outcome::Refused(tail)
    } else {
        Outcome::Failed(tail)
    }
}
