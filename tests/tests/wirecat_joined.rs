//! Joined payloads, crate side and dissector side, on the real captures: the frames where
//! `Protocol::join` (what `wirecat read` shows as `joined`) completes a payload are the frames
//! where the dissector shows one reassembled, and the payloads hold what the captures' README
//! says they hold.

use wirecat::capture;
use wirecat::reading;
use wirecat::session::{Event, Ports};
use wiregen_runtime::Protocol;
use wiregen_tests::{info_column, repo_root};

/// Every payload `P` joins in capture `file` (its server on `ports`): (frame, payload, the frames
/// of its pieces).
fn joined<P: Protocol>(file: &str, ports: &[u16]) -> Vec<(u64, P::Joined, Vec<u64>)> {
    let f = std::fs::File::open(repo_root().join("tests/captures").join(file)).unwrap();
    let ports = Ports {
        udp: ports.to_vec(),
        tcp: vec![],
    };
    let mut out = Vec::new();
    reading::each_event::<P, _>(
        capture::packets(f).unwrap(),
        &ports,
        || {},
        |c, event| {
            if let Event::Message(m) = event {
                let datagram = c
                    .decode(&m)
                    .map_err(|e| format!("frame {}: {e}", m.frame))?;
                let completed = c
                    .join(&m, &datagram)
                    .map_err(|e| format!("frame {}: {e}", m.frame))?;
                for (j, pieces) in completed {
                    out.push((m.frame, j, pieces));
                }
            }
            Ok(())
        },
    )
    .unwrap();
    out
}

/// The frames whose Info column (dissector `lua`) carries `marker`.
fn marked(file: &str, lua: &str, extra: &[&str], marker: &str) -> Vec<u64> {
    let pcap = repo_root().join("tests/captures").join(file);
    info_column(&pcap, &[lua], extra)
        .iter()
        .enumerate()
        .filter(|(_, info)| info.contains(marker))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

fn frames<J>(joined: &[(u64, J, Vec<u64>)]) -> Vec<u64> {
    // Each payload's pieces came in order (these captures are loopback), the last in the frame
    // that completed it.
    for (frame, _, pieces) in joined {
        assert!(pieces.windows(2).all(|w| w[0] < w[1]), "{pieces:?}");
        assert_eq!(pieces.last(), Some(frame));
    }
    joined.iter().map(|(f, _, _)| *f).collect()
}

#[test]
fn rtype_game_build_joins_its_fragmented_entity_state_where_the_dissector_does() {
    let joined = joined::<rtype_impl::Protocol>("rtype.pcap", &[8080, 9000]);
    let lua = "dissectors/rtype_impl.lua";
    let ports = ["-o", "rtype_impl.udp_ports:8080,9000"];
    assert_eq!(
        frames(&joined),
        marked("rtype.pcap", lua, &ports, "[reassembled]")
    );
    // The 3037-byte S_ENTITY_STATE in 4 fragments (the captures' README), its tick 1001.
    let [(21, whole, pieces)] = &joined[..] else {
        panic!("{joined:?}")
    };
    assert_eq!(pieces.len(), 4, "{pieces:?}");
    let rtype_impl::Joined::Whole(w) = whole;
    assert_eq!(w.data.len(), 3037);
    let rtype_impl::JoinedMessage::Whole(rtype_impl::PacketPayload::SEntityState(state)) =
        whole.decode().unwrap()
    else {
        panic!("not an entity state")
    };
    assert_eq!(state.tick, 1001);
}

#[test]
fn dnp_joins_its_long_messages_where_the_dissector_does() {
    let joined = joined::<dnp::Protocol>("dnp.pcap", &[3413]);
    let lua = "dissectors/dnp.lua";
    assert_eq!(
        frames(&joined),
        marked("dnp.pcap", lua, &[], " joined from 3 parts]")
    );
    // The 3000- and 4000-byte long messages in parts (the captures' README).
    let sizes: Vec<(u64, usize, usize)> = joined
        .iter()
        .map(|(frame, j, pieces)| match j {
            dnp::Joined::LongReliableMessage(m) => {
                assert_eq!(pieces.len(), m.parts);
                (*frame, m.parts, m.chunk.len())
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(sizes, [(24, 3, 3000), (31, 3, 4000)]);
}

#[test]
fn game_protocol_joins_its_chunks_where_the_dissector_does() {
    let joined = joined::<game_protocol::Protocol>("gameproto-start.pcap", &[8999]);
    let lua = "dissectors/game_protocol.lua";
    let mut shown = marked("gameproto-start.pcap", lua, &[], " [ClientMessage]");
    shown.extend(marked("gameproto-start.pcap", lua, &[], " [ServerMessage]"));
    shown.sort();
    assert_eq!(frames(&joined), shown);
    // The 6145-byte Connect response in 13 chunks (the captures' README), completed in frame 18.
    let connect = joined.iter().find(|(frame, _, _)| *frame == 18).unwrap();
    let game_protocol::Joined::Whole(whole) = &connect.1;
    assert_eq!((whole.from_client, whole.data.len()), (false, 6145));
    assert_eq!(connect.2.len(), 13, "{:?}", connect.2);
}
