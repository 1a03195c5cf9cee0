//! Reading arrays: counted, sized in bytes, to the end, and bools packed 8 per byte.

use super::*;

impl<'p> Decoder<'p> {
    /// An array.
    pub(super) fn read_array(
        &self,
        at: ReadAt<'_>,
        elem: &Ty,
        count: &Len,
    ) -> Result<TokenStream, Internal> {
        let ReadAt {
            sid,
            fi,
            nm,
            abbrev,
        } = at;
        Ok(if self.c.p.structs[sid].fields[fi].packed {
            {
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
        } else {
            {
                let item =
                    self.read_ty(sid, fi, elem, nm, &naming::element_abbrev(elem, abbrev))?;
                // An element that may take no bytes is checked to have taken some.
                let item = if self.c.l.field(sid, fi).empty_elements {
                    quote! {
                        let at = r.pos();
                        v.push(#item);
                        if r.pos() == at {
                            return Err(r.error(#nm, at, DecodeErrorKind::EmptyElement));
                        }
                    }
                } else {
                    quote! { v.push(#item); }
                };
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
                    Len::Rest | Len::Natural if self.c.bits(sid) => quote! { {
                        let mut v = Vec::with_capacity(r.remaining() / 8);
                        while r.remaining() >= 8 { #item }
                        v
                    } },
                    Len::Rest | Len::Natural => quote! { {
                        let mut v = Vec::with_capacity(#cap);
                        while r.remaining() > 0 { #item }
                        v
                    } },
                    // Elements until exactly `n` bytes are read (the last one may not overrun).
                    Len::Bytes(_) => {
                        let n = self.read_len(sid, count, nm, abbrev)?;
                        quote! { {
                            let n = #n;
                            let saved = r.limit(n, #nm)?;
                            let mut v = Vec::with_capacity(#cap);
                            while r.remaining() > 0 { #item }
                            r.unlimit(saved, #nm)?;
                            v
                        } }
                    }
                    _ => {
                        let n = self.read_len(sid, count, nm, abbrev)?;
                        quote! { {
                            let n = #n;
                            let mut v = Vec::with_capacity(n.min(#cap));
                            for _ in 0..n { #item }
                            v
                        } }
                    }
                }
            }
        })
    }
}
