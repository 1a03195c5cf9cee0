//! My Game's wire format: the types and codecs wiregen generates from `schema/mygame.yaml`.

wiregen_runtime::include_protocol!(mygame);

pub use self::mygame::*;
