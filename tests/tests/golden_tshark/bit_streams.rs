//! Bit streams: MSB-first streams, bit groups and wide integers.

use super::*;

/// LSB-first packing of `(value, width)` pairs, written here independently of the crate.
fn lsb_pack(fields: &[(u64, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    for &(value, width) in fields {
        for b in 0..width as usize {
            if pos / 8 == out.len() {
                out.push(0);
            }
            if value >> b & 1 == 1 {
                out[pos / 8] |= 1 << (pos % 8);
            }
            pos += 1;
        }
    }
    out
}

/// MSB-first packing of `(value, width)` pairs (network bit order), written here independently
/// of the crate: each value's most significant bit first, from the high bit of each byte.
fn msb_pack(fields: &[(u64, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    for &(value, width) in fields {
        for b in (0..width).rev() {
            if pos / 8 == out.len() {
                out.push(0);
            }
            if value >> b & 1 == 1 {
                out[pos / 8] |= 0x80 >> (pos % 8);
            }
            pos += 1;
        }
    }
    out
}

/// An MSB-first bit stream: the crate writes network bit order (an IPv4-like first byte 0x45, a
/// big-endian u16 on a byte boundary), wide and signed values at odd offsets, and the dissector
/// reads the same values; then thousands of arbitrary headers agree field by field.
#[test]
fn msb_first_bit_streams_agree_between_crate_and_dissector() {
    use wiregen_golden::msb_bits::{Frag, Header, Kind, Point, Protocol};
    use wiregen_runtime::BitString;
    let header = Header {
        version: 4,
        ihl: 5,
        total_length: 0x1234,
        frag: Frag::DONT | Frag::MORE,
        offset: 0x1ABC,
        kind: Kind::Ack,
        delta: -3,
        urgent: true,
        stamp: 0xAB_CDEF_0123,
        debt: -(1 << 32),
        id: u64::MAX - 1,
        gain: 1.5,
        precise: -1.0e-300,
        origin: Point { x: -5, y: 300 },
        path: vec![Point { x: 63, y: 1 }, Point { x: -1, y: 511 }],
        label: "hi".into(),
        rest: BitString::new(vec![0b1010_0000], 5),
    };
    let expected = msb_pack(&[
        (4, 4),
        (5, 4),
        (0x1234, 16),
        (3, 3),
        (0x1ABC, 13),
        (0xABC, 12),
        (29, 5),
        (1, 1),
        (0xAB_CDEF_0123, 40),
        (1 << 32, 33),
        (u64::MAX - 1, 64),
        (u64::from(1.5f32.to_bits()), 32),
        ((-1.0e-300f64).to_bits(), 64),
        (123, 7),
        (300, 9),
        (2, 3),
        (63, 7),
        (1, 9),
        (127, 7),
        (511, 9),
        (2, 5),
        (u64::from(b'h'), 8),
        (u64::from(b'i'), 8),
        (0b10100, 5),
    ]);
    assert_eq!(
        &expected[..4],
        &[0x45, 0x12, 0x34, 0x7A],
        "network bit order"
    );
    assert_eq!(header.encode().unwrap(), expected);
    assert_eq!(Header::decode(&expected).unwrap(), header);

    let d = dissect_payloads("msb_bits", 9128, &[expected]);
    assert!(
        d.experts(0, "msb_bits").is_empty(),
        "{:?}",
        d.experts(0, "msb_bits")
    );
    for (field, shown) in [
        ("version", "4"),
        ("ihl", "5"),
        ("total_length", "4660"),
        ("frag.dont", "1"),
        ("frag.reserved", "0"),
        ("offset", "6844"),
        ("kind", "0x0abc"),
        ("delta", "-3"),
        ("urgent", "1"),
        ("stamp", "737894400291"),
        ("debt", "-4294967296"),
        ("precise", "-1e-300"),
        ("id", "18446744073709551614"),
        ("gain", "1.5"),
        ("label", "hi"),
    ] {
        assert_eq!(value(&d, 0, &format!("msb_bits.{field}")), shown, "{field}");
    }
    assert_eq!(shown(&d, 0, "msb_bits.point.x"), ["-5", "63", "-1"]);
    assert_eq!(shown(&d, 0, "msb_bits.point.y"), ["300", "1", "511"]);
    // The rest (bits 10100 from bit 363) is labelled with its realigned byte, in MSB order.
    let rest: Vec<&str> = d.frames[0]
        .iter()
        .filter(|f| f.name == "msb_bits.rest")
        .map(|f| f.showname.as_str())
        .collect();
    assert_eq!(rest, ["Rest: a0 [5 bits from bit 363, realigned]"]);

    verify_protocol::<Protocol>(&["codegen/tests/golden/msb_bits.lua"], &[], 0x9128);
}

/// Bit groups: fields packed into one integer in its byte order, from its low bits (PDL) or its
/// high bits (RFC diagrams); a length and a presence bit inside groups derived by the encoder;
/// the dissector shows each field under its group's integer, masked, with the crate's values.
#[test]
fn bit_groups_agree_between_crate_and_dissector() {
    use wiregen_golden::bit_groups::{Frame, Kind, Opts, Protocol};
    use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};
    let frame = Frame {
        kind: Kind::Ack,
        urgent: true,
        level: -2,
        lane: 17,
        opts: Opts::FAST | Opts::LAST,
        count: 123_456,
        extra: Some(0xBEEF),
        payload: b"abc".as_slice().into(),
    };
    // control, u16be from its low bits: kind 2, length 3 -> 0x0032. status, u8 from its high
    // bit: 1, 1, -2 (110), 000 -> 0xF0. word, u32le from its low bits: 17 | 5 << 5 |
    // 123456 << 8 = 0x01E240B1.
    let expected = [
        0x00, 0x32, 0xF0, 0xB1, 0x40, 0xE2, 0x01, 0xBE, 0xEF, b'a', b'b', b'c',
    ];
    assert_eq!(frame.encode().unwrap(), expected);
    assert_eq!(Frame::decode(&expected).unwrap(), frame);
    // A value the schema does not allow, inside a group: refused by both, at the group's byte.
    let too_many = Frame {
        count: 2_000_000,
        ..frame.clone()
    };
    let err = too_many.encode().unwrap_err();
    assert!(
        matches!(err.kind, EncodeErrorKind::NotValid { value: 2_000_000 }),
        "{err}"
    );
    let mut bad = expected;
    bad[4..7].copy_from_slice(&[0x80, 0x84, 0x1E]); // count 2000000 = 0x1E8480
    let err = Frame::decode(&bad).unwrap_err();
    assert!(
        matches!(err.kind, DecodeErrorKind::NotValid { value: 2_000_000 }),
        "{err}"
    );
    assert_eq!(err.offset, 3, "{err}");

    let d = dissect_payloads("bit_groups", 9129, &[expected.to_vec(), bad.to_vec()]);
    assert!(
        d.experts(0, "bit_groups").is_empty(),
        "{:?}",
        d.experts(0, "bit_groups")
    );
    for (field, shown) in [
        ("control", "0x0032"),
        ("kind", "0x0002"),
        ("length", "3"),
        ("status", "0xf0"),
        ("urgent", "1"),
        ("has_extra", "1"),
        ("level", "-2"),
        ("spare", "0x00"),
        ("word", "0x01e240b1"),
        ("lane", "17"),
        ("opts", "0x00000005"),
        ("opts.fast", "1"),
        ("opts.safe", "0"),
        ("count", "123456"),
        ("extra", "48879"),
    ] {
        assert_eq!(
            value(&d, 0, &format!("bit_groups.{field}")),
            shown,
            "{field}"
        );
    }
    assert_eq!(
        d.experts(1, "bit_groups"),
        ["bit_groups.expert.invalid_value"],
        "the disallowed count is flagged"
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/bit_groups.lua"], &[], 0x9129);
}

/// Integers of 33 to 64 bits in a bit stream, and Rabbit's 64-bit integers: the crate's bytes
/// and values, and the dissector's, exact beyond 2^53 (UInt64/Int64 in Lua).
#[test]
fn wide_bit_stream_integers_agree_between_crate_and_dissector() {
    use wiregen_golden::wide_bits::{Protocol, Sample};
    let sample = Sample {
        tag: 5,
        stamp: 0xAB_CDEF_0123,
        delta: -(1 << 32),
        id: u64::MAX - 1,
        offset: i64::MIN + 3,
        total: 300,
        debt: -2,
        ratio: f64::from_bits(16),
        pad: 0,
    };
    // Rabbit: byte count - 1 in 3 bits, then the bytes; rabbit_i64 zig-zags -2 to 3.
    let expected = lsb_pack(&[
        (5, 3),
        (0xAB_CDEF_0123, 40),
        (1 << 32, 33),
        (u64::MAX - 1, 64),
        ((i64::MIN + 3) as u64, 64),
        (1, 3),
        (300, 16),
        (0, 3),
        (3, 8),
        (16, 64),
        (0, 5),
    ]);
    assert_eq!(sample.encode().unwrap(), expected);
    assert_eq!(Sample::decode(&expected).unwrap(), sample);

    verify_protocol::<Protocol>(&["codegen/tests/golden/wide_bits.lua"], &[], 0x9127);
    // A subnormal double, exact (Wireshark 4.0 prints 15 digits, later ones the shortest form).

    let d = dissect_payloads("wide_bits", 9127, &[expected]);
    assert!(d.experts(0, "wide_bits").is_empty());
    for (field, shown) in [
        ("stamp", "737894400291"),
        ("delta", "-4294967296"),
        ("id", "18446744073709551614"),
        ("offset", "-9223372036854775805"),
        ("total", "300"),
        ("debt", "-2"),
    ] {
        assert_eq!(
            value(&d, 0, &format!("wide_bits.{field}")),
            shown,
            "{field}"
        );
    }
    let ratio: f64 = value(&d, 0, "wide_bits.ratio").parse().unwrap();
    assert_eq!(ratio, f64::from_bits(16));
}
