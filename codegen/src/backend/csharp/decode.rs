//! `Read`: the statements that read each field into a local, dispatching on the lowering's read
//! step, then the value built from the locals the user sees.

use super::cstypes::{case_test, variant, CsTypes};
use super::expr::Exprs;
use super::*;
use crate::lower::{bit_read, byte_read, Access, BitNumber, ByteNumber, LenRead, ValueRead};
use std::cell::Cell;

pub(crate) struct Decoder<'p> {
    i: Input<'p>,
    /// Numbers the temporaries of one method.
    temps: Cell<usize>,
}

/// A switch being read: where, its cases, the local holding its tag, the local it is read into.
#[derive(Clone, Copy)]
struct Switch<'a> {
    at: At<'a>,
    u: &'a Union,
    tag: &'a str,
    target: &'a str,
}

/// Where a value is read: its struct, its field, its name in errors.
#[derive(Clone, Copy)]
struct At<'a> {
    sid: StructId,
    fi: usize,
    nm: &'a str,
}

impl<'p> Decoder<'p> {
    pub(crate) fn new(i: Input<'p>) -> Self {
        Decoder {
            i,
            temps: Cell::new(0),
        }
    }

    fn temp(&self, base: &str) -> String {
        let n = self.temps.get();
        self.temps.set(n + 1);
        format!("{base}{n}")
    }

    fn exprs(&self) -> Exprs<'p, 'static> {
        Exprs {
            i: self.i,
            field: "",
            coder: "r",
        }
    }

    fn types(&self) -> CsTypes<'p> {
        CsTypes { i: self.i }
    }

    fn msb(&self, sid: StructId) -> &'static str {
        if self.i.p.structs[sid].layout == Layout::MsbBits {
            "true"
        } else {
            "false"
        }
    }

    pub(crate) fn read_method(&self, c: &mut Code, sid: StructId) -> Result<(), Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        let name = type_name(&s.name);
        c.line("/// <summary>Reads a value from where the reader is.</summary>");
        c.line(&format!("public static {name} Read(WireReader r)"));
        c.open();
        let sums = checksums(s);
        if keeps_start(s) {
            c.line("int start = r.Position;");
        }
        if let Some(n) = s.padding.pad {
            c.line(&format!("long padded = r.Limit({n}, \"padding\");"));
        }
        for (fi, f) in s.fields.iter().enumerate() {
            let (from, to) = range_ends(s, fi);
            let x = local(&f.name);
            let nm = lit(&f.name);
            if let Some(n) = f.padding.align {
                c.line(&format!("r.Align(start, {n}, {nm});"));
            }
            if from {
                c.line(&format!("int {x}From = r.Position;"));
            }
            if matches!(f.role, Role::Checksum(_)) {
                c.line(&format!("int {x}Pos = r.Position;"));
            }
            if let Some(n) = f.padding.pad {
                c.line(&format!("long {x}Padded = r.Limit({n}, {nm});"));
            }
            self.read_field(c, sid, fi, f)?;
            if f.padding.pad.is_some() {
                c.line(&format!("r.Pad({x}Padded);"));
            }
            if to {
                c.line(&format!("int {x}To = r.Position;"));
            }
        }
        if s.padding.pad.is_some() {
            c.line("r.Pad(padded);");
        }
        if let Some(n) = s.padding.align {
            c.line(&format!("r.Align(start, {n}, \"padding\");"));
        }
        // Checksums once every byte they cover is read, each over its range, its own bytes zeroed.
        for &ci in &self.i.l.structs[sid].checksum_order {
            let Some((_, sum)) = sums.iter().find(|(fi, _)| *fi == ci) else {
                continue;
            };
            let f = &s.fields[ci];
            let x = local(&f.name);
            let from = sum.from.map_or("start".to_string(), |k| {
                format!("{}From", local(&s.fields[k].name))
            });
            let to = sum.to.map_or("r.Position".to_string(), |k| {
                format!("{}To", local(&s.fields[k].name))
            });
            let bytes = sum.algo.width().div_ceil(8);
            c.line(&format!(
                "ulong {x}Computed = r.Checksum({}, {from}, {to}, {x}Pos, {bytes});",
                checksum_static(&f.name)
            ));
            c.line(&format!("if ({x}Computed != (ulong){x})"));
            c.open();
            c.line(&format!(
                "throw r.Error({}, 8L * {x}Pos, \"bad checksum: stored \" + {x} + \", computed \" + {x}Computed);",
                lit(&f.name)
            ));
            c.close();
        }
        let fields: Vec<String> = s
            .value_fields()
            .map(|(_, f)| format!("{} = {}", member(&name, &f.name), local(&f.name)))
            .collect();
        if fields.is_empty() {
            c.line(&format!("return new {name}();"));
        } else {
            c.line(&format!("return new {name}"));
            c.open();
            for f in fields {
                c.line(&format!("{f},"));
            }
            c.close_with(";");
        }
        c.close();
        Ok(())
    }

    fn read_field(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        f: &Field,
    ) -> Result<(), Internal> {
        let at = At {
            sid,
            fi,
            nm: &f.name,
        };
        // A bit group's integer, read once at its first field.
        if let Access::Group { group, .. } = self.i.l.field(sid, fi).access {
            let g = &self.i.p.structs[sid].groups[group];
            if g.fields.start == fi {
                c.line(&format!(
                    "ulong {} = r.UInt({}, {}, {});",
                    group_local(self.i, sid, fi),
                    g.int.bytes(),
                    g.int.endian == Endian::Big,
                    lit(&g.name)
                ));
            }
        }
        let plan = self.i.l.field(sid, fi);
        // A reserved field nothing reads is skipped, not kept (a group's bits: its integer was
        // read whole).
        if f.role == Role::Reserved && !plan.read_by_expressions {
            return self.skip_reserved(c, at, f, plan.access);
        }
        let loc = local(&f.name);
        let t = self.types().ty(sid, fi, &f.ty)?;
        let checks = matches!(f.role, Role::Const(_)) || f.max.is_some() || f.valid.is_some();
        let at_local = format!("{loc}At");
        match &f.condition {
            None => {
                if checks {
                    c.line(&format!("long {at_local} = r.BitPosition;"));
                }
                // A number is declared where it is read; other values are built by statements.
                match self.number(at, &f.ty)?.filter(|_| f.select.is_empty()) {
                    Some(v) => c.line(&format!("{t} {loc} = {v};")),
                    None => {
                        c.line(&format!("{t} {loc};"));
                        self.selected(c, f, |c| self.read_into(c, at, &f.ty, &loc))?;
                    }
                }
                self.checks(c, f, &loc, &at_local);
                self.keep_enclosing(c, sid, fi, &loc, "r");
            }
            Some(cond) => {
                let opt = if is_value_type(&f.ty) {
                    format!("{t}?")
                } else {
                    t.clone()
                };
                c.line(&format!("{opt} {loc} = null;"));
                c.line(&format!("if ({})", self.exprs().expr(cond)));
                c.open();
                let inner = self.temp("read");
                c.line(&format!("{t} {inner};"));
                if checks {
                    c.line(&format!("long {at_local} = r.BitPosition;"));
                }
                self.selected(c, f, |c| self.read_into(c, at, &f.ty, &inner))?;
                self.checks(c, f, &inner, &at_local);
                self.keep_enclosing(c, sid, fi, &inner, "r");
                c.line(&format!("{loc} = {inner};"));
                c.close();
            }
        }
        Ok(())
    }

    /// A field the types inside its holder read (`Holder.field`): its value kept in its slot
    /// by the coder (`r` or `w`).
    pub(crate) fn keep_enclosing(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        x: &str,
        coder: &str,
    ) {
        let Some(slot) = self.i.l.field(sid, fi).enclosing_slot else {
            return;
        };
        let v = match self.i.p.structs[sid].fields[fi].ty {
            Ty::Bool => format!("({x} ? 1UL : 0UL)"),
            Ty::Int(it) if it.signed => format!("(ulong)(long){x}"),
            _ => format!("(ulong){x}"),
        };
        c.line(&format!("{coder}.SetEnclosing({slot}, {v});"));
    }

    /// `read` with the lists of the field's `state` selected by their keys (values typed by
    /// conversation state), the previous selection restored after it.
    fn selected(
        &self,
        c: &mut Code,
        f: &Field,
        read: impl FnOnce(&mut Code) -> Result<(), Internal>,
    ) -> Result<(), Internal> {
        let mut saved = Vec::new();
        for (t, key) in &f.select {
            let s = self.temp("list");
            c.line(&format!(
                "ulong[] {s} = r.Select({t}, (ulong){}, {});",
                self.exprs().expr(key),
                lit(&f.name)
            ));
            saved.push((t, s));
        }
        read(c)?;
        for (t, s) in saved.into_iter().rev() {
            c.line(&format!("r.Restore({t}, {s});"));
        }
        Ok(())
    }

    /// A constant's, `max`'s and `valid`'s checks of the value just read.
    fn checks(&self, c: &mut Code, f: &Field, x: &str, at: &str) {
        let nm = lit(&f.name);
        if let Role::Const(k) = f.role {
            let lit_k = f.const_literal().unwrap_or_else(|| k.to_string());
            c.line(&format!("if ((ulong){x} != {lit_k})"));
            c.open();
            c.line(&format!(
                "throw r.Error({nm}, {at}, \"expected {lit_k}, found \" + {x});"
            ));
            c.close();
        }
        if let Some(m) = f.max {
            c.line(&format!("if ((ulong){x} > {m}UL)"));
            c.open();
            c.line(&format!(
                "throw r.Error({nm}, {at}, {x} + \" is over the largest allowed, {m}\");"
            ));
            c.close();
        }
        if let Some(v) = &f.valid {
            c.line(&format!("if ({})", invalid_test(v, &format!("(long){x}"))));
            c.open();
            c.line(&format!(
                "throw r.Error({nm}, {at}, {x} + \" is not a valid value\");"
            ));
            c.close();
        }
    }

    /// Statements that read a value of `ty` into `target` (declared already).
    /// The expression reading a value of `ty` when it is one number (of a bit group, a bit
    /// stream or bytes), else `None`.
    fn number(&self, at: At, ty: &Ty) -> Result<Option<String>, Internal> {
        if let Access::Group { shift, width, .. } = self.i.l.field(at.sid, at.fi).access {
            return Ok(Some(self.group_bits(at, ty, shift, width)));
        }
        Ok(if self.i.p.structs[at.sid].layout.is_bits() {
            match bit_read(ty)? {
                ValueRead::Number(n) => Some(self.bit_number(at, n)),
                _ => None,
            }
        } else {
            match byte_read(ty)? {
                ValueRead::Number(n) => Some(self.byte_number(at, n)),
                _ => None,
            }
        })
    }

    fn read_into(&self, c: &mut Code, at: At, ty: &Ty, target: &str) -> Result<(), Internal> {
        if let Access::Group { shift, width, .. } = self.i.l.field(at.sid, at.fi).access {
            let v = self.group_bits(at, ty, shift, width);
            c.line(&format!("{target} = {v};"));
            return Ok(());
        }
        let bits = self.i.p.structs[at.sid].layout.is_bits();
        if bits {
            match bit_read(ty)? {
                ValueRead::Number(n) => {
                    let v = self.bit_number(at, n);
                    c.line(&format!("{target} = {v};"));
                    Ok(())
                }
                ValueRead::Text { len, text } => self.text(c, at, len, text, target),
                ValueRead::Nested { id, len } => self.nested(c, at, id, len, target),
                ValueRead::Array { elem, len } => self.array(c, at, elem, len, target),
                ValueRead::Switch(u) => self.switch(c, at, u, target),
            }
        } else {
            match byte_read(ty)? {
                ValueRead::Number(n) => {
                    let v = self.byte_number(at, n);
                    c.line(&format!("{target} = {v};"));
                    Ok(())
                }
                ValueRead::Text { len, text } => self.text(c, at, len, text, target),
                ValueRead::Nested { id, len } => self.nested(c, at, id, len, target),
                ValueRead::Array { elem, len } => self.array(c, at, elem, len, target),
                ValueRead::Switch(u) => self.switch(c, at, u, target),
            }
        }
    }

    fn byte_number(&self, at: At, n: ByteNumber) -> String {
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
    fn skip_reserved(
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
    fn group_bits(&self, at: At, ty: &Ty, shift: u32, width: u32) -> String {
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
    fn known(&self, e: &Enum, v: String, at: At) -> String {
        if e.closed {
            format!("{}Names.Known({v}, r, {})", type_name(&e.name), lit(at.nm))
        } else {
            v
        }
    }

    fn bit_number(&self, at: At, n: BitNumber) -> String {
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

    /// A local holding the length `len` gives (bytes or elements), read or computed now; `None`
    /// for a value that runs to the end of its scope.
    fn length(&self, c: &mut Code, at: At, len: &Len) -> Result<Option<String>, Internal> {
        let nm = lit(at.nm);
        let bits = self.i.p.structs[at.sid].layout.is_bits();
        let msb = self.msb(at.sid);
        let n = self.temp("n");
        let v = match LenRead::of(len)? {
            LenRead::Prefix(it) if bits => {
                format!("r.Length((long)r.Bits({}, {msb}, {nm}), {nm})", it.bits)
            }
            LenRead::Prefix(it) => format!(
                "r.Length((long)r.UInt({}, {}, {nm}), {nm})",
                it.bytes(),
                it.endian == Endian::Big
            ),
            LenRead::Leb128 if bits => format!("r.Length((long)r.Leb128({msb}, {nm}), {nm})"),
            LenRead::Leb128 => format!("r.Length((long)r.Leb128({nm}), {nm})"),
            LenRead::RiptideLen => format!("r.RiptideLen({nm})"),
            LenRead::Expr(e) | LenRead::Bytes(e) => {
                format!("r.Length({}, {nm})", self.exprs().expr(e))
            }
            LenRead::Rest => return Ok(None),
        };
        c.line(&format!("int {n} = {v};"));
        Ok(Some(n))
    }

    fn text(
        &self,
        c: &mut Code,
        at: At,
        len: &Len,
        text: Option<Text>,
        target: &str,
    ) -> Result<(), Internal> {
        let nm = lit(at.nm);
        let bits = self.i.p.structs[at.sid].layout.is_bits();
        let msb = self.msb(at.sid);
        let wide = matches!(
            text,
            Some(Text {
                encoding: Encoding::Utf16 { .. },
                ..
            })
        );
        let n = self.length(c, at, len)?;
        let start = self.temp("at");
        c.line(&format!("long {start} = r.BitPosition;"));
        let seg = match (text.map(|t| t.nul), n) {
            (Some(Nul::Terminated), _) => format!("r.BytesToNul({nm}, {wide})"),
            (Some(Nul::Padded), Some(n)) => format!("r.BytesPadded({n}, {nm}, {wide})"),
            (_, Some(n)) if bits => format!("r.BitBytes({n}, {msb}, {nm})"),
            (_, Some(n)) => format!("r.Bytes({n}, {nm})"),
            (_, None) if bits => format!("r.BitBytes(r.Remaining, {msb}, {nm})"),
            (_, None) => format!("r.Bytes(r.Remaining, {nm})"),
        };
        let v = match text.map(|t| t.encoding) {
            None => seg,
            Some(Encoding::Utf8) => format!("WireText.Utf8({seg}, {start}, {nm})"),
            Some(Encoding::Ascii) => format!("WireText.Ascii({seg}, {start}, {nm})"),
            Some(Encoding::Latin1) => format!("WireText.Latin1({seg})"),
            Some(Encoding::Utf16 { big }) => format!("WireText.Utf16({seg}, {big}, {start}, {nm})"),
        };
        c.line(&format!("{target} = {v};"));
        Ok(())
    }

    /// `assign` (statements reading a nested value), its errors inside field `nm`.
    fn within(
        &self,
        c: &mut Code,
        nm: &str,
        assign: impl FnOnce(&mut Code) -> Result<(), Internal>,
    ) -> Result<(), Internal> {
        // (No field: a switch class's reader, whose caller names the field.)
        if nm.is_empty() {
            return assign(c);
        }
        c.line("try");
        c.open();
        assign(c)?;
        c.close();
        c.line(&format!(
            "catch (DecodeException e) {{ throw e.Within({}); }}",
            lit(nm)
        ));
        Ok(())
    }

    /// Reading a value of struct `id` into `target`, inside a scope of `len` when it has one.
    fn nested(
        &self,
        c: &mut Code,
        at: At,
        id: StructId,
        len: Option<&Len>,
        target: &str,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let t = type_name(&p.structs[id].name);
        let parent_bits = p.structs[at.sid].layout.is_bits();
        let child_bits = p.structs[id].layout.is_bits();
        let n = match len {
            Some(l) if !matches!(l, Len::Natural) => self.length(c, at, l)?,
            _ => None,
        };
        let saved = self.temp("saved");
        if let Some(n) = &n {
            c.line(&format!("long {saved} = r.Limit({n}, {});", lit(at.nm)));
        }
        self.within(c, at.nm, |c| {
            c.line(&format!("{target} = {t}.Read(r);"));
            Ok(())
        })?;
        if child_bits && !parent_bits {
            c.line("r.AlignToByte();");
        }
        if n.is_some() {
            self.unlimit(c, at, &saved);
        }
        Ok(())
    }

    fn unlimit(&self, c: &mut Code, at: At, saved: &str) {
        let nm = lit(at.nm);
        if self.i.p.structs[at.sid].layout.is_bits() {
            c.line(&format!(
                "r.UnlimitBits({saved}, {}, {nm});",
                self.msb(at.sid)
            ));
        } else {
            c.line(&format!("r.Unlimit({saved}, {nm});"));
        }
    }

    /// The test that a scope has more to read (of a bit stream: a whole byte more).
    fn more(&self, sid: StructId) -> &'static str {
        if self.i.p.structs[sid].layout.is_bits() {
            "r.BitsLeft >= 8"
        } else {
            "r.Remaining > 0"
        }
    }

    fn array(
        &self,
        c: &mut Code,
        at: At,
        elem: &Ty,
        len: &Len,
        target: &str,
    ) -> Result<(), Internal> {
        let et = self.types().ty(at.sid, at.fi, elem)?;
        let item = self.temp("item");
        let read_item = |c: &mut Code| -> Result<(), Internal> {
            c.line(&format!("{et} {item};"));
            self.read_into(c, at, elem, &item)?;
            c.line(&format!("{target}.Add({item});"));
            Ok(())
        };
        let empty_check = |c: &mut Code, before: &str| {
            if self.i.l.field(at.sid, at.fi).empty_elements {
                c.line(&format!("if (r.BitPosition == {before})"));
                c.open();
                c.line(&format!(
                    "throw r.Error({}, {before}, \"an element took no bytes\");",
                    lit(at.nm)
                ));
                c.close();
            }
        };
        if self.i.p.structs[at.sid].fields[at.fi].packed {
            let n = self
                .length(c, at, len)?
                .unwrap_or_else(|| "r.Remaining * 8".into());
            c.line(&format!("{target} = r.PackedBools({n}, {});", lit(at.nm)));
            return Ok(());
        }
        match (LenRead::of(len)?, len) {
            (LenRead::Rest, _) => {
                c.line(&format!("{target} = new List<{et}>();"));
                c.line(&format!("while ({})", self.more(at.sid)));
                c.open();
                let before = self.temp("before");
                c.line(&format!("long {before} = r.BitPosition;"));
                read_item(c)?;
                empty_check(c, &before);
                c.close();
            }
            (LenRead::Bytes(_), _) => {
                let n = self.length(c, at, len)?.unwrap_or_default();
                let saved = self.temp("saved");
                c.line(&format!("long {saved} = r.Limit({n}, {});", lit(at.nm)));
                c.line(&format!("{target} = new List<{et}>();"));
                c.line(&format!("while ({})", self.more(at.sid)));
                c.open();
                let before = self.temp("before");
                c.line(&format!("long {before} = r.BitPosition;"));
                read_item(c)?;
                empty_check(c, &before);
                c.close();
                self.unlimit(c, at, &saved);
            }
            _ => {
                let n = self.length(c, at, len)?.unwrap_or_default();
                // No more room reserved than the bytes left could hold.
                c.line(&format!(
                    "{target} = new List<{et}>(Math.Min({n}, r.Remaining));"
                ));
                let i = self.temp("i");
                c.line(&format!("for (int {i} = 0; {i} < {n}; {i}++)"));
                c.open();
                read_item(c)?;
                c.close();
            }
        }
        Ok(())
    }

    fn switch(&self, c: &mut Code, at: At, u: &Union, target: &str) -> Result<(), Internal> {
        let nm = lit(at.nm);
        let n = match &u.len {
            Len::Natural => None,
            l => Some(self.length(c, at, l)?),
        };
        let saved = self.temp("saved");
        if let Some(n) = &n {
            let n = n.clone().unwrap_or_else(|| "r.Remaining".into());
            c.line(&format!("long {saved} = r.Limit({n}, {nm});"));
        }
        let tag = self.temp("tag");
        let exprs = Exprs {
            i: self.i,
            field: at.nm,
            coder: "r",
        };
        let on = exprs.expr(&u.on);
        let on = if exprs.is_bool(&u.on) {
            format!("({on} ? 1L : 0L)")
        } else {
            on
        };
        c.line(&format!("long {tag} = {on};"));
        let sw = Switch {
            at,
            u,
            tag: &tag,
            target,
        };
        // The cases are read by the switch's class (`Read(r, tag)`, shared by every switch that
        // takes its cases); `unless` chooses the default here.
        let class = type_name(&self.i.p.union_name(at.sid, at.fi));
        let read = |c: &mut Code| {
            self.within(c, at.nm, |c| {
                c.line(&format!("{target} = {class}.Read(r, {tag});"));
                Ok(())
            })
        };
        if let Some(unless) = &u.unless {
            c.line(&format!("if ({})", self.exprs().expr(unless)));
            c.open();
            self.default_case(c, sw)?;
            c.close();
            c.line("else");
            c.open();
            read(c)?;
            c.close();
        } else {
            read(c)?;
        }
        if n.is_some() {
            self.unlimit(c, at, &saved);
        }
        Ok(())
    }

    /// The switch class's `Read`: the variant a tag selects, read (its errors' paths start at the
    /// variant: the caller adds the field).
    pub(crate) fn switch_reader(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        u: &Union,
    ) -> Result<(), Internal> {
        let class = type_name(&self.i.p.union_name(sid, fi));
        c.line("/// <summary>Reads the variant <paramref name=\"tag\"/> selects.</summary>");
        c.line(&format!(
            "public static {class} Read(WireReader r, long tag)"
        ));
        c.open();
        c.line(&format!("{class} value;"));
        let sw = Switch {
            at: At { sid, fi, nm: "" },
            u,
            tag: "tag",
            target: "value",
        };
        self.cases(c, sw)?;
        c.line("return value;");
        c.close();
        Ok(())
    }

    /// The cases: a switch statement over single values; a chain of tests when a case is a
    /// range.
    fn cases(&self, c: &mut Code, sw: Switch) -> Result<(), Internal> {
        let Switch { u, tag, .. } = sw;
        let ranges = u
            .cases
            .iter()
            .flat_map(|k| &k.values)
            .any(|v| matches!(v, CaseValue::Range(..)));
        if !ranges {
            c.line(&format!("switch ({tag})"));
            c.open();
        }
        for (ki, k) in u.cases.iter().enumerate() {
            if ranges {
                let kw = if ki == 0 { "if" } else { "else if" };
                c.line(&format!(
                    "{kw} ({})",
                    case_test(&k.values).replace("tag", tag)
                ));
            } else {
                for v in &k.values {
                    if let CaseValue::One(x) = v {
                        c.line(&format!("case {}L:", *x as i64));
                    }
                }
            }
            c.open();
            self.case(c, sw, &k.variant, k.body, k.single().is_none())?;
            if !ranges {
                c.line("break;");
            }
            c.close();
        }
        if ranges {
            c.line(if u.cases.is_empty() { "" } else { "else" });
            c.open();
            self.default_case(c, sw)?;
            c.close();
        } else {
            c.line("default:");
            c.open();
            self.default_case(c, sw)?;
            if u.default.is_some() {
                c.line("break;");
            }
            c.close();
            c.close();
        }
        Ok(())
    }

    /// The variant of the tag no case names: the default's, or an error.
    fn default_case(&self, c: &mut Code, sw: Switch) -> Result<(), Internal> {
        match sw.u.default {
            Some(body) => self.case(c, sw, &sw.u.default_variant, body, true),
            None => {
                c.line(&format!(
                    "throw r.Error({}, r.BitPosition, \"no case for tag \" + {});",
                    lit(sw.at.nm),
                    sw.tag
                ));
                Ok(())
            }
        }
    }

    /// One variant read into the switch's target, with its tag when it carries it.
    fn case(
        &self,
        c: &mut Code,
        sw: Switch,
        name: &str,
        body: CaseBody,
        carries: bool,
    ) -> Result<(), Internal> {
        let Switch {
            at, tag, target, ..
        } = sw;
        let class = type_name(&self.i.p.union_name(at.sid, at.fi));
        let v = self.temp("case");
        c.line(&format!("var {v} = new {class}.{}();", variant(name)));
        if let (true, Some((ti, tf))) = (carries, self.types().tag_field(at.sid, at.fi)) {
            let t = self.types().ty(at.sid, ti, &tf.ty)?;
            let value = match tf.ty {
                Ty::Bool => format!("{tag} != 0"),
                _ => format!("({t}){tag}"),
            };
            c.line(&format!("{v}.{} = {value};", member("", &tf.name)));
        }
        self.case_body(c, at, body, &v)?;
        c.line(&format!("{target} = {v};"));
        Ok(())
    }

    fn case_body(&self, c: &mut Code, at: At, body: CaseBody, v: &str) -> Result<(), Internal> {
        let p = self.i.p;
        let nm = lit(at.nm);
        let bits = p.structs[at.sid].layout.is_bits();
        match body {
            CaseBody::Struct(id) => {
                let t = type_name(&p.structs[id].name);
                self.within(c, at.nm, |c| {
                    c.line(&format!(
                        "{v}.Value = global::{}.{t}.Read(r);",
                        namespace(p)
                    ));
                    Ok(())
                })?;
                if p.structs[id].layout.is_bits() && !bits {
                    c.line("r.AlignToByte();");
                }
            }
            CaseBody::Array(id) => {
                let t = format!(
                    "global::{}.{}",
                    namespace(p),
                    type_name(&p.structs[id].name)
                );
                c.line(&format!("{v}.Value = new List<{t}>();"));
                c.line(&format!("while ({})", self.more(at.sid)));
                c.open();
                self.within(c, at.nm, |c| {
                    c.line(&format!("{v}.Value.Add({t}.Read(r));"));
                    Ok(())
                })?;
                c.close();
            }
            CaseBody::Bytes if bits => c.line(&format!(
                "{v}.Value = r.BitBytes(r.Remaining, {}, {nm});",
                self.msb(at.sid)
            )),
            CaseBody::Bytes => c.line(&format!("{v}.Value = r.Bytes(r.Remaining, {nm});")),
            CaseBody::Empty => {}
        }
        Ok(())
    }
}

/// The test that a value is not among `valid`'s.
pub(crate) fn invalid_test(v: &Valid, x: &str) -> String {
    match v {
        Valid::Range { min, max } => {
            let mut parts = Vec::new();
            if let Some(m) = min {
                parts.push(format!("{x} < {m}L"));
            }
            if let Some(m) = max {
                parts.push(format!("{x} > {m}L"));
            }
            if parts.is_empty() {
                "false".into()
            } else {
                parts.join(" || ")
            }
        }
        Valid::List(l) => {
            let parts: Vec<String> = l.iter().map(|v| format!("{x} != {v}L")).collect();
            parts.join(" && ")
        }
    }
}
