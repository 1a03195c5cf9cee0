//! Where each field sits in its type: its offset in bits from the type's start while every field
//! before it has one fixed size and is always present, and its own width when it has one (as
//! pdl-compiler's `backends/common/alignment.rs`). The reference documents draw their packet
//! diagrams from it; an offset the wire does not fix (after a variable-length or optional field)
//! is `None`, and readers count from that field instead.

use crate::ir::*;

/// One field's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// Bits from the start of its type, when every value puts it there.
    pub offset: Option<u64>,
    /// Its width in bits, when every value of it has the same (`None`: variable length).
    pub bits: Option<u64>,
}

/// The places of every field of type `sid`, in order.
pub fn placements(p: &Protocol, sid: StructId) -> Vec<Placement> {
    let s = &p.structs[sid];
    let mut at = Some(0u64);
    let mut out = Vec::with_capacity(s.fields.len());
    let mut fi = 0;
    while fi < s.fields.len() {
        let f = &s.fields[fi];
        if let Some(g) = f.group.map(|g| &s.groups[g]) {
            // A bit group is one integer: its fields are bits of it, wherever its byte order
            // puts them; the group as a whole moves the offset.
            for gi in g.fields.clone() {
                let (_, shift, width) = p.packing(sid, gi).unwrap_or((g, 0, 0));
                out.push(Placement {
                    offset: at.map(|a| a + group_position(g, shift, width)),
                    bits: Some(u64::from(width)),
                });
            }
            at = at.map(|a| a + u64::from(g.int.bits));
            fi = g.fields.end;
            continue;
        }
        let bits = if f.padding.any() || f.compression.is_some() {
            None
        } else {
            width_bits(p, &f.ty, s.layout, p.structs.len())
        };
        out.push(Placement { offset: at, bits });
        at = match (at, bits, &f.condition) {
            (Some(a), Some(b), None) => Some(a + b),
            _ => None,
        };
        fi += 1;
    }
    out
}

/// Where bits `[shift, shift + width)` of a group's integer sit when its bytes are drawn in wire
/// order, most significant bit first (as RFC diagrams number them): exact for one byte and for
/// big-endian groups. A little-endian group of several bytes scatters a field over its bytes;
/// its fields are then placed by their bit in the integer.
pub fn group_position(g: &BitGroup, shift: u32, width: u32) -> u64 {
    u64::from(g.int.bits - shift - width)
}

/// Whether the fields of group `g` sit on the wire as [`group_position`] says (one byte, or
/// big-endian): otherwise a diagram draws the group's integer as one cell.
pub fn group_drawn_by_fields(g: &BitGroup) -> bool {
    g.int.bits <= 8 || g.int.endian == Endian::Big
}

/// The width in bits of every value of `ty` in a type of `layout`, when they all have the same.
fn width_bits(p: &Protocol, ty: &Ty, layout: Layout, depth: usize) -> Option<u64> {
    let scalar = |bits: u32| {
        Some(if layout.is_bits() {
            u64::from(bits)
        } else {
            u64::from(bits.div_ceil(8)) * 8
        })
    };
    match ty {
        Ty::Int(it) => scalar(it.bits),
        Ty::Bool => scalar(1),
        Ty::Float { bits, .. } => Some(u64::from(*bits)),
        Ty::Enum(id) => scalar(p.enums[*id].repr.bits),
        Ty::Flags(id) => scalar(p.flags[*id].repr.bits),
        Ty::Bytes(Len::Expr(Expr::Int(n, _))) => n.checked_mul(8),
        Ty::Str(Len::Expr(Expr::Int(n, _)), text) => {
            let unit = if matches!(text.encoding, Encoding::Utf16 { .. }) {
                16
            } else {
                8
            };
            n.checked_mul(unit)
        }
        Ty::Struct(id, None | Some(Len::Natural)) if depth > 0 => {
            let inner = &p.structs[*id];
            if inner.padding.any() || inner.layout != layout {
                return None;
            }
            fixed_bits_within(p, *id, depth - 1)
        }
        Ty::Array(elem, Len::Expr(Expr::Int(n, _))) => {
            width_bits(p, elem, layout, depth)?.checked_mul(*n)
        }
        _ => None,
    }
}

/// The fixed width of struct `id` (every field present and of one size), bounded in depth so a
/// recursive type ends.
fn fixed_bits_within(p: &Protocol, id: StructId, depth: usize) -> Option<u64> {
    let s = &p.structs[id];
    let mut sum = s
        .groups
        .iter()
        .try_fold(0u64, |sum, g| sum.checked_add(u64::from(g.int.bits)))?;
    for f in s.fields.iter().filter(|f| f.group.is_none()) {
        if f.condition.is_some() || f.padding.any() || f.compression.is_some() {
            return None;
        }
        sum = sum.checked_add(width_bits(p, &f.ty, s.layout, depth)?)?;
    }
    Some(sum)
}

/// The fixed width in bits of every value of struct `id`, when they all have one.
pub fn struct_bits(p: &Protocol, id: StructId) -> Option<u64> {
    fixed_bits_within(p, id, p.structs.len())
}
