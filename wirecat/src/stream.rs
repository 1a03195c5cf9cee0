//! One direction of a TCP connection, put back in order and cut into the protocol's framed
//! messages. Retransmitted bytes are skipped, segments that come early wait (within a limit)
//! for the bytes before them, and what cannot be read (a gap, a length prefix out of step, a
//! stream that ends mid-message) is said, never hidden. Wireshark reads a stream the same way
//! with `tcp.reassemble_out_of_order` on; after a gap or a lost framing both resume at the next
//! segment's first byte.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use wiregen_runtime::tcp::Framing;

use crate::capture::Tcp;

/// The most bytes of early segments one direction keeps while it waits for the bytes before
/// them; past it (or past [`WAITING_SEGMENTS`]) the missing bytes are given up as lost.
pub const WAITING_BYTES: usize = 1 << 20;
/// The most early segments one direction keeps (see [`WAITING_BYTES`]).
pub const WAITING_SEGMENTS: usize = 256;

/// What a direction's reading found besides messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A segment whose bytes (all, or its first part) had arrived already: skipped.
    Retransmission,
    /// A segment that came after later bytes of the stream (put back in order).
    OutOfOrder,
    /// `missing` bytes of the stream never came before this frame's: the message they were
    /// part of is lost (`dropped` bytes of it were kept until then); reading resumes here.
    Gap { missing: u64, dropped: usize },
    /// A length prefix that cannot be right: the `dropped` bytes read since the last whole
    /// message are dropped; reading resumes at the next segment.
    FramingLost { error: String, dropped: usize },
    /// The stream ended (FIN, RST, a new connection, the end of the capture) with `bytes` of a
    /// message that never came whole.
    Unfinished { bytes: usize },
}

impl Note {
    /// Whether bytes of the stream went unread: a failure for `check`, unlike a retransmission
    /// or a reordering, which lose nothing.
    pub fn loses_bytes(&self) -> bool {
        !matches!(self, Note::Retransmission | Note::OutOfOrder)
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Retransmission => f.write_str("TCP retransmission: bytes already read, skipped"),
            Note::OutOfOrder => f.write_str("TCP segment out of order: put back in order"),
            Note::Gap { missing, dropped } => write!(
                f,
                "TCP data missing: {missing} bytes never came before this segment ({dropped} bytes of an unfinished message dropped); reading resumes here"
            ),
            Note::FramingLost { error, dropped } => write!(
                f,
                "TCP framing lost: {error}; {dropped} bytes dropped, reading resumes at the next segment"
            ),
            Note::Unfinished { bytes } => write!(
                f,
                "TCP stream ended in the middle of a message: {bytes} bytes of it never came whole"
            ),
        }
    }
}

/// What one segment gave: whole messages and notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Message {
        /// The frame its first byte came in.
        first_frame: u64,
        /// The frame that completed it.
        frame: u64,
        bytes: Vec<u8>,
    },
    Note {
        frame: u64,
        note: Note,
    },
}

/// One direction of a connection.
#[derive(Debug, Default)]
pub struct Stream {
    /// The sequence number of byte 0 (after the SYN's, or the first segment seen's).
    base: Option<u32>,
    /// The position (from byte 0) of the next byte expected: 64 bits, so it never wraps.
    next: u64,
    /// Bytes read in order and not yet part of a whole message (they end at `next`).
    pending: Vec<u8>,
    /// The frames `pending`'s bytes came from: (the position just past its bytes, frame).
    sources: VecDeque<(u64, u64)>,
    /// Segments that came early, by position: (frame, bytes).
    early: BTreeMap<u64, (u64, Vec<u8>)>,
    early_bytes: usize,
    /// The last frame of this direction.
    last_frame: u64,
}

impl Stream {
    /// Reads one segment of this direction (frame `frame`), appending what it gave to `out`.
    pub fn push(
        &mut self,
        framing: &Framing,
        frame: u64,
        tcp: Tcp,
        payload: &[u8],
        out: &mut Vec<Piece>,
    ) {
        if tcp.syn {
            let first = tcp.seq.wrapping_add(1);
            if self.base.is_some_and(|b| b != first) {
                // A new connection on the same ports: the old one ends here.
                self.end(framing, out);
                *self = Stream::default();
            }
            self.base = Some(first);
        }
        self.last_frame = frame;
        if !payload.is_empty() {
            self.segment(
                framing,
                frame,
                tcp.seq.wrapping_add(u32::from(tcp.syn)),
                payload,
                out,
            );
        }
        if tcp.fin || tcp.rst {
            self.end(framing, out);
        }
    }

    /// Bytes it holds: read and not yet a whole message, or waiting for the bytes before them.
    pub fn buffered(&self) -> usize {
        self.pending.len() + self.early_bytes
    }

    /// The end of the stream: the messages after any gap are read, and what is left unread is
    /// said.
    pub fn end(&mut self, framing: &Framing, out: &mut Vec<Piece>) {
        while !self.early.is_empty() {
            self.give_up_waiting(framing, None, out);
        }
        if !self.pending.is_empty() {
            out.push(Piece::Note {
                frame: self.last_frame,
                note: Note::Unfinished {
                    bytes: self.pending.len(),
                },
            });
            self.pending.clear();
            self.sources.clear();
        }
    }

    fn segment(
        &mut self,
        framing: &Framing,
        frame: u64,
        seq: u32,
        payload: &[u8],
        out: &mut Vec<Piece>,
    ) {
        let base = *self.base.get_or_insert(seq);
        let expected = base.wrapping_add(self.next as u32);
        let delta = i64::from(seq.wrapping_sub(expected) as i32);
        let at = (self.next as i64 + delta).max(0) as u64;
        let end = at + payload.len() as u64;
        if end <= self.next {
            out.push(Piece::Note {
                frame,
                note: Note::Retransmission,
            });
            return;
        }
        if at > self.next {
            self.wait(frame, at, payload, out);
            if self.early.len() > WAITING_SEGMENTS || self.early_bytes > WAITING_BYTES {
                self.give_up_waiting(framing, Some(frame), out);
            }
            return;
        }
        if at < self.next {
            out.push(Piece::Note {
                frame,
                note: Note::Retransmission,
            });
        } else if !self.early.is_empty() {
            out.push(Piece::Note {
                frame,
                note: Note::OutOfOrder,
            });
        }
        self.append(frame, &payload[(self.next - at) as usize..]);
        self.take_early();
        self.cut(framing, Some(frame), out);
    }

    /// Keeps a segment that came before the bytes preceding it.
    fn wait(&mut self, frame: u64, at: u64, payload: &[u8], out: &mut Vec<Piece>) {
        if self.early.contains_key(&at) {
            out.push(Piece::Note {
                frame,
                note: Note::Retransmission,
            });
            return;
        }
        self.early_bytes += payload.len();
        self.early.insert(at, (frame, payload.to_vec()));
    }

    /// Too much waits (or the stream ended): the bytes before the first early segment are
    /// lost; the messages after them are completed by frame `completed` (see [`Stream::cut`]).
    fn give_up_waiting(&mut self, framing: &Framing, completed: Option<u64>, out: &mut Vec<Piece>) {
        let Some((&at, &(frame, _))) = self.early.first_key_value() else {
            return;
        };
        out.push(Piece::Note {
            frame,
            note: Note::Gap {
                missing: at - self.next,
                dropped: self.pending.len(),
            },
        });
        self.pending.clear();
        self.sources.clear();
        self.next = at;
        self.take_early();
        self.cut(framing, completed, out);
    }

    /// Appends the early segments that now follow on.
    fn take_early(&mut self) {
        while let Some(entry) = self.early.first_entry() {
            let at = *entry.key();
            if at > self.next {
                break;
            }
            let (frame, bytes) = entry.remove();
            self.early_bytes -= bytes.len();
            let end = at + bytes.len() as u64;
            if end > self.next {
                let skip = (self.next - at) as usize;
                self.append(frame, &bytes[skip..]);
            }
        }
    }

    fn append(&mut self, frame: u64, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        self.next += bytes.len() as u64;
        self.sources.push_back((self.next, frame));
    }

    /// Cuts the whole messages off the front of `pending`: completed by frame `completed` (as
    /// Wireshark shows a reassembled message in the frame that completed it), or when that is
    /// none (after giving up on a gap), by the frame of their last byte.
    fn cut(&mut self, framing: &Framing, completed: Option<u64>, out: &mut Vec<Piece>) {
        let start = self.next - self.pending.len() as u64;
        let mut used = 0;
        loop {
            match framing.next_frame(&self.pending[used..]) {
                Ok(Some((message, n))) => {
                    let first_frame = self.frame_at(start + used as u64);
                    let frame =
                        completed.unwrap_or_else(|| self.frame_at(start + (used + n) as u64 - 1));
                    out.push(Piece::Message {
                        first_frame,
                        frame,
                        bytes: message.to_vec(),
                    });
                    used += n;
                }
                Ok(None) => break,
                Err(e) => {
                    out.push(Piece::Note {
                        frame: self.frame_at(start + used as u64),
                        note: Note::FramingLost {
                            error: e.to_string(),
                            dropped: self.pending.len() - used,
                        },
                    });
                    used = self.pending.len();
                    break;
                }
            }
        }
        self.pending.drain(..used);
        let start = self.next - self.pending.len() as u64;
        while self.sources.front().is_some_and(|&(end, _)| end <= start) {
            self.sources.pop_front();
        }
    }

    /// The frame the byte at `position` came from.
    fn frame_at(&self, position: u64) -> u64 {
        self.sources
            .iter()
            .find(|&&(end, _)| end > position)
            .map_or(self.last_frame, |&(_, frame)| frame)
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
