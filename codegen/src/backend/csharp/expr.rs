//! Schema expressions as C#: integers as `long`, conditions as `bool`, over the coders' locals
//! (the decoder's values read so far, the encoder's values about to be written).

use super::*;
use crate::expr::BinOp;

#[derive(Clone, Copy)]
pub(crate) struct Exprs<'p, 'f> {
    pub(crate) i: Input<'p>,
    /// The field whose value is being read (a switch's, whose tag may be a list's item): what
    /// an item's errors name.
    pub(crate) field: &'f str,
    /// The coder the expression is evaluated in: `r` (decoding) or `w` (encoding), which keeps
    /// the enclosing fields and the direction.
    pub(crate) coder: &'static str,
}

impl Exprs<'_, '_> {
    /// Whether `e` is a condition (else an integer).
    pub(crate) fn is_bool(&self, e: &Expr) -> bool {
        match e {
            Expr::Bool(_) | Expr::FlagBit(..) | Expr::Not(_) | Expr::FromClient => true,
            Expr::Enclosing(f) => matches!(self.i.p.field(f).ty, Ty::Bool),
            Expr::Field(path) => matches!(self.i.p.field(path.last().unwrap()).ty, Ty::Bool),
            Expr::Binary(op, ..) => op.is_comparison() || op.is_logical(),
            Expr::Cond(_, a, _) => self.is_bool(a),
            _ => false,
        }
    }

    /// `e` as C#: a `long` or a `bool`.
    pub(crate) fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Int(v, Radix::Hex) => format!("0x{v:X}L"),
            Expr::Int(v, _) => format!("{}L", *v as i64),
            Expr::Bool(b) => b.to_string(),
            Expr::MessageSize => "(long)r.MessageLength".into(),
            Expr::Remaining => "(long)r.Remaining".into(),
            Expr::Field(path) => {
                let f = self.i.p.field(path.last().unwrap());
                let absent = if matches!(f.ty, Ty::Bool) {
                    "false"
                } else {
                    "0L"
                };
                self.through(path, absent, |x, optional| {
                    let x = if optional && is_value_type(&f.ty) {
                        format!("{x}.Value")
                    } else {
                        x
                    };
                    match &f.ty {
                        Ty::Bool => x,
                        _ => format!("(long){x}"),
                    }
                })
            }
            Expr::FlagBit(path, mask) => {
                let f = self.i.p.field(path.last().unwrap());
                self.through(path, "false", |x, optional| {
                    let x = if optional && is_value_type(&f.ty) {
                        format!("{x}.Value")
                    } else {
                        x
                    };
                    format!("(((ulong){x} & 0x{mask:X}UL) != 0)")
                })
            }
            Expr::Len(path, _) => self.through(path, "0L", |x, _| {
                let f = self.i.p.field(path.last().unwrap());
                match &f.ty {
                    Ty::Bytes(_) => format!("(long){x}.Count"),
                    Ty::Array(..) => format!("(long){x}.Count"),
                    _ => format!("(long){x}.Length"),
                }
            }),
            Expr::Not(x) => format!("!{}", self.expr(x)),
            Expr::Neg(x) => format!("(-{})", self.expr(x)),
            Expr::Cond(c, a, b) => {
                format!("({} ? {} : {})", self.expr(c), self.expr(a), self.expr(b))
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                match op {
                    BinOp::Or => format!("({a} || {b})"),
                    BinOp::And => format!("({a} && {b})"),
                    BinOp::Eq => format!("({a} == {b})"),
                    BinOp::Ne => format!("({a} != {b})"),
                    BinOp::Lt => format!("({a} < {b})"),
                    BinOp::Le => format!("({a} <= {b})"),
                    BinOp::Gt => format!("({a} > {b})"),
                    BinOp::Ge => format!("({a} >= {b})"),
                    BinOp::BitOr => format!("({a} | {b})"),
                    BinOp::BitAnd => format!("({a} & {b})"),
                    BinOp::Shl => format!("WireOps.Shl({a}, {b})"),
                    BinOp::Shr => format!("WireOps.Shr({a}, {b})"),
                    BinOp::Add => format!("({a} + {b})"),
                    BinOp::Sub => format!("({a} - {b})"),
                    BinOp::Mul => format!("({a} * {b})"),
                    BinOp::Div => format!("WireOps.Div({a}, {b})"),
                    BinOp::Rem => format!("WireOps.Rem({a}, {b})"),
                }
            }
            // (Validation keeps list items to switch tags, which only decoders evaluate.)
            Expr::Item(t, i) => format!("(long)r.Item({t}, {}, {})", self.expr(i), lit(self.field)),
            Expr::Enclosing(f) => {
                let slot = self
                    .i
                    .l
                    .enclosing
                    .iter()
                    .position(|e| *e == (f.struct_id, f.field));
                let holder = lit(&self.i.p.structs[f.struct_id].name);
                let field = &self.i.p.field(f);
                let v = format!(
                    "{}.Enclosing({}, {holder}, {})",
                    self.coder,
                    slot.unwrap_or_default(),
                    lit(self.field)
                );
                match field.ty {
                    Ty::Bool => format!("({v} != 0)"),
                    _ => format!("(long){v}"),
                }
            }
            Expr::FromClient => format!("{}.FromClient({})", self.coder, lit(self.field)),
        }
    }

    /// The value at `path` (a local, then members of nested values), `absent` where an
    /// optional value on the way is missing; `leaf` gets the access and whether it is optional.
    fn through(
        &self,
        path: &[FieldRef],
        absent: &str,
        leaf: impl Fn(String, bool) -> String,
    ) -> String {
        let p = self.i.p;
        let first = &path[0];
        let mut access = local(&p.field(first).name);
        let mut guards = Vec::new();
        for (k, step) in path.iter().enumerate() {
            let f = p.field(step);
            if k > 0 {
                let class = type_name(&p.structs[step.struct_id].name);
                access = format!("{access}.{}", member(&class, &f.name));
            }
            let optional = f.condition.is_some();
            if k + 1 < path.len() && optional {
                guards.push(format!("{access} != null"));
            }
            if k + 1 == path.len() {
                let value = leaf(access.clone(), optional);
                if optional {
                    let test = if is_value_type(&f.ty) {
                        format!("{access}.HasValue")
                    } else {
                        format!("{access} != null")
                    };
                    guards.push(test);
                }
                return if guards.is_empty() {
                    value
                } else {
                    format!("({} ? {value} : {absent})", guards.join(" && "))
                };
            }
        }
        unreachable!("a path has a last field")
    }
}
