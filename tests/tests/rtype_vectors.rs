//! R-Type vectors written by hand from WIRE-NOTES §5: the 20-byte little-endian header, the
//! command table, the payload layouts, and CRC-16/CCITT-FALSE over the datagram with the
//! checksum zeroed (checksums computed independently with Python's `binascii.crc_hqx(data,
//! 0xFFFF)`, which gives 0x29B1 for "123456789").

use rtype::*;
use std::borrow::Cow;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn header(
    flags: PacketFlags,
    sequence: u32,
    ack: u32,
    payload: PacketPayload<'static>,
) -> Packet<'static> {
    Packet {
        flags,
        sequence,
        ack,
        fragment_id: 0,
        fragment_index: 0,
        fragment_count: 0,
        payload,
    }
}

/// Decodes, checks the value, and re-encodes to the identical bytes.
fn vector(wire: &str, expected: Packet<'static>) {
    let bytes = hex(wire);
    let decoded = Packet::decode(&bytes).unwrap_or_else(|e| panic!("{wire}: {e}"));
    assert_eq!(decoded, expected, "{wire}");
    assert_eq!(expected.encode().unwrap(), bytes, "re-encoding {wire}");
}

#[test]
fn wire_notes_req_login() {
    // WIRE-NOTES §5: REQ_LOGIN, RELIABLE, seq 1, ack 0, "Player1", version 1, preferred 1004.
    vector(
        "ced101010100000000000000000000000e002ee907506c617965723101000000ec03",
        header(
            PacketFlags::RELIABLE,
            1,
            0,
            PacketPayload::ReqLogin(ReqLogin {
                username: Cow::Borrowed("Player1"),
                version: 1,
                preferred_fragment_size: 1004,
            }),
        ),
    );
}

#[test]
fn every_command_with_a_layout() {
    vector(
        "ced10201070000000100000000000000070097f5012a000000ec03",
        header(
            PacketFlags::RELIABLE,
            7,
            1,
            PacketPayload::ResLogin(ResLogin {
                success: 1,
                player_id: 42,
                effective_fragment_size: 1004,
            }),
        ),
    );
    vector(
        "ced1030102000000070000000000000004005b5aefbeadde",
        header(
            PacketFlags::RELIABLE,
            2,
            7,
            PacketPayload::ReqJoinRoom(ReqJoinRoom {
                room_id: 0xDEADBEEF,
            }),
        ),
    );
    vector(
        "ced110006400000063000000000000000100baa711",
        header(
            PacketFlags::empty(),
            100,
            99,
            PacketPayload::CInput(CInput {
                input_mask: InputMask::UP | InputMask::SHOOT,
            }),
        ),
    );
    vector(
        "ced111000500000000000000000000001200d40a010000006400c80003ffffffffffff0000ff",
        header(
            PacketFlags::empty(),
            5,
            0,
            PacketPayload::SEntityState(SEntityState {
                entities: vec![
                    EntityState {
                        entity_id: 1,
                        x: 100,
                        y: 200,
                        r#type: 3,
                    },
                    EntityState {
                        entity_id: u32::MAX,
                        x: u16::MAX,
                        y: 0,
                        r#type: 255,
                    },
                ],
            }),
        ),
    );
    vector(
        "ced111000600000000000000000000000000b75e",
        header(
            PacketFlags::empty(),
            6,
            0,
            PacketPayload::SEntityState(SEntityState { entities: vec![] }),
        ),
    );
    vector(
        "ced1ff0402000000010000000000000000004c86",
        header(PacketFlags::IS_ACK, 2, 1, PacketPayload::Ack),
    );
}

#[test]
fn commands_without_a_layout_keep_their_payload_as_bytes() {
    vector(
        "ced104010300000002000000000000000300eb55616263",
        header(
            PacketFlags::RELIABLE,
            3,
            2,
            PacketPayload::Other {
                command: Command::ResRoomState,
                data: Cow::Borrowed(b"abc"),
            },
        ),
    );
    vector(
        "ced12001090000000800000000000000040080e501020304",
        header(
            PacketFlags::RELIABLE,
            9,
            8,
            PacketPayload::Other {
                command: Command::SPlayerDeath,
                data: Cow::Borrowed(&[1, 2, 3, 4]),
            },
        ),
    );
    // An unknown command is kept, not rejected; every flag but IS_ACK (which the encoder sets
    // exactly for ACK, see below); extreme sequence numbers.
    let all = PacketFlags::RELIABLE | PacketFlags::IS_FRAGMENT | PacketFlags::IS_ERROR;
    vector(
        "ced17e0bffffffff00000080000000000200867500ff",
        header(
            all,
            u32::MAX,
            0x8000_0000,
            PacketPayload::Other {
                command: Command::Unknown(0x7E),
                data: Cow::Borrowed(&[0, 0xFF]),
            },
        ),
    );
}

#[test]
fn fragment_header_fields() {
    let mut p = header(
        PacketFlags::RELIABLE | PacketFlags::IS_FRAGMENT,
        10,
        9,
        PacketPayload::Other {
            command: Command::SScoreUpdate,
            data: Cow::Borrowed(b"frag"),
        },
    );
    p.fragment_id = 0x1234;
    p.fragment_index = 2;
    p.fragment_count = 5;
    vector("ced121030a00000009000000341202050400f22c66726167", p);
}

#[test]
fn empty_username() {
    vector(
        "ced10101010000000000000000000000070098c500000000000000",
        header(
            PacketFlags::RELIABLE,
            1,
            0,
            PacketPayload::ReqLogin(ReqLogin {
                username: Cow::Borrowed(""),
                version: 0,
                preferred_fragment_size: 0,
            }),
        ),
    );
}

#[test]
fn the_command_is_derived_from_the_payload() {
    let p = header(PacketFlags::IS_ACK, 2, 1, PacketPayload::Ack);
    assert_eq!(p.payload.command(), Command::Ack);
    assert_eq!(p.encode().unwrap()[2], 0xFF);
    assert_eq!(Command::from_raw(0x10), Command::CInput);
    assert_eq!(Command::CInput.raw(), 0x10);
    assert_eq!(Command::Unknown(0x99).name(), None);
    assert_eq!(Command::SEntityState.name(), Some("S_ENTITY_STATE"));
}

#[test]
fn is_ack_follows_the_ack_command() {
    // The RFC: "send explicit ACK packet (IS_ACK flag, CommandID = 0xFF)". The schema declares
    // it (set_when), so the encoder sets the bit for an ACK and clears it for anything else,
    // keeping the other flags as given.
    let ack = header(PacketFlags::RELIABLE, 2, 1, PacketPayload::Ack);
    let bytes = ack.encode().unwrap();
    assert_eq!((bytes[2], bytes[3]), (0xFF, 0x05));
    let login = header(
        PacketFlags::IS_ACK | PacketFlags::RELIABLE,
        1,
        0,
        PacketPayload::ReqJoinRoom(ReqJoinRoom { room_id: 7 }),
    );
    assert_eq!(login.encode().unwrap()[3], 0x01);
    // The bytes of the capture's explicit ACK come back as they were.
    vector(
        "ced1ff0402000000010000000000000000004c86",
        header(PacketFlags::IS_ACK, 2, 1, PacketPayload::Ack),
    );
}

fn decode_err(wire: &[u8]) -> DecodeError {
    Packet::decode(wire).expect_err("must not decode")
}

#[test]
fn bad_magic_names_the_field_and_offset() {
    let mut b = hex("ced1ff0402000000010000000000000000004c86");
    b[0] = 0xCF;
    let e = decode_err(&b);
    assert_eq!((e.field().as_str(), e.offset), ("magic", 0));
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadConst {
            expected: 0xD1CE,
            found: 0xD1CF
        }
    );
}

#[test]
fn bad_checksum_names_the_field_and_offset() {
    let mut b = hex("ced101010100000000000000000000000e002ee907506c617965723101000000ec03");
    b[25] ^= 0x20; // 'P' -> 'p' in the user name (CRC of the result by binascii.crc_hqx: 0x4ED2)
    let e = decode_err(&b);
    assert_eq!((e.field().as_str(), e.offset), ("checksum", 18));
    assert_eq!(
        e.kind,
        DecodeErrorKind::BadChecksum {
            stored: 0xE92E,
            computed: 0x4ED2
        }
    );
    assert_eq!(
        e.to_string(),
        "field 'checksum' at byte 18: bad checksum: stored 0xe92e, computed 0x4ed2"
    );
}

#[test]
fn truncated_header() {
    let b = hex("ced101010100000000000000000000000e002ee9");
    let e = decode_err(&b[..10]);
    assert_eq!((e.field().as_str(), e.offset), ("ack", 8));
    assert_eq!(
        e.kind,
        DecodeErrorKind::Truncated {
            needed: 4,
            available: 2
        }
    );
    assert!(matches!(
        decode_err(&[]).kind,
        DecodeErrorKind::Truncated {
            needed: 2,
            available: 0
        }
    ));
}

#[test]
fn payload_size_mismatch() {
    // payload_size claims 14 bytes but only 10 follow.
    let b = hex("ced101010100000000000000000000000e002ee907506c617965723101000000ec03");
    let e = decode_err(&b[..30]);
    assert_eq!((e.field().as_str(), e.offset), ("payload", 20));
    assert_eq!(
        e.kind,
        DecodeErrorKind::Truncated {
            needed: 14,
            available: 10
        }
    );
    // One byte more than payload_size says.
    let mut long = b.clone();
    long.push(0);
    let e = decode_err(&long);
    assert_eq!(
        (e.offset, e.kind),
        (34, DecodeErrorKind::Trailing { bytes: 1 })
    );
    // The layout leaves a byte of payload_size unread.
    let e = decode_err(&hex(
        "ced1010101000000000000000000000009000477015001000000ec0300",
    ));
    assert_eq!((e.field().as_str(), e.offset), ("payload", 28));
    assert_eq!(e.kind, DecodeErrorKind::Trailing { bytes: 1 });
}

#[test]
fn username_rules() {
    let e = decode_err(&hex("ced10101010000000000000000000000280008e02141414141414141414141414141414141414141414141414141414141414141414101000000ec03"));
    assert_eq!((e.field().as_str(), e.offset), ("payload.username_len", 20));
    assert_eq!(e.kind, DecodeErrorKind::TooLarge { value: 33, max: 32 });
    let e = decode_err(&hex(
        "ced101010100000000000000000000000900050002fffe01000000ec03",
    ));
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "payload.username".to_string(),
            21,
            DecodeErrorKind::InvalidUtf8
        )
    );
}

#[test]
fn encoder_refuses_what_does_not_fit() {
    let long = "x".repeat(33);
    let p = header(
        PacketFlags::RELIABLE,
        1,
        0,
        PacketPayload::ReqLogin(ReqLogin {
            username: Cow::Owned(long),
            version: 1,
            preferred_fragment_size: 0,
        }),
    );
    let e = p.encode().unwrap_err();
    assert_eq!(e.field(), "payload.username_len");
    assert_eq!(e.kind, EncodeErrorKind::TooLarge { value: 33, max: 32 });

    let p = header(
        PacketFlags::RELIABLE,
        1,
        0,
        PacketPayload::Other {
            command: Command::ReqLogin,
            data: Cow::Borrowed(b"x"),
        },
    );
    assert_eq!(
        p.encode().unwrap_err().kind,
        EncodeErrorKind::TagHasVariant { tag: 1 }
    );

    // 8000 entities of 9 bytes do not fit a u16 payload_size.
    let entities = vec![
        EntityState {
            entity_id: 0,
            x: 0,
            y: 0,
            r#type: 0
        };
        8000
    ];
    let p = header(
        PacketFlags::empty(),
        1,
        0,
        PacketPayload::SEntityState(SEntityState { entities }),
    );
    let e = p.encode().unwrap_err();
    assert_eq!(e.field(), "payload_size");
    assert_eq!(
        e.kind,
        EncodeErrorKind::TooLarge {
            value: 72000,
            max: 65535
        }
    );
}

#[test]
fn encode_into_leaves_the_buffer_alone_on_error() {
    let mut out = vec![1, 2, 3];
    let p = header(
        PacketFlags::RELIABLE,
        1,
        0,
        PacketPayload::Other {
            command: Command::ReqLogin,
            data: Cow::Borrowed(b"x"),
        },
    );
    assert!(p.encode_into(&mut out).is_err());
    assert_eq!(out, vec![1, 2, 3]);
}

#[test]
fn fragments_keep_their_payload_as_bytes_whatever_the_command() {
    // A first fragment of a 12-byte REQ_LOGIN payload: 5 bytes that are no ReqLogin on their own.
    let mut p = header(
        PacketFlags::RELIABLE | PacketFlags::IS_FRAGMENT,
        3,
        0,
        PacketPayload::Other {
            command: Command::ReqLogin,
            data: Cow::Borrowed(&[7, b'P', b'l', b'a', b'y']),
        },
    );
    p.fragment_id = 1;
    p.fragment_count = 3;
    let bytes = p.encode().unwrap();
    assert_eq!(bytes[2], 0x01);
    assert_eq!(Packet::decode(&bytes).unwrap(), p);
    // Without the flag the same bytes must be a ReqLogin, and a fragment cannot be one.
    let mut q = p.clone();
    q.flags = PacketFlags::RELIABLE;
    assert_eq!(
        q.encode().unwrap_err().kind,
        EncodeErrorKind::TagHasVariant { tag: 1 }
    );
    let mut f = header(
        PacketFlags::IS_FRAGMENT,
        3,
        0,
        PacketPayload::ReqLogin(ReqLogin {
            username: Cow::Borrowed("x"),
            version: 1,
            preferred_fragment_size: 0,
        }),
    );
    f.fragment_count = 2;
    assert_eq!(f.encode().unwrap_err().kind, EncodeErrorKind::NotDefault);
}

#[test]
fn open_enums_convert_from_every_integer() {
    use rtype::Command;
    assert_eq!(u8::from(Command::ReqLogin), 0x01);
    assert_eq!(Command::from(0x01u8), Command::ReqLogin);
    // A value the schema does not name is kept, and converts back unchanged.
    let unknown = Command::from(0xEEu8);
    assert_eq!(unknown, Command::Unknown(0xEE));
    assert_eq!(u8::from(unknown), 0xEE);
}
