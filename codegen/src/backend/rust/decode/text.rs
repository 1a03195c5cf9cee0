//! Reading bytes and strings (borrowed from the input).

use super::*;

impl<'p> Decoder<'p> {
    /// Bytes or a string.
    pub(super) fn read_text(
        &self,
        at: ReadAt<'_>,
        len: &Len,
        text: Option<Text>,
    ) -> Result<TokenStream, Internal> {
        let ReadAt {
            sid,
            fi,
            nm,
            abbrev,
        } = at;
        let note = |value: TokenStream| quote! { r.note(#abbrev, at, #value); };
        Ok(match text {
            None => {
                let n = self.read_len(sid, len, nm, abbrev)?;
                if self.c.bits_at(sid, fi) {
                    let nt = note(quote! { Value::Bytes(Cow::Borrowed(r.touched(at))) });
                    quote! { { let n = #n; let at = r.pos(); let v = r.bytes(n, #nm)?; #nt v } }
                } else {
                    self.read_borrowed(len, n, quote! { bytes_field }, nm, abbrev)
                }
            }
            Some(text) if text != Text::UTF8 => {
                // How the bytes end (at a NUL, at the padding, after a length), read as UTF-8
                // text or as bytes to convert.
                let mut size = quote! {};
                // UTF-16 ends at a NUL code unit: two zero bytes at an even offset.
                let wide = matches!(text.encoding, Encoding::Utf16 { .. });
                let (read_utf8, take) = match (text.nul, len) {
                    (Nul::Terminated, _) if wide => (quote! {}, quote! { r.take_z16(#nm)? }),
                    (Nul::Terminated, _) => (quote! { r.strz(#nm)? }, quote! { r.take_z(#nm)? }),
                    (Nul::Padded, Len::Expr(Expr::Int(n, _))) if wide => {
                        let n = lit_usize(*n as usize);
                        (quote! {}, quote! { r.take_padded16(#n, #nm)? })
                    }
                    (Nul::Padded, Len::Expr(Expr::Int(n, _))) => {
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
            Some(_) => {
                let n = self.read_len(sid, len, nm, abbrev)?;
                if self.c.bits_at(sid, fi) {
                    let nt = note(quote! { Value::Str(v.clone()) });
                    quote! { { let n = #n; let at = r.pos(); let v = r.str(n, #nm)?; #nt v } }
                } else {
                    self.read_borrowed(len, n, quote! { str_field }, nm, abbrev)
                }
            }
        })
    }

    /// `Cow::Borrowed(r.bytes_field(n, …)?)` (or `str_field`), its length `n` read first
    /// when reading it reads a prefix.
    fn read_borrowed(
        &self,
        len: &Len,
        n: TokenStream,
        method: TokenStream,
        nm: &str,
        abbrev: &str,
    ) -> TokenStream {
        match len {
            Len::Prefix(_) | Len::VarPrefix(_) => {
                quote! { { let n = #n; Cow::Borrowed(r.#method(n, #nm, #abbrev)?) } }
            }
            _ => quote! { Cow::Borrowed(r.#method(#n, #nm, #abbrev)?) },
        }
    }
}
