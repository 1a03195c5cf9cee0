//! The byte reader.

use crate::{
    BitReader, DecodeError, DecodeErrorKind, FieldNote, NoTrace, StateTables, Trace, Value,
};
use std::borrow::Cow;
use std::rc::Rc;

/// Unsigned LEB128 from the next eight bytes as one little-endian word, when they hold its last
/// group (a byte without 0x80): the value and its length in bytes. The usual value is short, so
/// both readers try this first: one load instead of a read per byte.
#[inline]
pub(crate) fn leb128_word(word: u64) -> Option<(u64, usize)> {
    let stops = !word & 0x8080_8080_8080_8080;
    if stops == 0 {
        return None;
    }
    let n = stops.trailing_zeros() as usize / 8 + 1;
    let mut value = 0;
    for i in 0..n {
        value |= (word >> (8 * i) & 0x7F) << (7 * i);
    }
    Some((value, n))
}

/// Unsigned LEB128 from successive bytes (whichever reader they come from); `None` when it is
/// longer than 64 bits.
pub(crate) fn leb128(
    mut next: impl FnMut() -> Result<u8, DecodeError>,
) -> Result<Option<u64>, DecodeError> {
    let mut value = 0u64;
    for i in 0..10 {
        let b = next()?;
        let low = u64::from(b & 0x7F);
        // The tenth group holds bit 63 only.
        if i == 9 && low > 1 {
            return Ok(None);
        }
        value |= low << (7 * i);
        if b & 0x80 == 0 {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// What a stateful decoder reads besides its input: the conversation's tables, and the list
/// of each table selected for the values read next.
#[derive(Clone)]
struct Stateful {
    tables: Rc<StateTables>,
    lists: Vec<Option<Rc<[u64]>>>,
}

/// Reads fields from a byte slice, within a movable end limit; `T` keeps the fields read (see
/// [`Trace`]: nothing when decoding).
#[doc(hidden)]
pub struct Reader<'a, T = NoTrace> {
    buf: &'a [u8],
    pos: usize,
    end: usize,
    trace: T,
    /// Conversation state the decoder may read, and the list selected per table: one pointer,
    /// so a reader without it (most) is dropped with one check.
    state: Option<Box<Stateful>>,
    /// Enclosing fields read so far, and the direction.
    pub(crate) context: crate::Context,
}
impl<'a, T: Trace<'a>> Reader<'a, T> {
    #[inline]
    pub fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            end: buf.len(),
            trace: T::default(),
            state: None,
            context: crate::Context::default(),
        }
    }

    crate::context::reader_context!();

    /// A value of the type the caller expects, read from here; its error inside field
    /// `field`: `Value::Point(r.read("position")?)` reads a `Point`.
    #[inline]
    pub fn read<C>(&mut self, field: &'static str) -> Result<C, DecodeError>
    where
        C: crate::Codec<'a, Reader<T> = Self>,
    {
        C::read::<T>(self).map_err(|e| e.within(field))
    }

    /// Continues at byte `at` of the buffer (an application's message inside a transport's).
    #[inline]
    pub fn seek(&mut self, at: usize) {
        self.pos = at.min(self.end);
    }

    #[inline]
    pub fn with_state(mut self, state: Rc<StateTables>) -> Self {
        self.state = Some(Box::new(Stateful {
            tables: state,
            lists: Vec::new(),
        }));
        self
    }

    /// Selects table `t`'s list of `key` for the values read next; returns the list it replaces.
    #[inline]
    pub fn select(
        &mut self,
        t: usize,
        key: u64,
        field: &'static str,
    ) -> Result<Option<Rc<[u64]>>, DecodeError> {
        let pos = self.pos;
        let found = self.state.as_deref_mut().and_then(|s| {
            let list = s.tables.get(t, key).cloned()?;
            Some((s, list))
        });
        let Some((s, list)) = found else {
            return Err(DecodeError::new(
                field,
                pos,
                DecodeErrorKind::NoState { key },
            ));
        };
        if s.lists.len() <= t {
            s.lists.resize(t + 1, None);
        }
        Ok(s.lists[t].replace(list))
    }

    #[inline]
    pub fn restore(&mut self, t: usize, previous: Option<Rc<[u64]>>) {
        if let Some(slot) = self.state.as_deref_mut().and_then(|s| s.lists.get_mut(t)) {
            *slot = previous;
        }
    }

    /// Item `i` of table `t`'s selected list.
    #[inline]
    pub fn item(&self, t: usize, i: i128, field: &'static str) -> Result<u64, DecodeError> {
        let list = self
            .state
            .as_deref()
            .and_then(|s| s.lists.get(t))
            .and_then(Option::as_ref);
        match (list, usize::try_from(i)) {
            (Some(list), Ok(i)) if i < list.len() => Ok(list[i]),
            (None, _) => Err(DecodeError::new(
                field,
                self.pos,
                DecodeErrorKind::NoState { key: 0 },
            )),
            _ => Err(DecodeError::new(
                field,
                self.pos,
                DecodeErrorKind::NotInList { index: i as u64 },
            )),
        }
    }

    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    #[inline]
    pub fn message_len(&self) -> usize {
        self.buf.len()
    }

    #[inline]
    pub fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let available = self.remaining();
        if n > available {
            return Err(DecodeError::new(
                field,
                self.pos,
                DecodeErrorKind::Truncated {
                    needed: n,
                    available,
                },
            ));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], DecodeError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, field)?);
        Ok(a)
    }

    /// `n` bytes of field `field`, noted under `abbrev`.
    #[inline(always)]
    pub fn bytes_field(
        &mut self,
        n: usize,
        field: &'static str,
        abbrev: &'static str,
    ) -> Result<&'a [u8], DecodeError> {
        let at = self.pos;
        let v = self.take(n, field)?;
        self.note(abbrev, at, Value::Bytes(Cow::Borrowed(v)));
        Ok(v)
    }

    /// A UTF-8 string of `n` bytes of field `field`, noted under `abbrev`.
    #[inline(always)]
    pub fn str_field(
        &mut self,
        n: usize,
        field: &'static str,
        abbrev: &'static str,
    ) -> Result<&'a str, DecodeError> {
        let at = self.pos;
        let v = self.str(n, field)?;
        self.note(abbrev, at, Value::Str(Cow::Borrowed(v)));
        Ok(v)
    }

    /// A little-endian integer of field `field`, noted under `abbrev`.
    #[inline(always)]
    pub fn le<I: WireInt>(
        &mut self,
        field: &'static str,
        abbrev: &'static str,
    ) -> Result<I, DecodeError> {
        let at = self.pos;
        let v = I::from_le(self, field)?;
        self.note(abbrev, at, v.value());
        Ok(v)
    }

    /// A big-endian integer of field `field`, noted under `abbrev`.
    #[inline(always)]
    pub fn be<I: WireInt>(
        &mut self,
        field: &'static str,
        abbrev: &'static str,
    ) -> Result<I, DecodeError> {
        let at = self.pos;
        let v = I::from_be(self, field)?;
        self.note(abbrev, at, v.value());
        Ok(v)
    }

    /// A little-endian half-precision float of field `field`, as an `f32`, noted under
    /// `abbrev`.
    #[inline]
    pub fn f16_le(
        &mut self,
        field: &'static str,
        abbrev: &'static str,
    ) -> Result<f32, DecodeError> {
        self.f16_in(u16::from_le_bytes, field, abbrev)
    }

    /// A big-endian half-precision float of field `field`, as an `f32`, noted under `abbrev`.
    #[inline]
    pub fn f16_be(
        &mut self,
        field: &'static str,
        abbrev: &'static str,
    ) -> Result<f32, DecodeError> {
        self.f16_in(u16::from_be_bytes, field, abbrev)
    }

    /// A half-precision float whose two bytes `order` reads.
    #[inline]
    fn f16_in(
        &mut self,
        order: fn([u8; 2]) -> u16,
        field: &'static str,
        abbrev: &'static str,
    ) -> Result<f32, DecodeError> {
        let at = self.pos;
        let v = crate::f16_to_f32(order(self.array::<2>(field)?));
        self.note(abbrev, at, Value::F(f64::from(v)));
        Ok(v)
    }

    /// An unsigned integer of `n` bytes (1..=8), for widths without a native type.
    #[inline]
    pub fn uint(&mut self, n: usize, big: bool, field: &'static str) -> Result<u64, DecodeError> {
        let b = self.take(n, field)?;
        let fold = |acc: u64, x: &u8| (acc << 8) | u64::from(*x);
        Ok(if big {
            b.iter().fold(0, fold)
        } else {
            b.iter().rev().fold(0, fold)
        })
    }

    #[inline]
    pub fn str(&mut self, n: usize, field: &'static str) -> Result<&'a str, DecodeError> {
        let at = self.pos;
        crate::text::utf8(self.take(n, field)?, at, field)
    }

    /// A NUL-terminated string in UTF-8: the text before the first NUL, which is read too.
    #[inline]
    pub fn strz(&mut self, field: &'static str) -> Result<&'a str, DecodeError> {
        let at = self.pos;
        crate::text::utf8(self.take_z(field)?, at, field)
    }

    /// The bytes before the first NUL, which is read too (a NUL-terminated string's).
    #[inline]
    pub fn take_z(&mut self, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let rest = &self.buf[self.pos..self.end];
        let Some(n) = rest.iter().position(|&b| b == 0) else {
            return Err(DecodeError::new(
                field,
                self.end,
                DecodeErrorKind::NoTerminator,
            ));
        };
        let b = self.take(n, field)?;
        self.pos += 1;
        Ok(b)
    }

    /// The bytes before the first NUL code unit of UTF-16 text (two zero bytes at an even
    /// offset), which is read too.
    #[inline]
    pub fn take_z16(&mut self, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let rest = &self.buf[self.pos..self.end];
        let Some(n) = crate::text::nul16(rest) else {
            return Err(DecodeError::new(
                field,
                self.end,
                DecodeErrorKind::NoTerminator,
            ));
        };
        let b = self.take(n, field)?;
        self.pos += 2;
        Ok(b)
    }

    /// `n` bytes of UTF-16 text up to their first NUL code unit (a NUL-padded string's).
    #[inline]
    pub fn take_padded16(
        &mut self,
        n: usize,
        field: &'static str,
    ) -> Result<&'a [u8], DecodeError> {
        let b = self.take(n, field)?;
        Ok(&b[..crate::text::nul16(b).unwrap_or(n)])
    }

    /// A UTF-8 string NUL-padded to `n` bytes (C's `char[n]`): the text before the first NUL,
    /// or all `n` bytes when there is none; what follows the NUL is skipped.
    #[inline]
    pub fn str_padded(&mut self, n: usize, field: &'static str) -> Result<&'a str, DecodeError> {
        let at = self.pos;
        crate::text::utf8(self.take_padded(n, field)?, at, field)
    }

    /// `n` bytes up to their first NUL (a NUL-padded string's).
    #[inline]
    pub fn take_padded(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let b = self.take(n, field)?;
        Ok(&b[..b.iter().position(|&x| x == 0).unwrap_or(n)])
    }

    /// A length in bytes or elements from an expression value.
    #[inline]
    pub fn length(
        &self,
        value: impl Into<i128>,
        field: &'static str,
    ) -> Result<usize, DecodeError> {
        let value = value.into();
        usize::try_from(value)
            .map_err(|_| DecodeError::new(field, self.pos, DecodeErrorKind::BadLength { value }))
    }

    /// Narrows the readable end to the next `n` bytes; returns the end to restore.
    #[inline]
    pub fn limit(&mut self, n: usize, field: &'static str) -> Result<usize, DecodeError> {
        let available = self.remaining();
        if n > available {
            return Err(DecodeError::new(
                field,
                self.pos,
                DecodeErrorKind::Truncated {
                    needed: n,
                    available,
                },
            ));
        }
        let saved = self.end;
        self.end = self.pos + n;
        Ok(saved)
    }

    /// An error at byte `at`.
    #[inline]
    pub fn error(&self, field: &'static str, at: usize, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(field, at, kind)
    }

    /// Ends a [`Reader::limit`]: everything inside must have been read.
    #[inline]
    pub fn unlimit(&mut self, saved: usize, field: &'static str) -> Result<(), DecodeError> {
        if self.pos != self.end {
            return Err(DecodeError::new(
                field,
                self.pos,
                DecodeErrorKind::Trailing {
                    bytes: self.end - self.pos,
                },
            ));
        }
        self.end = saved;
        Ok(())
    }

    #[inline]
    /// A bit reader over the same input from this position (a bit-stream type inside a
    /// byte-aligned one); give it back with [`Reader::resume`].
    pub fn bit_reader<const MSB: bool>(&mut self) -> BitReader<'a, T, MSB> {
        BitReader {
            buf: self.buf,
            pos: self.pos * 8,
            end: self.end * 8,
            base: 0,
            trace: std::mem::take(&mut self.trace),
            context: self.context,
        }
    }

    /// Continues after a bit-stream value, at the next whole byte.
    #[inline]
    pub fn resume<const MSB: bool>(&mut self, bits: BitReader<'a, T, MSB>) {
        self.pos = bits.pos.div_ceil(8);
        self.trace = bits.trace;
        self.context = bits.context;
    }

    /// Ends a [`Reader::limit`] that pads a value to a fixed size: the bytes left up to the
    /// limit are padding (noted as `abbrev`, their value ignored).
    #[inline]
    pub fn pad(&mut self, saved: usize, abbrev: &'static str) {
        let at = self.pos;
        self.pos = self.end;
        if self.pos > at {
            self.note(
                abbrev,
                at,
                Value::Bytes(std::borrow::Cow::Borrowed(&self.buf[at..self.pos])),
            );
        }
        self.end = saved;
    }

    /// Skips the padding that aligns the position to a multiple of `n` bytes from `start`
    /// (noted as `abbrev`, its value ignored).
    #[inline]
    pub fn align(
        &mut self,
        start: usize,
        n: usize,
        abbrev: &'static str,
        field: &'static str,
    ) -> Result<(), DecodeError> {
        let k = (n - (self.pos - start) % n) % n;
        if k > 0 {
            let at = self.pos;
            let bytes = self.take(k, field)?;
            self.note(abbrev, at, Value::Bytes(std::borrow::Cow::Borrowed(bytes)));
        }
        Ok(())
    }

    /// The end of a whole message: nothing may be left.
    #[inline]
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        let end = self.buf.len();
        self.unlimit(end, "")
    }

    /// Riptide 2.0's length: one byte below 0x80, else two bytes big-endian with 0x8000 set.
    #[inline]
    pub fn riptide_len(&mut self, field: &'static str) -> Result<u16, DecodeError> {
        let first = self.array::<1>(field)?[0];
        Ok(if first & 0x80 != 0 {
            (u16::from(first & 0x7F) << 8) | u16::from(self.array::<1>(field)?[0])
        } else {
            u16::from(first)
        })
    }

    /// An unsigned LEB128 value (7 bits a byte, low group first, 0x80 = more), up to 64 bits.
    #[inline]
    pub fn leb128(&mut self, field: &'static str) -> Result<u64, DecodeError> {
        let at = self.pos;
        if let Some(word) = self.buf[..self.end].get(at..at + 8) {
            let word = u64::from_le_bytes([
                word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
            ]);
            if let Some((value, n)) = leb128_word(word) {
                self.pos += n;
                return Ok(value);
            }
        }
        leb128(|| Ok(self.array::<1>(field)?[0]))?
            .ok_or_else(|| DecodeError::new(field, at, DecodeErrorKind::Overlong))
    }

    #[inline]
    pub fn slice(&self, from: usize, to: usize) -> &'a [u8] {
        &self.buf[from..to]
    }

    #[inline]
    pub fn note(&mut self, abbrev: &'static str, offset: usize, value: Value<'a>) {
        if T::ON {
            let len = self.pos - offset;
            self.trace.push(FieldNote {
                abbrev,
                offset,
                len,
                bits: len * 8,
                value,
                source: 0,
            });
        }
    }

    /// Notes each bit of `masks` of the flag set `bits` just read (its `size_of::<I>()` bytes
    /// end where the reader stands), true when set.
    #[inline]
    pub fn note_bits<I: Into<u64>>(&mut self, bits: I, masks: &[(&'static str, u64)]) {
        if T::ON {
            let len = std::mem::size_of::<I>();
            let bits = bits.into();
            for (abbrev, mask) in masks {
                self.note_at(abbrev, self.pos - len, len, Value::Bool(bits & mask != 0));
            }
        }
    }

    /// Notes a value made only when tracing (a converted string's copy): no work otherwise.
    #[inline]
    pub fn note_with(
        &mut self,
        abbrev: &'static str,
        offset: usize,
        value: impl FnOnce() -> Value<'a>,
    ) {
        if T::ON {
            self.note(abbrev, offset, value());
        }
    }

    /// Notes a value that is not where the reader stands (a bit of a packed byte).
    #[inline]
    pub fn note_at(&mut self, abbrev: &'static str, offset: usize, len: usize, value: Value<'a>) {
        if T::ON {
            self.trace.push(FieldNote {
                abbrev,
                offset,
                len,
                bits: len * 8,
                value,
                source: 0,
            });
        }
    }

    /// Gives the notes from index `first` on (see [`Reader::notes_len`]) the filter names
    /// `rename` maps theirs to: a value read for a field with `filter:`.
    #[inline]
    pub fn rename_notes(&mut self, first: usize, rename: fn(&'static str) -> &'static str) {
        if T::ON {
            self.trace.rename_from(first, rename);
        }
    }

    /// How many fields are noted so far (where a later [`Reader::insert_note`] goes).
    #[inline]
    pub fn notes_len(&self) -> usize {
        self.trace.len()
    }

    /// Notes, at position `index`, a value the decoder computed rather than read (a checksum's
    /// status, shown under the checksum as the dissector does).
    #[inline]
    pub fn insert_note(
        &mut self,
        index: usize,
        abbrev: &'static str,
        offset: usize,
        len: usize,
        value: Value<'a>,
    ) {
        if T::ON {
            self.trace.insert(
                index,
                FieldNote {
                    abbrev,
                    offset,
                    len,
                    bits: len * 8,
                    value,
                    source: 0,
                },
            );
        }
    }

    /// A reader of `buf`, bytes decompressed from a field of this one's input, that keeps the
    /// same kind of notes and sees the same conversation state; [`Reader::absorb`] takes its
    /// notes back.
    pub fn nested<'b>(&self, buf: &'b [u8]) -> Reader<'b, T::At<'b>> {
        Reader {
            buf,
            pos: 0,
            end: buf.len(),
            trace: Default::default(),
            state: self.state.clone(),
            context: self.context,
        }
    }

    /// Keeps the notes of a [`Reader::nested`] reader once it is done.
    #[inline]
    pub fn absorb(&mut self, inner: Reader<'_, T::At<'_>>) {
        if T::ON {
            self.trace.absorb(inner.trace);
        }
    }

    #[inline]
    pub fn into_notes(self) -> Vec<FieldNote<'a>> {
        self.trace.into_notes()
    }
}

/// Rust's integer types as the wire has them ([`Reader::le`], [`Reader::be`]).
pub trait WireInt: Copy + sealed::Sealed {
    /// Reads one, little-endian.
    fn from_le<'a, T: Trace<'a>>(
        r: &mut Reader<'a, T>,
        field: &'static str,
    ) -> Result<Self, DecodeError>;
    /// Reads one, big-endian.
    fn from_be<'a, T: Trace<'a>>(
        r: &mut Reader<'a, T>,
        field: &'static str,
    ) -> Result<Self, DecodeError>;
    /// The value as the dissector shows it.
    fn value(self) -> Value<'static>;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! wire_ints {
    ($($t:ty => $value:ident as $wide:ty),* $(,)?) => {$(
        impl sealed::Sealed for $t {}

        impl WireInt for $t {
            #[inline(always)]
            fn from_le<'a, T: Trace<'a>>(
                r: &mut Reader<'a, T>,
                field: &'static str,
            ) -> Result<Self, DecodeError> {
                Ok(<$t>::from_le_bytes(r.array(field)?))
            }

            #[inline(always)]
            fn from_be<'a, T: Trace<'a>>(
                r: &mut Reader<'a, T>,
                field: &'static str,
            ) -> Result<Self, DecodeError> {
                Ok(<$t>::from_be_bytes(r.array(field)?))
            }

            #[inline]
            fn value(self) -> Value<'static> {
                Value::$value(self as $wide)
            }
        }
    )*};
}

wire_ints! {
    u8 => U as u64, u16 => U as u64, u32 => U as u64, u64 => U as u64,
    i8 => I as i64, i16 => I as i64, i32 => I as i64, i64 => I as i64,
}
