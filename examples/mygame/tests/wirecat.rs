//! The game's own wirecat on a capture of its traffic: the datagrams of the UDP test, written to
//! a pcap as a capture tool would, decode and encode back byte for byte (`check`), and `read`
//! prints them as JSON.

use mygame::{Chat, Codec, Datagram, DatagramBody, Hello};
use std::process::Command;

/// A classic pcap of raw IPv4/UDP packets (link type 101), from 127.0.0.1:`from` to :`to`.
fn pcap(datagrams: &[(u16, u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&101u32.to_le_bytes());
    for (from, to, payload) in datagrams {
        let udp_len = 8 + payload.len();
        let ip_len = 20 + udp_len;
        let mut ip = vec![
            0x45,
            0,
            (ip_len >> 8) as u8,
            ip_len as u8,
            0,
            0,
            0x40,
            0,
            64,
            17,
            0,
            0,
        ];
        ip.extend_from_slice(&[127, 0, 0, 1, 127, 0, 0, 1]);
        let sum = ip
            .chunks(2)
            .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
            .sum::<u32>();
        let sum = !((sum & 0xffff) + (sum >> 16)) as u16;
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        ip.extend_from_slice(&from.to_be_bytes());
        ip.extend_from_slice(&to.to_be_bytes());
        ip.extend_from_slice(&(udp_len as u16).to_be_bytes());
        ip.extend_from_slice(&[0, 0]);
        ip.extend_from_slice(payload);
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&(ip.len() as u32).to_le_bytes());
        out.extend_from_slice(&(ip.len() as u32).to_le_bytes());
        out.extend_from_slice(&ip);
    }
    out
}

fn wirecat(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mygame-wirecat"))
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    (out.status.success(), text)
}

#[test]
fn the_games_wirecat_checks_and_reads_its_capture() {
    let hello = Datagram {
        sequence: 1,
        body: DatagramBody::Hello(Hello { name: "ada".into() }),
    };
    let chat = Datagram {
        sequence: 2,
        body: DatagramBody::Chat(Chat { text: "gg".into() }),
    };
    let path = std::env::temp_dir().join(format!("mygame-{}.pcap", std::process::id()));
    std::fs::write(
        &path,
        pcap(&[
            (50000, 7777, hello.encode().unwrap()),
            (7777, 50000, chat.encode().unwrap()),
        ]),
    )
    .unwrap();
    let path = path.to_str().unwrap();

    let (ok, out) = wirecat(&["check", path]);
    assert!(ok, "{out}");
    assert!(
        out.trim_end().ends_with(
            "2/2 datagrams ok (2 frames in the capture, 0 UDP datagrams elsewhere, 0 not UDP)"
        ),
        "{out}"
    );

    let (ok, out) = wirecat(&["read", path]);
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with(r#"{"frame":1,"from":"client","src":"127.0.0.1:50000","dst":"127.0.0.1:7777","value":{"sequence":1,"#), "{out}");
    assert!(lines[0].contains(r#""ada""#), "{out}");
    assert!(
        lines[1].contains(r#""from":"server""#) && lines[1].contains(r#""gg""#),
        "{out}"
    );

    // A datagram that is not one of the game's: the frame and the field, and a failing exit.
    std::fs::write(path, pcap(&[(50000, 7777, vec![9, 9])])).unwrap();
    let (ok, out) = wirecat(&["check", path]);
    assert!(!ok);
    assert!(out.contains("frame 1: does not decode"), "{out}");
    assert!(out.contains("0/1 datagrams ok"), "{out}");
    std::fs::remove_file(path).unwrap();
}
