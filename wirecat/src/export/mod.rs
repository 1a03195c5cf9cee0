//! `export`: a capture's messages as a Parquet file, one row per message, for SQL engines
//! (DuckDB, Polars, Spark, Trino). Fixed columns say where each message was (frame, time,
//! endpoints, direction, transport, size, message type, the joined payload's type); `value` is
//! the decoded message and `joined` the payload it completed, as typed
//! nested columns laid out from the schema's types before the first message (the `columns`
//! module). One pass, a batch of rows at a time: memory is that of a batch and a row group
//! whatever the size of the capture, and the capture may come on standard input.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    ListBuilder, StringBuilder, TimestampMicrosecondBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use wiregen_runtime::{SerdeProtocol, Shape};

mod parquet;

use self::parquet::ParquetOut;
use crate::capture::Packets;
use crate::columns::{self, names_type, Column, Names, Trail};
use crate::json::{read_message, AsJson, Joined, Read as Reading};
use crate::reading::{self, Tally};
use crate::session::{Conversations, Event, Message, Ports};

/// Rows per Arrow record batch.
const BATCH: usize = 8192;

/// A payload completed after the first one of the same datagram (ENet's commands: several
/// fragments of several payloads in one datagram): rare, so kept as JSON text in one column
/// rather than as a second copy of every typed column of `joined`.
#[derive(serde::Serialize)]
#[serde(bound = "")]
struct AlsoJoined<'v, P: SerdeProtocol> {
    joined: Joined<'v, P>,
    joined_from: &'v [u64],
}

/// A column of a protocol's values (its datagrams, or the payloads it joins) typed from its
/// schema before any value is seen: what `export` writes as `value` and `joined`.
pub struct ValueColumn {
    column: Column,
    /// The message type read off the last value.
    trail: Trail,
}

impl ValueColumn {
    /// A column of values of `shape` (a protocol's [`SerdeProtocol::datagram_shape`] or
    /// [`SerdeProtocol::joined_shape`]).
    pub fn new(shape: &Shape) -> ValueColumn {
        ValueColumn {
            column: Column::new(shape),
            trail: Trail::default(),
        }
    }

    /// The Arrow type of the column.
    pub fn data_type(&self) -> DataType {
        self.column.data_type()
    }

    /// Adds `value` as the next row; returns its message type (the variant names down the
    /// value, as `stats` names it). An error says what serde wrote that the shape did not
    /// expect (a shape that differs from the type: a bug), and leaves the column unusable.
    pub fn push<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<&str, String> {
        columns::fill(value, &mut self.column, &mut self.trail)?;
        Ok(&self.trail.names)
    }

    /// Adds a null row.
    pub fn push_null(&mut self) {
        self.column.append_null();
    }

    /// Rows so far.
    pub fn len(&self) -> usize {
        self.column.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows so far as an Arrow array; the column starts empty again.
    pub fn finish(&mut self) -> Result<ArrayRef, String> {
        self.column.finish()
    }
}

/// The rows of a batch being filled, column by column.
struct Rows {
    frame: UInt64Builder,
    time: TimestampMicrosecondBuilder,
    src: Addresses,
    dst: Addresses,
    from: Names,
    transport: Names,
    bytes: UInt32Builder,
    message: Names,
    joined_message: Names,
    joined_from: ListBuilder<UInt64Builder>,
    value: ValueColumn,
    joined: ValueColumn,
    also_joined: StringBuilder,
    error: StringBuilder,
    len: usize,
}

/// An address column: each address written as text once per batch.
#[derive(Default)]
struct Addresses {
    names: Names,
    /// The key of each address in `names` this batch.
    keys: HashMap<SocketAddr, i32>,
}

impl Addresses {
    fn append(&mut self, address: SocketAddr) {
        let known = self.keys.get(&address).copied();
        let key = self.names.append_keyed(known, || address.to_string());
        self.keys.insert(address, key);
    }

    fn finish(&mut self) -> Result<ArrayRef, String> {
        self.keys.clear();
        self.names.finish()
    }
}

impl Rows {
    fn new<P: SerdeProtocol>() -> Rows {
        Rows {
            frame: UInt64Builder::new(),
            time: TimestampMicrosecondBuilder::new().with_timezone("+00:00"),
            src: Addresses::default(),
            dst: Addresses::default(),
            from: Names::new(),
            transport: Names::new(),
            bytes: UInt32Builder::new(),
            message: Names::new(),
            joined_message: Names::new(),
            joined_from: ListBuilder::new(UInt64Builder::new()),
            value: ValueColumn::new(&P::datagram_shape()),
            joined: ValueColumn::new(&P::joined_shape()),
            also_joined: StringBuilder::new(),
            error: StringBuilder::new(),
            len: 0,
        }
    }

    /// The Arrow schema of the rows.
    fn schema(&self) -> Schema {
        let frames = DataType::List(Arc::new(Field::new("item", DataType::UInt64, true)));
        Schema::new(vec![
            Field::new("frame", DataType::UInt64, false),
            Field::new(
                "time",
                DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
                false,
            ),
            Field::new("src", names_type(), false),
            Field::new("dst", names_type(), false),
            Field::new("from", names_type(), false),
            Field::new("transport", names_type(), false),
            Field::new("bytes", DataType::UInt32, false),
            Field::new("message", names_type(), true),
            Field::new("joined_message", names_type(), true),
            Field::new("joined_from", frames, true),
            Field::new("value", self.value.data_type(), true),
            Field::new("joined", self.joined.data_type(), true),
            Field::new("also_joined", DataType::Utf8, true),
            Field::new("error", DataType::Utf8, true),
        ])
    }

    /// Adds the row of message `m`, read in its conversation.
    fn add<P: SerdeProtocol>(
        &mut self,
        conversations: &mut Conversations<P>,
        m: &Message,
    ) -> Result<(), String> {
        let (src, dst) = m.key.endpoints(m.from_client);
        self.frame.append_value(m.frame);
        self.time.append_value(m.time.as_micros() as i64);
        self.src.append(src);
        self.dst.append(dst);
        self.from
            .append_value(if m.from_client { "client" } else { "server" });
        self.transport
            .append_value(if m.key.tcp { "tcp" } else { "udp" });
        self.bytes.append_value(m.bytes.len() as u32);
        let misfit = |e: String| format!("frame {}: {e}", m.frame);
        let (joined, error) = match read_message(conversations, m) {
            Reading::NotDecoded(e) => {
                self.value.push_null();
                self.message.append_null();
                (None, Some(e))
            }
            Reading::Decoded { value, joined } => {
                let message = self.value.push(&AsJson::<P>(&value)).map_err(misfit)?;
                self.message.append_value(message);
                match joined {
                    Ok(completed) => (Some(completed), None),
                    Err(e) => (None, Some(e)),
                }
            }
        };
        self.add_joined::<P>(joined.as_deref().unwrap_or_default())
            .map_err(misfit)?;
        match error {
            Some(e) => self.error.append_value(e),
            None => self.error.append_null(),
        }
        self.len += 1;
        Ok(())
    }

    /// The payloads a message completed: the first in `joined`, any more in `also_joined`.
    fn add_joined<P: SerdeProtocol>(
        &mut self,
        completed: &[wiregen_runtime::Tagged<P::Joined>],
    ) -> Result<(), String> {
        let Some(((first, frames), more)) = completed.split_first() else {
            self.joined.push_null();
            self.joined_message.append_null();
            self.joined_from.append_null();
            self.also_joined.append_null();
            return Ok(());
        };
        let message = self.joined.push(&Joined::<P>(first))?;
        self.joined_message.append_value(message);
        self.joined_from.values().append_slice(frames);
        self.joined_from.append(true);
        if more.is_empty() {
            self.also_joined.append_null();
            return Ok(());
        }
        let more: Vec<AlsoJoined<P>> = more
            .iter()
            .map(|(joined, frames)| AlsoJoined {
                joined: Joined(joined),
                joined_from: frames,
            })
            .collect();
        let text = serde_json::to_string(&more).map_err(|e| e.to_string())?;
        self.also_joined.append_value(text);
        Ok(())
    }

    /// The rows so far as a record batch; the builders start empty again.
    fn finish(&mut self, schema: &SchemaRef) -> Result<RecordBatch, String> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.frame.finish()),
            Arc::new(self.time.finish()),
            self.src.finish()?,
            self.dst.finish()?,
            self.from.finish()?,
            self.transport.finish()?,
            Arc::new(self.bytes.finish()),
            self.message.finish()?,
            self.joined_message.finish()?,
            Arc::new(self.joined_from.finish()),
            self.value.finish()?,
            self.joined.finish()?,
            Arc::new(self.also_joined.finish()),
            Arc::new(self.error.finish()),
        ];
        self.len = 0;
        RecordBatch::try_new(Arc::clone(schema), columns).map_err(|e| e.to_string())
    }
}

/// Exports the messages of protocol `P` in `packets` to the Parquet file `out`; returns the
/// tally of the run and the rows written.
pub fn export<P: SerdeProtocol, R: Read>(
    packets: Packets<R>,
    ports: &Ports,
    out: &Path,
    tick: impl FnMut(),
) -> Result<(Tally, u64), String> {
    let mut rows = Rows::new::<P>();
    let schema = Arc::new(rows.schema());
    let file = File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut parquet = ParquetOut::create(file, &schema, BATCH)?;
    let mut written = 0u64;
    let read = reading::each_event::<P, R>(packets, ports, tick, |c, event| {
        if let Event::Message(m) = event {
            rows.add(c, &m)?;
            if rows.len == BATCH {
                written += BATCH as u64;
                parquet.write(rows.finish(&schema)?)?;
            }
        }
        Ok(())
    });
    // A reading error says more than the writer's: the file is left unfinished.
    let tally = read?;
    written += rows.len as u64;
    parquet.write(rows.finish(&schema)?)?;
    parquet.finish()?;
    Ok((tally, written))
}
