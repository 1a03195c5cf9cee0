//! Joining as a conversation does it: `Joins` (the reassembler and every sequence joiner of one
//! conversation), `Joined` (a payload they complete), `JoinedMessage` (it decoded, as the
//! dissector shows it) and `Protocol::join`, which feeds a decoded datagram to them.

use super::*;

/// Renders what the protocol joins from pieces: its ways and joined notes.
#[derive(Clone, Copy)]
pub(crate) struct JoinedItems<'p> {
    pub(crate) c: Crate<'p>,
}

/// What joining adds to a crate: its items, and its part of the `Protocol` and `SerdeProtocol`
/// impls.
pub(crate) struct JoinItems {
    pub module: TokenStream,
    pub protocol: TokenStream,
    pub serialize: TokenStream,
}

/// One way a payload is joined: the variants it adds and how a datagram feeds it.
struct Way {
    /// The `Joins` field and its type.
    field: TokenStream,
    /// The `Joined` variant.
    joined: TokenStream,
    /// The `JoinedMessage` variant(s).
    message: TokenStream,
    /// The `decode` arm(s).
    decode: TokenStream,
    /// The statements of `join` (`message` is the root datagram, `direction` 0 from the client).
    feed: TokenStream,
    /// Whether its `JoinedMessage` variants borrow from the joined bytes.
    borrows: bool,
    /// Whether `feed` records what the payload announces in the conversation's state.
    records: bool,
    /// The `joined_notes` arms of the payloads it reads field by field (none: not compared).
    notes: TokenStream,
}

impl<'p> JoinedItems<'p> {
    pub(crate) fn join_items(&self) -> Result<JoinItems, Internal> {
        let mut ways = Vec::new();
        if let Some(r) = &self.c.p.reassembly {
            ways.push(self.reassembly_way(r)?);
        }
        for j in &self.c.p.joins {
            if let Some(way) = self.sequence_way(j)? {
                ways.push(way);
            }
        }
        for j in &self.c.p.stream_joins {
            if let Some(way) = self.stream_way(j)? {
                ways.push(way);
            }
        }
        if ways.is_empty() {
            return Ok(no_joins());
        }
        let (lt, lt_anon, lt_static) = if ways.iter().any(|w| w.borrows) {
            (quote! { <'j> }, quote! { <'_> }, quote! { <'static> })
        } else {
            (quote! {}, quote! {}, quote! {})
        };
        let fields = ways.iter().map(|w| &w.field);
        let joined = ways.iter().map(|w| &w.joined);
        let messages = ways.iter().map(|w| &w.message);
        let decodes = ways.iter().map(|w| &w.decode);
        let feeds = ways.iter().map(|w| &w.feed);
        let joined_notes = self.joined_notes(&ways);
        let serde = self.c.features().serialize_derive();
        let root = self.c.p.root();
        // The root datagram is `message`: the parameter itself, or the opening's last variant.
        let (param, take_root) = if self.c.p.opening.is_empty() {
            (quote! { message }, quote! {})
        } else {
            let v = ident(&root.name);
            (
                quote! { datagram },
                quote! {
                    let Datagram::#v(message) = datagram else {
                        return Ok(Vec::new());
                    };
                },
            )
        };
        let direction = if self.c.p.joins.is_empty() && self.c.p.stream_joins.is_empty() {
            quote! {}
        } else {
            quote! { let direction = usize::from(!from_client); }
        };
        let records = ways.iter().any(|w| w.records);
        let unused = if records {
            quote! {}
        } else {
            quote! { let _ = conversation; }
        };
        let module = quote! {
            /// What one conversation keeps to join payloads cut into pieces: fed every decoded
            /// datagram by [`Protocol::join`](wiregen_runtime::Protocol::join).
            #[derive(Debug, Default)]
            pub struct Joins {
                #(#fields)*
            }

            /// A payload joined from pieces by [`Joins`].
            #[derive(Debug, Clone, PartialEq)]
            pub enum Joined {
                #(#joined)*
            }

            /// A joined payload decoded, as the dissector shows it.
            #[derive(Debug, Clone, PartialEq)]
            #serde
            pub enum JoinedMessage #lt {
                #(#messages)*
            }

            impl Joined {
                /// Decodes the joined payload.
                pub fn decode(&self) -> Result<JoinedMessage #lt_anon, DecodeError> {
                    Ok(match self {
                        #(#decodes)*
                    })
                }
            }
        };
        Ok(JoinItems {
            module,
            protocol: quote! {
                type Joins = Joins;
                type Joined = Joined;

                fn join(conversation: &mut Self::Conversation, joins: &mut Joins, from_client: bool, #param: &Self::Datagram<'_>, tag: u64) -> Result<Vec<wiregen_runtime::Tagged<Joined>>, DecodeError> {
                    #unused
                    #take_root
                    #direction
                    let mut completed = Vec::new();
                    #(#feeds)*
                    Ok(completed)
                }

                #joined_notes
            },
            serialize: quote! {
                fn serialize_joined<S: serde::Serializer>(joined: &Self::Joined, serializer: S) -> Result<S::Ok, S::Error> {
                    let message = joined.decode().map_err(serde::ser::Error::custom)?;
                    serde::Serialize::serialize(&message, serializer)
                }

                fn joined_shape() -> wiregen_runtime::Shape {
                    <JoinedMessage #lt_static as wiregen_runtime::SerdeShape>::shape()
                }
            },
        })
    }
}

impl<'p> JoinedItems<'p> {
    /// The reassembler's way: pieces of the root's payloads.
    fn reassembly_way(&self, r: &Reassembly) -> Result<Way, Internal> {
        let p = self.c.p;
        let lifetime = |id: StructId| {
            let n = ident(&p.structs[id].name);
            if self.c.l.borrows[id] {
                quote! { #n<'j> }
            } else {
                quote! { #n }
            }
        };
        let (message, decode, borrows) = match r.whole {
            WholeType::AsField(fi) => {
                let Ty::Union(u) = &p.root().fields[fi].ty else {
                    return Err(Internal("'as' must name a switch".into()));
                };
                let un = ident(&p.union_name(p.root, fi));
                let borrows = self.c.l.union_borrows(u);
                let ty = if borrows {
                    quote! { #un<'j> }
                } else {
                    quote! { #un }
                };
                (
                    quote! {
                        /// A payload joined by the reassembler, read with the packets' switch.
                        Whole(#ty),
                    },
                    quote! { Joined::Whole(whole) => JoinedMessage::Whole(whole.payload()?), },
                    borrows,
                )
            }
            WholeType::ByDirection { client, server } => {
                let (ct, st) = (lifetime(client), lifetime(server));
                (
                    quote! {
                        /// A payload the client sent, joined by the reassembler.
                        WholeFromClient(#ct),
                        /// A payload the server sent, joined by the reassembler.
                        WholeFromServer(#st),
                    },
                    quote! {
                        Joined::Whole(whole) if whole.from_client => JoinedMessage::WholeFromClient(whole.client_message()?),
                        Joined::Whole(whole) => JoinedMessage::WholeFromServer(whole.server_message()?),
                    },
                    self.c.l.borrows[client] || self.c.l.borrows[server],
                )
            }
        };
        let notes = match r.whole {
            WholeType::ByDirection { client, server } => {
                let (cn, sn) = (
                    ident(&p.structs[client].name),
                    ident(&p.structs[server].name),
                );
                quote! {
                    Joined::Whole(whole) if whole.from_client => {
                        let (value, notes) = #cn::dissect(&whole.data);
                        (value.map(drop), notes)
                    }
                    Joined::Whole(whole) => {
                        let (value, notes) = #sn::dissect(&whole.data);
                        (value.map(drop), notes)
                    }
                }
            }
            WholeType::AsField(_) => quote! {},
        };
        Ok(Way {
            field: quote! {
                /// Pieces of payloads, per direction and key.
                pub reassembler: Reassembler,
            },
            joined: quote! {
                /// A payload joined by the reassembler.
                Whole(Whole),
            },
            message,
            decode,
            feed: quote! {
                if let Some((whole, tags)) = joins.reassembler.push_tagged(from_client, message, tag)? {
                    let joined = Joined::Whole(whole);
                    joined.decode().within("joined")?;
                    completed.push((joined, tags));
                }
            },
            borrows,
            records: false,
            notes,
        })
    }

    /// `Protocol::joined_notes` of the ways that read their payloads field by field.
    fn joined_notes(&self, ways: &[Way]) -> TokenStream {
        if ways.iter().all(|w| w.notes.is_empty()) {
            return quote! {};
        }
        let arms = ways.iter().map(|w| &w.notes);
        let rest = ways.iter().any(|w| w.notes.is_empty()).then(|| {
            quote! { _ => (Ok(()), Vec::new()), }
        });
        quote! {
            fn joined_notes(joined: &Joined) -> (Result<(), DecodeError>, Vec<FieldNote<'_>>) {
                match joined {
                    #(#arms)*
                    #rest
                }
            }
        }
    }

    /// The `JoinedMessage` fields of a join's streams (of struct `sid`), the values that fill
    /// them from the joined payload `j`, and whether they borrow from it.
    fn joined_streams(
        &self,
        sid: StructId,
        streams: &[Stream],
    ) -> (Vec<TokenStream>, Vec<TokenStream>, bool) {
        let p = self.c.p;
        let s = &p.structs[sid];
        let (mut fields, mut values, mut borrows) = (Vec::new(), Vec::new(), false);
        for x in streams {
            let f = ident(&s.fields[x.field].name);
            match x.whole {
                Some(w) => {
                    let n = ident(&p.structs[w].name);
                    let m = format_ident!("decode_{}", s.fields[x.field].name);
                    borrows |= self.c.l.borrows[w];
                    let t = if self.c.l.borrows[w] {
                        quote! { #n<'j> }
                    } else {
                        quote! { #n }
                    };
                    fields.push(quote! { #f: #t, });
                    values.push(quote! { #f: j.#m()?, });
                }
                None => {
                    borrows = true;
                    let hex = self.c.features().serde_hex();
                    fields.push(quote! { #hex #f: Cow<'j, [u8]>, });
                    values.push(quote! { #f: Cow::Borrowed(&j.#f), });
                }
            }
        }
        (fields, values, borrows)
    }

    /// A stream join's way: pieces of `j.in_struct` between values of `j.begin` and `j.end`,
    /// in the order the datagram and the conversation bring them.
    fn stream_way(&self, j: &StreamJoin) -> Result<Option<Way>, Internal> {
        let p = self.c.p;
        let sid = j.in_struct;
        let s = &p.structs[sid];
        let name = ident(&s.name);
        let field = ident(&s.name.to_snake_case());
        let joiner = format_ident!("{}Joiner", s.name);
        let part_doc = doc_prose(&format!(
            "[`{}`] pieces, per direction (from the client, from the server).",
            s.name
        ));
        let joined_doc = doc_prose(&format!(
            "A [`{}`] payload joined from the pieces between a [`{}`] and a [`{}`].",
            s.name, p.structs[j.begin].name, p.structs[j.end].name
        ));
        let (stream_fields, stream_values, borrows) = self.joined_streams(sid, &j.streams);
        let visit = carriers::Visit {
            targets: vec![
                carriers::Target {
                    sid: j.begin,
                    body: quote! { joins.#field[direction].begin(); },
                    binds: false,
                },
                carriers::Target {
                    sid,
                    body: quote! { joins.#field[direction].push(part, tag); },
                    binds: true,
                },
                carriers::Target {
                    sid: j.end,
                    body: quote! {
                        if let Some((joined, tags)) = joins.#field[direction].end() {
                            let joined = Joined::#name(joined);
                            joined.decode().within("joined")?;
                            completed.push((joined, tags));
                        }
                    },
                    binds: false,
                },
            ],
            keys: &[],
        };
        let feed = self
            .c
            .carriers()
            .visit_carriers(&visit, p.root, quote! { message });
        if feed.is_empty() {
            return Ok(None);
        }
        let jn = format_ident!("{}Joined", s.name);
        Ok(Some(Way {
            field: quote! {
                #part_doc
                pub #field: [#joiner; 2],
            },
            joined: quote! {
                #joined_doc
                #name(#jn),
            },
            message: quote! {
                #joined_doc
                #name {
                    /// How many pieces it was joined from.
                    parts: usize,
                    #(#stream_fields)*
                },
            },
            decode: quote! { Joined::#name(j) => JoinedMessage::#name { parts: j.parts, #(#stream_values)* }, },
            feed,
            borrows,
            records: false,
            notes: quote! {},
        }))
    }

    /// A sequence join's way: parts of `j.in_struct`, wherever the root carries one (itself, or
    /// a case of one of its switches); `None` when the root carries none that way (its joiner
    /// is then the crate user's to feed).
    fn sequence_way(&self, j: &Join) -> Result<Option<Way>, Internal> {
        let p = self.c.p;
        let sid = j.in_struct;
        let s = &p.structs[sid];
        let name = ident(&s.name);
        let field = ident(&s.name.to_snake_case());
        let joiner = format_ident!("{}Joiner", s.name);
        let jn = format_ident!("{}Joined", s.name);
        let part_doc = doc_prose(&format!(
            "[`{}`] parts, per direction (from the client, from the server).",
            s.name
        ));
        let joined_doc = doc_prose(&format!("A [`{}`] payload joined from parts.", s.name));
        let seq_ty = self
            .c
            .types()
            .rust_ty(sid, j.sequence, &s.fields[j.sequence].ty)?;
        let mut fields = Vec::new();
        let mut values = Vec::new();
        for r in &j.key {
            let (h, k) = (r.struct_id, r.field);
            let kf = &p.structs[h].fields[k];
            let f = ident(&kf.name);
            let t = self.c.types().rust_ty(h, k, &kf.ty)?;
            fields.push(quote! { #f: #t, });
            values.push(quote! { #f: j.#f, });
        }
        fields.push(quote! {
            /// Sequence number of the first part.
            first: #seq_ty,
            /// How many parts it was joined from.
            parts: usize,
        });
        values.push(quote! { first: j.first, parts: j.parts, });
        let (stream_fields, stream_values, borrows) = self.joined_streams(sid, &j.streams);
        fields.extend(stream_fields);
        values.extend(stream_values);
        // What the joined payload announces (DNP's Long Link State: the types of its values).
        let record: Vec<TokenStream> = p
            .state
            .iter()
            .flat_map(|t| &t.records)
            .filter(|r| r.via.is_some_and(|(ji, _)| std::ptr::eq(&p.joins[ji], j)))
            .map(|r| {
                let f = format_ident!(
                    "record_joined_{}",
                    p.structs[r.in_struct].name.to_snake_case()
                );
                quote! { conversation.#f(&joined).within("joined")?; }
            })
            .collect();
        let records = !record.is_empty() && p.opening.is_empty();
        let record = if records {
            quote! { #(#record)* }
        } else {
            quote! {}
        };
        // Every part the datagram carries, wherever the schema puts it, as the dissector meets
        // them: a datagram may complete several payloads.
        let enclosing: Vec<FieldRef> = j.enclosing_key().cloned().collect();
        let outer: Vec<Ident> = enclosing.iter().map(|r| ident(&r.name)).collect();
        let visit = carriers::Visit {
            targets: vec![carriers::Target {
                sid,
                body: quote! {
                    if let Some((joined, tags)) = joins.#field[direction].push_tagged(part, #(#outer,)* tag)? {
                        #record
                        let joined = Joined::#name(joined);
                        joined.decode().within("joined")?;
                        completed.push((joined, tags));
                    }
                },
                binds: true,
            }],
            keys: &enclosing,
        };
        let feed = self
            .c
            .carriers()
            .visit_carriers(&visit, p.root, quote! { message });
        if feed.is_empty() {
            return Ok(None);
        }
        Ok(Some(Way {
            field: quote! {
                #part_doc
                pub #field: [#joiner; 2],
            },
            joined: quote! {
                #joined_doc
                #name(#jn),
            },
            message: quote! {
                #joined_doc
                #name { #(#fields)* },
            },
            decode: quote! { Joined::#name(j) => JoinedMessage::#name { #(#values)* }, },
            feed,
            borrows,
            records,
            notes: quote! {},
        }))
    }

    /// Where a root datagram carries a value of struct `sid`, bound as `bind`: the root itself
    /// (`None`), or a case of one of its switches (the pattern and the switch field).
    pub(crate) fn root_carriers(
        &self,
        sid: StructId,
        bind: &Ident,
    ) -> Vec<(Option<TokenStream>, Ident)> {
        let p = self.c.p;
        let mut out = Vec::new();
        if sid == p.root {
            out.push((None, ident(&p.root().name)));
        }
        for (fi, rf) in p.root().fields.iter().enumerate() {
            let Ty::Union(u) = &rf.ty else { continue };
            let un = ident(&p.union_name(p.root, fi));
            let carries_tag = self.c.types().tag_field(p.root, fi).is_some();
            for c in u.cases.iter().filter(|c| c.body == CaseBody::Struct(sid)) {
                let var = variant_ident(&c.variant);
                let pat = if carries_tag && c.single().is_none() {
                    // The variant's `value` field (shorthand when bound under its own name).
                    if bind == "value" {
                        quote! { #un::#var { value, .. } }
                    } else {
                        quote! { #un::#var { value: #bind, .. } }
                    }
                } else {
                    quote! { #un::#var(#bind) }
                };
                out.push((Some(pat), ident(&rf.name)));
            }
        }
        out
    }
}

/// The items of a protocol that joins nothing: its `Joined` is a type without values.
fn no_joins() -> JoinItems {
    JoinItems {
        module: quote! {},
        protocol: quote! {
            type Joins = ();
            type Joined = std::convert::Infallible;
        },
        serialize: quote! {
            fn serialize_joined<S: serde::Serializer>(joined: &Self::Joined, _: S) -> Result<S::Ok, S::Error> {
                match *joined {}
            }

            fn joined_shape() -> wiregen_runtime::Shape {
                wiregen_runtime::Shape::Never
            }
        },
    }
}
