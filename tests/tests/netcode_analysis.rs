//! The netcode analysis on real traffic whose truth is known: every shipped protocol's real
//! capture, and copies of it with one numbered datagram removed, one duplicated, and two of one
//! direction swapped. The crate's analysis (what `wirecat stats` counts) reports exactly that
//! one loss, one repeat, one reordering more than the original; and the dissector's
//! `<proto>.analysis.*` fields say the same of every frame: the same frames lost, repeated,
//! reordered and acked, the same round trips to the nanosecond (the captures' resolution); and
//! the dissector's own summary (`tshark -z <proto>,stats`) counts what `wirecat stats` counts.

mod analysis_support;

use analysis_support::{
    as_pcap, crate_run, crate_run_with_window, dissector_run, dissector_run_with, set_udp_payload,
    tap_totals, totals, udp_at, udp_payload, Numbered, Pcap,
};
use wiregen_runtime::analysis::WINDOW;
use wiregen_runtime::Codec;
use wiregen_runtime::Protocol;
use wiregen_tests::{dissect, repo_root};

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

#[test]
fn riptide_2_2() {
    known_truth_of::<riptide_2_2::Protocol>(
        analysis_support::riptide_2_2_capture(),
        &[7777],
        "dissectors/riptide_2_2.lua",
    );
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

/// The game build's R-Type conversation rewritten past the window: send 1, its ack, sends 2 to
/// `WINDOW` + 1, send 1 again, the acks of 1 and 2, a millisecond apart. Returns the capture and
/// its datagram count.
fn past_window_capture() -> (Vec<u8>, u64) {
    let mut pcap = Pcap::read(&as_pcap("rtype.pcap", "rtype_impl"));
    let link = pcap.link_header_len();
    let to_server = |data: &[u8]| {
        let udp = udp_at(data, link);
        matches!(
            u16::from_be_bytes([data[udp + 2], data[udp + 3]]),
            8080 | 9000
        )
    };
    let template = |client: bool| {
        pcap.records
            .iter()
            .find(|(_, d)| {
                to_server(d) == client && rtype_impl::Packet::decode(udp_payload(d, link)).is_ok()
            })
            .cloned()
            .expect("a datagram each way")
    };
    let (client, server) = (template(true), template(false));
    // (from the client, sequence (0: unreliable), ack)
    let last = WINDOW as u32 + 1;
    let mut plan = vec![(true, 1, 0), (false, 0, 1)];
    plan.extend((2..=last).map(|n| (true, n, 0)));
    plan.extend([(true, 1, 0), (false, 0, 1), (false, 0, 2)]);
    let start = u32::from_le_bytes(client.0[..4].try_into().unwrap());
    pcap.records = plan
        .iter()
        .enumerate()
        .map(|(i, &(from_client, sequence, ack))| {
            let (mut head, mut data) = if from_client {
                client.clone()
            } else {
                server.clone()
            };
            let mut p = rtype_impl::Packet::decode(udp_payload(&data, link)).unwrap();
            p.flags = rtype_impl::PacketFlags(if sequence > 0 { 0x01 } else { 0 });
            (p.sequence, p.ack, p.fragment_count) = (sequence, ack, 0);
            let payload = p.encode().unwrap();
            set_udp_payload(&mut head, &mut data, link, &payload);
            // One millisecond apart.
            head[..4].copy_from_slice(&(start + i as u32 / 1000).to_le_bytes());
            head[4..8].copy_from_slice(&(i as u32 % 1000 * 1_000_000).to_le_bytes());
            (head, data)
        })
        .collect();
    let bytes = pcap.bytes();
    (bytes, plan.len() as u64)
}

/// Past the window, both outputs forget the same sends: R-Type send 1 is acked, then forgotten
/// by `seen` behind `WINDOW` (256) newer sends (all waiting), and sent again — new, it waits once more,
/// behind its first (acked) place in the queue, and the window evicts. The oldest waiting is
/// send 2, not the send just made: the server's ack of 1 links the second send of 1, and its ack
/// of 2 links nothing. (The crate used to evict the new send by its first place.)
#[test]
fn a_send_sent_again_past_the_window_is_forgotten_alike() {
    let (bytes, n) = past_window_capture();
    let (verdicts, _, _) = crate_run::<rtype_impl::Protocol>(&bytes, &[8080, 9000]);
    let acked = |frame: u64| {
        verdicts
            .get(&frame)
            .map_or(vec![], |v| v.acks.iter().map(|a| a.0).collect())
    };
    assert_eq!(acked(2), [1], "the first ack links send 1");
    assert_eq!(
        acked(n - 1),
        [n - 2],
        "the second ack of 1 links its second send"
    );
    assert_eq!(acked(n), [] as [u64; 0], "send 2 was forgotten");
    assert_eq!(
        verdicts,
        dissector_run(
            &bytes,
            "dissectors/rtype_impl.lua",
            "rtype_impl",
            "past-window"
        ),
        "crate and dissector past the window"
    );
    // Nothing forgotten silently (the second pass, showing the verdicts the first kept): a note
    // on each datagram that made a window forget a send, with the conversation's count (send 1
    // again forgets send 2; places rolling out of `seen`, as place 1 does at send W + 1, are the
    // window sliding: no note); with a window the preference makes larger, nothing is forgotten
    // and the ack of 2 links send 2.
    let pcap =
        std::env::temp_dir().join(format!("wiregen-past-window-{}.pcap", std::process::id()));
    std::fs::write(&pcap, &bytes).unwrap();
    let lua = repo_root().join("dissectors/rtype_impl.lua");
    let forgotten = |extra: &[&str]| {
        let d = dissect(&pcap, &lua, extra);
        (0..d.frames.len())
            .flat_map(|i| {
                d.analysis(i, "rtype_impl")
                    .into_iter()
                    .filter(|f| f.name == "rtype_impl.analysis.forgotten")
                    .map(move |f| {
                        (
                            i as u64 + 1,
                            f.showname.rsplit("; ").next().unwrap_or("").to_owned(),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let so_far = |n: u64| format!("{n} forgotten in this conversation so far");
    assert_eq!(
        forgotten(&["-2"]),
        [(n - 2, so_far(1))],
        "the notes of the default window"
    );
    let larger = format!("rtype_impl.analysis_window:{}", WINDOW + 10);
    assert_eq!(
        forgotten(&["-2", "-o", &larger]),
        [],
        "a larger window forgets nothing"
    );
    let d = dissect(&pcap, &lua, &["-2", "-o", &larger]);
    let acks = d
        .analysis(n as usize - 1, "rtype_impl")
        .into_iter()
        .filter(|f| f.name == "rtype_impl.analysis.acks_frame")
        .map(|f| f.show.clone())
        .collect::<Vec<_>>();
    assert_eq!(acks, ["3"], "the ack of 2 links send 2 when it is kept");
    let _ = std::fs::remove_file(pcap);
}

/// `wirecat stats --analysis-window` is the crate's side of the dissector's preference: with
/// the same larger window both keep send 2 and link the ack of 2 to it, frame by frame alike.
#[test]
fn a_larger_window_links_alike_in_crate_and_dissector() {
    let (bytes, n) = past_window_capture();
    let larger = format!("rtype_impl.analysis_window:{}", WINDOW + 10);
    let (wider, _, _) =
        crate_run_with_window::<rtype_impl::Protocol>(&bytes, &[8080, 9000], WINDOW + 10);
    assert_eq!(
        wider
            .get(&n)
            .map(|v| v.acks.iter().map(|a| a.0).collect::<Vec<_>>()),
        Some(vec![3]),
        "the crate's wider window links the ack of 2"
    );
    assert_eq!(
        wider,
        dissector_run_with(
            &bytes,
            "dissectors/rtype_impl.lua",
            "rtype_impl",
            "past-window-wider",
            &["-o", &larger]
        ),
        "crate and dissector with a larger window"
    );
}

/// The analysis's preference is read when it changes, not per message: `-o <proto>.analyze:FALSE`
/// leaves every frame without `<proto>.analysis.*` fields, and by default the DNP capture's
/// acks are linked.
#[test]
fn the_preference_turns_the_analysis_off() {
    let pcap = wiregen_tests::repo_root().join("tests/captures/dnp.pcap");
    let lua = wiregen_tests::repo_root().join("dissectors/dnp.lua");
    let acked = |extra: &[&str]| {
        let out = wiregen_tests::tshark_command()
            .arg("-r")
            .arg(&pcap)
            .arg("-X")
            .arg(format!("lua_script:{}", lua.display()))
            .args(extra)
            .args(["-T", "fields", "-e", "dnp.analysis.acks_frame"])
            .output()
            .expect("tshark runs");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .count()
    };
    assert!(acked(&[]) > 5, "acks linked by default");
    assert_eq!(
        acked(&["-o", "dnp.analyze:FALSE"]),
        0,
        "with the analysis off"
    );
    assert!(acked(&["-o", "dnp.analyze:TRUE"]) > 5);
}
