//! The C# codecs (`csharp/`): every committed file compiles with Mono's `mcs` without a warning,
//! and each shipped schema's codec agrees with its crate both ways (the crate's arbitrary
//! messages decoded by the C# to the same values and encoded back to the same bytes; values the
//! C# makes decoded by the crate likewise; hostile datagrams raising only `DecodeException`),
//! every type and switch case reached. Needs `mcs` and `mono` (./test.sh installs them).

use std::path::{Path, PathBuf};
use std::process::Command;
use wiregen_tests::repo_root;

/// Mono's tools are installed: a missing compiler is a failure here, not a skipped test.
fn mono() {
    for tool in ["mcs", "mono"] {
        let ok = Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            ok,
            "{tool} is not installed (apt-get install mono-mcs mono-runtime; ./test.sh does)"
        );
    }
}

/// The runtime's files (`WiregenRuntime.cs`, its reader and writer) in `dir` of the repository.
fn runtime_files(dir: &str) -> Vec<PathBuf> {
    wiregen::backend::csharp::RUNTIME
        .iter()
        .map(|(name, _)| repo_root().join(dir).join(name))
        .collect()
}

#[test]
fn every_committed_csharp_file_compiles_without_a_warning() {
    mono();
    // Each folder's files together: one runtime, every schema's namespace beside the others'.
    for (dir, at_least) in [("csharp", 12), ("tests/fixture/csharp", 6)] {
        compiles(&repo_root().join(dir), at_least);
    }
}

#[test]
fn every_golden_snippets_csharp_compiles_without_a_warning() {
    mono();
    // The snippets' C# (one construct each), with the runtime they are generated for.
    let dir = repo_root().join("codegen/tests/golden");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    assert!(files.len() >= 30, "{} C# snippets", files.len());
    files.extend(runtime_files("codegen/csharp"));
    let out = std::env::temp_dir().join(format!("wiregen-golden-{}.dll", std::process::id()));
    let result = Command::new("mcs")
        .args(["-nologo", "-target:library", "-warn:4", "-warnaserror"])
        .arg(format!("-out:{}", out.display()))
        .args(&files)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stdout)
    );
}

fn compiles(dir: &Path, at_least: usize) {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    files.sort();
    assert!(files.len() >= at_least, "{files:?}");
    // The Riptide adapters against the stand-in of Riptide's Message.
    if files.iter().any(|f| f.ends_with("WiregenRiptide.cs")) {
        files.push(repo_root().join("tests/csharp/RiptideMessage.cs"));
    }
    let out = std::env::temp_dir().join(format!("wiregen-csharp-{}.dll", std::process::id()));
    let result = Command::new("mcs")
        .args([
            "-nologo",
            "-target:library",
            "-warn:4",
            "-warnaserror",
            "-langversion:7.2",
        ])
        .arg(format!("-out:{}", out.display()))
        .args(&files)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stdout)
    );
}

/// Builds the proof program of `schema` and checks its C# against crate `P` (no tshark).
fn agrees<P: wiregen_runtime::ArbitraryProtocol + wiregen_runtime::SerdeProtocol>(
    schema: &str,
    seed: u64,
) -> wiregen_verify::Report {
    agrees_with::<P>(schema, seed, false)
}

/// [`agrees`], or for an application (`made_only`) by the values the C# makes of each message.
fn agrees_with<P: wiregen_runtime::ArbitraryProtocol + wiregen_runtime::SerdeProtocol>(
    schema: &str,
    seed: u64,
    made_only: bool,
) -> wiregen_verify::Report {
    mono();
    let root = repo_root();
    let ir = wiregen::pipeline::load(&root, &root.join(schema)).unwrap();
    let dir = root.join("target/csharp-proof").join(&ir.name);
    let program = wiregen::csharp_proof::build(&dir, &ir)
        .unwrap()
        .unwrap_or_else(|why| panic!("{schema}: no C# proof: {why}"));
    let mut opts = wiregen_verify::Options::new("");
    opts.seed = seed;
    opts.csharp = Some(vec!["mono".into(), program.display().to_string()]);
    opts.coverage = wiregen_verify::coverage_list(&wiregen::coverage::coverage_list(&ir));
    opts.csharp_made_only = made_only;
    let mut report = wiregen_verify::Report {
        protocol: P::NAME,
        coverage: opts.coverage.clone(),
        ..Default::default()
    };
    wiregen_verify::verify_csharp::<P>(&opts, &mut report);
    assert!(report.csharp_ok(), "{report}");
    // Most of the crate's messages count, and a good part of the values the C# makes (the rest
    // its encoder refuses, as the schema says: an optional field whose condition disagrees, a
    // length the schema's expression cannot give): a generator that stopped making them would
    // prove nothing, whatever the coverage says.
    if !made_only {
        assert!(report.csharp_agreed > opts.messages / 2, "{report}");
        assert_eq!(report.csharp_hostile, opts.hostile, "{report}");
    }
    assert!(report.csharp_made > opts.messages / 5, "{report}");
    report
}

#[test]
fn rtype_in_csharp_agrees_with_its_crate() {
    // A CRC-16 over the whole datagram, IS_ACK implied by the command.
    agrees::<rtype::Protocol>("schema/rtype.yaml", 0xc501);
}

#[test]
fn rtype_impl_in_csharp_agrees_with_its_crate() {
    agrees::<rtype_impl::Protocol>("schema/rtype-impl.yaml", 0xc506);
}

#[test]
fn dnp_in_csharp_agrees_with_its_crate() {
    // Link Updates typed by the Link State their conversation announced: checked in
    // conversations, with the C#'s ConversationState.
    let report = agrees::<dnp::Protocol>("schema/dnp.yaml", 0xc504);
    assert!(report.csharp_in_conversations > 50, "{report}");
}

#[test]
fn riptide_2_0_in_csharp_agrees_with_its_crate() {
    agrees::<riptide_2_0::Protocol>("schema/riptide-2.0.yaml", 0xc502);
}

#[test]
fn riptide_2_1_in_csharp_agrees_with_its_crate() {
    agrees::<riptide_2_1::Protocol>("schema/riptide-2.1.yaml", 0xc503);
}

#[test]
fn riptide_2_2_in_csharp_agrees_with_its_crate() {
    agrees::<riptide_2_2::Protocol>("schema/riptide-2.2.yaml", 0xc509);
}

#[test]
fn game_protocol_in_csharp_agrees_with_its_crate() {
    // The Rabbit messages joined from chunks are reached by the values the C# makes.
    let report = agrees::<game_protocol::Protocol>("schema/game-protocol.yaml", 0xc505);
    assert!(report.csharp_unreached().is_empty(), "{report}");
}

#[test]
fn the_example_applications_in_csharp_agree_with_their_crates() {
    // Their messages ride in a transport's datagrams: each message the C# makes is read by the
    // crate (Arena's through Riptide's Message too: see the test below).
    agrees_with::<arena::Protocol>("schema/examples/arena.yaml", 0xc507, true);
    agrees_with::<dungeon::Protocol>("schema/examples/dungeon.yaml", 0xc508, true);
    agrees_with::<lobby::Protocol>("schema/examples/lobby.yaml", 0xc509, true);
}

#[test]
fn the_fixture_in_csharp_agrees_with_its_crates() {
    agrees::<features::Protocol>("tests/fixture/schema/features.yaml", 0xc510);
    agrees::<varints::Protocol>("tests/fixture/schema/varints.yaml", 0xc511);
    agrees::<bitfeatures::Protocol>("tests/fixture/schema/bitfeatures.yaml", 0xc512);
    agrees::<fragments::Protocol>("tests/fixture/schema/fragments.yaml", 0xc513);
    agrees::<mixed::Protocol>("tests/fixture/schema/mixed.yaml", 0xc514);
}

/// Builds the Arena example's C# with Riptide's adapter, the stand-in `Message` and the test
/// program (tests/csharp/ArenaOverRiptide.cs): the program's path.
fn arena_over_riptide() -> std::path::PathBuf {
    mono();
    let root = repo_root();
    let ir = wiregen::pipeline::load(&root, &root.join("schema/examples/arena.yaml")).unwrap();
    let lowered = wiregen::lower::lower(&ir);
    let dir = root.join("target/csharp-riptide");
    std::fs::create_dir_all(&dir).unwrap();
    // The proof program's random values (its Main is not this program's).
    let proof = wiregen::backend::csharp::proof::program(&ir, &lowered).unwrap();
    std::fs::write(dir.join("Proof.cs"), proof).unwrap();
    let exe = dir.join("arena-over-riptide.exe");
    let mut sources: Vec<PathBuf> = [
        "csharp/WiregenRiptide.cs",
        "csharp/Arena.cs",
        "csharp/ArenaRiptide.cs",
        "tests/csharp/RiptideMessage.cs",
        "tests/csharp/ArenaOverRiptide.cs",
    ]
    .map(|f| root.join(f))
    .into();
    sources.extend(runtime_files("csharp"));
    sources.push(dir.join("Proof.cs"));
    compile_program(&exe, Some("ArenaOverRiptide"), &sources);
    exe
}

/// Compiles `sources` into the program `exe` (its `Main` in class `main` when several have
/// one) as the tests compile every C# file: no warning allowed.
fn compile_program(exe: &Path, main: Option<&str>, sources: &[PathBuf]) {
    let out = Command::new("mcs")
        .args(["-nologo", "-warn:4", "-warnaserror", "-langversion:7.2"])
        .args(main.map(|m| format!("-main:{m}")))
        .arg(format!("-out:{}", exe.display()))
        .args(sources)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Runs the program with `args` and `input`; its output lines.
fn run_program(exe: &Path, args: &[&str], input: &str) -> Vec<String> {
    use std::io::Write;
    let mut child = Command::new("mono")
        .arg(exe)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn arena_messages_go_through_riptides_message_both_ways() {
    let exe = arena_over_riptide();
    // The crate's messages, sent as Riptide datagrams, read through `GetSerializable` and sent
    // again through `AddSerializable`: the same values, the same bytes.
    let mut rng = wiregen_verify::Rng(0xa7e4a);
    let mut sent = Vec::new();
    while sent.len() < 300 {
        let raw = rng.bytes(200);
        let mut u = arbitrary::Unstructured::new(&raw);
        let Ok(m) = <arena::Message<'_> as arbitrary::Arbitrary>::arbitrary(&mut u) else {
            continue;
        };
        let Ok(bytes) = m.encode_user_message() else {
            continue;
        };
        sent.push((serde_json::to_value(&m).unwrap(), bytes));
    }
    let input: String = sent
        .iter()
        .map(|(_, b)| wiregen_verify::hex(b) + "\n")
        .collect();
    let answers = run_program(&exe, &[], &input);
    assert_eq!(answers.len(), sent.len());
    let mut kinds = std::collections::BTreeSet::new();
    for ((json, bytes), answer) in sent.iter().zip(&answers) {
        let parts: Vec<&str> = answer.split('\t').collect();
        assert_eq!(parts[0], "ok", "{} : {answer}", wiregen_verify::hex(bytes));
        let got: serde_json::Value = serde_json::from_str(parts[1]).unwrap();
        assert!(
            wiregen_verify::csharp::same(&got, json),
            "{}: C# {got}, crate {json}",
            wiregen_verify::hex(bytes)
        );
        assert_eq!(parts[2], wiregen_verify::hex(bytes));
        kinds.extend(json.as_object().unwrap().keys().cloned());
    }
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    // Messages the C# makes and sends through `AddSerializable`, read by the crate.
    let made = run_program(&exe, &["made", "300", "11"], "");
    let mut read = 0;
    for line in &made {
        let parts: Vec<&str> = line.split('\t').collect();
        if parts[0] == "refused" {
            continue;
        }
        assert_eq!(parts[0], "made", "{line}");
        let bytes: Vec<u8> = (0..parts[2].len() / 2)
            .map(|i| u8::from_str_radix(&parts[2][2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let m = arena::Message::receive(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", parts[2]))
            .expect("a message");
        let json: serde_json::Value = serde_json::from_str(parts[1]).unwrap();
        assert!(
            wiregen_verify::csharp::same(&serde_json::to_value(&m).unwrap(), &json),
            "{line}"
        );
        assert_eq!(m.encode_user_message().unwrap(), bytes, "{line}");
        read += 1;
    }
    assert!(read > 200, "{read} of {} read", made.len());
}

/// The C# runtime's half floats read and write as the crate's, NaNs included: each half's float
/// bits (a NaN keeps its sign) and the half the float encodes back to. .NET's `float.NaN` has
/// its sign bit set, and the C# once negated it for a positive NaN (schemafuzz seeds 120, 124,
/// 131: 0xFE00 decoded and encoded back as 0x7E00).
#[test]
fn csharp_half_floats_read_and_write_as_the_crates() {
    mono();
    let root = repo_root();
    let halves: [u16; 10] = [
        0x7E00, 0xFE00, 0x7C01, 0xFFFF, 0x7C00, 0xFC00, 0x3C00, 0xC000, 0x0001, 0x8000,
    ];
    let list: Vec<String> = halves.iter().map(|h| format!("0x{h:04X}")).collect();
    let program = format!(
        "using System;\nusing Wiregen;\nstatic class Halves {{\n  static void Main() {{\n    foreach (ushort h in new ushort[] {{ {} }}) {{\n      float f = WireHalf.ToSingle(h);\n      uint bits = BitConverter.ToUInt32(BitConverter.GetBytes(f), 0);\n      Console.WriteLine(\"{{0:X4}} {{1:X8}} {{2:X4}}\", h, bits, WireHalf.FromSingle(f, \"h\"));\n    }}\n  }}\n}}\n",
        list.join(", ")
    );
    let dir = root.join("target/csharp-halves");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Halves.cs"), program).unwrap();
    let exe = dir.join("halves.exe");
    let mut sources = runtime_files("csharp");
    sources.push(dir.join("Halves.cs"));
    compile_program(&exe, None, &sources);
    let expected: Vec<String> = halves
        .iter()
        .map(|&h| {
            let f = wiregen_runtime::f16_to_f32(h);
            let back = wiregen_runtime::f32_to_f16(f).unwrap();
            format!("{h:04X} {:08X} {back:04X}", f.to_bits())
        })
        .collect();
    assert_eq!(run_program(&exe, &[], ""), expected);
}
