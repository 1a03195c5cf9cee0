//! The `Codec` implementation of each struct: its reader and writer, checksums included.

use super::*;
use crate::lower::StructPlan;

/// Renders each struct's `Decode`/`Encode` impls, its checksums and bit groups.
#[derive(Clone, Copy)]
pub(crate) struct CodecImpls<'p> {
    pub(crate) c: Crate<'p>,
}

/// An expression computing checksum `algo` over the byte slices `parts`.
pub(crate) fn checksum_call(algo: ChecksumAlgo, parts: TokenStream) -> TokenStream {
    let variant = match algo {
        ChecksumAlgo::Crc(c) => {
            let crc = crc_static(c);
            return quote! { #crc.checksum(#parts) };
        }
        ChecksumAlgo::Sum(width) => quote! { Sum(#width) },
        ChecksumAlgo::Xor8 => quote! { Xor8 },
        ChecksumAlgo::Internet => quote! { Internet },
        ChecksumAlgo::Adler32 => quote! { Adler32 },
        ChecksumAlgo::Fletcher16 => quote! { Fletcher16 },
        ChecksumAlgo::Fletcher32 => quote! { Fletcher32 },
    };
    quote! { Checksum::#variant.checksum(#parts) }
}

/// The static of CRC `c` (`CRC16_CCITT_FALSE`, after its catalogue name).
fn crc_static(c: CrcAlgo) -> Ident {
    format_ident!("{}", c.name().to_shouty_snake_case())
}

impl<'p> CodecImpls<'p> {
    /// One static per CRC the crate's codecs compute, named after it, its tables built at
    /// compile time.
    pub(crate) fn crc_statics(&self) -> TokenStream {
        let mut crcs: Vec<CrcAlgo> = Vec::new();
        for (sid, s) in self.c.p.structs.iter().enumerate() {
            // (A type taken from a base crate is coded there.)
            if self.c.reuse.structs[sid] {
                continue;
            }
            for f in &s.fields {
                if let Role::Checksum(Checksum {
                    algo: ChecksumAlgo::Crc(c),
                    ..
                }) = f.role
                {
                    if !crcs.contains(&c) {
                        crcs.push(c);
                    }
                }
            }
        }
        let statics = crcs.iter().map(|&c| {
            let (width, poly, init, refin, refout, xorout) = c.crc_params();
            let doc = format!(
                " {}: width {width}, poly {poly:#X}, init {init:#X}, refin {refin}, refout {refout}, xorout {xorout:#X}.",
                c.name()
            );
            let (poly, init, xorout) = (lit_hex(poly), lit_hex(init), lit_hex(xorout));
            let (name, width) = (crc_static(c), Literal::u32_unsuffixed(width));
            quote! {
                #[doc = #doc]
                static #name: Crc = Crc::new(#width, #poly, #init, #refin, #refout, #xorout);
            }
        });
        quote! { #(#statics)* }
    }
}

/// Reading a value padded to `n` bytes: its limit before it, the padding after it (`field`
/// names it when the bytes are missing).
fn padded_read(
    n: Option<usize>,
    field: &str,
    pad_name: &str,
    padded: &Ident,
) -> (TokenStream, TokenStream) {
    match n {
        Some(n) => (
            quote! { let #padded = r.limit(#n, #field)?; },
            quote! { r.pad(#padded, #pad_name); },
        ),
        None => (quote! {}, quote! {}),
    }
}

/// The locals holding where a checksum's range starts and ends (the struct's start, and `end`,
/// the position after the last field, unless the checksum names fields).
fn range_locals(plan: &StructPlan, c: Checksum, end: TokenStream) -> (TokenStream, TokenStream) {
    let from = match c.from {
        Some(fi) => ident(&plan.fields[fi].locals.range_start),
        None => ident(&plan.start),
    };
    let to = match c.to {
        Some(fi) => {
            let l = ident(&plan.fields[fi].locals.range_end);
            quote! { #l }
        }
        None => end,
    };
    (quote! { #from }, to)
}

impl<'p> CodecImpls<'p> {
    pub(crate) fn codec_impl(&self, sid: StructId) -> Result<TokenStream, Internal> {
        let s = &self.c.p.structs[sid];
        let name = ident(&s.name);
        let lt = self.c.lifetime(sid);
        let (impl_lt, in_lt) = (quote! { <'a> }, quote! { 'a });
        let (rd, wr) = super::reader_writer(s.layout);
        let plan = &self.c.l.structs[sid];
        let start = ident(&plan.start);
        let bound = |fi: usize, pos: TokenStream| self.range_bound_locals(sid, fi, pos);
        // Padding and alignment, from the start of the struct.
        let pad_name = naming::padding_abbrev(self.c.p);
        let mut reads = Vec::new();
        for fi in 0..s.fields.len() {
            let read = self.c.decoder().read_field(sid, fi)?;
            let (range_start, range_end) = bound(fi, quote! { r.pos() });
            let Padding { pad, align } = s.fields[fi].padding;
            let nm = &s.fields[fi].name;
            let align = align.map(|n| quote! { r.align(#start, #n, #pad_name, #nm)?; });
            let (limit, pad) = padded_read(pad, nm, &pad_name, &ident(&plan.padded));
            let (open, close) = self.group_read(sid, fi);
            reads.push(quote! { #open #align #range_start #limit #read #pad #range_end #close });
        }
        let (struct_limit, struct_pad) =
            padded_read(s.padding.pad, "padding", &pad_name, &ident(&plan.padded));
        let struct_align = s
            .padding
            .align
            .map(|n| quote! { r.align(#start, #n, #pad_name, "padding")?; });
        let (checksum_checks, status_notes) = self.checksum_checks(sid);
        let build: Vec<TokenStream> = s
            .value_fields()
            .map(|(_, f)| {
                let n = ident(&f.name);
                quote! { #n }
            })
            .collect();
        let writes = self.field_writes(sid)?;
        let struct_padding = {
            let pad = s
                .padding
                .pad
                .map(|n| quote! { w.pad(#start, #n, "padding")?; });
            let align = s.padding.align.map(|n| quote! { w.align(#start, #n); });
            quote! { #pad #align }
        };
        let checksum_patches = self.checksum_patches(sid);
        // The start of the struct: what its checksums cover unless they name a first field,
        // where alignment counts from, and (encoding) what a padded struct pads.
        let from_start = s
            .fields
            .iter()
            .any(|f| matches!(f.role, Role::Checksum(c) if c.from.is_none()))
            || s.padding.align.is_some()
            || s.fields.iter().any(|f| f.padding.align.is_some());
        let read_start = from_start.then(|| quote! { let #start = r.pos(); });
        let write_start =
            (from_start || s.padding.pad.is_some()).then(|| quote! { let #start = w.len(); });
        // An extension notes the fields of the types it takes from its base crate under its own
        // names.
        let own_notes = (self.c.p.base.is_some() && self.c.reuse.any()).then(|| {
            quote! {
                fn own_notes(notes: Vec<FieldNote<#in_lt>>) -> Vec<FieldNote<#in_lt>> {
                    own_notes(notes)
                }
            }
        });
        let type_name = &s.name;
        // A fixed size is allocated exactly; other sizes are remembered from the last encoding.
        let size = match self.c.l.structs[sid].fixed_size {
            Some(n) => {
                let n = lit_usize(n);
                quote! { const ENCODED_SIZE: Option<usize> = Some(#n); }
            }
            None => quote! { wiregen_runtime::encoding_size_hint!(); },
        };
        // A type of no fields (OpenTTD's MAP_DONE) reads and writes nothing.
        let (r, w) = if s.fields.is_empty() && s.padding.pad.is_none() {
            (format_ident!("_r"), format_ident!("_w"))
        } else {
            (format_ident!("r"), format_ident!("w"))
        };
        Ok(quote! {
            impl #impl_lt Codec<#in_lt> for #name #lt {
                const NAME: &'static str = #type_name;
                type Reader<T: Trace<#in_lt>> = #rd<#in_lt, T>;
                type Writer<'o> = #wr<'o>;

                #size

                fn read<T: Trace<#in_lt>>(#r: &mut #rd<#in_lt, T>) -> Result<Self, DecodeError> {
                    #read_start
                    #struct_limit
                    #(#reads)*
                    #struct_pad
                    #struct_align
                    #(#checksum_checks)*
                    #(#status_notes)*
                    Ok(Self { #(#build),* })
                }

                fn write(&self, #w: &mut #wr<'_>) -> Result<(), EncodeError> {
                    #write_start
                    #(#writes)*
                    #struct_padding
                    #(#checksum_patches)*
                    Ok(())
                }

                #own_notes
            }

        })
    }

    /// Where checksum ranges that name field `fi` start or end: the position (`pos`) kept
    /// before or after it.
    fn range_bound_locals(
        &self,
        sid: StructId,
        fi: usize,
        pos: TokenStream,
    ) -> (Option<TokenStream>, Option<TokenStream>) {
        let s = &self.c.p.structs[sid];
        let (starts, ends) = crate::lower::analysis::checksum_bounds(&s.fields);
        let locals = &self.c.l.structs[sid].fields[fi].locals;
        let start = starts.contains(&fi).then(|| {
            let l = ident(&locals.range_start);
            quote! { let #l = #pos; }
        });
        let end = ends.contains(&fi).then(|| {
            let l = ident(&locals.range_end);
            quote! { let #l = #pos; }
        });
        (start, end)
    }

    /// Each field written, with its alignment, padding, bit group and checksum bounds.
    fn field_writes(&self, sid: StructId) -> Result<Vec<TokenStream>, Internal> {
        let s = &self.c.p.structs[sid];
        let plan = &self.c.l.structs[sid];
        let start = ident(&plan.start);
        let mut writes = Vec::new();
        for fi in 0..s.fields.len() {
            let write = self.c.encoder().write_field(sid, fi)?;
            let (range_start, range_end) = self.range_bound_locals(sid, fi, quote! { w.len() });
            let Padding { pad, align } = s.fields[fi].padding;
            let nm = &s.fields[fi].name;
            let align = align.map(|n| quote! { w.align(#start, #n); });
            let padded = ident(&plan.padded);
            let (from, pad) = match pad {
                Some(n) => (
                    Some(quote! { let #padded = w.len(); }),
                    Some(quote! { w.pad(#padded, #n, #nm)?; }),
                ),
                None => (None, None),
            };
            let (open, close) = self.group_write(sid, fi);
            writes.push(quote! { #open #align #range_start #from #write #pad #range_end #close });
        }
        Ok(writes)
    }

    /// After a struct's fields are read: each checksum compared with the bytes it covers, and
    /// the status notes the dissector shows, in the order they are inserted.
    fn checksum_checks(&self, sid: StructId) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let s = &self.c.p.structs[sid];
        let plan = &self.c.l.structs[sid];
        let checksum_checks = s.fields.iter().enumerate().filter_map(|(fi, f)| match f.role {
        Role::Checksum(c) => {
            let v = ident(&f.name);
            let at = ident(&plan.fields[fi].locals.at);
            let nm = &f.name;
            let n = lit_usize(match &f.ty { Ty::Int(it) => it.bytes(), _ => 0 });
            let (from, to) = range_locals(plan, c, quote! { r.pos() });
            // Its own bytes count as zeros when the range covers them.
            let parts = if c.covers(fi) {
                quote! { &[r.slice(#from, #at), &[0u8; #n], r.slice(#at + #n, #to)] }
            } else {
                quote! { &[r.slice(#from, #to)] }
            };
            let computed = checksum_call(c.algo, parts);
            let status = format!("{}.status", naming::abbrev(self.c.p, sid, fi));
            let note_index = ident(&plan.fields[fi].locals.note);
            let computed_local = self.c.temp(sid, "computed");
            let computed_init = field_init("computed", &computed_local);
            Some((
                quote! {
                    let #computed_local = #computed;
                    if #computed_local != #v as u64 {
                        let kind = DecodeErrorKind::BadChecksum { stored: #v as u64, #computed_init };
                        return Err(r.error(#nm, #at, kind));
                    }
                },
                quote! { r.insert_note(#note_index, #status, #at, #n, Value::U(1)); },
            ))
        }
        _ => None,
    });
        // Each status note goes after its checksum's own: the last first, so that inserting
        // one does not move where the others go.
        let (checksum_checks, mut status_notes): (Vec<_>, Vec<_>) = checksum_checks.unzip();
        status_notes.reverse();
        (checksum_checks, status_notes)
    }

    /// After a struct is written: each checksum over the bytes written (its own still zero),
    /// one that covers another after that one.
    fn checksum_patches(&self, sid: StructId) -> Vec<TokenStream> {
        let s = &self.c.p.structs[sid];
        let plan = &self.c.l.structs[sid];
        let order = &self.c.l.structs[sid].checksum_order;
        order
            .iter()
            .copied()
            .filter_map(|fi| {
                let f = &s.fields[fi];
                match (f.role.clone(), &f.ty) {
                    (Role::Checksum(c), Ty::Int(it)) => {
                        let at = ident(&plan.fields[fi].locals.at);
                        let (from, to) = range_locals(plan, c, quote! { w.len() });
                        let computed = checksum_call(c.algo, quote! { &[&w.buf[#from..#to]] });
                        let value = self.c.temp(sid, "value");
                        let put = uint_bytes(quote! { #value }, &format_ident!("u64"), it);
                        Some(quote! {
                            let #value = #computed;
                            w.patch(#at, &#put);
                        })
                    }
                    _ => None,
                }
            })
            .collect()
    }
}

impl<'p> CodecImpls<'p> {
    /// Around field `fi` when it starts or ends a bit group: the group's integer read once and
    /// a [`GroupReader`](wiregen_runtime::GroupReader) standing in for `r` while its fields
    /// are read (they read and note as in a bit stream), then the byte reader back.
    fn group_read(&self, sid: StructId, fi: usize) -> (TokenStream, TokenStream) {
        let s = &self.c.p.structs[sid];
        let Access::Group { group: gi, .. } = self.c.l.field(sid, fi).access else {
            return (quote! {}, quote! {});
        };
        let g = &s.groups[gi];
        let group = ident(&self.c.l.field(sid, fi).locals.group);
        let open = (g.fields.start == fi).then(|| {
            let (nm, abbrev) = (&g.name, naming::group_abbrev(self.c.p, sid, gi));
            let read = super::decode::read_int(&g.int, nm, false);
            let (n, high) = (lit_usize(g.int.bytes()), g.high_first);
            let raw = cast(quote! { raw }, &int_rust(&g.int), &format_ident!("u64"));
            // `at` and `raw` in a block of their own: they must not hide fields of those names.
            quote! {
                let mut #group = {
                    let at = r.pos();
                    let raw = #read;
                    r.note(#abbrev, at, Value::U(#raw));
                    GroupReader::new(r, #raw, at, #n, #high)
                };
                let r = &mut #group;
            }
        });
        // The byte reader back, unless nothing reads on: the group ends the type, which has no
        // padding after its fields and no checksum to check over them.
        let reads_on = fi + 1 < s.fields.len()
            || s.padding.pad.is_some()
            || s.padding.align.is_some()
            || s.fields.iter().any(|f| matches!(f.role, Role::Checksum(_)));
        let close =
            (g.fields.end == fi + 1 && reads_on).then(|| quote! { let r = #group.into_inner(); });
        (quote! { #open }, quote! { #close })
    }

    /// The same for encoding: the fields collected by a
    /// [`GroupWriter`](wiregen_runtime::GroupWriter) standing in for `w`, then its integer
    /// written.
    fn group_write(&self, sid: StructId, fi: usize) -> (TokenStream, TokenStream) {
        let s = &self.c.p.structs[sid];
        let Access::Group { group: gi, .. } = self.c.l.field(sid, fi).access else {
            return (quote! {}, quote! {});
        };
        let g = &s.groups[gi];
        let locals = &self.c.l.field(sid, fi).locals;
        let (group, outer) = (ident(&locals.group), ident(&locals.outer));
        let open = (g.fields.start == fi).then(|| {
            let (n, high) = (lit_usize(g.int.bytes()), g.high_first);
            quote! {
                let mut #group = GroupWriter::new(#n, #high);
                let #outer = w;
                let w = &mut #group;
            }
        });
        let close = (g.fields.end == fi + 1).then(|| {
            let put = uint_bytes(quote! { #group.raw() }, &format_ident!("u64"), &g.int);
            quote! {
                let w = #outer;
                w.put(&#put);
            }
        });
        (quote! { #open }, quote! { #close })
    }
}
