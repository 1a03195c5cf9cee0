//! A type's field table and its switches' case tables.

use super::model::Document;
use super::text::{self, expr, type_link};
use crate::ir::*;
use crate::lower::Lowered;
use crate::naming;

pub const HEAD: [&str; 10] = [
    "Field",
    "Offset",
    "Size",
    "Type",
    "Byte order",
    "Present",
    "Set by",
    "Values",
    "Wireshark filter",
    "Rust",
];

/// One field's row.
pub fn row(p: &Protocol, l: &Lowered, sid: StructId, fi: usize) -> Vec<String> {
    let s = &p.structs[sid];
    let f = &s.fields[fi];
    let place = l.structs[sid].placements[fi];
    let bit_stream = s.layout.is_bits();
    let offset = match place.offset {
        Some(at) => text::offset(at, bit_stream),
        None => match last_unfixed(p, l, sid, fi) {
            Some(before) => format!("after `{before}`"),
            None => "—".into(),
        },
    };
    let mut size = match (place.bits, &f.ty) {
        (Some(b), _) => text::bits(b),
        (None, Ty::Bytes(len) | Ty::Str(len, _) | Ty::Struct(_, Some(len))) => {
            text::len(p, len, false)
        }
        (None, Ty::Array(_, len)) => text::len(p, len, true),
        (None, Ty::Union(u)) => text::len(p, &u.len, false),
        (None, Ty::VarInt(_)) => "variable (a varint)".into(),
        (None, Ty::Bits) => "the rest of the bit stream".into(),
        (None, _) => "variable".into(),
    };
    if let Some(g) = f.group.map(|g| &s.groups[g]) {
        if let Some((_, shift, width)) = p.packing(sid, fi) {
            size = format!(
                "{} (bits {}–{} of the `{}` `{}`)",
                text::bits(u64::from(width)),
                shift,
                shift + width - 1,
                g.int.name(),
                g.name
            );
        }
    }
    if let Some(c) = &f.compression {
        size = format!(
            "{size}, {}-compressed (at most {} bytes inflated)",
            c.method.name(),
            c.max
        );
    }
    vec![
        format!("`{}`", f.name) + &f.doc.as_ref().map(|d| format!(": {d}")).unwrap_or_default(),
        offset,
        size,
        text::ty(p, &f.ty),
        byte_order(p, &f.ty, bit_stream || f.group.is_some()),
        f.condition
            .as_ref()
            .map_or("always".into(), |c| format!("when `{}`", expr(p, c))),
        set_by(s, f),
        values(p, s, f),
        format!("`{}`", naming::abbrev(p, sid, fi)),
        match f.role {
            Role::Value => format!("`{}`", crate::backend::rust::rust_name(&f.name)),
            _ => "— (derived)".into(),
        },
    ]
}

/// The field after which `fi`'s offset stops being fixed: the last one before it of variable
/// size or presence.
fn last_unfixed(p: &Protocol, l: &Lowered, sid: StructId, fi: usize) -> Option<String> {
    let s = &p.structs[sid];
    (0..fi)
        .rev()
        .find(|&i| l.structs[sid].placements[i].bits.is_none() || s.fields[i].condition.is_some())
        .map(|i| s.fields[i].name.clone())
}

fn byte_order(p: &Protocol, ty: &Ty, bits: bool) -> String {
    let it = match ty {
        Ty::Int(it) => Some(*it),
        Ty::Enum(id) => Some(p.enums[*id].repr),
        Ty::Flags(id) => Some(p.flags[*id].repr),
        Ty::Float { bits, endian } => Some(IntTy {
            bits: *bits,
            signed: false,
            endian: *endian,
        }),
        Ty::Str(_, t) => match t.encoding {
            Encoding::Utf16 { big } => return if big { "big" } else { "little" }.into(),
            _ => None,
        },
        _ => None,
    };
    match it {
        Some(it) if it.bits > 8 && !bits => match it.endian {
            Endian::Little => "little".into(),
            Endian::Big => "big".into(),
        },
        _ => "—".into(),
    }
}

/// Who gives the field its value.
fn set_by(s: &Struct, f: &Field) -> String {
    let name = |i: usize| format!("`{}`", s.fields[i].name);
    let linear = |lin: Linear| {
        if lin == Linear::IDENTITY {
            String::new()
        } else {
            format!(" (that = {} × this + {})", lin.mul, lin.add)
        }
    };
    match &f.role {
        Role::Value => "sender".into(),
        Role::Const(_) => format!("constant `{}`", f.const_literal().unwrap_or_default()),
        Role::Derived(Derive::LengthOf(i, lin)) => {
            format!("encoder: byte length of {}{}", name(*i), linear(*lin))
        }
        Role::Derived(Derive::CountOf(i, lin)) => {
            format!("encoder: element count of {}{}", name(*i), linear(*lin))
        }
        Role::Derived(Derive::TagOf(i)) => format!("encoder: the case of {}", name(*i)),
        Role::Derived(Derive::PresenceOf(i)) => {
            format!("encoder: set when {} is present", name(*i))
        }
        Role::Derived(Derive::AbsenceOf(i)) => format!("encoder: set when {} is absent", name(*i)),
        Role::Checksum(_) => "encoder: checksum (below)".into(),
        Role::Reserved => "zero (reserved; any value read)".into(),
    }
}

/// The values a field may take beyond its type's.
fn values(p: &Protocol, s: &Struct, f: &Field) -> String {
    let mut out = Vec::new();
    if let Some(max) = f.max {
        out.push(format!("at most {max}"));
    }
    match &f.valid {
        Some(Valid::Range { min, max }) => out.push(format!(
            "{}..={}",
            min.map(|m| m.to_string()).unwrap_or_default(),
            max.map(|m| m.to_string()).unwrap_or_default()
        )),
        Some(Valid::List(list)) => out.push(format!(
            "one of {}",
            list.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => {}
    }
    for i in &f.implied {
        let when = match &i.when {
            ImpliedWhen::Present(fi) | ImpliedWhen::Absent(fi) => {
                let present = matches!(i.when, ImpliedWhen::Present(_));
                format!(
                    "`{}` is {}",
                    s.fields[*fi].name,
                    if present { "present" } else { "absent" }
                )
            }
            ImpliedWhen::Holds(_, text) => format!("`{text}`"),
            ImpliedWhen::Variant { field, case, .. } => match &s.fields[*field].ty {
                Ty::Union(u) => format!(
                    "`{}` is `{}`",
                    s.fields[*field].name, u.cases[*case].variant
                ),
                _ => format!("`{}` holds case {case}", s.fields[*field].name),
            },
        };
        let what = match i.value {
            ImpliedValue::Bit(mask) => match &f.ty {
                Ty::Flags(id) => p.flags[*id]
                    .bits
                    .iter()
                    .find(|b| b.value == mask)
                    .map_or(format!("bit {mask:#x}"), |b| format!("`{}`", b.name)),
                _ => format!("bit {mask:#x}"),
            },
            ImpliedValue::Equals(v) => format!("{v}"),
            ImpliedValue::Solved => match &i.when {
                ImpliedWhen::Variant { value, .. } => format!("`{}`", super::text::expr(p, value)),
                _ => "the tag's value".into(),
            },
        };
        out.push(format!("encoder sets {what} when {when}"));
    }
    out.join("; ")
}

/// A switch field's cases.
pub fn switch(d: &mut Document, p: &Protocol, sid: StructId, fi: usize, u: &Union) {
    let f = &p.structs[sid].fields[fi];
    d.heading(
        4,
        format!(
            "`{}.{}`: switch on `{}`",
            p.structs[sid].name,
            f.name,
            expr(p, &u.on)
        ),
        format!("{}-{}", text::anchor("type", &p.structs[sid].name), f.name),
    );
    let mut words = format!(
        "Rust: the enum `{}`; its size: {}.",
        p.union_name(sid, fi),
        text::len(p, &u.len, false)
    );
    if let Some(unless) = &u.unless {
        words.push_str(&format!(
            " When `{}` it is `{}` whatever the tag.",
            expr(p, unless),
            u.default_variant
        ));
    }
    d.para(words);
    let value = |v: u64| match u.tag_name(p, v) {
        Some(c) => format!(
            "`{}` ({})",
            c.name,
            c.hex.clone().unwrap_or_else(|| v.to_string())
        ),
        None => format!("`{v}`"),
    };
    let body = |b: &CaseBody| match b {
        CaseBody::Struct(id) => type_link(p, *id),
        CaseBody::Array(id) => format!("{} values to the end", type_link(p, *id)),
        CaseBody::Bytes => "bytes".into(),
        CaseBody::Empty => "nothing".into(),
    };
    let mut rows: Vec<Vec<String>> = u
        .cases
        .iter()
        .map(|c| {
            let tags: Vec<String> = c
                .values
                .iter()
                .map(|v| match v {
                    CaseValue::One(v) => value(*v),
                    CaseValue::Range(lo, hi) => format!("`{lo}..={hi}`"),
                })
                .collect();
            vec![
                tags.join(", "),
                format!("`{}`", c.variant),
                body(&c.body),
                c.doc.clone().unwrap_or_default(),
            ]
        })
        .collect();
    rows.push(vec![
        "any other".into(),
        format!("`{}`", u.default_variant),
        u.default
            .as_ref()
            .map_or("an error: unknown tag".into(), body),
        String::new(),
    ]);
    d.table(vec!["Tag", "Case", "Holds", "Meaning"], rows);
}
