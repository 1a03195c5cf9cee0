//! Serde support: enums by name (numbers for unknown values), flag sets as name lists, bytes as
//! hex strings.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The serde the generated impls name (the calling crate need not depend on it).
pub use serde;

pub fn named<S: Serializer>(s: S, name: Option<&str>, raw: u64) -> Result<S::Ok, S::Error> {
    match name {
        Some(n) => s.serialize_str(n),
        None => s.serialize_u64(raw),
    }
}

struct NamedVisitor(&'static [(&'static str, u64)]);

impl<'de> Visitor<'de> for NamedVisitor {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value name or a number")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        self.0
            .iter()
            .find(|(n, _)| *n == v)
            .map(|(_, x)| *x)
            .ok_or_else(|| E::custom(format!("unknown name '{v}'")))
    }
}

pub fn raw_from_name<'de, D: Deserializer<'de>>(
    d: D,
    names: &'static [(&'static str, u64)],
) -> Result<u64, D::Error> {
    d.deserialize_any(NamedVisitor(names))
}

pub fn flags<S: Serializer>(s: S, bits: u64, names: &[(&str, u64)]) -> Result<S::Ok, S::Error> {
    let known: u64 = names.iter().map(|(_, m)| m).fold(0, |a, m| a | m);
    let mut seq = s.serialize_seq(None)?;
    for (n, m) in names {
        if bits & m != 0 {
            seq.serialize_element(n)?;
        }
    }
    if bits & !known != 0 {
        seq.serialize_element(&(bits & !known))?;
    }
    seq.end()
}

struct FlagsVisitor(&'static [(&'static str, u64)]);

impl<'de> Visitor<'de> for FlagsVisitor {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of flag names (or numbers), or a number")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let mut bits = 0;
        while let Some(item) = seq.next_element::<NameOrNumber>()? {
            bits |= match item {
                NameOrNumber::Number(n) => n,
                NameOrNumber::Name(n) => NamedVisitor(self.0).visit_str(&n)?,
            };
        }
        Ok(bits)
    }
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum NameOrNumber {
    Number(u64),
    Name(String),
}

pub fn flags_from<'de, D: Deserializer<'de>>(
    d: D,
    names: &'static [(&'static str, u64)],
) -> Result<u64, D::Error> {
    d.deserialize_any(FlagsVisitor(names))
}

/// Bytes as a lower-case hex string (as bytes for a serializer that is not human-readable:
/// wirecat's columns, binary formats).
pub mod hex {
    use super::*;

    #[allow(clippy::ptr_arg)] // serde's `with` passes the field type itself
    pub fn serialize<S: Serializer>(b: &Cow<'_, [u8]>, s: S) -> Result<S::Ok, S::Error> {
        if !s.is_human_readable() {
            return s.serialize_bytes(b);
        }
        // Two digits a byte from a table: no formatting machinery per byte (wirecat `read`
        // writes every bytes field of a capture through here).
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(b.len() * 2);
        for &x in b.iter() {
            out.push(DIGITS[usize::from(x >> 4)] as char);
            out.push(DIGITS[usize::from(x & 0x0F)] as char);
        }
        s.serialize_str(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Cow<'static, [u8]>, D::Error> {
        if !d.is_human_readable() {
            return <serde_bytes_compat::Bytes as serde::Deserialize>::deserialize(d)
                .map(|b| Cow::Owned(b.0));
        }
        let s = <Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        let clean: Vec<u8> = s.bytes().filter(|c| c.is_ascii_hexdigit()).collect();
        if clean.len() & 1 == 1
            || clean.len() != s.bytes().filter(|c| !matches!(c, b' ' | b':')).count()
        {
            return Err(de::Error::custom("expected hex digits in pairs"));
        }
        let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
        Ok(Cow::Owned(
            clean
                .chunks(2)
                .map(|p| digit(p[0]) << 4 | digit(p[1]))
                .collect(),
        ))
    }
}

/// Bytes from a serializer's bytes or a sequence of numbers (what `hex` reads when not
/// human-readable).
mod serde_bytes_compat {
    use super::*;

    pub struct Bytes(pub Vec<u8>);

    struct BytesVisitor;

    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = Bytes;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("bytes")
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
            Ok(Bytes(v.to_vec()))
        }
        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
            Ok(Bytes(v))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
            let mut out = Vec::new();
            while let Some(b) = seq.next_element::<u8>()? {
                out.push(b);
            }
            Ok(Bytes(out))
        }
    }

    impl<'de> serde::Deserialize<'de> for Bytes {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
            d.deserialize_byte_buf(BytesVisitor)
        }
    }
}
