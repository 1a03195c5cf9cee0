//! The dissect trace: every decoded field as the dissector shows it.

/// A decoded field as the dissector shows it: its filter name, where it sits, its value.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldNote<'a> {
    /// Wireshark field abbreviation, e.g. `rtype.sequence`.
    pub abbrev: &'static str,
    pub offset: usize,
    pub len: usize,
    pub value: Value<'a>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    U(u64),
    I(i64),
    F(f64),
    Bool(bool),
    Bytes(&'a [u8]),
    /// Borrowed from the input, or realigned when a bit stream put it at a bit offset.
    Str(std::borrow::Cow<'a, str>),
}
