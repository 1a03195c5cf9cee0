//! Messages on a TCP stream, each preceded by its length: [`Framing`] finds them in the bytes
//! received so far and writes them.

use crate::{fit, DecodeError, DecodeErrorKind, EncodeError};

/// How a protocol frames its messages on a TCP stream: an integer prefix giving the length of
/// the message that follows (not counting the prefix, unless [`Framing::counting`] says what
/// else it counts).
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
    /// What the prefix's value counts besides the message (its own bytes, say).
    counted: i64,
    /// Where the length sits inside the message, when the message holds it as a field of its
    /// own header (after a type byte, say): the frame is then the message, nothing is added.
    inside_at: Option<usize>,
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
            counted: 0,
            inside_at: None,
        }
    }

    /// The same framing with the length inside the message, at byte `at` of its header (a
    /// field the message's own schema reads and its encoder fills): nothing is put before the
    /// message, and the frame is the whole message. [`Framing::counting`] then says what the
    /// value counts besides the whole message (`-(at + prefix)` for a length of what follows
    /// it).
    ///
    /// ```
    /// use wiregen_runtime::tcp::Framing;
    /// // A type byte, then a u16be length of the whole message.
    /// const FRAMING: Framing = Framing::new(2, true, false, 1000).inside_at(1);
    /// let mut stream = Vec::new();
    /// FRAMING.frame_into(b"\x07\x00\x05hi", &mut stream)?;
    /// assert_eq!(stream, b"\x07\x00\x05hi");
    /// assert_eq!(FRAMING.frames(&stream).next().transpose()?, Some(&b"\x07\x00\x05hi"[..]));
    /// // A message whose length field disagrees with its size is refused.
    /// assert!(FRAMING.frame_into(b"\x07\x00\x09hi", &mut stream).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn inside_at(mut self, at: usize) -> Self {
        self.inside_at = Some(at);
        self
    }

    /// The byte of the message the length is read at, when the message holds it.
    pub const fn length_inside_at(&self) -> Option<usize> {
        self.inside_at
    }

    /// Bytes the framing puts before each message: the prefix, or none when the length is a
    /// field of the message.
    pub const fn header_len(&self) -> usize {
        match self.inside_at {
            Some(_) => 0,
            None => self.prefix_len,
        }
    }

    /// The integer of `prefix_len` bytes at the start of `bytes`, as the framing reads it.
    fn read_prefix(&self, bytes: &[u8]) -> i128 {
        let fold = |acc: u64, b: &u8| (acc << 8) | u64::from(*b);
        let raw = if self.big_endian {
            bytes.iter().fold(0, fold)
        } else {
            bytes.iter().rev().fold(0, fold)
        };
        let shift = 64 - 8 * self.prefix_len as u32;
        if self.signed {
            i128::from(((raw << shift) as i64) >> shift)
        } else {
            i128::from(raw)
        }
    }

    /// The same framing, its prefix's value counting `counted` bytes besides the message: the
    /// prefix's own bytes when it counts the whole frame (`counting(2)` for a u16 size that
    /// includes itself), or any constant a protocol adds.
    ///
    /// ```
    /// use wiregen_runtime::tcp::Framing;
    /// const FRAMING: Framing = Framing::new(2, false, false, 1000).counting(2);
    /// let mut stream = Vec::new();
    /// FRAMING.frame_into(b"hello", &mut stream)?;
    /// assert_eq!(stream, b"\x07\x00hello");
    /// assert_eq!(FRAMING.frames(&stream).next().transpose()?, Some(&b"hello"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn counting(mut self, counted: i64) -> Self {
        self.counted = counted;
        self
    }

    /// What the prefix's value counts besides the message.
    pub const fn counted(&self) -> i64 {
        self.counted
    }

    /// Bytes of the length prefix.
    pub const fn prefix_len(&self) -> usize {
        self.prefix_len
    }

    /// The largest message a prefix may announce.
    pub const fn max_message(&self) -> usize {
        self.max_message
    }

    /// Appends `message` with its length prefix; a message over the limit is refused. When
    /// the message holds its length ([`Framing::inside_at`]) it is appended as it is, once its
    /// length field is checked against its size.
    pub fn frame_into(&self, message: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let n = fit(
            message.len() as u64,
            self.max_message as u64,
            "frame_length",
        )?;
        if let Some(at) = self.inside_at {
            let expected = i128::from(n) + i128::from(self.counted);
            let field = message.get(at..at + self.prefix_len);
            let value = field.map(|b| self.read_prefix(b));
            if value != Some(expected) {
                return Err(EncodeError::new(
                    "frame_length",
                    crate::EncodeErrorKind::LengthMismatch {
                        expected: value.unwrap_or(-1),
                        actual: message.len(),
                    },
                ));
            }
            out.extend_from_slice(message);
            return Ok(());
        }
        // The schema keeps max_message + counted within the prefix.
        let n = (i128::from(n) + i128::from(self.counted)) as u64;
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
        let at = self.inside_at.unwrap_or(0);
        let Some(prefix) = stream.get(at..at + self.prefix_len) else {
            return Ok(None);
        };
        let value = self.read_prefix(prefix);
        // A value counting less than what it always counts besides the message is as
        // impossible as a negative one (or, inside the message, one that ends the message
        // before its own length field): the stream is out of step.
        let declared = value - i128::from(self.counted);
        let shortest = at + self.prefix_len;
        let n = usize::try_from(declared)
            .ok()
            .filter(|&n| self.inside_at.is_none() || n >= shortest)
            .ok_or_else(|| {
                DecodeError::new(
                    "frame_length",
                    at,
                    DecodeErrorKind::BadLength { value: declared },
                )
            })?;
        if n > self.max_message {
            return Err(DecodeError::new(
                "frame_length",
                at,
                DecodeErrorKind::TooLarge {
                    value: n as u64,
                    max: self.max_message as u64,
                },
            ));
        }
        let start = self.header_len();
        let end = start + n;
        Ok(stream.get(start..end).map(|message| (message, end)))
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
    fn a_prefix_that_counts_itself() {
        // OpenTTD's framing: a u16le size of the whole packet, itself included.
        let f = Framing::new(2, false, false, 100).counting(2);
        let mut stream = Vec::new();
        f.frame_into(b"\x01abc", &mut stream).unwrap();
        f.frame_into(b"", &mut stream).unwrap();
        assert_eq!(stream, b"\x06\x00\x01abc\x02\x00");
        let frames: Vec<&[u8]> = f.frames(&stream).map(Result::unwrap).collect();
        assert_eq!(frames, [&b"\x01abc"[..], &b""[..]]);
        // Cut anywhere, a frame waits for its bytes.
        for cut in 0..stream.len() {
            let whole = f.frames(&stream[..cut]).count();
            assert!(whole <= 2, "{cut}");
        }
        // A size of 1 cannot count its own two bytes: out of step.
        let e = f.next_frame(b"\x01\x00").unwrap_err();
        assert!(
            matches!(e.kind, DecodeErrorKind::BadLength { value: -1 }),
            "{e:?}"
        );
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

    #[test]
    fn a_length_inside_the_message_header() {
        // A type byte, then a u16le size of the whole message (itself and the type included).
        let f = Framing::new(2, false, false, 100).inside_at(1);
        let mut stream = Vec::new();
        f.frame_into(b"\x09\x05\x00ab", &mut stream).unwrap();
        f.frame_into(b"\x01\x03\x00", &mut stream).unwrap();
        assert_eq!(f.header_len(), 0);
        let frames: Vec<&[u8]> = f.frames(&stream).map(Result::unwrap).collect();
        assert_eq!(frames, [&b"\x09\x05\x00ab"[..], &b"\x01\x03\x00"[..]]);
        for cut in 0..stream.len() {
            assert!(f.frames(&stream[..cut]).count() <= 2, "{cut}");
        }
        // The length must agree with the message the encoder made.
        let e = f.frame_into(b"\x09\x04\x00ab", &mut stream).unwrap_err();
        assert!(
            matches!(e.kind, crate::EncodeErrorKind::LengthMismatch { .. }),
            "{e:?}"
        );
        // A size that ends before the length field itself: out of step, said at the field.
        let e = f.next_frame(b"\x09\x02\x00").unwrap_err();
        assert_eq!(e.offset, 1);
        assert!(
            matches!(e.kind, DecodeErrorKind::BadLength { value: 2 }),
            "{e:?}"
        );
        // A length of what follows it: the value counts 3 bytes fewer than the message.
        let f = Framing::new(2, true, false, 100).inside_at(1).counting(-3);
        let mut stream = Vec::new();
        f.frame_into(b"\x09\x00\x02ab", &mut stream).unwrap();
        assert_eq!(
            f.next_frame(&stream).unwrap(),
            Some((&b"\x09\x00\x02ab"[..], 5))
        );
    }
}
