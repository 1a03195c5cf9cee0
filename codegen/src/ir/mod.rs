//! The validated intermediate representation: every name resolved, every width and expression
//! type checked. Backends read only this.

mod application;
mod checksum;
mod dead_cases;
mod expr;
mod reliability;
mod session;
mod types;

pub use application::*;
pub use checksum::{Checksum, ChecksumAlgo, CrcAlgo};
pub use dead_cases::DeadCase;
pub use expr::*;
pub use reliability::*;
pub use session::*;
pub use types::*;

pub type EnumId = usize;

pub type FlagsId = usize;

pub type StructId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    /// The byte order in words, as documents and messages say it.
    pub fn words(self) -> &'static str {
        match self {
            Endian::Little => "little-endian",
            Endian::Big => "big-endian",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Fields start on byte boundaries.
    Bytes,
    /// The whole message is one LSB-first bit stream.
    LsbBits,
    /// One MSB-first bit stream (network bit order, as RFC diagrams draw it).
    MsbBits,
}

/// How the dissector shows an integer (`display:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    Dec,
    Hex,
    /// The bit pattern Wireshark draws for masked fields (`0000 0101 = Peer: 5`), in decimal.
    Bin,
}

impl Layout {
    /// Whether fields are read from a bit stream (of either bit order).
    pub fn is_bits(self) -> bool {
        self != Layout::Bytes
    }

    /// The schema's name of the layout.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Bytes => "bytes",
            Layout::LsbBits => "lsb-bits",
            Layout::MsbBits => "msb-bits",
        }
    }
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
    /// Payloads joined in the order of their pieces, between a begin and an end message.
    pub stream_joins: Vec<StreamJoin>,
    /// Lists remembered per conversation and direction from earlier messages.
    pub state: Vec<StateTable>,
    /// Sequence numbers, acks and pings the netcode analysis reads (none: no analysis).
    pub reliability: Option<Reliability>,
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
    /// What is probably not what the schema's author meant, though every output is written
    /// (`W…` codes: a type nothing reads).
    pub warnings: Vec<crate::diag::Diagnostic>,
}

/// The outputs a schema is generated into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Rust,
    Lua,
    CSharp,
}

impl Backend {
    pub fn language(self) -> &'static str {
        match self {
            Backend::Rust => "Rust",
            Backend::Lua => "Lua",
            Backend::CSharp => "C#",
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

    /// The width in bits of a value of `ty` inside a bit group (integers, bools, enums, flag
    /// sets; 0 for what a group cannot hold).
    pub fn packed_width(&self, ty: &Ty) -> u32 {
        match ty {
            Ty::Int(it) => it.bits,
            Ty::Bool => 1,
            Ty::Enum(id) => self.enums[*id].repr.bits,
            Ty::Flags(id) => self.flags[*id].repr.bits,
            _ => 0,
        }
    }

    /// For a field packed into a bit group: the group, and the field's lowest bit and width in
    /// the group's integer.
    pub fn packing(&self, sid: StructId, fi: usize) -> Option<(&BitGroup, u32, u32)> {
        let s = &self.structs[sid];
        let g = &s.groups[s.fields[fi].group?];
        let width = self.packed_width(&s.fields[fi].ty);
        Some((g, g.shift(&s.fields, fi, |t| self.packed_width(t)), width))
    }
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
    /// Whether the dissector shows a value of this type in a subtree of its own (`subtree:`),
    /// or its fields in the tree of what holds it.
    pub subtree: bool,
    pub fields: Vec<Field>,
    /// Zeros after the fields: to a fixed size, or to a multiple of a size.
    pub padding: Padding,
    /// Runs of fields packed into one integer (byte layouts).
    pub groups: Vec<BitGroup>,
}

/// A bit group (PDL's): consecutive fields that are the bits of one integer of whole bytes in
/// its byte order, the first in the lowest bits (or, `high_first`, the highest).
#[derive(Debug, Clone)]
pub struct BitGroup {
    /// The container's name (its filter name, the dissector's subtree).
    pub name: String,
    pub doc: Option<String>,
    /// The container: an unsigned integer of whole bytes.
    pub int: IntTy,
    pub high_first: bool,
    /// Its fields, indexes into the struct's.
    pub fields: std::ops::Range<usize>,
}

impl BitGroup {
    /// Where field `fi` of the group starts, counted from the container's lowest bit, given the
    /// widths of the struct's fields.
    pub fn shift(&self, fields: &[Field], fi: usize, widths: impl Fn(&Ty) -> u32) -> u32 {
        let before: u32 = fields[self.fields.start..fi]
            .iter()
            .map(|f| widths(&f.ty))
            .sum();
        if self.high_first {
            self.int.bits - before - widths(&fields[fi].ty)
        } else {
            before
        }
    }
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
    /// Appends the structs this one's fields hold (nested values, array elements, switch
    /// cases), in field order.
    pub fn child_structs(&self, out: &mut Vec<StructId>) {
        for f in &self.fields {
            f.ty.child_structs(out);
        }
    }

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
    /// Whether the dissector shows the field's value in the subtree it makes (an array's list,
    /// a struct value's or a switch case's subtree) or in the tree of the field's type
    /// (`subtree: false`).
    pub subtree: bool,
    /// Zeros before it (`align`) or after it (`pad`).
    pub padding: Padding,
    /// Values the encoder gives this user-set field so that the fields depending on it agree
    /// (a flag bit announcing an optional field, `set_when`), applied in order.
    pub implied: Vec<Implied>,
    /// The bit group (an index into the struct's) this field is packed into.
    pub group: Option<usize>,
    /// The field's bytes are compressed, its type inside them.
    pub compression: Option<Compressed>,
    /// The filter names of this struct-typed value's fields: `proto.<filter>.<field>`.
    pub filter: Option<String>,
    /// How the dissector shows an integer (`display: hex`); by default constants, checksums
    /// and reserved fields in hex, other integers in decimal.
    pub display: Option<Display>,
    /// A constant as the schema wrote it when it wrote it in hex (`0xD1CE`) or negative (`-1`,
    /// of a signed integer; its wire bits are the `Role::Const`): the outputs write it so too.
    pub const_text: Option<String>,
}

impl Field {
    /// The field's constant as the outputs write it: in hex or negative as the schema wrote it,
    /// else in decimal (`None` when the field is not a constant).
    pub fn const_literal(&self) -> Option<String> {
        match (&self.role, &self.const_text) {
            (Role::Const(_), Some(hex)) => Some(hex.clone()),
            (Role::Const(c), None) => Some(c.to_string()),
            _ => None,
        }
    }

    /// Whether the field is a constant the schema wrote as a negative number (`-1`).
    pub fn const_negative(&self) -> bool {
        matches!(self.role, Role::Const(_))
            && self
                .const_text
                .as_deref()
                .is_some_and(|t| t.starts_with('-'))
    }
}

/// A compressed field: how, and the most bytes it may decompress to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compressed {
    pub method: Compression,
    pub max: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Zlib,
    Deflate,
    Gzip,
}

impl Compression {
    pub const ALL: [(&'static str, Compression); 3] = [
        ("zlib", Compression::Zlib),
        ("deflate", Compression::Deflate),
        ("gzip", Compression::Gzip),
    ];
    /// The runtime's variant name (`Zlib`).
    pub fn variant(self) -> &'static str {
        match self {
            Compression::Zlib => "Zlib",
            Compression::Deflate => "Deflate",
            Compression::Gzip => "Gzip",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Compression::Zlib => "zlib",
            Compression::Deflate => "deflate",
            Compression::Gzip => "gzip",
        }
    }
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
    /// The value [`ImpliedWhen::Variant`] solves from the tag of the variant written (a switch
    /// whose tag is an expression of this field); the user's for its other variants.
    Solved,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ImpliedWhen {
    /// The optional field at this index is present (`if: flags.HAS_X`, `if: kind == K`).
    Present(usize),
    /// The optional field at this index is absent (`if: "!flags.NO_X"`, `if: kind != K`).
    Absent(usize),
    /// The expression (over earlier fields) holds (`set_when`); its schema text for the docs.
    Holds(Expr, String),
    /// The switch field at `field` holds its case `case`, whose tag this field's `value` gives
    /// (the tag expression solved for it: `@from_client ? 1 : 1 - 0x1000` for a tag
    /// `@from_client ? command : command + 0x1000` of case `0x0001`); a value the field cannot
    /// hold means the variant cannot be sent so (`TagOutsideCase`).
    Variant {
        field: usize,
        case: usize,
        value: Expr,
    },
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

impl Protocol {
    pub fn field(&self, r: &FieldRef) -> &Field {
        &self.structs[r.struct_id].fields[r.field]
    }

    /// The name of the type a switch field defines, its struct's and its own: `PacketPayload`
    /// (the Rust enum, the reference's heading, and a name no schema type may take); for a
    /// switch that shares another's cases ([`Union::shares`]), that switch's.
    pub fn union_name(&self, s: StructId, field: usize) -> String {
        match &self.structs[s].fields[field].ty {
            Ty::Union(u) if u.shares.is_some() => {
                let (s, field) = u.shares.unwrap_or((s, field));
                self.switch_name(s, field)
            }
            _ => self.switch_name(s, field),
        }
    }

    /// Whether every value a switch tag of type `tag` can hold has a case of `u` (a closed
    /// enum's every name and range, a bool's two values): its default is then never taken, nor
    /// drawn at random.
    pub fn cases_cover(&self, tag: &Ty, u: &Union) -> bool {
        let covered = |lo: u64, hi: u64| {
            u.cases.iter().flat_map(|c| &c.values).any(|v| {
                let (a, b) = v.bounds();
                a <= lo && hi <= b
            })
        };
        match tag {
            Ty::Bool => covered(0, 0) && covered(1, 1),
            Ty::Enum(id) => {
                let e = &self.enums[*id];
                e.closed
                    && e.values.iter().all(|v| covered(v.value, v.value))
                    && e.ranges.iter().all(|r| covered(r.lo, r.hi))
            }
            _ => false,
        }
    }

    /// A switch field's own name, its struct's and its own (`IndexedValueValue`), whether or not
    /// it shares another's enum.
    pub fn switch_name(&self, s: StructId, field: usize) -> String {
        use heck::ToUpperCamelCase;
        let f = &self.structs[s].fields[field];
        format!("{}{}", self.structs[s].name, f.name.to_upper_camel_case())
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

    fn ty_borrows(&self, ty: &Ty, seen: &mut [bool]) -> bool {
        ty.borrows_with(&mut |id| self.borrows(id, seen))
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

    /// Every (struct, filter name) a field gives its value's fields (`filter:`), once each,
    /// in the order of the schema.
    pub fn filter_uses(&self) -> Vec<(StructId, String)> {
        let mut out: Vec<(StructId, String)> = Vec::new();
        for f in self.structs.iter().flat_map(|s| &s.fields) {
            if let (Some(name), Some(id)) = (&f.filter, f.ty.value_struct()) {
                if !out.iter().any(|(i, n)| *i == id && n == name) {
                    out.push((id, name.clone()));
                }
            }
        }
        out
    }

    /// Whether a field of the schema is compressed (the crate needs the runtime's `zlib`).
    pub fn uses_compression(&self) -> bool {
        self.structs
            .iter()
            .any(|s| s.fields.iter().any(|f| f.compression.is_some()))
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
                s.child_structs(&mut kids);
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

    /// The types a peer can make a decoder read directly: the root, the opening datagrams, and
    /// the payloads joined from pieces (each once, in that order).
    pub fn top_level_types(&self) -> Vec<StructId> {
        let mut out = vec![self.root];
        out.extend(self.opening.iter().map(|(_, id)| *id));
        if let Some(r) = &self.reassembly {
            if let WholeType::ByDirection { client, server } = r.whole {
                out.extend([client, server]);
            }
        }
        for j in &self.joins {
            out.extend(j.streams.iter().filter_map(|s| s.whole));
        }
        for j in &self.stream_joins {
            out.extend(j.streams.iter().filter_map(|s| s.whole));
        }
        let mut seen = Vec::new();
        out.retain(|id| {
            let fresh = !seen.contains(id);
            seen.push(*id);
            fresh
        });
        out
    }
}
