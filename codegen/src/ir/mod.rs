//! The validated intermediate representation: every name resolved, every width and expression
//! type checked. Backends read only this.

pub mod analysis;
mod checksum;

pub use checksum::{Checksum, ChecksumAlgo, CrcAlgo};

pub type EnumId = usize;
pub type FlagsId = usize;
pub type StructId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Fields start on byte boundaries.
    Bytes,
    /// The whole message is one LSB-first bit stream.
    LsbBits,
}

#[derive(Debug, Clone)]
pub struct Protocol {
    /// Lower-case protocol name: filter prefix, crate name.
    pub name: String,
    pub title: String,
    pub doc: Option<String>,
    pub layout: Layout,
    pub root: StructId,
    pub transport: Transport,
    /// The first datagrams of every conversation, in order (empty: every datagram is the root).
    pub opening: Vec<(Side, StructId)>,
    /// How pieces of a payload spread over several root datagrams are joined.
    pub reassembly: Option<Reassembly>,
    /// Payloads cut into parts with consecutive sequence numbers.
    pub joins: Vec<Join>,
    /// Lists remembered per conversation and direction from earlier messages.
    pub state: Vec<StateTable>,
    /// The schema this one extends.
    pub base: Option<Base>,
    /// Where application schemas plug in (a transport).
    pub app_points: Vec<AppPoint>,
    /// The transport and messages of an application schema.
    pub application: Option<Application>,
    pub enums: Vec<Enum>,
    pub flags: Vec<Flags>,
    pub structs: Vec<Struct>,
    /// Schema path as given to the generator, for "generated from" headers.
    pub source: String,
    /// Constructs a backend cannot generate yet: that backend's output is not written.
    pub limits: Vec<Limit>,
}

/// The outputs a schema is generated into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Rust,
    Lua,
}

impl Backend {
    pub fn language(self) -> &'static str {
        match self {
            Backend::Rust => "Rust",
            Backend::Lua => "Lua",
        }
    }
}

/// A construct `backend` cannot generate yet, at its schema position.
#[derive(Debug, Clone)]
pub struct Limit {
    pub backend: Backend,
    pub diagnostic: crate::diag::Diagnostic,
}

impl Protocol {
    /// Whether `backend` can generate this schema's output.
    pub fn generates(&self, backend: Backend) -> bool {
        !self.limits.iter().any(|l| l.backend == backend)
    }
}

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
    /// Whether its payloads are bit strings (else bytes).
    pub bits: bool,
    /// The transport types carrying messages: (type, id field, payload field, id is a u64 varint
    /// else its Rust integer type).
    pub points: Vec<PointInfo>,
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

/// The schema an extension was merged over.
#[derive(Debug, Clone)]
pub struct Base {
    /// The base protocol's name (its crate and dissector).
    pub protocol: String,
    /// The base schema's path, for messages.
    pub source: String,
    /// Enums, flags and types the extension declared (all others are the base's, unchanged).
    pub touched: std::collections::HashSet<String>,
}

/// Parts of one payload carried by values of `in_struct` with consecutive sequence numbers (per
/// conversation, direction and `key`), from the part where `first` holds to the one where `last`
/// holds. Each part carries a piece of every stream; the pieces of a stream joined form its whole.
#[derive(Debug, Clone)]
pub struct Join {
    pub in_struct: StructId,
    pub streams: Vec<Stream>,
    pub key: Vec<usize>,
    pub sequence: usize,
    /// Sequence numbers count modulo this.
    pub wrap: u64,
    pub first: Expr,
    pub last: Expr,
    pub piece_size: usize,
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
    pub udp_heuristic: Option<Heuristic>,
    pub tcp_heuristic: Option<Heuristic>,
}

/// A rule over the root's leading, fixed-offset fields.
#[derive(Debug, Clone)]
pub struct Heuristic {
    pub expr: Expr,
    /// Bytes needed to read every field the rule names.
    pub min_len: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntTy {
    pub bits: u32,
    pub signed: bool,
    pub endian: Endian,
}

impl IntTy {
    pub fn bytes(&self) -> usize {
        self.bits.div_ceil(8) as usize
    }
    /// Width of the smallest Rust/Lua native integer holding it (8, 16, 32, 64).
    pub fn storage_bits(&self) -> u32 {
        self.bits.next_power_of_two().max(8)
    }
    pub fn max_value(&self) -> u64 {
        let value_bits = self.bits - u32::from(self.signed);
        if value_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << value_bits) - 1
        }
    }
    pub fn is_native(&self) -> bool {
        matches!(self.bits, 8 | 16 | 32 | 64)
    }
}

#[derive(Debug, Clone)]
pub struct Enum {
    pub name: String,
    pub doc: Option<String>,
    pub repr: IntTy,
    pub closed: bool,
    /// Single named values.
    pub values: Vec<NamedConst>,
    /// Named ranges of values (a variant that carries its value).
    pub ranges: Vec<NamedRange>,
}

/// A named range of an enum's values (`PISTOL: "1..6"`), inclusive.
#[derive(Debug, Clone)]
pub struct NamedRange {
    pub name: String,
    pub lo: u64,
    pub hi: u64,
    pub doc: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Flags {
    pub name: String,
    pub doc: Option<String>,
    pub repr: IntTy,
    pub bits: Vec<NamedConst>,
}

#[derive(Debug, Clone)]
pub struct NamedConst {
    pub name: String,
    pub value: u64,
    pub doc: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Struct {
    pub name: String,
    pub doc: Option<String>,
    /// Byte-aligned or one LSB-first bit stream (a bit-stream type inside a byte-aligned parent
    /// starts on a byte boundary and ends padded to the next one).
    pub layout: Layout,
    /// Whether the schema set the layout (otherwise it is inherited from enclosing bit streams).
    pub explicit_layout: bool,
    /// Info-column template for the root type: literal text and field indexes.
    pub info: Vec<InfoPart>,
    pub fields: Vec<Field>,
    /// Zeros after the fields: to a fixed size, or to a multiple of a size.
    pub padding: Padding,
}

/// Zero bytes that pad a value to a size (`pad`) or align it (`align`: before a field, after
/// a struct's fields), from the start of the enclosing struct. Byte layouts only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Padding {
    pub pad: Option<usize>,
    pub align: Option<usize>,
}

impl Padding {
    pub fn any(&self) -> bool {
        self.pad.is_some() || self.align.is_some()
    }
}

impl Struct {
    /// Fields the user sets (constants and derived fields are filled by the encoder).
    pub fn value_fields(&self) -> impl Iterator<Item = (usize, &Field)> {
        self.fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.role == Role::Value)
    }
}

#[derive(Debug, Clone)]
pub enum InfoPart {
    Text(String),
    Field(usize),
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub doc: Option<String>,
    pub ty: Ty,
    /// Present only when true.
    pub condition: Option<Expr>,
    pub role: Role,
    /// Largest allowed value (integers).
    pub max: Option<u64>,
    /// The values allowed (integers): checked on decode (an error; an expert item) and encode.
    pub valid: Option<Valid>,
    /// Expert warnings for known quirks: when the condition (over fields up to this one) holds.
    pub warnings: Vec<(Expr, String)>,
    /// Conversation-state lists selected while this field's value is read: (table, key).
    pub select: Vec<(usize, Expr)>,
    /// A `bool[]` packed 8 per byte, lowest bit first (byte layouts).
    pub packed: bool,
    /// Zeros before it (`align`) or after it (`pad`).
    pub padding: Padding,
    /// Values the encoder gives this user-set field so that the fields depending on it agree
    /// (a flag bit announcing an optional field, `set_when`), applied in order.
    pub implied: Vec<Implied>,
}

/// Allowed integer values: an inclusive range (either end open) or a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Valid {
    Range { min: Option<i64>, max: Option<i64> },
    List(Vec<i64>),
}

/// A value the encoder forces on a field the user otherwise sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Implied {
    pub value: ImpliedValue,
    pub when: ImpliedWhen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImpliedValue {
    /// This flag bit, set exactly when the condition holds (cleared otherwise).
    Bit(u64),
    /// This value (an enum's or an integer's) when the condition holds; the user's otherwise.
    Equals(u64),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ImpliedWhen {
    /// The optional field at this index is present (`if: flags.HAS_X`, `if: kind == K`).
    Present(usize),
    /// The optional field at this index is absent (`if: "!flags.NO_X"`, `if: kind != K`).
    Absent(usize),
    /// The expression (over earlier fields) holds (`set_when`); its schema text for the docs.
    Holds(Expr, String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// Set by the user.
    Value,
    /// Always this value; checked on decode.
    Const(u64),
    /// Computed by the encoder from another field of the same struct.
    Derived(Derive),
    /// Checksum over the enclosing struct's bytes (or a range of its fields), computed with
    /// this field zeroed.
    Checksum(Checksum),
    /// Reserved: written as zero, read and shown but not kept (an integer, or bytes of a
    /// constant length).
    Reserved,
}

/// `mul * x + add`: how a length or count is computed from the field that gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Linear {
    pub mul: i64,
    pub add: i64,
}

impl Linear {
    pub const IDENTITY: Linear = Linear { mul: 1, add: 0 };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derive {
    /// Byte length of the field at this index (its encoded size), through the schema's
    /// expression (`length: "size - 2"`: size is the length plus 2).
    LengthOf(usize, Linear),
    /// Element count of the array field at this index, likewise.
    CountOf(usize, Linear),
    /// Tag of the union field at this index.
    TagOf(usize),
    /// Presence bit of the optional field at this index (`if: this_field`).
    PresenceOf(usize),
    /// Absence bit of the optional field at this index (`if: "!this_field"`).
    AbsenceOf(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarInt {
    /// Unsigned LEB128, up to 64 bits.
    Leb128,
    /// Zig-zag then LEB128.
    ZigZag,
    /// 1 byte when <= 127, else 2 bytes big-endian with 0x8000 set.
    RiptideLen,
    /// Rabbit: byte count - 1 in k bits, then the bytes, low first; zig-zag when signed.
    Rabbit { bits: u32, signed: bool },
}

#[derive(Debug, Clone)]
pub enum Ty {
    Int(IntTy),
    Bool,
    Float {
        bits: u32,
        endian: Endian,
    },
    VarInt(VarInt),
    Enum(EnumId),
    Flags(FlagsId),
    Bytes(Len),
    /// Text: its encoding, and whether a NUL ends it or pads it.
    Str(Len, Text),
    /// The rest of a bit stream (a payload that may start at a bit offset).
    Bits,
    Struct(StructId, Option<Len>),
    Array(Box<Ty>, Len),
    Union(Box<Union>),
}

/// How a string's characters are bytes, and what ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text {
    pub nul: Nul,
    pub encoding: Encoding,
}

impl Text {
    pub const UTF8: Text = Text {
        nul: Nul::No,
        encoding: Encoding::Utf8,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Ascii,
    /// ISO 8859-1: one byte per character, U+0000..U+00FF.
    Latin1,
    Utf16 {
        big: bool,
    },
}

impl Encoding {
    /// The schema's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf8",
            Encoding::Ascii => "ascii",
            Encoding::Latin1 => "latin1",
            Encoding::Utf16 { big: false } => "utf16le",
            Encoding::Utf16 { big: true } => "utf16be",
        }
    }
}

/// The NUL of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nul {
    /// None: the length says where the string ends.
    No,
    /// A NUL ends it (`strz` without a length: `Len::Natural`).
    Terminated,
    /// Zeros pad it to its constant length (`strz` with `length: 32`, C's `char[32]`); it may
    /// fill all of it.
    Padded,
}

/// How long a bytes/string/struct/union is (in bytes), or how many elements an array holds.
#[derive(Debug, Clone)]
pub enum Len {
    /// A prefix of this integer type, written just before the data.
    Prefix(IntTy),
    /// A variable-length prefix (`leb128`, `riptide_len`), written just before the data.
    VarPrefix(VarInt),
    /// An expression over earlier fields.
    Expr(Expr),
    /// To the end of the enclosing scope.
    Rest,
    /// Self-delimiting (structs without a length).
    Natural,
}

#[derive(Debug, Clone)]
pub struct Union {
    /// The tag expression.
    pub on: Expr,
    pub len: Len,
    pub cases: Vec<Case>,
    /// Variant for every other tag value; `None` makes an unknown tag an error.
    pub default: Option<CaseBody>,
    /// Name of the default variant (`Other` unless the schema names it).
    pub default_variant: String,
    /// When true the value is the default variant whatever the tag.
    pub unless: Option<Expr>,
}

#[derive(Debug, Clone)]
pub struct Case {
    /// Variant name (UpperCamelCase).
    pub variant: String,
    /// Tag values, as written (the first single value is the one the encoder writes).
    pub values: Vec<CaseValue>,
    pub body: CaseBody,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseValue {
    One(u64),
    Range(u64, u64),
}

impl Case {
    /// The value an encoder writes for this case, when the case names exactly one.
    pub fn single(&self) -> Option<u64> {
        match self.values.as_slice() {
            [CaseValue::One(v)] => Some(*v),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseBody {
    Struct(StructId),
    Bytes,
    Empty,
}

/// A checked expression. Every node knows its type.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(u64),
    Bool(bool),
    /// A field of the current struct (index) then, possibly, fields of nested structs.
    Field(Vec<FieldRef>),
    /// A flag bit of a flags field: the path to the field, then the bit mask.
    FlagBit(Vec<FieldRef>, u64),
    /// Bytes in the whole message.
    MessageSize,
    /// Bytes left in the current scope.
    Remaining,
    /// Byte length (bytes, string, struct) or element count (array) of a field.
    Len(Vec<FieldRef>, LenKind),
    /// Item at an index of the list selected for a state table (an enclosing field's `state`).
    Item(usize, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Binary(crate::expr::BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LenKind {
    Bytes,
    Elements,
}

impl Ty {
    /// Whether a value's size is known only once it is encoded (a struct or a switch): a length
    /// of it is reserved before and patched after it is written.
    pub fn is_encoded(&self) -> bool {
        matches!(self, Ty::Struct(..) | Ty::Union(_))
    }

    /// Whether a value is one number, flag set or enum (copied, never cloned, by the backends).
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Int(_) | Ty::Bool | Ty::Float { .. } | Ty::VarInt(_) | Ty::Enum(_) | Ty::Flags(_)
        )
    }

    /// The structs a value of this type holds directly (through arrays and every switch body).
    pub fn child_structs(&self, out: &mut Vec<StructId>) {
        match self {
            Ty::Struct(id, _) => out.push(*id),
            Ty::Array(e, _) => e.child_structs(out),
            Ty::Union(u) => out.extend(u.cases.iter().map(|c| c.body).chain(u.default).filter_map(
                |b| match b {
                    CaseBody::Struct(id) => Some(id),
                    _ => None,
                },
            )),
            _ => {}
        }
    }
}

impl Expr {
    /// The field, when the expression is a bare reference to one of its own struct's fields
    /// (the form from which encoders derive values).
    pub fn local_field(&self) -> Option<usize> {
        match self {
            Expr::Field(p) if p.len() == 1 => Some(p[0].field),
            _ => None,
        }
    }

    /// The field this expression is a linear function of, `mul * field + add` (`size - 2`,
    /// `units * 2`, `16 - count`), when it is nothing else: a length or count of that form
    /// derives the field from the data.
    pub fn linear_field(&self) -> Option<(usize, Linear)> {
        use crate::expr::BinOp;
        let int = |c: &u64| i64::try_from(*c).ok();
        let (f, l) = match self {
            Expr::Field(p) if p.len() == 1 => return Some((p[0].field, Linear::IDENTITY)),
            Expr::Binary(op, a, b) => match (op, a.as_ref(), b.as_ref()) {
                (BinOp::Add, x, Expr::Int(c)) | (BinOp::Add, Expr::Int(c), x) => {
                    let (f, l) = x.linear_field()?;
                    (f, (l.mul, l.add.checked_add(int(c)?)?))
                }
                (BinOp::Sub, x, Expr::Int(c)) => {
                    let (f, l) = x.linear_field()?;
                    (f, (l.mul, l.add.checked_sub(int(c)?)?))
                }
                (BinOp::Sub, Expr::Int(c), x) => {
                    let (f, l) = x.linear_field()?;
                    (f, (-l.mul, int(c)?.checked_sub(l.add)?))
                }
                (BinOp::Mul, x, Expr::Int(c)) | (BinOp::Mul, Expr::Int(c), x) if *c > 0 => {
                    let (f, l) = x.linear_field()?;
                    (
                        f,
                        (l.mul.checked_mul(int(c)?)?, l.add.checked_mul(int(c)?)?),
                    )
                }
                _ => return None,
            },
            _ => return None,
        };
        Some((f, Linear { mul: l.0, add: l.1 }))
    }

    /// Whether it reads the reader's position (`@size`, `@remaining`): known while decoding,
    /// not while encoding, before the rest of the message is written.
    pub fn reads_position(&self) -> bool {
        match self {
            Expr::MessageSize | Expr::Remaining => true,
            Expr::Not(x) | Expr::Neg(x) | Expr::Item(_, x) => x.reads_position(),
            Expr::Binary(_, a, b) => a.reads_position() || b.reads_position(),
            _ => false,
        }
    }

    /// Whether it reads an item of a conversation-state list.
    pub fn reads_state(&self) -> bool {
        match self {
            Expr::Item(..) => true,
            Expr::Not(x) | Expr::Neg(x) => x.reads_state(),
            Expr::Binary(_, a, b) => a.reads_state() || b.reads_state(),
            _ => false,
        }
    }

    /// Indexes (in the expression's own struct) of the fields it reads.
    pub fn local_fields(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Field(p) | Expr::FlagBit(p, _) | Expr::Len(p, _) => out.push(p[0].field),
            Expr::Not(x) | Expr::Neg(x) | Expr::Item(_, x) => x.local_fields(out),
            Expr::Binary(_, a, b) => {
                a.local_fields(out);
                b.local_fields(out);
            }
            _ => {}
        }
    }
}

/// One step of a field path: the struct and the field index inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRef {
    pub struct_id: StructId,
    pub field: usize,
    pub name: String,
}

impl Protocol {
    pub fn field(&self, r: &FieldRef) -> &Field {
        &self.structs[r.struct_id].fields[r.field]
    }

    /// Whether values of this struct borrow from the input (hold bytes or strings).
    pub fn struct_borrows(&self, id: StructId) -> bool {
        let mut seen = vec![false; self.structs.len()];
        self.borrows(id, &mut seen)
    }

    fn borrows(&self, id: StructId, seen: &mut [bool]) -> bool {
        if std::mem::replace(&mut seen[id], true) {
            return false;
        }
        let s = &self.structs[id];
        s.fields
            .iter()
            .any(|f| f.role == Role::Value && self.ty_borrows(&f.ty, seen))
    }

    /// Whether a value of `ty` borrows from the decoded input (has a lifetime).
    pub fn type_borrows(&self, ty: &Ty) -> bool {
        let mut seen = vec![false; self.structs.len()];
        self.ty_borrows(ty, &mut seen)
    }

    fn ty_borrows(&self, ty: &Ty, seen: &mut [bool]) -> bool {
        match ty {
            Ty::Bytes(_) | Ty::Str(..) | Ty::Bits => true,
            Ty::Struct(id, _) => self.borrows(*id, seen),
            Ty::Array(elem, _) => self.ty_borrows(elem, seen),
            Ty::Union(u) => u
                .cases
                .iter()
                .map(|c| c.body)
                .chain(u.default)
                .any(|b| match b {
                    CaseBody::Bytes => true,
                    CaseBody::Struct(id) => self.borrows(id, seen),
                    CaseBody::Empty => false,
                }),
            _ => false,
        }
    }

    /// Size in bytes of a fixed-size scalar in a byte layout.
    pub fn fixed_size(&self, ty: &Ty) -> Option<usize> {
        match ty {
            Ty::Int(it) => Some(it.bytes()),
            Ty::Bool => Some(1),
            Ty::Float { bits, .. } => Some(*bits as usize / 8),
            Ty::Enum(id) => Some(self.enums[*id].repr.bytes()),
            Ty::Flags(id) => Some(self.flags[*id].repr.bytes()),
            _ => None,
        }
    }

    /// The size in bytes of every value of byte-layout struct `id`, when it is the same for all:
    /// every field is present and of a fixed size (numbers, or structs of a fixed size).
    pub fn struct_fixed_size(&self, id: StructId) -> Option<usize> {
        self.struct_fixed_size_within(id, self.structs.len())
    }

    fn struct_fixed_size_within(&self, id: StructId, depth: usize) -> Option<usize> {
        let s = &self.structs[id];
        // Padding is left to the general reader (its bytes are noted).
        if s.layout != Layout::Bytes || depth == 0 || s.padding.any() {
            return None;
        }
        s.fields.iter().try_fold(0usize, |sum, f| {
            if f.condition.is_some() || !f.select.is_empty() || f.padding.any() {
                return None;
            }
            let n = match &f.ty {
                Ty::Struct(inner, None | Some(Len::Natural)) => {
                    self.struct_fixed_size_within(*inner, depth - 1)?
                }
                ty => self.fixed_size(ty)?,
            };
            sum.checked_add(n)
        })
    }

    /// Whether values of this union borrow from the input.
    pub fn union_borrows(&self, u: &Union) -> bool {
        let mut seen = vec![false; self.structs.len()];
        self.ty_borrows(&Ty::Union(Box::new(u.clone())), &mut seen)
    }

    /// Structs whose decoding reads conversation state (directly or through their fields).
    pub fn state_readers(&self) -> Vec<bool> {
        let mut out: Vec<bool> = self
            .structs
            .iter()
            .map(|s| {
                s.fields.iter().any(|f| {
                    !f.select.is_empty() || matches!(&f.ty, Ty::Union(u) if u.on.reads_state())
                })
            })
            .collect();
        loop {
            let mut changed = false;
            for (id, s) in self.structs.iter().enumerate() {
                if out[id] {
                    continue;
                }
                let mut kids = Vec::new();
                for f in &s.fields {
                    f.ty.child_structs(&mut kids);
                }
                if kids.iter().any(|k| out[*k]) {
                    out[id] = true;
                    changed = true;
                }
            }
            if !changed {
                return out;
            }
        }
    }

    pub fn root(&self) -> &Struct {
        &self.structs[self.root]
    }
}
