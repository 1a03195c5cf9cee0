//! Every golden snippet (`codegen/tests/golden/*.rs`, the generated `codec.rs` of one small
//! schema per construct), compiled as a module with warnings denied: `cargo test` and
//! `cargo clippy` then check the generator's output for every construct, not only for the
//! protocols this repository ships.

#![deny(warnings)]

include!(concat!(env!("OUT_DIR"), "/snippets.rs"));

/// Behaviour of snippets whose generated code once did not compile or named no field.
#[cfg(test)]
mod regressions {
    use super::positions::{Framed, Tail};

    /// A tag computed from a field and the direction (`@from_client ? command : command +
    /// 0x1000`) is solved for that field: the user writes the variant alone, whatever
    /// `command` holds, and a variant one side cannot send is refused.
    #[test]
    fn the_encoder_writes_the_command_a_variant_implies() {
        use super::enclosing::{Datagram, Hello, Init, Original, OriginalBody, Packet, PacketBody};
        let datagram = |body| Datagram {
            peer_id: 7,
            channel: 0,
            packet: Packet {
                body: PacketBody::Original(Original {
                    command: 0xBEEF,
                    body,
                }),
            },
        };
        let hello = datagram(OriginalBody::Hello(Hello {
            peer: 9,
            flags: None,
        }));
        // Header (7 bytes), kind ORIGINAL, then the command: 0x1002 from the client, 2 from the
        // server.
        assert_eq!(hello.encode_from(true).unwrap()[8..10], [0x10, 0x02]);
        assert_eq!(hello.encode_from(false).unwrap()[8..10], [0x00, 0x02]);
        let bytes = hello.encode_from(false).unwrap();
        let back = Datagram::decode_from(&bytes, false).unwrap();
        let PacketBody::Original(original) = &back.packet.body else {
            panic!("{back:?}")
        };
        assert_eq!(
            (original.command, &original.body),
            (
                2,
                &OriginalBody::Hello(Hello {
                    peer: 9,
                    flags: None
                })
            )
        );
        // Init (0x0001) is the client's: from the server it would need a command of 1 - 0x1000.
        let init = datagram(OriginalBody::Init(Init {
            version: 1,
            name: Cow::Borrowed("a"),
        }));
        assert_eq!(init.encode_from(true).unwrap()[8..10], [0x00, 0x01]);
        let e = init.encode_from(false).unwrap_err();
        assert_eq!(e.kind, EncodeErrorKind::TagOutsideCase { tag: 1 }, "{e}");
        // The default keeps the user's command (it is its tag).
        let other = datagram(OriginalBody::Other(Cow::Borrowed(&[5])));
        assert_eq!(other.encode_from(true).unwrap()[8..10], [0xBE, 0xEF]);
    }
    use std::borrow::Cow;
    use wiregen_runtime::{Codec, DecodeErrorKind, EncodeErrorKind};

    #[test]
    fn lengths_read_from_the_position_round_trip() {
        let framed = Framed {
            items: vec![1, 2],
            body: Cow::Borrowed(b"abc"),
            crc: 0x1234,
        };
        let bytes = framed.encode().unwrap();
        assert_eq!(bytes, [0x0e, 1, 2, b'a', b'b', b'c', 0x34, 0x12]);
        assert_eq!(Framed::decode(&bytes).unwrap(), framed);
        // `@remaining - 2` of an empty body: only the checksum follows the items.
        let empty = Framed::decode(&[0x0f, 9, 0x01, 0x00]).unwrap();
        assert_eq!(
            (empty.items, &*empty.body, empty.crc),
            (vec![9], &b""[..], 1)
        );
        // `16 - array_size` derives array_size (14 for 2 items): more than 16 items have none,
        // refused naming it.
        let wrong = Framed {
            items: vec![0; 17],
            ..framed
        };
        let e = wrong.encode().unwrap_err();
        assert_eq!(e.field(), "array_size");
        assert!(matches!(e.kind, EncodeErrorKind::TooSmall { value: -1 }));
    }

    #[test]
    fn presence_and_lengths_from_the_size() {
        let tail = Tail::decode(&[7, 0x01, 0x00, 9]).unwrap();
        assert_eq!(
            (tail.kind, tail.extra, &*tail.all_but_head),
            (7, Some(1), &[9u8][..])
        );
        assert_eq!(tail.encode().unwrap(), [7, 1, 0, 9]);
        // One byte: no room for `extra`, and `@size - 3` is negative.
        let e = Tail::decode(&[7]).unwrap_err();
        assert_eq!(e.field(), "all_but_head");
        assert_eq!(e.kind, DecodeErrorKind::BadLength { value: -2 });
    }

    #[test]
    fn trailing_bytes_are_after_the_message_not_a_nameless_field() {
        // The error names the type the bytes were read as: decoding with the wrong type, or a
        // longer message, reads as such.
        let e = super::lengths::Item::decode(&[0, 1, 2]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "after a whole Item, at byte 2: 1 unexpected trailing bytes \
             (a longer Item, or bytes of another type?)"
        );
        assert_eq!(e.ty, Some("Item"));
    }

    /// A range variant's tag must lie in its range: outside it the encoder refuses it (the
    /// snippet once had a case beyond its u8 tag, which generated `matches!(tag,)`; such a case
    /// is now a schema error).
    #[test]
    fn a_range_variant_with_a_tag_outside_its_range_is_refused() {
        use super::tag_ranges::{Pair, Tagged, TaggedBody};
        let low = Tagged {
            body: TaggedBody::Low {
                tag: 0x12,
                value: Pair { a: 7 },
            },
        };
        let bytes = low.encode().unwrap();
        assert_eq!(bytes, [0x12, 7]);
        assert_eq!(Tagged::decode(&bytes).unwrap(), low);
        let high = Tagged {
            body: TaggedBody::High {
                tag: 0x12,
                value: Pair { a: 7 },
            },
        };
        let e = high.encode().unwrap_err();
        assert_eq!(e.field(), "body");
        assert_eq!(e.kind, EncodeErrorKind::TagOutsideCase { tag: 0x12 });
        assert!(matches!(
            Tagged::decode(&[0xF3, 9]).unwrap().body,
            TaggedBody::High {
                tag: 0xF3,
                value: Pair { a: 9 }
            }
        ));
        // Tags outside the reachable case are the default's bytes.
        let other = Tagged::decode(&[0x20, 1, 2]).unwrap();
        assert!(matches!(other.body, TaggedBody::Other { tag: 0x20, .. }));
    }
}
