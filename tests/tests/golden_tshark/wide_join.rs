//! A join numbered by 64-bit sequence numbers (`codegen/tests/golden/wide_join.yaml`): numbers
//! a Lua double cannot hold apart, and the crate's wrap at `u64::MAX`, the same in both outputs.
//! And a join marked by bool fields (`bool_markers.yaml`), which the crate's splitter sets.

use super::*;
use wiregen_golden::wide_join::{Joined, Joins, Protocol};
use wiregen_runtime::Protocol as _;

/// A part of stream `stream` numbered `seq`, flagged first and last as given.
fn part(stream: u8, seq: u64, first: bool, last: bool, chunk: &[u8]) -> Vec<u8> {
    let mut b = vec![stream];
    b.extend(seq.to_be_bytes());
    b.push(u8::from(first) | u8::from(last) << 1);
    b.extend(chunk);
    b
}

#[test]
fn numbers_past_2_to_the_53_join_their_own_parts_in_both_outputs() {
    let big = 1u64 << 60;
    let datagrams = [
        // Stream 1 across the wrap: u64::MAX - 1 is followed by 0 (numbers count modulo
        // u64::MAX, as the crate's joiner counts them).
        part(1, u64::MAX - 2, true, false, b"ab"),
        part(1, u64::MAX - 1, false, false, b"cd"),
        part(1, 0, false, true, b"ef"),
        // Stream 2: neighbours past 2^53 (one double), then past 10^14 (one text in Lua's
        // "%.14g"), each a payload of its own.
        part(2, big + 1, false, true, b"JK"),
        part(2, big, true, false, b"HI"),
        part(2, 1_000_000_000_000_001, true, true, b"one"),
        part(2, 1_000_000_000_000_002, true, true, b"two"),
        // The first part of stream 2's first payload again: a retransmission.
        part(2, big, true, false, b"HI"),
    ];
    let mut joins = Joins::default();
    let mut crate_joined = Vec::new();
    for (i, bytes) in datagrams.iter().enumerate() {
        let d = Protocol::decode_datagram(&mut (), true, bytes).unwrap();
        for (joined, _) in Protocol::join(&mut (), &mut joins, true, &d, i as u64).unwrap() {
            let Joined::Part(j) = joined;
            crate_joined.push((i, j.chunk));
        }
    }
    let expected: Vec<(usize, Vec<u8>)> = vec![
        (2, b"abcdef".to_vec()),
        (4, b"HIJK".to_vec()),
        (5, b"one".to_vec()),
        (6, b"two".to_vec()),
    ];
    assert_eq!(crate_joined, expected);
    assert_eq!(joins.part[0].retransmitted(), 1);
    let d = dissect_payloads("wide_join", 30100, &datagrams);
    let mut shown = Vec::new();
    for frame in 0..datagrams.len() {
        for f in d.fields(frame, "wide_join") {
            if f.name == "wide_join.chunk.joined" {
                shown.push((frame, hex_bytes(&f.value)));
            }
        }
        let rejoined = d
            .experts(frame, "wide_join")
            .iter()
            .any(|e| e.ends_with(".rejoined"));
        assert_eq!(rejoined, frame == 7, "frame {frame}");
    }
    assert_eq!(shown, expected);
}

/// The crate's splitter numbers parts on from a first number near `u64::MAX` across the wrap
/// (it added the index to the first number in a `u64`, which overflowed), and its joiner joins
/// them back.
#[test]
fn the_splitter_numbers_across_the_wrap_of_a_64_bit_counter() {
    use wiregen_golden::wide_join::{split_part, Marks, Part, PartJoiner, PART_PART_SIZE};
    let template = Part {
        stream: 3,
        seq: 0,
        marks: Marks::empty(),
        chunk: Cow::Borrowed(&[]),
    };
    let payload: Vec<u8> = (0..2 * PART_PART_SIZE + 1).map(|i| i as u8).collect();
    let parts = split_part(&template, u64::MAX - 1, [&payload]).unwrap();
    let numbers: Vec<u64> = parts.iter().map(|p| p.seq).collect();
    assert_eq!(numbers, [u64::MAX - 1, 0, 1]);
    let mut joiner = PartJoiner::new();
    let mut joined = None;
    for p in parts.iter().rev() {
        joined = joiner.push(p).unwrap();
    }
    let joined = joined.expect("the first part completes the payload");
    assert_eq!((joined.first, joined.parts), (u64::MAX - 1, 3));
    assert_eq!(joined.chunk, payload);
}

/// Parts marked first and last by bool fields: the splitter sets them as it sets flag bits (it
/// refused such parts as unmarked, `PartMarker`), numbering across the sequence's wrap; the
/// crate's joiner and the dissector join what it cut, in the last part's frame.
#[test]
fn the_splitter_sets_bool_markers_and_both_outputs_join_its_parts() {
    use wiregen_golden::bool_markers::{split_part, Joined, Joins, Part, Protocol, PART_PART_SIZE};
    let payload: Vec<u8> = (0..2 * PART_PART_SIZE + 5).map(|i| i as u8).collect();
    let template = Part {
        seq: 0,
        first: false,
        last: false,
        chunk: Cow::Borrowed(b""),
    };
    let parts = split_part(&template, 65534, [&payload]).unwrap();
    let marks: Vec<(u16, bool, bool, usize)> = parts
        .iter()
        .map(|p| (p.seq, p.first, p.last, p.chunk.len()))
        .collect();
    assert_eq!(
        marks,
        [
            (65534, true, false, PART_PART_SIZE),
            (65535, false, false, PART_PART_SIZE),
            (0, false, true, 5)
        ]
    );
    let datagrams: Vec<Vec<u8>> = parts.iter().map(|p| p.encode().unwrap()).collect();
    let mut joins = Joins::default();
    let mut crate_joined = Vec::new();
    for (i, bytes) in datagrams.iter().enumerate() {
        let d = Protocol::decode_datagram(&mut (), true, bytes).unwrap();
        for (joined, _) in Protocol::join(&mut (), &mut joins, true, &d, i as u64).unwrap() {
            let Joined::Part(j) = joined;
            crate_joined.push((i, j.chunk.to_vec()));
        }
    }
    assert_eq!(crate_joined, [(2, payload)]);
    let d = dissect_payloads("bool_markers", 30101, &datagrams);
    let mut shown = Vec::new();
    for frame in 0..datagrams.len() {
        for f in d.fields(frame, "bool_markers") {
            if f.name == "bool_markers.chunk.joined" {
                shown.push((frame, hex_bytes(&f.value)));
            }
        }
    }
    assert_eq!(shown, crate_joined);
}
