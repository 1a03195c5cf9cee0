//! The askama template of the dissector file and what it is filled with.

use super::*;

#[derive(Template)]
#[template(path = "dissector.lua", escape = "none")]
pub(crate) struct Dissector {
    /// The `@generated` line (with its newline).
    pub(crate) header: String,
    pub(crate) path: String,
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) column: String,
    pub(crate) doc_lines: Vec<String>,
    /// `local tree_add = TreeItem.add` …: the methods called through locals (`methods.rs`).
    pub(crate) method_locals: String,
    pub(crate) needs_bitops: bool,
    /// Some type is a bit stream (the bit helpers are needed).
    pub(crate) bits: bool,
    /// The root type is a bit stream (whole-message offsets are in bits).
    pub(crate) root_bits: bool,
    /// The reader of the root stream's padding bits (`read_bits`, or `read_bits_msb`).
    pub(crate) root_bit_reader: &'static str,
    pub(crate) crcs: Vec<ChecksumCode>,
    /// Checksums other than CRCs, after the code they share.
    pub(crate) checksums: Vec<ChecksumCode>,
    pub(crate) value_strings: Vec<ValueString>,
    pub(crate) fields: Vec<FieldDef>,
    pub(crate) structs: Vec<String>,
    pub(crate) root: String,
    pub(crate) info: String,
    /// The root's values are read after it is dissected (by the Info column or reassembly).
    pub(crate) root_values_read: bool,
    pub(crate) port_tables: Vec<PortTable>,
    pub(crate) tcp_framing: Option<Framing>,
    /// Some conversation-level feature needs the conversation key.
    pub(crate) conversations: bool,
    /// Some type reads an enclosing value's field (`Header.channel`).
    pub(crate) enclosing: bool,
    pub(crate) reassembly: Option<ReassemblyDef>,
    /// Some field reads conversation state.
    /// How many conversation-state tables there are (`LISTS[1]` to `LISTS[n]`; none: no state).
    pub(crate) state_tables: usize,
    /// Some code does only when the tree is shown what only a shown tree needs (`VISIBLE`):
    /// subtrees of a label, the analysis's generated marks.
    pub(crate) checks_visible: bool,
    /// A transport with application points (a dissector table by message id).
    pub(crate) app_points: bool,
    /// An application schema: its transport's table and its messages.
    pub(crate) application: Option<AppDef>,
    pub(crate) has_joins: bool,
    /// The netcode analysis (the schema's `reliability`).
    pub(crate) analysis: Option<AnalysisDef>,
    /// Some type other than the root adds its `info:` summary to the Info column.
    pub(crate) has_info_tail: bool,
    /// Indexes of the sequence joins (their state tables are reset per capture).
    pub(crate) joins: Vec<usize>,
    /// The stream joins' indexes (their open payloads are forgotten with the capture).
    pub(crate) stream_joins: Vec<usize>,
    /// Opening datagrams per side: (type name for dissect_*, label).
    pub(crate) opening_client: Vec<(String, String)>,
    pub(crate) opening_server: Vec<(String, String)>,
    pub(crate) udp_heuristic: Option<HeuristicDef>,
    /// Some type has a checksum (a wrong one is noted in the Info column).
    pub(crate) has_checksums: bool,
    /// Some field is compressed (the dissector decompresses it into a data source).
    pub(crate) compression: bool,
    /// Verifications of the root's checksums over the whole datagram, when it is malformed.
    pub(crate) root_checksums: Vec<String>,
    /// The Info summary over `ROOT_VALUES`, as far as a malformed message was read ("" when the
    /// root has no summary).
    pub(crate) partial_info: String,
    /// The family of dissectors sharing this one's ports (not for applications).
    pub(crate) family: Option<Family>,
}

/// A schema and the schemas extending it: one of them claims their traffic.
pub(crate) struct Family {
    /// The family's name: the base schema's protocol name.
    pub(crate) name: String,
    /// The base, when this schema extends one (it then has the `claim` preference).
    pub(crate) base: Option<String>,
}

pub(crate) struct ChecksumCode {
    pub(crate) code: String,
}

pub(crate) struct ValueString {
    /// `VS.<enum>`, `VS.CASE_<type>_<switch>` (fields of one table: a chunk holds at most 200
    /// locals, and a protocol may have many enums and switches), or a local of its own.
    pub(crate) var: String,
    pub(crate) entries: Vec<(String, String)>,
    /// An enum's named ranges: `RS.<enum>` holds every name as a range (for the field's
    /// `base.RANGE_STRING`), and the value string looks ranges up there.
    pub(crate) ranges: Vec<(u64, u64, String)>,
}

/// Reassembly, as Lua expressions over the root's values `v`.
pub(crate) struct ReassemblyDef {
    pub(crate) key_doc: String,
    pub(crate) keys: Vec<String>,
    pub(crate) index: String,
    pub(crate) piece: String,
    /// Lua statements that set `st.count` from this piece.
    pub(crate) count: String,
    pub(crate) when: String,
    pub(crate) client: String,
    pub(crate) client_bits: bool,
    pub(crate) server: String,
    pub(crate) server_bits: bool,
    /// Decode the whole with this switch field (`dissect_whole`), by the packet's tag.
    pub(crate) as_field: Option<String>,
}

/// An application schema's dissector: registered in its transport's table by message id.
pub(crate) struct AppDef {
    pub(crate) table: String,
    pub(crate) transport: String,
    /// (message id, type name).
    pub(crate) messages: Vec<(u64, String)>,
    pub(crate) bits: bool,
    /// The reader of the stream's padding bits (`read_bits`, or `read_bits_msb`).
    pub(crate) bit_reader: &'static str,
    /// Bytes of the id the messages start with (the transport carries none).
    pub(crate) own_id: Option<usize>,
}

/// TCP framing: a length prefix before each message.
pub(crate) struct Framing {
    pub(crate) size: usize,
    /// The default of the largest message a prefix may announce (the `max_tcp_message` preference).
    pub(crate) max: u64,
    pub(crate) read: String,
    pub(crate) add: &'static str,
    pub(crate) doc: String,
    /// What the prefix's value counts, in words (`not counting the prefix`).
    pub(crate) counts: String,
    /// What turns the prefix's value into the message's length (` - 2`, or nothing).
    pub(crate) minus: String,
    /// The byte of the message the length is read at, when the message holds it (`length_at`):
    /// the frame is then the message, shown by its own fields.
    pub(crate) inside_at: Option<usize>,
    /// Bytes needed before the length can be read (where it starts, plus its size).
    pub(crate) fixed: usize,
}

/// A dissector table (`udp.port`, `tcp.port`) the protocol registers in, by preference.
pub(crate) struct PortTable {
    pub(crate) lower: &'static str,
    pub(crate) upper: &'static str,
    pub(crate) ports: String,
    /// Its ports are the server's, where conversations or the direction are read.
    pub(crate) server: bool,
}

pub(crate) struct FieldDef {
    pub(crate) abbrev: String,
    pub(crate) ctor: String,
}

pub(crate) struct HeuristicDef {
    pub(crate) doc: String,
    pub(crate) min_len: usize,
    pub(crate) reads: Vec<String>,
    pub(crate) expr: String,
}

/// The netcode analysis's constants.
pub(crate) struct AnalysisDef {
    /// Each channel's wrap, a Lua list's items.
    pub(crate) wraps: String,
}
