//! What the structural comparison of two versions has met and has still to compare: the types
//! (and, through switches' cases, the types they hold) are queued in pairs and compared once.

use crate::ir::{EnumId, FlagsId, StructId};
use std::collections::HashSet;

/// Enums and flag sets the two versions use in the same places, to be compared value by value.
#[derive(Default)]
pub struct Pairs {
    pub enums: Vec<(EnumId, EnumId)>,
    pub flags: Vec<(FlagsId, FlagsId)>,
}

/// The pairs of types still to compare, those compared, and the enum and flag pairs met.
pub(super) struct Walk {
    pub(super) queue: Vec<(StructId, StructId)>,
    pub(super) seen: HashSet<(StructId, StructId)>,
    pub(super) pairs: Pairs,
}

/// Where a difference is, in the old and in the new schema file (`file:line:column`).
pub(super) type At = (Option<String>, Option<String>);
