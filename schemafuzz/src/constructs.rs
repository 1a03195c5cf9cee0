//! The root's constructs: a byte-layout field with what it needs, conditions over the fields
//! before it, and switches (split from `lib.rs`, which draws the schema's types and layout).

use super::*;

impl Gen {
    /// One of the byte-layout constructs: its YAML lines (a size field it needs is written to
    /// `out` first).
    pub(crate) fn byte_construct(
        &mut self,
        name: &str,
        known: &[(String, Known)],
        out: &mut String,
    ) -> String {
        let helper = (!self.helpers.is_empty()).then(|| {
            self.helpers[self.rng.below(self.helpers.len() as u64) as usize]
                .0
                .clone()
        });
        match (self.rng.below(14), helper) {
            // Bools packed 8 per byte.
            (8, _) => {
                let _ = writeln!(out, "      - {{ name: \"{name}_count\", type: u8 }}");
                format!(
                    "      - {{ name: \"{name}\", type: \"bool[]\", count: \"{name}_count\", packed: true }}\n"
                )
            }
            // A compressed value.
            (9, Some(h)) => {
                let method = self.rng.pick(&["zlib", "deflate", "gzip"]);
                format!(
                    "      - {{ name: \"{name}\", type: {h}, prefix: u16, compression: {method} }}\n"
                )
            }
            // A value whose fields have filter names of this use.
            (10, Some(h)) => {
                format!("      - {{ name: \"{name}\", type: {h}, filter: {name}_use }}\n")
            }
            // A known quirk: an expert warning where the value is odd.
            (11, _) => format!(
                "      - name: \"{name}\"\n        type: u8\n        warn:\n          - {{ if: \"{name} > 200\", message: \"a large {name}\" }}\n"
            ),
            // A CRC over the fields before it, with its own parameters.
            (12, _) => {
                let _ = writeln!(out, "      - {{ name: \"{name}_body\", type: u32 }}");
                let (w, ty, poly) = *self.rng.pick(&[(16, "u16", "0x1021"), (32, "u32le", "0x04c11db7"), (8, "u8", "0x07")]);
                format!(
                    "      - {{ name: \"{name}\", type: {ty}, checksum: {{ crc: {{ width: {w}, poly: {poly}, refin: true, refout: true }}, from: \"{name}_body\", to: \"{name}_body\" }} }}\n"
                )
            }
            (0, _) => {
                let (ty, a, b) = *self.rng.pick(&[
                    ("u8", 3, 5),
                    ("u16", 4, 12),
                    ("u16le", 1, 15),
                    ("u32", 20, 12),
                ]);
                format!(
                    "      - name: \"{name}\"\n        type: {ty}\n        fields: [{{ name: \"{name}_a\", type: u{a} }}, {{ name: \"{name}_b\", type: u{b} }}]\n"
                )
            }
            (1, _) => {
                let ty = self.rng.pick(&["u8", "u16"]);
                format!("      - {{ name: \"{name}\", type: {ty}, reserved: true }}\n")
            }
            (2, Some(h)) => {
                let prefix = self.rng.pick(&["u8", "u16be", "leb128"]);
                format!("      - {{ name: \"{name}\", type: {h}, prefix: {prefix} }}\n")
            }
            (3, Some(h)) => {
                let _ = writeln!(out, "      - {{ name: \"{name}_size\", type: u8 }}");
                format!("      - {{ name: \"{name}\", type: {h}, length: \"{name}_size\" }}\n")
            }
            (4, Some(h)) => {
                let framing = self.rng.pick(&["prefix: u8", "prefix: leb128"]);
                format!(
                    "      - {{ name: \"{name}\", type: \"{h}[]\", prefix: u8, element: {{ {framing} }} }}\n"
                )
            }
            (5, _) if !self.flags.is_empty() => {
                let on = known.iter().find_map(|(n, k)| match k {
                    Known::Enum(e) => Some((n.clone(), *e)),
                    _ => None,
                });
                let fl = &self.flags[self.rng.below(self.flags.len() as u64) as usize];
                let value = on.and_then(|(field, e)| {
                    let en = &self.enums[e];
                    let (v, _) = en.values.iter().find(|(v, _)| !v.starts_with("RANGE"))?;
                    Some(format!("{field} == {}.{v}", en.name))
                });
                match value {
                    Some(cond) => format!(
                        "      - {{ name: \"{name}\", type: {}, set_when: {{ {}: \"{cond}\" }} }}\n",
                        fl.name, fl.bits[0].0
                    ),
                    None => format!("      - {{ name: \"{name}\", type: {} }}\n", fl.name),
                }
            }
            (6, _) => {
                let _ = writeln!(out, "      - {{ name: \"{name}_half\", type: u8 }}");
                format!(
                    "      - {{ name: \"{name}\", type: \"u16[]\", count: \"{name}_half * 2\" }}\n"
                )
            }
            _ => {
                let _ = writeln!(out, "      - {{ name: \"{name}_n\", type: u8 }}");
                format!("      - {{ name: \"{name}\", type: bytes, length: \"{name}_n + 2\" }}\n")
            }
        }
    }

    /// `, if: …` over an earlier field, or nothing.
    pub(crate) fn condition(&mut self, known: &[(String, Known)]) -> String {
        if known.is_empty() || !self.rng.chance(30) {
            return String::new();
        }
        // Sometimes two conditions at once (the encoder can only check such a one).
        if known.len() >= 2 && self.rng.chance(25) {
            let a = self.condition_on(known, 0);
            let b = self.condition_on(known, known.len() - 1);
            if let (Some(a), Some(b)) = (a, b) {
                let op = if self.rng.chance(50) { "&&" } else { "||" };
                return format!(", if: \"{a} {op} {b}\"");
            }
        }
        if self.context && self.rng.chance(20) {
            let not = if self.rng.chance(50) { "!" } else { "" };
            return format!(", if: \"{not}@from_client\"");
        }
        let k = self.rng.below(known.len() as u64) as usize;
        match self.condition_on(known, k) {
            Some(c) => format!(", if: \"{c}\""),
            None => String::new(),
        }
    }

    /// A condition over known field `k`.
    pub(crate) fn condition_on(&mut self, known: &[(String, Known)], k: usize) -> Option<String> {
        let (name, k) = known[k].clone();
        Some(match k {
            Known::Bool if self.rng.chance(50) => name,
            Known::Bool => format!("!{name}"),
            Known::Enum(e) => {
                let en = &self.enums[e];
                let (v, _) = &en.values[self.rng.below(en.values.len() as u64) as usize];
                if v.starts_with("RANGE") {
                    return None;
                }
                let op = if self.rng.chance(70) { "==" } else { "!=" };
                format!("{name} {op} {}.{v}", en.name)
            }
            Known::Flags(f) => {
                let fl = &self.flags[f];
                let (b, _) = &fl.bits[self.rng.below(fl.bits.len() as u64) as usize];
                format!("{name}.{b}")
            }
        })
    }

    /// A switch field named `name`: on an earlier enum field, or on a tag written just before
    /// it (into `out`). A `last` switch may have a bytes case (it runs to the end).
    pub(crate) fn switch(
        &mut self,
        name: &str,
        known: &[(String, Known)],
        out: &mut String,
        last: bool,
    ) -> String {
        let on_enum = known
            .iter()
            .filter_map(|(n, k)| match k {
                Known::Enum(e) => Some((n.clone(), *e)),
                _ => None,
            })
            .next();
        // A case body; a type already used by another case gets a variant name of its own.
        let mut bodies: Vec<String> = Vec::new();
        let bytes_layout = !self.layout.bits();
        let mut body = |rng: &mut Rng, helpers: &[(String, String)]| -> String {
            let b = match rng.below(5) {
                0 | 1 if !helpers.is_empty() => {
                    helpers[rng.below(helpers.len() as u64) as usize].0.clone()
                }
                2 if last => "bytes".into(),
                // Values of a type to the end (the helpers always have a field; in a bit
                // stream they could be narrower than the padding, which is refused).
                3 if last && bytes_layout && !helpers.is_empty() => format!(
                    "\"{}[]\"",
                    helpers[rng.below(helpers.len() as u64) as usize].0
                ),
                _ => "empty".into(),
            };
            bodies.push(b.clone());
            let uses = bodies.iter().filter(|x| **x == b).count();
            if uses > 1 {
                let elem = b.trim_matches('"');
                let name = match elem.strip_suffix("[]") {
                    Some(t) => format!("{t}List"),
                    None => elem.to_string(),
                };
                format!("{{ type: {b}, name: Case{uses}{name} }}")
            } else {
                b
            }
        };
        let mut cases: Vec<String> = Vec::new();
        let on = match on_enum {
            Some((field, e)) if self.rng.chance(60) => {
                let values: Vec<String> = self.enums[e]
                    .values
                    .iter()
                    .map(|(n, _)| n.clone())
                    .collect();
                let n = self.rng.range(1, values.len() as u64) as usize;
                for v in &values[..n] {
                    cases.push(format!("{v}: {}", body(&mut self.rng, &self.helpers)));
                }
                field
            }
            _ => {
                let tag = format!("{name}_tag");
                let tt = if self.layout.bits() { "u4" } else { "u8" };
                let _ = writeln!(out, "      - {{ name: \"{tag}\", type: {tt} }}");
                let n = self.rng.range(1, 3);
                for k in 0..n {
                    cases.push(format!("{}: {}", k * 2, body(&mut self.rng, &self.helpers)));
                }
                if self.rng.chance(40) {
                    cases.push(format!("\"8..11\": {}", body(&mut self.rng, &self.helpers)));
                }
                // Only the root's: cases are added to `Packet.<switch>`.
                if self.transport.is_none() {
                    self.own_tag_switches.push(name.to_string());
                }
                tag
            }
        };
        let default = if self.rng.chance(30) {
            let d = if last { "bytes" } else { "empty" };
            format!(", default: {d}")
        } else {
            String::new()
        };
        format!(
            "      - {{ name: \"{name}\", switch: {{ \"on\": \"{on}\", cases: {{ {} }}{default} }} }}\n",
            cases.join(", ")
        )
    }
}
