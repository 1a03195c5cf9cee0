//! The example application schema `schema/examples/dungeon.yaml`: a game's messages as the data
//! of DNP unreliable and reliable messages, each starting with its own u8 id (DNP carries none).
//! Hand-written vectors, typed messages to DNP commands and back, and tshark with both
//! dissectors loaded, compared field by field with the two crates.

use dungeon::*;
use std::borrow::Cow;
use wiregen_tests::*;

fn unreliable(m: &Message) -> Vec<u8> {
    m.encode_unreliable_message().unwrap()
}

fn reliable(number: u16, m: &Message) -> Vec<u8> {
    m.encode_reliable_message(number).unwrap()
}

fn inventory() -> Message<'static> {
    Message::Inventory(Inventory {
        character: 42,
        items: vec![
            Item {
                item_id: 7,
                count: 1,
            },
            Item {
                item_id: 0xdead_beef,
                count: 300,
            },
        ],
    })
}

#[test]
fn one_call_each_way() {
    let say = Message::Say(Say {
        text: Cow::Borrowed("hello"),
    });
    let bytes = say.encode_reliable_message(7).unwrap();
    assert_eq!(bytes, hex_bytes("04 07 00 02 05 00 68 65 6c 6c 6f"));
    let mut r = dnp::ReliableMessage {
        number: 7,
        data: Cow::Borrowed(&[]),
    };
    say.fill_reliable_message(&mut r).unwrap();
    let by_hand = dnp::Command {
        body: dnp::CommandBody::ReliableMessage(r),
    };
    assert_eq!(by_hand.encode().unwrap(), bytes);
    // The text borrows the received datagram: no copy.
    let received = Message::receive(&bytes).unwrap();
    match &received {
        Some(Message::Say(Say {
            text: Cow::Borrowed(t),
        })) => assert_eq!(*t, "hello"),
        other => panic!("{other:?}"),
    }
    assert_eq!(received, Some(say.clone()));
    assert_eq!(Message::from_transport(&by_hand).unwrap(), Some(say));
    // DNP's own commands (Connection Close is byte 2 alone) carry none.
    assert_eq!(Message::receive(&[2]).unwrap(), None);
    // A game id the schema does not name is an error at the id.
    let e = Message::receive(&hex_bytes("03 09")).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownValue { value: 9 });
    // Positions count from the datagram: the text's length at byte 2, after code and id.
    let e = Message::receive(&hex_bytes("03 02")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "field 'body.data.text' at byte 2: truncated: needs 2 bytes, 0 available"
    );
}

#[test]
fn messages_as_dnp_message_data() {
    let say = Message::Say(Say {
        text: Cow::Borrowed("hello"),
    });
    // Unreliable Message (3), then the game's id 2, the u16 length and the text.
    assert_eq!(unreliable(&say), hex_bytes("03 02 05 00 68 65 6c 6c 6f"));
    let moved = Message::Move(Move {
        character: 42,
        x: 1.5,
        y: -2.0,
        running: true,
    });
    // Reliable Message (4) number 7, id 1, character, f32 x, f32 y, bool.
    let bytes = reliable(7, &moved);
    assert_eq!(
        bytes,
        hex_bytes("04 07 00 01 2a 00 00 00 c0 3f 00 00 00 c0 01")
    );
    match dnp::Command::decode(&bytes).unwrap().body {
        dnp::CommandBody::ReliableMessage(r) => {
            assert_eq!(Message::from_reliable_message(&r).unwrap(), moved)
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        Message::decode(&reliable(1, &inventory())[3..]).unwrap(),
        inventory()
    );
    let e = Message::decode(&[9]).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownValue { value: 9 });
}

#[test]
fn tshark_shows_the_game_inside_dnp() {
    let mut rng = Rng(0xd0d0);
    let mut games = vec![
        Message::Say(Say {
            text: Cow::Borrowed("hello"),
        }),
        inventory(),
    ];
    for _ in 0..150 {
        games.push(match rng.below(3) {
            0 => Message::Move(Move {
                character: rng.next_u64() as u16,
                x: rng.below(10_000) as f32 / 8.0,
                y: -(rng.below(10_000) as f32) / 16.0,
                running: rng.below(2) == 1,
            }),
            1 => Message::Say(Say {
                text: Cow::Owned(
                    (0..rng.below(30))
                        .map(|_| (b'a' + rng.below(26) as u8) as char)
                        .collect(),
                ),
            }),
            _ => Message::Inventory(Inventory {
                character: rng.next_u64() as u16,
                items: (0..rng.below(6))
                    .map(|_| Item {
                        item_id: rng.next_u64() as u32,
                        count: rng.next_u64() as u16,
                    })
                    .collect(),
            }),
        });
    }
    // Alternately unreliable (data from byte 1) and reliable (data from byte 3).
    let messages: Vec<(Vec<u8>, usize)> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i % 2 == 0 {
                (unreliable(g), 1)
            } else {
                (reliable(i as u16, g), 3)
            }
        })
        .collect();
    let bytes: Vec<Vec<u8>> = messages.iter().map(|(m, _)| m.clone()).collect();
    let pcap = application_cross_check(
        ("dnp", "dissectors/dnp.lua"),
        ("dungeon", "dissectors/dungeon.lua"),
        3413,
        &["-o", "dungeon.udp_ports:3413"],
        &bytes,
        |i, m| {
            let (decoded, notes) = Message::dissect_at(m, messages[i].1);
            assert_eq!(decoded.unwrap(), games[i], "frame {i}");
            (expected(&dnp::Command::dissect(m).1), expected(&notes))
        },
    );
    // DNP carries no message id: loaded without a preference naming its port (or every
    // payload), Dungeon claims nothing, and DNP shows the data as bytes.
    let app_lua = format!(
        "lua_script:{}",
        repo_root().join("dissectors/dungeon.lua").display()
    );
    let dnp_lua = repo_root().join("dissectors/dnp.lua");
    let off = dissect(&pcap, &dnp_lua, &["-X", &app_lua]);
    let every = dissect(
        &pcap,
        &dnp_lua,
        &["-X", &app_lua, "-o", "dungeon.every_payload:TRUE"],
    );
    for i in 0..bytes.len() {
        assert!(off.fields(i, "dungeon").is_empty(), "frame {i}");
        assert!(!off.fields(i, "dnp").is_empty(), "frame {i}");
        assert!(!every.fields(i, "dungeon").is_empty(), "frame {i}");
    }
    let _ = std::fs::remove_file(pcap);
}
