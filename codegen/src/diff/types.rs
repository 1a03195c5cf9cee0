//! Types compared structurally from the two roots: fields paired by name (or, renamed, by place
//! and shape), then each pair's type, size rule, presence and role; switches case by case.

use super::walk::{At, Pairs, Walk};
use super::{Class, Differ, Rule};
use crate::backend::doc::text;
use crate::ir::*;
use std::collections::HashSet;

/// Compares every pair of types reached from the roots (from each application message by id
/// too); gives the enum and flag pairs met.
pub fn compare(d: &mut Differ) -> Pairs {
    let mut w = Walk {
        queue: vec![(d.old.p.root, d.new.p.root)],
        seen: HashSet::new(),
        pairs: Pairs::default(),
    };
    if let (Some(oa), Some(na)) = (&d.old.p.application, &d.new.p.application) {
        for (id, os) in &oa.messages {
            match na.messages.iter().find(|(i, _)| i == id) {
                Some((_, ns)) => w.queue.push((*os, *ns)),
                None => d.push(
                    Class::Breaking,
                    Rule::MessageRemoved,
                    d.old.p.structs[*os].name.clone(),
                    format!("application message {id} is gone"),
                    d.old.at(&format!("types.{}", d.old.p.structs[*os].name)),
                    None,
                ),
            }
        }
        for (id, ns) in &na.messages {
            if !oa.messages.iter().any(|(i, _)| i == id) {
                let name = d.new.p.structs[*ns].name.clone();
                d.push(
                    Class::Safe,
                    Rule::MessageAdded,
                    name.clone(),
                    format!(
                        "application message {id} is new (old readers keep unknown ids as bytes)"
                    ),
                    None,
                    d.new.at(&format!("types.{name}")),
                );
            }
        }
    }
    while let Some((os, ns)) = w.queue.pop() {
        if w.seen.insert((os, ns)) {
            structure(d, &mut w, os, ns);
        }
    }
    w.pairs
}

/// The fields of old type `os` and new type `ns` that are one field: paired by name, then
/// unpaired ones at the same place with the same wire shape as a rename (said as one).
fn paired_fields(d: &mut Differ, os: StructId, ns: StructId) -> Vec<(usize, usize)> {
    let (o, n) = (&d.old.p.structs[os], &d.new.p.structs[ns]);
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (oi, of) in o.fields.iter().enumerate() {
        if let Some(ni) = n.fields.iter().position(|nf| nf.name == of.name) {
            pairs.push((oi, ni));
        }
    }
    for oi in 0..o.fields.len() {
        let unpaired_old = !pairs.iter().any(|(a, _)| *a == oi);
        let unpaired_new = oi < n.fields.len() && !pairs.iter().any(|(_, b)| *b == oi);
        if unpaired_old
            && unpaired_new
            && shape(&d.old.p, &o.fields[oi].ty) == shape(&d.new.p, &n.fields[oi].ty)
        {
            d.push(
                Class::DissectorOnly,
                Rule::FieldRenamed,
                format!("{}.{}", n.name, n.fields[oi].name),
                format!(
                    "`{}` → `{}`: its filter name and Rust name change",
                    o.fields[oi].name, n.fields[oi].name
                ),
                d.old.field_at(&o.name, &o.fields[oi].name),
                d.new.field_at(&n.name, &n.fields[oi].name),
            );
            pairs.push((oi, oi));
        }
    }
    pairs
}

fn structure(d: &mut Differ, w: &mut Walk, os: StructId, ns: StructId) {
    let (o, n) = (&d.old.p.structs[os], &d.new.p.structs[ns]);
    let (oat, nat) = (
        d.old.at(&format!("types.{}", o.name)),
        d.new.at(&format!("types.{}", n.name)),
    );
    if o.name != n.name {
        d.push(
            Class::DissectorOnly,
            Rule::TypeRenamed,
            n.name.clone(),
            format!(
                "`{}` → `{}`: its fields' filter names and its Rust name change",
                o.name, n.name
            ),
            oat.clone(),
            nat.clone(),
        );
    }
    // A type takes the protocol's layout unless it sets one: the protocol's change is said once.
    let (op, np) = d.protocols();
    let inherited = o.layout == op.layout && n.layout == np.layout;
    if (o.layout != n.layout && !inherited) || o.padding != n.padding {
        d.push(
            Class::Breaking,
            Rule::TypeLayoutChanged,
            n.name.clone(),
            "its layout or padding changed".into(),
            oat,
            nat,
        );
    }
    let mut pairs = paired_fields(d, os, ns);
    pairs.sort();
    let mut highest = None;
    for &(oi, ni) in &pairs {
        if highest.is_some_and(|h| ni < h) {
            d.push(
                Class::Breaking,
                Rule::FieldMoved,
                format!("{}.{}", n.name, n.fields[ni].name),
                format!(
                    "now field {} (was {}): it and the fields around it move",
                    ni + 1,
                    oi + 1
                ),
                d.old.field_at(&o.name, &o.fields[oi].name),
                d.new.field_at(&n.name, &n.fields[ni].name),
            );
        }
        highest = highest.max(Some(ni));
    }
    for (oi, of) in o.fields.iter().enumerate() {
        if !pairs.iter().any(|(a, _)| *a == oi) {
            d.push(
                Class::Breaking,
                Rule::FieldRemoved,
                format!("{}.{}", o.name, of.name),
                "removed: the fields after it move".into(),
                d.old.field_at(&o.name, &of.name),
                None,
            );
        }
    }
    let last_paired = pairs.iter().map(|(_, b)| *b).max();
    for (ni, nf) in n.fields.iter().enumerate() {
        if pairs.iter().any(|(_, b)| *b == ni) {
            continue;
        }
        let trailing = last_paired.is_none_or(|l| ni > l);
        let (class, message) = if trailing && nf.condition.is_some() {
            (
                Class::Safe,
                "a trailing optional field: absent from old messages, left unread by old readers that stop at their last field",
            )
        } else if trailing {
            (
                Class::Breaking,
                "a trailing field every new message carries: old messages lack it",
            )
        } else {
            (Class::Breaking, "added: the fields after it move")
        };
        d.push(
            class,
            Rule::FieldAdded,
            format!("{}.{}", n.name, nf.name),
            message.into(),
            None,
            d.new.field_at(&n.name, &nf.name),
        );
    }
    for (oi, ni) in pairs {
        field(d, w, (os, oi), (ns, ni));
    }
}

fn field(d: &mut Differ, w: &mut Walk, (os, oi): (StructId, usize), (ns, ni): (StructId, usize)) {
    let (op, np) = d.protocols();
    let (of, nf) = (&op.structs[os].fields[oi], &np.structs[ns].fields[ni]);
    let path = format!("{}.{}", np.structs[ns].name, nf.name);
    let at = (
        d.old.field_at(&op.structs[os].name, &of.name),
        d.new.field_at(&np.structs[ns].name, &nf.name),
    );
    let breaking = |d: &mut Differ, rule: Rule, message: String| {
        d.push(
            Class::Breaking,
            rule,
            path.clone(),
            message,
            at.0.clone(),
            at.1.clone(),
        );
    };
    let packing = |p: &Protocol, s: StructId, i: usize| {
        p.packing(s, i)
            .map(|(g, shift, width)| (g.int, shift, width))
    };
    if packing(op, os, oi) != packing(np, ns, ni) {
        breaking(
            d,
            Rule::BitsMoved,
            "its bits in its group's integer changed".into(),
        );
    }
    let cond = |p: &Protocol, f: &Field| f.condition.as_ref().map(|c| text::expr(p, c));
    if cond(op, of) != cond(np, nf) {
        breaking(
            d,
            Rule::ConditionChanged,
            format!(
                "present {} → {}",
                cond(op, of).map_or("always".into(), |c| format!("when `{c}`")),
                cond(np, nf).map_or("always".into(), |c| format!("when `{c}`"))
            ),
        );
    }
    let role_o = role(op, os, of);
    let role_n = role(np, ns, nf);
    if role_o != role_n {
        breaking(d, Rule::RoleChanged, format!("{role_o} → {role_n}"));
    }
    if of.max != nf.max || of.valid != nf.valid {
        breaking(
            d,
            Rule::ValidValuesChanged,
            "its allowed values changed: one side refuses what the other sends".into(),
        );
    }
    if of.compression != nf.compression || of.padding != nf.padding || of.packed != nf.packed {
        breaking(
            d,
            Rule::EncodingChanged,
            "its compression, padding or packing changed".into(),
        );
    }
    if of.doc != nf.doc {
        d.push_at(
            Class::DissectorOnly,
            Rule::DocChanged,
            path.clone(),
            "its description changed",
            &at,
        );
    }
    if of.filter != nf.filter || of.display != nf.display {
        d.push_at(
            Class::DissectorOnly,
            Rule::DisplayChanged,
            path.clone(),
            "its filter names or display changed",
            &at,
        );
    }
    ty(d, w, &of.ty, &nf.ty, &path, &at);
}

/// Who sets a field, in words both sides compare by (names, not indexes).
fn role(p: &Protocol, sid: StructId, f: &Field) -> String {
    let name = |i: usize| p.structs[sid].fields[i].name.clone();
    match &f.role {
        Role::Value => "set by the sender".into(),
        // A negative one as written: its bits would read as another number.
        Role::Const(_) if f.const_negative() => {
            format!("constant {}", f.const_literal().unwrap_or_default())
        }
        Role::Const(c) => format!("constant {c}"),
        Role::Reserved => "reserved".into(),
        Role::Derived(Derive::LengthOf(i, l)) => {
            format!("length of `{}` ({}x+{})", name(*i), l.mul, l.add)
        }
        Role::Derived(Derive::CountOf(i, l)) => {
            format!("count of `{}` ({}x+{})", name(*i), l.mul, l.add)
        }
        Role::Derived(Derive::TagOf(i)) => format!("tag of `{}`", name(*i)),
        Role::Derived(Derive::PresenceOf(i)) => format!("presence of `{}`", name(*i)),
        Role::Derived(Derive::AbsenceOf(i)) => format!("absence of `{}`", name(*i)),
        Role::Checksum(c) => format!(
            "checksum {} from {} to {}",
            c.algo.name(),
            c.from.map_or("start".into(), name),
            c.to.map_or("end".into(), name)
        ),
    }
}

fn ty(d: &mut Differ, w: &mut Walk, o: &Ty, n: &Ty, path: &str, at: &At) {
    let (op, np) = d.protocols();
    let breaking = |d: &mut Differ, rule: Rule, message: String| {
        d.push_at(Class::Breaking, rule, path, message, at);
    };
    let len = |d: &mut Differ, a: &Len, b: &Len, array: bool| {
        let (ta, tb) = (text::len(op, a, array), text::len(np, b, array));
        if ta != tb {
            d.push_at(
                Class::Breaking,
                Rule::SizeRuleChanged,
                path,
                format!("size: {ta} → {tb}"),
                at,
            );
        }
    };
    match (o, n) {
        (Ty::Int(a), Ty::Int(b)) => int(d, a, b, path, at),
        (
            Ty::Float {
                bits: a,
                endian: ea,
            },
            Ty::Float {
                bits: b,
                endian: eb,
            },
        ) => {
            if a != b {
                breaking(d, Rule::WidthChanged, format!("f{a} → f{b}"));
            } else if ea != eb {
                breaking(d, Rule::ByteOrderChanged, "its byte order changed".into());
            }
        }
        (Ty::VarInt(a), Ty::VarInt(b)) if a != b => breaking(
            d,
            Rule::EncodingChanged,
            format!("{} → {}", shape(op, o), shape(np, n)),
        ),
        (Ty::Enum(a), Ty::Enum(b)) => {
            int(d, &op.enums[*a].repr, &np.enums[*b].repr, path, at);
            w.pairs.enums.push((*a, *b));
        }
        (Ty::Flags(a), Ty::Flags(b)) => {
            int(d, &op.flags[*a].repr, &np.flags[*b].repr, path, at);
            w.pairs.flags.push((*a, *b));
        }
        (Ty::Bytes(a), Ty::Bytes(b)) => len(d, a, b, false),
        (Ty::Str(a, ta), Ty::Str(b, tb)) => {
            if ta != tb {
                breaking(
                    d,
                    Rule::TextChanged,
                    format!("{} → {}", shape(op, o), shape(np, n)),
                );
            }
            len(d, a, b, false);
        }
        (Ty::Struct(a, la), Ty::Struct(b, lb)) => {
            let natural = Len::Natural;
            len(
                d,
                la.as_ref().unwrap_or(&natural),
                lb.as_ref().unwrap_or(&natural),
                false,
            );
            w.queue.push((*a, *b));
        }
        (Ty::Array(a, la), Ty::Array(b, lb)) => {
            len(d, la, lb, true);
            ty(d, w, a, b, path, at);
        }
        (Ty::Union(a), Ty::Union(b)) => {
            len(d, &a.len, &b.len, false);
            super::switches::compare(d, w, a, b, path, at);
        }
        (Ty::Bool, Ty::Bool) | (Ty::Bits, Ty::Bits) | (Ty::VarInt(_), Ty::VarInt(_)) => {}
        _ => breaking(
            d,
            Rule::TypeChanged,
            format!("{} → {}", shape(op, o), shape(np, n)),
        ),
    }
}

fn int(d: &mut Differ, a: &IntTy, b: &IntTy, path: &str, at: &At) {
    let message = if a.bits != b.bits || a.signed != b.signed {
        Some((Rule::WidthChanged, format!("{} → {}", a.name(), b.name())))
    } else if a.endian != b.endian && a.bits > 8 {
        Some((
            Rule::ByteOrderChanged,
            format!("{} → {}", a.endian.words(), b.endian.words()),
        ))
    } else {
        None
    };
    if let Some((rule, message)) = message {
        d.push_at(Class::Breaking, rule, path, message, at);
    }
}

/// A type's wire form without its names: two fields of one shape read the same bytes.
pub(super) fn shape(p: &Protocol, t: &Ty) -> String {
    match t {
        Ty::Int(it) if it.bits > 8 => format!("{} {}", it.name(), it.endian.words()),
        Ty::Int(it) => it.name(),
        Ty::Bool => "bool".into(),
        Ty::Float { bits, endian } => format!("f{bits} {}", endian.words()),
        Ty::VarInt(_) => text::ty(p, t).replace('`', ""),
        Ty::Enum(id) => format!("enum of {}", shape(p, &Ty::Int(p.enums[*id].repr))),
        Ty::Flags(id) => format!("flags of {}", shape(p, &Ty::Int(p.flags[*id].repr))),
        Ty::Bytes(l) => format!("bytes ({})", text::len(p, l, false)),
        Ty::Str(l, t) => format!(
            "{} {:?} text ({})",
            t.encoding.name(),
            t.nul,
            text::len(p, l, false)
        ),
        Ty::Bits => "bits".into(),
        Ty::Struct(id, _) => format!("type {}", p.structs[*id].name),
        Ty::Array(e, l) => format!("{} array ({})", shape(p, e), text::len(p, l, true)),
        Ty::Union(u) => format!("switch on {}", text::expr(p, &u.on)),
    }
}
