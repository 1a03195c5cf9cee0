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

/// Where a reader puts the fields it reads. Decoding uses [`NoTrace`], which keeps nothing and
/// costs nothing (every note is compiled away); dissecting uses [`Notes`].
pub trait Trace<'a>: Default {
    /// Whether notes are kept: when false, the code that builds a note is dead code.
    const ON: bool;
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
}

/// Decoding without a trace.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl<'a> Trace<'a> for NoTrace {
    const ON: bool = false;
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
}

/// Decoding that notes every field as the dissector shows it.
#[derive(Debug, Default, Clone)]
pub struct Notes<'a>(pub Vec<FieldNote<'a>>);

impl<'a> Trace<'a> for Notes<'a> {
    const ON: bool = true;
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
}
