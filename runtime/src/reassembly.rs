//! Joining payloads cut into pieces (fragments, chunks): one engine for every protocol whose
//! schema declares `reassembly`. The generated crate says where a packet's piece is
//! ([`Fragmented`]); [`Reassembler`] keeps the pieces, within limits.

use crate::joined_parts::{digest, JoinedParts};
use crate::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::Hash;

/// A payload joined from pieces, with the tags of the packets they came in (in the payload's
/// order): what [`Reassembler::push_tagged`] and a protocol's `join` give.
pub type Tagged<T> = (T, Vec<u64>);

/// How a piece says where its payload ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceEnd {
    /// The packet says whether it carries the last piece.
    Last(bool),
    /// The packet gives the number of pieces of its payload.
    Count(usize),
}

/// One piece of a payload, as a packet carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece<'p, K> {
    /// Which payload it belongs to (with the direction it was sent in).
    pub key: K,
    /// Its place in the payload, from 0.
    pub index: usize,
    /// Its bytes.
    pub data: &'p [u8],
    /// Where the payload ends.
    pub end: PieceEnd,
}

/// A protocol whose packets carry pieces of larger payloads, implemented by the `Protocol`
/// marker of a generated crate whose schema declares `reassembly`.
pub trait Fragmented {
    /// What tells payloads apart: the direction and the schema's `key` fields.
    type Key: Hash + Eq + Clone + fmt::Debug;
    /// The packet that carries pieces (the schema's root).
    type Packet<'a>;
    /// A joined payload, as the generated crate offers it.
    type Whole;
    /// The schema's piece index field (names errors).
    const INDEX_FIELD: &'static str;
    /// The schema's piece count field, or the piece field when the last piece is flagged.
    const COUNT_FIELD: &'static str;
    /// The schema's field holding the piece (names errors).
    const PIECE_FIELD: &'static str;
    /// The largest piece a sender puts in one packet by default.
    const PIECE_SIZE: usize;

    /// The piece `packet` carries, when it carries one.
    fn piece<'p>(from_client: bool, packet: &'p Self::Packet<'_>) -> Option<Piece<'p, Self::Key>>;

    /// The payload joined from `data`; `last` is the packet that completed it.
    fn whole(from_client: bool, data: Vec<u8>, last: &Self::Packet<'_>) -> Self::Whole;
}

/// Joins the pieces of payloads of one conversation, per direction and key, in any order; a
/// payload is complete when every piece up to the last one arrived. Limits bound what a peer can
/// make it hold: past `max_pending` payloads the one begun first is dropped to make room
/// (counted by [`Reassembler::evicted`]), so payloads that never complete cannot stop later ones
/// from being joined; a payload past `max_len` bytes is refused.
pub struct Reassembler<F: Fragmented> {
    pending: HashMap<F::Key, Pending>,
    /// Payloads being joined at once.
    pub max_pending: usize,
    /// Bytes of one payload.
    pub max_len: usize,
    /// Pieces pushed so far: a payload's age.
    pushes: u64,
    evicted: u64,
    /// The pieces of the payloads joined last, by key and index (at most [`JOINED_PIECES`]).
    joined: JoinedParts<(F::Key, usize)>,
}

/// How many pieces of joined payloads a [`Reassembler`] remembers, to tell a piece sent again
/// after its payload was joined (a retransmission) from the start of a new payload.
pub const JOINED_PIECES: usize = 4096;

#[derive(Debug, Default)]
struct Pending {
    /// Each piece's bytes, and the tag of the packet it came in.
    parts: BTreeMap<usize, (Vec<u8>, u64)>,
    count: Option<usize>,
    len: usize,
    /// When its first piece came (in pushes).
    since: u64,
}

impl<F: Fragmented> fmt::Debug for Reassembler<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reassembler")
            .field("pending", &self.pending)
            .field("max_pending", &self.max_pending)
            .field("max_len", &self.max_len)
            .field("evicted", &self.evicted)
            .finish()
    }
}

impl<F: Fragmented> Default for Reassembler<F> {
    fn default() -> Self {
        Reassembler {
            pending: HashMap::new(),
            max_pending: 1024,
            max_len: 256 * F::PIECE_SIZE,
            pushes: 0,
            evicted: 0,
            joined: JoinedParts::new(),
        }
    }
}

impl<F: Fragmented> Reassembler<F> {
    /// A reassembler with the default limits: 1024 payloads at once, 256 pieces' worth of bytes
    /// each.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a packet; returns the whole payload when this packet completes one. A piece that
    /// repeats one already held is ignored (a retransmission); other bytes under the same index
    /// are an error (the first are kept), as is a payload too large or a count that changes.
    pub fn push(
        &mut self,
        from_client: bool,
        packet: &F::Packet<'_>,
    ) -> Result<Option<F::Whole>, DecodeError> {
        Ok(self
            .push_tagged(from_client, packet, 0)?
            .map(|(whole, _)| whole))
    }

    /// [`push`](Self::push), with a tag of the caller's for the packet (a capture's frame
    /// number): a completed payload comes with the tags of the packets its pieces came in, in
    /// the payload's order.
    pub fn push_tagged(
        &mut self,
        from_client: bool,
        packet: &F::Packet<'_>,
        tag: u64,
    ) -> Result<Option<Tagged<F::Whole>>, DecodeError> {
        let Some(piece) = F::piece(from_client, packet) else {
            return Ok(None);
        };
        let Some((data, tags)) = self.join(piece, tag)? else {
            return Ok(None);
        };
        Ok(Some((F::whole(from_client, data, packet), tags)))
    }

    /// Adds one piece; returns the payload's bytes (and its pieces' tags) when it completes one.
    fn join(
        &mut self,
        piece: Piece<'_, F::Key>,
        tag: u64,
    ) -> Result<Option<Tagged<Vec<u8>>>, DecodeError> {
        let Piece {
            key,
            index,
            data,
            end,
        } = piece;
        self.pushes += 1;
        // A piece of a payload joined already, with the same bytes: a retransmission.
        if self
            .joined
            .is_retransmission(&(key.clone(), index), digest(data))
        {
            return Ok(None);
        }
        if !self.pending.contains_key(&key) && self.pending.len() >= self.max_pending.max(1) {
            // Full: the payload begun first makes room (a linear scan, only when full).
            let oldest = self
                .pending
                .iter()
                .min_by_key(|(_, p)| p.since)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.pending.remove(&oldest);
                self.evicted += 1;
            }
        }
        let since = self.pushes;
        let entry = self.pending.entry(key.clone()).or_insert_with(|| Pending {
            since,
            ..Default::default()
        });
        match entry.parts.get(&index) {
            // A retransmission: nothing new.
            Some((old, _)) if old.as_slice() == data => return Ok(None),
            Some(_) => {
                return Err(DecodeError::new(
                    F::INDEX_FIELD,
                    0,
                    DecodeErrorKind::ConflictingPiece {
                        index: index as u64,
                    },
                ))
            }
            None => {}
        }
        entry.parts.insert(index, (data.to_vec(), tag));
        entry.len += data.len();
        if entry.len > self.max_len {
            let len = entry.len;
            self.pending.remove(&key);
            return Err(DecodeError::new(
                F::PIECE_FIELD,
                0,
                DecodeErrorKind::TooLarge {
                    value: len as u64,
                    max: self.max_len as u64,
                },
            ));
        }
        match end {
            PieceEnd::Last(true) => entry.count = Some(index + 1),
            PieceEnd::Last(false) => {}
            PieceEnd::Count(count) => {
                if entry.count.is_some_and(|n| n != count) || index >= count {
                    self.pending.remove(&key);
                    return Err(DecodeError::new(
                        F::COUNT_FIELD,
                        0,
                        DecodeErrorKind::BadLength {
                            value: count as i128,
                        },
                    ));
                }
                entry.count = Some(count);
            }
        }
        let complete = entry.count.is_some_and(|n| {
            entry.parts.len() >= n && (0..n).all(|i| entry.parts.contains_key(&i))
        });
        if !complete {
            return Ok(None);
        }
        let entry = self.pending.remove(&key).unwrap_or_default();
        let n = entry.count.unwrap_or(0);
        let mut data = Vec::with_capacity(entry.len);
        let mut tags = Vec::with_capacity(n);
        for (i, (part, tag)) in entry.parts.into_iter().take_while(|(i, _)| *i < n) {
            self.joined
                .remember((key.clone(), i), digest(&part[..]), JOINED_PIECES);
            data.extend_from_slice(&part);
            tags.push(tag);
        }
        Ok(Some((data, tags)))
    }

    /// Pieces that came again after their payload was joined, and joined nothing.
    pub fn retransmitted(&self) -> u64 {
        self.joined.retransmitted()
    }

    /// Payloads still waiting for pieces.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Incomplete payloads dropped so far to stay within `max_pending`.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }
}

/// Cuts `payload` into pieces of at most `piece_size` bytes (an empty payload is one empty
/// piece) and makes a packet of each with `packet(index, count, piece)`: a generated `chunk`
/// sets the index, the markers and the piece on a copy of its template.
///
/// ```
/// let packets = wiregen_runtime::split(b"hello", 2, |i, count, piece| {
///     Ok(format!("{}/{count}:{}", i + 1, String::from_utf8_lossy(piece)))
/// })?;
/// assert_eq!(packets, ["1/3:he", "2/3:ll", "3/3:o"]);
/// # Ok::<(), wiregen_runtime::EncodeError>(())
/// ```
pub fn split<P>(
    payload: &[u8],
    piece_size: usize,
    mut packet: impl FnMut(usize, usize, &[u8]) -> Result<P, EncodeError>,
) -> Result<Vec<P>, EncodeError> {
    if piece_size == 0 {
        let kind = EncodeErrorKind::TooSmall { value: 0 };
        return Err(EncodeError::new("piece_size", kind));
    }
    let count = payload.len().div_ceil(piece_size).max(1);
    if payload.is_empty() {
        return Ok(vec![packet(0, 1, &[])?]);
    }
    payload
        .chunks(piece_size)
        .enumerate()
        .map(|(i, piece)| packet(i, count, piece))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets are (id, index, last, bytes).
    struct Toy;
    impl Fragmented for Toy {
        type Key = (bool, u8);
        type Packet<'a> = (u8, usize, bool, &'a [u8]);
        type Whole = Vec<u8>;
        const INDEX_FIELD: &'static str = "index";
        const COUNT_FIELD: &'static str = "last";
        const PIECE_FIELD: &'static str = "data";
        const PIECE_SIZE: usize = 4;
        fn piece<'p>(from_client: bool, p: &'p Self::Packet<'_>) -> Option<Piece<'p, Self::Key>> {
            Some(Piece {
                key: (from_client, p.0),
                index: p.1,
                data: p.3,
                end: PieceEnd::Last(p.2),
            })
        }
        fn whole(_: bool, data: Vec<u8>, _: &Self::Packet<'_>) -> Vec<u8> {
            data
        }
    }

    #[test]
    fn joins_out_of_order_and_ignores_repeats() {
        let mut r = Reassembler::<Toy>::new();
        assert_eq!(r.push(true, &(1, 1, true, b"cd")).unwrap(), None);
        assert_eq!(r.push(true, &(1, 1, true, b"cd")).unwrap(), None);
        // The other direction's payload 1 is another payload.
        assert_eq!(r.push(false, &(1, 0, false, b"xx")).unwrap(), None);
        assert_eq!(
            r.push(true, &(1, 0, false, b"ab")).unwrap(),
            Some(b"abcd".to_vec())
        );
        assert_eq!(r.pending(), 1);
    }

    #[test]
    fn pieces_sent_again_after_their_payload_was_joined_join_nothing() {
        let mut r = Reassembler::<Toy>::new();
        r.push(true, &(4, 0, false, b"ab")).unwrap();
        assert_eq!(
            r.push(true, &(4, 1, true, b"cd")).unwrap(),
            Some(b"abcd".to_vec())
        );
        // Every piece again: no second payload, nothing left waiting.
        assert_eq!(r.push(true, &(4, 0, false, b"ab")).unwrap(), None);
        assert_eq!(r.push(true, &(4, 1, true, b"cd")).unwrap(), None);
        assert_eq!((r.retransmitted(), r.pending()), (2, 0));
        // Other bytes under the same id and index: a new payload.
        r.push(true, &(4, 0, false, b"xy")).unwrap();
        assert_eq!(
            r.push(true, &(4, 1, true, b"zw")).unwrap(),
            Some(b"xyzw".to_vec())
        );
    }

    #[test]
    fn conflicting_bytes_and_size_limit_are_errors() {
        let mut r = Reassembler::<Toy>::new();
        r.push(true, &(2, 0, false, b"ab")).unwrap();
        let e = r.push(true, &(2, 0, false, b"zz")).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::ConflictingPiece { index: 0 });
        assert_eq!(e.field(), "index");
        r.max_len = 3;
        let e = r.push(true, &(2, 1, false, b"cd")).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::TooLarge { value: 4, max: 3 });
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn the_oldest_payload_makes_room() {
        let mut r = Reassembler::<Toy>::new();
        r.max_pending = 2;
        r.push(true, &(1, 0, false, b"a")).unwrap();
        r.push(true, &(2, 0, false, b"b")).unwrap();
        r.push(true, &(3, 0, false, b"c")).unwrap();
        assert_eq!((r.pending(), r.evicted()), (2, 1));
        // Payload 2 still completes; payload 1 lost its first piece and never does.
        assert_eq!(
            r.push(true, &(2, 1, true, b"z")).unwrap(),
            Some(b"bz".to_vec())
        );
        assert_eq!(r.push(true, &(1, 1, true, b"z")).unwrap(), None);
        assert_eq!((r.pending(), r.evicted()), (2, 1));
    }
}
