//! A capture's datagrams read as one protocol: told apart by port, grouped into conversations
//! (client endpoint, server endpoint) whose state each datagram's decoding keeps.

use std::collections::HashMap;
use std::net::SocketAddr;

use wiregen_runtime::Protocol;

use crate::capture::Datagram;

/// Which side sent a datagram, and the conversation it belongs to.
pub struct Placed<'d> {
    pub datagram: &'d Datagram,
    pub from_client: bool,
    /// (client, server) endpoints.
    pub conversation: (SocketAddr, SocketAddr),
}

/// The datagrams to or from one of `ports` (the server's), in capture order.
pub fn placed<'d>(datagrams: &'d [Datagram], ports: &[u16]) -> Vec<Placed<'d>> {
    datagrams
        .iter()
        .filter_map(|d| {
            let (from_client, conversation) = if ports.contains(&d.dst.port()) {
                (true, (d.src, d.dst))
            } else if ports.contains(&d.src.port()) {
                (false, (d.dst, d.src))
            } else {
                return None;
            };
            Some(Placed {
                datagram: d,
                from_client,
                conversation,
            })
        })
        .collect()
}

/// Every conversation's state, created on its first datagram.
pub struct Conversations<P: Protocol> {
    states: HashMap<(SocketAddr, SocketAddr), P::Conversation>,
}

impl<P: Protocol> Default for Conversations<P> {
    fn default() -> Self {
        Conversations {
            states: HashMap::new(),
        }
    }
}

impl<P: Protocol> Conversations<P> {
    /// Decodes a datagram in its conversation.
    pub fn decode<'a>(
        &mut self,
        placed: &Placed<'a>,
    ) -> Result<P::Datagram<'a>, wiregen_runtime::DecodeError> {
        let state = self.states.entry(placed.conversation).or_default();
        P::decode_datagram(state, placed.from_client, &placed.datagram.payload)
    }
}

/// What `check` found in one datagram that does not round-trip.
#[derive(Debug)]
pub struct Failure {
    pub frame: u64,
    pub problem: String,
}

/// Decodes every datagram of the protocol (keeping conversation state) and encodes it back:
/// the failures, and how many datagrams were checked.
pub fn check<P: Protocol>(placed: &[Placed<'_>]) -> (Vec<Failure>, usize) {
    let mut conversations = Conversations::<P>::default();
    let mut failures = Vec::new();
    for p in placed {
        let bytes = &p.datagram.payload;
        let problem = match conversations.decode(p) {
            Err(e) => Some(format!("does not decode: {e}")),
            Ok(value) => match P::encode_datagram(&value) {
                Err(e) => Some(format!("decodes, but does not encode back: {e}")),
                Ok(again) if &again != bytes => Some(first_difference(bytes, &again)),
                Ok(_) => None,
            },
        };
        if let Some(problem) = problem {
            failures.push(Failure {
                frame: p.datagram.frame,
                problem: format!("{problem}\n    bytes: {}", crate::to_hex(bytes)),
            });
        }
    }
    (failures, placed.len())
}

fn first_difference(was: &[u8], again: &[u8]) -> String {
    let at = was
        .iter()
        .zip(again)
        .position(|(a, b)| a != b)
        .unwrap_or(was.len().min(again.len()));
    format!(
        "encodes back differently from byte {at} ({} bytes, re-encoded {}): re-encoded {}",
        was.len(),
        again.len(),
        crate::to_hex(again)
    )
}
