//! A real session over TCP: the Riptide captures' messages (of the reference implementation,
//! over UDP) carried on TCP connections as Riptide's TCP transport frames them, cut into
//! segments of every shape (a message split over several, several in one), with a segment
//! retransmitted and two arriving out of order. wirecat (the crate's side) and the dissector in
//! tshark (Wireshark's reassembly) must find the same messages, completed in the same frames.

use wirecat::capture::{self, Transport};
use wirecat::reading;
use wirecat::session::Ports;
use wiregen_runtime::tcp::Framing;
use wiregen_runtime::Protocol;
use wiregen_tests::{dissect, repo_root, write_tcp_packets, Dissection, TcpPacket};

/// The UDP datagrams of a real capture to or from `port`: (client port, from the client, bytes).
fn datagrams(file: &str, port: u16) -> Vec<(u16, bool, Vec<u8>)> {
    let f = std::fs::File::open(repo_root().join("tests/captures").join(file)).unwrap();
    capture::packets(f)
        .unwrap()
        .map(Result::unwrap)
        .filter(|p| p.transport == Transport::Udp)
        .filter_map(|p| {
            if p.dst.port() == port {
                Some((p.src.port(), true, p.payload))
            } else if p.src.port() == port {
                Some((p.dst.port(), false, p.payload))
            } else {
                None
            }
        })
        .collect()
}

/// The datagrams as TCP segments, one connection per client: each message framed and sent in
/// the capture's order, the segments cut in four ways by turn (the whole backlog; all but its
/// last 3 bytes; in two halves; nothing yet, so the next message shares a segment).
fn segments(datagrams: &[(u16, bool, Vec<u8>)], framing: &Framing, port: u16) -> Vec<TcpPacket> {
    use std::collections::HashMap;
    // Per direction: the bytes not yet sent and the next sequence number.
    let mut backlog: HashMap<(u16, bool), (Vec<u8>, u32)> = HashMap::new();
    let mut packets = Vec::new();
    let mut send = |key: (u16, bool), n: usize, backlog: &mut HashMap<_, (Vec<u8>, u32)>| {
        let (bytes, seq): &mut (Vec<u8>, u32) = backlog.get_mut(&key).unwrap();
        let payload: Vec<u8> = bytes.drain(..n).collect();
        let (src_port, dst_port) = if key.1 { (key.0, port) } else { (port, key.0) };
        packets.push(TcpPacket {
            src_port,
            dst_port,
            seq: *seq,
            fin: false,
            payload,
        });
        *seq += n as u32;
    };
    for (i, (client, from_client, bytes)) in datagrams.iter().enumerate() {
        let key = (*client, *from_client);
        let entry = backlog.entry(key).or_default();
        framing.frame_into(bytes, &mut entry.0).unwrap();
        let n = entry.0.len();
        match i % 4 {
            0 => send(key, n, &mut backlog),
            1 if n > 3 => {
                send(key, n - 3, &mut backlog);
            }
            2 if n > 1 => {
                send(key, n / 2, &mut backlog);
                send(key, n - n / 2, &mut backlog);
            }
            _ => {}
        }
    }
    let mut rest: Vec<(u16, bool)> = backlog
        .iter()
        .filter(|(_, (bytes, _))| !bytes.is_empty())
        .map(|(key, _)| *key)
        .collect();
    rest.sort();
    for key in rest {
        let n = backlog[&key].0.len();
        send(key, n, &mut backlog);
    }
    packets
}

/// Messages shown per frame by the dissector (with out-of-order reassembly on).
fn shown(d: &Dissection, proto: &str, frames: usize) -> Vec<usize> {
    let header = format!("{proto}.header");
    (0..frames)
        .map(|i| {
            d.pdus(i, proto)
                .iter()
                .filter(|f| f.iter().any(|f| f.name == header))
                .count()
        })
        .collect()
}

fn cross_check<P: Protocol>(file: &str, lua: &str) {
    let port = P::TCP_PORTS[0];
    let framing = P::TCP_FRAMING.unwrap();
    let datagrams = datagrams(file, P::UDP_PORTS[0]);
    let mut packets = segments(&datagrams, &framing, port);
    // A retransmission of segment 10, sent again after segment 12; from segment 20 on, the
    // first segment with a later one in its direction swapped with that one (not the first of
    // its direction: without a SYN, the first segment seen is where the stream starts).
    let direction = |p: &TcpPacket| (p.src_port, p.dst_port);
    let next_of_direction = |packets: &[TcpPacket], from: usize| {
        let d = direction(&packets[from]);
        packets[..from]
            .iter()
            .any(|p| direction(p) == d)
            .then_some(())?;
        (from + 1..packets.len()).find(|&j| direction(&packets[j]) == d)
    };
    packets.insert(13, packets[10].clone());
    let (early, late) = (20..packets.len())
        .find_map(|i| Some((i, next_of_direction(&packets, i)?)))
        .unwrap();
    packets.swap(early, late);
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-{}-tcp-{}.pcap",
        P::NAME,
        std::process::id()
    ));
    write_tcp_packets(&pcap, &packets);

    // The crate's side.
    let ports = Ports {
        udp: vec![],
        tcp: vec![port],
    };
    let mut failures = Vec::new();
    let (tally, failed) = reading::check::<P, _>(
        capture::packets(std::fs::File::open(&pcap).unwrap()).unwrap(),
        &ports,
        || {},
        |f| failures.push(format!("frame {}: {}", f.frame, f.problem)),
    )
    .unwrap();
    assert_eq!(failed, 0, "{failures:#?}");
    assert_eq!(
        tally.messages,
        datagrams.len() as u64,
        "every message, once"
    );
    assert_eq!(tally.tcp_segments, packets.len() as u64);
    assert_eq!((tally.retransmissions, tally.out_of_order), (1, 1));
    let mut by_frame = vec![0usize; packets.len()];
    reading::each_event::<P, _>(
        capture::packets(std::fs::File::open(&pcap).unwrap()).unwrap(),
        &ports,
        || {},
        |_, event| {
            if let wirecat::session::Event::Message(m) = event {
                by_frame[m.frame as usize - 1] += 1;
            }
            Ok(())
        },
    )
    .unwrap();

    // The dissector's side, with Wireshark putting out-of-order segments back in order.
    let d = dissect(
        &pcap,
        &repo_root().join("dissectors").join(lua),
        &["-o", "tcp.reassemble_out_of_order:TRUE"],
    );
    let _ = std::fs::remove_file(&pcap);
    assert_eq!(
        shown(&d, P::NAME, packets.len()),
        by_frame,
        "messages per frame"
    );
}

#[test]
fn riptide_2_0_over_tcp_reads_alike_in_wirecat_and_the_dissector() {
    cross_check::<riptide_2_0::Protocol>("riptide20-udp.pcap", "riptide_2_0.lua");
}

#[test]
fn riptide_2_1_over_tcp_reads_alike_in_wirecat_and_the_dissector() {
    cross_check::<riptide_2_1::Protocol>("riptide21-udp.pcap", "riptide_2_1.lua");
}
