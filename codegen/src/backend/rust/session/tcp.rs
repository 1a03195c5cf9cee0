//! TCP framing: frames out of a byte stream, and into one.

use super::*;

impl<'p> Gen<'p> {
    /// Framing helpers for a protocol that runs over TCP with a length prefix.
    pub(crate) fn tcp_module(&self) -> TokenStream {
        let Some(it) = self.p.transport.tcp_length_prefix else {
            return quote! {};
        };
        let root = ident(&self.p.root().name);
        let lt = if self.l.borrows[self.p.root] {
            quote! { <'_> }
        } else {
            quote! {}
        };
        let t = int_rust(&it);
        let k = lit_usize(it.bytes());
        let max = lit_usize(self.p.transport.tcp_max_message as usize);
        let (to, from) = if it.endian == Endian::Big {
            (quote! { to_be_bytes }, quote! { from_be_bytes })
        } else {
            (quote! { to_le_bytes }, quote! { from_le_bytes })
        };
        // Only a prefix that can announce more than the limit needs the check.
        let too_large = if self.p.transport.tcp_max_message < it.max_value() {
            quote! {
                if n > MAX_MESSAGE {
                    return Err(DecodeError::new(
                        "frame_length",
                        0,
                        DecodeErrorKind::TooLarge { value: n as u64, max: MAX_MESSAGE as u64 },
                    ));
                }
            }
        } else {
            quote! {}
        };
        let doc = format!(
            " TCP framing: every message is preceded by its length as `{}{}` ({}), not counting the prefix.",
            if it.signed { "i" } else { "u" },
            it.bits,
            if it.endian == Endian::Big { "big-endian" } else { "little-endian" }
        );
        quote! {
            #[doc = #doc]
            pub mod tcp {
                use super::*;

                /// Bytes of the length prefix.
                pub const PREFIX_LEN: usize = #k;
                /// The largest message a prefix may announce (the schema's `max_message`): a
                /// larger one means the stream is out of step, and [`next_frame`] refuses it
                /// instead of waiting for bytes that will never come.
                pub const MAX_MESSAGE: usize = #max;

                /// Appends an encoded message with its length prefix.
                pub fn frame_into(message: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
                    let n = fit(message.len() as u64, MAX_MESSAGE as u64, "frame_length")?;
                    out.extend_from_slice(&(n as #t).#to());
                    out.extend_from_slice(message);
                    Ok(())
                }

                /// Encodes `message` with its length prefix.
                pub fn encode(message: &#root #lt) -> Result<Vec<u8>, EncodeError> {
                    let body = message.encode()?;
                    let mut out = Vec::with_capacity(PREFIX_LEN + body.len());
                    frame_into(&body, &mut out)?;
                    Ok(out)
                }

                /// The first complete frame of `stream`: the message bytes and how many bytes the
                /// frame takes, or `None` while more bytes are needed. A negative prefix, or one
                /// over [`MAX_MESSAGE`], is an error at once: the stream is out of step.
                #[allow(clippy::unnecessary_fallible_conversions)] // infallible only for narrow prefixes
                pub fn next_frame(stream: &[u8]) -> Result<Option<(&[u8], usize)>, DecodeError> {
                    if stream.len() < PREFIX_LEN {
                        return Ok(None);
                    }
                    let mut prefix = [0u8; PREFIX_LEN];
                    prefix.copy_from_slice(&stream[..PREFIX_LEN]);
                    let declared = #t::#from(prefix);
                    let n = usize::try_from(declared).map_err(|_| {
                        DecodeError::new("frame_length", 0, DecodeErrorKind::BadLength { value: declared as i128 })
                    })?;
                    #too_large
                    if stream.len() - PREFIX_LEN < n {
                        return Ok(None);
                    }
                    Ok(Some((&stream[PREFIX_LEN..PREFIX_LEN + n], PREFIX_LEN + n)))
                }

                /// The complete frames of a stream buffer, in order; [`Frames::rest`] is the
                /// incomplete tail to keep until more bytes arrive.
                pub struct Frames<'s> {
                    stream: &'s [u8],
                    pos: usize,
                    failed: bool,
                }

                impl<'s> Frames<'s> {
                    pub fn new(stream: &'s [u8]) -> Self {
                        Frames { stream, pos: 0, failed: false }
                    }

                    /// Bytes not yet returned as a frame.
                    pub fn rest(&self) -> &'s [u8] {
                        &self.stream[self.pos..]
                    }
                }

                impl<'s> Iterator for Frames<'s> {
                    type Item = Result<&'s [u8], DecodeError>;

                    fn next(&mut self) -> Option<Self::Item> {
                        if self.failed {
                            return None;
                        }
                        match next_frame(&self.stream[self.pos..]) {
                            Ok(Some((message, used))) => {
                                self.pos += used;
                                Some(Ok(message))
                            }
                            Ok(None) => None,
                            Err(mut e) => {
                                self.failed = true;
                                e.offset += self.pos;
                                Some(Err(e))
                            }
                        }
                    }
                }
            }
        }
    }

    // ---- enums and flags ----------------------------------------------------------------------
}
