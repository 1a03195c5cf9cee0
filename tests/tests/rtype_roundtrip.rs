//! decode(encode(x)) == x over generated R-Type values, and decoding never panics on any bytes.

mod rtype_common;

use proptest::prelude::*;
use rtype::*;
use wiregen_tests::Rng;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn encode_then_decode_is_identity(seed in any::<u64>()) {
        let mut rng = Rng(seed | 1);
        let p = rtype_common::random_packet(&mut rng);
        let bytes = p.encode().expect("every generated packet fits");
        prop_assert_eq!(bytes.len(), 20 + u16::from_le_bytes([bytes[16], bytes[17]]) as usize);
        let back = Packet::decode(&bytes).expect("decodes what it encoded");
        prop_assert_eq!(&back, &p);
        // Every field the trace shows lies inside the message.
        let (ok, notes) = Packet::dissect(&bytes);
        prop_assert!(ok.is_ok());
        prop_assert!(notes.iter().all(|n| n.offset + n.len <= bytes.len()));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let _ = Packet::decode(&bytes);
        let _ = Packet::dissect(&bytes);
    }

    #[test]
    fn valid_headers_with_random_payloads_never_panic(command in any::<u8>(), payload in proptest::collection::vec(any::<u8>(), 0..60)) {
        // A correct header and checksum around arbitrary payload bytes reaches the payload layouts.
        let p = Packet {
            flags: PacketFlags::empty(), sequence: 0, ack: 0, fragment_id: 0, fragment_index: 0, fragment_count: 0,
            payload: PacketPayload::Other { command: Command::Unknown(0x7E), data: payload.into() },
        };
        let mut bytes = p.encode().unwrap();
        bytes[2] = command;
        let _ = Packet::decode(&bytes);
    }
}

#[test]
fn every_prefix_of_a_valid_packet_is_an_error_not_a_panic() {
    let mut rng = Rng(7);
    for _ in 0..50 {
        let bytes = rtype_common::random_packet(&mut rng).encode().unwrap();
        for n in 0..bytes.len() {
            let e = Packet::decode(&bytes[..n]).expect_err("a prefix is incomplete");
            assert!(e.offset <= n, "{e}");
        }
    }
}
