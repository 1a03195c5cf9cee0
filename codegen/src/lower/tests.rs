//! The lowering's decisions on small schemas: what each backend is told, checked where it is
//! decided rather than through generated code.

use super::*;

fn lowered(types: &str) -> (Protocol, Lowered) {
    let source = format!(
        "protocol: {{ name: demo, title: Demo, root: Frame, transport: {{ udp: {{ ports: [9000] }} }} }}\n\
         types:\n{types}"
    );
    let p = crate::validate::load("demo.yaml", &source).unwrap_or_else(|d| panic!("{d}"));
    let l = lower(&p);
    (p, l)
}

fn field<'l>(p: &Protocol, l: &'l Lowered, ty: &str, name: &str) -> &'l FieldPlan {
    let sid = p.structs.iter().position(|s| s.name == ty).unwrap();
    let fi = p.structs[sid].fields.iter().position(|f| f.name == name);
    l.field(sid, fi.unwrap())
}

#[test]
fn a_type_of_fixed_fields_has_one_size_and_a_length_prefix_has_none() {
    let (p, l) = lowered(
        "  Frame:\n    fields:\n\
         \x20     - { name: id, type: u32 }\n\
         \x20     - { name: pos, type: Pos }\n\
         \x20     - { name: name_len, type: u8 }\n\
         \x20     - { name: name, type: string, length: name_len }\n\
         \x20 Pos:\n    fields:\n\
         \x20     - { name: x, type: i16 }\n\
         \x20     - { name: y, type: i16 }\n",
    );
    let pos = p.structs.iter().position(|s| s.name == "Pos").unwrap();
    assert_eq!(l.structs[pos].fixed_size, Some(4));
    assert_eq!(l.structs[p.root].fixed_size, None);
    // The length is known from the value before it is written: no patch, no kept start.
    let len = field(&p, &l, "Frame", "name_len");
    assert_eq!(len.write.size, Some(SizeWrite::FromValue));
    assert!(len.write.patches.is_empty());
    assert!(field(&p, &l, "Frame", "name").write.size_derived);
    assert!(
        !l.borrows[pos] && l.borrows[p.root],
        "only the string borrows"
    );
}

#[test]
fn a_length_of_encoded_data_is_patched_after_it() {
    let (p, l) = lowered(
        "  Frame:\n    fields:\n\
         \x20     - { name: size, type: u16 }\n\
         \x20     - { name: body, type: Body, length: size }\n\
         \x20 Body:\n    fields:\n\
         \x20     - { name: text, type: string, length: \"@remaining\" }\n",
    );
    assert_eq!(
        field(&p, &l, "Frame", "size").write.size,
        Some(SizeWrite::Patched)
    );
    let body = field(&p, &l, "Frame", "body");
    assert!(body.write.keeps_start, "measured from where it starts");
    let size = p
        .root()
        .fields
        .iter()
        .position(|f| f.name == "size")
        .unwrap();
    assert_eq!(body.write.patches, vec![size]);
}

#[test]
fn bit_group_fields_are_bits_of_the_group_integer_from_the_low_end() {
    let (p, l) = lowered(
        "  Frame:\n    fields:\n\
         \x20     - name: control\n        type: u16be\n        fields:\n\
         \x20         - { name: kind, type: u4 }\n\
         \x20         - { name: length, type: u12 }\n",
    );
    let kind = field(&p, &l, "Frame", "kind");
    let length = field(&p, &l, "Frame", "length");
    assert!(matches!(
        kind.access,
        Access::Group {
            shift: 0,
            width: 4,
            ..
        }
    ));
    assert!(matches!(
        length.access,
        Access::Group {
            shift: 4,
            width: 12,
            ..
        }
    ));
    assert!(kind.access.is_bits());
}

#[test]
fn the_coders_locals_never_shadow_a_field() {
    let (p, l) = lowered(
        "  Frame:\n    fields:\n\
         \x20     - { name: start, type: u8 }\n\
         \x20     - { name: magic, type: u16, const: 0xD1CE }\n\
         \x20     - { name: magic_at, type: u8 }\n\
         \x20     - { name: sum, type: u16, checksum: { algorithm: crc16-ccitt-false } }\n",
    );
    assert_eq!(l.structs[p.root].start, "start_");
    assert_eq!(field(&p, &l, "Frame", "magic").locals.at, "magic_at_");
    assert_eq!(field(&p, &l, "Frame", "sum").locals.at, "sum_at");
    assert!(field(&p, &l, "Frame", "magic").decode_start);
}

fn as_slices(routes: &[Vec<RouteStep>]) -> Vec<&[RouteStep]> {
    routes.iter().map(Vec::as_slice).collect()
}

/// `routes_cover_root`: whether a `match` on the ways a root holds some types needs a
/// catch-all (application crates over a transport).
#[test]
fn routes_cover_the_root_only_when_every_variant_leads_to_a_target() {
    use super::analysis::{routes_cover_root, routes_to};
    let (p, _) = lowered(
        "  Frame:\n    fields:\n\
         \x20     - { name: kind, type: u8 }\n\
         \x20     - { name: body, switch: { on: kind, cases: { 1: Data, 2: Ping, 3: empty } } }\n\
         \x20 Data:\n    fields:\n\
         \x20     - { name: x, type: u8 }\n\
         \x20 Ping:\n    fields:\n\
         \x20     - { name: id, type: u16 }\n",
    );
    let id = |name: &str| p.structs.iter().position(|s| s.name == name).unwrap();
    let (data, ping) = (routes_to(&p, id("Data")), routes_to(&p, id("Ping")));
    let slices = |routes: &[&Vec<Vec<RouteStep>>]| -> Vec<Vec<RouteStep>> {
        routes.iter().flat_map(|r| r.iter().cloned()).collect()
    };
    let both = slices(&[&data, &ping]);
    // Kind 3 carries nothing: Data and Ping together still leave it to a catch-all.
    assert!(!routes_cover_root(&p, &as_slices(&data)));
    assert!(!routes_cover_root(&p, &as_slices(&both)));
    // The root itself is a target: every datagram is one.
    let root = routes_to(&p, p.root);
    assert!(root.len() == 1 && root[0].is_empty());
    assert!(routes_cover_root(&p, &as_slices(&root)));

    let (p, _) = lowered(
        "  Frame:\n    fields:\n\
         \x20     - { name: kind, type: u8 }\n\
         \x20     - { name: body, switch: { on: kind, cases: { 1: Data }, default: Ping } }\n\
         \x20 Data:\n    fields:\n\
         \x20     - { name: x, type: u8 }\n\
         \x20 Ping:\n    fields:\n\
         \x20     - { name: id, type: u16 }\n",
    );
    let id = |name: &str| p.structs.iter().position(|s| s.name == name).unwrap();
    let data = routes_to(&p, id("Data"));
    let both = slices(&[&data, &routes_to(&p, id("Ping"))]);
    // Every case and the default lead to a target.
    assert!(!routes_cover_root(&p, &as_slices(&data)));
    assert!(routes_cover_root(&p, &as_slices(&both)));
}
