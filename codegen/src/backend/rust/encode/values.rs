//! Writing a field the user sets: its checks (max, valid values, presence, length), the
//! values the encoder implies, and the lengths patched after it.

use super::*;

impl<'p> Encoder<'p> {
    /// A field the user sets.
    pub(super) fn write_value(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let s = &p.structs[sid];
        let f = &s.fields[fi];
        let nm = f.name.as_str();
        let local = ident(&f.name);
        let plan = &self.c.l.field(sid, fi).write;
        let (at, at_local) = self.field_start(sid, fi);
        Ok(match &f.role {
            Role::Value => {
                // Numbers are written from their values (an optional one copied out of its
                // `Option`), others through a reference.
                let number = f.ty.is_scalar() || f.ty.is_varint();
                let (bound, borrow) = if number {
                    (Place::Value(quote! { v }), quote! {})
                } else {
                    (Place::Ref(quote! { v }), quote! { & })
                };
                // The checks of a value before it is written, on `v`.
                let checks = |v: &TokenStream| -> TokenStream {
                    let max = f.max.map(|m| {
                        let m = lit_u64(m);
                        quote! { fit(#v as u64, #m, #nm)?; }
                    });
                    let valid = f.valid.as_ref().map(|valid| {
                        let x = self.c.temp(sid, "x");
                        let bad = invalid_test(valid, quote! { #x });
                        quote! {
                            let #x = #v as i128;
                            if #bad {
                                return Err(EncodeError::new(#nm, EncodeErrorKind::NotValid { value: #x }));
                            }
                        }
                    });
                    quote! { #max #valid }
                };
                let write = match (&f.condition, plan.presence) {
                    (None, _) => {
                        let implied = (!f.implied.is_empty())
                            .then(|| self.implied(sid, f))
                            .transpose()?;
                        // Implied values are locals; the others are the struct's fields.
                        let place = if implied.is_some() {
                            quote! { #local }
                        } else {
                            quote! { self.#local }
                        };
                        let checks = checks(&place);
                        let body = self.write_ty(sid, fi, &f.ty, Place::Value(place), nm)?;
                        quote! { #implied #checks #body }
                    }
                    (Some(_), Presence::FromValue | Presence::Always) => {
                        let (checks, body) = (
                            checks(&bound.number()),
                            self.write_ty(sid, fi, &f.ty, bound.clone(), nm)?,
                        );
                        quote! { if let Some(v) = #borrow self.#local { #checks #body } }
                    }
                    (Some(c), Presence::Checked) => {
                        let (checks, body) = (
                            checks(&bound.number()),
                            self.write_ty(sid, fi, &f.ty, bound.clone(), nm)?,
                        );
                        let cond = self.c.exprs().expr_top(c, Ctx::Encode);
                        quote! {
                            match (#borrow self.#local, #cond) {
                                (Some(v), true) => { #checks #body }
                                (None, false) => {}
                                (Some(_), false) => return Err(EncodeError::new(#nm, EncodeErrorKind::Presence { present: true })),
                                (None, true) => return Err(EncodeError::new(#nm, EncodeErrorKind::Presence { present: false })),
                            }
                        }
                    }
                };
                let len_check = self.length_check(sid, fi);
                // Derived lengths that wait for this field's encoding are patched now.
                let patches = plan.patches.iter().filter_map(|&di| {
                    let d = &s.fields[di];
                    let (Role::Derived(Derive::LengthOf(_, l)), Some(it)) =
                        (&d.role, self.int_repr(&d.ty))
                    else {
                        return None;
                    };
                    let dat = ident(&self.c.l.field(sid, di).locals.at);
                    let dn = d.name.as_str();
                    let max = size_max(d, it);
                    let value = self.c.temp(sid, "value");
                    let put = uint_bytes(quote! { #value }, &format_ident!("u64"), &it);
                    let size = size_value(quote! { (w.len() - #at) }, *l, dn);
                    Some(quote! {
                        let #value = fit(#size, #max, #dn)?;
                        w.patch(#dat, &#put);
                    })
                });
                // The bytes an array's elements fill are known once they are written.
                let bytes_check = match &f.ty {
                    Ty::Array(_, Len::Bytes(e)) if plan.bytes_check => {
                        Some(self.size_check(sid, e, quote! { #at }, nm))
                    }
                    _ => None,
                };
                quote! { #at_local #len_check #write #bytes_check #(#patches)* }
            }
            _ => return Err(Internal(format!("'{nm}': not written by write_value"))),
        })
    }

    /// Lengths given by a non-trivial expression are checked against the data. One
    /// that reads the position (`@remaining - 2`) is the data's own length: what
    /// follows it is written after, and the decoder finds it the same way.
    /// A size that is derived from the data needs no check.
    fn length_check(&self, sid: StructId, fi: usize) -> TokenStream {
        let f = &self.c.p.structs[sid].fields[fi];
        let (nm, local) = (f.name.as_str(), ident(&f.name));
        let plan = &self.c.l.field(sid, fi).write;
        match &f.ty {
            Ty::Bytes(Len::Expr(e))
            | Ty::Str(Len::Expr(e), Text { nul: Nul::No, .. })
            | Ty::Array(_, Len::Expr(e))
                if plan.len_check =>
            {
                let ex = self.c.exprs().expr_top(e, Ctx::Encode);
                // An optional value is checked when it is there.
                let value = match f.condition {
                    None => quote! { self.#local },
                    Some(_) => quote! { v },
                };
                let len = wire_len(&f.ty, value);
                let (expected, actual) = (self.c.temp(sid, "expected"), self.c.temp(sid, "actual"));
                let (expected_init, actual_init) = (
                    field_init("expected", &expected),
                    field_init("actual", &actual),
                );
                let check = quote! {
                    let #expected: i128 = #ex;
                    let #actual = #len;
                    if #expected != #actual as i128 {
                        return Err(EncodeError::new(#nm, EncodeErrorKind::LengthMismatch { #expected_init, #actual_init }));
                    }
                };
                match f.condition {
                    None => check,
                    Some(_) => quote! { if let Some(v) = &self.#local { #check } },
                }
            }
            _ => quote! {},
        }
    }
}
