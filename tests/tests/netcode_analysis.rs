//! The netcode analysis on real traffic whose truth is known: every shipped protocol's real
//! capture, and copies of it with one numbered datagram removed, one duplicated, and two of one
//! direction swapped. The crate's analysis (what `wirecat stats` counts) reports exactly that
//! one loss, one repeat, one reordering more than the original; and the dissector's
//! `<proto>.analysis.*` fields say the same of every frame: the same frames lost, repeated,
//! reordered and acked, the same round trips to the nanosecond (the captures' resolution); and
//! the dissector's own summary (`tshark -z <proto>,stats`) counts what `wirecat stats` counts.

use std::collections::BTreeMap;
use std::io::Cursor;

use wirecat::capture;
use wirecat::reading;
use wirecat::session::{Event, Key, Ports};
use wirecat::stats::Stats;
use wiregen_runtime::analysis::Place;
use wiregen_runtime::{Codec, Protocol};
use wiregen_tests::{dissect, repo_root};

/// One frame's verdict, as both outputs can say it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Seen {
    lost: u64,
    repeat_of: Option<u64>,
    retransmission: bool,
    out_of_order: bool,
    /// Acked frames, and the round trips in ns (the captures' resolution).
    acks: Vec<(u64, u64)>,
    ping: Option<(u64, u64)>,
}

/// A capture (pcapng) as a little-endian nanosecond pcap file, as editcap writes it.
fn as_pcap(file: &str, proto: &str) -> Vec<u8> {
    let out = std::env::temp_dir().join(format!(
        "wiregen-analysis-{}-{proto}-{file}",
        std::process::id()
    ));
    // editcap beside tshark, else the system's (a wrapped current tshark has none beside it).
    let beside = wiregen_tests::tshark().with_file_name("editcap");
    let editcap = if beside.exists() {
        beside
    } else {
        "editcap".into()
    };
    let status = std::process::Command::new(editcap)
        .args(["-F", "nsecpcap"])
        .arg(repo_root().join("tests/captures").join(file))
        .arg(&out)
        .status()
        .expect("editcap (it comes with tshark) runs");
    assert!(status.success());
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    bytes
}

/// A classic pcap file cut into its header and records (record header and data).
struct Pcap {
    header: Vec<u8>,
    records: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Pcap {
    fn read(bytes: &[u8]) -> Pcap {
        assert_eq!(
            &bytes[..4],
            &[0x4d, 0x3c, 0xb2, 0xa1],
            "a little-endian nanosecond pcap"
        );
        let mut records = Vec::new();
        let mut at = 24;
        while at < bytes.len() {
            let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
            records.push((
                bytes[at..at + 16].to_vec(),
                bytes[at + 16..at + 16 + len].to_vec(),
            ));
            at += 16 + len;
        }
        Pcap {
            header: bytes[..24].to_vec(),
            records,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = self.header.clone();
        for (h, d) in &self.records {
            out.extend_from_slice(h);
            out.extend_from_slice(d);
        }
        out
    }
}

/// A numbered datagram of the original capture.
#[derive(Debug, Clone, Copy)]
struct Numbered {
    frame: u64,
    key: Key,
    from_client: bool,
    place: Place,
}

/// The crate's verdicts of every frame that has one, the numbered datagrams, and the stats.
fn crate_run<P: Protocol>(
    pcap: &[u8],
    ports: &[u16],
) -> (BTreeMap<u64, Seen>, Vec<Numbered>, Stats) {
    let ports = Ports {
        udp: ports.to_vec(),
        tcp: vec![],
    };
    let mut verdicts = BTreeMap::new();
    let mut numbered = Vec::new();
    let mut stats = Stats::default();
    reading::each_event::<P, _>(
        capture::packets(Cursor::new(pcap.to_vec())).unwrap(),
        &ports,
        || {},
        |c, event| {
            let Event::Message(m) = event else {
                return Ok(());
            };
            let datagram = c
                .decode(&m)
                .map_err(|e| format!("frame {}: {e}", m.frame))?;
            if let Some(n) = P::facts(&datagram).sequence {
                numbered.push(Numbered {
                    frame: m.frame,
                    key: m.key,
                    from_client: m.from_client,
                    place: n.place,
                });
            }
            let v = c.analyze(&m, &datagram);
            stats.add(m.key, m.from_client, m.time, m.bytes.len() as u64, &v);
            let seen = Seen {
                lost: v.lost,
                repeat_of: v.repeat_of,
                retransmission: v.retransmission,
                out_of_order: v.out_of_order,
                acks: v
                    .acked
                    .iter()
                    .map(|a| (a.frame, a.rtt.as_nanos() as u64))
                    .collect(),
                ping: v.ping.map(|p| (p.frame, p.rtt.as_nanos() as u64)),
            };
            if seen != Seen::default() {
                verdicts.insert(m.frame, seen);
            }
            Ok(())
        },
    )
    .unwrap();
    (verdicts, numbered, stats)
}

/// The dissector's verdicts, from its `<proto>.analysis.*` fields (two passes).
fn dissector_run(pcap: &[u8], lua: &str, proto: &str, name: &str) -> BTreeMap<u64, Seen> {
    let path = std::env::temp_dir().join(format!(
        "wiregen-analysis-{proto}-{name}-{}.pcap",
        std::process::id()
    ));
    std::fs::write(&path, pcap).unwrap();
    let d = dissect(&path, &repo_root().join(lua), &["-2"]);
    let _ = std::fs::remove_file(&path);
    let ns = |ms: &str| (ms.parse::<f64>().unwrap() * 1e6).round() as u64;
    let mut out = BTreeMap::new();
    for i in 0..d.frames.len() {
        let mut seen = Seen::default();
        let mut acked = Vec::new();
        let mut rtts = Vec::new();
        let mut ping = (None, None);
        for f in d.analysis(i, proto) {
            let n = || f.show.parse::<u64>().unwrap();
            match &f.name[proto.len() + ".analysis.".len()..] {
                "lost" => seen.lost = n(),
                "retransmission_of" => {
                    seen.repeat_of = Some(n());
                    seen.retransmission = true;
                }
                "duplicate_of" => seen.repeat_of = Some(n()),
                "out_of_order" => seen.out_of_order = true,
                "acks_frame" => acked.push(n()),
                "ack_rtt" => rtts.push(ns(&f.show)),
                "ping_frame" => ping.0 = Some(n()),
                "ping_rtt" => ping.1 = Some(ns(&f.show)),
                _ => {}
            }
        }
        assert_eq!(acked.len(), rtts.len(), "frame {}", i + 1);
        seen.acks = acked.into_iter().zip(rtts).collect();
        seen.ping = ping.0.zip(ping.1);
        if seen != Seen::default() {
            out.insert(i as u64 + 1, seen);
        }
    }
    out
}

/// Lost, repeated and out-of-order datagrams as `tshark -z <proto>,stats` sums them (the
/// dissector's own statistics).
fn tap_totals(pcap: &[u8], lua: &str, proto: &str, name: &str) -> (u64, u64, u64) {
    let path = std::env::temp_dir().join(format!(
        "wiregen-analysis-tap-{proto}-{name}-{}.pcap",
        std::process::id()
    ));
    std::fs::write(&path, pcap).unwrap();
    let out = wiregen_tests::tshark_command()
        .arg("-r")
        .arg(&path)
        .arg("-X")
        .arg(format!("lua_script:{}", repo_root().join(lua).display()))
        .args(["-q", "-z", &format!("{proto},stats")])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("netcode analysis"),
        "{text}"
    );
    let mut totals = (0, 0, 0);
    // direction, datagrams, lost, dup, retx, ooo, …
    for line in text.lines().filter(|l| l.contains(" -> ")) {
        let n: Vec<u64> = line
            .split_whitespace()
            .skip(4)
            .take(4)
            .map(|x| x.parse().unwrap())
            .collect();
        totals = (totals.0 + n[0], totals.1 + n[1] + n[2], totals.2 + n[3]);
    }
    totals
}

/// Lost, repeated (duplicates and retransmissions) and out-of-order datagrams, all directions.
fn totals(s: &Stats) -> (u64, u64, u64) {
    s.conversations.values().flatten().fold((0, 0, 0), |t, d| {
        (
            t.0 + d.lost(),
            t.1 + d.duplicates + d.retransmissions,
            t.2 + d.out_of_order,
        )
    })
}

/// The original capture and the three changed copies: each agrees between crate and dissector
/// and counts exactly the change.
fn known_truth<P: Protocol>(file: &str, ports: &[u16], lua: &str) {
    known_truth_of::<P>(as_pcap(file, P::NAME), ports, lua);
}

/// [`known_truth`] of the capture `original` (a little-endian nanosecond pcap).
fn known_truth_of<P: Protocol>(original: Vec<u8>, ports: &[u16], lua: &str) {
    let proto = P::NAME;
    let (verdicts, numbered, stats) = crate_run::<P>(&original, ports);
    assert_eq!(
        verdicts,
        dissector_run(&original, lua, proto, "original"),
        "{proto}: crate and dissector, original capture"
    );
    let (lost, repeated, reordered) = totals(&stats);
    assert_eq!(
        (lost, reordered),
        (0, 0),
        "{proto}: loopback loses and reorders nothing"
    );
    assert!(
        verdicts
            .values()
            .any(|v| !v.acks.is_empty() || v.ping.is_some()),
        "{proto}: round trips are measured"
    );
    // The first datagram with its place, between two numbered datagrams of the same
    // conversation and direction (a loss shows only between two numbers), and the first with the
    // next place (what it is swapped with), from the middle of the capture. Removing it removes
    // its retransmissions too: one place never arrives.
    let same_way = |a: &Numbered, b: &Numbered| a.key == b.key && a.from_client == b.from_client;
    let first = |i: usize| {
        !numbered[..i]
            .iter()
            .any(|m| same_way(m, &numbered[i]) && m.place == numbered[i].place)
    };
    let candidates: Vec<(usize, usize)> = (0..numbered.len())
        .filter(|&i| first(i) && numbered[..i].iter().any(|m| same_way(m, &numbered[i])))
        .filter_map(|i| {
            let n = &numbered[i];
            let j = (i + 1..numbered.len())
                .find(|&j| same_way(&numbered[j], n) && numbered[j].place != n.place)?;
            first(j).then_some((i, j))
        })
        .collect();
    let (i, j) = candidates[candidates.len() / 2];
    let copies: Vec<usize> = numbered
        .iter()
        .filter(|m| same_way(m, &numbered[i]) && m.place == numbered[i].place)
        .map(|m| m.frame as usize - 1)
        .collect();
    let (k, j) = (
        numbered[i].frame as usize - 1,
        numbered[j].frame as usize - 1,
    );
    let pcap = Pcap::read(&original);
    let mut removed = Pcap::read(&original);
    for &c in copies.iter().rev() {
        removed.records.remove(c);
    }
    let mut duplicated = Pcap::read(&original);
    duplicated.records.insert(k + 1, pcap.records[k].clone());
    // Swapped: the two datagrams trade places, the capture times stay where they were.
    let mut swapped = Pcap::read(&original);
    swapped.records[k].1 = pcap.records[j].1.clone();
    swapped.records[j].1 = pcap.records[k].1.clone();
    swapped.records[k].0[8..16].copy_from_slice(&pcap.records[j].0[8..16]);
    swapped.records[j].0[8..16].copy_from_slice(&pcap.records[k].0[8..16]);
    let resent = copies.len() as u64 - 1;
    for (name, changed, want) in [
        ("removed", removed, (lost + 1, repeated - resent, reordered)),
        ("duplicated", duplicated, (lost, repeated + 1, reordered)),
        ("swapped", swapped, (lost, repeated, reordered + 1)),
    ] {
        let bytes = changed.bytes();
        let (verdicts, _, stats) = crate_run::<P>(&bytes, ports);
        assert_eq!(totals(&stats), want, "{proto}: {name} frame {}", k + 1);
        assert_eq!(
            tap_totals(&bytes, lua, proto, name),
            want,
            "{proto}: tshark -z {proto},stats, frame {} {name}",
            k + 1
        );
        assert_eq!(
            verdicts,
            dissector_run(&bytes, lua, proto, name),
            "{proto}: crate and dissector, frame {} {name}",
            k + 1
        );
    }
}

#[test]
fn rtype_impl() {
    known_truth::<rtype_impl::Protocol>("rtype.pcap", &[8080, 9000], "dissectors/rtype_impl.lua");
}

// The RFC schema (`rtype`) shares the impl's `reliability` (inherited) but cannot read the
// game build's capture (its C_INPUT and S_ENTITY_STATE differ): the crate analyses only what it
// decodes, so there is no capture of the RFC's own traffic to prove it on.

#[test]
fn riptide_2_0() {
    known_truth::<riptide_2_0::Protocol>(
        "riptide20-udp.pcap",
        &[7777],
        "dissectors/riptide_2_0.lua",
    );
}

#[test]
fn riptide_2_1() {
    known_truth::<riptide_2_1::Protocol>(
        "riptide21-udp.pcap",
        &[7777],
        "dissectors/riptide_2_1.lua",
    );
}

/// Riptide 2.2 has no capture of its own here: the 2.1 session with every Ack as 2.2 writes it
/// (for_seq only when has_for_seq says so), the UDP and IP lengths and the IP checksum redone.
#[test]
fn riptide_2_2() {
    let mut pcap = Pcap::read(&as_pcap("riptide21-udp.pcap", "riptide_2_2"));
    let link = match u32::from_le_bytes(pcap.header[20..24].try_into().unwrap()) {
        0 => 4,
        1 => 14,
        113 => 16,
        276 => 20,
        other => panic!("link type {other}"),
    };
    let (mut short, mut long) = (0, 0);
    for (head, data) in &mut pcap.records {
        let ip = link;
        let udp = ip + usize::from(data[ip] & 0x0F) * 4;
        let payload = &data[udp + 8..];
        let Ok(old) = riptide_2_1::Message::decode(payload) else {
            continue;
        };
        let riptide_2_1::MessageBody::Ack(a) = old.body else {
            continue;
        };
        let ack = riptide_2_2::Ack {
            last_received_seq: a.last_received_seq,
            received_bits: a.received_bits,
            for_seq: a.has_for_seq.then_some(a.for_seq),
        };
        if ack.for_seq.is_some() {
            long += 1;
        } else {
            short += 1;
        }
        let new = riptide_2_2::Message {
            body: riptide_2_2::MessageBody::Ack(ack),
        }
        .encode()
        .unwrap();
        data.truncate(udp + 8);
        data.extend_from_slice(&new);
        let (ip_len, udp_len) = ((data.len() - ip) as u16, (data.len() - udp) as u16);
        data[ip + 2..ip + 4].copy_from_slice(&ip_len.to_be_bytes());
        data[udp + 4..udp + 6].copy_from_slice(&udp_len.to_be_bytes());
        // No UDP checksum (IPv4 allows it); the IP header's summed anew.
        data[udp + 6..udp + 8].copy_from_slice(&[0, 0]);
        data[ip + 10..ip + 12].copy_from_slice(&[0, 0]);
        let sum = data[ip..udp]
            .chunks(2)
            .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
            .sum::<u32>();
        let sum = (sum & 0xFFFF) + (sum >> 16);
        let sum = !((sum & 0xFFFF) + (sum >> 16)) as u16;
        data[ip + 10..ip + 12].copy_from_slice(&sum.to_be_bytes());
        let len = (data.len() as u32).to_le_bytes();
        head[8..12].copy_from_slice(&len);
        head[12..16].copy_from_slice(&len);
    }
    assert!(short > 0 && long > 0, "{short} short and {long} long Acks");
    known_truth_of::<riptide_2_2::Protocol>(pcap.bytes(), &[7777], "dissectors/riptide_2_2.lua");
}

#[test]
fn dnp() {
    known_truth::<dnp::Protocol>("dnp.pcap", &[3413], "dissectors/dnp.lua");
}

#[test]
fn game_protocol() {
    known_truth::<game_protocol::Protocol>(
        "gameproto-start.pcap",
        &[8999],
        "dissectors/game_protocol.lua",
    );
}
