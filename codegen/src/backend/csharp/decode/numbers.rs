//! Numbers read from bytes, bit streams and bit groups, and reserved fields skipped.

use super::*;

impl<'p> Decoder<'p> {
    pub(super) fn byte_number(&self, at: At, n: ByteNumber) -> String {
        let p = self.i.p;
        let nm = lit(at.nm);
        let int = |it: &IntTy| {
            let (n, big) = (it.bytes(), it.endian == Endian::Big);
            if it.signed {
                format!("({})r.SInt({n}, {big}, {nm})", int_type(it))
            } else if n == 1 {
                format!("r.U8({nm})")
            } else {
                format!("({})r.UInt({n}, {big}, {nm})", int_type(it))
            }
        };
        match n {
            ByteNumber::Int(it) => int(&it),
            ByteNumber::Bool => format!("r.U8({nm}) != 0"),
            ByteNumber::Float { bits, endian } => {
                let big = endian == Endian::Big;
                format!("r.F{bits}({big}, {nm})")
            }
            ByteNumber::Leb128 => format!("r.Leb128({nm})"),
            ByteNumber::ZigZag => format!("WireReader.UnZigZag(r.Leb128({nm}))"),
            ByteNumber::RiptideLen => format!("r.RiptideLen({nm})"),
            ByteNumber::Enum(id) => {
                let e = &p.enums[id];
                let v = format!("({}){}", type_name(&e.name), int(&e.repr));
                self.known(e, v, at)
            }
            ByteNumber::Flags(id) => {
                let f = &p.flags[id];
                format!("({}){}", type_name(&f.name), int(&f.repr))
            }
        }
    }

    /// Reads past a reserved field (an integer, or bytes of a constant length).
    pub(super) fn skip_reserved(
        &self,
        c: &mut Code,
        at: At,
        f: &Field,
        access: Access,
    ) -> Result<(), Internal> {
        let nm = lit(at.nm);
        let msb = self.msb(at.sid);
        let bits = self.i.p.structs[at.sid].layout.is_bits();
        match (&f.ty, access) {
            (_, Access::Group { .. }) => {}
            (Ty::Int(it), _) if bits => c.line(&format!("r.Bits({}, {msb}, {nm});", it.bits)),
            (Ty::Int(it), _) => c.line(&format!(
                "r.UInt({}, {}, {nm});",
                it.bytes(),
                it.endian == Endian::Big
            )),
            (Ty::Bytes(Len::Expr(e)), _) if bits => c.line(&format!(
                "r.BitBytes((int){}, {msb}, {nm});",
                self.exprs().expr(e)
            )),
            (Ty::Bytes(Len::Expr(e)), _) => {
                c.line(&format!("r.Bytes((int){}, {nm});", self.exprs().expr(e)))
            }
            _ => return Err(Internal(format!("reserved '{}' of its type", f.name))),
        }
        Ok(())
    }

    /// A field's bits of its group's integer, as its type.
    pub(super) fn group_bits(&self, at: At, ty: &Ty, shift: u32, width: u32) -> String {
        let p = self.i.p;
        let g = group_local(self.i, at.sid, at.fi);
        let mask = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let raw = format!("(({g} >> {shift}) & 0x{mask:X}UL)");
        match ty {
            Ty::Bool => format!("{raw} != 0"),
            Ty::Int(it) if it.signed && width < 64 => {
                let up = 64 - width;
                format!("({})((long)({raw} << {up}) >> {up})", int_type(it))
            }
            Ty::Int(it) => format!("({}){raw}", int_type(it)),
            Ty::Enum(id) => {
                let e = &p.enums[*id];
                let v = format!("({}){raw}", type_name(&e.name));
                self.known(e, v, at)
            }
            Ty::Flags(id) => format!("({}){raw}", type_name(&p.flags[*id].name)),
            _ => raw,
        }
    }

    /// A closed enum's value checked to be one the schema names.
    pub(super) fn known(&self, e: &Enum, v: String, at: At) -> String {
        if e.closed {
            format!("{}Names.Known({v}, r, {})", type_name(&e.name), lit(at.nm))
        } else {
            v
        }
    }

    pub(super) fn bit_number(&self, at: At, n: BitNumber) -> String {
        let p = self.i.p;
        let nm = lit(at.nm);
        let msb = self.msb(at.sid);
        let int = |it: &IntTy| {
            let w = it.bits;
            if it.signed {
                format!("({})r.SBits({w}, {msb}, {nm})", int_type(it))
            } else {
                format!("({})r.Bits({w}, {msb}, {nm})", int_type(it))
            }
        };
        match n {
            BitNumber::Int(it) => int(&it),
            BitNumber::Bool => format!("r.Bits(1, {msb}, {nm}) != 0"),
            BitNumber::Float { bits: 16 } => {
                format!("WireHalf.ToSingle((ushort)r.Bits(16, {msb}, {nm}))")
            }
            BitNumber::Float { bits: 32 } => {
                format!("WireFloats.FromBits((uint)r.Bits(32, {msb}, {nm}))")
            }
            BitNumber::Float { .. } => {
                format!("BitConverter.Int64BitsToDouble((long)r.Bits(64, {msb}, {nm}))")
            }
            BitNumber::Leb128 => format!("r.Leb128({msb}, {nm})"),
            BitNumber::ZigZag => format!("WireReader.UnZigZag(r.Leb128({msb}, {nm}))"),
            BitNumber::Rabbit { bits, signed } => {
                let t = int_type(&IntTy {
                    bits,
                    signed,
                    endian: Endian::Little,
                });
                let raw = format!("r.Rabbit({bits}, {msb}, {nm})");
                if signed {
                    format!("({t})WireReader.UnZigZag({raw})")
                } else {
                    format!("({t}){raw}")
                }
            }
            BitNumber::RawBits => format!("r.RestBits({msb}, {nm})"),
            BitNumber::Enum(id) => {
                let e = &p.enums[id];
                let v = format!("({}){}", type_name(&e.name), int(&e.repr));
                self.known(e, v, at)
            }
            BitNumber::Flags(id) => {
                let f = &p.flags[id];
                format!("({}){}", type_name(&f.name), int(&f.repr))
            }
        }
    }
}
