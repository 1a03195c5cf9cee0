//! Arrow columns laid out from a protocol's [`Shape`] (the schema's types, known before any
//! message is read) and filled straight from a decoded value through serde (the
//! `serializer` module): no JSON between the message and its column, one pass over a capture.
//!
//! How serde's data model becomes columns: structs are structs; lists are lists; integers and
//! floats keep their width; text is UTF-8; bytes are binary; an enumeration's value is a
//! dictionary string (its schema name, or its number when it has none); a flag set is a list
//! of those. An externally tagged enum is a struct with one nullable field per variant (Parquet
//! has no union type; DuckDB, Spark and Polars read this as it is): a variant with data holds
//! it, a unit variant (and a struct with no field, which Parquet cannot hold) is `true`.

mod names;
mod serializer;

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBufferBuilder, BooleanBuilder, Float32Builder, Float64Builder,
    Int16Builder, Int32Builder, Int64Builder, Int8Builder, StringBuilder, UInt16Builder,
    UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, ListArray, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields};
use wiregen_runtime::Shape;

pub(crate) use names::Names;
pub(crate) use serializer::{fill, Trail};

/// The data type of a dictionary string column.
pub(crate) fn names_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

/// A column being filled, shaped as its values' [`Shape`].
pub(crate) enum Column {
    /// A struct with no field, a unit variant: `true` where present.
    Present(BooleanBuilder),
    /// A type with no value: a text column of nulls.
    Never(StringBuilder),
    Bool(BooleanBuilder),
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    U8(UInt8Builder),
    U16(UInt16Builder),
    U32(UInt32Builder),
    U64(UInt64Builder),
    F32(Float32Builder),
    F64(Float64Builder),
    Text(StringBuilder),
    Bytes(BinaryBuilder),
    Name(Names),
    List(Box<List>),
    Struct(Box<Struct>),
}

/// A list column: its items and where each row's end.
pub(crate) struct List {
    offsets: Vec<i32>,
    valid: BooleanBufferBuilder,
    item: Column,
}

/// A struct column; an enum's when `variants` (its fields are the variants, in serde's order).
///
/// Its fields lag behind it: a field's rows are null until it is given a value, and the nulls
/// are added in one step when it is (or the batch ends). A message type's columns are null in
/// every row of another type; this way a row costs the fields it has, not every field of every
/// variant of the schema.
pub(crate) struct Struct {
    names: Vec<&'static str>,
    fields: Vec<Column>,
    valid: BooleanBufferBuilder,
    variants: bool,
    /// Null rows of the struct itself not yet in `valid` (they come in runs).
    pending_nulls: usize,
}

impl Column {
    /// An empty column for values of `shape`.
    pub(crate) fn new(shape: &Shape) -> Column {
        match shape {
            Shape::Never => Column::Never(StringBuilder::new()),
            Shape::Bool => Column::Bool(BooleanBuilder::new()),
            Shape::Int { bits, signed } => int_column(*bits, *signed),
            Shape::Float { bits: 32 } => Column::F32(Float32Builder::new()),
            Shape::Float { .. } => Column::F64(Float64Builder::new()),
            Shape::Text => Column::Text(StringBuilder::new()),
            Shape::Bytes => Column::Bytes(BinaryBuilder::new()),
            Shape::Name => Column::Name(Names::new()),
            Shape::Names => Column::list(Column::Name(Names::new())),
            Shape::List(item) => Column::list(Column::new(item)),
            Shape::Struct(fields) if fields.is_empty() => Column::Present(BooleanBuilder::new()),
            Shape::Struct(fields) => Column::structure(
                fields.iter().map(|(n, s)| (*n, Column::new(s))).collect(),
                false,
            ),
            Shape::Variants(variants) => Column::structure(
                variants
                    .iter()
                    .map(|(n, data)| match data {
                        Some(s) => (*n, Column::new(s)),
                        None => (*n, Column::Present(BooleanBuilder::new())),
                    })
                    .collect(),
                true,
            ),
        }
    }

    fn list(item: Column) -> Column {
        Column::List(Box::new(List {
            offsets: vec![0],
            valid: BooleanBufferBuilder::new(0),
            item,
        }))
    }

    fn structure(fields: Vec<(&'static str, Column)>, variants: bool) -> Column {
        let (names, fields) = fields.into_iter().unzip();
        Column::Struct(Box::new(Struct {
            names,
            fields,
            valid: BooleanBufferBuilder::new(0),
            variants,
            pending_nulls: 0,
        }))
    }

    /// The Arrow type of the column (every field nullable).
    pub(crate) fn data_type(&self) -> DataType {
        match self {
            Column::Present(_) | Column::Bool(_) => DataType::Boolean,
            Column::Never(_) | Column::Text(_) => DataType::Utf8,
            Column::I8(_) => DataType::Int8,
            Column::I16(_) => DataType::Int16,
            Column::I32(_) => DataType::Int32,
            Column::I64(_) => DataType::Int64,
            Column::U8(_) => DataType::UInt8,
            Column::U16(_) => DataType::UInt16,
            Column::U32(_) => DataType::UInt32,
            Column::U64(_) => DataType::UInt64,
            Column::F32(_) => DataType::Float32,
            Column::F64(_) => DataType::Float64,
            Column::Bytes(_) => DataType::Binary,
            Column::Name(_) => names_type(),
            Column::List(l) => {
                DataType::List(Arc::new(Field::new("item", l.item.data_type(), true)))
            }
            Column::Struct(s) => DataType::Struct(s.fields()),
        }
    }

    /// Rows so far.
    pub(crate) fn len(&self) -> usize {
        use arrow_array::builder::ArrayBuilder;
        match self {
            Column::Present(b) | Column::Bool(b) => b.len(),
            Column::Never(b) | Column::Text(b) => b.len(),
            Column::I8(b) => b.len(),
            Column::I16(b) => b.len(),
            Column::I32(b) => b.len(),
            Column::I64(b) => b.len(),
            Column::U8(b) => b.len(),
            Column::U16(b) => b.len(),
            Column::U32(b) => b.len(),
            Column::U64(b) => b.len(),
            Column::F32(b) => b.len(),
            Column::F64(b) => b.len(),
            Column::Bytes(b) => b.len(),
            Column::Name(b) => b.len(),
            Column::List(l) => l.valid.len(),
            Column::Struct(s) => s.valid.len() + s.pending_nulls,
        }
    }

    /// A null row.
    pub(crate) fn append_null(&mut self) {
        self.append_nulls(1);
    }

    /// `n` null rows (a list's add no item; a struct's reach its fields when a value comes).
    pub(crate) fn append_nulls(&mut self, n: usize) {
        match self {
            Column::Present(b) | Column::Bool(b) => b.append_nulls(n),
            Column::Never(b) | Column::Text(b) => b.append_nulls(n),
            Column::I8(b) => b.append_nulls(n),
            Column::I16(b) => b.append_nulls(n),
            Column::I32(b) => b.append_nulls(n),
            Column::I64(b) => b.append_nulls(n),
            Column::U8(b) => b.append_nulls(n),
            Column::U16(b) => b.append_nulls(n),
            Column::U32(b) => b.append_nulls(n),
            Column::U64(b) => b.append_nulls(n),
            Column::F32(b) => b.append_nulls(n),
            Column::F64(b) => b.append_nulls(n),
            Column::Bytes(b) => b.append_nulls(n),
            Column::Name(b) => b.append_nulls(n),
            Column::List(l) => {
                let end = *l.offsets.last().unwrap_or(&0);
                l.offsets.resize(l.offsets.len() + n, end);
                l.valid.append_n(n, false);
            }
            Column::Struct(s) => s.pending_nulls += n,
        }
    }

    /// Null rows until it has `rows`.
    fn pad_to(&mut self, rows: usize) {
        let len = self.len();
        if len < rows {
            self.append_nulls(rows - len);
        }
    }

    /// The rows so far as an Arrow array; the column starts empty again.
    pub(crate) fn finish(&mut self) -> Result<ArrayRef, String> {
        Ok(match self {
            Column::Present(b) | Column::Bool(b) => Arc::new(b.finish()),
            Column::Never(b) | Column::Text(b) => Arc::new(b.finish()),
            Column::I8(b) => Arc::new(b.finish()),
            Column::I16(b) => Arc::new(b.finish()),
            Column::I32(b) => Arc::new(b.finish()),
            Column::I64(b) => Arc::new(b.finish()),
            Column::U8(b) => Arc::new(b.finish()),
            Column::U16(b) => Arc::new(b.finish()),
            Column::U32(b) => Arc::new(b.finish()),
            Column::U64(b) => Arc::new(b.finish()),
            Column::F32(b) => Arc::new(b.finish()),
            Column::F64(b) => Arc::new(b.finish()),
            Column::Bytes(b) => Arc::new(b.finish()),
            Column::Name(b) => b.finish()?,
            Column::List(l) => {
                let field = Arc::new(Field::new("item", l.item.data_type(), true));
                let items = l.item.finish()?;
                let offsets = OffsetBuffer::new(std::mem::replace(&mut l.offsets, vec![0]).into());
                let valid = NullBuffer::new(l.valid.finish());
                Arc::new(
                    ListArray::try_new(field, offsets, items, Some(valid))
                        .map_err(|e| e.to_string())?,
                )
            }
            Column::Struct(s) => {
                s.catch_up();
                let rows = s.valid.len();
                for f in &mut s.fields {
                    f.pad_to(rows);
                }
                let fields = s.fields();
                let arrays = s
                    .fields
                    .iter_mut()
                    .map(Column::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                let valid = NullBuffer::new(s.valid.finish());
                Arc::new(
                    StructArray::try_new(fields, arrays, Some(valid)).map_err(|e| e.to_string())?,
                )
            }
        })
    }
}

impl List {
    /// Ends a row with a value: its items are those added since the last (fewer than 2^31 in
    /// a batch: the caller checked).
    fn end_row(&mut self) {
        self.offsets.push(self.item.len() as i32);
        self.valid.append(true);
    }
}

impl Struct {
    fn fields(&self) -> Fields {
        Fields::from(
            self.names
                .iter()
                .zip(&self.fields)
                .map(|(n, c)| Field::new(*n, c.data_type(), true))
                .collect::<Vec<_>>(),
        )
    }

    /// Puts the struct's null rows waiting in `valid`: before a row with a value, and at the
    /// end of a batch.
    pub(crate) fn catch_up(&mut self) {
        if self.pending_nulls > 0 {
            self.valid.append_n(self.pending_nulls, false);
            self.pending_nulls = 0;
        }
    }

    /// Field `i`, given the null rows it lags by, ready for the value of the struct's next row
    /// (the struct caught up).
    pub(crate) fn field(&mut self, i: usize) -> &mut Column {
        let row = self.valid.len();
        let field = &mut self.fields[i];
        field.pad_to(row);
        field
    }

    /// Ends a row with a value (fields not given one stay behind: null).
    fn end_row(&mut self) {
        self.valid.append(true);
    }
}

fn int_column(bits: u8, signed: bool) -> Column {
    match (bits, signed) {
        (8, true) => Column::I8(Int8Builder::new()),
        (16, true) => Column::I16(Int16Builder::new()),
        (32, true) => Column::I32(Int32Builder::new()),
        (_, true) => Column::I64(Int64Builder::new()),
        (8, false) => Column::U8(UInt8Builder::new()),
        (16, false) => Column::U16(UInt16Builder::new()),
        (32, false) => Column::U32(UInt32Builder::new()),
        (_, false) => Column::U64(UInt64Builder::new()),
    }
}
