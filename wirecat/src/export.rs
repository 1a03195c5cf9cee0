//! `export`: a capture's messages as a Parquet file, one row per message, for SQL engines
//! (DuckDB, Polars, Spark, Trino). Fixed columns say where each message was (frame, time,
//! endpoints, direction, transport, size, message type, the joined payload's type); `value` is
//! the decoded message and `joined` the payload it completed, as typed nested columns
//! (see the `shape` module). The capture is
//! read twice, streaming both times: once to learn the columns' types, once to write the rows
//! in batches, so memory stays that of one batch whatever the size of the capture.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use arrow_json::ReaderBuilder;
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::{json, Value};
use wiregen_runtime::SerdeProtocol;

use crate::capture::Packets;
use crate::message_type::message_type;
use crate::reading::{self, Tally};
use crate::session::{Conversations, Event, Ports};
use crate::shape::Shape;

/// Rows per Arrow record batch (and Parquet row group page).
const BATCH: usize = 2048;

/// One message as JSON (its fixed columns, `value`, `joined`, `error`), or `None` for a note.
fn row<P: SerdeProtocol>(
    conversations: &mut Conversations<P>,
    event: Event,
) -> Result<Option<Value>, String> {
    let Event::Message(m) = event else {
        return Ok(None);
    };
    let (src, dst) = m.key.endpoints(m.from_client);
    let mut row = json!({
        "frame": m.frame,
        "time": m.time.as_micros() as i64,
        "src": src.to_string(),
        "dst": dst.to_string(),
        "from": if m.from_client { "client" } else { "server" },
        "transport": if m.key.tcp { "tcp" } else { "udp" },
        "bytes": m.bytes.len(),
    });
    crate::json::decode_into(conversations, &m, &mut row)?;
    if !row["value"].is_null() {
        row["message"] = message_type(&row["value"]).into();
    }
    if !row["joined"].is_null() {
        row["joined_message"] = message_type(&row["joined"]).into();
    }
    Ok(Some(row))
}

/// The Arrow schema of the rows: the fixed columns, then `value` and `joined` as learnt.
fn schema(value: &Shape, joined: &Shape) -> Schema {
    Schema::new(vec![
        Field::new("frame", DataType::UInt64, false),
        Field::new(
            "time",
            DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
            false,
        ),
        Field::new("src", DataType::Utf8, false),
        Field::new("dst", DataType::Utf8, false),
        Field::new("from", DataType::Utf8, false),
        Field::new("transport", DataType::Utf8, false),
        Field::new("bytes", DataType::UInt32, false),
        Field::new("message", DataType::Utf8, true),
        Field::new("joined_message", DataType::Utf8, true),
        Field::new(
            "joined_from",
            DataType::List(Arc::new(Field::new("item", DataType::UInt64, true))),
            true,
        ),
        Field::new("value", value.data_type(), true),
        Field::new("joined", joined.data_type(), true),
        Field::new("error", DataType::Utf8, true),
    ])
}

/// Exports the messages of protocol `P` in the capture `open()` reads (opened once per pass)
/// to the Parquet file `out`; returns the tally of the writing pass and the rows written.
pub fn export<P: SerdeProtocol, R: Read>(
    open: impl Fn() -> Result<Packets<R>, String>,
    ports: &Ports,
    out: &Path,
    mut tick: impl FnMut(),
) -> Result<(Tally, u64), String> {
    // Pass 1: the columns' types.
    let (mut value, mut joined) = (Shape::Null, Shape::Null);
    reading::each_event::<P, R>(open()?, ports, &mut tick, |c, event| {
        if let Some(row) = row::<P>(c, event)? {
            value.learn(&row["value"]);
            joined.learn(&row["joined"]);
        }
        Ok(())
    })?;
    let schema = Arc::new(schema(&value, &joined));
    // Pass 2: the rows, a batch at a time.
    let file = File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    // Row groups of a few batches: the writer holds one in memory.
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_size(32 * BATCH)
        .build();
    let mut writer = ArrowWriter::try_new(file, Arc::clone(&schema), Some(properties))
        .map_err(|e| e.to_string())?;
    let mut decoder = ReaderBuilder::new(Arc::clone(&schema))
        .with_batch_size(BATCH)
        .build_decoder()
        .map_err(|e| e.to_string())?;
    let mut rows = Vec::with_capacity(BATCH);
    let mut written = 0u64;
    let mut flush = |rows: &mut Vec<Value>| -> Result<(), String> {
        decoder.serialize(rows).map_err(|e| e.to_string())?;
        if let Some(batch) = decoder.flush().map_err(|e| e.to_string())? {
            writer.write(&batch).map_err(|e| e.to_string())?;
        }
        written += rows.len() as u64;
        rows.clear();
        Ok(())
    };
    let tally = reading::each_event::<P, R>(open()?, ports, &mut tick, |c, event| {
        if let Some(mut row) = row::<P>(c, event)? {
            row["value"] = value.fit(row["value"].take());
            row["joined"] = joined.fit(row["joined"].take());
            rows.push(row);
            if rows.len() == BATCH {
                flush(&mut rows)?;
            }
        }
        Ok(())
    })?;
    flush(&mut rows)?;
    writer.close().map_err(|e| e.to_string())?;
    Ok((tally, written))
}
