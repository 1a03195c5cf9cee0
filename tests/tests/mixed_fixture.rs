//! Per-type layouts (`tests/fixture/schema/mixed.yaml`): a byte-aligned packet carrying a
//! bit-stream message; the parent resumes at the next whole byte after the bit stream.

use mixed::*;
use std::borrow::Cow;
use wiregen_tests::*;

use wiregen_tests::hex_bytes as hex;

#[test]
fn bit_stream_inside_bytes_by_hand() {
    // Header 06 00 00 07, kind 1; bits: a=5 (3), b=-1 (7 bits: 1111111), on=1, extra rabbit_u32 1
    // (00 + 00000001), id 2 (one LEB128 group), label_len 1 (4 bits), "Z" (8 bits) = 41 bits
    // -> 6 bytes; then after = 0x0102 and tail AA. (Bytes from an independent bit packer.)
    let p = Packet {
        flags: 6,
        chunk: 0,
        sequence: 7,
        body: PacketBody::Bits(Bits {
            a: 5,
            b: -1,
            extra: Some(1),
            id: 2,
            label: Cow::Borrowed("Z"),
        }),
        after: 0x0102,
        tail: Cow::Borrowed(&[0xAA]),
    };
    let wire = hex("06 00 00 07 01 fd 27 40 20 b4 00 01 02 aa");
    assert_eq!(p.encode().unwrap(), wire);
    assert_eq!(Packet::decode(&wire).unwrap(), p);
    let e = Packet::decode(&wire[..7]).unwrap_err();
    assert_eq!(e.field(), "body.extra");
}

fn random_packet(rng: &mut Rng) -> Packet<'static> {
    let body = if rng.below(2) == 0 {
        let n = rng.below(16) as usize;
        PacketBody::Bits(Bits {
            a: rng.below(8) as u8,
            b: rng.below(128) as i8 - 64,
            extra: (rng.below(2) == 0).then(|| (rng.next_u64() as u32) >> rng.below(32)),
            id: rng.next_u64() >> rng.below(64),
            label: Cow::Owned(
                (0..n)
                    .map(|_| (b'a' + rng.below(26) as u8) as char)
                    .collect(),
            ),
        })
    } else {
        PacketBody::Plain(Plain {
            x: rng.next_u64() as u32,
        })
    };
    Packet {
        flags: rng.next_u64() as u8,
        chunk: rng.next_u64() as u8,
        sequence: rng.next_u64() as u16,
        body,
        after: rng.next_u64() as u16,
        tail: Cow::Owned(rng.bytes_below(6)),
    }
}

#[test]
fn round_trip_and_tshark_agree() {
    let mut rng = Rng(0x31);
    let messages: Vec<Vec<u8>> = (0..300)
        .map(|_| {
            let p = random_packet(&mut rng);
            let bytes = p.encode().unwrap();
            assert_eq!(
                Packet::decode(&bytes).unwrap_or_else(|e| panic!("{p:?}: {e}")),
                p
            );
            bytes
        })
        .collect();
    udp_cross_check(
        "mixed",
        "tests/fixture/dissectors/mixed.lua",
        &[7300],
        &messages,
        |_, m| {
            let (decoded, notes) = Packet::dissect(m);
            decoded.unwrap();
            let experts: Vec<String> = vec![];
            (expected(&notes), experts)
        },
    );
}
