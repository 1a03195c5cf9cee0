//! The example application schema `schema/examples/arena.yaml`: a game's messages inside
//! Riptide 2.1 user messages. Vectors derived from the WIRE-NOTES Riptide 2.1 vector, typed
//! messages to transport bytes and back, and tshark with both dissectors loaded: the game's
//! fields shown inside Riptide's tree, compared field by field with the two crates.

use arena::*;
use riptide_2_1 as rip;
use std::borrow::Cow;
use wiregen_tests::*;

fn unreliable(m: &Message) -> Vec<u8> {
    m.encode_user_message().unwrap()
}

fn reliable(seq: u16, m: &Message) -> Vec<u8> {
    m.encode_reliable_user_message(seq).unwrap()
}

fn spawn() -> Message<'static> {
    Message::Spawn(Spawn {
        entities: vec![
            Entity {
                id: 1,
                kind: EntityKind::Player,
                x: -5,
                y: 300,
            },
            Entity {
                id: 70_000,
                kind: EntityKind::Monster,
                x: 1 << 40,
                y: -(1 << 33),
            },
            Entity {
                id: 3,
                kind: EntityKind::Unknown(9),
                x: 0,
                y: 0,
            },
        ],
    })
}

#[test]
fn one_call_each_way() {
    let chat = Message::Chat(Chat {
        text: Cow::Borrowed("Hi"),
    });
    // Sending: the whole datagram (the vector below) in one call; the same bytes as filling a
    // transport message by hand.
    let bytes = chat.encode_reliable_user_message(1).unwrap();
    assert_eq!(bytes, hex_bytes("17 00 20 20 80 94 06"));
    let mut um = rip::ReliableUserMessage {
        sequence_id: 1,
        message_id: 0,
        payload: rip::BitString::from_bytes(vec![]),
    };
    chat.fill_reliable_user_message(&mut um).unwrap();
    let by_hand = rip::Message {
        body: rip::MessageBody::Reliable(um),
    };
    assert_eq!(by_hand.encode().unwrap(), bytes);
    // Receiving: the game message, in one call, from the datagram or from a decoded one.
    assert_eq!(Message::receive(&bytes).unwrap(), Some(chat.clone()));
    assert_eq!(Message::from_transport(&by_hand).unwrap(), Some(chat));
    let moved = hex_bytes("10 00 00 00 fc 03 00 00 00 1c");
    assert_eq!(
        Message::receive(&moved).unwrap(),
        Some(Message::PlayerMove(PlayerMove {
            x: 1.5,
            y: -2.0,
            jumping: true,
        }))
    );
    // The transport's own datagrams carry no game message.
    let welcome = rip::Message {
        body: rip::MessageBody::Welcome(rip::ClientId {
            sequence_id: 1,
            client_id: 2,
        }),
    }
    .encode()
    .unwrap();
    assert_eq!(Message::receive(&welcome).unwrap(), None);
    // A datagram cut inside the game's message names the game's field.
    // (payload at bit 12, after the 4-bit header and the 8-bit id; y after x's 32 bits).
    let e = Message::receive(&moved[..6]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("field 'body.payload.y' at bit 44 (byte 5): truncated"),
        "{e}"
    );
}

#[test]
fn messages_in_riptide_user_messages() {
    // The notes' "Reliable seq 1, id 5, string Hi, u16 300" = 17 00 50 20 80 94 C6 12 00, with the
    // id changed to 2 (one nibble of byte 2) and no u16: Chat "Hi".
    let chat = Message::Chat(Chat {
        text: Cow::Borrowed("Hi"),
    });
    assert_eq!(reliable(1, &chat), hex_bytes("17 00 20 20 80 94 06"));
    // Unreliable, id 1 at bit 4, f32 1.5 at bit 12, f32 -2.0 at bit 44, jumping at bit 76.
    let moved = Message::PlayerMove(PlayerMove {
        x: 1.5,
        y: -2.0,
        jumping: true,
    });
    let bytes = unreliable(&moved);
    assert_eq!(bytes, hex_bytes("10 00 00 00 fc 03 00 00 00 1c"));
    // And back: the transport decodes, the game decodes its payload.
    match rip::Message::decode(&bytes).unwrap().body {
        rip::MessageBody::Unreliable(um) => {
            assert_eq!(um.message_id, 1);
            assert_eq!(Message::from_user_message(&um).unwrap(), moved);
        }
        other => panic!("{other:?}"),
    }
    let bytes = reliable(9, &spawn());
    match rip::Message::decode(&bytes).unwrap().body {
        rip::MessageBody::Reliable(um) => {
            assert_eq!((um.sequence_id, um.message_id), (9, 5));
            assert_eq!(Message::from_reliable_user_message(&um).unwrap(), spawn());
        }
        other => panic!("{other:?}"),
    }
    // An id the game does not name is an error at the id.
    let e = Message::decode(7, &rip::BitString::from_bytes(vec![])).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownValue { value: 7 });
}

/// Three known messages, then 200 random ones.
fn games(rng: &mut Rng) -> Vec<Message<'static>> {
    let mut games = vec![
        Message::Chat(Chat {
            text: Cow::Borrowed("Hi"),
        }),
        Message::PlayerMove(PlayerMove {
            x: 1.5,
            y: -2.0,
            jumping: true,
        }),
        spawn(),
    ];
    for _ in 0..200 {
        games.push(match rng.below(3) {
            0 => Message::PlayerMove(PlayerMove {
                x: rng.below(1000) as f32 / 4.0,
                y: -(rng.below(1000) as f32) / 8.0,
                jumping: rng.below(2) == 1,
            }),
            1 => Message::Chat(Chat {
                text: Cow::Owned(
                    (0..rng.below(20))
                        .map(|_| (b'a' + rng.below(26) as u8) as char)
                        .collect(),
                ),
            }),
            _ => Message::Spawn(Spawn {
                entities: (0..rng.below(5))
                    .map(|_| Entity {
                        id: rng.next_u64() >> rng.below(64),
                        kind: EntityKind::from_raw(rng.below(4) as u8),
                        x: (rng.next_u64() as i64) >> rng.below(64),
                        y: -((rng.below(1 << 20)) as i64),
                    })
                    .collect(),
            }),
        });
    }
    games
}

#[test]
fn tshark_shows_the_game_inside_riptide() {
    let games = games(&mut Rng(0xa7e4a));
    // Every other message reliable: the payload starts at bit 12 or bit 28 (ids < 128).
    let messages: Vec<(Vec<u8>, usize)> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i % 2 == 0 {
                (unreliable(g), 12)
            } else {
                (reliable(i as u16, g), 28)
            }
        })
        .collect();
    let bytes: Vec<Vec<u8>> = messages.iter().map(|(m, _)| m.clone()).collect();
    let pcap = application_cross_check(
        ("riptide_2_1", "dissectors/riptide_2_1.lua"),
        ("arena", "dissectors/arena.lua"),
        7777,
        &[],
        &bytes,
        |i, m| {
            let (decoded, notes) = Message::dissect_at(games[i].id(), m, messages[i].1);
            assert_eq!(decoded.unwrap(), games[i], "frame {i}");
            (expected(&rip::Message::dissect(m).1), expected(&notes))
        },
    );
    let game_lua = format!(
        "lua_script:{}",
        repo_root().join("dissectors/arena.lua").display()
    );
    // Display filters on the game's fields select exactly its messages.
    let d = dissect(
        &pcap,
        &repo_root().join("dissectors/riptide_2_1.lua"),
        &["-X", &game_lua, "-Y", "arena.player_move.x > 10"],
    );
    let want = games
        .iter()
        .filter(|g| matches!(g, Message::PlayerMove(m) if m.x > 10.0))
        .count();
    assert!(want > 10);
    assert_eq!(d.frames.len(), want);
    let _ = std::fs::remove_file(pcap);
}

/// Over Riptide's TCP framing too: one framed message per segment, both layers compared field
/// by field with the two crates (the game's tree is inside Riptide's, as over UDP).
#[test]
fn tshark_shows_the_game_inside_riptide_over_tcp() {
    let games = games(&mut Rng(0x7c9a));
    let messages: Vec<(Vec<u8>, usize)> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i % 2 == 0 {
                (unreliable(g), 12)
            } else {
                (reliable(i as u16, g), 28)
            }
        })
        .collect();
    let segments: Vec<Segment> = messages
        .iter()
        .map(|(m, _)| {
            let mut framed = Vec::new();
            rip::tcp::frame_into(m, &mut framed).unwrap();
            Segment {
                src_port: 50002,
                dst_port: 7777,
                payload: framed,
            }
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!("wiregen-arena-tcp-{}.pcap", std::process::id()));
    write_tcp_pcap(&pcap, &segments);
    let game_lua = format!(
        "lua_script:{}",
        repo_root().join("dissectors/arena.lua").display()
    );
    let d = dissect(
        &pcap,
        &repo_root().join("dissectors/riptide_2_1.lua"),
        &["-X", &game_lua],
    );
    // Ethernet, IPv4 and TCP headers (20 bytes, no options), then the 4-byte length prefix.
    let base = 14 + 20 + 20 + 4;
    for (i, (m, bit)) in messages.iter().enumerate() {
        let (decoded, notes) = Message::dissect_at(games[i].id(), m, *bit);
        assert_eq!(decoded.unwrap(), games[i], "frame {i}");
        compare(&expected(&notes), &d.fields(i, "arena"), base)
            .unwrap_or_else(|e| panic!("frame {i} arena: {e}"));
        let outer = expected(&rip::Message::dissect(m).1);
        let shown: Vec<&Field> = d
            .fields(i, "riptide_2_1")
            .into_iter()
            .filter(|f| f.name != "riptide_2_1.frame_length")
            .collect();
        compare(&outer, &shown, base).unwrap_or_else(|e| panic!("frame {i} riptide: {e}"));
        let malformed = d.malformed(i, "arena");
        assert!(malformed.is_empty(), "frame {i}: {malformed:?}");
    }
    let _ = std::fs::remove_file(pcap);
}
