//! The netcode analysis on real traffic whose truth is known: every shipped protocol's real
//! capture, and copies of it with one numbered datagram removed, one duplicated, and two of one
//! direction swapped. The crate's analysis (what `wirecat stats` counts) reports exactly that
//! one loss, one repeat, one reordering more than the original; and the dissector's
//! `<proto>.analysis.*` fields say the same of every frame: the same frames lost, repeated,
//! reordered and acked, the same round trips to the nanosecond (the captures' resolution); and
//! the dissector's own summary (`tshark -z <proto>,stats`) counts what `wirecat stats` counts.

mod analysis_support;

use analysis_support::{as_pcap, crate_run, dissector_run, tap_totals, totals, Numbered, Pcap};
use wiregen_runtime::Protocol;

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
