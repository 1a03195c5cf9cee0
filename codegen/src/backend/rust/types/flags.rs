//! Flag sets: a newtype over the integer, one constant per bit, serde.

use super::*;

impl<'p> Gen<'p> {
    pub(crate) fn flags_def(&self, f: &Flags) -> FlagsDef {
        let name = ident(&f.name);
        if let Some(base) = &self.base_crate() {
            let index = self.p.flags.iter().position(|x| x.name == f.name);
            if self.reuse.flags[index.unwrap_or(0)] {
                return FlagsDef::Items(quote! { pub use #base::#name; });
            }
        }
        let (derive_arbitrary, impl_arbitrary) =
            super::arbitrary::of_width(self.features(), &name, &f.repr, quote! { Ok(Self(raw)) });
        let mut text = String::from("wiregen_runtime::flags! {\n");
        doc_comments(&mut text, "    ", &f.doc);
        if !derive_arbitrary.is_empty() {
            let attribute = match self.packaging {
                Packaging::Crate => {
                    Some("#[cfg_attr(feature = \"arbitrary\", derive(arbitrary::Arbitrary))]")
                }
                Packaging::Module(o) => o.arbitrary.then_some("#[derive(arbitrary::Arbitrary)]"),
            };
            if let Some(attribute) = attribute {
                text += &format!("    {attribute}\n");
            }
        }
        text += &format!("    pub struct {name}({}) {{\n", int_rust(&f.repr));
        for b in &f.bits {
            doc_comments(&mut text, "        ", &b.doc);
            let konst = b.name.to_uppercase();
            // The schema's spelling when it is not the constant's (`fin` → `FIN`).
            if konst != b.name {
                text += &format!("        #[name = {:?}]\n", b.name);
            }
            text += &format!("        const {} = {};\n", ident(&konst), named_lit(b));
        }
        text += "    }\n}\n";
        FlagsDef::Declared {
            text,
            items: impl_arbitrary,
        }
    }
}

/// A schema's `doc:` text as `///` lines indented by `indent` (the text form of [`doc`]).
fn doc_comments(out: &mut String, indent: &str, d: &Option<String>) {
    for line in d.iter().flat_map(|d| super::super::doc_lines(d, true)) {
        if line.is_empty() {
            out.push_str(&format!("{indent}///\n"));
        } else {
            out.push_str(&format!("{indent}/// {line}\n"));
        }
    }
}

/// A named value as the schema wrote it (`0x0F`, or decimal).
pub(crate) fn named_lit(c: &NamedConst) -> TokenStream {
    match &c.hex {
        Some(hex) => hex.parse().unwrap_or_else(|_| lit_hex(c.value)),
        None => {
            let l = lit_u64(c.value);
            quote! { #l }
        }
    }
}
