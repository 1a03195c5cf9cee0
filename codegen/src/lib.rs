//! wiregen: one YAML schema → validated IR → a Rust codec crate and a Wireshark Lua dissector.
//!
//! Pipeline: [`schema`] (serde types of the YAML) → [`validate`] (names resolved, types and
//! expressions checked, positions kept for errors) → [`ir`] → one backend per output
//! ([`backend::rust`], [`backend::lua`]), each reading only the IR.

pub mod backend;
pub mod builder;
pub mod diag;
pub mod expr;
pub mod extend;
pub mod ir;
pub mod locate;
pub mod lower;
pub mod naming;
pub mod pipeline;
pub mod schema;
pub mod validate;

pub use builder::{Builder, Error, Written};
