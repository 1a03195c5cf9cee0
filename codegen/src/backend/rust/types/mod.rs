//! Type definitions: the Rust type of each value and the structs; enums, flag sets and
//! switches in their own files.

mod enums;
mod flags;
mod unions;

pub(crate) use flags::named_lit;

use super::arbitrary::{arbitrary_array, arbitrary_fixed_len, arbitrary_in_range};
use super::*;

/// Renders the declarations of the schema's types: structs, switches, enums, flag sets.
#[derive(Clone, Copy)]
pub(crate) struct Types<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> Types<'p> {
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
                let n = ident(&self.c.p.enums[*id].name);
                quote! { #n }
            }
            Ty::Flags(id) => {
                let n = ident(&self.c.p.flags[*id].name);
                quote! { #n }
            }
            Ty::Bytes(_) => quote! { Cow<'a, [u8]> },
            Ty::Str(..) => quote! { Cow<'a, str> },
            Ty::Struct(id, _) => {
                let n = ident(&self.c.p.structs[*id].name);
                let lt = self.c.lifetime(*id);
                quote! { #n #lt }
            }
            Ty::Array(elem, _) => {
                let e = self.rust_ty(sid, fi, elem)?;
                quote! { Vec<#e> }
            }
            Ty::Union(u) => {
                let n = ident(&self.c.p.union_name(sid, fi));
                if self.c.union_borrows(u) {
                    quote! { #n<'a> }
                } else {
                    quote! { #n }
                }
            }
        })
    }

    /// The type the union's tag has in Rust, when the tag is a derived field.
    pub(crate) fn tag_field(&self, sid: StructId, fi: usize) -> Option<(usize, &'p Field)> {
        let s = &self.c.p.structs[sid];
        s.fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.role == Role::Derived(Derive::TagOf(fi)))
    }

    /// A switch sharing another's cases: that switch's enum, by its own name too.
    fn shared_union(
        &self,
        sid: StructId,
        fi: usize,
        u: &Union,
        (s2, f2): (StructId, usize),
    ) -> TokenStream {
        let (own, shared) = (
            ident(&self.c.p.switch_name(sid, fi)),
            ident(&self.c.p.switch_name(s2, f2)),
        );
        let lt = if self.c.l.union_borrows(u) {
            quote! { <'a> }
        } else {
            quote! {}
        };
        let from = &self.c.p.structs[s2];
        let doc = format!(
            " `{}`: the cases of `{}.{}`.",
            self.c.p.structs[sid].fields[fi].name, from.name, from.fields[f2].name
        );
        quote! { #[doc = #doc] pub type #own #lt = #shared #lt; }
    }

    pub(crate) fn struct_def(&self, sid: StructId) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let s = &p.structs[sid];
        let name = ident(&s.name);
        if let (true, Some(base)) = (self.c.reuse.structs[sid], &self.c.extension().base_crate()) {
            let unions = s
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| matches!(f.ty, Ty::Union(_)))
                .map(|(fi, _)| ident(&p.union_name(sid, fi)));
            return Ok(quote! { pub use #base::{#name #(, #unions)*}; });
        }
        let lt = self.c.lifetime(sid);
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
                Ty::Bytes(_) if f.condition.is_none() => self.c.features().serde_hex(),
                _ => quote! {},
            };
            // `max: 724` draws within 0..=724, as a closed `valid` range does.
            let max_range = f
                .max
                .filter(|&m| m <= i64::MAX as u64)
                .map(|m| Valid::Range {
                    min: Some(0),
                    max: Some(m as i64),
                });
            let arbitrary_attr = match f.valid.as_ref().or(max_range.as_ref()) {
                Some(valid) => self.c.arbitrary_values().arbitrary_valid(
                    sid,
                    fi,
                    valid,
                    f.condition.is_some(),
                )?,
                None if f.condition.is_none() => {
                    let in_range = arbitrary_in_range(self.c.features(), &f.ty, false);
                    let fixed = arbitrary_fixed_len(self.c.features(), &f.ty);
                    if !in_range.is_empty() {
                        in_range
                    } else if !fixed.is_empty() {
                        fixed
                    } else {
                        arbitrary_array(self.c.features(), self.c.p, sid, fi)
                    }
                }
                None => arbitrary_in_range(self.c.features(), &f.ty, true),
            };
            fields.push(quote! { #fd #serde_attr #arbitrary_attr pub #fname: #ty, });
            if let Ty::Union(u) = &f.ty {
                unions.push(match u.shares {
                    None => self.union_def(sid, fi, f, u)?,
                    Some(shared) => self.shared_union(sid, fi, u, shared),
                });
            }
        }
        let derives = self.c.features().data_derives();
        let body = if fields.is_empty() {
            quote! { {} }
        } else {
            quote! { { #(#fields)* } }
        };
        let codec = self.c.codec_impls().codec_impl(sid)?;
        let into_owned = self.c.l.borrows[sid].then(|| {
            let fields = s.value_fields().map(|(_, f)| {
                let n = ident(&f.name);
                if self.c.l.type_borrows(&f.ty) {
                    quote! { #n: IntoOwned::into_owned(self.#n) }
                } else {
                    quote! { #n: self.#n }
                }
            });
            quote! {
                impl IntoOwned for #name<'_> {
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
    // The switch and the variants whose tag gives this field's value, said once.
    let mut switch = None;
    let solved: Vec<String> = f
        .implied
        .iter()
        .filter_map(|imp| match &imp.when {
            ImpliedWhen::Variant { field, case, .. } => match &s.fields[*field].ty {
                Ty::Union(u) => {
                    switch = Some(&s.fields[*field].name);
                    Some(format!("`{}`", u.cases[*case].variant))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    let mut parts: Vec<String> = f
        .implied
        .iter()
        .filter(|imp| !matches!(imp.when, ImpliedWhen::Variant { .. }))
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
                (ImpliedValue::Solved, _) => "the value its tag asks".into(),
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
                (ImpliedWhen::Variant { .. }, _) => format!("writes {value}"),
            }
        })
        .collect();
    if let Some(switch) = switch {
        parts.push(format!(
            "writes the value the tag asks when `{switch}` is {} (yours for its other variants)",
            solved.join(" or ")
        ));
    }
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
