//! Compressed fields: zlib (RFC 1950), raw deflate (RFC 1951) and gzip (RFC 1952), through
//! `flate2` (its pure-Rust backend). Decompression stops at the schema's limit, so a small
//! packet cannot make a decoder allocate without bound.

use crate::{DecodeError, DecodeErrorKind};
use flate2::bufread::{DeflateDecoder, GzDecoder, ZlibDecoder};
use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
use std::io::{Read, Write};

/// How a field's bytes are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// zlib: a 2-byte header, deflate data, an Adler-32 of the plain bytes.
    Zlib,
    /// Raw deflate data, no header.
    Deflate,
    /// gzip: a 10-byte header (and optional parts), deflate data, a CRC-32 and the size.
    Gzip,
}

impl Compression {
    /// The schema's name of the method.
    pub const fn name(self) -> &'static str {
        match self {
            Compression::Zlib => "zlib",
            Compression::Deflate => "deflate",
            Compression::Gzip => "gzip",
        }
    }
}

/// The plain bytes of `data`, a compressed field that starts at byte `at`: refused when they
/// are not valid data of `method` or would be more than `max` bytes.
pub fn decompress(
    method: Compression,
    data: &[u8],
    max: usize,
    field: &'static str,
    at: usize,
) -> Result<Vec<u8>, DecodeError> {
    // One byte past the limit tells "exactly max" from "more".
    let limit = max as u64 + 1;
    let mut out = Vec::new();
    // Each decoder reads the slice itself (`BufRead`), so what it leaves is what follows the
    // compressed stream: the field must hold that stream and nothing else.
    fn run<D: Read>(mut d: D, limit: u64, out: &mut Vec<u8>) -> Result<D, ()> {
        (&mut d).take(limit).read_to_end(out).map_err(|_| ())?;
        Ok(d)
    }
    let left = match method {
        Compression::Zlib => run(ZlibDecoder::new(data), limit, &mut out).map(|d| d.into_inner()),
        Compression::Deflate => {
            run(DeflateDecoder::new(data), limit, &mut out).map(|d| d.into_inner())
        }
        Compression::Gzip => run(GzDecoder::new(data), limit, &mut out).map(|d| d.into_inner()),
    };
    if out.len() > max {
        return Err(DecodeError::new(
            field,
            at,
            DecodeErrorKind::Inflated { max },
        ));
    }
    match left {
        Ok([]) => Ok(out),
        _ => {
            let method = method.name();
            Err(DecodeError::new(
                field,
                at,
                DecodeErrorKind::BadCompressed { method },
            ))
        }
    }
}

/// `plain` compressed with `method` at the default level.
pub fn compress(method: Compression, plain: &[u8]) -> Vec<u8> {
    let level = flate2::Compression::default();
    let out = Vec::with_capacity(plain.len() / 2 + 32);
    // Writing into a Vec cannot fail.
    let done = match method {
        Compression::Zlib => {
            let mut e = ZlibEncoder::new(out, level);
            e.write_all(plain).and_then(|()| e.finish())
        }
        Compression::Deflate => {
            let mut e = DeflateEncoder::new(out, level);
            e.write_all(plain).and_then(|()| e.finish())
        }
        Compression::Gzip => {
            let mut e = GzEncoder::new(out, level);
            e.write_all(plain).and_then(|()| e.finish())
        }
    };
    done.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_round_trips() {
        let plain: Vec<u8> = (0..500u32).map(|i| (i % 7) as u8).collect();
        for m in [Compression::Zlib, Compression::Deflate, Compression::Gzip] {
            let packed = compress(m, &plain);
            assert!(
                packed.len() < plain.len(),
                "{m:?} compresses a repetitive run"
            );
            assert_eq!(decompress(m, &packed, 500, "f", 3).unwrap(), plain);
        }
        // A zlib stream starts with CMF 0x78 (deflate, 32 KiB window).
        assert_eq!(compress(Compression::Zlib, b"x")[0], 0x78);
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        let packed = compress(Compression::Zlib, &[0u8; 100_000]);
        let e = decompress(Compression::Zlib, &packed, 4096, "world", 12).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Inflated { max: 4096 });
        assert_eq!(
            e.to_string(),
            "field 'world' at byte 12: decompresses to more than the 4096 bytes allowed"
        );
    }

    #[test]
    fn garbage_is_named() {
        let e = decompress(Compression::Zlib, &[1, 2, 3, 4], 100, "world", 5).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::BadCompressed { method: "zlib" });
        assert_eq!(e.offset, 5);
        // A zlib stream cut short is an error too, not the bytes so far.
        let packed = compress(Compression::Zlib, b"hello hello hello");
        assert!(decompress(Compression::Zlib, &packed[..packed.len() - 2], 100, "w", 0).is_err());
        // Bytes after the stream are not part of it: refused, as the dissector refuses them.
        for m in [Compression::Zlib, Compression::Deflate, Compression::Gzip] {
            let mut packed = compress(m, b"hello");
            packed.push(0);
            assert!(decompress(m, &packed, 100, "w", 0).is_err(), "{m:?}");
        }
    }
}
