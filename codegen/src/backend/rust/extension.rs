//! Extensions: the base crate whose types a schema takes, and the notes it renames.

use super::*;

/// Renders what an extension takes from its base crate, and other protocols named by path.
#[derive(Clone, Copy)]
pub(crate) struct Extension<'p> {
    pub(crate) c: Crate<'p>,
}

impl Extension<'_> {
    /// The base crate of an extension (whose types it takes).
    pub(crate) fn base_crate(&self) -> Option<TokenStream> {
        self.c
            .p
            .base
            .as_ref()
            .map(|b| self.other_protocol(&b.protocol))
    }

    /// How generated code names another protocol's generated code: its crate, or, for modules
    /// included side by side (`wiregen_runtime::include_protocol!`), its sibling module.
    pub(crate) fn other_protocol(&self, name: &str) -> TokenStream {
        let name = ident(name);
        match self.c.packaging {
            Packaging::Crate => quote! { #name },
            Packaging::Module(_) => quote! { super::#name },
        }
    }
}

impl<'p> Extension<'p> {
    /// `own_notes`: the base crate notes the fields of the types taken from it under its own
    /// protocol's names; `dissect` shows them under this one's, as the dissector does.
    pub(crate) fn own_notes(&self) -> TokenStream {
        let p = self.c.p;
        let Some(b) = p.base.as_ref().filter(|_| self.c.reuse.any()) else {
            return quote! {};
        };
        let mut arms = Vec::new();
        // (The padding's name is every type's.)
        let mut seen = std::collections::BTreeSet::new();
        for sid in (0..p.structs.len()).filter(|&sid| self.c.reuse.structs[sid]) {
            for own in naming::noted_abbrevs(p, sid) {
                let theirs = format!("{}{}", b.protocol, &own[p.name.len()..]);
                if seen.insert(theirs.clone()) {
                    arms.push(quote! { #theirs => #own, });
                }
            }
        }
        quote! {
            /// Fields of the types taken from the base crate are noted under its protocol's names.
            fn own_notes(notes: Vec<FieldNote<'_>>) -> Vec<FieldNote<'_>> {
                notes
                    .into_iter()
                    .map(|mut n| {
                        n.abbrev = match n.abbrev {
                            #(#arms)*
                            other => other,
                        };
                        n
                    })
                    .collect()
            }
        }
    }
}
