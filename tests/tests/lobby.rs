//! The example application schema `schema/examples/lobby.yaml` on Riptide 2.0 (byte-aligned
//! payloads, the 1-or-2-byte array length): the WIRE-NOTES vector as a typed message, and a
//! tshark cross-check of both layers.

use lobby::*;
use riptide_2_0 as rip;
use std::borrow::Cow;
use wiregen_tests::*;

fn reliable(seq: u16, m: &Message) -> Vec<u8> {
    m.encode_reliable_user_message(seq).unwrap()
}

fn unreliable(m: &Message) -> Vec<u8> {
    m.encode_user_message().unwrap()
}

#[test]
fn the_notes_vector_is_a_greeting() {
    // WIRE-NOTES §1: Reliable seq 1, id 5, string "Hi", u16 300.
    let greeting = Message::Greeting(Greeting {
        text: Cow::Borrowed("Hi"),
        value: 300,
    });
    let bytes = reliable(1, &greeting);
    assert_eq!(bytes, hex_bytes("07 01 00 05 00 02 48 69 2C 01"));
    // One call back, the text borrowed from the datagram.
    assert_eq!(Message::receive(&bytes).unwrap(), Some(greeting.clone()));
    let mut um = rip::ReliableUserMessage {
        sequence_id: 1,
        message_id: 0,
        payload: Cow::Borrowed(&[]),
    };
    greeting.fill_reliable_user_message(&mut um).unwrap();
    let by_hand = rip::Message {
        body: rip::MessageBody::Reliable(um),
    };
    assert_eq!(by_hand.encode().unwrap(), bytes);
    assert_eq!(
        Message::from_transport(&by_hand).unwrap(),
        Some(greeting.clone())
    );
    match rip::Message::decode(&bytes).unwrap().body {
        rip::MessageBody::Reliable(um) => {
            assert_eq!(Message::from_reliable_user_message(&um).unwrap(), greeting)
        }
        other => panic!("{other:?}"),
    }
    // 300 rooms: the array length takes two bytes, big-endian with 0x8000 set (`81 2C`).
    // bool[] packs 8 per byte, lowest bit first: ten flags in two bytes.
    let ready = [
        true, false, true, true, false, false, false, false, false, true,
    ];
    let rooms = Message::RoomList(RoomList {
        rooms: (0..300)
            .map(|i| Room {
                room_id: i,
                players: (i % 9) as u8,
                open: i % 2 == 0,
            })
            .collect(),
        ready: ready.to_vec(),
    });
    let payload = rooms.encode().unwrap();
    assert_eq!(&payload[..2], &[0x81, 0x2C]);
    assert_eq!(payload.len(), 2 + 300 * 6 + 1 + 2);
    assert_eq!(&payload[2 + 300 * 6..], &[10, 0b0000_1101, 0b0000_0010]);
    assert_eq!(Message::decode(10, &payload).unwrap(), rooms);
}

#[test]
fn tshark_shows_the_lobby_inside_riptide() {
    let mut rng = Rng(0x10bb);
    let games: Vec<Message> = (0..150)
        .map(|_| match rng.below(2) {
            0 => Message::Greeting(Greeting {
                text: Cow::Owned(
                    (0..rng.below(200))
                        .map(|_| (b'a' + rng.below(26) as u8) as char)
                        .collect(),
                ),
                value: rng.next_u64() as u16,
            }),
            _ => Message::RoomList(RoomList {
                rooms: (0..rng.below(30))
                    .map(|_| Room {
                        room_id: rng.next_u64() as u32,
                        players: rng.next_u64() as u8,
                        open: rng.below(2) == 1,
                    })
                    .collect(),
                ready: (0..rng.below(20)).map(|_| rng.below(2) == 1).collect(),
            }),
        })
        .collect();
    // Unreliable payloads start at byte 3 (header, id), reliable ones at byte 5 (and a sequence).
    let messages: Vec<(Vec<u8>, usize)> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i % 2 == 0 {
                (unreliable(g), 3)
            } else {
                (reliable(i as u16, g), 5)
            }
        })
        .collect();
    let bytes: Vec<Vec<u8>> = messages.iter().map(|(m, _)| m.clone()).collect();
    let pcap = application_cross_check(
        ("riptide_2_0", "dissectors/riptide_2_0.lua"),
        ("lobby", "dissectors/lobby.lua"),
        7777,
        &[],
        &bytes,
        |i, m| {
            let (decoded, notes) = Message::dissect_at(games[i].id(), m, messages[i].1);
            assert_eq!(decoded.unwrap(), games[i], "frame {i}");
            (expected(&rip::Message::dissect(m).1), expected(&notes))
        },
    );
    // The application's Info text reaches the transport's column with no tree as with one.
    let root = wiregen_tests::repo_root();
    let summary = wiregen_tests::same_with_and_without_tree(
        &pcap,
        &[
            &root.join("dissectors/riptide_2_0.lua"),
            &root.join("dissectors/lobby.lua"),
        ],
    );
    assert!(summary.contains("LOBBY"), "{summary}");
    let _ = std::fs::remove_file(pcap);
}
