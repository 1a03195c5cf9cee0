//! Test support for this repository's own protocols: the differential machinery of
//! `wiregen-verify` (which `wiregen verify` gives every user), with failures as panics, plus
//! cross-checks of applications inside their transports and of the Info column.

use std::path::{Path, PathBuf};
use std::process::Command;
pub use wiregen_verify::{
    compare, expected, Datagram, Dissection, Expected, ExpectedField, Field, Rng, Segment,
    TcpPacket, HEADERS,
};

/// The repository root (this crate lives in `tests/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Writes a pcap of UDP datagrams ([`wiregen_verify::write_pcap`]).
pub fn write_pcap(path: &Path, datagrams: &[Datagram]) {
    wiregen_verify::write_pcap(path, datagrams).unwrap();
}

/// Writes a pcap of TCP segments ([`wiregen_verify::write_tcp_pcap`]).
pub fn write_tcp_pcap(path: &Path, segments: &[Segment]) {
    wiregen_verify::write_tcp_pcap(path, segments).unwrap();
}

/// Writes a pcap of TCP segments placed by hand ([`wiregen_verify::write_tcp_packets`]).
pub fn write_tcp_packets(path: &Path, packets: &[TcpPacket]) {
    wiregen_verify::write_tcp_packets(path, packets).unwrap();
}

/// tshark, or a failure that says how to get it. Tests that need it never pass without it.
pub fn tshark() -> PathBuf {
    wiregen_verify::tshark().unwrap_or_else(|e| panic!("{e}. Run ./test.sh: it installs tshark."))
}

/// A tshark command with an isolated, empty configuration ([`wiregen_verify::tshark_command`]).
pub fn tshark_command() -> Command {
    tshark();
    wiregen_verify::tshark_command().unwrap()
}

/// Runs tshark with the dissector at `lua` on `pcap` and parses its PDML; fails the test on
/// any Lua error, at load time or in any frame.
pub fn dissect(pcap: &Path, lua: &Path, extra: &[&str]) -> Dissection {
    tshark();
    let d = wiregen_verify::dissect(pcap, &[lua], extra).unwrap_or_else(|e| panic!("{e}"));
    if let Some(stderr) = d.load_error() {
        panic!("the dissector raised a Lua error:\n{stderr}");
    }
    for i in 0..d.frames.len() {
        if let Some(e) = d.lua_errors(i).first() {
            panic!("frame {i}: {}", e.showname);
        }
    }
    d
}

/// Bytes from a hex string (spaces allowed).
pub fn hex_bytes(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The cross-check over UDP: sends message i to `ports[i % ports.len()]` (a registered port, or
/// another to exercise the heuristic), dissects the capture with the dissector at `lua` (relative
/// to the repository), and compares each frame's fields with `expect(index, bytes)`: the Rust
/// decoder's fields and the expert items the frame must show.
pub fn udp_cross_check(
    name: &str,
    lua: &str,
    ports: &[u16],
    messages: &[Vec<u8>],
    expect: impl Fn(usize, &[u8]) -> (Vec<ExpectedField>, Vec<String>),
) {
    let proto = name;
    let datagrams: Vec<Datagram> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| Datagram {
            src_port: 30000,
            dst_port: ports[i % ports.len()],
            payload: m.clone(),
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!("wiregen-{name}-{}.pcap", std::process::id()));
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &repo_root().join(lua), &[]);
    for (i, m) in messages.iter().enumerate() {
        let (fields, experts) = expect(i, m);
        compare(&fields, &d.fields(i, proto), HEADERS)
            .unwrap_or_else(|e| panic!("frame {i} {m:02x?}: {e}"));
        assert_eq!(
            d.experts(i, proto),
            experts.iter().map(String::as_str).collect::<Vec<_>>(),
            "frame {i} {m:02x?}"
        );
    }
    let _ = std::fs::remove_file(pcap);
}

/// Up to `n` random valid messages of type `$t`: arbitrary values (from a seeded byte stream)
/// that the encoder accepts, encoded.
#[macro_export]
macro_rules! arbitrary_messages {
    ($t:ty, $seed:expr, $n:expr) => {{
        let mut rng = $crate::Rng($seed);
        let mut out: Vec<Vec<u8>> = Vec::new();
        let mut tries = 0;
        while out.len() < $n && tries < $n * 50 {
            tries += 1;
            let len = 16 + rng.below(400) as usize;
            let raw = rng.bytes(len);
            let mut u = arbitrary::Unstructured::new(&raw);
            let Ok(v) = <$t as arbitrary::Arbitrary>::arbitrary(&mut u) else {
                continue;
            };
            if let Ok(bytes) = v.encode() {
                out.push(bytes);
            }
        }
        out
    }};
}

/// The differential test of one protocol, as `wiregen verify` runs it for any schema
/// ([`wiregen_verify::verify`]): thousands of arbitrary valid messages, every field compared with
/// the dissector at `lua` (relative to the repository; `tshark_args` choose it with Decode As if
/// needed), then hostile datagrams. Fails with the report, naming frame, field and bytes.
pub fn verify_protocol<P: wiregen_runtime::ArbitraryProtocol>(
    luas: &[&str],
    tshark_args: &[&str],
    seed: u64,
) -> wiregen_verify::Report {
    tshark();
    let mut opts = wiregen_verify::Options::new(repo_root().join(luas[0]));
    opts.luas
        .extend(luas[1..].iter().map(|l| repo_root().join(l)));
    opts.seed = seed;
    opts.tshark_args = tshark_args.iter().map(|a| a.to_string()).collect();
    let report = wiregen_verify::verify::<P>(&opts);
    assert!(report.ok(), "{report}");
    // Most arbitrary values are valid: a generator that stopped producing them proves nothing.
    assert!(
        report.compared > opts.messages / 2,
        "only {} messages compared\n{report}",
        report.compared
    );
    report
}

/// The cross-check of an application on its transport: sends each transport message to `port`,
/// dissects the capture with the transport's and the application's dissectors loaded (one pass,
/// then two), and compares frame `i` with `expect(i, bytes)`: the transport decoder's fields, and
/// the application decoder's (and no expert calls a message malformed). Returns the pcap (for further runs; the caller removes it).
pub fn application_cross_check(
    transport: (&str, &str),
    application: (&str, &str),
    port: u16,
    extra: &[&str],
    messages: &[Vec<u8>],
    expect: impl Fn(usize, &[u8]) -> (Vec<ExpectedField>, Vec<ExpectedField>),
) -> PathBuf {
    let datagrams: Vec<Datagram> = messages
        .iter()
        .map(|m| Datagram {
            src_port: 40000,
            dst_port: port,
            payload: m.clone(),
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-{}-{}.pcap",
        application.0,
        std::process::id()
    ));
    write_pcap(&pcap, &datagrams);
    let app_lua = format!("lua_script:{}", repo_root().join(application.1).display());
    for passes in [&[][..], &["-2"][..]] {
        let args: Vec<&str> = ["-X", app_lua.as_str()]
            .into_iter()
            .chain(extra.iter().copied())
            .chain(passes.iter().copied())
            .collect();
        let d = dissect(&pcap, &repo_root().join(transport.1), &args);
        for (i, bytes) in messages.iter().enumerate() {
            let (outer, inner) = expect(i, bytes);
            compare(&outer, &d.fields(i, transport.0), HEADERS)
                .unwrap_or_else(|e| panic!("{args:?} frame {i} {}: {e}", transport.0));
            compare(&inner, &d.fields(i, application.0), HEADERS)
                .unwrap_or_else(|e| panic!("{args:?} frame {i} {}: {e}", application.0));
            // Valid messages: notes (an unnamed enum value) at most, nothing malformed.
            let malformed = d.malformed(i, application.0);
            assert!(malformed.is_empty(), "{args:?} frame {i}: {malformed:?}");
        }
    }
    pcap
}

/// The Info column of every frame of `pcap` dissected with the dissectors at `luas` (relative
/// to the repository) and `extra` arguments.
pub fn info_column(pcap: &Path, luas: &[&str], extra: &[&str]) -> Vec<String> {
    let luas: Vec<PathBuf> = luas.iter().map(|l| repo_root().join(l)).collect();
    let luas: Vec<&Path> = luas.iter().map(PathBuf::as_path).collect();
    let args = [&["-T", "fields", "-e", "_ws.col.Info"][..], extra].concat();
    tshark_output(pcap, &luas, &args)
        .lines()
        .map(str::to_string)
        .collect()
}

/// tshark's output for `pcap` read by the dissectors `luas`, with `args`; fails on a Lua error.
pub fn tshark_output(pcap: &Path, luas: &[&Path], args: &[&str]) -> String {
    let mut cmd = tshark_command();
    cmd.arg("-r").arg(pcap).args(args);
    for lua in luas {
        cmd.arg("-X").arg(format!("lua_script:{}", lua.display()));
    }
    let out = cmd.output().expect("tshark runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {stderr}");
    assert!(!stderr.contains("Lua"), "a Lua error:\n{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Checks that `pcap` read by `luas` prints the same summary lines and expert infos (`-q -z
/// expert`) with no tree at all (tshark's summary: the dissectors skip their adds) as with one
/// (`-Y frame`, which every frame passes, makes tshark build it); returns the summary lines.
pub fn same_with_and_without_tree(pcap: &Path, luas: &[&Path]) -> String {
    let mut lines = String::new();
    for args in [&[][..], &["-q", "-z", "expert"][..]] {
        let none = tshark_output(pcap, luas, args);
        let built = tshark_output(pcap, luas, &[args, &["-Y", "frame"][..]].concat());
        assert!(none.lines().count() > 3, "{args:?}: {none}");
        assert_eq!(none, built, "{}: {args:?}, no tree / tree", pcap.display());
        if args.is_empty() {
            lines = none;
        }
    }
    lines
}
