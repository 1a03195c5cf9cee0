//! The R-Type game's build (WIRE-NOTES §5), `schema/rtype-impl.yaml`, an extension of the RFC
//! schema: its own layouts, hand-written from the notes; the RFC types it reuses (the same Rust
//! types, not copies); the RFC crate and dissector still reading the RFC forms; and its dissector,
//! chosen with Decode As next to the RFC one, agreeing with its crate field by field.

use std::borrow::Cow;
use wiregen_runtime::Codec;
use wiregen_tests::*;

fn packet(payload: rtype_impl::PacketPayload<'static>) -> rtype_impl::Packet<'static> {
    rtype_impl::Packet {
        flags: rtype_impl::PacketFlags::RELIABLE,
        sequence: 9,
        ack: 8,
        fragment_id: 0,
        fragment_index: 0,
        fragment_count: 0,
        payload,
    }
}

/// (command byte, payload bytes from the notes' layouts, value).
fn vectors() -> Vec<(u8, &'static str, rtype_impl::PacketPayload<'static>)> {
    use rtype_impl::*;
    vec![
        // 0x03 REQ_LOGOUT: player_id u32.
        (
            0x03,
            "07 00 00 00",
            PacketPayload::ReqLogout(ReqLogout { player_id: 7 }),
        ),
        // 0x04 HEARTBEAT: empty.
        (0x04, "", PacketPayload::Heartbeat),
        // C_INPUT: client_tick u32, input_mask u8 (UP | SHOOT).
        (
            0x10,
            "e8 03 00 00 11",
            PacketPayload::CInput(CInput {
                client_tick: 1000,
                input_mask: InputMask::UP | InputMask::SHOOT,
            }),
        ),
        // S_ENTITY_STATE as a world delta: tick 42, four entries, every op.
        (
            0x11,
            "2a 00 00 00  05 00 00 00
             00 01 00 00 00
             02 01 00 00 00  0c  03 00  aa bb cc
             02 01 00 00 00  05  10 00  00 00 80 3f 00 00 00 40 00 00 00 00 00 00 00 00
             03 01 00 00 00  05
             01 09 00 00 00",
            PacketPayload::SEntityState(SEntityState {
                tick: 42,
                entries: vec![
                    DeltaEntry {
                        entity_id: 1,
                        component: DeltaEntryComponent::AddEntity,
                    },
                    DeltaEntry {
                        entity_id: 1,
                        // A component type WIRE-NOTES does not name: its data as bytes.
                        component: DeltaEntryComponent::SetComponent(SetComponent {
                            data: SetComponentData::Other {
                                component_type: ComponentType::Unknown(12),
                                data: Cow::Borrowed(&[0xaa, 0xbb, 0xcc]),
                            },
                        }),
                    },
                    DeltaEntry {
                        entity_id: 1,
                        // 5 hitbox: width, height, offset_x, offset_y (f32).
                        component: DeltaEntryComponent::SetComponent(SetComponent {
                            data: SetComponentData::Hitbox(Hitbox {
                                width: 1.0,
                                height: 2.0,
                                offset_x: 0.0,
                                offset_y: 0.0,
                            }),
                        }),
                    },
                    DeltaEntry {
                        entity_id: 1,
                        component: DeltaEntryComponent::RemoveComponent(RemoveComponent {
                            component_type: ComponentType::Hitbox,
                        }),
                    },
                    DeltaEntry {
                        entity_id: 9,
                        component: DeltaEntryComponent::RemoveEntity,
                    },
                ],
            }),
        ),
    ]
}

#[test]
fn the_game_build_layouts() {
    for (command, payload, value) in vectors() {
        let p = packet(value);
        let bytes = p.encode().unwrap();
        let want = hex_bytes(payload);
        // The RFC header: magic, the command, payload_size; then the payload as the notes lay it out.
        assert_eq!(&bytes[..3], &[0xce, 0xd1, command], "{p:?}");
        assert_eq!(&bytes[16..18], &(want.len() as u16).to_le_bytes());
        assert_eq!(&bytes[20..], &want[..], "{p:?}");
        assert_eq!(rtype_impl::Packet::decode(&bytes).unwrap(), p);
    }
    // The enum renames the RFC's 0x03 and 0x04 and keeps the rest.
    assert_eq!(
        rtype_impl::Command::from_raw(0x03),
        rtype_impl::Command::ReqLogout
    );
    assert_eq!(
        rtype_impl::Command::from_raw(0x04),
        rtype_impl::Command::Heartbeat
    );
    assert_eq!(
        rtype_impl::Command::from_raw(0x01),
        rtype_impl::Command::ReqLogin
    );
    assert_eq!(rtype::Command::from_raw(0x03), rtype::Command::ReqJoinRoom);
}

#[test]
fn the_rfc_crate_still_reads_the_rfc_forms() {
    // The game's REQ_LOGOUT bytes are, to the RFC, a REQ_JOIN_ROOM for room 7.
    let bytes = packet(rtype_impl::PacketPayload::ReqLogout(
        rtype_impl::ReqLogout { player_id: 7 },
    ))
    .encode()
    .unwrap();
    match rtype::Packet::decode(&bytes).unwrap().payload {
        rtype::PacketPayload::ReqJoinRoom(r) => assert_eq!(r.room_id, 7),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_header_and_login_are_the_rfc_types() {
    // The same Rust types, not copies: an RFC value goes straight into a game-build packet.
    let login: rtype::ReqLogin = rtype::ReqLogin {
        username: Cow::Borrowed("Player1"),
        version: 1,
        preferred_fragment_size: 1004,
    };
    let flags: rtype::PacketFlags = rtype::PacketFlags::RELIABLE;
    let p = rtype_impl::Packet {
        flags,
        sequence: 1,
        ack: 0,
        fragment_id: 0,
        fragment_index: 0,
        fragment_count: 0,
        payload: rtype_impl::PacketPayload::ReqLogin(login),
    };
    // The WIRE-NOTES login vector, byte for byte (checksum included).
    let vector = hex_bytes(
        "ce d1 01 01 01 00 00 00 00 00 00 00 00 00 00 00 0e 00 2e e9 07 50 6c 61 79 65 72 31 01 00 00 00 ec 03",
    );
    assert_eq!(p.encode().unwrap(), vector);
    assert_eq!(rtype_impl::Packet::decode(&vector).unwrap(), p);
    // Errors are one type across the two crates too.
    let e: rtype::DecodeError = rtype_impl::Packet::decode(&vector[..10]).unwrap_err();
    assert_eq!((e.field(), e.offset), ("ack".to_string(), 8));
}

#[test]
fn both_dissectors_agree_with_their_crates() {
    let mut messages: Vec<Vec<u8>> = vectors()
        .into_iter()
        .map(|(_, _, v)| packet(v).encode().unwrap())
        .collect();
    messages.extend(arbitrary_messages!(rtype_impl::Packet, 0x1e5, 1000));
    let datagrams: Vec<Datagram> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| Datagram {
            src_port: 20000 + i as u16,
            dst_port: 8080,
            payload: m.clone(),
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!("wiregen-rtype-impl-{}.pcap", std::process::id()));
    write_pcap(&pcap, &datagrams);
    let rfc = repo_root().join("dissectors/rtype.lua");
    let game = repo_root().join("dissectors/rtype_impl.lua");
    // Both loaded; Decode As picks the game build's on the RFC port.
    let rfc_arg = format!("lua_script:{}", rfc.display());
    let d = dissect(
        &pcap,
        &game,
        &["-X", &rfc_arg, "-d", "udp.port==8080,rtype_impl"],
    );
    // The RFC one alone reads the same capture as the RFC.
    let d_rfc = dissect(&pcap, &rfc, &[]);
    for (i, m) in messages.iter().enumerate() {
        // What the RFC cannot read (the game's C_INPUT is longer) is only checked for Lua errors.
        let rfc_reads = rtype::Packet::decode(m).is_ok();
        for (name, dis, own) in [
            (
                "rtype_impl",
                &d,
                expected(&rtype_impl::Packet::dissect(m).1),
            ),
            ("rtype", &d_rfc, expected(&rtype::Packet::dissect(m).1)),
        ] {
            if name == "rtype" && !rfc_reads {
                assert!(
                    !dis.experts(i, name).is_empty(),
                    "rtype: frame {i} shows no problem"
                );
                continue;
            }
            let fields = dis.fields(i, name);
            let n = own.len().min(fields.len());
            compare(&own, &fields[..n], HEADERS)
                .unwrap_or_else(|e| panic!("{name}: frame {i} {m:02x?}: {e}"));
            assert!(
                !dis.experts(i, name)
                    .contains(&format!("{name}.expert.internal").as_str()),
                "{name}: frame {i}"
            );
        }
    }
    let _ = std::fs::remove_file(pcap);
}

/// A component whose data_size disagrees with its layout (a HEALTH of 6 bytes, where the game
/// writes 12): its bytes are shown with a note, and the entries after it are still read, since
/// data_size frames them.
#[test]
fn a_component_shorter_than_its_layout_is_noted_and_skipped() {
    let mut payload = vec![];
    payload.extend(5u32.to_le_bytes()); // tick
    payload.extend(2u32.to_le_bytes()); // entry_count
    payload.extend([2, 1, 0, 0, 0, 4, 6, 0]); // SET_COMPONENT entity 1, HEALTH, data_size 6
    payload.extend([100, 0, 0, 0, 100, 0]); // hp 100, and half of max_hp
    payload.extend([1, 2, 0, 0, 0]); // REMOVE_ENTITY entity 2
    let mut m = vec![0xce, 0xd1, 0x11, 0x01, 9, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0];
    m.extend((payload.len() as u16).to_le_bytes());
    m.extend([0, 0]);
    m.extend(&payload);
    let crc = wiregen_runtime::Crc::new(16, 0x1021, 0xffff, false, false, 0).checksum(&[&m]);
    m[18..20].copy_from_slice(&(crc as u16).to_le_bytes());
    let pcap = std::env::temp_dir().join(format!("wiregen-rtype-size-{}.pcap", std::process::id()));
    write_pcap(
        &pcap,
        &[Datagram {
            src_port: 40000,
            dst_port: 8080,
            payload: m.clone(),
        }],
    );
    let d = dissect(&pcap, &repo_root().join("dissectors/rtype_impl.lua"), &[]);
    let _ = std::fs::remove_file(&pcap);
    let shown = |name: &str| -> Vec<String> {
        d.frames[0]
            .iter()
            .filter(|f| f.name == name)
            .map(|f| f.show.clone())
            .collect()
    };
    // The second entry is read after the six bytes.
    assert_eq!(shown("rtype_impl.delta_entry.entity_id"), ["1", "2"]);
    assert_eq!(shown("rtype_impl.health.hp"), ["100"]);
    assert_eq!(shown("rtype_impl.checksum.status"), ["1"]);
    let notes: Vec<&str> = d.frames[0]
        .iter()
        .filter(|f| f.name == "rtype_impl.expert.length_mismatch")
        .map(|f| f.showname.as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("data: 6 bytes do not hold a Health; read on after them")),
        "{notes:?}"
    );
    // The crate refuses it, naming the field.
    let err = rtype_impl::Packet::decode(&m).unwrap_err();
    assert!(err.to_string().contains("max_hp"), "{err}");
}
