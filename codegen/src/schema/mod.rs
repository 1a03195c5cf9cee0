//! The YAML schema exactly as written: serde types, no meaning attached yet.
//!
//! Everything here is checked and resolved by [`crate::validate`] into the IR; this layer only
//! rejects what YAML itself cannot represent (wrong shapes, unknown keys).

mod session;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

pub use session::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchemaFile {
    pub protocol: ProtocolDef,
    #[serde(default)]
    pub enums: IndexMap<String, EnumDef>,
    #[serde(default)]
    pub flags: IndexMap<String, FlagsDef>,
    #[serde(default)]
    pub types: IndexMap<String, TypeDef>,
    /// In an extending schema: cases added to (or replacing those of) a base switch, by
    /// `Type.field`.
    #[serde(default)]
    pub cases: IndexMap<String, IndexMap<String, CaseDef>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProtocolDef {
    /// Short lower-case name: the Wireshark filter prefix and the crate name.
    pub name: String,
    /// Human-readable name.
    pub title: String,
    #[serde(default)]
    pub doc: Option<String>,
    /// Default byte order of multi-byte fields.
    #[serde(default)]
    pub endian: Option<EndianDef>,
    /// `bytes` (byte-aligned) or `lsb-bits` (one LSB-first bit stream).
    #[serde(default)]
    pub layout: Option<LayoutDef>,
    /// The type of one whole message (datagram or framed PDU); inherited by an extension.
    #[serde(default)]
    pub root: String,
    /// Another schema (a path relative to this file) this one extends: its enums, flags and
    /// types are inherited; same-named types here replace them, enum values here are added (or
    /// rename the base's value with the same number).
    #[serde(default)]
    pub extends: Option<String>,
    /// Replaced as a whole when an extension gives it.
    #[serde(default)]
    pub transport: Option<TransportDef>,
    /// Conversation-level rules: datagrams told apart by their order.
    #[serde(default)]
    pub conversation: Option<ConversationDef>,
    /// Payloads cut into pieces across datagrams, joined again.
    #[serde(default)]
    pub reassembly: Option<ReassemblyDef>,
    /// Payloads cut into parts carried by consecutive sequence numbers, from a first part to a
    /// last one, joined again.
    #[serde(default)]
    pub sequence_reassembly: Vec<JoinDef>,
    /// Payloads cut into pieces that carry no number: their order on the stream (or among the
    /// datagrams of one direction) is the payload's, from a begin message to an end message.
    #[serde(default)]
    pub stream_reassembly: Vec<StreamJoinDef>,
    /// Lists remembered per conversation and direction, by key, from earlier messages.
    #[serde(default)]
    pub state: IndexMap<String, StateDef>,
    /// What the wire says about delivery: sequence numbers, acks, pings (netcode analysis).
    #[serde(default)]
    pub reliability: Option<ReliabilityDef>,
    /// In a transport: where application schemas plug their messages in.
    #[serde(default)]
    pub applications: Vec<AppPointDef>,
    /// In an application schema: the transport it rides on and its messages by id.
    #[serde(default)]
    pub application: Option<ApplicationDef>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AppPointDef {
    /// The transport type carrying application data.
    #[serde(rename = "in")]
    pub in_type: String,
    /// Its field holding the application's message id (none: the application's message starts
    /// with its own id).
    #[serde(default)]
    pub id: Option<String>,
    /// Its field holding the message (bytes or bits, to the end).
    pub payload: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplicationDef {
    /// The transport's schema, relative to this file.
    pub transport: String,
    /// The integer type of a message id the application writes first in its messages (for
    /// transports that carry none).
    #[serde(default)]
    pub id: Option<String>,
    /// Message types by message id.
    pub messages: IndexMap<u64, String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnumDef {
    #[serde(default)]
    pub doc: Option<String>,
    /// Required, except when extending an enum of the base schema.
    #[serde(rename = "type", default)]
    pub repr: String,
    /// A closed enum rejects values it does not name; an open one keeps and shows them.
    #[serde(default)]
    pub closed: bool,
    pub values: IndexMap<String, NamedValue>,
}

/// `NAME: 3` or `NAME: { value: 3, doc: "..." }`; in enums also a range of values,
/// `NAME: "1..6"` or `NAME: { range: "1..6", doc: "..." }`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum NamedValue {
    Plain(u64),
    /// A negative number (refused by validation with its reason, not serde's message).
    Negative(i64),
    Range(String),
    Documented {
        value: u64,
        #[serde(default)]
        doc: Option<String>,
    },
    DocumentedRange {
        range: String,
        #[serde(default)]
        doc: Option<String>,
    },
}

impl NamedValue {
    /// The value (a range's first, when its text reads as one).
    pub fn value(&self) -> u64 {
        match self {
            NamedValue::Plain(v) | NamedValue::Documented { value: v, .. } => *v,
            NamedValue::Negative(v) => *v as u64,
            NamedValue::Range(r) | NamedValue::DocumentedRange { range: r, .. } => {
                parse_range(r).map_or(0, |(lo, _)| lo)
            }
        }
    }

    /// Whether it names a range of values rather than one.
    pub fn is_range(&self) -> bool {
        matches!(
            self,
            NamedValue::Range(_) | NamedValue::DocumentedRange { .. }
        )
    }
}

/// `lo..hi` (inclusive; decimal or 0x hexadecimal), as in switch case keys.
pub fn parse_range(text: &str) -> Option<(u64, u64)> {
    let (lo, hi) = text.split_once("..")?;
    let num = |s: &str| {
        let s = s.trim();
        match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => s.parse().ok(),
        }
    };
    Some((num(lo)?, num(hi)?))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlagsDef {
    #[serde(default)]
    pub doc: Option<String>,
    /// Required, except when extending flags of the base schema.
    #[serde(rename = "type", default)]
    pub repr: String,
    /// Bit masks by name.
    pub bits: IndexMap<String, NamedValue>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    #[serde(default)]
    pub doc: Option<String>,
    /// Info-column summary, `{field}` placeholders (the root's is the message's, others follow it).
    #[serde(default)]
    pub info: Option<String>,
    /// This type's layout when it differs from the protocol's (`lsb-bits` inside byte packets).
    #[serde(default)]
    pub layout: Option<LayoutDef>,
    /// Every value of this type takes exactly this many bytes: zeros after its fields.
    #[serde(default)]
    pub pad: Option<u64>,
    /// Zeros after its fields up to a multiple of this many bytes.
    #[serde(default)]
    pub align: Option<u64>,
    /// `subtree: false`: the dissector shows a value of this type without a subtree of its own
    /// (a field's, an array element's or a switch case's): its fields in the tree of what holds
    /// it, as a hand-written dissector shows a list of small pairs (`Index: 6`, then its value).
    #[serde(default = "shown_in_subtree")]
    pub subtree: bool,
    pub fields: Vec<FieldDef>,
}

/// A type's values get a subtree of their own unless the schema says `subtree: false`.
fn shown_in_subtree() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldDef {
    pub name: String,
    #[serde(default)]
    pub doc: Option<String>,
    /// A type expression: `u16`, `i7`, `f32`, `bytes`, `string`, `Name`, `Name[]`, `leb128` ...
    #[serde(rename = "type", default)]
    pub ty: Option<String>,
    /// Byte order for this field, overriding the protocol's.
    #[serde(default)]
    pub endian: Option<EndianDef>,
    /// Value the field must hold (a magic number); checked on decode, written on encode.
    #[serde(rename = "const", default)]
    pub constant: Option<ConstDef>,
    /// Byte length of a bytes/string/struct/union field, as an expression.
    #[serde(default)]
    pub length: Option<ExprOrInt>,
    /// Element count of an array field, as an expression.
    #[serde(default)]
    pub count: Option<ExprOrInt>,
    /// Length (bytes, string) or count (array) carried by a prefix of this integer type.
    #[serde(default)]
    pub prefix: Option<String>,
    /// The field is present only when this expression is true.
    #[serde(rename = "if", default)]
    pub condition: Option<String>,
    /// The field's value is chosen by a tag.
    #[serde(default)]
    pub switch: Option<SwitchDef>,
    /// The field is a checksum over its enclosing type (or a range of its fields): a name
    /// (`crc32c`, `internet`) or a CRC's parameters.
    #[serde(default)]
    pub checksum: Option<ChecksumDef>,
    /// The field takes exactly this many bytes: zeros after its value.
    #[serde(default)]
    pub pad: Option<u64>,
    /// Zeros before the field up to a multiple of this many bytes from its type's start.
    #[serde(default)]
    pub align: Option<u64>,
    /// A reserved field: written as zero, its value ignored on decode (shown by the dissector).
    #[serde(default)]
    pub reserved: bool,
    /// Largest value the field may hold (checked on decode and encode).
    #[serde(default)]
    pub max: Option<u64>,
    /// The values the field may hold: `{ min, max }` (either may be left out) or a list.
    #[serde(default)]
    pub valid: Option<ValidDef>,
    /// An optional field announced by a presence bit written just before it.
    #[serde(default)]
    pub optional: bool,
    /// Known real-world quirks: the dissector adds an expert warning when a condition holds.
    #[serde(default)]
    pub warn: Vec<WarnDef>,
    /// A `bool[]` in a byte layout packed 8 per byte, lowest bit first (Riptide 2.0).
    #[serde(default)]
    pub packed: bool,
    /// Conversation-state lists this field's values read, by table: `{ table: key_field }`.
    #[serde(default)]
    pub state: IndexMap<String, String>,
    /// Flag bits of a flag-set field that the encoder sets exactly when a condition over earlier
    /// fields holds (`IS_ACK: command == Command.ACK`); the dissector warns when a packet
    /// disagrees.
    #[serde(default)]
    pub set_when: IndexMap<String, String>,
    /// A string's encoding: `utf8` (the default), `ascii`, `latin1`, `utf16le`, `utf16be`.
    #[serde(default)]
    pub encoding: Option<String>,
    /// A bit group: the integer `type` of this field is made of these fields, packed from its
    /// lowest bit (or its highest, with `layout: msb-bits`). They become fields of the
    /// enclosing type.
    #[serde(default)]
    pub fields: Vec<FieldDef>,
    /// A bit group's packing: `lsb-bits` (the default: the first field in the lowest bits, as
    /// PDL packs them) or `msb-bits` (the first field in the highest bits, as RFC diagrams draw
    /// them).
    #[serde(default)]
    pub layout: Option<LayoutDef>,
    /// How each element of an array of structs is framed: `{ prefix: u16 }` (each preceded by
    /// its size in bytes) or `{ length: expr }` (each exactly that many bytes).
    #[serde(default)]
    pub element: Option<ElementDef>,
    /// The field's bytes are compressed (`zlib`, `deflate`, `gzip`), its type inside:
    /// `compression: zlib` or `compression: { method: zlib, max: 65536 }` (`max`: the most
    /// bytes it may decompress to; 1 MiB when left out).
    #[serde(default)]
    pub compression: Option<CompressionDef>,
    /// On a field of a struct type (or an array of one): the filter names of that value's
    /// fields are `proto.<filter>.<field>` instead of the type's `proto.<type>.<field>`
    /// (`skyfort.position.x` and `skyfort.velocity.x` for two `Vec3` fields).
    #[serde(default)]
    pub filter: Option<String>,
    /// How the dissector shows an integer: `hex` (peer id 0xFFF) or `dec`.
    #[serde(default)]
    pub display: Option<DisplayDef>,
    /// `subtree: false`: the dissector shows this field's value without the subtree it would
    /// make (an array's list, a struct value's or a switch case's subtree): what it holds goes
    /// in the tree of the field's type.
    #[serde(default)]
    pub subtree: Option<bool>,
}

/// The framing of each element of an array (`element:`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElementDef {
    #[serde(default)]
    pub length: Option<ExprOrInt>,
    #[serde(default)]
    pub prefix: Option<String>,
}

/// `compression: zlib`, or `{ method: zlib, max: 65536 }`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum CompressionDef {
    Method(String),
    Full {
        method: String,
        #[serde(default)]
        max: Option<u64>,
    },
}

/// `endian: little | big` (or `le`, `be`, as type suffixes say it).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, JsonSchema)]
pub enum EndianDef {
    #[serde(rename = "little", alias = "le")]
    Little,
    #[serde(rename = "big", alias = "be")]
    Big,
}

/// `layout: bytes | lsb-bits | msb-bits` of a protocol or type; a bit group's packing
/// (`lsb-bits` or `msb-bits`).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutDef {
    Bytes,
    LsbBits,
    MsbBits,
}

/// `display: hex | dec | bin` on an integer field.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DisplayDef {
    Dec,
    Hex,
    /// The bit pattern Wireshark draws for masked fields (`0000 0101 = Peer: 5`), in decimal.
    Bin,
}

/// `const: 0xD1CE`, or an enum value's name (`HELLO`, `Kind.HELLO`) on an enum field.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum ConstDef {
    Int(u64),
    /// A negative number (refused by validation with its reason, not serde's message).
    Negative(i64),
    Name(String),
}

/// `valid: { min: 1, max: 6 }` or `valid: [1, 2, 4, 8]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum ValidDef {
    List(Vec<i64>),
    Range {
        #[serde(default)]
        min: Option<i64>,
        #[serde(default)]
        max: Option<i64>,
    },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WarnDef {
    #[serde(rename = "if")]
    pub condition: String,
    pub message: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum ExprOrInt {
    Int(u64),
    Expr(String),
}

/// `KEY: Type` or `KEY: { type: Type, name: Variant, doc: ... }`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum CaseDef {
    Type(String),
    Named {
        #[serde(rename = "type")]
        ty: String,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        doc: Option<String>,
    },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchDef {
    /// The tag: an expression, usually an earlier field.
    pub on: String,
    /// Take the cases (and default) of another switch, `Type.field`, instead of repeating them.
    #[serde(default)]
    pub cases_from: Option<String>,
    /// Case keys: an enum value name, an integer, or a range `lo..hi` (inclusive).
    /// Case values: a type name, `bytes` (kept raw) or `empty`, or `{ type, name, doc }`.
    #[serde(default)]
    pub cases: IndexMap<String, CaseDef>,
    /// What any other tag value holds: a type name, `bytes`, or absent (then an unknown tag is an
    /// error).
    #[serde(default)]
    pub default: Option<CaseDef>,
    /// When this condition holds the value is the default variant whatever the tag (a fragment of
    /// a message is raw bytes even though its command names a layout).
    #[serde(default)]
    pub unless: Option<String>,
    /// Tag width in bits when the tag is written by the union itself (bit streams): `auto` gives
    /// as many bits as the case count needs.
    #[serde(default)]
    pub tag_bits: Option<String>,
}

/// A checksum: a name (`crc32c`, `internet`), or `{ algorithm: name | crc: { width, poly,
/// init, refin, refout, xorout }, from: field, to: field }`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum ChecksumDef {
    Named(String),
    Full(ChecksumSpec),
}

/// A checksum's algorithm (by name or CRC parameters) and the fields it covers.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChecksumSpec {
    #[serde(default)]
    pub algorithm: Option<String>,
    #[serde(default)]
    pub crc: Option<CrcDef>,
    /// The first field covered (default: the start of the enclosing type).
    #[serde(default)]
    pub from: Option<String>,
    /// The last field covered (default: the end of the enclosing type).
    #[serde(default)]
    pub to: Option<String>,
}

/// A CRC in the Rocksoft model. `init` and `xorout` default to 0, `refin` to false and
/// `refout` to `refin`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrcDef {
    pub width: u32,
    pub poly: u64,
    #[serde(default)]
    pub init: u64,
    #[serde(default)]
    pub refin: bool,
    #[serde(default)]
    pub refout: Option<bool>,
    #[serde(default)]
    pub xorout: u64,
}

/// The JSON Schema of the schema language, derived from the serde types above (so it cannot
/// drift from what the loader accepts): editors with a YAML language server complete keys and
/// flag unknown ones and wrong shapes while typing. Meaning (names resolve, widths fit) is
/// still validation's: a document this accepts may be refused with a diagnostic.
pub fn json_schema() -> String {
    let mut schema = schemars::schema_for!(SchemaFile);
    schema.insert("title".into(), "wiregen schema".into());
    let value = sorted(schema.to_value());
    serde_json::to_string_pretty(&value).expect("a JSON Schema serializes") + "\n"
}

/// `v` with every object's keys in order: the same text whether or not another crate of the
/// build turns on serde_json's `preserve_order` (then objects keep insertion order).
fn sorted(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<(String, serde_json::Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.into_iter().map(sorted).collect())
        }
        other => other,
    }
}
