//! The `Protocol` marker: the schema as a whole, for tools generic over protocols.

use super::session::JoinItems;
use super::*;

/// Renders the protocol's marker type and its `Protocol` impls.
#[derive(Clone, Copy)]
pub(crate) struct ProtocolMarker<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> ProtocolMarker<'p> {
    /// `Protocol`: the schema as a whole (root, conversation, every type), so tools can take any
    /// generated protocol as a type parameter.
    pub(crate) fn protocol_marker(&self) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        if let Some(a) = &p.application {
            return Ok(self.c.application_marker().application_protocol_marker(a));
        }
        let JoinItems {
            module: join_items,
            protocol: join,
            serialize: serialize_joined,
        } = self.c.joined().join_items()?;
        let (name, title) = (&p.name, &p.title);
        let root = ident(&p.root().name);
        let root_lt = self.c.lifetime(p.root);
        let (conversation, datagram, decode) = if !p.opening.is_empty() {
            let lt = self.c.conversation().datagram_lifetime();
            (
                quote! { Conversation },
                quote! { Datagram #lt },
                quote! { conversation.decode(from_client, bytes) },
            )
        } else if !p.state.is_empty() {
            // Both sides read and write one state: what one side announces, either side's
            // later messages use (WIRE-NOTES §3: DNP links belong to the connection).
            (
                quote! { State },
                quote! { #root #root_lt },
                quote! {
                    let _ = from_client;
                    let message = #root::decode_with(bytes, conversation)?;
                    conversation.record(&message);
                    Ok(message)
                },
            )
        } else {
            (
                quote! { () },
                quote! { #root #root_lt },
                if self.c.l.reads_direction[p.root] {
                    quote! {
                        let _ = conversation;
                        #root::decode_from(bytes, from_client)
                    }
                } else {
                    quote! {
                        let _ = (conversation, from_client);
                        #root::decode(bytes)
                    }
                },
            )
        };
        // `encode_datagram` and `serialize_datagram` below work alike for the root and for the
        // opening-aware `Datagram`: both have `encode` and serialize.
        let (ports, tcp) = self.protocol_ports();
        let facts = self.c.facts().facts_protocol();
        let notes_in = self.datagram_notes_in();
        let types: Vec<TokenStream> = (0..p.structs.len()).map(|id| self.visit_type(id)).collect();
        let opening = self.arbitrary_opening();
        // The root, and the datagram enum of a conversation, encode with the direction when
        // the root reads it.
        let (encode, arbitrary) = if self.c.l.reads_direction[p.root] {
            (
                quote! { datagram.encode_from(from_client) },
                quote! { Ok(<#root as arbitrary::Arbitrary>::arbitrary(u)?.encode_from(from_client)) },
            )
        } else {
            (
                quote! {
                    let _ = from_client;
                    datagram.encode()
                },
                quote! {
                    let _ = from_client;
                    Ok(<#root as arbitrary::Arbitrary>::arbitrary(u)?.encode())
                },
            )
        };
        let feature_impls =
            self.feature_protocol_impls(&types, serialize_joined, arbitrary, opening);
        Ok(quote! {
            #join_items

            /// The schema as a whole, for tools that take any generated protocol as a type
            /// parameter (see [`wiregen_runtime::Protocol`]).
            #[derive(Debug, Clone, Copy, Default)]
            pub struct Protocol;

            impl wiregen_runtime::Protocol for Protocol {
                const NAME: &'static str = #name;
                const TITLE: &'static str = #title;
                type Root<'a> = #root #root_lt;
                type Conversation = #conversation;
                type Datagram<'a> = #datagram;
                const UDP_PORTS: &'static [u16] = &[#(#ports),*];
                #tcp
                #join
                #facts
                #notes_in

                fn decode_datagram<'a>(conversation: &mut Self::Conversation, from_client: bool, bytes: &'a [u8]) -> Result<Self::Datagram<'a>, DecodeError> {
                    #decode
                }

                fn encode_datagram(from_client: bool, datagram: &Self::Datagram<'_>) -> Result<Vec<u8>, EncodeError> {
                    #encode
                }

                fn each_type<V: wiregen_runtime::TypeVisitor>(visitor: &mut V) {
                    #(#types)*
                }
            }

            #feature_impls
        })
    }

    /// `Protocol::datagram_notes_in` of a schema whose conversations open with datagrams told
    /// apart by their order, or keep state: the datagram dissected as its conversation reads it
    /// (the lists earlier ones announced, its own recorded).
    fn datagram_notes_in(&self) -> TokenStream {
        let p = self.c.p;
        // An opening's datagrams are told apart by their order.
        if !p.opening.is_empty() {
            return quote! {
                fn datagram_notes_in<'a>(conversation: &mut Conversation, from_client: bool, bytes: &'a [u8]) -> (Result<(), DecodeError>, Vec<FieldNote<'a>>) {
                    conversation.dissect(from_client, bytes)
                }
            };
        }
        if p.state.is_empty() {
            return quote! {};
        }
        let root = ident(&p.root().name);
        quote! {
            fn datagram_notes_in<'a>(conversation: &mut State, from_client: bool, bytes: &'a [u8]) -> (Result<(), DecodeError>, Vec<FieldNote<'a>>) {
                let _ = from_client;
                let (message, notes) = #root::dissect_with(bytes, conversation);
                if let Ok(message) = &message {
                    conversation.record(message);
                }
                (message.map(drop), notes)
            }
        }
    }

    /// The UDP ports, and the TCP ports with the framing where the schema frames TCP.
    fn protocol_ports(&self) -> (Vec<Literal>, TokenStream) {
        let p = self.c.p;
        let ports: Vec<Literal> = p
            .transport
            .udp_ports
            .iter()
            .map(|x| Literal::u16_unsuffixed(*x))
            .collect();
        // The TCP ports whether or not the schema frames TCP: a tool reading a capture then
        // says that the messages cannot be found in the stream, not that there are no ports.
        let tcp_ports: Vec<Literal> = p
            .transport
            .tcp_ports
            .iter()
            .map(|x| Literal::u16_unsuffixed(*x))
            .collect();
        let tcp_ports = (!tcp_ports.is_empty()).then(|| {
            quote! { const TCP_PORTS: &'static [u16] = &[#(#tcp_ports),*]; }
        });
        let tcp = if p.transport.tcp_length_prefix.is_some() {
            quote! {
                #tcp_ports
                const TCP_FRAMING: Option<wiregen_runtime::tcp::Framing> = Some(tcp::FRAMING);
            }
        } else {
            quote! { #tcp_ports }
        };
        (ports, tcp)
    }

    /// `arbitrary_opening`: the opening datagrams of a conversation, each side's in order.
    fn arbitrary_opening(&self) -> TokenStream {
        let p = self.c.p;
        let opening: Vec<TokenStream> = p
            .opening
            .iter()
            .map(|(side, id)| {
                let n = ident(&p.structs[*id].name);
                let from_server = *side == Side::Server;
                quote! {
                    match <#n as arbitrary::Arbitrary>::arbitrary(u)?.encode() {
                        Ok(bytes) => datagrams.push((#from_server, bytes)),
                        Err(_) => return Ok(None),
                    }
                }
            })
            .collect();
        if opening.is_empty() {
            quote! {
                let _ = u;
                Ok(Some(Vec::new()))
            }
        } else {
            quote! {
                let mut datagrams = Vec::new();
                #(#opening)*
                Ok(Some(datagrams))
            }
        }
    }

    /// `visitor.visit::<T>();` for struct `id` (its `'static` form when it borrows).
    pub(crate) fn visit_type(&self, id: StructId) -> TokenStream {
        let n = ident(&self.c.p.structs[id].name);
        if self.c.l.borrows[id] {
            quote! { visitor.visit::<#n<'static>>(); }
        } else {
            quote! { visitor.visit::<#n>(); }
        }
    }

    /// The `SerdeProtocol` and `ArbitraryProtocol` impls (behind the crate's features) of a
    /// protocol whose types `types` visits and whose arbitrary datagrams the bodies build.
    pub(crate) fn feature_protocol_impls(
        &self,
        types: &[TokenStream],
        serialize_joined: TokenStream,
        arbitrary_message: TokenStream,
        arbitrary_opening: TokenStream,
    ) -> TokenStream {
        let serde = self.c.features().items(
            "serde",
            &[quote! {
            impl wiregen_runtime::SerdeProtocol for Protocol {
                fn each_serde_type<V: wiregen_runtime::SerdeTypeVisitor>(visitor: &mut V) {
                    #(#types)*
                }

                fn serialize_datagram<S: serde::Serializer>(datagram: &Self::Datagram<'_>, serializer: S) -> Result<S::Ok, S::Error> {
                    serde::Serialize::serialize(datagram, serializer)
                }

                fn datagram_shape() -> wiregen_runtime::Shape {
                    <Self::Datagram<'static> as wiregen_runtime::SerdeShape>::shape()
                }

                #serialize_joined
            }
            }],
        );
        let arbitrary_pieces = self.c.reassembly().arbitrary_pieces();
        let arbitrary_stateful = self.c.stateful_draws().arbitrary_stateful();
        let arbitrary = self.c.features().items(
            "arbitrary",
            &[quote! {
            impl wiregen_runtime::ArbitraryProtocol for Protocol {
                fn arbitrary_message(u: &mut arbitrary::Unstructured<'_>, from_client: bool) -> arbitrary::Result<Result<Vec<u8>, EncodeError>> {
                    #arbitrary_message
                }

                fn arbitrary_opening(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Option<wiregen_runtime::Opening>> {
                    #arbitrary_opening
                }

                #arbitrary_pieces
                #arbitrary_stateful
            }
            }],
        );
        quote! {
            #serde
            #arbitrary
        }
    }
}
