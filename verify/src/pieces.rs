//! Payloads cut into pieces, as a conversation carries them: arbitrary wholes of the sender's
//! type, cut by the crate's own `chunk` into packets (`ArbitraryProtocol::arbitrary_pieces`),
//! each whole in a conversation of its own (after the opening, when the protocol has one), its
//! pieces sent in order, out of order, with a piece sent twice, or with one missing. The crate
//! (`Protocol::join`) and the dissector must join the same payloads in the same frames, once
//! each (none when a piece is missing), and the dissector must show the fields the crate's
//! decoder of the joined payload notes.

use crate::compare::{compare, expected, hex};
use crate::conversation;
use crate::pcap::{Datagram, HEADERS};
use crate::report::Report;
use crate::rng::Rng;
use crate::tshark::Dissection;
use wiregen_runtime::ArbitraryProtocol;

/// One payload's pieces: who sent them, the datagrams in the payload's order, and the order
/// they are sent in (an index may repeat: sent again; or be left out: lost).
#[derive(Debug, Clone)]
pub struct Pieces {
    pub from_client: bool,
    pub datagrams: Vec<Vec<u8>>,
    pub sent: Vec<usize>,
}

/// How a payload's pieces are sent: the k-th payload of several pieces goes in order, in reverse,
/// with one piece sent twice (again after the payload completed, for the last), or without one.
fn sending_order(k: usize, pieces: usize, rng: &mut Rng) -> Vec<usize> {
    let mut sent: Vec<usize> = (0..pieces).collect();
    if pieces < 2 {
        return sent;
    }
    match k % 4 {
        1 => sent.reverse(),
        2 => {
            let again = rng.below(pieces as u64) as usize;
            sent.insert(again + 1, again);
        }
        3 => {
            sent.remove(rng.below(pieces as u64) as usize);
        }
        _ => {}
    }
    sent
}

/// Up to `n` arbitrary payloads cut into pieces (none when the crate cuts no payload).
pub fn arbitrary_pieces<P: ArbitraryProtocol>(
    n: usize,
    rng: &mut Rng,
    report: &mut Report,
) -> Vec<Pieces> {
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < n && tries < n.saturating_mul(50).max(1) {
        tries += 1;
        // Large inputs too: payloads of several pieces.
        let len = 64 + rng.below(6000) as usize;
        let raw = rng.bytes(len);
        let mut u = arbitrary::Unstructured::new(&raw);
        let from_client = rng.below(2) == 0;
        match P::arbitrary_pieces(&mut u, from_client) {
            Ok(Ok(datagrams)) if datagrams.is_empty() => return out,
            Ok(Ok(datagrams)) => {
                let sent = sending_order(out.len(), datagrams.len(), rng);
                out.push(Pieces {
                    from_client,
                    datagrams,
                    sent,
                })
            }
            Ok(Err(e)) => report.refuse(&e),
            Err(_) => {}
        }
    }
    out
}

/// The capture's datagrams of `pieces`: each payload on a client port of its own (50000 on),
/// after the opening.
pub fn datagrams(
    server: u16,
    opening: &[(bool, Vec<u8>)],
    pieces: &[Pieces],
    between: impl Fn(u16, u16, bool, &[u8]) -> Datagram,
) -> Vec<Datagram> {
    let mut out = Vec::new();
    for (k, p) in pieces.iter().enumerate() {
        let client = 50000 + (k % 10000) as u16;
        let sent = p.sent.iter().map(|&i| &p.datagrams[i][..]);
        out.extend(conversation::datagrams(
            server,
            client,
            opening,
            p.from_client,
            sent,
            &between,
        ));
    }
    out
}

/// Checks every payload of `pieces`, whose datagrams start at frame `first` of `d` (each
/// conversation's opening first): the crate and the dissector join in the same frames, and the
/// dissector shows the joined payload's fields as the crate notes them.
pub fn check<P: ArbitraryProtocol>(
    d: &Dissection,
    first: usize,
    opening: &[(bool, Vec<u8>)],
    pieces: &[Pieces],
    report: &mut Report,
) {
    let mut frame = first;
    for p in pieces {
        let mut conversation = P::Conversation::default();
        let mut joins = P::Joins::default();
        // Each conversation's opening is compared too (as its conversation reads it).
        frame = conversation::compare_opening::<P>(d, frame, &mut conversation, opening, report);
        let frames = frame..frame + p.sent.len();
        let mut joined = Vec::new();
        for (at, &i) in frames.clone().zip(&p.sent) {
            let bytes = &p.datagrams[i];
            let done = P::decode_datagram(&mut conversation, p.from_client, bytes)
                .map_err(|e| e.to_string())
                .and_then(|datagram| {
                    P::join(
                        &mut conversation,
                        &mut joins,
                        p.from_client,
                        &datagram,
                        at as u64,
                    )
                    .map_err(|e| e.to_string())
                });
            match done {
                Ok(done) => joined.extend(done.into_iter().map(|(j, _)| (at, j))),
                Err(e) => report.disagreements.push(format!(
                    "frame {}: the crate cannot read its own piece {}: {e}",
                    at + 1,
                    hex(bytes)
                )),
            }
        }
        frame = frames.end;
        let crate_frames: Vec<usize> = joined.iter().map(|(at, _)| *at).collect();
        let shown_frames: Vec<usize> = frames
            .clone()
            .flat_map(|at| {
                let n = d
                    .experts(at, P::NAME)
                    .iter()
                    .filter(|e| e.ends_with(".expert.joined"))
                    .count();
                std::iter::repeat_n(at, n)
            })
            .collect();
        let how = how_sent(p);
        let kind = match how {
            _ if p.datagrams.len() == 1 => 0,
            "in order" => 1,
            "out of order" => 2,
            "a piece sent twice" => 3,
            _ => 4,
        };
        report.pieces[kind] += 1;
        // Every piece there once: one payload, at the frame that completed it.
        let whole = p.sent.len() >= p.datagrams.len()
            && (0..p.datagrams.len()).all(|i| p.sent.contains(&i));
        if crate_frames != shown_frames || crate_frames.len() != usize::from(whole) {
            report.disagreements.push(format!(
                "frames {}..={} ({how}): the crate joins payloads in frames {:?}, the dissector \
                 in {:?} ({} expected)",
                frames.start + 1,
                frames.end,
                one_based(&crate_frames),
                one_based(&shown_frames),
                usize::from(whole)
            ));
            continue;
        }
        report.compared += 1;
        let Some((at, whole)) = joined.first() else {
            report.agreed += 1;
            continue;
        };
        let piece = p.sent[at - frames.start];
        let own = P::datagram_notes(p.from_client, &p.datagrams[piece]).1;
        let (_, notes) = P::joined_notes(whole);
        report.see(&notes);
        // The joined payload's fields come after the completing piece's own, in a data source of
        // their own (placed by order, size and value).
        let mut want = expected(&notes);
        for f in &mut want {
            f.source += 1;
        }
        let shown = d.fields(*at, P::NAME);
        let rest = &shown[own.len().min(shown.len())..];
        report.fields += want.len();
        match compare(&want, &rest[..want.len().min(rest.len())], HEADERS) {
            Ok(()) => {
                report.agreed += 1;
                report.joined += 1;
            }
            Err(e) => report.disagreements.push(format!(
                "frame {} (a payload joined from {} pieces, {how}): {e}",
                at + 1,
                p.datagrams.len()
            )),
        }
    }
}

/// How a payload's pieces were sent, in words.
fn how_sent(p: &Pieces) -> &'static str {
    let n = p.datagrams.len();
    if p.sent.len() > n {
        "a piece sent twice"
    } else if p.sent.len() < n {
        "a piece missing"
    } else if p.sent.windows(2).any(|w| w[0] > w[1]) {
        "out of order"
    } else {
        "in order"
    }
}

fn one_based(frames: &[usize]) -> Vec<usize> {
    frames.iter().map(|f| f + 1).collect()
}
