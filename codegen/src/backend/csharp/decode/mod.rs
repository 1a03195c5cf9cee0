//! `Read`: the statements that read each field into a local, dispatching on the lowering's read
//! step, then the value built from the locals the user sees.

mod numbers;
mod switches;

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
            // A negative one in the field's own (signed) type.
            let read = if f.const_negative() {
                x.to_string()
            } else {
                format!("(ulong){x}")
            };
            c.line(&format!("if ({read} != {lit_k})"));
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
