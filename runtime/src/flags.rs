//! Flag sets: [`flags!`](crate::flags!) declares a newtype over an integer with one constant per
//! named bit, the set operators, `Debug` by name and serde as a list of names.

use std::fmt;

/// A set of bits of which some have names (every type [`flags!`](crate::flags!) declares).
pub trait Flags: Copy {
    /// The names of the bits as the schema writes them, with their masks.
    const NAMES: &'static [(&'static str, u64)];

    /// The bits as they are on the wire, widened.
    fn bits_u64(self) -> u64;

    /// Every named bit.
    fn known_u64() -> u64 {
        Self::NAMES.iter().fold(0, |all, (_, mask)| all | mask)
    }

    /// The names of the set bits that the schema names, in the schema's order.
    fn names(self) -> FlagNames {
        FlagNames {
            names: Self::NAMES,
            bits: self.bits_u64(),
        }
    }
}

/// The names of the set bits of a flag set (see [`Flags::names`]).
#[derive(Debug, Clone)]
pub struct FlagNames {
    names: &'static [(&'static str, u64)],
    bits: u64,
}

impl Iterator for FlagNames {
    type Item = &'static str;

    fn next(&mut self) -> Option<&'static str> {
        while let Some(((name, mask), rest)) = self.names.split_first() {
            self.names = rest;
            if self.bits & mask != 0 {
                return Some(name);
            }
        }
        None
    }
}

/// `Name(A | B | 0x40)`: the set bits by name, the unnamed ones as one hex number.
#[doc(hidden)]
pub fn debug<F: Flags>(flags: F, type_name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{type_name}(")?;
    let mut first = true;
    for name in flags.names() {
        f.write_str(if first { "" } else { " | " })?;
        f.write_str(name)?;
        first = false;
    }
    let unnamed = flags.bits_u64() & !F::known_u64();
    if unnamed != 0 {
        write!(f, "{}{unnamed:#x}", if first { "" } else { " | " })?;
    }
    f.write_str(")")
}

/// Declares a flag set: a newtype over an integer with one constant per named bit.
///
/// ```
/// wiregen_runtime::flags! {
///     /// Packet behaviour bits.
///     pub struct PacketFlags(u8) {
///         /// The receiver must acknowledge this packet.
///         const RELIABLE = 0x01;
///         /// A piece of a larger message.
///         #[name = "fragment"]
///         const FRAGMENT = 0x02;
///     }
/// }
///
/// let f = PacketFlags::RELIABLE | PacketFlags(0x40);
/// assert!(f.contains(PacketFlags::RELIABLE));
/// assert_eq!(format!("{f:?}"), "PacketFlags(RELIABLE | 0x40)");
/// assert_eq!((f - PacketFlags::RELIABLE).bits(), 0x40);
/// ```
///
/// A bit's name (in `Debug`, serde and [`Flags::NAMES`]) is its constant's unless a
/// `#[name = "…"]` gives the schema's spelling. `!` complements the named bits only, so that
/// a set never gains bits the schema does not name. With this crate's `serde` feature, a set
/// serializes as the list of its names (and a number for unnamed bits) and deserializes from
/// such a list or a number.
#[macro_export]
macro_rules! flags {
    (
        $(#[$outer:meta])*
        $vis:vis struct $name:ident($bits:ty) {
            $(
                $(#[doc = $doc:literal])*
                $(#[name = $wire:literal])?
                const $flag:ident = $value:literal;
            )*
        }
    ) => {
        $(#[$outer])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        $vis struct $name(pub $bits);

        impl $name {
            $(
                $(#[doc = $doc])*
                pub const $flag: Self = Self($value);
            )*

            /// No bits set.
            pub const fn empty() -> Self {
                Self(0)
            }

            /// Every named bit.
            pub const fn all() -> Self {
                Self(0 $(| $value)*)
            }

            /// The bits as they are on the wire.
            pub const fn bits(self) -> $bits {
                self.0
            }

            /// Whether no bit is set.
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }

            /// Whether every bit of `other` is set.
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether any bit of `other` is set.
            pub const fn intersects(self, other: Self) -> bool {
                self.0 & other.0 != 0
            }

            /// Sets the bits of `other`.
            pub fn insert(&mut self, other: Self) {
                self.0 |= other.0;
            }

            /// Clears the bits of `other`.
            pub fn remove(&mut self, other: Self) {
                self.0 &= !other.0;
            }

            /// Sets the bits of `other` if `value`, clears them if not.
            pub fn set(&mut self, other: Self, value: bool) {
                if value {
                    self.insert(other);
                } else {
                    self.remove(other);
                }
            }

            /// The names of the set bits that the schema names.
            pub fn names(self) -> $crate::FlagNames {
                $crate::Flags::names(self)
            }
        }

        impl $crate::Flags for $name {
            const NAMES: &'static [(&'static str, u64)] = &[
                $(($crate::flags!(@name $flag $($wire)?), $value),)*
            ];

            fn bits_u64(self) -> u64 {
                self.0 as u64
            }
        }

        impl ::std::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self {
                Self(self.0 | rhs.0)
            }
        }

        impl ::std::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, rhs: Self) {
                self.0 |= rhs.0;
            }
        }

        impl ::std::ops::BitAnd for $name {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self {
                Self(self.0 & rhs.0)
            }
        }

        impl ::std::ops::BitAndAssign for $name {
            fn bitand_assign(&mut self, rhs: Self) {
                self.0 &= rhs.0;
            }
        }

        impl ::std::ops::BitXor for $name {
            type Output = Self;
            fn bitxor(self, rhs: Self) -> Self {
                Self(self.0 ^ rhs.0)
            }
        }

        impl ::std::ops::BitXorAssign for $name {
            fn bitxor_assign(&mut self, rhs: Self) {
                self.0 ^= rhs.0;
            }
        }

        impl ::std::ops::Sub for $name {
            type Output = Self;
            fn sub(self, rhs: Self) -> Self {
                Self(self.0 & !rhs.0)
            }
        }

        impl ::std::ops::SubAssign for $name {
            fn sub_assign(&mut self, rhs: Self) {
                self.0 &= !rhs.0;
            }
        }

        impl ::std::ops::Not for $name {
            type Output = Self;
            fn not(self) -> Self {
                Self(!self.0 & Self::all().0)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                $crate::flags::debug(*self, stringify!($name), f)
            }
        }

        $crate::__flags_serde!($name, $bits);
    };
    (@name $flag:ident $wire:literal) => {
        $wire
    };
    (@name $flag:ident) => {
        stringify!($flag)
    };
}

/// The serde impls of a flag set (with this crate's `serde` feature).
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __flags_serde {
    ($name:ident, $bits:ty) => {
        impl $crate::serde_support::serde::Serialize for $name {
            fn serialize<S: $crate::serde_support::serde::Serializer>(
                &self,
                s: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::serde_support::flags(s, self.0 as u64, <Self as $crate::Flags>::NAMES)
            }
        }

        impl<'de> $crate::serde_support::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::serde_support::serde::Deserializer<'de>>(
                d: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let wide = $crate::serde_support::flags_from(d, <Self as $crate::Flags>::NAMES)?;
                <$bits>::try_from(wide).map(Self).map_err(|_| {
                    <D::Error as $crate::serde_support::serde::de::Error>::custom(format!(
                        "{wide:#x} does not fit {}",
                        stringify!($name)
                    ))
                })
            }
        }

        impl $crate::SerdeShape for $name {
            fn shape() -> $crate::Shape {
                $crate::Shape::Names
            }
        }
    };
}

/// Without this crate's `serde` feature, flag sets have no serde impls.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flags_serde {
    ($name:ident, $bits:ty) => {};
}
