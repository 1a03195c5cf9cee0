//! Decoding: the statements that read each field, and one small renderer per kind of value
//! (`scalars`, `text`, `nested`, `arrays`).

mod arrays;
mod nested;
mod scalars;
mod text;

use super::*;
use crate::lower::{bit_read, byte_read, LenRead, ValueRead};

/// Renders the statements that read fields, switches and their lengths.
#[derive(Clone, Copy)]
pub(crate) struct Decoder<'p> {
    pub(crate) c: Crate<'p>,
}

/// One value being read: the field it belongs to, its name (in errors) and its filter name (in
/// the trace's notes).
#[derive(Clone, Copy)]
pub(crate) struct ReadAt<'a> {
    pub sid: StructId,
    pub fi: usize,
    pub nm: &'a str,
    pub abbrev: &'a str,
}

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

impl<'p> Decoder<'p> {
    /// Reading a value of struct `id` from the current reader `r`.
    pub(crate) fn read_struct_call(
        &self,
        sid: StructId,
        id: StructId,
        nm: &str,
    ) -> Result<TokenStream, Internal> {
        let t = ident(&self.c.p.structs[id].name);
        let child_bits = self.c.p.structs[id].layout.is_bits();
        Ok(match (self.c.bits(sid), child_bits) {
            (false, true) => quote! { {
                let mut bits = r.bit_reader();
                let v = #t::read(&mut bits);
                r.resume(bits);
                v.within(#nm)?
            } },
            (true, false) => {
                return Err(Internal(format!(
                    "'{nm}': a byte-aligned type inside a bit stream"
                )))
            }
            _ => quote! { #t::read(r).within(#nm)? },
        })
    }

    /// Statements that read field `fi` into a local of the same name.
    pub(crate) fn read_field(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let read = self.read_field_value(sid, fi)?;
        let keep = self.c.exprs().keep_enclosing(sid, fi, Ctx::Decode);
        Ok(quote! { #read #keep })
    }

    /// Statements that read field `fi` into a local of the same name, and check it.
    fn read_field_value(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let s = &self.c.p.structs[sid];
        let f = &s.fields[fi];
        let local = ident(&f.name);
        let nm = f.name.as_str();
        let abbrev = naming::abbrev(self.c.p, sid, fi);
        let at = ident(&self.c.l.field(sid, fi).locals.at);
        let value = self.read_ty(sid, fi, &f.ty, nm, &abbrev)?;
        let check = match (&f.role, f.max) {
            (Role::Const(c), _) => const_check(f, *c, &local, &at),
            (_, Some(m)) => {
                let m = lit_u64(m);
                quote! {
                    if #local as u64 > #m {
                        let kind = DecodeErrorKind::TooLarge { value: #local as u64, max: #m };
                        return Err(r.error(#nm, #at, kind));
                    }
                }
            }
            _ => quote! {},
        };
        let check = match &f.valid {
            Some(valid) => {
                let x = self.c.temp(sid, "x");
                let bad = invalid_test(valid, quote! { #x });
                quote! {
                    #check
                    let #x = #local as i128;
                    if #bad {
                        return Err(r.error(#nm, #at, DecodeErrorKind::NotValid { value: #x }));
                    }
                }
            }
            None => check,
        };
        let note_index = match f.role {
            Role::Checksum(_) => {
                let idx = ident(&self.c.l.field(sid, fi).locals.note);
                quote! { let #idx = r.notes_len(); }
            }
            _ => quote! {},
        };
        // Values typed by conversation state: select the lists by key first.
        let value = if f.select.is_empty() {
            value
        } else {
            if self.c.bits_at(sid, fi) {
                return Err(Internal(format!("'{nm}': a state list in a bit stream")));
            }
            let (mut sel, mut res) = (Vec::new(), Vec::new());
            for (k, (t, key)) in f.select.iter().enumerate() {
                let saved = format_ident!("saved_{}", k);
                let tl = lit_usize(*t);
                let key = self.c.exprs().expr_top(key, Ctx::Decode);
                sel.push(quote! { let #saved = r.select(#tl, (#key) as u64, #nm)?; });
                res.push(quote! { r.restore(#tl, #saved); });
            }
            quote! { { #(#sel)* let v = #value; #(#res)* v } }
        };
        // Where the field starts, for the checks above and a checksum's verification.
        let plan = self.c.l.field(sid, fi);
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
                let cond = self.c.exprs().expr_top(c, Ctx::Decode);
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
                let cond = self.c.exprs().expr_top(c, Ctx::Decode);
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
        Ok(match (ty, &self.c.p.structs[sid].fields[fi].filter) {
            (Ty::Struct(id, _), Some(filter)) => {
                let rename = super::filters::rename_fn(self.c.p, *id, filter);
                quote! { { let first = r.notes_len(); let v = #read; r.rename_notes(first, #rename); v } }
            }
            _ => read,
        })
    }

    /// An expression reading one value of `ty` (and noting it for the trace), by what the value
    /// is.
    fn read_ty_unnamed(
        &self,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        nm: &str,
        abbrev: &str,
    ) -> Result<TokenStream, Internal> {
        let at = ReadAt {
            sid,
            fi,
            nm,
            abbrev,
        };
        // The lowering's read step, by the layout the field is read in.
        if self.c.bits_at(sid, fi) {
            self.read_value(at, bit_read(ty)?, |n| self.read_bit_number(at, n))
        } else {
            self.read_value(at, byte_read(ty)?, |n| self.read_byte_number(at, n))
        }
    }

    /// An expression reading a value by its read step, its numbers by `number` (the layout's).
    fn read_value<N>(
        &self,
        at: ReadAt<'_>,
        step: ValueRead<'_, N>,
        number: impl FnOnce(N) -> TokenStream,
    ) -> Result<TokenStream, Internal> {
        match step {
            ValueRead::Number(n) => Ok(number(n)),
            ValueRead::Text { len, text } => self.read_text(at, len, text),
            ValueRead::Nested { id, len } => self.read_nested(at, id, len),
            ValueRead::Array { elem, len } => self.read_array(at, elem, len),
            ValueRead::Switch(u) => self.read_union(at.sid, at.fi, u, at.nm, at.abbrev),
        }
    }

    pub(crate) fn read_len(
        &self,
        sid: StructId,
        len: &Len,
        nm: &str,
        abbrev: &str,
    ) -> Result<TokenStream, Internal> {
        Ok(match LenRead::of(len)? {
            LenRead::Prefix(it) => {
                let read = read_int(&it, nm, self.c.bits(sid));
                let a = naming::prefix_abbrev(abbrev);
                quote! { { let at = r.pos(); let v = #read; r.note(#a, at, Value::U(v as u64)); r.length(v, #nm)? } }
            }
            LenRead::Leb128 => {
                let a = naming::prefix_abbrev(abbrev);
                quote! { { let at = r.pos(); let v = r.leb128(#nm)?; r.note(#a, at, Value::U(v)); r.length(v, #nm)? } }
            }
            LenRead::RiptideLen => {
                let a = naming::prefix_abbrev(abbrev);
                quote! { { let at = r.pos(); let v = r.riptide_len(#nm)? as u64; r.note(#a, at, Value::U(v)); r.length(v, #nm)? } }
            }
            LenRead::Expr(e) | LenRead::Bytes(e) => {
                // (A plain integer field is passed as it is: `length` takes any integer.)
                let e = match self.c.exprs().native_int(e, Ctx::Decode) {
                    Some((x, _)) => x,
                    None => self.c.exprs().expr_top(e, Ctx::Decode),
                };
                quote! { r.length(#e, #nm)? }
            }
            LenRead::Rest if self.c.bits(sid) => quote! { r.remaining() / 8 },
            LenRead::Rest => quote! { r.remaining() },
        })
    }

    /// The `match` on a switch's tag giving its value, and how its default variant is built
    /// (for `unless`).
    pub(crate) fn switch_match(
        &self,
        sid: StructId,
        fi: usize,
        u: &Union,
        nm: &str,
        abbrev: &str,
    ) -> Result<(TokenStream, Option<TokenStream>), Internal> {
        let p = self.c.p;
        let un = ident(&p.union_name(sid, fi));
        let tag = self.c.types().tag_field(sid, fi);
        let (on, kind) = self.c.exprs().tag_subject(&u.on, Ctx::Tag(nm));
        let all: Vec<CaseValue> = u
            .cases
            .iter()
            .flat_map(|c| c.values.iter().copied())
            .collect();
        let exhausted = self.c.exprs().tag_exhausted(kind, &all);
        let mut arms = Vec::new();
        let body = |b: CaseBody| -> Result<TokenStream, Internal> {
            Ok(match b {
                // The variant says the type: `Value::Point(r.read("value")?)`.
                CaseBody::Struct(id) if !self.c.bits(sid) && !p.structs[id].layout.is_bits() => {
                    quote! { r.read(#nm)? }
                }
                CaseBody::Struct(id) => self.read_struct_call(sid, id, nm)?,
                // Values to the end of the switch (in a bit stream, before the last byte's
                // padding).
                CaseBody::Array(id) => {
                    let item = self.read_struct_call(sid, id, nm)?;
                    let more = if self.c.bits(sid) {
                        quote! { r.remaining() >= 8 }
                    } else {
                        quote! { r.remaining() > 0 }
                    };
                    quote! { { let mut v = Vec::new(); while #more { v.push(#item); } v } }
                }
                CaseBody::Bytes => {
                    if self.c.bits(sid) {
                        quote! { { let at = r.pos(); let n = r.remaining() / 8; let v = r.bytes(n, #nm)?; r.note(#abbrev, at, Value::Bytes(Cow::Borrowed(r.touched(at)))); v } }
                    } else {
                        quote! { Cow::Borrowed(r.bytes_field(r.remaining(), #nm, #abbrev)?) }
                    }
                }
                CaseBody::Empty => quote! {},
            })
        };
        for c in &u.cases {
            let v = variant_ident(&c.variant);
            let pats = self.c.exprs().tag_patterns(kind, &c.values);
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
                let other = variant_ident(&u.default_variant);
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
        Ok((quote! { match #on { #(#arms)* } }, default_build))
    }

    /// Reads switch field `fi` of struct `sid`: its tag's `match` (or the function the packet
    /// shares with a reassembled whole: see `Lowered::shared_switch`), within its length.
    pub(crate) fn read_union(
        &self,
        sid: StructId,
        fi: usize,
        u: &Union,
        nm: &str,
        abbrev: &str,
    ) -> Result<TokenStream, Internal> {
        let (mut switch, default_build) = self.switch_match(sid, fi, u, nm, abbrev)?;
        if self.c.l.shared_switch == Some((sid, fi)) {
            if let Some((_, tag)) = self.c.types().tag_field(sid, fi) {
                let un = ident(&self.c.p.union_name(sid, fi));
                let tn = ident(&tag.name);
                switch = quote! { #un::read_as(r, #tn)? };
            }
        }
        // `unless` picks the default variant whatever the tag.
        let matched = match (&u.unless, default_build) {
            (Some(cond), Some(build)) => {
                let cond = self.c.exprs().expr_top(cond, Ctx::Decode);
                quote! { if #cond { #build } else { #switch } }
            }
            _ => switch,
        };
        if matches!(u.len, Len::Natural) || (self.c.bits(sid) && matches!(u.len, Len::Rest)) {
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
            Ty::Struct(id, _) => self.c.p.structs[*id]
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
            other => self.c.p.fixed_size(other).unwrap_or(0),
        }
    }
}

/// The check of constant field `f` (its value `c`, read into `local` at `at`): compared in the
/// field's own type, written as the schema wrote it.
fn const_check(f: &Field, c: u64, local: &Ident, at: &Ident) -> TokenStream {
    let nm = f.name.as_str();
    let expected = match &f.ty {
        // Reported as the value read is, widened with its sign.
        Ty::Int(it) if f.const_negative() => {
            let typed = const_typed(f, c, &int_rust(it));
            quote! { #typed as u64 }
        }
        _ => const_lit(f, c),
    };
    let c = const_lit(f, c);
    let raw = match f.ty {
        Ty::Enum(_) => quote! { #local.raw() },
        _ => quote! { #local },
    };
    quote! {
        if #raw != #c {
            let kind = DecodeErrorKind::BadConst { expected: #expected, found: #raw as u64 };
            return Err(r.error(#nm, #at, kind));
        }
    }
}
