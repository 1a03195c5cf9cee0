//! Every generated dissector, fed random datagrams (and random TCP segments where the protocol
//! runs over TCP), reports problems as expert info and never raises a Lua error.

use wiregen_runtime::Codec;
use wiregen_tests::*;

/// (dissector, protocol name, UDP port, TCP port)
const DISSECTORS: &[(&str, &str, u16, Option<u16>)] = &[
    ("dissectors/rtype.lua", "rtype", 8080, None),
    (
        "dissectors/riptide_2_0.lua",
        "riptide_2_0",
        7777,
        Some(7777),
    ),
    (
        "dissectors/riptide_2_1.lua",
        "riptide_2_1",
        7777,
        Some(7777),
    ),
    (
        "tests/fixture/dissectors/features.lua",
        "features",
        7000,
        None,
    ),
    (
        "tests/fixture/dissectors/bitfeatures.lua",
        "bitfeatures",
        7100,
        None,
    ),
    ("dissectors/dnp.lua", "dnp", 3413, None),
    ("tests/fixture/dissectors/mixed.lua", "mixed", 7300, None),
    ("dissectors/game_protocol.lua", "game_protocol", 8999, None),
    (
        "tests/fixture/dissectors/varints.lua",
        "varints",
        7400,
        None,
    ),
];

#[test]
fn random_input_never_raises_a_lua_error() {
    for (k, (lua, proto, udp, tcp)) in DISSECTORS.iter().enumerate() {
        let mut rng = Rng(0x5eed + k as u64);
        let datagrams: Vec<Datagram> = (0..300)
            .map(|i| {
                // Mostly short inputs, where every early branch of the layouts is reached.
                let n = if i % 5 == 0 {
                    rng.below(200)
                } else {
                    rng.below(12)
                } as usize;
                Datagram {
                    src_port: 40000,
                    dst_port: *udp,
                    payload: rng.bytes(n),
                }
            })
            .collect();
        let pcap = std::env::temp_dir().join(format!(
            "wiregen-nofail-{proto}-{}.pcap",
            std::process::id()
        ));
        write_pcap(&pcap, &datagrams);
        // `dissect` fails the test on a Lua error printed by tshark.
        let d = dissect(&pcap, &repo_root().join(lua), &[]);
        let internal = format!("{proto}.expert.internal");
        for (i, datagram) in datagrams.iter().enumerate() {
            assert!(
                !d.experts(i, proto).contains(&internal.as_str()),
                "{lua}: frame {i} {:02x?}",
                datagram.payload
            );
        }
        if let Some(port) = tcp {
            let segments: Vec<Segment> = (0..200)
                .map(|_| Segment {
                    src_port: 40001,
                    dst_port: *port,
                    payload: rng.bytes_below(40),
                })
                .collect();
            write_tcp_pcap(&pcap, &segments);
            let d = dissect(&pcap, &repo_root().join(lua), &[]);
            for i in 0..segments.len() {
                let internal = format!("{proto}.expert.internal");
                assert!(
                    !d.experts(i, proto).contains(&internal.as_str()),
                    "{lua}: TCP frame {i}"
                );
            }
        }
        let _ = std::fs::remove_file(pcap);
    }
}

#[test]
fn decoders_never_panic_on_arbitrary_bytes() {
    let mut rng = Rng(0xdec0de);
    for _ in 0..20_000 {
        let n = if rng.below(4) == 0 {
            rng.below(300)
        } else {
            rng.below(16)
        } as usize;
        let b = rng.bytes(n);
        let _ = rtype::Packet::decode(&b);
        let _ = rtype::Packet::dissect(&b);
        let _ = riptide_2_0::Message::decode(&b);
        let _ = riptide_2_1::Message::dissect(&b);
        let _ = riptide_2_1::tcp::frames(&b).count();
        let _ = riptide_2_0::tcp::frames(&b).count();
        let _ = features::Message::dissect(&b);
        let _ = bitfeatures::Frame::dissect(&b);
        let _ = game_protocol::ClientMessage::decode(&b);
        let _ = dnp::Command::dissect(&b);
        let _ = mixed::Packet::dissect(&b);
        let _ = game_protocol::Conversation::new().decode(true, &b);
        let _ = game_protocol::ServerMessage::decode(&b);
        let _ = varints::Values::dissect(&b);
        let _ = game_protocol::ClientMessage::dissect(&b);
    }
}
