//! The layout of generated Rust: prettyplease's, in-process, and nothing else.
//!
//! Generated text is a pure function of the schema: no formatter found on the machine (a
//! `rustfmt` whose release lays code out differently, or none at all) may change a committed
//! file. prettyplease lays out each item; the blank lines between items are decided here, while
//! emitting (one between items, none between consecutive `use`s), not by reading the text back.
//! A generated crate marks its code `#[rustfmt::skip]` so that `cargo fmt` keeps this layout.

/// The text of `file`: its inner attributes and doc, then its items, each laid out by
/// prettyplease, a blank line between two items unless both are `use`s.
pub(crate) fn layout(file: &syn::File) -> String {
    let mut out = String::new();
    if !file.attrs.is_empty() {
        out.push_str(&unparse(file.attrs.clone(), Vec::new()));
    }
    let mut previous: Option<&syn::Item> = None;
    for item in &file.items {
        let adjoining =
            matches!(previous, Some(syn::Item::Use(_))) && matches!(item, syn::Item::Use(_));
        if !out.is_empty() && !adjoining {
            out.push('\n');
        }
        out.push_str(&unparse(Vec::new(), vec![item.clone()]));
        previous = Some(item);
    }
    out
}

fn unparse(attrs: Vec<syn::Attribute>, items: Vec<syn::Item>) -> String {
    prettyplease::unparse(&syn::File {
        shebang: None,
        attrs,
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::layout;

    #[test]
    fn items_are_spaced_and_uses_kept_together() {
        let file: syn::File = syn::parse_quote! {
            //! A crate.
            use a::B;
            use c::D;
            pub struct S { pub x: u8 }
            impl S { fn f(&self) -> u8 { self.x } }
        };
        assert_eq!(
            layout(&file),
            "//! A crate.\n\nuse a::B;\nuse c::D;\n\npub struct S {\n    pub x: u8,\n}\n\n\
             impl S {\n    fn f(&self) -> u8 {\n        self.x\n    }\n}\n"
        );
    }
}
