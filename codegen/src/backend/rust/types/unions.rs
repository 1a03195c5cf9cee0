//! Switches: the enum of a switch's variants, the tag each variant is sent with.

use super::*;

impl<'p> Gen<'p> {
    pub(crate) fn union_def(
        &self,
        sid: StructId,
        fi: usize,
        f: &Field,
        u: &Union,
    ) -> Result<TokenStream, Internal> {
        let p = self.p;
        let name = ident(&p.union_name(sid, fi));
        let lt = if self.union_borrows(u) {
            quote! { <'a> }
        } else {
            quote! {}
        };
        let tag = self.tag_field(sid, fi);
        let tag_ty = match tag {
            Some((ti, tf)) => Some((ti, tf, self.rust_ty(sid, ti, &tf.ty)?)),
            None => None,
        };
        let mut variants = Vec::new();
        let mut tag_arms = Vec::new();
        // `into_owned` arms: each variant rebuilt with its borrowed payload copied.
        let mut owned_arms = Vec::new();
        let borrows = |body: CaseBody| match body {
            CaseBody::Bytes => true,
            CaseBody::Struct(id) | CaseBody::Array(id) => self.l.borrows[id],
            CaseBody::Empty => false,
        };
        let owned = |body: CaseBody, x: TokenStream| {
            if borrows(body) {
                quote! { IntoOwned::into_owned(#x) }
            } else {
                x
            }
        };
        // A named field of a variant: `value`, or `value: IntoOwned::into_owned(value)`.
        let owned_field = |body: CaseBody, name: TokenStream| {
            if borrows(body) {
                quote! { #name: IntoOwned::into_owned(#name) }
            } else {
                name
            }
        };
        let tag_name = tag_ty.as_ref().map(|(_, tf, _)| ident(&tf.name));
        for c in &u.cases {
            let v = variant_ident(&c.variant);
            let cd = doc(&c.doc);
            let carries_tag = tag_ty.is_some() && c.single().is_none();
            // The payload's type, and the attribute its field carries (bytes serialize as hex).
            let hex = self.features().serde_hex();
            let (attr, payload) = match c.body {
                CaseBody::Struct(id) => {
                    let n = ident(&p.structs[id].name);
                    let l = self.lifetime(id);
                    (quote! {}, Some(quote! { #n #l }))
                }
                CaseBody::Array(id) => {
                    let n = ident(&p.structs[id].name);
                    let l = self.lifetime(id);
                    (quote! {}, Some(quote! { Vec<#n #l> }))
                }
                CaseBody::Bytes => (hex, Some(quote! { Cow<'a, [u8]> })),
                CaseBody::Empty => (quote! {}, None),
            };
            let tag_decl = tag_ty.as_ref().map(|(_, tf, t)| {
                let tn = ident(&tf.name);
                quote! { #tn: #t }
            });
            let value = owned(c.body, quote! { value });
            let value_field = owned_field(c.body, quote! { value });
            owned_arms.push(match (carries_tag, payload.is_some()) {
                (true, true) => {
                    quote! { Self::#v { #tag_name, value } => #name::#v { #tag_name, #value_field }, }
                }
                (true, false) => quote! { Self::#v { #tag_name } => #name::#v { #tag_name }, },
                (false, true) => quote! { Self::#v(value) => #name::#v(#value), },
                (false, false) => quote! { Self::#v => #name::#v, },
            });
            variants.push(match (carries_tag, payload.clone()) {
                (true, Some(pl)) => quote! { #cd #v { #tag_decl, #attr value: #pl }, },
                (true, None) => quote! { #cd #v { #tag_decl }, },
                (false, Some(pl)) => quote! { #cd #v(#attr #pl), },
                (false, None) => quote! { #cd #v, },
            });
            if let Some((_, tf, _)) = &tag_ty {
                let tn = ident(&tf.name);
                tag_arms.push(if carries_tag {
                    quote! { Self::#v { #tn, .. } => *#tn, }
                } else {
                    let val = self.tag_value_expr(&tf.ty, c.single().unwrap_or(0));
                    if payload.is_some() {
                        quote! { Self::#v(_) => #val, }
                    } else {
                        quote! { Self::#v => #val, }
                    }
                });
            }
        }
        if let Some(body) = u.default {
            let tag_decl = tag_ty.as_ref().map(|(_, tf, t)| {
                let tn = ident(&tf.name);
                quote! { #tn: #t, }
            });
            let data = match body {
                CaseBody::Bytes => {
                    let hex = self.features().serde_hex();
                    quote! { #hex data: Cow<'a, [u8]>, }
                }
                CaseBody::Struct(id) => {
                    let n = ident(&p.structs[id].name);
                    let l = self.lifetime(id);
                    quote! { value: #n #l, }
                }
                CaseBody::Array(id) => {
                    let n = ident(&p.structs[id].name);
                    let l = self.lifetime(id);
                    quote! { value: Vec<#n #l>, }
                }
                CaseBody::Empty => quote! {},
            };
            let what = match body {
                CaseBody::Bytes => " Any other tag value: the data is kept as bytes.",
                _ => " Any other tag value.",
            };
            let other = variant_ident(&u.default_variant);
            // Without a tag to carry, the default reads like any other case: `Name(T)`.
            let untagged = match body {
                CaseBody::Bytes => {
                    let hex = self.features().serde_hex();
                    Some(quote! { #hex Cow<'a, [u8]> })
                }
                CaseBody::Struct(id) => {
                    let n = ident(&p.structs[id].name);
                    let l = self.lifetime(id);
                    Some(quote! { #n #l })
                }
                CaseBody::Array(id) => {
                    let n = ident(&p.structs[id].name);
                    let l = self.lifetime(id);
                    Some(quote! { Vec<#n #l> })
                }
                CaseBody::Empty => None,
            };
            let value = owned(body, quote! { value });
            owned_arms.push(match (&tag_name, body) {
                (None, CaseBody::Empty) => quote! { Self::#other => #name::#other, },
                (None, _) => quote! { Self::#other(value) => #name::#other(#value), },
                (Some(tn), CaseBody::Empty) => {
                    quote! { Self::#other { #tn } => #name::#other { #tn }, }
                }
                (Some(tn), CaseBody::Bytes) => {
                    let data = owned_field(body, quote! { data });
                    quote! { Self::#other { #tn, data } => #name::#other { #tn, #data }, }
                }
                (Some(tn), CaseBody::Struct(_) | CaseBody::Array(_)) => {
                    let value = owned_field(body, quote! { value });
                    quote! { Self::#other { #tn, value } => #name::#other { #tn, #value }, }
                }
            });
            variants.push(match (&tag_ty, untagged) {
                (None, Some(t)) => quote! { #[doc = #what] #other(#t), },
                (None, None) => quote! { #[doc = #what] #other, },
                _ => quote! { #[doc = #what] #other { #tag_decl #data }, },
            });
            if let Some((_, tf, _)) = &tag_ty {
                let tn = ident(&tf.name);
                tag_arms.push(quote! { Self::#other { #tn, .. } => *#tn, });
            }
        }
        let fd = doc(&f.doc);
        let tag_method = tag_ty.as_ref().map(|(_, tf, t)| {
            let tn = ident(&tf.name);
            let msg = format!(" The `{}` this variant is sent with.", tf.name);
            quote! {
                impl #lt #name #lt {
                    #[doc = #msg]
                    pub fn #tn(&self) -> #t {
                        match self { #(#tag_arms)* }
                    }
                }
            }
        });
        let into_owned = self.union_borrows(u).then(|| {
            quote! {
                impl IntoOwned for #name<'_> {
                    type Owned = #name<'static>;
                    fn into_owned(self) -> #name<'static> {
                        match self { #(#owned_arms)* }
                    }
                }
            }
        });
        let derives = self.features().data_derives();
        Ok(quote! {
            #fd
            #derives
            pub enum #name #lt {
                #(#variants)*
            }
            #tag_method
            #into_owned
        })
    }
}
