//! Checksums: CRCs in the Rocksoft model, and the catalogue of named ones.

/// A CRC in the Rocksoft model (width, polynomial, initial register, input and output
/// reflection, final xor): one of the catalogue's names or parameters the schema gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChecksumAlgo {
    pub width: u32,
    pub poly: u64,
    pub init: u64,
    pub refin: bool,
    pub refout: bool,
    pub xorout: u64,
}

const fn crc(
    width: u32,
    poly: u64,
    init: u64,
    refin: bool,
    refout: bool,
    xorout: u64,
) -> ChecksumAlgo {
    ChecksumAlgo {
        width,
        poly,
        init,
        refin,
        refout,
        xorout,
    }
}

impl ChecksumAlgo {
    /// The named CRCs (names as the CRC catalogue of Greg Cook's reveng and the crc crate know
    /// them, with the usual aliases), and each one's check value: the CRC of "123456789".
    pub const CATALOGUE: &'static [(&'static str, ChecksumAlgo, u64)] = &[
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
    pub fn named(name: &str) -> Option<ChecksumAlgo> {
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
