//! The C# type of each schema type, and the names and literals every renderer writes alike.

use super::*;

/// The C# types of a schema's values.
#[derive(Clone, Copy)]
pub(crate) struct CsTypes<'p> {
    pub(crate) i: Input<'p>,
}

impl<'p> CsTypes<'p> {
    /// The C# type of value field `fi`, `?` when it is optional and a value type.
    pub(crate) fn field_type(
        &self,
        sid: StructId,
        fi: usize,
        f: &Field,
    ) -> Result<String, Internal> {
        let t = self.ty(sid, fi, &f.ty)?;
        Ok(if f.condition.is_some() && is_value_type(&f.ty) {
            format!("{t}?")
        } else {
            t
        })
    }

    /// The C# type of a value of `ty` (held by field `fi` of struct `sid`).
    pub(crate) fn ty(&self, sid: StructId, fi: usize, ty: &Ty) -> Result<String, Internal> {
        let p = self.i.p;
        Ok(match ty {
            Ty::Int(it) => int_type(it).into(),
            Ty::Bool => "bool".into(),
            Ty::Float { bits: 64, .. } => "double".into(),
            Ty::Float { .. } => "float".into(),
            Ty::VarInt(VarInt::Leb128) => "ulong".into(),
            Ty::VarInt(VarInt::ZigZag) => "long".into(),
            Ty::VarInt(VarInt::RiptideLen) => "ushort".into(),
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => int_type(&IntTy {
                bits: *bits,
                signed: *signed,
                endian: Endian::Little,
            })
            .into(),
            Ty::Enum(id) => type_name(&p.enums[*id].name),
            Ty::Flags(id) => type_name(&p.flags[*id].name),
            Ty::Bytes(_) => "ArraySegment<byte>".into(),
            Ty::Str(..) => "string".into(),
            Ty::Bits => "BitString".into(),
            Ty::Struct(id, _) => type_name(&p.structs[*id].name),
            Ty::Array(e, _) => format!("List<{}>", self.ty(sid, fi, e)?),
            Ty::Union(_) => type_name(&p.union_name(sid, fi)),
        })
    }

    /// The field a switch's tag is, when the encoder derives it from the variant.
    pub(crate) fn tag_field(&self, sid: StructId, fi: usize) -> Option<(usize, &'p Field)> {
        self.i.p.structs[sid]
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.role == Role::Derived(Derive::TagOf(fi)))
    }
}

/// The test that `tag` is one of a case's values.
pub(crate) fn case_test(values: &[CaseValue]) -> String {
    let tests: Vec<String> = values
        .iter()
        .map(|v| match v {
            CaseValue::One(x) => format!("tag == {}L", *x as i64),
            CaseValue::Range(lo, hi) => {
                format!("(tag >= {}L && tag <= {}L)", *lo as i64, *hi as i64)
            }
        })
        .collect();
    tests.join(" || ")
}

/// An enum value's or case's C# name.
pub(crate) fn variant(name: &str) -> String {
    type_name(name)
}

/// An integer as the schema wrote it (hex as written, else decimal).
pub(crate) fn literal(v: u64, hex: &Option<String>) -> String {
    hex.clone().unwrap_or_else(|| v.to_string())
}
