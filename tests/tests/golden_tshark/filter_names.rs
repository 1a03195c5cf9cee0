//! Filter names per use of a shared struct (`filter:`): the dissector shows two `Vec3` fields
//! as `filter_names.position.x` and `filter_names.velocity.x`, and the crate's dissect trace
//! notes them under the same names, so that the two agree field by field.

use super::*;
use wiregen_golden::filter_names::{Aim, AimFlags, Body, Protocol, Vec3};

#[test]
fn filter_names_per_use_agree_between_crate_and_dissector() {
    let v = |x: f32, y: f32, z: i16| Vec3 { x, y, z };
    let body = Body {
        position: v(1.0, 2.0, 3),
        velocity: v(-1.0, 0.5, -4),
        spin: v(0.0, 0.0, 7),
        route: vec![v(10.0, 20.0, 1), v(30.0, 40.0, 2)],
        look: Aim {
            target: v(5.0, 6.0, 8),
            flags: AimFlags::LOCKED,
        },
    };
    let bytes = body.encode().unwrap();
    // Three 10-byte Vec3s, the route's count and two more, the aim's Vec3 and its flags.
    assert_eq!(bytes.len(), 30 + 1 + 20 + 10 + 1);
    assert_eq!(Body::decode(&bytes).unwrap(), body);
    let (_, notes) = Body::dissect(&bytes);
    let names: Vec<&str> = notes.iter().map(|n| n.abbrev).collect();
    assert_eq!(
        &names[..9],
        [
            "filter_names.position.x",
            "filter_names.position.y",
            "filter_names.position.z",
            "filter_names.velocity.x",
            "filter_names.velocity.y",
            "filter_names.velocity.z",
            "filter_names.vec3.x",
            "filter_names.vec3.y",
            "filter_names.vec3.z",
        ]
    );
    // The aim's own fields are renamed; the Vec3 inside it keeps its type's names.
    assert!(names.contains(&"filter_names.sight.flags.locked"));
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "filter_names.waypoint.z")
            .count(),
        2
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "filter_names.vec3.z")
            .count(),
        2
    );

    verify_protocol::<Protocol>(&["codegen/tests/golden/filter_names.lua"], &[], 0x9135);

    let d = dissect_payloads("filter_names", 9135, &[bytes]);
    assert!(d.experts(0, "filter_names").is_empty());
    assert_eq!(value(&d, 0, "filter_names.position.z"), "3");
    assert_eq!(value(&d, 0, "filter_names.velocity.z"), "-4");
    assert_eq!(shown(&d, 0, "filter_names.vec3.z"), ["7", "8"]);
    assert_eq!(shown(&d, 0, "filter_names.waypoint.z"), ["1", "2"]);
    assert_eq!(value(&d, 0, "filter_names.sight.flags.locked"), "1");
}
