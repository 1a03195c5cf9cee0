//! `Write`: each field's local (the user's value, a constant, or what the encoder derives: a
//! length, a count, a tag, a presence bit), then each written in order, lengths of encoded
//! values patched once those are written.

use super::cstypes::CsTypes;
use super::expr::Exprs;
use super::*;
use crate::lower::{
    bit_read, byte_read, Access, BitNumber, ByteNumber, LenRead, SizeWrite, ValueRead,
};

/// Where a value is written: its struct, its field, its name in errors, and whether it is an
/// element of the field's array.
#[derive(Clone, Copy)]
struct Put<'a> {
    sid: StructId,
    fi: usize,
    name: &'a str,
    element: bool,
}

pub(crate) struct Encoder<'p> {
    i: Input<'p>,
}

impl<'p> Encoder<'p> {
    pub(crate) fn new(i: Input<'p>) -> Self {
        Encoder { i }
    }

    fn types(&self) -> CsTypes<'p> {
        CsTypes { i: self.i }
    }

    fn exprs(&self) -> Exprs<'p, 'static> {
        Exprs {
            i: self.i,
            field: "",
            coder: "w",
        }
    }

    fn msb(&self, sid: StructId) -> &'static str {
        if self.i.p.structs[sid].layout == Layout::MsbBits {
            "true"
        } else {
            "false"
        }
    }

    pub(crate) fn write_method(&self, c: &mut Code, sid: StructId) -> Result<(), Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        let name = type_name(&s.name);
        c.line("/// <summary>Writes the value where the writer is.</summary>");
        c.line("public void Write(WireWriter w)");
        c.open();
        // The user's values first: derived fields before them read them.
        for (_, f) in s.value_fields() {
            c.line(&format!(
                "var {} = {};",
                local(&f.name),
                member(&name, &f.name)
            ));
            if let Ty::Str(_, text) = &f.ty {
                let x = local(&f.name);
                let b = format!("{x}Bytes");
                let conv = text_bytes(text, &x, &f.name);
                if f.condition.is_some() {
                    c.line(&format!("byte[] {b} = {x} == null ? null : {conv};"));
                } else {
                    c.line(&format!("byte[] {b} = {conv};"));
                }
            }
        }
        // Lengths written before what they measure, patched after it: (length field, target).
        let sums = checksums(s);
        if keeps_start(s) || s.padding.pad.is_some() {
            c.line("int start = w.Position;");
        }
        for (fi, f) in s.fields.iter().enumerate() {
            let (from, to) = range_ends(s, fi);
            let x = local(&f.name);
            if let Some(n) = f.padding.align {
                c.line(&format!("w.Align(start, {n});"));
            }
            if from {
                c.line(&format!("int {x}From = w.Position;"));
            }
            if f.padding.pad.is_some() {
                c.line(&format!("int {x}Padded = w.Position;"));
            }
            self.write_field(c, sid, fi, f)?;
            if self.i.l.field(sid, fi).enclosing_slot.is_some() {
                let v = if f.condition.is_some() && is_value_type(&f.ty) {
                    format!("{x}.GetValueOrDefault()")
                } else {
                    x.clone()
                };
                super::decode::Decoder::new(self.i).keep_enclosing(c, sid, fi, &v, "w");
            }
            if let Some(n) = f.padding.pad {
                c.line(&format!("w.Pad({x}Padded, {n}, {});", lit(&f.name)));
            }
            if to {
                c.line(&format!("int {x}To = w.Position;"));
            }
        }
        if let Some(n) = s.padding.pad {
            c.line(&format!("w.Pad(start, {n}, \"padding\");"));
        }
        if let Some(n) = s.padding.align {
            c.line(&format!("w.Align(start, {n});"));
        }
        // Checksums last, in the order one covering another's bytes needs.
        for &ci in &self.i.l.structs[sid].checksum_order {
            let Some((_, sum)) = sums.iter().find(|(fi, _)| *fi == ci) else {
                continue;
            };
            let f = &s.fields[ci];
            let x = local(&f.name);
            let Some(it) = self.i.l.field(sid, ci).checksum_int else {
                return Err(Internal(format!("checksum '{}' is not an integer", f.name)));
            };
            let from = sum.from.map_or("start".to_string(), |k| {
                format!("{}From", local(&s.fields[k].name))
            });
            let to = sum.to.map_or("w.Position".to_string(), |k| {
                format!("{}To", local(&s.fields[k].name))
            });
            c.line(&format!(
                "w.Patch({x}Pos, w.Checksum({}, {from}, {to}, {x}Pos, {}), {}, {});",
                checksum_static(&f.name),
                it.bytes(),
                it.bytes(),
                it.endian == Endian::Big
            ));
        }
        c.close();
        Ok(())
    }

    fn write_field(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        f: &Field,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        let plan = self.i.l.field(sid, fi);
        let x = local(&f.name);
        let nm = lit(&f.name);
        let t = self.types().ty(sid, fi, &f.ty)?;
        match &f.role {
            Role::Value => self.implied(c, sid, f, &t)?,
            Role::Const(_) => {
                let k = f.const_literal().unwrap_or_default();
                c.line(&format!("{t} {x} = ({t}){k};"));
            }
            Role::Reserved => match &f.ty {
                Ty::Bytes(_) => {}
                _ => c.line(&format!("{t} {x} = 0;")),
            },
            Role::Derived(d) => {
                // A length patched in later has no value yet (as in the crate, only its target's
                // length reads it, which the encoder does not evaluate).
                if plan.write.size != Some(SizeWrite::Patched) {
                    let v = self.derived(sid, fi, *d)?;
                    c.line(&format!("{t} {x} = {v};"));
                }
            }
            Role::Checksum(_) => {
                let Some(it) = plan.checksum_int else {
                    return Err(Internal(format!("checksum '{}' is not an integer", f.name)));
                };
                // Zeros now, the checksum once the bytes it covers are written.
                c.line(&format!("int {x}Pos = w.Position;"));
                c.line(&format!("w.Zeros({});", it.bytes()));
                return Ok(());
            }
        }
        // Presence.
        let present = match &f.condition {
            None => None,
            Some(cond) => {
                let has = if is_value_type(&f.ty) {
                    format!("{x}.HasValue")
                } else {
                    format!("{x} != null")
                };
                if plan.write.presence == crate::lower::Presence::Checked {
                    let cond = self.exprs().expr(cond);
                    c.line(&format!("if (({cond}) != ({has}))"));
                    c.open();
                    c.line(&format!(
                        "throw new EncodeException({nm}, \"present exactly when its condition holds\");"
                    ));
                    c.close();
                }
                Some(has)
            }
        };
        if let Some(has) = &present {
            c.line(&format!("if ({has})"));
            c.open();
        }
        let value = if present.is_some() && is_value_type(&f.ty) {
            format!("{x}.Value")
        } else {
            x.clone()
        };
        // A length patched after its target: zeros now.
        if plan.write.size == Some(SizeWrite::Patched) {
            if let (Ty::Int(it), Role::Derived(Derive::LengthOf(..))) = (&f.ty, &f.role) {
                c.line(&format!("int {x}Pos = w.Position;"));
                c.line(&format!("w.Zeros({});", it.bytes()));
            } else {
                return Err(Internal("a patched length that is not an integer".into()));
            }
        } else if f.role == Role::Reserved && matches!(f.ty, Ty::Bytes(_)) {
            let Ty::Bytes(Len::Expr(e)) = &f.ty else {
                return Err(Internal("reserved bytes without a constant length".into()));
            };
            c.line(&format!("w.Zeros((int){});", self.exprs().expr(e)));
        } else {
            if plan.write.len_check {
                self.len_check(c, sid, fi, f, &value)?;
            }
            self.value_checks(c, f, &value);
            let starts: Vec<usize> = plan.write.patches.clone();
            if !starts.is_empty() {
                c.line(&format!("int {x}Start = w.Position;"));
            }
            self.write_value(
                c,
                Put {
                    sid,
                    fi,
                    name: &f.name,
                    element: false,
                },
                &f.ty,
                &value,
            )?;
            for li in starts {
                let lf = &s.fields[li];
                let Ty::Int(it) = &lf.ty else {
                    return Err(Internal("a patched length that is not an integer".into()));
                };
                let Role::Derived(Derive::LengthOf(_, lin)) = lf.role else {
                    return Err(Internal("a patch of no length".into()));
                };
                let lx = local(&lf.name);
                let v = solve(
                    &format!("(long)(w.Position - {x}Start)"),
                    lin,
                    &lit(&lf.name),
                );
                c.line(&format!(
                    "w.Patch({lx}Pos, (ulong)WireFit.Count({v}, {}UL, {}), {}, {});",
                    it.max_value(),
                    lit(&lf.name),
                    it.bytes(),
                    it.endian == Endian::Big
                ));
            }
        }
        if present.is_some() {
            c.close();
        }
        Ok(())
    }

    /// The value of derived field `f`: a length, a count, a tag, a presence bit.
    fn derived(&self, sid: StructId, fi: usize, d: Derive) -> Result<String, Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        let f = &s.fields[fi];
        let nm = lit(&f.name);
        let t = self.types().ty(sid, 0, &f.ty)?;
        let has = |o: &Field| {
            let ox = local(&o.name);
            if is_value_type(&o.ty) {
                format!("{ox}.HasValue")
            } else {
                format!("{ox} != null")
            }
        };
        let v = match d {
            // An array sized in bytes in a bit stream: its count times each element's bytes.
            Derive::LengthOf(ti, lin) => match self.i.l.field(sid, fi).write.size {
                Some(SizeWrite::WholeElements(n)) => {
                    let count = self.size_of(&s.fields[ti], ti, sid)?;
                    solve(&format!("({count} * {n}L)"), lin, &nm)
                }
                _ => solve(&self.size_of(&s.fields[ti], ti, sid)?, lin, &nm),
            },
            Derive::CountOf(ti, lin) => {
                let tx = local(&s.fields[ti].name);
                let count = if s.fields[ti].condition.is_some() {
                    format!("({tx} == null ? 0L : (long){tx}.Count)")
                } else {
                    format!("(long){tx}.Count")
                };
                solve(&count, lin, &nm)
            }
            Derive::TagOf(ui) if matches!(f.ty, Ty::Bool) => {
                format!("{}.WireTag != 0", local(&s.fields[ui].name))
            }
            Derive::TagOf(ui) => format!("{}.WireTag", local(&s.fields[ui].name)),
            Derive::PresenceOf(oi) | Derive::AbsenceOf(oi) => {
                let present = has(&s.fields[oi]);
                let holds = match d {
                    Derive::PresenceOf(_) => present,
                    _ => format!("!({present})"),
                };
                if matches!(f.ty, Ty::Bool) {
                    holds
                } else {
                    format!("({holds} ? 1L : 0L)")
                }
            }
        };
        Ok(match f.ty {
            Ty::Bool => v,
            _ => format!("({t})WireFit.Count({v}, {}UL, {nm})", max_of(p, &f.ty)),
        })
    }

    /// What the encoder forces on a field the user sets, applied to its local in order: a flag
    /// bit set exactly when a condition holds, a value when one holds, a tag solved from the
    /// variant written.
    fn implied(&self, c: &mut Code, sid: StructId, f: &Field, t: &str) -> Result<(), Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        let x = local(&f.name);
        let has = |i: usize| {
            let o = &s.fields[i];
            if is_value_type(&o.ty) {
                format!("{}.HasValue", local(&o.name))
            } else {
                format!("{} != null", local(&o.name))
            }
        };
        for imp in &f.implied {
            let when = match &imp.when {
                ImpliedWhen::Present(i) => has(*i),
                ImpliedWhen::Absent(i) => format!("!({})", has(*i)),
                ImpliedWhen::Holds(e, _) => self.exprs().expr(e),
                ImpliedWhen::Variant { field, case, .. } => {
                    let class = type_name(&p.union_name(sid, *field));
                    let Ty::Union(u) = &s.fields[*field].ty else {
                        return Err(Internal("a variant of no switch".into()));
                    };
                    let v = super::cstypes::variant(&u.cases[*case].variant);
                    format!("{} is {class}.{v}", local(&s.fields[*field].name))
                }
            };
            match imp.value {
                ImpliedValue::Bit(mask) => c.line(&format!(
                    "{x} = ({t})({when} ? ((ulong){x} | 0x{mask:X}UL) : ((ulong){x} & ~0x{mask:X}UL));"
                )),
                ImpliedValue::Equals(v) if matches!(f.ty, Ty::Bool) => {
                    c.line(&format!("if ({when}) {x} = {};", v != 0))
                }
                ImpliedValue::Equals(v) => c.line(&format!("if ({when}) {x} = ({t}){v};")),
                ImpliedValue::Solved => {
                    let ImpliedWhen::Variant { value, .. } = &imp.when else {
                        return Err(Internal("a solved value of no variant".into()));
                    };
                    let v = self.exprs().expr(value);
                    c.line(&format!(
                        "if ({when}) {x} = ({t})WireFit.Count({v}, {}UL, {});",
                        max_of(p, &f.ty),
                        lit(&f.name)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The size (bytes or elements, as a `long`) of field `ti`'s value, known before it is
    /// written.
    fn size_of(&self, target: &Field, ti: usize, sid: StructId) -> Result<String, Internal> {
        let tx = local(&target.name);
        let v = match &target.ty {
            Ty::Str(..) => format!("(long){tx}Bytes.Length"),
            Ty::Bytes(_) | Ty::Array(..) => {
                if target.condition.is_some() && is_value_type(&target.ty) {
                    format!("(long){tx}.Value.Count")
                } else {
                    format!("(long){tx}.Count")
                }
            }
            _ => {
                return Err(Internal(format!(
                    "the size of '{}' of struct {sid}, field {ti}",
                    target.name
                )))
            }
        };
        Ok(if target.condition.is_some() {
            let has = if is_value_type(&target.ty) {
                format!("{tx}.HasValue")
            } else {
                format!("{tx} != null")
            };
            format!("({has} ? {v} : 0L)")
        } else {
            v
        })
    }

    /// A value outside `max` or `valid` (the user's, or one the encoder derives: a variant's
    /// tag) is refused, as the decoder refuses it.
    fn value_checks(&self, c: &mut Code, f: &Field, x: &str) {
        if !matches!(f.role, Role::Value | Role::Derived(_)) {
            return;
        }
        let nm = lit(&f.name);
        if let Some(m) = f.max {
            c.line(&format!("if ((ulong){x} > {m}UL)"));
            c.open();
            c.line(&format!(
                "throw new EncodeException({nm}, {x} + \" is over the largest allowed, {m}\");"
            ));
            c.close();
        }
        if let Some(v) = &f.valid {
            c.line(&format!(
                "if ({})",
                super::decode::invalid_test(v, &format!("(long){x}"))
            ));
            c.open();
            c.line(&format!(
                "throw new EncodeException({nm}, {x} + \" is not a valid value\");"
            ));
            c.close();
        }
    }

    /// A value whose length an expression gives (nothing derives) must have that length.
    fn len_check(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        f: &Field,
        x: &str,
    ) -> Result<(), Internal> {
        let _ = (sid, fi);
        let e = match &f.ty {
            Ty::Bytes(Len::Expr(e)) | Ty::Str(Len::Expr(e), _) | Ty::Array(_, Len::Expr(e)) => e,
            _ => return Ok(()),
        };
        let n = match &f.ty {
            Ty::Str(..) => format!("{}Bytes.Length", local(&f.name)),
            _ => format!("{x}.Count"),
        };
        c.line(&format!("if ({n} != {})", self.exprs().expr(e)));
        c.open();
        c.line(&format!(
            "throw new EncodeException({}, \"its length is not what its length expression says\");",
            lit(&f.name)
        ));
        c.close();
        Ok(())
    }

    /// Statements writing `x`, a value of `ty` of field `fi`.
    fn write_value(&self, c: &mut Code, at: Put, ty: &Ty, x: &str) -> Result<(), Internal> {
        let Put { sid, name, .. } = at;
        if let Access::Group {
            group,
            shift,
            width,
        } = self.i.l.field(sid, at.fi).access
        {
            self.group_put(c, at, ty, x, (group, shift, width));
            return Ok(());
        }
        if self.i.p.structs[sid].layout.is_bits() {
            match bit_read(ty)? {
                ValueRead::Number(n) => {
                    c.line(&self.bit_number(sid, n, x, name));
                    Ok(())
                }
                r => self.compound(c, at, r, x),
            }
        } else {
            match byte_read(ty)? {
                ValueRead::Number(n) => {
                    c.line(&self.byte_number(n, x, name));
                    Ok(())
                }
                r => self.compound(c, at, r, x),
            }
        }
    }

    /// Text, nested values, arrays and switches (numbers are written by the caller).
    fn compound<N>(
        &self,
        c: &mut Code,
        at: Put,
        read: ValueRead<'_, N>,
        x: &str,
    ) -> Result<(), Internal> {
        let Put {
            sid,
            fi,
            name,
            element: _,
        } = at;
        match read {
            ValueRead::Number(_) => Ok(()),
            ValueRead::Text { len, text } => self.text(c, sid, len, text, x, name),
            ValueRead::Nested { id, len } => {
                self.sized(c, at, len, |c| self.nested(c, sid, id, len, x, name))
            }
            ValueRead::Array { .. } if self.i.p.structs[sid].fields[fi].packed => {
                let ValueRead::Array { len, .. } = read else {
                    return Ok(());
                };
                self.prefix(c, sid, len, &format!("{x}.Count"), name)?;
                c.line(&format!("w.PackedBools({x});"));
                Ok(())
            }
            ValueRead::Array { elem, len } => {
                self.prefix(c, sid, len, &format!("{x}.Count"), name)?;
                // An array sized in bytes takes that many (a count is checked before).
                let bytes = matches!(len, Len::Bytes(_)).then_some(len);
                self.sized(c, at, bytes, |c| {
                    let item = format!("item{}", x.len());
                    c.line(&format!("foreach (var {item} in {x})"));
                    c.open();
                    self.write_value(
                        c,
                        Put {
                            element: true,
                            ..at
                        },
                        elem,
                        &item,
                    )?;
                    c.close();
                    Ok(())
                })
            }
            ValueRead::Switch(u) => {
                self.variant_check(c, sid, fi, u, x, name);
                self.sized(c, at, Some(&u.len), |c| {
                    self.prefixed(c, &u.len, name, &format!("{x}.Write(w);"))
                })?;
                Ok(())
            }
        }
    }

    /// A switch whose tag the user sets: the variant must be the one its tag selects.
    fn variant_check(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        u: &Union,
        x: &str,
        name: &str,
    ) {
        let p = self.i.p;
        let class = type_name(&p.union_name(sid, fi));
        let nm = lit(name);
        // The tag: the variant's own where the encoder derives it, else the user's fields'
        // (none when the position gives it: known only to the decoder).
        let on = if self.types().tag_field(sid, fi).is_some() {
            format!("{x}.WireTag")
        } else if u.on.reads_position() || u.on.reads_state() {
            return;
        } else if self.exprs().is_bool(&u.on) {
            format!("({} ? 1L : 0L)", self.exprs().expr(&u.on))
        } else {
            self.exprs().expr(&u.on)
        };
        if u.unless.as_ref().is_some_and(Expr::reads_position) {
            return;
        }
        let wrong = format!(
            "throw new EncodeException({nm}, \"the variant is not the case of its tag, \" + {on});"
        );
        match (&u.unless, u.default) {
            (Some(unless), Some(_)) => {
                let other = format!("{class}.{}", super::cstypes::variant(&u.default_variant));
                c.line(&format!(
                    "if (({}) ? !({x} is {other}) : !{x}.Accepts({on}))",
                    self.exprs().expr(unless)
                ));
            }
            _ => c.line(&format!("if (!{x}.Accepts({on}))")),
        }
        c.open();
        c.line(&wrong);
        c.close();
    }

    /// A field's bits into its group's integer (started at its first field, written after its
    /// last).
    fn group_put(
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

    fn within(&self, c: &mut Code, name: &str, stmt: &str) {
        c.line("try");
        c.open();
        c.line(stmt);
        c.close();
        c.line(&format!(
            "catch (EncodeException e) {{ throw e.Within({}); }}",
            lit(name)
        ));
    }

    /// A length or count prefix of `n` (a C# `int`), when `len` is one.
    fn prefix(
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

    fn text(
        &self,
        c: &mut Code,
        sid: StructId,
        len: &Len,
        text: Option<Text>,
        x: &str,
        name: &str,
    ) -> Result<(), Internal> {
        let bits = self.i.p.structs[sid].layout.is_bits();
        let msb = self.msb(sid);
        let nm = lit(name);
        // The bytes: a string's encoded ahead (its local's `Bytes`), or the bytes themselves.
        let b = match text {
            Some(_) if x.ends_with(".Value") || !x.starts_with("item") => {
                let base = x.trim_end_matches(".Value");
                format!("new ArraySegment<byte>({base}Bytes)")
            }
            Some(t) => format!("new ArraySegment<byte>({})", text_bytes(&t, x, name)),
            None => x.to_string(),
        };
        let wide = matches!(
            text,
            Some(Text {
                encoding: Encoding::Utf16 { .. },
                ..
            })
        );
        let zeros = if wide { 2 } else { 1 };
        match text.map(|t| t.nul) {
            Some(Nul::Terminated) => {
                c.line(&format!("w.Put({b});"));
                c.line(&format!("w.Zeros({zeros});"));
            }
            Some(Nul::Padded) => {
                let Len::Expr(e) = len else {
                    return Err(Internal("a padded string without a constant length".into()));
                };
                let n = self.exprs().expr(e);
                let seg = format!("{}Seg", x.trim_end_matches(".Value"));
                c.line(&format!("var {seg} = {b};"));
                c.line(&format!("if ({seg}.Count > {n})"));
                c.open();
                c.line(&format!(
                    "throw new EncodeException({nm}, \"longer than its {n} bytes\");"
                ));
                c.close();
                c.line(&format!("w.Put({seg});"));
                c.line(&format!("w.Zeros((int)({n} - {seg}.Count));"));
            }
            _ => {
                let seg = format!("{}Seg", x.trim_end_matches(".Value").replace('.', "_"));
                c.line(&format!("var {seg} = {b};"));
                self.prefix(c, sid, len, &format!("{seg}.Count"), name)?;
                if bits {
                    c.line(&format!("w.PutBits({seg}, {msb});"));
                } else {
                    c.line(&format!("w.Put({seg});"));
                }
            }
        }
        Ok(())
    }

    fn nested(
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
    fn sized(
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
    fn prefixed(&self, c: &mut Code, len: &Len, name: &str, write: &str) -> Result<(), Internal> {
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
                c.line("w = new WireWriter();");
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

    fn byte_number(&self, n: ByteNumber, x: &str, name: &str) -> String {
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

    fn bit_number(&self, sid: StructId, n: BitNumber, x: &str, name: &str) -> String {
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

/// `x` as the bytes its text encoding gives.
fn text_bytes(t: &Text, x: &str, name: &str) -> String {
    let nm = lit(name);
    match t.encoding {
        Encoding::Utf8 => format!("WireText.Utf8Bytes({x}, {nm})"),
        Encoding::Ascii => format!("WireText.AsciiBytes({x}, {nm})"),
        Encoding::Latin1 => format!("WireText.Latin1Bytes({x}, {nm})"),
        Encoding::Utf16 { big } => format!("WireText.Utf16Bytes({x}, {big}, {nm})"),
    }
}

/// The field's value whose linear function (`mul * x + add`) is `size` (refused when there is
/// none: a size that is not a multiple).
fn solve(size: &str, lin: Linear, nm: &str) -> String {
    match (lin.mul, lin.add) {
        (1, 0) => size.to_string(),
        (1, a) => format!("({size} - {a}L)"),
        (m, a) => format!("WireFit.Solve({size}, {m}L, {a}L, {nm})"),
    }
}

/// The largest value a derived field of `ty` holds.
fn max_of(p: &Protocol, ty: &Ty) -> u64 {
    match ty {
        Ty::Int(it) => it.max_value(),
        Ty::Enum(id) => p.enums[*id].repr.max_value(),
        Ty::Flags(id) => p.flags[*id].repr.max_value(),
        Ty::VarInt(VarInt::RiptideLen) => 0x7FFF,
        Ty::VarInt(VarInt::Rabbit { bits, signed }) => IntTy {
            bits: *bits,
            signed: *signed,
            endian: Endian::Little,
        }
        .max_value(),
        _ => i64::MAX as u64,
    }
}
