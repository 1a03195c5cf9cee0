//! Checksums that are not CRCs: additive sums, XOR, the Internet checksum (RFC 1071),
//! Adler-32 (RFC 1950) and Fletcher-16/32. CRCs are [`Crc`](crate::Crc).

/// A non-CRC checksum over the concatenation of some byte slices (the checksum field itself
/// is passed as zero bytes by generated code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    /// The sum of the bytes, modulo 2^width (8, 16 or 32).
    Sum(u32),
    /// The XOR of the bytes.
    Xor8,
    /// RFC 1071: the ones' complement of the ones' complement sum of big-endian 16-bit words
    /// (an odd last byte padded with zero).
    Internet,
    /// RFC 1950's Adler-32: `b << 16 | a`, both sums modulo 65521, `a` starting at 1.
    Adler32,
    /// Fletcher-16 over bytes: `c1 << 8 | c0`, both sums modulo 255.
    Fletcher16,
    /// Fletcher-32 over little-endian 16-bit words (an odd last byte padded with zero):
    /// `c1 << 16 | c0`, both sums modulo 65535.
    Fletcher32,
}

impl Checksum {
    /// The checksum of the concatenation of `parts`.
    pub fn checksum(&self, parts: &[&[u8]]) -> u64 {
        match *self {
            Checksum::Sum(width) => {
                let mut sum = 0u64;
                for part in parts {
                    sum = part.iter().fold(sum, |s, &b| s.wrapping_add(b as u64));
                }
                if width >= 64 {
                    sum
                } else {
                    sum & ((1u64 << width) - 1)
                }
            }
            Checksum::Xor8 => parts.iter().flat_map(|p| p.iter()).fold(0u8, |x, &b| x ^ b) as u64,
            Checksum::Internet => {
                let mut sum = 0u64;
                words(parts, |w| sum += u16::from_be_bytes(w) as u64);
                while sum >> 16 != 0 {
                    sum = (sum & 0xFFFF) + (sum >> 16);
                }
                !sum & 0xFFFF
            }
            Checksum::Adler32 => {
                let (mut a, mut b) = (1u64, 0u64);
                for part in parts {
                    // 5552 bytes is the longest run whose sums cannot overflow 32 bits (zlib's
                    // NMAX); with 64-bit sums the reduction per chunk is only an economy.
                    for chunk in part.chunks(5552) {
                        for &byte in chunk {
                            a += byte as u64;
                            b += a;
                        }
                        a %= 65521;
                        b %= 65521;
                    }
                }
                b << 16 | a
            }
            Checksum::Fletcher16 => {
                let (mut c0, mut c1) = (0u64, 0u64);
                for part in parts {
                    for &byte in *part {
                        c0 = (c0 + byte as u64) % 255;
                        c1 = (c1 + c0) % 255;
                    }
                }
                c1 << 8 | c0
            }
            Checksum::Fletcher32 => {
                let (mut c0, mut c1) = (0u64, 0u64);
                words(parts, |w| {
                    c0 = (c0 + u16::from_le_bytes(w) as u64) % 65535;
                    c1 = (c1 + c0) % 65535;
                });
                c1 << 16 | c0
            }
        }
    }
}

/// Calls `f` with each 16-bit word of the concatenation of `parts` (a word may span two
/// parts; an odd last byte is padded with zero).
fn words(parts: &[&[u8]], mut f: impl FnMut([u8; 2])) {
    let mut pending: Option<u8> = None;
    for part in parts {
        let mut rest: &[u8] = part;
        if let (Some(hi), Some((&lo, tail))) = (pending, rest.split_first()) {
            f([hi, lo]);
            pending = None;
            rest = tail;
        }
        let mut pairs = rest.chunks_exact(2);
        for w in &mut pairs {
            f([w[0], w[1]]);
        }
        if let [last] = pairs.remainder() {
            pending = Some(*last);
        }
    }
    if let Some(last) = pending {
        f([last, 0]);
    }
}

#[cfg(test)]
mod tests {
    use super::Checksum::{self, *};

    fn check(c: Checksum, data: &[u8]) -> u64 {
        let whole = c.checksum(&[data]);
        // Split anywhere (words spanning two parts included), the same checksum.
        for cut in 0..=data.len() {
            let (a, b) = data.split_at(cut);
            assert_eq!(c.checksum(&[a, &[], b]), whole, "{c:?} cut at {cut}");
        }
        whole
    }

    #[test]
    fn check_values() {
        let nine = b"123456789";
        assert_eq!(check(Sum(8), nine), 0xDD);
        assert_eq!(check(Sum(16), nine), 0x01DD);
        assert_eq!(check(Sum(32), nine), 0x01DD);
        assert_eq!(check(Xor8, nine), 0x31);
        assert_eq!(check(Internet, nine), 0xF62A);
        // RFC 1071 §3's example: the sum of these words is 0xddf2.
        assert_eq!(
            check(Internet, &[0, 1, 0xf2, 3, 0xf4, 0xf5, 0xf6, 0xf7]),
            !0xddf2 & 0xFFFF
        );
        assert_eq!(check(Adler32, nine), 0x091E_01DE);
        assert_eq!(check(Adler32, b"Wikipedia"), 0x11E6_0398);
        assert_eq!(check(Fletcher16, b"abcde"), 0xC8F0);
        assert_eq!(check(Fletcher16, b"abcdef"), 0x2057);
        assert_eq!(check(Fletcher32, b"abcde"), 0xF04F_C729);
        assert_eq!(check(Fletcher32, b"abcdef"), 0x5650_2D2A);
        assert_eq!(check(Fletcher32, b"abcdefgh"), 0xEBE1_9591);
        // Long input: Adler-32 reduced per 5552 bytes gives what reducing per byte gives.
        let long: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
        assert_eq!(Adler32.checksum(&[&long]), adler_reference(&long));
    }

    fn adler_reference(data: &[u8]) -> u64 {
        let (mut a, mut b) = (1u64, 0u64);
        for &x in data {
            a = (a + x as u64) % 65521;
            b = (b + a) % 65521;
        }
        b << 16 | a
    }
}
