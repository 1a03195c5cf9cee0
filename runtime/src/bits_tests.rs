//! Tests of the bit reader and writer: every width at every offset, byte runs, realigned
//! rests, padding.

use super::*;

/// Values of every width at every bit offset come back as written, through the word-wide
/// paths and the byte-wise ones near the end of the input.
#[test]
fn bits_round_trip_at_every_offset() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let fields: Vec<(u64, u32)> = (0..2000)
        .map(|_| {
            let n = (next() % 64) as u32 + 1;
            let v = next() & if n == 64 { u64::MAX } else { (1 << n) - 1 };
            (v, n)
        })
        .collect();
    round_trip::<false>(&fields);
    round_trip::<true>(&fields);
}

fn round_trip<const MSB: bool>(fields: &[(u64, u32)]) {
    let mut buf = vec![0xAB];
    let mut w: BitWriter<'_, MSB> = BitWriter::new(&mut buf);
    for &(v, n) in fields {
        w.bits(v, n);
    }
    let total: usize = fields.iter().map(|f| f.1 as usize).sum();
    assert_eq!(buf.len(), 1 + total.div_ceil(8));
    let mut r: BitReader<'_, NoTrace, MSB> = BitReader::new(&buf[1..]);
    for (i, &(v, n)) in fields.iter().enumerate() {
        assert_eq!(
            r.bits(n, "f").unwrap(),
            v,
            "field {i} ({n} bits, msb {MSB})"
        );
    }
    assert_eq!(buf[0], 0xAB, "bytes before the writer's start are kept");
}

/// Byte runs written at every bit offset (the word-shifting path of `put` and its byte
/// remainder, in both bit orders) read back as the same bytes.
#[test]
fn byte_runs_round_trip_at_every_offset() {
    for msb in [false, true] {
        for offset in 0..16u32 {
            for len in 0..20usize {
                let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
                let mut buf = vec![0xAB];
                let back = if msb {
                    let mut w: BitWriter<'_, true> = BitWriter::new(&mut buf);
                    w.bits(0x5555, offset);
                    w.put(&bytes);
                    w.bits(1, 1);
                    let mut r: BitReader<'_, NoTrace, true> = BitReader::new(&buf[1..]);
                    r.bits(offset, "o").unwrap();
                    let back: Vec<u8> = (0..len).map(|_| r.bits(8, "b").unwrap() as u8).collect();
                    assert_eq!(r.bits(1, "end").unwrap(), 1);
                    back
                } else {
                    let mut w: BitWriter<'_> = BitWriter::new(&mut buf);
                    w.bits(0x5555 & ((1 << offset) - 1), offset);
                    w.put(&bytes);
                    w.bits(1, 1);
                    let mut r: BitReader<'_> = BitReader::new(&buf[1..]);
                    assert_eq!(r.bits(offset, "o").unwrap(), 0x5555 & ((1 << offset) - 1));
                    let back: Vec<u8> = (0..len).map(|_| r.bits(8, "b").unwrap() as u8).collect();
                    assert_eq!(r.bits(1, "end").unwrap(), 1);
                    back
                };
                assert_eq!(back, bytes, "offset {offset}, {len} bytes, msb {msb}");
                assert_eq!(buf.len(), 1 + (offset as usize + 8 * len + 1).div_ceil(8));
                assert_eq!(buf[0], 0xAB);
            }
        }
    }
}

/// The rest of a stream read from every bit offset comes back realigned, byte for byte
/// (the word-at-a-time path and the bytes after it).
#[test]
fn rest_is_realigned_from_every_offset() {
    for offset in 0..16usize {
        for len in 0..30usize {
            let buf: Vec<u8> = (0..(offset.div_ceil(8) + len + 1))
                .map(|i| (i * 53 + 7) as u8)
                .collect();
            let mut r: BitReader<'_> = BitReader::new(&buf);
            r.bits(offset as u32, "o").unwrap();
            let rest = r.rest("rest").unwrap();
            assert_eq!(rest.bits(), buf.len() * 8 - offset);
            let mut check: BitReader<'_> = BitReader::new(&buf);
            check.bits(offset as u32, "o").unwrap();
            for (i, byte) in rest.to_bytes().iter().enumerate() {
                let k = (rest.bits() - 8 * i).min(8) as u32;
                assert_eq!(
                    u64::from(*byte),
                    check.bits(k, "b").unwrap(),
                    "offset {offset}, len {len}, byte {i}"
                );
            }
        }
    }
}

/// A whole message may be followed by the zero padding of its last byte only: never a whole
/// byte more (zero or not: PDL's vectors expect TrailingBytes), never a set bit.
#[test]
fn finish_accepts_zero_padding_only() {
    let finish = |bytes: &[u8], read: u32| {
        let mut r: BitReader<'_> = BitReader::new(bytes);
        r.bits(read, "x").unwrap();
        r.finish().map_err(|e| e.to_string())
    };
    assert_eq!(finish(&[0xff, 0x0f], 12), Ok(()));
    for (bytes, read) in [
        (&[0xff, 0x0f, 0x00][..], 12),
        (&[0xff, 0x00], 8),
        (&[0xff, 0x0f, 0x00, 0x00], 12),
    ] {
        let e = finish(bytes, read).unwrap_err();
        assert!(e.contains("unexpected trailing bytes"), "{e}");
    }
    assert!(finish(&[0xff, 0x0f, 0x80], 12).is_err());
    assert!(finish(&[0xff, 0x1f], 12).is_err());
}

/// MSB-first is network bit order: an IPv4 header's first byte is version 4 in the high
/// nibble and IHL 5 in the low one (0x45), and a 13-bit fragment offset after 3 flag bits
/// ends in the low bits of the second byte.
#[test]
fn msb_first_is_network_bit_order() {
    let mut buf = Vec::new();
    let mut w = MsbBitWriter::new(&mut buf);
    w.bits(4, 4);
    w.bits(5, 4);
    w.bits(0b010, 3);
    w.bits(0x1234 & 0x1FFF, 13);
    w.bits(0xABC, 12);
    assert_eq!(buf, [0x45, 0x52, 0x34, 0xAB, 0xC0]);
    let mut r: MsbBitReader<'_> = MsbBitReader::new(&buf);
    assert_eq!(r.bits(4, "version").unwrap(), 4);
    assert_eq!(r.bits(4, "ihl").unwrap(), 5);
    assert_eq!(r.bits(3, "flags").unwrap(), 0b010);
    assert_eq!(r.bits(13, "offset").unwrap(), 0x1234);
    assert_eq!(r.bits(12, "x").unwrap(), 0xABC);
    // A 16-bit value on a byte boundary is big-endian.
    let mut r: MsbBitReader<'_> = MsbBitReader::new(&[0x12, 0x34]);
    assert_eq!(r.bits(16, "u16").unwrap(), 0x1234);
}

/// Byte runs and bit strings at an odd bit offset are copied whole words at a time and
/// come back realigned.
#[test]
fn unaligned_bytes_and_bit_strings_round_trip() {
    let data: Vec<u8> = (0..37u8).map(|i| i.wrapping_mul(73) ^ 0x5A).collect();
    let tail = BitString::new(&data[..32], 250);
    unaligned::<false>(&data, &tail, 0x03);
    unaligned::<true>(&data, &tail, 0xC0);
}

fn unaligned<const MSB: bool>(data: &[u8], tail: &BitString<'_>, last_bits: u8) {
    let mut buf = Vec::new();
    let mut w: BitWriter<'_, MSB> = BitWriter::new(&mut buf);
    w.bits(5, 3);
    w.put(data);
    w.put_bits(tail);
    let mut r: BitReader<'_, NoTrace, MSB> = BitReader::new(&buf);
    assert_eq!(r.bits(3, "a").unwrap(), 5);
    assert_eq!(&*r.bytes(37, "b").unwrap(), data);
    let rest = r.rest("c").unwrap();
    // 3 + 296 + 250 = 549 bits: the rest is the 250 and the 3 padding bits of the last byte.
    assert_eq!(rest.bits(), 253);
    let rest = rest.to_bytes();
    assert_eq!(&rest[..31], &data[..31]);
    assert_eq!(rest[31] & last_bits, data[31] & last_bits);
}

/// LEB128 values of every length come back from both readers, at every bit offset of a bit
/// stream, through the one-word path (eight bytes follow) and the byte-wise one near the end;
/// an eleventh group is refused as overlong and a value cut short as truncated.
#[test]
fn leb128_of_every_length_reads_back_from_either_path() {
    let values = [
        0,
        1,
        127,
        128,
        300,
        1 << 14,
        (1 << 21) - 1,
        1 << 35,
        (1 << 56) - 1,
        1 << 56,
        1 << 63,
        u64::MAX,
    ];
    for v in values {
        for tail in [0usize, 16] {
            let mut buf = Vec::new();
            crate::Writer::new(&mut buf).leb128(v);
            let len = buf.len();
            buf.resize(len + tail, 0xFF);
            let mut r: crate::Reader<'_> = crate::Reader::new(&buf);
            assert_eq!(r.leb128("v").unwrap(), v, "{v} with {tail} bytes after");
            assert_eq!(r.pos(), len);
            for offset in 0..8 {
                let mut buf = Vec::new();
                let mut w: BitWriter<'_, false> = BitWriter::new(&mut buf);
                w.bits(0x55 & ((1 << offset) - 1), offset);
                w.leb128(v);
                for _ in 0..tail / 8 {
                    w.bits(u64::MAX, 64);
                }
                let mut r: BitReader<'_> = BitReader::new(&buf);
                r.bits(offset, "pad").unwrap();
                assert_eq!(r.leb128("v").unwrap(), v, "{v} at bit {offset}");
                assert_eq!(r.pos(), offset as usize + 8 * len);
                // MSB-first: the same bytes, each written from its highest bit.
                let mut msb = Vec::new();
                let mut w = MsbBitWriter::new(&mut msb);
                w.bits(0x55 & ((1 << offset) - 1), offset);
                w.leb128(v);
                let mut r = MsbBitReader::<NoTrace>::new(&msb);
                r.bits(offset, "pad").unwrap();
                assert_eq!(r.leb128("v").unwrap(), v, "{v} at MSB bit {offset}");
                assert_eq!(r.pos(), offset as usize + 8 * len);
                if offset == 0 {
                    let mut bytes = Vec::new();
                    crate::Writer::new(&mut bytes).leb128(v);
                    assert_eq!(buf[..len], bytes[..], "{v}: LSB bit writer");
                    assert_eq!(msb, bytes, "{v}: MSB bit writer");
                }
            }
        }
    }
    let overlong = [0x80u8; 11];
    let e = crate::Reader::<NoTrace>::new(&overlong)
        .leb128("v")
        .unwrap_err();
    assert!(matches!(e.kind, DecodeErrorKind::Overlong), "{e}");
    let e = BitReader::<NoTrace>::new(&overlong)
        .leb128("v")
        .unwrap_err();
    assert!(matches!(e.kind, DecodeErrorKind::Overlong), "{e}");
    let cut = [0x80u8, 0x80];
    let e = crate::Reader::<NoTrace>::new(&cut).leb128("v").unwrap_err();
    assert!(matches!(e.kind, DecodeErrorKind::Truncated { .. }), "{e}");
}
