//! Byte-aligned varints (`tests/fixture/schema/varints.yaml`): Riptide's VarULong (LEB128),
//! VarLong (zig-zag) and 2.0's array length, in both outputs, 64-bit values included.

use std::borrow::Cow;
use varints::*;
use wiregen_tests::*;

use wiregen_tests::hex_bytes as hex;

fn values(unsigned: u64, signed: i64, small: u16, text: &'static str) -> Values<'static> {
    Values {
        unsigned,
        signed,
        small,
        text: Cow::Borrowed(text),
        rest: Cow::Borrowed(&[]),
    }
}

#[test]
fn vectors_from_the_rules() {
    // WIRE-NOTES: VarULong 300 = AC 02; 2.0 array length 300 = 81 2C (big-endian, 0x8000 set).
    // zig-zag: 0, -1, 1, -2 -> 0, 1, 2, 3. Lengths up to 127 take one byte.
    for (wire, v) in [
        ("ac 02 00 81 2c 00", values(300, 0, 300, "")),
        ("7f 01 7f 01 5a", values(127, -1, 127, "Z")),
        ("80 01 02 80 80 00", values(128, 1, 128, "")),
        (
            "ff ff ff ff ff ff ff ff ff 01 ff ff ff ff ff ff ff ff ff 01 ff ff 00",
            values(u64::MAX, i64::MIN, 0x7FFF, ""),
        ),
        (
            "00 fe ff ff ff ff ff ff ff ff 01 00 00",
            values(0, i64::MAX, 0, ""),
        ),
    ] {
        let bytes = hex(wire);
        assert_eq!(
            Values::decode(&bytes).unwrap_or_else(|e| panic!("{wire}: {e}")),
            v,
            "{wire}"
        );
        assert_eq!(v.encode().unwrap(), bytes, "{wire}");
    }
    // 32768 does not fit a 2.0 length.
    assert_eq!(
        values(0, 0, 0x8000, "").encode().unwrap_err().kind,
        EncodeErrorKind::TooLarge {
            value: 0x8000,
            max: 0x7FFF
        }
    );
    // An eleventh LEB128 group is an error, not an overflow.
    assert!(Values::decode(&hex("ff ff ff ff ff ff ff ff ff 7f 00 00 00")).is_err());
}

#[test]
fn round_trip_and_tshark_agree() {
    let mut rng = Rng(0x7a7);
    let messages: Vec<Vec<u8>> = (0..300)
        .map(|_| {
            let n = rng.below(200) as usize;
            let v = Values {
                unsigned: rng.next_u64() >> rng.below(64),
                signed: (rng.next_u64() as i64) >> rng.below(64),
                small: rng.below(0x8000) as u16 >> rng.below(16),
                text: Cow::Owned(
                    (0..n)
                        .map(|_| (b'a' + rng.below(26) as u8) as char)
                        .collect(),
                ),
                rest: Cow::Owned(rng.bytes_below(4)),
            };
            let bytes = v.encode().unwrap();
            assert_eq!(Values::decode(&bytes).unwrap(), v);
            bytes
        })
        .collect();
    udp_cross_check(
        "varints",
        "tests/fixture/dissectors/varints.lua",
        &[7400],
        &messages,
        |_, m| {
            let (decoded, notes) = Values::dissect(m);
            decoded.unwrap();
            let experts: Vec<String> = vec![];
            (expected(&notes), experts)
        },
    );
}
