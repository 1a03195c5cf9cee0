//! Golden snippets cross-checked like the shipped protocols: values encoded by the snippet's
//! generated Rust, dissected by its generated Lua in tshark, field by field.

use std::borrow::Cow;
use std::path::PathBuf;
use wiregen_golden::checksum_params::{Framed, FramedBody, Inner};
use wiregen_runtime::{Codec, Crc};
use wiregen_tests::*;

fn snippet_lua(name: &str) -> PathBuf {
    repo_root().join(format!("codegen/tests/golden/{name}.lua"))
}

/// What frame `i` shows for each field `name` (`proto.…`, of that protocol).
fn shown(d: &Dissection, i: usize, name: &str) -> Vec<String> {
    let proto = name.split('.').next().unwrap_or(name);
    d.fields(i, proto)
        .into_iter()
        .filter(|f| f.name == name)
        .map(|f| f.show.clone())
        .collect()
}

/// `payloads` as UDP datagrams to `port`, dissected by snippet `name`'s dissector.
fn dissect_payloads(name: &str, port: u16, payloads: &[Vec<u8>]) -> Dissection {
    let dir = std::env::temp_dir().join(format!("wiregen-golden-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join(format!("{name}.pcap"));
    let datagrams: Vec<Datagram> = payloads
        .iter()
        .map(|payload| Datagram {
            src_port: 40000,
            dst_port: port,
            payload: payload.clone(),
        })
        .collect();
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &snippet_lua(name), &[]);
    let _ = std::fs::remove_dir_all(dir);
    d
}

/// The value of the only field `name` of frame `i`.
fn value(d: &Dissection, i: usize, name: &str) -> String {
    let found = shown(d, i, name);
    assert_eq!(found.len(), 1, "frame {i}: one {name}");
    found[0].clone()
}

#[test]
fn catalogue_and_parameterised_crcs_agree_between_crate_and_dissector() {
    // The parameters the schema gives are CRC-16/DNP's: its catalogue check value.
    let dnp = Crc::new(16, 0x3d65, 0, true, true, 0xffff);
    assert_eq!(dnp.checksum(&[b"123456789"]), 0xEA82);

    let messages = [
        Framed {
            body: FramedBody::Inner(Inner { value: 0xBEEF }),
        },
        Framed {
            body: FramedBody::Inner(Inner { value: 0 }),
        },
        Framed {
            body: FramedBody::Other {
                kind: 7,
                data: Cow::Borrowed(b"opaque"),
            },
        },
    ];
    let mut datagrams: Vec<Datagram> = messages
        .iter()
        .map(|m| Datagram {
            src_port: 40000,
            dst_port: 9117,
            payload: m.encode().unwrap(),
        })
        .collect();
    // The inner CRC is computed over the inner struct with its own bytes zeroed.
    let inner = &datagrams[0].payload[5..];
    assert_eq!(
        u16::from_le_bytes([inner[2], inner[3]]) as u64,
        dnp.checksum(&[&inner[..2], &[0, 0]])
    );
    // A corrupted copy of the first: both CRCs fail in the dissector, the decoder refuses it.
    let mut bad = datagrams[0].payload.clone();
    bad[5] ^= 0x01;
    assert!(Framed::decode(&bad).is_err());
    datagrams.push(Datagram {
        src_port: 40000,
        dst_port: 9117,
        payload: bad,
    });

    let dir = std::env::temp_dir().join(format!("wiregen-golden-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("checksum_params.pcap");
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &snippet_lua("checksum_params"), &[]);
    for (i, dg) in datagrams.iter().enumerate().take(3) {
        let crc = u32::from_le_bytes(dg.payload[1..5].try_into().unwrap());
        assert_eq!(
            value(&d, i, "checksum_params.crc"),
            format!("0x{crc:08x}"),
            "frame {i}"
        );
        assert_eq!(
            value(&d, i, "checksum_params.crc.status"),
            "1",
            "frame {i}: crc32c"
        );
        assert!(d.experts(i, "checksum_params").is_empty(), "frame {i}");
    }
    for i in 0..2 {
        assert_eq!(
            value(&d, i, "checksum_params.inner.check.status"),
            "1",
            "frame {i}: CRC-16/DNP"
        );
    }
    assert_eq!(value(&d, 3, "checksum_params.crc.status"), "0");
    assert_eq!(value(&d, 3, "checksum_params.inner.check.status"), "0");
    assert!(d
        .experts(3, "checksum_params")
        .contains(&"checksum_params.expert.bad_checksum"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Sums, XOR, the Internet checksum, Adler-32 and Fletcher over ranges of fields: the bytes
/// the crate writes are those computed independently (Python's zlib and RFC 1071 by hand), the
/// dissector agrees on every field of thousands of arbitrary frames, and a corrupted byte is
/// refused by the decoder naming the checksum and marked by the dissector.
#[test]
fn checksum_family_over_ranges_agrees_between_crate_and_dissector() {
    use wiregen_golden::checksum_family::{Frame, FrameBody, Protocol, Sums, Words};
    let sums = Frame {
        body: FrameBody::Sums(Sums {
            a: 0x0102,
            text: "hi".into(),
        }),
    };
    // kind 1, sum8 of kind..length 0x0d, length 12, internet 0x1193 of the body; the body's
    // sum16 0x01ac (over its own sum32 and xor8), sum32 0xd6, xor8 0; adler32 of all before it.
    let expected = hex_bytes("010d000c1193010202686901ac000000d60016fb0318");
    assert_eq!(sums.encode().unwrap(), expected);
    assert_eq!(Frame::decode(&expected).unwrap(), sums);
    let words = Frame {
        body: FrameBody::Words(Words {
            values: vec![0x1234, 0xABCD, 0x0001],
        }),
    };
    // Fletcher-16 0x9fc3 (stored little-endian), Fletcher-32 0x4b45be05 of the values.
    let expected = hex_bytes("020f000d0f75031234abcd0001c39f4b45be0525ac051a");
    assert_eq!(words.encode().unwrap(), expected);
    assert_eq!(Frame::decode(&expected).unwrap(), words);

    // Each checksum refuses a change in what it covers, naming itself.
    let bad = |i: usize| {
        let mut b = hex_bytes("010d000c1193010202686901ac000000d60016fb0318");
        b[i] ^= 0x40;
        Frame::decode(&b).unwrap_err().to_string()
    };
    assert!(bad(21).contains("'adler'"), "{}", bad(21));
    assert!(bad(4).contains("'body_check'"), "{}", bad(4));
    assert!(bad(9).contains("'body.total'"), "{}", bad(9));
    assert!(bad(13).contains("'body.total'"), "{}", bad(13));

    let report =
        verify_protocol::<Protocol>(&["codegen/tests/golden/checksum_family.lua"], &[], 0x5130);
    assert!(report.fields > 10_000, "{report}");

    // The dissector: right checksums correct; a corrupted text byte wrong for sum32, xor8,
    // sum16, internet and adler32, while sum8 of the header stays correct.
    let mut corrupt = sums.encode().unwrap();
    corrupt[10] ^= 0x01;
    let datagrams: Vec<Datagram> = [sums.encode().unwrap(), words.encode().unwrap(), corrupt]
        .into_iter()
        .map(|payload| Datagram {
            src_port: 40000,
            dst_port: 9118,
            payload,
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("wiregen-golden-family-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("checksum_family.pcap");
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &snippet_lua("checksum_family"), &[]);
    let status = |i: usize, name: &str| value(&d, i, &format!("checksum_family.{name}.status"));
    for name in [
        "header_sum",
        "body_check",
        "adler",
        "sums.total",
        "sums.wide",
        "sums.parity",
    ] {
        assert_eq!(status(0, name), "1", "{name}");
        let bad = if name == "header_sum" { "1" } else { "0" };
        assert_eq!(status(2, name), bad, "corrupted: {name}");
    }
    for name in ["words.short", "words.long"] {
        assert_eq!(status(1, name), "1", "{name}");
    }
    assert!(d.experts(0, "checksum_family").is_empty());
    assert!(d
        .experts(2, "checksum_family")
        .contains(&"checksum_family.expert.bad_checksum"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Reserved fields, padding and alignment: the bytes the crate writes (zeros where the schema
/// says), a decoder that ignores what reserved and padding bytes hold, an encoder that refuses a
/// value longer than its padded size, and the dissector agreeing field by field (padding shown
/// as `padding.padding`).
#[test]
fn padding_alignment_and_reserved_fields_agree_between_crate_and_dissector() {
    use wiregen_golden::padding::{Entry, Mode, Protocol, Record, Tail};
    let record = Record {
        kind: 7,
        id: 0x1122_3344,
        name: "abc".into(),
        mode: Mode { level: 5 },
        entries: vec![Entry {
            code: 0x0102,
            value: 9,
        }],
        tail: Tail { note: "hi".into() },
    };
    // kind, reserved 0, 2 bytes aligning id to 4, id, name (prefix and 3 bytes) padded to 16,
    // 3 reserved bytes, level 5 and 5 reserved bits, 1 entry padded to 8, the tail (3 bytes)
    // aligned to 4.
    let expected = hex_bytes(concat!(
        "07",
        "00",
        "0000",
        "44332211",
        "03616263",
        "000000000000000000000000",
        "000000",
        "05",
        "01",
        "020109",
        "0000000000",
        "026869",
        "00"
    ));
    assert_eq!(record.encode().unwrap(), expected);
    assert_eq!(Record::decode(&expected).unwrap(), record);
    // What reserved and padding bytes hold is ignored on decode (and written as zero again).
    let mut noisy = expected.clone();
    for i in [1, 2, 3, 20, 24, 27, 33, 40] {
        noisy[i] |= 0xA0;
    }
    assert_eq!(Record::decode(&noisy).unwrap(), record);
    // The padding bytes are in the trace, with their real content.
    let (decoded, notes) = Record::dissect(&noisy);
    assert_eq!(decoded.unwrap(), record);
    let padding: Vec<(usize, usize)> = notes
        .iter()
        .filter(|n| n.abbrev == "padding.padding")
        .map(|n| (n.offset, n.len))
        .collect();
    assert_eq!(padding, [(2, 2), (12, 12), (32, 5), (40, 1)]);
    // A name that does not fit its 16 bytes (prefix included) is refused, naming it.
    let long = Record {
        name: "sixteen bytes!!!".into(),
        ..record.clone()
    };
    let err = long.encode().unwrap_err().to_string();
    assert!(err.contains("'name'") && err.contains("17 bytes"), "{err}");
    // Too few bytes for the padded size: a decode error naming the field.
    let err = Record::decode(&expected[..20]).unwrap_err().to_string();
    assert!(err.contains("'name'"), "{err}");

    verify_protocol::<Protocol>(&["codegen/tests/golden/padding.lua"], &[], 0x5131);

    // The dissector shows the reserved values it read, and the padding bytes.
    let d = dissect_payloads("padding", 9119, &[expected.clone(), noisy.clone()]);
    assert_eq!(shown(&d, 1, "padding.reserved"), ["0xa0"]);
    assert_eq!(shown(&d, 1, "padding.mode.unused"), ["0x14"]);
    assert_eq!(
        shown(&d, 1, "padding.padding"),
        [
            "a0:a0",
            "00:00:00:00:00:00:00:00:a0:00:00:00",
            "00:a0:00:00:00",
            "a0"
        ]
    );
    assert_eq!(shown(&d, 0, "padding.padding").len(), 4);
    for i in 0..2 {
        assert!(d.experts(i, "padding").is_empty(), "frame {i}");
    }
}

/// Size fields with an offset or a scale are derived by the encoder (the user never sets
/// them), read back by the decoder and the dissector alike; data no size value gives is refused
/// naming the size field.
#[test]
fn size_fields_with_offsets_are_derived_and_agree_with_the_dissector() {
    use wiregen_golden::size_offsets::{Block, Frame, FrameBody, Protocol};
    let frame = Frame {
        payload: b"hey".as_slice().into(),
        ids: vec![1, 2],
        block: Block {
            a: 0x0A0B,
            b: 0x0C0D,
        },
        slots: vec![1, 2, 3],
        body: FrameBody::Block(Block { a: 1, b: 2 }),
        trailer: 9,
    };
    // size 5 (3 + 2), last_index 1 (2 ids), words 1 (4 bytes), free 5 (8 - 3), kind 1,
    // body_len 5 (4 + 1).
    let expected = hex_bytes(concat!(
        "0005", "686579", "01", "00010002", "01", "0a0b0c0d", "05", "010203", "01", "05",
        "00010002", "09"
    ));
    assert_eq!(frame.encode().unwrap(), expected);
    assert_eq!(Frame::decode(&expected).unwrap(), frame);
    let refused = |f: Frame| f.encode().unwrap_err().to_string();
    let no_ids = Frame {
        ids: vec![],
        ..frame.clone()
    };
    assert!(
        refused(no_ids.clone()).contains("'last_index'"),
        "{}",
        refused(no_ids)
    );
    let nine_slots = Frame {
        slots: vec![0; 9],
        ..frame.clone()
    };
    assert!(
        refused(nine_slots.clone()).contains("'free'"),
        "{}",
        refused(nine_slots)
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/size_offsets.lua"], &[], 0x5132);
}

/// Presence derived from the Option whatever announces it: flag bits set and cleared, a bool
/// meaning "absent", enum and integer values written when the Option says so (and a value the
/// encoder cannot choose refused), and a flag implied by the payload's variant, which the
/// dissector checks on packets the crate did not write.
#[test]
fn presence_announced_by_flags_bools_and_values_follows_the_option() {
    use wiregen_golden::presence::{Message, MessageBody, Motion, Opts, Protocol, Shape};
    use wiregen_runtime::EncodeErrorKind;
    let given = Message {
        opts: Opts::URGENT | Opts::NO_NAME,
        shape: Shape::None,
        mode: 9,
        target: Some(0x1122_3344),
        name: Some("ab".into()),
        note: Some("n".into()),
        radius: Some(5),
        extra: None,
        motion: Motion {
            speed: Some(100),
            heading: None,
        },
        body: MessageBody::Ack,
    };
    // kind ACK (3); opts URGENT | IS_ACK (the ACK body) | HAS_TARGET (target), NO_NAME cleared
    // (a name); no_note 0; shape CIRCLE (a radius); mode 0 (no extra); target; name; note;
    // radius; motion: has_speed 1, idle 1 (no heading), speed 100 from bit 2: 0x193.
    let expected = hex_bytes(concat!("038500010044332211", "026162016e05009301"));
    assert_eq!(given.encode().unwrap(), expected);
    let written = Message {
        opts: Opts::URGENT | Opts::IS_ACK | Opts::HAS_TARGET,
        shape: Shape::Circle,
        mode: 0,
        ..given.clone()
    };
    assert_eq!(Message::decode(&expected).unwrap(), written);
    assert_eq!(written.encode().unwrap(), expected);
    // The other way round: no target, no name, no note, a heading; PING clears IS_ACK.
    let other = Message {
        opts: Opts::IS_ACK | Opts::HAS_TARGET,
        target: None,
        name: None,
        note: None,
        motion: Motion {
            speed: None,
            heading: Some(1023),
        },
        body: MessageBody::Ping,
        ..written.clone()
    };
    // kind 1; opts NO_NAME; no_note 1; shape 1; mode 0; radius; motion: 0, 0, heading 0x3ff
    // from bit 2: 0xffc.
    assert_eq!(other.encode().unwrap(), hex_bytes("01020101000500fc0f"));
    // An extra needs a mode other than 0, and a circle needs its radius: the encoder cannot
    // choose them, so it refuses, naming the field.
    let e = Message {
        mode: 0,
        extra: Some(1),
        ..written.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        ("extra".into(), EncodeErrorKind::Presence { present: true })
    );
    let e = Message {
        radius: None,
        ..written.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "radius".into(),
            EncodeErrorKind::Presence { present: false }
        )
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/presence.lua"], &[], 0x9121);

    // IS_ACK on a PING, and an ACK without it: read as they are, and the dissector says so.
    let mut ping = other.encode().unwrap();
    ping[1] |= 0x04;
    let mut ack = expected.clone();
    ack[1] &= !0x04;
    assert!(Message::decode(&ping).unwrap().opts.contains(Opts::IS_ACK));
    assert!(!Message::decode(&ack).unwrap().opts.contains(Opts::IS_ACK));
    let d = dissect_payloads("presence", 9121, &[expected.clone(), ping, ack]);
    assert!(d.experts(0, "announced").is_empty());
    for i in 1..3 {
        assert_eq!(
            d.experts(i, "announced"),
            ["announced.expert.quirk"],
            "frame {i}"
        );
    }
}

/// NUL-terminated and NUL-padded strings: the bytes the crate writes, strings that fill their
/// buffer or hold garbage after the NUL, refusals naming the field, and the dissector agreeing
/// (and saying, never failing, when a NUL is missing).
#[test]
fn nul_terminated_and_padded_strings_agree_between_crate_and_dissector() {
    use wiregen_golden::strings::{Login, Protocol};
    use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};
    let login = Login {
        version: 2,
        user: "ab".into(),
        map: "dust".into(),
        motd: "".into(),
        tail: 0x0102,
    };
    // version; "ab" NUL; "dust" and 12 zeros; "" NUL; tail.
    let expected = hex_bytes(concat!(
        "02",
        "616200",
        "64757374000000000000000000000000",
        "00",
        "0201"
    ));
    assert_eq!(login.encode().unwrap(), expected);
    assert_eq!(Login::decode(&expected).unwrap(), login);
    // A map that fills all 16 bytes has no NUL; what follows a NUL in the buffer is not text.
    let full = Login {
        map: "0123456789abcdef".into(),
        ..login.clone()
    };
    let bytes = full.encode().unwrap();
    assert_eq!(&bytes[4..20], b"0123456789abcdef");
    assert_eq!(Login::decode(&bytes).unwrap(), full);
    let mut garbage = expected.clone();
    garbage[9..12].copy_from_slice(b"xyz");
    assert_eq!(Login::decode(&garbage).unwrap(), login);
    // Refused: a map of 17 bytes, a NUL inside a string.
    let e = Login {
        map: "0123456789abcdefg".into(),
        ..login.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "map".into(),
            EncodeErrorKind::TooLong {
                size: 16,
                actual: 17
            }
        )
    );
    let e = Login {
        user: "a\0b".into(),
        ..login.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        ("user".into(), EncodeErrorKind::ContainsNul { at: 1 })
    );
    // No NUL before the end: an error at the end of the input, naming the field.
    let e = Login::decode(&hex_bytes("026162")).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        ("user".into(), 3, DecodeErrorKind::NoTerminator)
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/strings.lua"], &[], 0x9122);

    let d = dissect_payloads(
        "strings",
        9122,
        &[
            expected.clone(),
            garbage,
            bytes,
            hex_bytes("026162"),
            hex_bytes("02"),
        ],
    );
    for i in 0..3 {
        assert!(d.experts(i, "strings").is_empty(), "frame {i}");
        assert_eq!(value(&d, i, "strings.user"), "ab");
    }
    assert_eq!(value(&d, 0, "strings.map"), "dust");
    assert_eq!(value(&d, 1, "strings.map"), "dust");
    assert_eq!(value(&d, 2, "strings.map"), "0123456789abcdef");
    assert_eq!(value(&d, 0, "strings.motd"), "");
    for i in 3..5 {
        assert_eq!(
            d.experts(i, "strings"),
            ["strings.expert.truncated"],
            "frame {i}"
        );
    }
}

/// Text in ASCII, Latin-1 and UTF-16 (both byte orders, a length in code units derived by the
/// encoder): the bytes the crate writes, characters an encoding has not refused naming the
/// field, invalid bytes named at their offset, and the dissector showing the same text.
#[test]
fn text_encodings_agree_between_crate_and_dissector() {
    use wiregen_golden::encodings::{Profile, Protocol};
    use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};
    let profile = Profile {
        tag: "v1".into(),
        city: "Köln".into(),
        name: "é𝄞".into(),
        motto: "Hi".into(),
        note: "ça".into(),
        code: "AB12".into(),
    };
    let expected = hex_bytes(concat!(
        "027631",
        "044bf66c6e",
        "0300",
        "e900",
        "34d81edd",
        "0400480069",
        "e76100",
        "4142313200000000"
    ));
    assert_eq!(profile.encode().unwrap(), expected);
    assert_eq!(Profile::decode(&expected).unwrap(), profile);
    // Characters the encodings have not.
    let refused = |p: Profile| {
        let e = p.encode().unwrap_err();
        (e.field(), e.kind)
    };
    assert_eq!(
        refused(Profile {
            tag: "é".into(),
            ..profile.clone()
        }),
        (
            "tag".into(),
            EncodeErrorKind::Unencodable {
                at: 0,
                encoding: "ASCII"
            }
        )
    );
    assert_eq!(
        refused(Profile {
            note: "a€".into(),
            ..profile.clone()
        }),
        (
            "note".into(),
            EncodeErrorKind::Unencodable {
                at: 1,
                encoding: "Latin-1"
            }
        )
    );
    // A byte above 0x7f in ASCII, and an odd byte count for UTF-16, named at their offset.
    let mut bad = expected.clone();
    bad[2] = 0xb1;
    let e = Profile::decode(&bad).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "tag".into(),
            2,
            DecodeErrorKind::InvalidText { encoding: "ASCII" }
        )
    );
    let mut odd = expected.clone();
    odd[16] = 3;
    odd.truncate(20);
    let e = Profile::decode(&odd).unwrap_err();
    assert_eq!((e.field(), e.offset), ("motto".into(), 19));

    verify_protocol::<Protocol>(&["codegen/tests/golden/encodings.lua"], &[], 0x9123);

    let d = dissect_payloads("encodings", 9123, &[expected.clone(), bad]);
    assert!(d.experts(0, "encodings").is_empty());
    for (field, text) in [
        ("tag", "v1"),
        ("city", "Köln"),
        ("name", "é𝄞"),
        ("motto", "Hi"),
        ("note", "ça"),
        ("code", "AB12"),
    ] {
        assert_eq!(value(&d, 0, &format!("encodings.{field}")), text, "{field}");
    }
    assert_eq!(
        d.experts(1, "encodings"),
        ["encodings.expert.invalid_value"]
    );
}

/// Allowed values: in range and in the list they round-trip; outside, the decoder names the
/// field and its offset, the encoder refuses them, and the dissector marks them.
#[test]
fn valid_values_are_checked_by_crate_and_dissector() {
    use wiregen_golden::valid::{Protocol, Settings};
    use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};
    let settings = Settings {
        players: 6,
        tick_rate: 60,
        offset: -100,
        bonus: Some(4),
    };
    // players 6, tick_rate 60, offset -100, bonus 4 (present: players > 4).
    let expected = hex_bytes("063c009cff04");
    assert_eq!(settings.encode().unwrap(), expected);
    assert_eq!(Settings::decode(&expected).unwrap(), settings);
    let refused = |s: Settings| {
        let e = s.encode().unwrap_err();
        (e.field(), e.kind)
    };
    assert_eq!(
        refused(Settings {
            players: 9,
            ..settings.clone()
        }),
        ("players".into(), EncodeErrorKind::NotValid { value: 9 })
    );
    assert_eq!(
        refused(Settings {
            tick_rate: 64,
            ..settings.clone()
        }),
        ("tick_rate".into(), EncodeErrorKind::NotValid { value: 64 })
    );
    assert_eq!(
        refused(Settings {
            offset: -101,
            ..settings.clone()
        }),
        ("offset".into(), EncodeErrorKind::NotValid { value: -101 })
    );
    assert_eq!(
        refused(Settings {
            bonus: Some(3),
            ..settings.clone()
        }),
        ("bonus".into(), EncodeErrorKind::NotValid { value: 3 })
    );
    // On decode: the first value outside, named at its offset (a conditional one too).
    let wrong = [
        ("003c009cff", "players", 0, 0),
        ("0340009cff", "tick_rate", 1, 64),
        ("033c009bff", "offset", 3, -101),
        ("063c009cff05", "bonus", 5, 5),
    ];
    for (hex, field, offset, value) in wrong {
        let e = Settings::decode(&hex_bytes(hex)).unwrap_err();
        assert_eq!(
            (e.field(), e.offset, e.kind),
            (field.into(), offset, DecodeErrorKind::NotValid { value }),
            "{hex}"
        );
    }

    verify_protocol::<Protocol>(&["codegen/tests/golden/valid.lua"], &[], 0x9124);

    let payloads: Vec<Vec<u8>> = std::iter::once(expected.clone())
        .chain(wrong.iter().map(|(hex, ..)| hex_bytes(hex)))
        .collect();
    let d = dissect_payloads("valid", 9124, &payloads);
    assert!(d.experts(0, "valid").is_empty());
    for i in 1..5 {
        assert_eq!(
            d.experts(i, "valid"),
            ["valid.expert.invalid_value"],
            "frame {i}"
        );
    }
}

/// Lengths and counts in LEB128 and Riptide 2.0 prefixes: one and two (or more) prefix bytes,
/// the encoder writing the smallest form and refusing what Riptide's 15 bits cannot say, and
/// the dissector showing each prefix and value.
#[test]
fn varint_prefixes_agree_between_crate_and_dissector() {
    use wiregen_golden::varint_prefixes::{Bundle, Point, Protocol};
    use wiregen_runtime::EncodeErrorKind;
    let small = Bundle {
        blob: b"ab".as_slice().into(),
        title: "hi".into(),
        ids: vec![7],
        points: vec![Point { x: -1, y: 2 }],
    };
    // 02 "ab"; 02 "hi"; 01 0700; 01 ff02.
    let expected = hex_bytes(concat!("026162", "026869", "010700", "01ff02"));
    assert_eq!(small.encode().unwrap(), expected);
    assert_eq!(Bundle::decode(&expected).unwrap(), small);
    // 200 bytes: LEB128 c8 01; a 300-byte title: Riptide 81 2c.
    let large = Bundle {
        blob: vec![0x55; 200].into(),
        title: "t".repeat(300).into(),
        ..small.clone()
    };
    let bytes = large.encode().unwrap();
    assert_eq!(&bytes[..2], [0xc8, 0x01]);
    assert_eq!(&bytes[202..204], [0x81, 0x2c]);
    assert_eq!(Bundle::decode(&bytes).unwrap(), large);
    let e = Bundle {
        title: "t".repeat(0x8000).into(),
        ..small.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "title".into(),
            EncodeErrorKind::TooLarge {
                value: 0x8000,
                max: 0x7fff
            }
        )
    );
    // A prefix that says more than there is: an error naming the field.
    assert_eq!(
        Bundle::decode(&hex_bytes("05616263")).unwrap_err().field(),
        "blob"
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/varint_prefixes.lua"], &[], 0x9125);

    let d = dissect_payloads("varint_prefixes", 9125, &[expected, bytes]);
    for i in 0..2 {
        assert!(d.experts(i, "varint_prefixes").is_empty(), "frame {i}");
    }
    assert_eq!(value(&d, 0, "varint_prefixes.blob.length"), "2");
    assert_eq!(value(&d, 1, "varint_prefixes.blob.length"), "200");
    assert_eq!(value(&d, 1, "varint_prefixes.title.length"), "300");
    assert_eq!(value(&d, 0, "varint_prefixes.title"), "hi");
    assert_eq!(shown(&d, 0, "varint_prefixes.ids"), ["7"]);
    assert_eq!(value(&d, 0, "varint_prefixes.points.length"), "1");
}

/// Constants of enum type, given by value name: written by the encoder, checked by the decoder
/// (naming field and offset) and the dissector, and read by a later condition.
#[test]
fn enum_constants_agree_between_crate_and_dissector() {
    use wiregen_golden::enum_const::{Hello, Protocol};
    use wiregen_runtime::DecodeErrorKind;
    let hello = Hello { extra: Some(9) };
    let expected = hex_bytes("01020009");
    assert_eq!(hello.encode().unwrap(), expected);
    assert_eq!(Hello::decode(&expected).unwrap(), hello);
    let e = Hello::decode(&hex_bytes("01010009")).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "version".into(),
            1,
            DecodeErrorKind::BadConst {
                expected: 2,
                found: 1
            }
        )
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/enum_const.lua"], &[], 0x9126);

    let d = dissect_payloads("enum_const", 9126, &[expected, hex_bytes("02020009")]);
    assert!(d.experts(0, "enum_const").is_empty());
    assert_eq!(value(&d, 0, "enum_const.kind"), "0x01");
    assert_eq!(d.experts(1, "enum_const"), ["enum_const.expert.bad_const"]);
}

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
        origin: Point { x: -5, y: 300 },
        path: vec![Point { x: 63, y: 1 }, Point { x: -1, y: 511 }],
        label: "hi".into(),
        rest: BitString {
            bytes: vec![0b1010_0000].into(),
            bits: 5,
        },
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
        ("id", "18446744073709551614"),
        ("gain", "1.5"),
        ("label", "hi"),
    ] {
        assert_eq!(value(&d, 0, &format!("msb_bits.{field}")), shown, "{field}");
    }
    assert_eq!(shown(&d, 0, "msb_bits.point.x"), ["-5", "63", "-1"]);
    assert_eq!(shown(&d, 0, "msb_bits.point.y"), ["300", "1", "511"]);

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
        (0, 5),
    ]);
    assert_eq!(sample.encode().unwrap(), expected);
    assert_eq!(Sample::decode(&expected).unwrap(), sample);

    verify_protocol::<Protocol>(&["codegen/tests/golden/wide_bits.lua"], &[], 0x9127);

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
}

/// Enum values named by range: a variant carrying its value, decoded from any value of the
/// range and switched on, refused by the encoder outside its range, and named by the dissector
/// (in the field and the Info column).
#[test]
fn enum_ranges_agree_between_crate_and_dissector() {
    use wiregen_golden::enum_ranges::{Ammo, Level, Protocol, Shot, ShotExtra, Weapon};
    use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};
    let shot = Shot {
        level: Level::Mid(4),
        extra: ShotExtra::Pistol {
            weapon: Weapon::Pistol(3),
            value: Ammo { rounds: 7 },
        },
    };
    let expected = hex_bytes("030407");
    assert_eq!(shot.encode().unwrap(), expected);
    assert_eq!(Shot::decode(&expected).unwrap(), shot);
    assert_eq!(Weapon::from_raw(0x1F), Weapon::Rifle(0x1F));
    assert_eq!(Weapon::Rifle(0x1F).name(), Some("RIFLE"));
    assert_eq!(Weapon::from_raw(7), Weapon::Unknown(7));
    // A range variant holding a value outside its range would decode as another: refused.
    let e = Shot {
        level: Level::Mid(11),
        ..shot.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        ("level".into(), EncodeErrorKind::NotValid { value: 11 })
    );
    // The closed enum refuses 11 on decode.
    let e = Shot::decode(&hex_bytes("030b07")).unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        ("level".into(), DecodeErrorKind::UnknownValue { value: 11 })
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/enum_ranges.lua"], &[], 0x9128);

    let d = dissect_payloads(
        "enum_ranges",
        9128,
        &[expected, hex_bytes("1a0a05"), hex_bytes("07090102")],
    );
    assert!(d.experts(0, "enum_ranges").is_empty());
    assert!(d.experts(1, "enum_ranges").is_empty());
    assert_eq!(
        d.experts(2, "enum_ranges"),
        ["enum_ranges.expert.unknown_value"]
    );
    let showname = |i: usize, name: &str| {
        d.fields(i, "enum_ranges")
            .into_iter()
            .find(|f| f.name == name)
            .map(|f| f.showname.clone())
            .unwrap_or_default()
    };
    assert_eq!(showname(0, "enum_ranges.weapon"), "Weapon: PISTOL (3)");
    assert_eq!(showname(1, "enum_ranges.weapon"), "Weapon: RIFLE (26)");
    assert_eq!(showname(1, "enum_ranges.level"), "Level: HIGH (10)");
    assert_eq!(showname(0, "enum_ranges.level"), "Level: MID (4)");
}
