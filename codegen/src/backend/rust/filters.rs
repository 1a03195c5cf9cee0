//! Filter names per use (`filter:`): the dissect trace of a value read for such a field names
//! its fields `proto.<filter>.<field>`, as the dissector does. The type's reader notes them
//! under the type's names; the field's reader renames what was noted while it read the value.

use super::*;

/// Renders the renaming of notes for fields given a `filter:` name.
#[derive(Clone, Copy)]
pub(crate) struct FilterRenames<'p> {
    pub(crate) c: Crate<'p>,
}

/// The function renaming the notes of struct `id`'s fields for a field with `filter`.
pub(crate) fn rename_fn(p: &Protocol, id: StructId, filter: &str) -> Ident {
    format_ident!("{}_as_{filter}", p.structs[id].name.to_snake_case())
}

impl FilterRenames<'_> {
    /// One renaming function per `filter:` use, from the names the generated readers of the
    /// type note (`structs`: their code), so that every note the type makes is covered.
    pub(crate) fn filter_renames(&self, structs: &TokenStream) -> TokenStream {
        let p = self.c.p;
        let fns = self.c.l.filter_uses.iter().map(|&(id, ref filter)| {
            let own = format!("{}.", naming::type_abbrev(p, id));
            let theirs = format!("{}.", naming::use_abbrev(p, filter));
            let mut names = std::collections::BTreeSet::new();
            string_literals(structs, &own, &mut names);
            let mut arms: Vec<TokenStream> = names
                .iter()
                .map(|n| {
                    let to = n.replacen(&own, &theirs, 1);
                    quote! { #n => #to, }
                })
                .collect();
            // A type taken from the base crate has no reader here: its reader notes its fields
            // under the base protocol's names (which `own_notes` maps later), so those are
            // renamed (schemafuzz seed 382: the field's notes kept the type's names).
            if let Some(b) = p.base.as_ref().filter(|_| self.c.reuse.structs[id]) {
                for n in naming::noted_abbrevs(p, id) {
                    if n.starts_with(&own) {
                        let base_name = format!("{}{}", b.protocol, &n[p.name.len()..]);
                        let to = n.replacen(&own, &theirs, 1);
                        arms.push(quote! { #base_name => #to, });
                    }
                }
            }
            let name = rename_fn(p, id, filter);
            let doc = format!(
                " Filter names of a `{}` read for a field with `filter: {filter}`.",
                p.structs[id].name
            );
            quote! {
                #[doc = #doc]
                fn #name(abbrev: &'static str) -> &'static str {
                    match abbrev {
                        #(#arms)*
                        other => other,
                    }
                }
            }
        });
        quote! { #(#fns)* }
    }
}

/// The string literals of `tokens` that start with `prefix`, unquoted.
fn string_literals(
    tokens: &TokenStream,
    prefix: &str,
    out: &mut std::collections::BTreeSet<String>,
) {
    for t in tokens.clone() {
        match t {
            proc_macro2::TokenTree::Literal(l) => {
                if let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&l.to_string()) {
                    if s.value().starts_with(prefix) {
                        out.insert(s.value());
                    }
                }
            }
            proc_macro2::TokenTree::Group(g) => string_literals(&g.stream(), prefix, out),
            _ => {}
        }
    }
}
