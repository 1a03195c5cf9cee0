//! `State`: lists announced by earlier messages of a conversation, read by later ones.

use super::*;

/// Renders the `state` module: the lists conversation state keeps.
#[derive(Clone, Copy)]
pub(crate) struct StateModule<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> StateModule<'p> {
    /// `State`: the lists earlier messages announced, and how messages set them.
    pub(crate) fn state_module(&self) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        if p.state.is_empty() {
            return Ok(quote! {});
        }
        let mut getters = Vec::new();
        let mut records = Vec::new();
        // Root-level dispatch: the root itself, or a variant of one of its switches.
        let mut dispatch = Vec::new();
        for (t, table) in p.state.iter().enumerate() {
            let en = &p.enums[table.items];
            let et = ident(&en.name);
            let repr = int_rust(&en.repr);
            let get = ident(&table.name);
            let set = format_ident!("set_{}", table.name);
            let tl = lit_usize(t);
            let d = doc(&table.doc);
            let from = if en.closed {
                quote! { l.iter().filter_map(|raw| #et::from_raw(*raw as #repr)).collect() }
            } else {
                quote! { l.iter().map(|raw| #et::from_raw(*raw as #repr)).collect() }
            };
            getters.push(quote! {
                #d
                pub fn #get(&self, key: u64) -> Option<Vec<#et>> {
                    self.tables.get(#tl, key).map(|l| #from)
                }

                /// Sets the list of `key`, as a message announcing it would.
                pub fn #set(&mut self, key: u64, list: &[#et]) {
                    let list: std::rc::Rc<[u64]> = list.iter().map(|v| v.raw() as u64).collect();
                    std::rc::Rc::make_mut(&mut self.tables).set(#tl, key, list);
                }
            });
            for r in &table.records {
                self.state_record(t, table, r, &mut records, &mut dispatch)?;
            }
        }
        let root = self.c.ty_anon(p.root);
        Ok(quote! {
            /// Lists announced by earlier messages of a conversation, by key. Keep one `State` per
            /// conversation (both sides share it: what one side announces, the other's messages
            /// may use): feed it every decoded message, from either side, with [`State::record`]
            /// and decode the next ones with `decode_with`.
            #[derive(Debug, Clone, Default, PartialEq, Eq)]
            pub struct State {
                pub(crate) tables: std::rc::Rc<wiregen_runtime::StateTables>,
            }

            impl State {
                pub fn new() -> Self {
                    Self::default()
                }

                /// Lists forgotten so far to stay within the limit of keys per table
                /// ([`wiregen_runtime::MAX_STATE_KEYS`] unless [`State::set_max_keys`] changed it):
                /// the key announced first goes first.
                pub fn evicted(&self) -> u64 {
                    self.tables.evicted
                }

                /// How many keys each table remembers at most.
                pub fn set_max_keys(&mut self, max: usize) {
                    std::rc::Rc::make_mut(&mut self.tables).max_keys = max;
                }

                #(#getters)*
                #(#records)*

                /// Remembers whatever `message` announces (nothing for most messages).
                pub fn record(&mut self, message: &#root) {
                    #(#dispatch)*
                    let _ = message;
                }
            }

            /// `decode_with` and `dissect_with` on every type: decoding that reads values typed
            /// by the lists earlier messages announced.
            pub trait DecodeWith<'a>: Codec<'a> {
                /// Decodes like [`Codec::decode`], reading values typed by lists that earlier
                /// messages of this direction announced (kept by `state`).
                fn decode_with(bytes: &'a [u8], state: &State) -> Result<Self, DecodeError> {
                    Self::decode_in(bytes, &state.tables)
                }

                /// Dissects like [`Codec::dissect`], with the lists `state` keeps.
                fn dissect_with(bytes: &'a [u8], state: &State) -> (Result<Self, DecodeError>, Vec<FieldNote<'a>>) {
                    Self::dissect_in(bytes, &state.tables)
                }
            }

            impl<'a, C: Codec<'a>> DecodeWith<'a> for C {}
        })
    }

    /// How a message that announces table `t`'s list (`r`) records it: `record_<type>` (and
    /// the root's dispatch to it), or `record_joined_<type>` for a joined payload.
    fn state_record(
        &self,
        t: usize,
        table: &StateTable,
        r: &Record,
        records: &mut Vec<TokenStream>,
        dispatch: &mut Vec<TokenStream>,
    ) -> Result<(), Internal> {
        let p = self.c.p;
        let tl = lit_usize(t);
        let holder = &p.structs[r.holder];
        let list = ident(&holder.fields[r.list].name);
        // The item is a field of each element, or the tag its switch carries.
        let elem = r.elem;
        let ef = &p.structs[elem].fields[r.item];
        let item = match ef.role {
            Role::Value => {
                let f = ident(&ef.name);
                quote! { #f }
            }
            Role::Derived(Derive::TagOf(u)) => {
                let (un, tn) = (ident(&p.structs[elem].fields[u].name), ident(&ef.name));
                quote! { #un.#tn() }
            }
            _ => {
                return Err(Internal(format!(
                    "'{}' is not a value or a switch tag",
                    ef.name
                )))
            }
        };
        let key = ident(&p.structs[r.in_struct].fields[r.key].name);
        let in_snake = p.structs[r.in_struct].name.to_snake_case();
        let set_items = quote! {
            let list: std::rc::Rc<[u64]> = holder.#list.iter().map(|e| e.#item.raw() as u64).collect();
            std::rc::Rc::make_mut(&mut self.tables).set(#tl, key, list);
        };
        match r.via {
            None => {
                let f = format_ident!("record_{}", in_snake);
                let ty = self.c.ty_anon(r.in_struct);
                let tn = &table.name;
                let doc = doc_prose(&format!(
                    "Remembers the `{tn}` list a [`{}`] announces.",
                    self.c.p.structs[r.in_struct].name
                ));
                records.push(quote! {
                    #doc
                    pub fn #f(&mut self, v: &#ty) {
                        let key = v.#key as u64;
                        let holder = v;
                        #set_items
                    }
                });
                for (pat, field) in self
                    .c
                    .joined()
                    .root_carriers(r.in_struct, &format_ident!("value"))
                {
                    dispatch.push(match pat {
                        None => quote! { self.#f(message); },
                        Some(pat) => {
                            quote! { if let #pat = &message.#field { self.#f(value); } }
                        }
                    });
                }
            }
            Some((ji, si)) => {
                let j = &p.joins[ji];
                let jn = format_ident!("{}Joined", p.structs[j.in_struct].name);
                let f = format_ident!("record_joined_{}", in_snake);
                let whole = ident(&p.structs[j.in_struct].fields[j.streams[si].field].name);
                let wt = ident(&p.structs[r.holder].name);
                records.push(quote! {
                    /// Remembers the list a joined payload announces (its stream decoded first).
                    pub fn #f(&mut self, joined: &#jn) -> Result<(), DecodeError> {
                        let key = joined.#key as u64;
                        let holder = #wt::decode(&joined.#whole)?;
                        let holder = &holder;
                        #set_items
                        Ok(())
                    }
                });
            }
        }
        Ok(())
    }
}
