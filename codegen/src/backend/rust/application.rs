//! An application schema's `Message`: its messages by id, from and to the transport's payloads.

use super::*;

/// Renders the `application` module: an application protocol over this transport, its points and decoders.
#[derive(Clone, Copy)]
pub(crate) struct ApplicationModule<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> ApplicationModule<'p> {
    /// An application schema's `Message`: its messages by id, from and to the transport's
    /// payloads and message types.
    pub(crate) fn application_module(&self) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let Some(a) = &p.application else {
            return Ok(quote! {});
        };
        let t = self.c.extension().other_protocol(&a.transport);
        let lt = if self.c.datagrams().messages_borrow(a) {
            quote! { <'a> }
        } else {
            quote! {}
        };
        let variants: Vec<Ident> = a
            .messages
            .iter()
            .map(|(_, sid)| ident(&p.structs[*sid].name))
            .collect();
        let types: Vec<TokenStream> = a
            .messages
            .iter()
            .map(|(_, sid)| {
                let n = ident(&p.structs[*sid].name);
                if self.c.l.borrows[*sid] {
                    quote! { #n<'a> }
                } else {
                    quote! { #n }
                }
            })
            .collect();
        let ids: Vec<Literal> = a
            .messages
            .iter()
            .map(|(id, _)| Literal::u64_unsuffixed(*id))
            .collect();
        let (_, wr) = super::reader_writer(a.layout);
        let (payload_ty, payload_in, reader_new, finish_payload) = if a.layout.is_bits() {
            (
                quote! { BitString<'static> },
                quote! { &'a BitString<'_> },
                quote! { payload.reader() },
                quote! { {
                    let bits = w.len();
                    BitString::new(out, bits)
                } },
            )
        } else {
            (
                quote! { Vec<u8> },
                quote! { &'a [u8] },
                quote! { Reader::<NoTrace>::new(payload) },
                quote! { { let _ = w; out } },
            )
        };
        let points = self.application_points(a, &t);
        let (decode_fns, write_id) = self.application_decoders(a, &reader_new, &payload_in);
        let datagrams = self.c.datagrams().application_datagrams(a);
        let into_owned = self.c.datagrams().application_into_owned(a);
        let derives = self.c.features().data_derives();
        Ok(quote! {
            /// A message of this application, by the message id the transport carries.
            #derives
            pub enum Message #lt {
                #( #variants(#types), )*
            }

            impl<'a> Message #lt {
                /// The message id this message is sent with.
                pub fn id(&self) -> u64 {
                    match self {
                        #( Message::#variants(_) => #ids, )*
                    }
                }

                #decode_fns

                /// Encodes the message as a transport payload.
                pub fn encode(&self) -> Result<#payload_ty, EncodeError> {
                    let mut out = Vec::new();
                    let mut w = #wr::new(&mut out);
                    #write_id
                    match self {
                        #( Message::#variants(m) => m.write(&mut w)?, )*
                    }
                    Ok(#finish_payload)
                }

                #(#points)*

                #datagrams
            }

            #into_owned
        })
    }

    /// Per transport message carrying the application's: `from_<point>` decodes the message
    /// it carries, `fill_<point>` sets it (and its id).
    fn application_points(&self, a: &Application, t: &TokenStream) -> Vec<TokenStream> {
        let mut points = Vec::new();
        for pt in &a.points {
            let pn = ident(&pt.type_name);
            let snake = pt.type_name.to_snake_case();
            let from = format_ident!("from_{}", snake);
            let fill = format_ident!("fill_{}", snake);
            let pf = ident(&pt.payload_field);
            let (pt_in, pt_mut) = if pt.borrows {
                (quote! { &'a #t::#pn<'_> }, quote! { &mut #t::#pn<'_> })
            } else {
                (quote! { &'a #t::#pn }, quote! { &mut #t::#pn })
            };
            let payload_ref = if a.layout.is_bits() {
                quote! { &m.#pf }
            } else {
                quote! { &m.#pf[..] }
            };
            let payload_set = application_datagrams::payload_value(a, quote! { payload });
            let (decode_call, set_id) = match application_datagrams::carried_id(pt) {
                Some(application_datagrams::CarriedId {
                    field,
                    read,
                    fitted,
                }) => (
                    quote! { Self::decode(#read, #payload_ref) },
                    quote! { m.#field = #fitted; },
                ),
                None => (quote! { Self::decode(#payload_ref) }, quote! {}),
            };
            let (from_doc, fill_doc) = (
                doc_prose(&format!("Decodes the message a [`{t}::{pn}`] carries.")),
                doc_prose(&format!(
                    "Sets the message (and id) of a [`{t}::{pn}`]; its other fields are left as they are."
                )),
            );
            points.push(quote! {
                #from_doc
                pub fn #from(m: #pt_in) -> Result<Self, DecodeError> {
                    #decode_call
                }

                #fill_doc
                pub fn #fill(&self, m: #pt_mut) -> Result<(), EncodeError> {
                    #set_id
                    let payload = self.encode()?;
                    m.#pf = #payload_set;
                    Ok(())
                }
            });
        }
        points
    }

    /// `decode`, `dissect_at` and `read` of `Message`, and how `encode` writes the id: the two
    /// forms differ in where the id comes from, a parameter or the payload's start.
    fn application_decoders(
        &self,
        a: &Application,
        reader_new: &TokenStream,
        payload_in: &TokenStream,
    ) -> (TokenStream, TokenStream) {
        let p = self.c.p;
        let (rd, _) = super::reader_writer(a.layout);
        // With its own id the application reads and writes the id first; otherwise the
        // transport's message carries it.
        let own = a.own_id.map(|it| {
            let n = lit_usize(it.bytes());
            let rt = int_rust(&it);
            let abbrev = format!("{}.message_id", p.name);
            (n, rt, abbrev)
        });
        let reads = a.messages.iter().map(|(id, sid)| {
            let n = ident(&p.structs[*sid].name);
            let idl = Literal::u64_unsuffixed(*id);
            quote! { #idl => Message::#n(#n::read(r)?), }
        });
        // The two forms differ in where the id comes from: a parameter, or the payload's start.
        let (id_param, read, decode_doc, dissect_doc, read_with_id, write_id) = match &own {
            None => (
                quote! { id: u64, },
                quote! { Self::read(id, &mut reader) },
                " Decodes message `id` from a transport's payload (all of it).",
                " Decodes message `id` starting at `at` (a bit position in bit-stream transports,\n else a byte offset) of a whole transport message, and returns every field as the\n dissector shows it there.",
                quote! {},
                quote! {},
            ),
            Some((n, rt, abbrev)) => {
                let id = cast_receiver(quote! { self.id() }, &format_ident!("u64"), rt);
                (
                quote! {},
                quote! { Self::read_with_id(&mut reader) },
                " Decodes a message (its id first) from a transport's payload (all of it).",
                " Decodes a message starting at byte `at` of a whole transport message, and returns\n every field as the dissector shows it there.",
                quote! {
                    fn read_with_id<T: Trace<'a>>(r: &mut #rd<'a, T>) -> Result<Self, DecodeError> {
                        let at = r.pos();
                        let id = r.uint(#n, false, "message_id")?;
                        r.note(#abbrev, at, Value::U(id));
                        Self::read(id, r)
                    }
                },
                quote! {
                    w.put(&#id.to_le_bytes());
                },
            )
            }
        };
        let dissect_doc: Vec<&str> = dissect_doc.lines().collect();
        let decode_fns = quote! {
            #[doc = #decode_doc]
            pub fn decode(#id_param payload: #payload_in) -> Result<Self, DecodeError> {
                let mut reader = #reader_new;
                let m = #read?;
                reader.finish()?;
                Ok(m)
            }

            #(#[doc = #dissect_doc])*
            pub fn dissect_at(#id_param message: &'a [u8], at: usize) -> (Result<Self, DecodeError>, Vec<FieldNote<'a>>) {
                let mut reader = #rd::<Notes<'a>>::new(message);
                reader.seek(at);
                let m = #read.and_then(|m| reader.finish().map(|_| m));
                (m, reader.into_notes())
            }

            #read_with_id

            fn read<T: Trace<'a>>(id: u64, r: &mut #rd<'a, T>) -> Result<Self, DecodeError> {
                Ok(match id {
                    #(#reads)*
                    other => return Err(DecodeError::new("message_id", 0, DecodeErrorKind::UnknownValue { value: other })),
                })
            }
        };
        (decode_fns, write_id)
    }
}
