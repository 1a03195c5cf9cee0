//! The constructs ENet needs (`codegen/tests/golden/enet_constructs.yaml`): a hand-derived
//! datagram, then random and hostile ones through the dissector.

use wiregen_golden::enet_constructs::{Command, Packet, PacketBody, Protocol};
use wiregen_runtime::Codec;
use wiregen_tests::*;

#[test]
fn enet_constructs_agree_between_crate_and_dissector() {
    let packet = Packet {
        peer_id: 0xFFF,
        session: 2,
        compressed: false,
        stamp: 0x1234_5678_9ABC,
        sent_time: Some(5),
        body: PacketBody::Commands(vec![
            // wide: the count is n * 2; n is neither above 4 nor 0: no extra.
            Command {
                channel_id: 1,
                wide: true,
                n: 2,
                items: vec![0x0102, 0x0304, 0x0506, 0x0708],
                extra: None,
            },
            // n == 0: no items, and the extra byte.
            Command {
                channel_id: 2,
                wide: false,
                n: 0,
                items: vec![],
                extra: Some(0xEE),
            },
        ]),
    };
    // The 64-bit group, first field lowest: peer 0xFFF, session 2 << 12, has_time 1 << 15
    // (derived from sent_time), the stamp from bit 16; then sent_time, reliable (derived from
    // the case), the commands to the end.
    let expected = hex_bytes(
        "123456789abcafff 0005 01 \
         01 01 02 0102 0304 0506 0708 \
         02 00 00 ee",
    );
    assert_eq!(packet.encode().unwrap(), expected);
    assert_eq!(Packet::decode(&expected).unwrap(), packet);
    // A count that disagrees with '?:' is refused.
    let mut wrong = packet.clone();
    if let PacketBody::Commands(c) = &mut wrong.body {
        c[0].items.pop();
    }
    assert!(wrong.encode().is_err());

    verify_protocol::<Protocol>(&["codegen/tests/golden/enet_constructs.lua"], &[], 0x9140);
}
