//! Schema extension: an extending schema merged over its base, before validation.
//!
//! The rules, in the order they apply:
//! - `protocol`: name, title and doc are the extension's; root, endian, layout, conversation,
//!   reassembly and state are inherited unless the extension gives them; a `transport` given by
//!   the extension replaces the base's as a whole.
//! - enums and flags with a base name merge their values: a new name is added, a known name takes
//!   the new number, and a base name whose number the extension gives to another name is dropped
//!   (the game renamed it). Switch cases keyed by a dropped name are dropped with it.
//! - types with a base name replace the base type in place; new types are appended.
//! - `cases: { Type.field: { KEY: Body } }` adds cases to a switch, or replaces the case of the
//!   same key.

use crate::schema::{NamedValue, ProtocolDef, SchemaFile};
use indexmap::IndexMap;
use std::collections::HashSet;

/// Names of the merged schema that changed (what the extension's crate cannot reuse).
#[derive(Debug, Default, Clone)]
pub struct Changes {
    /// Enums, flags and types the extension declares (new, merged or replaced).
    pub touched: HashSet<String>,
}

fn number(v: &NamedValue) -> u64 {
    v.value()
}

/// Values of `base` with `ext`'s merged over them; returns the names dropped.
fn merge_values(
    base: &mut IndexMap<String, NamedValue>,
    ext: IndexMap<String, NamedValue>,
) -> Vec<String> {
    let mut dropped = Vec::new();
    for (name, v) in ext {
        let n = number(&v);
        let renamed: Vec<String> = base
            .iter()
            .filter(|(k, old)| **k != name && number(old) == n)
            .map(|(k, _)| k.clone())
            .collect();
        for k in renamed {
            base.shift_remove(&k);
            dropped.push(k);
        }
        match base.get_mut(&name) {
            Some(slot) => *slot = v,
            None => {
                base.insert(name, v);
            }
        }
    }
    dropped
}

/// The extension's `protocol:` over the base's: its names, and each part it states.
fn merge_protocol(bp: &mut ProtocolDef, ep: ProtocolDef) {
    bp.name = ep.name;
    bp.title = ep.title;
    bp.doc = ep.doc.or(bp.doc.take());
    bp.extends = None;
    if !ep.root.is_empty() {
        bp.root = ep.root;
    }
    bp.endian = ep.endian.or(bp.endian.take());
    bp.layout = ep.layout.or(bp.layout.take());
    // Transport parts the extension states replace the base's; the others are inherited (a
    // profile that adds a port keeps the base's heuristic).
    match (bp.transport.as_mut(), ep.transport) {
        (Some(b), Some(e)) => {
            if e.udp.is_some() {
                b.udp = e.udp;
            }
            if e.tcp.is_some() {
                b.tcp = e.tcp;
            }
            if e.heuristic.is_some() {
                b.heuristic = e.heuristic;
            }
        }
        (None, e @ Some(_)) => bp.transport = e,
        (_, None) => {}
    }
    if ep.conversation.is_some() {
        bp.conversation = ep.conversation;
    }
    if ep.reassembly.is_some() {
        bp.reassembly = ep.reassembly;
    }
    if !ep.stream_reassembly.is_empty() {
        bp.stream_reassembly = ep.stream_reassembly;
    }
    if !ep.sequence_reassembly.is_empty() {
        bp.sequence_reassembly = ep.sequence_reassembly;
    }
    if !ep.state.is_empty() {
        bp.state = ep.state;
    }
    if ep.reliability.is_some() {
        bp.reliability = ep.reliability;
    }
    if !ep.applications.is_empty() {
        bp.applications = ep.applications;
    }
    if ep.application.is_some() {
        bp.application = ep.application;
    }
}

pub fn merge(mut base: SchemaFile, ext: SchemaFile) -> (SchemaFile, Changes) {
    let mut changes = Changes::default();
    merge_protocol(&mut base.protocol, ext.protocol);

    let mut dropped: Vec<String> = Vec::new();
    for (name, e) in ext.enums {
        changes.touched.insert(name.clone());
        match base.enums.get_mut(&name) {
            Some(b) => {
                dropped.extend(merge_values(&mut b.values, e.values));
                if e.doc.is_some() {
                    b.doc = e.doc;
                }
                if !e.repr.is_empty() {
                    b.repr = e.repr;
                }
                b.closed |= e.closed;
            }
            None => {
                base.enums.insert(name, e);
            }
        }
    }
    for (name, f) in ext.flags {
        changes.touched.insert(name.clone());
        match base.flags.get_mut(&name) {
            Some(b) => {
                merge_values(&mut b.bits, f.bits);
                if f.doc.is_some() {
                    b.doc = f.doc;
                }
                if !f.repr.is_empty() {
                    b.repr = f.repr;
                }
            }
            None => {
                base.flags.insert(name, f);
            }
        }
    }
    for (name, t) in ext.types {
        changes.touched.insert(name.clone());
        match base.types.get_mut(&name) {
            Some(slot) => *slot = t,
            None => {
                base.types.insert(name, t);
            }
        }
    }
    // Cases keyed by a renamed value go with it.
    for t in base.types.values_mut() {
        for f in &mut t.fields {
            if let Some(sw) = &mut f.switch {
                sw.cases.retain(|k, _| !dropped.contains(k));
            }
        }
    }
    for (target, cases) in ext.cases {
        if let Some((ty, field)) = target.split_once('.') {
            changes.touched.insert(ty.to_string());
            let sw = base
                .types
                .get_mut(ty)
                .and_then(|t| t.fields.iter_mut().find(|f| f.name == field))
                .and_then(|f| f.switch.as_mut());
            if let Some(sw) = sw {
                for (k, c) in cases {
                    sw.cases.insert(k, c);
                }
                continue;
            }
        }
        // Reported by validation: the target is kept so that it can point at it.
        base.cases.insert(target, cases);
    }
    (base, changes)
}
