//! Enums and flag sets used in the same places, value by value: a name's number changed or gone
//! is breaking, a number's name changed is the dissector's (and the Rust API's), a new value is
//! safe where old readers keep values they do not know (an open enum, any flag set).

use super::walk::Pairs;
use super::{Class, Differ, Rule};
use crate::ir::NamedConst;

pub fn compare(d: &mut Differ, pairs: &Pairs) {
    let mut done = Vec::new();
    for &(a, b) in &pairs.enums {
        if done.contains(&(a, b)) {
            continue;
        }
        done.push((a, b));
        let (o, n) = (&d.old.p.enums[a], &d.new.p.enums[b]);
        let kind = Kind {
            section: "enums",
            list: "values",
            old_name: o.name.clone(),
            new_name: n.name.clone(),
            // Old readers refuse a value a closed enum does not name.
            additions_safe: !o.closed,
        };
        if o.closed != n.closed {
            let (class, what) = if n.closed {
                (
                    Class::Breaking,
                    "closed: values it does not name are now refused",
                )
            } else {
                (Class::Safe, "open: values it does not name are now kept")
            };
            d.push(
                class,
                Rule::EnumClosedChanged,
                n.name.clone(),
                format!("now {what}"),
                d.old.at(&format!("enums.{}", o.name)),
                d.new.at(&format!("enums.{}", n.name)),
            );
        }
        named_values(d, &kind, &o.values, &n.values);
    }
    let mut done = Vec::new();
    for &(a, b) in &pairs.flags {
        if done.contains(&(a, b)) {
            continue;
        }
        done.push((a, b));
        let (o, n) = (&d.old.p.flags[a], &d.new.p.flags[b]);
        let kind = Kind {
            section: "flags",
            list: "bits",
            old_name: o.name.clone(),
            new_name: n.name.clone(),
            additions_safe: true,
        };
        named_values(d, &kind, &o.bits, &n.bits);
    }
}

struct Kind {
    section: &'static str,
    list: &'static str,
    old_name: String,
    new_name: String,
    additions_safe: bool,
}

fn named_values(d: &mut Differ, k: &Kind, old: &[NamedConst], new: &[NamedConst]) {
    let old_at = |d: &Differ, v: &str| {
        d.old
            .at(&format!("{}.{}.{}.{v}", k.section, k.old_name, k.list))
    };
    let new_at = |d: &Differ, v: &str| {
        d.new
            .at(&format!("{}.{}.{}.{v}", k.section, k.new_name, k.list))
    };
    let what = if k.section == "flags" { "bit" } else { "value" };
    for ov in old {
        let path = format!("{}.{}", k.new_name, ov.name);
        match new.iter().find(|nv| nv.name == ov.name) {
            Some(nv) if nv.value != ov.value => d.push(
                Class::Breaking,
                Rule::ValueRenumbered,
                path,
                format!(
                    "{what} `{}` renumbered {} → {}",
                    ov.name,
                    literal(ov),
                    literal(nv)
                ),
                old_at(d, &ov.name),
                new_at(d, &nv.name),
            ),
            Some(_) => {}
            // Renamed: its number has a name the old version did not have.
            None => match new
                .iter()
                .find(|nv| nv.value == ov.value && !old.iter().any(|o| o.name == nv.name))
            {
                Some(nv) => d.push(
                    Class::DissectorOnly,
                    Rule::ValueRenamed,
                    format!("{}.{}", k.new_name, nv.name),
                    format!(
                        "{what} {} renamed `{}` → `{}`",
                        literal(ov),
                        ov.name,
                        nv.name
                    ),
                    old_at(d, &ov.name),
                    new_at(d, &nv.name),
                ),
                None => d.push(
                    Class::Breaking,
                    Rule::ValueRemoved,
                    path,
                    format!("{what} `{}` ({}) removed", ov.name, literal(ov)),
                    old_at(d, &ov.name),
                    None,
                ),
            },
        }
    }
    for nv in new {
        let known = old
            .iter()
            .any(|ov| ov.name == nv.name || ov.value == nv.value);
        if !known {
            let (class, why) = if k.additions_safe {
                (Class::Safe, "old readers keep it as an unknown value")
            } else {
                (Class::Breaking, "old readers refuse it (a closed enum)")
            };
            d.push(
                class,
                Rule::ValueAdded,
                format!("{}.{}", k.new_name, nv.name),
                format!("{what} `{}` ({}) is new: {why}", nv.name, literal(nv)),
                None,
                new_at(d, &nv.name),
            );
        }
    }
}

fn literal(v: &NamedConst) -> String {
    v.hex.clone().unwrap_or_else(|| v.value.to_string())
}
