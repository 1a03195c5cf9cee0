//! Encoding: the statements that write each field, derived fields filled in; one small
//! renderer per role (`slots`: what the encoder fills, `sizes`: derived lengths and counts,
//! `values`: what the user sets).

mod sizes;
mod slots;
mod union;
mod values;

use super::*;
use crate::lower::{Presence, SizeWrite};

/// Renders the statements that write fields, fill what is derived and refuse what does not fit.
#[derive(Clone, Copy)]
pub(crate) struct Encoder<'p> {
    pub(crate) c: Crate<'p>,
}

/// An array expression with the wire bytes of `v`, an expression of Rust type `from` (already
/// range-checked).
pub(crate) fn uint_bytes(v: TokenStream, from: &Ident, it: &IntTy) -> TokenStream {
    let t = int_rust(it);
    let big = it.endian == Endian::Big;
    if it.is_native() {
        let v = cast_receiver(v, from, &t);
        if big {
            quote! { #v.to_be_bytes() }
        } else {
            quote! { #v.to_le_bytes() }
        }
    } else {
        let n = it.bytes();
        let v = cast_receiver(v, from, &format_ident!("u64"));
        let le = quote! { #v.to_le_bytes() };
        if big {
            quote! { { let le = #le; let mut b = [0u8; #n]; for i in 0..#n { b[i] = le[#n - 1 - i]; } b } }
        } else {
            quote! { { let le = #le; let mut b = [0u8; #n]; b.copy_from_slice(&le[..#n]); b } }
        }
    }
}

/// Statements writing an integer value `v`, an expression of the field's own Rust type
/// (range-checked when the field is narrower than that type).
pub(crate) fn write_int(it: &IntTy, v: TokenStream, nm: &str, bits: bool) -> TokenStream {
    let width = it.bits;
    let t = int_rust(it);
    let (u64_t, i64_t) = (format_ident!("u64"), format_ident!("i64"));
    let mask = lit_u64(if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    });
    if bits && it.is_native() {
        return if it.signed && width == 64 {
            quote! { w.bits(#v as u64, 64); }
        } else if it.signed {
            let x = cast(v, &t, &i64_t);
            quote! { w.bits((#x as u64) & #mask, #width); }
        } else {
            let x = bare(cast(v, &t, &u64_t));
            quote! { w.bits(#x, #width); }
        };
    }
    if it.is_native() {
        let put = uint_bytes(v, &t, it);
        return quote! { w.put(&#put); };
    }
    let put = uint_bytes(quote! { raw }, &u64_t, it);
    let put_raw = if bits {
        quote! { w.bits(raw, #width); }
    } else {
        quote! { w.put(&#put); }
    };
    if it.signed {
        let min = -(1i64 << (it.bits - 1));
        let max = (1i64 << (it.bits - 1)) - 1;
        let x = bare(cast(v, &t, &i64_t));
        // In a block of its own: `x` and `raw` may be names of the schema's fields, read by
        // what follows (schemafuzz seed 966).
        quote! {{
            let x = #x;
            if x < #min { return Err(EncodeError::new(#nm, EncodeErrorKind::TooSmall { value: x })); }
            if x > #max { return Err(EncodeError::new(#nm, EncodeErrorKind::TooLarge { value: x as u64, max: #max as u64 })); }
            let raw = x as u64 & #mask;
            #put_raw
        }}
    } else {
        let max = lit_u64(it.max_value());
        let x = bare(cast(v, &t, &u64_t));
        quote! {{ let raw = fit(#x, #max, #nm)?; #put_raw }}
    }
}

/// The byte length of bytes, text or a list `v` on the wire (a string's in its encoding).
fn wire_len(ty: &Ty, v: TokenStream) -> TokenStream {
    match ty {
        Ty::Str(
            _,
            Text {
                encoding: Encoding::Latin1,
                ..
            },
        ) => {
            quote! { wiregen_runtime::text::latin1_len(&#v) }
        }
        Ty::Str(
            _,
            Text {
                encoding: Encoding::Utf16 { .. },
                ..
            },
        ) => {
            quote! { wiregen_runtime::text::utf16_len(&#v) }
        }
        _ => quote! { #v.len() },
    }
}

/// The wire length of field `target`'s value `v`: 0 when the field is optional and absent.
fn present_len(target: &Field, v: TokenStream) -> TokenStream {
    if target.condition.is_some() {
        let len = wire_len(&target.ty, quote! { x });
        quote! { #v.as_ref().map_or(0, |x| #len) }
    } else {
        wire_len(&target.ty, v)
    }
}

/// A value to write: a place holding it (`self.sequence`, a local, a copy bound by a pattern)
/// or a reference to it bound by a pattern (`if let Some(v) = &self.name`). Methods apply to
/// either; a number is written from its value, a function borrows.
#[derive(Clone)]
pub(crate) enum Place {
    Value(TokenStream),
    Ref(TokenStream),
}

impl Place {
    /// The value itself (for a number) or the place (for a method call).
    pub(crate) fn value(&self) -> TokenStream {
        match self {
            Place::Value(v) | Place::Ref(v) => v.clone(),
        }
    }

    /// A number's value (dereferenced when bound by reference).
    pub(crate) fn number(&self) -> TokenStream {
        match self {
            Place::Value(v) => v.clone(),
            Place::Ref(v) => quote! { (*#v) },
        }
    }

    /// A reference to the value.
    pub(crate) fn borrowed(&self) -> TokenStream {
        match self {
            Place::Value(v) => quote! { &#v },
            Place::Ref(v) => v.clone(),
        }
    }
}

impl<'p> Encoder<'p> {
    /// Whether a value of struct `id` inside struct `sid` is a bit stream written into bytes
    /// (through a bit writer of its own, not `w`).
    pub(crate) fn writes_bits_into_bytes(&self, sid: StructId, id: StructId) -> bool {
        !self.c.bits(sid) && self.c.p.structs[id].layout.is_bits()
    }

    /// Writing `v` (a value of struct `id`) with the current writer `w`.
    pub(crate) fn write_struct_call(
        &self,
        sid: StructId,
        id: StructId,
        v: TokenStream,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        if self.c.bits(sid) && !self.c.p.structs[id].layout.is_bits() {
            return Err(Internal(format!(
                "'{nm}': a byte-aligned type inside a bit stream"
            )));
        }
        Ok(if self.writes_bits_into_bytes(sid, id) {
            quote! { { let mut bits = w.bit_writer(); #v.write(&mut bits).within(#nm)?; } }
        } else {
            quote! { #v.write(w).within(#nm)?; }
        })
    }

    /// `let field = …;` statements giving a user-set field the values the encoder implies (a
    /// flag bit from whether an optional field is present, a value from a `set_when`), in order.
    fn implied(&self, sid: StructId, f: &Field) -> Result<TokenStream, Internal> {
        let s = &self.c.p.structs[sid];
        let local = ident(&f.name);
        let mut out = quote! { let mut #local = self.#local; };
        for imp in &f.implied {
            if let ImpliedWhen::Variant { field, case, value } = &imp.when {
                let set = self.solved_tag(sid, f, *field, *case, value)?;
                out = quote! { #out #set };
                continue;
            }
            let cond = match &imp.when {
                ImpliedWhen::Present(i) => {
                    let n = ident(&s.fields[*i].name);
                    quote! { self.#n.is_some() }
                }
                ImpliedWhen::Absent(i) => {
                    let n = ident(&s.fields[*i].name);
                    quote! { self.#n.is_none() }
                }
                ImpliedWhen::Holds(e, _) => self.c.exprs().expr_top(e, Ctx::Encode),
                ImpliedWhen::Variant { .. } => continue,
            };
            let set = match (imp.value, &f.ty) {
                (ImpliedValue::Bit(m), Ty::Flags(id)) => {
                    let bit = self.c.types().flag_const(&self.c.p.flags[*id], m);
                    quote! { #local.set(#bit, #cond); }
                }
                (ImpliedValue::Equals(v), ty @ Ty::Enum(_)) => {
                    let v = self.c.types().tag_value_expr(ty, v);
                    quote! { if #cond { #local = #v; } }
                }
                (ImpliedValue::Equals(v), Ty::Int(it)) => {
                    let v = lit_typed(v, &int_rust(it));
                    quote! { if #cond { #local = #v; } }
                }
                _ => {
                    return Err(Internal(format!(
                        "'{}': a value implied for this type",
                        f.name
                    )))
                }
            };
            out = quote! { #out #set };
        }
        Ok(out)
    }

    /// `field = <its value for the case's tag>` when switch `ui` holds case `case` (a tag that is
    /// an expression of `f`, solved for it): a value `f` cannot hold refuses the variant.
    fn solved_tag(
        &self,
        sid: StructId,
        f: &Field,
        ui: usize,
        case: usize,
        value: &Expr,
    ) -> Result<TokenStream, Internal> {
        let s = &self.c.p.structs[sid];
        let Ty::Union(u) = &s.fields[ui].ty else {
            return Err(Internal(format!(
                "'{}': a tag solved for no switch",
                f.name
            )));
        };
        let Ty::Int(it) = &f.ty else {
            return Err(Internal(format!("'{}': a solved tag of this type", f.name)));
        };
        let c = &u.cases[case];
        let (local, switch) = (ident(&f.name), ident(&s.fields[ui].name));
        let (un, v) = (
            ident(&self.c.p.union_name(sid, ui)),
            variant_ident(&c.variant),
        );
        let pattern = match c.body {
            CaseBody::Empty => quote! { #un::#v },
            _ => quote! { #un::#v(..) },
        };
        let t = int_rust(it);
        let (nm, tag) = (f.name.as_str(), lit_u64(c.single().unwrap_or(0)));
        let value = self.c.exprs().expr_top(value, Ctx::Encode);
        Ok(quote! {
            if matches!(self.#switch, #pattern) {
                #local = #t::try_from(#value).map_err(|_| {
                    EncodeError::new(#nm, EncodeErrorKind::TagOutsideCase { tag: #tag })
                })?;
            }
        })
    }

    /// The local holding where field `fi` starts in the output, and its `let` when the
    /// lowering keeps it (a checksum or length patched there, a size measured from there).
    pub(crate) fn field_start(&self, sid: StructId, fi: usize) -> (Ident, Option<TokenStream>) {
        let at = ident(&self.c.l.field(sid, fi).locals.at);
        let keep = self.c.l.field(sid, fi).write.keeps_start;
        let local = keep.then(|| quote! { let #at = w.len(); });
        (at, local)
    }

    /// The integer a value of `ty` is written as (an integer's own, an enum's representation).
    pub(crate) fn int_repr(&self, ty: &Ty) -> Option<IntTy> {
        match ty {
            Ty::Int(it) => Some(*it),
            Ty::Enum(id) => Some(self.c.p.enums[*id].repr),
            _ => None,
        }
    }

    /// Statements that write field `fi` (computing it first when it is derived), by its role.
    pub(crate) fn write_field(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let write = match &self.c.p.structs[sid].fields[fi].role {
            Role::Value => self.write_value(sid, fi)?,
            Role::Derived(Derive::CountOf(..) | Derive::LengthOf(..)) => {
                self.write_size(sid, fi)?
            }
            _ => self.write_slot(sid, fi)?,
        };
        let keep = self.c.exprs().keep_enclosing(sid, fi, Ctx::Encode);
        Ok(quote! { #write #keep })
    }

    /// Writes a scalar of type `ty` from the expression `v` (a value, not a reference).
    pub(crate) fn write_scalar(
        &self,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        v: TokenStream,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        Ok(match ty {
            Ty::Int(it) => write_int(it, v, nm, self.c.bits_at(sid, fi)),
            Ty::Bool if self.c.bits_at(sid, fi) => quote! { w.bits(#v as u64, 1); },
            Ty::Bool => quote! { w.put(&[#v as u8]); },
            Ty::Float { bits: 16, endian } => {
                let x = bare(v.clone());
                let half = quote! { wiregen_runtime::f16_bits(#x, #nm)? };
                if self.c.bits_at(sid, fi) {
                    quote! { w.bits(#half as u64, 16); }
                } else if *endian == Endian::Big {
                    quote! { w.put(&#half.to_be_bytes()); }
                } else {
                    quote! { w.put(&#half.to_le_bytes()); }
                }
            }
            Ty::Float { bits, .. } if self.c.bits_at(sid, fi) => {
                let u = format_ident!("u{}", bits);
                let raw = cast(quote! { #v.to_bits() }, &u, &format_ident!("u64"));
                quote! { w.bits(#raw, #bits); }
            }
            Ty::Float { endian, .. } => {
                if *endian == Endian::Big {
                    quote! { w.put(&#v.to_be_bytes()); }
                } else {
                    quote! { w.put(&#v.to_le_bytes()); }
                }
            }
            Ty::Enum(id) if !p.enums[*id].ranges.is_empty() => {
                let put = write_int(
                    &p.enums[*id].repr,
                    quote! { #v.raw() },
                    nm,
                    self.c.bits_at(sid, fi),
                );
                quote! {
                    if !#v.in_range() {
                        return Err(EncodeError::new(#nm, EncodeErrorKind::NotValid { value: #v.raw() as i128 }));
                    }
                    #put
                }
            }
            Ty::Enum(id) => write_int(
                &p.enums[*id].repr,
                quote! { #v.raw() },
                nm,
                self.c.bits_at(sid, fi),
            ),
            Ty::Flags(id) => write_int(
                &p.flags[*id].repr,
                quote! { #v.bits() },
                nm,
                self.c.bits_at(sid, fi),
            ),
            _ => return Err(Internal(format!("'{nm}' is not a scalar"))),
        })
    }

    /// Statements writing `v`, a value of `ty` (see [`Place`]).
    pub(crate) fn write_ty(
        &self,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        place: Place,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        let v = if ty.is_scalar() || ty.is_varint() {
            place.number()
        } else {
            place.value()
        };
        Ok(match ty {
            Ty::Int(_) | Ty::Bool | Ty::Float { .. } | Ty::Enum(_) | Ty::Flags(_) => {
                self.write_scalar(sid, fi, ty, v, nm)?
            }
            Ty::VarInt(VarInt::Leb128) => quote! { w.leb128(#v); },
            Ty::VarInt(VarInt::ZigZag) => quote! { w.leb128(((#v << 1) ^ (#v >> 63)) as u64); },
            Ty::VarInt(VarInt::Rabbit {
                bits: 64,
                signed: false,
            }) => quote! { w.rabbit(#v, 64); },
            Ty::VarInt(VarInt::Rabbit {
                bits,
                signed: false,
            }) => quote! { w.rabbit(#v as u64, #bits); },
            Ty::VarInt(VarInt::Rabbit { bits, signed: true }) => {
                if *bits == 64 {
                    quote! { w.rabbit(((#v << 1) ^ (#v >> 63)) as u64, 64); }
                } else {
                    let shift = bits - 1;
                    let mask = lit_u64((1u64 << bits) - 1);
                    quote! { w.rabbit((((#v as i64) << 1) ^ ((#v as i64) >> #shift)) as u64 & #mask, #bits); }
                }
            }
            Ty::VarInt(VarInt::RiptideLen) => quote! { w.riptide_len(#v as u64, #nm)?; },
            Ty::Bits => {
                let b = place.borrowed();
                quote! { w.put_bits(#b); }
            }
            Ty::Str(len, text) => self.write_text(sid, len, text, place, nm)?,
            Ty::Bytes(len) => {
                let prefix = self.write_prefix(sid, len, quote! { data.len() }, nm);
                quote! { let data: &[u8] = &#v[..]; #prefix w.put(data); }
            }
            Ty::Struct(id, len) if self.c.p.structs[sid].fields[fi].compression.is_some() => {
                let c = self.c.p.structs[sid].fields[fi].compression.unwrap();
                let inner = self.write_struct_call(sid, *id, v.clone(), nm)?;
                let method = format_ident!("{}", c.method.variant());
                // Written into plain bytes of its own (with the enclosing fields and direction
                // it may read), compressed, then sized like any value.
                let put = quote! {
                    let packed = {
                        let mut plain = Vec::new();
                        let w = &mut w.nested(&mut plain);
                        #inner
                        wiregen_runtime::compress::compress(wiregen_runtime::compress::Compression::#method, &plain)
                    };
                    w.put(&packed);
                };
                self.write_sized(sid, fi, len.as_ref(), put, nm)?
            }
            Ty::Struct(id, len) => {
                let inner = self.write_struct_call(sid, *id, v.clone(), nm)?;
                self.write_sized(sid, fi, len.as_ref(), inner, nm)?
            }
            Ty::Array(_, count) if self.c.p.structs[sid].fields[fi].packed => {
                let prefix = self.write_prefix(sid, count, quote! { #v.len() }, nm);
                quote! {
                    #prefix
                    let mut packed = vec![0u8; #v.len().div_ceil(8)];
                    for (i, b) in #v.iter().enumerate() {
                        packed[i / 8] |= u8::from(*b) << (i % 8);
                    }
                    w.put(&packed);
                }
            }
            Ty::Array(elem, count) => {
                let prefix = self.write_prefix(sid, count, quote! { #v.len() }, nm);
                // Numbers are copied out of the array, others borrowed.
                let (pattern, item) = if elem.is_scalar() || elem.is_varint() {
                    (quote! { &item }, Place::Value(quote! { item }))
                } else {
                    (quote! { item }, Place::Ref(quote! { item }))
                };
                let item = self.write_ty(sid, fi, elem, item, nm)?;
                // An element of no bytes would end a reader of the array to the end.
                let item = if self.c.l.field(sid, fi).empty_elements {
                    quote! {
                        let at = w.len();
                        #item
                        if w.len() == at {
                            return Err(EncodeError::new(#nm, EncodeErrorKind::EmptyElement));
                        }
                    }
                } else {
                    item
                };
                quote! { #prefix for #pattern in #v.iter() { #item } }
            }
            Ty::Union(u) => {
                let inner = self.write_union(sid, fi, u, &place, nm)?;
                self.write_sized(sid, fi, Some(&u.len), inner, nm)?
            }
        })
    }

    /// Text: its bytes in its encoding (refusing characters it has not), then its NUL, its
    /// padding or its length prefix.
    fn write_text(
        &self,
        sid: StructId,
        len: &Len,
        text: &Text,
        place: Place,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        let v = place.value();
        // The text's bytes in its encoding (refusing characters it has not), then its
        // NUL, its padding or its length prefix.
        let b = place.borrowed();
        let bytes = match text.encoding {
            Encoding::Utf8 => quote! { let data: &[u8] = #v.as_bytes(); },
            Encoding::Ascii => {
                quote! { let data = wiregen_runtime::text::encode_ascii(#b, #nm)?; }
            }
            Encoding::Latin1 => quote! {
                let data = wiregen_runtime::text::encode_latin1(#b, #nm)?;
                let data: &[u8] = &data;
            },
            Encoding::Utf16 { big } => quote! {
                let data = wiregen_runtime::text::encode_utf16(#b, #big);
                let data: &[u8] = &data;
            },
        };
        let wide = matches!(text.encoding, Encoding::Utf16 { .. });
        let put = match (text.nul, len) {
            (Nul::Terminated, _) if wide => quote! { w.strz16(data, #nm)?; },
            (Nul::Terminated, _) => quote! { w.strz(data, #nm)?; },
            (Nul::Padded, Len::Expr(Expr::Int(n, _))) if wide => {
                let n = lit_usize(*n as usize);
                quote! { w.str_padded16(data, #n, #nm)?; }
            }
            (Nul::Padded, Len::Expr(Expr::Int(n, _))) => {
                let n = lit_usize(*n as usize);
                quote! { w.str_padded(data, #n, #nm)?; }
            }
            (Nul::Padded, _) => {
                return Err(Internal(format!(
                    "'{nm}': a NUL-padded string without a constant size"
                )))
            }
            (Nul::No, len) => {
                let prefix = self.write_prefix(sid, len, quote! { data.len() }, nm);
                quote! { #prefix w.put(data); }
            }
        };
        Ok(quote! { #bytes #put })
    }

    /// `inner` (the writing of a struct or switch value) within its size: a size prefix
    /// written around it, or a size the encoder does not derive checked against it.
    fn write_sized(
        &self,
        sid: StructId,
        fi: usize,
        len: Option<&Len>,
        inner: TokenStream,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        Ok(match len {
            // A varint prefix's size depends on the length: written after the value
            // and moved before it. (Validation keeps varint prefixes out of bit streams.)
            Some(Len::VarPrefix(var)) => {
                let put = match var {
                    VarInt::RiptideLen => quote! { w.riptide_len(n, #nm) },
                    _ => quote! { w.leb128(n); Ok(()) },
                };
                quote! {
                    let body_at = w.len();
                    #inner
                    let n = (w.len() - body_at) as u64;
                    w.prefix_since(body_at, |w| { #put })?;
                }
            }
            Some(Len::Prefix(_)) if self.c.bits(sid) => {
                return Err(Internal(format!(
                    "'{nm}': a length prefix of a struct or switch in a bit stream"
                )));
            }
            Some(Len::Prefix(it)) => {
                let n = lit_usize(it.bytes());
                let put = uint_bytes(quote! { value }, &format_ident!("u64"), it);
                let max = lit_u64(it.max_value());
                quote! {
                    let len_at = w.len();
                    w.put(&[0u8; #n]);
                    #inner
                    let value = fit((w.len() - len_at - #n) as u64, #max, #nm)?;
                    w.patch(len_at, &#put);
                }
            }
            // A size the encoder does not derive (a constant, an element's size, any
            // other expression) is checked against what was written: the decoder reads
            // exactly that many bytes.
            // (An element's size is never derived: only the field's own.)
            Some(Len::Expr(e))
                if !self.c.bits(sid)
                    && !e.reads_position()
                    && (matches!(self.c.p.structs[sid].fields[fi].ty, Ty::Array(..))
                        || !self.c.l.field(sid, fi).write.size_derived) =>
            {
                let check = self.size_check(sid, e, quote! { value_at }, nm);
                quote! {
                    let value_at = w.len();
                    #inner
                    #check
                }
            }
            _ => inner,
        })
    }

    /// Refuses a value whose bytes written since `start` are not the size expression `e` says
    /// (the decoder reads exactly that many).
    pub(crate) fn size_check(
        &self,
        sid: StructId,
        e: &Expr,
        start: TokenStream,
        nm: &str,
    ) -> TokenStream {
        let bits = self.c.bits(sid);
        let ex = self.c.exprs().expr_top(e, Ctx::Encode);
        // A bit writer counts bits (the elements are whole bytes there).
        let written = if bits {
            quote! { (w.len() - #start) / 8 }
        } else {
            quote! { w.len() - #start }
        };
        let (expected, actual) = (self.c.temp(sid, "expected"), self.c.temp(sid, "actual"));
        let (expected_init, actual_init) = (
            field_init("expected", &expected),
            field_init("actual", &actual),
        );
        quote! {
            let #expected: i128 = #ex;
            let #actual = #written;
            if #expected != #actual as i128 {
                return Err(EncodeError::new(#nm, EncodeErrorKind::LengthMismatch { #expected_init, #actual_init }));
            }
        }
    }

    pub(crate) fn write_prefix(
        &self,
        sid: StructId,
        len: &Len,
        n: TokenStream,
        nm: &str,
    ) -> TokenStream {
        match len {
            Len::Prefix(it) => {
                let max = lit_u64(it.max_value());
                let rt = int_rust(it);
                let put = write_int(it, quote! { n }, nm, self.c.bits(sid));
                quote! { let n = fit(#n as u64, #max, #nm)? as #rt; #put }
            }
            Len::VarPrefix(VarInt::RiptideLen) => quote! { w.riptide_len(#n as u64, #nm)?; },
            // Refused at validation in bit streams; LEB128 holds any length.
            Len::VarPrefix(_) => quote! { w.leb128(#n as u64); },
            _ => quote! {},
        }
    }
}

/// The largest value derived size field `f` of integer `it` may hold: its `max`, within the
/// integer's range.
fn size_max(f: &Field, it: IntTy) -> Literal {
    lit_u64(f.max.map_or(it.max_value(), |m| m.min(it.max_value())))
}

/// The value of a size field from the size `len` (a `usize`, parenthesised when it is an
/// operation): the size itself, or solved from the schema's linear expression.
fn size_value(len: TokenStream, l: Linear, field: &str) -> TokenStream {
    if l == Linear::IDENTITY {
        quote! { #len as u64 }
    } else {
        let (mul, add, len) = (l.mul, l.add, bare(len));
        quote! { size_from_len(#len, #mul, #add, #field)? }
    }
}
