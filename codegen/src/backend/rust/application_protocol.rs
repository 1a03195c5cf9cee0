//! The `Protocol` marker of an application schema: its datagrams are the transport's, each with
//! the game message it carries, so tools generic over protocols (wirecat, `wiregen verify`)
//! read an application's traffic as a whole, never its payloads as if they were datagrams.

use super::*;

/// Renders an application protocol's marker type and its `Protocol` impls.
#[derive(Clone, Copy)]
pub(crate) struct ApplicationMarker<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> ApplicationMarker<'p> {
    /// `Received` (a transport datagram and the game message in it) and the `Protocol`,
    /// `SerdeProtocol` and `ArbitraryProtocol` impls of an application.
    pub(crate) fn application_protocol_marker(&self, a: &Application) -> TokenStream {
        let p = self.c.p;
        let (name, title) = (&p.name, &p.title);
        let t = self.c.extension().other_protocol(&a.transport);
        let root = ident(&a.transport_root);
        let (lt, root_ty) = if a.transport_root_borrows {
            (quote! { <'a> }, quote! { #t::#root<'a> })
        } else {
            (quote! {}, quote! { #t::#root })
        };
        let (message_ty, keep) = if self.c.datagrams().messages_borrow(a) {
            (
                quote! { Message<'static> },
                quote! { .map(IntoOwned::into_owned) },
            )
        } else {
            (quote! { Message }, quote! {})
        };
        let transport_protocol = quote! { <#t::Protocol as wiregen_runtime::Protocol> };
        let types = self.visited_types(a);
        let feature_impls = self.feature_impls(a, &types);
        let transport_name = &a.transport;
        let received_doc = doc_prose(&format!(
            "A `{transport_name}` datagram as this application reads it: the transport's message, and the game message it carries (`None`: one of the transport's own)."
        ));
        let serialize = self.c.features().serialize_derive();
        quote! {
            #received_doc
            #[derive(Debug, Clone, PartialEq)]
            #serialize
            pub struct Received #lt {
                pub transport: #root_ty,
                pub message: Option<#message_ty>,
            }

            /// The schema as a whole, for tools that take any generated protocol as a type
            /// parameter (see [`wiregen_runtime::Protocol`]): its datagrams are the transport's.
            #[derive(Debug, Clone, Copy, Default)]
            pub struct Protocol;

            impl wiregen_runtime::Protocol for Protocol {
                const NAME: &'static str = #name;
                const TITLE: &'static str = #title;
                type Root<'a> = #root_ty;
                type Conversation = #transport_protocol::Conversation;
                type Datagram<'a> = Received #lt;
                const UDP_PORTS: &'static [u16] = #transport_protocol::UDP_PORTS;
                const TCP_PORTS: &'static [u16] = #transport_protocol::TCP_PORTS;
                const TCP_FRAMING: Option<wiregen_runtime::tcp::Framing> = #transport_protocol::TCP_FRAMING;
                type Joins = #transport_protocol::Joins;
                type Joined = #transport_protocol::Joined;

                const CHANNELS: &'static [&'static str] = #transport_protocol::CHANNELS;
                const CHANNEL_WRAPS: &'static [u64] = #transport_protocol::CHANNEL_WRAPS;

                /// The transport numbers and acks its datagrams.
                fn facts(datagram: &Self::Datagram<'_>) -> wiregen_runtime::analysis::Facts {
                    #transport_protocol::facts(&datagram.transport)
                }
                fn renumber(
                    datagram: &mut Self::Datagram<'_>,
                    map: &mut dyn FnMut(wiregen_runtime::analysis::Numbering, u64) -> u64,
                ) {
                    #transport_protocol::renumber(&mut datagram.transport, map)
                }

                /// The transport joins its pieces.
                fn join(conversation: &mut Self::Conversation, joins: &mut Self::Joins, from_client: bool, datagram: &Self::Datagram<'_>, tag: u64) -> Result<Vec<wiregen_runtime::Tagged<Self::Joined>>, DecodeError> {
                    #transport_protocol::join(conversation, joins, from_client, &datagram.transport, tag)
                }

                fn decode_datagram<'a>(conversation: &mut Self::Conversation, from_client: bool, bytes: &'a [u8]) -> Result<Self::Datagram<'a>, DecodeError> {
                    let transport = #transport_protocol::decode_datagram(conversation, from_client, bytes)?;
                    let message = Message::from_transport_at(&transport, bytes.len())? #keep;
                    Ok(Received { transport, message })
                }

                /// The transport's datagram with the game message encoded again in it.
                fn encode_datagram(from_client: bool, datagram: &Self::Datagram<'_>) -> Result<Vec<u8>, EncodeError> {
                    let _ = from_client;
                    let mut transport = datagram.transport.clone();
                    if let Some(m) = &datagram.message {
                        m.fill_transport(&mut transport)?;
                    }
                    transport.encode()
                }

                fn datagram_notes<'a>(from_client: bool, bytes: &'a [u8]) -> (Result<(), DecodeError>, Vec<FieldNote<'a>>) {
                    let _ = from_client;
                    let (message, notes) = Message::dissect_datagram(bytes);
                    (message.map(drop), notes)
                }

                fn each_type<V: wiregen_runtime::TypeVisitor>(visitor: &mut V) {
                    #(#types)*
                }
            }

            #feature_impls
        }
    }

    /// Every type of the schema for `each_type`: the application's messages first.
    fn visited_types(&self, a: &Application) -> Vec<TokenStream> {
        let p = self.c.p;
        a.messages
            .iter()
            .map(|(_, sid)| *sid)
            .chain((0..p.structs.len()).filter(|id| !a.messages.iter().any(|(_, m)| m == id)))
            .map(|id| self.c.marker().visit_type(id))
            .collect()
    }

    /// The feature-gated `Protocol` impls (serde, arbitrary): joined payloads are the
    /// transport's, and a random datagram carries a random message.
    fn feature_impls(&self, a: &Application, types: &[TokenStream]) -> TokenStream {
        let t = self.c.extension().other_protocol(&a.transport);
        let arbitrary_message = self.arbitrary_application_datagram(a);
        self.c.marker().feature_protocol_impls(
            types,
            quote! {
                fn serialize_joined<S: serde::Serializer>(joined: &Self::Joined, serializer: S) -> Result<S::Ok, S::Error> {
                    <#t::Protocol as wiregen_runtime::SerdeProtocol>::serialize_joined(joined, serializer)
                }

                fn joined_shape() -> wiregen_runtime::Shape {
                    <#t::Protocol as wiregen_runtime::SerdeProtocol>::joined_shape()
                }
            },
            arbitrary_message,
            quote! {
                let _ = u;
                Ok(Some(Vec::new()))
            },
        )
    }

    /// `arbitrary_message`: an arbitrary message sent through an arbitrary carrying message
    /// (with arbitrary values of its own fields).
    fn arbitrary_application_datagram(&self, a: &Application) -> TokenStream {
        let senders: Vec<TokenStream> = a
            .points
            .iter()
            .filter_map(|pt| {
                let (_, params) = application_datagrams::sender_parts(pt)?;
                let name = application_datagrams::sender_name(pt);
                let args = params.iter().map(|_| quote! { u.arbitrary()? });
                Some(quote! { m.#name(#(#args),*) })
            })
            .collect();
        match senders.len() {
            // No point the root reaches plainly: no whole datagram can be built.
            0 => quote! {
                let _ = (u, from_client);
                Err(arbitrary::Error::IncorrectFormat)
            },
            1 => quote! {
                let _ = from_client;
                let m = <Message as arbitrary::Arbitrary>::arbitrary(u)?;
                Ok(#(#senders)*)
            },
            _ => {
                let arms = senders.iter().enumerate().map(|(k, s)| {
                    let k = Literal::usize_unsuffixed(k);
                    quote! { #k => #s, }
                });
                let n = Literal::usize_unsuffixed(senders.len());
                quote! {
                    let _ = from_client;
                    let m = <Message as arbitrary::Arbitrary>::arbitrary(u)?;
                    Ok(match u.choose_index(#n)? {
                        #(#arms)*
                        _ => unreachable!("choose_index stays below its bound"),
                    })
                }
            }
        }
    }
}
