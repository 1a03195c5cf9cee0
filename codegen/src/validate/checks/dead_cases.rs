//! W0002, W0003, W0004: a switch case no message can take (`Protocol::dead_case`): every value
//! of it outside the tag field's `valid` (W0002), or none of them a case of another switch on
//! the same tag without a default (W0003); a default such a switch leaves no value for (W0004,
//! `Protocol::dead_default`). Its code is generated and never used; no message can exercise it.

use super::*;

pub(super) fn dead_cases(r: &Report, p: &Protocol) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (sid, s) in p.structs.iter().enumerate() {
        for (fi, f) in s.fields.iter().enumerate() {
            let Ty::Union(u) = &f.ty else { continue };
            let tag = &s.fields[u.on.local_field().unwrap_or(0)].name;
            for (ci, c) in u.cases.iter().enumerate() {
                let (code, why, hint) = match p.dead_case(sid, fi, ci) {
                    None => continue,
                    Some(DeadCase::OutsideValid) => (
                        Code::W0002,
                        format!("'{tag}' allows none of its values"),
                        format!("remove the case, or allow its values in '{tag}'"),
                    ),
                    Some(DeadCase::NoCaseIn(other)) => {
                        let other = &s.fields[other].name;
                        (
                            Code::W0003,
                            format!(
                                "'{other}', also on '{tag}', has no case for its values and no \
                                 default, so a message with one does not decode"
                            ),
                            format!(
                                "give '{other}' a case or a default for them, or remove this case"
                            ),
                        )
                    }
                };
                let message = format!(
                    "case '{}' of '{}' can never be taken: {why}",
                    c.variant, f.name
                );
                out.push(at_switch(r, s, fi, code, message, hint));
            }
            if let Some(other) = p.dead_default(sid, fi) {
                let other = &s.fields[other].name;
                let message = format!(
                    "the default of '{}' can never be taken: '{other}', also on '{tag}', has cases \
                     only for values this switch's cases take, and no default",
                    f.name
                );
                let hint = format!("remove the default, or give '{other}' one");
                out.push(at_switch(r, s, fi, Code::W0004, message, hint));
            }
        }
    }
    out
}

/// A warning at the `switch` of field `fi`.
fn at_switch(
    r: &Report,
    s: &Struct,
    fi: usize,
    code: Code,
    message: String,
    hint: String,
) -> Diagnostic {
    let path = format!("{}.switch", r.field_path(&format!("types.{}", s.name), fi));
    let at = r.locs.key(&path);
    Diagnostic {
        code,
        file: r.path.clone(),
        line: at.line,
        col: at.col,
        message,
        hint: Some(hint),
    }
}
