//! Lists the golden snippets as modules: a snippet added to `codegen/tests/golden/` is compiled
//! without editing this crate. Each is copied with one line added after its header, making the
//! other snippets visible by name, as the crates of other protocols are to a generated crate.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../codegen/tests/golden");
    let out = Path::new(&env::var("OUT_DIR").unwrap()).to_path_buf();
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut snippets: Vec<_> = fs::read_dir(&dir)
        .expect("codegen/tests/golden")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    snippets.sort();
    let mut mods = String::new();
    for path in snippets {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(&path).expect("a snippet");
        let header = text
            .lines()
            .take_while(|l| l.starts_with("//") || l.is_empty())
            .count();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(header, "#[allow(unused_imports)]\nuse crate::*;");
        let copy = out.join(format!("{stem}.rs"));
        fs::write(&copy, lines.join("\n") + "\n").expect("OUT_DIR is writable");
        mods += &format!(
            "#[path = {:?}]\npub mod {stem};\n",
            copy.display().to_string()
        );
    }
    fs::write(out.join("snippets.rs"), mods).expect("OUT_DIR is writable");
}
