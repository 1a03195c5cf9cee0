//! Bit groups (PDL's): fields packed into one integer of whole bytes. Generated code reads the
//! integer once and takes its fields from it with the same calls it uses on a bit stream, so a
//! field reads the same inside a group and in a bit-stream type.

use crate::{DecodeError, DecodeErrorKind, Reader, Trace, Value};

/// The fields of one integer, read in order from its lowest bit (or its highest, `high_first`).
/// It stands in for the byte reader while they are read: positions are the integer's, and
/// every field is noted over the integer's bytes (the dissector shows it there with a mask).
#[doc(hidden)]
pub struct GroupReader<'r, 'a, T> {
    r: &'r mut Reader<'a, T>,
    raw: u64,
    width: u32,
    next: u32,
    high_first: bool,
    at: usize,
    len: usize,
}

impl<'r, 'a, T: Trace<'a>> GroupReader<'r, 'a, T> {
    /// The `len`-byte integer `raw`, read at byte `at`, of `8 * len` bits.
    #[inline]
    pub fn new(
        r: &'r mut Reader<'a, T>,
        raw: u64,
        at: usize,
        len: usize,
        high_first: bool,
    ) -> Self {
        GroupReader {
            r,
            raw,
            width: 8 * len as u32,
            next: 0,
            high_first,
            at,
            len,
        }
    }

    /// The next `n` bits of the integer (validation made the fields fill it exactly).
    #[inline]
    pub fn bits(&mut self, n: u32, _field: &'static str) -> Result<u64, DecodeError> {
        let shift = if self.high_first {
            self.width - self.next - n
        } else {
            self.next
        };
        self.next += n;
        Ok((self.raw >> shift) & (u64::MAX >> (64 - n)))
    }

    /// Where the integer starts (a field's position).
    #[inline]
    pub fn pos(&self) -> usize {
        self.at
    }

    #[inline]
    pub fn error(&self, field: &'static str, at: usize, kind: DecodeErrorKind) -> DecodeError {
        self.r.error(field, at, kind)
    }

    /// Notes a field over the integer's bytes.
    #[inline]
    pub fn note(&mut self, abbrev: &'static str, _at: usize, value: Value<'a>) {
        self.r.note_at(abbrev, self.at, self.len, value);
    }

    /// The byte reader back, after the integer.
    #[inline]
    pub fn into_inner(self) -> &'r mut Reader<'a, T> {
        self.r
    }
}

/// Collects the fields of one integer, in order from its lowest bit (or its highest).
#[doc(hidden)]
pub struct GroupWriter {
    raw: u64,
    width: u32,
    next: u32,
    high_first: bool,
}

impl GroupWriter {
    /// An integer of `len` bytes.
    #[inline]
    pub fn new(len: usize, high_first: bool) -> Self {
        GroupWriter {
            raw: 0,
            width: 8 * len as u32,
            next: 0,
            high_first,
        }
    }

    /// The next `n` bits (the caller has range-checked `v`).
    #[inline]
    pub fn bits(&mut self, v: u64, n: u32) {
        let shift = if self.high_first {
            self.width - self.next - n
        } else {
            self.next
        };
        self.next += n;
        self.raw |= (v & (u64::MAX >> (64 - n))) << shift;
    }

    /// The integer.
    #[inline]
    pub fn raw(&self) -> u64 {
        self.raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PDL's packing (the first field in the lowest bits) and RFC diagrams' (in the highest)
    /// of one 16-bit integer, written and read back.
    #[test]
    fn fields_fill_an_integer_from_either_end() {
        let mut low = GroupWriter::new(2, false);
        low.bits(0x5, 4);
        low.bits(0xABC, 12);
        assert_eq!(low.raw(), 0xABC5);
        let mut high = GroupWriter::new(2, true);
        high.bits(0x5, 4);
        high.bits(0xABC, 12);
        assert_eq!(high.raw(), 0x5ABC);

        let buf = [0u8; 2];
        let mut r: Reader<'_> = Reader::new(&buf);
        let mut g = GroupReader::new(&mut r, 0x5ABC, 0, 2, true);
        assert_eq!(g.bits(4, "a").unwrap(), 0x5);
        assert_eq!(g.bits(12, "b").unwrap(), 0xABC);
        let mut g = GroupReader::new(&mut r, 0xABC5, 0, 2, false);
        assert_eq!(g.bits(4, "a").unwrap(), 0x5);
        assert_eq!(g.bits(12, "b").unwrap(), 0xABC);
    }
}
