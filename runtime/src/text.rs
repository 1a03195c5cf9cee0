//! Text encodings other than UTF-8 that engines put on the wire: ASCII, Latin-1 (ISO 8859-1)
//! and UTF-16 (Unreal's `FString` when it is not ANSI). Decoding borrows whatever is already
//! UTF-8 (ASCII, Latin-1 without accents) and allocates only to convert; encoding refuses
//! characters the encoding does not have, naming the field and the character's byte offset.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use std::borrow::Cow;

/// UTF-8 text, or an error at its first invalid byte.
#[inline]
pub(crate) fn utf8<'a>(
    b: &'a [u8],
    at: usize,
    field: &'static str,
) -> Result<&'a str, DecodeError> {
    std::str::from_utf8(b)
        .map_err(|e| DecodeError::new(field, at + e.valid_up_to(), DecodeErrorKind::InvalidUtf8))
}

/// ASCII text: bytes below 0x80.
#[inline]
pub fn ascii<'a>(b: &'a [u8], at: usize, field: &'static str) -> Result<&'a str, DecodeError> {
    if let Some(i) = b.iter().position(|&x| x >= 0x80) {
        return Err(invalid(field, at + i, "ASCII"));
    }
    std::str::from_utf8(b).map_err(|e| invalid(field, at + e.valid_up_to(), "ASCII"))
}

/// Latin-1 text: every byte is the character of that code point.
#[inline]
/// Where the first NUL code unit of UTF-16 bytes is (two zero bytes at an even offset): its byte
/// offset.
pub(crate) fn nul16(b: &[u8]) -> Option<usize> {
    b.chunks_exact(2)
        .position(|u| u == [0, 0])
        .map(|unit| 2 * unit)
}

pub fn latin1(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) if b.is_ascii() => Cow::Borrowed(s),
        _ => Cow::Owned(b.iter().map(|&x| char::from(x)).collect()),
    }
}

/// UTF-16 text in that byte order: whole code units, surrogates in pairs.
pub fn utf16(b: &[u8], big: bool, at: usize, field: &'static str) -> Result<String, DecodeError> {
    if b.len() % 2 != 0 {
        return Err(invalid(
            field,
            at + b.len() - 1,
            "UTF-16 (an odd byte count)",
        ));
    }
    let units = b.chunks_exact(2).map(|c| {
        let pair = [c[0], c[1]];
        if big {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    });
    let mut out = String::with_capacity(b.len() / 2);
    let mut pos = 0;
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => {
                pos += 2 * c.len_utf16();
                out.push(c);
            }
            Err(_) => return Err(invalid(field, at + pos, "UTF-16")),
        }
    }
    Ok(out)
}

/// The ASCII bytes of `s`, or an error at its first other character.
#[inline]
pub fn encode_ascii<'s>(s: &'s str, field: &'static str) -> Result<&'s [u8], EncodeError> {
    match s.bytes().position(|b| b >= 0x80) {
        Some(at) => Err(unencodable(field, at, "ASCII")),
        None => Ok(s.as_bytes()),
    }
}

/// The Latin-1 bytes of `s` (borrowed when it is ASCII), or an error at its first character
/// above U+00FF.
pub fn encode_latin1<'s>(s: &'s str, field: &'static str) -> Result<Cow<'s, [u8]>, EncodeError> {
    if s.is_ascii() {
        return Ok(Cow::Borrowed(s.as_bytes()));
    }
    s.char_indices()
        .map(|(at, c)| u8::try_from(u32::from(c)).map_err(|_| unencodable(field, at, "Latin-1")))
        .collect::<Result<Vec<u8>, _>>()
        .map(Cow::Owned)
}

/// The UTF-16 bytes of `s` in that byte order.
pub fn encode_utf16(s: &str, big: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 * s.len());
    for u in s.encode_utf16() {
        out.extend_from_slice(&if big {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        });
    }
    out
}

/// How many bytes `s` takes in Latin-1 (one per character; characters it has not are refused
/// when the text is written).
#[inline]
pub fn latin1_len(s: &str) -> usize {
    s.chars().count()
}

/// How many bytes `s` takes in UTF-16.
#[inline]
pub fn utf16_len(s: &str) -> usize {
    2 * s.encode_utf16().count()
}

#[cold]
fn invalid(field: &'static str, at: usize, encoding: &'static str) -> DecodeError {
    DecodeError::new(field, at, DecodeErrorKind::InvalidText { encoding })
}

#[cold]
fn unencodable(field: &'static str, at: usize, encoding: &'static str) -> EncodeError {
    EncodeError::new(field, EncodeErrorKind::Unencodable { at, encoding })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_encoding_decodes_and_encodes_its_text() {
        assert_eq!(ascii(b"abc", 0, "f").unwrap(), "abc");
        let e = ascii(b"ab\xe9", 10, "f").unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (12, DecodeErrorKind::InvalidText { encoding: "ASCII" })
        );
        assert!(matches!(latin1(b"abc"), Cow::Borrowed("abc")));
        assert_eq!(latin1(b"caf\xe9"), "café");
        assert_eq!(encode_latin1("café", "f").unwrap().as_ref(), b"caf\xe9");
        let e = encode_latin1("a€", "f").unwrap_err();
        assert_eq!(
            e.kind,
            EncodeErrorKind::Unencodable {
                at: 1,
                encoding: "Latin-1"
            }
        );
        // "é𝄞" in UTF-16LE: 00E9, then the surrogate pair D834 DD1E.
        let le = [0xe9, 0x00, 0x34, 0xd8, 0x1e, 0xdd];
        assert_eq!(utf16(&le, false, 0, "f").unwrap(), "é𝄞");
        assert_eq!(encode_utf16("é𝄞", false), le);
        assert_eq!(encode_utf16("é", true), [0x00, 0xe9]);
        assert_eq!(utf16_len("é𝄞"), 6);
        assert_eq!(latin1_len("café"), 4);
        // A lone surrogate, and an odd byte count.
        let e = utf16(&[0x61, 0x00, 0x34, 0xd8, 0x61, 0x00], false, 4, "f").unwrap_err();
        assert_eq!(e.offset, 6);
        assert_eq!(
            utf16(&[0x61, 0x00, 0x62], false, 0, "f")
                .unwrap_err()
                .offset,
            2
        );
        assert_eq!(
            encode_ascii("é", "f").unwrap_err().kind,
            EncodeErrorKind::Unencodable {
                at: 0,
                encoding: "ASCII"
            }
        );
    }
}
