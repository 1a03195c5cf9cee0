//! The schema's session sections as written: joins of parts and streams, the reliability the
//! netcode analysis reads, state tables, reassembly, conversations and the transport.

use super::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamJoinDef {
    /// The type whose values carry the pieces.
    #[serde(rename = "in")]
    pub in_type: String,
    /// Its bytes fields holding one piece of each joined stream.
    pub fields: Vec<String>,
    /// A value of this type starts a payload (an unfinished one before it is dropped).
    pub begin: String,
    /// A value of this type completes it.
    pub end: String,
    /// Largest payload (all streams together) kept (default: 16 MiB).
    #[serde(default)]
    pub max_size: Option<usize>,
    /// What each joined stream is: `bytes` or a type name (default: bytes).
    #[serde(default, rename = "as")]
    pub as_types: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinDef {
    /// The type whose values carry the parts.
    #[serde(rename = "in")]
    pub in_type: String,
    /// Its bytes fields holding one part of each joined stream.
    pub fields: Vec<String>,
    /// Fields naming the whole besides the conversation and the direction.
    #[serde(default)]
    pub key: Vec<String>,
    /// The field numbering the parts, one apart.
    pub sequence: String,
    /// Sequence numbers count modulo this (default: the field's range).
    #[serde(default)]
    pub wrap: Option<u64>,
    /// Condition: this part is the first.
    pub first: String,
    /// Condition: this part is the last.
    pub last: String,
    /// Largest part (all streams together) a sender makes (default: 1200 bytes, or less when
    /// the stream's length cannot say more).
    #[serde(default)]
    pub piece_size: Option<usize>,
    /// What each joined stream is: `bytes` or a type name (default: bytes).
    #[serde(default, rename = "as")]
    pub as_types: Vec<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReliabilityDef {
    /// Fields numbering the datagrams a side sends.
    #[serde(default)]
    pub sequence: Vec<SequenceDef>,
    /// Fields acknowledging the other side's numbers.
    #[serde(default)]
    pub ack: Vec<AckDef>,
    /// Fields carrying a ping id a reply (`pong`) echoes: a round trip.
    #[serde(default)]
    pub ping: Vec<PingDef>,
    #[serde(default)]
    pub pong: Vec<PingDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SequenceDef {
    /// The type whose values carry the number.
    #[serde(rename = "in")]
    pub in_type: String,
    /// Its unsigned integer field holding the number.
    pub field: String,
    /// Numbers count modulo this (default: the field's range).
    #[serde(default)]
    pub wrap: Option<u64>,
    /// Numberings apart (default `main`): acks name the one they ack.
    #[serde(default)]
    pub channel: Option<String>,
    /// Condition: this value carries a number (default: always).
    #[serde(default)]
    pub when: Option<String>,
    /// Whether the sender resends it until acked: `true`, `false` or a condition.
    #[serde(default)]
    pub reliable: Option<BoolOrExpr>,
    /// A field giving the part of the number's payload (payloads cut into parts that share it).
    #[serde(default)]
    pub part: Option<String>,
    /// With `part`: condition, this is the number's last part.
    #[serde(default)]
    pub last: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AckDef {
    #[serde(rename = "in")]
    pub in_type: String,
    /// Its field holding the acknowledged number.
    pub field: String,
    #[serde(default)]
    pub channel: Option<String>,
    #[serde(default)]
    pub when: Option<String>,
    /// The field giving the acknowledged part, for numberings with parts.
    #[serde(default)]
    pub part: Option<String>,
    /// A bitfield acking the numbers before: bit k acks `field - 1 - k`.
    #[serde(default)]
    pub bits: Option<String>,
    /// Whether it acks every number up to `field` too.
    #[serde(default)]
    pub cumulative: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingDef {
    #[serde(rename = "in")]
    pub in_type: String,
    /// Its integer field holding the ping id.
    pub id: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum BoolOrExpr {
    Bool(bool),
    Expr(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateDef {
    #[serde(default)]
    pub doc: Option<String>,
    /// The enum each list holds.
    pub items: String,
    /// Messages that set a key's list.
    pub record: Vec<RecordDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordDef {
    /// The type whose values announce a list.
    #[serde(rename = "in")]
    pub in_type: String,
    /// Its field giving the key.
    pub key: String,
    /// Path to the items: an array field then the element's field, e.g. `values.type` (the first
    /// step may be a joined stream of the type).
    pub items: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReassemblyDef {
    /// The root's bytes field (its last) holding one piece.
    pub field: String,
    /// Root fields that name the whole (with the conversation and the direction).
    pub key: Vec<String>,
    /// Root field giving the piece's position, from 0.
    pub index: String,
    /// Condition: this piece is the last one (or give `count`).
    #[serde(default)]
    pub last: Option<String>,
    /// Root field giving the number of pieces (every piece carries it).
    #[serde(default)]
    pub count: Option<String>,
    /// Condition: this datagram carries a piece (default: always).
    #[serde(default)]
    pub when: Option<String>,
    /// Largest piece a sender makes (default: 1200 bytes, or less when the piece's length
    /// cannot say more).
    #[serde(default)]
    pub piece_size: Option<usize>,
    /// Root field numbering every packet (each piece gets its own, consecutive from the
    /// template's, when the crate cuts a payload).
    #[serde(default)]
    pub numbered: Option<String>,
    /// The type of a whole sent by the client (to the server's port) and by the server.
    #[serde(default)]
    pub client: Option<String>,
    #[serde(default)]
    pub server: Option<String>,
    /// Or: decode the whole with this switch field of the root, by the pieces' tag.
    #[serde(default, rename = "as")]
    pub as_field: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConversationDef {
    /// The first datagrams of a conversation, in order, each from one side (the server is the side
    /// on the protocol's UDP ports); every later datagram is the root type.
    #[serde(default)]
    pub opening: Vec<OpeningStep>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpeningStep {
    pub from: String,
    #[serde(rename = "type")]
    pub ty: String,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransportDef {
    #[serde(default)]
    pub udp: Option<PortsDef>,
    #[serde(default)]
    pub tcp: Option<TcpDef>,
    /// Expressions over the root's leading fields that recognise the protocol on any port.
    #[serde(default)]
    pub heuristic: Option<HeuristicDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortsDef {
    pub ports: Vec<u16>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpDef {
    pub ports: Vec<u16>,
    /// Each message is prefixed by its length in this integer type (e.g. `u16`, `i32`).
    #[serde(default)]
    pub length_prefix: Option<String>,
    /// The largest message a prefix may announce; a larger one means the stream is out of step
    /// (default: what the prefix can hold, at most 1 MiB).
    #[serde(default)]
    pub max_message: Option<u64>,
    /// What the prefix's value counts: `message`, the bytes after the prefix (the default), or
    /// `frame`, the prefix's own bytes too (OpenTTD's `size`, many games').
    #[serde(default)]
    pub length_counts: Option<LengthCounts>,
    /// A constant the value counts besides (when negative: short of) what `length_counts`
    /// says: the value is the message's bytes (plus the prefix's for `frame`) plus this.
    #[serde(default)]
    pub length_adjust: Option<i64>,
    /// The length is a field of the message's own header at this byte (after a type byte,
    /// say), not a prefix before it: the frame is the message, whose schema reads the length
    /// and whose encoder fills it. `length_counts: frame` then counts the whole message,
    /// `message` (the default) the bytes after the length.
    #[serde(default)]
    pub length_at: Option<u64>,
    /// `none`: no framing, each segment read as one message. Only right when every segment is
    /// known to hold exactly one message; a TCP transport says so, or gives `length_prefix`.
    #[serde(default)]
    pub framing: Option<TcpFraming>,
}

/// A TCP transport's framing when it has no length prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TcpFraming {
    /// Each segment read as one message.
    None,
}

/// What a TCP length prefix's value counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LengthCounts {
    /// The message after the prefix.
    Message,
    /// The whole frame: the prefix and the message.
    Frame,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeuristicDef {
    #[serde(default)]
    pub udp: Option<String>,
    #[serde(default)]
    pub tcp: Option<String>,
}
