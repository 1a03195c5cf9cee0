//! Enumerations: [`enumeration!`](crate::enumeration!) declares an enum of named wire values
//! with its conversions from and to the integer on the wire, names and serde.

/// Declares an enum of named values of an integer on the wire.
///
/// ```
/// wiregen_runtime::enumeration! {
///     /// What the payload holds.
///     pub enum Command: u8 {
///         /// Client requests connection.
///         ReqLogin = 0x01 as "REQ_LOGIN",
///         Ack = 0xFF as "ACK",
///         Nack = 0xFE,
///         _ => Unknown,
///     }
/// }
///
/// assert_eq!(Command::from_raw(0x01), Command::ReqLogin);
/// assert_eq!(Command::from(7u8), Command::Unknown(7));
/// assert_eq!(u8::from(Command::Ack), 0xFF);
/// assert_eq!(Command::Ack.name(), Some("ACK"));
/// assert_eq!(Command::Nack.name(), Some("Nack"));
///
/// wiregen_runtime::enumeration! {
///     /// A closed enum: only its values exist.
///     pub enum Level: u8 {
///         Low = 0 as "LOW",
///         High = 10 as "HIGH",
///     }
/// }
///
/// assert_eq!(Level::from_raw(10), Some(Level::High));
/// assert_eq!(Level::try_from(3u8), Err(3));
/// ```
///
/// Each value is `Variant = raw as "SCHEMA_NAME"`, or `Variant = raw` when the schema's name is
/// the variant's. With a last `_ => Unknown,` the enum is
/// open: a value the schema does not name decodes as `Unknown(raw)`, kept as it was; without
/// it the enum is closed: `from_raw` gives `None` for such a value and `TryFrom` refuses it. With this crate's `serde` feature, a value serializes as its schema name (an unknown one
/// as its number) and deserializes from either.
#[macro_export]
macro_rules! enumeration {
    (
        $(#[$outer:meta])*
        $vis:vis enum $name:ident: $raw:ty {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $value:literal $(as $wire:literal)?,
            )*
            _ => $unknown:ident,
        }
    ) => {
        $(#[$outer])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $variant,
            )*
            /// A value the schema does not name, kept as it was on the wire.
            $unknown($raw),
        }

        impl $name {
            /// The value for `raw`; unnamed values become [`Self::Unknown`].
            pub const fn from_raw(raw: $raw) -> Self {
                match raw {
                    $( $value => Self::$variant, )*
                    other => Self::$unknown(other),
                }
            }

            /// The value as it is on the wire.
            pub const fn raw(self) -> $raw {
                match self {
                    $( Self::$variant => $value, )*
                    Self::$unknown(raw) => raw,
                }
            }

            /// The schema's name for this value.
            pub const fn name(self) -> ::core::option::Option<&'static str> {
                match self {
                    $( Self::$variant => ::core::option::Option::Some($crate::__wire_name!($variant $($wire)?)), )*
                    Self::$unknown(_) => ::core::option::Option::None,
                }
            }
        }

        impl ::core::convert::From<$raw> for $name {
            fn from(raw: $raw) -> Self {
                Self::from_raw(raw)
            }
        }

        $crate::__enumeration_common!($name, $raw, $( ($crate::__wire_name!($variant $($wire)?), $value) )*);
        $crate::__enumeration_serde!($name, $raw, |raw| ::core::result::Result::Ok(Self::from_raw(raw)), $( ($crate::__wire_name!($variant $($wire)?), $value) )*);
    };
    (
        $(#[$outer:meta])*
        $vis:vis enum $name:ident: $raw:ty {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $value:literal $(as $wire:literal)?,
            )*
        }
    ) => {
        $(#[$outer])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $variant,
            )*
        }

        impl $name {
            /// The named value for `raw`, if the schema names it.
            pub const fn from_raw(raw: $raw) -> ::core::option::Option<Self> {
                match raw {
                    $( $value => ::core::option::Option::Some(Self::$variant), )*
                    _ => ::core::option::Option::None,
                }
            }

            /// The value as it is on the wire.
            pub const fn raw(self) -> $raw {
                match self {
                    $( Self::$variant => $value, )*
                }
            }

            /// The schema's name for this value.
            pub const fn name(self) -> ::core::option::Option<&'static str> {
                match self {
                    $( Self::$variant => ::core::option::Option::Some($crate::__wire_name!($variant $($wire)?)), )*
                }
            }
        }

        /// The named value for `raw`; the error is `raw` when the schema names no value.
        impl ::core::convert::TryFrom<$raw> for $name {
            type Error = $raw;
            fn try_from(raw: $raw) -> ::core::result::Result<Self, $raw> {
                Self::from_raw(raw).ok_or(raw)
            }
        }

        $crate::__enumeration_common!($name, $raw, $( ($crate::__wire_name!($variant $($wire)?), $value) )*);
        $crate::__enumeration_serde!($name, $raw, |raw| {
            Self::from_raw(raw).ok_or_else(|| {
                format!("{raw} is not a value of {}", stringify!($name))
            })
        }, $( ($crate::__wire_name!($variant $($wire)?), $value) )*);
    };
}

/// What open and closed enums share.
#[doc(hidden)]
#[macro_export]
macro_rules! __enumeration_common {
    ($name:ident, $raw:ty, $( ($wire:expr, $value:literal) )*) => {
        impl ::core::convert::From<$name> for $raw {
            fn from(value: $name) -> $raw {
                value.raw()
            }
        }

        impl $crate::Enumeration for $name {
            const NAMES: &'static [(&'static str, u64)] = &[ $( ($wire, $value), )* ];
        }
    };
}

/// A type [`enumeration!`](crate::enumeration!) declares: its schema names with their values.
pub trait Enumeration: Copy {
    /// The names of the values as the schema writes them, with their values.
    const NAMES: &'static [(&'static str, u64)];
}

/// With this crate's `serde` feature: a value by its schema name, an unnamed one by number.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __enumeration_serde {
    ($name:ident, $raw:ty, |$r:ident| $from:expr, $( ($wire:expr, $value:literal) )*) => {
        impl $crate::serde_support::serde::Serialize for $name {
            fn serialize<S: $crate::serde_support::serde::Serializer>(
                &self,
                s: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::serde_support::named(s, self.name(), self.raw() as u64)
            }
        }

        impl<'de> $crate::serde_support::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::serde_support::serde::Deserializer<'de>>(
                d: D,
            ) -> ::core::result::Result<Self, D::Error> {
                use $crate::serde_support::serde::de::Error;
                let names = <Self as $crate::Enumeration>::NAMES;
                let wide = $crate::serde_support::raw_from_name(d, names)?;
                let $r = <$raw>::try_from(wide).map_err(|_| {
                    D::Error::custom(format!("{wide} does not fit {}", stringify!($name)))
                })?;
                let value: ::core::result::Result<Self, ::std::string::String> = $from;
                value.map_err(D::Error::custom)
            }
        }

        impl $crate::SerdeShape for $name {
            fn shape() -> $crate::Shape {
                $crate::Shape::Name
            }
        }
    };
}

/// Without this crate's `serde` feature, enums have no serde impls.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __enumeration_serde {
    ($($t:tt)*) => {};
}

/// A value's schema name: the one given, else its variant's (`enumeration!`).
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_name {
    ($variant:ident $wire:literal) => {
        $wire
    };
    ($variant:ident) => {
        ::core::stringify!($variant)
    };
}
