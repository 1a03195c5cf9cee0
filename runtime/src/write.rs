//! The byte writer.

/// Appends fields to a byte vector; derived fields are patched in place afterwards.
pub struct Writer<'o> {
    pub buf: &'o mut Vec<u8>,
}

impl<'o> Writer<'o> {
    #[inline]
    pub fn new(buf: &'o mut Vec<u8>) -> Self {
        Writer { buf }
    }

    #[inline]
    pub fn leb128(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(low);
                return;
            }
            self.buf.push(low | 0x80);
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written yet.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn put(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    #[inline]
    pub fn uint(&mut self, v: u64, n: usize, big: bool) {
        let le = v.to_le_bytes();
        if big {
            self.buf.extend(le[..n].iter().rev());
        } else {
            self.buf.extend_from_slice(&le[..n]);
        }
    }

    #[inline]
    pub fn patch(&mut self, at: usize, bytes: &[u8]) {
        self.buf[at..at + bytes.len()].copy_from_slice(bytes);
    }
}
