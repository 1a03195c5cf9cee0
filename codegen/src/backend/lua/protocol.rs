//! The protocol as a whole: heuristic and Info column.

use super::*;

/// Renders what the protocol says as a whole: its heuristic and Info column.
#[derive(Clone, Copy)]
pub(crate) struct InfoAndHeuristic<'p> {
    pub(crate) i: Input<'p>,
}

impl<'p> InfoAndHeuristic<'p> {
    pub(crate) fn heuristic(&self, h: &Heuristic) -> Result<HeuristicDef, Internal> {
        let p = self.i.p;
        let root = p.root();
        let mut used = Vec::new();
        h.expr.local_fields(&mut used);
        let mut reads = Vec::new();
        let mut offset = 0;
        for (i, f) in root.fields.iter().enumerate() {
            let Some(n) = p.fixed_size(&f.ty) else { break };
            if used.contains(&i) {
                let (signed, endian) = match &f.ty {
                    Ty::Int(it) => (it.signed, it.endian),
                    Ty::Enum(id) => (p.enums[*id].repr.signed, p.enums[*id].repr.endian),
                    Ty::Flags(id) => (p.flags[*id].repr.signed, p.flags[*id].repr.endian),
                    _ => (false, Endian::Big),
                };
                let read = if matches!(f.ty, Ty::Bool) {
                    "uint() ~= 0".to_string()
                } else {
                    int_reader(n, signed, endian)
                };
                reads.push(format!(
                    "{} = tvb({offset}, {n}):{read}",
                    value_slot(&f.name)
                ));
            }
            offset += n;
        }
        let expr = self.i.exprs().expr(&h.expr).replace("tvb:len()", "size");
        Ok(HeuristicDef {
            doc: "a datagram whose leading fields satisfy the schema's rule".into(),
            min_len: h.min_len,
            reads,
            expr,
        })
    }

    /// The Info-column summary of the root's values in `v`, a Lua expression. `partial` makes it
    /// safe over a message that stopped early: a value not read shows as `?` (a flag set as
    /// nothing), as an absent conditional field always does.
    pub(crate) fn info(&self, v: &str, partial: bool, indent: &str) -> String {
        self.info_of(self.i.p.root, v, partial, indent)
    }

    /// The Info-column summary of a value of struct `sid` whose values are in `v`: one part per
    /// line (continued at `indent`) when one line would be long.
    pub(crate) fn info_of(&self, sid: StructId, v: &str, partial: bool, indent: &str) -> String {
        let p = self.i.p;
        let root = &p.structs[sid];
        let mut parts: Vec<String> = Vec::new();
        for (k, part) in root.info.iter().enumerate() {
            match part {
                InfoPart::Text(t) => {
                    // A flag set with no bit set shows nothing, not `[]`: the space before it
                    // goes with it.
                    let before_flags = matches!(root.info.get(k + 1), Some(InfoPart::Field(i))
                        if matches!(root.fields[*i].ty, Ty::Flags(_)));
                    let t = if before_flags {
                        t.trim_end()
                    } else {
                        t.as_str()
                    };
                    if !t.is_empty() {
                        parts.push(format!("\"{}\"", lua_escape(t)));
                    }
                }
                InfoPart::Field(i) => {
                    let f = &root.fields[*i];
                    // `v.name`, or `v["end"]` for a Lua keyword.
                    let value = format!("{v}{}", member(&f.name));
                    let shown = match &f.ty {
                        Ty::Enum(id) => {
                            let e = &p.enums[*id];
                            // An unnamed value as Wireshark shows it in the field.
                            let unknown = if int_base(&e.repr, true) == "base.HEX" {
                                format!("Unknown (0x%0{}x)", e.repr.bytes() * 2)
                            } else {
                                "Unknown (%d)".to_string()
                            };
                            format!("enum_name(VS.{}, {value}, \"{unknown}\")", e.name)
                        }
                        Ty::Flags(id) => {
                            let gap = match k.checked_sub(1).and_then(|j| root.info.get(j)) {
                                Some(InfoPart::Text(t)) => &t[t.trim_end().len()..],
                                _ => "",
                            };
                            format!(
                                "flag_names({value}, FN_{}, \"{}\")",
                                p.flags[*id].name,
                                lua_escape(gap)
                            )
                        }
                        // Numbers as Wireshark shows them, the same on every Lua (5.3+ prints
                        // a float-held 7 as "7.0"): integers in full, floats to their digits.
                        Ty::Int(_) | Ty::VarInt(_) => format!("int_text({value})"),
                        Ty::Float { bits: 64, .. } => format!("string.format(\"%.15g\", {value})"),
                        Ty::Float { .. } => format!("string.format(\"%g\", {value})"),
                        _ => format!("tostring({value})"),
                    };
                    let missing = if matches!(f.ty, Ty::Flags(_)) {
                        ""
                    } else {
                        "?"
                    };
                    // A conditional field may be absent from a whole message too (seed 481:
                    // `flag_names(nil)` raised a Lua error on every message without it).
                    parts.push(if partial || f.condition.is_some() {
                        format!("({value} == nil and \"{missing}\" or {shown})")
                    } else {
                        shown
                    });
                }
            }
        }
        let line = parts.join(" .. ");
        if line.len() > 80 {
            parts.join(&format!("\n{indent}.. "))
        } else {
            line
        }
    }
}
