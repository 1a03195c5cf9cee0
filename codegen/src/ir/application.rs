//! Applications on a transport: the points where a transport hands payloads to an application,
//! and the routes to them.

use super::*;

/// A transport type whose `payload` field (bytes or bits, to its end) holds an application
/// message identified by its `id` field.
#[derive(Debug, Clone)]
pub struct AppPoint {
    pub in_struct: StructId,
    /// None: the message starts with the application's own id.
    pub id: Option<usize>,
    pub payload: usize,
}

/// An application schema: messages keyed by the id a transport carries.
#[derive(Debug, Clone)]
pub struct Application {
    /// The transport protocol's name (its crate, its dissector table `<name>.message_id`).
    pub transport: String,
    /// Its crate's package name.
    pub transport_crate: String,
    /// Its root type (what one datagram decodes to) and whether that borrows its input.
    pub transport_root: String,
    pub transport_root_borrows: bool,
    /// Its payloads' layout: bytes, or bit strings of the transport's bit order.
    pub layout: Layout,
    /// The transport types carrying messages: (type, id field, payload field, id is a u64 varint
    /// else its Rust integer type).
    pub points: Vec<PointInfo>,
    /// Whether every datagram of the transport carries a message (the points' routes cover its
    /// root: a `match` on them has no catch-all).
    pub every_datagram_carries: bool,
    pub messages: Vec<(u64, StructId)>,
    /// The id the application writes first in each message, when the transport carries none.
    pub own_id: Option<IntTy>,
}

#[derive(Debug, Clone)]
pub struct PointInfo {
    pub type_name: String,
    pub borrows: bool,
    /// The id field and its Rust type (`u16`, `u64`), when the transport carries the id.
    pub id: Option<(String, String)>,
    pub payload_field: String,
    /// Every way the transport's root holds this type (a datagram carries it there), when the
    /// path is plain: each step a struct field, switches by their variant.
    pub routes: Vec<Vec<RouteStep>>,
    /// The type's other fields the user sets (sequence numbers…), when all are numbers, bools,
    /// enums or flag sets; `None` when one is not (a whole datagram cannot be built from them).
    pub params: Option<Vec<PointParam>>,
}

/// One step from a transport's root down to an application point.
#[derive(Debug, Clone)]
pub struct RouteStep {
    /// The struct (its Rust name) and the field the path goes through.
    pub struct_name: String,
    pub field: String,
    /// When the field is a switch: its Rust enum and the variant holding the next type.
    pub variant: Option<(String, String)>,
    /// Whether the struct has no other field the user sets (so a sender can build it).
    pub only_field: bool,
}

/// A field of an application point the sender passes as an argument.
#[derive(Debug, Clone)]
pub struct PointParam {
    pub name: String,
    pub doc: Option<String>,
    /// Its Rust type: a primitive (`u16`), or a type of the transport crate (`Flags`).
    pub rust: String,
    pub transport_type: bool,
}
