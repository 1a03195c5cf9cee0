//! The values the encoder fills in (lengths, counts, tags, presence) or forces (implied values), and the checks of what the user gives.

use super::*;

impl<'p> Encoder<'p> {
    /// The value of derived field `f`: a length, a count, a tag, a presence bit.
    pub(super) fn derived(&self, sid: StructId, fi: usize, d: Derive) -> Result<String, Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        let f = &s.fields[fi];
        let nm = lit(&f.name);
        let t = self.types().ty(sid, 0, &f.ty)?;
        let has = |o: &Field| {
            let ox = local(&o.name);
            if is_value_type(&o.ty) {
                format!("{ox}.HasValue")
            } else {
                format!("{ox} != null")
            }
        };
        let v = match d {
            // An array sized in bytes in a bit stream: its count times each element's bytes.
            Derive::LengthOf(ti, lin) => match self.i.l.field(sid, fi).write.size {
                Some(SizeWrite::WholeElements(n)) => {
                    let count = self.size_of(&s.fields[ti], ti, sid)?;
                    solve(&format!("({count} * {n}L)"), lin, &nm)
                }
                _ => solve(&self.size_of(&s.fields[ti], ti, sid)?, lin, &nm),
            },
            Derive::CountOf(ti, lin) => {
                let tx = local(&s.fields[ti].name);
                let count = if s.fields[ti].condition.is_some() {
                    format!("({tx} == null ? 0L : (long){tx}.Count)")
                } else {
                    format!("(long){tx}.Count")
                };
                solve(&count, lin, &nm)
            }
            Derive::TagOf(ui) if matches!(f.ty, Ty::Bool) => {
                format!("{}.WireTag != 0", local(&s.fields[ui].name))
            }
            Derive::TagOf(ui) => format!("{}.WireTag", local(&s.fields[ui].name)),
            Derive::PresenceOf(oi) | Derive::AbsenceOf(oi) => {
                let present = has(&s.fields[oi]);
                let holds = match d {
                    Derive::PresenceOf(_) => present,
                    _ => format!("!({present})"),
                };
                if matches!(f.ty, Ty::Bool) {
                    holds
                } else {
                    format!("({holds} ? 1L : 0L)")
                }
            }
        };
        Ok(match f.ty {
            Ty::Bool => v,
            _ => format!("({t})WireFit.Count({v}, {}UL, {nm})", max_of(p, &f.ty)),
        })
    }

    /// What the encoder forces on a field the user sets, applied to its local in order: a flag
    /// bit set exactly when a condition holds, a value when one holds, a tag solved from the
    /// variant written.
    pub(super) fn implied(
        &self,
        c: &mut Code,
        sid: StructId,
        f: &Field,
        t: &str,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        let x = local(&f.name);
        let has = |i: usize| {
            let o = &s.fields[i];
            if is_value_type(&o.ty) {
                format!("{}.HasValue", local(&o.name))
            } else {
                format!("{} != null", local(&o.name))
            }
        };
        for imp in &f.implied {
            let when = match &imp.when {
                ImpliedWhen::Present(i) => has(*i),
                ImpliedWhen::Absent(i) => format!("!({})", has(*i)),
                ImpliedWhen::Holds(e, _) => self.exprs().expr(e),
                ImpliedWhen::Variant { field, case, .. } => {
                    let class = type_name(&p.union_name(sid, *field));
                    let Ty::Union(u) = &s.fields[*field].ty else {
                        return Err(Internal("a variant of no switch".into()));
                    };
                    let v = super::cstypes::variant(&u.cases[*case].variant);
                    format!("{} is {class}.{v}", local(&s.fields[*field].name))
                }
            };
            match imp.value {
                ImpliedValue::Bit(mask) => c.line(&format!(
                    "{x} = ({t})({when} ? ((ulong){x} | 0x{mask:X}UL) : ((ulong){x} & ~0x{mask:X}UL));"
                )),
                ImpliedValue::Equals(v) if matches!(f.ty, Ty::Bool) => {
                    c.line(&format!("if ({when}) {x} = {};", v != 0))
                }
                ImpliedValue::Equals(v) => c.line(&format!("if ({when}) {x} = ({t}){v};")),
                ImpliedValue::Solved => {
                    let ImpliedWhen::Variant { value, .. } = &imp.when else {
                        return Err(Internal("a solved value of no variant".into()));
                    };
                    let v = self.exprs().expr(value);
                    c.line(&format!(
                        "if ({when}) {x} = ({t})WireFit.Count({v}, {}UL, {});",
                        max_of(p, &f.ty),
                        lit(&f.name)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The size (bytes or elements, as a `long`) of field `ti`'s value, known before it is
    /// written.
    pub(super) fn size_of(
        &self,
        target: &Field,
        ti: usize,
        sid: StructId,
    ) -> Result<String, Internal> {
        let tx = local(&target.name);
        let v = match &target.ty {
            Ty::Str(..) => format!("(long){tx}Bytes.Length"),
            Ty::Bytes(_) | Ty::Array(..) => {
                if target.condition.is_some() && is_value_type(&target.ty) {
                    format!("(long){tx}.Value.Count")
                } else {
                    format!("(long){tx}.Count")
                }
            }
            _ => {
                return Err(Internal(format!(
                    "the size of '{}' of struct {sid}, field {ti}",
                    target.name
                )))
            }
        };
        Ok(if target.condition.is_some() {
            let has = if is_value_type(&target.ty) {
                format!("{tx}.HasValue")
            } else {
                format!("{tx} != null")
            };
            format!("({has} ? {v} : 0L)")
        } else {
            v
        })
    }

    /// A value outside `max` or `valid` (the user's, or one the encoder derives: a variant's
    /// tag) is refused, as the decoder refuses it.
    pub(super) fn value_checks(&self, c: &mut Code, f: &Field, x: &str) {
        if !matches!(f.role, Role::Value | Role::Derived(_)) {
            return;
        }
        let nm = lit(&f.name);
        if let Some(m) = f.max {
            c.line(&format!("if ((ulong){x} > {m}UL)"));
            c.open();
            c.line(&format!(
                "throw new EncodeException({nm}, {x} + \" is over the largest allowed, {m}\");"
            ));
            c.close();
        }
        if let Some(v) = &f.valid {
            c.line(&format!(
                "if ({})",
                super::decode::invalid_test(v, &format!("(long){x}"))
            ));
            c.open();
            c.line(&format!(
                "throw new EncodeException({nm}, {x} + \" is not a valid value\");"
            ));
            c.close();
        }
    }

    /// A value whose length an expression gives (nothing derives) must have that length.
    pub(super) fn len_check(
        &self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        f: &Field,
        x: &str,
    ) -> Result<(), Internal> {
        let _ = (sid, fi);
        let e = match &f.ty {
            Ty::Bytes(Len::Expr(e)) | Ty::Str(Len::Expr(e), _) | Ty::Array(_, Len::Expr(e)) => e,
            _ => return Ok(()),
        };
        let n = match &f.ty {
            Ty::Str(..) => format!("{}Bytes.Length", local(&f.name)),
            _ => format!("{x}.Count"),
        };
        c.line(&format!("if ({n} != {})", self.exprs().expr(e)));
        c.open();
        c.line(&format!(
            "throw new EncodeException({}, \"its length is not what its length expression says\");",
            lit(&f.name)
        ));
        c.close();
        Ok(())
    }
}
