//! Switches: the enum of a switch's variants, the tag each variant is sent with.

use super::*;

impl<'p> Types<'p> {
    pub(crate) fn union_def(
        &self,
        sid: StructId,
        fi: usize,
        f: &Field,
        u: &Union,
    ) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let name = ident(&p.union_name(sid, fi));
        let lt = if self.c.union_borrows(u) {
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
        let tag_name = tag_ty.as_ref().map(|(_, tf, _)| ident(&tf.name));
        // The functions variants' random tags come from, beside the tag method.
        let mut tag_draws = Vec::new();
        for c in &u.cases {
            let v = variant_ident(&c.variant);
            let cd = doc(&c.doc);
            let carries_tag = tag_ty.is_some() && c.single().is_none();
            // The payload's type, and the attribute its field carries (bytes serialize as hex).
            let hex = self.c.features().serde_hex();
            let attr = if c.body == CaseBody::Bytes {
                hex
            } else {
                quote! {}
            };
            let payload = self.case_payload(c.body);
            let tag_decl = tag_ty.as_ref().map(|(_, tf, t)| {
                let tn = ident(&tf.name);
                let (draw, function) = match carries_tag {
                    true => self.c.arbitrary_values().arbitrary_case_tag(&tf.ty, t, c),
                    false => (quote! {}, None),
                };
                tag_draws.extend(function);
                quote! { #draw #tn: #t }
            });
            let value = self.owned(c.body, quote! { value });
            let value_field = self.owned_field(c.body, quote! { value });
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
                tag_arms.push(self.tag_arm(c, tf, carries_tag, payload.is_some()));
            }
        }
        if let Some(body) = u.default {
            let tag = tag_ty.as_ref().map(|(_, tf, t)| (*tf, t));
            let (variant, owned_arm, tag_arm, draw_fn) = self.default_variant(u, body, &name, tag);
            tag_draws.extend(draw_fn);
            variants.push(variant);
            owned_arms.push(owned_arm);
            tag_arms.extend(tag_arm);
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

                    #(#tag_draws)*
                }
            }
        });
        let into_owned = self.c.union_borrows(u).then(|| {
            quote! {
                impl IntoOwned for #name<'_> {
                    type Owned = #name<'static>;
                    fn into_owned(self) -> #name<'static> {
                        match self { #(#owned_arms)* }
                    }
                }
            }
        });
        let derives = self.c.features().data_derives();
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

    /// The arm of the tag method for case `c`'s variant: the tag it carries, or the one value
    /// its case has.
    fn tag_arm(&self, c: &Case, tf: &Field, carries_tag: bool, payload: bool) -> TokenStream {
        let (v, tn) = (variant_ident(&c.variant), ident(&tf.name));
        if carries_tag {
            return quote! { Self::#v { #tn, .. } => *#tn, };
        }
        let val = self.tag_value_expr(&tf.ty, c.single().unwrap_or(0));
        if payload {
            quote! { Self::#v(_) => #val, }
        } else {
            quote! { Self::#v => #val, }
        }
    }

    /// The default variant (`Other` unless named): its declaration, its `into_owned` arm and
    /// its tag arm (a switch whose tag is a field keeps the tag it was read with).
    fn default_variant(
        &self,
        u: &Union,
        body: CaseBody,
        name: &Ident,
        tag: Option<(&Field, &TokenStream)>,
    ) -> (
        TokenStream,
        TokenStream,
        Option<TokenStream>,
        Option<TokenStream>,
    ) {
        let tag_name = tag.map(|(tf, _)| ident(&tf.name));
        let drawn =
            tag.and_then(|(tf, t)| self.c.arbitrary_values().arbitrary_default_tag(tf, t, u));
        let (draw, draw_fn) = drawn.unzip();
        let tag_decl = tag.map(|(tf, t)| {
            let tn = ident(&tf.name);
            quote! { #draw #tn: #t, }
        });
        let hex = match body {
            CaseBody::Bytes => self.c.features().serde_hex(),
            _ => quote! {},
        };
        let payload = self.case_payload(body);
        let data = match (body, &payload) {
            (CaseBody::Bytes, Some(t)) => quote! { #hex data: #t, },
            (_, Some(t)) => quote! { value: #t, },
            (_, None) => quote! {},
        };
        let what = match body {
            CaseBody::Bytes => " Any other tag value: the data is kept as bytes.",
            _ => " Any other tag value.",
        };
        let other = variant_ident(&u.default_variant);
        // Without a tag to carry, the default reads like any other case: `Name(T)`.
        let untagged = payload.map(|t| quote! { #hex #t });
        let value = self.owned(body, quote! { value });
        let owned_arm = match (&tag_name, body) {
            (None, CaseBody::Empty) => quote! { Self::#other => #name::#other, },
            (None, _) => quote! { Self::#other(value) => #name::#other(#value), },
            (Some(tn), CaseBody::Empty) => {
                quote! { Self::#other { #tn } => #name::#other { #tn }, }
            }
            (Some(tn), CaseBody::Bytes) => {
                let data = self.owned_field(body, quote! { data });
                quote! { Self::#other { #tn, data } => #name::#other { #tn, #data }, }
            }
            (Some(tn), CaseBody::Struct(_) | CaseBody::Array(_)) => {
                let value = self.owned_field(body, quote! { value });
                quote! { Self::#other { #tn, value } => #name::#other { #tn, #value }, }
            }
        };
        // A default no tag can choose (every value has a case) is never drawn at random.
        let skip = match tag {
            Some((tf, _)) if self.c.p.cases_cover(&tf.ty, u) => self
                .c
                .features()
                .attr("arbitrary", quote! { arbitrary(skip) }),
            _ => quote! {},
        };
        let variant = match (&tag, untagged) {
            (None, Some(t)) => quote! { #[doc = #what] #other(#t), },
            (None, None) => quote! { #[doc = #what] #other, },
            _ => quote! { #[doc = #what] #skip #other { #tag_decl #data }, },
        };
        let tag_arm = tag_name.map(|tn| quote! { Self::#other { #tn, .. } => *#tn, });
        (variant, owned_arm, tag_arm, draw_fn)
    }

    fn case_borrows(&self, body: CaseBody) -> bool {
        match body {
            CaseBody::Bytes => true,
            CaseBody::Struct(id) | CaseBody::Array(id) => self.c.l.borrows[id],
            CaseBody::Empty => false,
        }
    }

    /// A variant's payload as `into_owned` rebuilds it: copied where it borrows.
    fn owned(&self, body: CaseBody, x: TokenStream) -> TokenStream {
        if self.case_borrows(body) {
            quote! { IntoOwned::into_owned(#x) }
        } else {
            x
        }
    }

    /// A named field of a variant: `value`, or `value: IntoOwned::into_owned(value)`.
    fn owned_field(&self, body: CaseBody, name: TokenStream) -> TokenStream {
        if self.case_borrows(body) {
            quote! { #name: IntoOwned::into_owned(#name) }
        } else {
            name
        }
    }

    /// The type a variant's payload has: a struct, an array of them, bytes, or none.
    fn case_payload(&self, body: CaseBody) -> Option<TokenStream> {
        let named = |id: StructId| {
            let (n, l) = (ident(&self.c.p.structs[id].name), self.c.lifetime(id));
            quote! { #n #l }
        };
        match body {
            CaseBody::Struct(id) => Some(named(id)),
            CaseBody::Array(id) => {
                let t = named(id);
                Some(quote! { Vec<#t> })
            }
            CaseBody::Bytes => Some(quote! { Cow<'a, [u8]> }),
            CaseBody::Empty => None,
        }
    }
}
