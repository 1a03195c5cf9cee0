//! The Game Protocol (WIRE-NOTES §4): the handshake told apart by order, packet headers, ACK and
//! close, Rabbit messages; a whole exchange dissected in tshark with two-pass analysis.

use game_protocol::*;
use wiregen_tests as wt;
use wiregen_tests::{compare, dissect, expected, repo_root, HEADERS};

use wiregen_tests::hex_bytes as hex;

const SERVER: u16 = 8999;
const CLIENT: u16 = 50000;

/// (from client, bytes) of one conversation: handshake, a request, its ACK, the response, close.
fn exchange() -> Vec<(bool, Vec<u8>)> {
    let salt = 0x0000_ABCDu32;
    let pepper = 0x1234_5678u32;
    let ping = ClientMessage {
        body: ClientMessageBody::Request(Request {
            channel: 1,
            kind: RequestKind {
                body: RequestKindBody::Ping,
            },
        }),
    };
    let pong = ServerMessage {
        body: ServerMessageBody::Response(Response {
            channel: 1,
            kind: ResponseKind {
                body: ResponseKindBody::Pong,
            },
        }),
    };
    let packet = |flags: PacketFlags, chunk: u8, sequence: u16, data: Vec<u8>| {
        Packet {
            flags,
            chunk,
            sequence,
            data: data.into(),
        }
        .encode()
        .unwrap()
    };
    vec![
        (true, Init { salt }.encode().unwrap()),
        (false, Challenge { pepper }.encode().unwrap()),
        (
            true,
            ChallengeResponse {
                seasoning: salt ^ pepper,
            }
            .encode()
            .unwrap(),
        ),
        (
            true,
            packet(
                PacketFlags::REL | PacketFlags::FIN,
                0,
                1,
                ping.encode().unwrap(),
            ),
        ),
        (
            false,
            packet(PacketFlags::ACK | PacketFlags::FIN, 0, 1, vec![]),
        ),
        (
            false,
            packet(PacketFlags::FIN, 0, 1, pong.encode().unwrap()),
        ),
        (
            true,
            packet(PacketFlags::FIN | PacketFlags::END, 0, 0, vec![]),
        ),
    ]
}

#[test]
fn wire_notes_vectors() {
    assert_eq!(Init { salt: 0xABCD }.encode().unwrap(), hex("00 00 ab cd"));
    let ping = ClientMessage {
        body: ClientMessageBody::Request(Request {
            channel: 1,
            kind: RequestKind {
                body: RequestKindBody::Ping,
            },
        }),
    };
    assert_eq!(ping.encode().unwrap(), hex("08 00"));
    assert_eq!(ClientMessage::decode(&hex("08 00")).unwrap(), ping);
    let pong = ServerMessage {
        body: ServerMessageBody::Response(Response {
            channel: 7,
            kind: ResponseKind {
                body: ResponseKindBody::Pong,
            },
        }),
    };
    assert_eq!(pong.encode().unwrap(), hex("39 08"));
    // An ACK echoes chunk and sequence with ACK|FIN and no body; a close is 0C 00 00 00.
    let ack = Packet {
        flags: PacketFlags::ACK | PacketFlags::FIN,
        chunk: 3,
        sequence: 0x0102,
        data: vec![].into(),
    };
    assert_eq!(ack.encode().unwrap(), hex("06 03 01 02"));
    let close_bytes = hex("0c 00 00 00");
    let close = Packet::decode(&close_bytes).unwrap();
    assert_eq!(close.flags, PacketFlags::FIN | PacketFlags::END);
}

#[test]
fn the_handshake_is_told_apart_by_order() {
    let mut conv = Conversation::new();
    let kinds: Vec<&str> = exchange()
        .iter()
        .map(
            |(from_client, bytes)| match conv.decode(*from_client, bytes).unwrap() {
                Datagram::Init(i) => {
                    assert_eq!(i.salt, 0xABCD);
                    "Init"
                }
                Datagram::Challenge(_) => "Challenge",
                Datagram::ChallengeResponse(r) => {
                    assert_eq!(r.seasoning, 0xABCD ^ 0x1234_5678);
                    "ChallengeResponse"
                }
                Datagram::Packet(_) => "Packet",
            },
        )
        .collect();
    assert_eq!(
        kinds,
        [
            "Init",
            "Challenge",
            "ChallengeResponse",
            "Packet",
            "Packet",
            "Packet",
            "Packet"
        ]
    );
    // The same 4 bytes are a Challenge first and an ACK packet later.
    let mut conv = Conversation::new();
    assert!(matches!(
        conv.decode(false, &hex("06 00 00 01")).unwrap(),
        Datagram::Challenge(_)
    ));
    assert!(matches!(
        conv.decode(false, &hex("06 00 00 01")).unwrap(),
        Datagram::Packet(_)
    ));
}

#[test]
fn an_exchange_dissects_field_by_field_in_two_passes() {
    let frames = exchange();
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
    let pcap = std::env::temp_dir().join(format!("wiregen-game-{}.pcap", std::process::id()));
    wt::write_pcap(&pcap, &datagrams);
    for args in [&[][..], &["-2"][..]] {
        let d = dissect(
            &pcap,
            &repo_root().join("dissectors/game_protocol.lua"),
            args,
        );
        let mut conv = Conversation::new();
        let mut joiner = Reassembler::new();
        for (i, (from_client, bytes)) in frames.iter().enumerate() {
            // What Rust makes of the frame, traced like the dissector shows it.
            let (notes, whole) = match conv.decode(*from_client, bytes).unwrap() {
                Datagram::Init(_) => (expected(&Init::dissect(bytes).1), vec![]),
                Datagram::Challenge(_) => (expected(&Challenge::dissect(bytes).1), vec![]),
                Datagram::ChallengeResponse(_) => {
                    (expected(&ChallengeResponse::dissect(bytes).1), vec![])
                }
                Datagram::Packet(p) => {
                    // A completed payload is shown decoded, by direction, after the packet.
                    let whole = match joiner.push(*from_client, &p).unwrap() {
                        Some(w) if w.from_client => expected(&ClientMessage::dissect(&w.data).1),
                        Some(w) => expected(&ServerMessage::dissect(&w.data).1),
                        None => vec![],
                    };
                    (expected(&Packet::dissect(bytes).1), whole)
                }
            };
            let fields = d.fields(i, "game_protocol");
            let n = notes.len().min(fields.len());
            compare(&notes, &fields[..n], HEADERS)
                .unwrap_or_else(|e| panic!("{args:?} frame {i}: {e}"));
            compare(&whole, &fields[n..], 0)
                .unwrap_or_else(|e| panic!("{args:?} frame {i} payload: {e}"));
            // A frame that completes a payload notes it, and nothing else.
            let notes: &[&str] = if whole.is_empty() {
                &[]
            } else {
                &["game_protocol.expert.joined"]
            };
            assert_eq!(d.experts(i, "game_protocol"), notes, "frame {i}");
        }
        // The first frame is the Init: its salt is shown under that name.
        assert!(d.frames[0]
            .iter()
            .any(|f| f.name == "game_protocol.init.salt" && f.show == "43981"));
    }
    let _ = std::fs::remove_file(pcap);
}

fn big_snapshot(n: u32) -> ServerMessage<'static> {
    let entities = (0..n)
        .map(|i| Entity {
            id: i,
            kind: EntityKind {
                body: EntityKindBody::Player(Player {
                    position: Point {
                        x: i as f32,
                        y: -1.5,
                        z: 0.25,
                    },
                    movement: Direction::NORTH,
                    holding: (i % 2 == 0).then_some(i * 7),
                    breaking: None,
                    owner: i,
                    health: 100,
                    max_health: 100,
                }),
            },
        })
        .collect();
    ServerMessage {
        body: ServerMessageBody::Event(Event {
            time: 42,
            kind: EventKind {
                body: EventKindBody::Snapshot(Snapshot { entities }),
            },
        }),
    }
}

#[test]
fn chunk_and_reassemble_in_rust() {
    let message = big_snapshot(100);
    let payload = message.encode().unwrap();
    assert!(payload.len() > 2 * PIECE_SIZE, "{} bytes", payload.len());
    let template = Packet {
        flags: PacketFlags::REL,
        chunk: 0,
        sequence: 9,
        data: vec![].into(),
    };
    let packets = chunk(&template, &payload, PIECE_SIZE).unwrap();
    assert_eq!(packets.len(), payload.len().div_ceil(PIECE_SIZE));
    assert!(packets
        .iter()
        .take(packets.len() - 1)
        .all(|p| p.data.len() == PIECE_SIZE && !p.flags.contains(PacketFlags::FIN)));
    assert!(packets
        .last()
        .unwrap()
        .flags
        .contains(PacketFlags::FIN | PacketFlags::REL));
    // Out of order, with a duplicate: complete exactly once, at the last missing piece.
    let mut r = Reassembler::new();
    let order: Vec<usize> = (0..packets.len()).rev().chain([0]).collect();
    let mut wholes = Vec::new();
    for i in order {
        let wire = packets[i].encode().unwrap();
        let p = Packet::decode(&wire).unwrap();
        if let Some(w) = r.push(false, &p).unwrap() {
            wholes.push(w);
        }
    }
    assert_eq!(wholes.len(), 1);
    assert_eq!(wholes[0].data, payload);
    assert_eq!(wholes[0].server_message().unwrap(), message);
    // ACKs and empty packets carry no piece.
    let ack = Packet {
        flags: PacketFlags::ACK | PacketFlags::FIN,
        chunk: 0,
        sequence: 9,
        data: vec![].into(),
    };
    assert_eq!(r.push(true, &ack).unwrap(), None);
    // Limits.
    let mut r = Reassembler::new();
    r.max_len = 600;
    assert!(r.push(false, &packets[0]).unwrap().is_none());
    assert!(r.push(false, &packets[1]).is_err());
    assert_eq!(r.pending(), 0);
}

#[test]
fn chunked_payloads_reassemble_in_tshark() {
    let message = big_snapshot(100);
    let payload = message.encode().unwrap();
    let template = Packet {
        flags: PacketFlags::REL,
        chunk: 0,
        sequence: 9,
        data: vec![].into(),
    };
    let mut packets = chunk(&template, &payload, PIECE_SIZE).unwrap();
    packets.swap(0, 1); // out of order on the wire
    let mut frames: Vec<(bool, Vec<u8>)> = exchange()[..3].to_vec();
    let first_packet = frames.len();
    frames.extend(packets.iter().map(|p| (false, p.encode().unwrap())));
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
    let pcap =
        std::env::temp_dir().join(format!("wiregen-game-chunks-{}.pcap", std::process::id()));
    wt::write_pcap(&pcap, &datagrams);
    let (_, whole_notes) = ServerMessage::dissect(&payload);
    let whole_expected = expected(&whole_notes);
    for args in [&[][..], &["-2"][..]] {
        let d = dissect(
            &pcap,
            &repo_root().join("dissectors/game_protocol.lua"),
            args,
        );
        for (k, packet) in packets.iter().enumerate() {
            let i = first_packet + k;
            let bytes = packet.encode().unwrap();
            let packet_expected = expected(&Packet::dissect(&bytes).1);
            let fields = d.fields(i, "game_protocol");
            compare(
                &packet_expected,
                &fields[..packet_expected.len().min(fields.len())],
                HEADERS,
            )
            .unwrap_or_else(|e| panic!("{args:?} frame {i}: {e}"));
            // The payload is complete (and decoded) in the frame of the last missing piece.
            if k + 1 == packets.len() {
                compare(&whole_expected, &fields[packet_expected.len()..], 0)
                    .unwrap_or_else(|e| panic!("{args:?} reassembled in frame {i}: {e}"));
            } else {
                assert_eq!(
                    fields.len(),
                    packet_expected.len(),
                    "{args:?} frame {i} shows no payload yet"
                );
            }
        }
    }
    let _ = std::fs::remove_file(pcap);
}
