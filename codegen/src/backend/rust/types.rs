//! Type definitions: enums, flag sets, structs and unions.

use super::*;

impl<'p> Gen<'p> {
    pub(crate) fn enum_def(&self, e: &Enum) -> TokenStream {
        let name = ident(&e.name);
        if let Some(base) = &self.base_crate() {
            if self.reuse.enums[self
                .p
                .enums
                .iter()
                .position(|x| x.name == e.name)
                .unwrap_or(0)]
            {
                return quote! { pub use #base::#name; };
            }
        }
        let d = doc(&e.doc);
        let raw = int_rust(&e.repr);
        let variants: Vec<Ident> = e
            .values
            .iter()
            .map(|v| ident(&v.name.to_upper_camel_case()))
            .collect();
        let docs = e.values.iter().map(|v| doc(&v.doc));
        let values: Vec<Literal> = e.values.iter().map(|v| lit_u64(v.value)).collect();
        let names: Vec<&str> = e.values.iter().map(|v| v.name.as_str()).collect();
        // Named ranges: variants that carry their value.
        let rvariants: Vec<Ident> = e
            .ranges
            .iter()
            .map(|r| ident(&r.name.to_upper_camel_case()))
            .collect();
        let rdocs = e.ranges.iter().map(|r| {
            let range = format!(" Values {}..={}.", r.lo, r.hi);
            match &r.doc {
                Some(d) => {
                    let d = format!(" {d}");
                    quote! { #[doc = #d] #[doc = ""] #[doc = #range] }
                }
                None => quote! { #[doc = #range] },
            }
        });
        let rpats: Vec<TokenStream> = e
            .ranges
            .iter()
            .map(|r| {
                let (lo, hi) = (lit_u64(r.lo), lit_u64(r.hi));
                quote! { #lo..=#hi }
            })
            .collect();
        let rnames: Vec<&str> = e.ranges.iter().map(|r| r.name.as_str()).collect();
        // A range variant holds a value of its range that no single name takes (a named value
        // inside a range decodes as its own variant).
        let holds = e.ranges.iter().map(|r| {
            let (lo, hi) = (lit_u64(r.lo), lit_u64(r.hi));
            let inside: Vec<Literal> = e
                .values
                .iter()
                .filter(|v| (r.lo..=r.hi).contains(&v.value))
                .map(|v| lit_u64(v.value))
                .collect();
            if inside.is_empty() {
                quote! { (#lo..=#hi).contains(&v) }
            } else {
                quote! { (#lo..=#hi).contains(&v) && !matches!(v, #(#inside)|*) }
            }
        });
        let in_range = (!e.ranges.is_empty()).then(|| {
            quote! {
                /// Whether a range variant holds a value of its range (the encoder refuses one
                /// that does not: it would decode as another variant).
                pub fn in_range(self) -> bool {
                    match self { #( Self::#rvariants(v) => #holds, )* _ => true }
                }
            }
        });
        let (unknown_variant, from_raw, unknown_raw, unknown_name) = if e.closed {
            (
                quote! {},
                quote! {
                    /// The named value for `raw`, if the schema names it.
                    pub const fn from_raw(raw: #raw) -> Option<Self> {
                        match raw {
                            #( #values => Some(Self::#variants), )*
                            #( #rpats => Some(Self::#rvariants(raw)), )*
                            _ => None
                        }
                    }
                },
                quote! {},
                quote! {},
            )
        } else {
            (
                quote! {
                    /// A value the schema does not name, kept as it was on the wire.
                    Unknown(#raw),
                },
                quote! {
                    /// The value for `raw`; unnamed values become [`Self::Unknown`].
                    pub const fn from_raw(raw: #raw) -> Self {
                        match raw {
                            #( #values => Self::#variants, )*
                            #( #rpats => Self::#rvariants(raw), )*
                            other => Self::Unknown(other)
                        }
                    }
                },
                quote! { Self::Unknown(raw) => raw, },
                quote! { Self::Unknown(_) => None, },
            )
        };
        // A range's name does not say its value: such variants serialize as numbers.
        let serde_name = if e.ranges.is_empty() {
            quote! { self.name() }
        } else {
            quote! { match self { #( Self::#rvariants(_) => None, )* _ => self.name() } }
        };
        let serde_from = if e.closed {
            quote! { Self::from_raw(raw).ok_or_else(|| serde::de::Error::custom(format!("{} is not a value of {}", raw, stringify!(#name)))) }
        } else {
            quote! { Ok(Self::from_raw(raw)) }
        };
        let pick = if e.closed {
            quote! { Self::from_raw(raw).ok_or(arbitrary::Error::IncorrectFormat) }
        } else {
            quote! { Ok(Self::from_raw(raw)) }
        };
        let (derive_arbitrary, impl_arbitrary) = super::arbitrary::of_width(&name, &e.repr, pick);
        // Conversions from and to the integer on the wire, as std's traits.
        let from_int = if e.closed {
            quote! {
                /// The named value for `raw`; the error is `raw` when the schema names no value.
                impl TryFrom<#raw> for #name {
                    type Error = #raw;
                    fn try_from(raw: #raw) -> Result<Self, #raw> {
                        Self::from_raw(raw).ok_or(raw)
                    }
                }
            }
        } else {
            quote! {
                impl From<#raw> for #name {
                    fn from(raw: #raw) -> Self {
                        Self::from_raw(raw)
                    }
                }
            }
        };
        quote! {
            #d
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            #derive_arbitrary
            pub enum #name {
                #( #docs #variants, )*
                #( #rdocs #rvariants(#raw), )*
                #unknown_variant
            }

            #impl_arbitrary

            impl #name {
                #from_raw

                /// The value as it is on the wire.
                pub const fn raw(self) -> #raw {
                    match self { #( Self::#variants => #values, )* #( Self::#rvariants(v) => v, )* #unknown_raw }
                }

                /// The schema's name for this value.
                pub const fn name(self) -> Option<&'static str> {
                    match self { #( Self::#variants => Some(#names), )* #( Self::#rvariants(_) => Some(#rnames), )* #unknown_name }
                }

                #in_range

                #[allow(dead_code)]
                const NAMES: &'static [(&'static str, u64)] = &[ #( (#names, #values), )* ];
            }

            impl From<#name> for #raw {
                fn from(value: #name) -> #raw {
                    value.raw()
                }
            }

            #from_int

            #[cfg(feature = "serde")]
            impl serde::Serialize for #name {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    wiregen_runtime::serde_support::named(s, #serde_name, self.raw() as u64)
                }
            }

            #[cfg(feature = "serde")]
            impl<'de> serde::Deserialize<'de> for #name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let wide = wiregen_runtime::serde_support::raw_from_name(d, Self::NAMES)?;
                    let raw = #raw::try_from(wide).map_err(|_| serde::de::Error::custom(format!("{} does not fit {}", wide, stringify!(#name))))?;
                    #serde_from
                }
            }
        }
    }

    pub(crate) fn flags_def(&self, f: &Flags) -> TokenStream {
        let name = ident(&f.name);
        if let Some(base) = &self.base_crate() {
            if self.reuse.flags[self
                .p
                .flags
                .iter()
                .position(|x| x.name == f.name)
                .unwrap_or(0)]
            {
                return quote! { pub use #base::#name; };
            }
        }
        let d = doc(&f.doc);
        let raw = int_rust(&f.repr);
        let consts = f.bits.iter().map(|b| {
            let c = ident(&b.name.to_uppercase());
            let v = lit_u64(b.value);
            let bd = doc(&b.doc);
            quote! { #bd pub const #c: Self = Self(#v); }
        });
        let names: Vec<&str> = f.bits.iter().map(|b| b.name.as_str()).collect();
        let values: Vec<Literal> = f.bits.iter().map(|b| lit_u64(b.value)).collect();
        let (derive_arbitrary, impl_arbitrary) =
            super::arbitrary::of_width(&name, &f.repr, quote! { Ok(Self(raw)) });
        quote! {
            #d
            #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
            #derive_arbitrary
            pub struct #name(pub #raw);

            #impl_arbitrary

            impl #name {
                #(#consts)*

                const NAMES: &'static [(&'static str, u64)] = &[ #( (#names, #values), )* ];

                /// No bits set.
                pub const fn empty() -> Self { Self(0) }
                /// The bits as they are on the wire.
                pub const fn bits(self) -> #raw { self.0 }
                /// Whether every bit of `other` is set.
                pub const fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
                /// The names of the set bits that the schema names.
                pub fn names(self) -> impl Iterator<Item = &'static str> {
                    Self::NAMES.iter().filter(move |(_, m)| self.0 as u64 & m != 0).map(|(n, _)| *n)
                }
            }

            impl std::ops::BitOr for #name {
                type Output = Self;
                fn bitor(self, rhs: Self) -> Self { Self(self.0 | rhs.0) }
            }

            impl std::fmt::Debug for #name {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    let known = Self::NAMES.iter().fold(0u64, |a, (_, m)| a | m);
                    let mut parts: Vec<String> = self.names().map(String::from).collect();
                    if self.0 as u64 & !known != 0 {
                        parts.push(format!("{:#x}", self.0 as u64 & !known));
                    }
                    write!(f, "{}({})", stringify!(#name), parts.join(" | "))
                }
            }

            #[cfg(feature = "serde")]
            impl serde::Serialize for #name {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    wiregen_runtime::serde_support::flags(s, self.0 as u64, Self::NAMES)
                }
            }

            #[cfg(feature = "serde")]
            impl<'de> serde::Deserialize<'de> for #name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let wide = wiregen_runtime::serde_support::flags_from(d, Self::NAMES)?;
                    #raw::try_from(wide).map(Self).map_err(|_| serde::de::Error::custom(format!("{:#x} does not fit {}", wide, stringify!(#name))))
                }
            }
        }
    }

    // ---- types of values ----------------------------------------------------------------------

    pub(crate) fn rust_ty(
        &self,
        sid: StructId,
        fi: usize,
        ty: &Ty,
    ) -> Result<TokenStream, Internal> {
        Ok(match ty {
            Ty::Int(it) => {
                let t = int_rust(it);
                quote! { #t }
            }
            Ty::Bool => quote! { bool },
            Ty::Float { bits: 32, .. } => quote! { f32 },
            Ty::Float { bits: 64, .. } => quote! { f64 },
            Ty::Float { bits: 16, .. } => quote! { f32 },
            Ty::Float { bits, .. } => return Err(Internal(format!("a float of {bits} bits"))),
            Ty::VarInt(VarInt::Leb128) => quote! { u64 },
            Ty::VarInt(VarInt::ZigZag) => quote! { i64 },
            Ty::VarInt(VarInt::RiptideLen) => quote! { u16 },
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => {
                let t = format_ident!("{}{}", if *signed { "i" } else { "u" }, bits);
                quote! { #t }
            }
            Ty::Bits => quote! { BitString<'a> },
            Ty::Enum(id) => {
                let n = ident(&self.p.enums[*id].name);
                quote! { #n }
            }
            Ty::Flags(id) => {
                let n = ident(&self.p.flags[*id].name);
                quote! { #n }
            }
            Ty::Bytes(_) => quote! { Cow<'a, [u8]> },
            Ty::Str(..) => quote! { Cow<'a, str> },
            Ty::Struct(id, _) => {
                let n = ident(&self.p.structs[*id].name);
                let lt = self.lifetime(*id);
                quote! { #n #lt }
            }
            Ty::Array(elem, _) => {
                let e = self.rust_ty(sid, fi, elem)?;
                quote! { Vec<#e> }
            }
            Ty::Union(u) => {
                let n = ident(&naming::union_type(self.p, sid, fi));
                if self.union_borrows(u) {
                    quote! { #n<'a> }
                } else {
                    quote! { #n }
                }
            }
        })
    }

    /// The type the union's tag has in Rust, when the tag is a derived field.
    pub(crate) fn tag_field(&self, sid: StructId, fi: usize) -> Option<(usize, &'p Field)> {
        let s = &self.p.structs[sid];
        s.fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.role == Role::Derived(Derive::TagOf(fi)))
    }

    pub(crate) fn struct_def(&self, sid: StructId) -> Result<TokenStream, Internal> {
        let p = self.p;
        let s = &p.structs[sid];
        let name = ident(&s.name);
        if let (true, Some(base)) = (self.reuse.structs[sid], &self.base_crate()) {
            let unions = s
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| matches!(f.ty, Ty::Union(_)))
                .map(|(fi, _)| ident(&naming::union_type(p, sid, fi)));
            return Ok(quote! { pub use #base::{#name #(, #unions)*}; });
        }
        let lt = self.lifetime(sid);
        let d = doc(&s.doc);
        let filled = filled_doc(s);
        let mut fields = Vec::new();
        let mut unions = Vec::new();
        for (fi, f) in s.value_fields() {
            let fname = ident(&f.name);
            let mut ty = self.rust_ty(sid, fi, &f.ty)?;
            if f.condition.is_some() {
                ty = quote! { Option<#ty> };
            }
            let fd = doc(&f.doc);
            let fd = match implied_doc(p, s, f) {
                Some(text) => {
                    let sep = if f.doc.is_some() {
                        quote! { #[doc = ""] }
                    } else {
                        quote! {}
                    };
                    let lines = wrap(&text).into_iter().map(|l| format!(" {l}"));
                    quote! { #fd #sep #( #[doc = #lines] )* }
                }
                None => fd,
            };
            let serde_attr = match &f.ty {
                Ty::Bytes(_) if f.condition.is_none() => {
                    quote! { #[cfg_attr(feature = "serde", serde(with = "wiregen_runtime::serde_support::hex"))] }
                }
                _ => quote! {},
            };
            let arbitrary_attr = match &f.valid {
                Some(valid) => self.arbitrary_valid(sid, fi, valid, f.condition.is_some())?,
                None if f.condition.is_none() => {
                    let in_range = super::arbitrary::arbitrary_in_range(&f.ty, false);
                    if in_range.is_empty() {
                        super::arbitrary::arbitrary_array(self.p, sid, fi)
                    } else {
                        in_range
                    }
                }
                None => super::arbitrary::arbitrary_in_range(&f.ty, true),
            };
            fields.push(quote! { #fd #serde_attr #arbitrary_attr pub #fname: #ty, });
            if let Ty::Union(u) = &f.ty {
                unions.push(self.union_def(sid, fi, f, u)?);
            }
        }
        let derives = quote! {
            #[derive(Debug, Clone, PartialEq)]
            #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
            #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        };
        let body = if fields.is_empty() {
            quote! { {} }
        } else {
            quote! { { #(#fields)* } }
        };
        let codec = self.codec_impl(sid)?;
        let into_owned = self.l.borrows[sid].then(|| {
            let fields = s.value_fields().map(|(_, f)| {
                let n = ident(&f.name);
                if self.l.type_borrows(&f.ty) {
                    quote! { #n: wiregen_runtime::IntoOwned::into_owned(self.#n) }
                } else {
                    quote! { #n: self.#n }
                }
            });
            quote! {
                impl wiregen_runtime::IntoOwned for #name<'_> {
                    type Owned = #name<'static>;
                    /// Copies the strings and bytes this value borrows from its input.
                    fn into_owned(self) -> #name<'static> {
                        #name { #(#fields),* }
                    }
                }
            }
        });
        Ok(quote! {
            #d
            #filled
            #derives
            pub struct #name #lt #body

            #into_owned

            #(#unions)*

            #codec
        })
    }

    pub(crate) fn union_def(
        &self,
        sid: StructId,
        fi: usize,
        f: &Field,
        u: &Union,
    ) -> Result<TokenStream, Internal> {
        let p = self.p;
        let name = ident(&naming::union_type(p, sid, fi));
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
                quote! { wiregen_runtime::IntoOwned::into_owned(#x) }
            } else {
                x
            }
        };
        // A named field of a variant: `value`, or `value: IntoOwned::into_owned(value)`.
        let owned_field = |body: CaseBody, name: TokenStream| {
            if borrows(body) {
                quote! { #name: wiregen_runtime::IntoOwned::into_owned(#name) }
            } else {
                name
            }
        };
        let tag_name = tag_ty.as_ref().map(|(_, tf, _)| ident(&tf.name));
        for c in &u.cases {
            let v = ident(&c.variant);
            let cd = doc(&c.doc);
            let carries_tag = tag_ty.is_some() && c.single().is_none();
            // The payload's type, and the attribute its field carries (bytes serialize as hex).
            let hex = quote! { #[cfg_attr(feature = "serde", serde(with = "wiregen_runtime::serde_support::hex"))] };
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
            variants.push(match (carries_tag, payload) {
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
                    quote! { Self::#v { .. } => #val, }
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
                    quote! { #[cfg_attr(feature = "serde", serde(with = "wiregen_runtime::serde_support::hex"))] data: Cow<'a, [u8]>, }
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
            let other = ident(&u.default_variant);
            // Without a tag to carry, the default reads like any other case: `Name(T)`.
            let untagged = match body {
                CaseBody::Bytes => Some(
                    quote! { #[cfg_attr(feature = "serde", serde(with = "wiregen_runtime::serde_support::hex"))] Cow<'a, [u8]> },
                ),
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
                impl wiregen_runtime::IntoOwned for #name<'_> {
                    type Owned = #name<'static>;
                    fn into_owned(self) -> #name<'static> {
                        match self { #(#owned_arms)* }
                    }
                }
            }
        });
        Ok(quote! {
            #fd
            #[derive(Debug, Clone, PartialEq)]
            #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
            #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
            pub enum #name #lt {
                #(#variants)*
            }
            #tag_method
            #into_owned
        })
    }

    /// A tag value as a value of the tag field's type.
    pub(crate) fn tag_value_expr(&self, ty: &Ty, v: u64) -> TokenStream {
        let lit = lit_u64(v);
        match ty {
            Ty::Enum(id) => {
                let e = &self.p.enums[*id];
                let n = ident(&e.name);
                match e.values.iter().find(|c| c.value == v) {
                    Some(c) => {
                        let var = ident(&c.name.to_upper_camel_case());
                        quote! { #n::#var }
                    }
                    None => match e.ranges.iter().find(|r| (r.lo..=r.hi).contains(&v)) {
                        Some(r) => {
                            let var = ident(&r.name.to_upper_camel_case());
                            let lit = lit_typed(v, &int_rust(&e.repr));
                            quote! { #n::#var(#lit) }
                        }
                        None if e.closed => quote! { unreachable!() },
                        None => quote! { #n::Unknown(#lit) },
                    },
                }
            }
            Ty::Bool => {
                let b = v != 0;
                quote! { #b }
            }
            _ => quote! { #lit },
        }
    }
}

/// How a derived size field relates to the size, as the schema's expression (nothing for the
/// size itself): `: that count is 16 - array_size`.
fn through(l: Linear, what: &str, field: &str) -> String {
    let term = match l.mul {
        1 => field.to_string(),
        -1 if l.add > 0 => return format!("; that {what} is `{} - {field}`", l.add),
        -1 => format!("-{field}"),
        m => format!("{m} * {field}"),
    };
    match l.add {
        0 if l.mul == 1 => String::new(),
        0 => format!("; that {what} is `{term}`"),
        a if a > 0 => format!("; that {what} is `{term} + {a}`"),
        a => format!("; that {what} is `{term} - {}`", -a),
    }
}

/// What the encoder sets of a user-set field: "The encoder sets `IS_ACK` exactly when …".
fn implied_doc(p: &Protocol, s: &Struct, f: &Field) -> Option<String> {
    if f.implied.is_empty() {
        return None;
    }
    let parts: Vec<String> = f
        .implied
        .iter()
        .map(|imp| {
            let value = match (imp.value, &f.ty) {
                (ImpliedValue::Bit(m), Ty::Flags(id)) => {
                    let fl = &p.flags[*id];
                    let bit = fl.bits.iter().find(|b| b.value == m);
                    format!(
                        "`{}`",
                        bit.map_or_else(|| format!("{m:#x}"), |b| b.name.to_uppercase())
                    )
                }
                (ImpliedValue::Equals(v), Ty::Enum(id)) => {
                    let en = &p.enums[*id];
                    let named = en.values.iter().find(|c| c.value == v);
                    match named {
                        Some(c) => format!("`{}::{}`", en.name, c.name.to_upper_camel_case()),
                        None => format!("`{v}`"),
                    }
                }
                (ImpliedValue::Equals(v), _) => format!("`{v}`"),
                (ImpliedValue::Bit(m), _) => format!("`{m:#x}`"),
            };
            let bit = matches!(imp.value, ImpliedValue::Bit(_));
            match (&imp.when, bit) {
                (ImpliedWhen::Present(i), true) => {
                    format!(
                        "sets {value} exactly when `{}` is present",
                        s.fields[*i].name
                    )
                }
                (ImpliedWhen::Absent(i), true) => {
                    format!(
                        "sets {value} exactly when `{}` is absent",
                        s.fields[*i].name
                    )
                }
                (ImpliedWhen::Present(i), false) => {
                    format!("writes {value} when `{}` is present", s.fields[*i].name)
                }
                (ImpliedWhen::Absent(i), false) => {
                    format!("writes {value} when `{}` is absent", s.fields[*i].name)
                }
                (ImpliedWhen::Holds(_, text), _) => format!("sets {value} exactly when `{text}`"),
            }
        })
        .collect();
    Some(format!("The encoder {}.", parts.join("; it ")))
}

/// "Filled in by the encoder: …": the fields of `s` a user never sets (constants, lengths,
/// counts, tags, presence bits, checksums), so the type's rustdoc says why they are missing.
fn filled_doc(s: &Struct) -> TokenStream {
    let name = |i: usize| s.fields[i].name.as_str();
    let filled: Vec<String> = s
        .fields
        .iter()
        .filter_map(|f| {
            let what = match f.role {
                Role::Value => return None,
                Role::Const(_) => format!("always {}", f.const_literal().unwrap_or_default()),
                Role::Derived(Derive::LengthOf(i, l)) => format!(
                    "the byte length of `{}`{}",
                    name(i),
                    through(l, "length", &f.name)
                ),
                Role::Derived(Derive::CountOf(i, l)) => format!(
                    "the element count of `{}`{}",
                    name(i),
                    through(l, "count", &f.name)
                ),
                Role::Derived(Derive::TagOf(i)) => format!("the kind of `{}`", name(i)),
                Role::Derived(Derive::PresenceOf(i)) => format!("whether `{}` is present", name(i)),
                Role::Derived(Derive::AbsenceOf(i)) => format!("whether `{}` is absent", name(i)),
                Role::Checksum(c) => format!("its {} checksum", c.algo.name()),
                Role::Reserved => "reserved, written as zero".to_string(),
            };
            Some(format!("`{}` ({what})", f.name))
        })
        .collect();
    if filled.is_empty() {
        return quote! {};
    }
    let text = format!("Filled in by the encoder: {}.", filled.join(", "));
    let lines = wrap(&text).into_iter().map(|l| format!(" {l}"));
    let sep = if s.doc.is_some() {
        quote! { #[doc = ""] }
    } else {
        quote! {}
    };
    quote! { #sep #( #[doc = #lines] )* }
}
