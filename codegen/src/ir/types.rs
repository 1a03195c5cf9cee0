//! Value types: integers, enums and flag sets, text, varints, lengths and switches.

use super::*;

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
    /// The schema's name of the integer, without its byte order (`u16`, `i24`).
    pub fn name(&self) -> String {
        format!("{}{}", if self.signed { "i" } else { "u" }, self.bits)
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
    /// The value as the schema wrote it when that was hex (`0x0F`): the outputs write it so.
    pub hex: Option<String>,
    pub doc: Option<String>,
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
    /// An array's size in bytes (`length:` on an array), an expression over earlier fields: its
    /// elements fill exactly that many bytes.
    Bytes(Expr),
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
    /// The switch (struct, field) whose cases this one takes (`cases_from`), when the variants
    /// of both are alike (each case of one value, no default): the crate has one enum for both.
    pub shares: Option<(StructId, usize)>,
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

impl CaseValue {
    /// The inclusive range of tag values it names (`(3, 3)` for one value).
    pub fn bounds(self) -> (u64, u64) {
        match self {
            CaseValue::One(x) => (x, x),
            CaseValue::Range(lo, hi) => (lo, hi),
        }
    }
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
    /// Values of a struct type until the end of the switch's scope (`Command[]`).
    Array(StructId),
    Bytes,
    Empty,
}

impl Ty {
    /// Whether a value's size is known only once it is encoded (a struct or a switch): a length
    /// of it is reserved before and patched after it is written.
    pub fn is_encoded(&self) -> bool {
        matches!(
            self,
            Ty::Struct(..) | Ty::Union(_) | Ty::Array(_, Len::Bytes(_))
        )
    }

    /// Whether a value of this type borrows from the decoded input (has a lifetime), given
    /// whether values of each struct do: bytes and strings borrow, arrays and switches as what
    /// they hold.
    pub fn borrows_with(&self, struct_borrows: &mut impl FnMut(StructId) -> bool) -> bool {
        match self {
            Ty::Bytes(_) | Ty::Str(..) | Ty::Bits => true,
            Ty::Struct(id, _) => struct_borrows(*id),
            Ty::Array(elem, _) => elem.borrows_with(struct_borrows),
            Ty::Union(u) => u.borrows_with(struct_borrows),
            _ => false,
        }
    }

    /// Whether a value is a variable-length integer.
    pub fn is_varint(&self) -> bool {
        matches!(self, Ty::VarInt(_))
    }

    /// Whether a value is one number, flag set or enum (copied, never cloned, by the backends).
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Int(_) | Ty::Bool | Ty::Float { .. } | Ty::VarInt(_) | Ty::Enum(_) | Ty::Flags(_)
        )
    }

    /// The struct a value of this type is, or each element of an array of it is (what a
    /// field's `filter:` names the fields of).
    pub fn value_struct(&self) -> Option<StructId> {
        match self {
            Ty::Struct(id, _) => Some(*id),
            Ty::Array(e, _) => match **e {
                Ty::Struct(id, _) => Some(id),
                _ => None,
            },
            _ => None,
        }
    }

    /// The structs a value of this type holds directly (through arrays and every switch body).
    pub fn child_structs(&self, out: &mut Vec<StructId>) {
        match self {
            Ty::Struct(id, _) => out.push(*id),
            Ty::Array(e, _) => e.child_structs(out),
            Ty::Union(u) => out.extend(u.cases.iter().map(|c| c.body).chain(u.default).filter_map(
                |b| match b {
                    CaseBody::Struct(id) | CaseBody::Array(id) => Some(id),
                    CaseBody::Bytes | CaseBody::Empty => None,
                },
            )),
            _ => {}
        }
    }
}

impl Union {
    /// The named value of the enum the switch is on (its tag an enum field) that is `v`.
    pub fn tag_name<'p>(&self, p: &'p Protocol, v: u64) -> Option<&'p NamedConst> {
        let Expr::Field(path) = &self.on else {
            return None;
        };
        match p.field(path.last()?).ty {
            Ty::Enum(id) => p.enums[id].values.iter().find(|c| c.value == v),
            _ => None,
        }
    }

    /// Whether a value of this switch borrows from the decoded input: a bytes case, or a case
    /// of a struct that does (see [`Ty::borrows_with`]).
    pub fn borrows_with(&self, struct_borrows: &mut impl FnMut(StructId) -> bool) -> bool {
        self.cases
            .iter()
            .map(|c| c.body)
            .chain(self.default)
            .any(|b| match b {
                CaseBody::Bytes => true,
                CaseBody::Struct(id) | CaseBody::Array(id) => struct_borrows(id),
                CaseBody::Empty => false,
            })
    }
}
