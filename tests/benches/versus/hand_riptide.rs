//! A Riptide 2.1 reliable message by hand: a bit reader and writer that shift whole 64-bit
//! words, LEB128 read a group at a time, the payload realigned eight bytes at a time.

pub struct Reliable {
    pub sequence_id: u16,
    pub message_id: u64,
    /// The payload realigned to a byte boundary, and its length in bits.
    pub payload: Vec<u8>,
    pub payload_bits: usize,
}

struct Bits<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    #[inline]
    fn read(&mut self, n: usize) -> Option<u64> {
        if self.pos + n > self.buf.len() * 8 {
            return None;
        }
        let (first, shift) = (self.pos / 8, self.pos % 8);
        let mut word = [0u8; 16];
        let avail = (self.buf.len() - first).min(16);
        word[..avail].copy_from_slice(&self.buf[first..first + avail]);
        let v = (u128::from_le_bytes(word) >> shift) as u64;
        self.pos += n;
        Some(if n == 64 { v } else { v & ((1 << n) - 1) })
    }
}

pub fn decode(buf: &[u8]) -> Option<Reliable> {
    let mut r = Bits { buf, pos: 0 };
    if r.read(4)? != 7 {
        return None;
    }
    let sequence_id = r.read(16)? as u16;
    let mut message_id = 0u64;
    for group in 0..10 {
        let b = r.read(8)?;
        message_id |= (b & 0x7F) << (7 * group);
        if b & 0x80 == 0 {
            break;
        }
    }
    let payload_bits = buf.len() * 8 - r.pos;
    let mut payload = Vec::with_capacity(payload_bits.div_ceil(8));
    let mut left = payload_bits;
    while left >= 64 {
        payload.extend_from_slice(&r.read(64)?.to_le_bytes());
        left -= 64;
    }
    while left > 0 {
        let n = left.min(8);
        payload.push(r.read(n)? as u8);
        left -= n;
    }
    Some(Reliable {
        sequence_id,
        message_id,
        payload,
        payload_bits,
    })
}

struct BitOut {
    out: Vec<u8>,
    acc: u128,
    fill: usize,
}

impl BitOut {
    #[inline]
    fn write(&mut self, v: u64, n: usize) {
        self.acc |= u128::from(v) << self.fill;
        self.fill += n;
        if self.fill >= 64 {
            self.out.extend_from_slice(&(self.acc as u64).to_le_bytes());
            self.acc >>= 64;
            self.fill -= 64;
        }
    }
}

pub fn encode(m: &Reliable) -> Vec<u8> {
    let mut w = BitOut {
        out: Vec::with_capacity((36 + m.payload_bits).div_ceil(8) + 8),
        acc: 0,
        fill: 0,
    };
    w.write(7, 4);
    w.write(u64::from(m.sequence_id), 16);
    let mut id = m.message_id;
    loop {
        let more = id > 0x7F;
        w.write((id & 0x7F) | if more { 0x80 } else { 0 }, 8);
        id >>= 7;
        if !more {
            break;
        }
    }
    let mut left = m.payload_bits;
    for chunk in m.payload.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let n = left.min(64);
        let v = u64::from_le_bytes(word);
        w.write(if n == 64 { v } else { v & ((1 << n) - 1) }, n);
        left -= n;
    }
    let bytes = w.fill.div_ceil(8);
    w.out.extend_from_slice(&w.acc.to_le_bytes()[..bytes]);
    w.out
}

/// A reliable message with a 2-byte message id and a 40-byte payload (45 bytes on the wire).
pub fn message() -> riptide_2_1::Message<'static> {
    riptide_2_1::Message {
        body: riptide_2_1::MessageBody::Reliable(riptide_2_1::ReliableUserMessage {
            sequence_id: 513,
            message_id: 300,
            payload: wiregen_runtime::BitString::new(
                (0..40).map(|i| i * 7).collect::<Vec<u8>>(),
                320,
            ),
        }),
    }
}

/// Panics unless the hand decoder read what the generated one did.
pub fn assert_same(h: &Reliable, g: &riptide_2_1::Message<'_>) {
    let riptide_2_1::MessageBody::Reliable(g) = &g.body else {
        panic!("not a reliable message")
    };
    assert_eq!(
        (h.sequence_id, h.message_id, &h.payload[..], h.payload_bits),
        (
            g.sequence_id,
            g.message_id,
            &g.payload.to_bytes()[..],
            g.payload.bits()
        )
    );
}
