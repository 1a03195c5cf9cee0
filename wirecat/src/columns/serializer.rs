//! A serde serializer writing one value into a [`Column`] of its shape, and the message type
//! read off the way: the variant names down the value (`LongLinkState`, `Packet.Response`),
//! as `message_type` finds them in the value's JSON — into each variant, and from a struct into
//! its first field holding a variant with data.

use std::fmt::{self, Display};

use serde::ser::{self, Impossible, Serialize};

use super::{Column, List, Struct};

/// Why a value does not fit its column: a shape that differs from what serde wrote (a bug the
/// export names rather than hides).
#[derive(Debug)]
pub(crate) struct Misfit(pub String);

impl Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Misfit {}

impl ser::Error for Misfit {
    fn custom<T: Display>(msg: T) -> Self {
        Misfit(msg.to_string())
    }
}

/// The message type being read off a value: the variant names so far, dot-separated.
#[derive(Default)]
pub(crate) struct Trail {
    pub(crate) names: String,
    /// Names pushed so far (a struct's field took the chain when this grew).
    pushed: usize,
}

impl Trail {
    fn push(&mut self, name: &str) {
        if !self.names.is_empty() {
            self.names.push('.');
        }
        self.names.push_str(name);
        self.pushed += 1;
    }
}

/// Where a value stands on the way down to the message type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chain {
    /// The whole value: a variant starts the trail, a struct hands it to a field.
    Top,
    /// Directly in a variant on the trail: a unit variant or a name ends it.
    InVariant,
    /// A struct's field that may continue the trail (if no field before it did) with a variant
    /// with data.
    Field,
    Off,
}

/// Writes `value` into `column` as its next row, its message type into `trail`.
pub(crate) fn fill<T: Serialize + ?Sized>(
    value: &T,
    column: &mut Column,
    trail: &mut Trail,
) -> Result<(), String> {
    trail.names.clear();
    value
        .serialize(Filler {
            column,
            trail,
            chain: Chain::Top,
        })
        .map_err(|e| e.0)
}

struct Filler<'c> {
    column: &'c mut Column,
    trail: &'c mut Trail,
    chain: Chain,
}

impl Filler<'_> {
    fn misfit(&self, what: &str) -> Misfit {
        Misfit(format!(
            "a value serialized as {what} where the schema's shape has a {} column",
            self.column.data_type()
        ))
    }

    fn int(self, v: i128) -> Result<(), Misfit> {
        let too_wide = |ty: &str| Misfit(format!("{v} does not fit a {ty} column"));
        macro_rules! put {
            ($b:expr, $t:ty) => {{
                let n = <$t>::try_from(v).map_err(|_| too_wide(stringify!($t)))?;
                $b.append_value(n);
                Ok(())
            }};
        }
        match self.column {
            Column::I8(b) => put!(b, i8),
            Column::I16(b) => put!(b, i16),
            Column::I32(b) => put!(b, i32),
            Column::I64(b) => put!(b, i64),
            Column::U8(b) => put!(b, u8),
            Column::U16(b) => put!(b, u16),
            Column::U32(b) => put!(b, u32),
            Column::U64(b) => put!(b, u64),
            // An unnamed enumeration value or flag bits: the number as text.
            Column::Name(b) => {
                b.append_value(&v.to_string());
                Ok(())
            }
            _ => Err(self.misfit("an integer")),
        }
    }
}

/// The enum column's variant `index` (named `variant`), every other variant of the row null.
fn variant_column<'c>(
    column: &'c mut Column,
    index: u32,
    variant: &'static str,
) -> Result<&'c mut Column, Misfit> {
    let Column::Struct(s) = column else {
        return Err(Misfit(format!(
            "variant {variant} where the schema's shape has a {} column",
            column.data_type()
        )));
    };
    let i = index as usize;
    if !s.variants || !s.names.get(i).is_some_and(|n| same(n, variant)) {
        return Err(Misfit(format!(
            "variant {variant} (#{index}) is not the shape's variant #{index}"
        )));
    }
    s.catch_up();
    // The row's value is this variant's; the others stay behind (null).
    s.end_row();
    let row = s.valid.len() - 1;
    let field = &mut s.fields[i];
    field.pad_to(row);
    Ok(field)
}

/// Whether two names from derives are the same: often the same bytes in the binary (the
/// pointer compare), else compared.
fn same(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

/// Whether a variant name continues the trail (the JSON rule: variants are capitalised).
fn capitalised(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Writes a value's parts as serde hands them over; anything the shape does not expect is a
/// [`Misfit`] naming what came.
impl<'c> ser::Serializer for Filler<'c> {
    type Ok = ();
    type Error = Misfit;
    type SerializeSeq = Items<'c>;
    type SerializeTuple = Impossible<(), Misfit>;
    type SerializeTupleStruct = Impossible<(), Misfit>;
    type SerializeTupleVariant = Impossible<(), Misfit>;
    type SerializeMap = Impossible<(), Misfit>;
    type SerializeStruct = Fields<'c>;
    type SerializeStructVariant = Fields<'c>;

    /// Bytes come as bytes, not hex (the runtime's `hex` asks).
    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<(), Misfit> {
        match self.column {
            Column::Bool(b) => {
                b.append_value(v);
                Ok(())
            }
            _ => Err(self.misfit("a bool")),
        }
    }

    fn serialize_i8(self, v: i8) -> Result<(), Misfit> {
        self.int(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Misfit> {
        self.int(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Misfit> {
        self.int(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Misfit> {
        self.int(v.into())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Misfit> {
        self.int(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Misfit> {
        self.int(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Misfit> {
        self.int(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Misfit> {
        self.int(v.into())
    }

    fn serialize_f32(self, v: f32) -> Result<(), Misfit> {
        match self.column {
            Column::F32(b) => {
                b.append_value(v);
                Ok(())
            }
            Column::F64(b) => {
                b.append_value(v.into());
                Ok(())
            }
            _ => Err(self.misfit("an f32")),
        }
    }

    fn serialize_f64(self, v: f64) -> Result<(), Misfit> {
        match self.column {
            Column::F64(b) => {
                b.append_value(v);
                Ok(())
            }
            _ => Err(self.misfit("an f64")),
        }
    }

    fn serialize_char(self, _: char) -> Result<(), Misfit> {
        Err(self.misfit("a char"))
    }

    fn serialize_str(self, v: &str) -> Result<(), Misfit> {
        match self.column {
            Column::Text(b) => {
                b.append_value(v);
                Ok(())
            }
            Column::Name(b) => {
                if self.chain == Chain::InVariant {
                    self.trail.push(v);
                }
                b.append_value(v);
                Ok(())
            }
            _ => Err(self.misfit("text")),
        }
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Misfit> {
        match self.column {
            Column::Bytes(b) => {
                b.append_value(v);
                Ok(())
            }
            _ => Err(self.misfit("bytes")),
        }
    }

    fn serialize_none(self) -> Result<(), Misfit> {
        self.column.append_null();
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Misfit> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Misfit> {
        Err(self.misfit("()"))
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Misfit> {
        match self.column {
            Column::Present(b) => {
                b.append_value(true);
                Ok(())
            }
            _ => Err(self.misfit("a unit struct")),
        }
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<(), Misfit> {
        if self.chain == Chain::InVariant {
            self.trail.push(variant);
        }
        match variant_column(self.column, index, variant)? {
            Column::Present(b) => {
                b.append_value(true);
                Ok(())
            }
            other => Err(Misfit(format!(
                "unit variant {variant} where the schema's shape has a {} column",
                other.data_type()
            ))),
        }
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Misfit> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Misfit> {
        let chain = enter(self.chain, self.trail, variant);
        let column = variant_column(self.column, index, variant)?;
        value.serialize(Filler {
            column,
            trail: self.trail,
            chain,
        })
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'c>, Misfit> {
        match self.column {
            Column::List(list) => Ok(Items {
                list,
                trail: self.trail,
            }),
            _ => Err(self.misfit("a list")),
        }
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Misfit> {
        Err(self.misfit("a tuple"))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Misfit> {
        Err(self.misfit("a tuple struct"))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Misfit> {
        Err(Misfit(format!("tuple variant {variant}: no shape has one")))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Misfit> {
        Err(self.misfit("a map"))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'c>, Misfit> {
        let on_trail = matches!(self.chain, Chain::Top | Chain::InVariant);
        Fields::new(self.column, self.trail, on_trail)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Fields<'c>, Misfit> {
        let chain = enter(self.chain, self.trail, variant);
        let column = variant_column(self.column, index, variant)?;
        Fields::new(column, self.trail, chain == Chain::InVariant)
    }
}

/// Into a variant with data: on the trail (named) if the value there is, else off it.
fn enter(chain: Chain, trail: &mut Trail, variant: &'static str) -> Chain {
    if chain != Chain::Off && capitalised(variant) {
        trail.push(variant);
        Chain::InVariant
    } else {
        Chain::Off
    }
}

/// A list's items, then the end of its row.
pub(crate) struct Items<'c> {
    list: &'c mut List,
    trail: &'c mut Trail,
}

impl ser::SerializeSeq for Items<'_> {
    type Ok = ();
    type Error = Misfit;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Misfit> {
        value.serialize(Filler {
            column: &mut self.list.item,
            trail: self.trail,
            chain: Chain::Off,
        })
    }

    fn end(self) -> Result<(), Misfit> {
        if i32::try_from(self.list.item.len()).is_err() {
            return Err(Misfit(
                "more than 2^31 list items in one batch of rows".into(),
            ));
        }
        self.list.end_row();
        Ok(())
    }
}

/// A struct's fields by name (in the order serde writes them, which is the shape's), then the
/// end of its row; a struct with no field is `true`.
pub(crate) struct Fields<'c> {
    target: Target<'c>,
    trail: &'c mut Trail,
    /// Whether a field holding a variant with data continues the trail, and whether one did.
    on_trail: bool,
    taken: bool,
    next: usize,
}

enum Target<'c> {
    Struct(&'c mut Struct),
    Present(&'c mut arrow_array::builder::BooleanBuilder),
}

impl<'c> Fields<'c> {
    fn new(column: &'c mut Column, trail: &'c mut Trail, on_trail: bool) -> Result<Self, Misfit> {
        let fits = match &*column {
            Column::Struct(s) => !s.variants,
            Column::Present(_) => true,
            _ => false,
        };
        if !fits {
            return Err(Misfit(format!(
                "a struct where the schema's shape has a {} column",
                column.data_type()
            )));
        }
        let target = match column {
            Column::Present(b) => Target::Present(b),
            Column::Struct(s) => {
                s.catch_up();
                Target::Struct(s)
            }
            _ => return Err(Misfit("a struct where none fits".into())),
        };
        Ok(Fields {
            target,
            trail,
            on_trail,
            taken: false,
            next: 0,
        })
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Misfit> {
        let Target::Struct(s) = &mut self.target else {
            return Err(Misfit(format!(
                "field {key} of a struct whose shape has none"
            )));
        };
        let i = if s.names.get(self.next).is_some_and(|n| same(n, key)) {
            self.next
        } else {
            s.names
                .iter()
                .position(|n| *n == key)
                .ok_or_else(|| Misfit(format!("field {key} is not in the schema's shape")))?
        };
        let chain = if self.on_trail && !self.taken {
            Chain::Field
        } else {
            Chain::Off
        };
        let before = self.trail.pushed;
        value.serialize(Filler {
            column: s.field(i),
            trail: self.trail,
            chain,
        })?;
        self.taken |= self.trail.pushed > before;
        self.next = i + 1;
        Ok(())
    }

    fn finish(self) {
        match self.target {
            Target::Struct(s) => s.end_row(),
            Target::Present(b) => b.append_value(true),
        }
    }
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = Misfit;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Misfit> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Misfit> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeStructVariant for Fields<'_> {
    type Ok = ();
    type Error = Misfit;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Misfit> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Misfit> {
        self.finish();
        Ok(())
    }
}
