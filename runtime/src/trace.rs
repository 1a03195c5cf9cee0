//! The dissect trace: every decoded field as the dissector shows it.

/// A decoded field as the dissector shows it: its filter name, where it sits, its value.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldNote<'a> {
    /// Wireshark field abbreviation, e.g. `rtype.sequence`.
    pub abbrev: &'static str,
    /// Byte offset of its first byte.
    pub offset: usize,
    /// Bytes it covers (the bytes holding it, in a bit stream).
    pub len: usize,
    /// Bits it takes on the wire: its width in a bit stream, else 8 × `len` (what bandwidth
    /// per field counts).
    pub bits: usize,
    /// Its value as the dissector shows it.
    pub value: Value<'a>,
    /// 0 for a field of the message's bytes; n for one of the n-th buffer decompressed from
    /// them (the dissector shows those in a data source of their own), `offset` counting from
    /// that buffer's start.
    pub source: u16,
}

/// A field's value as the dissector shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// An unsigned integer (enums and flag sets by their number).
    U(u64),
    /// A signed integer.
    I(i64),
    /// A floating-point number.
    F(f64),
    /// A bool (a flag bit too).
    Bool(bool),
    /// Borrowed from the input, or owned when it came out of decompressed bytes.
    Bytes(std::borrow::Cow<'a, [u8]>),
    /// Borrowed from the input, or realigned when a bit stream put it at a bit offset.
    Str(std::borrow::Cow<'a, str>),
}

impl Value<'_> {
    /// The same value, borrowing nothing.
    pub fn into_owned(self) -> Value<'static> {
        use std::borrow::Cow;
        match self {
            Value::U(v) => Value::U(v),
            Value::I(v) => Value::I(v),
            Value::F(v) => Value::F(v),
            Value::Bool(v) => Value::Bool(v),
            Value::Bytes(v) => Value::Bytes(Cow::Owned(v.into_owned())),
            Value::Str(v) => Value::Str(Cow::Owned(v.into_owned())),
        }
    }
}

/// Where a reader puts the fields it reads. Decoding uses [`NoTrace`], which keeps nothing and
/// costs nothing (every note is compiled away); dissecting uses [`Notes`].
pub trait Trace<'a>: Default {
    /// Whether notes are kept: when false, the code that builds a note is dead code.
    const ON: bool;
    /// The same kind of trace over other bytes (a compressed field's decompressed ones).
    type At<'b>: Trace<'b>;
    /// Keeps the notes of `inner`, taken over decompressed bytes, after the others: they own
    /// their values and are marked as from a source of their own.
    fn absorb(&mut self, inner: Self::At<'_>);
    /// Keeps `note` after the others.
    fn push(&mut self, note: FieldNote<'a>);
    /// How many notes are kept.
    fn len(&self) -> usize;
    /// Whether no note is kept.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Keeps `note` at position `index` (or last).
    fn insert(&mut self, index: usize, note: FieldNote<'a>);
    /// Every note kept, in order.
    fn into_notes(self) -> Vec<FieldNote<'a>>;
    /// Gives the notes from index `first` on the filter names `rename` maps theirs to (a
    /// value read for a field with `filter:`).
    fn rename_from(&mut self, first: usize, rename: fn(&'static str) -> &'static str);
}

/// Decoding without a trace.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl<'a> Trace<'a> for NoTrace {
    const ON: bool = false;
    type At<'b> = NoTrace;
    #[inline(always)]
    fn absorb(&mut self, _: NoTrace) {}
    #[inline(always)]
    fn push(&mut self, _: FieldNote<'a>) {}
    #[inline(always)]
    fn len(&self) -> usize {
        0
    }
    #[inline(always)]
    fn insert(&mut self, _: usize, _: FieldNote<'a>) {}
    #[inline(always)]
    fn into_notes(self) -> Vec<FieldNote<'a>> {
        Vec::new()
    }
    #[inline(always)]
    fn rename_from(&mut self, _: usize, _: fn(&'static str) -> &'static str) {}
}

/// Decoding that notes every field as the dissector shows it.
#[derive(Debug, Default, Clone)]
pub struct Notes<'a>(pub Vec<FieldNote<'a>>);

impl<'a> Trace<'a> for Notes<'a> {
    const ON: bool = true;
    type At<'b> = Notes<'b>;
    fn absorb(&mut self, inner: Notes<'_>) {
        let base = self.0.iter().map(|n| n.source).max().unwrap_or(0) + 1;
        self.0.extend(inner.0.into_iter().map(|n| FieldNote {
            source: base + n.source,
            value: n.value.into_owned(),
            ..n
        }));
    }
    #[inline]
    fn push(&mut self, note: FieldNote<'a>) {
        self.0.push(note);
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn insert(&mut self, index: usize, note: FieldNote<'a>) {
        let index = index.min(self.0.len());
        self.0.insert(index, note);
    }
    #[inline]
    fn into_notes(self) -> Vec<FieldNote<'a>> {
        self.0
    }
    fn rename_from(&mut self, first: usize, rename: fn(&'static str) -> &'static str) {
        for n in self.0.iter_mut().skip(first) {
            n.abbrev = rename(n.abbrev);
        }
    }
}
