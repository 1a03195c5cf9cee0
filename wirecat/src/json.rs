//! A message as a JSON line: its frame, direction and endpoints, its value through the
//! protocol's serializer, and the payload it completes, joined and decoded (`read` and `export`
//! alike).

use wiregen_runtime::SerdeProtocol;

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

/// Decodes `m` in its conversation and joins the piece it carries, setting `line`'s `value`,
/// `joined` and `joined_from` (and `also_joined`), or `error` where it stops (`read` and
/// `export` alike).
pub(crate) fn decode_into<P: SerdeProtocol>(
    conversations: &mut Conversations<P>,
    m: &Message,
    line: &mut serde_json::Value,
) -> Result<HowFar, String> {
    let datagram = match conversations.decode(m) {
        Ok(datagram) => datagram,
        Err(e) => {
            line["error"] = e.to_string().into();
            return Ok(HowFar::NotDecoded);
        }
    };
    line["value"] = serde_json::to_value(AsJson::<P>(&datagram)).map_err(|e| e.to_string())?;
    match conversations.join(m, &datagram) {
        Ok(completed) => {
            // The first payload the datagram completes; any more (ENet's commands: several
            // fragments of several payloads in one datagram) in `also_joined`, in order.
            let mut more = Vec::new();
            for (k, (joined, frames)) in completed.into_iter().enumerate() {
                let value =
                    serde_json::to_value(Joined::<P>(&joined)).map_err(|e| e.to_string())?;
                if k == 0 {
                    line["joined"] = value;
                    line["joined_from"] = frames.into();
                } else {
                    more.push(serde_json::json!({ "joined": value, "joined_from": frames }));
                }
            }
            if !more.is_empty() {
                line["also_joined"] = more.into();
            }
        }
        Err(e) => {
            line["error"] = format!("the payload it completes: {e}").into();
            return Ok(HowFar::NotJoined);
        }
    }
    Ok(HowFar::Whole)
}
