//! DNP beyond one datagram (WIRE-NOTES §3): Link Updates read with the types of the link's
//! earlier Link State (per connection, whichever side announced it), Long Reliable Messages and
//! Long Link States joined from parts with consecutive reliable numbers, and a whole session dissected in tshark (one and two
//! passes) field by field against the Rust decoder, joiners and state.

use dnp::*;
use std::borrow::Cow;
use wiregen_tests::hex_bytes as hex;
use wiregen_tests::*;

fn cmd(body: CommandBody<'static>) -> Command<'static> {
    Command { body }
}

fn tv(value: TypedValueValue<'static>) -> TypedValue<'static> {
    TypedValue { value }
}

fn iv(index: u16, value: IndexedValueValue<'static>) -> IndexedValue<'static> {
    IndexedValue { index, value }
}

fn link_state(number: u16, link_id: u16, values: Vec<TypedValue<'static>>) -> Command<'static> {
    cmd(CommandBody::LinkState(LinkState {
        number,
        link_id,
        flags: LinkFlags::READ_ONLY,
        message: Cow::Borrowed(b"state"),
        values,
    }))
}

fn link_update(link_id: u16, values: Vec<IndexedValue<'static>>) -> Command<'static> {
    cmd(CommandBody::LinkUpdate(LinkUpdate {
        links: vec![LinkUpdateLink { link_id, values }],
    }))
}

/// Link 5: SInt16, String, Vector3F16, UInt64.
fn link5_state() -> Command<'static> {
    link_state(
        0,
        5,
        vec![
            tv(TypedValueValue::SInt16(SInt16Value { value: 0 })),
            tv(TypedValueValue::String(StringValue {
                text: Cow::Borrowed(""),
            })),
            tv(TypedValueValue::Vector3F16(Vector3F16Value {
                x: 0.0,
                y: 0.0,
                z: 0.0,
            })),
            tv(TypedValueValue::UInt64(UInt64Value { value: 0 })),
        ],
    )
}

// Link 5, four values by index, no type bytes: [2] Vector3F16 (1, -2, 0.5), [0] SInt16 -3,
// [1] String "hi" (u16 length), [3] UInt64 max.
const LINK5_UPDATE: &str =
    "09 01 05 00 04  02 00 00 3c 00 c0 00 38  00 00 fd ff  01 00 02 00 68 69  03 00 ff ff ff ff ff ff ff ff";

#[test]
fn link_updates_read_with_the_types_of_the_link_state() {
    let bytes = hex(LINK5_UPDATE);
    // No Link State yet: the values cannot be read; the error names the field and the byte.
    let mut state = State::new();
    let e = Command::decode_with(&bytes, &state).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "body.links.values".to_string(),
            5,
            DecodeErrorKind::NoState { key: 5 }
        )
    );
    // Plain `decode` has no state either.
    assert!(Command::decode(&bytes).is_err());

    state.record(&link5_state());
    assert_eq!(
        state.link_types(5),
        Some(vec![
            ValueType::SInt16,
            ValueType::String,
            ValueType::Vector3F16,
            ValueType::UInt64
        ])
    );
    let expected = link_update(
        5,
        vec![
            iv(
                2,
                IndexedValueValue::Vector3F16(Vector3F16Value {
                    x: 1.0,
                    y: -2.0,
                    z: 0.5,
                }),
            ),
            iv(0, IndexedValueValue::SInt16(SInt16Value { value: -3 })),
            iv(
                1,
                IndexedValueValue::String(StringValue {
                    text: Cow::Borrowed("hi"),
                }),
            ),
            iv(
                3,
                IndexedValueValue::UInt64(UInt64Value { value: u64::MAX }),
            ),
        ],
    );
    assert_eq!(Command::decode_with(&bytes, &state).unwrap(), expected);
    assert_eq!(expected.encode().unwrap(), bytes);

    // Another link, or the same link's list set by hand, or an index past the list.
    assert_eq!(state.link_types(6), None);
    let mut other = State::new();
    other.set_link_types(5, &[ValueType::UInt8]);
    let e = Command::decode_with(&hex("09 01 05 00 01 01 00 07"), &other).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "body.links.values.value".to_string(),
            7,
            DecodeErrorKind::NotInList { index: 1 }
        )
    );
    assert_eq!(
        Command::decode_with(&hex("09 01 05 00 01 00 00 07"), &other).unwrap(),
        link_update(
            5,
            vec![iv(0, IndexedValueValue::UInt8(UInt8Value { value: 7 }))]
        )
    );
    // A later Link State replaces the list.
    state.record(&link_state(
        1,
        5,
        vec![tv(TypedValueValue::Float32(Float32Value { value: 0.0 }))],
    ));
    assert_eq!(state.link_types(5), Some(vec![ValueType::Float32]));
}

fn payload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

fn long_template() -> LongReliableMessage<'static> {
    LongReliableMessage {
        number: 0,
        flags: LongMessageFlags(0),
        chunk: Cow::Borrowed(&[]),
    }
}

#[test]
fn a_3000_byte_message_in_three_parts() {
    let data = payload(3000);
    // Numbers wrap with % 65535: 65533, 65534, then 0.
    let parts = split_long_reliable_message(&long_template(), 65533, [&data]).unwrap();
    let summary: Vec<(u16, u8, usize)> = parts
        .iter()
        .map(|p| (p.number, p.flags.0, p.chunk.len()))
        .collect();
    assert_eq!(
        summary,
        vec![(65533, 0x01, 1357), (65534, 0x00, 1357), (0, 0x02, 286)]
    );
    let wire = cmd(CommandBody::LongReliableMessage(parts[0].clone()))
        .encode()
        .unwrap();
    assert_eq!(&wire[..6], &hex("0a fd ff 01 00 01")[..]);
    assert_eq!(wire.len(), 4 + 1357);

    // Out of order: only the part that completes the run returns the message.
    let mut joiner = LongReliableMessageJoiner::new();
    assert_eq!(joiner.push(&parts[2]).unwrap(), None);
    assert_eq!(joiner.push(&parts[0]).unwrap(), None);
    let joined = joiner.push(&parts[1]).unwrap().expect("complete");
    assert_eq!((joined.first, joined.parts), (65533, 3));
    assert_eq!(joined.chunk, data);
    assert_eq!(joiner.pending(), 0);

    // A missing middle part keeps the others waiting.
    let mut joiner = LongReliableMessageJoiner::new();
    assert_eq!(joiner.push(&parts[0]).unwrap(), None);
    assert_eq!(joiner.push(&parts[2]).unwrap(), None);
    assert_eq!(joiner.pending(), 2);

    // A short message is one part, first and last.
    let one = split_long_reliable_message(&long_template(), 7, [b"hi"]).unwrap();
    assert_eq!((one.len(), one[0].flags.0), (1, 0x03));
    let mut joiner = LongReliableMessageJoiner::new();
    assert_eq!(joiner.push(&one[0]).unwrap().unwrap().chunk, b"hi");

    // Limits: a peer cannot make the joiner hold more than it allows, nor stop it: past them
    // the part that came first is dropped (and counted), and later payloads are still joined.
    let mut joiner = LongReliableMessageJoiner::new();
    joiner.max_parts = 2;
    joiner.push(&parts[0]).unwrap();
    joiner.push(&parts[2]).unwrap();
    assert_eq!(joiner.push(&one[0]).unwrap().unwrap().chunk, b"hi");
    assert_eq!((joiner.evicted(), joiner.pending()), (1, 1));
    // A part larger than all the joiner may hold is refused.
    let mut joiner = LongReliableMessageJoiner::new();
    joiner.max_len = 100;
    assert!(matches!(
        joiner.push(&parts[0]).unwrap_err().kind,
        DecodeErrorKind::TooLarge {
            value: 1357,
            max: 100
        }
    ));
}

fn many_values(n: usize) -> LinkValues<'static> {
    let mut rng = Rng(77);
    LinkValues {
        values: (0..n)
            .map(|i| {
                tv(match i % 4 {
                    0 => TypedValueValue::SInt32(SInt32Value {
                        value: rng.next_u64() as i32,
                    }),
                    1 => TypedValueValue::Float16(Float16Value { value: 1.5 }),
                    2 => TypedValueValue::Data(DataValue {
                        data: Cow::Owned(rng.bytes(i % 7)),
                    }),
                    _ => TypedValueValue::Point2U16(Point2U16Value { x: i as u16, y: 9 }),
                })
            })
            .collect(),
    }
}

fn long_link_state_parts(
    first_number: u16,
    link_id: u16,
    message: &[u8],
    values: &LinkValues,
) -> Vec<LongLinkState<'static>> {
    let template = LongLinkState {
        number: 0,
        link_id,
        flags: LongLinkStateFlags::READ_ONLY,
        message_chunk: Cow::Borrowed(&[]),
        values_chunk: Cow::Borrowed(&[]),
    };
    split_long_link_state(
        &template,
        first_number,
        [message, &values.encode().unwrap()],
    )
    .unwrap()
}

#[test]
fn a_long_link_state_types_later_link_updates() {
    let message = payload(2000);
    let values = many_values(240);
    let parts = long_link_state_parts(10, 4, &message, &values);
    // 2000 message bytes then the values: the second part holds both.
    assert_eq!(parts.len(), 3);
    assert_eq!(
        parts
            .iter()
            .map(|p| (p.number, p.flags.0, p.message_chunk.len()))
            .collect::<Vec<_>>(),
        vec![(10, 0x03, 1357), (11, 0x01, 643), (12, 0x05, 0)]
    );
    assert_eq!(parts[1].values_chunk.len(), 1357 - 643);
    let mut joiner = LongLinkStateJoiner::new();
    let mut joined = None;
    for p in [&parts[1], &parts[2], &parts[0]] {
        // Through the wire and back.
        let bytes = cmd(CommandBody::LongLinkState(p.clone())).encode().unwrap();
        let CommandBody::LongLinkState(back) = Command::decode(&bytes).unwrap().body else {
            panic!("not a Long Link State");
        };
        joined = joiner.push(&back).unwrap();
    }
    let joined = joined.expect("complete");
    assert_eq!((joined.link_id, joined.parts), (4, 3));
    assert_eq!(joined.message_chunk, message);
    assert_eq!(joined.decode_values_chunk().unwrap(), values);

    let mut state = State::new();
    state.record_joined_long_link_state(&joined).unwrap();
    let types = state.link_types(4).unwrap();
    assert_eq!(types.len(), 240);
    assert_eq!(
        &types[..4],
        &[
            ValueType::SInt32,
            ValueType::Float16,
            ValueType::Data,
            ValueType::Point2U16
        ]
    );
    let update = link_update(
        4,
        vec![
            iv(1, IndexedValueValue::Float16(Float16Value { value: -2.0 })),
            iv(
                118,
                IndexedValueValue::Data(DataValue {
                    data: Cow::Borrowed(&[1, 2]),
                }),
            ),
        ],
    );
    let bytes = update.encode().unwrap();
    assert_eq!(bytes, hex("09 01 04 00 02 01 00 00 c0 76 00 02 00 01 02"));
    assert_eq!(Command::decode_with(&bytes, &state).unwrap(), update);
}

/// One datagram of the session: who sent it, and the command.
struct Step {
    from_server: bool,
    command: Command<'static>,
}

fn session() -> Vec<Step> {
    let s = |command| Step {
        from_server: true,
        command,
    };
    let c = |command| Step {
        from_server: false,
        command,
    };
    let mut steps = vec![
        c(cmd(CommandBody::ConnectionRequest(ConnectionRequest {
            protocols: vec![ProtocolVersion::Dnp1],
        }))),
        s(cmd(CommandBody::ConnectionAck(ConnectionAck {
            result: ConnectResult::Accepted,
            protocol: Some(ProtocolVersion::Dnp1),
        }))),
        s(link_state(
            0,
            1,
            vec![
                tv(TypedValueValue::SInt8(SInt8Value { value: -5 })),
                tv(TypedValueValue::Float16(Float16Value { value: 0.25 })),
                tv(TypedValueValue::String(StringValue {
                    text: Cow::Borrowed("name"),
                })),
                tv(TypedValueValue::Point2U16(Point2U16Value { x: 1, y: 2 })),
            ],
        )),
        c(cmd(CommandBody::ReliableAck(ReliableAck {
            number: 0,
            result: AckResult::Success,
        }))),
        s(link_update(
            1,
            vec![
                iv(
                    3,
                    IndexedValueValue::Point2U16(Point2U16Value { x: 640, y: 480 }),
                ),
                iv(0, IndexedValueValue::SInt8(SInt8Value { value: 9 })),
                iv(
                    2,
                    IndexedValueValue::String(StringValue {
                        text: Cow::Borrowed("renamed"),
                    }),
                ),
                iv(
                    1,
                    IndexedValueValue::Float16(Float16Value { value: 65504.0 }),
                ),
            ],
        )),
        // Link 9 never had a Link State: bytes and a note.
        s(link_update(
            9,
            vec![iv(0, IndexedValueValue::UInt8(UInt8Value { value: 1 }))],
        )),
        // Link 1's list belongs to the connection (WIRE-NOTES §3): the client's update of the
        // link the server announced is typed by it too.
        c(link_update(
            1,
            vec![iv(0, IndexedValueValue::SInt8(SInt8Value { value: 1 }))],
        )),
    ];
    // A 3000-byte long message, its parts sent out of order (second, first, third).
    let parts = split_long_reliable_message(&long_template(), 1, [&payload(3000)]).unwrap();
    for k in [1, 0, 2] {
        steps.push(s(cmd(CommandBody::LongReliableMessage(parts[k].clone()))));
    }
    // A Long Link State for link 4, then an update of link 4.
    for p in long_link_state_parts(4, 4, &payload(1500), &many_values(60)) {
        steps.push(s(cmd(CommandBody::LongLinkState(p))));
    }
    steps.push(s(link_update(
        4,
        vec![
            iv(
                59,
                IndexedValueValue::Point2U16(Point2U16Value { x: 3, y: 4 }),
            ),
            iv(
                2,
                IndexedValueValue::Data(DataValue {
                    data: Cow::Borrowed(b"xyz"),
                }),
            ),
        ],
    )));
    steps.push(c(cmd(CommandBody::ConnectionClose)));
    steps
}

/// Per direction: the parts waiting (the lists announced so far are the connection's).
#[derive(Default)]
struct Side {
    long: LongReliableMessageJoiner,
    long_state: LongLinkStateJoiner,
}

#[test]
fn a_session_dissects_completely_in_one_and_two_passes() {
    let steps = session();
    let datagrams: Vec<Datagram> = steps
        .iter()
        .map(|st| {
            let (src_port, dst_port) = if st.from_server {
                (3413, 40000)
            } else {
                (40000, 3413)
            };
            Datagram {
                src_port,
                dst_port,
                payload: st.command.encode().unwrap(),
            }
        })
        .collect();

    // What the Rust side makes of each frame: its own fields, the joined fields, the experts.
    let (mut server, mut client) = (Side::default(), Side::default());
    let mut state = State::default();
    let mut expected = Vec::new();
    let mut typed_updates = 0;
    for (i, (st, d)) in steps.iter().zip(&datagrams).enumerate() {
        let side = if st.from_server {
            &mut server
        } else {
            &mut client
        };
        let (decoded, notes) = Command::dissect_with(&d.payload, &state);
        let own = wiregen_tests::expected(&notes);
        let mut joined_fields = Vec::new();
        let mut experts: Vec<&str> = Vec::new();
        match decoded {
            Ok(c) => {
                if matches!(c.body, CommandBody::LinkUpdate(_)) {
                    typed_updates += 1;
                }
                assert_eq!(c, st.command, "frame {i}");
                state.record(&c);
                match &c.body {
                    CommandBody::LongReliableMessage(p) => {
                        if let Some(j) = side.long.push(p).unwrap() {
                            assert_eq!(j.chunk, payload(3000));
                            joined_fields.push(ExpectedField {
                                name: "dnp.long_reliable_message.chunk.joined".into(),
                                source: 0,
                                offset: 0,
                                len: j.chunk.len(),
                                value: Expected::Bytes(j.chunk.clone()),
                            });
                            experts.push("dnp.expert.joined");
                        }
                    }
                    CommandBody::LongLinkState(p) => {
                        if let Some(j) = side.long_state.push(p).unwrap() {
                            joined_fields.push(ExpectedField {
                                name: "dnp.long_link_state.message_chunk.joined".into(),
                                source: 0,
                                offset: 0,
                                len: j.message_chunk.len(),
                                value: Expected::Bytes(j.message_chunk.clone()),
                            });
                            joined_fields.extend(wiregen_tests::expected(
                                &LinkValues::dissect(&j.values_chunk).1,
                            ));
                            state.record_joined_long_link_state(&j).unwrap();
                            experts.push("dnp.expert.joined");
                        }
                    }
                    _ => {}
                }
            }
            // A Link Update without its list: the dissector shows the fields up to the values.
            Err(e) => {
                assert_eq!(
                    e.kind,
                    DecodeErrorKind::NoState { key: e.kind_key() },
                    "frame {i}"
                );
                experts.push("dnp.expert.no_state");
            }
        }
        expected.push((own, joined_fields, experts));
    }
    // The three updates of links with a list (one from each side for link 1), not link 9's.
    assert_eq!(typed_updates, 3);
    assert_eq!(
        expected
            .iter()
            .filter(|e| e.2 == ["dnp.expert.no_state"])
            .count(),
        1
    );

    let pcap =
        std::env::temp_dir().join(format!("wiregen-dnp-session-{}.pcap", std::process::id()));
    write_pcap(&pcap, &datagrams);
    for args in [&[][..], &["-2"][..]] {
        let d = dissect(&pcap, &repo_root().join("dissectors/dnp.lua"), args);
        for (i, (own, joined, experts)) in expected.iter().enumerate() {
            let fields = d.fields(i, "dnp");
            let n = own.len().min(fields.len());
            compare(own, &fields[..n], HEADERS)
                .unwrap_or_else(|e| panic!("{args:?} frame {i}: {e}"));
            let rest: Vec<&Field> = fields[n..].to_vec();
            if experts.contains(&"dnp.expert.no_state") {
                // The unread values, as bytes, to the end of the datagram.
                assert_eq!(rest.len(), 1, "{args:?} frame {i}: {rest:?}");
                assert_eq!(rest[0].name, "dnp.link_update_link.values.unknown");
                assert_eq!(
                    rest[0].pos + rest[0].size,
                    HEADERS + datagrams[i].payload.len()
                );
            } else {
                compare(joined, &rest, 0)
                    .unwrap_or_else(|e| panic!("{args:?} frame {i} joined: {e}"));
            }
            assert_eq!(d.experts(i, "dnp"), *experts, "{args:?} frame {i}");
        }
    }
    let _ = std::fs::remove_file(pcap);
}

trait KindKey {
    fn kind_key(&self) -> u64;
}

impl KindKey for DecodeError {
    fn kind_key(&self) -> u64 {
        match self.kind {
            DecodeErrorKind::NoState { key } => key,
            _ => u64::MAX,
        }
    }
}
