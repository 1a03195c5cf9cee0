//! The decoder's read step of a value: what every backend dispatches on, decided here once from
//! the value's type and the layout it is read in.
//!
//! Each case carries what its reader needs, so the backends' renderers match these enums, not
//! `Ty` again, and have no case to refuse: what a layout cannot hold (Riptide's length in a bit
//! stream, Rabbit's integers or the rest of a bit stream in bytes, a varint other than LEB128
//! or Riptide's as a length prefix) is not among that layout's cases. Validation reports those at
//! their schema position; should one get through, the lowering says so here, for every backend.

use crate::ir::*;

/// A type the lowering cannot give a read step: validation let it through (a generator bug).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlowered(pub String);

/// How a decoder reads one value: a number of the layout's kinds `N` ([`ByteNumber`] or
/// [`BitNumber`]), bytes or text, a nested struct, an array or a switch.
#[derive(Debug, Clone, Copy)]
pub enum ValueRead<'t, N> {
    Number(N),
    /// Bytes (`text: None`) or text of a length.
    Text {
        len: &'t Len,
        text: Option<Text>,
    },
    /// A value of a struct type, with its length when it has one.
    Nested {
        id: StructId,
        len: Option<&'t Len>,
    },
    Array {
        elem: &'t Ty,
        len: &'t Len,
    },
    Switch(&'t Union),
}

/// A number, bool, enum or flag set of a byte layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteNumber {
    Int(IntTy),
    Bool,
    Float {
        bits: u32,
        endian: Endian,
    },
    Leb128,
    ZigZag,
    /// Riptide 2.0's length: one byte up to 127, else two with the top bit set.
    RiptideLen,
    Enum(EnumId),
    Flags(FlagsId),
}

/// A number, bool, enum or flag set of a bit stream (or of a bit group's bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitNumber {
    Int(IntTy),
    Bool,
    Float {
        bits: u32,
    },
    Leb128,
    ZigZag,
    /// Rabbit's integer: its byte count in a few bits, then the bytes.
    Rabbit {
        bits: u32,
        signed: bool,
    },
    /// The rest of the stream, from a bit offset (`bits`).
    RawBits,
    Enum(EnumId),
    Flags(FlagsId),
}

/// How a length, count or size is read.
#[derive(Debug, Clone, Copy)]
pub enum LenRead<'t> {
    /// An integer prefix just before the data.
    Prefix(IntTy),
    /// A LEB128 prefix.
    Leb128,
    /// A Riptide 2.0 length prefix.
    RiptideLen,
    /// An expression over earlier fields: a length or count.
    Expr(&'t Expr),
    /// An expression over earlier fields: an array's size in bytes, which its elements fill.
    Bytes(&'t Expr),
    /// To the end of the enclosing scope (also a self-delimiting value's bound).
    Rest,
}

impl<'t> LenRead<'t> {
    pub fn of(len: &'t Len) -> Result<Self, Unlowered> {
        Ok(match len {
            Len::Prefix(it) => LenRead::Prefix(*it),
            Len::VarPrefix(VarInt::Leb128) => LenRead::Leb128,
            Len::VarPrefix(VarInt::RiptideLen) => LenRead::RiptideLen,
            Len::VarPrefix(v) => return Err(Unlowered(format!("{v:?} as a length prefix"))),
            Len::Expr(e) => LenRead::Expr(e),
            Len::Bytes(e) => LenRead::Bytes(e),
            Len::Rest | Len::Natural => LenRead::Rest,
        })
    }
}

/// The read step of a value of `ty` in a byte layout.
pub fn byte_read(ty: &Ty) -> Result<ValueRead<'_, ByteNumber>, Unlowered> {
    read(ty, |ty| {
        Ok(match ty {
            Ty::Int(it) => ByteNumber::Int(*it),
            Ty::Bool => ByteNumber::Bool,
            Ty::Float { bits, endian } => ByteNumber::Float {
                bits: *bits,
                endian: *endian,
            },
            Ty::VarInt(VarInt::Leb128) => ByteNumber::Leb128,
            Ty::VarInt(VarInt::ZigZag) => ByteNumber::ZigZag,
            Ty::VarInt(VarInt::RiptideLen) => ByteNumber::RiptideLen,
            Ty::Enum(id) => ByteNumber::Enum(*id),
            Ty::Flags(id) => ByteNumber::Flags(*id),
            Ty::VarInt(VarInt::Rabbit { .. }) => {
                return Err(Unlowered(
                    "Rabbit varints belong to bit-stream layouts".into(),
                ))
            }
            _ => return Err(Unlowered("'bits' belongs to bit-stream layouts".into())),
        })
    })
}

/// The read step of a value of `ty` in a bit stream or a bit group.
pub fn bit_read(ty: &Ty) -> Result<ValueRead<'_, BitNumber>, Unlowered> {
    read(ty, |ty| {
        Ok(match ty {
            Ty::Int(it) => BitNumber::Int(*it),
            Ty::Bool => BitNumber::Bool,
            Ty::Float { bits, .. } => BitNumber::Float { bits: *bits },
            Ty::VarInt(VarInt::Leb128) => BitNumber::Leb128,
            Ty::VarInt(VarInt::ZigZag) => BitNumber::ZigZag,
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => BitNumber::Rabbit {
                bits: *bits,
                signed: *signed,
            },
            Ty::Bits => BitNumber::RawBits,
            Ty::Enum(id) => BitNumber::Enum(*id),
            Ty::Flags(id) => BitNumber::Flags(*id),
            _ => {
                return Err(Unlowered(
                    "Riptide 2.0 lengths belong to byte-aligned layouts".into(),
                ))
            }
        })
    })
}

/// The read step of `ty`, its numbers given by `number` (a layout's).
fn read<N>(
    ty: &Ty,
    number: impl FnOnce(&Ty) -> Result<N, Unlowered>,
) -> Result<ValueRead<'_, N>, Unlowered> {
    Ok(match ty {
        Ty::Bytes(len) => ValueRead::Text { len, text: None },
        Ty::Str(len, text) => ValueRead::Text {
            len,
            text: Some(*text),
        },
        Ty::Struct(id, len) => ValueRead::Nested {
            id: *id,
            len: len.as_ref(),
        },
        Ty::Array(elem, len) => ValueRead::Array { elem, len },
        Ty::Union(u) => ValueRead::Switch(u),
        Ty::Int(_)
        | Ty::Bool
        | Ty::Float { .. }
        | Ty::VarInt(_)
        | Ty::Enum(_)
        | Ty::Flags(_)
        | Ty::Bits => ValueRead::Number(number(ty)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_layout_reads_only_what_it_holds() {
        let rabbit = Ty::VarInt(VarInt::Rabbit {
            bits: 32,
            signed: true,
        });
        assert!(byte_read(&rabbit).is_err());
        assert!(matches!(
            bit_read(&rabbit),
            Ok(ValueRead::Number(BitNumber::Rabbit {
                bits: 32,
                signed: true
            }))
        ));
        let riptide = Ty::VarInt(VarInt::RiptideLen);
        assert!(matches!(
            byte_read(&riptide),
            Ok(ValueRead::Number(ByteNumber::RiptideLen))
        ));
        assert!(bit_read(&riptide).is_err());
        assert!(byte_read(&Ty::Bits).is_err());
        assert!(matches!(
            bit_read(&Ty::Bits),
            Ok(ValueRead::Number(BitNumber::RawBits))
        ));
        let text = Ty::Str(Len::Rest, Text::UTF8);
        assert!(matches!(
            byte_read(&text),
            Ok(ValueRead::Text {
                len: Len::Rest,
                text: Some(Text::UTF8)
            })
        ));
    }

    #[test]
    fn a_length_prefix_is_an_integer_leb128_or_riptides() {
        assert!(matches!(
            LenRead::of(&Len::VarPrefix(VarInt::RiptideLen)),
            Ok(LenRead::RiptideLen)
        ));
        assert!(LenRead::of(&Len::VarPrefix(VarInt::ZigZag)).is_err());
        assert!(matches!(LenRead::of(&Len::Natural), Ok(LenRead::Rest)));
    }
}
