//! A conversation of its own in the capture: the protocol's opening, then datagrams of one side,
//! on a client port of its own (payloads cut into pieces, messages after the lists they need);
//! and the opening compared as its conversation reads it.

use crate::compare::hex;
use crate::frame::compare_frame;
use crate::pcap::Datagram;
use crate::report::Report;
use crate::tshark::Dissection;
use wiregen_runtime::Protocol;

/// The capture's datagrams of one conversation on `client`: the opening, then `sent` by the
/// client (`from_client`) or the server.
pub fn datagrams<'b>(
    server: u16,
    client: u16,
    opening: &[(bool, Vec<u8>)],
    from_client: bool,
    sent: impl IntoIterator<Item = &'b [u8]>,
    between: &impl Fn(u16, u16, bool, &[u8]) -> Datagram,
) -> Vec<Datagram> {
    let opening = opening
        .iter()
        .map(|(from_server, bytes)| between(server, client, *from_server, bytes));
    let sent = sent
        .into_iter()
        .map(|bytes| between(server, client, !from_client, bytes));
    opening.chain(sent).collect()
}

/// Compares the opening's datagrams, frames `first` on, each read by `conversation` as it reads
/// them (by their order); returns the frame after them.
pub fn compare_opening<P: Protocol>(
    d: &Dissection,
    first: usize,
    conversation: &mut P::Conversation,
    opening: &[(bool, Vec<u8>)],
    report: &mut Report,
) -> usize {
    for (k, (from_server, bytes)) in opening.iter().enumerate() {
        let frame = first + k;
        match P::datagram_notes_in(conversation, !from_server, bytes) {
            (Ok(()), notes) => compare_frame(d, frame, bytes, &notes, report),
            (Err(e), _) => report.disagreements.push(format!(
                "frame {}: the crate cannot read its own opening datagram {}: {e}",
                frame + 1,
                hex(bytes)
            )),
        }
    }
    first + opening.len()
}
