//! TCP framing: frames out of a byte stream, and into one.

use super::*;

/// Renders the `tcp` module: the stream's framing.
#[derive(Clone, Copy)]
pub(crate) struct TcpModule<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> TcpModule<'p> {
    /// Framing helpers for a protocol that runs over TCP with a length prefix.
    pub(crate) fn tcp_module(&self) -> TokenStream {
        let Some(it) = self.c.p.transport.tcp_length_prefix else {
            return quote! {};
        };
        let root = ident(&self.c.p.root().name);
        let lt = if self.c.l.borrows[self.c.p.root] {
            quote! { <'_> }
        } else {
            quote! {}
        };
        let k = lit_usize(it.bytes());
        let max = lit_usize(self.c.p.transport.tcp_max_message as usize);
        let counted = self.c.p.transport.tcp_counted;
        let at = self.c.p.transport.tcp_length_at;
        let place = match at {
            Some(at) => format!("holds its length at byte {at}"),
            None => "is preceded by its length".into(),
        };
        let doc = doc_prose(&format!(
            "TCP framing: every message {place} as `{}` ({}), {}.",
            it.name(),
            it.endian.words(),
            self.c.p.transport.tcp_counts()
        ));
        let (big, signed) = (it.endian == Endian::Big, it.signed);
        let mut framing = quote! { Framing::new(#k, #big, #signed, MAX_MESSAGE) };
        if let Some(at) = at {
            let at = lit_usize(at);
            framing = quote! { #framing.inside_at(#at) };
        }
        if counted != 0 {
            let c = Literal::i64_unsuffixed(counted);
            framing = quote! { #framing.counting(#c) };
        }
        quote! {
            #doc
            pub mod tcp {
                use super::*;
                pub use wiregen_runtime::tcp::{Framing, Frames};

                /// This protocol's framing: the prefix, and the largest message it may announce
                /// (the schema's `max_message`).
                pub const FRAMING: Framing = #framing;
                /// Bytes of the length prefix.
                pub const PREFIX_LEN: usize = #k;
                /// The largest message a prefix may announce: a larger one means the stream is
                /// out of step, and [`next_frame`] refuses it.
                pub const MAX_MESSAGE: usize = #max;

                /// Appends an encoded message with its length prefix.
                pub fn frame_into(message: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
                    FRAMING.frame_into(message, out)
                }

                /// Encodes `message` with its length prefix.
                pub fn encode(message: &#root #lt) -> Result<Vec<u8>, EncodeError> {
                    let body = message.encode()?;
                    let mut out = Vec::with_capacity(PREFIX_LEN + body.len());
                    FRAMING.frame_into(&body, &mut out)?;
                    Ok(out)
                }

                /// The first complete frame of `stream` (see [`Framing::next_frame`]).
                pub fn next_frame(stream: &[u8]) -> Result<Option<(&[u8], usize)>, DecodeError> {
                    FRAMING.next_frame(stream)
                }

                /// The complete frames of a stream buffer, in order (see [`Framing::frames`]).
                pub fn frames(stream: &[u8]) -> Frames<'_> {
                    FRAMING.frames(stream)
                }
            }
        }
    }

    // ---- enums and flags ----------------------------------------------------------------------
}
