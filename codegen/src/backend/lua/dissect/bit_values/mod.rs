//! Reading a value of a bit stream (LSB-first or MSB-first): one renderer per kind of value
//! (`numbers`, `text`, `nested`, `arrays`), over what they share ([`BitRead`]).

mod arrays;
mod nested;
mod numbers;
mod text;

use super::*;
use crate::lower::{bit_read, BitNumber, ValueRead};

/// What reading one value of a bit stream needs: its field, where its item goes, where its value
/// is kept, and the stream's bit order.
pub(crate) struct BitRead<'a> {
    pub(crate) sid: StructId,
    pub(crate) fi: usize,
    /// The field's name, as truncation and expert messages say it.
    pub(crate) name: String,
    pub(crate) abbrev: &'a str,
    pub(crate) tree: &'a str,
    pub(crate) target: &'a str,
    /// Whether the stream is MSB-first (the template's readers end in `_msb`).
    pub(crate) msb: bool,
}

impl BitRead<'_> {
    /// The template's reader `base` of this stream's bit order.
    pub(crate) fn reader(&self, base: &str) -> String {
        if self.msb {
            format!("{base}_msb")
        } else {
            base.to_string()
        }
    }

    /// Returns a truncation when fewer than `bits` bits are left.
    pub(crate) fn need(&self, c: &mut Code, bits: &str) {
        let (tree, name) = (self.tree, &self.name);
        c.line(format!("if limit - offset < {bits} then return truncated_bits({tree}, tvb, offset, \"{name}\", {bits}, limit - offset) end"));
    }
}

impl<'p> Dissect<'p> {
    /// Bit-stream layouts: reads one value of `ty` at bit `offset` (limit in bits too), shown over
    /// the bytes it touches with its decoded value.
    pub(crate) fn value_bits(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        ty: &Ty,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let Place {
            sid,
            fi,
            abbrev,
            tree,
            target,
        } = at;
        let at = BitRead {
            sid,
            fi,
            name: p.structs[sid].fields[fi].name.clone(),
            abbrev,
            tree,
            target,
            msb: p.structs[sid].layout == Layout::MsbBits,
        };
        match bit_read(ty)? {
            ValueRead::Number(n) => match n {
                // (A join's number is never read here: joins of bit-stream types are refused,
                // E0801, so no number needs keeping exact as `Numbering` keeps byte layouts'.)
                BitNumber::Int(it) => at.int(c, &it, abbrev),
                BitNumber::Bool => at.bool(c),
                BitNumber::Float { bits } => at.float(c, bits),
                BitNumber::Leb128 => at.leb128(c, false),
                BitNumber::ZigZag => at.leb128(c, true),
                BitNumber::Rabbit { bits, signed } => at.rabbit(c, bits, signed),
                BitNumber::RawBits => at.bit_string(c),
                BitNumber::Enum(id) => {
                    let e = &p.enums[id];
                    at.int(c, &e.repr, abbrev);
                    enum_check(c, e, &at.name);
                }
                BitNumber::Flags(id) => at.flags(c, &p.flags[id]),
            },
            ValueRead::Text { len, text } => self.bit_text(c, &at, len, text.is_some())?,
            ValueRead::Nested {
                id,
                len: None | Some(Len::Natural),
            } => at.nested(c, p, id),
            // Refused at its position as a limit of this backend (L0110, L0111).
            ValueRead::Nested { .. } => {
                return Err(Internal(format!(
                    "'{}': a struct with a length in a bit stream",
                    at.name
                )))
            }
            ValueRead::Array { elem, len } => self.bit_array(c, &at, elem, len)?,
            ValueRead::Switch(u) => self.bit_union(c, &at, u)?,
        }
        Ok(())
    }
}
