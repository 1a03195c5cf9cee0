//! Reading a value of a struct type: sized, self-delimiting or compressed.

use super::*;

impl<'p> Decoder<'p> {
    /// A value of a struct type.
    pub(super) fn read_nested(
        &self,
        at: ReadAt<'_>,
        id: StructId,
        len: Option<&Len>,
    ) -> Result<TokenStream, Internal> {
        let ReadAt {
            sid,
            fi,
            nm,
            abbrev,
        } = at;
        Ok(
            if let Some(c) = self.c.p.structs[sid].fields[fi].compression {
                {
                    let inner = self.read_struct_call(sid, id, nm)?;
                    let n = self.read_len(sid, len.unwrap_or(&Len::Rest), nm, abbrev)?;
                    let method = format_ident!("{}", c.method.variant());
                    let max = lit_usize(c.max as usize);
                    // A value that borrows from the plain bytes is copied out of them.
                    let owned = if self.c.l.borrows[id] {
                        quote! { IntoOwned::into_owned(v) }
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
            } else {
                {
                    let inner = self.read_struct_call(sid, id, nm)?;
                    match len {
                        None | Some(Len::Natural) => inner,
                        Some(len) => {
                            let n = self.read_len(sid, len, nm, abbrev)?;
                            quote! { { let n = #n; let saved = r.limit(n, #nm)?; let v = #inner; r.unlimit(saved, #nm)?; v } }
                        }
                    }
                }
            },
        )
    }
}
