//! Random values (the `arbitrary` feature) that the encoder accepts: fuzzing and `wiregen
//! verify` make messages from them, and a refused value proves nothing.

use super::*;

/// Types narrower than their Rust type (a `u4` enum in a `u8`, a `u3` flag set): an
/// `Arbitrary` impl drawing values of the type's width only, turned into `Self` by `from_raw`
/// (an expression of `raw` giving `arbitrary::Result<Self>`); the others derive it. The derive
/// attribute and the impl, to place beside the type.
pub(crate) fn of_width(
    name: &Ident,
    repr: &IntTy,
    from_raw: TokenStream,
) -> (TokenStream, TokenStream) {
    if repr.is_native() {
        return (
            quote! { #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))] },
            quote! {},
        );
    }
    let (raw, bits) = (int_rust(repr), Literal::u32_unsuffixed(repr.bits));
    let imp = quote! {
        #[cfg(feature = "arbitrary")]
        impl<'u> arbitrary::Arbitrary<'u> for #name {
            fn arbitrary(u: &mut arbitrary::Unstructured<'u>) -> arbitrary::Result<Self> {
                let raw = wiregen_runtime::arbitrary_support::unsigned::<#raw, #bits>(u)?;
                #from_raw
            }
        }
    };
    (quote! {}, imp)
}

/// For an integer narrower than its Rust type (`u24` in a `u32`, `u3` in a `u8`), random values
/// only in its range: the encoder refuses the others, and random messages (fuzzing, `wiregen
/// verify`) would be mostly refused values.
impl Gen<'_> {
    /// Random values of a field with `valid` that the encoder accepts: a value of the list, or
    /// of a closed range (an open range keeps the type's own values).
    pub(crate) fn arbitrary_valid(
        &self,
        sid: StructId,
        fi: usize,
        valid: &Valid,
        optional: bool,
    ) -> Result<TokenStream, Unsupported> {
        let f = &self.p.structs[sid].fields[fi];
        let t = self.rust_ty(sid, fi, &f.ty)?;
        let pick = match valid {
            Valid::List(values) => {
                let values = values.iter().map(|v| Literal::i64_unsuffixed(*v));
                quote! { u.choose(&[#(#values),*]).copied() }
            }
            Valid::Range {
                min: Some(lo),
                max: Some(hi),
            } => {
                let (lo, hi) = (Literal::i64_unsuffixed(*lo), Literal::i64_unsuffixed(*hi));
                quote! { u.int_in_range(#lo..=#hi) }
            }
            Valid::Range { .. } => return Ok(arbitrary_in_range(&f.ty, optional)),
        };
        let value = if optional {
            quote! { Ok(if u.arbitrary()? { Some(#pick?) } else { None }) }
        } else {
            pick
        };
        let ty = if optional {
            quote! { Option<#t> }
        } else {
            t
        };
        Ok(quote! {
            #[cfg_attr(feature = "arbitrary", arbitrary(with = |u: &mut arbitrary::Unstructured| -> arbitrary::Result<#ty> { #value }))]
        })
    }
}

/// An array whose element count a constant fixes (`count: 3`, or `length: 12` over 4-byte
/// elements): random values of exactly that many elements, which the encoder accepts.
pub(crate) fn arbitrary_fixed_count(p: &Protocol, ty: &Ty) -> TokenStream {
    let n = match ty {
        Ty::Array(_, Len::Expr(Expr::Int(n))) => *n as usize,
        Ty::Array(elem, Len::Bytes(Expr::Int(n))) => match p.fixed_size(elem) {
            Some(size) if size > 0 && (*n as usize).is_multiple_of(size) => *n as usize / size,
            _ => return quote! {},
        },
        _ => return quote! {},
    };
    let n = lit_usize(n);
    quote! {
        #[cfg_attr(feature = "arbitrary", arbitrary(with = |u: &mut arbitrary::Unstructured| (0..#n).map(|_| u.arbitrary()).collect::<arbitrary::Result<_>>()))]
    }
}

pub(crate) fn arbitrary_in_range(ty: &Ty, optional: bool) -> TokenStream {
    let (t, bits, signed) = match ty {
        Ty::Int(it) if !it.is_native() => (int_rust(it), it.bits, it.signed),
        Ty::VarInt(VarInt::RiptideLen) => (format_ident!("u16"), 15, false),
        _ => return quote! {},
    };
    let f = match (optional, signed) {
        (false, false) => "unsigned",
        (false, true) => "signed",
        (true, false) => "optional_unsigned",
        (true, true) => "optional_signed",
    };
    let f = format_ident!("{f}");
    let bits = Literal::u32_unsuffixed(bits);
    quote! {
        #[cfg_attr(feature = "arbitrary", arbitrary(with = wiregen_runtime::arbitrary_support::#f::<#t, #bits>))]
    }
}
