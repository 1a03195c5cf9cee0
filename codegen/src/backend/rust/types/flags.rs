//! Flag sets: a newtype over the integer, one constant per bit, serde.

use super::*;

impl<'p> Gen<'p> {
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
}
