//! Pass: enclosing fields. `Header.channel` reads field `channel` of the nearest `Header`
//! around the value being read. Checked here, once every type is known: every way a decoder
//! reaches the reading type passes through a `Header`, and `channel` comes before the field of
//! `Header` that holds it, so both outputs always have the value when they need it.

use super::*;

/// One `Header.channel` an expression reads: the type whose expression it is, the holder and its
/// field, and where it is written.
#[derive(Debug, Clone)]
pub(crate) struct EnclosingUse {
    pub reader: StructId,
    pub holder: StructId,
    pub field: usize,
    pub yaml_path: String,
    pub at: usize,
}

impl<'f> Resolver<'f> {
    /// Resolves `Holder.field` (or `Holder.flags.BIT`) read by an expression of `scope`.
    pub(crate) fn enclosing_path(
        &mut self,
        scope: &Scope,
        holder: StructId,
        path: &[String],
        at: usize,
        in_len: bool,
    ) -> (Expr, ExprTy) {
        let fail = (Expr::int(0), ExprTy::Error);
        let holder_name = self.file.types.get_index(holder).unwrap().0.clone();
        if holder == scope.struct_id {
            self.expr_error(
                Code::E0518,
                scope,
                at,
                format!("'{holder_name}' is this type: its fields are read by their names alone"),
                Some(format!("write '{}'", path[1..].join("."))),
            );
            return fail;
        }
        let fields = &self.shapes[holder];
        let Some(fi) = fields.iter().position(|(n, _)| *n == path[1]) else {
            let hint = did_you_mean(&path[1], fields.iter().map(|(n, _)| n.as_str()));
            self.expr_error(
                Code::E0519,
                scope,
                at + path[0].len() + 1,
                format!("'{holder_name}' has no field '{}'", path[1]),
                hint,
            );
            return fail;
        };
        if in_len {
            self.expr_error(
                Code::E0520,
                scope,
                at,
                format!("len() of an enclosing type's field ('{}')", path.join(".")),
                Some(
                    "read a length field of the enclosing type, or '@remaining' for what is \
                     left of the value"
                        .into(),
                ),
            );
            return fail;
        }
        let field = FieldRef {
            struct_id: holder,
            field: fi,
            name: path[1].clone(),
        };
        let (e, ty) = match (fields[fi].1.clone(), path.len()) {
            (Shape::Scalar | Shape::Enum(_) | Shape::Flags(_), 2) => {
                (Expr::Enclosing(field), ExprTy::Int)
            }
            (Shape::Bool, 2) => (Expr::Enclosing(field), ExprTy::Bool),
            // A flag bit: `(Header.flags & BIT) != 0`.
            (Shape::Flags(fid), 3) => {
                let (set, def) = self.file.flags.get_index(fid).unwrap();
                let Some(bit) = def.bits.get(&path[2]) else {
                    let hint = did_you_mean(&path[2], def.bits.keys().map(String::as_str));
                    self.expr_error(
                        Code::E0528,
                        scope,
                        at + path[0].len() + path[1].len() + 2,
                        format!("'{}' is not a flag of '{set}'", path[2]),
                        hint,
                    );
                    return fail;
                };
                let masked = Expr::Binary(
                    BinOp::BitAnd,
                    Box::new(Expr::Enclosing(field)),
                    Box::new(Expr::Int(bit.value(), crate::expr::Radix::Hex)),
                );
                let e = Expr::Binary(BinOp::Ne, Box::new(masked), Box::new(Expr::int(0)));
                (e, ExprTy::Bool)
            }
            _ => {
                self.expr_error(
                    Code::E0521,
                    scope,
                    at,
                    format!(
                        "'{}' is not a number, a bool or a flag of an enclosing type",
                        path.join(".")
                    ),
                    Some("read an integer, enum, flags or bool field of the enclosing type".into()),
                );
                return fail;
            }
        };
        self.enclosing_uses.push(EnclosingUse {
            reader: scope.struct_id,
            holder,
            field: fi,
            yaml_path: scope.yaml_path.to_string(),
            at,
        });
        (e, ty)
    }

    /// A join key `Holder.field` of parts of `sid`: a number or bool of the nearest `Holder`
    /// around each part, kept in the decoded value (checked with the expressions' uses).
    pub(crate) fn enclosing_key(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        holder: &str,
        field: &str,
        at: &str,
    ) -> Option<FieldRef> {
        let h = self.struct_named(holder, at)?;
        if h == sid {
            self.r.error(
                Code::E0530,
                at,
                format!("'{holder}' is the parts' own type: its fields are named alone"),
                Some(format!("write '{field}'")),
            );
            return None;
        }
        let fi = self.field_in(proto, h, &format!("'{holder}'"), field, at)?;
        if !matches!(
            proto.structs[h].fields[fi].ty,
            Ty::Int(_) | Ty::Enum(_) | Ty::Bool
        ) {
            self.r.error(
                Code::E0529,
                at,
                format!("'{holder}.{field}' is not an integer, an enum or a bool"),
                Some("a join key is a number the parts of one payload share".into()),
            );
            return None;
        }
        self.refuse_encoder_filled_field(proto, h, fi, at, Code::E0531);
        self.enclosing_uses.push(EnclosingUse {
            reader: sid,
            holder: h,
            field: fi,
            yaml_path: at.to_string(),
            at: 0,
        });
        Some(FieldRef {
            struct_id: h,
            field: fi,
            name: field.to_string(),
        })
    }

    /// Checks every enclosing field read (see the module's comment).
    pub(crate) fn check_enclosing(&mut self, p: &Protocol) {
        let uses = std::mem::take(&mut self.enclosing_uses);
        let mut entries = p.top_level_types();
        // A reassembled whole read by the root's switch is decoded alone, outside any root.
        if let Some(Reassembly {
            whole: WholeType::AsField(fi),
            ..
        }) = &p.reassembly
        {
            p.root().fields[*fi].ty.child_structs(&mut entries);
        }
        // The first use of one field more than the slots hold.
        let mut fields = Vec::new();
        let over = uses.iter().find(|u| {
            if !fields.contains(&(u.holder, u.field)) {
                fields.push((u.holder, u.field));
            }
            fields.len() > crate::lower::ENCLOSING_SLOTS
        });
        if let Some(u) = over {
            let scope = Scope {
                struct_id: u.reader,
                visible: 0,
                yaml_path: &u.yaml_path,
            };
            self.expr_error(
                Code::E0526,
                &scope,
                u.at,
                format!(
                    "more than {} enclosing fields are read in one schema",
                    crate::lower::ENCLOSING_SLOTS
                ),
                Some("read fewer distinct fields of enclosing types".into()),
            );
        }
        self.check_direction(p);
        let mut seen = std::collections::HashSet::new();
        for u in uses {
            if !seen.insert((u.reader, u.holder, u.field, u.yaml_path.clone(), u.at)) {
                continue;
            }
            self.check_enclosing_use(p, &entries, &u);
        }
    }

    /// The direction is read where the crate knows it: a datagram of a conversation (not an
    /// opening datagram, told apart by its place; not a schema with conversation state or an
    /// application's message, decoded without it).
    fn check_direction(&mut self, p: &Protocol) {
        let readers = crate::lower::analysis::direction_readers(p);
        let why = if !p.state.is_empty() {
            Some("in a schema with conversation state ('protocol.state')")
        } else if p.application.is_some() {
            Some("in an application's message")
        } else {
            None
        };
        let openings = p
            .opening
            .iter()
            .map(|(_, id)| *id)
            .filter(|id| readers[*id]);
        let refused: Vec<(StructId, &str)> = match why {
            Some(why) => (0..p.structs.len())
                .filter(|id| readers[*id])
                .map(|id| (id, why))
                .collect(),
            None => openings
                .map(|id| {
                    let why = "in an opening datagram (its place in the conversation says which \
                               side sent it)";
                    (id, why)
                })
                .collect(),
        };
        for (id, why) in refused.into_iter().take(1) {
            self.r.error_key(
                Code::E0527,
                &format!("types.{}", p.structs[id].name),
                format!(
                    "'{}' reads the direction (@from_client), which is not known {why}",
                    p.structs[id].name
                ),
                Some("tell the directions apart by a field, or by separate types".into()),
            );
        }
    }

    fn check_enclosing_use(&mut self, p: &Protocol, entries: &[StructId], u: &EnclosingUse) {
        let scope = Scope {
            struct_id: u.reader,
            visible: 0,
            yaml_path: &u.yaml_path,
        };
        let (holder, reader) = (&p.structs[u.holder].name, &p.structs[u.reader].name);
        let f = &p.structs[u.holder].fields[u.field];
        let written = format!("{holder}.{}", f.name);
        // Reached from an entry without passing through the holder?
        for &entry in entries {
            if entry == u.holder {
                continue;
            }
            if reaches_avoiding(p, entry, u.reader, u.holder) {
                let from = if entry == u.reader {
                    format!("'{reader}' is decoded on its own (it is a message of its own)")
                } else {
                    format!(
                        "'{reader}' is reached from '{}' without a '{holder}' around it",
                        p.structs[entry].name
                    )
                };
                self.expr_error(
                    Code::E0522,
                    &scope,
                    u.at,
                    format!("'{written}' is not known here: {from}"),
                    Some(format!(
                        "read '{written}' only in types that are always inside a '{holder}'"
                    )),
                );
                return;
            }
        }
        // Read before the holder's field that holds the reader.
        for (gi, g) in p.structs[u.holder].fields.iter().enumerate() {
            let mut kids = Vec::new();
            g.ty.child_structs(&mut kids);
            let holds = kids
                .iter()
                .any(|&k| k == u.reader || reaches(p, k, u.reader));
            if holds && gi <= u.field {
                self.expr_error(
                    Code::E0523,
                    &scope,
                    u.at,
                    format!(
                        "'{written}' is not read yet where '{reader}' is: '{holder}' holds it in \
                         '{}', which comes {}",
                        g.name,
                        if gi == u.field { "there" } else { "first" }
                    ),
                    Some(format!(
                        "move '{}' before '{}' in '{holder}'",
                        f.name, g.name
                    )),
                );
                return;
            }
        }
        // The encoder writes the holder's field before the values inside: what it fills in
        // after them (a length, a count, a checksum) is not known to them.
        let filled_after = match &f.role {
            Role::Derived(Derive::LengthOf(..) | Derive::CountOf(..)) => Some("a length or count"),
            Role::Checksum(_) => Some("a checksum"),
            _ => None,
        };
        if let Some(what) = filled_after {
            self.expr_error(
                Code::E0524,
                &scope,
                u.at,
                format!(
                    "'{written}' is {what} the encoder fills in from the data: the values inside \
                     cannot depend on it"
                ),
                Some("read '@remaining' for the bytes left of the enclosing value".into()),
            );
        }
    }
}

/// Whether `to` is `from` or inside it, along types other than `avoid`.
fn reaches_avoiding(p: &Protocol, from: StructId, to: StructId, avoid: StructId) -> bool {
    crate::lower::analysis::reached_from(p, vec![from], |holder, _| holder != avoid).contains(&to)
}

/// Whether `to` is `from` or inside it.
fn reaches(p: &Protocol, from: StructId, to: StructId) -> bool {
    crate::lower::analysis::reached_from(p, vec![from], |_, _| true).contains(&to)
}
