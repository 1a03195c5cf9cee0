//! Names shared by both backends, so the Rust trace and the dissector agree on every field.

use crate::ir::{Len, Protocol, Role, StructId, Ty};
use heck::ToSnakeCase;

/// Wireshark filter name of a field: `proto.field` on the root type, `proto.type.field` elsewhere
/// (and on every message of an application schema, which has no root of its own).
pub fn abbrev(p: &Protocol, s: StructId, field: usize) -> String {
    member_abbrev(p, s, &p.structs[s].fields[field].name)
}

/// Filter name of the integer of bit group `group` of type `s`, named like a field.
pub fn group_abbrev(p: &Protocol, s: StructId, group: usize) -> String {
    member_abbrev(p, s, &p.structs[s].groups[group].name)
}

fn member_abbrev(p: &Protocol, s: StructId, name: &str) -> String {
    if s == p.root && p.application.is_none() {
        format!("{}.{name}", p.name)
    } else {
        format!("{}.{name}", type_abbrev(p, s))
    }
}

/// What the filter names of a (non-root) type's fields start with: `proto.vec3`.
pub fn type_abbrev(p: &Protocol, s: StructId) -> String {
    format!("{}.{}", p.name, p.structs[s].name.to_snake_case())
}

/// What the filter names of the fields of a `filter:` use start with: `proto.position`.
pub fn use_abbrev(p: &Protocol, filter: &str) -> String {
    format!("{}.{filter}", p.name)
}

/// Filter name of one named bit of a flags field.
pub fn flag_abbrev(field_abbrev: &str, bit: &str) -> String {
    format!("{field_abbrev}.{}", bit.to_snake_case())
}

/// Filter name of padding and alignment bytes, in every type of the schema.
pub fn padding_abbrev(p: &Protocol) -> String {
    format!("{}.padding", p.name)
}

/// Filter name of the hidden length or count prefix of a field.
pub fn prefix_abbrev(field_abbrev: &str) -> String {
    format!("{field_abbrev}.length")
}

/// The name an array's elements are read under when each is framed (`element:`): their size
/// prefixes are then `proto.type.field.element.length`, apart from the array's count prefix.
pub fn element_abbrev(ty: &Ty, array_abbrev: &str) -> String {
    match ty {
        Ty::Struct(_, Some(_)) => format!("{array_abbrev}.element"),
        _ => array_abbrev.to_string(),
    }
}

/// Every filter name a reader of struct `s` notes its fields under: each field's, the length
/// prefix's of one that has one, a framed array element's (and its prefix's), each flag bit's,
/// a checksum's status; each bit group's integer; the padding's where it pads. (An extension
/// renames the notes of types its base crate reads for it by this list.)
pub fn noted_abbrevs(p: &Protocol, s: StructId) -> Vec<String> {
    let st = &p.structs[s];
    let prefixed = |len: &Len| matches!(len, Len::Prefix(_) | Len::VarPrefix(_));
    let mut out = Vec::new();
    for (fi, f) in st.fields.iter().enumerate() {
        let a = abbrev(p, s, fi);
        match &f.ty {
            Ty::Flags(id) => out.extend(p.flags[*id].bits.iter().map(|b| flag_abbrev(&a, &b.name))),
            Ty::Bytes(len) | Ty::Str(len, _) | Ty::Struct(_, Some(len)) if prefixed(len) => {
                out.push(prefix_abbrev(&a));
            }
            Ty::Union(u) if prefixed(&u.len) => out.push(prefix_abbrev(&a)),
            Ty::Array(elem, len) => {
                if prefixed(len) {
                    out.push(prefix_abbrev(&a));
                }
                if let Ty::Struct(_, Some(each)) = &**elem {
                    let element = element_abbrev(elem, &a);
                    if prefixed(each) {
                        out.push(prefix_abbrev(&element));
                    }
                    out.push(element);
                }
            }
            _ => {}
        }
        if matches!(f.role, Role::Checksum(_)) {
            out.push(format!("{a}.status"));
        }
        out.push(a);
    }
    out.extend((0..st.groups.len()).map(|g| group_abbrev(p, s, g)));
    let pads = st.padding.pad.is_some()
        || st
            .fields
            .iter()
            .any(|f| f.padding.pad.is_some() || f.padding.align.is_some());
    if pads {
        out.push(padding_abbrev(p));
    }
    out
}

/// Human label of a field in the dissector tree: `payload_size` → `Payload size`.
pub fn label(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut c = words.chars();
    match c.next() {
        Some(first) => first.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// The generated crate's package name: the protocol's name as it is, so that the name a user
/// writes in `Cargo.toml` is the library's name, its folder's and the dissector's
/// (`riptide_2_1 = { path = ... }`, `use riptide_2_1::…`).
pub fn crate_name(p: &Protocol) -> String {
    p.name.clone()
}

/// What a generated crate or module re-exports from `wiregen-runtime` for its users.
pub const REEXPORTED: &[&str] = &[
    "BitString",
    "Codec",
    "DecodeError",
    "DecodeErrorKind",
    "EncodeError",
    "EncodeErrorKind",
    "FieldNote",
    "IntoOwned",
    "Value",
];

/// What generated code may import from `wiregen-runtime`.
pub const RUNTIME_ITEMS: &[&str] = &[
    "fit",
    "size_from_len",
    "BitReader",
    "BitString",
    "BitWriter",
    "Codec",
    "Checksum",
    "Crc",
    "DecodeError",
    "DecodeErrorKind",
    "EncodeError",
    "EncodeErrorKind",
    "FieldNote",
    "GroupReader",
    "GroupWriter",
    "IntoOwned",
    "MsbBitReader",
    "MsbBitWriter",
    "NoTrace",
    "Notes",
    "Reader",
    "Trace",
    "Value",
    "Within",
    "Writer",
];
