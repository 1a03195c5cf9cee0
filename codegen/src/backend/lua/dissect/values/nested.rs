//! Values of a struct type: sized, self-delimiting or compressed.

use super::*;

impl<'p> Dissect<'p> {
    /// A value of struct type `id` (of length `len` when it has one), compressed or not.
    pub(super) fn value_struct(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        id: StructId,
        len: Option<&Len>,
    ) -> Result<(), Internal> {
        let Place {
            sid,
            fi,
            tree,
            target,
            ..
        } = at;
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        let name = &f.name;
        if let Some(comp) = f.compression {
            {
                let (t, method, max) = (&p.structs[id].name, comp.method.name(), comp.max);
                let label = naming::label(name);
                self.length(c, at, len.unwrap_or(&Len::Rest), false)?;
                c.line(format!("sub = {tree}:add(tvb(offset, n), string.format(\"{label}: {t} ({method}, %d bytes)\", n))"));
                // Shown in a data source of its own, as Wireshark shows decompressed HTTP bodies.
                c.open("do");
                c.line(format!("local plain = n > 0 and uncompress(tvb(offset, n), \"{label} ({method}-decompressed)\", \"{method}\") or nil"));
                c.open("if plain == nil then");
                c.line(format!("sub:add_proto_expert_info(E.compressed, fmt(\"{name}: the %d bytes are not valid {method} data\", n))"));
                c.line("return nil");
                c.close("end");
                c.open(format!("if plain:len() > {max} then"));
                c.line(format!("sub:add_proto_expert_info(E.compressed, fmt(\"{name}: decompresses to %d bytes, more than the {max} allowed\", plain:len()))"));
                c.line("return nil");
                c.close("end");
                let use_ = (id, f.filter.as_deref());
                structs::call_struct_in(
                    p,
                    c,
                    use_,
                    ("plain", "sub", "0", "plain:len()"),
                    target,
                    None,
                );
                c.line(format!(
                    "if nxt < plain:len() then sub:add_proto_expert_info(E.trailing, fmt(\"{name}: %d decompressed bytes left unread\", plain:len() - nxt)) end"
                ));
                c.close("end");
                c.line("offset = offset + n");
            }
        } else {
            self.value_struct_plain(c, at, id, len)?;
        }
        Ok(())
    }

    /// A value of struct type `id` that is not compressed: in a subtree labelled with the field
    /// and the type, or in `tree` itself when the type or the field says `subtree: false` (on an
    /// array field that is about its list, not its elements); a length's unread bytes are
    /// noted in whichever holds it.
    fn value_struct_plain(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        id: StructId,
        len: Option<&Len>,
    ) -> Result<(), Internal> {
        let (p, tree, target) = (self.i.p, at.tree, at.target);
        let f = &p.structs[at.sid].fields[at.fi];
        let use_ = (id, f.filter.as_deref());
        let field_subtree = f.subtree || matches!(f.ty, Ty::Array(..));
        let in_subtree = p.structs[id].subtree && field_subtree;
        let label = format!("\"{}: {}\"", naming::label(&f.name), p.structs[id].name);
        // The subtree over `range` (in `sub`), or `tree` when there is none.
        let holder = |c: &mut Code, range: &str| {
            if in_subtree {
                c.line(format!("sub = {}", shown::subtree(tree, range, &label)));
                "sub"
            } else {
                tree
            }
        };
        match len {
            None | Some(Len::Natural) => {
                // A size known at once gives the subtree its length in the same C call (cut to
                // the bytes left when the value is truncated): no set_len.
                let fixed = self.i.l.structs[id].fixed_size.filter(|&k| k > 0);
                let range = match fixed {
                    Some(k) => {
                        format!("tvb(offset, limit - offset < {k} and limit - offset or {k})")
                    }
                    None => "tvb(offset, 0)".to_string(),
                };
                let holder = holder(c, &range);
                structs::call_struct_in(
                    p,
                    c,
                    use_,
                    ("tvb", holder, "offset", "limit"),
                    target,
                    None,
                );
                if holder == "sub" && fixed.is_none() {
                    c.line(shown::set_len("sub", "nxt - offset"));
                }
                c.line("offset = nxt");
            }
            Some(len) => {
                self.length(c, at, len, false)?;
                let holder = holder(c, "tvb(offset, n)");
                let hi = "offset + n";
                structs::call_struct_in(p, c, use_, ("tvb", holder, "offset", hi), target, None);
                let name = &f.name;
                c.line(format!(
                    "if nxt < offset + n then {holder}:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
                ));
                c.line("offset = offset + n");
            }
        }
        Ok(())
    }
}
