//! The reference documents of a protocol (`wiregen doc`, `Builder::doc_out`): one Markdown and
//! one self-contained HTML page, from the same blocks. Each type gets an RFC-style diagram
//! (text in Markdown, SVG in HTML) drawn from the lowering's placements, a field table (offset,
//! size, type, byte order, condition, who sets it, valid values, filter name, Rust name), its
//! switches' cases and its checksums; then enums, flag sets and the conversation's rules.

mod content;
pub mod diagram;
mod fields;
mod html;
mod markdown;
mod markup;
mod model;
mod svg;
pub(crate) mod text;
mod words;

use super::header::{header, Comment, Source};
use super::Output;
use crate::ir::{Protocol, StructId};
use crate::lower::Lowered;

/// The Markdown and HTML references of `p`, in folder `dir`.
pub fn generate(p: &Protocol, l: &Lowered, dir: &str) -> Vec<Output> {
    let doc = content::document(p, l);
    let header = header(Comment::Markup, Source::Schema(&p.source));
    let html = html::render(&doc);
    // After the doctype, which stays the page's first line.
    let html = match html.split_once('\n') {
        Some((doctype, rest)) if doctype.starts_with("<!DOCTYPE") => {
            format!("{doctype}\n{header}{rest}")
        }
        _ => header.clone() + &html,
    };
    vec![
        Output {
            path: format!("{dir}/{}.md", p.name),
            contents: header.clone() + &markdown::render(&doc),
        },
        Output {
            path: format!("{dir}/{}.html", p.name),
            contents: html,
        },
    ]
}

/// The boxes of type `sid`'s diagram (`.text()`: as the Markdown reference draws it).
pub fn diagram(p: &Protocol, l: &Lowered, sid: StructId) -> diagram::Diagram {
    content::diagram(p, l, sid)
}
