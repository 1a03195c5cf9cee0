//! Reading numbers, bools, enums and flag sets (and raw bits of a bit stream).

use super::*;
use crate::backend::rust::types::named_lit;
use crate::lower::{BitNumber, ByteNumber};

impl<'p> Decoder<'p> {
    /// A number, bool, enum or flag set of a byte layout.
    pub(super) fn read_byte_number(&self, at: ReadAt<'_>, n: ByteNumber) -> TokenStream {
        let ReadAt { nm, abbrev, .. } = at;
        let note = |value: TokenStream| quote! { r.note(#abbrev, at, #value); };
        match n {
            ByteNumber::Int(it) if it.is_native() => {
                let (t, read) = (int_rust(&it), endian_read(&it));
                quote! { r.#read::<#t>(#nm, #abbrev)? }
            }
            ByteNumber::Int(it) => self.read_int_value(at, &it),
            ByteNumber::Bool => {
                let n = note(quote! { Value::Bool(v) });
                quote! { { let at = r.pos(); let v = r.array::<1>(#nm)?[0] != 0; #n v } }
            }
            ByteNumber::Float {
                bits: 16,
                endian: Endian::Big,
            } => quote! { r.f16_be(#nm, #abbrev)? },
            ByteNumber::Float { bits: 16, .. } => quote! { r.f16_le(#nm, #abbrev)? },
            ByteNumber::Float { bits, endian } => {
                let t = format_ident!("f{}", bits);
                let n = lit_usize(bits as usize / 8);
                let from = if endian == Endian::Big {
                    quote! { from_be_bytes }
                } else {
                    quote! { from_le_bytes }
                };
                let v = cast(quote! { v }, &t, &format_ident!("f64"));
                let nt = note(quote! { Value::F(#v) });
                quote! { { let at = r.pos(); let v = #t::#from(r.array::<#n>(#nm)?); #nt v } }
            }
            ByteNumber::Leb128 => self.read_leb128(at),
            ByteNumber::ZigZag => self.read_zigzag(at),
            ByteNumber::RiptideLen => {
                let n = note(quote! { Value::U(v as u64) });
                quote! { { let at = r.pos(); let v = r.riptide_len(#nm)?; #n v } }
            }
            ByteNumber::Enum(id) => self.read_enum(at, id),
            ByteNumber::Flags(id) => self.read_flags(at, id),
        }
    }

    /// A number, bool, enum or flag set of a bit stream or a bit group, or a stream's rest.
    pub(super) fn read_bit_number(&self, at: ReadAt<'_>, n: BitNumber) -> TokenStream {
        let ReadAt { nm, abbrev, .. } = at;
        let note = |value: TokenStream| quote! { r.note(#abbrev, at, #value); };
        match n {
            BitNumber::Int(it) => self.read_int_value(at, &it),
            BitNumber::Bool => {
                let n = note(quote! { Value::Bool(v) });
                quote! { { let at = r.pos(); let v = r.bits(1, #nm)? != 0; #n v } }
            }
            BitNumber::Float { bits: 16 } => {
                let nt = note(quote! { Value::F(v as f64) });
                let raw = quote! { r.bits(16, #nm)? as u16 };
                quote! { { let at = r.pos(); let v = wiregen_runtime::f16_to_f32(#raw); #nt v } }
            }
            BitNumber::Float { bits } => {
                let t = format_ident!("f{}", bits);
                let v = cast(quote! { v }, &t, &format_ident!("f64"));
                let nt = note(quote! { Value::F(#v) });
                let u = format_ident!("u{}", bits);
                let raw = cast(quote! { r.bits(#bits, #nm)? }, &format_ident!("u64"), &u);
                quote! { { let at = r.pos(); let v = #t::from_bits(#raw); #nt v } }
            }
            BitNumber::Leb128 => self.read_leb128(at),
            BitNumber::ZigZag => self.read_zigzag(at),
            BitNumber::Rabbit { bits, signed } => {
                let t = format_ident!("{}{}", if signed { "i" } else { "u" }, bits);
                if signed {
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
            BitNumber::RawBits => {
                let n = note(quote! { Value::Bytes(Cow::Borrowed(r.touched(at))) });
                quote! { { let at = r.pos(); let v = r.rest(#nm)?; #n v } }
            }
            BitNumber::Enum(id) => self.read_enum(at, id),
            BitNumber::Flags(id) => self.read_flags(at, id),
        }
    }

    /// An integer read whole (of any width, either layout), noted.
    fn read_int_value(&self, at: ReadAt<'_>, it: &IntTy) -> TokenStream {
        let ReadAt {
            sid,
            fi,
            nm,
            abbrev,
        } = at;
        let read = read_int(it, nm, self.c.bits_at(sid, fi));
        let t = int_rust(it);
        let v = if it.signed {
            let v = cast(quote! { v }, &t, &format_ident!("i64"));
            quote! { Value::I(#v) }
        } else {
            let v = cast(quote! { v }, &t, &format_ident!("u64"));
            quote! { Value::U(#v) }
        };
        quote! { { let at = r.pos(); let v = #read; r.note(#abbrev, at, #v); v } }
    }

    fn read_leb128(&self, at: ReadAt<'_>) -> TokenStream {
        let ReadAt { nm, abbrev, .. } = at;
        quote! { { let at = r.pos(); let v = r.leb128(#nm)?; r.note(#abbrev, at, Value::U(v)); v } }
    }

    fn read_zigzag(&self, at: ReadAt<'_>) -> TokenStream {
        let ReadAt { nm, abbrev, .. } = at;
        quote! { { let at = r.pos(); let z = r.leb128(#nm)?; let v = ((z >> 1) as i64) ^ -((z & 1) as i64); r.note(#abbrev, at, Value::I(v)); v } }
    }

    /// An enum: a closed one refuses a value it does not name, an open one keeps it.
    fn read_enum(&self, at: ReadAt<'_>, id: EnumId) -> TokenStream {
        let ReadAt {
            sid,
            fi,
            nm,
            abbrev,
        } = at;
        let note = |value: TokenStream| quote! { r.note(#abbrev, at, #value); };
        let e = &self.c.p.enums[id];
        let en = ident(&e.name);
        let read = read_int(&e.repr, nm, self.c.bits_at(sid, fi));
        let raw = cast(quote! { raw }, &int_rust(&e.repr), &format_ident!("u64"));
        // A signed enum's value is shown signed, as the dissector shows it.
        let n = if e.repr.signed {
            let wide = cast(quote! { raw }, &int_rust(&e.repr), &format_ident!("i64"));
            note(quote! { Value::I(#wide) })
        } else {
            note(quote! { Value::U(#raw) })
        };
        if e.closed {
            quote! { {
                let at = r.pos();
                let raw = #read;
                #n
                #en::from_raw(raw).ok_or_else(|| r.error(#nm, at, DecodeErrorKind::UnknownValue { value: #raw }))?
            } }
        } else if e.repr.is_native() && !e.repr.signed && !self.c.bits_at(sid, fi) {
            let (t, read) = (int_rust(&e.repr), endian_read(&e.repr));
            quote! { #en::from_raw(r.#read::<#t>(#nm, #abbrev)?) }
        } else {
            quote! { { let at = r.pos(); let raw = #read; #n #en::from_raw(raw) } }
        }
    }

    /// A flag set: noted whole and flag by flag (a native integer's flags by their masks).
    fn read_flags(&self, at: ReadAt<'_>, id: FlagsId) -> TokenStream {
        let ReadAt {
            sid,
            fi,
            nm,
            abbrev,
        } = at;
        let fl = &self.c.p.flags[id];
        if fl.repr.is_native() && !fl.repr.signed && !self.c.bits_at(sid, fi) {
            let (fname, t, read) = (ident(&fl.name), int_rust(&fl.repr), endian_read(&fl.repr));
            let masks = fl.bits.iter().map(|b| {
                let a = naming::flag_abbrev(abbrev, &b.name);
                let m = named_lit(b);
                quote! { (#a, #m) }
            });
            quote! { {
                let v = #fname(r.#read::<#t>(#nm, #abbrev)?);
                r.note_bits(v.bits(), &[#(#masks),*]);
                v
            } }
        } else {
            let fname = ident(&fl.name);
            let read = read_int(&fl.repr, nm, self.c.bits_at(sid, fi));
            let bits = fl.bits.iter().map(|b| {
                let a = naming::flag_abbrev(abbrev, &b.name);
                let m = lit_u64(b.value);
                quote! { r.note(#a, at, Value::Bool(raw & #m != 0)); }
            });
            let wide = cast(quote! { raw }, &int_rust(&fl.repr), &format_ident!("u64"));
            quote! { { let at = r.pos(); let raw = #read; r.note(#abbrev, at, Value::U(#wide)); #(#bits)* #fname(raw) } }
        }
    }
}

/// The reader's method for a native integer of `it`'s byte order (`le` or `be`).
fn endian_read(it: &IntTy) -> Ident {
    if it.endian == Endian::Big {
        format_ident!("be")
    } else {
        format_ident!("le")
    }
}
