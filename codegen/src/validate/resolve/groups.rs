//! Pass zero: bit groups. A field whose integer type lists `fields` (PDL's bit groups) is
//! replaced by those fields, so that every later pass sees them as fields of the enclosing type
//! (read by expressions, derived by the encoder, like any other); what they were packed into is
//! kept beside, with the schema position of every field.

use super::*;
use crate::schema::{EndianDef, FieldDef, LayoutDef};
use std::collections::HashMap;

/// One group as the schema wrote it.
#[derive(Debug)]
pub(crate) struct GroupSpec {
    pub name: String,
    pub doc: Option<String>,
    /// The container's type (`u16be`) and packing (`msb-bits`).
    pub ty: Option<String>,
    pub endian: Option<crate::schema::EndianDef>,
    pub layout: Option<crate::schema::LayoutDef>,
    /// Schema path of the group field (`types.T.fields.2`).
    pub path: String,
    /// Its fields, as indexes of the enclosing type's fields after flattening.
    pub fields: std::ops::Range<usize>,
    /// Keys the container has that only a value field can have (reported by validation).
    pub stray_keys: Vec<&'static str>,
}

/// Per type: the schema path of each field after flattening, and its groups.
#[derive(Debug, Default)]
pub(crate) struct Flattened {
    pub paths: HashMap<String, Vec<String>>,
    pub groups: HashMap<String, Vec<GroupSpec>>,
    /// Fields that are not groups but say `layout:`, or groups inside groups: their paths.
    pub misplaced: Vec<(String, &'static str)>,
}

/// Replaces every group field by its fields.
pub(crate) fn flatten(file: &mut SchemaFile) -> Flattened {
    let mut out = Flattened::default();
    for (name, t) in file.types.iter_mut() {
        let mut paths = Vec::new();
        let mut groups = Vec::new();
        let mut fields = Vec::new();
        for (i, mut f) in std::mem::take(&mut t.fields).into_iter().enumerate() {
            let path = format!("types.{name}.fields.{i}");
            if f.fields.is_empty() {
                if f.layout.is_some() {
                    out.misplaced.push((format!("{path}.layout"), "layout"));
                }
                fields.push(f);
                paths.push(path);
                continue;
            }
            let members = std::mem::take(&mut f.fields);
            let start = fields.len();
            for (j, m) in members.into_iter().enumerate() {
                let at = format!("{path}.fields.{j}");
                if !m.fields.is_empty() {
                    out.misplaced.push((format!("{at}.fields"), "fields"));
                }
                if m.layout.is_some() {
                    out.misplaced.push((format!("{at}.layout"), "layout"));
                }
                paths.push(at);
                fields.push(m);
            }
            groups.push(GroupSpec {
                stray_keys: container_keys(&f),
                fields: start..fields.len(),
                name: f.name,
                doc: f.doc,
                ty: f.ty,
                endian: f.endian,
                layout: f.layout,
                path,
            });
        }
        t.fields = fields;
        out.paths.insert(name.clone(), paths);
        out.groups.insert(name.clone(), groups);
    }
    out
}

/// Keys of a field that make no sense on a group's container (it holds only its fields).
pub(crate) fn container_keys(f: &FieldDef) -> Vec<&'static str> {
    let mut keys = Vec::new();
    let mut has = |set: bool, key: &'static str| {
        if set {
            keys.push(key);
        }
    };
    has(f.constant.is_some(), "const");
    has(f.length.is_some(), "length");
    has(f.count.is_some(), "count");
    has(f.prefix.is_some(), "prefix");
    has(f.condition.is_some(), "if");
    has(f.switch.is_some(), "switch");
    has(f.checksum.is_some(), "checksum");
    has(f.pad.is_some(), "pad");
    has(f.align.is_some(), "align");
    has(f.reserved, "reserved");
    has(f.max.is_some(), "max");
    has(f.valid.is_some(), "valid");
    has(f.optional, "optional");
    has(!f.warn.is_empty(), "warn");
    has(f.packed, "packed");
    has(!f.state.is_empty(), "state");
    has(!f.set_when.is_empty(), "set_when");
    has(f.encoding.is_some(), "encoding");
    has(f.compression.is_some(), "compression");
    has(f.filter.is_some(), "filter");
    keys
}

impl<'f> Resolver<'f> {
    /// The bit groups of type `name` (of layout `layout`), checked: an unsigned integer of whole
    /// bytes up to 32 bits holding exactly its fields, which are numbers, bools, enums or flag
    /// sets that are always present. Marks each field with its group. `endian`: the type's byte
    /// order (the protocol's).
    pub(crate) fn bit_groups(
        &mut self,
        s: &mut Struct,
        enums: &[Enum],
        flags: &[Flags],
        endian: Endian,
    ) {
        let name = s.name.clone();
        let name = name.as_str();
        let layout = s.layout;
        let fields = &mut s.fields;
        let Some(specs) = self.r.flattened.groups.remove(name) else {
            return;
        };
        let mut out = Vec::new();
        for spec in &specs {
            let at = &spec.path;
            if !is_snake_ident(&spec.name) {
                self.r.error(
                    Code::E1401,
                    &format!("{at}.name"),
                    format!("field name '{}' is not snake_case", spec.name),
                    None,
                );
            }
            if fields.iter().any(|f| f.name == spec.name) {
                self.r.error(
                    Code::E1402,
                    &format!("{at}.name"),
                    format!(
                        "the bit group '{}' has the name of a field of '{name}'",
                        spec.name
                    ),
                    Some("give the group a name of its own: it is shown and filtered by it".into()),
                );
            }
            for key in &spec.stray_keys {
                self.r.error(
                    Code::E1403,
                    &format!("{at}.{key}"),
                    format!("'{key}' on a bit group: the group only holds its fields"),
                    Some("put it on one of the group's fields".into()),
                );
            }
            if layout.is_bits() {
                self.r.error(Code::E1404,
                    &format!("{at}.fields"),
                    format!(
                        "a bit group in the {} type '{name}': a bit stream packs its fields already",
                        layout.name()
                    ),
                    Some("list the fields directly in the type".into()),
                );
                continue;
            }
            let high_first = self.group_bit_order(spec);
            let Some(int) = self.group_int(spec, endian) else {
                continue;
            };
            let (mut total, mut packable) = (0, true);
            for fi in spec.fields.clone() {
                let f = &mut fields[fi];
                f.group = Some(out.len());
                let fp = self.r.field_path(name, fi);
                let width = self.group_member_width(f, &fp, enums, flags);
                packable &= width != 0;
                total += width;
            }
            if packable && total != int.bits {
                let hint = if total < int.bits {
                    format!(
                        "add a reserved field of the {} bits left ('reserved: true')",
                        int.bits - total
                    )
                } else {
                    "use a wider integer, or move fields out of the group".to_string()
                };
                self.r.error(
                    Code::E1409,
                    &format!("{at}.fields"),
                    format!(
                        "the fields of bit group '{}' take {total} bits of its {}",
                        spec.name, int.bits
                    ),
                    Some(hint),
                );
            }
            out.push(BitGroup {
                name: spec.name.clone(),
                doc: spec.doc.clone(),
                int,
                high_first,
                fields: spec.fields.clone(),
            });
        }
        s.groups = out;
    }

    /// A bit group's bit order: `msb-bits` puts the first field in the highest bits (E1405
    /// for a layout that is no bit order).
    fn group_bit_order(&mut self, spec: &GroupSpec) -> bool {
        match spec.layout {
            None | Some(LayoutDef::LsbBits) => false,
            Some(LayoutDef::MsbBits) => true,
            Some(LayoutDef::Bytes) => {
                self.r.error(Code::E1405,
                    &format!("{}.layout", spec.path),
                    "a bit group packs bits: its layout is a bit order",
                    Some("expected 'lsb-bits' (the first field in the lowest bits) or 'msb-bits' (in the highest)".into()),
                );
                false
            }
        }
    }

    /// A bit group's integer: unsigned, of whole bytes, in its own byte order or the type's
    /// (E1406 otherwise).
    fn group_int(&mut self, spec: &GroupSpec, endian: Endian) -> Option<IntTy> {
        match spec.ty.as_deref().map(crate::expr::parse_type) {
            Some(Ok(TypeExpr::Int {
                bits,
                signed: false,
                endian: suffix,
            })) if bits % 8 == 0 && (8..=64).contains(&bits) => {
                let big = match suffix.as_deref() {
                    Some(s) => Some(matches!(s, "be" | "big")),
                    None => spec.endian.map(|e| e == EndianDef::Big),
                };
                Some(IntTy {
                    bits,
                    signed: false,
                    endian: match big {
                        Some(true) => Endian::Big,
                        Some(false) => Endian::Little,
                        None => endian,
                    },
                })
            }
            _ => {
                self.r.error(
                    Code::E1406,
                    &format!("{}.type", spec.path),
                    format!(
                        "the bit group '{}' needs an unsigned integer of 1 to 8 whole bytes",
                        spec.name
                    ),
                    Some("e.g. 'type: u16be': its fields are that integer's bits".into()),
                );
                None
            }
        }
    }

    /// The bits a field of a bit group takes (0, with E1407, for a type that is not packed);
    /// E1408 for what a packed field cannot have.
    fn group_member_width(&mut self, f: &Field, fp: &str, enums: &[Enum], flags: &[Flags]) -> u32 {
        let width = match &f.ty {
            Ty::Int(it) => it.bits,
            Ty::Bool => 1,
            Ty::Enum(id) => enums[*id].repr.bits,
            Ty::Flags(id) => flags[*id].repr.bits,
            _ => 0,
        };
        if width == 0 {
            self.r.error(Code::E1407,
                &format!("{fp}.type"),
                format!(
                    "'{}' in a bit group: only integers, bools, enums and flag sets are packed into one",
                    f.name
                ),
                Some("move the field out of the group".into()),
            );
        }
        let extra = [
            (
                f.condition.is_some(),
                "if",
                "a bit group's fields are always present",
            ),
            (
                matches!(f.role, Role::Checksum(_)),
                "checksum",
                "a checksum is a field of its own",
            ),
            (
                !f.select.is_empty(),
                "state",
                "values typed by state are not packed",
            ),
            (
                f.padding.any(),
                "pad",
                "the group's integer has no room for padding",
            ),
        ];
        for (bad, key, why) in extra {
            if bad {
                self.r.error(
                    Code::E1408,
                    &format!("{fp}.{key}"),
                    format!("'{key}' on '{}': {why}", f.name),
                    Some("move the field out of the group".into()),
                );
            }
        }
        width
    }
}
