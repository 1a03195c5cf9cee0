//! Every golden snippet (`codegen/tests/golden/*.rs`, the generated `codec.rs` of one small
//! schema per construct), compiled as a module with warnings denied: `cargo test` and
//! `cargo clippy` then check the generator's output for every construct, not only for the
//! protocols this repository ships.

#![deny(warnings)]

include!(concat!(env!("OUT_DIR"), "/snippets.rs"));
