//! One message's fields as the generated decoder reports them, compared with what tshark showed:
//! name, offset, length and value, field by field.

use crate::tshark::Field;
use wiregen_runtime::{FieldNote, Value};

/// A value the Rust decoder reports for a field, protocol-independently.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Int(i128),
    Float(f64),
    Bool(bool),
    Bytes(Vec<u8>),
    Str(String),
}

/// One field as the Rust decoder reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedField {
    pub name: String,
    pub offset: usize,
    pub len: usize,
    pub value: Expected,
    /// 0 for the message's bytes, n for the n-th buffer decompressed from them (see
    /// [`FieldNote::source`]).
    pub source: u16,
}

/// The fields a generated decoder noted (`Codec::dissect`), as compared with tshark's.
pub fn expected(notes: &[FieldNote<'_>]) -> Vec<ExpectedField> {
    notes
        .iter()
        .map(|n| ExpectedField {
            name: n.abbrev.to_string(),
            offset: n.offset,
            len: n.len,
            source: n.source,
            value: match &n.value {
                Value::U(v) => Expected::Int(i128::from(*v)),
                Value::I(v) => Expected::Int(i128::from(*v)),
                Value::F(v) => Expected::Float(*v),
                Value::Bool(v) => Expected::Bool(*v),
                Value::Bytes(v) => Expected::Bytes(v.to_vec()),
                Value::Str(v) => Expected::Str(v.to_string()),
            },
        })
        .collect()
}

fn parse_int(show: &str) -> Option<i128> {
    match show.strip_prefix("0x") {
        Some(h) => i128::from_str_radix(h, 16).ok(),
        None => show.parse().ok(),
    }
}

/// A string as Wireshark shows it (`format_text_wsp`): whitespace control characters as a space
/// (`\r\n` as one: Wireshark 4.0 shows `";\r\n1"` as `"; 1"`), other control characters as `\x`
/// and their hex digits; its strings end at a NUL. U+FFFE and U+FFFF as the PDML is read
/// ([`crate::tshark::push_xml_safe`]).
pub(crate) fn wireshark_escaped(s: &str) -> String {
    let mut out = String::new();
    let text = s.split('\0').next().unwrap_or("").replace("\r\n", "\n");
    for c in text.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:x}", c as u32))
            }
            c => crate::tshark::push_xml_safe(&mut out, c),
        }
    }
    out
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares the Rust decoder's fields with tshark's, field by field: name, offset, length, value.
pub fn compare(expected: &[ExpectedField], got: &[&Field], base: usize) -> Result<(), String> {
    for (i, e) in expected.iter().enumerate() {
        let Some(g) = got.get(i) else {
            return Err(format!(
                "tshark stops before field #{i} {} (it shows {} fields)",
                e.name,
                got.len()
            ));
        };
        let place = format!("field #{i} {}", e.name);
        if g.name != e.name {
            return Err(format!("{place}: tshark shows {} there", g.name));
        }
        // PDML gives no field's data source, and places a field of decompressed bytes by the
        // tree item it hangs from (sometimes in the frame, sometimes in those bytes): for
        // those, the size and value are compared, and the order.
        let placed = e.source != 0 || g.pos == base + e.offset;
        if !placed || g.size != e.len {
            return Err(format!(
                "{place}: Rust says bytes {}..+{}, tshark says {}..+{}",
                e.offset,
                e.len,
                g.pos.wrapping_sub(base),
                g.size
            ));
        }
        let same = match &e.value {
            Expected::Int(v) => parse_int(&g.show) == Some(*v),
            Expected::Bool(b) => g.show == if *b { "1" } else { "0" },
            // Wireshark prints floats with 6 significant digits (FLT_DIG) and doubles with 15.
            Expected::Float(f) => g
                .show
                .parse::<f64>()
                .map(|x| x == *f || (x.is_nan() && f.is_nan()) || (x - f).abs() <= 5e-6 * f.abs())
                .unwrap_or(false),
            Expected::Bytes(b) => g.value == hex(b),
            // Wireshark escapes control characters in `show`; `value` holds the raw bytes.
            Expected::Str(s) => {
                &g.show == s || g.value == hex(s.as_bytes()) || g.show == wireshark_escaped(s)
            }
        };
        if !same {
            return Err(format!(
                "{place}: Rust decodes {:?}, tshark shows {:?} (raw {})",
                e.value, g.show, g.value
            ));
        }
    }
    if got.len() > expected.len() {
        return Err(format!(
            "tshark shows extra fields: {:?}",
            &got[expected.len()..]
        ));
    }
    Ok(())
}
