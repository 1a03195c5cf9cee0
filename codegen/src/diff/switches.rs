//! A switch's cases compared: paired by name (a changed tag is the case's change), a tag another
//! case now answers is a replaced message, new cases are safe only where old readers keep
//! unknown tags.

use super::walk::{At, Walk};
use super::{Class, Differ, Rule};
use crate::backend::doc::text;
use crate::ir::*;

pub fn compare(d: &mut Differ, w: &mut Walk, o: &Union, n: &Union, path: &str, at: &At) {
    tag_changes(d, o, n, path, at);
    let (op, np) = d.protocols();
    let (old_side, new_side) = (d.old, d.new);
    let (ty_name, field_name) = path.split_once('.').unwrap_or((path, ""));
    let old_at = |c: &Case| old_side.case_at(ty_name, field_name, &tag_name(op, o, c));
    let new_at = |c: &Case| new_side.case_at(ty_name, field_name, &tag_name(np, n, c));
    // Cases pair by name (a renumbered tag is the case's own change); a tag another case now
    // answers is a replaced message.
    for oc in &o.cases {
        let here = format!("{path}.{}", oc.variant);
        if let Some(nc) = n.cases.iter().find(|nc| nc.variant == oc.variant) {
            if tags(oc) != tags(nc) {
                d.push(
                    Class::Breaking,
                    Rule::CaseRetagged,
                    here.clone(),
                    format!("tag {} → {}", tags(oc), tags(nc)),
                    old_at(oc),
                    new_at(nc),
                );
            }
            case_body(
                d,
                w,
                (&oc.variant, &oc.body),
                (&nc.variant, &nc.body),
                &here,
                &tags(nc),
                at,
            );
        } else if let Some(nc) = n.cases.iter().find(|nc| tags(nc) == tags(oc)) {
            d.push(
                Class::Breaking,
                Rule::CaseReplaced,
                here,
                format!(
                    "tag {} now holds `{}` (was `{}`)",
                    tags(oc),
                    nc.variant,
                    oc.variant
                ),
                old_at(oc),
                new_at(nc),
            );
        } else {
            let fate = if n.default.is_some() {
                "its messages are read as the default"
            } else {
                "its messages are refused"
            };
            d.push(
                Class::Breaking,
                Rule::CaseRemoved,
                here,
                format!("tag {} no longer has a case: {fate}", tags(oc)),
                old_at(oc),
                at.1.clone(),
            );
        }
    }
    added_cases(d, o, n, path, &new_at);
    match (&o.default, &n.default) {
        (Some(a), Some(b)) => case_body(
            d,
            w,
            (&o.default_variant, a),
            (&n.default_variant, b),
            &format!("{path}.{}", n.default_variant),
            "default",
            at,
        ),
        (Some(_), None) => d.push_at(
            Class::Breaking,
            Rule::CaseRemoved,
            path,
            "the default case is gone: unknown tags are now refused",
            at,
        ),
        (None, Some(_)) => d.push_at(
            Class::Safe,
            Rule::CaseAdded,
            path,
            "a default case is new: unknown tags are kept",
            at,
        ),
        (None, None) => {}
    }
}

/// The tag a switch reads, or its `unless`, changed: every message reads another way.
fn tag_changes(d: &mut Differ, o: &Union, n: &Union, path: &str, at: &At) {
    let (op, np) = d.protocols();
    let (to, tn) = (text::expr(op, &o.on), text::expr(np, &n.on));
    if to != tn {
        d.push_at(
            Class::Breaking,
            Rule::SwitchTagChanged,
            path,
            format!("switch on `{to}` → `{tn}`"),
            at,
        );
    }
    let unless = |p: &Protocol, u: &Union| u.unless.as_ref().map(|e| text::expr(p, e));
    if unless(op, o) != unless(np, n) {
        d.push_at(
            Class::Breaking,
            Rule::SwitchTagChanged,
            path,
            "its `unless` changed",
            at,
        );
    }
}

/// A case's tags as the schema writes them: `1, 4..=6`.
fn tags(c: &Case) -> String {
    let key = |v: &CaseValue| match v {
        CaseValue::One(x) => x.to_string(),
        CaseValue::Range(a, b) => format!("{a}..={b}"),
    };
    c.values.iter().map(key).collect::<Vec<_>>().join(", ")
}

/// Cases only the new version has (not a renamed old one): safe where old readers keep the
/// tag as their default, breaking where they read it as another case or refuse it.
fn added_cases(
    d: &mut Differ,
    o: &Union,
    n: &Union,
    path: &str,
    new_at: &dyn Fn(&Case) -> Option<String>,
) {
    for nc in &n.cases {
        let renamed =
            |oc: &&Case| tags(oc) == tags(nc) && !n.cases.iter().any(|c| c.variant == oc.variant);
        if o.cases.iter().any(|oc| oc.variant == nc.variant)
            || o.cases.iter().any(|oc| renamed(&oc))
        {
            continue;
        }
        {
            let held = o
                .cases
                .iter()
                .find(|oc| tags(oc) == tags(nc))
                .map(|oc| oc.variant.clone());
            let (class, why) = match (held, &o.default) {
                (Some(old), _) => (Class::Breaking, format!("old readers read it as `{old}`")),
                (None, Some(_)) => (
                    Class::Safe,
                    "old readers keep it as their default case".to_string(),
                ),
                (None, None) => (Class::Breaking, "old readers refuse the tag".to_string()),
            };
            d.push(
                class,
                Rule::CaseAdded,
                format!("{path}.{}", nc.variant),
                format!("tag {} is new: {why}", tags(nc)),
                None,
                new_at(nc),
            );
        }
    }
}

fn case_body(
    d: &mut Differ,
    w: &mut Walk,
    (ov, ob): (&str, &CaseBody),
    (nv, nb): (&str, &CaseBody),
    path: &str,
    tag: &str,
    at: &At,
) {
    let (op, np) = d.protocols();
    match (ob, nb) {
        (CaseBody::Struct(a), CaseBody::Struct(b)) | (CaseBody::Array(a), CaseBody::Array(b)) => {
            w.queue.push((*a, *b));
        }
        (CaseBody::Bytes, CaseBody::Bytes) | (CaseBody::Empty, CaseBody::Empty) => {}
        _ => {
            let message = format!("tag {tag}: {} → {}", body(op, ob), body(np, nb));
            return d.push_at(Class::Breaking, Rule::CaseBodyChanged, path, message, at);
        }
    }
    if ov != nv {
        let message = format!("case `{ov}` → `{nv}`");
        d.push_at(Class::DissectorOnly, Rule::CaseRenamed, path, message, at);
    }
}

/// How a schema names case `c`'s (first) tag: its enum value's name when the switch is on an
/// enum, else the number.
fn tag_name(p: &Protocol, u: &Union, c: &Case) -> String {
    let value = match c.values.first() {
        Some(CaseValue::One(v)) => *v,
        Some(CaseValue::Range(lo, hi)) => return format!("{lo}..{hi}"),
        None => return String::new(),
    };
    let named = u.tag_name(p, value);
    named.map_or(value.to_string(), |v| v.name.clone())
}

fn body(p: &Protocol, b: &CaseBody) -> String {
    match b {
        CaseBody::Struct(id) => format!("`{}`", p.structs[*id].name),
        CaseBody::Array(id) => format!("`{}[]`", p.structs[*id].name),
        CaseBody::Bytes => "bytes".into(),
        CaseBody::Empty => "nothing".into(),
    }
}
