//! Reproducible random bytes: the same seed gives the same messages on every machine.

/// A small deterministic generator (xorshift64*) for reproducible random messages.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Between 0 and `max - 1` random bytes.
    pub fn bytes_below(&mut self, max: u64) -> Vec<u8> {
        let n = self.below(max) as usize;
        self.bytes(n)
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
    /// `n` buffers of 16 to 16 + `spread` - 1 random bytes: sources of arbitrary values (which
    /// borrow from them).
    pub fn buffers(&mut self, n: usize, spread: u64) -> Vec<Vec<u8>> {
        (0..n)
            .map(|_| {
                let len = 16 + self.below(spread) as usize;
                self.bytes(len)
            })
            .collect()
    }
}
