//! The `Protocol` trait drives any generated protocol generically: a conversation reads its
//! datagrams with `decode_datagram`, keeping what later ones need (DNP: the link types the
//! connection's Link States announced, whichever side sent them; Game Protocol: the handshake by
//! order; R-Type: nothing).

use wiregen_runtime::{Codec, Protocol};
use wiregen_tests::hex_bytes as hex;

/// Decodes a conversation's datagrams in order with any protocol; `Err` texts for the failures.
fn conversation<P: Protocol>(datagrams: &[(bool, Vec<u8>)]) -> Vec<Result<(), String>>
where
    for<'a> P::Datagram<'a>: std::fmt::Debug,
{
    let mut conv = P::Conversation::default();
    datagrams
        .iter()
        .map(|(from_client, bytes)| {
            P::decode_datagram(&mut conv, *from_client, bytes)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .collect()
}

#[test]
fn dnp_link_updates_are_typed_by_the_connections_link_state() {
    use dnp::*;
    // Link 5's state (SInt16 value -3), then a Link Update of link 5 index 0 to 7.
    let state = Command {
        body: CommandBody::LinkState(LinkState {
            number: 0,
            link_id: 5,
            flags: LinkFlags::READ_ONLY,
            message: b"state"[..].into(),
            values: vec![TypedValue {
                value: TypedValueValue::SInt16(SInt16Value { value: -3 }),
            }],
        }),
    }
    .encode()
    .unwrap();
    let update = hex("09 01 05 00 01 00 00 07 00");
    let other = hex("09 01 06 00 01 00 00 07 00");
    let results = conversation::<dnp::Protocol>(&[
        (true, update.clone()),
        (false, state),
        (false, update.clone()),
        // The server announced link 5; the client's update of it (a read-write link, WIRE-NOTES
        // §3) is typed by that list too.
        (true, update),
        // Nobody announced link 6.
        (true, other),
    ]);
    assert_eq!(
        results[0].as_ref().unwrap_err(),
        "field 'body.links.values' at byte 5: nothing announced earlier in the conversation for 5"
    );
    assert_eq!(results[1], Ok(()));
    assert_eq!(results[2], Ok(()));
    assert_eq!(results[3], Ok(()));
    assert_eq!(
        results[4].as_ref().unwrap_err(),
        "field 'body.links.values' at byte 5: nothing announced earlier in the conversation for 6"
    );
}

#[test]
fn game_protocol_openings_then_packets() {
    use game_protocol::*;
    let mut conv = <game_protocol::Protocol as wiregen_runtime::Protocol>::Conversation::default();
    let init = hex("00 00 ab cd"); // WIRE-NOTES: Init { salt: 0xABCD }
    let first = <game_protocol::Protocol as wiregen_runtime::Protocol>::decode_datagram(
        &mut conv, true, &init,
    )
    .unwrap();
    assert_eq!(first, Datagram::Init(Init { salt: 0xABCD }));
    // The client's second datagram is its challenge response, the third a packet.
    let second = <game_protocol::Protocol as wiregen_runtime::Protocol>::decode_datagram(
        &mut conv, true, &init,
    )
    .unwrap();
    assert_eq!(
        second,
        Datagram::ChallengeResponse(ChallengeResponse { seasoning: 0xABCD })
    );
    let later = <game_protocol::Protocol as wiregen_runtime::Protocol>::decode_datagram(
        &mut conv, true, &init,
    )
    .unwrap();
    assert!(matches!(later, Datagram::Packet(_)), "{later:?}");
}

#[test]
fn rtype_is_stateless_and_names_its_root() {
    // The WIRE-NOTES R-Type login vector, twice: nothing is kept between datagrams.
    let login = hex("ced101010100000000000000000000000e002ee907506c6179657231010000 00ec03");
    let results = conversation::<rtype::Protocol>(&[(true, login.clone()), (true, login)]);
    assert_eq!(results, vec![Ok(()), Ok(())]);
    assert_eq!(<rtype::Protocol as Protocol>::NAME, "rtype");
    assert_eq!(
        <<rtype::Protocol as Protocol>::Root<'static> as Codec<'static>>::NAME,
        "Packet"
    );
}
