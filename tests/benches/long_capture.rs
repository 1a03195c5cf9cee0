//! Long captures: time and memory per datagram as a capture grows, in real tshark
//! (`cargo bench -p wiregen-tests --bench long_capture`; needs tshark and GNU time, `apt-get
//! install time`; about 15 minutes).
//!
//! Captures of 100,000, 300,000 and 1,000,000 datagrams spread over 20,000 conversations are
//! made with the crates, per protocol: R-Type (inputs, world updates, and a world update cut in
//! three fragments every 50 datagrams, so reassembly keeps and frees pieces), DNP (each
//! conversation opens with a Link State; the rest are Link Updates typed by it, so the state
//! tables hold one list per conversation) and Riptide 2.1 (reliable user messages). Each is read
//! by bare tshark and by tshark with the generated dissector (summary lines, one pass). Printed
//! per size: wall time and peak memory (max RSS) of both, the dissector's time per datagram above
//! bare tshark, and the memory each more datagram costs (growth since the previous size) with and
//! without the dissector. Flat columns down the sizes mean nothing grows with the capture beyond
//! what tshark itself keeps per frame (bare tshark's growth is that floor).
//!
//! `WIREGEN_BENCH_SIZES` (comma-separated) changes the sizes, `WIREGEN_BENCH_CONVERSATIONS` the
//! conversations.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use wiregen_runtime::Codec;
use wiregen_tests::*;

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

/// Wall time (s) and peak resident memory (KiB) of one tshark run, from GNU time.
fn measure(pcap: &Path, lua: Option<&Path>) -> (f64, u64) {
    let mut cmd = wiregen_verify::tshark_command_via(&["/usr/bin/time", "-f", "WIREGEN %e %M"])
        .unwrap_or_else(|e| panic!("{e}"));
    cmd.arg("-r").arg(pcap);
    if let Some(lua) = lua {
        cmd.arg("-X").arg(format!("lua_script:{}", lua.display()));
    }
    let out = cmd
        .stdout(std::process::Stdio::null())
        .output()
        .expect("/usr/bin/time runs (apt-get install time)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {stderr}");
    assert!(!stderr.contains("Lua: Error"), "a Lua error: {stderr}");
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("WIREGEN "))
        .unwrap_or_else(|| panic!("no measurement in: {stderr}"));
    let mut parts = line.split_whitespace();
    let secs = parts.next().unwrap().parse().unwrap();
    let kib = parts.next().unwrap().parse().unwrap();
    (secs, kib)
}

/// The client port of conversation `c` (the server's port is the protocol's).
fn client_port(c: usize) -> u16 {
    20000 + c as u16
}

fn rtype_capture(n: usize, conversations: usize) -> Vec<Datagram> {
    let mut rng = Rng(11);
    let mut out = Vec::with_capacity(n);
    let mut i = 0usize;
    while out.len() < n {
        let c = i % conversations;
        let world = |rng: &mut Rng, entities: u64| {
            rtype::PacketPayload::SEntityState(rtype::SEntityState {
                entities: (0..entities)
                    .map(|k| rtype::EntityState {
                        entity_id: k as u32,
                        x: rng.below(800) as u16,
                        y: rng.below(600) as u16,
                        r#type: rng.below(4) as u8,
                    })
                    .collect(),
            })
        };
        let template = rtype::Packet {
            flags: rtype::PacketFlags::empty(),
            sequence: i as u32,
            ack: i as u32,
            fragment_id: 0,
            fragment_index: 0,
            fragment_count: 0,
            payload: rtype::PacketPayload::Ack,
        };
        let (from_client, packets) = if i.is_multiple_of(50) {
            // 300 entities (2,700 bytes) in three pieces from the server.
            let mut whole = template.clone();
            whole.payload = world(&mut rng, 300);
            whole.fragment_id = (i / 50) as u16;
            let payload = whole.encode().unwrap()[20..].to_vec();
            (false, rtype::chunk(&whole, &payload, 1000).unwrap())
        } else if i.is_multiple_of(2) {
            let mut p = template;
            p.payload = rtype::PacketPayload::CInput(rtype::CInput {
                input_mask: rtype::InputMask(rng.below(32) as u8),
            });
            (true, vec![p])
        } else {
            let mut p = template;
            let entities = rng.below(16);
            p.payload = world(&mut rng, entities);
            (false, vec![p])
        };
        for p in packets {
            let (src_port, dst_port) = if from_client {
                (client_port(c), 8080)
            } else {
                (8080, client_port(c))
            };
            out.push(Datagram {
                src_port,
                dst_port,
                payload: p.encode().unwrap(),
            });
        }
        i += 1;
    }
    out.truncate(n);
    out
}

fn dnp_capture(n: usize, conversations: usize) -> Vec<Datagram> {
    use dnp::*;
    (0..n)
        .map(|i| {
            let c = i % conversations;
            let body = if i < conversations {
                CommandBody::LinkState(LinkState {
                    number: 0,
                    link_id: 1,
                    flags: LinkFlags::READ_ONLY,
                    message: Cow::Borrowed(b"state"),
                    values: vec![
                        TypedValue {
                            value: TypedValueValue::SInt16(SInt16Value { value: 0 }),
                        },
                        TypedValue {
                            value: TypedValueValue::Float32(Float32Value { value: 0.0 }),
                        },
                        TypedValue {
                            value: TypedValueValue::UInt32(UInt32Value { value: 0 }),
                        },
                    ],
                })
            } else {
                CommandBody::LinkUpdate(LinkUpdate {
                    links: vec![LinkUpdateLink {
                        link_id: 1,
                        values: vec![
                            IndexedValue {
                                index: 0,
                                value: IndexedValueValue::SInt16(SInt16Value { value: i as i16 }),
                            },
                            IndexedValue {
                                index: 2,
                                value: IndexedValueValue::UInt32(UInt32Value { value: i as u32 }),
                            },
                        ],
                    }],
                })
            };
            Datagram {
                src_port: 3413,
                dst_port: client_port(c),
                payload: Command { body }.encode().unwrap(),
            }
        })
        .collect()
}

fn riptide_capture(n: usize, conversations: usize) -> Vec<Datagram> {
    (0..n)
        .map(|i| {
            let m = riptide_2_1::Message {
                body: riptide_2_1::MessageBody::Reliable(riptide_2_1::ReliableUserMessage {
                    sequence_id: (i / conversations) as u16,
                    message_id: 300,
                    payload: wiregen_runtime::BitString::new(
                        (0..24).map(|k| (k * 7 + i) as u8).collect::<Vec<u8>>(),
                        190,
                    ),
                }),
            };
            Datagram {
                src_port: client_port(i % conversations),
                dst_port: 7777,
                payload: m.encode().unwrap(),
            }
        })
        .collect()
}

type Make = fn(usize, usize) -> Vec<Datagram>;

fn main() {
    let sizes = env_list("WIREGEN_BENCH_SIZES", &[100_000, 300_000, 1_000_000]);
    let conversations = env_list("WIREGEN_BENCH_CONVERSATIONS", &[20_000])[0];
    let root = repo_root();
    tshark();
    let protocols: [(&str, Make); 3] = [
        ("rtype", rtype_capture),
        ("dnp", dnp_capture),
        ("riptide_2_1", riptide_capture),
    ];
    println!(
        "{:<12} {:>9} | {:>7} {:>8} | {:>7} {:>8} | {:>9} | {:>9} {:>9}",
        "protocol",
        "datagrams",
        "bare s",
        "bare MiB",
        "lua s",
        "lua MiB",
        "lua µs/dg",
        "bare B/dg",
        "lua B/dg"
    );
    for (name, make) in protocols {
        let lua: PathBuf = root.join(format!("dissectors/{name}.lua"));
        let mut previous: Option<(usize, u64, u64)> = None;
        for &n in &sizes {
            let pcap = std::env::temp_dir().join(format!(
                "wiregen-long-{name}-{n}-{}.pcap",
                std::process::id()
            ));
            write_pcap(&pcap, &make(n, conversations));
            let (bare_s, bare_kib) = measure(&pcap, None);
            let (lua_s, lua_kib) = measure(&pcap, Some(&lua));
            let _ = std::fs::remove_file(&pcap);
            // Memory per datagram is the growth since the previous size: what a longer capture
            // costs, without the fixed start-up memory.
            let growth = |kib: u64, before: u64, n0: usize| {
                (kib as f64 - before as f64) * 1024.0 / (n - n0) as f64
            };
            let (bare_growth, lua_growth) = match previous {
                Some((n0, b0, l0)) => (
                    format!("{:.0}", growth(bare_kib, b0, n0)),
                    format!("{:.0}", growth(lua_kib, l0, n0)),
                ),
                None => ("-".into(), "-".into()),
            };
            println!(
                "{:<12} {:>9} | {:>7.1} {:>8.0} | {:>7.1} {:>8.0} | {:>9.1} | {:>9} {:>9}",
                name,
                n,
                bare_s,
                bare_kib as f64 / 1024.0,
                lua_s,
                lua_kib as f64 / 1024.0,
                (lua_s - bare_s) * 1e6 / n as f64,
                bare_growth,
                lua_growth,
            );
            previous = Some((n, bare_kib, lua_kib));
        }
    }
}
