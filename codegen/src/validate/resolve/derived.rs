//! Pass: derived fields. The fields the encoder fills (lengths, counts, tags, presence bits)
//! and the values it implies of fields the user sets (flag bits announcing an optional field,
//! `set_when`).

use super::*;

impl<'f> Resolver<'f> {
    /// A flag-set field's `set_when`: the bits the encoder sets exactly when their condition
    /// (over earlier fields) holds, and the dissector's warnings for packets that disagree.
    pub(crate) fn set_when(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        ty: &Ty,
    ) -> (Vec<Implied>, Vec<(Expr, String)>) {
        let (mut implied, mut warnings) = (Vec::new(), Vec::new());
        if f.set_when.is_empty() {
            return (implied, warnings);
        }
        let Ty::Flags(fid) = ty else {
            self.r.error(Code::E1201,
                &format!("{fp}.set_when"),
                "'set_when' applies to fields of a flag-set type",
                Some("a bool or integer given by other fields is written by the encoder from an 'if' or a length".into()),
            );
            return (implied, warnings);
        };
        if f.condition.is_some() {
            self.r.error(
                Code::E1202,
                &format!("{fp}.set_when"),
                "a field with 'set_when' cannot be conditional",
                None,
            );
        }
        let (fl_name, fl) = self.file.flags.get_index(*fid).unwrap();
        for (bit, cond) in &f.set_when {
            let bp = format!("{fp}.set_when.{bit}");
            let Some(mask) = fl.bits.get(bit).map(NamedValue::value) else {
                let hint = did_you_mean(bit, fl.bits.keys().map(String::as_str));
                self.r.error_key(
                    Code::E1203,
                    &bp,
                    format!("'{bit}' is not a flag of '{fl_name}'"),
                    hint,
                );
                continue;
            };
            let s = Scope {
                struct_id: sid,
                visible: index,
                yaml_path: &bp,
            };
            let e = self.expr_of(&s, cond, ExprTy::Bool);
            let own = Expr::FlagBit(
                vec![FieldRef {
                    struct_id: sid,
                    field: index,
                    name: f.name.clone(),
                }],
                mask,
            );
            warnings.push((
                Expr::Binary(BinOp::Ne, Box::new(own), Box::new(e.clone())),
                format!("{bit} should be set exactly when {cond}"),
            ));
            implied.push(Implied {
                value: ImpliedValue::Bit(mask),
                when: ImpliedWhen::Holds(e, cond.clone()),
            });
        }
        (implied, warnings)
    }

    /// Marks the fields the encoder fills: lengths, counts and tags named by a bare reference (or
    /// a linear function of one), presence bits; and the values it implies of user-set fields.
    pub(crate) fn derive(&mut self, sname: &str, yp: &str, fields: &mut [Field]) {
        let mut derived: Vec<(usize, Derive, usize)> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            // A length or count that is a linear function of one field (`size - 2`) derives it.
            match &f.ty {
                Ty::Bytes(Len::Expr(e))
                | Ty::Str(Len::Expr(e), _)
                | Ty::Struct(_, Some(Len::Expr(e)))
                | Ty::Array(_, Len::Bytes(e)) => {
                    if let Some((r, l)) = e.linear_field() {
                        derived.push((r, Derive::LengthOf(i, l), i));
                    }
                }
                Ty::Array(_, Len::Expr(e)) => {
                    if let Some((r, l)) = e.linear_field() {
                        derived.push((r, Derive::CountOf(i, l), i));
                    }
                }
                Ty::Union(u) => {
                    if let Some((r, l)) = match &u.len {
                        Len::Expr(e) => e.linear_field(),
                        _ => None,
                    } {
                        derived.push((r, Derive::LengthOf(i, l), i));
                    }
                    if let Some(r) = u.on.local_field() {
                        derived.push((r, Derive::TagOf(i), i));
                    }
                }
                _ => {}
            }
        }
        self.imply_presence(sname, yp, fields, &mut derived);
        // A bool that is the whole condition of several fields is not derived from any of
        // them: the user sets it, and the encoder checks each field's presence against it.
        let presence = |d: &Derive| matches!(d, Derive::PresenceOf(_) | Derive::AbsenceOf(_));
        let shared: Vec<usize> = derived
            .iter()
            .filter(|(t, how, _)| {
                presence(how)
                    && derived
                        .iter()
                        .filter(|(t2, how2, _)| t2 == t && presence(how2))
                        .count()
                        > 1
            })
            .map(|(t, ..)| *t)
            .collect();
        derived.retain(|(t, how, _)| !(presence(how) && shared.contains(t)));
        for (target, how, by) in derived {
            let t = &fields[target];
            let fp = self.r.field_path(yp, target);
            let fits = match how {
                Derive::PresenceOf(_) | Derive::AbsenceOf(_) | Derive::TagOf(_)
                    if matches!(t.ty, Ty::Bool) =>
                {
                    true
                }
                Derive::PresenceOf(_) | Derive::AbsenceOf(_) => false,
                _ => matches!(t.ty, Ty::Int(_) | Ty::Enum(_) | Ty::VarInt(_)),
            };
            if !fits {
                continue;
            }
            if t.condition.is_some() {
                self.r.error(Code::E1204, &fp, format!("field '{}' gives the length, count or tag of '{}' and cannot be conditional", t.name, fields[by].name), None);
                continue;
            }
            match &t.role {
                Role::Value => fields[target].role = Role::Derived(how),
                // Two switches on one tag: the first derives it, the second is checked
                // against it by the encoder.
                Role::Derived(Derive::TagOf(_)) if matches!(how, Derive::TagOf(_)) => {}
                Role::Derived(prev) => {
                    let prev_by = match prev {
                        Derive::LengthOf(j, _)
                        | Derive::CountOf(j, _)
                        | Derive::TagOf(j)
                        | Derive::PresenceOf(j)
                        | Derive::AbsenceOf(j) => *j,
                    };
                    let name = fields[target].name.clone();
                    let (a, b) = (fields[prev_by].name.clone(), fields[by].name.clone());
                    self.r.error(Code::E1205, &fp, format!("field '{name}' of '{sname}' would be derived from both '{a}' and '{b}'"), Some("give one of them its own length field".into()));
                }
                _ => {}
            }
        }
        // Last: the fields left to the user may be solved for from a variant's tag.
        self.solve_tags(fields);
    }

    /// Presence the encoder sets from the Option: a bool that is a field's whole condition
    /// (`has_x`, or `!no_x` meaning "absent"; derived), a flag bit (`flags.HAS_X`,
    /// `!flags.NO_X`) or a value (`kind == Kind.EXT`, `kind != Kind.NONE`) of a field the user
    /// otherwise sets.
    fn imply_presence(
        &mut self,
        sname: &str,
        yp: &str,
        fields: &mut [Field],
        derived: &mut Vec<(usize, Derive, usize)>,
    ) {
        let settable = |f: &Field| f.role == Role::Value && f.condition.is_none();
        let mut implied: Vec<(usize, Implied)> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let Some(c) = &f.condition else { continue };
            let (c, absent) = match c {
                Expr::Not(x) => (x.as_ref(), true),
                c => (c, false),
            };
            let when = if absent {
                ImpliedWhen::Absent(i)
            } else {
                ImpliedWhen::Present(i)
            };
            match c {
                // A bool that is the whole condition (`b`, or `!b`: absent when true) of exactly
                // one field is derived: the encoder writes it from the Option.
                Expr::Field(p) if p.len() == 1 => {
                    let r = p[0].field;
                    let guards = fields
                        .iter()
                        .filter(|g| g.condition.as_ref() == f.condition.as_ref())
                        .count();
                    if guards == 1 && matches!(fields[r].ty, Ty::Bool) && settable(&fields[r]) {
                        let how = if absent {
                            Derive::AbsenceOf(i)
                        } else {
                            Derive::PresenceOf(i)
                        };
                        derived.push((r, how, i));
                    }
                }
                Expr::FlagBit(p, m) if p.len() == 1 && settable(&fields[p[0].field]) => {
                    implied.push((
                        p[0].field,
                        Implied {
                            value: ImpliedValue::Bit(*m),
                            when,
                        },
                    ));
                }
                Expr::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) if !absent => {
                    let (p, v) = match (a.as_ref(), b.as_ref()) {
                        (Expr::Field(p), Expr::Int(v, _)) | (Expr::Int(v, _), Expr::Field(p)) => {
                            (p, *v)
                        }
                        _ => continue,
                    };
                    let r = p[0].field;
                    let fits = match &fields[r].ty {
                        Ty::Int(it) => v <= it.max_value() && !it.signed,
                        // A named value (an unnamed one may not fit the enum's width).
                        Ty::Enum(id) => self.file.enums[*id]
                            .values
                            .values()
                            .any(|n| !n.is_range() && n.value() == v),
                        _ => false,
                    };
                    if p.len() == 1 && fits && settable(&fields[r]) {
                        let when = match op {
                            BinOp::Eq => ImpliedWhen::Present(i),
                            _ => ImpliedWhen::Absent(i),
                        };
                        implied.push((
                            r,
                            Implied {
                                value: ImpliedValue::Equals(v),
                                when,
                            },
                        ));
                    }
                }
                _ => {}
            }
        }
        for (r, imp) in implied {
            // A bit that `set_when` already gives cannot also follow an optional field.
            let given = fields[r]
                .implied
                .iter()
                .find(|x| x.value == imp.value && matches!(x.when, ImpliedWhen::Holds(..)));
            if let (Some(_), ImpliedWhen::Present(i) | ImpliedWhen::Absent(i)) = (given, &imp.when)
            {
                let (flags, by) = (fields[r].name.clone(), fields[*i].name.clone());
                self.r.error(Code::E1206,
                    &format!("{}.if", self.r.field_path(yp, *i)),
                    format!("'{by}' of '{sname}' is announced by a bit of '{flags}' that its 'set_when' already gives"),
                    Some("remove the bit from 'set_when' or give the field its own flag".into()),
                );
                continue;
            }
            fields[r].implied.push(imp);
        }
    }
}
