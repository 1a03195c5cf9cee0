//! The generated Lua dissectors against bare tshark and a hand-written dissector, in real tshark
//! (`cargo bench -p wiregen-tests --bench lua_versus`; needs tshark).
//!
//! Captures of 100,000 datagrams are made with the generated crates (R-Type: a game's mix of
//! inputs, world updates of 0 to 15 entities and logins; DNP: a layered session of four clients,
//! `dnp_session.rs`: Link Updates typed by the Link States before them, reliable messages and
//! their acks, Long Reliable Messages of 2 to 656 parts and Long Link States joined; Riptide
//! 2.1: reliable messages). Each is read by tshark with no dissector (the UDP payload shown as
//! data), with the generated dissector (with its netcode analysis and without), and for R-Type
//! and DNP with a hand-written one (`benches/lua/hand_rtype.lua`, `hand_dnp.lua`: same protocol
//! names and fields, checked first to print the same field values as the generated one). Runs
//! are interleaved round by round; the medians are printed with the Lua cost per packet (time
//! above bare tshark) and the ratio generated / hand-written, in three modes: summary lines, the
//! full tree (`-V`) and fields (`-T fields`). Then tshark's start-up with every generated
//! dissector loaded, against none.
//!
//! `WIREGEN_BENCH_C=1` times the hand-written C plugin (`benches/c/`) beside them instead
//! (`c_spike.rs`).
//!
//! `WIREGEN_BENCH_PACKETS` and `WIREGEN_BENCH_ROUNDS` change the capture size (100000) and the
//! rounds (3); `WIREGEN_BENCH_ONLY=rtype` or `=dnp` runs one comparison; `WIREGEN_BENCH_KEEP=1`
//! keeps the captures (and says where). `WIREGEN_BENCH_PROFILE=1` (with valgrind; e.g.
//! `WIREGEN_BENCH_PACKETS=5000`) instead counts the instructions tshark runs on the R-Type
//! capture (the DNP one with `WIREGEN_BENCH_ONLY=dnp`) with each reader, under callgrind (the
//! same count whatever else the machine does), and prints where they go (`=keep` keeps
//! callgrind's files; `=cache` simulates the caches too, the last level as one core's 2 MB L2,
//! and prints the misses: what Lua's collector costs when the heap it sweeps outgrows the cache).

#[path = "c_spike.rs"]
mod c_spike;
#[path = "dnp_session.rs"]
mod dnp_session;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;
use wiregen_runtime::Codec;
use wiregen_tests::*;

/// One way of reading a capture: no dissector, or a Lua file (with these tshark options).
struct Reader {
    name: String,
    lua: Option<PathBuf>,
    options: Vec<String>,
}

/// How tshark prints what it read.
struct Mode {
    name: &'static str,
    args: Vec<&'static str>,
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn tshark_run(pcap: &Path, lua: &[&Path], args: &[&str]) -> (f64, Vec<u8>) {
    let mut cmd = tshark_command();
    cmd.arg("-r").arg(pcap).args(args).stderr(Stdio::piped());
    for l in lua {
        cmd.arg("-X").arg(format!("lua_script:{}", l.display()));
    }
    let t = Instant::now();
    let out = cmd.output().expect("tshark runs");
    let elapsed = t.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {stderr}");
    assert!(!stderr.contains("Lua: Error"), "a Lua error: {stderr}");
    (elapsed, out.stdout)
}

/// Removes a capture the bench wrote, unless `WIREGEN_BENCH_KEEP` is set (then says where it is,
/// to be read again by hand: `tshark -r <it> -X lua_script:…`).
fn done_with(pcap: &Path) {
    if std::env::var_os("WIREGEN_BENCH_KEEP").is_some() {
        println!("kept {}", pcap.display());
    } else {
        let _ = std::fs::remove_file(pcap);
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Times every reader in every mode, interleaved; prints medians, Lua cost and ratios.
fn compare(what: &str, pcap: &Path, packets: usize, readers: &[Reader], modes: &[Mode]) {
    let rounds = env_or("WIREGEN_BENCH_ROUNDS", 3);
    println!("{what}: {packets} datagrams, median of {rounds} interleaved rounds");
    for mode in modes {
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); readers.len()];
        for _ in 0..rounds {
            for (i, r) in readers.iter().enumerate() {
                let lua: Vec<&Path> = r.lua.iter().map(PathBuf::as_path).collect();
                // Without a dissector its fields do not exist: bare tshark prints one of UDP.
                let args: &[&str] = match (&r.lua, mode.args.first()) {
                    (None, Some(&"-T")) => &["-T", "fields", "-e", "udp.length"],
                    _ => &mode.args,
                };
                let args: Vec<&str> = r
                    .options
                    .iter()
                    .map(String::as_str)
                    .chain(args.iter().copied())
                    .collect();
                times[i].push(tshark_run(pcap, &lua, &args).0);
            }
        }
        let medians: Vec<f64> = times.into_iter().map(median).collect();
        println!("  {}:", mode.name);
        let bare = medians[0];
        for (r, t) in readers.iter().zip(&medians) {
            if r.lua.is_none() {
                println!("    {:<30} {t:6.2} s", r.name);
            } else {
                println!(
                    "    {:<30} {t:6.2} s  ({:5.2} µs per packet above bare tshark)",
                    r.name,
                    (t - bare) * 1e6 / packets as f64
                );
            }
        }
        // The generated dissector with its netcode analysis, without it (what the hand-written
        // one does too), and the hand-written one.
        if let [_, with, without] = medians[..] {
            println!(
                "    netcode analysis: {:.2} µs per packet",
                (with - without) * 1e6 / packets as f64
            );
        }
        if let [_, with, without, hand] = medians[..] {
            println!(
                "    generated (analysis off) / hand-written: {:.2} in total time, {:.2} in Lua cost",
                without / hand,
                (without - bare) / (hand - bare)
            );
            println!(
                "    netcode analysis: {:.2} µs per packet",
                (with - without) * 1e6 / packets as f64
            );
        }
    }
}

fn rtype_capture(n: usize) -> Vec<Datagram> {
    let mut rng = Rng(7);
    // Each side numbers its reliable packets and acks the other's last one, as the game does.
    let mut last_reliable = [0u32; 2];
    (0..n)
        .map(|i| {
            let from_client = i % 2 == 0;
            let side = usize::from(!from_client);
            let payload = match rng.below(20) {
                0 => rtype::PacketPayload::ReqLogin(rtype::ReqLogin {
                    username: Cow::Borrowed("Player1"),
                    version: 1,
                    preferred_fragment_size: 1004,
                }),
                _ if from_client => rtype::PacketPayload::CInput(rtype::CInput {
                    input_mask: rtype::InputMask(rng.below(32) as u8),
                }),
                _ => rtype::PacketPayload::SEntityState(rtype::SEntityState {
                    entities: (0..rng.below(16))
                        .map(|k| rtype::EntityState {
                            entity_id: k as u32,
                            x: rng.below(800) as u16,
                            y: rng.below(600) as u16,
                            r#type: rng.below(4) as u8,
                        })
                        .collect(),
                }),
            };
            let flags = rtype::PacketFlags(rng.below(16) as u8 & 0x0D); // never IS_FRAGMENT
            let reliable = flags.0 & 0x01 != 0;
            if reliable {
                last_reliable[side] += 1;
            }
            let p = rtype::Packet {
                flags,
                sequence: if reliable { last_reliable[side] } else { 0 },
                ack: last_reliable[1 - side],
                fragment_id: 0,
                fragment_index: 0,
                fragment_count: 0,
                payload,
            };
            let (src_port, dst_port) = if from_client {
                (40000, 8080)
            } else {
                (8080, 40000)
            };
            Datagram {
                src_port,
                dst_port,
                payload: p.encode().unwrap(),
            }
        })
        .collect()
}

fn riptide_capture(n: usize) -> Vec<Datagram> {
    (0..n)
        .map(|i| {
            let m = riptide_2_1::Message {
                body: riptide_2_1::MessageBody::Reliable(riptide_2_1::ReliableUserMessage {
                    sequence_id: i as u16,
                    message_id: 300,
                    payload: wiregen_runtime::BitString::new(
                        (0..40).map(|k| (k * 7 + i) as u8).collect::<Vec<u8>>(),
                        320,
                    ),
                }),
            };
            Datagram {
                src_port: 40000,
                dst_port: 7777,
                payload: m.encode().unwrap(),
            }
        })
        .collect()
}

/// The field values the generated and the hand-written dissector print, frame by frame, must be
/// the same (`fields`, over the first `frames` frames).
fn check_same_fields(pcap: &Path, generated: &Path, hand: &Path, fields: &[&str], frames: usize) {
    let frames = frames.to_string();
    let mut args = vec!["-T", "fields", "-c", &frames];
    for f in fields {
        args.extend(["-e", f]);
    }
    let (_, a) = tshark_run(pcap, &[generated], &args);
    let (_, b) = tshark_run(pcap, &[hand], &args);
    assert!(a.len() > 2000, "the generated dissector printed fields");
    if a != b {
        let (a, b) = (String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
        let (n, (x, y)) = a
            .lines()
            .zip(b.lines())
            .enumerate()
            .find(|(_, (x, y))| x != y)
            .unwrap_or((0, ("(lengths differ)", "")));
        panic!(
            "{} does not print the generated dissector's fields; frame {}:\n  generated: {x}\n  hand:      {y}",
            hand.display(),
            n + 1
        );
    }
}

/// The R-Type fields both R-Type dissectors must print alike.
const RTYPE_FIELDS: [&str; 11] = [
    "rtype.command",
    "rtype.flags.reliable",
    "rtype.sequence",
    "rtype.payload_size",
    "rtype.checksum",
    "rtype.checksum.status",
    "rtype.req_login.username",
    "rtype.c_input.input_mask.shoot",
    "rtype.entity_state.entity_id",
    "rtype.entity_state.x",
    "rtype.entity_state.type",
];

/// The DNP fields both DNP dissectors must print alike: every layer (commands, typed values,
/// Link Updates typed by the Link States before them, joined long messages and link states).
const DNP_FIELDS: [&str; 16] = [
    "dnp.code",
    "dnp.link_state.link_id",
    "dnp.typed_value.type",
    "dnp.link_update_link.link_id",
    "dnp.indexed_value.index",
    "dnp.u_int32_value.value",
    "dnp.s_int16_value.value",
    "dnp.float32_value.value",
    "dnp.string_value.text",
    "dnp.point3_s16_value.z",
    "dnp.quaternion_f32_value.w",
    "dnp.reliable_ack.number",
    "dnp.long_reliable_message.number",
    "dnp.long_reliable_message.chunk.joined",
    "dnp.long_link_state.message_chunk.joined",
    "dnp.link_values.value_count",
];

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let n = env_or("WIREGEN_BENCH_PACKETS", 100_000);
    let root = repo_root();
    // `WIREGEN_BENCH_ONLY=rtype` (or `dnp`, `riptide`) runs that capture's comparison alone.
    let only = std::env::var("WIREGEN_BENCH_ONLY").ok();
    let runs = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if runs("rtype") && !rtype(&root, n) {
        return;
    }
    if runs("dnp") {
        dnp_layered(&root, n);
    }
    if runs("riptide") {
        riptide(&root, n);
    }
    if only.is_none() {
        startup(&root);
    }
}

/// The R-Type capture read by the generated dissector (with its netcode analysis and without)
/// and the hand-written one; false when the C spike or the profile ran instead (nothing else
/// runs then).
fn rtype(root: &Path, n: usize) -> bool {
    let rtype_pcap = std::env::temp_dir().join("wiregen-bench-lua-rtype.pcap");
    write_pcap(&rtype_pcap, &rtype_capture(n));
    let generated = root.join("dissectors/rtype.lua");
    let hand = root.join("tests/benches/lua/hand_rtype.lua");
    check_same_fields(&rtype_pcap, &generated, &hand, &RTYPE_FIELDS, 2000);
    if std::env::var_os("WIREGEN_BENCH_C").is_some() {
        let modes: Vec<(&str, Vec<&str>)> = rtype_modes()
            .into_iter()
            .map(|m| (m.name, m.args))
            .collect();
        c_spike::compare(&rtype_pcap, n, env_or("WIREGEN_BENCH_ROUNDS", 3), &modes);
        return false;
    }
    if std::env::var_os("WIREGEN_BENCH_PROFILE").is_some() {
        profile("R-Type", &rtype_pcap, &generated, &hand, &rtype_modes());
        return false;
    }
    compare(
        "R-Type",
        &rtype_pcap,
        n,
        &readers(root, "rtype", Some("hand_rtype")),
        &rtype_modes(),
    );
    done_with(&rtype_pcap);
    true
}

/// Riptide 2.1's reliable messages read by the generated dissector, with its analysis and
/// without.
fn riptide(root: &Path, n: usize) {
    let pcap = std::env::temp_dir().join("wiregen-bench-lua-riptide.pcap");
    write_pcap(&pcap, &riptide_capture(n));
    compare(
        "Riptide 2.1 (reliable messages)",
        &pcap,
        n,
        &readers(root, "riptide_2_1", None),
        &modes(vec![
            "-T",
            "fields",
            "-e",
            "riptide_2_1.reliable_user_message.sequence_id",
        ]),
    );
    done_with(&pcap);
}

/// The layered DNP session (`dnp_session.rs`) read by the generated DNP dissector (with its
/// netcode analysis and without) and by the hand-written one, after checking both print the same
/// fields over the whole capture.
fn dnp_layered(root: &Path, n: usize) {
    let pcap = std::env::temp_dir().join("wiregen-bench-lua-dnp.pcap");
    write_pcap(&pcap, &dnp_session::capture(n));
    let generated = root.join("dissectors/dnp.lua");
    let hand = root.join("tests/benches/lua/hand_dnp.lua");
    check_same_fields(&pcap, &generated, &hand, &DNP_FIELDS, n);
    let modes = modes(vec![
        "-T",
        "fields",
        "-e",
        "dnp.code",
        "-e",
        "dnp.indexed_value.index",
    ]);
    if std::env::var_os("WIREGEN_BENCH_PROFILE").is_some() {
        profile("DNP session", &pcap, &generated, &hand, &modes);
        return;
    }
    compare(
        "DNP session (layered: link updates typed by link states, long messages joined)",
        &pcap,
        n,
        &readers(root, "dnp", Some("hand_dnp")),
        &modes,
    );
    done_with(&pcap);
}

/// Bare tshark, the generated dissector of `proto` with its netcode analysis and without, and
/// the hand-written one when there is one: the readers every comparison times.
fn readers(root: &Path, proto: &'static str, hand: Option<&'static str>) -> Vec<Reader> {
    let generated = root.join(format!("dissectors/{proto}.lua"));
    let analyze = |on: bool| {
        vec![
            "-o".to_string(),
            format!("{proto}.analyze:{}", if on { "TRUE" } else { "FALSE" }),
        ]
    };
    let mut all = vec![
        Reader {
            name: "bare tshark".into(),
            lua: None,
            options: vec![],
        },
        Reader {
            name: format!("{proto}.lua"),
            lua: Some(generated.clone()),
            options: analyze(true),
        },
        Reader {
            name: format!("{proto}.lua, analysis off"),
            lua: Some(generated),
            options: analyze(false),
        },
    ];
    if let Some(hand) = hand {
        all.push(Reader {
            name: format!("{hand}.lua"),
            lua: Some(root.join(format!("tests/benches/lua/{hand}.lua"))),
            options: vec![],
        });
    }
    all
}

/// The three ways of reading a capture: summary lines, the full tree and `fields` (those
/// arguments).
fn modes(fields: Vec<&'static str>) -> Vec<Mode> {
    vec![
        Mode {
            name: "summary lines",
            args: vec![],
        },
        Mode {
            name: "full tree (-V)",
            args: vec!["-V"],
        },
        Mode {
            name: "fields (-T fields)",
            args: fields,
        },
    ]
}

/// The three ways of reading the R-Type capture.
fn rtype_modes() -> Vec<Mode> {
    modes(vec![
        "-T",
        "fields",
        "-e",
        "rtype.sequence",
        "-e",
        "rtype.entity_state.entity_id",
    ])
}

/// tshark's start-up and one packet, with every generated dissector loaded and with none.
fn startup(root: &Path) {
    let pcap = std::env::temp_dir().join("wiregen-bench-lua-one.pcap");
    write_pcap(&pcap, &rtype_capture(1));
    let mut all: Vec<PathBuf> = std::fs::read_dir(root.join("dissectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "lua"))
        .collect();
    all.sort();
    let lua: Vec<&Path> = all.iter().map(PathBuf::as_path).collect();
    let rounds = env_or("WIREGEN_BENCH_ROUNDS", 3).max(5);
    let (mut none, mut every) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        none.push(tshark_run(&pcap, &[], &[]).0);
        every.push(tshark_run(&pcap, &lua, &[]).0);
    }
    let (none, every) = (median(none), median(every));
    println!(
        "tshark start-up: {:.0} ms with no dissector, {:.0} ms with all {} generated ones ({:+.0} ms)",
        none * 1e3,
        every * 1e3,
        lua.len(),
        (every - none) * 1e3
    );
    let _ = std::fs::remove_file(pcap);
}

/// The first-level and last-level misses (instruction and data) of `callgrind_annotate`'s
/// totals line, when the caches were simulated (events Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw).
fn misses(annotated: &str) -> (u64, u64) {
    let counts: Vec<u64> = annotated
        .lines()
        .find(|l| l.contains("PROGRAM TOTALS"))
        .map(|l| {
            l.split_whitespace()
                .filter(|w| !w.starts_with('('))
                .filter_map(|w| w.replace(',', "").parse().ok())
                .collect()
        })
        .unwrap_or_default();
    match counts[..] {
        [_, _, _, i1, d1r, d1w, il, dlr, dlw, ..] => (i1 + d1r + d1w, il + dlr + dlw),
        _ => (0, 0),
    }
}

/// The R-Type capture read in each mode by bare tshark and each dissector under callgrind:
/// instructions in all, above bare tshark, and (summary lines) the functions taking most.
fn profile(what: &str, pcap: &Path, generated: &Path, hand: &Path, modes: &[Mode]) {
    let dir = std::env::temp_dir().join(format!("wiregen-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cache = std::env::var("WIREGEN_BENCH_PROFILE").is_ok_and(|v| v == "cache");
    let run = |name: &str, lua: Option<&Path>, args: &[&str]| -> (u64, String) {
        let out = dir.join(format!("callgrind.{name}.{}", args.len()));
        let tshark = tshark_command();
        let mut cmd = std::process::Command::new("valgrind");
        cmd.arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out.display()));
        if cache {
            cmd.args(["--cache-sim=yes", "--LL=2097152,16,64"]);
        }
        cmd.arg(tshark.get_program())
            .args(tshark.get_args())
            .envs(tshark.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
            .arg("-r")
            .arg(pcap)
            .args(args);
        if let Some(l) = lua {
            cmd.arg("-X").arg(format!("lua_script:{}", l.display()));
        }
        let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status();
        assert!(status.is_ok_and(|s| s.success()), "valgrind tshark failed");
        let annotate = std::process::Command::new("callgrind_annotate")
            .arg(&out)
            .output()
            .expect("callgrind_annotate");
        let text = String::from_utf8_lossy(&annotate.stdout).into_owned();
        let total = text
            .lines()
            .find(|l| l.contains("PROGRAM TOTALS"))
            .and_then(|l| l.split_whitespace().next())
            .map(|n| n.replace(',', "").parse().unwrap_or(0))
            .unwrap_or(0);
        (total, text)
    };
    for (k, mode) in modes.iter().enumerate() {
        // Without a dissector its fields do not exist: bare tshark prints one of UDP.
        let bare_args: &[&str] = match mode.args.first() {
            Some(&"-T") => &["-T", "fields", "-e", "udp.length"],
            _ => &mode.args,
        };
        let (bare, _) = run("bare", None, bare_args);
        let (gen, gen_text) = run("generated", Some(generated), &mode.args);
        let (hand_ir, hand_text) = run("hand", Some(hand), &mode.args);
        println!("{what} under callgrind, {}: instructions", mode.name);
        println!("  bare tshark  {bare:>15}");
        println!("  generated    {gen:>15}  (+{} above bare)", gen - bare);
        println!(
            "  hand-written {hand_ir:>15}  (+{} above bare)",
            hand_ir - bare
        );
        println!(
            "  generated / hand-written: {:.3} in all, {:.3} above bare tshark",
            gen as f64 / hand_ir as f64,
            (gen - bare) as f64 / (hand_ir - bare) as f64
        );
        if cache {
            for (name, text) in [("generated", &gen_text), ("hand-written", &hand_text)] {
                let (l1, ll) = misses(text);
                println!("  {name:<12} misses: L1 {l1:>12}, last level (2 MB) {ll:>11}");
            }
        }
        if k > 0 {
            continue;
        }
        for (name, text) in [
            ("the generated dissector", gen_text),
            ("the hand-written one", hand_text),
        ] {
            println!("\nTop functions by own instructions with {name}:");
            let body = text
                .lines()
                .skip_while(|l| !l.contains("file:function"))
                .skip(2);
            for l in body.take(15) {
                println!("  {l}");
            }
        }
        println!();
    }
    if std::env::var("WIREGEN_BENCH_PROFILE").is_ok_and(|v| v == "keep") {
        println!("callgrind's files (summary lines) are in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(dir);
    }
}
