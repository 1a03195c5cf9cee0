//! W0002: a switch case no valid tag can choose (every value of it outside the tag field's
//! `valid`): its code is generated and never used, and no message can exercise it.

use super::*;

pub(super) fn dead_cases(r: &Report, p: &Protocol) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for s in &p.structs {
        for (fi, f) in s.fields.iter().enumerate() {
            let Ty::Union(u) = &f.ty else { continue };
            let Some(valid) = u.on.local_field().and_then(|t| s.fields[t].valid.as_ref()) else {
                continue;
            };
            let tag = &s.fields[u.on.local_field().unwrap_or(0)].name;
            for c in u
                .cases
                .iter()
                .filter(|c| !c.values.iter().any(|v| allows(valid, *v)))
            {
                let path = format!("{}.switch", r.field_path(&format!("types.{}", s.name), fi));
                let at = r.locs.key(&path);
                out.push(Diagnostic {
                    code: Code::W0002,
                    file: r.path.clone(),
                    line: at.line,
                    col: at.col,
                    message: format!(
                        "case '{}' of '{}' can never be taken: '{tag}' allows none of its values",
                        c.variant, f.name
                    ),
                    hint: Some(format!("remove the case, or allow its values in '{tag}'")),
                });
            }
        }
    }
    out
}

/// Whether `valid` allows a value of `v`.
fn allows(valid: &Valid, v: CaseValue) -> bool {
    let (lo, hi) = v.bounds();
    let (lo, hi) = (lo as i128, hi as i128);
    match valid {
        Valid::List(values) => values.iter().any(|&x| lo <= x as i128 && x as i128 <= hi),
        Valid::Range { min, max } => {
            min.is_none_or(|m| hi >= m as i128) && max.is_none_or(|m| lo <= m as i128)
        }
    }
}
