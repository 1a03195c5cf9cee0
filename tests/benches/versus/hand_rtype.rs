//! R-Type as a competent engineer writes it by hand: one length check for the 20-byte header
//! and reads at fixed offsets, `chunks_exact` for the 9-byte entity records, a `u16` CRC table,
//! the output sized before it is written. Only the two payloads the bench uses are typed.

pub struct Packet<'a> {
    pub command: u8,
    pub flags: u8,
    pub sequence: u32,
    pub ack: u32,
    pub fragment_id: u16,
    pub fragment_index: u8,
    pub fragment_count: u8,
    pub payload: Payload<'a>,
}

pub enum Payload<'a> {
    Login {
        username: &'a str,
        version: u32,
        preferred_fragment_size: u16,
    },
    Entities(Vec<Entity>),
    Other(&'a [u8]),
}

#[derive(Clone, Copy)]
pub struct Entity {
    pub entity_id: u32,
    pub x: u16,
    pub y: u16,
    pub kind: u8,
}

#[derive(Debug)]
pub enum Error {
    Short,
    Magic,
    Size,
    Checksum,
    Payload,
}

const MAGIC: u16 = 0xD1CE;

/// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), one table lookup per byte.
const CRC_TABLE: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = (i as u16) << 8;
        let mut b = 0;
        while b < 8 {
            c = if c & 0x8000 != 0 {
                (c << 1) ^ 0x1021
            } else {
                c << 1
            };
            b += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[inline]
fn crc_update(mut crc: u16, data: &[u8]) -> u16 {
    for &b in data {
        crc = (crc << 8) ^ CRC_TABLE[((crc >> 8) as u8 ^ b) as usize];
    }
    crc
}

/// The CRC of a datagram with its checksum bytes (18..20) taken as zero.
pub fn crc(datagram: &[u8]) -> u16 {
    let crc = crc_update(0xFFFF, &datagram[..18]);
    let crc = crc_update(crc, &[0, 0]);
    crc_update(crc, &datagram[20..])
}

#[inline]
fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

#[inline]
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

pub fn decode(buf: &[u8]) -> Result<Packet<'_>, Error> {
    let h: &[u8; 20] = buf.get(..20).ok_or(Error::Short)?.try_into().unwrap();
    if u16_at(h, 0) != MAGIC {
        return Err(Error::Magic);
    }
    let payload = &buf[20..];
    if u16_at(h, 16) as usize != payload.len() {
        return Err(Error::Size);
    }
    if u16_at(h, 18) != crc(buf) {
        return Err(Error::Checksum);
    }
    let (command, flags) = (h[2], h[3]);
    let payload = match command {
        _ if flags & 0x02 != 0 => Payload::Other(payload),
        0x01 => {
            let n = *payload.first().ok_or(Error::Payload)? as usize;
            if n > 32 || payload.len() != 1 + n + 6 {
                return Err(Error::Payload);
            }
            let username = std::str::from_utf8(&payload[1..1 + n]).map_err(|_| Error::Payload)?;
            Payload::Login {
                username,
                version: u32_at(payload, 1 + n),
                preferred_fragment_size: u16_at(payload, 5 + n),
            }
        }
        0x11 => {
            if !payload.len().is_multiple_of(9) {
                return Err(Error::Payload);
            }
            Payload::Entities(
                payload
                    .chunks_exact(9)
                    .map(|e| Entity {
                        entity_id: u32_at(e, 0),
                        x: u16_at(e, 4),
                        y: u16_at(e, 6),
                        kind: e[8],
                    })
                    .collect(),
            )
        }
        _ => Payload::Other(payload),
    };
    Ok(Packet {
        command,
        flags,
        sequence: u32_at(h, 4),
        ack: u32_at(h, 8),
        fragment_id: u16_at(h, 12),
        fragment_index: h[14],
        fragment_count: h[15],
        payload,
    })
}

pub fn encode(p: &Packet<'_>) -> Vec<u8> {
    let payload_len = match &p.payload {
        Payload::Login { username, .. } => 1 + username.len() + 6,
        Payload::Entities(e) => e.len() * 9,
        Payload::Other(b) => b.len(),
    };
    let mut out = Vec::with_capacity(20 + payload_len);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&[p.command, p.flags]);
    out.extend_from_slice(&p.sequence.to_le_bytes());
    out.extend_from_slice(&p.ack.to_le_bytes());
    out.extend_from_slice(&p.fragment_id.to_le_bytes());
    out.extend_from_slice(&[p.fragment_index, p.fragment_count]);
    out.extend_from_slice(&(payload_len as u16).to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    match &p.payload {
        Payload::Login {
            username,
            version,
            preferred_fragment_size,
        } => {
            out.push(username.len() as u8);
            out.extend_from_slice(username.as_bytes());
            out.extend_from_slice(&version.to_le_bytes());
            out.extend_from_slice(&preferred_fragment_size.to_le_bytes());
        }
        Payload::Entities(es) => {
            for e in es {
                out.extend_from_slice(&e.entity_id.to_le_bytes());
                out.extend_from_slice(&e.x.to_le_bytes());
                out.extend_from_slice(&e.y.to_le_bytes());
                out.push(e.kind);
            }
        }
        Payload::Other(b) => out.extend_from_slice(b),
    }
    let c = crc(&out);
    out[18..20].copy_from_slice(&c.to_le_bytes());
    out
}

/// Panics unless the hand decoder read what the generated crate encoded.
pub fn assert_same(h: &Packet<'_>, g: &rtype::Packet<'_>) {
    assert_eq!(
        (
            h.flags,
            h.sequence,
            h.ack,
            h.fragment_id,
            h.fragment_index,
            h.fragment_count
        ),
        (
            g.flags.bits(),
            g.sequence,
            g.ack,
            g.fragment_id,
            g.fragment_index,
            g.fragment_count
        )
    );
    match (&h.payload, &g.payload) {
        (
            Payload::Login {
                username,
                version,
                preferred_fragment_size,
            },
            rtype::PacketPayload::ReqLogin(l),
        ) => assert_eq!(
            (*username, *version, *preferred_fragment_size),
            (&*l.username, l.version, l.preferred_fragment_size)
        ),
        (Payload::Entities(es), rtype::PacketPayload::SEntityState(s)) => {
            assert_eq!(es.len(), s.entities.len());
            for (a, b) in es.iter().zip(&s.entities) {
                assert_eq!(
                    (a.entity_id, a.x, a.y, a.kind),
                    (b.entity_id, b.x, b.y, b.r#type)
                );
            }
        }
        _ => panic!("another payload"),
    }
}
