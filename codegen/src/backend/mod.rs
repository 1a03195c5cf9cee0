//! One backend per output. Each reads only the IR and returns files (path, contents).

pub mod fuzz;
pub mod lua;
pub mod rust;
pub mod wirecat;

/// A generated file: path relative to the repository root, and its full text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub path: String,
    pub contents: String,
}

/// What a backend cannot express yet, reported like a schema error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);
