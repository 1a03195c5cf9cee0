//! Strings: NUL-terminated and padded, and each text encoding.

use super::*;

/// NUL-terminated and NUL-padded strings: the bytes the crate writes, strings that fill their
/// buffer or hold garbage after the NUL, refusals naming the field, and the dissector agreeing
/// (and saying, never failing, when a NUL is missing).
#[test]
fn nul_terminated_and_padded_strings_agree_between_crate_and_dissector() {
    use wiregen_golden::strings::{Login, Protocol};
    use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};
    let login = Login {
        version: 2,
        user: "ab".into(),
        map: "dust".into(),
        motd: "".into(),
        tail: 0x0102,
    };
    // version; "ab" NUL; "dust" and 12 zeros; "" NUL; tail.
    let expected = hex_bytes(concat!(
        "02",
        "616200",
        "64757374000000000000000000000000",
        "00",
        "0201"
    ));
    assert_eq!(login.encode().unwrap(), expected);
    assert_eq!(Login::decode(&expected).unwrap(), login);
    // A map that fills all 16 bytes has no NUL; what follows a NUL in the buffer is not text.
    let full = Login {
        map: "0123456789abcdef".into(),
        ..login.clone()
    };
    let bytes = full.encode().unwrap();
    assert_eq!(&bytes[4..20], b"0123456789abcdef");
    assert_eq!(Login::decode(&bytes).unwrap(), full);
    let mut garbage = expected.clone();
    garbage[9..12].copy_from_slice(b"xyz");
    assert_eq!(Login::decode(&garbage).unwrap(), login);
    // Refused: a map of 17 bytes, a NUL inside a string.
    let e = Login {
        map: "0123456789abcdefg".into(),
        ..login.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        (
            "map".into(),
            EncodeErrorKind::TooLong {
                size: 16,
                actual: 17
            }
        )
    );
    let e = Login {
        user: "a\0b".into(),
        ..login.clone()
    }
    .encode()
    .unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        ("user".into(), EncodeErrorKind::ContainsNul { at: 1 })
    );
    // No NUL before the end: an error at the end of the input, naming the field.
    let e = Login::decode(&hex_bytes("026162")).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        ("user".into(), 3, DecodeErrorKind::NoTerminator)
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/strings.lua"], &[], 0x9122);

    let d = dissect_payloads(
        "strings",
        9122,
        &[
            expected.clone(),
            garbage,
            bytes,
            hex_bytes("026162"),
            hex_bytes("02"),
        ],
    );
    for i in 0..3 {
        assert!(d.experts(i, "strings").is_empty(), "frame {i}");
        assert_eq!(value(&d, i, "strings.user"), "ab");
    }
    assert_eq!(value(&d, 0, "strings.map"), "dust");
    assert_eq!(value(&d, 1, "strings.map"), "dust");
    assert_eq!(value(&d, 2, "strings.map"), "0123456789abcdef");
    assert_eq!(value(&d, 0, "strings.motd"), "");
    for i in 3..5 {
        assert_eq!(
            d.experts(i, "strings"),
            ["strings.expert.truncated"],
            "frame {i}"
        );
    }
}

/// Text in ASCII, Latin-1 and UTF-16 (both byte orders, a length in code units derived by the
/// encoder): the bytes the crate writes, characters an encoding has not refused naming the
/// field, invalid bytes named at their offset, and the dissector showing the same text.
#[test]
fn text_encodings_agree_between_crate_and_dissector() {
    use wiregen_golden::encodings::{Profile, Protocol};
    use wiregen_runtime::{DecodeErrorKind, EncodeErrorKind};
    let profile = Profile {
        tag: "v1".into(),
        city: "Köln".into(),
        name: "é𝄞".into(),
        motto: "Hi".into(),
        note: "ça".into(),
        code: "AB12".into(),
        title: "bĀ".into(),
        badge: "Hi".into(),
    };
    // UTF-16LE "bĀ" holds two zero bytes at an odd offset (62 00 | 00 01): not its end.
    let expected = hex_bytes(concat!(
        "027631",
        "044bf66c6e",
        "0300",
        "e900",
        "34d81edd",
        "0400480069",
        "e76100",
        "4142313200000000",
        "620000010000",
        "0048006900000000"
    ));
    assert_eq!(profile.encode().unwrap(), expected);
    assert_eq!(Profile::decode(&expected).unwrap(), profile);
    // Characters the encodings have not.
    let refused = |p: Profile| {
        let e = p.encode().unwrap_err();
        (e.field(), e.kind)
    };
    assert_eq!(
        refused(Profile {
            tag: "é".into(),
            ..profile.clone()
        }),
        (
            "tag".into(),
            EncodeErrorKind::Unencodable {
                at: 0,
                encoding: "ASCII"
            }
        )
    );
    assert_eq!(
        refused(Profile {
            note: "a€".into(),
            ..profile.clone()
        }),
        (
            "note".into(),
            EncodeErrorKind::Unencodable {
                at: 1,
                encoding: "Latin-1"
            }
        )
    );
    // A byte above 0x7f in ASCII, and an odd byte count for UTF-16, named at their offset.
    let mut bad = expected.clone();
    bad[2] = 0xb1;
    let e = Profile::decode(&bad).unwrap_err();
    assert_eq!(
        (e.field(), e.offset, e.kind),
        (
            "tag".into(),
            2,
            DecodeErrorKind::InvalidText { encoding: "ASCII" }
        )
    );
    let mut odd = expected.clone();
    odd[16] = 3;
    odd.truncate(20);
    let e = Profile::decode(&odd).unwrap_err();
    assert_eq!((e.field(), e.offset), ("motto".into(), 19));

    // A NUL code unit inside UTF-16 text is refused; without one before the end, an error.
    assert_eq!(
        refused(Profile {
            title: "a\0".into(),
            ..profile.clone()
        }),
        ("title".into(), EncodeErrorKind::ContainsNul { at: 2 })
    );
    let e = Profile::decode(&expected[..expected.len() - 10]).unwrap_err();
    assert_eq!(
        (e.field(), e.kind),
        ("title".into(), DecodeErrorKind::NoTerminator)
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/encodings.lua"], &[], 0x9123);

    let d = dissect_payloads("encodings", 9123, &[expected.clone(), bad]);
    assert!(d.experts(0, "encodings").is_empty());
    for (field, text) in [
        ("tag", "v1"),
        ("city", "Köln"),
        ("name", "é𝄞"),
        ("motto", "Hi"),
        ("note", "ça"),
        ("code", "AB12"),
        ("title", "bĀ"),
        ("badge", "Hi"),
    ] {
        assert_eq!(value(&d, 0, &format!("encodings.{field}")), text, "{field}");
    }
    assert_eq!(
        d.experts(1, "encodings"),
        ["encodings.expert.invalid_value"]
    );
}
