//! `wiregen verify`: the differential test for any schema, with no code to write. The schema's
//! crate (with its `arbitrary` feature) and dissector are generated into a work folder, with a
//! small program around `wiregen_verify::main` for that crate (as cargo-fuzz builds a fuzz
//! target); cargo builds and runs it, and its report is the command's.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use wiregen::internal::{write_if_changed, PlannedProtocol};
use wiregen::{pipeline, Builder};

#[derive(clap::Args)]
pub struct Args {
    /// Schema files to verify (any path).
    #[arg(required = true)]
    schemas: Vec<PathBuf>,
    /// Valid messages compared field by field, per schema.
    #[arg(long, default_value_t = 2000)]
    messages: usize,
    /// Hostile datagrams (truncated, bit-flipped, random) that must raise no Lua error.
    #[arg(long, default_value_t = 2000)]
    hostile: usize,
    /// The seed of every random choice: the same seed checks the same messages.
    #[arg(long, default_value_t = 0x5eed)]
    seed: u64,
    /// The server's UDP port in the capture (default: the schema's first); on another port the
    /// dissector is chosen with Decode As.
    #[arg(long)]
    port: Option<u16>,
    /// Keep every capture (not only those of a failing check) and say where, to open in
    /// Wireshark.
    #[arg(long)]
    keep: bool,
    /// Where the generated crate, the verifier program, its build and failing captures go.
    #[arg(long, default_value = "target/wiregen-verify")]
    work_dir: PathBuf,
    /// A type or a switch case (`PacketPayload.Login`) no valid message can reach (declared
    /// so): verify fails on every other type and case its messages never reached.
    #[arg(long, value_name = "TYPE|CASE")]
    unreachable: Vec<String>,
}

pub fn run(args: &Args) -> ExitCode {
    let mut failed = false;
    for schema in &args.schemas {
        match verify(schema, args) {
            Ok(true) => {}
            Ok(false) => failed = true,
            Err(e) => {
                eprintln!("{}: {}", schema.display(), e.trim_end());
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

/// Generates, builds and runs the verifier of one schema; `Ok(false)` when it found problems.
fn verify(schema: &Path, args: &Args) -> Result<bool, String> {
    let work = std::path::absolute(&args.work_dir).map_err(|e| e.to_string())?;
    let crates = work.join("crates");
    let dissectors = work.join("dissectors");
    let mut builder = Builder::new()
        .schema(schema)
        .rust_out(&crates)
        .lua_out(&dissectors)
        .crates(true);
    if let Some(runtime) = pipeline::source_folder("runtime") {
        builder = builder.runtime_path(runtime);
    }
    let plan = builder.outputs().map_err(|e| e.to_string())?;
    let protocol = plan
        .protocols
        .first()
        .cloned()
        .ok_or("the schema describes no protocol")?;
    if !plan.not_generated.0.is_empty() {
        return Err(format!(
            "not every output can be generated, so there is nothing to compare:\n{}",
            plan.not_generated
        ));
    }
    for o in &plan.outputs {
        write_if_changed(o).map_err(|e| e.to_string())?;
    }
    let runner = write_runner(&work, &protocol)?;
    // What the messages should reach: every type the root holds, with its fields' filter names.
    let ir = pipeline::load(Path::new("."), schema).map_err(|e| e.to_string())?;
    let coverage = runner.join("coverage.txt");
    write_if_changed(&wiregen::backend::Output {
        path: coverage.display().to_string(),
        contents: wiregen::coverage::coverage_list(&ir),
    })
    .map_err(|e| e.to_string())?;
    // An application is dissected inside its transport: both dissectors are loaded.
    let luas: Vec<PathBuf> = std::iter::once(&protocol.name)
        .chain(&protocol.application_on)
        .map(|name| dissectors.join(format!("{name}.lua")))
        .collect();
    println!(
        "{}: building the verifier of '{}' (first run: about a minute)",
        schema.display(),
        protocol.name
    );
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .args(["run", "--quiet", "--release", "--manifest-path"])
        .arg(runner.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", work.join("target"))
        .arg("--");
    for lua in &luas {
        cargo.arg("--lua").arg(lua);
    }
    cargo
        .args(["--messages", &args.messages.to_string()])
        .args(["--hostile", &args.hostile.to_string()])
        .args(["--seed", &args.seed.to_string()])
        .arg("--work-dir")
        .arg(work.join("captures"))
        .arg("--coverage")
        .arg(&coverage);
    for t in &args.unreachable {
        cargo.args(["--unreachable", t]);
    }
    if let Some(port) = args.port {
        cargo.args(["--port", &port.to_string()]);
    }
    if args.keep {
        cargo.arg("--keep");
    }
    match wiregen::csharp_proof::build(&work.join("csharp").join(&ir.name), &ir)? {
        Ok(exe) => {
            cargo.arg("--csharp-exe").arg(exe);
            if ir.application.is_some() {
                // The crate's messages are whole transport datagrams: the C# proves an
                // application by the values it makes of each message, which the crate reads.
                cargo.arg("--csharp-made-only");
            }
        }
        Err(why) => println!("{}: C#: not checked: {why}", schema.display()),
    }
    if protocol.claims_by_preference {
        // Its transport carries no message ids: the dissector reads payloads when told to.
        let claim = format!("{}.every_payload:TRUE", protocol.name);
        cargo.args(["--tshark-arg", "-o", "--tshark-arg", &claim]);
    }
    let status = cargo
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    Ok(status.success())
}

/// The verifier program of `protocol`: a binary crate depending on the generated crate and on
/// `wiregen-verify`.
fn write_runner(work: &Path, protocol: &PlannedProtocol) -> Result<PathBuf, String> {
    // A generated crate's package and library are the protocol's name.
    let package = &protocol.name;
    let verify_dep = match pipeline::source_folder("verify") {
        Some(dir) => pipeline::path_dependency(&dir.display().to_string()),
        None => format!("\"{}\"", pipeline::WIREGEN_VERSION),
    };
    let runner = work.join(format!("verify-{}", protocol.name));
    let files = [
        (
            runner.join("Cargo.toml"),
            format!(
                "# Written by `wiregen verify`: the verifier of {name}.\n\
                 [package]\nname = \"verify-{package}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n[workspace]\n\n[dependencies]\n\
                 {package} = {{ path = \"../crates/{name}\", features = [\"arbitrary\", \"serde\"] }}\n\
                 wiregen-verify = {verify_dep}\n\n\
                 # Quick to build, quick enough to run thousands of messages.\n\
                 [profile.release]\nopt-level = 1\ndebug = false\nincremental = true\n",
                name = protocol.name,
            ),
        ),
        (
            runner.join("src/main.rs"),
            format!(
                "// Written by `wiregen verify`.\n\
                 fn main() -> std::process::ExitCode {{\n    \
                 wiregen_verify::main::<{package}::Protocol>()\n}}\n"
            ),
        ),
    ];
    for (path, contents) in files {
        write_if_changed(&wiregen::backend::Output {
            path: path.display().to_string(),
            contents,
        })
        .map_err(|e| e.to_string())?;
    }
    Ok(runner)
}
