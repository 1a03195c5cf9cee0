//! `Conversation`: opening datagrams told apart by their order.

use super::*;

/// Renders the `conversation` module: a conversation's datagrams read in order.
#[derive(Clone, Copy)]
pub(crate) struct ConversationModule<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> ConversationModule<'p> {
    /// `<'a>` when a `Datagram` (an opening datagram or the root) borrows from its input.
    pub(crate) fn datagram_lifetime(&self) -> TokenStream {
        let p = self.c.p;
        let borrows =
            self.c.l.borrows[p.root] || p.opening.iter().any(|(_, id)| self.c.l.borrows[*id]);
        if borrows {
            quote! { <'a> }
        } else {
            quote! {}
        }
    }

    /// For protocols whose first datagrams are told apart by their order: `Datagram` and a
    /// per-conversation classifier.
    pub(crate) fn conversation_module(&self) -> TokenStream {
        let p = self.c.p;
        if p.opening.is_empty() {
            return quote! {};
        }
        let root = ident(&p.root().name);
        let lt = self.datagram_lifetime();
        let ty_of = |id: StructId| {
            let n = ident(&p.structs[id].name);
            if self.c.l.borrows[id] {
                quote! { #n<'a> }
            } else {
                quote! { #n }
            }
        };
        let mut variants = Vec::new();
        for (_, id) in &p.opening {
            let v = ident(&p.structs[*id].name);
            let t = ty_of(*id);
            let d = format!(" An opening datagram: `{}`.", p.structs[*id].name);
            variants.push(quote! { #[doc = #d] #v(#t), });
        }
        let root_t = ty_of(p.root);
        let anon = if lt.is_empty() {
            quote! { Datagram }
        } else {
            quote! { Datagram<'_> }
        };
        let names: Vec<Ident> = p
            .opening
            .iter()
            .map(|(_, id)| ident(&p.structs[*id].name))
            .collect();
        let side_arms = |side: Side| {
            let steps: Vec<TokenStream> = p
                .opening
                .iter()
                .filter(|(s, _)| *s == side)
                .enumerate()
                .map(|(k, (_, id))| {
                    let v = ident(&p.structs[*id].name);
                    let k = lit_usize(k);
                    let client = side == Side::Client;
                    quote! { (#client, #k) => Datagram::#v(#v::decode(bytes)?), }
                })
                .collect();
            steps
        };
        let client = side_arms(Side::Client);
        let server = side_arms(Side::Server);
        let dissect = self.conversation_dissect();
        let datagram_doc = doc_prose(&format!(
            "One datagram of a conversation: an opening datagram (told apart by its order) or a \
             [`{root}`]."
        ));
        let serialize = self.c.features().serialize_derive();
        let (encode, decode_root) = self.datagram_encode(&names);
        quote! {
            #datagram_doc
            #[derive(Debug, Clone, PartialEq)]
            #serialize
            pub enum Datagram #lt {
                #(#variants)*
                /// Every datagram after the opening.
                #root(#root_t),
            }

            impl #anon {
                #encode
            }

            /// Tells the datagrams of one conversation apart by their order: the k-th datagram from
            /// a side is that side's k-th opening datagram; later ones are packets. Feed it every
            /// datagram of the conversation in order.
            #[derive(Debug, Clone, Default)]
            pub struct Conversation {
                from_client: usize,
                from_server: usize,
            }

            impl Conversation {
                pub fn new() -> Self {
                    Self::default()
                }

                /// Decodes the next datagram; `from_client` when it was sent to the server's port.
                pub fn decode<'a>(&mut self, from_client: bool, bytes: &'a [u8]) -> Result<Datagram #lt, DecodeError> {
                    let count = if from_client { &mut self.from_client } else { &mut self.from_server };
                    let k = *count;
                    *count += 1;
                    Ok(match (from_client, k) {
                        #(#client)*
                        #(#server)*
                        _ => Datagram::#root(#decode_root?),
                    })
                }

                #dissect
            }
        }
    }

    /// A datagram's `encode` (`encode_from` when the root's layout depends on the direction),
    /// and the root's decode call: `names` are the opening datagrams' variants.
    fn datagram_encode(&self, names: &[Ident]) -> (TokenStream, TokenStream) {
        let p = self.c.p;
        let root = ident(&p.root().name);
        // A root whose layout depends on the direction is encoded and decoded with it.
        if self.c.l.reads_direction[p.root] {
            (
                quote! {
                    /// The datagram's bytes, sent by the client (`from_client`) or the server.
                    pub fn encode_from(&self, from_client: bool) -> Result<Vec<u8>, EncodeError> {
                        match self {
                            #(Datagram::#names(m) => m.encode(),)*
                            Datagram::#root(m) => m.encode_from(from_client),
                        }
                    }
                },
                quote! { #root::decode_from(bytes, from_client) },
            )
        } else {
            (
                quote! {
                    /// The datagram's bytes.
                    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
                        match self {
                            #(Datagram::#names(m) => m.encode(),)*
                            Datagram::#root(m) => m.encode(),
                        }
                    }
                },
                quote! { #root::decode(bytes) },
            )
        }
    }

    /// `Conversation::dissect`: the next datagram's fields as the dissector shows them, told
    /// apart by their order as `decode` tells them.
    fn conversation_dissect(&self) -> TokenStream {
        let p = self.c.p;
        let root = ident(&p.root().name);
        // The same order, each datagram dissected (its fields as the dissector shows them).
        let dissect_arms: Vec<TokenStream> = [Side::Client, Side::Server]
            .into_iter()
            .flat_map(|side| {
                p.opening
                    .iter()
                    .filter(move |(s, _)| *s == side)
                    .enumerate()
                    .map(move |(k, (_, id))| {
                        let v = ident(&p.structs[*id].name);
                        let k = lit_usize(k);
                        let client = side == Side::Client;
                        quote! { (#client, #k) => { let (value, notes) = #v::dissect(bytes); (value.map(drop), notes) } }
                    })
            })
            .collect();
        let dissect_root = if self.c.l.reads_direction[p.root] {
            quote! { #root::dissect_from(bytes, from_client) }
        } else {
            quote! { #root::dissect(bytes) }
        };
        quote! {
            /// Every field of the next datagram as the dissector shows it (the opening's by
            /// their order, as [`Conversation::decode`] tells them apart).
            pub fn dissect<'a>(&mut self, from_client: bool, bytes: &'a [u8]) -> (Result<(), DecodeError>, Vec<FieldNote<'a>>) {
                let count = if from_client { &mut self.from_client } else { &mut self.from_server };
                let k = *count;
                *count += 1;
                match (from_client, k) {
                    #(#dissect_arms)*
                    _ => {
                        let (value, notes) = #dissect_root;
                        (value.map(drop), notes)
                    }
                }
            }
        }
    }
}
