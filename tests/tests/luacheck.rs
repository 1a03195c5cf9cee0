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

/// A protocol of many types, enums and switches (300 of each) gives a dissector Lua loads: one
/// local per type, enum or switch would pass the 200 locals a Lua chunk may have.
#[test]
fn a_protocol_of_many_types_enums_and_switches_loads() {
    const N: usize = 300;
    let mut yaml = String::from(
        "protocol:\n  name: many\n  title: many types\n  endian: big\n  root: Packet\n  transport:\n    udp:\n      ports: [7400]\n\nenums:\n",
    );
    for i in 0..N {
        yaml += &format!("  E{i}:\n    type: u8\n    values: {{ A{i}: 0, B{i}: 1 }}\n");
    }
    yaml += "\ntypes:\n  Packet:\n    fields:\n      - { name: kind, type: u16 }\n      - name: body\n        switch:\n          on: kind\n          cases:\n";
    for i in 0..N {
        yaml += &format!("            {i}: {{ type: M{i}, name: M{i} }}\n");
    }
    yaml += "  Leaf:\n    fields:\n      - { name: x, type: u8 }\n";
    for i in 0..N {
        yaml += &format!(
            "  M{i}:\n    fields:\n      - {{ name: e, type: E{i} }}\n      - {{ name: tag, type: u16 }}\n      - name: inner\n        switch:\n          on: tag\n          cases:\n            {i}: {{ type: Leaf, name: One }}\n            300: {{ type: Leaf, name: Other }}\n"
        );
    }
    let p = wiregen::validate::load("many.yaml", &yaml).expect("valid schema");
    let runtime = wiregen::backend::rust::RuntimeDep::Published;
    let (outputs, problems) = wiregen::pipeline::outputs(&p, &runtime);
    assert!(problems.0.is_empty(), "{problems:?}");
    let lua = outputs
        .iter()
        .find(|o| o.path.ends_with(".lua"))
        .expect("a dissector");
    let dir = std::env::temp_dir().join(format!("wiregen-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("many.lua");
    std::fs::write(&path, &lua.contents).unwrap();
    for luac in ["luac5.2", "luac5.4"] {
        let out = Command::new(luac)
            .arg("-p")
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("{luac} (test.sh installs it): {e}"));
        assert!(
            out.status.success(),
            "{luac}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
