//! A message as a JSON line: its frame, direction and endpoints, its value through the
//! protocol's serializer, and the payload it completes, joined and decoded (`read` and `export`
//! alike).

use wiregen_runtime::{SerdeProtocol, Tagged};

use crate::session::{Conversations, Message};

/// A datagram as JSON through the protocol's serializer.
pub(crate) struct AsJson<'v, 'a, P: SerdeProtocol>(pub &'v P::Datagram<'a>);

impl<P: SerdeProtocol> serde::Serialize for AsJson<'_, '_, P> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        P::serialize_datagram(self.0, s)
    }
}

/// A joined payload as JSON, decoded through the protocol's serializer.
pub(crate) struct Joined<'v, P: SerdeProtocol>(pub &'v P::Joined);

impl<P: SerdeProtocol> serde::Serialize for Joined<'_, P> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        P::serialize_joined(self.0, s)
    }
}

/// How far a message read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HowFar {
    /// Decoded, and what it completes (if anything) joined and decoded.
    Whole,
    NotDecoded,
    /// Decoded, but the payload it completes does not decode.
    NotJoined,
}

/// What reading one message in its conversation gave: its decoding error, or its value and the
/// payloads it completes (joined and decoded) or why they do not decode. `read` writes it as it
/// is, `export` into typed columns.
pub(crate) enum Read<'a, P: SerdeProtocol> {
    NotDecoded(String),
    Decoded {
        value: P::Datagram<'a>,
        joined: Result<Vec<Tagged<P::Joined>>, String>,
    },
}

impl<P: SerdeProtocol> Read<'_, P> {
    pub(crate) fn how_far(&self) -> HowFar {
        match self {
            Read::NotDecoded(_) => HowFar::NotDecoded,
            Read::Decoded { joined: Ok(_), .. } => HowFar::Whole,
            Read::Decoded { joined: Err(_), .. } => HowFar::NotJoined,
        }
    }
}

/// Decodes `m` in its conversation and joins the piece it carries.
pub(crate) fn read_message<'a, P: SerdeProtocol>(
    conversations: &mut Conversations<P>,
    m: &'a Message,
) -> Read<'a, P> {
    match conversations.decode(m) {
        Err(e) => Read::NotDecoded(e.to_string()),
        Ok(value) => {
            let joined = conversations
                .join(m, &value)
                .map_err(|e| format!("the payload it completes: {e}"));
            Read::Decoded { value, joined }
        }
    }
}
