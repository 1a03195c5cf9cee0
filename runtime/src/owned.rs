//! Decoded values that outlive their input: borrowed strings and bytes copied into owned ones.

use crate::BitString;
use std::borrow::Cow;

/// A decoded value that borrows its input, turned into one that owns its data (`'static`), so a
/// game can keep decoded messages after the buffer is gone. Generated types that borrow
/// implement it; types that borrow nothing are owned already.
pub trait IntoOwned {
    /// The same type, borrowing nothing.
    type Owned: 'static;
    /// Copies whatever is borrowed.
    fn into_owned(self) -> Self::Owned;
}

impl IntoOwned for Cow<'_, str> {
    type Owned = Cow<'static, str>;
    fn into_owned(self) -> Cow<'static, str> {
        Cow::Owned(Cow::into_owned(self))
    }
}

impl IntoOwned for Cow<'_, [u8]> {
    type Owned = Cow<'static, [u8]>;
    fn into_owned(self) -> Cow<'static, [u8]> {
        Cow::Owned(Cow::into_owned(self))
    }
}

impl IntoOwned for BitString<'_> {
    type Owned = BitString<'static>;
    fn into_owned(self) -> Self::Owned {
        BitString::into_owned(self)
    }
}

impl<T: IntoOwned> IntoOwned for Vec<T> {
    type Owned = Vec<T::Owned>;
    fn into_owned(self) -> Self::Owned {
        self.into_iter().map(IntoOwned::into_owned).collect()
    }
}

impl<T: IntoOwned> IntoOwned for Option<T> {
    type Owned = Option<T::Owned>;
    fn into_owned(self) -> Self::Owned {
        self.map(IntoOwned::into_owned)
    }
}
