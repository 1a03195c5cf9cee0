//! The byte writer.

use crate::{EncodeError, EncodeErrorKind};

/// Appends fields to a byte vector; derived fields are patched in place afterwards.
#[doc(hidden)]
pub struct Writer<'o> {
    pub buf: &'o mut Vec<u8>,
    /// Enclosing fields written so far, and the direction.
    pub(crate) context: crate::Context,
}

impl<'o> Writer<'o> {
    #[inline]
    pub fn new(buf: &'o mut Vec<u8>) -> Self {
        Writer {
            buf,
            context: crate::Context::default(),
        }
    }

    crate::context::writer_context!();

    /// A writer into `buf` with this one's enclosing fields and direction: a value written
    /// aside (compressed, or measured before its length) may read them.
    #[inline]
    pub fn nested<'b>(&self, buf: &'b mut Vec<u8>) -> Writer<'b> {
        Writer {
            buf,
            context: self.context,
        }
    }

    /// A bit-stream writer appending to this writer's buffer, with its enclosing fields and
    /// direction.
    #[inline]
    pub fn bit_writer<const MSB: bool>(&mut self) -> crate::BitWriter<'_, MSB> {
        let mut bits = crate::BitWriter::new(&mut *self.buf);
        bits.context = self.context;
        bits
    }

    /// Riptide 2.0's length: one byte up to 0x7F, else two bytes big-endian with 0x8000 set;
    /// above 0x7FFF it is refused.
    #[inline]
    pub fn riptide_len(&mut self, v: u64, field: &'static str) -> Result<(), EncodeError> {
        let n = crate::fit(v, 0x7FFF, field)? as u16;
        if n <= 0x7F {
            self.buf.push(n as u8);
        } else {
            self.buf.extend_from_slice(&(n | 0x8000).to_be_bytes());
        }
        Ok(())
    }

    #[inline]
    pub fn leb128(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(low);
                return;
            }
            self.buf.push(low | 0x80);
        }
    }

    /// Puts a prefix before what was written since `at`, for a variable-length prefix of a
    /// value whose size is known only once it is written: `prefix` appends it, and the bytes
    /// are rotated into place (no allocation).
    #[inline]
    pub fn prefix_since(
        &mut self,
        at: usize,
        prefix: impl FnOnce(&mut Self) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        let end = self.buf.len();
        prefix(self)?;
        let k = self.buf.len() - end;
        self.buf[at..].rotate_right(k);
        Ok(())
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written yet.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn put(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// A NUL-terminated string (its encoded bytes); one that holds a NUL itself is refused.
    #[inline]
    pub fn strz(&mut self, s: &[u8], field: &'static str) -> Result<(), EncodeError> {
        no_nul(s, field)?;
        self.buf.extend_from_slice(s);
        self.buf.push(0);
        Ok(())
    }

    /// A string (its encoded bytes) NUL-padded to `n` bytes (C's `char[n]`; all `n` may be
    /// used); a longer one, or one that holds a NUL, is refused.
    #[inline]
    pub fn str_padded(
        &mut self,
        s: &[u8],
        n: usize,
        field: &'static str,
    ) -> Result<(), EncodeError> {
        no_nul(s, field)?;
        self.padded(s, n, field)
    }

    /// `s` and zeros up to `n` bytes; refused when longer.
    #[inline]
    fn padded(&mut self, s: &[u8], n: usize, field: &'static str) -> Result<(), EncodeError> {
        if s.len() > n {
            return Err(EncodeError::new(
                field,
                EncodeErrorKind::TooLong {
                    size: n,
                    actual: s.len(),
                },
            ));
        }
        self.buf.extend_from_slice(s);
        self.buf.resize(self.buf.len() + n - s.len(), 0);
        Ok(())
    }

    /// UTF-16 text (its encoded bytes) ended by a NUL code unit; text holding one is refused.
    #[inline]
    pub fn strz16(&mut self, s: &[u8], field: &'static str) -> Result<(), EncodeError> {
        no_nul16(s, field)?;
        self.buf.extend_from_slice(s);
        self.buf.extend_from_slice(&[0, 0]);
        Ok(())
    }

    /// UTF-16 text (its encoded bytes) NUL-padded to `n` bytes; a longer one, or one that
    /// holds a NUL code unit, is refused.
    #[inline]
    pub fn str_padded16(
        &mut self,
        s: &[u8],
        n: usize,
        field: &'static str,
    ) -> Result<(), EncodeError> {
        no_nul16(s, field)?;
        self.padded(s, n, field)
    }

    #[inline]
    pub fn uint(&mut self, v: u64, n: usize, big: bool) {
        let le = v.to_le_bytes();
        if big {
            self.buf.extend(le[..n].iter().rev());
        } else {
            self.buf.extend_from_slice(&le[..n]);
        }
    }

    /// Pads what was written since `start` with zeros to `size` bytes; refuses more.
    #[inline]
    pub fn pad(
        &mut self,
        start: usize,
        size: usize,
        field: &'static str,
    ) -> Result<(), EncodeError> {
        let used = self.buf.len() - start;
        if used > size {
            return Err(EncodeError::new(
                field,
                EncodeErrorKind::TooLong { size, actual: used },
            ));
        }
        self.buf.resize(start + size, 0);
        Ok(())
    }

    /// Zeros up to the next multiple of `n` bytes from `start`.
    #[inline]
    pub fn align(&mut self, start: usize, n: usize) {
        let k = (n - (self.buf.len() - start) % n) % n;
        self.buf.resize(self.buf.len() + k, 0);
    }

    #[inline]
    pub fn patch(&mut self, at: usize, bytes: &[u8]) {
        self.buf[at..at + bytes.len()].copy_from_slice(bytes);
    }
}

/// Refuses UTF-16 text with a NUL code unit, which would end it early on the wire (zero bytes
/// inside a code unit are part of the text).
fn no_nul16(s: &[u8], field: &'static str) -> Result<(), EncodeError> {
    match crate::text::nul16(s) {
        Some(at) => Err(EncodeError::new(field, EncodeErrorKind::ContainsNul { at })),
        None => Ok(()),
    }
}

/// Refuses a string with a NUL, which would end it early on the wire.
fn no_nul(s: &[u8], field: &'static str) -> Result<(), EncodeError> {
    match s.iter().position(|&b| b == 0) {
        Some(at) => Err(EncodeError::new(field, EncodeErrorKind::ContainsNul { at })),
        None => Ok(()),
    }
}
