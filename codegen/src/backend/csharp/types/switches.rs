//! Switches: an abstract class with a sealed case class per variant (the default's too), each
//! with its payload (`Value`), the tag it carries when its case has several values, the tag it
//! is sent with (`WireTag`), whether a tag selects it (`Accepts`), `Write` and its JSON.

use super::*;

/// One case class to render.
struct CaseClass<'a> {
    name: String,
    body: CaseBody,
    /// The tag is kept in the value (a case of several values, or the default).
    carries: bool,
    doc: Option<&'a Option<String>>,
    /// The test that a tag selects it (C#, over `tag`).
    accepts: String,
    /// The one value it is sent with.
    single: Option<u64>,
    /// The default (its bytes are `data` in JSON).
    default: bool,
}

/// The switch the case classes belong to.
struct SwitchClass<'p> {
    sid: StructId,
    name: String,
    /// The tag field the encoder derives (its member name, C# type, field).
    tag: Option<(String, String, &'p Field)>,
    /// Names that shadow schema types inside the class (its own, its case classes').
    shadowing: Vec<String>,
}

impl<'p> Types<'p> {
    /// A switch: the abstract class, a sealed case class per variant.
    pub(super) fn switch(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        u: &Union,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        let name = type_name(&p.union_name(sid, fi));
        let tag = match self.cs().tag_field(sid, fi) {
            Some((ti, tf)) => Some((member("", &tf.name), self.cs().ty(sid, ti, &tf.ty)?, tf)),
            None => None,
        };
        let mut shadowing: Vec<String> = u.cases.iter().map(|k| variant(&k.variant)).collect();
        shadowing.push(variant(&u.default_variant));
        shadowing.push(name.clone());
        let sw = SwitchClass {
            sid,
            name,
            tag,
            shadowing,
        };
        doc(c, &f.doc);
        c.line(&format!("public abstract class {}", sw.name));
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
        if sw.tag.is_some() {
            c.gap();
            c.line("/// <summary>The tag this variant is sent with.</summary>");
            c.line("public abstract long WireTag { get; }");
        }
        c.gap();
        c.line("public override string ToString()");
        c.open();
        c.line("var j = new WireJson();");
        c.line("WriteJson(j);");
        c.line("return j.ToString();");
        c.close();
        c.gap();
        Decoder::new(self.i).switch_reader(c, sid, fi, u)?;
        for k in &u.cases {
            self.case_class(
                c,
                &sw,
                CaseClass {
                    name: variant(&k.variant),
                    body: k.body,
                    carries: sw.tag.is_some() && k.single().is_none(),
                    doc: Some(&k.doc),
                    accepts: case_test(&k.values),
                    single: k.single(),
                    default: false,
                },
            )?;
        }
        if let Some(body) = u.default {
            let all: Vec<String> = u.cases.iter().map(|k| case_test(&k.values)).collect();
            let accepts = if all.is_empty() {
                "true".to_string()
            } else {
                format!("!({})", all.join(" || "))
            };
            self.case_class(
                c,
                &sw,
                CaseClass {
                    name: variant(&u.default_variant),
                    body,
                    carries: sw.tag.is_some(),
                    doc: None,
                    accepts,
                    single: None,
                    default: true,
                },
            )?;
        }
        c.close();
        Ok(())
    }

    /// The type of a variant's payload (a schema type shadowed inside the switch is named from
    /// its namespace).
    fn payload(&self, sw: &SwitchClass, body: CaseBody) -> Option<String> {
        let p = self.i.p;
        let named = |id: StructId| {
            let t = type_name(&p.structs[id].name);
            if sw.shadowing.contains(&t) {
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
    }

    fn case_class(&self, c: &mut Code, sw: &SwitchClass, k: CaseClass) -> Result<(), Internal> {
        c.gap();
        match k.doc {
            Some(d) => doc(c, d),
            None => c.line("/// <summary>Any other tag value.</summary>"),
        }
        c.line(&format!("public sealed class {} : {}", k.name, sw.name));
        c.open();
        let carried = sw.tag.as_ref().filter(|_| k.carries);
        if let Some((m, t, _)) = carried {
            c.line(&format!("public {t} {m};"));
        }
        let pl = self.payload(sw, k.body);
        if let Some(t) = &pl {
            c.line(&format!("public {t} Value;"));
        }
        c.gap();
        if let Some((m, _, tf)) = &sw.tag {
            let v = match (carried, k.single) {
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
        self.case_write(c, sw.sid, k.body);
        c.close();
        c.gap();
        c.line(&format!(
            "public override bool Accepts(long tag) {{ return {}; }}",
            k.accepts
        ));
        c.gap();
        c.line("public override void WriteJson(WireJson j)");
        c.open();
        // Serde's externally tagged enums: a unit variant is its name; a newtype one
        // `{"V": payload}`; one carrying its tag `{"V": {"tag": t, "value" | "data": …}}`.
        match (carried, &pl) {
            (None, None) => c.line(&format!("j.Str({});", lit(&k.name))),
            (None, Some(_)) => {
                c.line(&format!("j.Open().Key({});", lit(&k.name)));
                self.case_json(c, k.body, "Value");
                c.line("j.Close();");
            }
            (Some((m, _, tf)), _) => {
                c.line(&format!("j.Open().Key({}).Open();", lit(&k.name)));
                c.line(&format!("j.Key({});", lit(&tf.name)));
                self.json(c, &tf.ty, m, 0, true)?;
                if pl.is_some() {
                    let key = if k.default && k.body == CaseBody::Bytes {
                        "data"
                    } else {
                        "value"
                    };
                    c.line(&format!("j.Key({});", lit(key)));
                    self.case_json(c, k.body, "Value");
                }
                c.line("j.Close().Close();");
            }
        }
        c.close();
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

    fn case_json(&self, c: &mut Code, body: CaseBody, x: &str) {
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
    }
}
