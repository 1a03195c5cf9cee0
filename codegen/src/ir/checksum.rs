//! Checksums: CRCs in the Rocksoft model and the catalogue of named ones, additive sums, XOR,
//! the Internet checksum, Adler-32 and Fletcher; and the range of a struct each one covers.

/// A checksum field: its algorithm and the fields it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checksum {
    pub algo: ChecksumAlgo,
    /// The first field covered (index in the struct), or the struct's start.
    pub from: Option<usize>,
    /// The last field covered, or the struct's end.
    pub to: Option<usize>,
}

impl Checksum {
    /// Whether the checksum covers the bytes of field `fi` (then read as zeros, for its own).
    pub fn covers(&self, fi: usize) -> bool {
        self.from.is_none_or(|f| f <= fi) && self.to.is_none_or(|t| fi <= t)
    }
}

/// How a checksum is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChecksumAlgo {
    Crc(CrcAlgo),
    /// The sum of the bytes modulo 2^width (8, 16, 32).
    Sum(u32),
    /// The XOR of the bytes.
    Xor8,
    /// RFC 1071's ones' complement sum of big-endian 16-bit words.
    Internet,
    Adler32,
    /// Over bytes, sums modulo 255.
    Fletcher16,
    /// Over little-endian 16-bit words, sums modulo 65535.
    Fletcher32,
}

impl ChecksumAlgo {
    /// The checksums that are not CRCs, by name, each with its check value (of "123456789").
    pub const OTHERS: &'static [(&'static str, ChecksumAlgo, u64)] = &[
        ("sum8", ChecksumAlgo::Sum(8), 0xDD),
        ("sum16", ChecksumAlgo::Sum(16), 0x01DD),
        ("sum32", ChecksumAlgo::Sum(32), 0x01DD),
        ("xor8", ChecksumAlgo::Xor8, 0x31),
        ("internet", ChecksumAlgo::Internet, 0xF62A),
        ("adler32", ChecksumAlgo::Adler32, 0x091E_01DE),
        ("fletcher16", ChecksumAlgo::Fletcher16, 0x1EDE),
        ("fletcher32", ChecksumAlgo::Fletcher32, 0xDF09_D509),
    ];

    /// The checksum of this name: a CRC of the catalogue or one of [`Self::OTHERS`].
    pub fn named(name: &str) -> Option<ChecksumAlgo> {
        CrcAlgo::named(name).map(ChecksumAlgo::Crc).or_else(|| {
            Self::OTHERS
                .iter()
                .find(|(n, ..)| *n == name)
                .map(|(_, a, _)| *a)
        })
    }

    /// Every name [`Self::named`] knows.
    pub fn names() -> impl Iterator<Item = &'static str> + Clone {
        CrcAlgo::CATALOGUE
            .iter()
            .map(|(n, ..)| *n)
            .chain(Self::OTHERS.iter().map(|(n, ..)| *n))
    }

    /// Bits of the checksum (the field holding it is that wide).
    pub fn width(self) -> u32 {
        match self {
            ChecksumAlgo::Crc(c) => c.width,
            ChecksumAlgo::Sum(w) => w,
            ChecksumAlgo::Xor8 => 8,
            ChecksumAlgo::Internet | ChecksumAlgo::Fletcher16 => 16,
            ChecksumAlgo::Adler32 | ChecksumAlgo::Fletcher32 => 32,
        }
    }

    /// Its name: the schema's, or for a CRC given by parameters a name made of them.
    pub fn name(self) -> String {
        match self {
            ChecksumAlgo::Crc(c) => c.name(),
            other => Self::OTHERS
                .iter()
                .find(|(_, a, _)| *a == other)
                .map(|(n, ..)| n.to_string())
                .unwrap_or_default(),
        }
    }
}

/// A CRC in the Rocksoft model (width, polynomial, initial register, input and output
/// reflection, final xor): one of the catalogue's names or parameters the schema gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrcAlgo {
    pub width: u32,
    pub poly: u64,
    pub init: u64,
    pub refin: bool,
    pub refout: bool,
    pub xorout: u64,
}

const fn crc(width: u32, poly: u64, init: u64, refin: bool, refout: bool, xorout: u64) -> CrcAlgo {
    CrcAlgo {
        width,
        poly,
        init,
        refin,
        refout,
        xorout,
    }
}

impl CrcAlgo {
    /// The named CRCs (names as the CRC catalogue of Greg Cook's reveng and the crc crate know
    /// them, with the usual aliases), and each one's check value: the CRC of "123456789".
    pub const CATALOGUE: &'static [(&'static str, CrcAlgo, u64)] = &[
        ("crc8", crc(8, 0x07, 0, false, false, 0), 0xF4),
        ("crc8-smbus", crc(8, 0x07, 0, false, false, 0), 0xF4),
        ("crc8-maxim", crc(8, 0x31, 0, true, true, 0), 0xA1),
        ("crc8-autosar", crc(8, 0x2F, 0xFF, false, false, 0xFF), 0xDF),
        ("crc16-ibm", crc(16, 0x8005, 0, true, true, 0), 0xBB3D),
        ("crc16-arc", crc(16, 0x8005, 0, true, true, 0), 0xBB3D),
        (
            "crc16-modbus",
            crc(16, 0x8005, 0xFFFF, true, true, 0),
            0x4B37,
        ),
        (
            "crc16-usb",
            crc(16, 0x8005, 0xFFFF, true, true, 0xFFFF),
            0xB4C8,
        ),
        ("crc16-xmodem", crc(16, 0x1021, 0, false, false, 0), 0x31C3),
        ("crc16-kermit", crc(16, 0x1021, 0, true, true, 0), 0x2189),
        (
            "crc16-ccitt-false",
            crc(16, 0x1021, 0xFFFF, false, false, 0),
            0x29B1,
        ),
        (
            "crc16-ibm-3740",
            crc(16, 0x1021, 0xFFFF, false, false, 0),
            0x29B1,
        ),
        (
            "crc16-x25",
            crc(16, 0x1021, 0xFFFF, true, true, 0xFFFF),
            0x906E,
        ),
        (
            "crc16-genibus",
            crc(16, 0x1021, 0xFFFF, false, false, 0xFFFF),
            0xD64E,
        ),
        (
            "crc24-openpgp",
            crc(24, 0x864CFB, 0xB704CE, false, false, 0),
            0x21CF02,
        ),
        (
            "crc32",
            crc(32, 0x04C1_1DB7, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF),
            0xCBF4_3926,
        ),
        (
            "crc32-iso-hdlc",
            crc(32, 0x04C1_1DB7, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF),
            0xCBF4_3926,
        ),
        (
            "crc32c",
            crc(32, 0x1EDC_6F41, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF),
            0xE306_9283,
        ),
        (
            "crc32-iscsi",
            crc(32, 0x1EDC_6F41, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF),
            0xE306_9283,
        ),
        (
            "crc32-bzip2",
            crc(32, 0x04C1_1DB7, 0xFFFF_FFFF, false, false, 0xFFFF_FFFF),
            0xFC89_1918,
        ),
        (
            "crc32-mpeg2",
            crc(32, 0x04C1_1DB7, 0xFFFF_FFFF, false, false, 0),
            0x0376_E6E7,
        ),
        (
            "crc32-posix",
            crc(32, 0x04C1_1DB7, 0, false, false, 0xFFFF_FFFF),
            0x765E_7680,
        ),
        (
            "crc64-xz",
            crc(64, 0x42F0_E1EB_A9EA_3693, u64::MAX, true, true, u64::MAX),
            0x995D_C9BB_DF19_39FA,
        ),
        (
            "crc64-ecma",
            crc(64, 0x42F0_E1EB_A9EA_3693, 0, false, false, 0),
            0x6C40_DF5F_0B49_7347,
        ),
    ];

    /// The catalogue's CRC of this name.
    pub fn named(name: &str) -> Option<CrcAlgo> {
        Self::CATALOGUE
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, a, _)| *a)
    }

    /// Parameters in the Rocksoft model: (width, poly, init, refin, refout, xorout).
    pub fn crc_params(self) -> (u32, u64, u64, bool, bool, u64) {
        (
            self.width,
            self.poly,
            self.init,
            self.refin,
            self.refout,
            self.xorout,
        )
    }

    /// Its first catalogue name, or its parameters (`crc16-8005-0-rr-0`: width, poly, init,
    /// reflection in and out, xorout) when the catalogue has none: a name that is also an
    /// identifier once `-` becomes `_`.
    pub fn name(self) -> String {
        match Self::CATALOGUE.iter().find(|(_, a, _)| *a == self) {
            Some((n, ..)) => n.to_string(),
            None => format!(
                "crc{}-{:x}-{:x}-{}{}-{:x}",
                self.width,
                self.poly,
                self.init,
                if self.refin { "r" } else { "n" },
                if self.refout { "r" } else { "n" },
                self.xorout
            ),
        }
    }
}
