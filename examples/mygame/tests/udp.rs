//! Messages sent over a real UDP socket on 127.0.0.1 and decoded by the receiver.

use mygame::{Chat, Codec, Datagram, DatagramBody, Hello, Move, State};
use std::net::UdpSocket;

#[test]
fn messages_cross_a_udp_socket_and_decode() {
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client.connect(server.local_addr().unwrap()).unwrap();
    let sent = [
        Datagram {
            sequence: 1,
            body: DatagramBody::Hello(Hello { name: "ada".into() }),
        },
        Datagram {
            sequence: 2,
            body: DatagramBody::Move(Move {
                player: 7,
                x: 1.5,
                y: -2.25,
                state: State::ALIVE | State::CROUCHING,
            }),
        },
        Datagram {
            sequence: 3,
            body: DatagramBody::Chat(Chat { text: "gg".into() }),
        },
    ];
    for d in &sent {
        client.send(&d.encode().unwrap()).unwrap();
    }
    let mut buf = [0u8; 1500];
    for d in &sent {
        let n = server.recv(&mut buf).unwrap();
        assert_eq!(&Datagram::decode(&buf[..n]).unwrap(), d);
    }
}

#[test]
fn the_encoder_fills_magic_kind_and_lengths() {
    let bytes = Datagram {
        sequence: 9,
        body: DatagramBody::Hello(Hello { name: "bob".into() }),
    }
    .encode()
    .unwrap();
    // magic 0x4D47 (LE), sequence 9, kind HELLO, name_len 3, "bob".
    assert_eq!(bytes, [0x47, 0x4D, 9, 0, 0, 0, 1, 3, b'b', b'o', b'b']);
}

#[test]
fn a_truncated_datagram_names_the_field_and_byte() {
    let e = Datagram::decode(&[0x47, 0x4D, 9, 0, 0, 0, 2, 7]).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("player") && text.contains("byte 7"), "{text}");
}
