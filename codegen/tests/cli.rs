//! The `wiregen` command on paths outside this repository's layout: generate a schema into
//! chosen folders (and say what changed), read `wiregen.toml`, install dissectors into a plugin
//! folder replacing an older copy of the same protocol.

use std::path::{Path, PathBuf};
use std::process::Command;

fn wiregen(args: &[&str], root: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wiregen"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A folder of one test's own, removed when the test ends (a failing test's too, so that
/// repeated runs do not fill the disk; `WIREGEN_KEEP_SCRATCH=1` keeps it to look at).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("WIREGEN_KEEP_SCRATCH").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("wiregen-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

#[test]
fn generate_writes_a_schema_where_it_is_told_and_says_so() {
    let dir = scratch("generate");
    let (schema, rs, lua) = (golden("integers.yaml"), dir.join("rs"), dir.join("lua"));
    let args = [
        "generate",
        schema.to_str().unwrap(),
        "--rust-out",
        rs.to_str().unwrap(),
        "--lua-out",
        lua.to_str().unwrap(),
    ];
    let (ok, out, err) = wiregen(&args, &dir);
    assert!(ok, "{err}");
    assert!(
        out.contains("rs/integers.rs") && out.contains("lua/integers.lua"),
        "{out}"
    );
    let rust = std::fs::read_to_string(dir.join("rs/integers.rs")).unwrap();
    assert!(rust.contains("pub use wiregen_runtime::{"), "{rust}");
    assert!(
        !rust.contains("#!["),
        "no inner attributes in an included file"
    );
    let (ok, out, _) = wiregen(&args, &dir);
    assert!(ok);
    assert!(
        out.starts_with("nothing changed (2 files up to date)"),
        "{out}"
    );
}

#[test]
fn a_wiregen_toml_names_schemas_and_outputs() {
    let dir = scratch("toml");
    std::fs::copy(golden("flags.yaml"), dir.join("game.yaml")).unwrap();
    std::fs::write(
        dir.join("wiregen.toml"),
        "schemas = [\"game.yaml\"]\nrust_out = \"src/gen\"\nlua_out = \"lua\"\n",
    )
    .unwrap();
    let (ok, _, err) = wiregen(&["generate"], &dir);
    assert!(ok, "{err}");
    assert!(dir.join("src/gen/flags.rs").is_file() && dir.join("lua/flags.lua").is_file());
    let (ok, out, err) = wiregen(&["check"], &dir);
    assert!(ok, "{err}");
    assert!(
        out.contains("all 2 generated files are up to date"),
        "{out}"
    );
    std::fs::write(dir.join("lua/flags.lua"), "-- edited").unwrap();
    let (ok, _, err) = wiregen(&["check"], &dir);
    assert!(
        !ok && err.contains("stale:") && err.contains("flags.lua"),
        "{err}"
    );
}

#[test]
fn keep_going_writes_the_good_schemas_and_prune_removes_orphans() {
    let dir = scratch("keep-going");
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::copy(golden("flags.yaml"), dir.join("schema/a.yaml")).unwrap();
    std::fs::write(dir.join("schema/b.yaml"), "protocol: {name: b\n").unwrap();
    std::fs::write(
        dir.join("wiregen.toml"),
        "schema_dirs = [\"schema\"]\nrust_out = \"gen\"\ncrates = true\nlua_out = \"lua\"\n\
         keep_going = true\nprune = true\n",
    )
    .unwrap();
    let (ok, out, err) = wiregen(&["generate"], &dir);
    // b.yaml's mistake is reported at its position, and a.yaml's outputs are written anyway.
    assert!(!ok && err.contains("schema/b.yaml:"), "{err}");
    assert!(out.contains("gen/flags/Cargo.toml"), "{out}");
    assert!(dir.join("gen/flags/src/codec.rs").is_file() && dir.join("lua/flags.lua").is_file());
    // With every schema right, a file no schema makes is an orphan: check names it,
    // generate removes it.
    std::fs::remove_file(dir.join("schema/b.yaml")).unwrap();
    std::fs::write(dir.join("lua/old.lua"), "-- a renamed protocol's dissector").unwrap();
    let (ok, _, err) = wiregen(&["check"], &dir);
    assert!(
        !ok && err.contains("orphan:") && err.contains("old.lua"),
        "{err}"
    );
    let (ok, out, err) = wiregen(&["generate"], &dir);
    assert!(
        ok && out.contains("removed") && out.contains("old.lua"),
        "{out}{err}"
    );
    assert!(!dir.join("lua/old.lua").exists());
    let (ok, out, err) = wiregen(&["check"], &dir);
    assert!(ok, "{out}{err}");
}

/// A checkout's own wiregen crates are what its wirecat and fuzz manifests point at, whichever
/// checkout the wiregen binary was built from, and through a symbolic link as without: the same
/// files whoever runs `check` (a stop hook's binary once found this repository's stale).
#[cfg(unix)]
#[test]
fn wirecat_and_fuzz_manifests_point_at_the_checkout_they_are_in() {
    let dir = scratch("checkout");
    let real = dir.join("real");
    std::fs::create_dir_all(real.join("schema")).unwrap();
    std::fs::create_dir_all(real.join("runtime")).unwrap();
    std::fs::create_dir_all(real.join("codegen")).unwrap();
    std::fs::write(
        real.join("runtime/Cargo.toml"),
        "[package]\nname = \"wiregen-runtime\"\n",
    )
    .unwrap();
    std::fs::write(
        real.join("codegen/Cargo.toml"),
        "[package]\nname = \"wiregen\"\n",
    )
    .unwrap();
    std::fs::copy(golden("flags.yaml"), real.join("schema/flags.yaml")).unwrap();
    std::fs::write(
        real.join("wiregen.toml"),
        "schema_dirs = [\"schema\"]\nrust_out = \"gen\"\ncrates = true\n\
         wirecat = \"wirecat\"\nfuzz = \"fuzz\"\nruntime = \"runtime\"\ngenerator = \"codegen\"\n",
    )
    .unwrap();
    let linked = dir.join("linked");
    let _ = std::fs::remove_file(&linked);
    std::os::unix::fs::symlink(&real, &linked).unwrap();
    let (ok, out, err) = wiregen(&["generate"], &linked);
    assert!(ok, "{out}{err}");
    let read = |f: &str| std::fs::read_to_string(real.join(f)).unwrap();
    assert!(
        read("wirecat/Cargo.toml").contains("wiregen-runtime = { path = \"../runtime\""),
        "{}",
        read("wirecat/Cargo.toml")
    );
    assert!(
        read("fuzz/Cargo.toml").contains("wiregen = { path = \"../codegen\" }"),
        "{}",
        read("fuzz/Cargo.toml")
    );
    assert!(read("gen/flags/Cargo.toml").contains("path = \"../../runtime\""));
    let (ok, out, err) = wiregen(&["check"], &real);
    assert!(ok, "{out}{err}");
    // Without `runtime`/`generator`, the published crates, though a checkout's folders are
    // right there: nothing is looked for.
    std::fs::write(
        real.join("wiregen.toml"),
        "schema_dirs = [\"schema\"]\nrust_out = \"gen\"\ncrates = true\n\
         wirecat = \"wirecat\"\nfuzz = \"fuzz\"\n",
    )
    .unwrap();
    let (ok, out, err) = wiregen(&["generate"], &real);
    assert!(ok, "{out}{err}");
    assert!(read("gen/flags/Cargo.toml").contains("wiregen-runtime = \"0.1\"\n"));
    assert!(read("fuzz/Cargo.toml").contains("wiregen = { version = \"0.1\" }"));
}

#[test]
fn install_replaces_an_older_copy_of_the_same_protocol() {
    let dir = scratch("install");
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let rtype = repo.join("dissectors/rtype.lua");
    std::fs::copy(&rtype, plugins.join("rtype-old.lua")).unwrap();
    std::fs::write(plugins.join("other.lua"), "-- someone else's plugin").unwrap();
    let args = [
        "install",
        rtype.to_str().unwrap(),
        "--dir",
        plugins.to_str().unwrap(),
    ];
    let (ok, out, err) = wiregen(&args, &repo);
    assert!(ok, "{err}");
    assert!(
        out.contains("removed") && out.contains("rtype-old.lua"),
        "{out}"
    );
    assert!(plugins.join("rtype.lua").is_file() && !plugins.join("rtype-old.lua").exists());
    assert!(
        plugins.join("other.lua").is_file(),
        "other plugins are left alone"
    );
}

#[test]
fn a_schema_error_in_generate_is_reported_at_its_position() {
    let dir = scratch("error");
    let schema = dir.join("bad.yaml");
    std::fs::write(
        &schema,
        "protocol: { name: bad, title: Bad, root: P, transport: { udp: { ports: [1] } } }\ntypes:\n  P:\n    fields:\n      - { name: a, type: u7 }\n",
    )
    .unwrap();
    let out = dir.join("out");
    let (ok, _, err) = wiregen(
        &[
            "generate",
            schema.to_str().unwrap(),
            "--rust-out",
            out.to_str().unwrap(),
        ],
        &dir,
    );
    assert!(!ok);
    assert!(
        err.contains("bad.yaml:5:26: error[E0221]: a 7-bit integer in a byte-aligned layout"),
        "{err}"
    );
}

#[test]
fn a_limit_of_the_dissector_does_not_hold_back_the_rust() {
    let dir = scratch("limits");
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken/44-lua-limits.yaml");
    let (rs, lua) = (dir.join("rs"), dir.join("lua"));
    let args = [
        "generate",
        schema.to_str().unwrap(),
        "--rust-out",
        rs.to_str().unwrap(),
        "--lua-out",
        lua.to_str().unwrap(),
    ];
    let (ok, out, err) = wiregen(&args, &dir);
    assert!(!ok, "a wanted output is missing: the command fails");
    assert!(out.contains("rs/demo.rs"), "the Rust is written: {out}");
    assert!(!lua.join("demo.lua").exists());
    assert!(
        err.contains(
            "44-lua-limits.yaml:14:30: error[L0108]: 'stamp': an enum of 40 bits in a bit stream"
        ),
        "{err}"
    );
    let rust = std::fs::read_to_string(rs.join("demo.rs")).unwrap();
    assert!(rust.contains("pub stamp: Stamp"), "{rust}");
}

/// The verifier's build, shared by the tests (the first one builds its dependencies).
fn verify_work_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wiregen-verify")
}

#[test]
fn verify_proves_a_schema_outside_the_repository() {
    let dir = scratch("verify");
    // A schema of the user's own, in a folder of theirs.
    let schema = dir.join("mine.yaml");
    std::fs::copy(golden("integers.yaml"), &schema).unwrap();
    let work = verify_work_dir();
    let args = [
        "verify",
        schema.to_str().unwrap(),
        "--messages",
        "300",
        "--hostile",
        "200",
        "--work-dir",
        work.to_str().unwrap(),
        "--keep",
    ];
    let (ok, out, err) = wiregen(&args, &dir);
    assert!(ok, "{out}\n{err}");
    let last = out.lines().last().unwrap_or("");
    assert!(
        last.starts_with("integers: 300 of 300 messages agree field by field")
            && last.contains("200 hostile datagrams, 0 errors: ok"),
        "{out}"
    );
    // --keep: the captures of checks that passed are kept too, and the report says where.
    let kept: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("integers: capture kept for Wireshark: "))
        .collect();
    assert_eq!(kept.len(), 2, "the valid and the hostile capture:\n{out}");
    for pcap in kept {
        assert!(Path::new(pcap).is_file(), "{pcap}");
    }
}

#[test]
fn verify_proves_an_application_inside_its_transport() {
    let dir = scratch("verify-app");
    // The user's game on a transport schema next to it.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::copy(
        repo.join("schema/riptide-2.1.yaml"),
        dir.join("riptide-2.1.yaml"),
    )
    .unwrap();
    let game = std::fs::read_to_string(repo.join("schema/examples/arena.yaml"))
        .unwrap()
        .replace("../riptide-2.1.yaml", "riptide-2.1.yaml");
    std::fs::write(dir.join("arena.yaml"), game).unwrap();
    let work = verify_work_dir();
    let schema = dir.join("arena.yaml");
    let args = [
        "verify",
        schema.to_str().unwrap(),
        "--messages",
        "300",
        "--hostile",
        "200",
        "--work-dir",
        work.to_str().unwrap(),
    ];
    let (ok, out, err) = wiregen(&args, &dir);
    assert!(ok, "{out}\n{err}");
    let last = out.lines().last().unwrap_or("");
    assert!(
        last.starts_with("arena: 300 of 300 messages agree field by field")
            && last.contains("200 hostile datagrams, 0 errors: ok"),
        "{out}"
    );
}

/// One name everywhere: a generated crate's package is its folder's name and its library's
/// (`riptide_2_1 = { path = "generated/riptide_2_1" }` works as written).
#[test]
fn a_crate_is_named_as_its_protocol() {
    let generated = Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated");
    let mut seen = 0;
    for entry in std::fs::read_dir(generated).unwrap() {
        let dir = entry.unwrap().path();
        let folder = dir.file_name().unwrap().to_str().unwrap().to_string();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains(&format!("\nname = \"{folder}\"\n")),
            "{folder}: {manifest}"
        );
        seen += 1;
    }
    assert!(seen >= 9, "{seen} crates");
}

/// Builds the crate in `dir` with its own target folder (outside this workspace).
fn cargo_build(dir: &Path) -> (bool, String) {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_crate_generated_outside_the_repository_builds() {
    // As a user would: `wiregen generate --crates` into a folder of theirs, then `cargo build`
    // there, naming the runtime of a wiregen checkout (it is not published yet).
    let dir = scratch("crates");
    let schema = golden("integers.yaml");
    let out = dir.join("gen");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    let args = [
        "generate",
        schema.to_str().unwrap(),
        "--rust-out",
        out.to_str().unwrap(),
        "--crates",
        "--runtime-path",
        runtime.to_str().unwrap(),
    ];
    let (ok, _, err) = wiregen(&args, &dir);
    assert!(ok, "{err}");
    let manifest = std::fs::read_to_string(out.join("integers/Cargo.toml")).unwrap();
    // A path from the crate's folder, whatever path the command line gave.
    assert!(manifest.contains("path = \"../"), "{manifest}");
    // A user's own crate depending on the generated one.
    let app = dir.join("app");
    std::fs::create_dir_all(app.join("src")).unwrap();
    std::fs::write(
        app.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
         [dependencies]\nintegers = { path = \"../gen/integers\" }\n",
    )
    .unwrap();
    std::fs::write(
        app.join("src/main.rs"),
        "use integers::*;\nfn main() {\n    let bytes = [0u8; 64];\n    \
         println!(\"{:?}\", Ints::decode(&bytes).map(|v| v.encode()));\n}\n",
    )
    .unwrap();
    let (ok, err) = cargo_build(&app);
    assert!(ok, "{err}");
    // Without --runtime-path: the published runtime, and the command says so.
    let (ok, _, err) = wiregen(&args[..5], &dir);
    assert!(ok, "{err}");
    assert!(err.contains("--runtime-path"), "{err}");
    let manifest = std::fs::read_to_string(out.join("integers/Cargo.toml")).unwrap();
    assert!(manifest.contains("wiregen-runtime = \"0.1\""), "{manifest}");
}

/// A crate's manifest is built as a TOML document: a title with quotes and a backslash (as a
/// schema may write it) stays one valid string (it was pasted between quotes, breaking the file).
#[test]
fn a_title_with_quotes_gives_a_valid_manifest() {
    let dir = scratch("quoted");
    let schema = std::fs::read_to_string(golden("integers.yaml"))
        .unwrap()
        .replace("title: Integers", "title: 'Say \"hi\" \\ now'");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("q.yaml"), schema).unwrap();
    let (schema, out) = (dir.join("q.yaml"), dir.join("gen"));
    let args = [
        "generate",
        schema.to_str().unwrap(),
        "--rust-out",
        out.to_str().unwrap(),
        "--crates",
    ];
    let (ok, _, err) = wiregen(&args, &dir);
    assert!(ok, "{err}");
    let manifest = std::fs::read_to_string(dir.join("gen/integers/Cargo.toml")).unwrap();
    let parsed: toml::Table =
        toml::from_str(&manifest).unwrap_or_else(|e| panic!("{e}\n{manifest}"));
    assert_eq!(
        parsed["package"]["description"].as_str(),
        Some("Say \"hi\" \\ now: encoder and decoder generated by wiregen")
    );
}

/// A schema with compressed fields included (the module form) in a crate whose
/// `wiregen-runtime` lacks the `zlib` feature stops the build with one message naming the
/// feature, not with rustc's errors about the items it brings.
#[test]
fn a_missing_runtime_feature_is_named() {
    let dir = scratch("no-zlib");
    let out = dir.join("gen");
    let schema = golden("compression.yaml");
    let args = [
        "generate",
        schema.to_str().unwrap(),
        "--rust-out",
        out.to_str().unwrap(),
    ];
    let (ok, _, err) = wiregen(&args, &dir);
    assert!(ok, "{err}");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    let app = dir.join("app");
    std::fs::create_dir_all(app.join("src")).unwrap();
    std::fs::write(
        app.join("Cargo.toml"),
        format!(
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
             [dependencies]\nwiregen-runtime = {{ path = {:?} }}\n",
            runtime.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(
        app.join("src/lib.rs"),
        "#[path = \"../../gen/compression.rs\"]\npub mod compression;\n",
    )
    .unwrap();
    let (ok, err) = cargo_build(&app);
    assert!(!ok, "built without the zlib feature");
    assert!(
        err.contains("enable wiregen-runtime's `zlib` feature"),
        "{err}"
    );
}
