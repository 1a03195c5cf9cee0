//! wirecat: decode, craft and check messages of any wiregen protocol without Wireshark.
//!
//! A game's own crate gets its own wirecat in one line, a `src/bin/wirecat.rs` with
//!
//! ```ignore
//! fn main() -> std::process::ExitCode {
//!     wirecat::run::<mygame::Protocol>()
//! }
//! ```
//!
//! which then takes `decode`, `encode`, `read <capture>`, `check <capture>` and `types` (see
//! `--help`). This repository's `wirecat` binary links every schema and takes the protocol's
//! name after the command (`wirecat check rtype capture.pcapng`).

// The workspace's house rules (its manifest is generated, so they are said here).
#![deny(clippy::too_many_lines, clippy::too_many_arguments)]

pub mod budget;
pub mod capture;
mod cli;
#[cfg(feature = "export")]
mod columns;
#[cfg(feature = "export")]
pub mod export;
mod input;
mod json;
mod line;
mod message_type;
mod outcome;
pub mod proxy;
pub mod reading;
pub mod replay;
pub mod session;
pub mod stand_in;
pub mod stats;
mod stats_cli;
pub mod stream;
mod types;

pub use cli::{run, run_many, Registry};
pub use message_type::message_type;
pub use types::Job;

/// Bytes as spaced hex (`ce d1 01`).
pub fn to_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Hex digits (spaces, colons and dashes between them allowed) as bytes.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| !matches!(c, b' ' | b':' | b'\n' | b'\t' | b'-'))
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("'{text}': odd number of hex digits"));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).map_err(|_| "not hex".to_string())?;
            u8::from_str_radix(s, 16).map_err(|_| format!("'{s}' is not a hex byte"))
        })
        .collect()
}
