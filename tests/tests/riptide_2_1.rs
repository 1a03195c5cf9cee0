//! Riptide 2.1 (WIRE-NOTES §2): one LSB-first bit stream per message. Vectors from the notes and
//! from an independent bit packer (a few lines of Python writing bit by bit), round trips, and the
//! tshark cross-check over UDP and TCP.

use riptide_2_1::*;
use wiregen_tests::*;

use wiregen_tests::hex_bytes as hex;

fn bits(bytes: &'static [u8], bits: usize) -> BitString<'static> {
    BitString::new(bytes, bits)
}

fn msg(body: MessageBody<'static>) -> Message<'static> {
    Message { body }
}

fn vectors() -> Vec<(&'static str, Message<'static>)> {
    [message_vectors(), control_vectors()].concat()
}

/// The WIRE-NOTES vectors of user messages, acks and notifies.
fn message_vectors() -> Vec<(&'static str, Message<'static>)> {
    vec![
        // WIRE-NOTES: Reliable seq 1, id 5, payload string "Hi" + u16 300 (bits from bit 28; the
        // application encoding realigned: VarULong 2, 'H', 'i', 300 LSB first, padding).
        (
            "17 00 50 20 80 94 C6 12 00",
            msg(MessageBody::Reliable(ReliableUserMessage {
                sequence_id: 1,
                message_id: 5,
                payload: bits(&[0x02, 0x48, 0x69, 0x2C, 0x01, 0x00], 44),
            })),
        ),
        // WIRE-NOTES: Ack after seq 1, always 53 bits (for_seq written even when the flag is 0).
        (
            "11 00 10 00 20 00 00",
            msg(MessageBody::Ack(Ack {
                last_received_seq: 1,
                received_bits: 1,
                has_for_seq: false,
                for_seq: 1,
            })),
        ),
        // WIRE-NOTES: Notify seq 1, ack 0, bits 0, payload u16 300 from bit 44.
        (
            "06 00 00 10 00 C0 12 00",
            msg(MessageBody::Notify(Notify {
                last_received_seq: 0,
                received_bits: 0,
                sequence_id: 1,
                payload: bits(&[0x2C, 0x01, 0x00], 20),
            })),
        ),
    ]
}

/// The connection's own messages (connect, welcome, reject, disconnects, heartbeats) and
/// more user messages (varints across groups).
fn control_vectors() -> Vec<(&'static str, Message<'static>)> {
    vec![
        // WIRE-NOTES: a stopping 2.1 server sends 05 05, which reads as reason 80.
        (
            "05 05",
            msg(MessageBody::Disconnect(Disconnect {
                form: DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::Unknown(80),
                    custom: bits(&[0], 4),
                }),
            })),
        ),
        (
            "05",
            msg(MessageBody::Disconnect(Disconnect {
                form: DisconnectForm::Client,
            })),
        ),
        (
            "45 00",
            msg(MessageBody::Disconnect(Disconnect {
                form: DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::Kicked,
                    custom: bits(&[0], 4),
                }),
            })),
        ),
        // VarULong 300 = AC 02 as two unaligned groups from bit 4.
        (
            "c0 2a 00",
            msg(MessageBody::Unreliable(UserMessage {
                message_id: 300,
                payload: bits(&[0], 4),
            })),
        ),
        (
            "f0 17 26 06",
            msg(MessageBody::Unreliable(UserMessage {
                message_id: 127,
                payload: bits(&[0x61, 0x62, 0x00], 20),
            })),
        ),
        (
            "f7 ff 0f 18 00",
            msg(MessageBody::Reliable(ReliableUserMessage {
                sequence_id: 0xFFFF,
                message_id: 128,
                payload: bits(&[0], 4),
            })),
        ),
        (
            "18 00 70 00 00",
            msg(MessageBody::Welcome(ClientId {
                sequence_id: 1,
                client_id: 7,
            })),
        ),
        (
            "1a 20 f0 ff 0f",
            msg(MessageBody::ClientDisconnected(ClientId {
                sequence_id: 513,
                client_id: 0xFFFF,
            })),
        ),
        (
            "74 f0 ff 0f",
            msg(MessageBody::Heartbeat(Heartbeat {
                form: HeartbeatForm::Client(ClientHeartbeat {
                    ping_id: 7,
                    rtt: -1,
                }),
            })),
        ),
        (
            "84 0c",
            msg(MessageBody::Heartbeat(Heartbeat {
                form: HeartbeatForm::Server(ServerHeartbeat { ping_id: 200 }),
            })),
        ),
        (
            "43 80 07",
            msg(MessageBody::Reject(Reject {
                reason: RejectReason::Custom,
                custom: bits(&[0x78, 0x00], 12),
            })),
        ),
        (
            "02",
            msg(MessageBody::Connect(Connect {
                custom: bits(&[0], 4),
            })),
        ),
        (
            "91 00 d0 bc 7a 00 00",
            msg(MessageBody::Ack(Ack {
                last_received_seq: 9,
                received_bits: 0xABCD,
                has_for_seq: true,
                for_seq: 3,
            })),
        ),
        (
            "f6 ff ff 2f 00 00",
            msg(MessageBody::Notify(Notify {
                last_received_seq: 0xFFFF,
                received_bits: 0xFF,
                sequence_id: 2,
                payload: bits(&[0], 4),
            })),
        ),
    ]
}

#[test]
fn vectors_decode_and_re_encode_byte_for_byte() {
    for (wire, m) in vectors() {
        let bytes = hex(wire);
        assert_eq!(
            Message::decode(&bytes).unwrap_or_else(|e| panic!("{wire}: {e}")),
            m,
            "{wire}"
        );
        assert_eq!(m.encode().unwrap(), bytes, "re-encoding {wire}");
    }
}

#[test]
fn errors_name_the_bit() {
    let e = Message::decode(&hex("0f")).unwrap_err();
    assert_eq!(
        (e.field(), e.bit, e.kind),
        (
            "header".to_string(),
            Some(0),
            DecodeErrorKind::UnknownValue { value: 15 }
        )
    );
    let e = Message::decode(&hex("17 00")).unwrap_err();
    assert_eq!(
        (e.field(), e.bit),
        ("body.sequence_id".to_string(), Some(4))
    );
    assert_eq!(
        e.to_string(),
        "field 'body.sequence_id' at bit 4 (byte 0): truncated: needs 2 bytes, 1 available"
    );
    // A Welcome with a set bit in its padding.
    let e = Message::decode(&hex("18 00 70 00 10")).unwrap_err();
    assert_eq!(
        (e.bit, e.kind),
        (Some(36), DecodeErrorKind::Trailing { bytes: 1 })
    );
    // Heartbeats are 2 or 4 bytes.
    assert!(Message::decode(&hex("74 f0 ff")).is_err());
}

#[test]
fn sixty_four_bit_message_ids_survive() {
    // u64::MAX as VarULong is ten groups; the payload is then the 4 padding bits.
    let m = msg(MessageBody::Reliable(ReliableUserMessage {
        sequence_id: 0,
        message_id: u64::MAX,
        payload: bits(&[], 0),
    }));
    let bytes = m.encode().unwrap();
    assert_eq!(bytes.len(), (4 + 16 + 80usize).div_ceil(8));
    let back = Message::decode(&bytes).unwrap();
    assert_eq!(
        back,
        msg(MessageBody::Reliable(ReliableUserMessage {
            sequence_id: 0,
            message_id: u64::MAX,
            payload: bits(&[0], 4)
        }))
    );
}

fn random_bits(rng: &mut Rng, pad_to: usize) -> BitString<'static> {
    // Payload bits end the message, so they fill it to a whole byte: `pad_to` bits more than a
    // multiple of 8 before them.
    let whole = rng.below(6) as usize;
    let n = whole * 8 + (8 - pad_to % 8) % 8;
    let mut bytes = rng.bytes(n.div_ceil(8));
    if !n.is_multiple_of(8) {
        let last = bytes.len() - 1;
        bytes[last] &= (1u8 << (n % 8)) - 1;
    }
    BitString::new(bytes, n)
}

fn leb_bits(v: u64) -> usize {
    8 * (64 - v.leading_zeros() as usize).max(1).div_ceil(7)
}

fn random_message(rng: &mut Rng) -> Message<'static> {
    let u16r = |rng: &mut Rng| rng.next_u64() as u16;
    msg(match rng.below(11) {
        0 => {
            let id = rng.next_u64() >> rng.below(64);
            MessageBody::Unreliable(UserMessage {
                message_id: id,
                payload: random_bits(rng, 4 + leb_bits(id)),
            })
        }
        1 => {
            let last = u16r(rng);
            let has = rng.below(2) == 0;
            MessageBody::Ack(Ack {
                last_received_seq: last,
                received_bits: u16r(rng),
                has_for_seq: has,
                for_seq: if has { u16r(rng) } else { last },
            })
        }
        2 => MessageBody::Connect(Connect {
            custom: random_bits(rng, 4),
        }),
        3 => MessageBody::Reject(Reject {
            reason: RejectReason::from_raw(rng.below(6) as u8),
            custom: random_bits(rng, 12),
        }),
        4 => MessageBody::Heartbeat(Heartbeat {
            form: HeartbeatForm::Client(ClientHeartbeat {
                ping_id: rng.next_u64() as u8,
                rtt: rng.next_u64() as i16,
            }),
        }),
        5 => MessageBody::Heartbeat(Heartbeat {
            form: HeartbeatForm::Server(ServerHeartbeat {
                ping_id: rng.next_u64() as u8,
            }),
        }),
        6 => MessageBody::Disconnect(Disconnect {
            form: if rng.below(2) == 0 {
                DisconnectForm::Client
            } else {
                // At least one more byte than a client's Disconnect.
                let mut custom = random_bits(rng, 12);
                if custom.bits() == 4 && rng.below(2) == 0 {
                    custom =
                        BitString::new(vec![rng.next_u64() as u8, rng.next_u64() as u8 & 0x0F], 12);
                }
                DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::from_raw(rng.next_u64() as u8),
                    custom,
                })
            },
        }),
        7 => MessageBody::Notify(Notify {
            last_received_seq: u16r(rng),
            received_bits: rng.next_u64() as u8,
            sequence_id: u16r(rng),
            payload: random_bits(rng, 44),
        }),
        8 => {
            let id = rng.next_u64() >> rng.below(64);
            MessageBody::Reliable(ReliableUserMessage {
                sequence_id: u16r(rng),
                message_id: id,
                payload: random_bits(rng, 20 + leb_bits(id)),
            })
        }
        9 => MessageBody::Welcome(ClientId {
            sequence_id: u16r(rng),
            client_id: u16r(rng),
        }),
        _ => MessageBody::ClientConnected(ClientId {
            sequence_id: u16r(rng),
            client_id: u16r(rng),
        }),
    })
}

#[test]
fn round_trip_over_generated_values() {
    let mut rng = Rng(0x21);
    for _ in 0..5000 {
        let m = random_message(&mut rng);
        let bytes = m.encode().unwrap();
        assert_eq!(
            Message::decode(&bytes).unwrap_or_else(|e| panic!("{m:?} {bytes:02x?}: {e}")),
            m,
            "{bytes:02x?}"
        );
    }
}

fn lua() -> std::path::PathBuf {
    repo_root().join("dissectors/riptide_2_1.lua")
}

fn experts_for(m: &Message) -> Vec<&'static str> {
    match &m.body {
        MessageBody::Reject(Reject {
            reason: RejectReason::Unknown(_),
            ..
        }) => vec!["riptide_2_1.expert.unknown_value"],
        MessageBody::Disconnect(Disconnect {
            form:
                DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::Unknown(80),
                    ..
                }),
        }) => {
            vec![
                "riptide_2_1.expert.unknown_value",
                "riptide_2_1.expert.quirk",
            ]
        }
        MessageBody::Disconnect(Disconnect {
            form:
                DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::Unknown(_),
                    ..
                }),
        }) => {
            vec!["riptide_2_1.expert.unknown_value"]
        }
        _ => vec![],
    }
}

#[test]
fn udp_every_field_agrees_with_tshark() {
    let mut rng = Rng(0xb175);
    let mut messages: Vec<Vec<u8>> = vectors().iter().map(|(w, _)| hex(w)).collect();
    messages.extend((0..300).map(|_| random_message(&mut rng).encode().unwrap()));
    udp_cross_check(
        "riptide_2_1",
        "dissectors/riptide_2_1.lua",
        &[7777],
        &messages,
        |i, m| {
            let (decoded, notes) = Message::dissect(m);
            let decoded = decoded.unwrap_or_else(|e| panic!("frame {i} {m:02x?}: {e}"));
            let experts: Vec<String> = experts_for(&decoded)
                .iter()
                .map(|e| e.to_string())
                .collect();
            (expected(&notes), experts)
        },
    );
}

#[test]
fn tcp_streams_are_reassembled_and_split() {
    let mut rng = Rng(0x7c21);
    let messages: Vec<Message> = (0..150).map(|_| random_message(&mut rng)).collect();
    let mut stream = Vec::new();
    for m in &messages {
        tcp::frame_into(&m.encode().unwrap(), &mut stream).unwrap();
    }
    let mut segments = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let n = (1 + rng.below(50) as usize).min(stream.len() - at);
        segments.push(Segment {
            src_port: 50002,
            dst_port: 7777,
            payload: stream[at..at + n].to_vec(),
        });
        at += n;
    }
    let pcap =
        std::env::temp_dir().join(format!("wiregen-riptide21-tcp-{}.pcap", std::process::id()));
    write_tcp_pcap(&pcap, &segments);
    let d = dissect(&pcap, &lua(), &[]);
    let shown: Vec<Vec<&Field>> = (0..segments.len())
        .flat_map(|i| d.pdus(i, "riptide_2_1"))
        .collect();
    assert_eq!(
        shown.len(),
        messages.len(),
        "every message is dissected once"
    );
    for (k, (m, pdu)) in messages.iter().zip(&shown).enumerate() {
        let bytes = m.encode().unwrap();
        let (_, notes) = Message::dissect(&bytes);
        // The frame length is an i32, little-endian.
        let mut expected = vec![ExpectedField {
            name: "riptide_2_1.frame_length".into(),
            source: 0,
            offset: 0,
            len: 4,
            value: Expected::Int(bytes.len() as i128),
        }];
        expected.extend(wiregen_tests::expected(&notes).into_iter().map(|mut f| {
            f.offset += 4;
            f
        }));
        compare(&expected, pdu, 0).unwrap_or_else(|e| panic!("message {k} {m:?}: {e}"));
    }
    let _ = std::fs::remove_file(pcap);
}

/// An impossible length prefix (negative, or more than the largest message the preference
/// allows) loses the stream's framing: one expert item says so where it happens, the rest of
/// that segment is shown as lost, and reading resumes at the next segment, whose messages are
/// all shown.
#[test]
fn an_impossible_tcp_length_is_reported_and_reading_resumes() {
    let mut rng = Rng(0x7c22);
    let framed = |m: &Message| {
        let mut out = Vec::new();
        tcp::frame_into(&m.encode().unwrap(), &mut out).unwrap();
        out
    };
    let good: Vec<Message> = (0..4).map(|_| random_message(&mut rng)).collect();
    let mut lost = framed(&good[1]);
    lost.extend(0x7fff_ffffi32.to_le_bytes());
    lost.extend([1, 2, 3, 4, 5]);
    let mut negative = (-1i32).to_le_bytes().to_vec();
    negative.extend([9, 9]);
    let mut last = framed(&good[2]);
    last.extend(framed(&good[3]));
    let segments: Vec<Segment> = [framed(&good[0]), lost, negative, last]
        .into_iter()
        .map(|payload| Segment {
            src_port: 50003,
            dst_port: 7777,
            payload,
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-riptide21-tcp-lost-{}.pcap",
        std::process::id()
    ));
    write_tcp_pcap(&pcap, &segments);
    let d = dissect(&pcap, &lua(), &[]);
    let _ = std::fs::remove_file(&pcap);
    let messages: Vec<usize> = (0..segments.len())
        .map(|i| {
            d.pdus(i, "riptide_2_1")
                .iter()
                .filter(|f| f.iter().any(|f| f.name == "riptide_2_1.header"))
                .count()
        })
        .collect();
    assert_eq!(messages, [1, 1, 0, 2], "messages shown per segment");
    let notes = |i: usize| -> Vec<String> {
        d.frames[i]
            .iter()
            .filter(|f| f.name == "riptide_2_1.expert.length_mismatch")
            .map(|f| f.showname.clone())
            .collect()
    };
    assert!(
        notes(1)
            .iter()
            .any(|n| n.contains("impossible frame length 2147483647")
                && n.contains("reading on at the next segment")),
        "{:?}",
        notes(1)
    );
    assert!(
        notes(2)
            .iter()
            .any(|n| n.contains("impossible frame length -1")),
        "{:?}",
        notes(2)
    );
    assert!(notes(3).is_empty(), "{:?}", notes(3));
    // The crate refuses the same prefixes at once instead of waiting for bytes that never come.
    let err = tcp::next_frame(&0x7fff_ffffi32.to_le_bytes()).unwrap_err();
    assert_eq!(err.field(), "frame_length");
    assert_eq!(
        err.kind,
        DecodeErrorKind::TooLarge {
            value: 0x7fff_ffff,
            max: tcp::MAX_MESSAGE as u64
        }
    );
    assert_eq!(tcp::MAX_MESSAGE, 1 << 20, "the default: at most 1 MiB");
    let err = tcp::next_frame(&(-1i32).to_le_bytes()).unwrap_err();
    assert_eq!(err.kind, DecodeErrorKind::BadLength { value: -1 });
    // A message as long as the limit is framed; one byte more is refused.
    let mut out = Vec::new();
    tcp::frame_into(&vec![0; tcp::MAX_MESSAGE], &mut out).unwrap();
    assert_eq!(tcp::next_frame(&out).unwrap().unwrap().1, out.len());
    assert!(tcp::frame_into(&vec![0; tcp::MAX_MESSAGE + 1], &mut Vec::new()).is_err());
}

/// The messages of a segment, and its `riptide_2_1.expert.tcp_stream` notes.
fn tcp_frame_summary(d: &Dissection, i: usize) -> (usize, Vec<String>) {
    let messages = d
        .pdus(i, "riptide_2_1")
        .iter()
        .filter(|f| f.iter().any(|f| f.name == "riptide_2_1.header"))
        .count();
    let notes = d.frames[i]
        .iter()
        .filter(|f| f.name == "riptide_2_1.expert.tcp_stream")
        .map(|f| f.showname.clone())
        .collect();
    (messages, notes)
}

fn framed(m: &Message) -> Vec<u8> {
    let mut out = Vec::new();
    tcp::frame_into(&m.encode().unwrap(), &mut out).unwrap();
    out
}

/// A connection that ends in the middle of a message says so: at once when the segment that
/// leaves it incomplete also closes the connection (FIN), and on the frame where it starts when
/// the stream simply stops (known from the second pass on: tshark -2, or any click in Wireshark).
#[test]
fn a_tcp_stream_that_ends_mid_message_says_so() {
    let mut rng = Rng(0x7c23);
    let good: Vec<Message> = (0..3).map(|_| random_message(&mut rng)).collect();
    let cut = {
        let mut b = framed(&good[0]);
        let next = framed(&good[1]);
        b.extend_from_slice(&next[..next.len() - 3]);
        b
    };
    let packet = |src_port: u16, seq: u32, fin: bool, payload: Vec<u8>| TcpPacket {
        src_port,
        dst_port: 7777,
        seq,
        fin,
        payload,
    };
    let packets = [
        // Closes with 3 bytes of its second message missing.
        packet(50010, 0, true, cut.clone()),
        // Stops with 3 bytes missing, and the capture ends.
        packet(50011, 0, false, cut.clone()),
        // A whole message, then one cut in its length prefix.
        packet(
            50012,
            0,
            false,
            [framed(&good[2]), vec![0x10, 0x00]].concat(),
        ),
    ];
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-riptide21-tcp-end-{}.pcap",
        std::process::id()
    ));
    write_tcp_packets(&pcap, &packets);
    let one = dissect(&pcap, &lua(), &[]);
    let two = dissect(&pcap, &lua(), &["-2"]);
    let _ = std::fs::remove_file(&pcap);
    let (n, notes) = tcp_frame_summary(&one, 0);
    assert_eq!(n, 1, "the whole first message is shown");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("the connection closes in the middle of a message")
            && notes[0].contains(&format!(
                "{} bytes of it here, 3 more bytes never sent",
                framed(&good[1]).len() - 3
            )),
        "{notes:?}"
    );
    // One pass cannot know that the stream stops; the second pass does.
    assert_eq!(tcp_frame_summary(&one, 1), (1, vec![]));
    for (i, (n, notes)) in [
        (1, tcp_frame_summary(&two, 1)),
        (2, tcp_frame_summary(&two, 2)),
    ] {
        assert_eq!(n, 1, "frame {i}");
        assert_eq!(notes.len(), 1, "frame {i}: {notes:?}");
        assert!(notes[0].contains("the stream ends"), "frame {i}: {notes:?}");
    }
    assert!(tcp_frame_summary(&two, 1).1[0].contains("3 more bytes never arrived"));
    assert!(tcp_frame_summary(&two, 2).1[0].contains("the rest of its length prefix"));
}

/// Out-of-order segments: with tshark's default (tcp.reassemble_out_of_order off) Wireshark may
/// hand the late data to no dissector (4.0 does not show its message here; 4.6 shows it because
/// it starts on a message boundary), so the dissector says why, once per stream, where the gap
/// shows; with the preference on every message is shown and nothing is noted.
#[test]
fn out_of_order_tcp_data_is_noted_unless_wireshark_reassembles_it() {
    let mut rng = Rng(0x7c24);
    let good: Vec<Message> = (0..4).map(|_| random_message(&mut rng)).collect();
    let parts: Vec<Vec<u8>> = good.iter().map(framed).collect();
    let mut seq = 0u32;
    let mut packets: Vec<TcpPacket> = parts
        .iter()
        .map(|p| {
            let packet = TcpPacket {
                src_port: 50020,
                dst_port: 7777,
                seq,
                fin: false,
                payload: p.clone(),
            };
            seq += p.len() as u32;
            packet
        })
        .collect();
    // The third message arrives before the second.
    packets.swap(1, 2);
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-riptide21-tcp-ooo-{}.pcap",
        std::process::id()
    ));
    write_tcp_packets(&pcap, &packets);
    let off = dissect(&pcap, &lua(), &[]);
    let off_two_pass = dissect(&pcap, &lua(), &["-2"]);
    let on = dissect(&pcap, &lua(), &["-o", "tcp.reassemble_out_of_order:TRUE"]);
    let _ = std::fs::remove_file(&pcap);
    for d in [&off, &off_two_pass] {
        // Frame 1 (from 0) is where the gap shows: the third message's data is missing there.
        let noted: Vec<usize> = (0..packets.len())
            .filter(|&i| !tcp_frame_summary(d, i).1.is_empty())
            .collect();
        assert_eq!(noted, [1], "one note per stream, where the gap shows");
        let note = &tcp_frame_summary(d, 1).1[0];
        assert!(note.contains("tcp.reassemble_out_of_order"), "{note}");
    }
    let shown: usize = (0..packets.len())
        .map(|i| tcp_frame_summary(&on, i).0)
        .sum();
    assert_eq!(shown, 4, "with the preference on, every message is shown");
    for i in 0..packets.len() {
        assert!(tcp_frame_summary(&on, i).1.is_empty(), "frame {i}");
    }
}

#[test]
fn enums_convert_to_and_from_their_integers_with_std_traits() {
    // A closed enum (11 to 15 are invalid headers): TryFrom gives the raw value back as error.
    assert_eq!(u8::from(HeaderKind::Welcome), 8);
    assert_eq!(HeaderKind::try_from(7u8), Ok(HeaderKind::Reliable));
    assert_eq!(HeaderKind::try_from(11u8), Err(11));
}
