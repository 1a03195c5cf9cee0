//! Conditions on a decoded message, as `wirecat proxy` scopes an impairment to some messages:
//! `type == ReqLogin`, `payload.flags.RELIABLE`, `sequence < 100 and not ack`,
//! `body == Ack or body == AckExtra`. They read the message's JSON (what `wirecat decode`
//! prints), so a path names fields as the schema does.
//!
//! ```text
//! condition := and ('or' and)*
//! and       := unary ('and' unary)*
//! unary     := 'not' unary | '(' condition ')' | path [op literal]
//! op        := == | != | < | <= | > | >=
//! path      := name ('.' name)*          `type` alone is the message type
//! literal   := number | name | "text"
//! ```
//!
//! A path walks objects by field name and steps into a variant by its name (`payload.ReqLogin.
//! username`); a field the current object lacks is looked for inside the single variant it
//! holds, so `sequence` finds the Game Protocol's `{"Packet": {"sequence": 4}}`. A name after a
//! flags field (a list of names) is whether that flag is set. A path alone is true when the value
//! is there and not `false`, `0`, empty or null. `x == Name` also holds when `x` is a variant
//! called `Name`. A missing value compares false (and `!=` true).

use serde_json::Value;

/// A parsed condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Or(Vec<Condition>),
    And(Vec<Condition>),
    Not(Box<Condition>),
    /// The path's value is there and not false, zero or empty.
    Truthy(Vec<String>),
    Compare(Vec<String>, Op, Literal),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Number(f64),
    Text(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Number(f64),
    Text(String),
    Op(Op),
    Open,
    Close,
    Dot,
}

fn tokens(text: &str) -> Result<Vec<(usize, Token)>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let two = bytes.get(i + 1).copied();
        let token = match c {
            b' ' | b'\t' | b'\n' => {
                i += 1;
                continue;
            }
            b'(' => Token::Open,
            b')' => Token::Close,
            b'.' => Token::Dot,
            b'=' | b'!' | b'<' | b'>' => {
                let (op, len) = match (c, two) {
                    (b'=', Some(b'=')) => (Op::Eq, 2),
                    (b'!', Some(b'=')) => (Op::Ne, 2),
                    (b'<', Some(b'=')) => (Op::Le, 2),
                    (b'>', Some(b'=')) => (Op::Ge, 2),
                    (b'<', _) => (Op::Lt, 1),
                    (b'>', _) => (Op::Gt, 1),
                    _ => return Err(format!("at {start}: '=' and '!' come as '==' and '!='")),
                };
                i += len;
                out.push((start, Token::Op(op)));
                continue;
            }
            b'"' => {
                let end = text[i + 1..]
                    .find('"')
                    .ok_or_else(|| format!("at {start}: a text without its closing '\"'"))?;
                out.push((start, Token::Text(text[i + 1..i + 1 + end].to_string())));
                i += end + 2;
                continue;
            }
            b'0'..=b'9' | b'-' => {
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'x' | b'a'..=b'f' | b'A'..=b'F' | b'_')
                    || (i < bytes.len()
                        && bytes[i] == b'.'
                        && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
                {
                    i += 1;
                }
                let word = text[start..i].replace('_', "");
                let number = match word.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).map(|v| v as f64).ok(),
                    None => word.parse::<f64>().ok(),
                };
                out.push((
                    start,
                    Token::Number(
                        number.ok_or_else(|| format!("at {start}: '{word}' is not a number"))?,
                    ),
                ));
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((start, Token::Name(text[start..i].to_string())));
                continue;
            }
            _ => return Err(format!("at {start}: unexpected '{}'", c as char)),
        };
        out.push((start, token));
        i += 1;
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    at: usize,
    len: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(_, t)| t)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.at).map_or(self.len, |(o, _)| *o)
    }

    fn keyword(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Name(n)) if n == word) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Condition, String> {
        let mut all = vec![self.and()?];
        while self.keyword("or") {
            all.push(self.and()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Condition::Or(all)
        })
    }

    fn and(&mut self) -> Result<Condition, String> {
        let mut all = vec![self.unary()?];
        while self.keyword("and") {
            all.push(self.unary()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Condition::And(all)
        })
    }

    fn unary(&mut self) -> Result<Condition, String> {
        if self.keyword("not") {
            return Ok(Condition::Not(Box::new(self.unary()?)));
        }
        if self.peek() == Some(&Token::Open) {
            self.at += 1;
            let inner = self.or()?;
            if self.peek() != Some(&Token::Close) {
                return Err(format!("at {}: expected ')'", self.offset()));
            }
            self.at += 1;
            return Ok(inner);
        }
        let path = self.path()?;
        let Some(Token::Op(op)) = self.peek().cloned() else {
            return Ok(Condition::Truthy(path));
        };
        self.at += 1;
        let literal = match self.tokens.get(self.at).map(|(_, t)| t.clone()) {
            Some(Token::Number(n)) => Literal::Number(n),
            Some(Token::Name(n) | Token::Text(n)) => Literal::Text(n),
            _ => {
                return Err(format!(
                    "at {}: expected a number, a name or a \"text\"",
                    self.offset()
                ))
            }
        };
        self.at += 1;
        Ok(Condition::Compare(path, op, literal))
    }

    fn path(&mut self) -> Result<Vec<String>, String> {
        let mut path = Vec::new();
        loop {
            match self.peek().cloned() {
                Some(Token::Name(n))
                    if path.is_empty() || !matches!(n.as_str(), "and" | "or" | "not") =>
                {
                    path.push(n);
                    self.at += 1;
                }
                _ => return Err(format!("at {}: expected a field's name", self.offset())),
            }
            if self.peek() != Some(&Token::Dot) {
                return Ok(path);
            }
            self.at += 1;
        }
    }
}

impl std::str::FromStr for Condition {
    type Err = String;

    /// Parses a condition; the error says where (a character offset) and what was expected.
    fn from_str(text: &str) -> Result<Condition, String> {
        let mut p = Parser {
            tokens: tokens(text)?,
            at: 0,
            len: text.len(),
        };
        let c = p.or()?;
        if p.at < p.tokens.len() {
            return Err(format!(
                "at {}: expected 'and', 'or' or the end",
                p.offset()
            ));
        }
        Ok(c)
    }
}

impl Condition {
    /// Whether the message (its JSON, and its type as `wirecat stats` names it) meets it.
    pub fn holds(&self, value: &Value, message_type: &str) -> bool {
        match self {
            Condition::Or(all) => all.iter().any(|c| c.holds(value, message_type)),
            Condition::And(all) => all.iter().all(|c| c.holds(value, message_type)),
            Condition::Not(c) => !c.holds(value, message_type),
            Condition::Truthy(path) => find(value, path).is_some_and(|v| truthy(&v)),
            Condition::Compare(path, op, literal) if path.len() == 1 && path[0] == "type" => {
                let t = Value::String(message_type.to_string());
                let named = message_type
                    .split('.')
                    .any(|n| matches!(literal, Literal::Text(l) if l == n));
                match op {
                    Op::Eq => named,
                    Op::Ne => !named,
                    _ => compare(&t, *op, literal),
                }
            }
            Condition::Compare(path, op, literal) => match find(value, path) {
                Some(v) => compare(&v, *op, literal),
                None => *op == Op::Ne,
            },
        }
    }
}

/// What a path names in `value` (a flag's name gives whether it is set).
fn find(value: &Value, path: &[String]) -> Option<Value> {
    let mut at = value;
    for name in path {
        at = loop {
            match at {
                Value::Object(o) => {
                    if let Some(v) = o.get(name.as_str()) {
                        break v;
                    }
                    // A field of the variant the object is, or of the one variant it holds.
                    let variant = |v: &Value| {
                        matches!(v, Value::Object(i) if i.len() == 1
                            && i.keys().all(|k| k.starts_with(|c: char| c.is_ascii_uppercase())))
                    };
                    if variant(at) {
                        at = o.values().next()?;
                        continue;
                    }
                    let mut held = o.values().filter(|v| variant(v));
                    match (held.next(), held.next()) {
                        (Some(only), None) => at = only,
                        _ => return None,
                    }
                }
                Value::Array(flags) if flags.iter().all(Value::is_string) => {
                    return Some(Value::Bool(flags.iter().any(|f| f == name.as_str())));
                }
                _ => return None,
            }
        };
    }
    Some(at.clone())
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(_) => true,
    }
}

fn compare(v: &Value, op: Op, literal: &Literal) -> bool {
    let ordering = match (v, literal) {
        (Value::Number(n), Literal::Number(l)) => n.as_f64().and_then(|n| n.partial_cmp(l)),
        (Value::Bool(b), Literal::Number(l)) => f64::from(u8::from(*b)).partial_cmp(l),
        (Value::Bool(b), Literal::Text(l)) if l == "true" || l == "false" => {
            Some(b.cmp(&(l == "true")))
        }
        (Value::String(s), Literal::Text(l)) => Some(s.as_str().cmp(l.as_str())),
        // A variant: `body == Ack` when the value is `{"Ack": …}`.
        (Value::Object(o), Literal::Text(l)) if o.len() == 1 => {
            let is = o.contains_key(l.as_str());
            return match op {
                Op::Eq => is,
                Op::Ne => !is,
                _ => false,
            };
        }
        _ => None,
    };
    let Some(ordering) = ordering else {
        return op == Op::Ne;
    };
    match op {
        Op::Eq => ordering.is_eq(),
        Op::Ne => !ordering.is_eq(),
        Op::Lt => ordering.is_lt(),
        Op::Le => ordering.is_le(),
        Op::Gt => ordering.is_gt(),
        Op::Ge => ordering.is_ge(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn holds(condition: &str, value: &Value, ty: &str) -> bool {
        condition.parse::<Condition>().unwrap().holds(value, ty)
    }

    #[test]
    fn conditions_read_fields_flags_variants_and_the_message_type() {
        // R-Type's login, as `wirecat read` prints it (tests/captures/rtype.pcap, frame 1).
        let login = json!({"flags":["RELIABLE"],"sequence":1,"ack":0,"payload":{"ReqLogin":{"username":"alice","version":1}}});
        assert!(holds("type == ReqLogin", &login, "ReqLogin"));
        assert!(!holds("type != ReqLogin", &login, "ReqLogin"));
        assert!(holds("flags.RELIABLE and sequence < 2", &login, "ReqLogin"));
        assert!(!holds("flags.ACK", &login, "ReqLogin"));
        assert!(holds(
            "payload == ReqLogin and payload.ReqLogin.username == alice",
            &login,
            ""
        ));
        assert!(holds("username == \"alice\" and version >= 1", &login, ""));
        assert!(holds("not ack", &login, ""));
        assert!(holds(
            "(ack or sequence == 0x1) and not missing",
            &login,
            ""
        ));
        assert!(!holds("missing == 3", &login, ""));
        assert!(holds("missing != 3", &login, ""));
        // The Game Protocol's datagram is a variant holding the fields.
        let chunk = json!({"Packet":{"flags":["REL"],"chunk":0,"sequence":4,"data":"01"}});
        assert!(holds("sequence == 4 and flags.REL", &chunk, "Packet"));
        // A unit case is a string: compared by name.
        let unit = json!({"sequence":2,"payload":"ReqLobbyList"});
        assert!(holds("payload == ReqLobbyList", &unit, ""));
    }

    #[test]
    fn mistakes_say_where() {
        for (text, want) in [
            ("sequence = 3", "at 9"),
            ("sequence ==", "at 11: expected a number"),
            ("(a or b", "at 7: expected ')'"),
            ("a b", "at 2: expected 'and'"),
            ("a == \"x", "at 5"),
        ] {
            let e = text.parse::<Condition>().unwrap_err();
            assert!(e.starts_with(want), "{text}: {e}");
        }
    }
}
