//! What the netcode tests share: a capture's datagrams analysed by the crate (what `wirecat
//! stats` counts) and by the dissector in tshark (its `<proto>.analysis.*` fields and its
//! `-z <proto>,stats` tap), frame by frame.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Cursor;

use wirecat::capture;
use wirecat::reading;
use wirecat::session::{Conversations, Event, Key, Ports};
use wirecat::stats::Stats;
use wiregen_runtime::analysis::Place;
use wiregen_runtime::{Codec, Protocol};
use wiregen_tests::{dissect, repo_root};

/// One frame's verdict, as both outputs can say it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Seen {
    pub lost: u64,
    pub repeat_of: Option<u64>,
    pub retransmission: bool,
    pub out_of_order: bool,
    /// Acked frames, and the round trips in ns (the captures' resolution).
    pub acks: Vec<(u64, u64)>,
    pub ping: Option<(u64, u64)>,
}

/// A capture (pcapng) as a little-endian nanosecond pcap file, as editcap writes it.
pub fn as_pcap(file: &str, proto: &str) -> Vec<u8> {
    // A file per call: tests of one process running at once may convert the same capture.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!(
        "wiregen-analysis-{}-{call}-{proto}-{file}",
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
pub struct Pcap {
    pub header: Vec<u8>,
    pub records: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Pcap {
    pub fn read(bytes: &[u8]) -> Pcap {
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

    /// The length of each record's link-layer header (null, Ethernet, Linux cooked v1 / v2).
    pub fn link_header_len(&self) -> usize {
        match u32::from_le_bytes(self.header[20..24].try_into().unwrap()) {
            0 => 4,
            1 => 14,
            113 => 16,
            276 => 20,
            other => panic!("link type {other}"),
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut out = self.header.clone();
        for (h, d) in &self.records {
            out.extend_from_slice(h);
            out.extend_from_slice(d);
        }
        out
    }
}

/// Where the UDP header starts in an IPv4 record whose link header is `link` bytes.
pub fn udp_at(data: &[u8], link: usize) -> usize {
    link + usize::from(data[link] & 0x0F) * 4
}

/// The UDP payload of an IPv4 record whose link header is `link` bytes.
pub fn udp_payload(data: &[u8], link: usize) -> &[u8] {
    &data[udp_at(data, link) + 8..]
}

/// Replaces the UDP payload of an IPv4 record (record header `head`, link header `link` bytes):
/// the record, IP and UDP lengths and the IP checksum redone, no UDP checksum (IPv4 allows it).
pub fn set_udp_payload(head: &mut [u8], data: &mut Vec<u8>, link: usize, payload: &[u8]) {
    let (ip, udp) = (link, udp_at(data, link));
    data.truncate(udp + 8);
    data.extend_from_slice(payload);
    let (ip_len, udp_len) = ((data.len() - ip) as u16, (data.len() - udp) as u16);
    data[ip + 2..ip + 4].copy_from_slice(&ip_len.to_be_bytes());
    data[udp + 4..udp + 6].copy_from_slice(&udp_len.to_be_bytes());
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

/// A numbered datagram of the original capture.
#[derive(Debug, Clone, Copy)]
pub struct Numbered {
    pub frame: u64,
    pub key: Key,
    pub from_client: bool,
    pub place: Place,
}

/// The crate's verdicts of every frame that has one, the numbered datagrams, and the stats.
pub fn crate_run<P: Protocol>(
    pcap: &[u8],
    ports: &[u16],
) -> (BTreeMap<u64, Seen>, Vec<Numbered>, Stats) {
    crate_run_with_window::<P>(pcap, ports, wiregen_runtime::analysis::WINDOW)
}

/// [`crate_run`] with the analysis keeping `window` places, sends and pings (`wirecat stats
/// --analysis-window`).
pub fn crate_run_with_window<P: Protocol>(
    pcap: &[u8],
    ports: &[u16],
    window: usize,
) -> (BTreeMap<u64, Seen>, Vec<Numbered>, Stats) {
    let ports = Ports {
        udp: ports.to_vec(),
        tcp: vec![],
    };
    let mut verdicts = BTreeMap::new();
    let mut numbered = Vec::new();
    let mut stats = Stats::default();
    reading::each_event_in::<P, _>(
        Conversations::default().with_analysis_window(window),
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
pub fn dissector_run(pcap: &[u8], lua: &str, proto: &str, name: &str) -> BTreeMap<u64, Seen> {
    dissector_run_with(pcap, lua, proto, name, &[])
}

/// [`dissector_run`] with more tshark options (`-o <proto>.analysis_window:N`).
pub fn dissector_run_with(
    pcap: &[u8],
    lua: &str,
    proto: &str,
    name: &str,
    extra: &[&str],
) -> BTreeMap<u64, Seen> {
    let path = std::env::temp_dir().join(format!(
        "wiregen-analysis-{proto}-{name}-{}.pcap",
        std::process::id()
    ));
    std::fs::write(&path, pcap).unwrap();
    let d = dissect(&path, &repo_root().join(lua), &[&["-2"], extra].concat());
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

/// What `tshark -z <proto>,<stat>` prints of a capture (called `name`) with the dissector
/// `lua`; it must run and print `heading`.
pub fn tap_text(
    pcap: &[u8],
    lua: &str,
    proto: &str,
    stat: &str,
    name: &str,
    heading: &str,
) -> String {
    let path = std::env::temp_dir().join(format!(
        "wiregen-tap-{proto}-{stat}-{name}-{}.pcap",
        std::process::id()
    ));
    std::fs::write(&path, pcap).unwrap();
    let out = wiregen_tests::tshark_command()
        .arg("-r")
        .arg(&path)
        .arg("-X")
        .arg(format!("lua_script:{}", repo_root().join(lua).display()))
        .args(["-q", "-z", &format!("{proto},{stat}")])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success() && text.contains(heading), "{text}");
    text
}

/// Lost, repeated and out-of-order datagrams as `tshark -z <proto>,stats` sums them (the
/// dissector's own statistics).
pub fn tap_totals(pcap: &[u8], lua: &str, proto: &str, name: &str) -> (u64, u64, u64) {
    let text = tap_text(pcap, lua, proto, "stats", name, "netcode analysis");
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
pub fn totals(s: &Stats) -> (u64, u64, u64) {
    s.conversations.values().flatten().fold((0, 0, 0), |t, d| {
        (
            t.0 + d.lost(),
            t.1 + d.duplicates + d.retransmissions,
            t.2 + d.out_of_order,
        )
    })
}

/// Riptide 2.2 has no capture of its own here: the 2.1 session with every Ack as 2.2 writes it
/// (for_seq only when has_for_seq says so), the UDP and IP lengths and the IP checksum redone
/// (a little-endian nanosecond pcap).
pub fn riptide_2_2_capture() -> Vec<u8> {
    let mut pcap = Pcap::read(&as_pcap("riptide21-udp.pcap", "riptide_2_2"));
    let link = pcap.link_header_len();
    let (mut short, mut long) = (0, 0);
    for (head, data) in &mut pcap.records {
        let Ok(old) = riptide_2_1::Message::decode(udp_payload(data, link)) else {
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
        set_udp_payload(head, data, link, &new);
    }
    assert!(short > 0 && long > 0, "{short} short and {long} long Acks");
    pcap.bytes()
}
