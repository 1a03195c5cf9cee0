//! The C# codec's proof program built for a schema (what `wiregen verify` and the tests run with
//! `wiregen_verify::verify_csharp`): the codec, the runtime and `Proof.cs` written to a folder and
//! compiled with Mono's `mcs`, warnings as errors.

use crate::backend::csharp;
use crate::backend::Output;
use crate::builder::write_if_changed;
use crate::ir::{Backend, Protocol};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C# codec of `p` and its proof program, built in `dir` with Mono's `mcs` (warnings are
/// errors): the program's path, or why there is none (`Err` inside: said, not a failure; `Err` outside:
/// the C# does not compile).
pub fn build(dir: &Path, p: &Protocol) -> Result<Result<PathBuf, String>, String> {
    if let Some(l) = p.limits.iter().find(|l| l.backend == Backend::CSharp) {
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
    let lowered = crate::lower::lower(p);
    let codec = dir.join(csharp::file_name(p));
    let mut files = csharp::generate(p, &lowered, &codec.display().to_string())
        .map_err(|e| format!("the C# backend: {}", e.0))?;
    // The codec alone: a Riptide adapter needs Riptide (tests/tests/csharp.rs builds it against
    // a stand-in of its Message).
    files.truncate(1);
    files.extend(csharp::runtime_outputs(dir));
    files.push(Output {
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
