//! A capture's datagrams read as one protocol: told apart by port, grouped into conversations
//! (client endpoint, server endpoint) whose state each datagram's decoding keeps. Conversations
//! are kept up to a limit: past it the least recently used one is forgotten, and counted.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;

use wiregen_runtime::Protocol;

use crate::capture::Datagram;

/// A datagram of the protocol: which side sent it, and the conversation it belongs to.
pub struct Placed {
    pub datagram: Datagram,
    pub from_client: bool,
    /// (client, server) endpoints.
    pub conversation: (SocketAddr, SocketAddr),
}

/// `d` placed in its conversation when it goes to or comes from one of `ports` (the
/// server's); else it is given back.
pub fn place(d: Datagram, ports: &[u16]) -> Result<Placed, Datagram> {
    let (from_client, conversation) = if ports.contains(&d.dst.port()) {
        (true, (d.src, d.dst))
    } else if ports.contains(&d.src.port()) {
        (false, (d.dst, d.src))
    } else {
        return Err(d);
    };
    Ok(Placed {
        datagram: d,
        from_client,
        conversation,
    })
}

/// How many conversations are kept at once by default.
pub const CONVERSATIONS: usize = 1 << 16;

/// Every conversation's state, created on its first datagram; at most `limit` of them.
pub struct Conversations<P: Protocol> {
    states: HashMap<(SocketAddr, SocketAddr), (P::Conversation, u64)>,
    /// The conversations by when they were last used (the key of `states`' second part).
    recency: BTreeMap<u64, (SocketAddr, SocketAddr)>,
    clock: u64,
    limit: usize,
    evicted: u64,
}

impl<P: Protocol> Default for Conversations<P> {
    fn default() -> Self {
        Self::with_limit(CONVERSATIONS)
    }
}

impl<P: Protocol> Conversations<P> {
    /// Keeps at most `limit` conversations (at least one).
    pub fn with_limit(limit: usize) -> Self {
        Conversations {
            states: HashMap::new(),
            recency: BTreeMap::new(),
            clock: 0,
            limit: limit.max(1),
            evicted: 0,
        }
    }

    /// How many conversations were forgotten to stay within the limit (their later datagrams
    /// were read without their earlier state).
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// Decodes a datagram in its conversation.
    pub fn decode<'a>(
        &mut self,
        placed: &'a Placed,
    ) -> Result<P::Datagram<'a>, wiregen_runtime::DecodeError> {
        self.clock += 1;
        let key = placed.conversation;
        if !self.states.contains_key(&key) && self.states.len() >= self.limit {
            if let Some((_, oldest)) = self.recency.pop_first() {
                self.states.remove(&oldest);
                self.evicted += 1;
            }
        }
        let (state, used) = self.states.entry(key).or_default();
        if *used != 0 {
            self.recency.remove(used);
        }
        *used = self.clock;
        self.recency.insert(self.clock, key);
        P::decode_datagram(state, placed.from_client, &placed.datagram.payload)
    }
}

/// What `check` found in one datagram that does not round-trip.
#[derive(Debug)]
pub struct Failure {
    pub frame: u64,
    pub problem: String,
}

/// Decodes a datagram of the protocol (in its conversation) and encodes it back: what does
/// not round-trip.
pub fn check<P: Protocol>(conversations: &mut Conversations<P>, p: &Placed) -> Option<Failure> {
    let bytes = &p.datagram.payload;
    let problem = match conversations.decode(p) {
        Err(e) => Some(format!("does not decode: {e}")),
        Ok(value) => match P::encode_datagram(&value) {
            Err(e) => Some(format!("decodes, but does not encode back: {e}")),
            Ok(again) if &again != bytes => Some(first_difference(bytes, &again)),
            Ok(_) => None,
        },
    }?;
    Some(Failure {
        frame: p.datagram.frame,
        problem: format!("{problem}\n    bytes: {}", crate::to_hex(bytes)),
    })
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

#[cfg(all(test, feature = "repository"))]
mod tests {
    use super::*;

    fn datagram(client_port: u16) -> Placed {
        let client: SocketAddr = format!("10.0.0.1:{client_port}").parse().unwrap();
        let server: SocketAddr = "10.0.0.2:8080".parse().unwrap();
        let d = Datagram {
            frame: 1,
            src: client,
            dst: server,
            payload: vec![0xCE, 0xD1],
        };
        place(d, &[8080]).ok().unwrap()
    }

    #[test]
    fn past_the_limit_the_least_recently_used_conversation_is_forgotten_and_counted() {
        let mut conversations = Conversations::<rtype::Protocol>::with_limit(2);
        let (a, b, c) = (datagram(1000), datagram(1001), datagram(1002));
        let _ = conversations.decode(&a);
        let _ = conversations.decode(&b);
        let _ = conversations.decode(&a);
        assert_eq!(conversations.evicted(), 0);
        // b is the least recently used: c takes its place.
        let _ = conversations.decode(&c);
        assert_eq!(conversations.evicted(), 1);
        assert!(conversations.states.contains_key(&a.conversation));
        assert!(!conversations.states.contains_key(&b.conversation));
        let _ = conversations.decode(&b);
        assert_eq!(conversations.evicted(), 2);
        assert_eq!(conversations.states.len(), 2);
        assert_eq!(conversations.recency.len(), 2);
    }
}
