//! Any name a schema gives its types is accepted, even one that std's prelude or
//! `wiregen-runtime` uses (`Some`, `Default`, `Reader`, `Codec`, `Cow`…): generated code names
//! those items unqualified while no schema type takes the name, and by path (as prost-build
//! does, `::core::option::Option::Some`, `wiregen_runtime::Reader`) in a crate where one does.
//!
//! How: a schema name that is one of [`PATHS`] becomes a marked identifier while the code is
//! built ([`super::ident`]), so the schema's `Reader` and the runtime's stay apart in the
//! tokens; [`Qualify`] then writes every unmarked use of a taken name as its path, the imports
//! leave taken names out, and [`unmark`] gives the schema's names back their own spelling.

use proc_macro2::TokenStream;
use std::collections::BTreeSet;
use syn::visit_mut::VisitMut;

/// What a schema name that generated code also uses is marked with while the code is built.
const MARK: &str = "__wiregen_schema_name";

/// Items generated code names unqualified (std's prelude, `Cow`, the runtime's items), each
/// with the path it is named by where a schema type takes its name.
const PATHS: &[(&str, &str)] = &[
    ("Option", "::core::option::Option"),
    ("Some", "::core::option::Option::Some"),
    ("None", "::core::option::Option::None"),
    ("Result", "::core::result::Result"),
    ("Ok", "::core::result::Result::Ok"),
    ("Err", "::core::result::Result::Err"),
    ("Vec", "::std::vec::Vec"),
    ("String", "::std::string::String"),
    ("Box", "::std::boxed::Box"),
    ("ToString", "::std::string::ToString"),
    ("ToOwned", "::std::borrow::ToOwned"),
    ("Cow", "::std::borrow::Cow"),
    ("Default", "::core::default::Default"),
    ("Iterator", "::core::iter::Iterator"),
    ("IntoIterator", "::core::iter::IntoIterator"),
    ("Extend", "::core::iter::Extend"),
    ("From", "::core::convert::From"),
    ("Into", "::core::convert::Into"),
    ("TryFrom", "::core::convert::TryFrom"),
    ("TryInto", "::core::convert::TryInto"),
    ("AsRef", "::core::convert::AsRef"),
    ("AsMut", "::core::convert::AsMut"),
    ("Clone", "::core::clone::Clone"),
    ("Copy", "::core::marker::Copy"),
    ("Send", "::core::marker::Send"),
    ("Sync", "::core::marker::Sync"),
    ("Sized", "::core::marker::Sized"),
    ("PartialEq", "::core::cmp::PartialEq"),
    ("Eq", "::core::cmp::Eq"),
    ("PartialOrd", "::core::cmp::PartialOrd"),
    ("Ord", "::core::cmp::Ord"),
    ("Drop", "::core::ops::Drop"),
    ("Fn", "::core::ops::Fn"),
    ("FnMut", "::core::ops::FnMut"),
    ("FnOnce", "::core::ops::FnOnce"),
];

/// The runtime's traits whose methods generated code calls (`value.encode()`,
/// `Type::decode(bytes)`): where a schema type takes one's name, it is imported as `_`.
pub(crate) const RUNTIME_TRAITS: &[&str] = &["Codec", "IntoOwned", "Trace", "Within"];

/// The path generated code names `name` by where a schema type takes the name: std's, or the
/// runtime's for its items.
fn path_of(name: &str) -> Option<String> {
    if let Some((_, path)) = PATHS.iter().find(|(n, _)| *n == name) {
        return Some(path.to_string());
    }
    crate::naming::RUNTIME_ITEMS
        .contains(&name)
        .then(|| format!("wiregen_runtime::{name}"))
}

/// The identifier a schema name is built into the code as: marked when generated code uses the
/// same name for an item of std or of the runtime.
pub(crate) fn schema_name(name: &str) -> Option<String> {
    path_of(name).map(|_| format!("{name}{MARK}"))
}

/// The names of std and runtime items that schema types take in `tokens` (marked there).
pub(crate) fn taken(tokens: &TokenStream) -> BTreeSet<String> {
    fn walk(tokens: TokenStream, out: &mut BTreeSet<String>) {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    if let Some(name) = i.to_string().strip_suffix(MARK) {
                        out.insert(name.to_string());
                    }
                }
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(tokens.clone(), &mut out);
    out
}

/// Writes every use of a taken name that is not the schema's (an unmarked path starting with
/// it: `Some(x)`, `Reader<'a, T>`, `Cow::Borrowed`) as the item's path.
pub(crate) struct Qualify<'a> {
    pub(crate) taken: &'a BTreeSet<String>,
}

impl VisitMut for Qualify<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        syn::visit_mut::visit_path_mut(self, path);
        if path.leading_colon.is_some() {
            return;
        }
        let Some(first) = path.segments.first() else {
            return;
        };
        let name = first.ident.to_string();
        if !self.taken.contains(&name) {
            return;
        }
        let Some(full) = path_of(&name) else {
            return;
        };
        let mut qualified: syn::Path = syn::parse_str(&full).expect("a path of PATHS parses");
        // The item's own segment keeps the generic arguments the use gave it.
        let mut rest = std::mem::take(&mut path.segments).into_iter();
        let own = rest.next().expect("a first segment");
        if let Some(last) = qualified.segments.last_mut() {
            last.arguments = own.arguments;
        }
        qualified.segments.extend(rest);
        *path = qualified;
    }
}

impl Qualify<'_> {
    /// `file` with taken names' other uses written as paths, and the schema's names back in
    /// their own spelling (before layout: the lines are laid out as they will read).
    pub(crate) fn file(&mut self, file: &mut syn::File) {
        self.visit_file_mut(file);
        Unmark.visit_file_mut(file);
    }
}

/// Gives the schema's names back their own spelling.
struct Unmark;

impl VisitMut for Unmark {
    fn visit_ident_mut(&mut self, i: &mut proc_macro2::Ident) {
        let text = i.to_string();
        if let Some(name) = text.strip_suffix(MARK) {
            *i = proc_macro2::Ident::new(name, i.span());
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        syn::visit_mut::visit_macro_mut(self, m);
        m.tokens = unmark_tokens(std::mem::take(&mut m.tokens));
    }

    /// An attribute's arguments are tokens to syn (`cfg_attr(…, arbitrary(with = …))` may name a
    /// schema type).
    fn visit_meta_list_mut(&mut self, m: &mut syn::MetaList) {
        syn::visit_mut::visit_meta_list_mut(self, m);
        m.tokens = unmark_tokens(std::mem::take(&mut m.tokens));
    }
}

fn unmark_tokens(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Ident(i) => match i.to_string().strip_suffix(MARK) {
                Some(name) => proc_macro2::Ident::new(name, i.span()).into(),
                None => i.into(),
            },
            proc_macro2::TokenTree::Group(g) => {
                let mut out = proc_macro2::Group::new(g.delimiter(), unmark_tokens(g.stream()));
                out.set_span(g.span());
                out.into()
            }
            other => other,
        })
        .collect()
}

/// `text` (a renderer's own text, as a macro's body) with the schema's names back in their own
/// spelling.
pub(crate) fn unmark(text: &str) -> String {
    text.replace(MARK, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn taken_names_are_qualified_and_the_schemas_own_kept() {
        let reader = proc_macro2::Ident::new(
            &schema_name("Reader").unwrap(),
            proc_macro2::Span::call_site(),
        );
        let tokens = quote! {
            fn f<'a>(r: &mut Reader<'a, T>, x: Option<u8>) -> Result<#reader, E> {
                let v: Cow<'a, [u8]> = Cow::Borrowed(&[]);
                Ok(#reader { x: Some(1) })
            }
        };
        let taken = taken(&tokens);
        assert_eq!(taken.iter().collect::<Vec<_>>(), ["Reader"]);
        let mut file: syn::File = syn::parse2(tokens).unwrap();
        Qualify { taken: &taken }.file(&mut file);
        let text = prettyplease::unparse(&file);
        assert!(
            text.contains("r: &mut wiregen_runtime::Reader<'a, T>"),
            "{text}"
        );
        assert!(text.contains("-> Result<Reader, E>"), "{text}");
        assert!(text.contains("Ok(Reader { x: Some(1) })"), "{text}");
        assert!(text.contains("Cow::Borrowed"), "{text}");
    }
}
