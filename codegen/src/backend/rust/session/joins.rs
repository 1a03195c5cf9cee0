//! Sequence joins: joined payloads, joiners and splitters.

use super::*;

impl<'p> Gen<'p> {
    /// Per sequence join: the joined payload, a joiner, and a splitter.
    pub(crate) fn joins_module(&self) -> Result<TokenStream, Internal> {
        let p = self.p;
        let mut out = Vec::new();
        for j in &p.joins {
            let sid = j.in_struct;
            let s = &p.structs[sid];
            let st = ident(&s.name);
            let st_a = if self.l.borrows[sid] {
                quote! { #st<'a> }
            } else {
                quote! { #st }
            };
            let st_anon = self.ty_anon(sid);
            let snake = s.name.to_snake_case();
            let jn = format_ident!("{}Joined", s.name);
            let joiner = format_ident!("{}Joiner", s.name);
            let part_ty = format_ident!("{}Part", s.name);
            let split = format_ident!("split_{}", snake);
            let part_size = format_ident!("{}_PART_SIZE", s.name.to_shouty_snake_case());
            let size = lit_usize(j.piece_size);
            let wrap = lit_u64(j.wrap);
            let seq = ident(&s.fields[j.sequence].name);
            let seq_ty = self.rust_ty(sid, j.sequence, &s.fields[j.sequence].ty)?;
            let seq_nm = s.fields[j.sequence].name.as_str();
            let first = self.expr_top(&j.first, Ctx::Value);
            let last = self.expr_top(&j.last, Ctx::Value);
            let key_names: Vec<Ident> = j.key.iter().map(|k| ident(&s.fields[*k].name)).collect();
            let key_copies = key_copies(s, &j.key, "part");
            let key_types: Vec<TokenStream> = j
                .key
                .iter()
                .map(|k| self.rust_ty(sid, *k, &s.fields[*k].ty))
                .collect::<Result<_, _>>()?;
            let streams: Vec<Ident> = j
                .streams
                .iter()
                .map(|x| ident(&s.fields[x.field].name))
                .collect();
            let n_streams = lit_usize(j.streams.len());
            let mut decoders = Vec::new();
            for x in &j.streams {
                if let Some(w) = x.whole {
                    let f = ident(&s.fields[x.field].name);
                    let m = format_ident!("decode_{}", s.fields[x.field].name);
                    let wt = self.ty_anon(w);
                    let wn = ident(&p.structs[w].name);
                    decoders.push(quote! {
                        #[doc = concat!(" Decodes the joined `", stringify!(#f), "` as `", stringify!(#wn), "`.")]
                        pub fn #m(&self) -> Result<#wt, DecodeError> { #wn::decode(&self.#f) }
                    });
                }
            }
            // The splitter sets the flag bits that mark the first and the last part; markers
            // that are other expressions (ENet's `fragment_number == fragment_count - 1`) read
            // fields the template gives, and each part is checked against its position.
            let set_first = self.set_flag_bit(sid, &j.first, quote! { part }, quote! { i == 0 });
            let set_last =
                self.set_flag_bit(sid, &j.last, quote! { part }, quote! { i + 1 == count });
            let (check, parts_fn) = if set_first.is_some() && set_last.is_some() {
                (quote! {}, quote! {})
            } else {
                let parts = format_ident!("{}_parts", snake);
                (
                    quote! {
                        let (first, last) = (i == 0, i + 1 == count);
                        if part.is_first_part() != first || part.is_last_part() != last {
                            return Err(EncodeError::new(#seq_nm, EncodeErrorKind::PartMarker { part: i, first, last }));
                        }
                    },
                    quote! {
                        #[doc = concat!(" How many parts `", stringify!(#split), "` cuts `total` bytes of streams into.")]
                        pub fn #parts(total: usize) -> usize {
                            total.div_ceil(#part_size).max(1)
                        }
                    },
                )
            };
            let idx: Vec<Literal> = (0..j.streams.len()).map(lit_usize).collect();
            out.push(quote! {
                #[doc = concat!(" Largest data (all streams together) `", stringify!(#split), "` puts in one part.")]
                pub const #part_size: usize = #size;

                impl #st_anon {
                    /// Whether this is the first part of a payload.
                    pub fn is_first_part(&self) -> bool { #first }
                    /// Whether this is the last part of a payload.
                    pub fn is_last_part(&self) -> bool { #last }
                }

                #[doc = concat!(" A payload joined from `", stringify!(#st), "` parts.")]
                #[derive(Debug, Clone, PartialEq, Eq)]
                pub struct #jn {
                    #( pub #key_names: #key_types, )*
                    /// Sequence number of the first part.
                    pub first: #seq_ty,
                    /// How many parts it was joined from.
                    pub parts: usize,
                    #( pub #streams: Vec<u8>, )*
                }

                impl #jn {
                    #(#decoders)*
                }

                #[doc = concat!(" Joins the parts of `", stringify!(#st), "` payloads sent in one direction of a conversation (keep")]
                /// one joiner per direction): parts may arrive in any order; a payload is complete when
                /// every sequence number from a first part to a last one has arrived. Limits bound what
                /// a peer can make it hold: past `max_parts` parts or `max_len` bytes the part that
                /// came first is dropped to make room (counted by `evicted()`), so parts that never
                /// complete a payload cannot stop later payloads from being joined.
                #[derive(Debug)]
                pub struct #joiner {
                    parts: std::collections::HashMap<(#(#key_types,)* u64,), #part_ty>,
                    held: usize,
                    /// Parts waiting at once.
                    pub max_parts: usize,
                    /// Bytes waiting at once.
                    pub max_len: usize,
                    pushes: u64,
                    evicted: u64,
                }

                #[derive(Debug)]
                struct #part_ty {
                    first: bool,
                    last: bool,
                    data: [Vec<u8>; #n_streams],
                    /// When it came (in pushes).
                    since: u64,
                }

                impl Default for #joiner {
                    fn default() -> Self {
                        #joiner { parts: Default::default(), held: 0, max_parts: 4096, max_len: 16 << 20, pushes: 0, evicted: 0 }
                    }
                }

                impl #joiner {
                    pub fn new() -> Self {
                        Self::default()
                    }

                    /// Adds a part; returns the payload when this part completes one.
                    pub fn push(&mut self, part: &#st_anon) -> Result<Option<#jn>, DecodeError> {
                        let seq = part.#seq as u64 % #wrap;
                        let at = |s: u64| (#(#key_copies,)* s,);
                        let data = [#(part.#streams.to_vec()),*];
                        let len: usize = data.iter().map(Vec::len).sum();
                        if len > self.max_len {
                            return Err(DecodeError::new(#seq_nm, 0, DecodeErrorKind::TooLarge { value: len as u64, max: self.max_len as u64 }));
                        }
                        if let Some(old) = self.parts.remove(&at(seq)) {
                            self.held -= old.data.iter().map(Vec::len).sum::<usize>();
                        }
                        // Full: the parts that came first make room (a linear scan, only when full).
                        while self.parts.len() >= self.max_parts.max(1) || self.held + len > self.max_len {
                            let Some(oldest) = self.parts.iter().min_by_key(|(_, p)| p.since).map(|(k, _)| *k) else { break };
                            if let Some(old) = self.parts.remove(&oldest) {
                                self.held -= old.data.iter().map(Vec::len).sum::<usize>();
                                self.evicted += 1;
                            }
                        }
                        self.pushes += 1;
                        let new = #part_ty { first: part.is_first_part(), last: part.is_last_part(), data, since: self.pushes };
                        self.parts.insert(at(seq), new);
                        self.held += len;
                        // Back to the first part, then on to the last, every number in between present.
                        let (mut a, mut steps) = (seq, 0);
                        loop {
                            match self.parts.get(&at(a)) {
                                None => return Ok(None),
                                Some(p) if p.first => break,
                                _ => {}
                            }
                            a = (a + #wrap - 1) % #wrap;
                            steps += 1;
                            if steps > self.parts.len() { return Ok(None); }
                        }
                        let (mut b, mut steps) = (seq, 0);
                        loop {
                            match self.parts.get(&at(b)) {
                                None => return Ok(None),
                                Some(p) if p.first && b != a => return Ok(None),
                                Some(p) if p.last => break,
                                _ => {}
                            }
                            b = (b + 1) % #wrap;
                            steps += 1;
                            if steps > self.parts.len() { return Ok(None); }
                        }
                        let mut streams: [Vec<u8>; #n_streams] = Default::default();
                        let (mut i, mut parts) = (a, 0);
                        loop {
                            if let Some(p) = self.parts.remove(&at(i)) {
                                for (k, d) in p.data.into_iter().enumerate() {
                                    self.held -= d.len();
                                    streams[k].extend_from_slice(&d);
                                }
                            }
                            parts += 1;
                            if i == b { break; }
                            i = (i + 1) % #wrap;
                        }
                        Ok(Some(#jn {
                            #( #key_names: #key_copies, )*
                            first: a as #seq_ty,
                            parts,
                            #( #streams: std::mem::take(&mut streams[#idx]), )*
                        }))
                    }

                    /// Parts waiting for the rest of their payload.
                    pub fn pending(&self) -> usize {
                        self.parts.len()
                    }

                    /// Parts dropped so far to stay within the limits.
                    pub fn evicted(&self) -> u64 {
                        self.evicted
                    }
                }

                #[doc = concat!(" Cuts payload streams into `", stringify!(#st), "` parts carrying at most")]
                #[doc = concat!(" [`", stringify!(#part_size), "`] bytes each (earlier streams first): copies of `template`")]
                /// numbered on from `first_number`, the first and the last marked.
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
                        part.#seq = ((first_number as u64 + i as u64) % #wrap) as #seq_ty;
                        #set_first
                        #set_last
                        #( part.#streams = Cow::Owned(pieces[#idx].to_vec()); )*
                        #check
                        out.push(part);
                    }
                    Ok(out)
                }

                #parts_fn
            });
        }
        Ok(quote! { #(#out)* })
    }
}
