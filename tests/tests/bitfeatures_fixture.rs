//! The bit-stream fixture (`tests/fixture/schema/bitfeatures.yaml`): every construct generated for
//! LSB-first bit streams, at odd bit offsets, round-tripped and cross-checked in tshark.

use bitfeatures::*;
use std::borrow::Cow;
use wiregen_tests::*;

fn point(rng: &mut Rng) -> Point {
    Point {
        x: (rng.below(4096) as i16) - 2048,
        y: rng.below(1 << 20) as u32,
    }
}

fn ascii(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect()
}

/// Bits after `used` bits so far that end the message on a byte boundary (plus whole bytes).
fn tail(rng: &mut Rng, used: usize) -> BitString<'static> {
    let n = (8 - used % 8) % 8 + 8 * rng.below(3) as usize;
    let mut bytes = rng.bytes(n.div_ceil(8));
    if !n.is_multiple_of(8) {
        let last = bytes.len() - 1;
        bytes[last] &= (1u8 << (n % 8)) - 1;
    }
    BitString::new(bytes, n)
}

fn leb_bits(v: u64) -> usize {
    8 * (64 - v.leading_zeros() as usize).max(1).div_ceil(7)
}

fn frame(rng: &mut Rng) -> Frame<'static> {
    let flag = rng.below(2) == 0;
    let id = rng.next_u64() >> rng.below(64);
    let name_len = rng.below(32) as usize;
    let name = ascii(rng, name_len);
    let points: Vec<Point> = (0..rng.below(8)).map(|_| point(rng)).collect();
    let body = match rng.below(4) {
        0 => FrameBody::Idle,
        1 => FrameBody::Point(point(rng)),
        2 => FrameBody::Text(Label {
            text: Cow::Owned(ascii(rng, 3)),
        }),
        _ => FrameBody::Other {
            mode: Mode::from_raw([2, 3, 4, 6, 7][rng.below(5) as usize]),
        },
    };
    let body_bits = match body {
        FrameBody::Point(_) => 32,
        FrameBody::Text(_) => 24,
        _ => 0,
    };
    let used = 1
        + 5
        + 3
        + 8
        + 32
        + 1
        + 13
        + 32
        + if flag { 7 } else { 0 }
        + leb_bits(id)
        + 5
        + 8 * name.len()
        + 3
        + 32 * points.len()
        + body_bits;
    Frame {
        tiny: rng.below(2) as u8,
        small: (rng.below(32) as i8) - 16,
        dir: Dir(rng.next_u64() as u8),
        temp: (rng.below(4000) as f32 - 2000.0) / 16.0,
        odd: rng.below(1 << 13) as u16,
        big: rng.next_u64() as u32,
        // `flag` is maybe's presence bit: the encoder writes it from the Option.
        maybe: flag.then(|| rng.below(128) as u8),
        id,
        name: Cow::Owned(name),
        points,
        body,
        tail: tail(rng, used),
    }
}

#[test]
fn round_trip_and_tshark_agree() {
    let mut rng = Rng(0xb17);
    let messages: Vec<Vec<u8>> = (0..300)
        .map(|_| {
            let f = frame(&mut rng);
            let bytes = f.encode().unwrap_or_else(|e| panic!("{f:?}: {e}"));
            assert_eq!(
                Frame::decode(&bytes).unwrap_or_else(|e| panic!("{f:?} {bytes:02x?}: {e}")),
                f
            );
            bytes
        })
        .collect();
    udp_cross_check(
        "bitfeatures",
        "tests/fixture/dissectors/bitfeatures.lua",
        &[7100],
        &messages,
        |_, m| {
            let (decoded, notes) = Frame::dissect(m);
            let decoded = decoded.unwrap();
            let experts: Vec<String> = if matches!(decoded.body, FrameBody::Other { .. }) {
                vec!["bitfeatures.expert.unknown_value".into()]
            } else {
                vec![]
            };
            (expected(&notes), experts)
        },
    );
}

#[test]
fn layout_by_hand() {
    // tiny 1 (1 bit), small -3 as i5 = 0b11101, mode POINT = 1 (3 bits), dir NORTH|EAST = 0x09,
    // then the rest; the first two bytes hold bits 0..16: 1 | 11101<<1 | 001<<6 | 0x09<<9.
    let f = Frame {
        tiny: 1,
        small: -3,
        dir: Dir::NORTH | Dir::EAST,
        temp: 0.0,
        odd: 0,
        big: 0,
        maybe: None,
        id: 0,
        name: "".into(),
        points: vec![],
        body: FrameBody::Point(Point { x: -1, y: 0 }),
        // 143 bits so far: one more bit ends the message on a byte boundary.
        tail: BitString::new(vec![0], 1),
    };
    let bytes = f.encode().unwrap();
    let first = 1u32 | (0b11101 << 1) | (1 << 6) | (0x09 << 9);
    assert_eq!(&bytes[..2], &first.to_le_bytes()[..2]);
    assert_eq!(bytes.len(), 18);
    assert_eq!(Frame::decode(&bytes).unwrap(), f);
    // The encoder refuses values wider than their fields.
    let mut g = f.clone();
    g.odd = 1 << 13;
    assert_eq!(
        g.encode().unwrap_err().kind,
        EncodeErrorKind::TooLarge {
            value: 1 << 13,
            max: (1 << 13) - 1
        }
    );
    let mut g = f.clone();
    g.small = 16;
    assert_eq!(
        g.encode().unwrap_err().kind,
        EncodeErrorKind::TooLarge { value: 16, max: 15 }
    );
    let mut g = f;
    g.name = "x".repeat(32).into();
    assert_eq!(
        g.encode().unwrap_err().kind,
        EncodeErrorKind::TooLarge { value: 32, max: 31 }
    );
}
