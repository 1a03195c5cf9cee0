//! Golden snippets cross-checked like the shipped protocols: values encoded by the snippet's
//! generated Rust, dissected by its generated Lua in tshark, field by field.

use std::borrow::Cow;
use std::path::PathBuf;
use wiregen_golden::checksum_params::{Framed, FramedBody, Inner};
use wiregen_runtime::{Codec, Crc};
use wiregen_tests::*;

fn snippet_lua(name: &str) -> PathBuf {
    repo_root().join(format!("codegen/tests/golden/{name}.lua"))
}

/// The value of the only field `name` of frame `i`.
fn value(d: &Dissection, i: usize, name: &str) -> String {
    let found: Vec<&Field> = d
        .fields(i, "checksum_params")
        .into_iter()
        .filter(|f| f.name == name)
        .collect();
    assert_eq!(found.len(), 1, "frame {i}: one {name}");
    found[0].show.clone()
}

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
