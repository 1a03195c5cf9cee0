//! The checks over a resolved protocol, each a function of it reporting at the schema's
//! positions (pdl's `analyze`): what every type being resolved cannot show alone.

mod arrays;
mod cycles;
mod dead_cases;
mod filters;
mod limits;
mod names;
mod subtrees;
mod unread;
mod wide_numbers;

pub(crate) use self::{cycles::check_cycles, filters::check_filters, limits::limits};

use self::{
    arrays::*, dead_cases::*, limits::*, names::*, subtrees::*, unread::*, wide_numbers::*,
};
use super::resolve::runs_to_end;
use super::*;

/// The checks of a protocol once resolved, in the order their errors are reported.
pub(crate) const CHECKS: &[fn(&mut Report, &Protocol)] = &[
    check_names,
    check_bit_rest_arrays,
    check_endless_arrays,
    check_greedy_values,
    check_lengths_to_the_end,
];

/// What is legal but rarely meant: warnings over a resolved protocol.
pub(crate) const WARNINGS: &[fn(&Report, &Protocol) -> Vec<Diagnostic>] =
    &[unread_types, dead_cases, idle_subtrees];
