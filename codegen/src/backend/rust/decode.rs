//! Decoding: the statements that read each field.

use super::*;

pub(crate) fn read_int(it: &IntTy, nm: &str, bits: bool) -> TokenStream {
    let t = int_rust(it);
    if bits {
        let w = it.bits;
        return if it.signed && w == 64 {
            quote! { r.bits(#w, #nm)? as i64 }
        } else if it.signed {
            // Sign-extended from bit w - 1.
            let shift = 64 - w;
            narrow(
                quote! { ((r.bits(#w, #nm)? << #shift) as i64) >> #shift },
                &t,
            )
        } else {
            cast(quote! { r.bits(#w, #nm)? }, &format_ident!("u64"), &t)
        };
    }
    let n = it.bytes();
    let big = it.endian == Endian::Big;
    if it.is_native() {
        let from = if big {
            quote! { from_be_bytes }
        } else {
            quote! { from_le_bytes }
        };
        quote! { #t::#from(r.array::<#n>(#nm)?) }
    } else if it.signed {
        let shift = 64 - it.bits;
        narrow(
            quote! { ((r.uint(#n, #big, #nm)? << #shift) as i64) >> #shift },
            &t,
        )
    } else {
        cast(quote! { r.uint(#n, #big, #nm)? }, &format_ident!("u64"), &t)
    }
}

/// An `i64` expression `wide` as Rust type `t` (cast only when `t` is narrower).
fn narrow(wide: TokenStream, t: &Ident) -> TokenStream {
    if t == "i64" {
        wide
    } else {
        quote! { (#wide) as #t }
    }
}

impl<'p> Gen<'p> {
    /// Reading a value of struct `id` from the current reader `r`.
    pub(crate) fn read_struct_call(
        &self,
        sid: StructId,
        id: StructId,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        let t = ident(&self.p.structs[id].name);
        let child_bits = self.p.structs[id].layout.is_bits();
        Ok(match (self.bits(sid), child_bits) {
            (false, true) => quote! { {
                let mut bits = r.bit_reader();
                let v = #t::read(&mut bits);
                r.resume(bits);
                v.map_err(|e| e.within(#nm))?
            } },
            (true, false) => {
                return Err(Internal(format!(
                    "'{nm}': a byte-aligned type inside a bit stream"
                )))
            }
            _ => quote! { #t::read(r).map_err(|e| e.within(#nm))? },
        })
    }

    /// Statements that read field `fi` into a local of the same name.
    pub(crate) fn read_field(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let s = &self.p.structs[sid];
        let f = &s.fields[fi];
        let local = ident(&f.name);
        let nm = f.name.as_str();
        let abbrev = naming::abbrev(self.p, sid, fi);
        let at = format_ident!("{}_at", f.name);
        let value = self.read_ty(sid, fi, &f.ty, nm, &abbrev)?;
        let check = match (&f.role, f.max) {
            (Role::Const(c), _) => {
                let c = lit_u64(*c);
                let raw = match f.ty {
                    Ty::Enum(_) => quote! { #local.raw() as u64 },
                    _ => quote! { #local as u64 },
                };
                quote! {
                    if #raw != #c {
                        return Err(r.error(#nm, #at, DecodeErrorKind::BadConst { expected: #c, found: #raw }));
                    }
                }
            }
            (_, Some(m)) => {
                let m = lit_u64(m);
                quote! {
                    if #local as u64 > #m {
                        return Err(r.error(#nm, #at, DecodeErrorKind::TooLarge { value: #local as u64, max: #m }));
                    }
                }
            }
            _ => quote! {},
        };
        let check = match &f.valid {
            Some(valid) => {
                let bad = invalid_test(valid, quote! { x });
                quote! {
                    #check
                    let x = #local as i128;
                    if #bad {
                        return Err(r.error(#nm, #at, DecodeErrorKind::NotValid { value: x }));
                    }
                }
            }
            None => check,
        };
        let note_index = match f.role {
            Role::Checksum(_) => {
                let idx = format_ident!("{}_note", f.name);
                quote! { let #idx = r.notes_len(); }
            }
            _ => quote! {},
        };
        // Values typed by conversation state: select the lists by key first.
        let value = if f.select.is_empty() {
            value
        } else {
            if self.bits_at(sid, fi) {
                return Err(Internal(format!("'{nm}': a state list in a bit stream")));
            }
            let (mut sel, mut res) = (Vec::new(), Vec::new());
            for (k, (t, key)) in f.select.iter().enumerate() {
                let saved = format_ident!("saved_{}", k);
                let tl = lit_usize(*t);
                let key = self.expr_top(key, Ctx::Decode);
                sel.push(quote! { let #saved = r.select(#tl, (#key) as u64, #nm)?; });
                res.push(quote! { r.restore(#tl, #saved); });
            }
            quote! { { #(#sel)* let v = #value; #(#res)* v } }
        };
        // Where the field starts, for the checks above and a checksum's verification.
        let plan = self.l.field(sid, fi);
        let at_local = plan.decode_start.then(|| quote! { let #at = r.pos(); });
        // A reserved value is read (and noted) but not kept, unless a later expression reads it.
        let kept = f.role != Role::Reserved || plan.read_by_expressions;
        let local = if kept {
            quote! { #local }
        } else {
            quote! { _ }
        };
        Ok(match &f.condition {
            None => quote! {
                #at_local
                let #local = #value;
                #note_index
                #check
            },
            // Checked when present (constants, checksums and reserved fields are never
            // conditional).
            Some(c) if !check.is_empty() => {
                let cond = self.expr_top(c, Ctx::Decode);
                quote! {
                    let #local = if #cond {
                        #at_local
                        let #local = #value;
                        #check
                        Some(#local)
                    } else {
                        None
                    };
                }
            }
            Some(c) => {
                let cond = self.expr_top(c, Ctx::Decode);
                quote! {
                    #at_local
                    let #local = if #cond { Some(#value) } else { None };
                }
            }
        })
    }

    /// An expression reading one value of `ty` (and noting it for the trace).
    pub(crate) fn read_ty(
        &self,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        nm: &str,
        abbrev: &str,
    ) -> Result<TokenStream, Internal> {
        let read = self.read_ty_unnamed(sid, fi, ty, nm, abbrev)?;
        // A value of a field with `filter:` has its fields noted under the field's names.
        Ok(match (ty, &self.p.structs[sid].fields[fi].filter) {
            (Ty::Struct(id, _), Some(filter)) => {
                let rename = super::filters::rename_fn(self.p, *id, filter);
                quote! { { let first = r.notes_len(); let v = #read; r.rename_notes(first, #rename); v } }
            }
            _ => read,
        })
    }

    fn read_ty_unnamed(
        &self,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        nm: &str,
        abbrev: &str,
    ) -> Result<TokenStream, Internal> {
        let p = self.p;
        let note = |value: TokenStream| quote! { r.note(#abbrev, at, #value); };
        Ok(match ty {
            Ty::Int(it) => {
                let read = read_int(it, nm, self.bits_at(sid, fi));
                let t = int_rust(it);
                let v = if it.signed {
                    let v = cast(quote! { v }, &t, &format_ident!("i64"));
                    quote! { Value::I(#v) }
                } else {
                    let v = cast(quote! { v }, &t, &format_ident!("u64"));
                    quote! { Value::U(#v) }
                };
                let n = note(v);
                quote! { { let at = r.pos(); let v = #read; #n v } }
            }
            Ty::Bool => {
                let n = note(quote! { Value::Bool(v) });
                if self.bits_at(sid, fi) {
                    quote! { { let at = r.pos(); let v = r.bits(1, #nm)? != 0; #n v } }
                } else {
                    quote! { { let at = r.pos(); let v = r.array::<1>(#nm)?[0] != 0; #n v } }
                }
            }
            Ty::Float { bits: 16, endian } => {
                let nt = note(quote! { Value::F(v as f64) });
                let raw = if self.bits_at(sid, fi) {
                    quote! { r.bits(16, #nm)? as u16 }
                } else if *endian == Endian::Big {
                    quote! { u16::from_be_bytes(r.array::<2>(#nm)?) }
                } else {
                    quote! { u16::from_le_bytes(r.array::<2>(#nm)?) }
                };
                quote! { { let at = r.pos(); let v = wiregen_runtime::f16_to_f32(#raw); #nt v } }
            }
            Ty::Float { bits, endian } => {
                let t = format_ident!("f{}", bits);
                let n = lit_usize(*bits as usize / 8);
                let from = if *endian == Endian::Big {
                    quote! { from_be_bytes }
                } else {
                    quote! { from_le_bytes }
                };
                let v = cast(quote! { v }, &t, &format_ident!("f64"));
                let nt = note(quote! { Value::F(#v) });
                if self.bits_at(sid, fi) {
                    let u = format_ident!("u{}", bits);
                    let raw = cast(quote! { r.bits(#bits, #nm)? }, &format_ident!("u64"), &u);
                    quote! { { let at = r.pos(); let v = #t::from_bits(#raw); #nt v } }
                } else {
                    quote! { { let at = r.pos(); let v = #t::#from(r.array::<#n>(#nm)?); #nt v } }
                }
            }
            Ty::VarInt(VarInt::Leb128) => {
                let n = note(quote! { Value::U(v) });
                quote! { { let at = r.pos(); let v = r.leb128(#nm)?; #n v } }
            }
            Ty::VarInt(VarInt::ZigZag) => {
                let n = note(quote! { Value::I(v) });
                quote! { { let at = r.pos(); let z = r.leb128(#nm)?; let v = ((z >> 1) as i64) ^ -((z & 1) as i64); #n v } }
            }
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => {
                if !self.bits_at(sid, fi) {
                    return Err(Internal(
                        "Rabbit varints belong to bit-stream layouts".into(),
                    ));
                }
                let t = format_ident!("{}{}", if *signed { "i" } else { "u" }, bits);
                if *signed {
                    let v = cast(quote! { v }, &t, &format_ident!("i64"));
                    let n = note(quote! { Value::I(#v) });
                    quote! { { let at = r.pos(); let z = r.rabbit(#bits, #nm)?; let v = ((z >> 1) as #t) ^ -((z & 1) as #t); #n v } }
                } else {
                    let u64_t = format_ident!("u64");
                    let v = cast(quote! { v }, &t, &u64_t);
                    let n = note(quote! { Value::U(#v) });
                    let read = cast(quote! { r.rabbit(#bits, #nm)? }, &u64_t, &t);
                    quote! { { let at = r.pos(); let v = #read; #n v } }
                }
            }
            Ty::VarInt(VarInt::RiptideLen) => {
                if self.bits_at(sid, fi) {
                    return Err(Internal(
                        "Riptide 2.0 lengths belong to byte-aligned layouts".into(),
                    ));
                }
                let n = note(quote! { Value::U(v as u64) });
                quote! { { let at = r.pos(); let v = r.riptide_len(#nm)?; #n v } }
            }
            Ty::Bits => {
                let n = note(quote! { Value::Bytes(Cow::Borrowed(r.touched(at))) });
                quote! { { let at = r.pos(); let v = r.rest(#nm)?; #n v } }
            }
            Ty::Enum(id) => {
                let e = &p.enums[*id];
                let en = ident(&e.name);
                let read = read_int(&e.repr, nm, self.bits_at(sid, fi));
                let raw = cast(quote! { raw }, &int_rust(&e.repr), &format_ident!("u64"));
                let n = note(quote! { Value::U(#raw) });
                if e.closed {
                    quote! { {
                        let at = r.pos();
                        let raw = #read;
                        #n
                        #en::from_raw(raw).ok_or_else(|| r.error(#nm, at, DecodeErrorKind::UnknownValue { value: #raw }))?
                    } }
                } else {
                    quote! { { let at = r.pos(); let raw = #read; #n #en::from_raw(raw) } }
                }
            }
            Ty::Flags(id) => {
                let fl = &p.flags[*id];
                let fname = ident(&fl.name);
                let read = read_int(&fl.repr, nm, self.bits_at(sid, fi));
                let bits = fl.bits.iter().map(|b| {
                    let a = naming::flag_abbrev(abbrev, &b.name);
                    let m = lit_u64(b.value);
                    quote! { r.note(#a, at, Value::Bool(raw & #m != 0)); }
                });
                let wide = cast(quote! { raw }, &int_rust(&fl.repr), &format_ident!("u64"));
                quote! { { let at = r.pos(); let raw = #read; r.note(#abbrev, at, Value::U(#wide)); #(#bits)* #fname(raw) } }
            }
            Ty::Bytes(len) => {
                let n = self.read_len(sid, len, nm, abbrev)?;
                if self.bits_at(sid, fi) {
                    let nt = note(quote! { Value::Bytes(Cow::Borrowed(r.touched(at))) });
                    quote! { { let n = #n; let at = r.pos(); let v = r.bytes(n, #nm)?; #nt v } }
                } else {
                    let nt = note(quote! { Value::Bytes(Cow::Borrowed(v)) });
                    quote! { { let n = #n; let at = r.pos(); let v = r.take(n, #nm)?; #nt Cow::Borrowed(v) } }
                }
            }
            Ty::Str(len, text) if *text != Text::UTF8 => {
                // How the bytes end (at a NUL, at the padding, after a length), read as UTF-8
                // text or as bytes to convert.
                let mut size = quote! {};
                // UTF-16 ends at a NUL code unit: two zero bytes at an even offset.
                let wide = matches!(text.encoding, Encoding::Utf16 { .. });
                let (read_utf8, take) = match (text.nul, len) {
                    (Nul::Terminated, _) if wide => (quote! {}, quote! { r.take_z16(#nm)? }),
                    (Nul::Terminated, _) => (quote! { r.strz(#nm)? }, quote! { r.take_z(#nm)? }),
                    (Nul::Padded, Len::Expr(Expr::Int(n))) if wide => {
                        let n = lit_usize(*n as usize);
                        (quote! {}, quote! { r.take_padded16(#n, #nm)? })
                    }
                    (Nul::Padded, Len::Expr(Expr::Int(n))) => {
                        let n = lit_usize(*n as usize);
                        (
                            quote! { r.str_padded(#n, #nm)? },
                            quote! { r.take_padded(#n, #nm)? },
                        )
                    }
                    (Nul::Padded, _) => {
                        return Err(Internal(format!(
                            "'{nm}': a NUL-padded string without a constant size"
                        )))
                    }
                    (Nul::No, len) => {
                        let n = self.read_len(sid, len, nm, abbrev)?;
                        size = quote! { let n = #n; };
                        (quote! { r.str(n, #nm)? }, quote! { r.take(n, #nm)? })
                    }
                };
                let text_of = match text.encoding {
                    // UTF-8 is borrowed as it is.
                    Encoding::Utf8 => {
                        let nt = note(quote! { Value::Str(Cow::Borrowed(v)) });
                        return Ok(
                            quote! { { #size let at = r.pos(); let v = #read_utf8; #nt Cow::Borrowed(v) } },
                        );
                    }
                    Encoding::Ascii => {
                        quote! { Cow::Borrowed(wiregen_runtime::text::ascii(b, at, #nm)?) }
                    }
                    Encoding::Latin1 => quote! { wiregen_runtime::text::latin1(b) },
                    Encoding::Utf16 { big } => {
                        quote! { Cow::Owned(wiregen_runtime::text::utf16(b, #big, at, #nm)?) }
                    }
                };
                // The copy for the trace is made only when tracing.
                quote! { { #size let at = r.pos(); let b = #take; let v: Cow<'a, str> = #text_of; r.note_with(#abbrev, at, || Value::Str(v.clone())); v } }
            }
            Ty::Str(len, _) => {
                let n = self.read_len(sid, len, nm, abbrev)?;
                if self.bits_at(sid, fi) {
                    let nt = note(quote! { Value::Str(v.clone()) });
                    quote! { { let n = #n; let at = r.pos(); let v = r.str(n, #nm)?; #nt v } }
                } else {
                    let nt = note(quote! { Value::Str(Cow::Borrowed(v)) });
                    quote! { { let n = #n; let at = r.pos(); let v = r.str(n, #nm)?; #nt Cow::Borrowed(v) } }
                }
            }
            Ty::Struct(id, len) if self.p.structs[sid].fields[fi].compression.is_some() => {
                let c = self.p.structs[sid].fields[fi].compression.unwrap();
                let inner = self.read_struct_call(sid, *id, nm)?;
                let n = self.read_len(sid, len.as_ref().unwrap_or(&Len::Rest), nm, abbrev)?;
                let method = format_ident!("{}", c.method.variant());
                let max = lit_usize(c.max as usize);
                // A value that borrows from the plain bytes is copied out of them.
                let owned = if self.l.borrows[*id] {
                    quote! { wiregen_runtime::IntoOwned::into_owned(v) }
                } else {
                    quote! { v }
                };
                // The plain bytes are decoded by a reader of their own (same notes, same
                // conversation state); the value is then copied out of them.
                quote! { {
                    let n = #n;
                    let at = r.pos();
                    let packed = r.take(n, #nm)?;
                    let plain = wiregen_runtime::compress::decompress(
                        wiregen_runtime::compress::Compression::#method, packed, #max, #nm, at)?;
                    let mut inner = r.nested(&plain);
                    let v = (|| {
                        let r = &mut inner;
                        let v = #inner;
                        if r.remaining() > 0 {
                            return Err(DecodeError::new(#nm, r.pos(), DecodeErrorKind::Trailing { bytes: r.remaining() }));
                        }
                        Ok(v)
                    })().map_err(|e: DecodeError| e.in_decompressed(at))?;
                    r.absorb(inner);
                    #owned
                } }
            }
            Ty::Struct(id, len) => {
                let inner = self.read_struct_call(sid, *id, nm)?;
                match len {
                    None | Some(Len::Natural) => inner,
                    Some(len) => {
                        let n = self.read_len(sid, len, nm, abbrev)?;
                        quote! { { let n = #n; let saved = r.limit(n, #nm)?; let v = #inner; r.unlimit(saved, #nm)?; v } }
                    }
                }
            }
            Ty::Array(_, count) if self.p.structs[sid].fields[fi].packed => {
                // Bools 8 per byte, lowest bit first: one read of the bytes, then the bits.
                let n = self.read_len(sid, count, nm, abbrev)?;
                quote! { {
                    let n = #n;
                    let at = r.pos();
                    let bytes = r.take(n.div_ceil(8), #nm)?;
                    let v: Vec<bool> = (0..n).map(|i| bytes[i / 8] >> (i % 8) & 1 != 0).collect();
                    for (i, b) in v.iter().enumerate() {
                        r.note_at(#abbrev, at + i / 8, 1, Value::Bool(*b));
                    }
                    v
                } }
            }
            Ty::Array(elem, count) => {
                let item =
                    self.read_ty(sid, fi, elem, nm, &naming::element_abbrev(elem, abbrev))?;
                let min = self.min_size(elem).max(1);
                // Capacity bounded by what the input can hold, so a lying count cannot make us allocate.
                let cap = if min == 1 {
                    quote! { r.remaining() }
                } else {
                    let min = lit_usize(min);
                    quote! { r.remaining() / #min }
                };
                match count {
                    // A bit stream ends with fewer than 8 bits of padding, not an element.
                    Len::Rest | Len::Natural if self.bits(sid) => quote! { {
                        let mut v = Vec::with_capacity(r.remaining() / 8);
                        while r.remaining() >= 8 { v.push(#item); }
                        v
                    } },
                    Len::Rest | Len::Natural => quote! { {
                        let mut v = Vec::with_capacity(#cap);
                        while r.remaining() > 0 { v.push(#item); }
                        v
                    } },
                    // Elements until exactly `n` bytes are read (the last one may not overrun).
                    Len::Bytes(_) => {
                        let n = self.read_len(sid, count, nm, abbrev)?;
                        quote! { {
                            let n = #n;
                            let saved = r.limit(n, #nm)?;
                            let mut v = Vec::with_capacity(#cap);
                            while r.remaining() > 0 { v.push(#item); }
                            r.unlimit(saved, #nm)?;
                            v
                        } }
                    }
                    _ => {
                        let n = self.read_len(sid, count, nm, abbrev)?;
                        quote! { {
                            let n = #n;
                            let mut v = Vec::with_capacity(n.min(#cap));
                            for _ in 0..n { v.push(#item); }
                            v
                        } }
                    }
                }
            }
            Ty::Union(u) => self.read_union(sid, fi, u, nm, abbrev)?,
        })
    }

    pub(crate) fn read_len(
        &self,
        sid: StructId,
        len: &Len,
        nm: &str,
        abbrev: &str,
    ) -> Result<TokenStream, Internal> {
        Ok(match len {
            Len::Prefix(it) => {
                let read = read_int(it, nm, self.bits(sid));
                let a = naming::prefix_abbrev(abbrev);
                quote! { { let at = r.pos(); let v = #read; r.note(#a, at, Value::U(v as u64)); r.length(v as i128, #nm)? } }
            }
            Len::VarPrefix(v) => {
                let a = naming::prefix_abbrev(abbrev);
                let read = match v {
                    VarInt::Leb128 => quote! { r.leb128(#nm)? },
                    VarInt::RiptideLen => quote! { r.riptide_len(#nm)? as u64 },
                    _ => return Err(Internal(format!("'{nm}': this varint as a prefix"))),
                };
                quote! { { let at = r.pos(); let v = #read; r.note(#a, at, Value::U(v)); r.length(v as i128, #nm)? } }
            }
            Len::Expr(e) | Len::Bytes(e) => {
                let e = self.expr_top(e, Ctx::Decode);
                quote! { r.length(#e, #nm)? }
            }
            Len::Rest | Len::Natural if self.bits(sid) => quote! { r.remaining() / 8 },
            Len::Rest | Len::Natural => quote! { r.remaining() },
        })
    }

    pub(crate) fn read_union(
        &self,
        sid: StructId,
        fi: usize,
        u: &Union,
        nm: &str,
        abbrev: &str,
    ) -> Result<TokenStream, Internal> {
        let p = self.p;
        let un = ident(&naming::union_type(p, sid, fi));
        let tag = self.tag_field(sid, fi);
        let (on, kind) = self.tag_subject(&u.on, Ctx::Tag(nm));
        let all: Vec<CaseValue> = u
            .cases
            .iter()
            .flat_map(|c| c.values.iter().copied())
            .collect();
        let exhausted = self.tag_exhausted(kind, &all);
        let mut arms = Vec::new();
        let body = |b: CaseBody| -> Result<TokenStream, Internal> {
            Ok(match b {
                CaseBody::Struct(id) => self.read_struct_call(sid, id, nm)?,
                // Values to the end of the switch (in a bit stream, before the last byte's
                // padding).
                CaseBody::Array(id) => {
                    let item = self.read_struct_call(sid, id, nm)?;
                    let more = if self.bits(sid) {
                        quote! { r.remaining() >= 8 }
                    } else {
                        quote! { r.remaining() > 0 }
                    };
                    quote! { { let mut v = Vec::new(); while #more { v.push(#item); } v } }
                }
                CaseBody::Bytes => {
                    if self.bits(sid) {
                        quote! { { let at = r.pos(); let n = r.remaining() / 8; let v = r.bytes(n, #nm)?; r.note(#abbrev, at, Value::Bytes(Cow::Borrowed(r.touched(at)))); v } }
                    } else {
                        quote! { { let at = r.pos(); let v = r.take(r.remaining(), #nm)?; r.note(#abbrev, at, Value::Bytes(Cow::Borrowed(v))); Cow::Borrowed(v) } }
                    }
                }
                CaseBody::Empty => quote! {},
            })
        };
        for c in &u.cases {
            let v = ident(&c.variant);
            let pats = self.tag_patterns(kind, &c.values);
            if pats.is_empty() {
                // No value of the tag's type selects this case.
                continue;
            }
            let b = body(c.body)?;
            let carries = tag.is_some() && c.single().is_none();
            let build = match (carries, c.body) {
                (true, CaseBody::Empty) => {
                    let tn = ident(&tag.unwrap().1.name);
                    quote! { #un::#v { #tn } }
                }
                (true, _) => {
                    let tn = ident(&tag.unwrap().1.name);
                    quote! { #un::#v { #tn, value: #b } }
                }
                (false, CaseBody::Empty) => quote! { #un::#v },
                (false, _) => quote! { #un::#v(#b) },
            };
            arms.push(quote! { #(#pats)|* => #build, });
        }
        let mut default_build = None;
        match u.default {
            Some(b) => {
                let inner = body(b)?;
                let tag_part = tag.map(|(_, tf)| {
                    let tn = ident(&tf.name);
                    quote! { #tn, }
                });
                let data = match b {
                    CaseBody::Bytes => quote! { data: #inner },
                    CaseBody::Struct(_) | CaseBody::Array(_) => quote! { value: #inner },
                    CaseBody::Empty => quote! {},
                };
                let other = ident(&u.default_variant);
                let build = match (tag.is_some(), b) {
                    (true, _) => quote! { #un::#other { #tag_part #data } },
                    (false, CaseBody::Empty) => quote! { #un::#other },
                    (false, _) => quote! { #un::#other(#inner) },
                };
                if !exhausted {
                    arms.push(quote! { _ => #build, });
                }
                default_build = Some(build);
            }
            None if exhausted => {}
            None => {
                let value = kind.raw(quote! { other });
                arms.push(quote! {
                    other => return Err(r.error(#nm, r.pos(), DecodeErrorKind::UnknownValue { value: #value })),
                });
            }
        }
        // `unless` picks the default variant whatever the tag.
        let matched = match (&u.unless, default_build) {
            (Some(cond), Some(build)) => {
                let cond = self.expr_top(cond, Ctx::Decode);
                quote! { if #cond { #build } else { match #on { #(#arms)* } } }
            }
            _ => quote! { match #on { #(#arms)* } },
        };
        if matches!(u.len, Len::Natural) || (self.bits(sid) && matches!(u.len, Len::Rest)) {
            // The scope already ends where the union does.
            return Ok(matched);
        }
        let n = self.read_len(sid, &u.len, nm, abbrev)?;
        Ok(quote! { {
            let n = #n;
            let saved = r.limit(n, #nm)?;
            let v = #matched;
            r.unlimit(saved, #nm)?;
            v
        } })
    }

    pub(crate) fn min_size(&self, ty: &Ty) -> usize {
        match ty {
            // A compressed field may take fewer bytes than its value's fields.
            Ty::Struct(id, _) => self.p.structs[*id]
                .fields
                .iter()
                .filter(|f| f.condition.is_none() && f.compression.is_none())
                .map(|f| self.min_size(&f.ty))
                .sum(),
            Ty::Bytes(Len::Prefix(it))
            | Ty::Str(Len::Prefix(it), _)
            | Ty::Array(_, Len::Prefix(it)) => it.bytes(),
            Ty::Bytes(Len::VarPrefix(_))
            | Ty::Str(Len::VarPrefix(_), _)
            | Ty::Array(_, Len::VarPrefix(_)) => 1,
            other => self.p.fixed_size(other).unwrap_or(0),
        }
    }
}
