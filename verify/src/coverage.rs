//! What `wiregen verify` must reach: the types a valid message may hold (with the filter names of
//! their fields) and the cases of their switches (with the tag values that choose each), as
//! `wiregen verify` lists them; and what the compared messages reached of it.

use std::collections::BTreeSet;
use wiregen_runtime::{FieldNote, Value};

/// A type of the schema and the filter names its fields are noted under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeFields {
    pub name: String,
    pub fields: Vec<String>,
}

/// A case of a switch whose tag is a field: reached when a compared message's tag took one of
/// its values (the default: none of the other cases').
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseValues {
    /// The switch's type and the case's variant (`PacketPayload.Login`).
    pub name: String,
    /// The filter names the tag is noted under.
    pub tags: Vec<String>,
    /// The case's tag values, inclusive ranges (the default's: every other case's).
    pub ranges: Vec<(u64, u64)>,
    /// The switch's default: reached by a tag outside `ranges`.
    pub default: bool,
    /// The filter name of the bool or flag bit that makes the switch take its default whatever
    /// the tag (`unless:`), and whether it does so when false (`!`).
    pub unless: Option<(String, bool)>,
}

impl CaseValues {
    /// Whether one message with these notes took this case.
    fn taken_by(&self, notes: &[FieldNote<'_>]) -> bool {
        let forced = self.unless.as_ref().is_some_and(|(abbrev, negated)| {
            notes
                .iter()
                .any(|n| n.abbrev == abbrev && matches!(n.value, Value::Bool(b) if b != *negated))
        });
        if forced {
            return self.default;
        }
        notes.iter().any(|n| {
            let value = match n.value {
                Value::U(v) => v,
                Value::I(v) => v as u64,
                Value::Bool(b) => u64::from(b),
                _ => return false,
            };
            self.tags.iter().any(|t| t == n.abbrev)
                && self
                    .ranges
                    .iter()
                    .any(|&(lo, hi)| lo <= value && value <= hi)
                    != self.default
        })
    }
}

/// Everything to reach (empty: not measured).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub types: Vec<TypeFields>,
    pub cases: Vec<CaseValues>,
    /// Cases no message can take (the schema's warning says why: `W0003`), not counted.
    pub dead: Vec<(String, String)>,
}

/// The list `wiregen verify` writes: a type per line, its name then its fields' filter names,
/// tab-separated; a case per line, `case`, its name, its tag's filter names (comma-separated)
/// and its values (`3,16-31`; `!` before them for the default); a case no message can take,
/// `dead`, its name and the warning that says why.
pub fn coverage_list(text: &str) -> Coverage {
    let mut out = Coverage::default();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let mut parts = line.split('\t');
        let first = parts.next().unwrap_or_default();
        if first == "dead" {
            let name = parts.next().unwrap_or_default().to_string();
            out.dead
                .push((name, parts.next().unwrap_or_default().to_string()));
            continue;
        }
        if first != "case" {
            out.types.push(TypeFields {
                name: first.to_string(),
                fields: parts.map(str::to_string).collect(),
            });
            continue;
        }
        let (name, tags, values, unless) = (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        );
        let unless = match unless.strip_prefix('!') {
            _ if unless.is_empty() => None,
            Some(abbrev) => Some((abbrev.to_string(), true)),
            None => Some((unless.to_string(), false)),
        };
        let (default, values) = match values.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, values),
        };
        let ranges = values
            .split(',')
            .filter_map(|v| match v.split_once('-') {
                Some((lo, hi)) => Some((lo.parse().ok()?, hi.parse().ok()?)),
                None => v.parse().ok().map(|v| (v, v)),
            })
            .collect();
        out.cases.push(CaseValues {
            name: name.to_string(),
            tags: tags.split(',').map(str::to_string).collect(),
            ranges,
            default,
            unless,
        });
    }
    out
}

/// What the compared messages reached: the filter names of the fields they held, and the
/// switch cases they took.
#[derive(Debug, Default)]
pub struct Seen {
    pub fields: BTreeSet<String>,
    pub cases: BTreeSet<String>,
}

impl Seen {
    /// Notes one message's fields, and the cases of `coverage` it took.
    pub fn see(&mut self, notes: &[FieldNote<'_>], coverage: &Coverage) {
        for n in notes {
            if !self.fields.contains(n.abbrev) {
                self.fields.insert(n.abbrev.to_string());
            }
        }
        for c in &coverage.cases {
            if !self.cases.contains(&c.name) && c.taken_by(notes) {
                self.cases.insert(c.name.clone());
            }
        }
    }
}

impl Seen {
    /// Whether one message with these notes would reach a field or case of `coverage` not seen
    /// yet.
    pub fn adds(&self, notes: &[FieldNote<'_>], coverage: &Coverage) -> bool {
        let measured = |abbrev: &str| {
            coverage
                .types
                .iter()
                .any(|t| t.fields.iter().any(|f| f == abbrev))
        };
        notes
            .iter()
            .any(|n| !self.fields.contains(n.abbrev) && measured(n.abbrev))
            || coverage
                .cases
                .iter()
                .any(|c| !self.cases.contains(&c.name) && c.taken_by(notes))
    }
}

impl Coverage {
    /// The types (with fields) and the cases not reached in `seen`, but those `declared`
    /// unreachable.
    pub fn unreached<'c>(&'c self, seen: &Seen, declared: &[String]) -> Vec<&'c str> {
        let declared = |name: &str| declared.iter().any(|d| d == name);
        let types = self
            .types_held(seen)
            .into_iter()
            .filter(|(name, held, of)| *held == 0 && *of > 0 && !declared(name))
            .map(|(name, _, _)| name);
        let cases = self
            .cases_taken(seen)
            .into_iter()
            .filter(|(name, taken)| !taken && !declared(name))
            .map(|(name, _)| name);
        types.chain(cases).collect()
    }

    /// Per type: how many of its fields the compared messages held, of how many.
    pub fn types_held<'c>(&'c self, seen: &Seen) -> Vec<(&'c str, usize, usize)> {
        self.types
            .iter()
            .map(|t| {
                let held = t.fields.iter().filter(|f| seen.fields.contains(*f)).count();
                (t.name.as_str(), held, t.fields.len())
            })
            .collect()
    }

    /// Per case: whether a compared message took it.
    pub fn cases_taken<'c>(&'c self, seen: &Seen) -> Vec<(&'c str, bool)> {
        self.cases
            .iter()
            .map(|c| (c.name.as_str(), seen.cases.contains(&c.name)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_reached_by_their_tag_values() {
        let coverage = coverage_list(
            "Packet\tp.packet.kind\n\
             case\tPacketBody.Login\tp.packet.kind\t1\tp.packet.flags.frag\n\
             case\tPacketBody.Move\tp.packet.kind\t16-31,40\tp.packet.flags.frag\n\
             case\tPacketBody.Other\tp.packet.kind\t!1,16-31,40\tp.packet.flags.frag\n",
        );
        assert_eq!(coverage.types.len(), 1);
        assert_eq!(coverage.cases[1].ranges, [(16, 31), (40, 40)]);
        assert_eq!(
            coverage.cases[2].unless,
            Some(("p.packet.flags.frag".into(), false))
        );
        let note = |v| FieldNote {
            abbrev: "p.packet.kind",
            offset: 0,
            len: 1,
            bits: 8,
            value: Value::U(v),
            source: 0,
        };
        let mut seen = Seen::default();
        seen.see(&[note(20)], &coverage);
        let taken = |seen: &Seen| -> Vec<bool> {
            coverage
                .cases_taken(seen)
                .into_iter()
                .map(|(_, t)| t)
                .collect()
        };
        assert_eq!(taken(&seen), [false, true, false]);
        // A fragment's tag says Login, but the switch takes its default.
        let fragment = FieldNote {
            abbrev: "p.packet.flags.frag",
            offset: 1,
            len: 1,
            bits: 1,
            value: Value::Bool(true),
            source: 0,
        };
        seen.see(&[note(1), fragment], &coverage);
        assert_eq!(taken(&seen), [false, true, true]);
        seen.see(&[note(1)], &coverage);
        assert_eq!(taken(&seen), [true, true, true]);
        assert_eq!(coverage.types_held(&seen), [("Packet", 1, 1)]);
    }
}
