//! One table of expressions, each as every target prints it: the schema's text (the reference),
//! the Rust decoder's and the Lua dissector's. A change to one printer that the others do not
//! follow (precedence, a constant's spelling, an absent field's value) fails here, on the
//! expression, rather than as two outputs that disagree on some message.

use crate::ir::*;
use crate::lower::lower;

const SCHEMA: &str = r#"
protocol: { name: demo, title: Demo, root: Frame, transport: { udp: { ports: [9000] } } }
flags:
  Opts: { type: u8, bits: { RELIABLE: 0x01, LAST: 0x80 } }
types:
  Frame:
    fields:
      - { name: kind, type: u8 }
      - { name: opts, type: Opts }
      - { name: count, type: u16 }
      - { name: size, type: u16 }
      - { name: extra, type: u8, if: "opts.LAST" }
      - { name: a, type: bytes, length: "count * 2 + 1" }
      - { name: b, type: bytes, length: "(size + 1) * 2" }
      - { name: c, type: u8, if: "kind != 0 && count > 4" }
      - { name: d, type: bytes, length: "kind >= 0x10 ? count : 0" }
      - { name: e, type: u8, if: "!(kind == 3) || extra == 1" }
      - { name: f, type: bytes, length: "(kind | 0x0F) - len(a)" }
      - { name: g, type: bytes, length: "@remaining - 2" }
      - { name: h, type: u16 }
"#;

/// The expression of each field's `if:` or `length:`, by field name.
fn expressions(p: &Protocol) -> Vec<(&str, &Expr)> {
    p.root()
        .fields
        .iter()
        .filter_map(|f| {
            let e = match (&f.condition, &f.ty) {
                (Some(c), _) => c,
                (None, Ty::Bytes(Len::Expr(e))) => e,
                _ => return None,
            };
            Some((f.name.as_str(), e))
        })
        .collect()
}

#[test]
fn every_target_prints_each_expression_alike() {
    let p = crate::validate::load("demo.yaml", SCHEMA).unwrap_or_else(|d| panic!("{d}"));
    let l = lower(&p);
    // field: (schema, Rust decoder, Lua dissector)
    let table: &[(&str, [&str; 3])] = &[
        // A flag bit: the flag set's constant in Rust, its mask in Lua.
        (
            "extra",
            [
                "opts.LAST",
                "opts . contains (Opts :: LAST)",
                "has_bit(v.opts, 128)",
            ],
        ),
        // Arithmetic: in i128 without overflow in Rust, in Lua's numbers (exact below 2^53).
        (
            "a",
            [
                "count * 2 + 1",
                "((count as i128) . wrapping_mul (2i128)) . wrapping_add (1i128)",
                "((v.count * 2) + 1)",
            ],
        ),
        // Parentheses kept where precedence needs them.
        (
            "b",
            [
                "(size + 1) * 2",
                "((size as i128) . wrapping_add (1i128)) . wrapping_mul (2i128)",
                "((v.size + 1) * 2)",
            ],
        ),
        // Comparisons of native integers, joined.
        (
            "c",
            [
                "kind != 0 && count > 4",
                "kind != 0 && count > 4",
                "((v.kind ~= 0) and (v.count > 4))",
            ],
        ),
        // A choice; the constant as the schema wrote it (hex) in every output.
        (
            "d",
            [
                "kind >= 0x10 ? count : 0",
                "if kind >= 0x10 { count as i128 } else { 0i128 }",
                "pick((v.kind >= 0x10), v.count, 0)",
            ],
        ),
        // A negation (the inverse comparison in Rust); an absent field reads as 0.
        (
            "e",
            [
                "!(kind == 3) || extra == 1",
                "kind != 3 || extra . as_ref () . map_or (0 , | & x | x as i128) == 1i128",
                "((not (v.kind == 3)) or ((v.extra or 0) == 1))",
            ],
        ),
        // Bitwise or; the length of bytes (which the dissector keeps as their length).
        (
            "f",
            [
                "(kind | 0xF) - len(a)",
                "(kind as i128 | 0xF_i128) . wrapping_sub (a . len () as i128)",
                "(bor(v.kind, 0xF) - v.a)",
            ],
        ),
        // The bytes left of the enclosing scope.
        (
            "g",
            [
                "@remaining - 2",
                "(r . remaining () as i128) . wrapping_sub (2i128)",
                "((limit - offset) - 2)",
            ],
        ),
    ];
    let printed: Vec<(&str, [String; 3])> = expressions(&p)
        .into_iter()
        .map(|(name, e)| {
            (
                name,
                [
                    super::doc::text::expr(&p, e),
                    super::rust::decoded_expr(&p, &l, e),
                    super::lua::dissected_expr(&p, &l, e),
                ],
            )
        })
        .collect();
    assert_eq!(
        printed.len(),
        table.len(),
        "every expression of the schema is in the table"
    );
    for (name, want) in table {
        let (_, got) = printed.iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(got, want, "field {name}: schema, Rust, Lua");
    }
}
