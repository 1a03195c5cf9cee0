//! `wiregen check` from `cargo test`: every committed generated file (crates, dissectors,
//! wirecat's registry, fuzz targets) is what the schemas generate now, for this repository and
//! for the fixture root (each described by its `wiregen.toml`), and no file in their output
//! folders is an orphan.

use std::path::Path;
use wiregen::pipeline;

fn check(root: &Path) {
    let plan = wiregen::Builder::from_config(root)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("{}: no wiregen.toml", root.display()))
        .outputs()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        plan.errors.0.is_empty() && plan.not_generated.0.is_empty(),
        "{}: every schema generates both outputs:\n{}{}",
        root.display(),
        plan.errors,
        plan.not_generated
    );
    assert!(!plan.outputs.is_empty(), "{}: no outputs", root.display());
    let mut problems = pipeline::stale_files(Path::new(""), &plan.outputs);
    problems.extend(
        plan.orphans
            .iter()
            .map(|o| format!("orphan: {}", o.display())),
    );
    assert!(
        problems.is_empty(),
        "{}: run `cargo run -p wiregen -- generate` (and `--root tests/fixture generate`) and commit:\n{}",
        root.display(),
        problems.join("\n")
    );
}

#[test]
fn committed_outputs_are_fresh() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    check(&repo);
    check(&repo.join("tests/fixture"));
}

/// Generated text is a pure function of the schema: the committed outputs are what `wiregen
/// check` expects with no rustfmt on the PATH, and with a "rustfmt" that lays everything out
/// differently (here: one that empties any file it is given) first on the PATH or named by
/// `RUSTFMT`. A generator that piped its output through the machine's formatter would call
/// every crate stale in one of these runs.
#[test]
fn outputs_do_not_depend_on_the_machines_rustfmt() {
    use std::process::Command;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let fake = std::env::temp_dir().join(format!("wiregen-fake-rustfmt-{}", std::process::id()));
    std::fs::create_dir_all(&fake).unwrap();
    let script = fake.join("rustfmt");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\necho '// not the layout'\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let runs: [(&str, Vec<(&str, std::ffi::OsString)>); 3] = [
        ("no rustfmt on the PATH", vec![("PATH", "".into())]),
        (
            "another rustfmt first on the PATH",
            vec![("PATH", fake.clone().into())],
        ),
        (
            "another rustfmt named by RUSTFMT",
            vec![("RUSTFMT", script.clone().into())],
        ),
    ];
    for (what, env) in runs {
        for root in [repo.clone(), repo.join("tests/fixture")] {
            let out = Command::new(env!("CARGO_BIN_EXE_wiregen"))
                .arg("--root")
                .arg(&root)
                .arg("check")
                .envs(env.iter().map(|(k, v)| (*k, v)))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{what}: `wiregen --root {} check` failed:\n{}",
                root.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&fake);
}

/// Literals as the schema writes them, in every output: R-Type's magic `0xD1CE` (a constant and
/// a heuristic's expression) is written so by rtype's and by its extension rtype_impl's crate,
/// dissector and reference (the extension once printed the decimal 53710: it inherits the
/// constant, and expressions kept no spelling).
#[test]
fn literals_are_written_as_the_schema_writes_them() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for file in [
        "dissectors/rtype.lua",
        "dissectors/rtype_impl.lua",
        "generated/rtype/src/codec.rs",
        "generated/rtype_impl/src/codec.rs",
        "docs/protocols/rtype.md",
        "docs/protocols/rtype_impl.md",
    ] {
        let text = std::fs::read_to_string(repo.join(file)).unwrap();
        assert!(!text.contains("53710"), "{file} writes 0xD1CE as 53710");
        assert!(text.contains("0xD1CE"), "{file} does not write 0xD1CE");
    }
    let lua = std::fs::read_to_string(repo.join("dissectors/rtype_impl.lua")).unwrap();
    assert!(lua.contains("v.magic == 0xD1CE"), "the heuristic's literal");
}
