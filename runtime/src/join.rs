//! Payloads sent in parts numbered in sequence (DNP's long messages, ENet's fragments): a
//! [`SequenceJoiner`] holds the parts until one payload's are all there.

use crate::joined_parts::{digest, JoinedParts};
use crate::{DecodeError, DecodeErrorKind};
use std::collections::HashMap;
use std::hash::Hash;

/// Joins payloads sent in parts, one joiner per direction of a conversation.
///
/// Each part has a key (which payloads its number counts: `()` when one counter numbers all),
/// a sequence number that wraps at `wrap`, whether it is the first and the last part of its
/// payload, and `S` byte streams (most protocols send one). Parts may arrive in any order; a
/// payload is complete when every number from a first part to a last one has arrived, and its
/// streams are the parts' concatenated.
///
/// Limits bound what a peer can make it hold: past [`max_parts`](Self::max_parts) parts or
/// [`max_len`](Self::max_len) bytes the part that came first is dropped to make room (counted
/// by [`evicted`](Self::evicted)), so parts that never complete a payload cannot stop later
/// payloads from being joined.
///
/// A part that comes again with the same bytes after its payload was joined (a sender that
/// retransmits a message whose acks were lost) is a retransmission, not the start of a second
/// payload: it is counted by [`retransmitted`](Self::retransmitted) and joins nothing. The
/// joiner remembers the parts of the last payloads it joined for that, at most
/// [`max_parts`](Self::max_parts) and half the numbers' range (`wrap / 2`, so that a number
/// used again after the counter wrapped starts a new payload), forgetting the oldest first.
///
/// ```
/// use wiregen_runtime::{SequenceJoiner, SequencePart};
/// let mut j = SequenceJoiner::<(), 1>::new(65536);
/// assert!(j.push(SequencePart::new((), 7, false, true, [b"lo".to_vec()]), "seq")?.is_none());
/// let joined = j.push(SequencePart::new((), 6, true, false, [b"hel".to_vec()]), "seq")?.unwrap();
/// assert_eq!((joined.first, joined.parts), (6, 2));
/// assert_eq!(joined.streams, [b"hello".to_vec()]);
/// # Ok::<(), wiregen_runtime::DecodeError>(())
/// ```
#[derive(Debug)]
pub struct SequenceJoiner<K, const S: usize> {
    parts: HashMap<(K, u64), Part<S>>,
    /// Bytes the parts hold.
    held: usize,
    /// Parts waiting at once (4096 unless set).
    pub max_parts: usize,
    /// Bytes waiting at once (16 MiB unless set).
    pub max_len: usize,
    wrap: u64,
    pushes: u64,
    evicted: u64,
    /// Parts of joined payloads, by key and number.
    joined: JoinedParts<(K, u64)>,
    last_retransmitted: bool,
    /// Parts taken out so far (replaced, evicted or joined): a part's walk back to its first
    /// part holds while no part was taken out since.
    removals: u64,
    /// Steps the walks back took (the tests count them).
    #[cfg(test)]
    walked: std::cell::Cell<u64>,
}

#[derive(Debug)]
struct Part<const S: usize> {
    first: bool,
    last: bool,
    data: [Vec<u8>; S],
    /// The caller's tag of the packet it came in.
    tag: u64,
    /// When it came (in pushes).
    since: u64,
    /// The number of the first part its walk back reached, and [`SequenceJoiner`]'s removals
    /// then: the next part's walk stops here while nothing was taken out since, so parts that
    /// come in order are joined in linear time, not quadratic.
    first_at: Option<(u64, u64)>,
}

impl<const S: usize> Part<S> {
    fn len(&self) -> usize {
        self.data.iter().map(Vec::len).sum()
    }
}

/// A payload a [`SequenceJoiner`] joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joined<K, const S: usize> {
    /// The key its parts had.
    pub key: K,
    /// The sequence number of its first part.
    pub first: u64,
    /// How many parts it was joined from.
    pub parts: usize,
    /// Its streams.
    pub streams: [Vec<u8>; S],
    /// The tags its parts were pushed with ([`SequenceJoiner::push_tagged`]), in order.
    pub tags: Vec<u64>,
}

/// One part given to a [`SequenceJoiner`]: its key, its sequence number, whether it is the
/// first and the last of its payload, and its bytes of each stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequencePart<K, const S: usize> {
    /// What keeps its payload apart from others (a channel, a direction).
    pub key: K,
    /// Its sequence number (taken modulo the joiner's wrap).
    pub seq: u64,
    /// Whether it is the first part of its payload.
    pub first: bool,
    /// Whether it is the last part of its payload.
    pub last: bool,
    /// Its bytes of each stream.
    pub data: [Vec<u8>; S],
}

impl<K, const S: usize> SequencePart<K, S> {
    /// A part of key `key` numbered `seq`, marked first and/or last, with `data`.
    pub fn new(key: K, seq: u64, first: bool, last: bool, data: [Vec<u8>; S]) -> Self {
        SequencePart {
            key,
            seq,
            first,
            last,
            data,
        }
    }
}

impl<K: Hash + Eq + Clone, const S: usize> SequenceJoiner<K, S> {
    /// A joiner of parts numbered modulo `wrap` (65536 for a `u16` counter).
    pub fn new(wrap: u64) -> Self {
        SequenceJoiner {
            parts: HashMap::new(),
            held: 0,
            max_parts: 4096,
            max_len: 16 << 20,
            wrap: wrap.max(1),
            pushes: 0,
            evicted: 0,
            joined: JoinedParts::new(),
            last_retransmitted: false,
            removals: 0,
            #[cfg(test)]
            walked: Default::default(),
        }
    }

    /// Adds a part; returns the payload when this part completes one. A part larger than
    /// [`max_len`](Self::max_len) on its own is an error naming `field` (its sequence number's
    /// field); a part numbered like one waiting replaces it.
    pub fn push(
        &mut self,
        part: SequencePart<K, S>,
        field: &'static str,
    ) -> Result<Option<Joined<K, S>>, DecodeError> {
        self.push_tagged(part, field, 0)
    }

    /// [`push`](Self::push), with a tag of the caller's for the packet (a capture's frame
    /// number), given back in [`Joined::tags`].
    pub fn push_tagged(
        &mut self,
        part: SequencePart<K, S>,
        field: &'static str,
        tag: u64,
    ) -> Result<Option<Joined<K, S>>, DecodeError> {
        let SequencePart {
            key,
            seq,
            first,
            last,
            data,
        } = part;
        let (seq, wrap) = (seq % self.wrap, self.wrap);
        // A part of a payload joined already, with the same bytes: a retransmission.
        self.last_retransmitted = self
            .joined
            .is_retransmission(&(key.clone(), seq), digest(&data));
        if self.last_retransmitted {
            return Ok(None);
        }
        let new = Part {
            first,
            last,
            data,
            tag,
            since: self.pushes + 1,
            first_at: None,
        };
        let len = new.len();
        if len > self.max_len {
            let kind = DecodeErrorKind::TooLarge {
                value: len as u64,
                max: self.max_len as u64,
            };
            return Err(DecodeError::new(field, 0, kind));
        }
        if let Some(old) = self.parts.remove(&(key.clone(), seq)) {
            self.held -= old.len();
            self.removals += 1;
        }
        // Full: the parts that came first make room (a linear scan, only when full).
        while self.parts.len() >= self.max_parts.max(1) || self.held + len > self.max_len {
            let oldest = self.parts.iter().min_by_key(|(_, p)| p.since);
            let Some(oldest) = oldest.map(|(k, _)| k.clone()) else {
                break;
            };
            if let Some(old) = self.parts.remove(&oldest) {
                self.held -= old.len();
                self.evicted += 1;
                self.removals += 1;
            }
        }
        self.pushes += 1;
        self.parts.insert((key.clone(), seq), new);
        self.held += len;
        // Back to the first part, then on to the last, every number in between present.
        let at = |s: u64| (key.clone(), s);
        let Some(a) = self.walk_back(&key, seq) else {
            return Ok(None);
        };
        if let Some(p) = self.parts.get_mut(&at(seq)) {
            p.first_at = Some((a, self.removals));
        }
        let (mut b, mut steps) = (seq, 0);
        loop {
            match self.parts.get(&at(b)) {
                None => return Ok(None),
                Some(p) if p.first && b != a => return Ok(None),
                Some(p) if p.last => break,
                _ => {}
            }
            b = (b + 1) % wrap;
            steps += 1;
            if steps > self.parts.len() {
                return Ok(None);
            }
        }
        let mut streams: [Vec<u8>; S] = std::array::from_fn(|_| Vec::new());
        let (mut i, mut parts) = (a, 0);
        let mut tags = Vec::new();
        loop {
            if let Some(p) = self.parts.remove(&at(i)) {
                self.held -= p.len();
                self.removals += 1;
                tags.push(p.tag);
                // Remembered for half the numbers' range: a number used again after the
                // counter wrapped starts a new payload.
                let limit = self.max_parts.min((self.wrap / 2) as usize);
                self.joined.remember(at(i), digest(&p.data), limit);
                for (stream, d) in streams.iter_mut().zip(p.data) {
                    stream.extend_from_slice(&d);
                }
            }
            parts += 1;
            if i == b {
                break;
            }
            i = (i + 1) % wrap;
        }
        Ok(Some(Joined {
            key,
            first: a,
            parts,
            streams,
            tags,
        }))
    }

    /// The number of the first part of the payload part `seq` belongs to, when every part from
    /// it to `seq` is there: the walk back stops at a part whose own walk still holds.
    fn walk_back(&self, key: &K, seq: u64) -> Option<u64> {
        let (mut a, mut steps) = (seq, 0);
        loop {
            let p = self.parts.get(&(key.clone(), a))?;
            if p.first {
                return Some(a);
            }
            if a != seq {
                if let Some((first, removals)) = p.first_at {
                    if removals == self.removals {
                        return Some(first);
                    }
                }
            }
            // (Not `(a + wrap - 1) % wrap`: it overflows when the wrap is near `u64::MAX`.)
            a = if a == 0 { self.wrap - 1 } else { a - 1 };
            steps += 1;
            #[cfg(test)]
            self.walked.set(self.walked.get() + 1);
            if steps > self.parts.len() {
                return None;
            }
        }
    }

    /// Parts waiting for the rest of their payload.
    pub fn pending(&self) -> usize {
        self.parts.len()
    }

    /// Parts that came again after their payload was joined, and joined nothing.
    pub fn retransmitted(&self) -> u64 {
        self.joined.retransmitted()
    }

    /// Whether the part pushed last was such a retransmission.
    pub fn last_was_retransmission(&self) -> bool {
        self.last_retransmitted
    }

    /// Parts dropped so far to stay within the limits.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_wrap_and_keys_keep_payloads_apart() {
        let mut j = SequenceJoiner::<u8, 1>::new(4);
        assert!(j
            .push(SequencePart::new(1, 3, true, false, [vec![1]]), "n")
            .unwrap()
            .is_none());
        assert!(j
            .push(SequencePart::new(2, 0, true, true, [vec![9]]), "n")
            .unwrap()
            .is_some());
        let done = j
            .push(SequencePart::new(1, 4, false, true, [vec![2]]), "n")
            .unwrap()
            .unwrap();
        assert_eq!((done.key, done.first, done.parts), (1, 3, 2));
        assert_eq!(done.streams, [vec![1, 2]]);
        assert_eq!(j.pending(), 0);
    }

    /// A 64-bit counter wraps at `u64::MAX` (a `u64` cannot hold the range): the walk back
    /// from part 0 reaches `u64::MAX - 1` without overflowing, and `u64::MAX` itself is 0.
    #[test]
    fn a_64_bit_counter_walks_back_across_its_wrap() {
        let mut j = SequenceJoiner::<(), 1>::new(u64::MAX);
        for (seq, first, last) in [(0, false, true), (u64::MAX - 2, true, false)] {
            let part = SequencePart::new((), seq, first, last, [vec![seq as u8]]);
            assert!(j.push(part, "n").unwrap().is_none());
        }
        let part = SequencePart::new((), u64::MAX - 1, false, false, [vec![1]]);
        let done = j.push(part, "n").unwrap().unwrap();
        assert_eq!((done.first, done.parts), (u64::MAX - 2, 3));
        assert_eq!(done.streams, [vec![0xFD, 1, 0]]);
        let part = SequencePart::new((), u64::MAX, true, true, [vec![7]]);
        let done = j.push(part, "n").unwrap().unwrap();
        assert_eq!((done.first, done.parts), (0, 1));
    }

    /// Parts in order are joined in linear time: each walk back stops at the part before
    /// (1,000 parts: 999 steps, where walking back to the first part each time took 499,500).
    #[test]
    fn parts_in_order_join_in_linear_time() {
        let mut j = SequenceJoiner::<(), 1>::new(1 << 32);
        for i in 0..1000u64 {
            let part = SequencePart::new((), 70 + i, i == 0, i == 999, [vec![i as u8]]);
            let done = j.push(part, "n").unwrap();
            assert_eq!(done.is_some(), i == 999);
            if let Some(done) = done {
                assert_eq!(
                    (done.first, done.parts, done.streams[0].len()),
                    (70, 1000, 1000)
                );
                assert_eq!(done.streams[0][300], 44);
            }
        }
        assert_eq!(j.walked.get(), 999);
    }

    /// A walk back kept by a part no longer holds once a part was taken out: a part replaced
    /// by a first one starts the payload there.
    #[test]
    fn a_replaced_part_is_walked_again() {
        let mut j = SequenceJoiner::<(), 1>::new(100);
        for (seq, first) in [(1, true), (2, false), (3, false)] {
            let part = SequencePart::new((), seq, first, false, [vec![seq as u8]]);
            assert!(j.push(part, "n").unwrap().is_none());
        }
        let again = SequencePart::new((), 2, true, false, [vec![20]]);
        assert!(j.push(again, "n").unwrap().is_none());
        let last = SequencePart::new((), 4, false, true, [vec![4]]);
        let done = j.push(last, "n").unwrap().unwrap();
        assert_eq!((done.first, done.parts), (2, 3));
        assert_eq!(done.streams, [vec![20, 3, 4]]);
        assert_eq!(j.pending(), 1);
    }

    #[test]
    fn the_oldest_part_makes_room() {
        let mut j = SequenceJoiner::<(), 2>::new(100);
        j.max_parts = 2;
        j.push(
            SequencePart::new((), 10, true, false, [vec![1], vec![]]),
            "n",
        )
        .unwrap();
        j.push(
            SequencePart::new((), 20, true, false, [vec![2], vec![]]),
            "n",
        )
        .unwrap();
        j.push(
            SequencePart::new((), 30, true, false, [vec![3], vec![]]),
            "n",
        )
        .unwrap();
        assert_eq!((j.pending(), j.evicted()), (2, 1));
        assert!(j
            .push(
                SequencePart::new((), 11, false, true, [vec![], vec![]]),
                "n"
            )
            .unwrap()
            .is_none());
        j.max_len = 1;
        let e = j
            .push(
                SequencePart::new((), 40, true, true, [vec![1], vec![2]]),
                "n",
            )
            .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::TooLarge { value: 2, max: 1 });
    }

    #[test]
    fn a_part_sent_again_after_its_payload_was_joined_joins_nothing() {
        let mut j = SequenceJoiner::<u8, 1>::new(65536);
        j.push(SequencePart::new(3, 10, true, false, [b"ab".to_vec()]), "n")
            .unwrap();
        let done = j
            .push(SequencePart::new(3, 11, false, true, [b"cd".to_vec()]), "n")
            .unwrap();
        assert_eq!(done.unwrap().streams, [b"abcd".to_vec()]);
        // Every part again (its acks were lost): no second payload.
        for (seq, first, last, data) in [(10, true, false, b"ab"), (11, false, true, b"cd")] {
            assert!(j
                .push(SequencePart::new(3, seq, first, last, [data.to_vec()]), "n")
                .unwrap()
                .is_none());
            assert!(j.last_was_retransmission());
        }
        assert_eq!((j.retransmitted(), j.pending()), (2, 0));
        // The same numbers with other bytes start a new payload; so does another key.
        j.push(SequencePart::new(3, 10, true, false, [b"xy".to_vec()]), "n")
            .unwrap();
        assert!(!j.last_was_retransmission());
        let again = j
            .push(SequencePart::new(3, 11, false, true, [b"zw".to_vec()]), "n")
            .unwrap();
        assert_eq!(again.unwrap().streams, [b"xyzw".to_vec()]);
        assert!(j
            .push(SequencePart::new(4, 10, true, true, [b"ab".to_vec()]), "n")
            .unwrap()
            .is_some());
    }

    #[test]
    fn joined_parts_are_remembered_for_half_the_numbers_range() {
        // Numbers counting modulo 4: after two parts the oldest is forgotten, so the counter
        // coming round again starts new payloads.
        let mut j = SequenceJoiner::<(), 1>::new(4);
        for seq in 0..3 {
            assert!(j
                .push(SequencePart::new((), seq, true, true, [vec![7]]), "n")
                .unwrap()
                .is_some());
        }
        assert!(j
            .push(SequencePart::new((), 0, true, true, [vec![7]]), "n")
            .unwrap()
            .is_some());
        assert!(j
            .push(SequencePart::new((), 2, true, true, [vec![7]]), "n")
            .unwrap()
            .is_none());
        assert_eq!(j.retransmitted(), 1);
    }
}
