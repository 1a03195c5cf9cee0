//! CRCs in the Rocksoft model.

/// A CRC in the Rocksoft model, read eight bytes at a time ("slicing-by-8": eight tables, the
/// eight lookups of a word independent of one another). A reflected CRC (`refin`) runs its
/// register reflected, shifting right; the others run it left-aligned in 64 bits, shifting
/// left; so no bit is reversed and nothing is masked per byte.
pub struct Crc {
    /// `tables[k][v]`: the register change of byte `v` followed by `k` zero bytes.
    tables: [[u64; 256]; 8],
    width: u32,
    /// The initial register, in the form the loop runs it.
    init: u64,
    refin: bool,
    refout: bool,
    xorout: u64,
}

const fn mask(width: u32) -> u64 {
    if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The low `width` bits of `v`, in reverse order.
const fn reflect(v: u64, width: u32) -> u64 {
    v.reverse_bits() >> (64 - width)
}

impl Crc {
    /// A CRC of `width` bits with the catalogue's parameters (the names of the CRC RevEng
    /// catalogue: `poly`, `init`, `refin`, `refout`, `xorout`).
    pub const fn new(
        width: u32,
        poly: u64,
        init: u64,
        refin: bool,
        refout: bool,
        xorout: u64,
    ) -> Crc {
        let mut tables = [[0u64; 256]; 8];
        let rpoly = reflect(poly, width);
        // The polynomial left-aligned in 64 bits (its top bit implied, as in the model).
        let lpoly = poly << (64 - width);
        let mut i = 0;
        while i < 256 {
            let mut crc;
            let mut bit = 0;
            if refin {
                // LSB first: the byte enters at the bottom of the reflected register.
                crc = i as u64;
                while bit < 8 {
                    crc = if crc & 1 != 0 {
                        (crc >> 1) ^ rpoly
                    } else {
                        crc >> 1
                    };
                    bit += 1;
                }
            } else {
                crc = (i as u64) << 56;
                while bit < 8 {
                    crc = if crc >> 63 != 0 {
                        (crc << 1) ^ lpoly
                    } else {
                        crc << 1
                    };
                    bit += 1;
                }
            }
            tables[0][i] = crc;
            i += 1;
        }
        let mut k = 1;
        while k < 8 {
            let mut i = 0;
            while i < 256 {
                let prev = tables[k - 1][i];
                tables[k][i] = if refin {
                    (prev >> 8) ^ tables[0][(prev & 0xFF) as usize]
                } else {
                    (prev << 8) ^ tables[0][(prev >> 56) as usize]
                };
                i += 1;
            }
            k += 1;
        }
        Crc {
            tables,
            width,
            init: if refin {
                reflect(init, width)
            } else {
                init << (64 - width)
            },
            refin,
            refout,
            xorout,
        }
    }

    /// The CRC over the concatenation of `parts`.
    #[inline]
    pub fn checksum(&self, parts: &[&[u8]]) -> u64 {
        let t = &self.tables;
        let mut crc = self.init;
        if self.refin {
            for part in parts {
                let mut words = part.chunks_exact(8);
                for w in &mut words {
                    let x =
                        crc ^ u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                    crc = t[7][x as u8 as usize]
                        ^ t[6][(x >> 8) as u8 as usize]
                        ^ t[5][(x >> 16) as u8 as usize]
                        ^ t[4][(x >> 24) as u8 as usize]
                        ^ t[3][(x >> 32) as u8 as usize]
                        ^ t[2][(x >> 40) as u8 as usize]
                        ^ t[1][(x >> 48) as u8 as usize]
                        ^ t[0][(x >> 56) as usize];
                }
                for &b in words.remainder() {
                    crc = (crc >> 8) ^ t[0][((crc as u8) ^ b) as usize];
                }
            }
            // The register is reflected: it is the output unless the output is not.
            if !self.refout {
                crc = reflect(crc, self.width);
            }
        } else {
            for part in parts {
                let mut words = part.chunks_exact(8);
                for w in &mut words {
                    let x =
                        crc ^ u64::from_be_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                    crc = t[7][(x >> 56) as usize]
                        ^ t[6][(x >> 48) as u8 as usize]
                        ^ t[5][(x >> 40) as u8 as usize]
                        ^ t[4][(x >> 32) as u8 as usize]
                        ^ t[3][(x >> 24) as u8 as usize]
                        ^ t[2][(x >> 16) as u8 as usize]
                        ^ t[1][(x >> 8) as u8 as usize]
                        ^ t[0][x as u8 as usize];
                }
                for &b in words.remainder() {
                    crc = (crc << 8) ^ t[0][((crc >> 56) as u8 ^ b) as usize];
                }
            }
            crc >>= 64 - self.width;
            if self.refout {
                crc = reflect(crc, self.width);
            }
        }
        (crc ^ self.xorout) & mask(self.width)
    }
}

#[cfg(test)]
mod tests {
    use super::Crc;

    /// The catalogue's check values: the CRC of "123456789".
    #[test]
    fn check_values() {
        let check = |c: Crc| c.checksum(&[b"1234", b"56789"]);
        assert_eq!(check(Crc::new(16, 0x1021, 0xFFFF, false, false, 0)), 0x29B1); // CCITT-FALSE
        assert_eq!(check(Crc::new(16, 0x8005, 0, true, true, 0)), 0xBB3D); // ARC
        assert_eq!(check(Crc::new(16, 0x1021, 0, true, true, 0)), 0x2189); // KERMIT
        assert_eq!(
            check(Crc::new(16, 0x1021, 0xFFFF, true, true, 0xFFFF)),
            0x906E
        );
        assert_eq!(check(Crc::new(8, 0x07, 0, false, false, 0)), 0xF4); // CRC-8
        assert_eq!(check(Crc::new(8, 0x31, 0, true, true, 0)), 0xA1); // MAXIM
        let crc32 = Crc::new(32, 0x04C11DB7, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF);
        assert_eq!(check(crc32), 0xCBF4_3926);
        let crc32c = Crc::new(32, 0x1EDC6F41, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF);
        assert_eq!(check(crc32c), 0xE306_9283);
        let bzip2 = Crc::new(32, 0x04C11DB7, 0xFFFF_FFFF, false, false, 0xFFFF_FFFF);
        assert_eq!(check(bzip2), 0xFC89_1918);
        let xz = Crc::new(64, 0x42F0E1EBA9EA3693, u64::MAX, true, true, u64::MAX);
        assert_eq!(check(xz), 0x995D_C9BB_DF19_39FA);
        let ecma = Crc::new(64, 0x42F0E1EBA9EA3693, 0, false, false, 0);
        assert_eq!(check(ecma), 0x6C40_DF5F_0B49_7347);
        assert_eq!(check(Crc::new(5, 0x05, 0x1F, true, true, 0x1F)), 0x19); // CRC-5/USB
        assert_eq!(check(Crc::new(7, 0x09, 0, false, false, 0)), 0x75); // CRC-7/MMC
                                                                        // Words and the bytes after them give what bytes one by one give.
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let bytes: Vec<&[u8]> = data.iter().map(std::slice::from_ref).collect();
        for c in [
            Crc::new(16, 0x1021, 0xFFFF, false, false, 0),
            Crc::new(32, 0x04C11DB7, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF),
            Crc::new(5, 0x05, 0x1F, true, true, 0x1F),
            Crc::new(7, 0x09, 0, false, false, 0),
        ] {
            assert_eq!(c.checksum(&[&data[..3], &data[3..]]), c.checksum(&bytes));
        }
        // refout without refin (CRC-12/UMTS): normal in, reflected out.
        let umts = Crc::new(12, 0x80F, 0, false, true, 0);
        assert_eq!(check(umts), 0xDAF);
    }
}
