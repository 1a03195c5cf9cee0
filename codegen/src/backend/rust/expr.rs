//! Schema expressions as Rust, case patterns and value limits.

use super::*;

/// Renders schema expressions as Rust: while decoding, encoding, and in switch patterns.
#[derive(Clone, Copy)]
pub(crate) struct Exprs<'p> {
    pub(crate) c: Crate<'p>,
}

/// Where an expression is evaluated: in a decoder (fields are locals already read), in a
/// decoder choosing a switch's case (list items name that switch in their errors), in an
/// encoder (fields the user sets are read from `self`, or from the local that holds what the
/// encoder implies of them), or on a value (`self`, as the user gave it or the decoder read it).
#[derive(Clone, Copy)]
pub(crate) enum Ctx<'n> {
    Decode,
    Tag(&'n str),
    Encode,
    Value,
}

/// Case values sorted, with touching and overlapping ones merged into ranges.
pub(crate) fn merged_values(values: impl Iterator<Item = CaseValue>) -> Vec<CaseValue> {
    let mut spans: Vec<(u64, u64)> = values.map(CaseValue::bounds).collect();
    spans.sort();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (lo, hi) in spans {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out.into_iter()
        .map(|(lo, hi)| {
            if lo == hi {
                CaseValue::One(lo)
            } else {
                CaseValue::Range(lo, hi)
            }
        })
        .collect()
}

/// Largest value a varint field holds.
pub(crate) fn varint_max(ty: &Ty) -> u64 {
    match ty {
        Ty::VarInt(VarInt::Rabbit {
            bits,
            signed: false,
        }) if *bits < 64 => (1u64 << bits) - 1,
        Ty::VarInt(VarInt::Rabbit { bits, signed: true }) if *bits < 64 => (1u64 << (bits - 1)) - 1,
        Ty::VarInt(VarInt::RiptideLen) => 0x7FFF,
        Ty::VarInt(VarInt::ZigZag) | Ty::VarInt(VarInt::Rabbit { signed: true, .. }) => {
            i64::MAX as u64
        }
        _ => u64::MAX,
    }
}

/// How a switch's tag is matched: directly on the tag field (its enum's variants, or its
/// unsigned number) where the tag is one field, else on the expression's value as `i128`.
#[derive(Clone, Copy)]
pub(crate) enum TagKind {
    Enum(EnumId),
    /// A bool: cases `true` (1) and `false` (0).
    Bool,
    Unsigned(u32),
    Wide,
}

/// `values` cut to those an unsigned number of `bits` can hold (literals out of range do not
/// compile; such values can never match).
fn within(values: &[CaseValue], bits: u32) -> Vec<CaseValue> {
    let max = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    values
        .iter()
        .filter_map(|cv| match *cv {
            CaseValue::One(x) => (x <= max).then_some(*cv),
            CaseValue::Range(lo, hi) => (lo <= max).then_some(CaseValue::Range(lo, hi.min(max))),
        })
        .collect()
}

impl TagKind {
    /// The kind of a tag field of type `ty`.
    pub(crate) fn of(ty: &Ty) -> TagKind {
        match ty {
            Ty::Enum(id) => TagKind::Enum(*id),
            Ty::Bool => TagKind::Bool,
            Ty::Int(it) if !it.signed => TagKind::Unsigned(it.storage_bits()),
            _ => TagKind::Wide,
        }
    }

    /// `value` (the subject) as the `u64` an error reports.
    pub(crate) fn raw(self, value: TokenStream) -> TokenStream {
        match self {
            TagKind::Enum(_) => quote! { #value.raw() as u64 },
            TagKind::Unsigned(64) => value,
            TagKind::Unsigned(_) | TagKind::Wide | TagKind::Bool => quote! { #value as u64 },
        }
    }
}

impl<'p> Exprs<'p> {
    /// What a switch on `on` matches, and how.
    pub(crate) fn tag_subject(&self, on: &Expr, ctx: Ctx) -> (TokenStream, TagKind) {
        if let Expr::Field(path) = on {
            let kind = TagKind::of(&self.c.p.field(path.last().unwrap()).ty);
            if !matches!(kind, TagKind::Wide) && !self.through_optional(path) {
                return (self.access(path, ctx), kind);
            }
        }
        (self.expr_top(on, ctx), TagKind::Wide)
    }

    /// The patterns matching `values` on a subject of `kind`: enum variants by name (and
    /// `Unknown(..)` for values the enum does not name), or number literals.
    pub(crate) fn tag_patterns(&self, kind: TagKind, values: &[CaseValue]) -> Vec<TokenStream> {
        let id = match kind {
            TagKind::Enum(id) => id,
            TagKind::Bool => {
                return within(values, 1)
                    .iter()
                    .map(|cv| match cv {
                        CaseValue::One(0) => quote! { false },
                        CaseValue::One(_) => quote! { true },
                        CaseValue::Range(..) => quote! { _ },
                    })
                    .collect()
            }
            TagKind::Unsigned(bits) => {
                return within(values, bits).iter().map(case_pattern).collect()
            }
            TagKind::Wide => return values.iter().map(case_pattern).collect(),
        };
        let e = &self.c.p.enums[id];
        let values = within(values, e.repr.storage_bits());
        let n = ident(&e.name);
        let mut pats = Vec::new();
        for cv in &values {
            let (lo, hi) = cv.bounds();
            let named: Vec<&NamedConst> = e
                .values
                .iter()
                .filter(|c| (lo..=hi).contains(&c.value))
                .collect();
            for c in &named {
                let var = variant_ident(&c.name.to_upper_camel_case());
                pats.push(quote! { #n::#var });
            }
            // Named ranges: the part of each inside the case.
            let mut covered = named.len() as u64;
            for r in e.ranges.iter().filter(|r| r.lo <= hi && lo <= r.hi) {
                let var = variant_ident(&r.name.to_upper_camel_case());
                let (a, b) = (r.lo.max(lo), r.hi.min(hi));
                covered += b - a + 1;
                pats.push(if (a, b) == (r.lo, r.hi) {
                    quote! { #n::#var(_) }
                } else {
                    let (a, b) = (lit_u64(a), lit_u64(b));
                    quote! { #n::#var(#a..=#b) }
                });
            }
            if !e.closed && covered <= hi - lo {
                pats.push(match cv {
                    CaseValue::One(_) => {
                        let l = lit_u64(lo);
                        quote! { #n::Unknown(#l) }
                    }
                    CaseValue::Range(..) => {
                        let (l, h) = (lit_u64(lo), lit_u64(hi));
                        quote! { #n::Unknown(#l..=#h) }
                    }
                });
            }
        }
        pats
    }
}

impl<'p> Exprs<'p> {
    /// Whether `values` name every value a subject of `kind` can have (a catch-all arm after
    /// them would be unreachable).
    pub(crate) fn tag_exhausted(&self, kind: TagKind, values: &[CaseValue]) -> bool {
        let bits = match kind {
            TagKind::Enum(id) if self.c.p.enums[id].closed => {
                let e = &self.c.p.enums[id];
                let covered = |v: u64| {
                    values.iter().any(|cv| match *cv {
                        CaseValue::One(x) => x == v,
                        CaseValue::Range(lo, hi) => (lo..=hi).contains(&v),
                    })
                };
                let whole = |lo: u64, hi: u64| {
                    merged_values(values.iter().copied())
                        .iter()
                        .any(|cv| match *cv {
                            CaseValue::One(x) => lo == hi && x == lo,
                            CaseValue::Range(a, b) => a <= lo && hi <= b,
                        })
                };
                return e.values.iter().all(|c| covered(c.value))
                    && e.ranges.iter().all(|r| whole(r.lo, r.hi));
            }
            TagKind::Enum(id) => self.c.p.enums[id].repr.storage_bits(),
            TagKind::Bool => 1,
            TagKind::Unsigned(bits) => bits,
            TagKind::Wide => return false,
        };
        let max = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut next = 0u64;
        for cv in merged_values(values.iter().copied()) {
            let (lo, hi) = cv.bounds();
            if lo > next {
                return false;
            }
            if hi >= max {
                return true;
            }
            next = next.max(hi + 1);
        }
        false
    }
}

/// A match pattern for one case value, on the tag as `i128`.
pub(crate) fn case_pattern(cv: &CaseValue) -> TokenStream {
    match cv {
        CaseValue::One(x) => {
            let l = Literal::i128_unsuffixed(*x as i128);
            quote! { #l }
        }
        CaseValue::Range(lo, hi) => {
            let (lo, hi) = (
                Literal::i128_unsuffixed(*lo as i128),
                Literal::i128_unsuffixed(*hi as i128),
            );
            quote! { #lo..=#hi }
        }
    }
}

pub(crate) fn lit_hex(v: u64) -> TokenStream {
    format!("{v:#X}").parse().unwrap()
}

impl<'p> Exprs<'p> {
    /// Integer expressions evaluate as `i128` (no overflow for 64-bit fields), conditions as
    /// `bool`; division by zero gives 0 rather than a panic.
    pub(crate) fn expr(&self, e: &Expr, ctx: Ctx) -> TokenStream {
        match e {
            Expr::Int(v, Radix::Dec) => {
                let l = Literal::i128_suffixed(*v as i128);
                quote! { #l }
            }
            // As the schema writes it (`0xD1CE_i128`).
            Expr::Int(v, Radix::Hex) => format!("{v:#X}_i128").parse().unwrap(),
            Expr::Bool(b) => quote! { #b },
            Expr::MessageSize => quote! { (r.message_len() as i128) },
            Expr::Remaining => quote! { (r.remaining() as i128) },
            Expr::Enclosing(field) => self.enclosing(field, ctx),
            Expr::FromClient => {
                let coder = context_coder(ctx);
                quote! { #coder.from_client("from_client")? }
            }
            Expr::Field(path) => {
                let is_bool = matches!(self.c.p.field(path.last().unwrap()).ty, Ty::Bool);
                let leaf = |x: TokenStream| match &self.c.p.field(path.last().unwrap()).ty {
                    Ty::Bool => quote! { (#x) },
                    Ty::Enum(_) => quote! { (#x.raw() as i128) },
                    Ty::Flags(_) => quote! { (#x.bits() as i128) },
                    _ => quote! { (#x as i128) },
                };
                let absent = if is_bool {
                    quote! { false }
                } else {
                    quote! { 0 }
                };
                self.read_through(path, ctx, absent, leaf)
            }
            Expr::FlagBit(path, mask) => self.read_through(path, ctx, quote! { false }, |x| {
                self.c.types().has_flag(path, *mask, x)
            }),
            Expr::Len(path, _) => {
                self.read_through(path, ctx, quote! { 0 }, |x| quote! { (#x.len() as i128) })
            }
            Expr::Item(t, i) => {
                let i = self.expr_top(i, ctx);
                let tl = lit_usize(*t);
                match ctx {
                    Ctx::Tag(name) => quote! { ({ let i = #i; r.item(#tl, i, #name)? } as i128) },
                    // Validation keeps list items to switch tags, which only decoders evaluate.
                    Ctx::Decode | Ctx::Encode | Ctx::Value => quote! { 0i128 },
                }
            }
            Expr::Not(x) => {
                let x = self.negated(x, ctx);
                quote! { (#x) }
            }
            Expr::Neg(x) => {
                let x = self.expr(x, ctx);
                quote! { (#x.wrapping_neg()) }
            }
            Expr::Cond(c, a, b) => {
                let c = self.expr_top(c, ctx);
                let (a, b) = (self.expr_top(a, ctx), self.expr_top(b, ctx));
                quote! { (if #c { #a } else { #b }) }
            }
            Expr::Binary(op, a, b) => {
                if let Some(native) = self.native_comparison(op, a, b, ctx) {
                    return native;
                }
                let a = self.expr(a, ctx);
                let b = self.expr(b, ctx);
                // A method's argument needs no parentheses of its own.
                let arg = bare(b.clone());
                // Operands that bind tighter than the operator lose their parentheses.
                let (a, b) = match binding(op) {
                    Some(own) => (loosen(a, own), loosen(b, own)),
                    None => (a, b),
                };
                match op {
                    BinOp::Or => quote! { (#a || #b) },
                    BinOp::And => quote! { (#a && #b) },
                    BinOp::Eq => quote! { (#a == #b) },
                    BinOp::Ne => quote! { (#a != #b) },
                    BinOp::Lt => quote! { (#a < #b) },
                    BinOp::Le => quote! { (#a <= #b) },
                    BinOp::Gt => quote! { (#a > #b) },
                    BinOp::Ge => quote! { (#a >= #b) },
                    BinOp::BitOr => quote! { (#a | #b) },
                    BinOp::BitAnd => quote! { (#a & #b) },
                    BinOp::Shl => quote! { (#a.wrapping_shl(#b as u32)) },
                    BinOp::Shr => quote! { (#a.wrapping_shr(#b as u32)) },
                    BinOp::Add => quote! { (#a.wrapping_add(#arg)) },
                    BinOp::Sub => quote! { (#a.wrapping_sub(#arg)) },
                    BinOp::Mul => quote! { (#a.wrapping_mul(#arg)) },
                    BinOp::Div => quote! { (#a.checked_div(#arg).unwrap_or(0)) },
                    BinOp::Rem => quote! { (#a.checked_rem(#arg).unwrap_or(0)) },
                }
            }
        }
    }

    /// A field read in its own Rust type, when `e` is one that needs no widening: an integer,
    /// enum (its raw value) or flag set (its bits) not behind an optional field, or the length
    /// of one (`usize`). With the range of values that type holds.
    pub(crate) fn native_int(&self, e: &Expr, ctx: Ctx) -> Option<(TokenStream, (i128, i128))> {
        let range = |signed: bool, bits: u32| {
            if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            }
        };
        match e {
            Expr::Field(path) if !self.through_optional(path) => {
                let x = self.access(path, ctx);
                match &self.c.p.field(path.last()?).ty {
                    Ty::Int(it) => Some((x, range(it.signed, it.storage_bits()))),
                    Ty::Enum(id) => {
                        let it = self.c.p.enums[*id].repr;
                        Some((quote! { #x.raw() }, range(it.signed, it.storage_bits())))
                    }
                    Ty::Flags(id) => {
                        let it = self.c.p.flags[*id].repr;
                        Some((quote! { #x.bits() }, range(it.signed, it.storage_bits())))
                    }
                    // As their Rust types (`types/mod.rs`) hold them.
                    Ty::VarInt(VarInt::Leb128) => Some((x, range(false, 64))),
                    Ty::VarInt(VarInt::ZigZag) => Some((x, range(true, 64))),
                    Ty::VarInt(VarInt::RiptideLen) => Some((x, range(false, 16))),
                    Ty::VarInt(VarInt::Rabbit { bits, signed }) => Some((x, range(*signed, *bits))),
                    _ => None,
                }
            }
            Expr::Len(path, _) if !self.through_optional(path) => {
                let x = self.access(path, ctx);
                Some((quote! { #x.len() }, (0, u32::MAX as i128)))
            }
            _ => None,
        }
    }

    /// `a op b` compared in the field's own type when one side is a field (see
    /// [`Self::native_int`]) and the other a number that type holds: `kind.raw() == 255`
    /// rather than `(kind.raw() as i128) == 255i128`, and `!data.is_empty()` for a length
    /// above 0.
    fn native_comparison(&self, op: &BinOp, a: &Expr, b: &Expr, ctx: Ctx) -> Option<TokenStream> {
        use BinOp::*;
        // With the field on the left (`0 < n` is `n > 0`).
        let (field, v, radix, op) = match (a, b) {
            (Expr::Int(v, radix), field) => {
                let flipped = match op {
                    Lt => Gt,
                    Le => Ge,
                    Gt => Lt,
                    Ge => Le,
                    other => *other,
                };
                (field, *v, *radix, flipped)
            }
            (field, Expr::Int(v, radix)) => (field, *v, *radix, *op),
            _ => return None,
        };
        let (x, (lo, hi)) = self.native_int(field, ctx)?;
        if !(lo..=hi).contains(&(v as i128)) {
            return None;
        }
        // An enum against one of its values, by name: `command == Command::Ack` where the
        // decoder read it; where a value to encode is tested, by raw value (`kind.raw() ==
        // Kind::Ack.raw()`): it may be an `Unknown(raw)` with a named value's raw, and it is
        // written as its raw.
        if let (Expr::Field(path), Eq | Ne) = (field, op) {
            let leaf = path
                .last()
                .map(|r| &self.c.p.structs[r.struct_id].fields[r.field].ty);
            if let Some(ty @ Ty::Enum(id)) = leaf {
                let e = &self.c.p.enums[*id];
                if e.values.iter().any(|c| c.value == v) {
                    let value = self.c.types().tag_value_expr(ty, v);
                    let op = if op == Eq {
                        quote! { == }
                    } else {
                        quote! { != }
                    };
                    return Some(match ctx {
                        Ctx::Decode | Ctx::Tag(_) => {
                            let access = self.access(path, ctx);
                            quote! { (#access #op #value) }
                        }
                        Ctx::Encode | Ctx::Value => quote! { (#x #op #value.raw()) },
                    });
                }
            }
        }
        if let Expr::Len(path, _) = field {
            let list = self.access(path, ctx);
            match (op, v) {
                (Gt | Ne, 0) | (Ge, 1) => return Some(quote! { (!#list.is_empty()) }),
                (Eq | Le, 0) | (Lt, 1) => return Some(quote! { (#list.is_empty()) }),
                _ => {}
            }
        }
        let op = match op {
            Eq => quote! { == },
            Ne => quote! { != },
            Lt => quote! { < },
            Le => quote! { <= },
            Gt => quote! { > },
            Ge => quote! { >= },
            _ => return None,
        };
        // Written as the schema wrote it (`kind >= 0x10`).
        let v = match radix {
            Radix::Hex => format!("{v:#X}").parse().unwrap(),
            Radix::Dec => {
                let v = Literal::u64_unsuffixed(v);
                quote! { #v }
            }
        };
        Some(quote! { (#x #op #v) })
    }

    /// The negation of condition `e`, without outer parentheses: comparisons and flag tests
    /// are inverted rather than wrapped in `!( )`.
    pub(crate) fn negated(&self, e: &Expr, ctx: Ctx) -> TokenStream {
        let inverse = |op: &BinOp| match op {
            BinOp::Eq => Some(BinOp::Ne),
            BinOp::Ne => Some(BinOp::Eq),
            BinOp::Lt => Some(BinOp::Ge),
            BinOp::Le => Some(BinOp::Gt),
            BinOp::Gt => Some(BinOp::Le),
            BinOp::Ge => Some(BinOp::Lt),
            _ => None,
        };
        match e {
            Expr::Not(x) => self.expr_top(x, ctx),
            Expr::FlagBit(path, mask) if !self.through_optional(path) => {
                let has = self.c.types().has_flag(path, *mask, self.access(path, ctx));
                quote! { !#has }
            }
            // The inverse comparison, of native integers where both sides are.
            Expr::Binary(op, a, b) if inverse(op).is_some() => {
                let op = inverse(op).unwrap_or(*op);
                bare(self.expr(&Expr::Binary(op, a.clone(), b.clone()), ctx))
            }
            _ => {
                // `!enabled`, `!(a || b)`.
                let x = loosen(self.expr(e, ctx), (9, false));
                quote! { !#x }
            }
        }
    }

    /// An expression used whole (an argument, a condition): without its outer parentheses.
    pub(crate) fn expr_top(&self, e: &Expr, ctx: Ctx) -> TokenStream {
        bare(self.expr(e, ctx))
    }

    /// Whether reading `path` passes through a conditional field (an `Option`).
    pub(crate) fn through_optional(&self, path: &[FieldRef]) -> bool {
        path.iter().any(|r| self.c.p.field(r).condition.is_some())
    }

    /// `leaf` of the value at `path`; where the path passes through a conditional field (an
    /// `Option`), the rest is read inside it and an absent field reads as `absent` (0, false).
    fn read_through(
        &self,
        path: &[FieldRef],
        ctx: Ctx,
        absent: TokenStream,
        leaf: impl Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        if !self.through_optional(path) {
            return leaf(self.access(path, ctx));
        }
        let first = self.access(&path[..1], ctx);
        self.inside(first, &path[0], &path[1..], 0, &absent, &leaf)
    }

    /// [`Self::read_through`] from `cur`, the value of field `r` (an `Option` when `r` is
    /// conditional), down `rest`.
    fn inside(
        &self,
        cur: TokenStream,
        r: &FieldRef,
        rest: &[FieldRef],
        depth: usize,
        absent: &TokenStream,
        leaf: &impl Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let f = self.c.p.field(r);
        if f.condition.is_none() {
            return self.present(cur, rest, depth, absent, leaf);
        }
        let x = if depth == 0 {
            format_ident!("x")
        } else {
            format_ident!("x{}", depth)
        };
        // A scalar is copied out of the `Option`, anything else read through a reference.
        let copied = rest.is_empty()
            && matches!(
                f.ty,
                Ty::Int(_)
                    | Ty::Bool
                    | Ty::Enum(_)
                    | Ty::Flags(_)
                    | Ty::VarInt(_)
                    | Ty::Float { .. }
            );
        let pat = if copied {
            quote! { &#x }
        } else {
            quote! { #x }
        };
        let inner = bare(self.present(quote! { #x }, rest, depth + 1, absent, leaf));
        quote! { (#cur.as_ref().map_or(#absent, |#pat| #inner)) }
    }

    /// [`Self::read_through`] from `cur`, a value that is there, down `rest`.
    fn present(
        &self,
        cur: TokenStream,
        rest: &[FieldRef],
        depth: usize,
        absent: &TokenStream,
        leaf: &impl Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        match rest.split_first() {
            None => leaf(cur),
            Some((next, more)) => {
                let n = ident(&next.name);
                self.inside(quote! { #cur.#n }, next, more, depth, absent, leaf)
            }
        }
    }

    /// An enclosing field (`Header.channel`) from the slot its holder keeps it in, as the
    /// expression's `i128` (or `bool`).
    fn enclosing(&self, field: &FieldRef, ctx: Ctx) -> TokenStream {
        let coder = context_coder(ctx);
        let slot = self.c.l.field(field.struct_id, field.field).enclosing_slot;
        let slot = lit_usize(slot.expect("the lowering numbers every enclosing field"));
        let holder = self.c.p.structs[field.struct_id].name.as_str();
        let name = field.name.as_str();
        let raw = quote! { #coder.enclosing(#slot, #holder, #name)? };
        let signed = match &self.c.p.field(field).ty {
            Ty::Bool => return quote! { (#raw != 0) },
            Ty::Int(it) => it.signed,
            Ty::Enum(id) => self.c.p.enums[*id].repr.signed,
            Ty::Flags(id) => self.c.p.flags[*id].repr.signed,
            Ty::VarInt(VarInt::ZigZag) => true,
            Ty::VarInt(VarInt::Rabbit { signed, .. }) => *signed,
            _ => false,
        };
        if signed {
            quote! { (#raw as i64 as i128) }
        } else {
            quote! { (#raw as i128) }
        }
    }

    /// Keeps field `fi`'s value in its enclosing slot, when types inside read it: `coder` is the
    /// decoder's reader or the encoder's writer.
    pub(crate) fn keep_enclosing(&self, sid: StructId, fi: usize, ctx: Ctx) -> TokenStream {
        let Some(slot) = self.c.l.field(sid, fi).enclosing_slot else {
            return quote! {};
        };
        let coder = context_coder(ctx);
        let name = self.c.p.structs[sid].fields[fi].name.clone();
        let field = Expr::Field(vec![FieldRef {
            struct_id: sid,
            field: fi,
            name,
        }]);
        // In its own type where it has one (`channel as u64`), else as the expression's.
        let value = match self.native_int(&field, ctx) {
            Some((x, _)) => x,
            None => self.expr(&field, ctx),
        };
        let slot = lit_usize(slot);
        quote! { #coder.set_enclosing(#slot, #value as u64); }
    }

    pub(crate) fn access(&self, path: &[FieldRef], ctx: Ctx) -> TokenStream {
        let first = ident(&path[0].name);
        let rest = path[1..].iter().map(|r| ident(&r.name));
        let head = match ctx {
            Ctx::Decode | Ctx::Tag(_) => quote! { #first },
            Ctx::Encode | Ctx::Value => {
                // User-set fields are `self`'s, except in an encoder that implies bits of one:
                // there it is its local, as written. Fields the encoder fills are locals.
                let f = self.c.p.field(&path[0]);
                let own = matches!(ctx, Ctx::Value) || f.implied.is_empty();
                match f.role {
                    Role::Value if own => quote! { self.#first },
                    // A value's switch tag is its switch's (the encoder's local elsewhere).
                    Role::Derived(Derive::TagOf(u)) if matches!(ctx, Ctx::Value) => {
                        let union = ident(&self.c.p.structs[path[0].struct_id].fields[u].name);
                        quote! { self.#union.#first() }
                    }
                    _ => quote! { #first },
                }
            }
        };
        quote! { #head #(.#rest)* }
    }
}

/// The reader (`r`) or writer (`w`) that carries the enclosing fields and the direction in
/// `ctx`.
fn context_coder(ctx: Ctx) -> Ident {
    match ctx {
        Ctx::Decode | Ctx::Tag(_) => format_ident!("r"),
        // Validation keeps enclosing fields and the direction out of expressions on values.
        Ctx::Encode | Ctx::Value => format_ident!("w"),
    }
}

/// Whether `x` (an `i128`) is not one of the values `valid` allows.
pub(crate) fn invalid_test(valid: &Valid, x: TokenStream) -> TokenStream {
    let lit = |v: i64| Literal::i128_suffixed(v as i128);
    match valid {
        Valid::Range {
            min: Some(lo),
            max: Some(hi),
        } => {
            let (lo, hi) = (lit(*lo), lit(*hi));
            quote! { !(#lo..=#hi).contains(&#x) }
        }
        Valid::Range {
            min: Some(lo),
            max: None,
        } => {
            let lo = lit(*lo);
            quote! { #x < #lo }
        }
        Valid::Range {
            min: None,
            max: Some(hi),
        } => {
            let hi = lit(*hi);
            quote! { #x > #hi }
        }
        Valid::Range {
            min: None,
            max: None,
        } => quote! { false },
        Valid::List(values) => {
            let values = values.iter().map(|v| lit(*v));
            quote! { !matches!(#x, #(#values)|*) }
        }
    }
}

/// How tightly Rust binds the operator `op` renders as (higher binds tighter); `None` for
/// those rendered as method calls. `&&`, `||`, `|` and `&` are associative: an operand of the
/// same operator needs no parentheses; comparisons do not chain.
fn binding(op: &BinOp) -> Option<(u8, bool)> {
    use BinOp::*;
    Some(match op {
        Or => (1, true),
        And => (2, true),
        Eq | Ne | Lt | Le | Gt | Ge => (3, false),
        BitOr => (4, true),
        BitAnd => (6, true),
        _ => return None,
    })
}

/// `t` without its outer parentheses when what is inside binds tighter than an operator of
/// binding `own` (or as tightly, for an associative one).
fn loosen(t: TokenStream, (own, associative): (u8, bool)) -> TokenStream {
    let inner = bare(t.clone());
    let tight = precedence(&inner);
    if tight > own || (associative && tight == own) {
        inner
    } else {
        t
    }
}

/// How tightly the expression `t` binds: its loosest operator outside any group (10 for an
/// atom, a path or a method call; 9 for a unary `!` or `-`; 0 for an `if`).
fn precedence(t: &TokenStream) -> u8 {
    use proc_macro2::{Spacing, TokenTree};
    let tokens: Vec<TokenTree> = t.clone().into_iter().collect();
    let mut loosest = 10;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Ident(id) if id == "if" || id == "match" => return 0,
            TokenTree::Ident(id) if id == "as" => loosest = loosest.min(8),
            TokenTree::Punct(p) => {
                let next = match tokens.get(i + 1) {
                    Some(TokenTree::Punct(n)) if p.spacing() == Spacing::Joint => Some(n.as_char()),
                    _ => None,
                };
                let (level, width) = match (p.as_char(), next) {
                    ('|', Some('|')) => (1, 2),
                    ('&', Some('&')) => (2, 2),
                    ('=' | '!' | '<' | '>', Some('=')) => (3, 2),
                    ('<', Some('<')) | ('>', Some('>')) => (7, 2),
                    ('<' | '>', _) => (3, 1),
                    ('|', _) => (4, 1),
                    ('^', _) => (5, 1),
                    ('&', _) if i > 0 => (6, 1),
                    ('!' | '-' | '&' | '*', _) if i == 0 => (9, 1),
                    ('+' | '-', _) => (7, 1),
                    ('*' | '/' | '%', _) => (8, 1),
                    _ => (10, 1),
                };
                loosest = loosest.min(level);
                i += width;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    loosest
}
