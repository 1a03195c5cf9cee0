//! A TCP schema verified over TCP: the valid messages framed as the schema says, each
//! direction's stream cut into segments at random places (a message across several segments,
//! several messages in one), dissected by tshark, and every PDU the dissector shows compared
//! field by field with the crate's message, in order, direction by direction.

use crate::compare::{compare, expected, Expected, ExpectedField};
use crate::pcap::{write_tcp_pcap, Segment};
use crate::report::{capture_path, keep_or_remove, Options, Report};
use crate::rng::Rng;
use crate::tshark::dissect;
use std::path::PathBuf;
use wiregen_runtime::tcp::Framing;
use wiregen_runtime::Protocol;

/// The client's port (the server's is the schema's): above it, as a client's ephemeral port is,
/// since Wireshark tries the lower port of a TCP segment first (4.6 registers SAP NI on 40000,
/// which took schemafuzz seed 2's segments to port 40002).
fn client_port(server: u16) -> u16 {
    if server < 61000 {
        61000
    } else {
        1030
    }
}

/// Compares `messages` (whether the client sent each, and its bytes) sent over TCP with
/// `framing`, on the server's port `port` (`args`: tshark's extra arguments).
pub(crate) fn verify_tcp<P: Protocol>(
    opts: &Options,
    framing: Framing,
    port: u16,
    args: &[&str],
    messages: &[(bool, Vec<u8>)],
    rng: &mut Rng,
    report: &mut Report,
) -> Result<(), String> {
    // Each direction's stream, and the order its messages are in.
    let mut streams: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    let mut order: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for (k, (from_client, m)) in messages.iter().enumerate() {
        let side = usize::from(!from_client);
        framing
            .frame_into(m, &mut streams[side])
            .map_err(|e| format!("the crate's framing refused message {k}: {e}"))?;
        order[side].push(k);
    }
    // Segments of 1 byte up to about three messages, the two directions taking turns.
    let average = streams.iter().map(Vec::len).sum::<usize>() / messages.len().max(1);
    let mut cut: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
    for (side, stream) in streams.iter().enumerate() {
        let mut at = 0;
        while at < stream.len() {
            let n = (1 + rng.below((3 * average).max(2) as u64) as usize).min(stream.len() - at);
            cut[side].push(stream[at..at + n].to_vec());
            at += n;
        }
    }
    let mut segments = Vec::new();
    let mut sides = Vec::new();
    let (mut a, mut b) = (cut[0].iter(), cut[1].iter());
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            break;
        }
        if let Some(payload) = x {
            segments.push(segment(port, true, payload));
            sides.push(0);
        }
        if let Some(payload) = y {
            segments.push(segment(port, false, payload));
            sides.push(1);
        }
    }
    let pcap = capture_path(opts, P::NAME, "tcp");
    write_tcp_pcap(&pcap, &segments).map_err(|e| format!("{}: {e}", pcap.display()))?;
    let luas: Vec<&std::path::Path> = opts.luas.iter().map(PathBuf::as_path).collect();
    let d = dissect(&pcap, &luas, args)?;
    if let Some(stderr) = d.load_error() {
        return Err(format!("the dissector failed to load:\n{stderr}"));
    }
    let before = report.disagreements.len() + report.errors.len();
    // The PDUs each direction shows, in order, with the frame they ended in.
    let mut shown: [Vec<(usize, Vec<&crate::tshark::Field>)>; 2] = [Vec::new(), Vec::new()];
    for (frame, side) in sides.iter().enumerate() {
        for pdu in d.pdus(frame, P::NAME) {
            shown[*side].push((frame, pdu));
        }
        for e in d.lua_errors(frame) {
            report
                .errors
                .push(format!("segment {}: {}", frame + 1, e.showname));
        }
    }
    let frame_length = format!("{}.frame_length", P::NAME);
    for side in 0..2 {
        if shown[side].len() != order[side].len() {
            report.disagreements.push(format!(
                "the {} sent {} messages over TCP; the dissector shows {} PDUs",
                if side == 0 { "client" } else { "server" },
                order[side].len(),
                shown[side].len()
            ));
        }
        for (&k, (frame, pdu)) in order[side].iter().zip(&shown[side]) {
            let (from_client, m) = &messages[k];
            report.compared += 1;
            report.over_tcp += 1;
            let notes = P::datagram_notes(*from_client, m).1;
            report.see(&notes);
            // The framing's own length prefix, shown before the message's fields (none when
            // the message holds its length: its own field shows it).
            let prefix = framing.header_len();
            let mut own = Vec::new();
            if prefix > 0 {
                own.push(ExpectedField {
                    name: frame_length.clone(),
                    source: 0,
                    offset: 0,
                    len: prefix,
                    value: Expected::Int(m.len() as i128 + i128::from(framing.counted())),
                });
            }
            own.extend(expected(&notes).into_iter().map(|mut f| {
                if f.source == 0 {
                    f.offset += prefix;
                }
                f
            }));
            report.fields += own.len();
            // What follows the message's own fields is a payload its piece completed (as in
            // the datagram check): the message's fields are compared.
            let n = own.len().min(pdu.len());
            match compare(&own, &pdu[..n], 0) {
                Ok(()) => report.agreed += 1,
                Err(e) => report.disagreements.push(format!(
                    "message {} over TCP (its PDU ends in segment {}): {e}",
                    k + 1,
                    frame + 1
                )),
            }
        }
    }
    keep_or_remove(opts, pcap, before, report);
    Ok(())
}

fn segment(server: u16, from_client: bool, payload: &[u8]) -> Segment {
    let client = client_port(server);
    let (src_port, dst_port) = if from_client {
        (client, server)
    } else {
        (server, client)
    };
    Segment {
        src_port,
        dst_port,
        payload: payload.to_vec(),
    }
}
