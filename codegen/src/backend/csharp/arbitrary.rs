//! Random values of every schema type, in the proof program (not shipped): what the C# encodes
//! for the crate to decode (the other direction of the proof). Values the schema does not allow
//! (a condition that disagrees with a present value, a length other than its expression's) are
//! refused by the encoder and counted, as the crate's arbitrary values are.

use super::cstypes::{variant, CsTypes};
use super::*;

pub(crate) struct ArbitraryValues<'p> {
    pub(crate) i: Input<'p>,
}

impl<'p> ArbitraryValues<'p> {
    fn types(&self) -> CsTypes<'p> {
        CsTypes { i: self.i }
    }

    /// The `Arbitrary` class: a `Make<Type>` per struct and switch.
    pub(crate) fn render(&self, c: &mut Code) -> Result<(), Internal> {
        let p = self.i.p;
        c.line("sealed class Arbitrary : ArbitraryBase");
        c.open();
        c.line("public Arbitrary(int seed) : base(seed) { }");
        for (sid, s) in p.structs.iter().enumerate() {
            c.gap();
            let name = type_name(&s.name);
            let full = format!("global::{}.{name}", namespace(p));
            c.line(&format!("public {full} Make{name}()"));
            c.open();
            c.line("Enter();");
            c.line(&format!("var v = new {full}();"));
            for (fi, f) in s.value_fields() {
                let m = member(&name, &f.name);
                let x = self.value(sid, fi, &f.ty)?;
                if f.condition.is_some() {
                    c.line(&format!("if (Chance(2)) v.{m} = {x};"));
                } else {
                    c.line(&format!("v.{m} = {x};"));
                }
            }
            c.line("Leave();");
            c.line("return v;");
            c.close();
            for (fi, f) in s.fields.iter().enumerate() {
                if let Ty::Union(u) = &f.ty {
                    if u.shares.is_none() {
                        c.gap();
                        self.switch(c, sid, fi, u)?;
                    }
                }
            }
        }
        c.close();
        Ok(())
    }

    fn switch(&self, c: &mut Code, sid: StructId, fi: usize, u: &Union) -> Result<(), Internal> {
        let p = self.i.p;
        let name = type_name(&p.union_name(sid, fi));
        let full = format!("global::{}.{name}", namespace(p));
        let tag = self.types().tag_field(sid, fi);
        c.line(&format!("public {full} Make{name}()"));
        c.open();
        let n = u.cases.len() + usize::from(u.default.is_some());
        c.line(&format!("switch (Below({n}))"));
        c.open();
        for (k, case) in u.cases.iter().enumerate() {
            c.line(&format!("case {k}:"));
            c.open();
            c.line(&format!("var v = new {full}.{}();", variant(&case.variant)));
            if let (Some((ti, tf)), None) = (tag, case.single()) {
                let t = self.types().ty(sid, ti, &tf.ty)?;
                let pick: Vec<String> = case
                    .values
                    .iter()
                    .map(|v| match v {
                        CaseValue::One(x) => format!("{x}L"),
                        CaseValue::Range(lo, hi) => format!("Between({lo}L, {hi}L)"),
                    })
                    .collect();
                let value = format!("Pick(new long[] {{ {} }})", pick.join(", "));
                let value = match tf.ty {
                    Ty::Bool => format!("{value} != 0"),
                    _ => format!("({t}){value}"),
                };
                c.line(&format!("v.{} = {value};", member("", &tf.name)));
            }
            self.body(c, case.body)?;
            c.line("return v;");
            c.close();
        }
        c.line("default:");
        c.open();
        match u.default {
            Some(body) => {
                c.line(&format!(
                    "var v = new {full}.{}();",
                    variant(&u.default_variant)
                ));
                if let Some((ti, tf)) = tag {
                    let t = self.types().ty(sid, ti, &tf.ty)?;
                    let bits = p.packed_width(&tf.ty).clamp(1, 63);
                    let value = match tf.ty {
                        Ty::Bool => "Chance(2)".to_string(),
                        _ => format!("({t})Bits({bits})"),
                    };
                    c.line(&format!("v.{} = {value};", member("", &tf.name)));
                }
                self.body(c, body)?;
                c.line("return v;");
            }
            None => c.line("throw new System.InvalidOperationException();"),
        }
        c.close();
        c.close();
        c.close();
        Ok(())
    }

    fn body(&self, c: &mut Code, body: CaseBody) -> Result<(), Internal> {
        let p = self.i.p;
        match body {
            CaseBody::Struct(id) => c.line(&format!(
                "v.Value = Make{}();",
                type_name(&p.structs[id].name)
            )),
            CaseBody::Array(id) => {
                let t = format!(
                    "global::{}.{}",
                    namespace(p),
                    type_name(&p.structs[id].name)
                );
                c.line(&format!("v.Value = new List<{t}>();"));
                c.line(&format!(
                    "for (int k = Small(3); k > 0; k--) v.Value.Add(Make{}());",
                    type_name(&p.structs[id].name)
                ));
            }
            CaseBody::Bytes => c.line("v.Value = SomeBytes(Small(12));"),
            CaseBody::Empty => {}
        }
        Ok(())
    }

    /// A C# expression making a random value of `ty`.
    fn value(&self, sid: StructId, fi: usize, ty: &Ty) -> Result<String, Internal> {
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        let t = self.types().ty(sid, fi, ty)?;
        Ok(match ty {
            Ty::Int(it) => {
                let raw = match (&f.valid, f.max) {
                    (Some(Valid::Range { min, max }), _) => format!(
                        "Between({}L, {}L)",
                        min.unwrap_or(if it.signed {
                            -(1i64 << (it.bits.min(63) - 1))
                        } else {
                            0
                        }),
                        max.unwrap_or(it.max_value().min(i64::MAX as u64) as i64)
                    ),
                    (Some(Valid::List(l)), _) => {
                        let l: Vec<String> = l.iter().map(|v| format!("{v}L")).collect();
                        format!("Pick(new long[] {{ {} }})", l.join(", "))
                    }
                    (None, Some(m)) => format!("Between(0L, {}L)", m.min(i64::MAX as u64)),
                    (None, None) if it.signed => format!("SBits({})", it.bits),
                    (None, None) => format!("Bits({})", it.bits),
                };
                format!("({t}){raw}")
            }
            Ty::Bool => "Chance(2)".into(),
            Ty::Float { bits: 16, .. } => "(float)(Between(-4096L, 4096L) / 8.0)".into(),
            Ty::Float { bits: 32, .. } => "(float)(Between(-1000000L, 1000000L) / 16.0)".into(),
            Ty::Float { .. } => "Between(-1000000000L, 1000000000L) / 1024.0".into(),
            Ty::VarInt(VarInt::Leb128) => "Bits(Below(65))".into(),
            Ty::VarInt(VarInt::ZigZag) => "SBits(Below(64) + 1)".into(),
            Ty::VarInt(VarInt::RiptideLen) => "(ushort)Bits(15)".into(),
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => {
                if *signed {
                    format!("({t})SBits({bits})")
                } else {
                    format!("({t})Bits({bits})")
                }
            }
            Ty::Enum(id) => {
                let e = &p.enums[*id];
                let names: Vec<String> = e
                    .values
                    .iter()
                    .map(|v| format!("{t}.{}", variant(&v.name)))
                    .collect();
                let named = format!("Pick(new {t}[] {{ {} }})", names.join(", "));
                // Values of named ranges too, half the time.
                let named = if e.ranges.is_empty() {
                    named
                } else {
                    let ranges: Vec<String> = e
                        .ranges
                        .iter()
                        .map(|r| format!("Between({}L, {}L)", r.lo, r.hi))
                        .collect();
                    format!(
                        "(Chance(2) ? ({t})Pick(new long[] {{ {} }}) : {named})",
                        ranges.join(", ")
                    )
                };
                if e.closed || e.values.is_empty() {
                    if e.values.is_empty() {
                        format!("({t})Bits({})", e.repr.bits)
                    } else {
                        named
                    }
                } else {
                    format!("Chance(8) ? ({t})Bits({}) : {named}", e.repr.bits)
                }
            }
            Ty::Flags(id) => {
                let mask = p.flags[*id].bits.iter().fold(0u64, |m, b| m | b.value);
                format!("({t})(Bits(64) & 0x{mask:X}UL)")
            }
            Ty::Bytes(len) => format!("SomeBytes({})", self.len(len, 12)),
            Ty::Str(len, text) => {
                let kind = match text.encoding {
                    Encoding::Ascii => 0,
                    Encoding::Latin1 => 1,
                    Encoding::Utf8 | Encoding::Utf16 { .. } => 2,
                };
                match (text.nul, len) {
                    // Exactly the bytes its length says: ASCII characters.
                    (Nul::No, Len::Expr(Expr::Int(n, _))) => {
                        let per = if matches!(text.encoding, Encoding::Utf16 { .. }) {
                            2
                        } else {
                            1
                        };
                        format!("SomeText({}, 0)", n / per)
                    }
                    (Nul::Padded, Len::Expr(Expr::Int(n, _))) => format!("SomeText(Small({n}), 0)"),
                    _ => format!("SomeText(Small(10), {kind})"),
                }
            }
            Ty::Bits => "SomeBits()".into(),
            Ty::Struct(id, _) => format!("Make{}()", type_name(&p.structs[*id].name)),
            Ty::Array(e, len) => {
                let x = self.value(sid, fi, e)?;
                // A constant size in bytes of fixed-size elements: the count that fills it.
                let n = match (len, p.fixed_size(e)) {
                    (Len::Bytes(Expr::Int(n, _)), Some(k)) if k > 0 => {
                        (*n as usize / k).to_string()
                    }
                    _ => self.len(len, 4),
                };
                format!("Many({n}, () => {x})")
            }
            Ty::Union(_) => format!("Make{}()", type_name(&p.union_name(sid, fi))),
        })
    }

    /// A random length or count: the constant a length expression gives, else a small one.
    fn len(&self, len: &Len, most: u64) -> String {
        match len {
            Len::Expr(Expr::Int(n, _)) => format!("{n}"),
            Len::Prefix(it) => format!("Small({})", it.max_value().min(most)),
            _ => format!("Small({most})"),
        }
    }
}
