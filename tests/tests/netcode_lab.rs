//! The netcode lab's closed loop: each shipped protocol's real session (its busiest
//! conversation, each numbered datagram once) is played by a client and a server on loopback
//! through `wirecat proxy` with seeded loss, duplication and reordering. The netcode analysis of
//! what the proxy sent — the crate's (what `wirecat stats` counts) and the dissector's in tshark,
//! which agree frame by frame — counts exactly the faults the proxy's log says it made: every
//! lost numbered datagram a later one reveals, every copy (at the frame the log names, a repeat
//! of the frame it names), every datagram sent after the next one of its channel. The same seed
//! gives the same faults.

mod analysis_support;

use std::collections::{BTreeMap, HashSet};
use std::io::Cursor;
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use analysis_support::{as_pcap, crate_run, dissector_run, tap_totals, totals, Numbered};
use serde_json::Value;
use wirecat::proxy::impair::{Impairments, Rule};
use wirecat::proxy::{udp, Config, Summary};
use wirecat::replay::Recorded;
use wirecat::session::Ports;
use wiregen_runtime::analysis::Place;
use wiregen_runtime::SerdeProtocol;

/// The busiest conversation of a capture, in order, each numbered place once (a repeat in the
/// recording would be counted as one).
fn session<P: SerdeProtocol>(pcap: &[u8], port: u16) -> Vec<Recorded> {
    let ports = Ports {
        udp: vec![port],
        tcp: vec![],
    };
    let packets =
        wirecat::capture::packets(Box::new(Cursor::new(pcap.to_vec())) as Box<dyn std::io::Read>)
            .unwrap();
    let recorded = wirecat::replay::conversation::<P>(packets, &ports, None).unwrap();
    let mut state = P::Conversation::default();
    let mut seen: Vec<(bool, Place)> = Vec::new();
    recorded
        .into_iter()
        .filter(|r| {
            let place = P::decode_datagram(&mut state, r.from_client, &r.bytes)
                .ok()
                .and_then(|d| P::facts(&d).sequence);
            place.is_none_or(|n| {
                let new = !seen.contains(&(r.from_client, n.place));
                seen.push((r.from_client, n.place));
                new
            })
        })
        .collect()
}

/// What one run through the proxy left: its captures, its log, its summary.
struct Run {
    received: PathBuf,
    sent: PathBuf,
    log: Vec<Value>,
    summary: Summary,
}

/// Plays `session` through a proxy with `rules` and `seed`: the client speaks to the proxy, the
/// server answers whoever the proxy relays for (what it has not heard from yet, it cannot
/// answer: those datagrams are not sent). Stops by itself.
fn through_proxy<P: SerdeProtocol>(
    session: &[Recorded],
    server: SocketAddr,
    rules: Vec<Rule>,
    seed: u64,
    dir: &Path,
) -> Run {
    let server_socket = UdpSocket::bind(server).unwrap();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), server);
    config.rules.rules = rules;
    config.seed = seed;
    config.hold = Duration::from_millis(500);
    let run = Run {
        received: dir.join(format!("received-{seed}.pcap")),
        sent: dir.join(format!("sent-{seed}.pcap")),
        log: Vec::new(),
        summary: Summary::default(),
    };
    let log = dir.join(format!("faults-{seed}.ndjson"));
    config.received = Some(run.received.clone());
    config.sent = Some(run.sent.clone());
    config.log = Some(log.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // A conversation's decoding state stays on its thread: the relay is made there.
    let (tx, rx) = std::sync::mpsc::channel();
    let proxy = std::thread::spawn(move || {
        let relay = udp::Relay::<P>::bind(config).unwrap();
        tx.send(relay.local_addr()).unwrap();
        relay.run(&flag)
    });
    let listen = rx.recv().unwrap();
    wirecat::replay::play_both_sides(
        session,
        listen,
        &server_socket,
        0.0,
        Duration::from_millis(800),
    )
    .unwrap();
    stop.store(true, Ordering::Relaxed);
    let summary = proxy.join().unwrap().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    Run {
        log: text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        summary,
        ..run
    }
}

/// Lost, repeated and reordered datagrams the analysis must count, from the log and what the
/// proxy received: a lost numbered datagram shows between two numbered ones of its direction
/// and channel that arrive; each copy of a numbered one is a repeat; a numbered one sent after the
/// next numbered one of its channel is out of order.
/// What the analysis must say of a run: lost, repeated and reordered datagrams in all; the
/// copies (sent frame, the frame it repeats) and the late datagrams (sent frames).
struct Expected {
    totals: (u64, u64, u64),
    copies: Vec<(u64, u64)>,
    late: Vec<u64>,
}

fn expected(log: &[Value], numbered: &[Numbered]) -> Expected {
    let by_frame: BTreeMap<u64, &Numbered> = numbered.iter().map(|n| (n.frame, n)).collect();
    let lost: HashSet<u64> = log
        .iter()
        .filter(|l| l["fault"] == "loss")
        .map(|l| l["frame"].as_u64().unwrap())
        .collect();
    let same_way = |a: &Numbered, b: &Numbered| {
        a.from_client == b.from_client && a.place.channel == b.place.channel
    };
    // Between two numbered datagrams of its way that arrive, a loss shows: a part below a
    // part of its number that came in time, one by one; the parts of a number after the last
    // that came in time (or all of them), once per number: the analysis cannot know how many
    // there were.
    let delivered = |n: &Numbered| -> Vec<Numbered> {
        numbered
            .iter()
            .filter(|m| same_way(m, n) && !lost.contains(&m.frame))
            .copied()
            .collect()
    };
    let revealed = |n: &Numbered| {
        let d = delivered(n);
        d.iter().any(|m| m.frame < n.frame) && d.iter().any(|m| m.frame > n.frame)
    };
    // Parts sent after the next datagram: they come late.
    let held: HashSet<u64> = log
        .iter()
        .filter(|l| l["fault"] == "reorder")
        .map(|l| l["frame"].as_u64().unwrap())
        .collect();
    let mut trailing = HashSet::new();
    let mut shown_lost = 0;
    for n in lost
        .iter()
        .filter_map(|f| by_frame.get(f))
        .filter(|n| revealed(n))
    {
        let same_number = delivered(n)
            .into_iter()
            .filter(|m| m.place.number == n.place.number)
            .collect::<Vec<_>>();
        if same_number
            .iter()
            .any(|m| m.place.part > n.place.part && !held.contains(&m.frame))
        {
            shown_lost += 1;
            continue;
        }
        // The trailing gap, counted once, is filled by a late part above every part of the
        // number that came in time: the analysis then counts none (see its limits).
        let in_time = same_number
            .iter()
            .filter(|m| !held.contains(&m.frame))
            .map(|m| m.place.part)
            .max();
        let filled = same_number
            .iter()
            .any(|m| held.contains(&m.frame) && in_time.is_none_or(|t| m.place.part > t));
        if trailing.insert((n.from_client, n.place.channel, n.place.number)) && !filled {
            shown_lost += 1;
        }
    }
    let mut copies = Vec::new();
    for l in log.iter().filter(|l| l["fault"] == "duplicate") {
        if by_frame.contains_key(&l["frame"].as_u64().unwrap()) {
            copies.push((
                l["sent_frame"].as_u64().unwrap(),
                l["copy_of"].as_u64().unwrap(),
            ));
        }
    }
    let mut late = Vec::new();
    for l in log.iter().filter(|l| l["fault"] == "reorder") {
        let (held, after) = (l["frame"].as_u64().unwrap(), l["after"].as_u64().unwrap());
        if let (Some(h), Some(a)) = (by_frame.get(&held), by_frame.get(&after)) {
            if same_way(h, a) && h.place != a.place {
                late.push(l["sent_frame"].as_u64().unwrap());
            }
        }
    }
    Expected {
        totals: (shown_lost as u64, copies.len() as u64, late.len() as u64),
        copies,
        late,
    }
}

/// The payloads a proxy received, per direction (to the server, to the client), in order.
fn arrivals(pcap: &[u8], port: u16) -> [Vec<Vec<u8>>; 2] {
    let mut out = [Vec::new(), Vec::new()];
    for p in wirecat::capture::packets(Cursor::new(pcap.to_vec())).unwrap() {
        let p = p.unwrap();
        out[usize::from(p.dst.port() != port)].push(p.payload);
    }
    out
}

/// Seed 1 again: the same faults of the same datagrams (their number `n` in their direction:
/// the two directions may interleave otherwise), as far as the arrivals were the same (a loaded
/// machine's kernel may drop a datagram before the proxy reads it).
fn same_seed_same_faults<P: SerdeProtocol>(
    session: &[Recorded],
    server: SocketAddr,
    when: Option<&str>,
    run: &Run,
    received: &[u8],
    dir: &Path,
) {
    let proto = P::NAME;
    let again = through_proxy::<P>(session, server, impairments(when), 1, dir);
    let (a, b) = (
        arrivals(received, server.port()),
        arrivals(&std::fs::read(&again.received).unwrap(), server.port()),
    );
    let same: Vec<usize> = (0..2)
        .map(|w| a[w].iter().zip(&b[w]).take_while(|(x, y)| x == y).count())
        .collect();
    assert!(
        same[0] > 0 && same[1] > 0,
        "{proto}: the same arrivals at first"
    );
    // Lines are written as datagrams leave: compared as sets.
    let faults = |log: &[Value]| {
        log.iter()
            .filter(|l| l["fault"] != "delay")
            .filter(|l| {
                let w = usize::from(l["direction"] == "to_client");
                l["n"].as_u64().unwrap() as usize <= same[w]
            })
            .map(|l| {
                format!(
                    "{} {} {} {}",
                    l["direction"], l["n"], l["fault"], l["message"]
                )
            })
            .collect::<std::collections::BTreeSet<_>>()
    };
    let first = faults(&run.log);
    assert!(!first.is_empty(), "{proto}: faults to compare");
    assert_eq!(
        first,
        faults(&again.log),
        "{proto}: seed 1 twice, over the first {same:?} datagrams of each direction"
    );
}

/// 15% loss, duplication and reordering, both ways, of the messages meeting `when`.
fn impairments(when: Option<&str>) -> Vec<Rule> {
    vec![Rule {
        when: when.map(|w| w.parse().unwrap()),
        set: Impairments {
            loss: Some(0.15),
            duplicate: Some(0.15),
            reorder: Some(0.15),
            ..Default::default()
        },
        ..Default::default()
    }]
}

/// The closed loop of one protocol, seed after seed (at least 4, at most 16) until every kind
/// of fault was counted; faults only of messages meeting `when`.
fn closed_loop<P: SerdeProtocol>(
    capture: Vec<u8>,
    port: u16,
    host: u8,
    lua: &str,
    when: Option<&str>,
) {
    let proto = P::NAME;
    let session = session::<P>(&capture, port);
    let dir = std::env::temp_dir().join(format!("wiregen-lab-{proto}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server: SocketAddr = format!("127.0.0.{host}:{port}").parse().unwrap();
    let mut reached = (0, 0, 0);
    for seed in 1..=16 {
        if seed > 4 && reached.0 > 0 && reached.1 > 0 && reached.2 > 0 {
            break;
        }
        let run = through_proxy::<P>(&session, server, impairments(when), seed, &dir);
        assert_eq!(run.summary.unsent_at_stop, 0, "{proto} seed {seed}");
        let received = std::fs::read(&run.received).unwrap();
        let (_, numbered, before) = crate_run::<P>(&received, &[port]);
        assert_eq!(
            totals(&before),
            (0, 0, 0),
            "{proto} seed {seed}: played without faults"
        );
        let sent = std::fs::read(&run.sent).unwrap();
        let (verdicts, _, after) = crate_run::<P>(&sent, &[port]);
        let Expected {
            totals: want,
            copies,
            late,
        } = expected(&run.log, &numbered);
        let name = format!("seed{seed}");
        assert_eq!(
            totals(&after),
            want,
            "{proto} seed {seed}: the crate's analysis"
        );
        assert_eq!(
            tap_totals(&sent, lua, proto, &name),
            want,
            "{proto} seed {seed}: tshark -z {proto},stats"
        );
        assert_eq!(
            verdicts,
            dissector_run(&sent, lua, proto, &name),
            "{proto} seed {seed}: crate and dissector"
        );
        for (frame, of) in copies {
            assert_eq!(
                verdicts[&frame].repeat_of,
                Some(of),
                "{proto} seed {seed}: sent frame {frame}"
            );
        }
        for frame in late {
            assert!(
                verdicts[&frame].out_of_order,
                "{proto} seed {seed}: sent frame {frame}"
            );
        }
        reached = (reached.0 + want.0, reached.1 + want.1, reached.2 + want.2);
        if seed == 1 {
            same_seed_same_faults::<P>(&session, server, when, &run, &received, &dir);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        reached.0 > 0 && reached.1 > 0 && reached.2 > 0,
        "{proto}: losses, repeats and reorderings counted over the seeds: {reached:?}"
    );
}

#[test]
fn rtype_impl() {
    closed_loop::<rtype_impl::Protocol>(
        as_pcap("rtype.pcap", "lab-rtype"),
        9000,
        21,
        "dissectors/rtype_impl.lua",
        None,
    );
}

#[test]
fn riptide_2_0() {
    closed_loop::<riptide_2_0::Protocol>(
        as_pcap("riptide20-udp.pcap", "lab-r20"),
        7777,
        22,
        "dissectors/riptide_2_0.lua",
        None,
    );
}

#[test]
fn riptide_2_1() {
    closed_loop::<riptide_2_1::Protocol>(
        as_pcap("riptide21-udp.pcap", "lab-r21"),
        7777,
        23,
        "dissectors/riptide_2_1.lua",
        None,
    );
}

#[test]
fn riptide_2_2() {
    closed_loop::<riptide_2_2::Protocol>(
        analysis_support::riptide_2_2_capture(),
        7777,
        24,
        "dissectors/riptide_2_2.lua",
        None,
    );
}

#[test]
fn dnp() {
    // A Link Update names links a Link State announced: without it, neither the crate nor the
    // dissector can read the conversation's later messages. The proxy spares Link States.
    closed_loop::<dnp::Protocol>(
        as_pcap("dnp.pcap", "lab-dnp"),
        3413,
        25,
        "dissectors/dnp.lua",
        Some("type != LinkState"),
    );
}

#[test]
fn game_protocol() {
    // The opening (Challenge, Response) sets how the session's later datagrams read: spared.
    closed_loop::<game_protocol::Protocol>(
        as_pcap("gameproto-start.pcap", "lab-gp"),
        8999,
        26,
        "dissectors/game_protocol.lua",
        Some("type == Packet"),
    );
}
