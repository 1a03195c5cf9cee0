//! Pass: checksums. A checksum field's algorithm (a catalogue name or CRC parameters) and the
//! range of fields it covers.

use super::*;

impl<'f> Resolver<'f> {
    /// The algorithm a field's `checksum:` names or describes, or `None` after reporting why not.
    pub(crate) fn checksum_algo(
        &mut self,
        def: &schema::ChecksumDef,
        at: &str,
    ) -> Option<ChecksumAlgo> {
        let (name, crc) = match def {
            schema::ChecksumDef::Named(name) => (Some(name), None),
            schema::ChecksumDef::Full(spec) => (spec.algorithm.as_ref(), spec.crc.as_ref()),
        };
        let full = matches!(def, schema::ChecksumDef::Full(_));
        match (name, crc) {
            (Some(name), None) => {
                let found = ChecksumAlgo::named(name);
                if found.is_none() {
                    let names = ChecksumAlgo::names();
                    let hint = did_you_mean(name, names.clone()).or_else(|| {
                        Some(format!(
                            "known: {}; or give a CRC's parameters: {{ crc: {{ width, poly, init, refin, refout, xorout }} }}",
                            names.collect::<Vec<_>>().join(", ")
                        ))
                    });
                    let at = if full {
                        format!("{at}.algorithm")
                    } else {
                        at.to_string()
                    };
                    self.r.error(
                        Code::E1001,
                        &at,
                        format!("unknown checksum algorithm '{name}'"),
                        hint,
                    );
                }
                found
            }
            (Some(_), Some(_)) | (None, None) => {
                self.r.error(Code::E1002,
                    at,
                    "a checksum names its 'algorithm' or gives a 'crc', one of the two",
                    Some("e.g. { algorithm: internet, from: header } or { crc: { width: 16, poly: 0x1021 } }".into()),
                );
                None
            }
            (None, Some(crc)) => self.crc_algo(crc, at).map(ChecksumAlgo::Crc),
        }
    }

    /// The CRC of a schema's parameters, or `None` after reporting why not.
    fn crc_algo(&mut self, crc: &schema::CrcDef, at: &str) -> Option<CrcAlgo> {
        {
            {
                let w = crc.width;
                if !(5..=64).contains(&w) {
                    self.r.error(
                        Code::E1003,
                        &format!("{at}.crc.width"),
                        format!("a CRC of {w} bits"),
                        Some("CRCs of 5 to 64 bits are generated".into()),
                    );
                    return None;
                }
                let max = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                let mut ok = true;
                for (key, v) in [
                    ("poly", crc.poly),
                    ("init", crc.init),
                    ("xorout", crc.xorout),
                ] {
                    if v > max {
                        self.r.error(
                            Code::E1004,
                            &format!("{at}.crc.{key}"),
                            format!("{key} {v:#x} does not fit in the CRC's {w} bits"),
                            None,
                        );
                        ok = false;
                    }
                }
                if crc.poly & 1 == 0 {
                    self.r.error(Code::E1005,
                        &format!("{at}.crc.poly"),
                        format!("poly {:#x} is even", crc.poly),
                        Some("give the polynomial in normal form without its top bit, e.g. 0x04c11db7 for CRC-32".into()),
                    );
                    ok = false;
                }
                ok.then_some(CrcAlgo {
                    width: w,
                    poly: crc.poly,
                    init: crc.init,
                    refin: crc.refin,
                    refout: crc.refout.unwrap_or(crc.refin),
                    xorout: crc.xorout,
                })
            }
        }
    }

    /// Resolves each checksum's `from`/`to` to field indices; refuses a range that ends before
    /// it starts and two checksums that cover each other (neither could be computed first).
    pub(crate) fn checksum_ranges(
        &mut self,
        name: &str,
        t: &schema::TypeDef,
        seen: &HashMap<&str, usize>,
        fields: &mut [Field],
    ) {
        let yp = &format!("types.{name}");
        // A range already refused is not also reported as covering another.
        let mut refused = false;
        for (i, f) in t.fields.iter().enumerate() {
            let Some(schema::ChecksumDef::Full(spec)) = &f.checksum else {
                continue;
            };
            let at = format!("{}.checksum", self.r.field_path(yp, i));
            let groups: Vec<String> = self
                .r
                .flattened
                .groups
                .get(name)
                .map(|gs| gs.iter().map(|g| g.name.clone()).collect())
                .unwrap_or_default();
            let mut find = |key: &str, name: &Option<String>| {
                let name = name.as_ref()?;
                let found = seen.get(name.as_str()).copied();
                if found.is_none() && groups.contains(name) {
                    self.r.error(
                        Code::E1006,
                        &format!("{at}.{key}"),
                        format!(
                            "'{name}' is a bit group: a checksum's range names fields, and the \
                             group's are packed in it"
                        ),
                        Some(format!(
                            "name a field before or after the group '{name}' (or leave '{key}' \
                             out to cover from the type's {})",
                            if key == "from" { "start" } else { "end" }
                        )),
                    );
                } else if found.is_none() {
                    let hint = did_you_mean(name, t.fields.iter().map(|f| f.name.as_str()));
                    self.r.error(
                        Code::E1007,
                        &format!("{at}.{key}"),
                        format!(
                            "the checksum covers field '{name}', which this type does not have"
                        ),
                        hint,
                    );
                }
                found
            };
            let (from, to) = (find("from", &spec.from), find("to", &spec.to));
            refused |= from.is_none() != spec.from.is_none() || to.is_none() != spec.to.is_none();
            // A range covers whole bytes: a field packed in a bit group has none of its own.
            for (key, end) in [("from", from), ("to", to)] {
                let Some(k) = end else { continue };
                let Some(group) = self.r.group_of(name, k) else {
                    continue;
                };
                let (member, group) = (t.fields[k].name.clone(), group.name.clone());
                self.r.error(Code::E1008,
                    &format!("{at}.{key}"),
                    format!("the checksum's range cannot {} at '{member}': it is packed in the bit group '{group}', with no bytes of its own", if key == "from" { "start" } else { "end" }),
                    Some(format!("name a field before or after the group '{group}'")),
                );
                refused = true;
            }
            if let (Some(a), Some(b)) = (from, to) {
                if a > b {
                    self.r.error(
                        Code::E1009,
                        &format!("{at}.to"),
                        format!(
                            "the checksum's range ends at '{}', before it starts at '{}'",
                            t.fields[b].name, t.fields[a].name
                        ),
                        Some("'from' names the first field covered and 'to' the last".into()),
                    );
                    refused = true;
                    continue;
                }
            }
            if let Role::Checksum(c) = &mut fields[i].role {
                c.from = from;
                c.to = to;
            }
        }
        if refused {
            return;
        }
        if let Err(cycle) = crate::lower::analysis::checksum_order(fields) {
            let names: Vec<&str> = cycle.iter().map(|&i| fields[i].name.as_str()).collect();
            self.r.error(
                Code::E1010,
                &format!("{}.checksum", self.r.field_path(yp, cycle[0])),
                format!(
                    "checksums {} cover each other: none can be computed first",
                    names.join(", ")
                ),
                Some("end one checksum's range before the other's field ('from'/'to')".into()),
            );
        }
    }
}
