//! Differential testing of the two outputs of every schema: thousands of random valid values
//! (the crates' `arbitrary` feature), encoded in Rust, dissected in one tshark run per schema,
//! every field compared with the Rust decoder. Values the encoder refuses are skipped (their
//! refusal is the encoder's job); what it accepts must decode and show identically.

use wiregen_runtime::Codec;
use wiregen_tests::*;

const N: usize = 2000;

#[test]
fn rtype() {
    let messages = arbitrary_messages!(rtype::Packet, 0x5101, N);
    assert!(messages.len() > N / 2, "{} values", messages.len());
    differential_check(
        "rtype",
        "dissectors/rtype.lua",
        8080,
        &[],
        false,
        &messages,
        |m| expected!(rtype, rtype::Packet::dissect(m).1),
    );
}

#[test]
fn riptide_2_0() {
    let messages = arbitrary_messages!(riptide_2_0::Message, 0x5102, N);
    assert!(messages.len() > N / 2, "{} values", messages.len());
    differential_check(
        "riptide_2_0",
        "dissectors/riptide_2_0.lua",
        7777,
        &[],
        false,
        &messages,
        |m| expected!(riptide_2_0, riptide_2_0::Message::dissect(m).1),
    );
}

#[test]
fn riptide_2_1() {
    let messages = arbitrary_messages!(riptide_2_1::Message, 0x5103, N);
    assert!(messages.len() > N / 2, "{} values", messages.len());
    differential_check(
        "riptide_2_1",
        "dissectors/riptide_2_1.lua",
        7777,
        &[],
        false,
        &messages,
        |m| expected!(riptide_2_1, riptide_2_1::Message::dissect(m).1),
    );
}

#[test]
fn dnp() {
    // Link Updates need the types of an earlier Link State (tested in dnp_session): here every
    // message is alone in its conversation, so only what decodes without state is kept.
    let messages: Vec<Vec<u8>> = arbitrary_messages!(dnp::Command, 0x5104, N)
        .into_iter()
        .filter(|m| dnp::Command::decode(m).is_ok())
        .collect();
    assert!(messages.len() > N / 2, "{} values", messages.len());
    differential_check(
        "dnp",
        "dissectors/dnp.lua",
        3413,
        &[],
        false,
        &messages,
        |m| expected!(dnp, dnp::Command::dissect(m).1),
    );
}

#[test]
fn game_protocol() {
    // One conversation: the three opening datagrams, then the packets.
    let take = |mut v: Vec<Vec<u8>>| v.remove(0);
    let opening = vec![
        (
            false,
            take(arbitrary_messages!(game_protocol::Init, 0x5105, 1)),
        ),
        (
            true,
            take(arbitrary_messages!(game_protocol::Challenge, 0x5106, 1)),
        ),
        (
            false,
            take(arbitrary_messages!(
                game_protocol::ChallengeResponse,
                0x5107,
                1
            )),
        ),
    ];
    let messages = arbitrary_messages!(game_protocol::Packet, 0x5108, N);
    assert!(messages.len() > N / 2, "{} values", messages.len());
    differential_check(
        "game_protocol",
        "dissectors/game_protocol.lua",
        8999,
        &opening,
        true,
        &messages,
        |m| expected!(game_protocol, game_protocol::Packet::dissect(m).1),
    );
}

#[test]
fn rtype_impl() {
    // The game build's dissector, chosen with Decode As on the RFC port.
    let messages = arbitrary_messages!(rtype_impl::Packet, 0x5109, N);
    assert!(messages.len() > N / 2, "{} values", messages.len());
    differential_check_with(
        "rtype_impl",
        "dissectors/rtype_impl.lua",
        &["-d", "udp.port==8080,rtype_impl"],
        8080,
        &[],
        false,
        &messages,
        |m| expected!(rtype_impl, rtype_impl::Packet::dissect(m).1),
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
                expected!(riptide_2_1, riptide_2_1::Message::dissect(m).1),
                expected!(
                    arena,
                    arena::Message::dissect_at(games[i].id(), m, wrapped[i].1).1
                ),
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
                expected!(dnp, dnp::Command::dissect(m).1),
                expected!(dungeon, dungeon::Message::dissect_at(m, 3).1),
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
                expected!(riptide_2_0, riptide_2_0::Message::dissect(m).1),
                expected!(lobby, lobby::Message::dissect_at(games[i].id(), m, 3).1),
            )
        },
    );
    let _ = std::fs::remove_file(pcap);
}
