//! A dictionary string column: each distinct string once per batch, a key per row. Names
//! (enumeration values, message types, addresses, directions) repeat row after row, so the
//! string of the row before is checked first, then an index of the batch's strings.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, StringBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray};

#[derive(Default)]
pub(crate) struct Names {
    keys: Int32Builder,
    values: StringBuilder,
    index: HashMap<Box<str>, i32>,
    /// The key of the last string added.
    last: Option<i32>,
}

impl Names {
    pub(crate) fn new() -> Names {
        Names::default()
    }

    pub(crate) fn append_value(&mut self, name: &str) {
        if let Some(key) = self.last {
            if self.value(key) == name.as_bytes() {
                self.keys.append_value(key);
                return;
            }
        }
        let key = match self.index.get(name) {
            Some(&key) => key,
            None => {
                let key = self.index.len() as i32;
                self.values.append_value(name);
                self.index.insert(name.into(), key);
                key
            }
        };
        self.last = Some(key);
        self.keys.append_value(key);
    }

    /// The string of `key`, from the batch's values.
    fn value(&self, key: i32) -> &[u8] {
        let offsets = self.values.offsets_slice();
        let k = key as usize;
        match (offsets.get(k), offsets.get(k + 1)) {
            (Some(&from), Some(&to)) => &self.values.values_slice()[from as usize..to as usize],
            _ => &[],
        }
    }

    /// Adds the name `key` stands for, or (when the batch has not seen `key` yet) the one
    /// `name` gives: the caller's own index of what it names (an address), so the text is
    /// made once per batch.
    pub(crate) fn append_keyed(
        &mut self,
        known: Option<i32>,
        name: impl FnOnce() -> String,
    ) -> i32 {
        match known {
            Some(key) => {
                self.keys.append_value(key);
                key
            }
            None => {
                let name = name();
                self.append_value(&name);
                self.last.unwrap_or(0)
            }
        }
    }

    pub(crate) fn append_null(&mut self) {
        self.keys.append_null();
    }

    pub(crate) fn append_nulls(&mut self, n: usize) {
        self.keys.append_nulls(n);
    }

    pub(crate) fn len(&self) -> usize {
        use arrow_array::builder::ArrayBuilder;
        self.keys.len()
    }

    /// The batch as a dictionary array; the next batch starts a dictionary of its own.
    pub(crate) fn finish(&mut self) -> Result<ArrayRef, String> {
        let keys = self.keys.finish();
        let values = Arc::new(self.values.finish());
        self.index.clear();
        self.last = None;
        let array =
            DictionaryArray::<Int32Type>::try_new(keys, values).map_err(|e| e.to_string())?;
        Ok(Arc::new(array))
    }
}
