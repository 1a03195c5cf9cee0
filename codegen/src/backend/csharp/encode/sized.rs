//! Values written with a length (prefixes, patches, values measured aside, sizes checked once written).

use super::*;

impl<'p> Encoder<'p> {
    /// A length or count prefix of `n` (a C# `int`), when `len` is one.
    pub(super) fn prefix(
        &self,
        c: &mut Code,
        sid: StructId,
        len: &Len,
        n: &str,
        name: &str,
    ) -> Result<(), Internal> {
        let nm = lit(name);
        let bits = self.i.p.structs[sid].layout.is_bits();
        let msb = self.msb(sid);
        match LenRead::of(len)? {
            LenRead::Prefix(it) if bits => c.line(&format!(
                "w.Bits((ulong)WireFit.Count({n}, {}UL, {nm}), {}, {msb});",
                it.max_value(),
                it.bits
            )),
            LenRead::Prefix(it) => c.line(&format!(
                "w.UInt((ulong)WireFit.Count({n}, {}UL, {nm}), {}, {});",
                it.max_value(),
                it.bytes(),
                it.endian == Endian::Big
            )),
            LenRead::Leb128 if bits => c.line(&format!("w.Leb128((ulong){n}, {msb});")),
            LenRead::Leb128 => c.line(&format!("w.Leb128((ulong){n});")),
            LenRead::RiptideLen => c.line(&format!("w.RiptideLen((ulong){n}, {nm});")),
            LenRead::Expr(_) | LenRead::Bytes(_) | LenRead::Rest => {}
        }
        Ok(())
    }

    pub(super) fn nested(
        &self,
        c: &mut Code,
        sid: StructId,
        id: StructId,
        len: Option<&Len>,
        x: &str,
        name: &str,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let align = p.structs[id].layout.is_bits() && !p.structs[sid].layout.is_bits();
        let write = if align {
            format!("{x}.Write(w); w.AlignToByte();")
        } else {
            format!("{x}.Write(w);")
        };
        match len {
            Some(l) => self.prefixed(c, l, name, &write),
            None => {
                self.within(c, name, &write);
                Ok(())
            }
        }
    }

    /// `write` (statements writing an encoded value), then, when an expression gives its size and
    /// nothing derives it, the check that it took that size.
    pub(super) fn sized(
        &self,
        c: &mut Code,
        at: Put,
        len: Option<&Len>,
        write: impl FnOnce(&mut Code) -> Result<(), Internal>,
    ) -> Result<(), Internal> {
        let size = match len {
            Some(Len::Expr(e) | Len::Bytes(e))
                if !e.reads_position()
                    && (at.element || !self.i.l.field(at.sid, at.fi).write.size_derived) =>
            {
                Some(self.exprs().expr(e))
            }
            _ => None,
        };
        let Some(n) = size else {
            return write(c);
        };
        let start = format!("{}Start", local(at.name));
        c.line(&format!("int {start} = w.Position;"));
        write(c)?;
        c.line(&format!("if (w.Position - {start} != {n})"));
        c.open();
        c.line(&format!(
            "throw new EncodeException({}, \"its size is not what its length says\");",
            lit(at.name)
        ));
        c.close();
        Ok(())
    }

    /// An encoded value (`write`, statements writing it to `w`) after its length prefix, when
    /// `len` is one: a fixed-width one patched after it, a varint one measured by writing the
    /// value aside first.
    pub(super) fn prefixed(
        &self,
        c: &mut Code,
        len: &Len,
        name: &str,
        write: &str,
    ) -> Result<(), Internal> {
        let nm = lit(name);
        let x = local(name);
        match len {
            Len::Prefix(it) => {
                c.line(&format!("int {x}LenAt = w.Position;"));
                c.line(&format!("w.Zeros({});", it.bytes()));
                self.within(c, name, write);
                c.line(&format!(
                    "w.Patch({x}LenAt, (ulong)WireFit.Count(w.Position - {x}LenAt - {}, {}UL, {nm}), {}, {});",
                    it.bytes(),
                    it.max_value(),
                    it.bytes(),
                    it.endian == Endian::Big
                ));
            }
            Len::VarPrefix(v) => {
                c.line(&format!("var {x}Outer = w;"));
                // (The value may read the direction and enclosing fields.)
                c.line("w = w.Nested();");
                self.within(c, name, write);
                c.line(&format!("var {x}Aside = w;"));
                c.line(&format!("w = {x}Outer;"));
                match v {
                    VarInt::RiptideLen => {
                        c.line(&format!("w.RiptideLen((ulong){x}Aside.Length, {nm});"))
                    }
                    _ => c.line(&format!("w.Leb128((ulong){x}Aside.Length);")),
                }
                c.line(&format!("w.Put({x}Aside.Written);"));
            }
            _ => self.within(c, name, write),
        }
        Ok(())
    }
}
