//! Parsing of schema expressions and type expressions (the pest grammar in `grammar.pest`).

use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use std::sync::OnceLock;

#[derive(pest_derive::Parser)]
#[grammar = "grammar.pest"]
struct Grammar;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitOr,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::Or | BinOp::And)
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::BitOr => "|",
            BinOp::BitAnd => "&",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
}

/// How the schema writes an integer literal. Not part of its value: expressions that differ
/// only in how a number is written are equal.
#[derive(Debug, Clone, Copy, Default)]
pub enum Radix {
    #[default]
    Dec,
    Hex,
}

impl PartialEq for Radix {
    fn eq(&self, _: &Radix) -> bool {
        true
    }
}

/// An expression as written; `at` is the byte offset of each node inside the expression text.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(u64, Radix, usize),
    Bool(bool, usize),
    /// `a.b.c`: a field of this type, a field of a nested value, or a flag bit.
    Path(Vec<String>, usize),
    /// `@size` (bytes in the whole message), `@remaining` (bytes left in the current scope).
    Special(String, usize),
    Len(Box<Expr>, usize),
    /// `table[index]`: an item of the conversation-state list selected for `table`.
    Item(String, Box<Expr>, usize),
    Unary(UnOp, Box<Expr>, usize),
    Binary(BinOp, Box<Expr>, Box<Expr>, usize),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>, usize),
}

impl Expr {
    pub fn at(&self) -> usize {
        match self {
            Expr::Int(_, _, a)
            | Expr::Bool(_, a)
            | Expr::Path(_, a)
            | Expr::Special(_, a)
            | Expr::Len(_, a)
            | Expr::Item(_, _, a)
            | Expr::Unary(_, _, a)
            | Expr::Binary(_, _, _, a)
            | Expr::Cond(_, _, _, a) => *a,
        }
    }

    /// A bare field reference (`payload_size`), the form from which encoders derive values.
    pub fn as_field(&self) -> Option<&str> {
        match self {
            Expr::Path(p, _) if p.len() == 1 => Some(&p[0]),
            _ => None,
        }
    }
}

/// A syntax error: byte offset into the text and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub at: usize,
    pub message: String,
}

fn pratt() -> &'static PrattParser<Rule> {
    static P: OnceLock<PrattParser<Rule>> = OnceLock::new();
    P.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::or, Assoc::Left))
            .op(Op::infix(Rule::and, Assoc::Left))
            .op(Op::infix(Rule::eq, Assoc::Left) | Op::infix(Rule::ne, Assoc::Left))
            .op(Op::infix(Rule::lt, Assoc::Left)
                | Op::infix(Rule::le, Assoc::Left)
                | Op::infix(Rule::gt, Assoc::Left)
                | Op::infix(Rule::ge, Assoc::Left))
            .op(Op::infix(Rule::bitor, Assoc::Left))
            .op(Op::infix(Rule::bitand, Assoc::Left))
            .op(Op::infix(Rule::shl, Assoc::Left) | Op::infix(Rule::shr, Assoc::Left))
            .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
            .op(Op::infix(Rule::mul, Assoc::Left)
                | Op::infix(Rule::div, Assoc::Left)
                | Op::infix(Rule::rem, Assoc::Left))
            .op(Op::prefix(Rule::not) | Op::prefix(Rule::neg))
    })
}

/// A parse error at the offending token, naming what could stand there (pest's expected
/// rules, in words). At the end of the text the token that wants more is pointed at instead.
fn syntax_error(e: pest::error::Error<Rule>, what: &str, text: &str) -> SyntaxError {
    let mut at = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let expected = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => expected_words(positives),
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
    };
    let found = match text[at..].split_whitespace().next() {
        Some(token) => format!("found '{token}'"),
        None => {
            // Nothing left: name (and point at) the last token, which wants something after it.
            let before = text[..at].trim_end();
            let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
            at = start;
            format!("the text ends after '{}'", &before[start..])
        }
    };
    let message = if expected.is_empty() {
        format!("cannot parse {what} '{text}': {found}")
    } else {
        format!("cannot parse {what} '{text}': {found}, expected {expected}")
    };
    SyntaxError { at, message }
}

/// What can stand in an expression or a type, as a reader names it, in the order messages
/// list them.
const WORDS: [&str; 15] = [
    "a field name",
    "a number",
    "true or false",
    "len(field)",
    "@size or @remaining",
    "table[index]",
    "'('",
    "'!'",
    "'-'",
    "a value",
    "a type",
    "'[]'",
    "an operator (+ - * / % << >> & | == != < <= > >= && ||)",
    "the end",
    "'?' or ':'",
];

/// pest's expected rules as a reader would name them: "a field name, a number or '('".
fn expected_words(rules: &[Rule]) -> String {
    let mut words: Vec<usize> = rules
        .iter()
        .map(|r| match r {
            Rule::path | Rule::ident | Rule::named_type => 0,
            Rule::hex | Rule::dec => 1,
            Rule::boolean => 2,
            Rule::call | Rule::fname => 3,
            Rule::special => 4,
            Rule::item => 5,
            Rule::not => 7,
            Rule::neg => 8,
            Rule::expr | Rule::primary => 9,
            Rule::int_type
            | Rule::float_type
            | Rule::bool_type
            | Rule::bytes_type
            | Rule::bits_type
            | Rule::string_type
            | Rule::strz_type
            | Rule::varint_type => 10,
            Rule::array_suffix => 11,
            Rule::EOI => 13,
            Rule::question | Rule::colon => 14,
            _ => 12,
        })
        .collect();
    // An operand can also be a parenthesised expression (a literal, so pest names no rule).
    if words.contains(&1) {
        words.push(6);
    }
    words.sort_unstable();
    words.dedup();
    let words: Vec<&str> = words.into_iter().map(|i| WORDS[i]).collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

fn int_literal(text: &str, at: usize) -> Result<u64, SyntaxError> {
    let clean = text.replace('_', "");
    let parsed = match clean.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => clean.parse(),
    };
    parsed.map_err(|_| SyntaxError {
        at,
        message: format!("integer literal '{text}' does not fit in 64 bits"),
    })
}

pub fn parse_expr(text: &str) -> Result<Expr, SyntaxError> {
    let mut pairs =
        Grammar::parse(Rule::expression, text).map_err(|e| syntax_error(e, "expression", text))?;
    let expr = pairs.next().unwrap().into_inner().next().unwrap();
    build(expr)
}

/// An `expr`: a chain of operators, then maybe `? a : b`.
fn build(pair: Pair<Rule>) -> Result<Expr, SyntaxError> {
    let mut inner = pair.into_inner();
    let chain = build_chain(inner.next().unwrap())?;
    match inner.next() {
        None => Ok(chain),
        Some(_question) => {
            let at = chain.at();
            let then = build(inner.next().unwrap())?;
            let _colon = inner.next();
            let otherwise = build(inner.next().unwrap())?;
            Ok(Expr::Cond(
                Box::new(chain),
                Box::new(then),
                Box::new(otherwise),
                at,
            ))
        }
    }
}

fn build_chain(pair: Pair<Rule>) -> Result<Expr, SyntaxError> {
    pratt()
        .map_primary(|p| {
            let at = p.as_span().start();
            match p.as_rule() {
                Rule::hex => Ok(Expr::Int(int_literal(p.as_str(), at)?, Radix::Hex, at)),
                Rule::dec => Ok(Expr::Int(int_literal(p.as_str(), at)?, Radix::Dec, at)),
                Rule::boolean => Ok(Expr::Bool(p.as_str() == "true", at)),
                Rule::special => Ok(Expr::Special(p.as_str()[1..].to_string(), at)),
                Rule::path => Ok(Expr::Path(
                    p.as_str().split('.').map(str::to_string).collect(),
                    at,
                )),
                Rule::call => {
                    let arg = p.into_inner().nth(1).unwrap();
                    Ok(Expr::Len(Box::new(build(arg)?), at))
                }
                Rule::item => {
                    let mut inner = p.into_inner();
                    let name = inner.next().unwrap().as_str().to_string();
                    Ok(Expr::Item(
                        name,
                        Box::new(build(inner.next().unwrap())?),
                        at,
                    ))
                }
                Rule::expr => build(p),
                r => unreachable!("primary rule {r:?}"),
            }
        })
        .map_prefix(|op, rhs| {
            let at = op.as_span().start();
            let op = match op.as_rule() {
                Rule::not => UnOp::Not,
                _ => UnOp::Neg,
            };
            Ok(Expr::Unary(op, Box::new(rhs?), at))
        })
        .map_infix(|lhs, op, rhs| {
            let lhs = lhs?;
            let at = lhs.at();
            let op = match op.as_rule() {
                Rule::or => BinOp::Or,
                Rule::and => BinOp::And,
                Rule::eq => BinOp::Eq,
                Rule::ne => BinOp::Ne,
                Rule::lt => BinOp::Lt,
                Rule::le => BinOp::Le,
                Rule::gt => BinOp::Gt,
                Rule::ge => BinOp::Ge,
                Rule::bitor => BinOp::BitOr,
                Rule::bitand => BinOp::BitAnd,
                Rule::shl => BinOp::Shl,
                Rule::shr => BinOp::Shr,
                Rule::add => BinOp::Add,
                Rule::sub => BinOp::Sub,
                Rule::mul => BinOp::Mul,
                Rule::div => BinOp::Div,
                _ => BinOp::Rem,
            };
            Ok(Expr::Binary(op, Box::new(lhs), Box::new(rhs?), at))
        })
        .parse(pair.into_inner())
}

/// A field type as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeExpr {
    Int {
        bits: u32,
        signed: bool,
        endian: Option<String>,
    },
    Float {
        bits: u32,
        endian: Option<String>,
    },
    Bool,
    Bytes,
    /// The rest of a bit stream, kept as bits.
    Bits,
    String,
    /// A NUL-terminated string, or NUL-padded to its constant length (C's `char[n]`).
    StrZ,
    VarInt(String),
    Named(String),
    Array(Box<TypeExpr>),
}

pub fn parse_type(text: &str) -> Result<TypeExpr, SyntaxError> {
    let mut pairs =
        Grammar::parse(Rule::type_expr, text).map_err(|e| syntax_error(e, "type", text))?;
    let mut inner = pairs.next().unwrap().into_inner();
    let base = inner.next().unwrap();
    let s = base.as_str();
    let split_endian = |s: &str| -> (String, Option<String>) {
        for e in ["le", "be"] {
            if let Some(core) = s.strip_suffix(e) {
                return (core.to_string(), Some(e.to_string()));
            }
        }
        (s.to_string(), None)
    };
    let ty = match base.as_rule() {
        Rule::int_type => {
            let (core, endian) = split_endian(s);
            let bits = core[1..].parse().map_err(|_| SyntaxError {
                at: 1,
                message: format!("integer width in '{s}' is not a number"),
            })?;
            TypeExpr::Int {
                bits,
                signed: core.starts_with('i'),
                endian,
            }
        }
        Rule::float_type => {
            let (core, endian) = split_endian(s);
            TypeExpr::Float {
                bits: core[1..].parse().unwrap(),
                endian,
            }
        }
        Rule::bool_type => TypeExpr::Bool,
        Rule::bytes_type => TypeExpr::Bytes,
        Rule::bits_type => TypeExpr::Bits,
        Rule::string_type => TypeExpr::String,
        Rule::strz_type => TypeExpr::StrZ,
        Rule::varint_type => TypeExpr::VarInt(s.to_string()),
        _ => TypeExpr::Named(s.to_string()),
    };
    Ok(match inner.next() {
        Some(p) if p.as_rule() == Rule::array_suffix => TypeExpr::Array(Box::new(ty)),
        _ => ty,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_follows_c() {
        let e = parse_expr("a + 2 * 3 == 8 && !b.c || x & 0x0F != 0").unwrap();
        match e {
            Expr::Binary(BinOp::Or, l, _, _) => match *l {
                Expr::Binary(BinOp::And, ..) => {}
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        assert_eq!(parse_expr("len(x) - 20").unwrap().at(), 0);
        assert_eq!(
            parse_expr("@size").unwrap(),
            Expr::Special("size".into(), 0)
        );
        assert!(parse_expr("a +").is_err());
        assert!(parse_expr("0x1_0000_0000_0000_0000").is_err());
    }

    #[test]
    fn syntax_errors_point_at_the_token_and_say_what_could_come() {
        let e = parse_expr("pflags.HAS_TARGET && ").unwrap_err();
        assert_eq!(e.at, 18, "at the '&&' that wants an operand");
        assert_eq!(
            e.message,
            "cannot parse expression 'pflags.HAS_TARGET && ': the text ends after '&&', \
             expected a field name, a number, true or false, len(field), @size or @remaining, \
             '(', '!' or '-'"
        );
        let e = parse_expr("size + * 2").unwrap_err();
        assert_eq!(e.at, 7, "at the '*'");
        assert!(
            e.message.contains("found '*', expected a field name"),
            "{}",
            e.message
        );
        let e = parse_expr("size 2").unwrap_err();
        assert_eq!(e.at, 5);
        assert!(
            e.message.contains("found '2', expected an operator (+"),
            "{}",
            e.message
        );
    }

    #[test]
    fn types() {
        assert_eq!(
            parse_type("u16be").unwrap(),
            TypeExpr::Int {
                bits: 16,
                signed: false,
                endian: Some("be".into())
            }
        );
        assert_eq!(
            parse_type("Entity[]").unwrap(),
            TypeExpr::Array(Box::new(TypeExpr::Named("Entity".into())))
        );
        assert_eq!(parse_type("bool").unwrap(), TypeExpr::Bool);
        assert_eq!(
            parse_type("leb128").unwrap(),
            TypeExpr::VarInt("leb128".into())
        );
        assert!(parse_type("u16 x").is_err());
    }
}
