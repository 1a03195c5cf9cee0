//! Differential testing of the two outputs of every schema, with the machinery `wiregen verify`
//! gives every user: thousands of random valid values (the crates' `arbitrary` feature), encoded
//! in Rust, dissected in one tshark run per schema, every field compared with the Rust decoder,
//! then hostile datagrams. Values the encoder refuses are skipped (their refusal is the
//! encoder's job); what it accepts must decode and show identically. Applications are checked
//! inside their transports.

use wiregen_tests::*;

#[test]
fn rtype() {
    verify_protocol::<rtype::Protocol>(&["dissectors/rtype.lua"], &[], 0x5101);
}

#[test]
fn riptide_2_0() {
    verify_protocol::<riptide_2_0::Protocol>(&["dissectors/riptide_2_0.lua"], &[], 0x5102);
}

#[test]
fn riptide_2_1() {
    verify_protocol::<riptide_2_1::Protocol>(&["dissectors/riptide_2_1.lua"], &[], 0x5103);
}

#[test]
fn riptide_2_2() {
    verify_protocol::<riptide_2_2::Protocol>(&["dissectors/riptide_2_2.lua"], &[], 0x5109);
}

#[test]
fn dnp() {
    // Link Updates need the types of an earlier Link State (tested in dnp_session): every
    // message is alone in its conversation, so those are counted and not sent.
    let report = verify_protocol::<dnp::Protocol>(&["dissectors/dnp.lua"], &[], 0x5104);
    assert!(report.stateful > 0, "{report}");
}

#[test]
fn game_protocol() {
    // One conversation: the three opening datagrams, then the packets.
    let report =
        verify_protocol::<game_protocol::Protocol>(&["dissectors/game_protocol.lua"], &[], 0x5105);
    // Payloads cut into pieces, sent every way, joined alike, their types all reached.
    let [one, ordered, reordered, again, missing] = report.pieces;
    assert!(
        one + ordered + reordered + again + missing >= 50,
        "{report}"
    );
    assert!(
        ordered.min(reordered).min(again).min(missing) >= 10,
        "{report}"
    );
    assert!(report.joined >= ordered + reordered + again, "{report}");
}

#[test]
fn rtype_impl() {
    // The game build's dissector, chosen with Decode As on the RFC port.
    verify_protocol::<rtype_impl::Protocol>(
        &["dissectors/rtype_impl.lua"],
        &["-d", "udp.port==8080,rtype_impl"],
        0x5109,
    );
}

// Applications: a game message in a whole transport datagram, both dissectors loaded, the
// transport's fields and the game's compared.

#[test]
fn arena_on_riptide_2_1() {
    verify_protocol::<arena::Protocol>(
        &["dissectors/riptide_2_1.lua", "dissectors/arena.lua"],
        &[],
        0x510a,
    );
}

#[test]
fn dungeon_on_dnp() {
    // DNP carries no message id: Dungeon reads the payloads of the ports its preference names.
    verify_protocol::<dungeon::Protocol>(
        &["dissectors/dnp.lua", "dissectors/dungeon.lua"],
        &["-o", "dungeon.udp_ports:3413"],
        0x510b,
    );
}

#[test]
fn lobby_on_riptide_2_0() {
    // Two passes, as Wireshark's GUI and `tshark -2` dissect.
    verify_protocol::<lobby::Protocol>(
        &["dissectors/riptide_2_0.lua", "dissectors/lobby.lua"],
        &["-2"],
        0x510c,
    );
}

/// The verifier itself fails when the two outputs disagree: the R-Type dissector edited to read
/// the sequence number big-endian, and to raise a Lua error on one command.
#[test]
fn verify_catches_a_wrong_dissector() {
    let good = std::fs::read_to_string(repo_root().join("dissectors/rtype.lua")).unwrap();
    let dir = std::env::temp_dir().join(format!("wiregen-wrong-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let swapped = good.replacen(
        "tree_add_le(tree, F[\"rtype.sequence\"], range)",
        "tree_add(tree, F[\"rtype.sequence\"], range)",
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
        "tree_add_le(tree, F[\"rtype.res_login.success\"], tvb(offset, 1))",
        "tree_add_le(tree, F[\"rtype.res_login.success\"], tvb(offset, 1)); error(\"boom\")",
        1,
    );
    assert_ne!(failing, good, "the edit applies");
    std::fs::write(&lua, failing).unwrap();
    let report = wiregen_verify::verify::<rtype::Protocol>(&opts);
    assert!(!report.ok());
    assert!(report.errors.iter().any(|e| e.contains("boom")), "{report}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The verifier compares joins too: DNP's crate with a joiner that never completes a payload
/// (a wrapper whose `join` drops them all, as the crate's did for parts it did not find) is
/// caught on the frames where the dissector joins one.
#[test]
fn a_crate_whose_joins_differ_from_the_dissector_is_caught() {
    struct Dropping;
    impl wiregen_runtime::Protocol for Dropping {
        const NAME: &'static str = <dnp::Protocol as wiregen_runtime::Protocol>::NAME;
        const TITLE: &'static str = "DNP, joining nothing";
        type Root<'a> = <dnp::Protocol as wiregen_runtime::Protocol>::Root<'a>;
        type Conversation = <dnp::Protocol as wiregen_runtime::Protocol>::Conversation;
        type Datagram<'a> = <dnp::Protocol as wiregen_runtime::Protocol>::Datagram<'a>;
        const UDP_PORTS: &'static [u16] = <dnp::Protocol as wiregen_runtime::Protocol>::UDP_PORTS;
        type Joins = ();
        type Joined = std::convert::Infallible;
        fn decode_datagram<'a>(
            conversation: &mut Self::Conversation,
            from_client: bool,
            bytes: &'a [u8],
        ) -> Result<Self::Datagram<'a>, wiregen_runtime::DecodeError> {
            <dnp::Protocol as wiregen_runtime::Protocol>::decode_datagram(
                conversation,
                from_client,
                bytes,
            )
        }
        fn encode_datagram(
            from_client: bool,
            datagram: &Self::Datagram<'_>,
        ) -> Result<Vec<u8>, wiregen_runtime::EncodeError> {
            <dnp::Protocol as wiregen_runtime::Protocol>::encode_datagram(from_client, datagram)
        }
        fn each_type<V: wiregen_runtime::TypeVisitor>(visitor: &mut V) {
            <dnp::Protocol as wiregen_runtime::Protocol>::each_type(visitor)
        }
    }
    impl wiregen_runtime::ArbitraryProtocol for Dropping {
        fn arbitrary_message(
            u: &mut arbitrary::Unstructured<'_>,
            from_client: bool,
        ) -> arbitrary::Result<Result<Vec<u8>, wiregen_runtime::EncodeError>> {
            <dnp::Protocol as wiregen_runtime::ArbitraryProtocol>::arbitrary_message(u, from_client)
        }
        fn arbitrary_opening(
            u: &mut arbitrary::Unstructured<'_>,
        ) -> arbitrary::Result<Option<wiregen_runtime::Opening>> {
            <dnp::Protocol as wiregen_runtime::ArbitraryProtocol>::arbitrary_opening(u)
        }
    }
    tshark();
    let mut opts = wiregen_verify::Options::new(repo_root().join("dissectors/dnp.lua"));
    opts.seed = 0x5104;
    let report = wiregen_verify::verify::<Dropping>(&opts);
    assert!(!report.ok(), "{report}");
    let joins: Vec<&String> = report
        .disagreements
        .iter()
        .filter(|d| d.contains("the crate joins 0 payloads there, the dissector 1"))
        .collect();
    assert!(!joins.is_empty(), "{report}");
    // The real crate joins the same payloads as its dissector.
    let real = verify_protocol::<dnp::Protocol>(&["dissectors/dnp.lua"], &[], 0x5104);
    assert_eq!(real.joined, joins.len(), "{real}");
}

/// The verifier sends payloads cut into pieces as conversations do (in order, out of order, a
/// piece sent twice, one missing): a crate whose joiner puts pieces together in the order they
/// come and completes a payload at its last piece whatever is missing (the game protocol's
/// crate with such a `join`) is caught, where its dissector joins otherwise.
#[test]
fn a_joiner_that_takes_pieces_as_they_come_is_caught() {
    use game_protocol::{Datagram, Joined, Whole};
    use std::collections::HashMap;
    type Real = game_protocol::Protocol;
    struct AsTheyCome;
    impl wiregen_runtime::Protocol for AsTheyCome {
        const NAME: &'static str = <Real as wiregen_runtime::Protocol>::NAME;
        const TITLE: &'static str = "Game protocol, joined as the pieces come";
        type Root<'a> = <Real as wiregen_runtime::Protocol>::Root<'a>;
        type Conversation = <Real as wiregen_runtime::Protocol>::Conversation;
        type Datagram<'a> = <Real as wiregen_runtime::Protocol>::Datagram<'a>;
        const UDP_PORTS: &'static [u16] = <Real as wiregen_runtime::Protocol>::UDP_PORTS;
        /// The bytes so far per direction and sequence number.
        type Joins = HashMap<(bool, u16), Vec<u8>>;
        type Joined = Joined;
        fn decode_datagram<'a>(
            conversation: &mut Self::Conversation,
            from_client: bool,
            bytes: &'a [u8],
        ) -> Result<Self::Datagram<'a>, wiregen_runtime::DecodeError> {
            <Real as wiregen_runtime::Protocol>::decode_datagram(conversation, from_client, bytes)
        }
        fn join(
            _: &mut Self::Conversation,
            joins: &mut Self::Joins,
            from_client: bool,
            datagram: &Self::Datagram<'_>,
            tag: u64,
        ) -> Result<Vec<wiregen_runtime::Tagged<Joined>>, wiregen_runtime::DecodeError> {
            let Datagram::Packet(packet) = datagram else {
                return Ok(Vec::new());
            };
            let Some(piece) = packet.piece().filter(|_| packet.is_piece()) else {
                return Ok(Vec::new());
            };
            let key = (from_client, packet.sequence);
            joins.entry(key).or_default().extend_from_slice(piece);
            if !packet.is_last_piece() {
                return Ok(Vec::new());
            }
            let data = joins.remove(&key).unwrap_or_default();
            Ok(vec![(
                Joined::Whole(Whole { from_client, data }),
                vec![tag],
            )])
        }
        fn joined_notes(
            joined: &Joined,
        ) -> (
            Result<(), wiregen_runtime::DecodeError>,
            Vec<wiregen_runtime::FieldNote<'_>>,
        ) {
            <Real as wiregen_runtime::Protocol>::joined_notes(joined)
        }
        fn encode_datagram(
            from_client: bool,
            datagram: &Self::Datagram<'_>,
        ) -> Result<Vec<u8>, wiregen_runtime::EncodeError> {
            <Real as wiregen_runtime::Protocol>::encode_datagram(from_client, datagram)
        }
        fn each_type<V: wiregen_runtime::TypeVisitor>(visitor: &mut V) {
            <Real as wiregen_runtime::Protocol>::each_type(visitor)
        }
    }
    impl wiregen_runtime::ArbitraryProtocol for AsTheyCome {
        fn arbitrary_message(
            u: &mut arbitrary::Unstructured<'_>,
            from_client: bool,
        ) -> arbitrary::Result<Result<Vec<u8>, wiregen_runtime::EncodeError>> {
            <Real as wiregen_runtime::ArbitraryProtocol>::arbitrary_message(u, from_client)
        }
        fn arbitrary_opening(
            u: &mut arbitrary::Unstructured<'_>,
        ) -> arbitrary::Result<Option<wiregen_runtime::Opening>> {
            <Real as wiregen_runtime::ArbitraryProtocol>::arbitrary_opening(u)
        }
        fn arbitrary_pieces(
            u: &mut arbitrary::Unstructured<'_>,
            from_client: bool,
        ) -> arbitrary::Result<Result<Vec<Vec<u8>>, wiregen_runtime::EncodeError>> {
            <Real as wiregen_runtime::ArbitraryProtocol>::arbitrary_pieces(u, from_client)
        }
    }
    tshark();
    let mut opts = wiregen_verify::Options::new(repo_root().join("dissectors/game_protocol.lua"));
    opts.seed = 0x5105;
    opts.messages = 400;
    let report = wiregen_verify::verify::<AsTheyCome>(&opts);
    assert!(!report.ok(), "{report}");
    for how in ["a piece missing", "out of order", "a piece sent twice"] {
        assert!(
            report.disagreements.iter().any(|d| d.contains(how)),
            "nothing caught {how}:\n{report}"
        );
    }
}
