//! Differential testing of the two outputs of every schema, with the machinery `wiregen verify`
//! gives every user: thousands of random valid values (the crates' `arbitrary` feature), encoded
//! in Rust, dissected in one tshark run per schema, every field compared with the Rust decoder,
//! then hostile datagrams. Values the encoder refuses are skipped (their refusal is the
//! encoder's job); what it accepts must decode and show identically. Applications are checked
//! inside their transports.

use wiregen_runtime::Codec;
use wiregen_tests::*;

const N: usize = 2000;

#[test]
fn rtype() {
    verify_protocol::<rtype::Protocol>("dissectors/rtype.lua", &[], 0x5101);
}

#[test]
fn riptide_2_0() {
    verify_protocol::<riptide_2_0::Protocol>("dissectors/riptide_2_0.lua", &[], 0x5102);
}

#[test]
fn riptide_2_1() {
    verify_protocol::<riptide_2_1::Protocol>("dissectors/riptide_2_1.lua", &[], 0x5103);
}

#[test]
fn dnp() {
    // Link Updates need the types of an earlier Link State (tested in dnp_session): every
    // message is alone in its conversation, so those are counted and not sent.
    let report = verify_protocol::<dnp::Protocol>("dissectors/dnp.lua", &[], 0x5104);
    assert!(report.stateful > 0, "{report}");
}

#[test]
fn game_protocol() {
    // One conversation: the three opening datagrams, then the packets.
    verify_protocol::<game_protocol::Protocol>("dissectors/game_protocol.lua", &[], 0x5105);
}

#[test]
fn rtype_impl() {
    // The game build's dissector, chosen with Decode As on the RFC port.
    verify_protocol::<rtype_impl::Protocol>(
        "dissectors/rtype_impl.lua",
        &["-d", "udp.port==8080,rtype_impl"],
        0x5109,
    );
}

/// Arbitrary messages the encoder accepts, from random buffers.
macro_rules! games {
    ($t:ty, $sources:expr) => {
        $sources
            .iter()
            .filter_map(|raw| {
                let mut u = arbitrary::Unstructured::new(raw);
                <$t as arbitrary::Arbitrary>::arbitrary(&mut u).ok()
            })
            .filter(|m| m.encode().is_ok())
            .take(N / 4)
            .collect::<Vec<$t>>()
    };
}

#[test]
fn arena_on_riptide_2_1() {
    let raws = Rng(0x510a).buffers(N, 300);
    let games = games!(arena::Message, raws);
    assert!(games.len() > N / 8, "{} values", games.len());
    // Unreliable: the payload at bit 4 + the id's VarULong; reliable: 16 bits later.
    let wrapped: Vec<(Vec<u8>, usize)> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let id_bits = 8 * ((64 - g.id().leading_zeros()).max(1) as usize).div_ceil(7);
            let mut um = riptide_2_1::ReliableUserMessage {
                sequence_id: i as u16,
                message_id: 0,
                payload: riptide_2_1::BitString::from_bytes(vec![]),
            };
            g.fill_reliable_user_message(&mut um).unwrap();
            let m = riptide_2_1::Message {
                body: riptide_2_1::MessageBody::Reliable(um),
            };
            (m.encode().unwrap(), 20 + id_bits)
        })
        .collect();
    let bytes: Vec<Vec<u8>> = wrapped.iter().map(|(b, _)| b.clone()).collect();
    let pcap = application_cross_check(
        ("riptide_2_1", "dissectors/riptide_2_1.lua"),
        ("arena", "dissectors/arena.lua"),
        7777,
        &bytes,
        |i, m| {
            (
                expected(&riptide_2_1::Message::dissect(m).1),
                expected(&arena::Message::dissect_at(games[i].id(), m, wrapped[i].1).1),
            )
        },
    );
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn dungeon_on_dnp() {
    let raws = Rng(0x510b).buffers(N, 300);
    let games = games!(dungeon::Message, raws);
    assert!(games.len() > N / 8, "{} values", games.len());
    let bytes: Vec<Vec<u8>> = games
        .iter()
        .map(|g| {
            let mut r = dnp::ReliableMessage {
                number: 1,
                data: std::borrow::Cow::Borrowed(&[]),
            };
            g.fill_reliable_message(&mut r).unwrap();
            dnp::Command {
                body: dnp::CommandBody::ReliableMessage(r),
            }
            .encode()
            .unwrap()
        })
        .collect();
    let pcap = application_cross_check(
        ("dnp", "dissectors/dnp.lua"),
        ("dungeon", "dissectors/dungeon.lua"),
        3413,
        &bytes,
        |_, m| {
            (
                expected(&dnp::Command::dissect(m).1),
                expected(&dungeon::Message::dissect_at(m, 3).1),
            )
        },
    );
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn lobby_on_riptide_2_0() {
    let raws = Rng(0x510c).buffers(N, 300);
    let games = games!(lobby::Message, raws);
    assert!(games.len() > N / 8, "{} values", games.len());
    let bytes: Vec<Vec<u8>> = games
        .iter()
        .map(|g| {
            let mut um = riptide_2_0::UserMessage {
                message_id: 0,
                payload: std::borrow::Cow::Borrowed(&[]),
            };
            g.fill_user_message(&mut um).unwrap();
            riptide_2_0::Message {
                body: riptide_2_0::MessageBody::Unreliable(um),
            }
            .encode()
            .unwrap()
        })
        .collect();
    let pcap = application_cross_check(
        ("riptide_2_0", "dissectors/riptide_2_0.lua"),
        ("lobby", "dissectors/lobby.lua"),
        7777,
        &bytes,
        |i, m| {
            (
                expected(&riptide_2_0::Message::dissect(m).1),
                expected(&lobby::Message::dissect_at(games[i].id(), m, 3).1),
            )
        },
    );
    let _ = std::fs::remove_file(pcap);
}

/// The verifier itself fails when the two outputs disagree: the R-Type dissector edited to read
/// the sequence number big-endian, and to raise a Lua error on one command.
#[test]
fn verify_catches_a_wrong_dissector() {
    let good = std::fs::read_to_string(repo_root().join("dissectors/rtype.lua")).unwrap();
    let dir = std::env::temp_dir().join(format!("wiregen-wrong-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let swapped = good.replacen(
        "tree:add_le(F[\"rtype.sequence\"], range)",
        "tree:add(F[\"rtype.sequence\"], range)",
        1,
    );
    assert_ne!(swapped, good, "the edit applies");
    let lua = dir.join("rtype.lua");
    std::fs::write(&lua, swapped).unwrap();
    let mut opts = wiregen_verify::Options::new(&lua);
    opts.messages = 200;
    opts.hostile = 0;
    opts.work_dir = Some(dir.clone());
    let report = wiregen_verify::verify::<rtype::Protocol>(&opts);
    assert!(!report.ok());
    assert!(
        report.disagreements[0].contains(" rtype.sequence: Rust decodes Int("),
        "{report}"
    );
    assert!(!report.captures.is_empty(), "the capture is kept: {report}");
    assert!(report.to_string().ends_with("FAILED\n"), "{report}");

    let failing = good.replacen(
        "tree:add_le(F[\"rtype.res_login.success\"], tvb(offset, 1))",
        "tree:add_le(F[\"rtype.res_login.success\"], tvb(offset, 1)); error(\"boom\")",
        1,
    );
    assert_ne!(failing, good, "the edit applies");
    std::fs::write(&lua, failing).unwrap();
    let report = wiregen_verify::verify::<rtype::Protocol>(&opts);
    assert!(!report.ok());
    assert!(report.errors.iter().any(|e| e.contains("boom")), "{report}");
    let _ = std::fs::remove_dir_all(dir);
}
