//! The bit string: the rest of a bit stream, borrowed where it lies in the input.

use std::borrow::Cow;

use crate::{BitReader, NoTrace};

/// A run of bits: the rest of a bit stream (a payload that may start at any bit).
///
/// A decoded bit string borrows the bytes its bits lie in, at whatever bit they start: a
/// Riptide payload after a 44-bit header is not copied. [`BitString::to_bytes`] gives the bits
/// realigned to a byte boundary (copied only when they start inside a byte), and
/// [`BitString::get`] reads one bit in place. Two bit strings are equal when they have as many
/// bits and the same bytes from a byte boundary ([`BitString::to_bytes`], a last partial byte's
/// padding bits included), wherever they start.
///
/// Made by [`BitString::new`] or [`BitString::from_bytes`] from bytes that start with the first
/// bit, in the order of the stream it is written to (LSB-first streams put a last partial byte's
/// bits at its bottom, MSB-first ones at its top).
#[derive(Clone)]
pub struct BitString<'a> {
    /// The bytes the bits lie in. With an offset the bits run to the end of the last byte (a
    /// stream's rest), without one they may stop before it.
    bytes: Cow<'a, [u8]>,
    /// Bits of `bytes[0]` before the first one (0 unless borrowed from a stream at a bit).
    offset: u8,
    /// The order of the stream the bits were read from (where `offset` counts from).
    msb: bool,
    /// How many bits there are.
    bits: usize,
}

impl<'a> BitString<'a> {
    /// The first `bits` bits of `bytes`.
    ///
    /// # Panics
    /// When `bytes` holds fewer than `bits` bits.
    #[inline]
    pub fn new(bytes: impl Into<Cow<'a, [u8]>>, bits: usize) -> Self {
        let bytes = bytes.into();
        assert!(
            bits <= bytes.len() * 8,
            "a bit string of {bits} bits in {} bytes",
            bytes.len()
        );
        BitString {
            bytes,
            offset: 0,
            msb: false,
            bits,
        }
    }

    /// Bits that fill whole bytes (`bits = 8 * bytes.len()`).
    #[inline]
    pub fn from_bytes(bytes: Vec<u8>) -> BitString<'static> {
        let bits = bytes.len() * 8;
        BitString::new(bytes, bits)
    }

    /// The bits of `bytes` from bit `offset` (0..8) to the end, in place (a stream's rest).
    #[inline]
    pub(crate) fn in_stream(bytes: &'a [u8], offset: usize, msb: bool) -> Self {
        debug_assert!(offset < 8 && offset <= bytes.len() * 8);
        let bits = bytes.len() * 8 - offset;
        BitString {
            bytes: Cow::Borrowed(bytes),
            offset: offset as u8,
            msb,
            bits,
        }
    }

    /// How many bits there are.
    #[inline]
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Whether there are no bits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Bit `i` (the first is 0), or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<bool> {
        if i >= self.bits {
            return None;
        }
        let at = usize::from(self.offset) + i;
        let shift = if self.msb { 7 - at % 8 } else { at % 8 };
        Some(self.bytes[at / 8] >> shift & 1 == 1)
    }

    /// The bits from a byte boundary: borrowed when they start on one, else realigned into
    /// new bytes (the last one padded with zero bits, at the end the stream's order gives it).
    pub fn to_bytes(&self) -> Cow<'_, [u8]> {
        if self.offset == 0 {
            return Cow::Borrowed(&self.bytes[..self.bits.div_ceil(8)]);
        }
        Cow::Owned(if self.msb {
            self.reader::<true>().realigned_rest()
        } else {
            self.reader::<false>().realigned_rest()
        })
    }

    /// A reader of the bits in place (an application's message carried in them): positions
    /// it reports count from the first bit.
    #[doc(hidden)]
    #[inline]
    pub fn reader<const MSB: bool>(&self) -> BitReader<'_, NoTrace, MSB> {
        BitReader::in_bit_string(&self.bytes, usize::from(self.offset), self.bits)
    }

    /// The same bits with their bytes owned (copied as they are, not realigned).
    pub fn into_owned(self) -> BitString<'static> {
        BitString {
            bytes: Cow::Owned(self.bytes.into_owned()),
            offset: self.offset,
            msb: self.msb,
            bits: self.bits,
        }
    }

    /// The bytes the bits lie in, the bit of the first byte they start at, and whether the
    /// stream is MSB-first (for the writer).
    #[inline]
    pub(crate) fn parts(&self) -> (&[u8], usize, bool) {
        (&self.bytes, usize::from(self.offset), self.msb)
    }
}

impl PartialEq for BitString<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bits == other.bits && self.to_bytes() == other.to_bytes()
    }
}

impl Eq for BitString<'_> {}

impl std::fmt::Debug for BitString<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitString")
            .field("bytes", &self.to_bytes())
            .field("bits", &self.bits)
            .finish()
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::*;
    use crate::serde_support::hex;
    use serde::{de, ser::SerializeStruct, Deserialize, Deserializer, Serialize, Serializer};

    /// The realigned bytes, as hex where the format is text.
    struct Hex<'x>(Cow<'x, [u8]>);

    impl Serialize for Hex<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            hex::serialize(&self.0, s)
        }
    }

    /// `{ bytes, bits }`, the bytes realigned.
    impl Serialize for BitString<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("BitString", 2)?;
            st.serialize_field("bytes", &Hex(self.to_bytes()))?;
            st.serialize_field("bits", &self.bits)?;
            st.end()
        }
    }

    #[derive(Deserialize)]
    #[serde(rename = "BitString")]
    struct Raw {
        #[serde(with = "hex")]
        bytes: Cow<'static, [u8]>,
        bits: usize,
    }

    impl<'de, 'a> Deserialize<'de> for BitString<'a> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let Raw { bytes, bits } = Raw::deserialize(d)?;
            if bits > bytes.len() * 8 {
                return Err(de::Error::custom(format_args!(
                    "a bit string of {bits} bits in {} bytes",
                    bytes.len()
                )));
            }
            Ok(BitString::new(bytes, bits))
        }
    }
}

/// Bytes of any length, and a number of bits they hold.
#[cfg(feature = "arbitrary")]
impl<'u> arbitrary::Arbitrary<'u> for BitString<'_> {
    fn arbitrary(u: &mut arbitrary::Unstructured<'u>) -> arbitrary::Result<Self> {
        let bytes: Vec<u8> = u.arbitrary()?;
        let bits = u.int_in_range(0..=bytes.len() * 8)?;
        Ok(BitString::new(bytes, bits))
    }
}

#[cfg(test)]
#[path = "bit_string_tests.rs"]
mod tests;
