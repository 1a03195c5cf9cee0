//! TCP framing whose size counts its own bytes (`tcp_sized`, OpenTTD's packets): messages cut
//! across segments anywhere and several in one segment, read by the crate and by the dissector
//! alike, field by field; a map download joined in the order of its chunks, from its MAP_BEGIN
//! to its MAP_DONE, in both outputs.

use super::*;
use wiregen_golden::tcp_sized::{tcp, Chat, MapData, Packet, PacketBody, Ping};

fn random_packet(rng: &mut Rng) -> Packet<'static> {
    let text: String = (0..rng.below(12))
        .map(|i| (b'a' + i as u8) as char)
        .collect();
    let body = match rng.below(4) {
        0 => PacketBody::Chat(Chat {
            client: rng.below(1000) as u32,
            text: Cow::Owned(text),
        }),
        1 => PacketBody::MapData(MapData {
            data: Cow::Owned((0..rng.below(300)).map(|i| i as u8).collect()),
        }),
        2 => PacketBody::Ping(Ping {
            token: rng.below(1 << 30) as u32,
        }),
        _ => PacketBody::Other {
            r#type: wiregen_golden::tcp_sized::PacketType::from_raw(9),
            data: Cow::Owned(vec![7; rng.below(5) as usize]),
        },
    };
    Packet { body }
}

/// `stream` sent from a client's port to `port` in segments of 1 to `most` bytes.
fn cut(stream: &[u8], port: u16, most: u64, rng: &mut Rng) -> Vec<Segment> {
    let mut segments = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let n = (1 + rng.below(most) as usize).min(stream.len() - at);
        segments.push(Segment {
            src_port: 50002,
            dst_port: port,
            payload: stream[at..at + n].to_vec(),
        });
        at += n;
    }
    segments
}

#[test]
fn a_size_that_counts_itself_reads_alike_from_segments_cut_anywhere() {
    let mut rng = Rng(0x3979);
    let packets: Vec<Packet> = (0..150).map(|_| random_packet(&mut rng)).collect();
    let mut stream = Vec::new();
    for p in &packets {
        tcp::frame_into(&p.encode().unwrap(), &mut stream).unwrap();
    }
    // The size counts its two bytes: the first frame's size is its message's length + 2.
    let first = packets[0].encode().unwrap();
    assert_eq!(
        u16::from_le_bytes([stream[0], stream[1]]) as usize,
        first.len() + 2
    );
    // The crate finds every message again.
    let found: Vec<&[u8]> = tcp::frames(&stream).map(Result::unwrap).collect();
    assert_eq!(found.len(), packets.len());
    // Cut anywhere: segments of 1 to 40 bytes hold several messages or part of one.
    let segments = cut(&stream, 9142, 40, &mut rng);
    let dir = std::env::temp_dir().join(format!("wiregen-tcp-sized-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("tcp_sized.pcap");
    write_tcp_pcap(&pcap, &segments);
    let d = dissect(&pcap, &snippet_lua("tcp_sized"), &[]);
    let shown: Vec<Vec<&Field>> = (0..segments.len())
        .flat_map(|i| d.pdus(i, "tcp_sized"))
        .collect();
    assert_eq!(
        shown.len(),
        packets.len(),
        "every message is dissected once"
    );
    for (k, ((p, message), pdu)) in packets.iter().zip(&found).zip(&shown).enumerate() {
        let (decoded, notes) = Packet::dissect(message);
        assert_eq!(decoded.as_ref(), Ok(p), "message {k}");
        let mut expected = vec![ExpectedField {
            name: "tcp_sized.frame_length".into(),
            source: 0,
            offset: 0,
            len: 2,
            value: Expected::Int(message.len() as i128 + 2),
        }];
        expected.extend(wiregen_tests::expected(&notes).into_iter().map(|mut f| {
            f.offset += 2;
            f
        }));
        compare(&expected, pdu, 0).unwrap_or_else(|e| panic!("message {k} {p:?}: {e}"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_map_download_joins_in_stream_order_from_its_begin_to_its_done_in_both_outputs() {
    use wiregen_golden::tcp_sized::{Joined, Joins, MapBegin, MapDone, Protocol};
    use wiregen_runtime::Protocol as _;
    // A savegame of 700 bytes in chunks of 100, with a chat and a ping among them; a chunk
    // before the MAP_BEGIN belongs to no download.
    let save: Vec<u8> = (0..700u32).map(|i| (i * 7 % 251) as u8).collect();
    let data = |from: usize, to: usize| {
        PacketBody::MapData(MapData {
            data: Cow::Owned(save[from..to].to_vec()),
        })
    };
    let mut bodies = vec![data(0, 3), PacketBody::MapBegin(MapBegin { total: 700 })];
    for k in 0..7 {
        bodies.push(data(k * 100, (k + 1) * 100));
        if k == 3 {
            bodies.push(PacketBody::Ping(Ping { token: 9 }));
        }
    }
    bodies.push(PacketBody::MapDone(MapDone {}));
    let packets: Vec<Packet> = bodies.into_iter().map(|body| Packet { body }).collect();
    let mut stream = Vec::new();
    let mut ends = Vec::new();
    for p in &packets {
        tcp::frame_into(&p.encode().unwrap(), &mut stream).unwrap();
        ends.push(stream.len());
    }
    // The crate: message by message, as wirecat reads the stream.
    let mut joins = Joins::default();
    let mut joined = Vec::new();
    for (k, message) in tcp::frames(&stream).map(Result::unwrap).enumerate() {
        let d = Protocol::decode_datagram(&mut (), true, message).unwrap();
        joined.extend(
            Protocol::join(&mut (), &mut joins, true, &d, k as u64)
                .unwrap()
                .into_iter()
                .map(|(j, tags)| (k, j, tags)),
        );
    }
    let [(done, Joined::MapData(whole), tags)] = &joined[..] else {
        panic!("{joined:?}")
    };
    assert_eq!((*done, whole.parts), (packets.len() - 1, 7));
    assert_eq!(whole.data, save);
    assert_eq!(tags, &[2, 3, 4, 5, 7, 8, 9]);
    assert_eq!(joins.map_data[0].orphans(), 1);
    // The dissector, from segments of 1 to 150 bytes: the same bytes, in the segment that
    // completed the MAP_DONE.
    let mut rng = Rng(0x5a7e);
    let segments = cut(&stream, 9142, 150, &mut rng);
    let done_segment = {
        let mut end = 0;
        segments
            .iter()
            .position(|s| {
                end += s.payload.len();
                end >= *ends.last().unwrap()
            })
            .unwrap()
    };
    let dir = std::env::temp_dir().join(format!("wiregen-map-download-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("map_download.pcap");
    write_tcp_pcap(&pcap, &segments);
    for args in [&[][..], &["-2"][..]] {
        let d = dissect(&pcap, &snippet_lua("tcp_sized"), args);
        let mut shown = Vec::new();
        for frame in 0..segments.len() {
            for f in d.fields(frame, "tcp_sized") {
                if f.name == "tcp_sized.map_data.data.joined" {
                    shown.push((frame, hex_bytes(&f.value)));
                }
            }
        }
        assert_eq!(shown, [(done_segment, save.clone())], "tshark {args:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A length inside the message's header (`tcp_inside`: a type byte, then a u16be size of the
/// whole packet): the frame is the message, cut from segments of any size alike by the crate
/// and the dissector, which shows the size as the message's own field; a size shorter than the
/// header it sits in loses the framing, said by both.
#[test]
fn a_length_inside_the_header_reads_alike_from_segments_cut_anywhere() {
    use wiregen_golden::tcp_inside::{tcp, Chat, Move, Packet, PacketBody, PacketType};
    let mut rng = Rng(0x1006);
    let packets: Vec<Packet> = (0..120)
        .map(|i| {
            let body = match rng.below(3) {
                0 => PacketBody::Chat(Chat {
                    text: Cow::Owned("hi".repeat(rng.below(40) as usize)),
                }),
                1 => PacketBody::Move(Move {
                    x: rng.below(600) as i16 - 300,
                    y: -(i as i16),
                }),
                _ => PacketBody::Other {
                    r#type: PacketType::from_raw(7),
                    data: Cow::Owned(vec![9; rng.below(6) as usize]),
                },
            };
            Packet { body }
        })
        .collect();
    let mut stream = Vec::new();
    for p in &packets {
        tcp::frame_into(&p.encode().unwrap(), &mut stream).unwrap();
    }
    // Nothing is put before a message: the stream is the messages, each with its size at
    // byte 1 counting all of it.
    let first = packets[0].encode().unwrap();
    assert_eq!(&stream[..first.len()], &first[..]);
    assert_eq!(
        u16::from_be_bytes([first[1], first[2]]) as usize,
        first.len()
    );
    let found: Vec<Vec<u8>> = tcp::frames(&stream).map(|f| f.unwrap().to_vec()).collect();
    assert_eq!(found.len(), packets.len());
    // A message whose size a user wrote wrong is refused by the framing.
    let mut wrong = first.clone();
    wrong[2] ^= 1;
    assert!(tcp::frame_into(&wrong, &mut Vec::new()).is_err());
    // Then a size of 2, shorter than the three bytes of header it sits in: out of step.
    let lost_at = stream.len();
    stream.extend_from_slice(&[1, 0, 2, b'x', b'y']);
    let e = tcp::frames(&stream).last().unwrap().unwrap_err();
    assert_eq!(e.offset, lost_at + 1, "{e}");
    let segments = cut(&stream, 9143, 40, &mut rng);
    let dir = std::env::temp_dir().join(format!("wiregen-tcp-inside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("tcp_inside.pcap");
    write_tcp_pcap(&pcap, &segments);
    let d = dissect(&pcap, &snippet_lua("tcp_inside"), &[]);
    let shown: Vec<Vec<&Field>> = (0..segments.len())
        .flat_map(|i| d.pdus(i, "tcp_inside"))
        .collect();
    assert_eq!(
        shown.len(),
        packets.len() + 1,
        "every message, then the lost framing"
    );
    for (k, ((p, message), pdu)) in packets.iter().zip(&found).zip(&shown).enumerate() {
        let (decoded, notes) = Packet::dissect(message);
        assert_eq!(decoded.as_ref(), Ok(p), "message {k}");
        // No frame length of the framing's own: the message's size field is the length.
        compare(&wiregen_tests::expected(&notes), pdu, 0)
            .unwrap_or_else(|e| panic!("message {k} {p:?}: {e}"));
    }
    let lost = (0..segments.len())
        .flat_map(|i| d.experts(i, "tcp_inside"))
        .filter(|e| *e == "tcp_inside.expert.length_mismatch")
        .count();
    assert_eq!(lost, 1, "the lost framing is said once");
    for i in 0..segments.len() {
        assert!(d.lua_errors(i).is_empty(), "segment {i}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
