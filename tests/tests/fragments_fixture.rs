//! ENet-style fragments (`tests/fixture/schema/fragments.yaml`): a join whose first and last
//! parts are told by expressions (`fragment_number == 0`, `fragment_number == fragment_count -
//! 1`), keyed by the channel of the command header around each fragment (`Command.channel_id`)
//! and the start sequence number. The crate splits payloads and joins them again through
//! `Protocol::join`, which finds the fragments among a datagram's commands; the dissector joins
//! the same frames into the same payloads, interleaved across two channels and out of order,
//! several fragments per datagram (both payloads complete in one), in one pass and in two; a
//! payload's fragments sent again are retransmissions in both, not a second payload.

use fragments::*;
use std::borrow::Cow;
use wiregen_tests::*;

/// A template of a payload of `len` bytes starting at sequence number `start`.
fn template(start: u16, len: usize) -> SendFragment<'static> {
    SendFragment {
        start_sequence_number: start,
        fragment_count: send_fragment_parts(len) as u32,
        fragment_number: 0,
        total_length: len as u32,
        fragment_offset: 0,
        data: Cow::Borrowed(&[]),
    }
}

fn payload(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ seed)
        .collect()
}

#[test]
fn the_splitter_marks_parts_by_the_templates_fields() {
    let data = payload(40, 1);
    let parts = split_send_fragment(&template(9, 40), 0, [&data]).unwrap();
    assert_eq!(parts.len(), 3);
    assert!(parts[0].is_first_part() && !parts[0].is_last_part());
    assert!(parts[2].is_last_part() && !parts[2].is_first_part());
    // A template whose count disagrees with the parts is refused, naming the part.
    let mut wrong = template(9, 40);
    wrong.fragment_count = 2;
    let e = split_send_fragment(&wrong, 0, [&data]).unwrap_err();
    assert_eq!(e.field(), "fragment_number");
    assert!(
        e.to_string()
            .contains("part 1 should read as neither the first nor the last part"),
        "{e}"
    );
}

#[test]
fn crate_and_dissector_join_the_same_payloads() {
    // Two payloads on two channels with the same start sequence number, their fragments
    // interleaved, the second payload's out of order; as ENet sends them, several commands per
    // datagram (a ping, an acknowledgement, fragments of both payloads), so that both payloads
    // complete in the same datagram.
    let a = payload(45, 7);
    let b = payload(33, 9);
    let parts_a = split_send_fragment(&template(5, a.len()), 0, [&a]).unwrap();
    let mut parts_b = split_send_fragment(&template(5, b.len()), 0, [&b]).unwrap();
    parts_b.reverse();
    assert_eq!((parts_a.len(), parts_b.len()), (3, 3));
    // Datagram i carries fragment i of each payload (the last one carries both last parts), the
    // first payload's on channel 0, the second's on channel 1.
    let mut joins = Joins::default();
    let mut joiner = SendFragmentJoiner::new();
    let mut joined_at = Vec::new();
    let mut datagrams = Vec::new();
    for i in 0..3 {
        let mut commands = vec![Command {
            channel_id: 0xFF,
            body: if i == 1 {
                CommandBody::Acknowledge(Acknowledge {
                    received_reliable_sequence_number: 4,
                    received_sent_time: 0x1234,
                })
            } else {
                CommandBody::Ping
            },
        }];
        for (channel, part) in [(0, &parts_a[i]), (1, &parts_b[i])] {
            commands.push(Command {
                channel_id: channel,
                body: CommandBody::SendFragment(part.clone()),
            });
            // A joiner fed by hand takes the channel from the caller.
            if let Some(j) = joiner.push(part, channel).unwrap() {
                assert_eq!(j.channel_id, channel);
            }
        }
        let packet = Packet {
            peer_id: 0xFFF,
            sent_time: i as u16,
            commands,
        };
        // The crate finds the fragments among the commands, keyed by their command's channel.
        let completed = <Protocol as wiregen_runtime::Protocol>::join(
            &mut (),
            &mut joins,
            true,
            &packet,
            i as u64,
        )
        .unwrap();
        for (joined, tags) in completed {
            let Joined::SendFragment(j) = joined;
            // The datagrams of its parts, in the payload's order (the second's came reversed).
            let order: &[u64] = if j.channel_id == 0 {
                &[0, 1, 2]
            } else {
                &[2, 1, 0]
            };
            assert_eq!(tags, order);
            joined_at.push((i, j));
        }
        datagrams.push(Datagram {
            src_port: 40000,
            dst_port: 17091,
            payload: packet.encode().unwrap(),
        });
    }
    // The first payload's fragments all again, in one datagram (its sender never saw the
    // acks): retransmissions, not a second payload.
    let again = Packet {
        peer_id: 0xFFF,
        sent_time: 3,
        commands: parts_a
            .iter()
            .map(|part| Command {
                channel_id: 0,
                body: CommandBody::SendFragment(part.clone()),
            })
            .collect(),
    };
    let completed =
        <Protocol as wiregen_runtime::Protocol>::join(&mut (), &mut joins, true, &again, 3)
            .unwrap();
    assert!(completed.is_empty(), "{completed:?}");
    assert_eq!(joins.send_fragment[0].retransmitted(), 3);
    datagrams.push(Datagram {
        src_port: 40000,
        dst_port: 17091,
        payload: again.encode().unwrap(),
    });
    let crate_payloads: Vec<(usize, u8, Vec<u8>)> = joined_at
        .iter()
        .map(|(i, j)| (*i, j.channel_id, j.data.clone()))
        .collect();
    assert_eq!(
        crate_payloads,
        [(2, 0, a.clone()), (2, 1, b.clone())],
        "the crate joins both payloads, on the datagram of their last missing parts"
    );
    dissector_joins_as_the_crate(&datagrams, &crate_payloads);
    export_writes_both_payloads(&datagrams, &a, &b);
}

/// `wirecat export` writes both payloads the third datagram completes: the first in the typed
/// `joined` column (its bytes binary), the second in `also_joined` (JSON text, bytes as hex),
/// each with the frames of its pieces.
fn export_writes_both_payloads(datagrams: &[Datagram], a: &[u8], b: &[u8]) {
    use arrow_array::{Array, BinaryArray, ListArray, StringArray, StructArray, UInt64Array};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let dir = std::env::temp_dir();
    let id = std::process::id();
    let pcap = dir.join(format!("wiregen-fragments-export-{id}.pcap"));
    let out = dir.join(format!("wiregen-fragments-export-{id}.parquet"));
    write_pcap(&pcap, datagrams);
    let ports = wirecat::session::Ports {
        udp: vec![17091],
        tcp: vec![],
    };
    let packets = wirecat::capture::packets(std::fs::File::open(&pcap).unwrap()).unwrap();
    let (tally, rows) =
        wirecat::export::export::<Protocol, _>(packets, &ports, &out, || {}).unwrap();
    assert_eq!((tally.messages, rows), (4, 4));
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&out).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
    let batch = &batches[0];
    assert_eq!(batch.num_rows(), 4);
    let column = |name: &str| batch.column_by_name(name).unwrap().clone();
    // The third datagram (row 2) completes the first payload, from frames 1, 2, 3.
    let joined = column("joined");
    let joined = joined.as_any().downcast_ref::<StructArray>().unwrap();
    let fragment = joined.column_by_name("SendFragment").unwrap();
    let fragment = fragment.as_any().downcast_ref::<StructArray>().unwrap();
    let data = fragment.column_by_name("data").unwrap();
    let data = data.as_any().downcast_ref::<BinaryArray>().unwrap();
    assert_eq!(data.value(2), a);
    assert_eq!(joined.null_count(), 3, "rows 0, 1 and 3 complete nothing");
    let from = column("joined_from");
    let from = from.as_any().downcast_ref::<ListArray>().unwrap().value(2);
    let from = from.as_any().downcast_ref::<UInt64Array>().unwrap();
    assert_eq!(from.values().to_vec(), [1, 2, 3]);
    // The second payload, in the same datagram, in `also_joined`; its pieces came reversed.
    let also = column("also_joined");
    let also = also.as_any().downcast_ref::<StringArray>().unwrap();
    let also: serde_json::Value = serde_json::from_str(also.value(2)).unwrap();
    assert_eq!(also[0]["joined_from"], serde_json::json!([3, 2, 1]));
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    assert_eq!(also[0]["joined"]["SendFragment"]["data"], hex.as_str());
    assert_eq!(also[0]["joined"]["SendFragment"]["channel_id"], 1);
    let _ = (std::fs::remove_file(&pcap), std::fs::remove_file(&out));
}

/// The dissector, in one pass and in two, shows the payloads the crate joined on the same
/// frames, says each retransmitted fragment is one, and shows the fields as the schema says.
fn dissector_joins_as_the_crate(datagrams: &[Datagram], crate_payloads: &[(usize, u8, Vec<u8>)]) {
    let pcap = std::env::temp_dir().join(format!("wiregen-fragments-{}.pcap", std::process::id()));
    write_pcap(&pcap, datagrams);
    let lua = repo_root().join("tests/fixture/dissectors/fragments.lua");
    for args in [&[][..], &["-2"][..]] {
        let d = dissect(&pcap, &lua, args);
        let mut shown = Vec::new();
        for frame in 0..d.frames.len() {
            for f in d.fields(frame, "fragments") {
                if f.name == "fragments.send_fragment.data.joined" {
                    shown.push((frame, hex_bytes(&f.value)));
                }
            }
        }
        let expected: Vec<(usize, Vec<u8>)> = crate_payloads
            .iter()
            .map(|(i, _, data)| (*i, data.clone()))
            .collect();
        assert_eq!(shown, expected, "tshark {args:?}");
        // Each retransmitted fragment is said to be one.
        let rejoined = d
            .experts(3, "fragments")
            .iter()
            .filter(|e| e.ends_with(".rejoined"))
            .count();
        assert_eq!(
            rejoined,
            3,
            "tshark {args:?}: {:?}",
            d.experts(3, "fragments")
        );
        // The peer id is shown in hex.
        let peer = &d.fields(0, "fragments")[0];
        assert_eq!(
            (peer.name.as_str(), peer.show.as_str()),
            ("fragments.peer_id", "0x0fff")
        );
        // The sent time of frame 2 is drawn as bits (`display: bin`).
        let sent = &d.fields(2, "fragments")[1];
        assert_eq!(
            (sent.name.as_str(), sent.showname.as_str()),
            ("fragments.sent_time", "0000 0000 0000 0010 = Sent time: 2")
        );
    }
    let _ = std::fs::remove_file(&pcap);
}

/// Payloads that never complete do not pile up: past 4096 waiting at once, the dissector
/// forgets the oldest and says so (as the crate's joiner holds at most 4096 parts).
#[test]
fn payloads_waiting_past_the_limit_evict_the_oldest_and_say_so() {
    let datagrams: Vec<Datagram> = (0..4097u16)
        .map(|start| {
            let first = split_send_fragment(&template(start, 2000), 0, [&payload(2000, 1)])
                .unwrap()
                .remove(0);
            let packet = Packet {
                peer_id: 1,
                sent_time: start,
                commands: vec![Command {
                    channel_id: 0,
                    body: CommandBody::SendFragment(first),
                }],
            };
            Datagram {
                src_port: 40000,
                dst_port: 17091,
                payload: packet.encode().unwrap(),
            }
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!("wiregen-waiting-{}.pcap", std::process::id()));
    write_pcap(&pcap, &datagrams);
    let d = dissect(
        &pcap,
        &repo_root().join("tests/fixture/dissectors/fragments.lua"),
        &[],
    );
    let _ = std::fs::remove_file(&pcap);
    let evicted = |frame: usize| {
        d.experts(frame, "fragments")
            .iter()
            .any(|e| e.ends_with(".evicted"))
    };
    assert!(!evicted(4095), "{:?}", d.experts(4095, "fragments"));
    assert!(evicted(4096), "{:?}", d.experts(4096, "fragments"));
}
