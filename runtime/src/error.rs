//! Decoding and encoding errors: the field path, the byte (or bit) offset, and why.

use std::fmt;

/// Where decoding failed: the field path (outermost first), the byte offset, and why (read
/// through [`DecodeErrorInfo`]'s fields: `e.offset`, `e.bit`, `e.kind`).
///
/// One pointer wide: a decoder's `Result` stays small on the path that succeeds, and the
/// details are built only when something fails.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorInfo>);

impl std::ops::Deref for DecodeError {
    type Target = DecodeErrorInfo;
    #[inline]
    fn deref(&self) -> &DecodeErrorInfo {
        &self.0
    }
}

impl std::ops::DerefMut for DecodeError {
    #[inline]
    fn deref_mut(&mut self) -> &mut DecodeErrorInfo {
        &mut self.0
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// Where a payload starts in the datagram carrying it (see [`DecodeError::in_payload`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadStart {
    /// A bit position (bit n is bit n % 8 of byte n / 8).
    Bit(usize),
    /// A byte position.
    Byte(usize),
}

/// The details of a [`DecodeError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeErrorInfo {
    /// Field names from the message root down to the failing field (innermost pushed first).
    path: Vec<&'static str>,
    /// Byte offset in the input where the failing field starts (or the problem was found).
    pub offset: usize,
    /// In bit-stream layouts, the exact bit offset (bit n is bit n % 8 of byte n / 8).
    pub bit: Option<usize>,
    /// Why.
    pub kind: DecodeErrorKind,
    /// The schema type being decoded as a whole (`Chat`), so an error past its end says what
    /// the bytes were read as: decoding with the wrong type reads as such.
    pub ty: Option<&'static str>,
    /// When the error lies in bytes decompressed from a field: where that field starts (in the
    /// message, or in the decompressed data around it). `offset` and `bit` then count from the
    /// start of the decompressed bytes.
    pub decompressed_from: Option<usize>,
}

/// Why decoding failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The field needs more bytes than the input (or its enclosing length) holds.
    Truncated {
        /// Bytes (bits, in a bit stream) the field needs.
        needed: usize,
        /// Bytes (bits) there are.
        available: usize,
    },
    /// A constant (magic number) has another value.
    BadConst {
        /// The schema's value.
        expected: u64,
        /// The value on the wire.
        found: u64,
    },
    /// The stored checksum does not match the data.
    BadChecksum {
        /// The checksum on the wire.
        stored: u64,
        /// The checksum of the data.
        computed: u64,
    },
    /// A value is larger than the schema allows.
    TooLarge {
        /// The value.
        value: u64,
        /// The largest value allowed.
        max: u64,
    },
    /// A length or count expression evaluated to a negative or huge number.
    BadLength {
        /// What the expression gave.
        value: i128,
    },
    /// Bytes are left over after a field with a declared length, or after the message.
    Trailing {
        /// How many bytes are left over.
        bytes: usize,
    },
    /// A closed enum or a union without default met a value the schema does not name.
    UnknownValue {
        /// The value on the wire.
        value: u64,
    },
    /// A string field holds bytes that are not UTF-8.
    InvalidUtf8,
    /// The value's type comes from a list announced earlier in the conversation, and there is
    /// no list for this key (or the list has no item at this index).
    NoState {
        /// The key the list would be announced under.
        key: u64,
    },
    /// A variable-length integer runs past 64 bits.
    Overlong,
    /// A value's type comes from a list announced earlier, and the list has no item `index`.
    NotInList {
        /// The index on the wire.
        index: u64,
    },
    /// The value reads a field of an enclosing value (`Header.channel`) and was decoded
    /// without one around it.
    Outside {
        /// The enclosing type (`Header`).
        holder: &'static str,
    },
    /// The value reads the direction (`@from_client`) and was decoded without it.
    NoDirection,
    /// An element of an array read to the end took no bytes: the rest cannot be read.
    EmptyElement,
    /// A piece of a payload came again with other bytes: the first one is kept.
    ConflictingPiece {
        /// The piece's index.
        index: u64,
    },
    /// A NUL-terminated string runs to the end of its scope without its NUL.
    NoTerminator,
    /// A string field holds bytes that are not text in its encoding (ASCII, UTF-16).
    InvalidText {
        /// The field's encoding.
        encoding: &'static str,
    },
    /// A value outside the schema's `valid` range or list.
    NotValid {
        /// The value.
        value: i128,
    },
    /// A compressed field's bytes are not valid data of its method (`zlib`, `deflate`, `gzip`).
    BadCompressed {
        /// The compression method.
        method: &'static str,
    },
    /// A compressed field decompresses to more than the schema allows (a decompression bomb).
    Inflated {
        /// The most bytes allowed.
        max: usize,
    },
}

impl DecodeError {
    /// An error of field `field` at byte `offset`.
    #[cold]
    #[inline(never)]
    pub fn new(field: &'static str, offset: usize, kind: DecodeErrorKind) -> Self {
        DecodeError(Box::new(DecodeErrorInfo {
            path: vec![field],
            offset,
            bit: None,
            kind,
            ty: None,
            decompressed_from: None,
        }))
    }

    /// An error of field `field` at bit `bit` of a bit stream.
    #[cold]
    #[inline(never)]
    pub fn at_bit(field: &'static str, bit: usize, kind: DecodeErrorKind) -> Self {
        DecodeError(Box::new(DecodeErrorInfo {
            path: vec![field],
            offset: bit / 8,
            bit: Some(bit),
            kind,
            ty: None,
            decompressed_from: None,
        }))
    }

    /// Names the type the whole input was decoded as.
    #[cold]
    pub fn decoding(mut self, ty: &'static str) -> Self {
        self.0.ty = Some(ty);
        self
    }

    /// An error in a payload (an application's message) as an error in the datagram that
    /// carries it: `path` names the payload field from the datagram's root (outermost first),
    /// and `start` is where the payload begins: [`PayloadStart::Bit`] in bit streams,
    /// [`PayloadStart::Byte`] else (`None` leaves positions counting from the payload's start).
    #[cold]
    pub fn in_payload(mut self, path: &[&'static str], start: Option<PayloadStart>) -> Self {
        self.0.path.extend(path.iter().rev());
        // Inside decompressed data only where it came from moves (compression is byte-aligned).
        if let Some(at) = &mut self.0.decompressed_from {
            match start {
                Some(PayloadStart::Bit(start)) => *at += start / 8,
                Some(PayloadStart::Byte(start)) => *at += start,
                None => {}
            }
            return self;
        }
        match start {
            Some(PayloadStart::Bit(start)) => {
                let bit = self.0.bit.unwrap_or(self.0.offset * 8) + start;
                self.0.bit = Some(bit);
                self.0.offset = bit / 8;
            }
            Some(PayloadStart::Byte(start)) => self.0.offset += start,
            None => {}
        }
        self
    }

    /// An error in the bytes decompressed from the field at byte `at`: its offsets keep
    /// counting from the decompressed data's start (the innermost such data, when compressed
    /// fields nest).
    #[cold]
    pub fn in_decompressed(mut self, at: usize) -> Self {
        self.0.decompressed_from.get_or_insert(at);
        self
    }

    /// Adds the enclosing field's name as errors travel out of nested types.
    #[cold]
    pub fn within(mut self, field: &'static str) -> Self {
        self.0.path.push(field);
        self
    }
}

impl DecodeErrorInfo {
    /// The failing field as a dotted path from the message root, e.g. `payload.username`.
    #[inline]
    pub fn field(&self) -> String {
        let mut names: Vec<&str> = self.path.iter().rev().copied().collect();
        names.retain(|n| !n.is_empty());
        names.join(".")
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field();
        match (self.bit, field.is_empty()) {
            // Past the last field: what is wrong is the message's end.
            (Some(bit), true) => match self.ty {
                Some(ty) => write!(f, "after a whole {ty}, at bit {bit}: ")?,
                None => write!(f, "after the message, at bit {bit}: ")?,
            },
            (None, true) => match self.ty {
                Some(ty) => write!(f, "after a whole {ty}, at byte {}: ", self.offset)?,
                None => write!(f, "after the message, at byte {}: ", self.offset)?,
            },
            (Some(bit), false) => {
                write!(f, "field '{field}' at bit {bit} (byte {}): ", self.offset)?
            }
            (None, false) => write!(f, "field '{field}' at byte {}: ", self.offset)?,
        }
        if let Some(at) = self.decompressed_from {
            write!(f, "(of the data decompressed from byte {at}) ")?;
        }
        match &self.kind {
            DecodeErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} available")
            }
            DecodeErrorKind::BadConst { expected, found } => {
                write!(f, "expected {expected:#x}, found {found:#x}")
            }
            DecodeErrorKind::BadChecksum { stored, computed } => {
                write!(
                    f,
                    "bad checksum: stored {stored:#x}, computed {computed:#x}"
                )
            }
            DecodeErrorKind::TooLarge { value, max } => {
                write!(f, "value {value} is larger than the allowed {max}")
            }
            DecodeErrorKind::BadLength { value } => write!(f, "impossible length {value}"),
            DecodeErrorKind::Trailing { bytes } => {
                write!(f, "{bytes} unexpected trailing bytes")?;
                match (self.ty, self.field().is_empty()) {
                    (Some(ty), true) => write!(f, " (a longer {ty}, or bytes of another type?)"),
                    _ => Ok(()),
                }
            }
            DecodeErrorKind::UnknownValue { value } => write!(f, "unknown value {value:#x}"),
            DecodeErrorKind::InvalidUtf8 => write!(f, "invalid UTF-8"),
            DecodeErrorKind::NoTerminator => write!(f, "no NUL before the end"),
            DecodeErrorKind::InvalidText { encoding } => write!(f, "invalid {encoding}"),
            DecodeErrorKind::NotValid { value } => {
                write!(f, "value {value} is not one the schema allows")
            }
            DecodeErrorKind::BadCompressed { method } => {
                write!(f, "the bytes are not valid {method} data")
            }
            DecodeErrorKind::Inflated { max } => {
                write!(f, "decompresses to more than the {max} bytes allowed")
            }
            DecodeErrorKind::NoState { key } => {
                write!(f, "nothing announced earlier in the conversation for {key}")
            }
            DecodeErrorKind::Overlong => write!(f, "variable-length integer longer than 64 bits"),
            DecodeErrorKind::NotInList { index } => {
                write!(
                    f,
                    "index {index} is past the list announced earlier in the conversation"
                )
            }
            DecodeErrorKind::Outside { holder } => write!(
                f,
                "reads a field of the enclosing {holder}: decode the {holder} that holds it"
            ),
            DecodeErrorKind::EmptyElement => write!(
                f,
                "an element takes no bytes: the array to the end cannot go on"
            ),
            DecodeErrorKind::NoDirection => write!(
                f,
                "depends on the direction: decode with decode_from(bytes, from_client) or a \
                 Conversation"
            ),
            DecodeErrorKind::ConflictingPiece { index } => {
                write!(
                    f,
                    "piece {index} came again with other bytes (the first is kept)"
                )
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why a value could not be encoded: the field path and why (read through
/// [`EncodeErrorInfo`]'s fields: `e.kind`).
///
/// One pointer wide, as [`DecodeError`] is: every write function returns a `Result` of it, which
/// then comes back in a register on the path that succeeds instead of through memory.
#[derive(Clone, PartialEq, Eq)]
pub struct EncodeError(Box<EncodeErrorInfo>);

/// The details of an [`EncodeError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeErrorInfo {
    /// Field names from the failing field out to the message root (innermost first).
    path: Vec<&'static str>,
    /// Why.
    pub kind: EncodeErrorKind,
}

impl std::ops::Deref for EncodeError {
    type Target = EncodeErrorInfo;
    #[inline]
    fn deref(&self) -> &EncodeErrorInfo {
        &self.0
    }
}

impl std::ops::DerefMut for EncodeError {
    #[inline]
    fn deref_mut(&mut self) -> &mut EncodeErrorInfo {
        &mut self.0
    }
}

impl fmt::Debug for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// Why a value could not be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeErrorKind {
    /// The value does not fit the field (or a derived length or count does not fit its field).
    TooLarge {
        /// The value.
        value: u64,
        /// The largest value allowed.
        max: u64,
    },
    /// A negative value in an unsigned field, or one below the signed minimum.
    TooSmall {
        /// The value.
        value: i64,
    },
    /// An optional field is present (or absent) against its schema condition.
    Presence {
        /// Whether the value is present.
        present: bool,
    },
    /// A length or count expression disagrees with the data.
    LengthMismatch {
        /// What the length or count expression gives.
        expected: i128,
        /// The data's length or count.
        actual: usize,
    },
    /// A value padded to `size` bytes takes `actual` bytes.
    TooLong {
        /// The padded size.
        size: usize,
        /// The value's bytes.
        actual: usize,
    },
    /// A catch-all union variant carries a tag that has a variant of its own.
    TagHasVariant {
        /// The tag.
        tag: u64,
    },
    /// A range variant carries a tag outside its range.
    TagOutsideCase {
        /// The tag.
        tag: u64,
    },
    /// The switch's `unless` condition holds, so only its default variant can be written.
    NotDefault,
    /// A NUL-terminated or NUL-padded string holds a NUL at byte `at`: it would end there.
    ContainsNul {
        /// The NUL's byte offset in the text.
        at: usize,
    },
    /// The character at byte `at` of the text does not exist in the field's encoding.
    Unencodable {
        /// The character's byte offset in the text.
        at: usize,
        /// The field's encoding.
        encoding: &'static str,
    },
    /// A value outside the schema's `valid` range or list.
    NotValid {
        /// The value.
        value: i128,
    },
    /// Part `part` of a split payload does not read as its position says (the first or the
    /// last part of it, or neither): the template's fields that the join's `first`/`last`
    /// expressions read do not agree with the number of parts.
    PartMarker {
        /// The part's index.
        part: usize,
        /// Whether it should read as the first part.
        first: bool,
        /// Whether it should read as the last part.
        last: bool,
    },
    /// The value reads a field of an enclosing value (`Header.channel`) and was encoded
    /// without one around it.
    Outside {
        /// The enclosing type (`Header`).
        holder: &'static str,
    },
    /// The value reads the direction (`@from_client`) and was encoded without it.
    NoDirection,
    /// An element of an array read to the end would take no bytes: the decoder could not tell
    /// where the array ends.
    EmptyElement,
}

impl EncodeError {
    /// An error of field `field`.
    #[cold]
    #[inline(never)]
    pub fn new(field: &'static str, kind: EncodeErrorKind) -> Self {
        EncodeError(Box::new(EncodeErrorInfo {
            path: vec![field],
            kind,
        }))
    }

    /// The same error, inside field `field` of the enclosing value.
    #[inline]
    pub fn within(mut self, field: &'static str) -> Self {
        self.0.path.push(field);
        self
    }

    /// The failing field as a dotted path from the message root.
    #[inline]
    pub fn field(&self) -> String {
        let mut names: Vec<&str> = self.path.iter().rev().copied().collect();
        names.retain(|n| !n.is_empty());
        names.join(".")
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field '{}': ", self.field())?;
        match &self.kind {
            EncodeErrorKind::TooLarge { value, max } => {
                write!(f, "{value} does not fit (at most {max})")
            }
            EncodeErrorKind::TooSmall { value } => write!(f, "{value} is below the field's range"),
            EncodeErrorKind::Presence { present: true } => {
                write!(f, "present, but its condition is false")
            }
            EncodeErrorKind::Presence { present: false } => {
                write!(f, "absent, but its condition is true")
            }
            EncodeErrorKind::LengthMismatch { expected, actual } => {
                write!(f, "length {actual} disagrees with the schema's {expected}")
            }
            EncodeErrorKind::TooLong { size, actual } => {
                write!(f, "{actual} bytes do not fit in the {size} it is padded to")
            }
            EncodeErrorKind::TagHasVariant { tag } => {
                write!(
                    f,
                    "tag {tag:#x} has its own variant; use it instead of the catch-all"
                )
            }
            EncodeErrorKind::TagOutsideCase { tag } => {
                write!(f, "tag {tag:#x} is outside the values of this variant")
            }
            EncodeErrorKind::NotDefault => {
                write!(f, "the switch's condition asks for its default variant")
            }
            EncodeErrorKind::ContainsNul { at } => {
                write!(f, "a NUL at byte {at} would end the string there")
            }
            EncodeErrorKind::Unencodable { at, encoding } => {
                write!(f, "the character at byte {at} has no {encoding} form")
            }
            EncodeErrorKind::NotValid { value } => {
                write!(f, "value {value} is not one the schema allows")
            }
            EncodeErrorKind::Outside { holder } => write!(
                f,
                "reads a field of the enclosing {holder}: encode the {holder} that holds it"
            ),
            EncodeErrorKind::EmptyElement => write!(
                f,
                "an element takes no bytes: a reader of the array to the end could not go on"
            ),
            EncodeErrorKind::NoDirection => write!(
                f,
                "depends on the direction: encode with encode_from(from_client)"
            ),
            EncodeErrorKind::PartMarker { part, first, last } => {
                let should = match (first, last) {
                    (true, true) => "the first and the last part",
                    (true, false) => "the first part",
                    (false, true) => "the last part",
                    (false, false) => "neither the first nor the last part",
                };
                write!(
                    f,
                    "part {part} should read as {should}: give the template the fields the \
                     join's first/last read (the number of parts, say)"
                )
            }
        }
    }
}

impl std::error::Error for EncodeError {}

/// Checks that `value` fits a field of `max`, for derived lengths, counts and integer fields.
#[inline]
pub fn fit(value: u64, max: u64, field: &'static str) -> Result<u64, EncodeError> {
    if value > max {
        Err(EncodeError::new(
            field,
            EncodeErrorKind::TooLarge { value, max },
        ))
    } else {
        Ok(value)
    }
}

/// The value of a size field whose schema expression `mul * field + add` must equal `len`
/// (`length: "size - 2"`: mul 1, add -2): `(len - add) / mul`, refused when it is negative or
/// not a whole number.
#[inline]
pub fn size_from_len(
    len: usize,
    mul: i64,
    add: i64,
    field: &'static str,
) -> Result<u64, EncodeError> {
    let v = len as i128 - add as i128;
    let mul = mul as i128;
    if v % mul != 0 {
        return Err(EncodeError::new(
            field,
            EncodeErrorKind::LengthMismatch {
                expected: v / mul * mul + add as i128,
                actual: len,
            },
        ));
    }
    let v = v / mul;
    u64::try_from(v).map_err(|_| {
        EncodeError::new(
            field,
            EncodeErrorKind::TooSmall {
                value: v.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            },
        )
    })
}

/// Names the enclosing field on the error of a nested value's result, as errors travel out:
/// `Vec3::read(r).within("position")?` (generated code reads one nested value per line so).
pub trait Within {
    /// The same result, its error inside field `field` of the enclosing value.
    fn within(self, field: &'static str) -> Self;
}

impl<T> Within for Result<T, DecodeError> {
    #[inline]
    fn within(self, field: &'static str) -> Self {
        self.map_err(|e| e.within(field))
    }
}

impl<T> Within for Result<T, EncodeError> {
    #[inline]
    fn within(self, field: &'static str) -> Self {
        self.map_err(|e| e.within(field))
    }
}

#[cfg(test)]
mod within_tests {
    use super::*;

    #[test]
    fn a_nested_error_names_its_enclosing_fields() {
        let inner: Result<(), DecodeError> = Err(DecodeError::new(
            "x",
            3,
            DecodeErrorKind::Truncated {
                needed: 2,
                available: 1,
            },
        ));
        let e = inner.within("position").within("player").unwrap_err();
        assert_eq!(e.field(), "player.position.x");
        let encoded: Result<(), EncodeError> = Err(EncodeError::new(
            "len",
            EncodeErrorKind::TooLong { size: 4, actual: 9 },
        ));
        assert_eq!(encoded.within("name").unwrap_err().field(), "name.len");
    }
}
