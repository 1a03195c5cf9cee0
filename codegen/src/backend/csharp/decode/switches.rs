//! Switches (the tag, the case chosen) and the switch class's reader of its cases.

use super::*;

impl<'p> Decoder<'p> {
    pub(super) fn switch(
        &self,
        c: &mut Code,
        at: At,
        u: &Union,
        target: &str,
    ) -> Result<(), Internal> {
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
    pub(super) fn cases(&self, c: &mut Code, sw: Switch) -> Result<(), Internal> {
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
    pub(super) fn default_case(&self, c: &mut Code, sw: Switch) -> Result<(), Internal> {
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
    pub(super) fn case(
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

    pub(super) fn case_body(
        &self,
        c: &mut Code,
        at: At,
        body: CaseBody,
        v: &str,
    ) -> Result<(), Internal> {
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
