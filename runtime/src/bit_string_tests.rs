use super::*;
use crate::{BitWriter, DecodeErrorKind, MsbBitReader, MsbBitWriter};

/// Three bytes; a 4-bit field, then the rest of the stream (20 bits).
const INPUT: [u8; 3] = [0xAB, 0xCD, 0xEF];

/// The rest after a 4-bit field is borrowed where it lies, and realigns to the bytes the
/// stream's order gives: LSB-first, the high nibble of each byte then the low nibble of the
/// next; MSB-first, the nibbles in reading order.
#[test]
fn a_rest_at_a_bit_offset_is_borrowed_and_realigns_in_either_order() {
    let mut r: BitReader<'_> = BitReader::new(&INPUT);
    assert_eq!(r.bits(4, "kind").unwrap(), 0xB);
    let rest = r.rest("payload").unwrap();
    assert_eq!(rest.bits(), 20);
    assert_eq!(rest.parts().0.as_ptr(), INPUT.as_ptr(), "not copied");
    assert_eq!(&*rest.to_bytes(), &[0xDA, 0xFC, 0x0E]);
    assert_eq!(rest, BitString::new(vec![0xDA, 0xFC, 0x0E], 20));

    let mut r: MsbBitReader<'_> = MsbBitReader::new(&INPUT);
    assert_eq!(r.bits(4, "kind").unwrap(), 0xA);
    let rest = r.rest("payload").unwrap();
    assert_eq!(rest.parts().0.as_ptr(), INPUT.as_ptr(), "not copied");
    assert_eq!(&*rest.to_bytes(), &[0xBC, 0xDE, 0xF0]);
    assert_eq!(rest, BitString::new(vec![0xBC, 0xDE, 0xF0], 20));
}

/// `get` reads each bit in place: LSB-first the first bit of the rest is bit 4 of 0xAB (0),
/// MSB-first bit 3 from the top of it (1).
#[test]
fn get_reads_each_bit_in_place() {
    let mut r: BitReader<'_> = BitReader::new(&INPUT);
    r.bits(4, "kind").unwrap();
    let rest = r.rest("payload").unwrap();
    let bits: Vec<bool> = (0..20).map(|i| rest.get(i).unwrap()).collect();
    // 0xA = 1010 read from its low bit, then 0xCD from its low bit, then 0xE.
    let want = [
        0, 1, 0, 1, /* 0xCD */ 1, 0, 1, 1, 0, 0, 1, 1, /* 0xEF's low nibble */ 1, 1, 1,
        1, /* its high nibble */ 0, 1, 1, 1,
    ];
    assert_eq!(bits, want.map(|b| b == 1));
    assert_eq!(rest.get(20), None);

    let mut r: MsbBitReader<'_> = MsbBitReader::new(&INPUT);
    r.bits(4, "kind").unwrap();
    let rest = r.rest("payload").unwrap();
    assert_eq!(rest.get(0), Some(true)); // 0xB = 1011 from the top
    assert_eq!(rest.get(1), Some(false));
    assert_eq!(rest.get(19), Some(true)); // 0xF's last bit
}

/// A bit string read in place writes back to the same stream's bytes, in either order, after
/// the same field (the in-place word copy) or at another offset (the bits moved).
#[test]
fn a_bit_string_in_place_writes_back_the_bytes_it_came_from() {
    let data: Vec<u8> = (0..45u8).map(|i| i.wrapping_mul(73) ^ 0x5A).collect();
    let mut r: BitReader<'_> = BitReader::new(&data);
    let head = r.bits(4, "kind").unwrap();
    let rest = r.rest("payload").unwrap();
    let mut out = Vec::new();
    let mut w: BitWriter<'_> = BitWriter::new(&mut out);
    w.bits(head, 4);
    w.put_bits(&rest);
    assert_eq!(out, data);
    // At bit 0 of a new stream: the realigned bytes.
    let mut out = Vec::new();
    BitWriter::<false>::new(&mut out).put_bits(&rest);
    assert_eq!(out, &*rest.to_bytes());

    let mut r: MsbBitReader<'_> = MsbBitReader::new(&data);
    let head = r.bits(3, "kind").unwrap();
    let rest = r.rest("payload").unwrap();
    let mut out = Vec::new();
    let mut w: MsbBitWriter<'_> = MsbBitWriter::new(&mut out);
    w.bits(head, 3);
    w.put_bits(&rest);
    assert_eq!(out, data);
}

/// A reader of a bit string in place counts from its first bit: a field past its end is
/// truncated at bit 16 of the string, not bit 20 of the stream.
#[test]
fn a_reader_in_place_reports_bits_from_the_strings_start() {
    let mut r: BitReader<'_> = BitReader::new(&INPUT);
    r.bits(4, "kind").unwrap();
    let rest = r.rest("payload").unwrap();
    let mut inner = rest.reader::<false>();
    assert_eq!(inner.bits(16, "a").unwrap(), 0xFCDA);
    let e = inner.bits(8, "b").unwrap_err();
    assert_eq!(e.bit, Some(16));
    assert!(matches!(e.kind, DecodeErrorKind::Truncated { .. }), "{e}");
}

/// Equality is by the bits: an owned copy, a realigned one and one built from bytes are equal;
/// one more bit or a different bit is not.
#[test]
fn equality_is_by_the_bits() {
    let mut r: BitReader<'_> = BitReader::new(&INPUT);
    r.bits(4, "kind").unwrap();
    let rest = r.rest("payload").unwrap();
    let owned = rest.clone().into_owned();
    assert_eq!(owned, rest);
    assert_eq!(
        format!("{owned:?}"),
        "BitString { bytes: [218, 252, 14], bits: 20 }"
    );
    assert_ne!(rest, BitString::new(vec![0xDA, 0xFC, 0x0E], 21));
    assert_ne!(rest, BitString::new(vec![0xDA, 0xFC, 0x0F], 20));
}

#[test]
#[should_panic(expected = "a bit string of 9 bits in 1 bytes")]
fn new_refuses_more_bits_than_the_bytes_hold() {
    let _ = BitString::new(vec![0], 9);
}

/// Every way a bit string in place is written (at its own offset, at another, into a writer
/// of the other order) writes its bits one by one: from every offset, of every length its bytes
/// end with (as every bit string from a bit offset does), after heads of 0 to 8 bits, with a field after
/// it (the padding left clean).
#[test]
fn writing_in_place_writes_the_bits_in_order() {
    let data: Vec<u8> = (0..7u8).map(|i| i.wrapping_mul(151) ^ 0xA5).collect();
    for offset in 1..8 {
        for len in 1..=data.len() {
            let bits = len * 8 - offset;
            for msb in [false, true] {
                let s = BitString::in_stream(&data[..len], offset, msb);
                for head in 0..9 {
                    let want: Vec<bool> = (0..bits).map(|i| s.get(i).unwrap()).collect();
                    let (lsb, msb_out) = (written::<false>(head, &s), written::<true>(head, &s));
                    let why = format!("offset {offset}, {bits} bits, head {head}, msb {msb}");
                    assert_eq!(read_back::<false>(&lsb, head, bits), want, "{why}");
                    assert_eq!(read_back::<true>(&msb_out, head, bits), want, "{why}");
                }
            }
        }
    }
}

/// `head` bits of 0x55 (ones and zeros: a stray bit ORed in shows), the bit string, then three
/// bits 101.
fn written<const MSB: bool>(head: usize, s: &BitString<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w: BitWriter<'_, MSB> = BitWriter::new(&mut out);
    w.bits(0x55 & ((1 << head) - 1), head as u32);
    w.put_bits(s);
    w.bits(0b101, 3);
    assert_eq!(out.len(), (head + s.bits() + 3).div_ceil(8));
    out
}

/// The `bits` bits after the head, checking the head, the 101 after them and the zero padding.
fn read_back<const MSB: bool>(out: &[u8], head: usize, bits: usize) -> Vec<bool> {
    let mut r: BitReader<'_, NoTrace, MSB> = BitReader::new(out);
    assert_eq!(
        r.bits(head as u32, "head").unwrap(),
        0x55 & ((1 << head) - 1)
    );
    let got = (0..bits).map(|_| r.bits(1, "bit").unwrap() == 1).collect();
    assert_eq!(r.bits(3, "tail").unwrap(), 0b101);
    assert_eq!(r.bits(r.remaining() as u32, "padding").unwrap(), 0);
    got
}
