//! What a proof's valid messages should reach (`wiregen verify`'s coverage list): every type a
//! decoder reads directly and every type inside, with the filter names its fields are noted
//! under, and the cases of their switches.

use crate::ir::*;

/// The types a valid message may hold (the root's, or an application's messages', the opening's,
/// the types its pieces are joined into, and every type inside them), one per line: its name, then the filter names its fields are noted under
/// (also under each `filter:` use of it), tab-separated: what `wiregen_verify` counts as
/// reached.
pub fn coverage_list(p: &Protocol) -> String {
    let mut roots = vec![p.root];
    if let Some(a) = &p.application {
        roots = a.messages.iter().map(|(_, ty)| *ty).collect();
    }
    // The opening's datagrams are compared as the conversation reads them.
    roots.extend(p.opening.iter().map(|(_, id)| *id));
    // A payload cut into pieces is decoded as its sender's type: verify joins arbitrary ones.
    if let Some(crate::ir::Reassembly {
        whole: crate::ir::WholeType::ByDirection { client, server },
        ..
    }) = &p.reassembly
    {
        roots.extend([*client, *server]);
    }
    // An array of no elements (`count: 0`) holds no value of its type.
    let empty = |ty: &Ty| matches!(ty, Ty::Array(_, Len::Expr(Expr::Int(0, _))));
    let mut reached = crate::lower::analysis::reached_from(p, roots, |_, f| !empty(&f.ty));
    reached.sort();
    let mut out = String::new();
    for sid in reached {
        let s = &p.structs[sid];
        // Fields that hold values of other types are noted as those values' fields.
        let own = |f: &&crate::ir::Field| {
            let mut kids = Vec::new();
            f.ty.child_structs(&mut kids);
            kids.is_empty() && !matches!(f.ty, crate::ir::Ty::Union(_))
        };
        let mut names: Vec<String> = (0..s.fields.len())
            .filter(|fi| own(&&s.fields[*fi]))
            .map(|fi| crate::naming::abbrev(p, sid, fi))
            .collect();
        for (_, filter) in p.filter_uses().iter().filter(|(u, _)| *u == sid) {
            let base = crate::naming::use_abbrev(p, filter);
            names.extend(
                s.fields
                    .iter()
                    .filter(own)
                    .map(|f| format!("{base}.{}", f.name)),
            );
        }
        out.push_str(&s.name);
        for n in names {
            out.push('\t');
            out.push_str(&n);
        }
        out.push('\n');
        case_lines(p, sid, &mut out);
    }
    out
}

/// The cases of struct `sid`'s switches whose tag is a field of it, a line each: `case`, the
/// case's name (`PacketPayload.Login`), the filter names its tag is noted under
/// (comma-separated: the struct's own and its `filter:` uses'), its tag values (`3`, `16-31`,
/// comma-separated; `!` and every case's values for the default), then the filter name of the
/// bool or flag bit of its `unless:` (`!` before it when negated; empty without one). A case is
/// taken when a compared message's tag took one of its values and its `unless` was false (the
/// default: when it was true, too). A tag computed by an expression, or an `unless` other than
/// a bool or a flag bit of the switch's own type, is not measured by case. A case (or default)
/// no message can take is a line `dead`, its name, then the warning saying why (`W0003`).
fn case_lines(p: &Protocol, sid: usize, out: &mut String) {
    use crate::ir::CaseValue;
    let s = &p.structs[sid];
    let spell = |values: &mut dyn Iterator<Item = &CaseValue>| {
        values
            .map(|v| match *v {
                CaseValue::One(v) => v.to_string(),
                CaseValue::Range(lo, hi) => format!("{lo}-{hi}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    for (fi, f) in s.fields.iter().enumerate() {
        let Ty::Union(u) = &f.ty else { continue };
        let Some(ti) = u.on.local_field() else {
            continue;
        };
        let unless = match &u.unless {
            None => String::new(),
            Some(e) => match unless_abbrev(p, sid, e) {
                Some(abbrev) => abbrev,
                None => continue,
            },
        };
        let mut tags = vec![crate::naming::abbrev(p, sid, ti)];
        for (_, filter) in p.filter_uses().iter().filter(|(u, _)| *u == sid) {
            tags.push(format!(
                "{}.{}",
                crate::naming::use_abbrev(p, filter),
                s.fields[ti].name
            ));
        }
        let tags = tags.join(",");
        // A case no message can take (`Protocol::dead_case`, warned of as W0002 or W0003) is
        // listed as such, with the warning: verify says so and does not wait for it.
        let union = p.switch_name(sid, fi);
        for (ci, c) in u.cases.iter().enumerate() {
            if let Some(dead) = p.dead_case(sid, fi, ci) {
                let code = match dead {
                    DeadCase::OutsideValid => "W0002",
                    DeadCase::NoCaseIn(_) => "W0003",
                };
                out.push_str(&format!("dead\t{union}.{}\t{code}\n", c.variant));
                continue;
            }
            let values = spell(&mut c.values.iter());
            out.push_str(&format!(
                "case\t{union}.{}\t{tags}\t{values}\t{unless}\n",
                c.variant
            ));
        }
        // A default no tag value can choose (a closed enum's every value has a case) is left out.
        if u.default.is_some() && p.dead_default(sid, fi).is_some() {
            out.push_str(&format!("dead\t{union}.{}\tW0004\n", u.default_variant));
        } else if u.default.is_some() && !p.cases_cover(&s.fields[ti].ty, u) {
            let all = spell(&mut u.cases.iter().flat_map(|c| &c.values));
            out.push_str(&format!(
                "case\t{union}.{}\t{tags}\t!{all}\t{unless}\n",
                u.default_variant
            ));
        }
    }
}

/// The filter name of the bool field or flag bit a switch's `unless:` tests (`!` before it when
/// negated), when it is one of the switch's own type.
fn unless_abbrev(p: &Protocol, sid: usize, e: &Expr) -> Option<String> {
    match e {
        Expr::Not(inner) => unless_abbrev(p, sid, inner).map(|a| format!("!{a}")),
        Expr::Field(path) if path.len() == 1 && matches!(p.field(&path[0]).ty, Ty::Bool) => {
            Some(crate::naming::abbrev(p, sid, path[0].field))
        }
        Expr::FlagBit(path, mask) if path.len() == 1 => {
            let Ty::Flags(id) = p.field(&path[0]).ty else {
                return None;
            };
            let bit = p.flags[id].bits.iter().find(|b| b.value == *mask)?;
            let field = crate::naming::abbrev(p, sid, path[0].field);
            Some(crate::naming::flag_abbrev(&field, &bit.name))
        }
        _ => None,
    }
}
