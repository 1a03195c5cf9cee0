//! The cross-check: messages encoded by the generated crate are written to a pcap, dissected by
//! the generated Lua in real tshark, and every field tshark shows is compared with the field the
//! Rust decoder reports (name, offset, length, value).

mod rtype_common;

use rtype::*;
use wiregen_tests::*;

fn vectors() -> Vec<Vec<u8>> {
    [
        "ced101010100000000000000000000000e002ee907506c617965723101000000ec03",
        "ced10201070000000100000000000000070097f5012a000000ec03",
        "ced1030102000000070000000000000004005b5aefbeadde",
        "ced110006400000063000000000000000100baa711",
        "ced111000500000000000000000000001200d40a010000006400c80003ffffffffffff0000ff",
        "ced111000600000000000000000000000000b75e",
        "ced1ff0402000000010000000000000000004c86",
        "ced104010300000002000000000000000300eb55616263",
        "ced12001090000000800000000000000040080e501020304",
        "ced17e0bffffffff00000080000000000200867500ff",
        "ced121030a00000009000000341202050400f22c66726167",
    ]
    .iter()
    .map(|h| {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    })
    .collect()
}

fn dissector() -> std::path::PathBuf {
    repo_root().join("dissectors/rtype.lua")
}

/// `payloads` as datagrams to port 8080, written to a capture and dissected; and the capture.
fn dissect_on_8080(name: &str, payloads: &[Vec<u8>]) -> (Dissection, std::path::PathBuf) {
    let pcap = temp_pcap(name);
    let datagrams: Vec<Datagram> = payloads
        .iter()
        .map(|p| Datagram {
            src_port: 40000,
            dst_port: 8080,
            payload: p.clone(),
        })
        .collect();
    write_pcap(&pcap, &datagrams);
    (dissect(&pcap, &dissector(), &[]), pcap)
}

fn temp_pcap(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("wiregen-{name}-{}.pcap", std::process::id()))
}

#[test]
fn every_field_agrees_between_rust_and_tshark() {
    let mut messages = vectors();
    let mut rng = Rng(0x5eed);
    for _ in 0..300 {
        messages.push(rtype_common::random_packet(&mut rng).encode().unwrap());
    }
    // Port 8080 is registered; 9000 and up are found by the heuristic.
    let datagrams: Vec<Datagram> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| Datagram {
            src_port: 40000 + i as u16,
            dst_port: if i % 3 == 0 {
                9000 + (i % 50) as u16
            } else {
                8080
            },
            payload: m.clone(),
        })
        .collect();
    let pcap = temp_pcap("rtype-agree");
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &dissector(), &[]);
    assert_eq!(d.frames.len(), messages.len());
    for (i, m) in messages.iter().enumerate() {
        let (decoded, notes) = Packet::dissect(m);
        let decoded = decoded.unwrap_or_else(|e| panic!("frame {i}: {e}"));
        let expected = expected(&notes);
        // 11 header fields, 4 flag bits and the checksum status.
        assert!(
            expected.len() >= 16 - 1,
            "frame {i}: the header alone has 15 fields"
        );
        compare(&expected, &d.fields(i, "rtype"), HEADERS)
            .unwrap_or_else(|e| panic!("frame {i} ({} bytes): {e}", m.len()));
        // An unknown command is kept and shown, with a note; a fragment whose index is not below
        // its count is flagged; anything else is clean.
        let mut want = Vec::new();
        if matches!(decoded.payload.command(), Command::Unknown(_)) {
            want.push("rtype.expert.unknown_value");
        }
        if decoded.flags.contains(PacketFlags::IS_FRAGMENT)
            && decoded.fragment_index >= decoded.fragment_count
        {
            want.push("rtype.expert.reassembly");
        }
        assert_eq!(d.experts(i, "rtype"), want, "frame {i}");
    }
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn problems_become_expert_info_never_lua_errors() {
    let good = vectors();
    let login = good[0].clone();
    let mut cases: Vec<(Vec<u8>, &str)> = Vec::new();

    let mut bad_crc = login.clone();
    bad_crc[25] ^= 0x20;
    cases.push((bad_crc, "rtype.expert.bad_checksum"));
    let mut bad_magic = good[6].clone();
    bad_magic[1] = 0xD2;
    cases.push((bad_magic, "rtype.expert.bad_const"));
    cases.push((login[..30].to_vec(), "rtype.expert.length_mismatch"));
    cases.push((login[..10].to_vec(), "rtype.expert.truncated"));
    let mut long = login.clone();
    long.push(0);
    cases.push((long, "rtype.expert.trailing"));
    let mut too_long_name = login.clone();
    too_long_name[20] = 40; // username_len above 32 (and past the payload)
    cases.push((too_long_name, "rtype.expert.too_large"));

    let payloads: Vec<Vec<u8>> = cases.iter().map(|(p, _)| p.clone()).collect();
    let (d, pcap) = dissect_on_8080("rtype-experts", &payloads);
    for (i, (bytes, expert)) in cases.iter().enumerate() {
        let experts = d.experts(i, "rtype");
        assert!(
            experts.contains(expert),
            "frame {i}: expected {expert}, got {experts:?}"
        );
        assert!(
            !experts.contains(&"rtype.expert.internal"),
            "frame {i}: the dissector failed"
        );
        assert!(
            Packet::decode(bytes).is_err(),
            "frame {i}: Rust must reject it too"
        );
    }
    // The corrupted checksum is shown as such.
    let status = d.frames[0]
        .iter()
        .find(|f| f.name == "rtype.checksum.status")
        .expect("checksum status");
    assert_eq!(status.show, "0");
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn random_and_truncated_datagrams_never_raise_lua_errors() {
    let mut rng = Rng(0xbad);
    let mut datagrams = Vec::new();
    for i in 0..400u16 {
        let n = rng.below(80) as usize;
        let mut payload = rng.bytes(n);
        if i % 2 == 0 && n >= 2 {
            payload[0] = 0xCE;
            payload[1] = 0xD1;
        }
        datagrams.push(Datagram {
            src_port: 40000,
            dst_port: 8080,
            payload,
        });
    }
    for v in vectors() {
        for n in 0..v.len() {
            datagrams.push(Datagram {
                src_port: 40001,
                dst_port: 8080,
                payload: v[..n].to_vec(),
            });
        }
    }
    let pcap = temp_pcap("rtype-fuzz");
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &dissector(), &[]);
    for (i, dg) in datagrams.iter().enumerate() {
        let experts = d.experts(i, "rtype");
        assert!(
            !experts.contains(&"rtype.expert.internal"),
            "frame {i} {:02x?}: dissector error",
            dg.payload
        );
        // Whatever Rust accepts, tshark shows identically.
        let (decoded, notes) = Packet::dissect(&dg.payload);
        if decoded.is_ok() {
            compare(&expected(&notes), &d.fields(i, "rtype"), HEADERS)
                .unwrap_or_else(|e| panic!("frame {i}: {e}"));
        } else {
            assert!(
                !experts.is_empty() || dg.payload.is_empty(),
                "frame {i} {:02x?}: Rust rejects it, tshark says nothing",
                dg.payload
            );
        }
    }
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn the_heuristic_claims_rtype_and_nothing_else() {
    let good = vectors();
    let mut rng = Rng(3);
    let mut datagrams: Vec<Datagram> = good
        .iter()
        .map(|g| Datagram {
            src_port: 50000,
            dst_port: 9100,
            payload: g.clone(),
        })
        .collect();
    let n_good = datagrams.len();
    for _ in 0..100 {
        let n = 20 + rng.below(40) as usize;
        datagrams.push(Datagram {
            src_port: 50000,
            dst_port: 9200,
            payload: rng.bytes(n),
        });
    }
    // Right magic, wrong payload_size: not R-Type.
    let mut wrong_size = good[0].clone();
    wrong_size[16] = 99;
    datagrams.push(Datagram {
        src_port: 50000,
        dst_port: 9300,
        payload: wrong_size,
    });
    let pcap = temp_pcap("rtype-heuristic");
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &dissector(), &[]);
    for i in 0..datagrams.len() {
        let claimed = d.frames[i].iter().any(|f| f.name == "rtype.magic");
        assert_eq!(claimed, i < n_good, "frame {i}");
    }
    let _ = std::fs::remove_file(pcap);
}

/// IS_ACK and the ACK command say the same thing (the schema's `set_when`): a packet where they
/// disagree decodes as it is, and the dissector says so.
#[test]
fn an_is_ack_flag_that_disagrees_with_the_command_is_a_warning() {
    let packet = |command: u8, flags: u8, payload: &[u8]| {
        let mut b = vec![
            0xce, 0xd1, command, flags, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
        ];
        b.extend((payload.len() as u16).to_le_bytes());
        b.extend([0, 0]);
        b.extend(payload);
        let crc = crc16_ccitt_false(&b);
        b[18..20].copy_from_slice(&crc.to_le_bytes());
        b
    };
    let cases = [
        (packet(0xFF, 0x04, &[]), false),
        (packet(0xFF, 0x00, &[]), true),
        (packet(0x03, 0x05, &[7, 0, 0, 0]), true),
    ];
    let payloads: Vec<Vec<u8>> = cases.iter().map(|(p, _)| p.clone()).collect();
    let (d, pcap) = dissect_on_8080("rtype-is-ack", &payloads);
    for (i, (bytes, warned)) in cases.iter().enumerate() {
        let decoded = Packet::decode(bytes).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        assert_eq!(decoded.flags.bits(), bytes[3], "frame {i}");
        let want: &[&str] = if *warned {
            &["rtype.expert.quirk"]
        } else {
            &[]
        };
        assert_eq!(d.experts(i, "rtype"), want, "frame {i}");
    }
    let _ = std::fs::remove_file(pcap);
}

/// CRC-16/CCITT-FALSE, written from WIRE-NOTES §5 (poly 0x1021, init 0xFFFF, no reflection).
fn crc16_ccitt_false(bytes: &[u8]) -> u16 {
    let mut crc = 0xffffu16;
    for b in bytes {
        crc ^= (*b as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// A payload that cannot be parsed still has its checksum verified, and the Info column keeps
/// the header's summary and says when the checksum is wrong.
#[test]
fn a_malformed_payload_still_has_its_checksum_verified() {
    assert_eq!(crc16_ccitt_false(b"123456789"), 0x29b1);
    // The WIRE-NOTES login vector without preferred_fragment_size: payload_size 12, so the
    // payload ends inside REQ_LOGIN.
    let mut short = vectors()[0][..32].to_vec();
    short[16..18].copy_from_slice(&12u16.to_le_bytes());
    short[18..20].copy_from_slice(&[0, 0]);
    let crc = crc16_ccitt_false(&short);
    let mut good = short.clone();
    good[18..20].copy_from_slice(&crc.to_le_bytes());
    let mut bad = short;
    bad[18..20].copy_from_slice(&(crc ^ 1).to_le_bytes());
    let datagrams: Vec<Datagram> = [&good, &bad]
        .iter()
        .map(|m| Datagram {
            src_port: 40000,
            dst_port: 8080,
            payload: m.to_vec(),
        })
        .collect();
    let pcap = temp_pcap("malformed-checksum");
    write_pcap(&pcap, &datagrams);
    let info = info_column(&pcap, &["dissectors/rtype.lua"], &[]);
    assert_eq!(info[0], "REQ_LOGIN seq=1 ack=0 [RELIABLE] [malformed]");
    assert_eq!(
        info[1],
        "REQ_LOGIN seq=1 ack=0 [RELIABLE] [malformed] [bad checksum]"
    );
    let d = dissect(&pcap, &dissector(), &[]);
    for (i, status) in [(0, "1"), (1, "0")] {
        let shown: Vec<&str> = d.frames[i]
            .iter()
            .filter(|f| f.name == "rtype.checksum.status")
            .map(|f| f.show.as_str())
            .collect();
        assert_eq!(shown, [status], "frame {i}");
        assert!(d.experts(i, "rtype").contains(&"rtype.expert.truncated"));
    }
    assert!(d.experts(1, "rtype").contains(&"rtype.expert.bad_checksum"));
    let _ = std::fs::remove_file(pcap);
}
