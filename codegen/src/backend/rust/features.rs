//! The code's optional parts (serde, arbitrary) as attributes and items: behind the crate's
//! features, or decided once by a module's options.

use proc_macro2::TokenStream;
use quote::quote;

use super::ModuleOptions;

/// How the code's optional parts (serde, arbitrary) are switched on: by the crate's features,
/// or once, for a module, by its options. Every renderer asks this, so no output holds the
/// other packaging's attributes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Features {
    /// `#[cfg(feature = …)]` and `#[cfg_attr(feature = …, …)]`.
    Crate,
    /// On or off as the options say.
    Module(ModuleOptions),
}

impl Features {
    fn decided(self, feature: &str) -> Option<bool> {
        match self {
            Features::Crate => None,
            Features::Module(o) => Some(match feature {
                "serde" => o.serde,
                _ => o.arbitrary,
            }),
        }
    }

    /// `#[cfg_attr(feature = "…", attr)]`; in a module `#[attr]`, or nothing when it is off.
    pub(crate) fn attr(self, feature: &str, attr: TokenStream) -> TokenStream {
        match self.decided(feature) {
            None => quote! { #[cfg_attr(feature = #feature, #attr)] },
            Some(true) => quote! { #[#attr] },
            Some(false) => quote! {},
        }
    }

    /// `items`, each under `#[cfg(feature = "…")]`; in a module the items, or nothing when it
    /// is off.
    pub(crate) fn items(self, feature: &str, items: &[TokenStream]) -> TokenStream {
        match self.decided(feature) {
            None => quote! { #( #[cfg(feature = #feature)] #items )* },
            Some(true) => quote! { #(#items)* },
            Some(false) => quote! {},
        }
    }

    /// The derives of a data type: `Debug, Clone, PartialEq`, serde's (with the shape of what
    /// serde writes, for typed columns), arbitrary's.
    pub(crate) fn data_derives(self) -> TokenStream {
        let serde = self.attr(
            "serde",
            quote! { derive(serde::Serialize, serde::Deserialize, wiregen_runtime::SerdeShape) },
        );
        let arbitrary = self.attr("arbitrary", quote! { derive(arbitrary::Arbitrary) });
        quote! { #[derive(Debug, Clone, PartialEq)] #serde #arbitrary }
    }

    /// The serde derive of a type that is only written (a decoded datagram, a joined message),
    /// with the shape of what it writes.
    pub(crate) fn serialize_derive(self) -> TokenStream {
        self.attr(
            "serde",
            quote! { derive(serde::Serialize, wiregen_runtime::SerdeShape) },
        )
    }

    /// Bytes serialize as a hex string.
    pub(crate) fn serde_hex(self) -> TokenStream {
        self.attr(
            "serde",
            quote! { serde(with = "wiregen_runtime::serde_support::hex") },
        )
    }
}
