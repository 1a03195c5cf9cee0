//! Schema constructs written back as the schema language writes them: expressions, types,
//! sizes, roles.

use crate::ir::*;

/// The anchor of a type's, enum's or flag set's section.
pub fn anchor(kind: &str, name: &str) -> String {
    format!("{kind}-{}", name.to_lowercase())
}

/// A link to type `sid`'s section.
pub fn type_link(p: &Protocol, sid: StructId) -> String {
    let name = &p.structs[sid].name;
    format!("[`{name}`](#{})", anchor("type", name))
}

/// An expression in the schema's syntax.
pub fn expr(p: &Protocol, e: &Expr) -> String {
    expr_in(p, e, 0)
}

/// `e` inside an operator binding as tightly as `outer` (parenthesised when it binds looser).
fn expr_in(p: &Protocol, e: &Expr, outer: u8) -> String {
    let path = |refs: &[FieldRef]| -> String {
        refs.iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(".")
    };
    match e {
        Expr::Int(n, Radix::Dec) => n.to_string(),
        Expr::Int(n, Radix::Hex) => format!("{n:#X}"),
        Expr::Bool(b) => b.to_string(),
        Expr::Field(refs) => path(refs),
        Expr::FlagBit(refs, mask) => {
            let bit = refs
                .last()
                .and_then(|r| match &p.field(r).ty {
                    Ty::Flags(id) => p.flags[*id].bits.iter().find(|b| b.value == *mask),
                    _ => None,
                })
                .map_or_else(|| format!("{mask:#x}"), |b| b.name.clone());
            format!("{}.{bit}", path(refs))
        }
        Expr::Enclosing(r) => format!("{}.{}", p.structs[r.struct_id].name, r.name),
        Expr::FromClient => "@from_client".into(),
        Expr::MessageSize => "@size".into(),
        Expr::Remaining => "@remaining".into(),
        Expr::Len(refs, _) => format!("len({})", path(refs)),
        Expr::Item(table, index) => {
            let name = p.state.get(*table).map_or("state", |t| t.name.as_str());
            format!("{name}[{}]", expr_in(p, index, 0))
        }
        Expr::Not(inner) => format!("!{}", expr_in(p, inner, 255)),
        Expr::Neg(inner) => format!("-{}", expr_in(p, inner, 255)),
        Expr::Binary(op, a, b) => {
            // A constant compared with its field is written as the schema wrote the constant.
            let literal = |side: &Expr, other: &Expr| match (side, other) {
                (Expr::Int(n, _), Expr::Field(refs)) if op.is_comparison() => refs
                    .last()
                    .map(|r| p.field(r))
                    .filter(|f| f.role == Role::Const(*n))
                    .and_then(|f| f.const_literal()),
                _ => None,
            };
            let side =
                |x: &Expr, y: &Expr, prec: u8| literal(x, y).unwrap_or_else(|| expr_in(p, x, prec));
            let prec = precedence(*op);
            let text = format!(
                "{} {} {}",
                side(a, b, prec),
                op.symbol(),
                side(b, a, prec + 1)
            );
            if prec < outer {
                format!("({text})")
            } else {
                text
            }
        }
        Expr::Cond(c, a, b) => {
            let text = format!(
                "{} ? {} : {}",
                expr_in(p, c, 1),
                expr_in(p, a, 1),
                expr_in(p, b, 1)
            );
            if outer > 0 {
                format!("({text})")
            } else {
                text
            }
        }
    }
}

/// Binding strength, tighter higher (C's order).
fn precedence(op: crate::expr::BinOp) -> u8 {
    use crate::expr::BinOp::*;
    match op {
        Or => 1,
        And => 2,
        BitOr => 3,
        BitAnd => 5,
        Eq | Ne => 6,
        Lt | Le | Gt | Ge => 7,
        Shl | Shr => 8,
        Add | Sub => 9,
        Mul | Div | Rem => 10,
    }
}

/// A field's type as the schema names it, linked to its section when it has one.
pub fn ty(p: &Protocol, t: &Ty) -> String {
    match t {
        Ty::Int(it) => format!("`{}`", it.name()),
        Ty::Bool => "`bool`".into(),
        Ty::Float { bits, .. } => format!("`f{bits}`"),
        Ty::VarInt(v) => format!(
            "`{}`",
            match v {
                VarInt::Leb128 => "leb128".to_string(),
                VarInt::ZigZag => "zigzag".to_string(),
                VarInt::RiptideLen => "riptide_len".to_string(),
                VarInt::Rabbit { bits, signed } =>
                    format!("rabbit_{}{bits}", if *signed { "i" } else { "u" }),
            }
        ),
        Ty::Enum(id) => {
            let name = &p.enums[*id].name;
            format!("[`{name}`](#{})", anchor("enum", name))
        }
        Ty::Flags(id) => {
            let name = &p.flags[*id].name;
            format!("[`{name}`](#{})", anchor("flags", name))
        }
        Ty::Bytes(_) => "`bytes`".into(),
        Ty::Str(_, text) => {
            let kind = match text.nul {
                Nul::No => "string",
                Nul::Terminated | Nul::Padded => "strz",
            };
            format!("`{kind}` ({})", text.encoding.name())
        }
        Ty::Bits => "`bits`".into(),
        Ty::Struct(id, _) => type_link(p, *id),
        Ty::Array(elem, _) => format!("{} array", ty(p, elem)),
        Ty::Union(u) => format!("switch on `{}`", expr(p, &u.on)),
    }
}

/// How long a value is when its type does not fix it.
pub fn len(p: &Protocol, l: &Len, array: bool) -> String {
    let unit = if array { "elements" } else { "bytes" };
    match l {
        Len::Prefix(it) => format!("{unit} counted by a `{}` prefix before it", it.name()),
        Len::VarPrefix(v) => format!(
            "{unit} counted by a {} prefix before it",
            ty(p, &Ty::VarInt(*v))
        ),
        Len::Expr(Expr::Int(n, _)) => format!("{n} {unit}"),
        Len::Expr(e) => format!("`{}` {unit}", expr(p, e)),
        Len::Rest => "to the end of its scope".into(),
        Len::Natural => "as its fields say".into(),
        Len::Bytes(e) => format!("`{}` bytes of elements", expr(p, e)),
    }
}

/// A size in bits as a reader counts it: bytes when whole.
pub fn bits(n: u64) -> String {
    match (n % 8, n / 8) {
        (0, 1) => "1 byte".into(),
        (0, b) => format!("{b} bytes"),
        (_, _) if n == 1 => "1 bit".into(),
        _ => format!("{n} bits"),
    }
}

/// An offset from a type's start: `byte 4` or `byte 4, bit 3` (bit streams: `bit 35`).
pub fn offset(at: u64, bit_stream: bool) -> String {
    if bit_stream {
        format!("bit {at}")
    } else if at.is_multiple_of(8) {
        format!("{}", at / 8)
    } else {
        format!("{}, bit {}", at / 8, at % 8)
    }
}

/// A checksum's algorithm with its parameters.
pub fn checksum(c: &ChecksumAlgo) -> String {
    match c {
        ChecksumAlgo::Crc(crc) => {
            let (width, poly, init, refin, refout, xorout) = crc.crc_params();
            let digits = width.div_ceil(4) as usize;
            format!(
                "`{}` (width {width}, poly 0x{poly:0digits$X}, init 0x{init:0digits$X}, \
                 refin {refin}, refout {refout}, xorout 0x{xorout:0digits$X})",
                c.name()
            )
        }
        other => format!("`{}`", other.name()),
    }
}
