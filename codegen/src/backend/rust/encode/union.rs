//! Encoding a switch: the variant's body, its tag and length checked or derived.

use super::*;

impl<'p> Encoder<'p> {
    pub(crate) fn write_union(
        &self,
        sid: StructId,
        fi: usize,
        u: &Union,
        place: &Place,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        let (v, borrowed) = (place.value(), place.borrowed());
        let un = ident(&self.c.p.union_name(sid, fi));
        let tag = self.c.types().tag_field(sid, fi);
        // A tag the encoder does not derive from this switch (another switch on the same field
        // derives it, or the user sets it) must select the variant given: checked, so the
        // bytes decode as that variant. (A tag read from the position is the data's own.)
        let outside = |values: &[CaseValue], owned: bool| {
            self.tag_value_check(u, tag.is_some(), values, owned, nm)
        };
        let mut arms = Vec::new();
        for c in &u.cases {
            let var = variant_ident(&c.variant);
            let carries = tag.is_some() && c.single().is_none();
            let tag_check = outside(&c.values, false);
            let write = self.write_case_body(sid, c.body, quote! { value }, nm)?;
            let range_check = match (carries, tag) {
                (true, Some((_, tf))) => {
                    let tn = ident(&tf.name);
                    let kind = TagKind::of(&tf.ty);
                    let pats = self.c.exprs().tag_patterns(kind, &c.values);
                    let subject = match kind {
                        TagKind::Wide => quote! { *#tn as i128 },
                        _ => quote! { #tn },
                    };
                    let raw = match kind {
                        TagKind::Enum(_) => kind.raw(quote! { #tn }),
                        _ => kind.raw(quote! { *#tn }),
                    };
                    let outside = quote! {
                        return Err(EncodeError::new(#nm, EncodeErrorKind::TagOutsideCase { tag: #raw }));
                    };
                    if pats.is_empty() {
                        // The tag's type holds none of the case's values (the decoder never
                        // chooses it): encoding it is always refused, and nothing is written.
                        arms.push(quote! { #un::#var { #tn, .. } => { #outside } });
                        continue;
                    }
                    quote! {
                        if !matches!(#subject, #(#pats)|*) {
                            #outside
                        }
                    }
                }
                _ => quote! {},
            };
            let tag_bind = match (carries, tag) {
                (true, Some((_, tf))) => {
                    let tn = ident(&tf.name);
                    quote! { #tn, }
                }
                _ => quote! {},
            };
            arms.push(match (carries, c.body) {
                (true, CaseBody::Empty) => quote! { #un::#var { #tag_bind } => { #range_check } },
                (_, CaseBody::Empty) => quote! { #un::#var => { #tag_check } },
                (true, _) => quote! { #un::#var { #tag_bind value } => { #range_check #write } },
                // One call and nothing to check: the arm is the call (a `()`).
                (false, CaseBody::Struct(id))
                    if tag_check.is_none() && !self.writes_bits_into_bytes(sid, id) =>
                {
                    quote! { #un::#var(value) => value.write(w).within(#nm)?, }
                }
                (false, _) => quote! { #un::#var(value) => { #tag_check #write } },
            });
        }
        if let Some(b) = u.default {
            arms.push(self.default_arm(sid, fi, u, b, nm)?);
        }
        let guard = match (&u.unless, u.default) {
            (Some(cond), Some(_)) if !cond.reads_position() => {
                // `&&` binds tighter than `||` only.
                let cond = match cond {
                    Expr::Binary(BinOp::Or, ..) => self.c.exprs().expr(cond, Ctx::Encode),
                    _ => self.c.exprs().expr_top(cond, Ctx::Encode),
                };
                let other = variant_ident(&u.default_variant);
                quote! {
                    if #cond && !matches!(#v, #un::#other { .. }) {
                        return Err(EncodeError::new(#nm, EncodeErrorKind::NotDefault));
                    }
                }
            }
            _ => quote! {},
        };
        Ok(quote! { #guard match #borrowed { #(#arms)* } })
    }

    /// The arm of a switch's default variant: its tag checked (not one a named case owns), its
    /// body written.
    fn default_arm(
        &self,
        sid: StructId,
        fi: usize,
        u: &Union,
        b: CaseBody,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        let un = ident(&self.c.p.union_name(sid, fi));
        let tag = self.c.types().tag_field(sid, fi);
        // The catch-all must not carry a tag a named case owns (unless the `unless`
        // condition holds, when any tag goes).
        let check = tag.and_then(|(_, tf)| self.default_tag_check(u, tf, nm));
        // A tag this switch does not derive: the same, on its value (no `unless`: there
        // any tag goes).
        let check = check.or_else(|| {
            let all = merged_values(u.cases.iter().flat_map(|c| c.values.iter().copied()));
            u.unless
                .is_none()
                .then(|| self.tag_value_check(u, tag.is_some(), &all, true, nm))
                .flatten()
        });
        let tag_bind = tag.map(|(_, tf)| {
            let tn = ident(&tf.name);
            quote! { #tn, }
        });
        let write = self.write_case_body(sid, b, quote! { data }, nm)?;
        let bind = match b {
            CaseBody::Bytes => quote! { data, },
            CaseBody::Struct(_) | CaseBody::Array(_) => quote! { value, },
            CaseBody::Empty => quote! {},
        };
        let other = variant_ident(&u.default_variant);
        let binding = match (tag.is_some(), b) {
            (true, _) => quote! { #un::#other { #tag_bind #bind .. } },
            (false, CaseBody::Empty) => quote! { #un::#other },
            (false, CaseBody::Bytes) => quote! { #un::#other(data) },
            (false, CaseBody::Struct(_) | CaseBody::Array(_)) => quote! { #un::#other(value) },
        };
        Ok(quote! { #binding => { #check #write } })
    }

    /// Writes a case's body bound as `value` (its bytes as `bytes`): a struct, each element
    /// of an array, the bytes.
    fn write_case_body(
        &self,
        sid: StructId,
        body: CaseBody,
        bytes: TokenStream,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        Ok(match body {
            CaseBody::Struct(id) => self.write_struct_call(sid, id, quote! { value }, nm)?,
            CaseBody::Array(id) => {
                let item = self.write_struct_call(sid, id, quote! { item }, nm)?;
                quote! { for item in value.iter() { #item } }
            }
            CaseBody::Bytes => quote! { w.put(#bytes); },
            CaseBody::Empty => quote! {},
        })
    }

    /// A check that a tag this switch does not derive (set by the user, or derived by another
    /// switch on the same field) selects the variant given: outside the case's `values`, or
    /// (`owned`, the default) one a named case owns. None where the encoder writes the tag.
    fn tag_value_check(
        &self,
        u: &Union,
        tag_is_field: bool,
        values: &[CaseValue],
        owned: bool,
        nm: &str,
    ) -> Option<TokenStream> {
        if tag_is_field || u.on.reads_position() || u.on.reads_state() {
            return None;
        }
        let e = self.c.exprs().expr_top(&u.on, Ctx::Encode);
        let bool_tag = matches!(&u.on, Expr::Field(p) if matches!(self.c.p.field(p.last().unwrap()).ty, Ty::Bool));
        let x = if bool_tag {
            quote! { (#e as i128) }
        } else {
            e
        };
        let pats: Vec<TokenStream> = values.iter().map(case_pattern).collect();
        let wrong = if pats.is_empty() {
            quote! { !owned }
        } else if owned {
            quote! { matches!(x, #(#pats)|*) }
        } else {
            quote! { !matches!(x, #(#pats)|*) }
        };
        let kind = if owned {
            quote! { TagHasVariant }
        } else {
            quote! { TagOutsideCase }
        };
        Some(quote! {
            let x: i128 = #x;
            if #wrong {
                return Err(EncodeError::new(#nm, EncodeErrorKind::#kind { tag: x as u64 }));
            }
        })
    }

    /// The default variant's check that its tag field holds no value a named case owns
    /// (unless the `unless` condition holds, when any tag goes); none when the position decides.
    fn default_tag_check(&self, u: &Union, tf: &Field, nm: &str) -> Option<TokenStream> {
        let tn = ident(&tf.name);
        // Matched on the number: the owned values as a few ranges.
        let kind = match TagKind::of(&tf.ty) {
            TagKind::Enum(id) => TagKind::Unsigned(self.c.p.enums[id].repr.storage_bits()),
            other => other,
        };
        let number = match (&tf.ty, kind) {
            (Ty::Enum(_), _) => quote! { #tn.raw() },
            (_, TagKind::Wide) => quote! { *#tn as i128 },
            _ => quote! { *#tn },
        };
        let raw = kind.raw(number.clone());
        let all = merged_values(u.cases.iter().flat_map(|c| c.values.iter().copied()));
        let pats = self.c.exprs().tag_patterns(kind, &all);
        // No check when the position decides (`unless: "@remaining == 0"`).
        if pats.is_empty() || u.unless.as_ref().is_some_and(Expr::reads_position) {
            return None;
        }
        // `if let` rather than `matches!`: a range pattern inside a macro is left as
        // the token printer spaced it (`1..= 3`), outside one rustfmt lays it out.
        let refuse = quote! {
            if let #(#pats)|* = #number {
                return Err(EncodeError::new(#nm, EncodeErrorKind::TagHasVariant { tag: #raw }));
            }
        };
        Some(match &u.unless {
            Some(cond) => {
                let not = self.c.exprs().negated(cond, Ctx::Encode);
                quote! { if #not { #refuse } }
            }
            None => refuse,
        })
    }
}
