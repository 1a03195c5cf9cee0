//! R-Type with deku's derives, as its documentation shows: the structure declared, lengths as
//! context. deku has no CRC and no length check against the datagram, so both are added here
//! (with the hand-written CRC) to do the same work as the others.

use deku::prelude::*;

#[derive(DekuRead, DekuWrite)]
#[deku(endian = "little")]
pub struct Packet {
    #[deku(assert_eq = "0xD1CE")]
    magic: u16,
    command: u8,
    flags: u8,
    sequence: u32,
    ack: u32,
    fragment_id: u16,
    fragment_index: u8,
    fragment_count: u8,
    payload_size: u16,
    checksum: u16,
    #[deku(ctx = "*command, *payload_size")]
    payload: Payload,
}

#[derive(DekuRead, DekuWrite)]
#[deku(
    ctx = "endian: deku::ctx::Endian, command: u8, size: u16",
    id = "command",
    endian = "endian"
)]
pub enum Payload {
    #[deku(id = 0x01)]
    Login(Login),
    #[deku(id = 0x11)]
    Entities(#[deku(count = "size / 9")] Vec<Entity>),
}

#[derive(DekuRead, DekuWrite)]
#[deku(ctx = "endian: deku::ctx::Endian", endian = "endian")]
pub struct Login {
    #[deku(assert = "*username_len <= 32")]
    username_len: u8,
    #[deku(count = "username_len")]
    username: Vec<u8>,
    version: u32,
    preferred_fragment_size: u16,
}

#[derive(DekuRead, DekuWrite)]
#[deku(ctx = "endian: deku::ctx::Endian", endian = "endian")]
pub struct Entity {
    entity_id: u32,
    x: u16,
    y: u16,
    kind: u8,
}

pub fn decode(buf: &[u8]) -> Result<Packet, String> {
    let ((rest, _), p) = Packet::from_bytes((buf, 0)).map_err(|e| e.to_string())?;
    if !rest.is_empty() || p.payload_size as usize != buf.len() - 20 {
        return Err("size".into());
    }
    if p.checksum != super::hand_rtype::crc(buf) {
        return Err("checksum".into());
    }
    if let Payload::Login(l) = &p.payload {
        std::str::from_utf8(&l.username).map_err(|e| e.to_string())?;
    }
    Ok(p)
}

pub fn encode(p: &Packet) -> Vec<u8> {
    let mut out = p.to_bytes().unwrap();
    let c = super::hand_rtype::crc(&out);
    out[18..20].copy_from_slice(&c.to_le_bytes());
    out
}
