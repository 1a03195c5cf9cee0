//! Schema expressions as Lua.

use super::*;

/// Renders schema expressions as Lua over a struct's values table `v`.
#[derive(Clone, Copy)]
pub(crate) struct Exprs<'p> {
    pub(crate) i: Input<'p>,
}

impl<'p> Exprs<'p> {
    pub(crate) fn expr(&self, e: &Expr) -> String {
        let p = self.i.p;
        // `v.a.b`, indexing by string where a name is a Lua keyword (`v["end"].b`).
        let path = |refs: &[FieldRef]| -> String {
            let mut out = value_slot(&refs[0].name);
            for r in &refs[1..] {
                out += &member(&r.name);
            }
            out
        };
        // `read` of the value at `refs`, where every conditional field on the way is there;
        // an absent one reads as `absent` (0, or false), as in the crate.
        let through = |refs: &[FieldRef], absent: &str, read: String| -> String {
            let guards: Vec<String> = (0..refs.len())
                .filter(|&i| p.field(&refs[i]).condition.is_some())
                .map(|i| path(&refs[..=i]))
                .collect();
            match guards.as_slice() {
                [] => read,
                [only] if *only == read => format!("({read} or {absent})"),
                _ => format!("({} and {read} or {absent})", guards.join(" and ")),
            }
        };
        match e {
            // In hex as the schema writes it, while exact as a Lua number (Lua 5.4 reads a hex
            // literal past 2^63 as a wrapped integer, a decimal one as a float).
            Expr::Int(v, Radix::Hex) if *v < 1 << 53 => format!("{v:#X}"),
            Expr::Int(v, _) => v.to_string(),
            Expr::Bool(b) => b.to_string(),
            Expr::Field(refs) => {
                let absent = match p.field(refs.last().unwrap()).ty {
                    Ty::Bool => "false",
                    _ => "0",
                };
                through(refs, absent, path(refs))
            }
            Expr::FlagBit(refs, mask) => {
                let bits = through(refs, "0", path(refs));
                format!("has_bit({bits}, {mask})")
            }
            Expr::MessageSize => "tvb:len()".into(),
            // Kept by the holder when it read the field (see `structs.rs`).
            Expr::Enclosing(r) => {
                let slot = self.i.l.field(r.struct_id, r.field).enclosing_slot;
                format!("ENCLOSING[{}]", slot.map_or(0, |s| s + 1))
            }
            Expr::FromClient => "from_client(pinfo)".into(),
            Expr::Remaining => "(limit - offset)".into(),
            Expr::Len(refs, _) => match &p.field(refs.last().unwrap()).ty {
                Ty::Bytes(_) => through(refs, "0", path(refs)),
                _ => through(refs, "0", format!("#{}", path(refs))),
            },
            Expr::Item(t, i) => format!("list_item({}, {})", t + 1, self.expr(i)),
            // Both branches are evaluated (expressions have no effects; a branch that would
            // fail, an absent field, reads as 0): `a and b or c` would be wrong for a false b.
            Expr::Cond(c, a, b) => {
                format!("pick({}, {}, {})", self.expr(c), self.expr(a), self.expr(b))
            }
            Expr::Not(x) => format!("(not {})", self.expr(x)),
            Expr::Neg(x) => format!("(-{})", self.expr(x)),
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                match op {
                    BinOp::Or => format!("({a} or {b})"),
                    BinOp::And => format!("({a} and {b})"),
                    BinOp::Eq => format!("({a} == {b})"),
                    BinOp::Ne => format!("({a} ~= {b})"),
                    BinOp::Lt => format!("({a} < {b})"),
                    BinOp::Le => format!("({a} <= {b})"),
                    BinOp::Gt => format!("({a} > {b})"),
                    BinOp::Ge => format!("({a} >= {b})"),
                    BinOp::BitOr => {
                        self.i.bitops.set(true);
                        format!("bor({a}, {b})")
                    }
                    BinOp::BitAnd => {
                        self.i.bitops.set(true);
                        format!("band({a}, {b})")
                    }
                    BinOp::Shl => format!("({a} * 2 ^ {b})"),
                    BinOp::Shr => format!("floor({a} / 2 ^ {b})"),
                    BinOp::Add => format!("({a} + {b})"),
                    BinOp::Sub => format!("({a} - {b})"),
                    BinOp::Mul => format!("({a} * {b})"),
                    BinOp::Div => format!("idiv({a}, {b})"),
                    BinOp::Rem => format!("irem({a}, {b})"),
                }
            }
        }
    }

    /// A switch's tag as a number: a bool tag is 1 or 0 (cases `true` and `false`).
    pub(crate) fn tag_expr(&self, on: &Expr) -> String {
        let e = self.expr(on);
        match on {
            Expr::Field(refs) if matches!(self.i.p.field(refs.last().unwrap()).ty, Ty::Bool) => {
                format!("({e} and 1 or 0)")
            }
            _ => e,
        }
    }
}
