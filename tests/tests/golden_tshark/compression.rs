//! Compressed payloads (zlib, raw deflate, gzip) holding a struct: the crate decompresses,
//! decodes, encodes and compresses back, deriving the size field; the dissector shows the value
//! from a data source of its own, and both refuse data that does not decompress or would grow
//! past the schema's limit.

use super::*;
use wiregen_golden::compression::{Chat, Entity, Protocol, Update, World};
use wiregen_runtime::compress::{compress, decompress, Compression};
use wiregen_runtime::DecodeErrorKind;

fn update() -> Update<'static> {
    let entity = |id, x: f32, name: &'static str| Entity {
        id,
        x,
        name: name.into(),
    };
    Update {
        tick: 77,
        world: World {
            entities: vec![entity(1, 1.5, "ship"), entity(2, -2.0, "ship")],
        },
        chat: Chat {
            text: "gg gg gg gg gg gg".into(),
            blob: b"\x01\x02".as_slice().into(),
        },
        extra: Chat {
            text: "".into(),
            blob: vec![0xee; 64].into(),
        },
    }
}

#[test]
fn compressed_payloads_agree_between_crate_and_dissector() {
    let u = update();
    let bytes = u.encode().unwrap();
    assert_eq!(&bytes[..4], 77u32.to_le_bytes());
    let world_size = u16::from_le_bytes([bytes[4], bytes[5]]);
    let world_bytes = &bytes[6..6 + world_size as usize];
    // The world is a zlib stream (CMF 0x78) of its plain encoding: count 2, then the entities.
    assert_eq!(world_bytes[0], 0x78);
    let plain = decompress(Compression::Zlib, world_bytes, 1 << 20, "world", 6).unwrap();
    assert_eq!(
        plain,
        hex_bytes(concat!(
            "02", "0100", "0000c03f", "04", "73686970", "0200", "000000c0", "04", "73686970"
        ))
    );
    // The chat follows with its LEB128 size, raw deflate (no header) of text and blob.
    let chat_at = 6 + world_size as usize;
    let chat_size = bytes[chat_at] as usize;
    let chat = &bytes[chat_at + 1..chat_at + 1 + chat_size];
    assert_eq!(
        decompress(Compression::Deflate, chat, 4096, "chat", 0).unwrap(),
        [&[17, 0][..], b"gg gg gg gg gg gg", &[1, 2]].concat()
    );
    // The rest is gzip (1f 8b), to the end of the datagram.
    assert_eq!(bytes[chat_at + 1 + chat_size..][..2], [0x1f, 0x8b]);
    let back = Update::decode(&bytes).unwrap();
    assert_eq!(back, u);

    // Data that does not decompress, and data that grows past the chat's 4096 bytes.
    let mut garbage = bytes.clone();
    garbage[6..6 + world_size as usize].fill(0x33);
    let e = Update::decode(&garbage).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "world".into(),
            6,
            DecodeErrorKind::BadCompressed { method: "zlib" }
        )
    );
    let mut bomb = bytes[..chat_at].to_vec();
    let big = compress(
        Compression::Deflate,
        &[&[0x10, 0x27][..], &[b'a'; 10_000]].concat(),
    );
    assert!(big.len() < 0x80);
    bomb.push(big.len() as u8);
    bomb.extend_from_slice(&big);
    bomb.extend_from_slice(&compress(Compression::Gzip, &[0, 0]));
    let e = Update::decode(&bomb).unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        ("chat".into(), DecodeErrorKind::Inflated { max: 4096 })
    );
    // A fault inside the plain bytes names the field path and its offset there.
    let short = compress(Compression::Zlib, &hex_bytes("02010000"));
    let mut inner = 77u32.to_le_bytes().to_vec();
    inner.extend_from_slice(&(short.len() as u16).to_le_bytes());
    inner.extend_from_slice(&short);
    let e = Update::decode(&inner).unwrap_err();
    assert_eq!((e.field(), e.offset), ("world.entities.x".into(), 3));
    assert_eq!(e.decompressed_from, Some(6));
    assert!(
        e.to_string()
            .contains("(of the data decompressed from byte 6)"),
        "{e}"
    );

    let report =
        verify_protocol::<Protocol>(&["codegen/tests/golden/compression.lua"], &[], 0x9134);
    assert!(report.fields > 0, "{report}");

    let d_bytes = bytes.clone();
    let d = dissect_payloads("compression", 9134, &[bytes, garbage, bomb]);
    assert!(d.experts(0, "compression").is_empty());
    assert_eq!(
        value(&d, 0, "compression.world_size"),
        world_size.to_string()
    );
    assert_eq!(shown(&d, 0, "compression.entity.id"), ["1", "2"]);
    assert_eq!(shown(&d, 0, "compression.entity.name"), ["ship", "ship"]);
    assert_eq!(
        shown(&d, 0, "compression.chat.text"),
        ["gg gg gg gg gg gg", ""]
    );
    // The crate notes fields of decompressed bytes by their offset there, and which buffer.
    let (_, notes) = Update::dissect(&d_bytes);
    let at = |name: &str| {
        let n = notes
            .iter()
            .filter(|n| n.abbrev == name)
            .collect::<Vec<_>>();
        n.iter().map(|n| (n.source, n.offset)).collect::<Vec<_>>()
    };
    assert_eq!(at("compression.world_size"), [(0, 4)]);
    assert_eq!(at("compression.world.count"), [(1, 0)]);
    assert_eq!(at("compression.entity.id"), [(1, 1), (1, 12)]);
    assert_eq!(at("compression.chat.text"), [(2, 2), (3, 2)]);
    assert_eq!(
        d.malformed(1, "compression"),
        ["compression.expert.compressed"]
    );
    assert_eq!(
        d.malformed(2, "compression"),
        ["compression.expert.compressed"]
    );
}
