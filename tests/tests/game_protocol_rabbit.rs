//! Rabbit (WIRE-NOTES §4): the Game Protocol's messages (`schema/game-protocol.yaml`). Vectors
//! from the notes and from an independent bit packer (Python, bit by bit), round trips, and the
//! tshark cross-check of messages carried as the protocol carries them: a handshake, then one
//! packet per message, reassembled and decoded by direction.

use game_protocol::*;
use std::borrow::Cow;
use wiregen_tests as wt;
use wiregen_tests::{compare, dissect, expected, repo_root, Rng, HEADERS};

use wiregen_tests::hex_bytes as hex;

fn check<'a, T: PartialEq + std::fmt::Debug>(
    wire: &'a str,
    bytes: &'a [u8],
    decoded: Result<T, DecodeError>,
    encoded: Vec<u8>,
    expected: T,
) {
    assert_eq!(
        decoded.unwrap_or_else(|e| panic!("{wire}: {e}")),
        expected,
        "{wire}"
    );
    assert_eq!(encoded, bytes, "re-encoding {wire}");
}

#[test]
fn wire_notes_vectors() {
    // ClientMessage Request channel 1 Ping = 08 00 (1-bit tag, u32 1 = m-1 0 in 2 bits + 01).
    let ping = ClientMessage {
        body: ClientMessageBody::Request(Request {
            channel: 1,
            kind: RequestKind {
                body: RequestKindBody::Ping,
            },
        }),
    };
    let b = hex("08 00");
    check(
        "08 00",
        &b,
        ClientMessage::decode(&b),
        ping.encode().unwrap(),
        ping,
    );
    // ServerMessage Response channel 7 Pong = 39 08.
    let pong = ServerMessage {
        body: ServerMessageBody::Response(Response {
            channel: 7,
            kind: ResponseKind {
                body: ResponseKindBody::Pong,
            },
        }),
    };
    let b = hex("39 08");
    check(
        "39 08",
        &b,
        ServerMessage::decode(&b),
        pong.encode().unwrap(),
        pong,
    );
    // u32 1 = 04 00 and u32 256 = 01 04 00, here as an Event's time followed by GameOver (lost):
    // the variant bit lands at bit 10 (resp. 18).
    for (wire, time) in [("04 04", 1), ("01 04 04", 256)] {
        let e = Event {
            time,
            kind: EventKind {
                body: EventKindBody::GameOver(GameOver { won: false }),
            },
        };
        let b = hex(wire);
        check(wire, &b, Event::decode(&b), e.encode().unwrap(), e);
    }
}

#[test]
fn packed_vectors() {
    let player = Player {
        position: Point {
            x: 1.5,
            y: -2.0,
            z: 0.0,
        },
        movement: Direction::NORTH | Direction::EAST,
        holding: Some(300),
        breaking: None,
        owner: 1,
        health: 100,
        max_health: 100,
    };
    let m = ServerMessage {
        body: ServerMessageBody::Event(Event {
            time: 5,
            kind: EventKind {
                body: EventKindBody::Snapshot(Snapshot {
                    entities: vec![Entity {
                        id: 3,
                        kind: EntityKind {
                            body: EntityKindBody::Player(player),
                        },
                    }],
                }),
            },
        }),
    };
    let wire = "28 40 00 03 01 00 00 ff 00 00 00 00 03 00 00 00 24 8c 25 00 01 90 41 06";
    let b = hex(wire);
    check(wire, &b, ServerMessage::decode(&b), m.encode().unwrap(), m);

    let m = ClientMessage {
        body: ClientMessageBody::Action(Action {
            body: ActionBody::Break(Break {
                entity: Some(70000),
            }),
        }),
    };
    let b = hex("29 5c 44 00");
    check(
        "29 5c 44 00",
        &b,
        ClientMessage::decode(&b),
        m.encode().unwrap(),
        m,
    );

    let m = ServerMessage {
        body: ServerMessageBody::Response(Response {
            channel: 9,
            kind: ResponseKind {
                body: ResponseKindBody::Error(Error {
                    text: Cow::Borrowed("bad"),
                }),
            },
        }),
    };
    let b = hex("49 80 01 b1 30 32");
    check(
        "49 80 01 b1 30 32",
        &b,
        ServerMessage::decode(&b),
        m.encode().unwrap(),
        m,
    );
}

#[test]
fn unknown_variants_and_truncation_are_errors() {
    // EntityKind variant 3 has no case.
    let e = Entity::decode(&hex("00 0c")).unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "kind.body".to_string(),
            DecodeErrorKind::UnknownValue { value: 3 }
        )
    );
    assert!(ServerMessage::decode(&hex("39")).is_err());
}

fn point(rng: &mut Rng) -> Point {
    let f = |rng: &mut Rng| (rng.below(20000) as f32 - 10000.0) / 8.0;
    Point {
        x: f(rng),
        y: f(rng),
        z: f(rng),
    }
}

fn u32r(rng: &mut Rng) -> u32 {
    (rng.next_u64() as u32) >> rng.below(32)
}

fn snapshot(rng: &mut Rng) -> Snapshot {
    let entities = (0..rng.below(6))
        .map(|_| Entity {
            id: u32r(rng),
            kind: EntityKind {
                body: match rng.below(3) {
                    0 => EntityKindBody::Object(Object {
                        position: point(rng),
                        kind: if rng.below(2) == 0 {
                            ObjectKind::Tree
                        } else {
                            ObjectKind::Mushroom
                        },
                        durability: (rng.below(2) == 0).then(|| rng.below(100) as f32 / 4.0),
                        health: u32r(rng),
                        max_health: u32r(rng),
                    }),
                    1 => EntityKindBody::Player(Player {
                        position: point(rng),
                        movement: Direction(rng.next_u64() as u8),
                        holding: (rng.below(2) == 0).then(|| u32r(rng)),
                        breaking: (rng.below(2) == 0).then(|| u32r(rng)),
                        owner: u32r(rng),
                        health: u32r(rng),
                        max_health: u32r(rng),
                    }),
                    _ => EntityKindBody::Dead,
                },
            },
        })
        .collect();
    Snapshot { entities }
}

/// A random message and whether the client sends it.
fn message(rng: &mut Rng) -> (bool, Vec<u8>) {
    if rng.below(2) == 0 {
        let m = ClientMessage {
            body: match rng.below(5) {
                0 => ClientMessageBody::Request(Request {
                    channel: u32r(rng),
                    kind: RequestKind {
                        body: RequestKindBody::Ping,
                    },
                }),
                1 => ClientMessageBody::Request(Request {
                    channel: u32r(rng),
                    kind: RequestKind {
                        body: RequestKindBody::Init,
                    },
                }),
                2 => ClientMessageBody::Action(Action {
                    body: ActionBody::Break(Break {
                        entity: (rng.below(2) == 0).then(|| u32r(rng)),
                    }),
                }),
                3 => ClientMessageBody::Action(Action {
                    body: ActionBody::Throw(Throw { target: point(rng) }),
                }),
                _ => ClientMessageBody::Action(Action {
                    body: ActionBody::Move(Move {
                        direction: Direction(rng.next_u64() as u8 & 0x0F),
                    }),
                }),
            },
        };
        (true, m.encode().unwrap())
    } else {
        let m = ServerMessage {
            body: match rng.below(5) {
                0 => ServerMessageBody::Event(Event {
                    time: u32r(rng),
                    kind: EventKind {
                        body: EventKindBody::Snapshot(snapshot(rng)),
                    },
                }),
                1 => ServerMessageBody::Event(Event {
                    time: u32r(rng),
                    kind: EventKind {
                        body: EventKindBody::GameOver(GameOver {
                            won: rng.below(2) == 0,
                        }),
                    },
                }),
                2 => ServerMessageBody::Response(Response {
                    channel: u32r(rng),
                    kind: ResponseKind {
                        body: ResponseKindBody::Pong,
                    },
                }),
                3 => {
                    let n = rng.below(12) as usize;
                    let text: String = (0..n)
                        .map(|_| (b'a' + rng.below(26) as u8) as char)
                        .collect();
                    ServerMessageBody::Response(Response {
                        channel: u32r(rng),
                        kind: ResponseKind {
                            body: ResponseKindBody::Error(Error {
                                text: Cow::Owned(text),
                            }),
                        },
                    })
                }
                _ => ServerMessageBody::Response(Response {
                    channel: u32r(rng),
                    kind: ResponseKind {
                        body: ResponseKindBody::Connect(Connect {
                            player: u32r(rng),
                            snapshot: snapshot(rng),
                        }),
                    },
                }),
            },
        };
        (false, m.encode().unwrap())
    }
}

#[test]
fn round_trip_and_tshark_agree() {
    const SERVER: u16 = 8999;
    const CLIENT: u16 = 50000;
    let mut rng = Rng(0x7ab);
    let messages: Vec<(bool, Vec<u8>)> = (0..300)
        .map(|_| {
            let (from_client, bytes) = message(&mut rng);
            // Each decodes back to what was encoded.
            if from_client {
                assert_eq!(
                    ClientMessage::decode(&bytes).unwrap().encode().unwrap(),
                    bytes
                );
            } else {
                assert_eq!(
                    ServerMessage::decode(&bytes).unwrap().encode().unwrap(),
                    bytes
                );
            }
            (from_client, bytes)
        })
        .collect();
    // A handshake, then one single-chunk packet per message.
    let mut frames: Vec<(bool, Vec<u8>)> = vec![
        (true, Init { salt: 1 }.encode().unwrap()),
        (false, Challenge { pepper: 2 }.encode().unwrap()),
        (true, ChallengeResponse { seasoning: 3 }.encode().unwrap()),
    ];
    for (k, (from_client, bytes)) in messages.iter().enumerate() {
        let packet = Packet {
            flags: PacketFlags::FIN,
            chunk: 0,
            sequence: k as u16,
            data: bytes.clone().into(),
        };
        frames.push((*from_client, packet.encode().unwrap()));
    }
    let datagrams: Vec<wt::Datagram> = frames
        .iter()
        .map(|(from_client, b)| {
            let (src_port, dst_port) = if *from_client {
                (CLIENT, SERVER)
            } else {
                (SERVER, CLIENT)
            };
            wt::Datagram {
                src_port,
                dst_port,
                payload: b.clone(),
            }
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!("wiregen-rabbit-{}.pcap", std::process::id()));
    wt::write_pcap(&pcap, &datagrams);
    let d = dissect(
        &pcap,
        &repo_root().join("dissectors/game_protocol.lua"),
        &[],
    );
    for (k, (from_client, bytes)) in messages.iter().enumerate() {
        let i = 3 + k;
        let own = expected(&Packet::dissect(&frames[i].1).1);
        let whole = if *from_client {
            expected(&ClientMessage::dissect(bytes).1)
        } else {
            expected(&ServerMessage::dissect(bytes).1)
        };
        let fields = d.fields(i, "game_protocol");
        let n = own.len().min(fields.len());
        compare(&own, &fields[..n], HEADERS).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        compare(&whole, &fields[n..], 0).unwrap_or_else(|e| panic!("frame {i} message: {e}"));
        // Each message is one payload, joined in its frame: noted so, and nothing else.
        assert_eq!(
            d.experts(i, "game_protocol"),
            ["game_protocol.expert.joined"],
            "frame {i}"
        );
    }
    let _ = std::fs::remove_file(pcap);
}
