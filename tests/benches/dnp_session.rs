//! A layered DNP session for `lua_versus`: what a Drag[en]gine game's server and clients send,
//! made with the generated crate.
//!
//! Four clients talk to one server at once. Each conversation opens with a connection request and
//! its answer, then the server announces eight links (Link States of 4 to 12 values of eight
//! types). From then on: Link Updates of one to three links typed by those announcements (most
//! datagrams), the clients' unreliable inputs, reliable messages and their acks, Long Reliable
//! Messages cut into 2 to 40 parts (and once a session into 656), and Long Link States
//! re-announcing a link in three parts. Numbers are one reliable counter per direction, as DNP
//! numbers them; every reliable datagram is acked by the other side.

use std::borrow::Cow;
use wiregen_runtime::Codec;
use wiregen_tests::{Datagram, Rng};

const SERVER_PORT: u16 = 3413;
const CLIENTS: usize = 4;
const LINKS: usize = 8;
/// The value types the links use: integers, floats, text and vectors of several sizes.
const TYPES: [dnp::ValueType; 8] = [
    dnp::ValueType::UInt8,
    dnp::ValueType::SInt16,
    dnp::ValueType::UInt32,
    dnp::ValueType::Float32,
    dnp::ValueType::String,
    dnp::ValueType::Point3S16,
    dnp::ValueType::Vector3F32,
    dnp::ValueType::QuaternionF32,
];
/// Bytes of a long message per part (DNP cuts at 1,357; smaller keeps the capture small).
const PART: usize = 96;

/// One client's conversation: the link types the server announced and both reliable counters.
struct Conversation {
    port: u16,
    links: Vec<Vec<dnp::ValueType>>,
    /// The next reliable number of the server and of the client.
    next: [u16; 2],
}

fn value(ty: dnp::ValueType, rng: &mut Rng) -> dnp::TypedValueValue<'static> {
    use dnp::TypedValueValue as V;
    let f = |rng: &mut Rng| rng.below(20_000) as f32 / 16.0 - 600.0;
    match ty {
        dnp::ValueType::UInt8 => V::UInt8(dnp::UInt8Value {
            value: rng.below(256) as u8,
        }),
        dnp::ValueType::SInt16 => V::SInt16(dnp::SInt16Value {
            value: rng.below(65_536) as i16,
        }),
        dnp::ValueType::UInt32 => V::UInt32(dnp::UInt32Value {
            value: rng.below(1 << 32) as u32,
        }),
        dnp::ValueType::Float32 => V::Float32(dnp::Float32Value { value: f(rng) }),
        dnp::ValueType::String => V::String(dnp::StringValue {
            text: Cow::Owned(format!("player-{}", rng.below(1000))),
        }),
        dnp::ValueType::Point3S16 => V::Point3S16(dnp::Point3S16Value {
            x: rng.below(65_536) as i16,
            y: rng.below(65_536) as i16,
            z: rng.below(65_536) as i16,
        }),
        dnp::ValueType::Vector3F32 => V::Vector3F32(dnp::Vector3F32Value {
            x: f(rng),
            y: f(rng),
            z: f(rng),
        }),
        _ => V::QuaternionF32(dnp::QuaternionF32Value {
            x: f(rng),
            y: f(rng),
            z: f(rng),
            w: f(rng),
        }),
    }
}

impl Conversation {
    fn number(&mut self, side: usize) -> u16 {
        let n = self.next[side];
        self.next[side] = ((u32::from(n) + 1) % 65_535) as u16;
        n
    }

    fn link_state(&mut self, link: usize, rng: &mut Rng) -> dnp::CommandBody<'static> {
        dnp::CommandBody::LinkState(dnp::LinkState {
            number: self.number(0),
            link_id: link as u16,
            flags: dnp::LinkFlags(0),
            message: Cow::Owned(format!("link {link}").into_bytes()),
            values: self.links[link]
                .iter()
                .map(|&ty| dnp::TypedValue {
                    value: value(ty, rng),
                })
                .collect(),
        })
    }

    fn link_update(&self, rng: &mut Rng) -> dnp::CommandBody<'static> {
        let links = (0..1 + rng.below(3))
            .map(|_| {
                let link = rng.below(LINKS as u64) as usize;
                let types = &self.links[link];
                dnp::LinkUpdateLink {
                    link_id: link as u16,
                    values: (0..1 + rng.below(4))
                        .map(|_| {
                            let index = rng.below(types.len() as u64) as usize;
                            dnp::IndexedValue {
                                index: index as u16,
                                value: value(types[index], rng),
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        dnp::CommandBody::LinkUpdate(dnp::LinkUpdate { links })
    }

    /// A long reliable message of `parts` parts, from the server.
    fn long_message(&mut self, parts: usize, rng: &mut Rng) -> Vec<dnp::CommandBody<'static>> {
        (0..parts)
            .map(|i| {
                let mut flags = 0;
                if i == 0 {
                    flags |= 0x01;
                }
                if i + 1 == parts {
                    flags |= 0x02;
                }
                let chunk: Vec<u8> = (0..PART).map(|_| rng.below(256) as u8).collect();
                dnp::CommandBody::LongReliableMessage(dnp::LongReliableMessage {
                    number: self.number(0),
                    flags: dnp::LongMessageFlags(flags),
                    chunk: Cow::Owned(chunk),
                })
            })
            .collect()
    }

    /// Link `link` announced again as a Long Link State of three parts.
    fn long_link_state(&mut self, link: usize, rng: &mut Rng) -> Vec<dnp::CommandBody<'static>> {
        let values = dnp::LinkValues {
            values: self.links[link]
                .iter()
                .map(|&ty| dnp::TypedValue {
                    value: value(ty, rng),
                })
                .collect(),
        };
        let values = values.encode().unwrap();
        let message = format!("link {link} again").into_bytes();
        let cut = |b: &[u8], i: usize| b[b.len() * i / 3..b.len() * (i + 1) / 3].to_vec();
        (0..3)
            .map(|i| {
                let flags = match i {
                    0 => 0x02,
                    2 => 0x04,
                    _ => 0,
                };
                dnp::CommandBody::LongLinkState(dnp::LongLinkState {
                    number: self.number(0),
                    link_id: link as u16,
                    flags: dnp::LongLinkStateFlags(flags),
                    message_chunk: Cow::Owned(cut(&message, i)),
                    values_chunk: Cow::Owned(cut(&values, i)),
                })
            })
            .collect()
    }
}

/// `n` datagrams of four interleaved conversations (the session's one 656-part message among
/// them when `n` leaves room for it).
pub fn capture(n: usize) -> Vec<Datagram> {
    let mut rng = Rng(23);
    let mut out: Vec<Datagram> = Vec::with_capacity(n + 700);
    let mut conversations: Vec<Conversation> = (0..CLIENTS)
        .map(|c| Conversation {
            port: 40_000 + c as u16,
            links: (0..LINKS)
                .map(|_| {
                    (0..4 + rng.below(9))
                        .map(|_| TYPES[rng.below(TYPES.len() as u64) as usize])
                        .collect()
                })
                .collect(),
            next: [0, 0],
        })
        .collect();
    let send = |out: &mut Vec<Datagram>, port: u16, from_server: bool, body| {
        let payload = dnp::Command { body }.encode().unwrap();
        let (src_port, dst_port) = if from_server {
            (SERVER_PORT, port)
        } else {
            (port, SERVER_PORT)
        };
        out.push(Datagram {
            src_port,
            dst_port,
            payload,
        });
    };
    for c in conversations.iter_mut() {
        let request = dnp::ConnectionRequest {
            protocols: vec![dnp::ProtocolVersion::Dnp1],
        };
        send(
            &mut out,
            c.port,
            false,
            dnp::CommandBody::ConnectionRequest(request),
        );
        let ack = dnp::ConnectionAck {
            result: dnp::ConnectResult::Accepted,
            protocol: Some(dnp::ProtocolVersion::Dnp1),
        };
        send(&mut out, c.port, true, dnp::CommandBody::ConnectionAck(ack));
        for link in 0..LINKS {
            let state = c.link_state(link, &mut rng);
            send(&mut out, c.port, true, state);
        }
    }
    let mut big_sent = false;
    let mut i = 0;
    while out.len() < n {
        let c = &mut conversations[i % CLIENTS];
        i += 1;
        // What the server sends reliably now: (bodies, from the server).
        let reliable: Vec<dnp::CommandBody> = match rng.below(100) {
            0..=59 => {
                let update = c.link_update(&mut rng);
                send(&mut out, c.port, true, update);
                continue;
            }
            60..=71 => {
                let data: Vec<u8> = (0..12).map(|_| rng.below(256) as u8).collect();
                let input = dnp::UnreliableMessage {
                    data: Cow::Owned(data),
                };
                send(
                    &mut out,
                    c.port,
                    false,
                    dnp::CommandBody::UnreliableMessage(input),
                );
                continue;
            }
            72..=85 => {
                let data: Vec<u8> = (0..30).map(|_| rng.below(256) as u8).collect();
                vec![dnp::CommandBody::ReliableMessage(dnp::ReliableMessage {
                    number: c.number(0),
                    data: Cow::Owned(data),
                })]
            }
            86..=93 if !big_sent && out.len() > n / 2 && n > 4000 => {
                big_sent = true;
                c.long_message(656, &mut rng)
            }
            86..=93 => {
                let parts = 2 + rng.below(39) as usize;
                c.long_message(parts, &mut rng)
            }
            _ => {
                let link = rng.below(LINKS as u64) as usize;
                c.long_link_state(link, &mut rng)
            }
        };
        for body in reliable {
            let number = match &body {
                dnp::CommandBody::ReliableMessage(m) => m.number,
                dnp::CommandBody::LongReliableMessage(m) => m.number,
                dnp::CommandBody::LongLinkState(m) => m.number,
                _ => unreachable!("only reliable commands are acked"),
            };
            send(&mut out, c.port, true, body);
            let ack = dnp::ReliableAck {
                number,
                result: dnp::AckResult::Success,
            };
            send(&mut out, c.port, false, dnp::CommandBody::ReliableAck(ack));
        }
    }
    out.truncate(n);
    out
}
