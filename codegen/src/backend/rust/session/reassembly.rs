//! Reassembly of pieces (fragments, chunks): `Whole`, `Reassembler`, `chunk`.

use super::*;

/// Renders the `reassembly` module: the chunker and the whole's reassembly.
#[derive(Clone, Copy)]
pub(crate) struct ReassemblyModule<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> ReassemblyModule<'p> {
    /// Joining pieces of payloads carried by root packets, and cutting payloads into packets.
    pub(crate) fn reassembly_module(&self) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let Some(r) = &p.reassembly else {
            return Ok(quote! {});
        };
        let root = p.root();
        let rt = ident(&root.name);
        let lt = if self.c.l.borrows[p.root] {
            quote! { <'_> }
        } else {
            quote! {}
        };
        let lt_a = if self.c.l.borrows[p.root] {
            quote! { <'a> }
        } else {
            quote! {}
        };
        let sid = p.root;
        let key_copies = key_copies(root, &r.key, "packet");
        let key_types: Vec<TokenStream> = r
            .key
            .iter()
            .map(|k| self.c.types().rust_ty(sid, *k, &root.fields[*k].ty))
            .collect::<Result<_, _>>()?;
        let index = ident(&root.fields[r.index].name);
        let piece_field = &root.fields[r.field];
        let (index_name, piece_name) = (
            root.fields[r.index].name.as_str(),
            piece_field.name.as_str(),
        );
        let (piece_get, piece_set) = self.piece_access(r)?;
        let when = match &r.when {
            Some(w) => self.c.exprs().expr_top(w, Ctx::Value),
            None => quote! { true },
        };
        let piece_size = lit_usize(r.piece_size);
        let uses_last = matches!(r.whole, WholeType::AsField(_));
        let last = if uses_last {
            quote! { packet }
        } else {
            quote! { _packet }
        };
        let (count_fn, piece_end, count_name) = self.piece_end(r);
        let WholeParts {
            decode_as,
            decl: whole_tag_decl,
            init: whole_tag_init,
            methods: whole_methods,
        } = self.whole_parts(r)?;
        let chunker = self.chunker(r, &piece_set)?;
        Ok(quote! {
            /// Largest piece a sender puts in one packet.
            pub const PIECE_SIZE: usize = #piece_size;

            impl #rt #lt {
                /// Whether this packet carries a piece of a payload.
                pub fn is_piece(&self) -> bool {
                    #when
                }

                /// The piece this packet carries.
                pub fn piece(&self) -> Option<&[u8]> {
                    #piece_get
                }

                #count_fn
            }

            #chunker
            #decode_as

            /// A payload joined from its pieces, and which side sent it.
            #[derive(Debug, Clone, PartialEq)]
            pub struct Whole {
                pub from_client: bool,
                pub data: Vec<u8>,
                #whole_tag_decl
            }

            impl Whole {
                #whole_methods
            }

            /// Joins the pieces of payloads of one conversation, per direction and key, in any
            /// order, within limits (see [`wiregen_runtime::Reassembler`]).
            pub type Reassembler = wiregen_runtime::Reassembler<Protocol>;

            impl wiregen_runtime::Fragmented for Protocol {
                type Key = (bool, #(#key_types,)*);
                type Packet<'a> = #rt #lt_a;
                type Whole = Whole;
                const INDEX_FIELD: &'static str = #index_name;
                const COUNT_FIELD: &'static str = #count_name;
                const PIECE_FIELD: &'static str = #piece_name;
                const PIECE_SIZE: usize = PIECE_SIZE;
                fn piece<'p>(from_client: bool, packet: &'p #rt #lt) -> Option<wiregen_runtime::Piece<'p, Self::Key>> {
                    let data = packet.piece().filter(|_| packet.is_piece())?;
                    Some(wiregen_runtime::Piece {
                        key: (from_client, #(#key_copies,)*),
                        index: packet.#index as usize,
                        data,
                        end: #piece_end,
                    })
                }
                fn whole(from_client: bool, data: Vec<u8>, #last: &#rt #lt) -> Whole {
                    Whole { from_client, data, #whole_tag_init }
                }
            }
        })
    }

    /// How a payload's end is told: a method saying a packet carries the last piece (none when
    /// a count says how many), the runtime's `PieceEnd` of a packet, and the field it reads.
    fn piece_end(&self, r: &Reassembly) -> (TokenStream, TokenStream, String) {
        let root = self.c.p.root();
        let piece_field = &root.fields[r.field];
        match &r.end {
            PieceEnd::Last(e) => {
                let last = self.c.exprs().expr_top(e, Ctx::Value);
                (
                    quote! {
                        /// Whether this packet carries the last piece of its payload.
                        pub fn is_last_piece(&self) -> bool { #last }
                    },
                    quote! { wiregen_runtime::PieceEnd::Last(packet.is_last_piece()) },
                    piece_field.name.clone(),
                )
            }
            PieceEnd::Count(f) => {
                let cf = ident(&root.fields[*f].name);
                (
                    quote! {},
                    quote! { wiregen_runtime::PieceEnd::Count(packet.#cf as usize) },
                    root.fields[*f].name.clone(),
                )
            }
        }
    }

    /// Where a piece's bytes are: a bytes field, or the raw-bytes default of a switch (then
    /// also the switch and its variant, which `chunk` sets).
    fn piece_access(
        &self,
        r: &Reassembly,
    ) -> Result<(TokenStream, Option<(Ident, Ident)>), Internal> {
        let (p, sid) = (self.c.p, self.c.p.root);
        let root = p.root();
        let piece = ident(&root.fields[r.field].name);
        Ok(match &root.fields[r.field].ty {
            Ty::Bytes(_) => (quote! { Some(&self.#piece[..]) }, None),
            Ty::Union(u) if u.default == Some(CaseBody::Bytes) => {
                let un = ident(&p.union_name(sid, r.field));
                let other = variant_ident(&u.default_variant);
                (
                    quote! { match &self.#piece { #un::#other { data, .. } => Some(&data[..]), _ => None } },
                    Some((un, other)),
                )
            }
            _ => {
                return Err(Internal(
                    "a reassembly 'field' is bytes or a switch whose default is bytes".into(),
                ))
            }
        })
    }

    /// What the joined payload is, and how to read it (from the packet that completed it).
    fn whole_parts(&self, r: &Reassembly) -> Result<WholeParts, Internal> {
        let p = self.c.p;
        let (sid, root) = (p.root, p.root());
        let mut decode_as = quote! {};
        let (decl, init, methods) = match r.whole {
            WholeType::ByDirection { client, server } => {
                let ty = |id: StructId| {
                    let n = ident(&p.structs[id].name);
                    let t = if self.c.l.borrows[id] {
                        quote! { #n<'_> }
                    } else {
                        quote! { #n }
                    };
                    (n, t)
                };
                let ((c, ct), (sv, st)) = (ty(client), ty(server));
                (quote! {}, quote! {}, {
                    let client_doc =
                        doc_prose(&format!("Decodes a payload the client sent as [`{c}`]."));
                    let server_doc =
                        doc_prose(&format!("Decodes a payload the server sent as [`{sv}`]."));
                    quote! {
                        #client_doc
                        pub fn client_message(&self) -> Result<#ct, DecodeError> { #c::decode(&self.data) }
                        #server_doc
                        pub fn server_message(&self) -> Result<#st, DecodeError> { #sv::decode(&self.data) }
                    }
                })
            }
            WholeType::AsField(fi) => {
                let Ty::Union(u) = &root.fields[fi].ty else {
                    return Err(Internal("'as' must name a switch".into()));
                };
                let Some((_, tf)) = self.c.types().tag_field(sid, fi) else {
                    return Err(Internal("'as' needs a switch whose tag is a field".into()));
                };
                let tn = ident(&tf.name);
                let tt = self.c.types().rust_ty(sid, 0, &tf.ty)?;
                let field = ident(&root.fields[fi].name);
                let un = ident(&p.union_name(sid, fi));
                let ult = if self.c.l.union_borrows(u) {
                    quote! { <'_> }
                } else {
                    quote! {}
                };
                let (impl_a, self_a) = if self.c.l.union_borrows(u) {
                    (quote! { <'a> }, quote! { <'a> })
                } else {
                    (quote! { <'a> }, quote! {})
                };
                // The switch read over the whole payload, its tag given.
                let mut whole = (**u).clone();
                whole.len = Len::Natural;
                whole.unless = None;
                let (nm, abbrev) = (&root.fields[fi].name, naming::abbrev(p, sid, fi));
                let rd = if self.c.bits(sid) {
                    quote! { BitReader }
                } else {
                    quote! { Reader }
                };
                decode_as = if self.c.l.shared_switch == Some((sid, fi)) {
                    // One function reads the packet's switch and the whole.
                    let (matched, _) = self
                        .c
                        .decoder()
                        .switch_match(sid, fi, &whole, nm, &abbrev)?;
                    quote! {
                        impl #impl_a #un #self_a {
                            /// Decodes a value of this switch from `data` (all of it) with the tag given.
                            pub fn decode_as(#tn: #tt, data: &'a [u8]) -> Result<Self, DecodeError> {
                                let mut r = #rd::<NoTrace>::new(data);
                                let v = Self::read_as(&mut r, #tn)?;
                                r.finish()?;
                                Ok(v)
                            }

                            /// Reads a value of this switch (to the end of `r`) with the tag given.
                            fn read_as<T: Trace<'a>>(r: &mut #rd<'a, T>, #tn: #tt) -> Result<Self, DecodeError> {
                                Ok(#matched)
                            }
                        }
                    }
                } else {
                    let read = self.c.decoder().read_union(sid, fi, &whole, nm, &abbrev)?;
                    quote! {
                        impl #impl_a #un #self_a {
                            /// Decodes a value of this switch from `data` (all of it) with the tag given.
                            pub fn decode_as(#tn: #tt, data: &'a [u8]) -> Result<Self, DecodeError> {
                                let mut reader = #rd::<NoTrace>::new(data);
                                let r = &mut reader;
                                let v = #read;
                                r.finish()?;
                                Ok(v)
                            }
                        }
                    }
                };
                (
                    quote! { #[doc = " The tag of the packets that carried it."] pub #tn: #tt, },
                    quote! { #tn: packet.#field.#tn(), },
                    quote! {
                        /// Decodes the payload with the switch of a whole message, by its tag.
                        pub fn payload(&self) -> Result<#un #ult, DecodeError> { #un::decode_as(self.#tn, &self.data) }
                    },
                )
            }
        };
        Ok(WholeParts {
            decode_as,
            decl,
            init,
            methods,
        })
    }

    /// `chunk`: cuts a payload into copies of a template packet, setting the index, what marks
    /// the pieces (a flag bit) and the piece; none when the pieces' marks cannot be set.
    fn chunker(
        &self,
        r: &Reassembly,
        piece_set: &Option<(Ident, Ident)>,
    ) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let (sid, root) = (p.root, p.root());
        let rt = ident(&root.name);
        let lt_a = if self.c.l.borrows[p.root] {
            quote! { <'a> }
        } else {
            quote! {}
        };
        let piece = ident(&root.fields[r.field].name);
        let index = ident(&root.fields[r.index].name);
        let index_ty = self
            .c
            .types()
            .rust_ty(sid, r.index, &root.fields[r.index].ty)?;
        let index_name = root.fields[r.index].name.as_str();
        // The chunker sets the index, the piece and what marks the pieces (a flag bit).
        let set_flag = |e: &Expr, on: Option<TokenStream>| {
            self.c.types().set_flag_bit(sid, e, quote! { packet }, on)
        };
        let end_set = match &r.end {
            PieceEnd::Last(e) => set_flag(e, Some(quote! { i + 1 == count })),
            PieceEnd::Count(f) => {
                let cf = ident(&root.fields[*f].name);
                let ct = self.c.types().rust_ty(sid, *f, &root.fields[*f].ty)?;
                let cname = root.fields[*f].name.as_str();
                Some(quote! { packet.#cf = fit(count as u64, #ct::MAX as u64, #cname)? as #ct; })
            }
        };
        // A `when` that is one flag bit is set on every piece; any other is left to the template.
        let when_set = match &r.when {
            None => Some(quote! {}),
            Some(w) => set_flag(w, None).or(Some(quote! {})),
        };
        let piece_put = match &piece_set {
            None => quote! { packet.#piece = Cow::Owned(data.to_vec()); },
            Some((un, other)) => {
                let tag = match r.whole {
                    WholeType::AsField(fi) => self
                        .c
                        .types()
                        .tag_field(sid, fi)
                        .map(|(_, tf)| ident(&tf.name)),
                    _ => None,
                };
                match tag {
                    Some(tn) => {
                        quote! { packet.#piece = #un::#other { #tn: template.#piece.#tn(), data: Cow::Owned(data.to_vec()) }; }
                    }
                    None => quote! { packet.#piece = #un::#other(Cow::Owned(data.to_vec())); },
                }
            }
        };
        // Packets numbered one by one get consecutive numbers from the template's.
        let (number_doc, number_set) = match r.numbered {
            Some(fi) => {
                let f = &root.fields[fi];
                let nf = ident(&f.name);
                let nt = self.c.types().rust_ty(sid, fi, &f.ty)?;
                (
                    vec![format!(
                        " Each packet gets its own `{0}`, from the template's on (wrapping).",
                        f.name
                    )],
                    quote! { packet.#nf = template.#nf.wrapping_add(i as #nt); },
                )
            }
            None => (Vec::new(), quote! {}),
        };
        Ok(match (end_set, when_set) {
            (Some(end_set), Some(when_set)) => quote! {
                /// Cuts `payload` into packets carrying at most `piece_size` bytes each (the size the
                /// peers agreed on; [`PIECE_SIZE`] by default): copies of `template` with the index,
                /// what marks the pieces, and the piece set.
                #( #[doc = #number_doc] )*
                pub fn chunk<'a>(template: &#rt #lt_a, payload: &[u8], piece_size: usize) -> Result<Vec<#rt #lt_a>, EncodeError> {
                    wiregen_runtime::split(payload, piece_size, |i, count, data| {
                        let mut packet = template.clone();
                        packet.#index = fit(i as u64, #index_ty::MAX as u64, #index_name)? as #index_ty;
                        #number_set
                        #end_set
                        #when_set
                        #piece_put
                        Ok(packet)
                    })
                }
            },
            _ => quote! {},
        })
    }
}

impl ReassemblyModule<'_> {
    /// `ArbitraryProtocol::arbitrary_pieces`: an arbitrary whole of the sender's type cut by
    /// `chunk` into copies of an arbitrary packet, pieces of an arbitrary size (when the crate has `chunk` and the whole's
    /// type goes by direction; a whole read with the packets' switch is not cut this way).
    pub(crate) fn arbitrary_pieces(&self) -> TokenStream {
        let p = self.c.p;
        let Some(r) = &p.reassembly else {
            return quote! {};
        };
        let WholeType::ByDirection { client, server } = r.whole else {
            return quote! {};
        };
        if !matches!(self.chunker(r, &None), Ok(chunk) if !chunk.is_empty()) {
            return quote! {};
        }
        let (cn, sn) = (
            ident(&p.structs[client].name),
            ident(&p.structs[server].name),
        );
        let rt = ident(&p.root().name);
        let encode = if self.c.l.reads_direction[p.root] {
            quote! { packet.encode_from(from_client) }
        } else {
            quote! { packet.encode() }
        };
        quote! {
            fn arbitrary_pieces(u: &mut arbitrary::Unstructured<'_>, from_client: bool) -> arbitrary::Result<Result<Vec<Vec<u8>>, EncodeError>> {
                let whole = if from_client {
                    <#cn as arbitrary::Arbitrary>::arbitrary(u)?.encode()
                } else {
                    <#sn as arbitrary::Arbitrary>::arbitrary(u)?.encode()
                };
                let whole = match whole {
                    Ok(whole) => whole,
                    Err(e) => return Ok(Err(e)),
                };
                let template = <#rt as arbitrary::Arbitrary>::arbitrary(u)?;
                // Pieces of any size the peers may agree on: payloads of one to 16 pieces.
                let fewest = whole.len().div_ceil(16).clamp(1, PIECE_SIZE);
                let piece_size = u.int_in_range(fewest..=whole.len().clamp(fewest, PIECE_SIZE))?;
                let packets = match chunk(&template, &whole, piece_size) {
                    Ok(packets) => packets,
                    Err(e) => return Ok(Err(e)),
                };
                // A packet whose other fields the reassembly's `when` refuses carries no piece.
                if !packets.iter().all(|packet| packet.is_piece()) {
                    return Err(arbitrary::Error::IncorrectFormat);
                }
                Ok(packets.iter().map(|packet| #encode).collect())
            }
        }
    }
}

/// The joined payload's parts of `Whole`: a tag field (its declaration and how the last packet
/// gives it), its decode methods, and the switch's `decode_as` they call.
struct WholeParts {
    decode_as: TokenStream,
    decl: TokenStream,
    init: TokenStream,
    methods: TokenStream,
}
