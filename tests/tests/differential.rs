//! Differential testing of the two outputs of every schema: thousands of random valid values
//! (the crates' `arbitrary` feature), encoded in Rust, dissected in one tshark run per schema,
//! every field compared with the Rust decoder. Values the encoder refuses are skipped (their
//! refusal is the encoder's job); what it accepts must decode and show identically.

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
