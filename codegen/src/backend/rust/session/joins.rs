//! Sequence joins: joined payloads, joiners and splitters.

use super::*;

/// Renders the `joins` module: sequence joins and stream joiners.
#[derive(Clone, Copy)]
pub(crate) struct JoinsModule<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> JoinsModule<'p> {
    /// Per sequence join: the joined payload, a joiner, and a splitter.
    pub(crate) fn joins_module(&self) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let mut out = Vec::new();
        for j in &p.joins {
            out.push(self.sequence_join(j)?);
        }
        for j in &p.stream_joins {
            out.push(self.stream_joiner(j));
        }
        Ok(quote! { #(#out)* })
    }

    /// One sequence join: the part markers, the joined payload and its decoders, the joiner
    /// and the splitter.
    fn sequence_join(&self, j: &Join) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let sid = j.in_struct;
        let s = &p.structs[sid];
        let st = ident(&s.name);
        let st_anon = self.c.ty_anon(sid);
        let jn = format_ident!("{}Joined", s.name);
        let size = lit_usize(j.piece_size);
        let names = self.join_names(j)?;
        let JoinNames {
            split,
            part_size,
            seq_ty,
            streams,
            ..
        } = &names;
        let first = self.c.exprs().expr_top(&j.first, Ctx::Value);
        let last = self.c.exprs().expr_top(&j.last, Ctx::Value);
        let key = self.join_key(j)?;
        let JoinKey {
            names: key_names,
            types: key_types,
            ..
        } = &key;
        let decoders = self.joined_decoders(sid, &j.streams, &jn);
        let size_doc = doc_prose(&format!(
            "Largest data (all streams together) [`{split}`] puts in one part."
        ));
        let joined_doc = doc_prose(&format!("A payload joined from [`{st}`] parts."));
        let joiner = self.joiner(j, &names, &key)?;
        let splitter = self.join_splitter(j)?;
        Ok(quote! {
            #size_doc
            pub const #part_size: usize = #size;

            impl #st_anon {
                /// Whether this is the first part of a payload.
                pub fn is_first_part(&self) -> bool { #first }
                /// Whether this is the last part of a payload.
                pub fn is_last_part(&self) -> bool { #last }
            }

            #joined_doc
            #[derive(Debug, Clone, PartialEq, Eq)]
            pub struct #jn {
                #( pub #key_names: #key_types, )*
                /// Sequence number of the first part.
                pub first: #seq_ty,
                /// How many parts it was joined from.
                pub parts: usize,
                #( pub #streams: Vec<u8>, )*
            }

            #decoders

            #joiner

            #splitter
        })
    }

    /// A join's key: the part's own fields, and those of enclosing values the caller gives
    /// (`Command.channel_id`, read where the part sits in its datagram).
    fn join_key(&self, j: &Join) -> Result<JoinKey, Internal> {
        let p = self.c.p;
        let sid = j.in_struct;
        let names: Vec<Ident> = j.key.iter().map(|r| ident(&r.name)).collect();
        let copies = j
            .key
            .iter()
            .zip(&names)
            .map(|(r, n)| {
                if r.struct_id == sid {
                    copy_of(quote! { part.#n }, &p.structs[sid].fields[r.field].ty)
                } else {
                    quote! { #n }
                }
            })
            .collect();
        let types: Vec<TokenStream> = j
            .key
            .iter()
            .map(|r| self.c.types().rust_ty(r.struct_id, r.field, &p.field(r).ty))
            .collect::<Result<_, _>>()?;
        let (outer_names, outer_params) = j
            .key
            .iter()
            .zip(names.iter().zip(&types))
            .filter(|(r, _)| r.struct_id != sid)
            .map(|(_, (n, t))| (n.clone(), quote! { #n: #t, }))
            .unzip();
        Ok(JoinKey {
            names,
            copies,
            types,
            outer_names,
            outer_params,
        })
    }

    /// A sequence join's joiner: the runtime's `SequenceJoiner` over the part's type.
    fn joiner(&self, j: &Join, names: &JoinNames, key: &JoinKey) -> Result<TokenStream, Internal> {
        let s = &self.c.p.structs[j.in_struct];
        let st = ident(&s.name);
        let st_anon = self.c.ty_anon(j.in_struct);
        let jn = format_ident!("{}Joined", s.name);
        let joiner = format_ident!("{}Joiner", s.name);
        let JoinNames {
            wrap,
            seq_u64,
            first_seq,
            seq_nm,
            streams,
            n_streams,
            ..
        } = names;
        let JoinKey {
            names: key_names,
            copies: key_copies,
            types: key_types,
            outer_names,
            outer_params,
        } = key;
        let key_ty = quote! { (#(#key_types,)*) };
        let joiner_doc = doc_prose(&format!(
            "Joins the parts of [`{st}`] payloads sent in one direction of a conversation \
             (keep one joiner per direction); its limits and counters are the \
             [`SequenceJoiner`](wiregen_runtime::SequenceJoiner)'s it derefs to."
        ));
        Ok(quote! {
            #joiner_doc
            #[derive(Debug)]
            pub struct #joiner(wiregen_runtime::SequenceJoiner<#key_ty, #n_streams>);

            impl Default for #joiner {
                fn default() -> Self {
                    Self::new()
                }
            }

            impl #joiner {
                pub fn new() -> Self {
                    Self(wiregen_runtime::SequenceJoiner::new(#wrap))
                }

                /// Adds a part; returns the payload when this part completes one.
                pub fn push(&mut self, part: &#st_anon, #(#outer_params)*) -> Result<Option<#jn>, DecodeError> {
                    Ok(self.push_tagged(part, #(#outer_names,)* 0)?.map(|(joined, _)| joined))
                }

                /// [`push`](Self::push), with a tag of the caller's for the part (a capture's
                /// frame number): a payload comes with the tags of its parts, in order.
                pub fn push_tagged(&mut self, part: &#st_anon, #(#outer_params)* tag: u64) -> Result<Option<wiregen_runtime::Tagged<#jn>>, DecodeError> {
                    let numbered = wiregen_runtime::SequencePart {
                        key: (#(#key_copies,)*),
                        seq: #seq_u64,
                        first: part.is_first_part(),
                        last: part.is_last_part(),
                        data: [#(part.#streams.to_vec()),*],
                    };
                    let joined = self.0.push_tagged(numbered, #seq_nm, tag)?;
                    Ok(joined.map(|wiregen_runtime::Joined { key: (#(#key_names,)*), first, parts, streams: [#(#streams),*], tags }| {
                        (#jn { #(#key_names,)* #first_seq, parts, #(#streams,)* }, tags)
                    }))
                }
            }

            impl std::ops::Deref for #joiner {
                type Target = wiregen_runtime::SequenceJoiner<#key_ty, #n_streams>;
                fn deref(&self) -> &Self::Target {
                    &self.0
                }
            }

            impl std::ops::DerefMut for #joiner {
                fn deref_mut(&mut self) -> &mut Self::Target {
                    &mut self.0
                }
            }

        })
    }

    /// The names the joiner and the splitter of a sequence join share.
    fn join_names(&self, j: &Join) -> Result<JoinNames, Internal> {
        let s = &self.c.p.structs[j.in_struct];
        let sequence = &s.fields[j.sequence];
        let seq = ident(&sequence.name);
        let seq_ty = self
            .c
            .types()
            .rust_ty(j.in_struct, j.sequence, &sequence.ty)?;
        let (seq_u64, first_seq) = if seq_ty.to_string() == "u64" {
            (quote! { part.#seq }, quote! { first })
        } else {
            (
                quote! { u64::from(part.#seq) },
                quote! { first: first as #seq_ty },
            )
        };
        Ok(JoinNames {
            split: format_ident!("split_{}", s.name.to_snake_case()),
            part_size: format_ident!("{}_PART_SIZE", s.name.to_shouty_snake_case()),
            wrap: lit_u64(j.wrap),
            seq,
            seq_ty,
            seq_u64,
            first_seq,
            wrap_wide: Literal::u128_suffixed(u128::from(j.wrap)),
            seq_nm: sequence.name.clone(),
            streams: j
                .streams
                .iter()
                .map(|x| ident(&s.fields[x.field].name))
                .collect(),
            n_streams: lit_usize(j.streams.len()),
        })
    }

    /// `split_<type>`: cuts payload streams into parts numbered from the caller's, setting the
    /// flag bits that mark the first and the last part (other markers are checked per part,
    /// and `<type>_parts` says how many parts a size makes).
    fn join_splitter(&self, j: &Join) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let sid = j.in_struct;
        let s = &p.structs[sid];
        let st = ident(&s.name);
        let st_a = if self.c.l.borrows[sid] {
            quote! { #st<'a> }
        } else {
            quote! { #st }
        };
        let JoinNames {
            split,
            part_size,
            seq,
            seq_ty,
            wrap_wide,
            seq_nm,
            streams,
            n_streams,
            ..
        } = self.join_names(j)?;
        // The splitter sets the flag bits that mark the first and the last part; markers
        // that are other expressions (ENet's `fragment_number == fragment_count - 1`) read
        // fields the template gives, and each part is checked against its position.
        let set_first =
            self.c
                .types()
                .set_flag_bit(sid, &j.first, quote! { part }, Some(quote! { i == 0 }));
        let set_last = self.c.types().set_flag_bit(
            sid,
            &j.last,
            quote! { part },
            Some(quote! { i + 1 == count }),
        );
        let (check, parts_fn) = if set_first.is_some() && set_last.is_some() {
            (quote! {}, quote! {})
        } else {
            let parts = format_ident!("{}_parts", s.name.to_snake_case());
            let doc = doc_prose(&format!(
                "How many parts [`{split}`] cuts `total` bytes of streams into."
            ));
            (
                quote! {
                    let (first, last) = (i == 0, i + 1 == count);
                    if part.is_first_part() != first || part.is_last_part() != last {
                        return Err(EncodeError::new(#seq_nm, EncodeErrorKind::PartMarker { part: i, first, last }));
                    }
                },
                quote! {
                    #doc
                    pub fn #parts(total: usize) -> usize {
                        total.div_ceil(#part_size).max(1)
                    }
                },
            )
        };
        let idx: Vec<Literal> = (0..j.streams.len()).map(lit_usize).collect();
        let split_doc = format!(
            "Cuts payload streams into [`{st}`] parts carrying at most [`{part_size}`] bytes \
             each (earlier streams first): copies of `template` numbered on from \
             `first_number`, the first and the last marked."
        );
        let split_doc = doc_prose(&split_doc);
        Ok(quote! {
            #split_doc
            pub fn #split<'a>(template: &#st_a, first_number: #seq_ty, streams: [&[u8]; #n_streams]) -> Result<Vec<#st_a>, EncodeError> {
                let total: usize = streams.iter().map(|s| s.len()).sum();
                let count = total.div_ceil(#part_size).max(1);
                let mut out = Vec::with_capacity(count);
                let mut pos = [0usize; #n_streams];
                for i in 0..count {
                    let mut part = template.clone();
                    let mut room = #part_size;
                    let mut pieces: [&[u8]; #n_streams] = [&[]; #n_streams];
                    for k in 0..#n_streams {
                        let take = room.min(streams[k].len() - pos[k]);
                        pieces[k] = &streams[k][pos[k]..pos[k] + take];
                        pos[k] += take;
                        room -= take;
                    }
                    part.#seq = ((u128::from(first_number) + i as u128) % #wrap_wide) as #seq_ty;
                    #set_first
                    #set_last
                    #( part.#streams = Cow::Owned(pieces[#idx].to_vec()); )*
                    #check
                    out.push(part);
                }
                Ok(out)
            }

            #parts_fn
        })
    }

    /// `impl Joined { fn decode_<field>() }` for the streams of a join (of struct `sid`'s
    /// fields) that decode as a type; nothing when none does.
    fn joined_decoders(&self, sid: StructId, streams: &[Stream], jn: &Ident) -> TokenStream {
        let p = self.c.p;
        let s = &p.structs[sid];
        let decoders: Vec<TokenStream> = streams
            .iter()
            .filter_map(|x| {
                let w = x.whole?;
                let f = ident(&s.fields[x.field].name);
                let m = format_ident!("decode_{}", s.fields[x.field].name);
                let (wt, wn) = (self.c.ty_anon(w), ident(&p.structs[w].name));
                let doc = doc_prose(&format!("Decodes the joined `{f}` as [`{wn}`]."));
                Some(quote! {
                    #doc
                    pub fn #m(&self) -> Result<#wt, DecodeError> { #wn::decode(&self.#f) }
                })
            })
            .collect();
        if decoders.is_empty() {
            quote! {}
        } else {
            quote! { impl #jn { #(#decoders)* } }
        }
    }

    /// A stream join's joined payload and joiner (see [`wiregen_runtime::StreamJoiner`]).
    fn stream_joiner(&self, j: &StreamJoin) -> TokenStream {
        let p = self.c.p;
        let sid = j.in_struct;
        let s = &p.structs[sid];
        let st_anon = self.c.ty_anon(sid);
        let jn = format_ident!("{}Joined", s.name);
        let joiner = format_ident!("{}Joiner", s.name);
        let (begin, end) = (&p.structs[j.begin].name, &p.structs[j.end].name);
        let streams: Vec<Ident> = j
            .streams
            .iter()
            .map(|x| ident(&s.fields[x.field].name))
            .collect();
        let n_streams = lit_usize(j.streams.len());
        let max = lit_usize(j.max_size);
        let decoders = self.joined_decoders(sid, &j.streams, &jn);
        let (joined_doc, joiner_doc) = (
            doc_prose(&format!(
                "A payload joined from the [`{}`] pieces between a [`{begin}`] and a [`{end}`].",
                s.name
            )),
            doc_prose(&format!(
                "Joins [`{}`] pieces in the order they come, from a [`{begin}`] to a [`{end}`], in \
                 one direction of a conversation (keep one joiner per direction); its limit and \
                 counters are the [`StreamJoiner`](wiregen_runtime::StreamJoiner)'s it derefs to.",
                s.name
            )),
        );
        quote! {
            #joined_doc
            #[derive(Debug, Clone, PartialEq, Eq)]
            pub struct #jn {
                /// How many pieces it was joined from.
                pub parts: usize,
                #( pub #streams: Vec<u8>, )*
            }

            #decoders

            #joiner_doc
            #[derive(Debug)]
            pub struct #joiner(wiregen_runtime::StreamJoiner<#n_streams>);

            impl Default for #joiner {
                fn default() -> Self {
                    Self(wiregen_runtime::StreamJoiner::new(#max))
                }
            }

            impl #joiner {
                /// A begin message: opens a payload.
                pub fn begin(&mut self) {
                    self.0.begin();
                }

                /// A piece, with a tag of the caller's (a capture's frame number).
                pub fn push(&mut self, part: &#st_anon, tag: u64) {
                    self.0.push([#(part.#streams.to_vec()),*], tag);
                }

                /// An end message: the payload it completes, with the tags of its pieces.
                pub fn end(&mut self) -> Option<wiregen_runtime::Tagged<#jn>> {
                    let wiregen_runtime::StreamJoined { parts, streams: [#(#streams),*], tags } = self.0.end()?;
                    Some((#jn { parts, #(#streams,)* }, tags))
                }
            }

            impl std::ops::Deref for #joiner {
                type Target = wiregen_runtime::StreamJoiner<#n_streams>;
                fn deref(&self) -> &Self::Target {
                    &self.0
                }
            }

            impl std::ops::DerefMut for #joiner {
                fn deref_mut(&mut self) -> &mut Self::Target {
                    &mut self.0
                }
            }
        }
    }
}

/// What a sequence join's items are named by: the splitter and its part size, the numbers'
/// wrap, the sequence field (its Rust type and name), the streams.
/// A sequence join's key: its fields' names, their values copied from a part (or the caller's
/// parameter), their types, and the parameters of enclosing values the caller gives.
struct JoinKey {
    names: Vec<Ident>,
    copies: Vec<TokenStream>,
    types: Vec<TokenStream>,
    outer_names: Vec<Ident>,
    outer_params: Vec<TokenStream>,
}

struct JoinNames {
    split: Ident,
    part_size: Ident,
    wrap: Literal,
    seq: Ident,
    seq_ty: TokenStream,
    /// `part.<seq>` as a `u64`, and the joined payload's `first` from the joiner's (a `u64`): casts
    /// only where the field is narrower (clippy refuses a cast to the same type).
    seq_u64: TokenStream,
    first_seq: TokenStream,
    /// The wrap as a `u128`: the splitter adds a part's index to the first number there, where
    /// a number near `u64::MAX` has no room.
    wrap_wide: Literal,
    seq_nm: String,
    streams: Vec<Ident>,
    n_streams: Literal,
}
