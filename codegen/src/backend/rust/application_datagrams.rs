//! An application's messages as whole transport datagrams: `receive` (a datagram in, the game
//! message it carries out), `from_transport` (the same from a datagram the game decoded itself,
//! with the transport's state) and one `encode_<point>` per place that carries messages (a game
//! message in, the bytes to send out). One call each way: the transport's types stay out of the
//! game's code unless it wants them.

use super::*;

/// Renders an application's datagrams: the messages of each direction and how they are sent and routed.
#[derive(Clone, Copy)]
pub(crate) struct ApplicationDatagrams<'p> {
    pub(crate) c: Crate<'p>,
}

/// `inner` nested along `route` from the transport's root: each step's struct literal around
/// the switch variant holding the next. With `rest` = `, ..` a pattern (binding `inner`),
/// empty a value.
fn route_nest(
    t: &TokenStream,
    route: &[RouteStep],
    inner: TokenStream,
    rest: TokenStream,
) -> TokenStream {
    let mut out = inner;
    for step in route.iter().rev() {
        if let Some((enum_name, variant)) = &step.variant {
            let (e, v) = (ident(enum_name), variant_ident(variant));
            out = quote! { #t::#e::#v(#out) };
        }
        let (s, f) = (ident(&step.struct_name), ident(&step.field));
        out = quote! { #t::#s { #f: #out #rest } };
    }
    out
}

/// How a point's value is reached in the transport's root: a pattern binding it as `m`.
fn route_pattern(t: &TokenStream, route: &[RouteStep]) -> TokenStream {
    route_nest(t, route, quote! { m }, quote! { , .. })
}

/// The path a doc comment shows: `Message.body: Unreliable(UserMessage)`.
fn route_doc(route: &[RouteStep], point: &str) -> String {
    let mut text = point.to_string();
    for step in route.iter().rev() {
        if let Some((_, variant)) = &step.variant {
            text = format!("{variant}({text})");
        }
        text = format!("{} {{ {}: {text} }}", step.struct_name, step.field);
    }
    text
}

/// A point's single route and its parameters, when a sender can build the whole datagram: the
/// root holds the point one way, through types with no other field the user sets.
pub(crate) fn sender_parts(pt: &PointInfo) -> Option<(&[RouteStep], &[PointParam])> {
    let [route] = pt.routes.as_slice() else {
        return None;
    };
    let params = pt.params.as_ref()?;
    route
        .iter()
        .all(|s| s.only_field)
        .then_some((route.as_slice(), params.as_slice()))
}

/// The sender of a point: `encode_user_message`.
pub(crate) fn sender_name(pt: &PointInfo) -> Ident {
    format_ident!("encode_{}", pt.type_name.to_snake_case())
}

/// A point whose transport carries the message id: its id field, the id it holds (read from
/// `m`, as `u64`), and this message's id fitted to the field (`fit(self.id(), …)?`).
pub(crate) struct CarriedId {
    pub field: Ident,
    pub read: TokenStream,
    pub fitted: TokenStream,
}

pub(crate) fn carried_id(pt: &PointInfo) -> Option<CarriedId> {
    let (idf, id_rust) = pt.id.as_ref()?;
    let field = ident(idf);
    let id_ty = ident(id_rust);
    let u64_t = format_ident!("u64");
    let max = cast(quote! { #id_ty::MAX }, &id_ty, &u64_t);
    Some(CarriedId {
        read: cast(quote! { m.#field }, &id_ty, &u64_t),
        fitted: cast(quote! { fit(self.id(), #max, #idf)? }, &u64_t, &id_ty),
        field,
    })
}

/// A point's payload field set to `encoded` (what `Message::encode` returned).
pub(crate) fn payload_value(a: &Application, encoded: TokenStream) -> TokenStream {
    if a.layout.is_bits() {
        encoded
    } else {
        quote! { Cow::Owned(#encoded) }
    }
}

/// Doc comment lines: each paragraph wrapped, an empty line between paragraphs.
fn doc_paragraphs(paragraphs: &[String]) -> TokenStream {
    let mut lines = Vec::new();
    for (k, text) in paragraphs.iter().enumerate() {
        if k > 0 {
            lines.push(String::new());
        }
        lines.extend(wrap(text).into_iter().map(|l| format!(" {l}")));
    }
    quote! { #( #[doc = #lines] )* }
}

impl<'p> ApplicationDatagrams<'p> {
    /// Whether a message of the application borrows its input (so `Message` has a lifetime).
    pub(crate) fn messages_borrow(&self, a: &Application) -> bool {
        a.messages.iter().any(|(_, sid)| self.c.l.borrows[*sid])
    }

    /// `IntoOwned` for an application `Message` that borrows (so `receive` can hand out
    /// messages decoded from payloads the transport had to copy).
    pub(crate) fn application_into_owned(&self, a: &Application) -> TokenStream {
        let p = self.c.p;
        if !self.messages_borrow(a) {
            return quote! {};
        }
        let arms = a.messages.iter().map(|(_, sid)| {
            let n = ident(&p.structs[*sid].name);
            if self.c.l.borrows[*sid] {
                quote! { Message::#n(m) => Message::#n(IntoOwned::into_owned(m)), }
            } else {
                quote! { Message::#n(m) => Message::#n(m), }
            }
        });
        quote! {
            impl IntoOwned for Message<'_> {
                type Owned = Message<'static>;
                /// Copies the strings and bytes this message borrows from its input.
                fn into_owned(self) -> Message<'static> {
                    match self { #(#arms)* }
                }
            }
        }
    }

    /// `receive`, `from_transport` and the `encode_<point>` senders, inside `impl Message`.
    pub(crate) fn application_datagrams(&self, a: &Application) -> TokenStream {
        let t = self.c.extension().other_protocol(&a.transport);
        let root = ident(&a.transport_root);
        let root_ref = if a.transport_root_borrows {
            quote! { &'a #t::#root<'_> }
        } else {
            quote! { &'a #t::#root }
        };
        let owned = self.messages_borrow(a);
        let mut arms = RouteArms::default();
        let mut senders = Vec::new();
        for pt in &a.points {
            self.route_arms(a, pt, &t, owned, &mut arms);
            if let Some(sender) = self.application_sender(a, pt, &t) {
                senders.push(sender);
            }
        }
        let RouteArms {
            by_ref,
            by_value,
            by_mut,
            dissect,
        } = arms;
        if by_ref.is_empty() {
            return quote! { #(#senders)* };
        }
        // A match on the routes, with a catch-all for datagrams that carry no message (acks,
        // heartbeats) when the transport has any; where the root itself is the point, a `let`.
        let every = a.every_datagram_carries;
        let routes =
            |subject: TokenStream, arms: &[(TokenStream, TokenStream)], none: TokenStream| {
                if let [(pat, body)] = arms {
                    if pat.to_string() == "m" {
                        let body = ungrouped(body.clone(), proc_macro2::Delimiter::Brace);
                        return quote! { let m = #subject; #body };
                    }
                }
                let arms = arms.iter().map(|(pat, body)| quote! { #pat => #body, });
                let catch_all = (!every).then(|| quote! { _ => #none, });
                quote! { match #subject { #(#arms)* #catch_all } }
            };
        let receive = routes(
            quote! { <#t::#root as Codec>::decode(datagram)? },
            &by_value,
            quote! { Ok(None) },
        );
        let carried = routes(quote! { datagram }, &by_ref, quote! { Ok(None) });
        let fill = routes(quote! { datagram }, &by_mut, quote! { Ok(false) });
        let dissected = match routes(
            quote! { &transport },
            &dissect,
            quote! { return (Ok(None), notes) },
        ) {
            // A `let` is a block's statement here.
            m if every && dissect.len() == 1 => quote! { { #m } },
            m => m,
        };
        let transport = &a.transport;
        let receive_doc = doc_paragraphs(&[
            format!("Receives a game message: decodes a whole `{transport}` datagram (a [`{transport}::{root}`]) and the message it carries, if any (`Ok(None)`: the datagram is the transport's own, such as an ack)."),
            "Decoding is stateless; a game that keeps the transport's state decodes datagrams itself and calls [`Self::from_transport`].".to_string(),
        ]);
        let from_doc = doc_paragraphs(&[format!(
            "The game message a decoded `{transport}` datagram carries, if any (`Ok(None)`: it carries none). An error's position counts from the payload's start ([`Self::receive`] counts from the datagram's)."
        )]);
        let from_at_doc = doc_paragraphs(&[
            "Like [`Self::from_transport`], with error positions counted from the start of the datagram (`datagram_len` bytes) that `datagram` was decoded from.".to_string(),
        ]);
        let fill_doc = doc_paragraphs(&[format!(
            "Puts this message (and its id) in a `{transport}` datagram that carries one, its other fields left as they are; `Ok(false)` when `datagram` carries none."
        )]);
        let dissect_doc = doc_paragraphs(&[
            format!("Decodes like [`Self::receive`] and also returns every field of both layers, the `{transport}` datagram's and the game message's, as the two dissectors show them (offsets from the datagram's first byte), up to the point of any error."),
        ]);
        let root_mut = if a.transport_root_borrows {
            quote! { &mut #t::#root<'_> }
        } else {
            quote! { &mut #t::#root }
        };
        quote! {
            #receive_doc
            pub fn receive(datagram: &'a [u8]) -> Result<Option<Self>, DecodeError> {
                #receive
            }

            #from_doc
            pub fn from_transport(datagram: #root_ref) -> Result<Option<Self>, DecodeError> {
                Self::carried(datagram, None)
            }

            #from_at_doc
            pub fn from_transport_at(datagram: #root_ref, datagram_len: usize) -> Result<Option<Self>, DecodeError> {
                Self::carried(datagram, Some(datagram_len))
            }

            fn carried(datagram: #root_ref, datagram_len: Option<usize>) -> Result<Option<Self>, DecodeError> {
                #carried
            }

            #fill_doc
            pub fn fill_transport(&self, datagram: #root_mut) -> Result<bool, EncodeError> {
                #fill
            }

            #dissect_doc
            pub fn dissect_datagram(datagram: &'a [u8]) -> (Result<Option<Self>, DecodeError>, Vec<FieldNote<'a>>) {
                let (transport, mut notes) = <#t::#root as Codec>::dissect(datagram);
                let transport = match transport {
                    Ok(transport) => transport,
                    Err(e) => return (Err(e), notes),
                };
                let (message, more) = #dissected;
                notes.extend(more);
                (message.map(Some), notes)
            }

            #(#senders)*
        }
    }

    /// The match arms of one carrying message's routes: how `carried` (by reference),
    /// `receive` (by value), `fill_transport` and `dissect_datagram` reach its payload.
    fn route_arms(
        &self,
        a: &Application,
        pt: &PointInfo,
        t: &TokenStream,
        owned: bool,
        arms: &mut RouteArms,
    ) {
        let from = format_ident!("from_{}", pt.type_name.to_snake_case());
        let pf = ident(&pt.payload_field);
        let id_arg = carried_id(pt).map(|id| {
            let read = id.read;
            quote! { #read, }
        });
        let keep = if owned {
            quote! { .map(|x| Some(IntoOwned::into_owned(x))) }
        } else {
            quote! { .map(Some) }
        };
        // By value, a payload borrowed from the datagram gives a message borrowing it too;
        // one the transport copied (realigned bits, joined pieces) gives an owned message.
        let take = if a.layout.is_bits() {
            quote! { Message::decode(#id_arg &m.#pf) #keep }
        } else {
            quote! { match m.#pf {
                Cow::Borrowed(b) => Self::decode(#id_arg b).map(Some),
                Cow::Owned(v) => Message::decode(#id_arg &v) #keep,
            } }
        };
        let fill = format_ident!("fill_{}", pt.type_name.to_snake_case());
        // The payload runs to the datagram's end (`len` bytes): it starts where its length
        // says, a bit position in bit streams, else a byte offset.
        let start_in = |len: TokenStream| {
            if a.layout.is_bits() {
                quote! { #len * 8 - m.#pf.bits() }
            } else {
                quote! { #len - m.#pf.len() }
            }
        };
        let payload_start = |at: TokenStream| {
            if a.layout.is_bits() {
                quote! { wiregen_runtime::PayloadStart::Bit(#at) }
            } else {
                quote! { wiregen_runtime::PayloadStart::Byte(#at) }
            }
        };
        let at = start_in(quote! { datagram.len() });
        let at_len = payload_start(start_in(quote! { len }));
        let start = payload_start(quote! { at });
        for route in &pt.routes {
            let pat = route_pattern(t, route);
            // Errors in the game message name the transport's fields down to the payload.
            let path = route
                .iter()
                .map(|step| step.field.as_str())
                .chain([pt.payload_field.as_str()]);
            let path = quote! { &[#(#path),*] };
            arms.by_ref.push((
                pat.clone(),
                quote! {
                    Self::#from(m).map(Some).map_err(|e| {
                        e.in_payload(#path, datagram_len.map(|len| #at_len))
                    })
                },
            ));
            arms.by_value.push((
                pat.clone(),
                quote! { {
                    let at = #at;
                    #take.map_err(|e| e.in_payload(#path, Some(#start)))
                } },
            ));
            arms.by_mut
                .push((pat.clone(), quote! { { self.#fill(m)?; Ok(true) } }));
            arms.dissect.push((
                pat,
                quote! { {
                    let (message, notes) = Self::dissect_at(#id_arg datagram, #at);
                    (message.map_err(|e| e.in_payload(#path, None)), notes)
                } },
            ));
        }
    }

    /// `encode_<point>(&self, <the point's other fields>)`: the message as a whole transport
    /// datagram, when the point is reached one way and every type on it can be built (their
    /// other fields are derived).
    fn application_sender(
        &self,
        a: &Application,
        pt: &PointInfo,
        t: &TokenStream,
    ) -> Option<TokenStream> {
        let (route, params) = sender_parts(pt)?;
        let name = sender_name(pt);
        let pn = ident(&pt.type_name);
        let pf = ident(&pt.payload_field);
        let args = params.iter().map(|prm| {
            let n = ident(&prm.name);
            let ty: TokenStream = if prm.transport_type {
                let ty = ident(&prm.rust);
                quote! { #t::#ty }
            } else {
                let ty = ident(&prm.rust);
                quote! { #ty }
            };
            quote! { #n: #ty }
        });
        let arg_names: Vec<Ident> = params.iter().map(|prm| ident(&prm.name)).collect();
        let id = carried_id(pt).map(|CarriedId { field, fitted, .. }| quote! { #field: #fitted, });
        let payload = payload_value(a, quote! { self.encode()? });
        let value = route_nest(
            t,
            route,
            quote! { #t::#pn { #(#arg_names,)* #id #pf: #payload } },
            quote! {},
        );
        let mut paragraphs = vec![format!(
            "Encodes the message as a whole `{}` datagram, ready to send: a `{}`; its encoder fills the rest.",
            a.transport,
            route_doc(route, &pt.type_name),
        )];
        for prm in params {
            let what = prm
                .doc
                .as_deref()
                .unwrap_or("set by the game's session layer.");
            paragraphs.push(format!("`{}`: {what}", prm.name));
        }
        let doc = doc_paragraphs(&paragraphs);
        Some(quote! {
            #doc
            pub fn #name(&self, #(#args),*) -> Result<Vec<u8>, EncodeError> {
                Codec::encode(&#value)
            }
        })
    }
}

/// Per way a carrying message is reached (a pattern) what each function of `Message` does.
#[derive(Default)]
struct RouteArms {
    by_ref: Vec<(TokenStream, TokenStream)>,
    by_value: Vec<(TokenStream, TokenStream)>,
    by_mut: Vec<(TokenStream, TokenStream)>,
    dissect: Vec<(TokenStream, TokenStream)>,
}
