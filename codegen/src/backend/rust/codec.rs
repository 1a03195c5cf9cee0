//! The `Codec` implementation of each struct: its reader and writer, checksums included.

use super::*;

pub(crate) fn crc_ctor(algo: ChecksumAlgo) -> TokenStream {
    let (width, poly, init, refin, refout, xorout) = algo.crc_params();
    let (poly, init, xorout) = (lit_hex(poly), lit_hex(init), lit_hex(xorout));
    quote! { Crc::new(#width, #poly, #init, #refin, #refout, #xorout) }
}

impl<'p> Gen<'p> {
    pub(crate) fn codec_impl(&self, sid: StructId) -> Result<TokenStream, Unsupported> {
        let s = &self.p.structs[sid];
        let name = ident(&s.name);
        let lt = self.lifetime(sid);
        let (impl_lt, in_lt) = (quote! { <'a> }, quote! { 'a });
        let (rd, wr) = if self.bits(sid) {
            (quote! { BitReader }, quote! { BitWriter })
        } else {
            (quote! { Reader }, quote! { Writer })
        };
        let mut reads = Vec::new();
        for fi in 0..s.fields.len() {
            reads.push(self.read_field(sid, fi)?);
        }
        let checksum_checks = s.fields.iter().enumerate().filter_map(|(fi, f)| match f.role {
            Role::Checksum(algo) => {
                let v = ident(&f.name);
                let at = format_ident!("{}_at", f.name);
                let nm = &f.name;
                let n = lit_usize(match &f.ty { Ty::Int(it) => it.bytes(), _ => 0 });
                let crc = crc_ctor(algo);
                let status = format!("{}.status", naming::abbrev(self.p, sid, fi));
                let note_index = format_ident!("{}_note", f.name);
                Some(quote! {
                    {
                        static CRC: Crc = #crc;
                        let computed = CRC.checksum(&[r.slice(start, #at), &[0u8; #n], r.slice(#at + #n, r.pos())]);
                        if computed != #v as u64 {
                            return Err(r.error(#nm, #at, DecodeErrorKind::BadChecksum { stored: #v as u64, computed }));
                        }
                        r.insert_note(#note_index, #status, #at, #n, Value::U(1));
                    }
                })
            }
            _ => None,
        });
        let build: Vec<TokenStream> = s
            .value_fields()
            .map(|(_, f)| {
                let n = ident(&f.name);
                quote! { #n }
            })
            .collect();
        let mut writes = Vec::new();
        for fi in 0..s.fields.len() {
            writes.push(self.write_field(sid, fi)?);
        }
        let checksum_patches = s
            .fields
            .iter()
            .filter_map(|f| match (f.role.clone(), &f.ty) {
                (Role::Checksum(algo), Ty::Int(it)) => {
                    let at = format_ident!("{}_at", f.name);
                    let crc = crc_ctor(algo);
                    let put = uint_bytes(quote! { value }, &format_ident!("u64"), it);
                    Some(quote! {
                        {
                            static CRC: Crc = #crc;
                            let value = CRC.checksum(&[&w.buf[start..]]);
                            w.patch(#at, &#put);
                        }
                    })
                }
                _ => None,
            });
        // The start of the struct: what its checksums cover.
        let has_checksum = s.fields.iter().any(|f| matches!(f.role, Role::Checksum(_)));
        let read_start = has_checksum.then(|| quote! { let start = r.pos(); });
        let write_start = has_checksum.then(|| quote! { let start = w.len(); });
        // An extension notes the fields of the types it takes from its base crate under its own
        // names.
        let own_notes = (self.p.base.is_some() && self.reuse.any()).then(|| {
            quote! {
                fn own_notes(notes: Vec<FieldNote<#in_lt>>) -> Vec<FieldNote<#in_lt>> {
                    own_notes(notes)
                }
            }
        });
        let static_ty = if self.p.struct_borrows(sid) {
            quote! { #name<'static> }
        } else {
            quote! { #name }
        };
        let type_name = &s.name;
        Ok(quote! {
            impl #impl_lt Codec<#in_lt> for #name #lt {
                const NAME: &'static str = #type_name;
                type Reader<T: Trace<#in_lt>> = #rd<#in_lt, T>;
                type Writer<'o> = #wr<'o>;

                fn read<T: Trace<#in_lt>>(r: &mut #rd<#in_lt, T>) -> Result<Self, DecodeError> {
                    #read_start
                    #(#reads)*
                    #(#checksum_checks)*
                    Ok(Self { #(#build),* })
                }

                fn write(&self, w: &mut #wr<'_>) -> Result<(), EncodeError> {
                    #write_start
                    #(#writes)*
                    #(#checksum_patches)*
                    Ok(())
                }

                #own_notes
            }

            impl wiregen_runtime::Type for #static_ty {
                type Of<'a> = #name #lt;
            }

        })
    }
}
