//! What a value is read and written with besides its own bytes: the fields of enclosing values
//! that the types inside read (`Header.channel`, each kept in a numbered slot by the generated
//! code of its holder), and the direction of the message (`@from_client`).
//!
//! Readers and writers carry one [`Context`] (72 bytes, no allocation); a bit-stream reader
//! started inside a byte reader takes it along and hands it back.

use crate::{EncodeError, EncodeErrorKind};

/// How many enclosing fields one schema's types may read (validation says so at the schema).
pub const ENCLOSING_SLOTS: usize = 16;

/// The enclosing fields read so far and the direction (see the module's comment).
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    values: [u64; ENCLOSING_SLOTS],
    /// Bit `k`: slot `k` holds a value.
    set: u16,
    from_client: Option<bool>,
}

impl Context {
    /// Keeps `value` (an integer's two's-complement bits, an enum's raw value, a bool as 0 or
    /// 1) in `slot`.
    #[inline]
    pub fn set(&mut self, slot: usize, value: u64) {
        self.values[slot] = value;
        self.set |= 1 << slot;
    }

    /// The value in `slot`, if its holder was read.
    #[inline]
    pub fn get(&self, slot: usize) -> Option<u64> {
        (self.set & (1 << slot) != 0).then(|| self.values[slot])
    }

    /// Sets the direction.
    #[inline]
    pub fn set_from_client(&mut self, from_client: bool) {
        self.from_client = Some(from_client);
    }

    /// The direction, if known.
    #[inline]
    pub fn from_client(&self) -> Option<bool> {
        self.from_client
    }

    /// The value in `slot` for an encoder's field `field`, or why there is none.
    #[inline]
    pub fn encoded(
        &self,
        slot: usize,
        holder: &'static str,
        field: &'static str,
    ) -> Result<u64, EncodeError> {
        self.get(slot)
            .ok_or_else(|| EncodeError::new(field, EncodeErrorKind::Outside { holder }))
    }

    /// The direction for an encoder's field `field`, or why there is none.
    #[inline]
    pub fn encoded_direction(&self, field: &'static str) -> Result<bool, EncodeError> {
        self.from_client
            .ok_or_else(|| EncodeError::new(field, EncodeErrorKind::NoDirection))
    }
}

/// The context methods of a reader (`Reader` and `BitReader`, which have a `context` field,
/// `pos` and `error`), written once for both.
macro_rules! reader_context {
    () => {
        /// The same reader, reading a message sent by the client (`from_client`) or the server.
        #[inline]
        pub fn with_direction(mut self, from_client: bool) -> Self {
            self.context.set_from_client(from_client);
            self
        }

        /// Keeps an enclosing field's value for the values inside (see [`crate::Context`]).
        #[inline]
        pub fn set_enclosing(&mut self, slot: usize, value: u64) {
            self.context.set(slot, value);
        }

        /// The value of enclosing field `slot` of `holder`, read by field `field`.
        #[inline]
        pub fn enclosing(
            &self,
            slot: usize,
            holder: &'static str,
            field: &'static str,
        ) -> Result<u64, crate::DecodeError> {
            match self.context.get(slot) {
                Some(v) => Ok(v),
                None => {
                    Err(self.error(field, self.pos, crate::DecodeErrorKind::Outside { holder }))
                }
            }
        }

        /// Whether the message was sent by the client, read by field `field`.
        #[inline]
        pub fn from_client(&self, field: &'static str) -> Result<bool, crate::DecodeError> {
            match self.context.from_client() {
                Some(v) => Ok(v),
                None => Err(self.error(field, self.pos, crate::DecodeErrorKind::NoDirection)),
            }
        }
    };
}
pub(crate) use reader_context;

/// The context methods of a writer (`Writer` and `BitWriter`, which have a `context` field),
/// written once for both.
macro_rules! writer_context {
    () => {
        /// The same writer, writing a message the client (`from_client`) or the server sends.
        #[inline]
        pub fn with_direction(mut self, from_client: bool) -> Self {
            self.context.set_from_client(from_client);
            self
        }

        /// Keeps an enclosing field's value for the values inside (see [`crate::Context`]).
        #[inline]
        pub fn set_enclosing(&mut self, slot: usize, value: u64) {
            self.context.set(slot, value);
        }

        /// The value of enclosing field `slot` of `holder`, read by field `field`.
        #[inline]
        pub fn enclosing(
            &self,
            slot: usize,
            holder: &'static str,
            field: &'static str,
        ) -> Result<u64, crate::EncodeError> {
            self.context.encoded(slot, holder, field)
        }

        /// Whether the message is sent by the client, read by field `field`.
        #[inline]
        pub fn from_client(&self, field: &'static str) -> Result<bool, crate::EncodeError> {
            self.context.encoded_direction(field)
        }
    };
}
pub(crate) use writer_context;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_known_once_set_and_the_direction_once_given() {
        let mut c = Context::default();
        assert_eq!(c.get(3), None);
        let e = c.encoded(3, "Header", "kind").unwrap_err();
        assert_eq!(e.kind, EncodeErrorKind::Outside { holder: "Header" });
        assert!(e.to_string().contains("encode the Header"), "{e}");
        c.set(3, u64::MAX);
        assert_eq!(c.encoded(3, "Header", "kind").unwrap(), u64::MAX);
        assert_eq!(c.get(2), None);
        let e = c.encoded_direction("body").unwrap_err();
        assert_eq!(e.kind, EncodeErrorKind::NoDirection);
        c.set_from_client(false);
        assert_eq!(c.from_client(), Some(false));
    }
}
