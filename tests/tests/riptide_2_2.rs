//! Riptide 2.2 (schema/riptide-2.2.yaml, extending 2.1): a vector per wire change of the library
//! between v2.1.2 and v2.2.1, built by hand from the C# that writes it (Connection.SendAck,
//! Server.Stop), read by the 2.2 crate and by its dissector in tshark, and what 2.1 makes of the
//! same bytes.

use riptide_2_2::*;
use wiregen_tests::*;

use wiregen_tests::hex_bytes as hex;

fn msg(body: MessageBody<'static>) -> Message<'static> {
    Message { body }
}

/// Each change's bytes, and what 2.2 reads in them.
fn vectors() -> Vec<(&'static str, Message<'static>)> {
    vec![
        // SendAck(forSeqId == lastReceivedSeqId = 1, bits 1): header 1 (bits 0-3), 1 (4-19),
        // 1 (20-35), AddBool(false) (36), nothing more: 37 bits, 5 bytes.
        (
            "11 00 10 00 00",
            msg(MessageBody::Ack(Ack {
                last_received_seq: 1,
                received_bits: 1,
                for_seq: None,
            })),
        ),
        // SendAck for an out-of-order seq 1 while the newest is 1 again: AddBool(true) (36),
        // AddUShort(1) (37-52): 53 bits, 7 bytes, as every 2.1 Ack.
        (
            "11 00 10 00 30 00 00",
            msg(MessageBody::Ack(Ack {
                last_received_seq: 1,
                received_bits: 1,
                for_seq: Some(1),
            })),
        ),
        // Server.Stop: Message.Create(Disconnect).AddByte(ServerStopped): header 5 (0-3),
        // reason 5 (4-11), 4 bits of padding.
        (
            "55 00",
            msg(MessageBody::Disconnect(Disconnect {
                form: DisconnectForm::Server(ServerDisconnect {
                    reason: DisconnectReason::ServerStopped,
                    custom: BitString::new(&[0], 4),
                }),
            })),
        ),
    ]
}

#[test]
fn each_change_decodes_and_re_encodes_byte_for_byte() {
    for (wire, m) in vectors() {
        let bytes = hex(wire);
        assert_eq!(
            Message::decode(&bytes).unwrap_or_else(|e| panic!("{wire}: {e}")),
            m,
            "{wire}"
        );
        assert_eq!(m.encode().unwrap(), bytes, "re-encoding {wire}");
    }
}

/// The encoder sets the flag from the value: an Ack with for_seq says so, one without does not.
#[test]
fn the_encoder_sets_has_for_seq() {
    let with = Ack {
        last_received_seq: 7,
        received_bits: 0,
        for_seq: Some(3),
    };
    let bytes = msg(MessageBody::Ack(with)).encode().unwrap();
    assert_eq!(bytes.len(), 7);
    assert_eq!(bytes[4] & 0x10, 0x10, "bit 36: has_for_seq");
    let without = Ack {
        last_received_seq: 7,
        received_bits: 0,
        for_seq: None,
    };
    assert_eq!(msg(MessageBody::Ack(without)).encode().unwrap().len(), 5);
}

/// What 2.1 makes of 2.2's bytes: the short Ack is cut short for it (it expects for_seq), the
/// long one reads alike; the stop reads as ServerStopped in both.
#[test]
fn a_2_1_reader_misreads_the_short_ack_only() {
    let short = hex("11 00 10 00 00");
    let e = riptide_2_1::Message::decode(&short).unwrap_err();
    assert!(e.to_string().contains("for_seq"), "{e}");
    let long = hex("11 00 10 00 30 00 00");
    let long = riptide_2_1::Message::decode(&long).unwrap();
    assert!(matches!(
        long.body,
        riptide_2_1::MessageBody::Ack(riptide_2_1::Ack {
            has_for_seq: true,
            for_seq: 1,
            ..
        })
    ));
    let stop = hex("55 00");
    let stop = riptide_2_1::Message::decode(&stop).unwrap();
    assert!(matches!(
        stop.body,
        riptide_2_1::MessageBody::Disconnect(riptide_2_1::Disconnect {
            form: riptide_2_1::DisconnectForm::Server(riptide_2_1::ServerDisconnect {
                reason: riptide_2_1::DisconnectReason::ServerStopped,
                ..
            })
        })
    ));
}

/// The vectors in tshark: every field the crate notes, none the crate does not (for_seq absent
/// from a short Ack), no expert info.
#[test]
fn the_dissector_reads_each_change_as_the_crate_does() {
    let messages: Vec<Vec<u8>> = vectors().iter().map(|(w, _)| hex(w)).collect();
    udp_cross_check(
        "riptide_2_2",
        "dissectors/riptide_2_2.lua",
        &[7777],
        &messages,
        |i, m| {
            let (decoded, notes) = Message::dissect(m);
            decoded.unwrap_or_else(|e| panic!("frame {i} {m:02x?}: {e}"));
            (expected(&notes), Vec::new())
        },
    );
}
