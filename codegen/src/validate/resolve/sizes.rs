//! Pass: sizes. How long a bytes, string, struct or switch field is and how many elements an
//! array holds: a prefix (an integer or a varint), an expression, or the rest of the scope; or
//! how many bytes an array's elements fill (`length:` on an array).

use super::*;

impl<'f> Resolver<'f> {
    /// Byte length of a bytes/string/struct/union field: prefix, expression, or the rest.
    pub(crate) fn len_of(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
        rest_ok: bool,
    ) -> Len {
        if f.length.is_some() && f.prefix.is_some() {
            self.r.error(
                Code::E1501,
                &format!("{fp}.prefix"),
                "a field has either a 'length' or a 'prefix', not both",
                None,
            );
        }
        if let Some(p) = &f.prefix {
            return self.prefix(p, fp, endian);
        }
        match &f.length {
            Some(l) => self.len_expr(sid, index, l, &format!("{fp}.length")),
            None if rest_ok => Len::Rest,
            None => Len::Rest,
        }
    }

    /// A length or count prefix: an integer type, or a varint (`leb128`, `riptide_len`).
    fn prefix(&mut self, p: &str, fp: &str, endian: Endian) -> Len {
        match p {
            "leb128" => Len::VarPrefix(VarInt::Leb128),
            "riptide_len" => Len::VarPrefix(VarInt::RiptideLen),
            _ => self
                .int_ty(p, &format!("{fp}.prefix"), endian)
                .map(Len::Prefix)
                .unwrap_or(Len::Rest),
        }
    }

    pub(crate) fn count_of(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
    ) -> Len {
        if let Some(p) = &f.prefix {
            if f.count.is_some() {
                self.r.error(
                    Code::E1502,
                    &format!("{fp}.prefix"),
                    "a field has either a 'count' or a 'prefix', not both",
                    None,
                );
            }
            return self.prefix(p, fp, endian);
        }
        if let Some(l) = &f.length {
            if f.count.is_some() {
                self.r.error(
                    Code::E1503,
                    &format!("{fp}.length"),
                    "an array has either a 'count' (elements) or a 'length' (bytes), not both",
                    None,
                );
            }
            // Elements that fill exactly this many bytes.
            return match self.len_expr(sid, index, l, &format!("{fp}.length")) {
                Len::Expr(e) => Len::Bytes(e),
                other => other,
            };
        }
        match &f.count {
            Some(c) => self.len_expr(sid, index, c, &format!("{fp}.count")),
            None => Len::Rest,
        }
    }

    pub(crate) fn len_expr(&mut self, sid: StructId, index: usize, l: &ExprOrInt, yp: &str) -> Len {
        let scope = Scope {
            struct_id: sid,
            visible: index,
            yaml_path: yp,
        };
        match l {
            ExprOrInt::Int(n) => Len::Expr(Expr::int(*n)),
            ExprOrInt::Expr(text) => Len::Expr(self.expr_of(&scope, text, ExprTy::Int)),
        }
    }
}
