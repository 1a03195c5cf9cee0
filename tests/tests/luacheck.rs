//! Every generated dissector (the repository's, the fixture's and the golden snippets') passes
//! luacheck with the repository's `.luacheckrc`: no unused locals or helpers, no values written
//! and never read, no globals but Wireshark's API and the two the dissectors share on purpose.
//! `test.sh` installs luacheck (Debian's `lua-check`).

use std::path::Path;
use std::process::Command;

#[test]
fn generated_dissectors_pass_luacheck() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "dissectors",
        "tests/fixture/dissectors",
        "codegen/tests/golden",
    ] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "lua") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 25, "{} dissectors found", files.len());
    let out = Command::new("luacheck")
        .current_dir(&root)
        .args(["--config", ".luacheckrc", "--formatter", "plain", "--codes"])
        .args(&files)
        .output()
        .expect("luacheck (test.sh installs it: apt-get install lua-check)");
    assert!(
        out.status.success(),
        "luacheck found problems:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
