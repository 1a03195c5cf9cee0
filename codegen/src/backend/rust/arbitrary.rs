//! Random values (the `arbitrary` feature) that the encoder accepts: fuzzing and `wiregen
//! verify` make messages from them, and a refused value proves nothing.

use super::*;

/// Types narrower than their Rust type (a `u4` enum in a `u8`, a `u3` flag set): an
/// `Arbitrary` impl drawing values of the type's width only, turned into `Self` by `from_raw`
/// (an expression of `raw` giving `arbitrary::Result<Self>`); the others derive it. The derive
/// attribute and the impl, to place beside the type.
pub(crate) fn of_width(
    features: Features,
    name: &Ident,
    repr: &IntTy,
    from_raw: TokenStream,
) -> (TokenStream, TokenStream) {
    if repr.is_native() {
        return (
            features.attr("arbitrary", quote! { derive(arbitrary::Arbitrary) }),
            quote! {},
        );
    }
    let (raw, bits) = (int_rust(repr), Literal::u32_unsuffixed(repr.bits));
    let imp = features.items(
        "arbitrary",
        &[quote! {
            impl<'u> arbitrary::Arbitrary<'u> for #name {
                fn arbitrary(u: &mut arbitrary::Unstructured<'u>) -> arbitrary::Result<Self> {
                    let raw = wiregen_runtime::arbitrary_support::unsigned::<#raw, #bits>(u)?;
                    #from_raw
                }
            }
        }],
    );
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
    ) -> Result<TokenStream, Internal> {
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
                // A closed range: the runtime's function of its bounds.
                let (lo, hi) = (Literal::i64_unsuffixed(*lo), Literal::i64_unsuffixed(*hi));
                let f = if optional {
                    quote! { optional_in_range }
                } else {
                    quote! { in_range }
                };
                return Ok(self.features().attr(
                    "arbitrary",
                    quote! { arbitrary(with = wiregen_runtime::arbitrary_support::#f::<#t, #lo, #hi>) },
                ));
            }
            Valid::Range { .. } => return Ok(arbitrary_in_range(self.features(), &f.ty, optional)),
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
        Ok(self.features().attr(
            "arbitrary",
            quote! { arbitrary(with = |u: &mut arbitrary::Unstructured| -> arbitrary::Result<#ty> { #value }) },
        ))
    }
}

/// Random arrays the encoder accepts: as many elements as a constant fixes (`count: 3`, or
/// `length: 12` over 4-byte elements), and elements of a narrow integer type (`u12[]`) in its
/// range. Other arrays derive their values.
pub(crate) fn arbitrary_array(
    features: Features,
    p: &Protocol,
    sid: StructId,
    fi: usize,
) -> TokenStream {
    let s = &p.structs[sid];
    let Ty::Array(elem, count) = &s.fields[fi].ty else {
        return quote! {};
    };
    // The most elements the count can say: its prefix's, or its field's (through the field's
    // linear expression, `count = mul * field + add`).
    let most = match count {
        Len::Prefix(it) => Some(it.max_value()),
        _ => s.fields.iter().find_map(|d| match (&d.role, &d.ty) {
            (Role::Derived(Derive::CountOf(t, l)), Ty::Int(it)) if *t == fi && l.mul > 0 => {
                let field_max = d.max.unwrap_or(u64::MAX).min(it.max_value());
                u64::try_from(i128::from(l.mul) * i128::from(field_max) + i128::from(l.add)).ok()
            }
            _ => None,
        }),
    };
    let fixed = match count {
        Len::Expr(Expr::Int(n, _)) => Some(*n as usize),
        Len::Bytes(Expr::Int(n, _)) => match p.fixed_size(elem) {
            Some(size) if size > 0 && (*n as usize).is_multiple_of(size) => {
                Some(*n as usize / size)
            }
            _ => None,
        },
        _ => None,
    };
    // A count narrower than a byte would refuse most random lengths.
    let most = most.filter(|&m| m < 255);
    let narrow = matches!(&**elem, Ty::Int(it) if !it.is_native());
    if fixed.is_none() && most.is_none() && !narrow {
        return quote! {};
    }
    let lit = |n: usize| {
        let n = lit_usize(n);
        quote! { #n }
    };
    let (min, max) = match (fixed, most) {
        (Some(n), _) => (lit(n), lit(n)),
        (None, Some(m)) => (lit(0), lit(m as usize)),
        (None, None) => (lit(0), quote! { { usize::MAX } }),
    };
    let f = match &**elem {
        Ty::Int(it) if narrow => {
            let (t, bits) = (int_rust(it), Literal::u32_unsuffixed(it.bits));
            let f = format_ident!(
                "{}",
                if it.signed {
                    "vec_signed"
                } else {
                    "vec_unsigned"
                }
            );
            quote! { #f::<#t, #bits, #min, #max> }
        }
        _ => quote! { vec_of::<_, #min, #max> },
    };
    features.attr(
        "arbitrary",
        quote! { arbitrary(with = wiregen_runtime::arbitrary_support::#f) },
    )
}

pub(crate) fn arbitrary_in_range(features: Features, ty: &Ty, optional: bool) -> TokenStream {
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
    features.attr(
        "arbitrary",
        quote! { arbitrary(with = wiregen_runtime::arbitrary_support::#f::<#t, #bits>) },
    )
}
