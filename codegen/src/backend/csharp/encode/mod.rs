//! `Write`: each field's local (the user's value, a constant, or what the encoder derives: a
//! length, a count, a tag, a presence bit), then each written in order, lengths of encoded
//! values patched once those are written.

mod derived;
mod numbers;
mod sized;

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
        let plan = self.i.l.field(sid, fi);
        let x = local(&f.name);
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
        let present = self.presence(c, f, plan.write.presence);
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
            self.patch_lengths(c, sid, &starts, &x)?;
        }
        if present.is_some() {
            c.close();
        }
        Ok(())
    }

    /// Whether optional field `f` is present, as C# (`x.HasValue`, `x != null`; None: not
    /// optional), checked against its condition when the encoder does not derive it.
    fn presence(
        &self,
        c: &mut Code,
        f: &Field,
        presence: crate::lower::Presence,
    ) -> Option<String> {
        let x = local(&f.name);
        let nm = lit(&f.name);
        match &f.condition {
            None => None,
            Some(cond) => {
                let has = if is_value_type(&f.ty) {
                    format!("{x}.HasValue")
                } else {
                    format!("{x} != null")
                };
                if presence == crate::lower::Presence::Checked {
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
        }
    }

    /// The lengths of struct `sid` written ahead of field `x` (zeros then), patched with its
    /// size now that it is written.
    fn patch_lengths(
        &self,
        c: &mut Code,
        sid: StructId,
        starts: &[usize],
        x: &str,
    ) -> Result<(), Internal> {
        let s = &self.i.p.structs[sid];
        for &li in starts {
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
            element,
        } = at;
        match read {
            ValueRead::Number(_) => Ok(()),
            ValueRead::Text { len, text } => {
                let ahead = (!element).then_some(x.trim_end_matches(".Value"));
                self.text(c, sid, len, text, (x, ahead), name)
            }
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

    /// Text or bytes `x`; `ahead` names the local a field's string was encoded into ahead
    /// (`{ahead}Bytes`, see `write_method`), absent for an element's.
    fn text(
        &self,
        c: &mut Code,
        sid: StructId,
        len: &Len,
        text: Option<Text>,
        (x, ahead): (&str, Option<&str>),
        name: &str,
    ) -> Result<(), Internal> {
        let bits = self.i.p.structs[sid].layout.is_bits();
        let msb = self.msb(sid);
        let nm = lit(name);
        // The bytes: a string's encoded ahead (its local's `Bytes`), or the bytes themselves.
        let b = match (text, ahead) {
            (Some(_), Some(base)) => format!("new ArraySegment<byte>({base}Bytes)"),
            (Some(t), None) => format!("new ArraySegment<byte>({})", text_bytes(&t, x, name)),
            (None, _) => x.to_string(),
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
