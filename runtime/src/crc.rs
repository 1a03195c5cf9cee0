//! CRCs in the Rocksoft model.

/// A CRC in the Rocksoft model, table-driven (one table lookup per byte).
pub struct Crc {
    table: [u64; 256],
    width: u32,
    init: u64,
    refin: bool,
    refout: bool,
    xorout: u64,
}

impl Crc {
    pub const fn new(
        width: u32,
        poly: u64,
        init: u64,
        refin: bool,
        refout: bool,
        xorout: u64,
    ) -> Crc {
        let mut table = [0u64; 256];
        let top = 1u64 << (width - 1);
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let mut i = 0;
        while i < 256 {
            let mut byte = i as u64;
            if refin {
                byte = (byte as u8).reverse_bits() as u64;
            }
            let mut crc = if width >= 8 {
                byte << (width - 8)
            } else {
                byte
            };
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & top != 0 {
                    (crc << 1) ^ poly
                } else {
                    crc << 1
                };
                bit += 1;
            }
            table[i] = crc & mask;
            i += 1;
        }
        Crc {
            table,
            width,
            init,
            refin,
            refout,
            xorout,
        }
    }

    /// The CRC over the concatenation of `parts`.
    #[inline]
    pub fn checksum(&self, parts: &[&[u8]]) -> u64 {
        let mask = if self.width == 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        };
        let shift = self.width - 8;
        let mut crc = self.init;
        for part in parts {
            for &b in *part {
                let b = if self.refin { b.reverse_bits() } else { b };
                let index = ((crc >> shift) as u8 ^ b) as usize;
                crc = ((crc << 8) ^ self.table[index]) & mask;
            }
        }
        if self.refout {
            crc = crc.reverse_bits() >> (64 - self.width);
        }
        (crc ^ self.xorout) & mask
    }
}
