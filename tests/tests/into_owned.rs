//! Decoded values outlive their input: `into_owned` copies what they borrow (strings, bytes, bit
//! strings, through structs, unions, arrays and options), and the owned value is equal to the
//! borrowed one and encodes to the same bytes.

use wiregen_runtime::{Codec, IntoOwned};

/// The WIRE-NOTES R-Type login vector ("Player1", version 1, fragment size 1004).
const LOGIN: &str = "ced101010100000000000000000000000e002ee907506c6179657231010000 00ec03";

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Decodes `bytes` with `decode`, keeps the owned value and drops the bytes.
macro_rules! keep {
    ($t:ty, $bytes:expr) => {{
        let bytes: Vec<u8> = $bytes;
        let owned = <$t>::decode(&bytes).unwrap().into_owned();
        drop(bytes);
        owned
    }};
}

#[test]
fn rtype_login_outlives_its_buffer() {
    let kept: rtype::Packet<'static> = {
        let bytes = hex(LOGIN);
        let p = rtype::Packet::decode(&bytes).unwrap();
        p.into_owned()
    };
    match &kept.payload {
        rtype::PacketPayload::ReqLogin(login) => {
            assert_eq!(login.username, "Player1");
            assert!(matches!(login.username, std::borrow::Cow::Owned(_)));
            assert_eq!(login.preferred_fragment_size, 1004);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(kept.encode().unwrap(), hex(LOGIN));
}

#[test]
fn bytes_defaults_and_bit_strings_are_copied() {
    // An R-Type command without a layout keeps its payload as bytes (the union's default).
    let mut other = rtype::Packet {
        flags: rtype::PacketFlags::RELIABLE,
        sequence: 9,
        ack: 0,
        fragment_id: 0,
        fragment_index: 0,
        fragment_count: 0,
        payload: rtype::PacketPayload::Other {
            command: rtype::Command::Unknown(0x77),
            data: vec![1, 2, 3].into(),
        },
    }
    .encode()
    .unwrap();
    let owned = keep!(rtype::Packet, std::mem::take(&mut other));
    assert!(matches!(
        &owned.payload,
        rtype::PacketPayload::Other { data, .. } if data[..] == [1, 2, 3]
    ));

    // Riptide 2.1: a user message's payload is a bit string at a bit offset.
    let message = riptide_2_1::Message {
        body: riptide_2_1::MessageBody::Unreliable(riptide_2_1::UserMessage {
            message_id: 5,
            payload: riptide_2_1::BitString::from_bytes(vec![0xAB, 0xCD]),
        }),
    };
    let bytes = message.encode().unwrap();
    let borrowed = riptide_2_1::Message::decode(&bytes).unwrap();
    let owned = keep!(riptide_2_1::Message, bytes.clone());
    assert_eq!(owned, borrowed);
    let riptide_2_1::MessageBody::Unreliable(m) = &owned.body else {
        panic!("{owned:?}")
    };
    // The payload runs to the end of the stream: its bits, then the last byte's padding.
    assert_eq!(&m.payload.to_bytes()[..2], [0xAB, 0xCD]);
    assert_eq!(owned.encode().unwrap(), bytes);
}
