//! Numbers written to bytes, bit streams and bit groups.

use super::*;

impl<'p> Encoder<'p> {
    /// A field's bits into its group's integer (started at its first field, written after its
    /// last).
    pub(super) fn group_put(
        &self,
        c: &mut Code,
        at: Put,
        ty: &Ty,
        x: &str,
        (group, shift, width): (usize, u32, u32),
    ) {
        let p = self.i.p;
        let g = &p.structs[at.sid].groups[group];
        let gl = group_local(self.i, at.sid, at.fi);
        let nm = lit(at.name);
        let mask = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        if g.fields.start == at.fi {
            c.line(&format!("ulong {gl} = 0;"));
        }
        let v = match ty {
            Ty::Bool => format!("({x} ? 1UL : 0UL)"),
            Ty::Int(it) if it.signed => {
                format!("((ulong)WireFit.Signed((long){x}, {width}, {nm}) & 0x{mask:X}UL)")
            }
            Ty::Enum(id) if p.enums[*id].closed => format!(
                "WireFit.Unsigned((ulong){}Names.Known({x}, {nm}), 0x{mask:X}UL, {nm})",
                type_name(&p.enums[*id].name)
            ),
            _ => format!("WireFit.Unsigned((ulong){x}, 0x{mask:X}UL, {nm})"),
        };
        c.line(&format!("{gl} |= {v} << {shift};"));
        if g.fields.end == at.fi + 1 {
            c.line(&format!(
                "w.UInt({gl}, {}, {});",
                g.int.bytes(),
                g.int.endian == Endian::Big
            ));
        }
    }

    pub(super) fn byte_number(&self, n: ByteNumber, x: &str, name: &str) -> String {
        let p = self.i.p;
        let nm = lit(name);
        let int = |it: &IntTy, v: String| {
            let (n, big) = (it.bytes(), it.endian == Endian::Big);
            if it.signed {
                let v = if it.is_native() {
                    format!("(long){v}")
                } else {
                    format!("WireFit.Signed((long){v}, {}, {nm})", it.bits)
                };
                format!("w.UInt((ulong){v}, {n}, {big});")
            } else if n == 1 && it.is_native() {
                format!("w.U8((byte){v});")
            } else if it.is_native() {
                format!("w.UInt((ulong){v}, {n}, {big});")
            } else {
                format!(
                    "w.UInt(WireFit.Unsigned((ulong){v}, {}UL, {nm}), {n}, {big});",
                    it.max_value()
                )
            }
        };
        match n {
            ByteNumber::Int(it) => int(&it, x.into()),
            ByteNumber::Bool => format!("w.U8({x} ? (byte)1 : (byte)0);"),
            ByteNumber::Float { bits: 16, endian } => {
                format!("w.F16({x}, {}, {nm});", endian == Endian::Big)
            }
            ByteNumber::Float { bits, endian } => {
                format!("w.F{bits}({x}, {});", endian == Endian::Big)
            }
            ByteNumber::Leb128 => format!("w.Leb128({x});"),
            ByteNumber::ZigZag => format!("w.Leb128(WireWriter.ZigZag({x}));"),
            ByteNumber::RiptideLen => format!("w.RiptideLen({x}, {nm});"),
            ByteNumber::Enum(id) => {
                let e = &p.enums[id];
                let v = if e.closed {
                    format!("{}Names.Known({x}, {nm})", type_name(&e.name))
                } else {
                    x.to_string()
                };
                int(&e.repr, v)
            }
            ByteNumber::Flags(id) => int(&p.flags[id].repr, x.into()),
        }
    }

    pub(super) fn bit_number(&self, sid: StructId, n: BitNumber, x: &str, name: &str) -> String {
        let p = self.i.p;
        let nm = lit(name);
        let msb = self.msb(sid);
        let int = |it: &IntTy, v: String| {
            let w = it.bits;
            if it.signed {
                format!("w.Bits((ulong)WireFit.Signed((long){v}, {w}, {nm}), {w}, {msb});")
            } else if w == it.storage_bits() {
                format!("w.Bits((ulong){v}, {w}, {msb});")
            } else {
                format!(
                    "w.Bits(WireFit.Unsigned((ulong){v}, {}UL, {nm}), {w}, {msb});",
                    it.max_value()
                )
            }
        };
        match n {
            BitNumber::Int(it) => int(&it, x.into()),
            BitNumber::Bool => format!("w.Bits({x} ? 1UL : 0UL, 1, {msb});"),
            BitNumber::Float { bits: 16 } => {
                format!("w.Bits(WireHalf.FromSingle({x}, {nm}), 16, {msb});")
            }
            BitNumber::Float { bits: 32 } => format!("w.Bits(WireFloats.ToBits({x}), 32, {msb});"),
            BitNumber::Float { .. } => {
                format!("w.Bits((ulong)BitConverter.DoubleToInt64Bits({x}), 64, {msb});")
            }
            BitNumber::Leb128 => format!("w.Leb128({x}, {msb});"),
            BitNumber::ZigZag => format!("w.Leb128(WireWriter.ZigZag({x}), {msb});"),
            BitNumber::Rabbit { bits, signed } => {
                let v = if signed {
                    format!("WireWriter.ZigZag({x})")
                } else {
                    format!("(ulong){x}")
                };
                format!("w.Rabbit({v}, {bits}, {msb});")
            }
            BitNumber::RawBits => format!("w.PutBitString({x}, {msb});"),
            BitNumber::Enum(id) => {
                let e = &p.enums[id];
                let v = if e.closed {
                    format!("{}Names.Known({x}, {nm})", type_name(&e.name))
                } else {
                    x.to_string()
                };
                int(&e.repr, v)
            }
            BitNumber::Flags(id) => int(&p.flags[id].repr, x.into()),
        }
    }
}
