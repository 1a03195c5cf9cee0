//! Hostile captures for every schema: valid messages truncated at every length, with single
//! bits flipped, with length and count fields made absurd, and random bytes. tshark dissects each
//! set in one run: no Lua error (printed or caught), and every datagram the Rust decoder rejects
//! shows at least one expert item in Wireshark (malformed data is reported, never silent).

use wiregen_runtime::Codec;
use wiregen_tests::*;

/// Hostile variants of `valid`, then random datagrams (some of them long).
fn hostile(valid: &[Vec<u8>], seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for m in valid {
        // Truncated at every length (an empty datagram reaches no dissector).
        out.extend((1..m.len()).map(|n| m[..n].to_vec()));
        // Single-bit flips.
        for _ in 0..16 {
            let mut b = m.clone();
            let bit = rng.below(8 * b.len() as u64) as usize;
            b[bit / 8] ^= 1 << (bit % 8);
            out.push(b);
        }
        // Absurd lengths and counts: 0xFF over two or four bytes anywhere in the first 24.
        for at in 0..m.len().min(24) {
            for w in [2, 4] {
                let mut b = m.clone();
                for x in b.iter_mut().skip(at).take(w) {
                    *x = 0xFF;
                }
                out.push(b);
            }
        }
    }
    out.extend((0..200).map(|_| {
        let n = 1 + rng.below(64) as usize;
        rng.bytes(n)
    }));
    // Long inputs: a linear dissector handles them as fast as short ones, per byte.
    out.extend((0..4).map(|_| rng.bytes(60_000)));
    out
}

/// Dissects `inputs` (after the `opening` datagrams, in one conversation when
/// `one_conversation`), and checks every frame against `rejects` (whether the Rust decoder
/// refuses the bytes).
fn check(
    name: &str,
    lua: &str,
    port: u16,
    opening: &[Vec<u8>],
    one_conversation: bool,
    inputs: &[Vec<u8>],
    rejects: impl Fn(&[u8]) -> bool,
) {
    check_with(
        Dissectors {
            names: &[name],
            lua,
            tshark_args: &[],
        },
        port,
        opening,
        one_conversation,
        inputs,
        rejects,
    )
}

/// [`check`] with more tshark arguments (another dissector, Decode As) and every protocol whose
/// expert items count (a transport and its application).
/// The dissectors a check runs: the protocols whose expert items count (the first is the
/// one the capture is sent to), the dissector file, and more tshark arguments.
struct Dissectors<'a> {
    names: &'a [&'a str],
    lua: &'a str,
    tshark_args: &'a [&'a str],
}

fn check_with(
    Dissectors {
        names,
        lua,
        tshark_args,
    }: Dissectors<'_>,
    port: u16,
    opening: &[Vec<u8>],
    one_conversation: bool,
    inputs: &[Vec<u8>],
    rejects: impl Fn(&[u8]) -> bool,
) {
    let name = names[0];
    let mut datagrams: Vec<Datagram> = opening
        .iter()
        .enumerate()
        .map(|(k, payload)| {
            // The opening alternates client, server, client.
            let from_server = k % 2 == 1;
            Datagram {
                src_port: if from_server { port } else { 40000 },
                dst_port: if from_server { 40000 } else { port },
                payload: payload.clone(),
            }
        })
        .collect();
    datagrams.extend(inputs.iter().enumerate().map(|(i, m)| Datagram {
        src_port: if one_conversation {
            40000
        } else {
            10000 + (i % 50_000) as u16
        },
        dst_port: port,
        payload: m.clone(),
    }));
    // Named by every protocol: a transport's own test and its application's run in parallel.
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-hostile-{}-{}.pcap",
        names.join("-"),
        std::process::id()
    ));
    write_pcap(&pcap, &datagrams);
    // `dissect` fails on any Lua error tshark prints.
    let mut args = tshark_args.to_vec();
    args.push("-2");
    let d = dissect(&pcap, &repo_root().join(lua), &args);
    let mut rejected = 0;
    for (i, m) in inputs.iter().enumerate() {
        let frame = opening.len() + i;
        let experts: Vec<&str> = names.iter().flat_map(|n| d.experts(frame, n)).collect();
        assert!(
            !experts.iter().any(|e| e.ends_with(".expert.internal")),
            "{name}: frame {frame} raised a Lua error: {m:02x?}"
        );
        if rejects(m) {
            rejected += 1;
            assert!(
                !experts.is_empty(),
                "{name}: frame {frame}: Rust rejects {m:02x?}, Wireshark shows no expert item"
            );
        }
    }
    // With the tree not shown (summary lines: no subtree of a label is made, see
    // `hidden_tree.rs`) no message raises a Lua error either: none is caught as internal.
    let luas = [repo_root().join(lua)];
    let luas: Vec<&std::path::Path> = luas.iter().map(|p| p.as_path()).collect();
    let failed = wiregen_verify::hidden_lua_errors(&pcap, &luas, &args, names)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        failed.is_empty(),
        "{name}: {} Lua errors with the tree hidden, first: {:?}",
        failed.len(),
        &failed[..failed.len().min(3)]
    );
    // The set really is hostile.
    assert!(
        rejected * 20 > inputs.len(),
        "{name}: only {rejected} of {} rejected",
        inputs.len()
    );
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn rtype() {
    let valid = arbitrary_messages!(rtype::Packet, 0xbad1, 30);
    check(
        "rtype",
        "dissectors/rtype.lua",
        8080,
        &[],
        false,
        &hostile(&valid, 1),
        |m| rtype::Packet::decode(m).is_err(),
    );
}

#[test]
fn riptide_2_0() {
    let valid = arbitrary_messages!(riptide_2_0::Message, 0xbad2, 30);
    check(
        "riptide_2_0",
        "dissectors/riptide_2_0.lua",
        7777,
        &[],
        false,
        &hostile(&valid, 2),
        |m| riptide_2_0::Message::decode(m).is_err(),
    );
}

#[test]
fn riptide_2_1() {
    let valid = arbitrary_messages!(riptide_2_1::Message, 0xbad3, 30);
    check(
        "riptide_2_1",
        "dissectors/riptide_2_1.lua",
        7777,
        &[],
        false,
        &hostile(&valid, 3),
        |m| riptide_2_1::Message::decode(m).is_err(),
    );
}

#[test]
fn dnp() {
    // Each datagram alone in its conversation: Link Updates have no list, in both outputs.
    let valid = arbitrary_messages!(dnp::Command, 0xbad4, 40);
    check(
        "dnp",
        "dissectors/dnp.lua",
        3413,
        &[],
        false,
        &hostile(&valid, 4),
        |m| dnp::Command::decode(m).is_err(),
    );
}

#[test]
fn game_protocol() {
    // A valid opening, then every hostile datagram as a packet of that conversation.
    let first = |mut v: Vec<Vec<u8>>| v.remove(0);
    let opening = vec![
        first(arbitrary_messages!(game_protocol::Init, 0xbad5, 1)),
        first(arbitrary_messages!(game_protocol::Challenge, 0xbad6, 1)),
        first(arbitrary_messages!(
            game_protocol::ChallengeResponse,
            0xbad7,
            1
        )),
    ];
    let valid = arbitrary_messages!(game_protocol::Packet, 0xbad8, 30);
    check(
        "game_protocol",
        "dissectors/game_protocol.lua",
        8999,
        &opening,
        true,
        &hostile(&valid, 5),
        |m| game_protocol::Packet::decode(m).is_err(),
    );
}

/// Found by the hostile captures: a VarULong of more than 64 bits was rejected by the crate
/// (with a confusing "too large" message) but shown silently wrapped by the dissector.
#[test]
fn an_overlong_varint_is_an_error_in_both_outputs() {
    let b = hex_bytes("80 e9 78 2c 5f 0f fd 79 d9 ca 03");
    let e = riptide_2_1::Message::decode(&b).unwrap_err();
    assert_eq!(
        (e.field(), e.bit, e.kind),
        (
            "body.message_id".to_string(),
            Some(4),
            riptide_2_1::DecodeErrorKind::Overlong
        )
    );
    let pcap = std::env::temp_dir().join(format!("wiregen-overlong-{}.pcap", std::process::id()));
    write_pcap(
        &pcap,
        &[Datagram {
            src_port: 40000,
            dst_port: 7777,
            payload: b,
        }],
    );
    let d = dissect(&pcap, &repo_root().join("dissectors/riptide_2_1.lua"), &[]);
    assert_eq!(
        d.experts(0, "riptide_2_1"),
        ["riptide_2_1.expert.too_large"]
    );
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn rtype_impl() {
    let valid = arbitrary_messages!(rtype_impl::Packet, 0xbad9, 30);
    check_with(
        Dissectors {
            names: &["rtype_impl"],
            lua: "dissectors/rtype_impl.lua",
            tshark_args: &["-d", "udp.port==8080,rtype_impl"],
        },
        8080,
        &[],
        false,
        &hostile(&valid, 6),
        |m| rtype_impl::Packet::decode(m).is_err(),
    );
}

#[test]
fn arena_inside_riptide_2_1() {
    let raws = Rng(0xbada).buffers(200, 200);
    let valid: Vec<Vec<u8>> = raws
        .iter()
        .filter_map(|raw| {
            let mut u = arbitrary::Unstructured::new(raw);
            let g = <arena::Message as arbitrary::Arbitrary>::arbitrary(&mut u).ok()?;
            let mut um = riptide_2_1::UserMessage {
                message_id: 0,
                payload: riptide_2_1::BitString::from_bytes(vec![]),
            };
            g.fill_user_message(&mut um).ok()?;
            riptide_2_1::Message {
                body: riptide_2_1::MessageBody::Unreliable(um),
            }
            .encode()
            .ok()
        })
        .take(20)
        .collect();
    let app = format!(
        "lua_script:{}",
        repo_root().join("dissectors/arena.lua").display()
    );
    check_with(
        Dissectors {
            names: &["riptide_2_1", "arena"],
            lua: "dissectors/riptide_2_1.lua",
            tshark_args: &["-X", &app],
        },
        7777,
        &[],
        false,
        &hostile(&valid, 7),
        // Rejected: by Riptide, or by the game for an id it names (others stay Riptide bytes).
        |m| match riptide_2_1::Message::decode(m) {
            Err(_) => true,
            Ok(riptide_2_1::Message {
                body: riptide_2_1::MessageBody::Unreliable(um),
            }) => {
                [1, 2, 5].contains(&um.message_id)
                    && arena::Message::from_user_message(&um).is_err()
            }
            Ok(_) => false,
        },
    );
}

#[test]
fn dungeon_inside_dnp() {
    let raws = Rng(0xbadb).buffers(200, 200);
    let valid: Vec<Vec<u8>> = raws
        .iter()
        .filter_map(|raw| {
            let mut u = arbitrary::Unstructured::new(raw);
            let g = <dungeon::Message as arbitrary::Arbitrary>::arbitrary(&mut u).ok()?;
            let mut r = dnp::UnreliableMessage {
                data: std::borrow::Cow::Borrowed(&[]),
            };
            g.fill_unreliable_message(&mut r).ok()?;
            dnp::Command {
                body: dnp::CommandBody::UnreliableMessage(r),
            }
            .encode()
            .ok()
        })
        .take(20)
        .collect();
    let app = format!(
        "lua_script:{}",
        repo_root().join("dissectors/dungeon.lua").display()
    );
    check_with(
        Dissectors {
            names: &["dnp", "dungeon"],
            lua: "dissectors/dnp.lua",
            tshark_args: &["-X", &app, "-o", "dungeon.udp_ports:3413"],
        },
        3413,
        &[],
        false,
        &hostile(&valid, 8),
        |m| match dnp::Command::decode(m) {
            Err(_) => true,
            Ok(dnp::Command {
                body: dnp::CommandBody::UnreliableMessage(u),
            }) => dungeon::Message::from_unreliable_message(&u).is_err(),
            Ok(_) => false,
        },
    );
}

/// Found by the hostile captures: a string that is not UTF-8 is an error in the crates but was
/// shown silently (with replacement marks) by the dissectors.
#[test]
fn a_string_that_is_not_utf8_is_an_error_in_both_outputs() {
    let b = hex_bytes("03 02 03 00 ff ff 0b");
    let e = dungeon::Message::decode(&b[1..]).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        ("text".to_string(), 3, dungeon::DecodeErrorKind::InvalidUtf8)
    );
    let pcap = std::env::temp_dir().join(format!("wiregen-utf8-{}.pcap", std::process::id()));
    write_pcap(
        &pcap,
        &[Datagram {
            src_port: 40000,
            dst_port: 3413,
            payload: b,
        }],
    );
    let app = format!(
        "lua_script:{}",
        repo_root().join("dissectors/dungeon.lua").display()
    );
    let d = dissect(
        &pcap,
        &repo_root().join("dissectors/dnp.lua"),
        &["-X", &app, "-o", "dungeon.every_payload:TRUE"],
    );
    assert_eq!(d.experts(0, "dungeon"), ["dungeon.expert.invalid_value"]);
    let _ = std::fs::remove_file(pcap);
}
