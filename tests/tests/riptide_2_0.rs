//! Riptide 2.0 (WIRE-NOTES §1): vectors written by hand from the rules, round trips, and the
//! tshark cross-check over UDP and over TCP (several messages per segment, messages split across
//! segments).

use riptide_2_0::*;
use std::borrow::Cow;
use wiregen_tests::*;

use wiregen_tests::hex_bytes as hex;

fn msg(body: MessageBody<'static>) -> Message<'static> {
    Message { body }
}

fn vector(wire: &str, expected: Message<'static>) {
    let bytes = hex(wire);
    assert_eq!(
        Message::decode(&bytes).unwrap_or_else(|e| panic!("{wire}: {e}")),
        expected,
        "{wire}"
    );
    assert_eq!(expected.encode().unwrap(), bytes, "re-encoding {wire}");
}

fn vectors() -> Vec<(&'static str, Message<'static>)> {
    [message_vectors(), control_vectors()].concat()
}

/// User messages, welcomes and acks.
fn message_vectors() -> Vec<(&'static str, Message<'static>)> {
    vec![
        // WIRE-NOTES: Reliable seq 1, id 5, string "Hi", u16 300 (the payload stays bytes).
        (
            "07 01 00 05 00 02 48 69 2C 01",
            msg(MessageBody::Reliable(ReliableUserMessage {
                sequence_id: 1,
                message_id: 5,
                payload: Cow::Borrowed(&[0x02, 0x48, 0x69, 0x2C, 0x01]),
            })),
        ),
        // WIRE-NOTES: Welcome seq 1, id 7.
        (
            "08 01 00 07 00",
            msg(MessageBody::Welcome(ClientId {
                sequence_id: 1,
                client_id: 7,
            })),
        ),
        (
            "09 02 00 03 00",
            msg(MessageBody::ClientConnected(ClientId {
                sequence_id: 2,
                client_id: 3,
            })),
        ),
        (
            "0a ff ff 03 00",
            msg(MessageBody::ClientDisconnected(ClientId {
                sequence_id: 0xFFFF,
                client_id: 3,
            })),
        ),
        (
            "00 2c 01",
            msg(MessageBody::Unreliable(UserMessage {
                message_id: 300,
                payload: Cow::Borrowed(&[]),
            })),
        ),
        (
            "00 05 00 aa bb",
            msg(MessageBody::Unreliable(UserMessage {
                message_id: 5,
                payload: Cow::Borrowed(&[0xAA, 0xBB]),
            })),
        ),
        // Ack after seq 5 with seqs 4 and 2 received: bits 0 and 2.
        (
            "01 05 00 05 00",
            msg(MessageBody::Ack(Ack {
                last_received_seq: 5,
                acks_bitfield: 0b101,
            })),
        ),
        (
            "02 05 00 ff ff 03 00",
            msg(MessageBody::AckExtra(AckExtra {
                last_received_seq: 5,
                acks_bitfield: 0xFFFF,
                for_seq: 3,
            })),
        ),
        (
            "03",
            msg(MessageBody::Connect(Connect {
                custom: Cow::Borrowed(&[]),
            })),
        ),
        (
            "03 01 02 03",
            msg(MessageBody::Connect(Connect {
                custom: Cow::Borrowed(&[1, 2, 3]),
            })),
        ),
        (
            "04 03",
            msg(MessageBody::Reject(Reject {
                reason: RejectReason::ServerFull,
                custom: Cow::Borrowed(&[]),
            })),
        ),
        (
            "04 05 68 69",
            msg(MessageBody::Reject(Reject {
                reason: RejectReason::Custom,
                custom: Cow::Borrowed(b"hi"),
            })),
        ),
    ]
}

/// Heartbeats, disconnects and a header 2.0 does not have.
fn control_vectors() -> Vec<(&'static str, Message<'static>)> {
    vec![
        // Client heartbeat: ping 7, rtt -1 (unknown); rtt 250; the server's reply: ping id only.
        (
            "05 07 ff ff",
            msg(MessageBody::Heartbeat(Heartbeat {
                form: HeartbeatForm::Client(ClientHeartbeat {
                    ping_id: 7,
                    rtt: -1,
                }),
            })),
        ),
        (
            "05 08 fa 00",
            msg(MessageBody::Heartbeat(Heartbeat {
                form: HeartbeatForm::Client(ClientHeartbeat {
                    ping_id: 8,
                    rtt: 250,
                }),
            })),
        ),
        (
            "05 07",
            msg(MessageBody::Heartbeat(Heartbeat {
                form: HeartbeatForm::Server(ServerHeartbeat { ping_id: 7 }),
            })),
        ),
        // A client's Disconnect is the header alone; a server's carries a reason (+ kick data).
        (
            "06",
            msg(MessageBody::Disconnect(Disconnect {
                form: DisconnectForm::Client,
            })),
        ),
        (
            "06 05",
            msg(MessageBody::Disconnect(Disconnect {
                form: DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::ServerStopped,
                    custom: Cow::Borrowed(&[]),
                }),
            })),
        ),
        (
            "06 04 62 79 65",
            msg(MessageBody::Disconnect(Disconnect {
                form: DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::Kicked,
                    custom: Cow::Borrowed(b"bye"),
                }),
            })),
        ),
        // Header 11 does not exist in 2.0: kept as bytes.
        (
            "0b 01",
            msg(MessageBody::Other {
                header: HeaderKind::Unknown(11),
                data: Cow::Borrowed(&[1]),
            }),
        ),
    ]
}

#[test]
fn hand_written_vectors() {
    for (wire, m) in vectors() {
        vector(wire, m);
    }
}

#[test]
fn malformed_messages_are_errors() {
    let e = Message::decode(&hex("05 07 01")).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "body.form".to_string(),
            1,
            DecodeErrorKind::UnknownValue { value: 2 }
        )
    );
    let e = Message::decode(&hex("08 01 00 07")).unwrap_err();
    assert_eq!((e.field(), e.offset), ("body.client_id".to_string(), 3));
    let e = Message::decode(&hex("08 01 00 07 00 00")).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::Trailing { bytes: 1 });
    assert!(Message::decode(&[]).is_err());
}

#[test]
fn tcp_framing_helpers() {
    let a = msg(MessageBody::Welcome(ClientId {
        sequence_id: 1,
        client_id: 7,
    }));
    let b = msg(MessageBody::Disconnect(Disconnect {
        form: DisconnectForm::Client,
    }));
    let mut stream = tcp::encode(&a).unwrap();
    assert_eq!(stream, hex("05 00 08 01 00 07 00"));
    stream.extend(tcp::encode(&b).unwrap());
    stream.extend(hex("09 00 07")); // the start of a third message
    let mut frames = tcp::frames(&stream);
    assert_eq!(Message::decode(frames.next().unwrap().unwrap()).unwrap(), a);
    assert_eq!(Message::decode(frames.next().unwrap().unwrap()).unwrap(), b);
    assert!(frames.next().is_none());
    assert_eq!(frames.rest(), &hex("09 00 07")[..]);
    assert_eq!(tcp::next_frame(&[0x05]).unwrap(), None);
    let big = vec![0u8; 70_000];
    assert_eq!(
        tcp::frame_into(&big, &mut Vec::new()).unwrap_err().kind,
        EncodeErrorKind::TooLarge {
            value: 70_000,
            max: 65_535
        }
    );
}

fn random_message(rng: &mut Rng) -> Message<'static> {
    let u16r = |rng: &mut Rng| rng.next_u64() as u16;
    msg(match rng.below(12) {
        0 => MessageBody::Unreliable(UserMessage {
            message_id: u16r(rng),
            payload: Cow::Owned(rng.bytes_below(40)),
        }),
        1 => MessageBody::Ack(Ack {
            last_received_seq: u16r(rng),
            acks_bitfield: u16r(rng),
        }),
        2 => MessageBody::AckExtra(AckExtra {
            last_received_seq: u16r(rng),
            acks_bitfield: u16r(rng),
            for_seq: u16r(rng),
        }),
        3 => MessageBody::Connect(Connect {
            custom: Cow::Owned(rng.bytes_below(20)),
        }),
        4 => MessageBody::Reject(Reject {
            reason: RejectReason::from_raw(rng.below(7) as u8),
            custom: Cow::Owned(rng.bytes_below(5)),
        }),
        5 => MessageBody::Heartbeat(Heartbeat {
            form: HeartbeatForm::Client(ClientHeartbeat {
                ping_id: rng.next_u64() as u8,
                rtt: rng.next_u64() as i16,
            }),
        }),
        6 => MessageBody::Heartbeat(Heartbeat {
            form: HeartbeatForm::Server(ServerHeartbeat {
                ping_id: rng.next_u64() as u8,
            }),
        }),
        7 => MessageBody::Disconnect(Disconnect {
            form: if rng.below(2) == 0 {
                DisconnectForm::Client
            } else {
                DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::from_raw(rng.below(8) as u8),
                    custom: Cow::Owned(rng.bytes_below(4)),
                })
            },
        }),
        8 => MessageBody::Reliable(ReliableUserMessage {
            sequence_id: u16r(rng),
            message_id: u16r(rng),
            payload: Cow::Owned(rng.bytes_below(60)),
        }),
        9 => MessageBody::Welcome(ClientId {
            sequence_id: u16r(rng),
            client_id: u16r(rng),
        }),
        10 => MessageBody::ClientConnected(ClientId {
            sequence_id: u16r(rng),
            client_id: u16r(rng),
        }),
        _ => MessageBody::ClientDisconnected(ClientId {
            sequence_id: u16r(rng),
            client_id: u16r(rng),
        }),
    })
}

#[test]
fn round_trip_over_generated_values() {
    let mut rng = Rng(0x2_0);
    for _ in 0..5000 {
        let m = random_message(&mut rng);
        let bytes = m.encode().unwrap();
        assert_eq!(Message::decode(&bytes).unwrap(), m, "{bytes:02x?}");
    }
}

fn lua() -> std::path::PathBuf {
    repo_root().join("dissectors/riptide_2_0.lua")
}

#[test]
fn udp_every_field_agrees_with_tshark() {
    let mut rng = Rng(0xda7a);
    let mut messages: Vec<Vec<u8>> = vectors().iter().map(|(w, _)| hex(w)).collect();
    messages.extend((0..300).map(|_| random_message(&mut rng).encode().unwrap()));
    udp_cross_check(
        "riptide_2_0",
        "dissectors/riptide_2_0.lua",
        &[7777],
        &messages,
        |_, m| {
            let (decoded, notes) = Message::dissect(m);
            let decoded = decoded.unwrap();
            let unknown = matches!(
                decoded.body,
                MessageBody::Other { .. }
                    | MessageBody::Reject(Reject {
                        reason: RejectReason::Unknown(_),
                        ..
                    })
            ) || matches!(
                &decoded.body,
                MessageBody::Disconnect(Disconnect {
                    form: DisconnectForm::Server(ServerDisconnect {
                        reason: DisconnectReason::Unknown(_),
                        ..
                    })
                })
            );
            let want: &[&str] = if unknown {
                &["riptide_2_0.expert.unknown_value"]
            } else {
                &[]
            };
            let experts: Vec<String> = want.iter().map(|e| e.to_string()).collect();
            (expected(&notes), experts)
        },
    );
}

#[test]
fn tcp_streams_are_reassembled_and_split() {
    let mut rng = Rng(0x7c9);
    let messages: Vec<Message> = (0..200).map(|_| random_message(&mut rng)).collect();
    let mut stream = Vec::new();
    for m in &messages {
        tcp::frame_into(&m.encode().unwrap(), &mut stream).unwrap();
    }
    // Cut the stream anywhere: segments hold several messages, messages span segments.
    let mut segments = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let n = (1 + rng.below(60) as usize).min(stream.len() - at);
        segments.push(Segment {
            src_port: 50001,
            dst_port: 7777,
            payload: stream[at..at + n].to_vec(),
        });
        at += n;
    }
    let pcap =
        std::env::temp_dir().join(format!("wiregen-riptide20-tcp-{}.pcap", std::process::id()));
    write_tcp_pcap(&pcap, &segments);
    let d = dissect(&pcap, &lua(), &[]);
    let shown: Vec<Vec<&Field>> = (0..segments.len())
        .flat_map(|i| d.pdus(i, "riptide_2_0"))
        .collect();
    assert_eq!(
        shown.len(),
        messages.len(),
        "every message is dissected once"
    );
    for (k, (m, pdu)) in messages.iter().zip(&shown).enumerate() {
        let bytes = m.encode().unwrap();
        let (_, notes) = Message::dissect(&bytes);
        let mut expected = vec![ExpectedField {
            name: "riptide_2_0.frame_length".into(),
            source: 0,
            offset: 0,
            len: 2,
            value: Expected::Int(bytes.len() as i128),
        }];
        expected.extend(wiregen_tests::expected(&notes).into_iter().map(|mut f| {
            f.offset += 2;
            f
        }));
        compare(&expected, pdu, 0).unwrap_or_else(|e| panic!("message {k} {m:?}: {e}"));
    }
    let _ = std::fs::remove_file(pcap);
}
