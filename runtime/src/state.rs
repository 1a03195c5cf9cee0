//! Conversation state: lists announced by earlier messages, read by later ones.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// Lists remembered by key per table (one default limit for each table).
pub const MAX_STATE_KEYS: usize = 65_536;

/// Lists remembered by key, one map per state table of the schema. Lists are shared (`Rc`), so
/// selecting one while decoding copies nothing. A table holds at most `max_keys` keys: past it
/// the key announced first is forgotten and counted in `evicted`, so a peer that announces
/// ever new keys cannot make it grow without bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateTables {
    /// Per table, the list announced under each key.
    pub tables: Vec<HashMap<u64, Rc<[u64]>>>,
    /// Per table, its keys in the order they were first announced.
    order: Vec<VecDeque<u64>>,
    /// Keys a table holds at most.
    pub max_keys: usize,
    /// Keys forgotten to stay within `max_keys`, in all tables.
    pub evicted: u64,
}

impl Default for StateTables {
    fn default() -> Self {
        StateTables {
            tables: Vec::new(),
            order: Vec::new(),
            max_keys: MAX_STATE_KEYS,
            evicted: 0,
        }
    }
}

impl StateTables {
    /// The list table `t` holds under `key`.
    #[inline]
    pub fn get(&self, t: usize, key: u64) -> Option<&Rc<[u64]>> {
        self.tables.get(t)?.get(&key)
    }

    /// Remembers `list` for `key`; returns the key forgotten to make room, if any.
    #[inline]
    pub fn set(&mut self, t: usize, key: u64, list: Rc<[u64]>) -> Option<u64> {
        if self.tables.len() <= t {
            self.tables.resize_with(t + 1, HashMap::new);
            self.order.resize_with(t + 1, VecDeque::new);
        }
        if self.tables[t].insert(key, list).is_some() {
            return None;
        }
        self.order[t].push_back(key);
        if self.tables[t].len() <= self.max_keys.max(1) {
            return None;
        }
        let oldest = self.order[t].pop_front()?;
        self.tables[t].remove(&oldest);
        self.evicted += 1;
        Some(oldest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_announced_key_is_forgotten_past_the_limit() {
        let mut s = StateTables {
            max_keys: 2,
            ..Default::default()
        };
        let list: Rc<[u64]> = Rc::from(vec![1u64, 2]);
        assert_eq!(s.set(0, 10, list.clone()), None);
        assert_eq!(s.set(0, 11, list.clone()), None);
        // Announcing a key again keeps its place.
        assert_eq!(s.set(0, 10, list.clone()), None);
        assert_eq!(s.set(0, 12, list.clone()), Some(10));
        assert_eq!(s.get(0, 10), None);
        assert!(s.get(0, 11).is_some() && s.get(0, 12).is_some());
        assert_eq!(s.evicted, 1);
    }
}
