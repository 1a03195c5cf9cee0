//! Flag sets: a newtype over the integer, one constant per bit, serde.

use super::*;

impl<'p> Types<'p> {
    pub(crate) fn flags_def(&self, f: &Flags) -> Declared {
        let name = ident(&f.name);
        if let Some(base) = &self.c.extension().base_crate() {
            let index = self.c.p.flags.iter().position(|x| x.name == f.name);
            if self.c.reuse.flags[index.unwrap_or(0)] {
                return Declared::Items(quote! { pub use #base::#name; });
            }
        }
        let (derive_arbitrary, impl_arbitrary) =
            super::arbitrary::of_width(self.c.features(), &name, &f.repr, quote! { Ok(Self(raw)) });
        let mut text = String::from("wiregen_runtime::flags! {\n");
        doc_comments(&mut text, "    ", &f.doc);
        self.arbitrary_attribute(&mut text, !derive_arbitrary.is_empty());
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
        Declared::Macro {
            text,
            items: impl_arbitrary,
        }
    }

    /// The `derive(arbitrary::Arbitrary)` line of a macro-declared type, when it derives it.
    pub(crate) fn arbitrary_attribute(&self, text: &mut String, derives: bool) {
        if !derives {
            return;
        }
        let attribute = match self.c.packaging {
            Packaging::Crate => {
                Some("#[cfg_attr(feature = \"arbitrary\", derive(arbitrary::Arbitrary))]")
            }
            Packaging::Module(o) => o.arbitrary.then_some("#[derive(arbitrary::Arbitrary)]"),
        };
        if let Some(attribute) = attribute {
            text.push_str(&format!("    {attribute}\n"));
        }
    }
}

/// A schema's `doc:` text as `///` lines indented by `indent` (the text form of [`doc`]).
pub(crate) fn doc_comments(out: &mut String, indent: &str, d: &Option<String>) {
    for line in d.iter().flat_map(|d| super::super::doc_lines(d, true)) {
        if line.is_empty() {
            out.push_str(&format!("{indent}///\n"));
        } else {
            out.push_str(&format!("{indent}/// {line}\n"));
        }
    }
}

impl<'p> Types<'p> {
    /// The flag bit `mask` of flag set `fl`: its constant when the schema names one
    /// (`PacketFlags::IS_ACK`), else the set of that mask (`PacketFlags(0x40)`).
    pub(crate) fn flag_const(&self, fl: &Flags, mask: u64) -> TokenStream {
        let fty = ident(&fl.name);
        match fl.bits.iter().find(|b| b.value == mask) {
            Some(b) => {
                let c = ident(&b.name.to_uppercase());
                quote! { #fty::#c }
            }
            None => {
                let m = lit_hex(mask);
                quote! { #fty(#m) }
            }
        }
    }

    /// Whether the flag set `x` (a field at the end of `path`) has the bit `mask`:
    /// `x.contains(PacketFlags::IS_FRAGMENT)` (`intersects` for a mask of several bits).
    pub(crate) fn has_flag(&self, path: &[FieldRef], mask: u64, x: TokenStream) -> TokenStream {
        let leaf = path
            .last()
            .map(|r| &self.c.p.structs[r.struct_id].fields[r.field].ty);
        match leaf {
            Some(Ty::Flags(id)) => {
                let bit = self.flag_const(&self.c.p.flags[*id], mask);
                if mask.count_ones() == 1 {
                    quote! { #x.contains(#bit) }
                } else {
                    quote! { #x.intersects(#bit) }
                }
            }
            _ => {
                let m = lit_u64(mask);
                quote! { (#x.bits() & #m != 0) }
            }
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

impl<'p> Types<'p> {
    /// A statement that sets (when `on` holds) or clears the flag bit `e` of the struct `sid` value
    /// `var`, or the bool field `e` names, for the chunkers and splitters that mark pieces;
    /// `None` when `e` is neither (a marker of another form is left to the caller's template).
    pub(crate) fn set_flag_bit(
        &self,
        sid: StructId,
        e: &Expr,
        var: TokenStream,
        on: Option<TokenStream>,
    ) -> Option<TokenStream> {
        if let Some(fi) = e.local_field() {
            let field = &self.c.p.structs[sid].fields[fi];
            let settable = matches!(field.ty, Ty::Bool)
                && field.role == Role::Value
                && field.condition.is_none();
            let name = ident(&field.name);
            let on = on.unwrap_or(quote! { true });
            return settable.then(|| quote! { #var.#name = #on; });
        }
        let Expr::FlagBit(path, mask) = e else {
            return None;
        };
        if path.len() != 1 {
            return None;
        }
        let flags = ident(&path[0].name);
        let Ty::Flags(id) = &self.c.p.structs[sid].fields[path[0].field].ty else {
            return None;
        };
        let bit = self.flag_const(&self.c.p.flags[*id], *mask);
        Some(match on {
            None => quote! { #var.#flags.insert(#bit); },
            Some(on) => quote! { #var.#flags.set(#bit, #on); },
        })
    }
}
