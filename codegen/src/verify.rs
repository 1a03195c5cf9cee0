//! `wiregen verify`: the differential test for any schema, with no code to write. The schema's
//! crate (with its `arbitrary` feature) and dissector are generated into a work folder, with a
//! small program around `wiregen_verify::main` for that crate (as cargo-fuzz builds a fuzz
//! target); cargo builds and runs it, and its report is the command's.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use wiregen::internal::{write_if_changed, PlannedProtocol};
use wiregen::ir::{Expr, Len, Ty};
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
        contents: coverage_list(&ir),
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
    match csharp_proof(&work, &ir)? {
        Ok(exe) => {
            cargo.arg("--csharp-exe").arg(exe);
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

/// The C# codec of `p` and its proof program, built with Mono's `mcs` (warnings are errors):
/// the program's path, or why there is none (`Err` inside: said, not a failure; `Err` outside:
/// the C# does not compile).
fn csharp_proof(work: &Path, p: &wiregen::ir::Protocol) -> Result<Result<PathBuf, String>, String> {
    use wiregen::backend::csharp;
    if p.application.is_some() {
        return Ok(Err(
            "an application's messages are checked inside their transport (not yet)".into(),
        ));
    }
    if let Some(l) = p
        .limits
        .iter()
        .find(|l| l.backend == wiregen::ir::Backend::CSharp)
    {
        return Ok(Err(format!(
            "the schema has no C# codec yet: {}",
            l.diagnostic
        )));
    }
    let found = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !found("mcs") || !found("mono") {
        return Ok(Err(
            "Mono's mcs and mono are not installed (apt-get install mono-mcs mono-runtime)".into(),
        ));
    }
    let dir = work.join("csharp").join(&p.name);
    let lowered = wiregen::lower::lower(p);
    let codec = dir.join(csharp::file_name(p));
    let mut files = csharp::generate(p, &lowered, &codec.display().to_string())
        .map_err(|e| format!("the C# backend: {}", e.0))?;
    files.push(wiregen::backend::Output {
        path: dir.join(csharp::RUNTIME_FILE).display().to_string(),
        contents: csharp::RUNTIME.to_string(),
    });
    files.push(wiregen::backend::Output {
        path: dir.join("Proof.cs").display().to_string(),
        contents: csharp::proof::program(p, &lowered)
            .map_err(|e| format!("the C# backend: {}", e.0))?,
    });
    for o in &files {
        write_if_changed(o).map_err(|e| e.to_string())?;
    }
    let exe = dir.join("proof.exe");
    let out = Command::new("mcs")
        .args([
            "-nologo",
            "-warn:4",
            "-warnaserror",
            "-langversion:7.2",
            "-optimize",
        ])
        .arg(format!("-out:{}", exe.display()))
        .args(files.iter().map(|o| &o.path))
        .output()
        .map_err(|e| format!("cannot run mcs: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the C# codec does not compile:\n{}",
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    Ok(Ok(exe))
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

/// The types a valid message may hold (the root's, or an application's messages', the opening's,
/// the types its pieces are joined into, and every type inside them), one per line: its name, then the filter names its fields are noted under
/// (also under each `filter:` use of it), tab-separated: what `wiregen_verify` counts as
/// reached.
fn coverage_list(p: &wiregen::ir::Protocol) -> String {
    let mut roots = vec![p.root];
    if let Some(a) = &p.application {
        roots = a.messages.iter().map(|(_, ty)| *ty).collect();
    }
    // The opening's datagrams are compared as the conversation reads them.
    roots.extend(p.opening.iter().map(|(_, id)| *id));
    // A payload cut into pieces is decoded as its sender's type: verify joins arbitrary ones.
    if let Some(wiregen::ir::Reassembly {
        whole: wiregen::ir::WholeType::ByDirection { client, server },
        ..
    }) = &p.reassembly
    {
        roots.extend([*client, *server]);
    }
    // An array of no elements (`count: 0`) holds no value of its type.
    let empty = |ty: &Ty| matches!(ty, Ty::Array(_, Len::Expr(Expr::Int(0, _))));
    let mut reached = wiregen::lower::analysis::reached_from(p, roots, |_, f| !empty(&f.ty));
    reached.sort();
    let mut out = String::new();
    for sid in reached {
        let s = &p.structs[sid];
        // Fields that hold values of other types are noted as those values' fields.
        let own = |f: &&wiregen::ir::Field| {
            let mut kids = Vec::new();
            f.ty.child_structs(&mut kids);
            kids.is_empty() && !matches!(f.ty, wiregen::ir::Ty::Union(_))
        };
        let mut names: Vec<String> = (0..s.fields.len())
            .filter(|fi| own(&&s.fields[*fi]))
            .map(|fi| wiregen::naming::abbrev(p, sid, fi))
            .collect();
        for (_, filter) in p.filter_uses().iter().filter(|(u, _)| *u == sid) {
            let base = wiregen::naming::use_abbrev(p, filter);
            names.extend(
                s.fields
                    .iter()
                    .filter(own)
                    .map(|f| format!("{base}.{}", f.name)),
            );
        }
        out.push_str(&s.name);
        for n in names {
            out.push('\t');
            out.push_str(&n);
        }
        out.push('\n');
        case_lines(p, sid, &mut out);
    }
    out
}

/// The cases of struct `sid`'s switches whose tag is a field of it, a line each: `case`, the
/// case's name (`PacketPayload.Login`), the filter names its tag is noted under
/// (comma-separated: the struct's own and its `filter:` uses'), its tag values (`3`, `16-31`,
/// comma-separated; `!` and every case's values for the default), then the filter name of the
/// bool or flag bit of its `unless:` (`!` before it when negated; empty without one). A case is
/// taken when a compared message's tag took one of its values and its `unless` was false (the
/// default: when it was true, too). A tag computed by an expression, or an `unless` other than
/// a bool or a flag bit of the switch's own type, is not measured by case.
fn case_lines(p: &wiregen::ir::Protocol, sid: usize, out: &mut String) {
    use wiregen::ir::CaseValue;
    let s = &p.structs[sid];
    let spell = |values: &mut dyn Iterator<Item = &CaseValue>| {
        values
            .map(|v| match *v {
                CaseValue::One(v) => v.to_string(),
                CaseValue::Range(lo, hi) => format!("{lo}-{hi}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    for (fi, f) in s.fields.iter().enumerate() {
        let Ty::Union(u) = &f.ty else { continue };
        let Some(ti) = u.on.local_field() else {
            continue;
        };
        let unless = match &u.unless {
            None => String::new(),
            Some(e) => match unless_abbrev(p, sid, e) {
                Some(abbrev) => abbrev,
                None => continue,
            },
        };
        let mut tags = vec![wiregen::naming::abbrev(p, sid, ti)];
        for (_, filter) in p.filter_uses().iter().filter(|(u, _)| *u == sid) {
            tags.push(format!(
                "{}.{}",
                wiregen::naming::use_abbrev(p, filter),
                s.fields[ti].name
            ));
        }
        let tags = tags.join(",");
        let union = p.switch_name(sid, fi);
        for c in &u.cases {
            let values = spell(&mut c.values.iter());
            out.push_str(&format!(
                "case\t{union}.{}\t{tags}\t{values}\t{unless}\n",
                c.variant
            ));
        }
        // A default no tag value can choose (a closed enum's every value has a case) is left out.
        if u.default.is_some() && !p.cases_cover(&s.fields[ti].ty, u) {
            let all = spell(&mut u.cases.iter().flat_map(|c| &c.values));
            out.push_str(&format!(
                "case\t{union}.{}\t{tags}\t!{all}\t{unless}\n",
                u.default_variant
            ));
        }
    }
}

/// The filter name of the bool field or flag bit a switch's `unless:` tests (`!` before it when
/// negated), when it is one of the switch's own type.
fn unless_abbrev(p: &wiregen::ir::Protocol, sid: usize, e: &Expr) -> Option<String> {
    match e {
        Expr::Not(inner) => unless_abbrev(p, sid, inner).map(|a| format!("!{a}")),
        Expr::Field(path) if path.len() == 1 && matches!(p.field(&path[0]).ty, Ty::Bool) => {
            Some(wiregen::naming::abbrev(p, sid, path[0].field))
        }
        Expr::FlagBit(path, mask) if path.len() == 1 => {
            let Ty::Flags(id) = p.field(&path[0]).ty else {
                return None;
            };
            let bit = p.flags[id].bits.iter().find(|b| b.value == *mask)?;
            let field = wiregen::naming::abbrev(p, sid, path[0].field);
            Some(wiregen::naming::flag_abbrev(&field, &bit.name))
        }
        _ => None,
    }
}
