//! wiregen makes one YAML schema the single source of truth for a network wire format: from
//! it, a Rust codec (types, decoders that borrow, encoders that fill derived fields) and a
//! Wireshark Lua dissector that shows the same fields under the same names.
//!
//! # Walkthrough
//!
//! **1. The schema** (`schema/mygame.yaml`): types, their fields in wire order, and what the
//! encoder derives (lengths, counts, tags, checksums).
//!
//! ```yaml
//! protocol:
//!   name: mygame
//!   title: My Game
//!   root: Datagram
//!   transport: { udp: { ports: [7777] } }
//! enums:
//!   Kind: { type: u8, values: { HELLO: 1, CHAT: 3 } }
//! types:
//!   Datagram:
//!     fields:
//!       - { name: magic, type: u16, const: 0x4D47 }
//!       - { name: kind, type: Kind }
//!       - name: body
//!         switch: { on: kind, cases: { HELLO: Hello, CHAT: Chat } }
//!   # Hello, Chat: ...
//! ```
//!
//! **2. The build script** generates the codec into `OUT_DIR` and the dissector where you say
//! ([`Builder`]); cargo runs it again when the schema changes, and a mistake in the schema
//! fails the build with `file:line:column: message (hint)` ([`Diagnostic`]):
//!
//! ```no_run
//! // build.rs (the crate depends on `wiregen-runtime`, and builds with `wiregen`)
//! fn main() -> Result<(), wiregen::Error> {
//!     wiregen::Builder::new()
//!         .schema("schema/mygame.yaml")
//!         .lua_out("dissectors")
//!         .compile()?;
//!     Ok(())
//! }
//! ```
//!
//! **3. The crate** includes the codec as a module named after the protocol:
//!
//! ```ignore
//! // src/lib.rs
//! wiregen_runtime::include_protocol!(mygame);
//!
//! use mygame::{Codec, Datagram};
//! let bytes = Datagram { body: DatagramBody::Hello(Hello { /* … */ }) }.encode()?;
//! let back = Datagram::decode(&bytes)?; // borrows its strings and bytes from `bytes`
//! ```
//!
//! **4. Wireshark** reads captures with `dissectors/mygame.lua` (`wiregen install` copies it
//! into your personal plugins folder); the `wiregen verify` command proves the two outputs
//! agree, encoding random messages with the crate and dissecting them in tshark.
//!
//! A crate of its own instead of a module (committed, published): the `wiregen generate
//! --crates` command, or [`Builder::crates`]. The schema language, the commands and the
//! generated code are described in the repository's `docs/`.

#![warn(missing_docs)]

mod builder;
mod config;
pub mod diag;

pub use builder::{Builder, Error, Written};
pub use diag::{Diagnostic, Diagnostics};

// The generator's stages, public for the `wiregen` command, this repository's tests and fuzz
// targets: not a stable API (use the `Builder`, or the command).
#[doc(hidden)]
pub mod backend;
pub mod coverage;
pub mod csharp_proof;
#[doc(hidden)]
pub mod diff;
#[doc(hidden)]
pub mod expr;
#[doc(hidden)]
pub mod extend;
#[doc(hidden)]
pub mod internal {
    //! The builder's parts that the `wiregen` command shares.
    pub use crate::builder::{write_if_changed, Plan, PlannedProtocol};
    pub use crate::config::FILE as CONFIG_FILE;
}
#[doc(hidden)]
pub mod ir;
#[doc(hidden)]
pub mod locate;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod naming;
#[doc(hidden)]
pub mod pipeline;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod validate;
