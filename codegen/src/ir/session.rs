//! Transports, conversation state, joins and reassembly: what the root type rides on and what
//! a conversation keeps between datagrams.

use super::*;

/// Pieces of one payload carried by several root datagrams: keyed by the conversation, the
/// direction and the `key` fields, ordered by `index`, complete when the `last` piece and every
/// piece before it have arrived.
#[derive(Debug, Clone)]
pub struct Reassembly {
    /// Root field (bytes, to the end) holding a piece.
    pub field: usize,
    pub key: Vec<usize>,
    pub index: usize,
    /// How the number of pieces is known.
    pub end: PieceEnd,
    pub when: Option<Expr>,
    pub piece_size: usize,
    /// Root integer field that numbers every packet: pieces get consecutive numbers.
    pub numbered: Option<usize>,
    pub whole: WholeType,
}

#[derive(Debug, Clone)]
pub enum PieceEnd {
    /// This condition marks the last piece (count = its index + 1).
    Last(Expr),
    /// Every piece carries the count in this root field.
    Count(usize),
}

#[derive(Debug, Clone, Copy)]
pub enum WholeType {
    /// Decoded as one type when sent by the client, another when sent by the server.
    ByDirection { client: StructId, server: StructId },
    /// Decoded with the root's switch field at this index, by the pieces' tag.
    AsField(usize),
}

/// Parts of one payload carried by values of `in_struct` with consecutive sequence numbers (per
/// conversation, direction and `key`), from the part where `first` holds to the one where `last`
/// holds. Each part carries a piece of every stream; the pieces of a stream joined form its whole.
#[derive(Debug, Clone)]
pub struct Join {
    pub in_struct: StructId,
    pub streams: Vec<Stream>,
    /// Fields naming the payload besides the conversation and direction: the part's own
    /// (`struct_id` is `in_struct`) or an enclosing type's (`Command.channel_id`: of the
    /// nearest `Command` around the part).
    pub key: Vec<FieldRef>,
    pub sequence: usize,
    /// Sequence numbers count modulo this.
    pub wrap: u64,
    pub first: Expr,
    pub last: Expr,
    pub piece_size: usize,
}

/// Pieces joined in the order they come, from a begin message to an end message
/// (`stream_reassembly`: OpenTTD's map download, MAP_DATA packets between MAP_BEGIN and
/// MAP_DONE).
#[derive(Debug, Clone)]
pub struct StreamJoin {
    pub in_struct: StructId,
    pub streams: Vec<Stream>,
    pub begin: StructId,
    pub end: StructId,
    /// Largest payload kept (all streams together).
    pub max_size: usize,
}

impl Join {
    /// The key fields of enclosing types, in key order.
    pub fn enclosing_key(&self) -> impl Iterator<Item = &FieldRef> {
        self.key
            .iter()
            .filter(move |r| r.struct_id != self.in_struct)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Stream {
    /// Bytes field of the carrying type.
    pub field: usize,
    /// The joined bytes decode as this type (else they stay bytes).
    pub whole: Option<StructId>,
}

/// Lists of enum values remembered by key, set by `records` and read by fields whose `select`
/// names this table.
#[derive(Debug, Clone)]
pub struct StateTable {
    pub name: String,
    pub doc: Option<String>,
    pub items: EnumId,
    pub records: Vec<Record>,
}

/// Values of `in_struct` set the list of key `key` (its field) to the `item` field of each
/// element (of type `elem`) of the array field `list` of `holder` (`in_struct` itself, or the whole of one of its
/// join streams when `via` names it).
#[derive(Debug, Clone)]
pub struct Record {
    pub in_struct: StructId,
    pub key: usize,
    pub via: Option<(usize, usize)>,
    pub holder: StructId,
    pub list: usize,
    /// The type of the array's elements, whose field `item` is the list's item.
    pub elem: StructId,
    pub item: usize,
}

/// Which end of a conversation sent a datagram: the server is on the protocol's UDP ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

#[derive(Debug, Clone, Default)]
pub struct Transport {
    pub udp_ports: Vec<u16>,
    pub tcp_ports: Vec<u16>,
    pub tcp_length_prefix: Option<IntTy>,
    /// The largest message a TCP length prefix may announce (0 without a prefix): a larger one
    /// means the stream is out of step. The crate refuses it, the dissector skips the segment.
    pub tcp_max_message: u64,
    /// What a TCP length prefix's value counts besides the message: its own bytes when it
    /// counts the whole frame, plus the schema's `length_adjust` (the message's length is the
    /// value less this).
    pub tcp_counted: i64,
    /// The byte of the message its TCP length is read at, when the message holds the length
    /// in its own header (`length_at`): the frame is then the message, and `tcp_counted` what
    /// the value counts besides the whole message.
    pub tcp_length_at: Option<usize>,
    pub udp_heuristic: Option<Heuristic>,
    pub tcp_heuristic: Option<Heuristic>,
}

impl Transport {
    /// What the TCP length prefix counts, in words, for every output's documentation: `not
    /// counting the prefix`, `counting the prefix too`, or the bytes it counts besides.
    pub fn tcp_counts(&self) -> String {
        let own = self.tcp_length_prefix.map_or(0, |it| it.bytes() as i64);
        if let Some(at) = self.tcp_length_at {
            let after = -(at as i64 + own);
            return match self.tcp_counted {
                0 => "counting the whole message".to_string(),
                c if c == after => "counting the bytes after it".to_string(),
                c => format!("counting {c} bytes besides the whole message"),
            };
        }
        match self.tcp_counted {
            0 => "not counting the prefix".to_string(),
            c if c == own => "counting the prefix too".to_string(),
            c => format!("counting {c} bytes besides the message"),
        }
    }
}

/// A rule over the root's leading, fixed-offset fields.
#[derive(Debug, Clone)]
pub struct Heuristic {
    pub expr: Expr,
    /// Bytes needed to read every field the rule names.
    pub min_len: usize,
}
