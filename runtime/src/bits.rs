//! Bit streams, LSB-first or MSB-first: the bit string, reader and writer.
//!
//! One implementation serves both bit orders, chosen by the const parameter `MSB` (so the choice
//! costs nothing at run time): LSB-first streams (`BitReader`, `BitWriter`) put bit n of the
//! message in bit `n % 8` of byte `n / 8` and start values with their least significant bit;
//! MSB-first streams (`MsbBitReader`, `MsbBitWriter`, network bit order as RFC diagrams draw it)
//! put bit n in bit `7 - n % 8` and start values with their most significant bit.

use crate::{BitString, DecodeError, DecodeErrorKind, FieldNote, NoTrace, Trace, Value};

use crate::read::leb128;

/// Reads fields of any width at any bit position of a bit stream (LSB-first unless `MSB`).
/// `T` keeps the fields read (see [`Trace`]: nothing when decoding).
#[doc(hidden)]
pub struct BitReader<'a, T = NoTrace, const MSB: bool = false> {
    pub(crate) buf: &'a [u8],
    /// Position and end, in bits.
    pub(crate) pos: usize,
    pub(crate) end: usize,
    /// The bit errors count from: 0, or where a bit string read in place starts.
    pub(crate) base: usize,
    pub(crate) trace: T,
    /// Enclosing fields read so far, and the direction.
    pub(crate) context: crate::Context,
}

/// A reader of an MSB-first bit stream.
#[doc(hidden)]
pub type MsbBitReader<'a, T = NoTrace> = BitReader<'a, T, true>;

/// A writer of an MSB-first bit stream.
#[doc(hidden)]
pub type MsbBitWriter<'o> = BitWriter<'o, true>;

impl<'a, T: Trace<'a>, const MSB: bool> BitReader<'a, T, MSB> {
    #[inline]
    pub fn new(buf: &'a [u8]) -> Self {
        Self::with_bits(buf, buf.len() * 8)
    }

    /// A reader of the first `bits` bits of `buf` (a bit string).
    #[inline]
    pub fn with_bits(buf: &'a [u8], bits: usize) -> Self {
        BitReader {
            buf,
            pos: 0,
            end: bits.min(buf.len() * 8),
            base: 0,
            trace: T::default(),
            context: crate::Context::default(),
        }
    }

    /// A reader of the `bits` bits of `buf` from bit `offset` (a bit string in place); errors
    /// count from its first bit.
    #[inline]
    pub(crate) fn in_bit_string(buf: &'a [u8], offset: usize, bits: usize) -> Self {
        let end = (offset + bits).min(buf.len() * 8);
        BitReader {
            buf,
            pos: offset.min(end),
            end,
            base: offset,
            trace: T::default(),
            context: crate::Context::default(),
        }
    }

    /// An error at bit `at` of the buffer, counted from the reader's first bit.
    #[cold]
    fn error_at(&self, field: &'static str, at: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::at_bit(field, at.saturating_sub(self.base), kind)
    }

    crate::context::reader_context!();

    /// Continues at bit `bit` of the buffer (an application's message inside a transport's).
    #[inline]
    pub fn seek(&mut self, bit: usize) {
        self.pos = bit.min(self.end);
    }

    /// Position in bits.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bits left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    #[inline]
    pub fn message_len(&self) -> usize {
        self.buf.len()
    }

    #[inline]
    pub fn error(&self, field: &'static str, at: usize, kind: DecodeErrorKind) -> DecodeError {
        self.error_at(field, at, kind)
    }

    /// `bits` more bits were needed at the current position than there are.
    #[cold]
    fn truncated(&self, bits: usize, field: &'static str) -> DecodeError {
        self.error_at(
            field,
            self.pos,
            DecodeErrorKind::Truncated {
                needed: bits.div_ceil(8),
                available: self.remaining() / 8,
            },
        )
    }

    fn need(&self, bits: usize, field: &'static str) -> Result<(), DecodeError> {
        if bits > self.remaining() {
            return Err(self.truncated(bits, field));
        }
        Ok(())
    }

    /// The next 64 bits, not consumed; the caller has seen that they are there.
    #[inline]
    fn peek64(&self) -> u64 {
        let first = self.pos / 8;
        let shift = self.pos % 8;
        let mut w = [0u8; 9];
        // Nine bytes from the first as one fixed-size load; near the end, the bytes there are.
        if let Some(run) = self.buf.get(first..first + 9) {
            w.copy_from_slice(run);
        } else {
            let run = self.buf.get(first..).unwrap_or_default();
            w[..run.len()].copy_from_slice(run);
        }
        let [a, b, c, d, e, f, g, h, next] = w;
        let lo = u64::from_le_bytes([a, b, c, d, e, f, g, h]) >> shift;
        if shift == 0 {
            lo
        } else {
            lo | u64::from(next) << (64 - shift)
        }
    }

    /// An unsigned value of `n` bits (0..=64): the (at most 9) bytes the field touches are
    /// loaded as one word and shifted.
    #[inline]
    pub fn bits(&mut self, n: u32, field: &'static str) -> Result<u64, DecodeError> {
        let n = n as usize;
        self.need(n, field)?;
        if MSB {
            return Ok(self.bits_msb(n));
        }
        let first = self.pos / 8;
        let shift = self.pos % 8;
        let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        // A whole word from the first byte (the input usually has 8 more bytes): one load and
        // a shift, plus the ninth byte when the value straddles it.
        if let Some(word) = self.buf.get(first..first + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            let mut v = u64::from_le_bytes(w) >> shift;
            if shift + n > 64 {
                // need() saw the bits: the ninth byte exists.
                v |= u64::from(self.buf[first + 8]) << (64 - shift);
            }
            self.pos += n;
            return Ok(v & mask);
        }
        if n == 0 {
            // A zero-width read (an empty bit range) near the end reads nothing.
            return Ok(0);
        }
        let last = (self.pos + n - 1) / 8;
        let mut acc: u128 = 0;
        for (i, b) in self.buf[first..=last].iter().enumerate() {
            acc |= u128::from(*b) << (8 * i);
        }
        self.pos += n;
        Ok((acc >> shift) as u64 & mask)
    }

    /// MSB-first [`BitReader::bits`]: the value's first bit is the highest bit of the word
    /// loaded big-endian from the first byte. `need` has seen the bits.
    #[inline]
    fn bits_msb(&mut self, n: usize) -> u64 {
        if n == 0 {
            return 0;
        }
        let first = self.pos / 8;
        let shift = self.pos % 8;
        self.pos += n;
        if let Some(word) = self.buf.get(first..first + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            let mut v = u64::from_be_bytes(w) << shift;
            if shift + n > 64 {
                v |= u64::from(self.buf[first + 8]) >> (8 - shift);
            }
            return v >> (64 - n);
        }
        // Near the end of the input: the bytes touched, big-endian, then the value's bits.
        let last = (first * 8 + shift + n - 1) / 8;
        let mut acc: u128 = 0;
        for b in &self.buf[first..=last] {
            acc = acc << 8 | u128::from(*b);
        }
        let below = 8 * (last + 1 - first) - shift - n;
        (acc >> below) as u64 & if n == 64 { u64::MAX } else { (1u64 << n) - 1 }
    }

    /// `n` whole bytes: borrowed when byte-aligned, realigned (copied) otherwise.
    #[inline]
    pub fn bytes(
        &mut self,
        n: usize,
        field: &'static str,
    ) -> Result<std::borrow::Cow<'a, [u8]>, DecodeError> {
        self.need(n * 8, field)?;
        if self.pos & 7 == 0 {
            let start = self.pos / 8;
            self.pos += n * 8;
            return Ok(std::borrow::Cow::Borrowed(&self.buf[start..start + n]));
        }
        Ok(std::borrow::Cow::Owned(self.realigned(n * 8, field)?))
    }

    #[inline]
    pub fn str(
        &mut self,
        n: usize,
        field: &'static str,
    ) -> Result<std::borrow::Cow<'a, str>, DecodeError> {
        let at = self.pos;
        match self.bytes(n, field)? {
            std::borrow::Cow::Borrowed(b) => std::str::from_utf8(b)
                .map(std::borrow::Cow::Borrowed)
                .map_err(|e| {
                    self.error_at(
                        field,
                        at + 8 * e.valid_up_to(),
                        DecodeErrorKind::InvalidUtf8,
                    )
                }),
            std::borrow::Cow::Owned(b) => String::from_utf8(b)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| {
                    self.error_at(
                        field,
                        at + 8 * e.utf8_error().valid_up_to(),
                        DecodeErrorKind::InvalidUtf8,
                    )
                }),
        }
    }

    /// Every bit left in the current scope (including the final zero padding): borrowed in
    /// place, at whatever bit it starts, when the scope ends on a byte boundary (the end of a
    /// message), else copied realigned (a scope ending inside a byte shares it with what follows).
    #[inline]
    pub fn rest(&mut self, field: &'static str) -> Result<BitString<'a>, DecodeError> {
        let bits = self.remaining();
        if self.end & 7 == 0 {
            let (start, offset) = (self.pos / 8, self.pos % 8);
            let Some(bytes) = self.buf.get(start..self.end / 8) else {
                return Err(self.truncated(bits, field));
            };
            self.pos = self.end;
            return Ok(BitString::in_stream(bytes, offset, MSB));
        }
        Ok(BitString::new(self.realigned(bits, field)?, bits))
    }

    /// Every bit left, realigned to whole bytes (a bit string's [`BitString::to_bytes`]).
    pub(crate) fn realigned_rest(mut self) -> Vec<u8> {
        let bits = self.remaining();
        self.realigned(bits, "").unwrap_or_default()
    }

    /// The next `bits` bits copied to whole bytes (the last one zero-padded), 64 at a time.
    /// The callers have checked that the bits are there.
    // Reserved, then zeroed: `vec![0; n]` allocates with calloc, which glibc serves without its
    // per-thread cache (twice the instructions of malloc and a memset for a 40-byte payload).
    #[allow(clippy::slow_vector_initialization)]
    fn realigned(&mut self, bits: usize, field: &'static str) -> Result<Vec<u8>, DecodeError> {
        let mut out = Vec::with_capacity(bits.div_ceil(8));
        out.resize(bits.div_ceil(8), 0);
        let mut left = bits;
        let mut done = 0;
        if !MSB && left >= 64 {
            // Whole words from the bytes the bits touch: one check that they are there, then per
            // word a load, a shift and the next byte's bits.
            let shift = self.pos % 8;
            let words = left / 64;
            let first = self.pos / 8;
            self.need(words * 64, field)?;
            // 8 bytes a word, and one more when the words start inside a byte.
            let Some(run) = self.buf.get(first..(self.pos + words * 64).div_ceil(8)) else {
                return Err(self.truncated(words * 64, field));
            };
            let whole = &mut out[..8 * words];
            if shift == 0 {
                whole.copy_from_slice(run);
            } else {
                // Each word's eight bytes, and the byte after them.
                let words = run.chunks_exact(8).zip(run.iter().skip(8).step_by(8));
                for (o, (w, &next)) in whole.chunks_exact_mut(8).zip(words) {
                    let lo = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                    let v = lo >> shift | u64::from(next) << (64 - shift);
                    o.copy_from_slice(&v.to_le_bytes());
                }
            }
            self.pos += words * 64;
            left -= words * 64;
            done = 8 * words;
        }
        // The bytes after the words: as many as the bits left fill.
        for o in &mut out[done..] {
            let k = left.min(8);
            let b = self.bits(k as u32, field)? as u8;
            // A last partial byte keeps its bits where the stream's order puts the first one.
            *o = if MSB { b << (8 - k) } else { b };
            left -= k;
        }
        Ok(out)
    }

    /// A length in bytes or elements from an expression value.
    #[inline]
    pub fn length(
        &self,
        value: impl Into<i128>,
        field: &'static str,
    ) -> Result<usize, DecodeError> {
        let value = value.into();
        usize::try_from(value)
            .map_err(|_| self.error_at(field, self.pos, DecodeErrorKind::BadLength { value }))
    }

    /// Narrows the readable end to the next `bytes` bytes (8 * bytes bits).
    #[inline]
    pub fn limit(&mut self, bytes: usize, field: &'static str) -> Result<usize, DecodeError> {
        self.need(bytes * 8, field)?;
        let saved = self.end;
        self.end = self.pos + bytes * 8;
        Ok(saved)
    }

    /// The end of a whole message: only the zero padding of its last byte may be left (fewer
    /// than 8 bits); a whole byte more is trailing data, zero or not. (A payload realigned from
    /// a bit offset knows its length in bits: see [`BitReader::with_bits`].)
    #[inline]
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        let end = self.buf.len() * 8;
        self.unlimit(end, "")
    }

    /// An unsigned LEB128 value whose group bytes are unaligned 8-bit fields.
    #[inline]
    pub fn leb128(&mut self, field: &'static str) -> Result<u64, DecodeError> {
        let at = self.pos;
        if !MSB && self.remaining() >= 64 {
            // Usually the whole value is in the next eight bytes: one load, and the groups
            // taken out of the word up to its first byte without a continuation bit.
            if let Some((value, n)) = crate::read::leb128_word(self.peek64()) {
                self.pos += 8 * n;
                return Ok(value);
            }
        }
        leb128(|| Ok(self.bits(8, field)? as u8))?
            .ok_or_else(|| self.error_at(field, at, DecodeErrorKind::Overlong))
    }

    /// A Rabbit variable-length unsigned integer of a `width`-bit type (16, 32 or 64): the byte
    /// count minus one in k bits (k = 1, 2, 3), then that many bytes, lowest first. For 64-bit
    /// values of more than 4 bytes the reference writes the high 32-bit group first.
    #[inline]
    pub fn rabbit(&mut self, width: u32, field: &'static str) -> Result<u64, DecodeError> {
        let k = match width {
            16 => 1,
            32 => 2,
            _ => 3,
        };
        let m = self.bits(k, field)? as u32 + 1;
        if m > 4 {
            let high = self.bits(8 * (m - 4), field)?;
            let low = self.bits(32, field)?;
            return Ok(high << 32 | low);
        }
        self.bits(8 * m, field)
    }

    /// Ends a limit: what is left must be fewer than 8 zero bits (the padding of the last byte).
    #[inline]
    pub fn unlimit(&mut self, saved: usize, field: &'static str) -> Result<(), DecodeError> {
        let left = self.remaining();
        if left >= 8 || (left > 0 && self.bits(left as u32, field)? != 0) {
            return Err(self.error_at(
                field,
                self.end - left,
                DecodeErrorKind::Trailing {
                    bytes: left.div_ceil(8),
                },
            ));
        }
        self.pos = self.end;
        self.end = saved;
        Ok(())
    }

    /// Notes a field that started at bit `at`: shown over the bytes it touches.
    #[inline]
    pub fn note(&mut self, abbrev: &'static str, at: usize, value: Value<'a>) {
        if T::ON {
            let first = at / 8;
            let end = if self.pos > at {
                self.pos.div_ceil(8)
            } else {
                first
            };
            self.trace.push(FieldNote {
                abbrev,
                offset: first,
                len: end - first,
                bits: self.pos.saturating_sub(at),
                value,
                source: 0,
            });
        }
    }

    /// Gives the notes from index `first` on (see [`BitReader::notes_len`]) the filter names
    /// `rename` maps theirs to: a value read for a field with `filter:`.
    #[inline]
    pub fn rename_notes(&mut self, first: usize, rename: fn(&'static str) -> &'static str) {
        if T::ON {
            self.trace.rename_from(first, rename);
        }
    }

    /// The bytes a field from bit `at` to the current position touches.
    #[inline]
    pub fn touched(&self, at: usize) -> &'a [u8] {
        let end = if self.pos > at {
            self.pos.div_ceil(8)
        } else {
            at / 8
        };
        // No panic path (the bytes are there): with nothing kept the call compiles to nothing.
        self.buf.get(at / 8..end).unwrap_or_default()
    }

    #[inline]
    pub fn notes_len(&self) -> usize {
        self.trace.len()
    }

    #[inline]
    pub fn into_notes(self) -> Vec<FieldNote<'a>> {
        self.trace.into_notes()
    }
}

/// Appends fields at any bit position (LSB-first unless `MSB`); the last byte is padded with
/// zero bits.
#[doc(hidden)]
pub struct BitWriter<'o, const MSB: bool = false> {
    pub buf: &'o mut Vec<u8>,
    /// Bits written since the start of `buf` (the first bit written lands at `base`).
    bits: usize,
    base: usize,
    /// Enclosing fields written so far, and the direction.
    pub(crate) context: crate::Context,
}

impl<'o, const MSB: bool> BitWriter<'o, MSB> {
    #[inline]
    pub fn new(buf: &'o mut Vec<u8>) -> Self {
        let base = buf.len() * 8;
        BitWriter {
            buf,
            bits: base,
            base,
            context: crate::Context::default(),
        }
    }

    crate::context::writer_context!();

    /// Bits written so far by this writer.
    #[inline]
    pub fn len(&self) -> usize {
        self.bits - self.base
    }

    /// Whether nothing was written yet.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the `n` low bits of `v` (the caller has range-checked it).
    #[inline(always)]
    pub fn bits(&mut self, v: u64, n: u32) {
        let n = n as usize;
        if MSB {
            return self.bits_msb(v, n);
        }
        if self.bits & 7 == 0 && n & 7 == 0 && self.buf.len() * 8 == self.bits {
            let end = self.buf.len() + n / 8;
            self.buf.extend_from_slice(&v.to_le_bytes());
            self.buf.truncate(end);
            self.bits += n;
            return;
        }
        // The value shifted to the free bits of the last byte: its low byte completes that
        // byte, and the bytes above it are appended in one go.
        let used = self.bits % 8;
        let mut v = u128::from(v) << used;
        let end = (self.bits + n).div_ceil(8);
        if self.buf.len() != self.bits.div_ceil(8) {
            // Bytes past the bit position (not written by this writer): OR into them.
            let mut at = self.bits / 8;
            self.buf.resize(end.max(self.buf.len()), 0);
            while at < end {
                self.buf[at] |= v as u8;
                v >>= 8;
                at += 1;
            }
            self.bits += n;
            return;
        }
        if used != 0 {
            if let Some(last) = self.buf.last_mut() {
                *last |= v as u8;
            }
            v >>= 8;
        }
        // A fixed 16-byte append, cut back to the bytes written: cheaper than a copy of
        // variable length.
        self.buf.extend_from_slice(&v.to_le_bytes());
        self.buf.truncate(end);
        self.bits += n;
    }

    /// MSB-first [`BitWriter::bits`]: the value placed below the bits already used of the
    /// last byte, its bytes written big-endian.
    #[inline]
    fn bits_msb(&mut self, v: u64, n: usize) {
        if n == 0 {
            return;
        }
        let v = v & if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        if self.bits & 7 == 0 && n & 7 == 0 && self.buf.len() == self.bits / 8 {
            self.buf.extend_from_slice(&v.to_be_bytes()[8 - n / 8..]);
            self.bits += n;
            return;
        }
        let used = self.bits % 8;
        let at = self.bits / 8;
        let k = (used + n).div_ceil(8);
        let word = (u128::from(v) << (8 * k - used - n)).to_be_bytes();
        let bytes = &word[16 - k..];
        if self.buf.len() != self.bits.div_ceil(8) {
            // Bytes past the bit position (not written by this writer): OR into them.
            self.buf.resize((at + k).max(self.buf.len()), 0);
            for (i, b) in bytes.iter().enumerate() {
                self.buf[at + i] |= b;
            }
        } else if used != 0 {
            self.buf[at] |= bytes[0];
            self.buf.extend_from_slice(&bytes[1..]);
        } else {
            self.buf.extend_from_slice(bytes);
        }
        self.bits += n;
    }

    #[inline]
    pub fn put(&mut self, bytes: &[u8]) {
        if self.bits & 7 == 0 {
            self.buf.extend_from_slice(bytes);
            self.bits += bytes.len() * 8;
        } else if !MSB && self.buf.len() == self.bits.div_ceil(8) {
            // LSB-first at the end of the buffer: each input word shifted by the bits used of
            // the last byte, the bits shifted out carried into the next word.
            let used = self.bits % 8;
            let mut carry = u64::from(self.buf.pop().unwrap_or(0));
            let mut words = bytes.chunks_exact(8);
            for w in &mut words {
                let mut a = [0u8; 8];
                a.copy_from_slice(w);
                let word = u64::from_le_bytes(a);
                self.buf
                    .extend_from_slice(&(carry | word << used).to_le_bytes());
                carry = word >> (64 - used);
            }
            for &b in words.remainder() {
                let v = carry | u64::from(b) << used;
                self.buf.push(v as u8);
                carry = v >> 8;
            }
            self.buf.push(carry as u8);
            self.bits += bytes.len() * 8;
        } else {
            let mut words = bytes.chunks_exact(8);
            for w in &mut words {
                let mut a = [0u8; 8];
                a.copy_from_slice(w);
                let word = if MSB {
                    u64::from_be_bytes(a)
                } else {
                    u64::from_le_bytes(a)
                };
                self.bits(word, 64);
            }
            for b in words.remainder() {
                self.bits(u64::from(*b), 8);
            }
        }
    }

    #[inline]
    pub fn leb128(&mut self, mut v: u64) {
        if v < 1 << 56 {
            // At most eight groups: the bytes made in a word (seven bits each, and the flag that
            // another follows on all but the last), written with one call.
            let groups = (64 - (v | 1).leading_zeros()).div_ceil(7);
            // Each group of seven bits moved up one bit per byte below it (no loop: the
            // eight groups a word holds, each a shift and a mask).
            let mut word = 0u64;
            for i in 0..8 {
                word |= (v << i) & (0x7F << (8 * i));
            }
            word &= u64::MAX >> (64 - 8 * groups);
            word |= 0x8080_8080_8080_8080 & ((1u64 << (8 * (groups - 1))) - 1);
            if MSB {
                // The first byte first: the highest of the value written.
                word = word.swap_bytes() >> (64 - 8 * groups);
            }
            self.bits(word, 8 * groups);
            return;
        }
        loop {
            let low = v & 0x7F;
            v >>= 7;
            if v == 0 {
                self.bits(low, 8);
                return;
            }
            self.bits(low | 0x80, 8);
        }
    }

    /// A Rabbit variable-length unsigned integer of a `width`-bit type (see [`BitReader::rabbit`]).
    #[inline]
    pub fn rabbit(&mut self, v: u64, width: u32) {
        let k = match width {
            16 => 1,
            32 => 2,
            _ => 3,
        };
        let m = ((64 - v.leading_zeros()).div_ceil(8)).max(1);
        self.bits(u64::from(m - 1), k);
        if m > 4 {
            self.bits(v >> 32, 8 * (m - 4));
            self.bits(v & 0xFFFF_FFFF, 32);
        } else {
            self.bits(v, 8 * m);
        }
    }

    /// The bits of `s`. Bytes from a byte boundary go as a byte run, then the bits of a last,
    /// partial one; a bit string borrowed at a bit of a stream of this order is copied as it
    /// lies when the writer is at the same bit of a byte (a decoded message encoded again), else
    /// a word at a time; one read from a stream of the other order, a bit at a time.
    #[inline]
    pub fn put_bits(&mut self, s: &BitString<'_>) {
        let (bytes, offset, msb) = s.parts();
        if offset != 0 && msb != MSB {
            for i in 0..s.bits() {
                self.bits(u64::from(s.get(i) == Some(true)), 1);
            }
            return;
        }
        if offset != 0 && self.bits % 8 == offset && self.buf.len() == self.bits.div_ceil(8) {
            // The first byte's bits merged into the writer's last byte, the others copied
            // (a bit string from a bit offset runs to the end of its bytes).
            let ours = if MSB {
                0xFFu8 >> offset
            } else {
                0xFFu8 << offset
            };
            if let (Some(last), Some((first, after))) = (self.buf.last_mut(), bytes.split_first()) {
                *last |= first & ours;
                self.buf.extend_from_slice(after);
            }
            self.bits += s.bits();
            return;
        }
        if offset != 0 {
            let mut r = s.reader::<MSB>();
            let mut left = s.bits();
            while left > 0 {
                let n = left.min(64) as u32;
                // The reader was made over the bits it reads: they are there.
                self.bits(r.bits(n, "").unwrap_or_default(), n);
                left -= n as usize;
            }
            return;
        }
        let aligned = s.to_bytes();
        let bits = s.bits();
        let whole = bits / 8;
        self.put(&aligned[..whole]);
        let k = bits % 8;
        if k > 0 {
            let last = u64::from(aligned[whole]);
            let v = if MSB { last >> (8 - k) } else { last };
            self.bits(v & ((1u64 << k) - 1), k as u32);
        }
    }
}

#[cfg(test)]
#[path = "bits_tests.rs"]
mod tests;
