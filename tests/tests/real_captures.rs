//! The real captures (`tests/captures/`, traffic of the reference implementations themselves):
//! every frame dissects in tshark, in one pass and in two, with no Lua error, no malformed
//! packet, no frame left as data and no `<MISSING>` field; values the captures' README and
//! WIRE-NOTES give are shown. (The crates read the same captures in `wirecat/tests/captures.rs`.)

use std::path::PathBuf;
use wiregen_tests::{dissect, info_column, repo_root, Dissection};

fn capture(name: &str) -> PathBuf {
    repo_root().join("tests/captures").join(name)
}

/// Dissects `name` with `proto`'s dissector (plus `extra` tshark arguments), in one pass and in
/// two, checks every frame is clean and returns the two-pass dissection.
fn clean(name: &str, proto: &str, extra: &[&str]) -> Dissection {
    let lua = repo_root().join(format!("dissectors/{proto}.lua"));
    let mut last = None;
    for passes in [&[][..], &["-2"][..]] {
        let args: Vec<&str> = extra.iter().chain(passes).copied().collect();
        let d = dissect(&capture(name), &lua, &args);
        assert!(!d.frames.is_empty(), "{name}: no frames");
        for (i, frame) in d.frames.iter().enumerate() {
            let at = format!("{name} {passes:?} frame {}", i + 1);
            assert!(
                d.pdus[i].iter().any(|(p, _)| p == proto),
                "{at}: not dissected as {proto}"
            );
            for f in frame {
                assert!(!f.showname.contains("<MISSING>"), "{at}: {f:?}");
                assert!(f.name != "_ws.malformed" && f.name != "data", "{at}: {f:?}");
            }
            let malformed = d.malformed(i, proto);
            assert!(malformed.is_empty(), "{at}: {malformed:?}");
        }
        last = Some(d);
    }
    last.unwrap()
}

/// The label of the first field named `name` in frame `i` (1-based, as Wireshark numbers them).
fn shown<'d>(d: &'d Dissection, frame: usize, name: &str) -> Vec<&'d str> {
    d.frames[frame - 1]
        .iter()
        .filter(|f| f.name == name)
        .map(|f| f.showname.as_str())
        .collect()
}

/// Whether some field shows `label` (in a bit stream followed by the bits it spans).
fn any_shown(d: &Dissection, label: &str) -> bool {
    d.frames
        .iter()
        .flatten()
        .any(|f| f.showname == label || f.showname.starts_with(&format!("{label} [bit")))
}

#[test]
fn riptide_2_0_capture_dissects_cleanly() {
    let d = clean("riptide20-udp.pcap", "riptide_2_0", &[]);
    // Client B connects without custom data: an empty field, not a missing one.
    assert!(any_shown(&d, "Custom: <empty>"));
}

#[test]
fn riptide_2_1_capture_dissects_cleanly_showing_payloads_as_read() {
    let d = clean("riptide21-udp.pcap", "riptide_2_1", &[]);
    // Client A's connect data ('letmein', 1337, 0.25) as the application reads it, realigned
    // from bit 4, not the shifted bytes on the wire.
    assert_eq!(
        shown(&d, 1, "riptide_2_1.connect.custom"),
        ["Custom: 076c65746d65696e390500000000803e00 [132 bits from bit 4, realigned]"]
    );
    // Client B connects without data: the four bits after the header only pad the byte.
    assert_eq!(
        shown(&d, 11, "riptide_2_1.connect.custom"),
        ["Custom: <empty> [4 bits of padding]"]
    );
    // Arena's Chat 'gg wp': 48 bits and the 4 padding bits of the datagram.
    assert_eq!(
        shown(&d, 41, "riptide_2_1.reliable_user_message.payload"),
        ["Payload: 05676720777000 [52 bits from bit 28, realigned]"]
    );
}

#[test]
fn dnp_capture_dissects_cleanly_with_link_state_per_connection() {
    let d = clean("dnp.pcap", "dnp", &[]);
    // WIRE-NOTES §3: the client's Link Update of the read-write link the server announced
    // (frame 21: hp 77, pos (-3.5, 8)) is typed by the connection's state.
    assert_eq!(shown(&d, 21, "dnp.u_int8_value.value"), ["Value: 77"]);
    assert_eq!(shown(&d, 21, "dnp.vector2_f16_value.x"), ["X: -3.5"]);
    assert_eq!(shown(&d, 21, "dnp.vector2_f16_value.y"), ["Y: 8"]);
}

#[test]
fn game_protocol_capture_dissects_cleanly_and_names_unit_variants() {
    let d = clean("gameproto-start.pcap", "game_protocol", &[]);
    for label in [
        "Variant: Ping (0)",
        "Variant: Init (1)",
        "Variant: Pong (1)",
        "Variant: Snapshot (0)",
    ] {
        assert!(any_shown(&d, label), "{label} never shown");
    }
}

#[test]
fn rtype_game_build_capture_is_found_on_its_ports_and_typed() {
    // No Decode As: the game-build dissector claims 8080 and 9000 by itself.
    let d = clean("rtype.pcap", "rtype_impl", &[]);
    // Frame 8, RES_LOBBY_LIST: lobby 1 "Sector 7" on port 9000 (WIRE-NOTES §5).
    assert_eq!(
        shown(&d, 8, "rtype_impl.lobby_string.text"),
        ["Text: Sector 7"]
    );
    assert_eq!(shown(&d, 8, "rtype_impl.lobby_info.port"), ["Port: 9000"]);
    // Component data is typed by component_type.
    assert!(d
        .frames
        .iter()
        .flatten()
        .any(|f| f.name == "rtype_impl.transform.sx"));
    let info = info_column(&capture("rtype.pcap"), &["dissectors/rtype_impl.lua"], &[]);
    assert_eq!(info[2], "REQ_LOBBY_LIST seq=2 ack=1 [RELIABLE]");
    // No flag set: no empty brackets.
    assert_eq!(info[13], "HEARTBEAT seq=0 ack=7");
}

#[test]
fn with_both_rtype_dissectors_one_preference_chooses() {
    let pcap = capture("rtype.pcap");
    for order in [
        ["dissectors/rtype.lua", "dissectors/rtype_impl.lua"],
        ["dissectors/rtype_impl.lua", "dissectors/rtype.lua"],
    ] {
        let game = info_column(&pcap, &order, &[]);
        assert_eq!(
            game[2], "REQ_LOBBY_LIST seq=2 ack=1 [RELIABLE]",
            "{order:?}"
        );
        let rfc = info_column(&pcap, &order, &["-o", "rtype_impl.claim:FALSE"]);
        // The RFC names no 0x07: shown the way Wireshark shows the field.
        assert_eq!(rfc[2], "Unknown (0x07) seq=2 ack=1 [RELIABLE]", "{order:?}");
    }
}

/// The 2.1 capture's Arena-shaped messages with Arena's dissector loaded too: the Info column
/// names the game's message after the transport's summary (the transport no longer overwrites
/// it), in either load order; messages of ids Arena does not name keep the transport's.
#[test]
fn an_application_names_its_messages_in_the_info_column() {
    let pcap = capture("riptide21-udp.pcap");
    for order in [
        ["dissectors/riptide_2_1.lua", "dissectors/arena.lua"],
        ["dissectors/arena.lua", "dissectors/riptide_2_1.lua"],
    ] {
        let info = info_column(&pcap, &order, &[]);
        assert_eq!(
            info[38..42],
            [
                "Unreliable: PlayerMove 12.5,-3.25",
                "Reliable: PlayerMove 100,0",
                "Reliable: Chat 'gg wp'",
                "Reliable: Spawn"
            ],
            "{order:?}"
        );
        assert_eq!(info[36], "Unreliable", "{order:?}");
    }
}
