//! The layout of a generated crate's code: prettyplease's, then rustfmt's when it is installed.
//!
//! prettyplease lays out any syntax tree without a toolchain, close to rustfmt but not the
//! same; a generated crate is committed and read beside hand-written code and checked by
//! `cargo fmt --check`, so its code is run through rustfmt as well. Without rustfmt the code is
//! prettyplease's (it compiles the same; `cargo fmt` would change its layout).

use std::io::Write;
use std::process::{Command, Stdio};

/// `code` as rustfmt lays it out (edition 2021), or as it is when rustfmt is not installed or
/// fails.
pub(crate) fn rustfmt(code: String) -> String {
    let rustfmt = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let child = Command::new(rustfmt)
        .args(["--edition", "2021", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return code;
    };
    // Written from a thread: rustfmt may fill its output pipe before it has read all of ours.
    let mut stdin = child.stdin.take();
    let input = code.clone();
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let output = child.wait_with_output();
    let _ = writer.join();
    match output {
        Ok(o) if o.status.success() && !o.stdout.is_empty() => {
            String::from_utf8(o.stdout).unwrap_or(code)
        }
        _ => code,
    }
}

/// Whether rustfmt is installed (`wiregen check` compares against its layout).
pub fn rustfmt_installed() -> bool {
    let rustfmt = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    Command::new(rustfmt)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
