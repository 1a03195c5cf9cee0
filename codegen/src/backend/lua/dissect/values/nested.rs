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
            {
                let t = &p.structs[id].name;
                // (On an array field, `subtree: false` is about its list, not its elements.)
                let field_subtree = f.subtree || matches!(f.ty, Ty::Array(..));
                if !p.structs[id].subtree || !field_subtree {
                    return self.value_struct_flat(c, at, id, len);
                }
                let label = format!("{}: {t}", naming::label(name));
                match len {
                    None | Some(Len::Natural) => match self.i.l.structs[id].fixed_size {
                        // Its size is known: the subtree gets it at once (one C call, no
                        // set_len), cut to the bytes left when the value is truncated.
                        Some(k) if k > 0 => {
                            let range = format!(
                                "tvb(offset, limit - offset < {k} and limit - offset or {k})"
                            );
                            let sub = shown::subtree(tree, &range, &format!("\"{label}\""));
                            c.line(format!("sub = {sub}"));
                            call_struct_as(
                                p,
                                c,
                                id,
                                f.filter.as_deref(),
                                "offset",
                                "limit",
                                target,
                            );
                            c.line("offset = nxt");
                        }
                        _ => {
                            let sub =
                                shown::subtree(tree, "tvb(offset, 0)", &format!("\"{label}\""));
                            c.line(format!("sub = {sub}"));
                            call_struct_as(
                                p,
                                c,
                                id,
                                f.filter.as_deref(),
                                "offset",
                                "limit",
                                target,
                            );
                            c.line(shown::set_len("sub", "nxt - offset"));
                            c.line("offset = nxt");
                        }
                    },
                    Some(len) => {
                        self.length(c, at, len, false)?;
                        let sub = shown::subtree(tree, "tvb(offset, n)", &format!("\"{label}\""));
                        c.line(format!("sub = {sub}"));
                        call_struct_as(
                            p,
                            c,
                            id,
                            f.filter.as_deref(),
                            "offset",
                            "offset + n",
                            target,
                        );
                        c.line(format!(
                            "if nxt < offset + n then sub:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
                        ));
                        c.line("offset = offset + n");
                    }
                }
            }
        }
        Ok(())
    }

    /// A value of a struct type shown without a subtree of its own (`subtree: false` on the type
    /// or the field): its fields in `tree`, a length's unread bytes noted there.
    fn value_struct_flat(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        id: StructId,
        len: Option<&Len>,
    ) -> Result<(), Internal> {
        let (p, tree, target) = (self.i.p, at.tree, at.target);
        let f = &p.structs[at.sid].fields[at.fi];
        let use_ = (id, f.filter.as_deref());
        match len {
            None | Some(Len::Natural) => {
                structs::call_struct_in(p, c, use_, ("tvb", tree, "offset", "limit"), target, None);
                c.line("offset = nxt");
            }
            Some(len) => {
                self.length(c, at, len, false)?;
                structs::call_struct_in(
                    p,
                    c,
                    use_,
                    ("tvb", tree, "offset", "offset + n"),
                    target,
                    None,
                );
                let name = &f.name;
                c.line(format!(
                    "if nxt < offset + n then {tree}:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
                ));
                c.line("offset = offset + n");
            }
        }
        Ok(())
    }
}
