//! The C# codecs (`csharp/`): every committed file compiles with Mono's `mcs` without a warning,
//! and each shipped schema's codec agrees with its crate both ways (the crate's arbitrary
//! messages decoded by the C# to the same values and encoded back to the same bytes; values the
//! C# makes decoded by the crate likewise; hostile datagrams raising only `DecodeException`),
//! every type and switch case reached. Needs `mcs` and `mono` (./test.sh installs them).

use std::path::Path;
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

#[test]
fn every_committed_csharp_file_compiles_without_a_warning() {
    mono();
    // Each folder's files together: one runtime, every schema's namespace beside the others'.
    for (dir, at_least) in [("csharp", 7), ("tests/fixture/csharp", 5)] {
        compiles(&repo_root().join(dir), at_least);
    }
}

fn compiles(dir: &Path, at_least: usize) {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cs"))
        .collect();
    files.sort();
    assert!(files.len() >= at_least, "{files:?}");
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
    assert!(report.csharp_agreed > opts.messages / 2, "{report}");
    assert!(report.csharp_made > opts.messages / 5, "{report}");
    assert_eq!(report.csharp_hostile, opts.hostile, "{report}");
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
fn the_fixture_in_csharp_agrees_with_its_crates() {
    agrees::<features::Protocol>("tests/fixture/schema/features.yaml", 0xc510);
    agrees::<varints::Protocol>("tests/fixture/schema/varints.yaml", 0xc511);
    agrees::<bitfeatures::Protocol>("tests/fixture/schema/bitfeatures.yaml", 0xc512);
    agrees::<fragments::Protocol>("tests/fixture/schema/fragments.yaml", 0xc513);
    agrees::<mixed::Protocol>("tests/fixture/schema/mixed.yaml", 0xc514);
}
