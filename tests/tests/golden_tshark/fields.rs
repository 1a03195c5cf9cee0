//! Field forms: padding, alignment and reserved fields, size fields, presence, valid values, varint prefixes, enum constants and ranges, negative constants.

use super::*;

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

    // An unknown value with a named value's raw is that value on the wire: `Unknown(1)` is
    // written as a circle, which needs its radius (the decoder would read one).
    let e = Message {
        shape: Shape::Unknown(1),
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

/// Arrays sized in bytes: elements until exactly the size is read, the size derived by the
/// encoder from what it wrote (a bare reference, or `4 * words - 4`), a constant size checked;
/// elements framed one by one (each after its size prefix, integer or varint, or each exactly
/// `cell_size` bytes) and structs after their size prefix (integer or varint); an element that would run past its size is an error
/// naming it (Rust) and an expert item (Lua); both outputs agree field by field on hand-made
/// and arbitrary values.
#[test]
fn arrays_sized_in_bytes_agree_between_crate_and_dissector() {
    use wiregen_golden::byte_arrays::{Cell, Entry, Player, Protocol, Roster};
    use wiregen_runtime::DecodeErrorKind;
    let cell = |x, y| Cell { x, y };
    let roster = Roster {
        players: vec![
            Player {
                id: 7,
                name: "ab".into(),
            },
            Player {
                id: 0x0102,
                name: "".into(),
            },
        ],
        scores: vec![1, 0x0102_0304],
        flags: vec![0xaa, 0x55],
        entries: vec![Entry {
            kind: 9,
            data: b"xyz".as_slice().into(),
        }],
        cell_size: 4,
        cells: vec![cell(1, -1), cell(2, -2)],
        origin: cell(-3, 3),
        home: cell(4, 5),
        notes: vec![Entry {
            kind: 1,
            data: vec![0x42; 200].into(),
        }],
    };
    // 8 bytes of players, 3 words of scores (this byte included), the two flag bytes; one entry
    // of 4 bytes; two 4-byte cells; a 4-byte origin; a 4-byte home after a Riptide length.
    let expected = hex_bytes(concat!(
        "0800",
        "03",
        "0700026162",
        "020100",
        "01000000",
        "04030201",
        "aa55",
        "01",
        "0400",
        "0978797a",
        "04",
        "0100ffff",
        "0200feff",
        "04",
        "fdff0300",
        "04",
        "04000500"
    ));
    // The note: 201 bytes after a two-byte LEB128 size (c9 01), to the end of the message.
    let expected = [expected, hex_bytes("c90101"), vec![0x42; 200]].concat();
    assert_eq!(roster.encode().unwrap(), expected);
    assert_eq!(Roster::decode(&expected).unwrap(), roster);
    // 7 bytes of players: the second player's name length would be past them.
    let mut cut = expected.clone();
    cut[0] = 7;
    let e = Roster::decode(&cut).unwrap_err();
    assert!(e.field().contains("name"), "{e}");
    assert_eq!(e.offset, 10, "{e}");
    // A size larger than the message.
    let mut long = expected.clone();
    long[0] = 0xff;
    long[1] = 0xff;
    let e = Roster::decode(&long).unwrap_err();
    assert_eq!(e.field(), "players", "{e}");
    assert!(matches!(e.kind, DecodeErrorKind::Truncated { .. }), "{e}");
    // An entry whose size prefix says 2: its kind and one data byte, then the next bytes are
    // read as the cell size.
    let mut short_entry = expected.clone();
    short_entry[23] = 2;
    assert!(Roster::decode(&short_entry).is_err());

    let report =
        verify_protocol::<Protocol>(&["codegen/tests/golden/byte_arrays.lua"], &[], 0x9132);
    assert_eq!(
        report.refused, 0,
        "random rosters have two flag bytes and 4-byte cells: {report}"
    );

    let d = dissect_payloads("byte_arrays", 9132, &[expected, cut, long]);
    assert!(d.experts(0, "byte_arrays").is_empty());
    assert_eq!(shown(&d, 0, "byte_arrays.player.id"), ["7", "258"]);
    assert_eq!(shown(&d, 0, "byte_arrays.scores"), ["1", "16909060"]);
    assert_eq!(shown(&d, 0, "byte_arrays.flags"), ["170", "85"]);
    assert_eq!(value(&d, 0, "byte_arrays.entries.length"), "1");
    assert_eq!(value(&d, 0, "byte_arrays.entries.element.length"), "4");
    let data = shown(&d, 0, "byte_arrays.entry.data");
    assert_eq!(data.len(), 2, "the entry's and the note's");
    assert_eq!(data[0].replace(':', ""), "78797a");
    assert_eq!(shown(&d, 0, "byte_arrays.cell.x"), ["1", "2", "-3", "4"]);
    assert_eq!(value(&d, 0, "byte_arrays.origin.length"), "4");
    assert_eq!(value(&d, 0, "byte_arrays.home.length"), "4");
    assert_eq!(value(&d, 0, "byte_arrays.notes.element.length"), "201");
    for i in [1, 2] {
        assert!(!d.experts(i, "byte_arrays").is_empty(), "frame {i}");
    }
}

/// An empty roster's sizes, and sizes the encoder does not derive: a constant size and an
/// element's size are checked against what was written.
#[test]
fn arrays_sized_in_bytes_check_their_sizes() {
    use wiregen_golden::byte_arrays::{Cell, Part, Parts, Roster};
    use wiregen_runtime::EncodeErrorKind;
    let cell = |x, y| Cell { x, y };
    let empty = Roster {
        players: vec![],
        scores: vec![],
        flags: vec![0, 0],
        entries: vec![],
        cell_size: 4,
        cells: vec![cell(0, 0), cell(0, 0)],
        origin: cell(0, 0),
        home: cell(0, 0),
        notes: vec![],
    };
    let empty_bytes = hex_bytes("00000100000004000000000000000004000000000400000000");
    assert_eq!(empty.encode().unwrap(), empty_bytes);
    assert_eq!(Roster::decode(&empty_bytes).unwrap(), empty);
    // A constant size is checked against what was written.
    let e = Roster {
        flags: vec![1, 2, 3],
        ..empty.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "flags".into(),
            EncodeErrorKind::LengthMismatch {
                expected: 2,
                actual: 3
            }
        )
    );
    // So is an element's size the encoder does not derive.
    let parts = |data: &'static [u8]| Parts {
        part_size: 3,
        parts: vec![Part {
            kind: 1,
            data: data.into(),
        }],
    };
    assert_eq!(parts(b"ab").encode().unwrap(), hex_bytes("0301016162"));
    let e = parts(b"abc").encode().unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "parts".into(),
            EncodeErrorKind::LengthMismatch {
                expected: 3,
                actual: 4
            }
        )
    );
}

/// Switches read inside their size: after a u16 or a LEB128 size prefix the encoder writes
/// around the value it wrote (before, the encoder wrote no prefix at all for a switch, so its
/// output did not decode), and sized by a constant the encoder checks; both outputs agree.
#[test]
fn sized_switches_agree_between_crate_and_dissector() {
    use wiregen_golden::sized_switches::{
        Inner, Packet, PacketFixed, PacketInner, PacketOther, Pair, Protocol,
    };
    use wiregen_runtime::EncodeErrorKind;
    let packet = Packet {
        inner: PacketInner::Inner(Inner {
            a: 7,
            s: "hi".into(),
        }),
        other: PacketOther::Other {
            kind2: 9,
            data: b"xyz".as_slice().into(),
        },
        fixed: PacketFixed::Pair(Pair { a: 1, b: 0x0302 }),
    };
    // kind 1, a u16 size 4, Inner; kind2 9, a LEB128 size 3, bytes; kind3 1, Pair in 3 bytes.
    let expected = hex_bytes(concat!(
        "01", "0400", "07026869", "09", "03", "78797a", "01", "010203"
    ));
    assert_eq!(packet.encode().unwrap(), expected);
    assert_eq!(Packet::decode(&expected).unwrap(), packet);
    let e = Packet {
        fixed: PacketFixed::Other {
            kind3: 5,
            data: b"ab".as_slice().into(),
        },
        ..packet.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "fixed".into(),
            EncodeErrorKind::LengthMismatch {
                expected: 3,
                actual: 2
            }
        )
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/sized_switches.lua"], &[], 0x9133);

    let d = dissect_payloads("sized_switches", 9133, &[expected]);
    assert!(d.experts(0, "sized_switches").is_empty());
    assert_eq!(value(&d, 0, "sized_switches.inner.length"), "4");
    assert_eq!(value(&d, 0, "sized_switches.other.length"), "3");
    assert_eq!(value(&d, 0, "sized_switches.inner.a"), "7");
    assert_eq!(value(&d, 0, "sized_switches.pair.b"), "770");
}

/// Elements sized by a field that may be 0 (`element_size`, PDL's `_elementsize_`): the schema
/// is accepted, and an element of no bytes is found while reading by both outputs.
#[test]
fn an_element_of_no_bytes_is_found_while_reading_by_both_outputs() {
    use wiregen_golden::element_size::{Item, Packet};
    let two = hex_bytes("02 AABB CCDD");
    let p = Packet::decode(&two).unwrap();
    assert_eq!(
        p.items,
        [
            Item {
                data: Cow::Borrowed(&[0xAA, 0xBB][..])
            },
            Item {
                data: Cow::Borrowed(&[0xCC, 0xDD][..])
            }
        ]
    );
    assert_eq!(p.encode().unwrap(), two);
    // Size 0 with a byte left: the first element takes none.
    let empty = hex_bytes("00 11");
    let e = Packet::decode(&empty).unwrap_err();
    assert_eq!(e.kind, wiregen_runtime::DecodeErrorKind::EmptyElement);
    assert_eq!((e.field(), e.offset), ("items".to_string(), 1));
    let zero = Packet {
        element_size: 0,
        items: vec![Item {
            data: Cow::Borrowed(&[]),
        }],
    };
    let e = zero.encode().unwrap_err();
    assert_eq!(e.kind, wiregen_runtime::EncodeErrorKind::EmptyElement);
    let d = dissect_payloads("element_size", 9146, &[two, empty]);
    assert_eq!(shown(&d, 0, "element_size.item.data"), ["aa:bb", "cc:dd"]);
    assert!(d.lua_errors(1).is_empty());
    assert!(
        d.frames[1]
            .iter()
            .any(|f| f.showname.contains("an element takes no bytes")),
        "{:?}",
        d.frames[1]
    );
}

/// Negative constants of signed integers (`const: -1`): the crate writes their two's-complement
/// bits and refuses other bytes naming the field; the dissector shows the values as the schema
/// wrote them, reads the one a condition tests, and says in decimal which constant differs.
#[test]
fn negative_constants_agree_between_crate_and_dissector() {
    use wiregen_golden::negative_constants::{Packet, Protocol};
    use wiregen_runtime::DecodeErrorKind;
    let packet = Packet {
        rest: 9,
        extra: Some(0x42),
    };
    // version -1, lowest -32768 (big-endian), marker -2 and wide -5 (little-endian), small -3
    // (0xd) in the group's low nibble under rest 9, extra (as version == -1), positive 7.
    let expected = hex_bytes("ff 8000 feffffff fbffffffffffffff 9d 42 0700");
    assert_eq!(packet.encode().unwrap(), expected);
    assert_eq!(Packet::decode(&expected).unwrap(), packet);
    // A version of -2: refused at its byte.
    let mut bad = expected.clone();
    bad[0] = 0xfe;
    let err = Packet::decode(&bad).unwrap_err();
    assert_eq!(err.offset, 0, "{err}");
    assert!(
        matches!(err.kind, DecodeErrorKind::BadConst { expected: u64::MAX, found } if found == u64::MAX - 1),
        "{err}"
    );

    let d = dissect_payloads("negative_constants", 9141, &[expected.clone(), bad]);
    assert!(d.experts(0, "negative_constants").is_empty());
    for (field, shown) in [
        ("version", "-1"),
        ("lowest", "-32768"),
        ("marker", "-2"),
        ("wide", "-5"),
        ("small", "-3"),
        ("rest", "9"),
        ("extra", "66"),
        ("positive", "7"),
    ] {
        assert_eq!(
            value(&d, 0, &format!("negative_constants.{field}")),
            shown,
            "{field}"
        );
    }
    let said: Vec<&str> = d.frames[1]
        .iter()
        .filter(|f| f.name == "negative_constants.expert.bad_const")
        .map(|f| f.showname.as_str())
        .collect();
    // (Without extra, its condition false, positive reads 42 07: that constant differs too.)
    assert_eq!(
        said,
        [
            "version: expected -1, found -2",
            "positive: expected 0x7, found 0x742"
        ]
    );

    verify_protocol::<Protocol>(
        &["codegen/tests/golden/negative_constants.lua"],
        &[],
        0x9141,
    );
}
