//! Arrays and values read to the end: what a bit stream's padding, a missing end or a greedy
//! value would make impossible to read back.

use super::*;

/// A bit stream ends padded to a whole byte, so an array read to its end stops when fewer
/// than 8 bits are left: elements narrower than that could not be told from the padding.
pub(crate) fn check_bit_rest_arrays(r: &mut Report, p: &Protocol) {
    for s in p.structs.iter().filter(|s| s.layout.is_bits()) {
        for (fi, f) in s.fields.iter().enumerate() {
            // The elements of an array to the end, or of a switch case of one.
            let elems: Vec<Ty> = match &f.ty {
                Ty::Array(elem, Len::Rest | Len::Natural) => vec![(**elem).clone()],
                Ty::Union(u) if matches!(u.len, Len::Rest | Len::Natural) => u
                    .cases
                    .iter()
                    .map(|c| c.body)
                    .chain(u.default)
                    .filter_map(|b| match b {
                        CaseBody::Array(id) => Some(Ty::Struct(id, None)),
                        _ => None,
                    })
                    .collect(),
                _ => continue,
            };
            let Some(bits) = elems.iter().map(|e| min_bits(p, e, &mut Vec::new())).min() else {
                continue;
            };
            if bits < 8 {
                let at = format!("{}.type", r.field_path(&s.name, fi));
                r.error(
                    Code::E1504,
                    &at,
                    format!(
                        "'{}' is read to the end of a bit stream, whose last byte is padded: \
                         elements of {bits} bits could not be told from the padding",
                        f.name
                    ),
                    Some("give the array a 'count' or a 'prefix'".into()),
                );
            }
        }
    }
}

/// An array read to the end of its scope stops when no bytes are left: an element that can
/// be read from no bytes at all would be read forever. Such elements are refused in a bit
/// stream and as a switch case's array; a byte layout's plain array checks each element at
/// run time instead (`FieldPlan::empty_elements`).
pub(crate) fn check_endless_arrays(r: &mut Report, p: &Protocol) {
    for s in &p.structs {
        for (fi, f) in s.fields.iter().enumerate() {
            let elem = match &f.ty {
                Ty::Array(e, Len::Rest | Len::Natural) => Some(&**e),
                _ => None,
            };
            let cases: Vec<StructId> = match &f.ty {
                Ty::Union(u) => u
                    .cases
                    .iter()
                    .map(|c| c.body)
                    .chain(u.default)
                    .filter_map(|b| match b {
                        CaseBody::Array(id) => Some(id),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            // In a byte layout, an element of a plain array that takes no bytes is found
            // while reading (both outputs stop there and say so: PDL's `_elementsize_`
            // arrays, whose size field may be 0).
            let checked = !s.layout.is_bits();
            let empty_elem = elem.is_some_and(|e| {
                crate::lower::analysis::always_may_be_empty(p, e)
                    || !checked && crate::lower::analysis::can_be_empty(p, e)
            }) || cases
                .iter()
                .any(|id| crate::lower::analysis::can_be_empty(p, &Ty::Struct(*id, None)));
            if empty_elem {
                let at = format!("{}.type", r.field_path(&s.name, fi));
                r.error(Code::E1505,
                    &at,
                    format!(
                        "'{}' is read to the end of its scope, but its elements can take no \
                         bytes at all: it would never end",
                        f.name
                    ),
                    Some("give the array a 'count' or a 'prefix', or its elements a field that is always there".into()),
                );
            }
        }
    }
}

/// The fewest bits a value of `ty` takes in a bit stream (a length read from the data counts
/// as 0; `seen` stops at recursive types).
fn min_bits(p: &Protocol, ty: &Ty, seen: &mut Vec<StructId>) -> u32 {
    match ty {
        Ty::Int(it) => it.bits,
        Ty::Bool => 1,
        Ty::Float { bits, .. } => *bits,
        Ty::Enum(id) => p.enums[*id].repr.bits,
        Ty::Flags(id) => p.flags[*id].repr.bits,
        Ty::VarInt(_) => 1,
        Ty::Struct(id, _) if !seen.contains(id) => {
            seen.push(*id);
            let bits = p.structs[*id]
                .fields
                .iter()
                .filter(|f| f.condition.is_none())
                .map(|f| min_bits(p, &f.ty, seen))
                .fold(0u32, u32::saturating_add);
            seen.pop();
            bits
        }
        _ => 0,
    }
}

/// A value whose type ends in a field read to the end of its scope takes every byte left:
/// nothing can follow it (fields after it would never be read, the encoder would write
/// what the decoder cannot find), and it cannot be an element of an array (the first would
/// take the bytes of all). A direct field is E0219; this is the same through nested types
/// and switch cases (schema-bugs round 2, seed 139: an array of `Item`s ending in `u8[]`).
pub(crate) fn check_greedy_values(r: &mut Report, p: &Protocol) {
    for s in &p.structs {
        let last = s.fields.len().saturating_sub(1);
        for (fi, f) in s.fields.iter().enumerate() {
            let (what, hint) = match &f.ty {
                Ty::Array(elem, _) => match greedy(p, elem, &mut Vec::new()) {
                    Some(inner) => (
                        format!(
                            "the elements of '{}' end in '{inner}', which runs to the end of \
                             the message: the first element would take the bytes of all",
                            f.name
                        ),
                        "give the elements a length (`element: { length: … }`), or that \
                         field a 'length', 'count' or 'prefix'",
                    ),
                    None => continue,
                },
                ty if fi < last && !runs_to_end(ty) => match greedy(p, ty, &mut Vec::new()) {
                    Some(inner) => (
                        format!(
                            "'{}' ends in '{inner}', which runs to the end of the message, but \
                             fields of '{}' follow it",
                            f.name, s.name
                        ),
                        "give that field a 'length', 'count' or 'prefix', or this one a \
                         'length'",
                    ),
                    None => continue,
                },
                _ => continue,
            };
            let at = format!("{}.type", r.field_path(&s.name, fi));
            r.error(Code::E1506, &at, what, Some(hint.into()));
        }
    }
}

/// The field (`Type.field`) through which a value of `ty` runs to the end of its scope: its own
/// type does, or the last field of its struct (of a switch case's struct) does, however deep.
fn greedy(p: &Protocol, ty: &Ty, seen: &mut Vec<StructId>) -> Option<String> {
    let of_struct = |id: StructId, seen: &mut Vec<StructId>| -> Option<String> {
        if seen.contains(&id) {
            return None;
        }
        seen.push(id);
        let s = &p.structs[id];
        // A length counted from the end of the scope reaches past the struct (into what
        // follows it) when the struct has no length of its own.
        if let Some(f) = s
            .fields
            .iter()
            .find(|f| length_of(&f.ty).and_then(leaves).is_some())
        {
            return Some(format!("{}.{}", s.name, f.name));
        }
        let f = s.fields.last()?;
        if runs_to_end(&f.ty) {
            return Some(format!("{}.{}", s.name, f.name));
        }
        greedy(p, &f.ty, seen)
    };
    match ty {
        Ty::Struct(id, None | Some(Len::Natural)) => of_struct(*id, seen),
        Ty::Union(u) if matches!(u.len, Len::Natural) => u
            .cases
            .iter()
            .map(|c| c.body)
            .chain(u.default)
            .find_map(|b| match b {
                CaseBody::Struct(id) => of_struct(id, &mut seen.clone()),
                _ => None,
            }),
        _ => None,
    }
}

/// How many bytes a length leaves after its field when it is counted from the end of the scope:
/// `@remaining` leaves 0, `@remaining - 2` leaves 2; `None` for any other length.
fn leaves(len: &Len) -> Option<u64> {
    let e = match len {
        Len::Expr(e) | Len::Bytes(e) => e,
        _ => return None,
    };
    match e {
        Expr::Remaining => Some(0),
        Expr::Binary(crate::expr::BinOp::Sub, a, b) if matches!(**a, Expr::Remaining) => {
            match **b {
                Expr::Int(k, _) => Some(k),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The length of a field's value, when it has one of its own.
fn length_of(ty: &Ty) -> Option<&Len> {
    match ty {
        Ty::Bytes(l) | Ty::Str(l, _) | Ty::Array(_, l) | Ty::Struct(_, Some(l)) => Some(l),
        Ty::Union(u) => Some(&u.len),
        _ => None,
    }
}

/// A length counted from the end of the scope (`@remaining - k`) leaves exactly `k` bytes to
/// the fields after it: they must take exactly that, always (schema-bugs round 2, seed 153:
/// a string of `@remaining` bytes followed by four more fields the decoder never found).
pub(crate) fn check_lengths_to_the_end(r: &mut Report, p: &Protocol) {
    for s in p.structs.iter().filter(|s| !s.layout.is_bits()) {
        for (fi, f) in s.fields.iter().enumerate() {
            let Some(k) = length_of(&f.ty).and_then(leaves) else {
                continue;
            };
            let after = &s.fields[fi + 1..];
            let fixed: Option<u64> = after
                .iter()
                .map(|g| match g.condition {
                    None => p.fixed_size(&g.ty).map(|n| n as u64),
                    Some(_) => None,
                })
                .sum();
            if fixed == Some(k) {
                continue;
            }
            let follow = match fixed {
                Some(1) => "1 byte of fields follows it".to_string(),
                Some(n) => format!("{n} bytes of fields follow it"),
                None => "fields whose size varies follow it".to_string(),
            };
            let at = format!("{}.length", r.field_path(&s.name, fi));
            let extent = match k {
                0 => "as long as what remains of its scope".to_string(),
                k => format!("as long as what remains of its scope less {k} bytes"),
            };
            r.error(
                Code::E1507,
                &at,
                format!(
                    "'{}' is {extent}, but {follow}: the decoder would not find them where \
                     the encoder writes them",
                    f.name
                ),
                Some(format!(
                    "leave the bytes the fields after it take (`@remaining - N`), or give \
                     '{}' a length of its own",
                    f.name
                )),
            );
        }
    }
}
