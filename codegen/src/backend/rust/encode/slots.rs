//! Writing the fields the encoder fills itself: constants, reserved zeros, checksum
//! placeholders, tags and presence bits.

use super::*;

impl<'p> Encoder<'p> {
    /// A constant, reserved field, checksum (zeros now, computed once the struct is written), a
    /// switch tag or a presence bit.
    pub(super) fn write_slot(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let s = &p.structs[sid];
        let f = &s.fields[fi];
        let nm = f.name.as_str();
        let local = ident(&f.name);
        let (_, at_local) = self.field_start(sid, fi);
        Ok(match &f.role {
            Role::Const(c) => {
                let Some(it) = self.int_repr(&f.ty) else {
                    return Err(Internal(format!("constant '{nm}' is not an integer")));
                };
                let typed = const_typed(f, *c, &int_rust(&it));
                let put = write_int(&it, quote! { #typed }, nm, self.c.bits_at(sid, fi));
                // Bound only for the expressions of later fields that read it.
                let value = match f.ty {
                    Ty::Enum(id) => {
                        let en = ident(&p.enums[id].name);
                        quote! { #en::from_raw(#typed) }
                    }
                    // A negative one in its own type (its bits as a `u64` are not its value).
                    _ if f.const_negative() => negative_literal(f, &int_rust(&it))
                        .unwrap_or_default()
                        .parse()
                        .map_err(|_| Internal(format!("constant '{nm}' is not a literal")))?,
                    _ => quote! { #c },
                };
                let bind = self
                    .c
                    .l
                    .field(sid, fi)
                    .read_by_expressions
                    .then(|| quote! { let #local = #value; });
                quote! { #at_local #bind #put }
            }
            Role::Reserved => {
                // Bound only for the expressions of later fields that read it.
                let bind = self
                    .c
                    .l
                    .field(sid, fi)
                    .read_by_expressions
                    .then(|| quote! { let #local = 0; });
                match &f.ty {
                    Ty::Int(it) => {
                        let typed = lit_typed(0, &int_rust(it));
                        let put = write_int(it, quote! { #typed }, nm, self.c.bits_at(sid, fi));
                        quote! { #at_local #bind #put }
                    }
                    Ty::Bytes(Len::Expr(Expr::Int(n, _))) => {
                        let n = lit_usize(*n as usize);
                        quote! { #at_local w.put(&[0u8; #n]); }
                    }
                    _ => return Err(Internal(format!("'{nm}': a reserved field of this type"))),
                }
            }
            Role::Checksum(_) if self.c.bits_at(sid, fi) => {
                return Err(Internal("a checksum in a bit stream".into()))
            }
            Role::Checksum(_) => {
                let n = lit_usize(self.c.p.fixed_size(&f.ty).unwrap_or(0));
                quote! { #at_local w.put(&[0u8; #n]); }
            }
            Role::Derived(Derive::TagOf(ui)) => {
                let uf = ident(&s.fields[*ui].name);
                let v = ident(&f.name);
                let put = self.write_scalar(sid, fi, &f.ty, quote! { #local }, nm)?;
                // A variant whose tag the field's `max` or `valid` leaves out is refused (a
                // reader would refuse the tag).
                let max = match (f.max, &f.ty) {
                    (Some(m), Ty::Int(_)) => {
                        let m = lit_u64(m);
                        quote! { fit(#local as u64, #m, #nm)?; }
                    }
                    _ => quote! {},
                };
                let valid = match (&f.valid, &f.ty) {
                    (Some(valid), Ty::Int(_)) => {
                        let bad = invalid_test(valid, quote! { (#local as i128) });
                        quote! {
                            if #bad {
                                return Err(EncodeError::new(#nm, EncodeErrorKind::NotValid { value: #local as i128 }));
                            }
                        }
                    }
                    _ => quote! {},
                };
                quote! { #at_local let #local = self.#uf.#v(); #max #valid #put }
            }
            Role::Derived(Derive::PresenceOf(ti)) => {
                let tn = ident(&s.fields[*ti].name);
                let put = self.write_scalar(sid, fi, &f.ty, quote! { #local }, nm)?;
                quote! { #at_local let #local = self.#tn.is_some(); #put }
            }
            Role::Derived(Derive::AbsenceOf(ti)) => {
                let tn = ident(&s.fields[*ti].name);
                let put = self.write_scalar(sid, fi, &f.ty, quote! { #local }, nm)?;
                quote! { #at_local let #local = self.#tn.is_none(); #put }
            }
            _ => return Err(Internal(format!("'{nm}': not written by write_slot"))),
        })
    }
}
