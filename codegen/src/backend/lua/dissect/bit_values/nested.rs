//! Structs and switches inside a bit stream: a subtree over the bytes they touch.

use super::*;

impl BitRead<'_> {
    /// A value that delimits itself, read by Lua function `function`, in a subtree labelled
    /// `label` (in `tree` itself when its type is shown without one: `subtree` false).
    fn struct_in(&self, c: &mut Code, function: &str, label: &str, subtree: bool) {
        let (tree, target) = (self.tree, self.target);
        let sub = if subtree {
            let label = format!("\"{}: {label}\"", naming::label(&self.name));
            let sub = shown::subtree(tree, "tvb(floor(offset / 8), 0)", &label);
            c.line(format!("sub = {sub}"));
            "sub"
        } else {
            tree
        };
        c.line(format!(
            "{} = {function}(tvb, pinfo, {sub}, offset, limit)",
            results(target)
        ));
        c.line("if nxt == nil then return nil end");
        if subtree {
            c.line(shown::set_len("sub", "ceil8(nxt) - floor(offset / 8)"));
        }
        keep(c, target, "val");
        c.line("offset = nxt");
    }

    /// A value of struct `id` that delimits itself, read by the function of the field's
    /// `filter:` use when it has one (its fields' filter names are the use's).
    pub(crate) fn nested(&self, c: &mut Code, p: &Protocol, id: StructId) {
        let field = &p.structs[self.sid].fields[self.fi];
        let s = &p.structs[id];
        let function = struct_fn_name(p, id, field.filter.as_deref());
        self.struct_in(c, &function, &s.name, s.subtree && field.subtree);
    }
}

impl<'p> Dissect<'p> {
    /// A switch to the end of the stream's scope: the case its tag picks.
    pub(crate) fn bit_union(
        &mut self,
        c: &mut Code,
        at: &BitRead<'_>,
        u: &Union,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let (tree, abbrev, target, name) = (at.tree, at.abbrev, at.target, &at.name);
        if !matches!(u.len, Len::Rest | Len::Natural) {
            return Err(Internal(format!(
                "'{name}': a switch with a length in a bit stream"
            )));
        }
        let tag = self.i.exprs().tag_expr(&u.on);
        c.line(format!("local tag_{name} = {tag}"));
        let field_subtree = p.structs[at.sid].fields[at.fi].subtree;
        let body = |c: &mut Code, b: CaseBody, variant: &str| match b {
            CaseBody::Struct(id) => {
                let shown_in_subtree = p.structs[id].subtree && field_subtree;
                at.struct_in(c, &struct_fn_name(p, id, None), variant, shown_in_subtree)
            }
            // Values to the end, before the last byte's padding.
            CaseBody::Array(id) => {
                let t = &p.structs[id].name;
                let label = format!("\"{}: {variant}\"", naming::label(name));
                let arr = if field_subtree {
                    shown::subtree(tree, "tvb(floor(offset / 8), 0)", &label)
                } else {
                    tree.to_string()
                };
                c.line(format!("local arr_{name} = {arr}"));
                if field_subtree {
                    c.line(format!("local arr_start_{name} = floor(offset / 8)"));
                }
                c.open("while offset < limit - 7 do");
                let range = "tvb(floor(offset / 8), 0)";
                let arr = format!("arr_{name}");
                let sub = shown::element(p, id, c, &arr, range, &format!("\"{t}\""));
                c.line(format!(
                    "nxt = dissect.{t}(tvb, pinfo, {sub}, offset, limit)"
                ));
                c.line("if nxt == nil then return nil end");
                if sub == "sub" {
                    c.line(shown::set_len("sub", "ceil8(nxt) - floor(offset / 8)"));
                }
                c.line("offset = nxt");
                c.close("end");
                if field_subtree {
                    c.line(shown::set_len(
                        &format!("arr_{name}"),
                        &format!("ceil8(offset) - arr_start_{name}"),
                    ));
                }
                keep(c, target, "{}");
            }
            CaseBody::Bytes => {
                // Whole bytes to the end: what is left below 8 bits is the padding.
                c.line("n = floor((limit - offset) / 8)");
                add_bytes(c, tree, abbrev, name, "bit_range(tvb, offset, 8 * n)", "n");
                c.line("offset = offset + 8 * n");
            }
            CaseBody::Empty => {}
        };
        let no_case = |c: &mut Code| {
            c.line(format!("{tree}:add_proto_expert_info(E.invalid, fmt(\"{name}: no case for tag %d\", tag_{name}))"));
            c.line("return nil");
        };
        let chain = Chain::new(p, &self.tables, at.sid, name);
        case_chain(c, &chain, u, name, &body, &no_case);
        Ok(())
    }
}
