//! Pass (a backend limit): arithmetic the dissector cannot do exactly. Lua keeps a field's value
//! as a double, exact up to 2^53; the crate computes in `i128`. Comparing a 64-bit value with a
//! small constant gives the same answer either way (rounding keeps the order), but the low bits
//! `%`, `/`, bit operations and shifts read, and a comparison of two such values, may not: the
//! two outputs would disagree on a message without saying so (a random schema's
//! `struct % 3 != 0` over a `leb128` did). Such an expression is refused for the dissector at
//! its position, with the ways to bound the value.

use super::*;

/// The largest integer a Lua number (a double) holds exactly, and every one below it.
const EXACT: u64 = 1 << 53;

/// L0117 for each expression of a field that does arithmetic on values past 2^53.
pub(crate) fn wide_number_limits(r: &Report, p: &Protocol, out: &mut Vec<Limit>) {
    for s in &p.structs {
        for (fi, f) in s.fields.iter().enumerate() {
            let fp = r.field_path(&s.name, fi);
            for (key, e) in keyed_exprs(f) {
                if let Some(what) = inexact(p, e) {
                    out.push(limit(
                        r,
                        Code::L0117,
                        Backend::Lua,
                        &format!("{fp}.{key}"),
                        format!(
                            "'{}': {what}, past the 2^53 a Lua number holds exactly",
                            f.name
                        ),
                        "bound the value (`valid: { max: 9007199254740992 }`), or give it a \
                         type of at most 53 bits",
                    ));
                }
            }
        }
    }
}

/// A field's own expressions with the key each is written under.
fn keyed_exprs(f: &Field) -> Vec<(&'static str, &Expr)> {
    let mut out = Vec::new();
    if let Some(c) = &f.condition {
        out.push(("if", c));
    }
    match &f.ty {
        Ty::Bytes(Len::Expr(e)) | Ty::Str(Len::Expr(e), _) | Ty::Struct(_, Some(Len::Expr(e))) => {
            out.push(("length", e))
        }
        Ty::Array(_, Len::Expr(e)) => out.push(("count", e)),
        Ty::Array(_, Len::Bytes(e)) => out.push(("length", e)),
        Ty::Union(u) => {
            out.push(("switch.on", &u.on));
            if let Len::Expr(e) = &u.len {
                out.push(("length", e));
            }
        }
        _ => {}
    }
    out
}

/// What in `e` the dissector would compute inexactly, if anything.
fn inexact(p: &Protocol, e: &Expr) -> Option<String> {
    match e {
        Expr::Not(x) | Expr::Neg(x) | Expr::Item(_, x) => inexact(p, x),
        Expr::Cond(c, a, b) => inexact(p, c)
            .or_else(|| inexact(p, a))
            .or_else(|| inexact(p, b)),
        Expr::Binary(op, a, b) => {
            if let Some(what) = inexact(p, a).or_else(|| inexact(p, b)) {
                return Some(what);
            }
            let (wa, wb) = (wide(p, a), wide(p, b));
            let low_bits = matches!(
                op,
                BinOp::Rem | BinOp::Div | BinOp::BitAnd | BinOp::BitOr | BinOp::Shl | BinOp::Shr
            );
            if low_bits && (wa || wb) {
                Some(format!(
                    "`{}` of a value that may be 64 bits wide",
                    op.symbol()
                ))
            } else if op.is_comparison() && wa && wb {
                Some(format!(
                    "`{}` of two values that may be 64 bits wide",
                    op.symbol()
                ))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether the value of `e` may lie past ±2^53.
fn wide(p: &Protocol, e: &Expr) -> bool {
    match e {
        Expr::Int(v, _) => *v > EXACT,
        Expr::Field(path) => path.last().is_some_and(|r| wide_field(p.field(r))),
        Expr::Enclosing(r) => wide_field(p.field(r)),
        Expr::Neg(x) => wide(p, x),
        Expr::Cond(_, a, b) => wide(p, a) || wide(p, b),
        Expr::Binary(op, a, b) if !op.is_comparison() && !matches!(op, BinOp::And | BinOp::Or) => {
            wide(p, a) || wide(p, b)
        }
        _ => false,
    }
}

/// Whether a field's values may lie past ±2^53: its type is wider, and neither `max` nor
/// `valid` bounds it.
fn wide_field(f: &Field) -> bool {
    let bits = match &f.ty {
        Ty::Int(it) => it.bits,
        Ty::VarInt(VarInt::Leb128 | VarInt::ZigZag) => 64,
        Ty::VarInt(VarInt::Rabbit { bits, .. }) => *bits,
        _ => 0,
    };
    if bits <= 53 {
        return false;
    }
    let bounded = |lo: i64, hi: i64| lo >= -(EXACT as i64) && hi <= EXACT as i64;
    let by_valid = match &f.valid {
        Some(Valid::Range {
            min: Some(lo),
            max: Some(hi),
        }) => bounded(*lo, *hi),
        Some(Valid::Range {
            min: None,
            max: Some(hi),
        }) => {
            !matches!(
                f.ty,
                Ty::Int(IntTy { signed: true, .. }) | Ty::VarInt(VarInt::ZigZag)
            ) && bounded(0, *hi)
        }
        Some(Valid::List(values)) => values.iter().all(|v| bounded(*v, *v)),
        _ => false,
    };
    !(by_valid || f.max.is_some_and(|m| m <= EXACT))
}
