//! `wirecat replay` against a server built on the generated crate (wirecat's stand-in,
//! `wirecat serve`), for every shipped protocol's recorded session: the server numbers its
//! datagrams from elsewhere (1,000 on), checks that
//! every client datagram it gets is the recorded one once its acks are put back (the replay
//! rewrote them exactly, checksums and lengths included), and answers as recorded. The replay
//! finds no difference; with one answer changed (the next recorded one sent in its place) it
//! names that answer and the first differing field.

mod analysis_support;

use std::io::Cursor;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use analysis_support::as_pcap;
use wirecat::replay::{self, Options, Recorded};
use wirecat::session::Ports;
use wiregen_runtime::analysis::Numbering;
use wiregen_runtime::SerdeProtocol;

const OFFSET: u64 = 1000;

/// A server datagram decoded alone, its own numbers zeroed, as JSON.
fn unnumbered<P: SerdeProtocol>(bytes: &[u8]) -> Option<serde_json::Value> {
    let mut d = P::decode_datagram(&mut Default::default(), false, bytes).ok()?;
    P::renumber(&mut d, &mut |n, v| match n {
        Numbering::Sequence { .. } => 0,
        Numbering::Ack { .. } => v,
    });
    P::serialize_datagram(&d, serde_json::value::Serializer).ok()
}

fn replay_against<P: SerdeProtocol>(
    recorded: &[Recorded],
    host: u8,
    change: Option<usize>,
) -> (replay::Report, wirecat::stand_in::Served) {
    let server: SocketAddr = format!("127.0.0.{host}:0").parse().unwrap();
    let socket = UdpSocket::bind(server).unwrap();
    let server = socket.local_addr().unwrap();
    let script = recorded.to_vec();
    let served = std::thread::spawn(move || {
        wirecat::stand_in::serve_recorded::<P>(
            &socket,
            &script,
            OFFSET,
            change,
            Duration::from_secs(3),
        )
    });
    let options = Options {
        server,
        speed: 0.0,
        timeout: Duration::from_secs(2),
        ignore: Vec::new(),
    };
    let report = replay::replay::<P>(recorded, &options).unwrap();
    (report, served.join().unwrap())
}

fn proven<P: SerdeProtocol>(capture: Vec<u8>, port: u16, host: u8) {
    let proto = P::NAME;
    let ports = Ports {
        udp: vec![port],
        tcp: vec![],
    };
    let packets =
        wirecat::capture::packets(Box::new(Cursor::new(capture)) as Box<dyn std::io::Read>)
            .unwrap();
    let recorded = replay::conversation::<P>(packets, &ports, None).unwrap();
    let clients = recorded.iter().filter(|r| r.from_client).count();
    let answers = recorded.len() - clients;
    let (report, served) = replay_against::<P>(&recorded, host, None);
    assert_eq!(report.difference, None, "{proto}: the same server");
    assert_eq!((report.sent, report.answers), (clients, answers), "{proto}");
    assert_eq!(
        (served.same, served.other),
        (clients, 0),
        "{proto}: the server got the recorded datagrams"
    );
    assert!(
        report.rewritten > 0,
        "{proto}: acks of the server's numbers were rewritten"
    );
    // A changed answer: the first that differs from the next one besides its numbers.
    let unnumbered: Vec<_> = recorded
        .iter()
        .filter(|r| !r.from_client)
        .map(|r| unnumbered::<P>(&r.bytes))
        .collect();
    let k = (0..unnumbered.len() - 1)
        .find(|&k| unnumbered[k].is_some() && unnumbered[k] != unnumbered[k + 1])
        .unwrap()
        + 1;
    let (report, _) = replay_against::<P>(&recorded, host, Some(k));
    let d = report
        .difference
        .clone()
        .unwrap_or_else(|| panic!("{proto}: a changed answer {k} is found: {report:?}"));
    assert_eq!(d.answer, k, "{proto}: {d}");
    assert_ne!(d.recorded, d.live, "{proto}: {d}");
}

#[test]
fn rtype_impl() {
    proven::<rtype_impl::Protocol>(as_pcap("rtype.pcap", "replay-rtype"), 9000, 31);
}

#[test]
fn riptide_2_0() {
    proven::<riptide_2_0::Protocol>(as_pcap("riptide20-udp.pcap", "replay-r20"), 7777, 32);
}

#[test]
fn riptide_2_1() {
    proven::<riptide_2_1::Protocol>(as_pcap("riptide21-udp.pcap", "replay-r21"), 7777, 33);
}

#[test]
fn riptide_2_2() {
    proven::<riptide_2_2::Protocol>(analysis_support::riptide_2_2_capture(), 7777, 34);
}

#[test]
fn dnp() {
    proven::<dnp::Protocol>(as_pcap("dnp.pcap", "replay-dnp"), 3413, 35);
}

#[test]
fn game_protocol() {
    proven::<game_protocol::Protocol>(as_pcap("gameproto-start.pcap", "replay-gp"), 8999, 36);
}
