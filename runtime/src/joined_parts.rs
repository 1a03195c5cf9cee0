//! The parts of the payloads a joiner joined last, shared by [`crate::SequenceJoiner`] and
//! [`crate::Reassembler`]: a part sent again with the same bytes after its payload was joined
//! (a sender that saw no ack) is a retransmission, not the start of a second payload.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

/// Where each joined part sat (`A`: its key and number or index) and a hash of its bytes, the
/// oldest forgotten first past a limit; and how many retransmissions it recognised.
#[derive(Debug)]
pub(crate) struct JoinedParts<A> {
    sums: HashMap<A, u64>,
    /// Oldest first; places a new payload took over are dropped as the queue moves on.
    order: VecDeque<A>,
    retransmitted: u64,
}

impl<A: Hash + Eq + Clone> JoinedParts<A> {
    pub(crate) fn new() -> Self {
        JoinedParts {
            sums: HashMap::new(),
            order: VecDeque::new(),
            retransmitted: 0,
        }
    }

    /// Whether a part at `at` whose bytes hash to `sum` is one joined already (then counted);
    /// other bytes at the same place start a new payload, so the place is forgotten.
    pub(crate) fn is_retransmission(&mut self, at: &A, sum: u64) -> bool {
        match self.sums.get(at) {
            Some(old) if *old == sum => {
                self.retransmitted += 1;
                true
            }
            Some(_) => {
                self.sums.remove(at);
                false
            }
            None => false,
        }
    }

    /// Remembers a part of a joined payload, keeping at most `limit` (at least one).
    pub(crate) fn remember(&mut self, at: A, sum: u64, limit: usize) {
        let limit = limit.max(1);
        if self.sums.insert(at.clone(), sum).is_none() {
            self.order.push_back(at);
        }
        while self.sums.len() > limit {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.sums.remove(&oldest);
        }
        if self.order.len() > 2 * limit + 16 {
            let sums = &self.sums;
            self.order.retain(|k| sums.contains_key(k));
        }
    }

    /// Parts recognised as retransmissions so far.
    pub(crate) fn retransmitted(&self) -> u64 {
        self.retransmitted
    }
}

/// A hash of a part's bytes (its streams: their lengths and bytes).
pub(crate) fn digest<T: Hash + ?Sized>(data: &T) -> u64 {
    let mut h = DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}
