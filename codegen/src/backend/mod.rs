//! One backend per output. Each reads only the IR and returns files (path, contents).

pub mod csharp;
pub mod doc;
pub mod fuzz;
pub mod header;
pub mod lua;
pub mod rust;
pub mod wirecat;

#[cfg(test)]
mod expr_table;

/// A generated file: path relative to the repository root, and its full text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub path: String,
    pub contents: String,
}

/// A state of the IR a backend has no code for, though validation should have refused it: a
/// bug of the generator, reported as "internal error" with the schema. What a backend cannot
/// generate is said in one place only, `validate/checks/limits.rs`, at the construct's position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Internal(pub String);

impl From<crate::lower::Unlowered> for Internal {
    fn from(u: crate::lower::Unlowered) -> Self {
        Internal(format!("the lowering: {}", u.0))
    }
}

/// Characters of doc text per line: with `    /// ` before it, a line stays within rustfmt's
/// 100 columns.
pub(crate) const DOC_WIDTH: usize = 88;

/// Words of `text` in lines of at most [`DOC_WIDTH`] characters (a longer word has a line of
/// its own), for doc comments.
pub(crate) fn wrap(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + 1 + word.len() > DOC_WIDTH {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}
