//! Pass: tags a variant implies. A switch whose tag is an expression of one field the user sets
//! (`on: "@from_client ? command : command + 0x1000"`, `on: "kind - 1"`) is solved for that
//! field, case by case: the encoder writes the field's value for the variant it is given
//! (`@from_client ? 1 : 1 - 0x1000` for case `0x0001`), so a user writes the variant alone; the
//! field stays the user's for the default (whose tag it gives).

use super::*;
use crate::expr::BinOp;

impl Resolver<'_> {
    /// Adds to each field a switch's tag expression is solved for the value each case implies.
    pub(crate) fn solve_tags(&mut self, fields: &mut [Field]) {
        let mut implied: Vec<(usize, Implied)> = Vec::new();
        for (ui, f) in fields.iter().enumerate() {
            let Ty::Union(u) = &f.ty else { continue };
            if u.on.local_field().is_some() || u.unless.is_some() {
                continue;
            }
            let mut used = Vec::new();
            u.on.local_fields(&mut used);
            used.dedup();
            let [t] = used[..] else { continue };
            let target = &fields[t];
            if target.role != Role::Value
                || target.condition.is_some()
                || !target.implied.is_empty()
                || !matches!(target.ty, Ty::Int(_))
            {
                continue;
            }
            // Tags written in hex where the expression writes its numbers so.
            let hex = u.on.any(|x| matches!(x, Expr::Int(_, Radix::Hex)));
            for (case, c) in u.cases.iter().enumerate() {
                let Some(tag) = c.single() else { continue };
                let radix = if hex { Radix::Hex } else { Radix::Dec };
                if let Some(value) = solve(&u.on, t, Expr::Int(tag, radix)) {
                    implied.push((
                        t,
                        Implied {
                            value: ImpliedValue::Solved,
                            when: ImpliedWhen::Variant {
                                field: ui,
                                case,
                                value,
                            },
                        },
                    ));
                }
            }
        }
        for (t, imp) in implied {
            fields[t].implied.push(imp);
        }
    }
}

/// The value field `t` must have for `e` to equal `target`, as an expression of what `e` reads
/// besides `t` (constants, the direction, enclosing fields): `e` made of `+`, `-` and `?:` whose
/// conditions do not read `t`, with `t` once in each branch.
fn solve(e: &Expr, t: usize, target: Expr) -> Option<Expr> {
    let reads = |x: &Expr| {
        let mut v = Vec::new();
        x.local_fields(&mut v);
        !v.is_empty()
    };
    let bin = |op, a: Expr, b: Expr| Expr::Binary(op, Box::new(a), Box::new(b));
    match e {
        Expr::Field(path) if path.len() == 1 && path[0].field == t => Some(target),
        Expr::Binary(BinOp::Add, a, b) if !reads(b) => {
            solve(a, t, bin(BinOp::Sub, target, (**b).clone()))
        }
        Expr::Binary(BinOp::Add, a, b) if !reads(a) => {
            solve(b, t, bin(BinOp::Sub, target, (**a).clone()))
        }
        Expr::Binary(BinOp::Sub, a, b) if !reads(b) => {
            solve(a, t, bin(BinOp::Add, target, (**b).clone()))
        }
        Expr::Binary(BinOp::Sub, a, b) if !reads(a) => {
            solve(b, t, bin(BinOp::Sub, (**a).clone(), target))
        }
        Expr::Cond(c, a, b) if !reads(c) => Some(Expr::Cond(
            c.clone(),
            Box::new(solve(a, t, target.clone())?),
            Box::new(solve(b, t, target)?),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(i: usize) -> Expr {
        Expr::Field(vec![FieldRef {
            struct_id: 0,
            field: i,
            name: format!("f{i}"),
        }])
    }

    #[test]
    fn a_tag_by_direction_is_solved_for_its_field() {
        // @from_client ? f0 : f0 + 0x1000, for the tag 0x1002.
        let tag = Expr::Cond(
            Box::new(Expr::FromClient),
            Box::new(field(0)),
            Box::new(Expr::Binary(
                BinOp::Add,
                Box::new(field(0)),
                Box::new(Expr::int(0x1000)),
            )),
        );
        let solved = solve(&tag, 0, Expr::int(0x1002)).unwrap();
        let Expr::Cond(c, a, b) = solved else {
            panic!("{solved:?}")
        };
        assert_eq!(*c, Expr::FromClient);
        assert_eq!(*a, Expr::int(0x1002));
        assert_eq!(
            *b,
            Expr::Binary(
                BinOp::Sub,
                Box::new(Expr::int(0x1002)),
                Box::new(Expr::int(0x1000))
            )
        );
        // 5 - f0 = 3 gives f0 = 5 - 3; f0 * 2 is not solved.
        let minus = Expr::Binary(BinOp::Sub, Box::new(Expr::int(5)), Box::new(field(0)));
        assert!(solve(&minus, 0, Expr::int(3)).is_some());
        let times = Expr::Binary(BinOp::Mul, Box::new(field(0)), Box::new(Expr::int(2)));
        assert!(solve(&times, 0, Expr::int(4)).is_none());
        // A condition reading the field itself is not solved.
        let own = Expr::Cond(Box::new(field(0)), Box::new(field(0)), Box::new(field(0)));
        assert!(solve(&own, 0, Expr::int(1)).is_none());
    }
}
