//! The declarations: enums (with their schema names), flag sets, a class per schema type with
//! its decode and encode entry points and JSON text, and a class per switch.

use super::decode::Decoder;
use super::encode::Encoder;
use super::*;

/// Renders every type of a schema.
pub(crate) struct Types<'p> {
    pub(crate) i: Input<'p>,
}

impl<'p> Types<'p> {
    pub(crate) fn render(&self, c: &mut Code) -> Result<(), Internal> {
        let p = self.i.p;
        for e in &p.enums {
            c.gap();
            self.enumeration(c, e);
        }
        for f in &p.flags {
            c.gap();
            self.flag_set(c, f);
        }
        for (sid, s) in p.structs.iter().enumerate() {
            c.gap();
            self.class(c, sid, s)?;
            for (fi, f) in s.fields.iter().enumerate() {
                if let Ty::Union(u) = &f.ty {
                    if u.shares.is_none() {
                        c.gap();
                        self.switch(c, sid, fi, u)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn enumeration(&self, c: &mut Code, e: &Enum) {
        let name = type_name(&e.name);
        doc(c, &e.doc);
        c.line(&format!("public enum {name} : {}", int_type(&e.repr)));
        c.open();
        for v in &e.values {
            doc(c, &v.doc);
            c.line(&format!(
                "{} = {},",
                variant(&v.name),
                literal(v.value, &v.hex)
            ));
        }
        c.close();
        c.gap();
        c.line(&format!("public static class {name}Names"));
        c.open();
        c.line(
            "/// <summary>The schema's name of the value, or null when it names none.</summary>",
        );
        c.line(&format!("public static string WireName(this {name} value)"));
        c.open();
        c.line("switch (value)");
        c.open();
        for v in &e.values {
            c.line(&format!(
                "case {name}.{}: return {};",
                variant(&v.name),
                lit(&v.name)
            ));
        }
        c.line("default: return null;");
        c.close();
        c.close();
        if e.closed {
            c.gap();
            c.line("/// <summary>The value read, refused when the schema names no such value.</summary>");
            c.line(&format!(
                "public static {name} Known({name} value, WireReader r, string field)"
            ));
            c.open();
            c.line("if (value.WireName() == null)");
            c.open();
            c.line("throw r.Error(field, r.BitPosition, \"unknown value \" + (ulong)value);");
            c.close();
            c.line("return value;");
            c.close();
            c.gap();
            c.line("/// <summary>The value to write, refused when the schema names no such value.</summary>");
            c.line(&format!(
                "public static {name} Known({name} value, string field)"
            ));
            c.open();
            c.line("if (value.WireName() == null)");
            c.open();
            c.line("throw new EncodeException(field, \"unknown value \" + (ulong)value);");
            c.close();
            c.line("return value;");
            c.close();
        }
        c.close();
    }

    fn flag_set(&self, c: &mut Code, f: &Flags) {
        let name = type_name(&f.name);
        doc(c, &f.doc);
        c.line("[System.Flags]");
        c.line(&format!("public enum {name} : {}", int_type(&f.repr)));
        c.open();
        c.line("None = 0,");
        for b in &f.bits {
            doc(c, &b.doc);
            c.line(&format!(
                "{} = {},",
                variant(&b.name),
                literal(b.value, &b.hex)
            ));
        }
        c.close();
        c.gap();
        c.line(&format!("public static class {name}Names"));
        c.open();
        let names: Vec<String> = f.bits.iter().map(|b| lit(&b.name)).collect();
        let masks: Vec<String> = f.bits.iter().map(|b| literal(b.value, &b.hex)).collect();
        c.line(&format!(
            "public static readonly string[] Names = {{ {} }};",
            names.join(", ")
        ));
        c.line(&format!(
            "public static readonly ulong[] Masks = {{ {} }};",
            masks.join(", ")
        ));
        c.close();
    }

    fn class(&self, c: &mut Code, sid: StructId, s: &Struct) -> Result<(), Internal> {
        let name = type_name(&s.name);
        doc(c, &s.doc);
        c.line(&format!("public sealed class {name}"));
        c.open();
        for (fi, sum) in checksums(s) {
            c.line(&format!(
                "static readonly IWireChecksum {} = {};",
                checksum_static(&s.fields[fi].name),
                checksum_new(sum.algo)
            ));
        }
        for (fi, f) in s.value_fields() {
            doc(c, &f.doc);
            let t = self.field_type(sid, fi, f)?;
            c.line(&format!("public {t} {};", member(&name, &f.name)));
        }
        c.gap();
        self.entry_points(c, &name, s);
        c.gap();
        Decoder::new(self.i).read_method(c, sid)?;
        c.gap();
        Encoder::new(self.i).write_method(c, sid)?;
        c.gap();
        c.line("/// <summary>The value as JSON, in the shape of the crate's serde and wirecat.</summary>");
        c.line("public void WriteJson(WireJson j)");
        c.open();
        c.line("j.Open();");
        for (fi, f) in s.value_fields() {
            c.line(&format!("j.Key({});", lit(&f.name)));
            let m = member(&name, &f.name);
            if f.condition.is_some() {
                let test = if is_value_type(&f.ty) {
                    format!("{m}.HasValue")
                } else {
                    format!("{m} != null")
                };
                let inner = if is_value_type(&f.ty) {
                    format!("{m}.Value")
                } else {
                    m.clone()
                };
                c.line(&format!("if ({test})"));
                c.open();
                self.json(c, sid, fi, &f.ty, &inner, 0)?;
                c.close();
                c.line("else j.Null();");
            } else {
                self.json(c, sid, fi, &f.ty, &m, 0)?;
            }
        }
        c.line("j.Close();");
        c.close();
        c.gap();
        c.line("public override string ToString()");
        c.open();
        c.line("var j = new WireJson();");
        c.line("WriteJson(j);");
        c.line("return j.ToString();");
        c.close();
        c.close();
        Ok(())
    }

    /// `Decode`, `TryDecode` and `Encode`: a whole message of this type.
    fn entry_points(&self, c: &mut Code, name: &str, s: &Struct) {
        let finish = match s.layout {
            Layout::Bytes => "r.Finish();".to_string(),
            l => format!("r.FinishBits({});", l == Layout::MsbBits),
        };
        c.line(&format!(
            "/// <summary>Decodes a whole message: its bytes must be exactly one {name}.</summary>"
        ));
        c.line(&format!(
            "public static {name} Decode(byte[] buffer, int offset, int count)"
        ));
        c.open();
        c.line("var r = new WireReader(buffer, offset, count);");
        c.line("var value = Read(r);");
        c.line(&finish);
        c.line("return value;");
        c.close();
        c.gap();
        c.line(&format!("public static {name} Decode(byte[] buffer)"));
        c.open();
        c.line("return Decode(buffer, 0, buffer.Length);");
        c.close();
        c.gap();
        c.line("/// <summary>Decodes like <c>Decode</c>; false (and why) when the bytes do not decode.</summary>");
        c.line(&format!("public static bool TryDecode(byte[] buffer, int offset, int count, out {name} value, out DecodeException error)"));
        c.open();
        c.line("try");
        c.open();
        c.line("value = Decode(buffer, offset, count);");
        c.line("error = null;");
        c.line("return true;");
        c.close();
        c.line("catch (DecodeException e)");
        c.open();
        c.line("value = null;");
        c.line("error = e;");
        c.line("return false;");
        c.close();
        c.close();
        c.gap();
        c.line("/// <summary>Encodes the message, filling in every length, count, tag and constant.</summary>");
        c.line("public byte[] Encode()");
        c.open();
        c.line("var w = new WireWriter();");
        c.line("Write(w);");
        c.line("return w.ToArray();");
        c.close();
    }

    /// The C# type of value field `fi`, `?` when it is optional and a value type.
    pub(crate) fn field_type(
        &self,
        sid: StructId,
        fi: usize,
        f: &Field,
    ) -> Result<String, Internal> {
        let t = self.ty(sid, fi, &f.ty)?;
        Ok(if f.condition.is_some() && is_value_type(&f.ty) {
            format!("{t}?")
        } else {
            t
        })
    }

    /// The C# type of a value of `ty` (held by field `fi` of struct `sid`).
    pub(crate) fn ty(&self, sid: StructId, fi: usize, ty: &Ty) -> Result<String, Internal> {
        let p = self.i.p;
        Ok(match ty {
            Ty::Int(it) => int_type(it).into(),
            Ty::Bool => "bool".into(),
            Ty::Float { bits: 64, .. } => "double".into(),
            Ty::Float { .. } => "float".into(),
            Ty::VarInt(VarInt::Leb128) => "ulong".into(),
            Ty::VarInt(VarInt::ZigZag) => "long".into(),
            Ty::VarInt(VarInt::RiptideLen) => "ushort".into(),
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => int_type(&IntTy {
                bits: *bits,
                signed: *signed,
                endian: Endian::Little,
            })
            .into(),
            Ty::Enum(id) => type_name(&p.enums[*id].name),
            Ty::Flags(id) => type_name(&p.flags[*id].name),
            Ty::Bytes(_) => "ArraySegment<byte>".into(),
            Ty::Str(..) => "string".into(),
            Ty::Bits => "BitString".into(),
            Ty::Struct(id, _) => type_name(&p.structs[*id].name),
            Ty::Array(e, _) => format!("List<{}>", self.ty(sid, fi, e)?),
            Ty::Union(_) => type_name(&p.union_name(sid, fi)),
        })
    }

    /// Statements writing `x`, a value of `ty`, as JSON.
    pub(crate) fn json(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        x: &str,
        depth: usize,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        match ty {
            Ty::Int(it) if it.signed => c.line(&format!("j.Num((long){x});")),
            Ty::Int(_) | Ty::VarInt(VarInt::Leb128 | VarInt::RiptideLen) => {
                c.line(&format!("j.Num((ulong){x});"))
            }
            Ty::VarInt(VarInt::ZigZag) => c.line(&format!("j.Num((long){x});")),
            Ty::VarInt(VarInt::Rabbit { signed, .. }) => {
                let t = if *signed { "long" } else { "ulong" };
                c.line(&format!("j.Num(({t}){x});"))
            }
            Ty::Bool => c.line(&format!("j.Bool({x});")),
            Ty::Float { .. } => c.line(&format!("j.Float({x});")),
            Ty::Enum(_) => c.line(&format!("j.Named({x}.WireName(), (ulong){x});")),
            Ty::Flags(id) => {
                let n = type_name(&p.flags[*id].name);
                c.line(&format!(
                    "j.Flags((ulong){x}, {n}Names.Names, {n}Names.Masks);"
                ))
            }
            Ty::Bytes(_) => c.line(&format!("j.Hex({x});")),
            Ty::Str(..) => c.line(&format!("j.Str({x});")),
            Ty::Bits => c.line(&format!("j.Bits({x});")),
            Ty::Struct(..) | Ty::Union(_) => c.line(&format!("{x}.WriteJson(j);")),
            Ty::Array(e, _) => {
                let item = format!("item{depth}");
                c.line("j.OpenList();");
                c.line(&format!("foreach (var {item} in {x})"));
                c.open();
                self.json(c, sid, fi, e, &item, depth + 1)?;
                c.close();
                c.line("j.CloseList();");
            }
        }
        Ok(())
    }

    /// The field a switch's tag is, when the encoder derives it from the variant.
    pub(crate) fn tag_field(&self, sid: StructId, fi: usize) -> Option<(usize, &'p Field)> {
        self.i.p.structs[sid]
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.role == Role::Derived(Derive::TagOf(fi)))
    }

    /// A switch: the abstract class, a sealed case class per variant.
    fn switch(&self, c: &mut Code, sid: StructId, fi: usize, u: &Union) -> Result<(), Internal> {
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        let name = type_name(&p.union_name(sid, fi));
        let tag = self.tag_field(sid, fi);
        let variants: Vec<String> = u.cases.iter().map(|c| variant(&c.variant)).collect();
        // A type named like a case class is named from the namespace inside the switch.
        let payload = |body: CaseBody| -> Option<String> {
            let named = |id: StructId| {
                let t = type_name(&p.structs[id].name);
                if variants.contains(&t) || t == variant(&u.default_variant) || t == name {
                    format!("global::{}.{t}", namespace(p))
                } else {
                    t
                }
            };
            match body {
                CaseBody::Struct(id) => Some(named(id)),
                CaseBody::Array(id) => Some(format!("List<{}>", named(id))),
                CaseBody::Bytes => Some("ArraySegment<byte>".into()),
                CaseBody::Empty => None,
            }
        };
        let tag_decl = match tag {
            Some((ti, tf)) => Some((member("", &tf.name), self.ty(sid, ti, &tf.ty)?, tf)),
            None => None,
        };
        doc(c, &f.doc);
        c.line(&format!("public abstract class {name}"));
        c.open();
        c.line("public abstract void WriteJson(WireJson j);");
        c.gap();
        c.line(
            "/// <summary>Writes the variant's value (its tag is written by its holder).</summary>",
        );
        c.line("public abstract void Write(WireWriter w);");
        c.gap();
        c.line(
            "/// <summary>Whether this variant is the one a tag of this value selects.</summary>",
        );
        c.line("public abstract bool Accepts(long tag);");
        c.gap();
        if tag.is_some() {
            c.line("/// <summary>The tag this variant is sent with.</summary>");
            c.line("public abstract long WireTag { get; }");
            c.gap();
        }
        c.line("public override string ToString()");
        c.open();
        c.line("var j = new WireJson();");
        c.line("WriteJson(j);");
        c.line("return j.ToString();");
        c.close();
        type CaseDecl<'d> = (
            String,
            CaseBody,
            bool,
            Option<&'d Option<String>>,
            bool,
            Option<u64>,
        );
        let mut cases: Vec<CaseDecl> = u
            .cases
            .iter()
            .map(|k| {
                let carries = tag.is_some() && k.single().is_none();
                (
                    variant(&k.variant),
                    k.body,
                    carries,
                    Some(&k.doc),
                    false,
                    k.single(),
                )
            })
            .collect();
        if let Some(body) = u.default {
            cases.push((
                variant(&u.default_variant),
                body,
                tag.is_some(),
                None,
                true,
                None,
            ));
        }
        for (v, body, carries, d, is_default, single) in cases {
            c.gap();
            if let Some(d) = d {
                doc(c, d);
            } else {
                c.line("/// <summary>Any other tag value.</summary>");
            }
            c.line(&format!("public sealed class {v} : {name}"));
            c.open();
            let tag_json = match (&tag_decl, carries) {
                (Some((m, t, tf)), true) => {
                    c.line(&format!("public {t} {m};"));
                    Some((m.clone(), tf))
                }
                _ => None,
            };
            let pl = payload(body);
            if let Some(t) = &pl {
                c.line(&format!("public {t} Value;"));
            }
            c.gap();
            if let Some((m, _, tf)) = &tag_decl {
                let v = match (&tag_json, single) {
                    (Some(_), _) if matches!(tf.ty, Ty::Bool) => format!("{m} ? 1L : 0L"),
                    (Some(_), _) => format!("(long){m}"),
                    (None, Some(v)) => format!("{v}L"),
                    (None, None) => "0L".into(),
                };
                c.line(&format!(
                    "public override long WireTag {{ get {{ return {v}; }} }}"
                ));
                c.gap();
            }
            c.line("public override void Write(WireWriter w)");
            c.open();
            self.case_write(c, sid, body);
            c.close();
            c.gap();
            let accepts = if is_default {
                let all: Vec<String> = u.cases.iter().map(|k| case_test(&k.values)).collect();
                if all.is_empty() {
                    "true".to_string()
                } else {
                    format!("!({})", all.join(" || "))
                }
            } else {
                let k = u.cases.iter().find(|k| variant(&k.variant) == v);
                k.map_or("false".into(), |k| case_test(&k.values))
            };
            c.line(&format!(
                "public override bool Accepts(long tag) {{ return {accepts}; }}"
            ));
            c.gap();
            c.line("public override void WriteJson(WireJson j)");
            c.open();
            // Serde's externally tagged enums: a unit variant is its name; a newtype one
            // `{"V": payload}`; one carrying its tag `{"V": {"tag": t, "value" | "data": …}}`.
            match (&tag_json, &pl) {
                (None, None) => c.line(&format!("j.Str({});", lit(&v))),
                (None, Some(_)) => {
                    c.line(&format!("j.Open().Key({});", lit(&v)));
                    self.case_json(c, body, "Value")?;
                    c.line("j.Close();");
                }
                (Some((m, tf)), _) => {
                    c.line(&format!("j.Open().Key({}).Open();", lit(&v)));
                    c.line(&format!("j.Key({});", lit(&tf.name)));
                    self.json(c, sid, fi, &tf.ty, m, 0)?;
                    if pl.is_some() {
                        let key = if is_default && body == CaseBody::Bytes {
                            "data"
                        } else {
                            "value"
                        };
                        c.line(&format!("j.Key({});", lit(key)));
                        self.case_json(c, body, "Value")?;
                    }
                    c.line("j.Close().Close();");
                }
            }
            c.close();
            c.close();
        }
        c.close();
        Ok(())
    }

    /// A case class's `Write`: its value as the switch's layout writes it.
    fn case_write(&self, c: &mut Code, sid: StructId, body: CaseBody) {
        let p = self.i.p;
        let bits = p.structs[sid].layout.is_bits();
        let msb = p.structs[sid].layout == Layout::MsbBits;
        match body {
            CaseBody::Struct(id) => {
                c.line("Value.Write(w);");
                if p.structs[id].layout.is_bits() && !bits {
                    c.line("w.AlignToByte();");
                }
            }
            CaseBody::Array(_) => c.line("foreach (var item in Value) item.Write(w);"),
            CaseBody::Bytes if bits => c.line(&format!("w.PutBits(Value, {msb});")),
            CaseBody::Bytes => c.line("w.Put(Value);"),
            CaseBody::Empty => {}
        }
    }

    fn case_json(&self, c: &mut Code, body: CaseBody, x: &str) -> Result<(), Internal> {
        match body {
            CaseBody::Struct(_) => c.line(&format!("{x}.WriteJson(j);")),
            CaseBody::Array(_) => {
                c.line("j.OpenList();");
                c.line(&format!("foreach (var item in {x}) item.WriteJson(j);"));
                c.line("j.CloseList();");
            }
            CaseBody::Bytes => c.line(&format!("j.Hex({x});")),
            CaseBody::Empty => {}
        }
        Ok(())
    }
}

/// The test that `tag` is one of a case's values.
pub(crate) fn case_test(values: &[CaseValue]) -> String {
    let tests: Vec<String> = values
        .iter()
        .map(|v| match v {
            CaseValue::One(x) => format!("tag == {}L", *x as i64),
            CaseValue::Range(lo, hi) => {
                format!("(tag >= {}L && tag <= {}L)", *lo as i64, *hi as i64)
            }
        })
        .collect();
    tests.join(" || ")
}

/// An enum value's or case's C# name.
pub(crate) fn variant(name: &str) -> String {
    type_name(name)
}

/// An integer as the schema wrote it (hex as written, else decimal).
pub(crate) fn literal(v: u64, hex: &Option<String>) -> String {
    hex.clone().unwrap_or_else(|| v.to_string())
}
