//! Random R-Type messages shared by the round-trip and cross-check tests.

use rtype::*;
use std::borrow::Cow;
use wiregen_tests::Rng;

/// Commands that have a layout of their own (their payload is never `Other`).
pub const LAID_OUT: [u8; 6] = [0x01, 0x02, 0x03, 0x10, 0x11, 0xFF];

pub fn random_string(rng: &mut Rng, max: usize) -> String {
    const CHARS: &[char] = &['a', 'Z', '0', '_', ' ', 'é', 'ß', '€', '漢', '🎮'];
    let mut s = String::new();
    let n = rng.below(max as u64 + 1) as usize;
    while s.len() < n {
        let c = CHARS[rng.below(CHARS.len() as u64) as usize];
        if s.len() + c.len_utf8() > max {
            break;
        }
        s.push(c);
    }
    s
}

pub fn random_payload(rng: &mut Rng) -> PacketPayload<'static> {
    match rng.below(7) {
        0 => PacketPayload::ReqLogin(ReqLogin {
            username: Cow::Owned(random_string(rng, 32)),
            version: rng.next_u64() as u32,
            preferred_fragment_size: rng.next_u64() as u16,
        }),
        1 => PacketPayload::ResLogin(ResLogin {
            success: rng.next_u64() as u8,
            player_id: rng.next_u64() as u32,
            effective_fragment_size: rng.next_u64() as u16,
        }),
        2 => PacketPayload::ReqJoinRoom(ReqJoinRoom {
            room_id: rng.next_u64() as u32,
        }),
        3 => PacketPayload::CInput(CInput {
            input_mask: InputMask(rng.next_u64() as u8),
        }),
        4 => {
            let n = rng.below(40) as usize;
            let entities = (0..n)
                .map(|_| EntityState {
                    entity_id: rng.next_u64() as u32,
                    x: rng.next_u64() as u16,
                    y: rng.next_u64() as u16,
                    r#type: rng.next_u64() as u8,
                })
                .collect();
            PacketPayload::SEntityState(SEntityState { entities })
        }
        5 => PacketPayload::Ack,
        _ => {
            let command = loop {
                let c = rng.next_u64() as u8;
                if !LAID_OUT.contains(&c) {
                    break c;
                }
            };
            let n = rng.below(64) as usize;
            PacketPayload::Other {
                command: Command::from_raw(command),
                data: Cow::Owned(rng.bytes(n)),
            }
        }
    }
}

pub fn random_packet(rng: &mut Rng) -> Packet<'static> {
    let flags = PacketFlags(rng.next_u64() as u8);
    // A fragment's payload is raw bytes whatever its command (`unless: flags.IS_FRAGMENT`).
    let payload = if flags.contains(PacketFlags::IS_FRAGMENT) {
        let n = rng.below(64) as usize;
        PacketPayload::Other {
            command: Command::from_raw(rng.next_u64() as u8),
            data: Cow::Owned(rng.bytes(n)),
        }
    } else {
        random_payload(rng)
    };
    // IS_ACK marks the ACK command (the schema's `set_when`; the encoder sets it so).
    let ack = payload.command() == Command::Ack;
    let flags = PacketFlags(flags.bits() & !PacketFlags::IS_ACK.bits())
        | if ack {
            PacketFlags::IS_ACK
        } else {
            PacketFlags::empty()
        };
    // Fragments are well-formed and never the only piece (so none completes on its own).
    let fragment_count = if flags.contains(PacketFlags::IS_FRAGMENT) {
        2 + rng.below(254) as u8
    } else {
        rng.next_u64() as u8
    };
    let fragment_index = if flags.contains(PacketFlags::IS_FRAGMENT) {
        rng.below(u64::from(fragment_count)) as u8
    } else {
        rng.next_u64() as u8
    };
    Packet {
        flags,
        sequence: rng.next_u64() as u32,
        ack: rng.next_u64() as u32,
        fragment_id: rng.next_u64() as u16,
        fragment_index,
        fragment_count,
        payload,
    }
}
