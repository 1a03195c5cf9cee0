//! Enums: the type, its raw values and names, conversions with std's traits, serde; a switch
//! tag's value as a value of its field's type.

use super::*;

impl<'p> Types<'p> {
    pub(crate) fn enum_def(&self, e: &Enum) -> Declared {
        let name = ident(&e.name);
        if let Some(base) = &self.c.extension().base_crate() {
            let index = self.c.p.enums.iter().position(|x| x.name == e.name);
            if self.c.reuse.enums[index.unwrap_or(0)] {
                return Declared::Items(quote! { pub use #base::#name; });
            }
        }
        if e.ranges.is_empty() {
            return self.enum_macro(e);
        }
        Declared::Items(self.enum_with_ranges(e))
    }

    /// The enum's `arbitrary` derive, or its impl when its width is not its Rust type's: only
    /// values `from_raw` accepts.
    fn enum_arbitrary(&self, e: &Enum) -> (TokenStream, TokenStream) {
        // A closed enum whose values a raw draw rarely hits (a narrow width, ranges): one of
        // its names, drawn as such.
        if e.closed && !e.repr.signed && (!e.ranges.is_empty() || !e.repr.is_native()) {
            let (name, raw) = (ident(&e.name), int_rust(&e.repr));
            let values = e.values.iter().map(|v| lit_u64(v.value));
            let ranges = e.ranges.iter().map(|r| {
                let (lo, hi) = (lit_u64(r.lo), lit_u64(r.hi));
                quote! { (#lo, #hi) }
            });
            let imp = self.c.features().items(
                "arbitrary",
                &[quote! {
                    impl<'u> arbitrary::Arbitrary<'u> for #name {
                        fn arbitrary(u: &mut arbitrary::Unstructured<'u>) -> arbitrary::Result<Self> {
                            let raw: #raw = wiregen_runtime::arbitrary_support::named(u, &[#(#values),*], &[#(#ranges),*])?;
                            Self::from_raw(raw).ok_or(arbitrary::Error::IncorrectFormat)
                        }
                    }
                }],
            );
            return (quote! {}, imp);
        }
        let pick = if e.closed {
            quote! { Self::from_raw(raw).ok_or(arbitrary::Error::IncorrectFormat) }
        } else {
            quote! { Ok(Self::from_raw(raw)) }
        };
        super::arbitrary::of_width(self.c.features(), &ident(&e.name), &e.repr, pick)
    }

    /// An enum of single values: one `wiregen_runtime::enumeration!`.
    fn enum_macro(&self, e: &Enum) -> Declared {
        let name = ident(&e.name);
        let (derive_arbitrary, impl_arbitrary) = self.enum_arbitrary(e);
        let mut text = String::from("wiregen_runtime::enumeration! {\n");
        super::flags::doc_comments(&mut text, "    ", &e.doc);
        self.arbitrary_attribute(&mut text, !derive_arbitrary.is_empty());
        text += &format!("    pub enum {name}: {} {{\n", int_rust(&e.repr));
        for v in &e.values {
            super::flags::doc_comments(&mut text, "        ", &v.doc);
            let variant = variant_ident(&v.name.to_upper_camel_case());
            let value = super::flags::named_lit(v);
            // The schema's name, unless the variant is spelt so.
            if variant == v.name.as_str() {
                text += &format!("        {variant} = {value},\n");
            } else {
                text += &format!("        {variant} = {value} as {:?},\n", v.name);
            }
        }
        if !e.closed {
            text += "        _ => Unknown,\n";
        }
        text += "    }\n}\n";
        Declared::Macro {
            text,
            items: impl_arbitrary,
        }
    }

    /// An enum with ranges (variants that carry their value), written out.
    fn enum_with_ranges(&self, e: &Enum) -> TokenStream {
        let name = ident(&e.name);
        let d = doc(&e.doc);
        let raw = int_rust(&e.repr);
        let variants: Vec<Ident> = e
            .values
            .iter()
            .map(|v| variant_ident(&v.name.to_upper_camel_case()))
            .collect();
        let docs = e.values.iter().map(|v| doc(&v.doc));
        let values: Vec<TokenStream> = e.values.iter().map(super::flags::named_lit).collect();
        let names: Vec<&str> = e.values.iter().map(|v| v.name.as_str()).collect();
        // Named ranges: variants that carry their value.
        let rvariants: Vec<Ident> = e
            .ranges
            .iter()
            .map(|r| variant_ident(&r.name.to_upper_camel_case()))
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
        let in_range = in_range_method(e, &rvariants);
        let Unknowns {
            variant: unknown_variant,
            from_raw,
            raw: unknown_raw,
            name: unknown_name,
        } = unknowns(e, (&variants, &values), (&rvariants, &rpats));
        let (derive_arbitrary, impl_arbitrary) = self.enum_arbitrary(e);
        let from_int = int_conversion(e);
        let serde = self.enum_serde(e, &names, &values, &rvariants);
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

            }

            impl From<#name> for #raw {
                fn from(value: #name) -> #raw {
                    value.raw()
                }
            }

            #from_int

            #serde
        }
    }

    /// An enum's serde impls (features `serde`): by name, a range's values and unknown ones as
    /// numbers.
    fn enum_serde(
        &self,
        e: &Enum,
        names: &[&str],
        values: &[TokenStream],
        rvariants: &[Ident],
    ) -> TokenStream {
        let name = ident(&e.name);
        let raw = int_rust(&e.repr);
        // A range's name does not say its value: such variants serialize as numbers.
        let serde_name = if e.ranges.is_empty() {
            quote! { self.name() }
        } else {
            quote! { match self { #( Self::#rvariants(_) => None, )* _ => self.name() } }
        };
        let too_wide = format!("{{wide}} does not fit {}", e.name);
        let serde_from = if e.closed {
            let message = format!("{{raw}} is not a value of {}", e.name);
            quote! { Self::from_raw(raw).ok_or_else(|| serde::de::Error::custom(format!(#message))) }
        } else {
            quote! { Ok(Self::from_raw(raw)) }
        };
        self.c.features().items(
            "serde",
            &[
                quote! {
            impl serde::Serialize for #name {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    wiregen_runtime::serde_support::named(s, #serde_name, self.raw() as u64)
                }
            }
                },
                quote! {
            impl<'de> serde::Deserialize<'de> for #name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    const NAMES: &[(&str, u64)] = &[ #( (#names, #values), )* ];
                    let wide = wiregen_runtime::serde_support::raw_from_name(d, NAMES)?;
                    let raw = #raw::try_from(wide).map_err(|_| serde::de::Error::custom(format!(#too_wide)))?;
                    #serde_from
                }
            }
                },
                quote! {
            impl wiregen_runtime::SerdeShape for #name {
                fn shape() -> wiregen_runtime::Shape {
                    wiregen_runtime::Shape::Name
                }
            }
                },
            ],
        )
    }

    /// A tag value as a value of the tag field's type.
    pub(crate) fn tag_value_expr(&self, ty: &Ty, v: u64) -> TokenStream {
        let lit = lit_u64(v);
        match ty {
            Ty::Enum(id) => {
                let e = &self.c.p.enums[*id];
                let n = ident(&e.name);
                match e.values.iter().find(|c| c.value == v) {
                    Some(c) => {
                        let var = variant_ident(&c.name.to_upper_camel_case());
                        quote! { #n::#var }
                    }
                    None => match e.ranges.iter().find(|r| (r.lo..=r.hi).contains(&v)) {
                        Some(r) => {
                            let var = variant_ident(&r.name.to_upper_camel_case());
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

/// `in_range`: whether a range variant holds a value of its range that no single name takes
/// (a named value inside a range decodes as its own variant).
fn in_range_method(e: &Enum, rvariants: &[Ident]) -> Option<TokenStream> {
    // The other variants (single values, an open enum's unknown ones) hold theirs.
    let others = (!e.values.is_empty() || !e.closed).then(|| quote! { _ => true });
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
    (!e.ranges.is_empty()).then(|| {
        quote! {
            /// Whether a range variant holds a value of its range (the encoder refuses one
            /// that does not: it would decode as another variant).
            pub fn in_range(self) -> bool {
                match self { #( Self::#rvariants(v) => #holds, )* #others }
            }
        }
    })
}

/// The conversion from the integer on the wire, as std's trait: `TryFrom` for a closed enum,
/// `From` for one that keeps unknown values.
fn int_conversion(e: &Enum) -> TokenStream {
    let (name, raw) = (ident(&e.name), int_rust(&e.repr));
    if e.closed {
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
    }
}

/// What an enum with ranges has for values it does not name: nothing when it is closed
/// (`from_raw` gives `None`), else an `Unknown` variant keeping them.
struct Unknowns {
    variant: TokenStream,
    from_raw: TokenStream,
    raw: TokenStream,
    name: TokenStream,
}

fn unknowns(
    e: &Enum,
    (variants, values): (&[Ident], &[TokenStream]),
    (rvariants, rpats): (&[Ident], &[TokenStream]),
) -> Unknowns {
    let raw = int_rust(&e.repr);
    let (variant, from_raw, raw_arm, name_arm) = if e.closed {
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
    Unknowns {
        variant,
        from_raw,
        raw: raw_arm,
        name: name_arm,
    }
}
