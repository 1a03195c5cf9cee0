//! Reassembly of pieces (fragments, chunks): `Whole`, `Reassembler`, `chunk`.

use super::*;

impl<'p> Gen<'p> {
    /// Joining pieces of payloads carried by root packets, and cutting payloads into packets.
    pub(crate) fn reassembly_module(&self) -> Result<TokenStream, Unsupported> {
        let p = self.p;
        let Some(r) = &p.reassembly else {
            return Ok(quote! {});
        };
        let root = p.root();
        let rt = ident(&root.name);
        let lt = if p.struct_borrows(p.root) {
            quote! { <'_> }
        } else {
            quote! {}
        };
        let lt_a = if p.struct_borrows(p.root) {
            quote! { <'a> }
        } else {
            quote! {}
        };
        let sid = p.root;
        let key_copies = key_copies(root, &r.key, "packet");
        // The key is used again after the entry is made: copied when every part is a scalar.
        let key_again = if r.key.iter().all(|k| root.fields[*k].ty.is_scalar()) {
            quote! { key }
        } else {
            quote! { key.clone() }
        };
        let key_types: Vec<TokenStream> = r
            .key
            .iter()
            .map(|k| self.rust_ty(sid, *k, &root.fields[*k].ty))
            .collect::<Result<_, _>>()?;
        let index = ident(&root.fields[r.index].name);
        let index_ty = self.rust_ty(sid, r.index, &root.fields[r.index].ty)?;
        let piece_field = &root.fields[r.field];
        let piece = ident(&piece_field.name);
        // Where a piece's bytes are: a bytes field, or the raw-bytes default of a switch.
        let (piece_get, piece_set) = match &piece_field.ty {
            Ty::Bytes(_) => (quote! { Some(&self.#piece[..]) }, None),
            Ty::Union(u) if u.default == Some(CaseBody::Bytes) => {
                let un = ident(&naming::union_type(p, sid, r.field));
                let other = ident(&u.default_variant);
                (
                    quote! { match &self.#piece { #un::#other { data, .. } => Some(&data[..]), _ => None } },
                    Some((un, other)),
                )
            }
            _ => {
                return Err(Unsupported(
                    "a reassembly 'field' is bytes or a switch whose default is bytes".into(),
                ))
            }
        };
        let when = match &r.when {
            Some(w) => self.expr_top(w, Ctx::Encode),
            None => quote! { true },
        };
        let piece_size = lit_usize(r.piece_size);
        let (count_fn, count_update) = match &r.end {
            PieceEnd::Last(e) => {
                let last = self.expr_top(e, Ctx::Encode);
                (
                    quote! {
                        /// Whether this packet carries the last piece of its payload.
                        pub fn is_last_piece(&self) -> bool { #last }
                    },
                    quote! { if packet.is_last_piece() { entry.count = Some(index + 1); } },
                )
            }
            PieceEnd::Count(f) => {
                let cf = ident(&root.fields[*f].name);
                let cname = root.fields[*f].name.as_str();
                (
                    quote! {},
                    quote! {
                        let count = packet.#cf as usize;
                        if entry.count.is_some_and(|n| n != count) || index >= count {
                            self.pending.remove(&key);
                            return Err(DecodeError::new(#cname, 0, DecodeErrorKind::BadLength { value: count as i128 }));
                        }
                        entry.count = Some(count);
                    },
                )
            }
        };
        // What the joined payload is, and how to read it.
        let mut decode_as = quote! {};
        let (whole_tag_decl, whole_tag_init, whole_methods) = match r.whole {
            WholeType::ByDirection { client, server } => {
                let ty = |id: StructId| {
                    let n = ident(&p.structs[id].name);
                    let t = if p.struct_borrows(id) {
                        quote! { #n<'_> }
                    } else {
                        quote! { #n }
                    };
                    (n, t)
                };
                let ((c, ct), (sv, st)) = (ty(client), ty(server));
                (
                    quote! {},
                    quote! {},
                    quote! {
                        #[doc = concat!(" Decodes a payload the client sent as `", stringify!(#c), "`.")]
                        pub fn client_message(&self) -> Result<#ct, DecodeError> { #c::decode(&self.data) }
                        #[doc = concat!(" Decodes a payload the server sent as `", stringify!(#sv), "`.")]
                        pub fn server_message(&self) -> Result<#st, DecodeError> { #sv::decode(&self.data) }
                    },
                )
            }
            WholeType::AsField(fi) => {
                let Ty::Union(u) = &root.fields[fi].ty else {
                    return Err(Unsupported("'as' must name a switch".into()));
                };
                let Some((_, tf)) = self.tag_field(sid, fi) else {
                    return Err(Unsupported(
                        "'as' needs a switch whose tag is a field".into(),
                    ));
                };
                let tn = ident(&tf.name);
                let tt = self.rust_ty(sid, 0, &tf.ty)?;
                let field = ident(&root.fields[fi].name);
                let un = ident(&naming::union_type(p, sid, fi));
                let ult = if self.p.union_borrows(u) {
                    quote! { <'_> }
                } else {
                    quote! {}
                };
                let (impl_a, self_a) = if self.p.union_borrows(u) {
                    (quote! { <'a> }, quote! { <'a> })
                } else {
                    (quote! { <'a> }, quote! {})
                };
                // The switch read over the whole payload, its tag given.
                let mut whole = (**u).clone();
                whole.len = Len::Natural;
                whole.unless = None;
                let read = self.read_union(
                    sid,
                    fi,
                    &whole,
                    &root.fields[fi].name,
                    &naming::abbrev(p, sid, fi),
                )?;
                let rd = if self.bits(sid) {
                    quote! { BitReader }
                } else {
                    quote! { Reader }
                };
                decode_as = quote! {
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
        // The chunker sets the index, the piece and what marks the pieces (a flag bit).
        let set_flag = |e: &Expr, on: TokenStream| self.set_flag_bit(sid, e, quote! { packet }, on);
        let end_set = match &r.end {
            PieceEnd::Last(e) => set_flag(e, quote! { i + 1 == count }),
            PieceEnd::Count(f) => {
                let cf = ident(&root.fields[*f].name);
                let ct = self.rust_ty(sid, *f, &root.fields[*f].ty)?;
                let cname = root.fields[*f].name.as_str();
                Some(quote! { packet.#cf = fit(count as u64, #ct::MAX as u64, #cname)? as #ct; })
            }
        };
        // A `when` that is one flag bit is set on every piece; any other is left to the template.
        let when_set = match &r.when {
            None => Some(quote! {}),
            Some(w) => set_flag(w, quote! { true }).or(Some(quote! {})),
        };
        let piece_put = match &piece_set {
            None => quote! { packet.#piece = Cow::Owned(data.to_vec()); },
            Some((un, other)) => {
                let tag = match r.whole {
                    WholeType::AsField(fi) => {
                        self.tag_field(sid, fi).map(|(_, tf)| ident(&tf.name))
                    }
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
                let nt = self.rust_ty(sid, fi, &f.ty)?;
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
        let chunker = match (end_set, when_set) {
            (Some(end_set), Some(when_set)) => quote! {
                /// Cuts `payload` into packets carrying at most `piece_size` bytes each (the size the
                /// peers agreed on; [`PIECE_SIZE`] by default): copies of `template` with the index,
                /// what marks the pieces, and the piece set.
                #( #[doc = #number_doc] )*
                pub fn chunk<'a>(template: &#rt #lt_a, payload: &[u8], piece_size: usize) -> Result<Vec<#rt #lt_a>, EncodeError> {
                    if piece_size == 0 {
                        return Err(EncodeError::new("piece_size", EncodeErrorKind::TooSmall { value: 0 }));
                    }
                    let pieces: Vec<&[u8]> = if payload.is_empty() { vec![&[][..]] } else { payload.chunks(piece_size).collect() };
                    let count = pieces.len();
                    let mut out = Vec::with_capacity(count);
                    for (i, data) in pieces.into_iter().enumerate() {
                        let mut packet = template.clone();
                        let raw = fit(i as u64, #index_ty::MAX as u64, stringify!(#index))?;
                        packet.#index = raw as #index_ty;
                        #number_set
                        #end_set
                        #when_set
                        #piece_put
                        out.push(packet);
                    }
                    Ok(out)
                }
            },
            _ => quote! {},
        };
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
            /// order; a payload is complete when every piece up to the last one arrived.
            /// Limits bound what a peer can make it hold: past `max_pending` payloads the one
            /// begun first is dropped to make room (counted by [`Reassembler::evicted`]), so
            /// payloads that never complete cannot stop later ones from being joined.
            #[derive(Debug)]
            pub struct Reassembler {
                pending: std::collections::HashMap<(bool, #(#key_types,)*), Pending>,
                /// Payloads being joined at once.
                pub max_pending: usize,
                /// Bytes of one payload.
                pub max_len: usize,
                /// Pieces pushed so far: a payload's age.
                pushes: u64,
                evicted: u64,
            }

            #[derive(Debug, Default)]
            struct Pending {
                parts: std::collections::BTreeMap<usize, Vec<u8>>,
                count: Option<usize>,
                len: usize,
                /// When its first piece came (in pushes).
                since: u64,
            }

            impl Default for Reassembler {
                fn default() -> Self {
                    Reassembler { pending: Default::default(), max_pending: 1024, max_len: 256 * PIECE_SIZE, pushes: 0, evicted: 0 }
                }
            }

            impl Reassembler {
                pub fn new() -> Self {
                    Self::default()
                }

                /// Adds a packet; returns the whole payload when this packet completes one.
                pub fn push(&mut self, from_client: bool, packet: &#rt #lt) -> Result<Option<Whole>, DecodeError> {
                    let Some(piece) = packet.piece().filter(|_| packet.is_piece()) else {
                        return Ok(None);
                    };
                    let key = (from_client, #(#key_copies,)*);
                    self.pushes += 1;
                    if !self.pending.contains_key(&key) && self.pending.len() >= self.max_pending.max(1) {
                        // Full: the payload begun first makes room (a linear scan, only when full).
                        let oldest = self.pending.iter().min_by_key(|(_, p)| p.since).map(|(k, _)| *k);
                        if let Some(oldest) = oldest {
                            self.pending.remove(&oldest);
                            self.evicted += 1;
                        }
                    }
                    let index = packet.#index as usize;
                    let since = self.pushes;
                    let entry = self.pending.entry(#key_again).or_insert_with(|| Pending { since, ..Default::default() });
                    match entry.parts.get(&index) {
                        // A retransmission: nothing new.
                        Some(old) if old.as_slice() == piece => return Ok(None),
                        // Other bytes under the same index: the first are kept, the conflict reported.
                        Some(_) => return Err(DecodeError::new(stringify!(#index), 0, DecodeErrorKind::ConflictingPiece { index: index as u64 })),
                        None => {}
                    }
                    entry.parts.insert(index, piece.to_vec());
                    entry.len += piece.len();
                    if entry.len > self.max_len {
                        let len = entry.len;
                        self.pending.remove(&key);
                        return Err(DecodeError::new(stringify!(#piece), 0, DecodeErrorKind::TooLarge { value: len as u64, max: self.max_len as u64 }));
                    }
                    #count_update
                    let Some(entry) = self.pending.get(&key) else { return Ok(None) };
                    let complete = entry.count.is_some_and(|n| (0..n).all(|i| entry.parts.contains_key(&i)));
                    if !complete {
                        return Ok(None);
                    }
                    let entry = self.pending.remove(&key).unwrap_or_default();
                    let n = entry.count.unwrap_or(0);
                    let data = entry.parts.into_iter().filter(|(i, _)| *i < n).flat_map(|(_, part)| part).collect();
                    Ok(Some(Whole { from_client, data, #whole_tag_init }))
                }

                /// Payloads still waiting for pieces.
                pub fn pending(&self) -> usize {
                    self.pending.len()
                }

                /// Incomplete payloads dropped so far to stay within `max_pending`.
                pub fn evicted(&self) -> u64 {
                    self.evicted
                }
            }
        })
    }
}
