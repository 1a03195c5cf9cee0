//! Validated expressions: fields resolved to their struct and index.

use super::*;

/// A checked expression. Every node knows its type.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// An integer literal, and how the schema writes it (printed so in every output).
    Int(u64, Radix),
    Bool(bool),
    /// A field of the current struct (index) then, possibly, fields of nested structs.
    Field(Vec<FieldRef>),
    /// A flag bit of a flags field: the path to the field, then the bit mask.
    FlagBit(Vec<FieldRef>, u64),
    /// Bytes in the whole message.
    MessageSize,
    /// Bytes left in the current scope.
    Remaining,
    /// Byte length (bytes, string, struct) or element count (array) of a field.
    Len(Vec<FieldRef>, LenKind),
    /// Item at an index of the list selected for a state table (an enclosing field's `state`).
    Item(usize, Box<Expr>),
    /// `Header.channel`: a field of the nearest enclosing value of another type (`struct_id`
    /// names that type). Its coders keep the field's value where the types inside read it
    /// ([`crate::lower::Lowered::enclosing`]).
    Enclosing(FieldRef),
    /// `@from_client`: whether the message was sent by the client (to the server's port).
    FromClient,
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Binary(crate::expr::BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b` (both branches of one type).
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
}

pub use crate::expr::Radix;

impl Expr {
    /// An integer the generator makes (written in decimal).
    pub fn int(value: u64) -> Expr {
        Expr::Int(value, Radix::Dec)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LenKind {
    Bytes,
    Elements,
}

impl Expr {
    /// The field, when the expression is a bare reference to one of its own struct's fields
    /// (the form from which encoders derive values).
    pub fn local_field(&self) -> Option<usize> {
        match self {
            Expr::Field(p) if p.len() == 1 => Some(p[0].field),
            _ => None,
        }
    }

    /// The field this expression is a linear function of, `mul * field + add` (`size - 2`,
    /// `units * 2`, `16 - count`), when it is nothing else: a length or count of that form
    /// derives the field from the data.
    pub fn linear_field(&self) -> Option<(usize, Linear)> {
        use crate::expr::BinOp;
        let int = |c: &u64| i64::try_from(*c).ok();
        let (f, l) = match self {
            Expr::Field(p) if p.len() == 1 => return Some((p[0].field, Linear::IDENTITY)),
            Expr::Binary(op, a, b) => match (op, a.as_ref(), b.as_ref()) {
                (BinOp::Add, x, Expr::Int(c, _)) | (BinOp::Add, Expr::Int(c, _), x) => {
                    let (f, l) = x.linear_field()?;
                    (f, (l.mul, l.add.checked_add(int(c)?)?))
                }
                (BinOp::Sub, x, Expr::Int(c, _)) => {
                    let (f, l) = x.linear_field()?;
                    (f, (l.mul, l.add.checked_sub(int(c)?)?))
                }
                (BinOp::Sub, Expr::Int(c, _), x) => {
                    let (f, l) = x.linear_field()?;
                    (f, (-l.mul, int(c)?.checked_sub(l.add)?))
                }
                (BinOp::Mul, x, Expr::Int(c, _)) | (BinOp::Mul, Expr::Int(c, _), x) if *c > 0 => {
                    let (f, l) = x.linear_field()?;
                    (
                        f,
                        (l.mul.checked_mul(int(c)?)?, l.add.checked_mul(int(c)?)?),
                    )
                }
                _ => return None,
            },
            _ => return None,
        };
        Some((f, Linear { mul: l.0, add: l.1 }))
    }

    /// Calls `f` on this node and every node under it.
    pub fn each(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Not(x) | Expr::Neg(x) | Expr::Item(_, x) => x.each(f),
            Expr::Binary(_, a, b) => {
                a.each(f);
                b.each(f);
            }
            Expr::Cond(c, a, b) => {
                c.each(f);
                a.each(f);
                b.each(f);
            }
            _ => {}
        }
    }

    /// Whether `pred` holds for this node or one under it.
    pub fn any(&self, pred: impl Fn(&Expr) -> bool) -> bool {
        let mut found = false;
        self.each(&mut |e| found |= pred(e));
        found
    }

    /// Whether it reads the reader's position (`@size`, `@remaining`): known while decoding,
    /// not while encoding, before the rest of the message is written.
    pub fn reads_position(&self) -> bool {
        self.any(|e| matches!(e, Expr::MessageSize | Expr::Remaining))
    }

    /// Whether it reads a field of an enclosing value or the direction: known while a message is
    /// decoded or encoded from its root, not on a value alone.
    pub fn reads_context(&self) -> bool {
        self.any(|e| matches!(e, Expr::Enclosing(_) | Expr::FromClient))
    }

    /// Whether it reads the direction (`@from_client`).
    pub fn reads_direction(&self) -> bool {
        self.any(|e| matches!(e, Expr::FromClient))
    }

    /// Calls `f` on every enclosing field it reads.
    pub fn each_enclosing(&self, f: &mut impl FnMut(&FieldRef)) {
        self.each(&mut |e| {
            if let Expr::Enclosing(r) = e {
                f(r)
            }
        });
    }

    /// Whether it reads an item of a conversation-state list.
    pub fn reads_state(&self) -> bool {
        self.any(|e| matches!(e, Expr::Item(..)))
    }

    /// Indexes (in the expression's own struct) of the fields it reads.
    pub fn local_fields(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Field(p) | Expr::FlagBit(p, _) | Expr::Len(p, _) => out.push(p[0].field),
            Expr::Not(x) | Expr::Neg(x) | Expr::Item(_, x) => x.local_fields(out),
            Expr::Binary(_, a, b) => {
                a.local_fields(out);
                b.local_fields(out);
            }
            Expr::Cond(c, a, b) => {
                c.local_fields(out);
                a.local_fields(out);
                b.local_fields(out);
            }
            _ => {}
        }
    }
}

/// One step of a field path: the struct and the field index inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRef {
    pub struct_id: StructId,
    pub field: usize,
    pub name: String,
}
