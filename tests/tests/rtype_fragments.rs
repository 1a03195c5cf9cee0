//! R-Type fragments (WIRE-NOTES §5): long messages cut into 1004-byte fragments sharing a
//! fragment_id, joined by endpoints and fragment_id, read as the command's payload.

use rtype::*;
use wiregen_tests::*;

fn world(n: u32) -> Packet<'static> {
    let entities = (0..n)
        .map(|i| EntityState {
            entity_id: i,
            x: i as u16,
            y: 7,
            r#type: (i % 5) as u8,
        })
        .collect();
    Packet {
        flags: PacketFlags::RELIABLE,
        sequence: 0,
        ack: 0,
        fragment_id: 0,
        fragment_index: 0,
        fragment_count: 0,
        payload: PacketPayload::SEntityState(SEntityState { entities }),
    }
}

/// The message's fragments, each with its own sequence number.
fn fragments(
    message: &Packet<'static>,
    fragment_id: u16,
    first_seq: u32,
) -> (Vec<u8>, Vec<Packet<'static>>) {
    let payload = message.encode().unwrap()[20..].to_vec();
    let mut template = message.clone();
    template.fragment_id = fragment_id;
    template.sequence = first_seq;
    let parts = chunk(&template, &payload, PIECE_SIZE).unwrap();
    (payload, parts)
}

#[test]
fn fragment_and_join_in_rust() {
    for (n, expected_parts) in [(167, 2), (556, 5)] {
        let message = world(n);
        let (payload, parts) = fragments(&message, 7, 100);
        assert!(
            matches!(payload.len(), 1500..=1510 | 5000..=5010),
            "{}",
            payload.len()
        );
        assert_eq!(parts.len(), expected_parts);
        for (k, p) in parts.iter().enumerate() {
            assert!(p
                .flags
                .contains(PacketFlags::IS_FRAGMENT | PacketFlags::RELIABLE));
            assert_eq!(
                (p.fragment_index as usize, p.fragment_count as usize),
                (k, expected_parts)
            );
            assert_eq!(p.payload.command(), Command::SEntityState);
            // Each fragment its own sequence number, from the template's on.
            assert_eq!(p.sequence, 100 + k as u32);
            assert!(p.piece().unwrap().len() <= PIECE_SIZE);
            // Each fragment is a valid datagram on its own.
            assert_eq!(&Packet::decode(&p.encode().unwrap()).unwrap(), p);
        }
        // Out of order: complete at the last missing fragment, read as the command's payload.
        let mut r = Reassembler::new();
        let mut wholes = Vec::new();
        for p in parts.iter().rev() {
            wholes.extend(r.push(true, p).unwrap());
        }
        assert_eq!(wholes.len(), 1);
        assert_eq!(wholes[0].data, payload);
        assert_eq!(wholes[0].command, Command::SEntityState);
        assert_eq!(wholes[0].payload().unwrap(), message.payload);
    }
    // A missing fragment leaves the message pending; an inconsistent count is an error.
    let (_, parts) = fragments(&world(556), 8, 0);
    let mut r = Reassembler::new();
    for p in parts.iter().skip(1) {
        assert_eq!(r.push(true, p).unwrap(), None);
    }
    assert_eq!(r.pending(), 1);
    let mut odd = parts[0].clone();
    odd.fragment_count = 9;
    assert!(r.push(true, &odd).is_err());
    // A retransmitted fragment is nothing new; one with other bytes is reported, the first kept.
    assert_eq!(r.push(true, &parts[1]).unwrap(), None);
    let mut other = parts[1].clone();
    if let PacketPayload::Other { data, .. } = &mut other.payload {
        data.to_mut()[0] ^= 1;
    }
    assert_eq!(
        r.push(true, &other).unwrap_err().kind,
        wiregen_runtime::DecodeErrorKind::ConflictingPiece { index: 1 }
    );
    // Full: the payload begun first makes room, and later ones are still joined.
    let mut r = Reassembler::new();
    r.max_pending = 2;
    for id in 0..3 {
        r.push(true, &fragments(&world(556), id, 0).1[0]).unwrap();
    }
    assert_eq!((r.pending(), r.evicted()), (2, 1));
    let (payload, parts) = fragments(&world(167), 9, 0);
    let wholes: Vec<_> = parts
        .iter()
        .filter_map(|p| r.push(true, p).unwrap())
        .collect();
    assert_eq!(wholes[0].data, payload);
    assert_eq!(r.evicted(), 2);
}

#[test]
fn pieces_take_the_size_the_peers_agreed_on() {
    // The game drops fragments larger than the size negotiated at login (512 here).
    let message = world(167);
    let payload = message.encode().unwrap()[20..].to_vec();
    let parts = chunk(&message, &payload, 512).unwrap();
    assert_eq!(parts.len(), payload.len().div_ceil(512));
    assert!(parts.iter().all(|p| p.piece().unwrap().len() <= 512));
    let mut r = Reassembler::new();
    let whole = parts.iter().find_map(|p| r.push(true, p).unwrap()).unwrap();
    assert_eq!(whole.data, payload);
    assert!(chunk(&message, &payload, 0).is_err());
}

#[test]
fn fragments_join_in_tshark() {
    let (payload_a, mut parts_a) = fragments(&world(167), 1, 10);
    let (_, parts_b) = fragments(&world(556), 2, 20);
    parts_a.swap(0, 1); // out of order
                        // Message B misses its third fragment: it never completes.
    let mut packets: Vec<Packet> = parts_a.clone();
    packets.extend(
        parts_b
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != 2)
            .map(|(_, p)| p.clone()),
    );
    // Then every fragment of A again (its sender saw no ack): retransmissions, no second world
    // update, in the crate as in the dissector.
    let resent = packets.len();
    packets.extend(parts_a.iter().cloned());
    let mut joins = Joins::default();
    let mut joined_at = Vec::new();
    for (i, p) in packets.iter().enumerate() {
        let done =
            <Protocol as wiregen_runtime::Protocol>::join(&mut (), &mut joins, true, p, i as u64)
                .unwrap();
        joined_at.extend(done.iter().map(|_| i));
    }
    assert_eq!(joined_at, [1]);
    assert_eq!(joins.reassembler.retransmitted(), 2);
    let datagrams: Vec<Datagram> = packets
        .iter()
        .map(|p| Datagram {
            src_port: 40000,
            dst_port: 8080,
            payload: p.encode().unwrap(),
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-rtype-fragments-{}.pcap",
        std::process::id()
    ));
    write_pcap(&pcap, &datagrams);
    let whole_expected = expected(&SEntityState::dissect(&payload_a).1);
    for args in [&[][..], &["-2"][..]] {
        let d = dissect(&pcap, &repo_root().join("dissectors/rtype.lua"), args);
        for (i, p) in packets.iter().enumerate() {
            let bytes = p.encode().unwrap();
            let own = expected(&Packet::dissect(&bytes).1);
            let fields = d.fields(i, "rtype");
            let n = own.len().min(fields.len());
            compare(&own, &fields[..n], HEADERS)
                .unwrap_or_else(|e| panic!("{args:?} frame {i}: {e}"));
            // Only the frame with A's last missing fragment (its first on the wire: index 1 came
            // first) shows the joined world update; A's fragments sent again show nothing more.
            let rest: Vec<&Field> = fields[n..].to_vec();
            if i == 1 {
                compare(&whole_expected, &rest, 0)
                    .unwrap_or_else(|e| panic!("{args:?} reassembled in frame {i}: {e}"));
            } else {
                assert!(
                    rest.is_empty(),
                    "{args:?} frame {i} shows {} more fields",
                    rest.len()
                );
            }
            let notes: &[&str] = match i {
                1 => &["rtype.expert.joined"],
                _ if i >= resent => &["rtype.expert.rejoined"],
                _ => &[],
            };
            assert_eq!(d.experts(i, "rtype"), notes, "{args:?} frame {i}");
        }
    }
    let _ = std::fs::remove_file(pcap);
}

/// Long captures: payloads that never complete do not stop reassembly. Past the limits (64
/// waiting per conversation, 1024 in all) the oldest waiting payload is evicted with a note,
/// and payloads completed afterwards are still joined.
#[test]
fn incomplete_payloads_are_evicted_not_a_wall() {
    // Two fragments each; the second never comes. 1100 in one conversation, then one per
    // conversation in 1100 more, then a complete message in the first conversation.
    let message = world(167);
    let mut datagrams = Vec::new();
    let mut push = |src_port: u16, p: &Packet| {
        datagrams.push(Datagram {
            src_port,
            dst_port: 8080,
            payload: p.encode().unwrap(),
        })
    };
    for id in 0..1100u16 {
        push(40000, &fragments(&message, id, 0).1[0]);
    }
    for k in 0..1100u16 {
        push(10000 + k, &fragments(&message, 1, 0).1[0]);
    }
    let (payload, last) = fragments(&message, 5000, 0);
    for p in &last {
        push(40000, p);
    }
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-rtype-evictions-{}.pcap",
        std::process::id()
    ));
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &repo_root().join("dissectors/rtype.lua"), &[]);
    let evictions = |range: std::ops::Range<usize>| {
        range
            .filter(|&i| d.experts(i, "rtype").contains(&"rtype.expert.evicted"))
            .count()
    };
    // One conversation: the 65th payload and every later one each evict the oldest.
    assert_eq!(evictions(0..64), 0);
    assert_eq!(evictions(64..1100), 1100 - 64);
    // 64 waiting from the first conversation, then 960 more conversations fill the 1024.
    assert_eq!(evictions(1100..1100 + 960), 0);
    assert_eq!(evictions(1100 + 960..2200), 1100 - 960);
    // Still joined at the end, in the conversation whose payloads were evicted.
    let last_frame = datagrams.len() - 1;
    let whole = expected(&SEntityState::dissect(&payload).1);
    let fields = d.fields(last_frame, "rtype");
    let own = Packet::dissect(&datagrams[last_frame].payload).1.len();
    compare(&whole, &fields[own..], 0).unwrap();
    let _ = std::fs::remove_file(pcap);
}
