//! Random values (the `arbitrary` feature) that the encoder accepts: fuzzing and `wiregen
//! verify` make messages from them, and a refused value proves nothing.

use super::*;

/// Renders the draws of arbitrary values that satisfy a field's `valid:` and a switch's cases.
#[derive(Clone, Copy)]
pub(crate) struct ArbitraryValues<'p> {
    pub(crate) c: Crate<'p>,
}

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
impl ArbitraryValues<'_> {
    /// Random values of a field with `valid` that the encoder accepts: a value of the list, or
    /// of a closed range (an open range keeps the type's own values).
    pub(crate) fn arbitrary_valid(
        &self,
        sid: StructId,
        fi: usize,
        valid: &Valid,
        optional: bool,
    ) -> Result<TokenStream, Internal> {
        let f = &self.c.p.structs[sid].fields[fi];
        let t = self.c.types().rust_ty(sid, fi, &f.ty)?;
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
                return Ok(self.c.features().attr(
                    "arbitrary",
                    quote! { arbitrary(with = wiregen_runtime::arbitrary_support::#f::<#t, #lo, #hi>) },
                ));
            }
            Valid::Range { .. } => {
                return Ok(arbitrary_in_range(self.c.features(), &f.ty, optional))
            }
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
        Ok(self.c.features().attr(
            "arbitrary",
            quote! { arbitrary(with = |u: &mut arbitrary::Unstructured| -> arbitrary::Result<#ty> { #value }) },
        ))
    }
}

impl ArbitraryValues<'_> {
    /// Random tags of a variant that carries its tag (a case of ranges, or of several values):
    /// one of the case's own values, as the encoder accepts no other (`TagOutsideCase`). A tag
    /// of an enum type keeps the enum's draw. The variant's attribute, and the function it
    /// names when it needs one (beside the tag method).
    pub(crate) fn arbitrary_case_tag(
        &self,
        ty: &Ty,
        t: &TokenStream,
        case: &Case,
    ) -> (TokenStream, Option<TokenStream>) {
        if !matches!(ty, Ty::Int(it) if !it.signed) {
            return (quote! {}, None);
        }
        if let [CaseValue::Range(lo, hi)] = case.values[..] {
            if hi <= i64::MAX as u64 {
                let (lo, hi) = (lit_u64(lo), lit_u64(hi));
                let draw = quote! { wiregen_runtime::arbitrary_support::in_range::<#t, #lo, #hi> };
                return (
                    self.c
                        .features()
                        .attr("arbitrary", quote! { arbitrary(with = #draw) }),
                    None,
                );
            }
        }
        let ones = case.values.iter().filter_map(|v| match *v {
            CaseValue::One(v) => Some(lit_u64(v)),
            CaseValue::Range(..) => None,
        });
        let ranges = case.values.iter().filter_map(|v| match *v {
            CaseValue::Range(lo, hi) => {
                let (lo, hi) = (lit_u64(lo), lit_u64(hi));
                Some(quote! { (#lo, #hi) })
            }
            CaseValue::One(_) => None,
        });
        let draw =
            quote! { wiregen_runtime::arbitrary_support::named(u, &[#(#ones),*], &[#(#ranges),*]) };
        let (attr, function) = self.tag_draw(&case.variant, t, draw);
        (attr, Some(function))
    }

    /// A variant's random tag drawn by a function of the switch's enum, `arbitrary_<variant>_tag`
    /// (a closure in the attribute would read as one long line): the attribute that names it,
    /// and the function.
    fn tag_draw(
        &self,
        variant: &str,
        t: &TokenStream,
        draw: TokenStream,
    ) -> (TokenStream, TokenStream) {
        let name = format_ident!("arbitrary_{}_tag", variant.to_snake_case());
        let doc = format!(" A random tag `{variant}` may be sent with (the `arbitrary` feature).");
        let function = quote! {
            fn #name(u: &mut arbitrary::Unstructured) -> arbitrary::Result<#t> {
                #draw
            }
        };
        // The doc comment before the `cfg`, as one writes it.
        let function = self.c.features().items("arbitrary", &[function]);
        let function = match function.is_empty() {
            true => function,
            false => quote! { #[doc = #doc] #function },
        };
        (
            self.c
                .features()
                .attr("arbitrary", quote! { arbitrary(with = Self::#name) }),
            function,
        )
    }

    /// Random tags of a switch's default variant: a value no case names, as the encoder refuses
    /// the default with a tag a case has (`TagHasVariant`). An unsigned integer or an open enum
    /// draws outside the cases' values; a closed enum one of its names no case takes. The
    /// variant's attribute, and the function it names (beside the tag method).
    pub(crate) fn arbitrary_default_tag(
        &self,
        tag: &Field,
        t: &TokenStream,
        u: &Union,
    ) -> Option<(TokenStream, TokenStream)> {
        let ty = &tag.ty;
        let mut taken: Vec<(u64, u64)> = u
            .cases
            .iter()
            .flat_map(|c| &c.values)
            .map(|v| v.bounds())
            .collect();
        // Whether no case takes a value of `lo..=hi`.
        let free = |taken: &[(u64, u64)], lo: u64, hi: u64| {
            !taken.iter().any(|&(a, b)| lo <= b && a <= hi)
        };
        // Within the tag field's `valid` too: a list's other values, a range's.
        let mut top = None;
        match &tag.valid {
            Some(Valid::List(values)) if matches!(ty, Ty::Int(it) if !it.signed) => {
                let free: Vec<Literal> = values
                    .iter()
                    .filter(|&&v| v >= 0 && free(&taken, v as u64, v as u64))
                    .map(|&v| lit_u64(v as u64))
                    .collect();
                if free.is_empty() {
                    return None;
                }
                let draw =
                    quote! { wiregen_runtime::arbitrary_support::named(u, &[#(#free),*], &[]) };
                return Some(self.tag_draw(&u.default_variant, t, draw));
            }
            Some(Valid::Range { min, max }) => {
                if let Some(lo) = min.filter(|&lo| lo > 0) {
                    taken.push((0, lo as u64 - 1));
                }
                top = max.map(|hi| hi.max(0) as u64);
            }
            _ => {}
        }
        let pairs = taken.iter().map(|&(lo, hi)| {
            let (lo, hi) = (lit_u64(lo), lit_u64(hi));
            quote! { (#lo, #hi) }
        });
        let outside = |raw: &IntTy| {
            let max = lit_u64(top.map_or(raw.max_value(), |top| top.min(raw.max_value())));
            quote! { wiregen_runtime::arbitrary_support::other(u, #max, &[#(#pairs),*]) }
        };
        let draw = match ty {
            Ty::Int(it) if !it.signed => outside(it),
            Ty::Enum(id) if !self.c.p.enums[*id].repr.signed => {
                let e = &self.c.p.enums[*id];
                let name = ident(&e.name);
                if !e.closed {
                    let raw = outside(&e.repr);
                    quote! { #raw.map(#name::from_raw) }
                } else {
                    let values: Vec<_> = e
                        .values
                        .iter()
                        .filter(|v| free(&taken, v.value, v.value))
                        .map(|v| lit_u64(v.value))
                        .collect();
                    let ranges: Vec<_> = e
                        .ranges
                        .iter()
                        .filter(|r| free(&taken, r.lo, r.hi))
                        .map(|r| {
                            let (lo, hi) = (lit_u64(r.lo), lit_u64(r.hi));
                            quote! { (#lo, #hi) }
                        })
                        .collect();
                    if values.is_empty() && ranges.is_empty() {
                        return None;
                    }
                    let rt = int_rust(&e.repr);
                    quote! {
                        #name::from_raw(wiregen_runtime::arbitrary_support::named::<#rt>(u, &[#(#values),*], &[#(#ranges),*])?)
                            .ok_or(arbitrary::Error::IncorrectFormat)
                    }
                }
            }
            _ => return None,
        };
        Some(self.tag_draw(&u.default_variant, t, draw))
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

/// Random text or bytes of the constant length a field's `length` asks (`length: 2`): any other
/// length the encoder refuses (`LengthMismatch`).
pub(crate) fn arbitrary_fixed_len(features: Features, ty: &Ty) -> TokenStream {
    let draw = match ty {
        Ty::Bytes(Len::Expr(Expr::Int(n, _))) => {
            let n = lit_usize(*n as usize);
            quote! { wiregen_runtime::arbitrary_support::bytes_of::<#n> }
        }
        Ty::Str(Len::Expr(Expr::Int(n, _)), text) if text.nul == Nul::No => {
            let chars = match text.encoding {
                Encoding::Utf16 { .. } if n % 2 == 0 => n / 2,
                Encoding::Utf16 { .. } => return quote! {},
                _ => *n,
            };
            let chars = lit_usize(chars as usize);
            quote! { wiregen_runtime::arbitrary_support::text_of::<#chars> }
        }
        _ => return quote! {},
    };
    features.attr("arbitrary", quote! { arbitrary(with = #draw) })
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
