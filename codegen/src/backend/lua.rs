//! Lua backend: a self-contained Wireshark dissector per schema.

use super::{Output, Unsupported};
use crate::ir::Protocol;

pub fn generate(_p: &Protocol, _path: &str) -> Result<Vec<Output>, Unsupported> {
    Ok(vec![])
}
