//! Running the wirecat binary from the tests.

use std::process::Command;

/// Runs wirecat with `args`: (success, stdout, stderr).
pub fn wirecat(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirecat"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}
