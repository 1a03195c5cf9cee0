//! Writing a field the user sets: its checks (max, valid values, presence, length), the
//! values the encoder implies, and the lengths patched after it.

use super::*;

impl<'p> Gen<'p> {
    /// A field the user sets.
    pub(super) fn write_value(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let p = self.p;
        let s = &p.structs[sid];
        let f = &s.fields[fi];
        let nm = f.name.as_str();
        let local = ident(&f.name);
        let plan = &self.l.field(sid, fi).write;
        let (at, at_local) = self.field_start(sid, fi);
        Ok(match &f.role {
            Role::Value => {
                let value = quote! { v };
                let body = self.write_ty(sid, fi, &f.ty, value, nm)?;
                let max_check = match f.max {
                    Some(m) => {
                        let m = lit_u64(m);
                        quote! { fit(*v as u64, #m, #nm)?; }
                    }
                    None => quote! {},
                };
                let max_check = match &f.valid {
                    Some(valid) => {
                        let x = self.temp(sid, "x");
                        let bad = invalid_test(valid, quote! { #x });
                        quote! {
                            #max_check
                            let #x = *v as i128;
                            if #bad {
                                return Err(EncodeError::new(#nm, EncodeErrorKind::NotValid { value: #x }));
                            }
                        }
                    }
                    None => max_check,
                };
                let write = match (&f.condition, plan.presence) {
                    (None, _) if !f.implied.is_empty() => {
                        let implied = self.implied(s, f)?;
                        quote! { #implied { let v = &#local; #max_check #body } }
                    }
                    // A number written as it is: from the field itself.
                    (None, _) if f.ty.is_scalar() && max_check.is_empty() && !f.ty.is_varint() => {
                        self.write_scalar(sid, fi, &f.ty, quote! { self.#local }, nm)?
                    }
                    (None, _) => quote! { { let v = &self.#local; #max_check #body } },
                    (Some(_), Presence::FromValue | Presence::Always) => {
                        quote! { if let Some(v) = &self.#local { #max_check #body } }
                    }
                    (Some(c), Presence::Checked) => {
                        let cond = self.expr_top(c, Ctx::Encode);
                        quote! {
                            match (&self.#local, #cond) {
                                (Some(v), true) => { #max_check #body }
                                (None, false) => {}
                                (Some(_), false) => return Err(EncodeError::new(#nm, EncodeErrorKind::Presence { present: true })),
                                (None, true) => return Err(EncodeError::new(#nm, EncodeErrorKind::Presence { present: false })),
                            }
                        }
                    }
                };
                // Lengths given by a non-trivial expression are checked against the data. One
                // that reads the position (`@remaining - 2`) is the data's own length: what
                // follows it is written after, and the decoder finds it the same way.
                // A size that is derived from the data needs no check.
                let len_check = match &f.ty {
                    Ty::Bytes(Len::Expr(e))
                    | Ty::Str(Len::Expr(e), Text { nul: Nul::No, .. })
                    | Ty::Array(_, Len::Expr(e))
                        if plan.len_check =>
                    {
                        let ex = self.expr_top(e, Ctx::Encode);
                        // An optional value is checked when it is there.
                        let value = match f.condition {
                            None => quote! { self.#local },
                            Some(_) => quote! { v },
                        };
                        let len = wire_len(&f.ty, value);
                        let (expected, actual) =
                            (self.temp(sid, "expected"), self.temp(sid, "actual"));
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
                };
                // Derived lengths that wait for this field's encoding are patched now.
                let patches = plan.patches.iter().filter_map(|&di| {
                    let d = &s.fields[di];
                    let (Role::Derived(Derive::LengthOf(_, l)), Some(it)) =
                        (&d.role, self.int_repr(&d.ty))
                    else {
                        return None;
                    };
                    let dat = ident(&self.l.field(sid, di).locals.at);
                    let dn = d.name.as_str();
                    let max = size_max(d, it);
                    let value = self.temp(sid, "value");
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
}
