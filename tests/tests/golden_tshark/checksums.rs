//! Checksums: the CRC catalogue, parameterised CRCs and checksum families over ranges.

use super::*;

#[test]
fn catalogue_and_parameterised_crcs_agree_between_crate_and_dissector() {
    // The parameters the schema gives are CRC-16/DNP's: its catalogue check value.
    let dnp = Crc::new(16, 0x3d65, 0, true, true, 0xffff);
    assert_eq!(dnp.checksum(&[b"123456789"]), 0xEA82);

    let messages = [
        Framed {
            body: FramedBody::Inner(Inner { value: 0xBEEF }),
        },
        Framed {
            body: FramedBody::Inner(Inner { value: 0 }),
        },
        Framed {
            body: FramedBody::Other {
                kind: 7,
                data: Cow::Borrowed(b"opaque"),
            },
        },
    ];
    let mut datagrams: Vec<Datagram> = messages
        .iter()
        .map(|m| Datagram {
            src_port: 40000,
            dst_port: 9117,
            payload: m.encode().unwrap(),
        })
        .collect();
    // The inner CRC is computed over the inner struct with its own bytes zeroed.
    let inner = &datagrams[0].payload[5..];
    assert_eq!(
        u16::from_le_bytes([inner[2], inner[3]]) as u64,
        dnp.checksum(&[&inner[..2], &[0, 0]])
    );
    // A corrupted copy of the first: both CRCs fail in the dissector, the decoder refuses it.
    let mut bad = datagrams[0].payload.clone();
    bad[5] ^= 0x01;
    assert!(Framed::decode(&bad).is_err());
    datagrams.push(Datagram {
        src_port: 40000,
        dst_port: 9117,
        payload: bad,
    });

    let dir = std::env::temp_dir().join(format!("wiregen-golden-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("checksum_params.pcap");
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &snippet_lua("checksum_params"), &[]);
    for (i, dg) in datagrams.iter().enumerate().take(3) {
        let crc = u32::from_le_bytes(dg.payload[1..5].try_into().unwrap());
        assert_eq!(
            value(&d, i, "checksum_params.crc"),
            format!("0x{crc:08x}"),
            "frame {i}"
        );
        assert_eq!(
            value(&d, i, "checksum_params.crc.status"),
            "1",
            "frame {i}: crc32c"
        );
        assert!(d.experts(i, "checksum_params").is_empty(), "frame {i}");
    }
    for i in 0..2 {
        assert_eq!(
            value(&d, i, "checksum_params.inner.check.status"),
            "1",
            "frame {i}: CRC-16/DNP"
        );
    }
    assert_eq!(value(&d, 3, "checksum_params.crc.status"), "0");
    assert_eq!(value(&d, 3, "checksum_params.inner.check.status"), "0");
    assert!(d
        .experts(3, "checksum_params")
        .contains(&"checksum_params.expert.bad_checksum"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Sums, XOR, the Internet checksum, Adler-32 and Fletcher over ranges of fields: the bytes
/// the crate writes are those computed independently (Python's zlib and RFC 1071 by hand), the
/// dissector agrees on every field of thousands of arbitrary frames, and a corrupted byte is
/// refused by the decoder naming the checksum and marked by the dissector.
#[test]
fn checksum_family_over_ranges_agrees_between_crate_and_dissector() {
    use wiregen_golden::checksum_family::{Frame, FrameBody, Protocol, Sums, Words};
    let sums = Frame {
        body: FrameBody::Sums(Sums {
            a: 0x0102,
            text: "hi".into(),
        }),
    };
    // kind 1, sum8 of kind..length 0x0d, length 12, internet 0x1193 of the body; the body's
    // sum16 0x01ac (over its own sum32 and xor8), sum32 0xd6, xor8 0; adler32 of all before it.
    let expected = hex_bytes("010d000c1193010202686901ac000000d60016fb0318");
    assert_eq!(sums.encode().unwrap(), expected);
    assert_eq!(Frame::decode(&expected).unwrap(), sums);
    let words = Frame {
        body: FrameBody::Words(Words {
            values: vec![0x1234, 0xABCD, 0x0001],
        }),
    };
    // Fletcher-16 0x9fc3 (stored little-endian), Fletcher-32 0x4b45be05 of the values.
    let expected = hex_bytes("020f000d0f75031234abcd0001c39f4b45be0525ac051a");
    assert_eq!(words.encode().unwrap(), expected);
    assert_eq!(Frame::decode(&expected).unwrap(), words);

    // Each checksum refuses a change in what it covers, naming itself.
    let bad = |i: usize| {
        let mut b = hex_bytes("010d000c1193010202686901ac000000d60016fb0318");
        b[i] ^= 0x40;
        Frame::decode(&b).unwrap_err().to_string()
    };
    assert!(bad(21).contains("'adler'"), "{}", bad(21));
    assert!(bad(4).contains("'body_check'"), "{}", bad(4));
    assert!(bad(9).contains("'body.total'"), "{}", bad(9));
    assert!(bad(13).contains("'body.total'"), "{}", bad(13));

    let report =
        verify_protocol::<Protocol>(&["codegen/tests/golden/checksum_family.lua"], &[], 0x5130);
    assert!(report.fields > 10_000, "{report}");

    // The dissector: right checksums correct; a corrupted text byte wrong for sum32, xor8,
    // sum16, internet and adler32, while sum8 of the header stays correct.
    let mut corrupt = sums.encode().unwrap();
    corrupt[10] ^= 0x01;
    let datagrams: Vec<Datagram> = [sums.encode().unwrap(), words.encode().unwrap(), corrupt]
        .into_iter()
        .map(|payload| Datagram {
            src_port: 40000,
            dst_port: 9118,
            payload,
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("wiregen-golden-family-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("checksum_family.pcap");
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &snippet_lua("checksum_family"), &[]);
    let status = |i: usize, name: &str| value(&d, i, &format!("checksum_family.{name}.status"));
    for name in [
        "header_sum",
        "body_check",
        "adler",
        "sums.total",
        "sums.wide",
        "sums.parity",
    ] {
        assert_eq!(status(0, name), "1", "{name}");
        let bad = if name == "header_sum" { "1" } else { "0" };
        assert_eq!(status(2, name), bad, "corrupted: {name}");
    }
    for name in ["words.short", "words.long"] {
        assert_eq!(status(1, name), "1", "{name}");
    }
    assert!(d.experts(0, "checksum_family").is_empty());
    assert!(d
        .experts(2, "checksum_family")
        .contains(&"checksum_family.expert.bad_checksum"));
    let _ = std::fs::remove_dir_all(dir);
}
