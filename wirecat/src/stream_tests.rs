//! A direction's reading, segment by segment, with a 2-byte little-endian length prefix.

use super::*;

const FRAMING: Framing = Framing::new(2, false, false, 1000);

/// `message` with its prefix.
fn framed(message: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    FRAMING.frame_into(message, &mut out).unwrap();
    out
}

/// A stream fed (frame, seq, bytes) in the order given (the first at 1000, after a SYN at 999
/// when `syn`), then ended; what it gave.
fn read(syn: bool, segments: &[(u64, u32, &[u8])]) -> Vec<Piece> {
    let mut stream = Stream::default();
    let mut out = Vec::new();
    let header = |seq: u32, syn: bool| Tcp {
        seq,
        syn,
        fin: false,
        rst: false,
    };
    if syn {
        stream.push(&FRAMING, 0, header(999, true), &[], &mut out);
    }
    for &(frame, seq, bytes) in segments {
        stream.push(&FRAMING, frame, header(seq, false), bytes, &mut out);
    }
    stream.end(&FRAMING, &mut out);
    out
}

fn message(first_frame: u64, frame: u64, bytes: &[u8]) -> Piece {
    Piece::Message {
        first_frame,
        frame,
        bytes: bytes.to_vec(),
    }
}

fn note(frame: u64, note: Note) -> Piece {
    Piece::Note { frame, note }
}

#[test]
fn messages_split_across_segments_and_sharing_one_are_cut_at_their_prefixes() {
    let mut bytes = framed(b"abc");
    bytes.extend(framed(b"de"));
    bytes.extend(framed(b"fghij"));
    // "abc" and the start of "de" | the rest of "de" and 3 bytes of "fghij" | the rest.
    let pieces = read(
        true,
        &[
            (1, 1000, &bytes[..7]),
            (2, 1007, &bytes[7..13]),
            (3, 1013, &bytes[13..]),
        ],
    );
    assert_eq!(
        pieces,
        [
            message(1, 1, b"abc"),
            message(1, 2, b"de"),
            message(2, 3, b"fghij")
        ]
    );
}

#[test]
fn retransmitted_bytes_are_skipped_and_said() {
    let a = framed(b"abc");
    let b = framed(b"xy");
    let mut both = a.clone();
    both.extend(&b);
    // Segment 2 repeats segment 1; segment 3 repeats it and carries b.
    let pieces = read(true, &[(1, 1000, &a), (2, 1000, &a), (3, 1000, &both)]);
    assert_eq!(
        pieces,
        [
            message(1, 1, b"abc"),
            note(2, Note::Retransmission),
            note(3, Note::Retransmission),
            message(3, 3, b"xy")
        ]
    );
}

#[test]
fn an_early_segment_waits_for_the_bytes_before_it() {
    let a = framed(b"abc");
    let b = framed(b"xy");
    let pieces = read(true, &[(1, 1005, &b), (2, 1000, &a)]);
    assert_eq!(
        pieces,
        [
            note(2, Note::OutOfOrder),
            message(2, 2, b"abc"),
            message(1, 2, b"xy")
        ]
    );
}

#[test]
fn bytes_that_never_come_are_a_gap_and_reading_resumes_after_it() {
    let a = framed(b"abc");
    let b = framed(b"xy");
    // The first 3 bytes of a never come; b follows a.
    let pieces = read(true, &[(1, 1003, &a[3..]), (2, 1005, &b)]);
    assert_eq!(
        pieces,
        [
            note(
                1,
                Note::Gap {
                    missing: 3,
                    dropped: 0
                }
            ),
            // Reading resumes at the first byte after the gap: a's tail reads as a prefix.
            note(
                1,
                Note::FramingLost {
                    error: pieces_error(&[a[3], a[4]]),
                    dropped: 6
                }
            ),
        ]
    );
}

/// The error the framing gives on a prefix of these bytes.
fn pieces_error(prefix: &[u8]) -> String {
    FRAMING.next_frame(prefix).unwrap_err().to_string()
}

#[test]
fn a_stream_that_ends_mid_message_says_how_much_never_came() {
    let a = framed(b"abcdef");
    let pieces = read(true, &[(1, 1000, &a[..5])]);
    assert_eq!(pieces, [note(1, Note::Unfinished { bytes: 5 })]);
}

#[test]
fn a_capture_that_starts_mid_connection_reads_from_its_first_segment() {
    let a = framed(b"abc");
    let pieces = read(false, &[(7, 0xFFFF_FFFE, &a)]);
    assert_eq!(pieces, [message(7, 7, b"abc")]);
}

#[test]
fn sequence_numbers_wrap() {
    let a = framed(b"abc");
    let b = framed(b"xy");
    // a ends across the wrap of the 32-bit sequence numbers; b comes after it.
    let mut stream = Stream::default();
    let mut out = Vec::new();
    let at = |seq: u32| Tcp {
        seq,
        syn: false,
        fin: false,
        rst: false,
    };
    stream.push(&FRAMING, 1, at(u32::MAX - 1), &a, &mut out);
    stream.push(&FRAMING, 2, at(3), &b, &mut out);
    // A retransmission of a, from before the wrap.
    stream.push(&FRAMING, 3, at(u32::MAX - 1), &a, &mut out);
    assert_eq!(
        out,
        [
            message(1, 1, b"abc"),
            message(2, 2, b"xy"),
            note(3, Note::Retransmission)
        ]
    );
}

#[test]
fn too_many_early_segments_give_up_on_the_missing_bytes() {
    let mut stream = Stream::default();
    let mut out = Vec::new();
    let at = |seq: u32| Tcp {
        seq,
        syn: seq == 0,
        fin: false,
        rst: false,
    };
    stream.push(&FRAMING, 0, at(0), &[], &mut out);
    // Byte 1 never comes; one-message segments keep coming after it.
    let m = framed(b"z");
    for i in 0..=WAITING_SEGMENTS as u32 {
        stream.push(&FRAMING, u64::from(i) + 1, at(2 + 3 * i), &m, &mut out);
    }
    assert_eq!(
        out[0],
        note(
            1,
            Note::Gap {
                missing: 1,
                dropped: 0
            }
        )
    );
    assert_eq!(
        out.len(),
        WAITING_SEGMENTS + 2,
        "every message after the gap"
    );
    assert!(stream.early.is_empty() && stream.early_bytes == 0);
}
