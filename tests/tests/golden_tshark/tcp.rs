//! TCP framing whose size counts its own bytes (`tcp_sized`, OpenTTD's packets): messages cut
//! across segments anywhere and several in one segment, read by the crate and by the dissector
//! alike, field by field.

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
    let mut segments = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let n = (1 + rng.below(40) as usize).min(stream.len() - at);
        segments.push(Segment {
            src_port: 50002,
            dst_port: 9142,
            payload: stream[at..at + n].to_vec(),
        });
        at += n;
    }
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
