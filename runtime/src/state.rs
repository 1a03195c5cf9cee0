//! Conversation state: lists announced by earlier messages, read by later ones.

use std::collections::HashMap;
use std::rc::Rc;

/// Lists remembered by key, one map per state table of the schema. Lists are shared (`Rc`), so
/// selecting one while decoding copies nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateTables {
    pub tables: Vec<HashMap<u64, Rc<[u64]>>>,
}

impl StateTables {
    #[inline]
    pub fn get(&self, t: usize, key: u64) -> Option<&Rc<[u64]>> {
        self.tables.get(t)?.get(&key)
    }

    #[inline]
    pub fn set(&mut self, t: usize, key: u64, list: Rc<[u64]>) {
        if self.tables.len() <= t {
            self.tables.resize_with(t + 1, HashMap::new);
        }
        self.tables[t].insert(key, list);
    }
}
