//! The shape of a type's serde output, known before any value is seen: what a tool needs to lay
//! out typed columns (wirecat's Parquet export) in one pass over a capture. Generated types
//! derive it beside serde's derive (`#[derive(SerdeShape)]`); enumerations and flag sets get it
//! from their macros; this module gives it to the standard types generated fields use.

use std::borrow::Cow;

/// What serde writes for a type (serde's data model, as generated types use it).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A type with no value (a protocol that joins nothing).
    Never,
    /// `true` or `false`.
    Bool,
    /// An integer (`usize` as 64 bits).
    Int {
        /// Its width: 8, 16, 32 or 64.
        bits: u8,
        /// Whether it is signed.
        signed: bool,
    },
    /// A float.
    Float {
        /// Its width: 32 or 64.
        bits: u8,
    },
    /// Text.
    Text,
    /// Bytes (serialized as hex text for people, as bytes for serializers that are not
    /// human-readable).
    Bytes,
    /// An enumeration's value: its schema name, or its number when it has none.
    Name,
    /// A flag set: the names of the flags set, then the number of any unnamed bits.
    Names,
    /// A sequence of values of one shape.
    List(Box<Shape>),
    /// Fields in declaration order (the order serde writes them).
    Struct(Vec<(&'static str, Shape)>),
    /// An externally tagged enum: each variant's name and its data (`None`: a unit variant,
    /// written as its name alone), in declaration order (serde's variant index).
    Variants(Vec<(&'static str, Option<Shape>)>),
}

/// A type whose serde output has a [`Shape`] known ahead of any value.
pub trait SerdeShape {
    /// The shape of every value of the type.
    fn shape() -> Shape;
}

macro_rules! int_shapes {
    ($($t:ty => $bits:literal, $signed:literal;)*) => {
        $(impl SerdeShape for $t {
            fn shape() -> Shape {
                Shape::Int { bits: $bits, signed: $signed }
            }
        })*
    };
}

int_shapes! {
    u8 => 8, false; u16 => 16, false; u32 => 32, false; u64 => 64, false; usize => 64, false;
    i8 => 8, true; i16 => 16, true; i32 => 32, true; i64 => 64, true;
}

impl SerdeShape for bool {
    fn shape() -> Shape {
        Shape::Bool
    }
}

impl SerdeShape for f32 {
    fn shape() -> Shape {
        Shape::Float { bits: 32 }
    }
}

impl SerdeShape for f64 {
    fn shape() -> Shape {
        Shape::Float { bits: 64 }
    }
}

impl SerdeShape for Cow<'_, str> {
    fn shape() -> Shape {
        Shape::Text
    }
}

impl SerdeShape for String {
    fn shape() -> Shape {
        Shape::Text
    }
}

/// Serde writes a byte slice as a sequence of numbers (fields that want hex say `with`).
impl SerdeShape for Cow<'_, [u8]> {
    fn shape() -> Shape {
        Shape::List(Box::new(Shape::Int {
            bits: 8,
            signed: false,
        }))
    }
}

impl<T: SerdeShape> SerdeShape for Vec<T> {
    fn shape() -> Shape {
        Shape::List(Box::new(T::shape()))
    }
}

/// `None` is a null in any column: an optional value has its value's shape.
impl<T: SerdeShape> SerdeShape for Option<T> {
    fn shape() -> Shape {
        T::shape()
    }
}

impl<T: SerdeShape> SerdeShape for Box<T> {
    fn shape() -> Shape {
        T::shape()
    }
}

impl SerdeShape for crate::BitString<'_> {
    fn shape() -> Shape {
        Shape::Struct(vec![("bytes", Shape::Bytes), ("bits", usize::shape())])
    }
}
