//! Enclosing fields and the direction (`enclosing`): packets read the channel of the header
//! around them (`Datagram.channel`) and which side sent them (`@from_client`); the crate and the
//! dissector read the same bytes the same way in both directions, field by field.

use super::*;
use wiregen_golden::enclosing::{
    Control, Datagram, Hello, Init, Original, OriginalBody, Packet, PacketBody, Reliable,
    ReliableInner, Split,
};
use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};

const PORT: u16 = 30000;

/// The header of every datagram: protocol id, peer 0x0102, `channel`.
fn header(channel: u8) -> Vec<u8> {
    let mut b = hex_bytes("4F457403 0102");
    b.push(channel);
    b
}

fn datagram(channel: u8, packet: &str) -> Vec<u8> {
    let mut b = header(channel);
    b.extend(hex_bytes(packet));
    b
}

/// `(from_client, bytes)` as UDP datagrams between a client and the server's port.
fn dissect_both_ways(name: &str, payloads: &[(bool, Vec<u8>)]) -> Dissection {
    let dir = std::env::temp_dir().join(format!("wiregen-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("enclosing.pcap");
    let datagrams: Vec<wiregen_tests::Datagram> = payloads
        .iter()
        .map(|(from_client, payload)| {
            let (src_port, dst_port) = if *from_client {
                (40000, PORT)
            } else {
                (PORT, 40000)
            };
            wiregen_tests::Datagram {
                src_port,
                dst_port,
                payload: payload.clone(),
            }
        })
        .collect();
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &snippet_lua("enclosing"), &[]);
    let _ = std::fs::remove_dir_all(dir);
    d
}

#[test]
fn packets_read_the_enclosing_channel_and_the_direction_alike_in_both_outputs() {
    // A reliable packet (sequence 65500) wrapping a split: its chunk is 4 bytes on channel 2,
    // 8 bytes on the others (the same type, read by `Datagram.channel`).
    let split_on_2 = datagram(2, "03 FFDC 02 0007 0003 0001 AABBCCDD");
    let split_on_0 = datagram(0, "03 FFDC 02 0007 0003 0001 AABBCCDD 11223344");
    // Command 1 from the client is Init; command 2 from the server is Hello (0x1002), whose
    // flags are there off channel 0.
    let init = datagram(1, "01 0001 07 03 626F62");
    let hello_on_1 = datagram(1, "01 0002 0203 80");
    let hello_on_0 = datagram(0, "01 0002 0203");
    // SET_PEER_ID (control 1) carries the peer only from the server.
    let set_peer_from_server = datagram(0, "00 01 0009");
    let set_peer_from_client = datagram(0, "00 01");
    let cases: Vec<(bool, Vec<u8>)> = vec![
        (true, split_on_2.clone()),
        (true, split_on_0.clone()),
        (true, init.clone()),
        (false, hello_on_1.clone()),
        (false, hello_on_0.clone()),
        (false, set_peer_from_server.clone()),
        (true, set_peer_from_client.clone()),
    ];

    let split = |chunk: &'static [u8]| {
        PacketBody::Reliable(Reliable {
            seqnum: 65500,
            inner: ReliableInner::Split(Split {
                seqnum: 7,
                count: 3,
                index: 1,
                chunk: Cow::Borrowed(chunk),
            }),
        })
    };
    let expected: Vec<(u8, PacketBody)> = vec![
        (2, split(&[0xAA, 0xBB, 0xCC, 0xDD])),
        (0, split(&[0xAA, 0xBB, 0xCC, 0xDD, 0x11, 0x22, 0x33, 0x44])),
        (
            1,
            PacketBody::Original(Original {
                command: 1,
                body: OriginalBody::Init(Init {
                    version: 7,
                    name: Cow::Borrowed("bob"),
                }),
            }),
        ),
        (
            1,
            PacketBody::Original(Original {
                command: 2,
                body: OriginalBody::Hello(Hello {
                    peer: 0x0203,
                    flags: Some(0x80),
                }),
            }),
        ),
        (
            0,
            PacketBody::Original(Original {
                command: 2,
                body: OriginalBody::Hello(Hello {
                    peer: 0x0203,
                    flags: None,
                }),
            }),
        ),
        (
            0,
            PacketBody::Control(Control {
                control: 1,
                peer: Some(9),
            }),
        ),
        (
            0,
            PacketBody::Control(Control {
                control: 1,
                peer: None,
            }),
        ),
    ];
    let d = dissect_both_ways("enclosing-values", &cases);
    for (i, ((from_client, bytes), (channel, body))) in cases.iter().zip(expected).enumerate() {
        let want = Datagram {
            peer_id: 0x0102,
            channel,
            packet: Packet { body },
        };
        let (decoded, notes) = Datagram::dissect_from(bytes, *from_client);
        assert_eq!(decoded.as_ref(), Ok(&want), "datagram {i}");
        assert_eq!(
            want.encode_from(*from_client).as_deref(),
            Ok(&bytes[..]),
            "datagram {i}"
        );
        let own = wiregen_tests::expected(&notes);
        compare(&own, &d.fields(i, "enclosing"), HEADERS)
            .unwrap_or_else(|e| panic!("datagram {i}: {e}"));
        assert!(d.malformed(i, "enclosing").is_empty(), "datagram {i}");
    }
    // The other direction reads other layouts: Hello's bytes from the client are command 2
    // with no body of its own.
    let from_client = Datagram::decode_from(&hello_on_0, true).unwrap();
    assert!(matches!(
        from_client.packet.body,
        PacketBody::Original(Original {
            body: OriginalBody::Other(_),
            ..
        })
    ));
}

#[test]
fn without_the_direction_or_the_enclosing_value_the_crate_says_what_to_call() {
    let init = datagram(1, "01 0001 07 03 626F62");
    let e = Datagram::decode(&init).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::NoDirection);
    assert!(e.to_string().contains("decode_from"), "{e}");
    // A Hello alone has no Datagram around it to take the channel from.
    let e = Hello::decode(&hex_bytes("0203 80")).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::Outside { holder: "Datagram" });
    assert!(e.to_string().contains("decode the Datagram"), "{e}");
    let value = Datagram::decode_from(&init, true).unwrap();
    let e = value.encode().unwrap_err();
    assert_eq!(e.kind, EncodeErrorKind::NoDirection);
    // A value the enclosing channel does not allow is refused: channel 2 takes 4-byte chunks.
    let split = datagram(0, "02 0007 0003 0001 0011223344556677");
    let mut wrong = Datagram::decode_from(&split, true).unwrap();
    wrong.channel = 2;
    let e = wrong.encode_from(true).unwrap_err();
    assert!(
        matches!(
            e.kind,
            EncodeErrorKind::LengthMismatch {
                expected: 4,
                actual: 8
            }
        ),
        "{e}"
    );
}

#[test]
fn the_generator_refuses_more_enclosing_fields_than_the_runtime_keeps() {
    assert_eq!(
        wiregen::lower::ENCLOSING_SLOTS,
        wiregen_runtime::ENCLOSING_SLOTS
    );
}

/// A split part: `count` parts of message `seqnum`, this one `index`, as hex.
fn split(seqnum: u16, count: u16, index: u16, chunk: &[u8]) -> String {
    let mut h = format!("02 {seqnum:04X} {count:04X} {index:04X} ");
    h.extend(chunk.iter().map(|b| format!("{b:02X}")));
    h
}

/// The same part inside a reliable packet numbered `n`.
fn reliable(n: u16, split_hex: &str) -> String {
    format!("03 {n:04X} {split_hex}")
}

#[test]
fn splits_join_wherever_they_sit_per_channel_of_the_header_and_once() {
    use wiregen_golden::enclosing::{Joined, Joins, Protocol};
    use wiregen_runtime::Protocol as _;
    // Message 7 on channel 1 (8-byte chunks) and message 7 on channel 2 (4-byte chunks): the
    // same number, two payloads, told apart by the header's channel. Parts come bare or inside
    // reliable packets, out of order; then two parts of the first again (retransmissions).
    let a: Vec<u8> = (0..24).collect();
    let b: Vec<u8> = (100..108).collect();
    let datagrams: Vec<Vec<u8>> = [
        (1, split(7, 3, 0, &a[0..8])),
        (2, reliable(65500, &split(7, 2, 1, &b[4..8]))),
        (1, reliable(65501, &split(7, 3, 1, &a[8..16]))),
        (2, split(7, 2, 0, &b[0..4])),
        (1, reliable(65502, &split(7, 3, 2, &a[16..24]))),
        (1, reliable(65503, &split(7, 3, 2, &a[16..24]))),
        (1, split(7, 3, 0, &a[0..8])),
    ]
    .iter()
    .map(|(channel, packet)| datagram(*channel, packet))
    .collect();
    // The crate, datagram by datagram.
    let mut joins = Joins::default();
    let mut crate_joined = Vec::new();
    for (i, bytes) in datagrams.iter().enumerate() {
        let d = Protocol::decode_datagram(&mut (), true, bytes).unwrap();
        for (joined, tags) in Protocol::join(&mut (), &mut joins, true, &d, i as u64).unwrap() {
            let Joined::Split(j) = joined;
            crate_joined.push((i, j.channel, j.chunk, tags));
        }
    }
    assert_eq!(
        crate_joined,
        [
            (3, 2, b.clone(), vec![3, 1]),
            (4, 1, a.clone(), vec![0, 2, 4]),
        ]
    );
    assert_eq!(joins.split[0].retransmitted(), 2);
    // The dissector: the same payloads in the same frames, the parts sent again marked.
    let cases: Vec<(bool, Vec<u8>)> = datagrams.iter().map(|d| (true, d.clone())).collect();
    let d = dissect_both_ways("enclosing-splits", &cases);
    let mut shown = Vec::new();
    for frame in 0..datagrams.len() {
        for f in d.fields(frame, "enclosing") {
            if f.name == "enclosing.split.chunk.joined" {
                shown.push((frame, hex_bytes(&f.value)));
            }
        }
        let rejoined = d
            .experts(frame, "enclosing")
            .iter()
            .any(|e| e.ends_with(".rejoined"));
        assert_eq!(rejoined, frame >= 5, "frame {frame}");
    }
    assert_eq!(shown, [(3, b), (4, a)]);
}
