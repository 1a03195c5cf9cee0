//! Payloads sent as pieces that carry no number (OpenTTD's map download: MAP_DATA packets
//! between a MAP_BEGIN and a MAP_DONE): their order on the stream is the payload's, so a
//! [`StreamJoiner`] appends each piece to the payload a begin message opened, until an end
//! message completes it.

/// Joins the pieces of one direction of a conversation in the order they come.
///
/// A begin message opens a payload (an unfinished one is dropped, counted by
/// [`abandoned`](Self::abandoned)); each piece appends its `S` streams; an end message completes
/// it. A piece with no payload open is counted by [`orphans`](Self::orphans) and dropped. A
/// payload growing past [`max_len`](Self::max_len) bytes is dropped too (and counted as
/// abandoned), so a peer cannot make it hold more.
///
/// ```
/// use wiregen_runtime::StreamJoiner;
/// let mut j = StreamJoiner::<1>::new(1 << 20);
/// j.begin();
/// j.push([b"hel".to_vec()], 2);
/// j.push([b"lo".to_vec()], 3);
/// let joined = j.end().unwrap();
/// assert_eq!((joined.parts, joined.tags), (2, vec![2, 3]));
/// assert_eq!(joined.streams, [b"hello".to_vec()]);
/// ```
#[derive(Debug)]
pub struct StreamJoiner<const S: usize> {
    open: Option<StreamJoined<S>>,
    /// Bytes one payload may hold (all streams together).
    pub max_len: usize,
    abandoned: u64,
    orphans: u64,
}

/// A payload a [`StreamJoiner`] joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamJoined<const S: usize> {
    /// How many pieces it was joined from.
    pub parts: usize,
    /// Its streams.
    pub streams: [Vec<u8>; S],
    /// The tags its pieces were pushed with, in order.
    pub tags: Vec<u64>,
}

impl<const S: usize> Default for StreamJoiner<S> {
    fn default() -> Self {
        Self::new(16 << 20)
    }
}

impl<const S: usize> StreamJoiner<S> {
    /// A joiner of payloads of at most `max_len` bytes.
    pub fn new(max_len: usize) -> Self {
        StreamJoiner {
            open: None,
            max_len,
            abandoned: 0,
            orphans: 0,
        }
    }

    /// A begin message: opens a payload.
    pub fn begin(&mut self) {
        if self.open.is_some() {
            self.abandoned += 1;
        }
        self.open = Some(StreamJoined {
            parts: 0,
            streams: std::array::from_fn(|_| Vec::new()),
            tags: Vec::new(),
        });
    }

    /// A piece (tagged `tag`, a capture's frame number): appended to the open payload.
    pub fn push(&mut self, data: [Vec<u8>; S], tag: u64) {
        let Some(open) = &mut self.open else {
            self.orphans += 1;
            return;
        };
        let held: usize = open.streams.iter().map(Vec::len).sum();
        let more: usize = data.iter().map(Vec::len).sum();
        if held + more > self.max_len {
            self.open = None;
            self.abandoned += 1;
            return;
        }
        for (stream, d) in open.streams.iter_mut().zip(data) {
            stream.extend_from_slice(&d);
        }
        open.parts += 1;
        open.tags.push(tag);
    }

    /// An end message: the payload it completes, if one is open.
    pub fn end(&mut self) -> Option<StreamJoined<S>> {
        self.open.take()
    }

    /// Whether a payload is open.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Payloads dropped unfinished (a second begin, or past `max_len`).
    pub fn abandoned(&self) -> u64 {
        self.abandoned
    }

    /// Pieces that came with no payload open.
    pub fn orphans(&self) -> u64 {
        self.orphans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_join_between_a_begin_and_an_end_in_the_order_they_come() {
        let mut j = StreamJoiner::<2>::new(10);
        j.push([vec![1], vec![]], 0);
        assert_eq!(j.orphans(), 1);
        assert!(j.end().is_none());
        j.begin();
        j.push([vec![1, 2], vec![3]], 3);
        j.begin();
        assert_eq!(j.abandoned(), 1);
        j.push([vec![5], vec![6]], 5);
        j.push([vec![7], vec![]], 6);
        let whole = j.end().unwrap();
        assert_eq!(whole.streams, [vec![5, 7], vec![6]]);
        assert_eq!((whole.parts, whole.tags), (2, vec![5, 6]));
        assert!(!j.is_open());
        // Past max_len the payload is dropped.
        j.begin();
        j.push([vec![0; 6], vec![0; 5]], 9);
        assert_eq!((j.abandoned(), j.is_open()), (2, false));
    }
}
