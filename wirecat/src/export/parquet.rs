//! The Parquet file `export` writes, encoded on two threads: row groups alternate between two
//! encoders (each with column writers of its own, so neither waits for the other and no work
//! is done twice) while the reading thread builds the next batch and appends the row groups
//! the encoders finish, in order, to the file.

use std::collections::BTreeMap;
use std::fs::File;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
};
use parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
use parquet::basic::{Compression, Type as PhysicalType};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;

/// Rows per Parquet row group: what an encoder holds in memory, and the unit the two share.
pub(super) const ROW_GROUP: usize = 65_536;

/// How the file is written: Snappy; dictionaries for text (names, addresses, message types
/// repeat) but not for numbers (a dictionary per number column costs more to build than it
/// saves); min/max statistics per column chunk (what engines prune row groups by), not per
/// page.
fn properties(schema: &Schema, batch: usize) -> Result<WriterProperties, String> {
    let parquet = ArrowSchemaConverter::new()
        .convert(schema)
        .map_err(|e| e.to_string())?;
    let mut builder = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_write_batch_size(batch)
        .set_max_row_group_size(ROW_GROUP);
    for leaf in parquet.columns() {
        if leaf.physical_type() == PhysicalType::BYTE_ARRAY {
            builder = builder.set_column_dictionary_enabled(leaf.path().clone(), true);
        }
    }
    Ok(builder.build())
}

/// What an encoder is given: a batch of a row group, or the end of one.
enum Job {
    Batch(usize, RecordBatch),
    End(usize),
}

/// A row group encoded (its column chunks in the schema's leaf order), or why not.
type Encoded = (usize, Result<Vec<ArrowColumnChunk>, String>);

struct Encoder {
    jobs: SyncSender<Job>,
    thread: JoinHandle<()>,
}

pub(super) struct ParquetOut {
    file: SerializedFileWriter<File>,
    encoders: Vec<Encoder>,
    encoded: Receiver<Encoded>,
    /// Row groups finished by an encoder ahead of one still being encoded.
    waiting: BTreeMap<usize, Vec<ArrowColumnChunk>>,
    /// Row groups handed out, and appended to the file; rows of the one being filled.
    started: usize,
    appended: usize,
    rows: usize,
}

impl ParquetOut {
    /// A file `file` of rows of `schema`, coming in batches of `batch` rows.
    pub(super) fn create(file: File, schema: &SchemaRef, batch: usize) -> Result<Self, String> {
        let writer =
            ArrowWriter::try_new(file, Arc::clone(schema), Some(properties(schema, batch)?))
                .map_err(|e| e.to_string())?;
        let (file, factory) = writer.into_serialized_writer().map_err(|e| e.to_string())?;
        let factory = Arc::new(factory);
        let (done, encoded) = channel();
        let encoders = (0..2)
            .map(|_| {
                Encoder::start(
                    Arc::clone(&factory),
                    Arc::clone(schema),
                    done.clone(),
                    batch,
                )
            })
            .collect();
        Ok(ParquetOut {
            file,
            encoders,
            encoded,
            waiting: BTreeMap::new(),
            started: 0,
            appended: 0,
            rows: 0,
        })
    }

    /// Hands `batch` to the encoder of its row group; appends what is encoded by now.
    pub(super) fn write(&mut self, batch: RecordBatch) -> Result<(), String> {
        let group = self.started;
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        self.send(group, Job::Batch(group, batch))?;
        self.rows += rows;
        if self.rows >= ROW_GROUP {
            self.end_group()?;
        }
        self.append(false)
    }

    /// Waits for every row group to be encoded and appended, then writes the file's footer.
    pub(super) fn finish(mut self) -> Result<(), String> {
        if self.rows > 0 {
            self.end_group()?;
        }
        self.append(true)?;
        for encoder in self.encoders.drain(..) {
            drop(encoder.jobs);
            encoder
                .thread
                .join()
                .map_err(|_| "a Parquet encoder panicked".to_string())?;
        }
        self.file.close().map(|_| ()).map_err(|e| e.to_string())
    }

    fn end_group(&mut self) -> Result<(), String> {
        self.send(self.started, Job::End(self.started))?;
        self.started += 1;
        self.rows = 0;
        Ok(())
    }

    fn send(&self, group: usize, job: Job) -> Result<(), String> {
        self.encoders[group % self.encoders.len()]
            .jobs
            .send(job)
            .map_err(|_| "a Parquet encoder stopped".to_string())
    }

    /// Appends the row groups encoded so far, in order (`wait`: all of them, waiting).
    fn append(&mut self, wait: bool) -> Result<(), String> {
        loop {
            while let Some(chunks) = self.waiting.remove(&self.appended) {
                let mut group = self.file.next_row_group().map_err(|e| e.to_string())?;
                for chunk in chunks {
                    chunk
                        .append_to_row_group(&mut group)
                        .map_err(|e| e.to_string())?;
                }
                group.close().map_err(|e| e.to_string())?;
                self.appended += 1;
            }
            if self.appended == self.started {
                return Ok(());
            }
            let next = if wait {
                self.encoded
                    .recv()
                    .map_err(|_| "a Parquet encoder stopped".to_string())?
            } else {
                match self.encoded.try_recv() {
                    Ok(next) => next,
                    Err(_) => return Ok(()),
                }
            };
            let (group, chunks) = next;
            self.waiting.insert(group, chunks?);
        }
    }
}

impl Encoder {
    fn start(
        factory: Arc<ArrowRowGroupWriterFactory>,
        schema: SchemaRef,
        done: Sender<Encoded>,
        batch: usize,
    ) -> Encoder {
        // A row group's batches may all wait while the other encoder works.
        let (jobs, received) = sync_channel::<Job>(ROW_GROUP / batch + 1);
        let thread = std::thread::spawn(move || {
            let mut writers: Option<Result<Vec<ArrowColumnWriter>, String>> = None;
            for job in received {
                match job {
                    Job::Batch(group, batch) => {
                        let w = writers.get_or_insert_with(|| {
                            factory
                                .create_column_writers(group)
                                .map_err(|e| e.to_string())
                        });
                        if let Ok(w) = w {
                            if let Err(e) = encode(&schema, &batch, w) {
                                writers = Some(Err(e));
                            }
                        }
                    }
                    Job::End(group) => {
                        let chunks = match writers.take() {
                            Some(Ok(w)) => close(w),
                            Some(Err(e)) => Err(e),
                            None => Ok(Vec::new()),
                        };
                        if done.send((group, chunks)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Encoder { jobs, thread }
    }
}

/// Encodes `batch` into a row group's column writers (one per leaf, in schema order).
fn encode(
    schema: &Schema,
    batch: &RecordBatch,
    writers: &mut [ArrowColumnWriter],
) -> Result<(), String> {
    let mut writers = writers.iter_mut();
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        for leaf in compute_leaves(field, column).map_err(|e| e.to_string())? {
            writers
                .next()
                .ok_or("more leaf columns than the schema has")?
                .write(&leaf)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn close(writers: Vec<ArrowColumnWriter>) -> Result<Vec<ArrowColumnChunk>, String> {
    writers
        .into_iter()
        .map(|w| w.close().map_err(|e| e.to_string()))
        .collect()
}
