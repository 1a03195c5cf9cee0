//! Messages whose values are typed by lists earlier messages announce (the schema's `state`:
//! DNP's Link Update, typed by its link's Link State): each drawn with the messages announcing
//! what it needs (`ArbitraryProtocol::arbitrary_stateful`) and sent after them, in a
//! conversation of its own (after the opening). Every message of it is read by the crate with
//! the conversation's state (`Protocol::datagram_notes_in`) and compared field by field with the
//! dissector, which keeps the same state.

use crate::compare::hex;
use crate::conversation;
use crate::frame::compare_frame;
use crate::pcap::Datagram;
use crate::report::Report;
use crate::rng::Rng;
use crate::tshark::Dissection;
use wiregen_runtime::ArbitraryProtocol;

/// One conversation: who sends it, and its messages in order (the announcing ones first).
#[derive(Debug, Clone)]
pub struct Stateful {
    pub from_client: bool,
    pub datagrams: Vec<Vec<u8>>,
}

/// Up to `n` such conversations (none when the schema keeps no state, or its crate cannot
/// announce what a message needs).
pub fn arbitrary_stateful<P: ArbitraryProtocol>(
    n: usize,
    rng: &mut Rng,
    report: &mut Report,
) -> Vec<Stateful> {
    let mut out = Vec::new();
    let mut tries = 0;
    // A message that needs no list gives nothing: most draws may be those.
    while out.len() < n && tries < n.saturating_mul(100).max(1) {
        tries += 1;
        let len = 16 + rng.below(600) as usize;
        let raw = rng.bytes(len);
        let mut u = arbitrary::Unstructured::new(&raw);
        let from_client = rng.below(2) == 0;
        match P::arbitrary_stateful(&mut u, from_client) {
            Ok(Ok(datagrams)) if datagrams.is_empty() => {}
            Ok(Ok(datagrams)) => out.push(Stateful {
                from_client,
                datagrams,
            }),
            Ok(Err(e)) => report.refuse(&e),
            Err(_) => {}
        }
    }
    out
}

/// The capture's datagrams: each conversation on a client port of its own (60000 on), after
/// the opening.
pub fn datagrams(
    server: u16,
    opening: &[(bool, Vec<u8>)],
    conversations: &[Stateful],
    between: impl Fn(u16, u16, bool, &[u8]) -> Datagram,
) -> Vec<Datagram> {
    let mut out = Vec::new();
    for (k, c) in conversations.iter().enumerate() {
        let client = 60000 + (k % 5000) as u16;
        let sent = c.datagrams.iter().map(Vec::as_slice);
        out.extend(conversation::datagrams(
            server,
            client,
            opening,
            c.from_client,
            sent,
            &between,
        ));
    }
    out
}

/// Checks every message of `conversations`, whose datagrams start at frame `first` of `d`:
/// read by the crate with the state its conversation announced, field by field as the dissector
/// shows it.
pub fn check<P: ArbitraryProtocol>(
    d: &Dissection,
    first: usize,
    opening: &[(bool, Vec<u8>)],
    conversations: &[Stateful],
    report: &mut Report,
) {
    let mut frame = first;
    for c in conversations {
        let mut conversation = P::Conversation::default();
        frame = conversation::compare_opening::<P>(d, frame, &mut conversation, opening, report);
        report.stateful_sent += 1;
        for bytes in &c.datagrams {
            let (read, notes) = P::datagram_notes_in(&mut conversation, c.from_client, bytes);
            match read {
                Ok(()) => compare_frame(d, frame, bytes, &notes, report),
                Err(e) => report.disagreements.push(format!(
                    "frame {}: the crate cannot read its own message {} after the lists it \
                     needs were announced: {e}",
                    frame + 1,
                    hex(bytes)
                )),
            }
            frame += 1;
        }
    }
}
