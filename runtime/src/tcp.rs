//! Messages on a TCP stream, each preceded by its length: [`Framing`] finds them in the bytes
//! received so far and writes them.

use crate::{fit, DecodeError, DecodeErrorKind, EncodeError};

/// How a protocol frames its messages on a TCP stream: an integer prefix giving the length of
/// the message that follows (not counting the prefix).
///
/// ```
/// use wiregen_runtime::tcp::Framing;
/// // A little-endian u16 prefix, messages of at most 1000 bytes.
/// const FRAMING: Framing = Framing::new(2, false, false, 1000);
/// let mut stream = Vec::new();
/// FRAMING.frame_into(b"hello", &mut stream)?;
/// assert_eq!(stream, b"\x05\x00hello");
/// stream.extend_from_slice(b"\x03\x00ab"); // a frame still arriving
/// let mut frames = FRAMING.frames(&stream);
/// assert_eq!(frames.next().transpose()?, Some(&b"hello"[..]));
/// assert_eq!(frames.next().transpose()?, None);
/// assert_eq!(frames.rest(), b"\x03\x00ab");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
    prefix_len: usize,
    big_endian: bool,
    signed: bool,
    max_message: usize,
}

impl Framing {
    /// A prefix of `prefix_len` bytes (1 to 8), big- or little-endian, signed or not; a prefix
    /// announcing more than `max_message` bytes means the stream is out of step.
    pub const fn new(
        prefix_len: usize,
        big_endian: bool,
        signed: bool,
        max_message: usize,
    ) -> Self {
        assert!(
            prefix_len >= 1 && prefix_len <= 8,
            "a prefix is 1 to 8 bytes"
        );
        Framing {
            prefix_len,
            big_endian,
            signed,
            max_message,
        }
    }

    /// Bytes of the length prefix.
    pub const fn prefix_len(&self) -> usize {
        self.prefix_len
    }

    /// The largest message a prefix may announce.
    pub const fn max_message(&self) -> usize {
        self.max_message
    }

    /// Appends `message` with its length prefix; a message over the limit is refused.
    pub fn frame_into(&self, message: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let n = fit(
            message.len() as u64,
            self.max_message as u64,
            "frame_length",
        )?;
        let bytes = n.to_le_bytes();
        let prefix = &bytes[..self.prefix_len];
        if self.big_endian {
            out.extend(prefix.iter().rev());
        } else {
            out.extend_from_slice(prefix);
        }
        out.extend_from_slice(message);
        Ok(())
    }

    /// The first complete frame of `stream`: the message bytes and how many bytes the frame
    /// takes, or `None` while more bytes are needed. A negative prefix, or one over the limit,
    /// is an error at once (the stream is out of step) rather than a wait for bytes that will
    /// never come.
    pub fn next_frame<'s>(
        &self,
        stream: &'s [u8],
    ) -> Result<Option<(&'s [u8], usize)>, DecodeError> {
        let Some(prefix) = stream.get(..self.prefix_len) else {
            return Ok(None);
        };
        let fold = |acc: u64, b: &u8| (acc << 8) | u64::from(*b);
        let raw = if self.big_endian {
            prefix.iter().fold(0, fold)
        } else {
            prefix.iter().rev().fold(0, fold)
        };
        let shift = 64 - 8 * self.prefix_len as u32;
        let declared = if self.signed {
            i128::from(((raw << shift) as i64) >> shift)
        } else {
            i128::from(raw)
        };
        let n = usize::try_from(declared).map_err(|_| {
            DecodeError::new(
                "frame_length",
                0,
                DecodeErrorKind::BadLength { value: declared },
            )
        })?;
        if n > self.max_message {
            return Err(DecodeError::new(
                "frame_length",
                0,
                DecodeErrorKind::TooLarge {
                    value: n as u64,
                    max: self.max_message as u64,
                },
            ));
        }
        let end = self.prefix_len + n;
        Ok(stream
            .get(self.prefix_len..end)
            .map(|message| (message, end)))
    }

    /// The complete frames of a stream buffer, in order.
    pub fn frames<'s>(&self, stream: &'s [u8]) -> Frames<'s> {
        Frames {
            framing: *self,
            stream,
            pos: 0,
            failed: false,
        }
    }
}

/// The complete frames of a stream buffer, in order ([`Framing::frames`]); [`Frames::rest`] is
/// the incomplete tail to keep until more bytes arrive. After an error it yields nothing more.
#[derive(Debug, Clone)]
pub struct Frames<'s> {
    framing: Framing,
    stream: &'s [u8],
    pos: usize,
    failed: bool,
}

impl<'s> Frames<'s> {
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
        match self.framing.next_frame(&self.stream[self.pos..]) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_big_endian_prefixes() {
        let f = Framing::new(4, true, true, 1 << 20);
        assert_eq!(
            f.next_frame(&[0xFF, 0xFF, 0xFF, 0xFF]).unwrap_err().kind,
            DecodeErrorKind::BadLength { value: -1 }
        );
        assert_eq!(
            f.next_frame(&[0x7F, 0xFF, 0xFF, 0xFF]).unwrap_err().kind,
            DecodeErrorKind::TooLarge {
                value: 0x7FFF_FFFF,
                max: 1 << 20
            }
        );
        let mut out = Vec::new();
        f.frame_into(b"ab", &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 2, b'a', b'b']);
        assert_eq!(f.next_frame(&out).unwrap(), Some((&b"ab"[..], 6)));
        assert_eq!(f.next_frame(&out[..5]).unwrap(), None);
    }

    #[test]
    fn an_error_names_its_offset_in_the_buffer() {
        let f = Framing::new(1, false, false, 3);
        let stream = [1, b'x', 9, 0];
        let mut frames = f.frames(&stream);
        assert_eq!(frames.next().unwrap().unwrap(), b"x");
        let e = frames.next().unwrap().unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(frames.next().is_none());
    }
}
