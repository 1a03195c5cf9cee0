//! Pass: filter names per use (`filter:`). A name stands for one type, and no type or field
//! already has it, so `proto.<filter>.<field>` means one thing in Wireshark.

use super::*;
use heck::ToSnakeCase;

pub(crate) fn check_filters(r: &mut Report, structs: &[Struct], root: StructId) {
    let mut seen: Vec<(String, StructId)> = Vec::new();
    for s in structs {
        for (fi, f) in s.fields.iter().enumerate() {
            let (Some(name), Some(id)) = (&f.filter, f.ty.value_struct()) else {
                continue;
            };
            let at = format!("{}.filter", r.field_path(&s.name, fi));
            let t = &structs[id];
            if let Some(other) = structs.iter().find(|o| o.name.to_snake_case() == *name) {
                r.error(
                    Code::E1301,
                    &at,
                    format!(
                        "'{name}' is the filter name of type '{}' already",
                        other.name
                    ),
                    Some("choose a name no type has".into()),
                );
            } else if structs[root].fields.iter().any(|rf| {
                // A struct-typed root field shows no value of its own under its name.
                let shown = match &rf.ty {
                    Ty::Struct(..) => false,
                    Ty::Array(e, _) => !matches!(**e, Ty::Struct(..)),
                    _ => true,
                };
                rf.name == *name && shown
            }) {
                r.error(
                    Code::E1302,
                    &at,
                    format!("'{name}' is a field of the root type: its filter name is taken"),
                    Some("choose another name".into()),
                );
            } else if let Some((_, prev)) = seen.iter().find(|(n, i)| n == name && *i != id) {
                r.error(
                    Code::E1303,
                    &at,
                    format!(
                        "'{name}' already names the fields of a '{}' value, not of a '{}'",
                        structs[*prev].name, t.name
                    ),
                    Some("one filter name per type: choose another".into()),
                );
            } else if id == root {
                r.error(
                    Code::E1304,
                    &at,
                    "the root type's fields have filter names of their own (proto.<field>)",
                    None,
                );
            } else if t
                .fields
                .iter()
                .any(|tf| matches!(tf.role, Role::Checksum(_)))
            {
                r.error(
                    Code::E1305,
                    &at,
                    format!(
                        "'{}' has a checksum: its fields keep their type's filter names",
                        t.name
                    ),
                    None,
                );
            } else {
                seen.push((name.clone(), id));
            }
        }
    }
}
