//! The feature fixture (`tests/fixture/schema/features.yaml`): every construct the backends
//! generate, round-tripped in Rust and cross-checked field by field in tshark.

use features::*;
use std::borrow::Cow;
use wiregen_tests::*;

fn ascii(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect()
}

fn item(rng: &mut Rng) -> Item {
    Item {
        id: rng.next_u64() as u16,
        value: rng.next_u64() as i32,
    }
}

fn pair(rng: &mut Rng) -> Pair {
    Pair {
        a: rng.next_u64() as i8,
        b: rng.next_u64() as i64,
        c: rng.next_u64(),
    }
}

fn body(rng: &mut Rng) -> MessageBody<'static> {
    match rng.below(6) {
        0 => MessageBody::Empty,
        1 => MessageBody::Pair(pair(rng)),
        2 => {
            let units = rng.below(6) as u8;
            MessageBody::Text(Text {
                name: Cow::Owned({
                    let n = rng.below(20) as usize;
                    ascii(rng, n)
                }),
                note: Cow::Owned(rng.bytes_below(10)),
                tail: Cow::Owned(ascii(rng, units as usize * 2)),
            })
        }
        3 => {
            let hflags = Opts(rng.next_u64() as u16);
            MessageBody::Numbers(Numbers {
                header: Header {
                    hflags,
                    version: rng.below(10) as u8,
                },
                bonus: hflags.contains(Opts::WIDE).then(|| rng.next_u64() as u8),
                items: (0..rng.below(5)).map(|_| item(rng)).collect(),
                words: (0..rng.below(5)).map(|_| rng.next_u64() as u16).collect(),
                inner: item(rng),
                shape: if rng.below(2) == 0 {
                    NumbersShape::Tag0
                } else {
                    NumbersShape::Item {
                        shape_tag: 1 + rng.below(3) as u8,
                        value: item(rng),
                    }
                },
            })
        }
        4 => MessageBody::Range16To31 {
            kind: Kind::from_raw(16 + rng.below(16) as u8),
            value: pair(rng),
        },
        _ => {
            let tag = loop {
                let t = rng.next_u64() as u8;
                if t > 3 && !(16..=31).contains(&t) {
                    break t;
                }
            };
            MessageBody::Other {
                kind: Kind::from_raw(tag),
                data: Cow::Owned(rng.bytes_below(8)),
            }
        }
    }
}

fn message(rng: &mut Rng) -> Message<'static> {
    let opts = Opts(rng.next_u64() as u16);
    let counter = rng.below(1 << 24) as u32;
    let enabled = rng.below(2) == 0;
    Message {
        opts,
        counter,
        delta: rng.next_u64() as i16,
        // Values every display shows exactly.
        ratio: (rng.below(2000) as f32 - 1000.0) / 8.0,
        precise: (rng.below(1 << 20) as f64 - 500000.0) / 1024.0,
        enabled,
        level: opts.contains(Opts::HAS_LEVEL).then(|| {
            if rng.below(2) == 0 {
                Level::Low
            } else {
                Level::High
            }
        }),
        extra: (opts.contains(Opts::HAS_EXTRA) && counter >= 0x1000 && !enabled)
            .then(|| rng.next_u64() as u32),
        body: body(rng),
        trailer: rng.bytes_below(6),
    }
}

#[test]
fn round_trip_and_tshark_agree_on_every_construct() {
    let mut rng = Rng(0xfea7);
    let messages: Vec<Vec<u8>> = (0..400)
        .map(|_| {
            let m = message(&mut rng);
            let bytes = m.encode().unwrap_or_else(|e| panic!("{m:?}: {e}"));
            assert_eq!(
                Message::decode(&bytes).unwrap_or_else(|e| panic!("{m:?}: {e}")),
                m
            );
            bytes
        })
        .collect();
    udp_cross_check(
        "features",
        "tests/fixture/dissectors/features.lua",
        &[7555, 7000, 7000, 7000],
        &messages,
        |_, m| {
            let (decoded, notes) = Message::dissect(m);
            let decoded = decoded.unwrap();
            let unknown = matches!(
                decoded.body,
                MessageBody::Range16To31 { .. } | MessageBody::Other { .. }
            );
            let want: &[&str] = if unknown {
                &["features.expert.unknown_value"]
            } else {
                &[]
            };
            let experts: Vec<String> = want.iter().map(|e| e.to_string()).collect();
            (expected(&notes), experts)
        },
    );
}

fn sample() -> Message<'static> {
    Message {
        opts: Opts::HAS_LEVEL,
        counter: 0x010203,
        delta: -2,
        ratio: 1.5,
        precise: -0.25,
        enabled: true,
        level: Some(Level::High),
        extra: None,
        body: MessageBody::Text(Text {
            name: "ab".into(),
            note: Cow::Borrowed(&[9]),
            tail: "xy".into(),
        }),
        trailer: vec![7],
    }
}

#[test]
fn byte_layout_by_hand() {
    // magic F00D, kind 2, opts 0001 (BE), counter 010203 (u24 BE), delta FEFF (LE), ratio 1.5 =
    // 3FC00000 (BE), precise -0.25 = 000000000000D0BF (LE), enabled 01, level 0002 (BE),
    // body_len 0009, body: name 02 "ab", note 0100 (LE) 09, units 01, tail "xy"; trailer 07.
    let wire = "f00d020001010203feff3fc00000000000000000d0bf010002000902616201000901787907";
    let bytes = sample().encode().unwrap();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, wire);
    assert_eq!(Message::decode(&bytes).unwrap(), sample());
}

#[test]
fn conditions_are_enforced_both_ways() {
    // `level` is announced by opts.HAS_LEVEL: the encoder sets or clears the bit from the Option.
    let mut m = sample();
    m.level = None;
    let bytes = m.encode().unwrap();
    assert_eq!(&bytes[3..5], &[0x00, 0x00]);
    m.opts = Opts::empty();
    assert_eq!(Message::decode(&bytes).unwrap(), m);
    let mut m = sample();
    m.opts = Opts::empty();
    assert_eq!(m.encode().unwrap()[3..5], [0x00, 0x01]);
    // `extra`'s condition also reads counter and enabled: the encoder cannot choose those, so a
    // disagreement is refused.
    let mut m = sample();
    m.extra = Some(1);
    assert_eq!(
        m.encode().unwrap_err().kind,
        EncodeErrorKind::Presence { present: true }
    );
}

#[test]
fn encoder_checks_widths_lengths_and_tags() {
    let mut m = sample();
    m.counter = 1 << 24;
    let e = m.encode().unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "counter".to_string(),
            EncodeErrorKind::TooLarge {
                value: 1 << 24,
                max: 0xFF_FFFF
            }
        )
    );
    let mut m = sample();
    m.body = MessageBody::Text(Text {
        name: "a".into(),
        note: Cow::Borrowed(&[]),
        tail: "xyz".into(),
    });
    // units is derived (tail is units * 2 bytes): an odd tail has no units.
    let e = m.encode().unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "body.units".to_string(),
            EncodeErrorKind::LengthMismatch {
                expected: 2,
                actual: 3
            }
        )
    );
    let mut m = sample();
    m.body = MessageBody::Range16To31 {
        kind: Kind::Pair,
        value: Pair { a: 0, b: 0, c: 0 },
    };
    assert_eq!(
        m.encode().unwrap_err().kind,
        EncodeErrorKind::TagOutsideCase { tag: 1 }
    );
    let mut m = sample();
    m.body = MessageBody::Text(Text {
        name: "n".repeat(256).into(),
        note: Cow::Borrowed(&[]),
        tail: "".into(),
    });
    assert_eq!(
        m.encode().unwrap_err().kind,
        EncodeErrorKind::TooLarge {
            value: 256,
            max: 255
        }
    );
}

#[test]
fn decoder_rejects_closed_enum_values_and_unknown_tags() {
    let mut bytes = sample().encode().unwrap();
    // level sits after magic 2 + kind 1 + opts 2 + counter 3 + delta 2 + ratio 4 + precise 8 + enabled 1.
    bytes[24] = 3; // 0x0003 is not LOW or HIGH
    let e = Message::decode(&bytes).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "level".to_string(),
            23,
            DecodeErrorKind::UnknownValue { value: 3 }
        )
    );

    let numbers = Numbers {
        header: Header {
            hflags: Opts::empty(),
            version: 1,
        },
        bonus: None,
        items: vec![],
        words: vec![],
        inner: Item { id: 1, value: 2 },
        shape: NumbersShape::Tag0,
    };
    let mut m = sample();
    m.body = MessageBody::Numbers(numbers);
    let mut bytes = m.encode().unwrap();
    let tag_at = bytes.len() - 2; // shape_tag, then the trailer byte
    bytes[tag_at] = 9;
    let e = Message::decode(&bytes).unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "body.shape".to_string(),
            DecodeErrorKind::UnknownValue { value: 9 }
        )
    );
    // version is at most 9.
    let mut bytes = m.encode().unwrap();
    // The body starts after level (23 + 2) and body_len (2); version follows hflags (2).
    let version_at = 27 + 2;
    bytes[version_at] = 10;
    let e = Message::decode(&bytes).unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "body.header.version".to_string(),
            DecodeErrorKind::TooLarge { value: 10, max: 9 }
        )
    );
}

/// An array's label counts its elements, whether the dissector keeps their values or not (a
/// count-prefixed `u16[]` showed `Words (0)`).
#[test]
fn array_labels_count_their_elements() {
    let mut m = sample();
    m.body = MessageBody::Numbers(Numbers {
        header: Header {
            hflags: Opts(0),
            version: 1,
        },
        bonus: None,
        items: vec![],
        words: vec![1, 2, 3],
        inner: Item { id: 4, value: -5 },
        shape: NumbersShape::Tag0,
    });
    m.trailer = vec![7, 8];
    let pcap = std::env::temp_dir().join(format!("wiregen-arrays-{}.pcap", std::process::id()));
    write_pcap(
        &pcap,
        &[Datagram {
            src_port: 30000,
            dst_port: 7555,
            payload: m.encode().unwrap(),
        }],
    );
    let d = dissect(
        &pcap,
        &repo_root().join("tests/fixture/dissectors/features.lua"),
        &[],
    );
    let labels: Vec<&str> = d.frames[0].iter().map(|f| f.showname.as_str()).collect();
    for label in ["Items (0)", "Words (3)", "Trailer (2)"] {
        assert!(labels.contains(&label), "{label} not in {labels:?}");
    }
    let _ = std::fs::remove_file(pcap);
}

/// A type's `info:` summary joins the Info column after the root's, wherever the type is read
/// (Pair's "pair={a}/{b}" inside the root's body).
#[test]
fn a_nested_type_adds_its_summary_to_the_info_column() {
    let mut rng = Rng(0x1f0);
    let mut m = message(&mut rng);
    m.body = MessageBody::Pair(Pair { a: -3, b: 7, c: 9 });
    let bytes = m.encode().unwrap();
    let pcap = std::env::temp_dir().join(format!("wiregen-info-{}.pcap", std::process::id()));
    write_pcap(
        &pcap,
        &[Datagram {
            src_port: 40000,
            dst_port: 7555,
            payload: bytes,
        }],
    );
    let info = info_column(&pcap, &["tests/fixture/dissectors/features.lua"], &[]);
    let _ = std::fs::remove_file(&pcap);
    assert!(info[0].ends_with(" pair=-3/7"), "{info:?}");
    assert!(info[0].starts_with("PAIR "), "{info:?}");
}
