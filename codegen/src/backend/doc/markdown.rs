//! A reference as Markdown: diagrams as text in fenced blocks, GitHub tables.

use super::model::{Block, Document};

pub fn render(d: &Document) -> String {
    let mut out = String::new();
    for b in &d.blocks {
        match b {
            Block::Heading {
                level,
                text,
                anchor,
            } => {
                out.push_str(&format!(
                    "{} {text} <a id=\"{anchor}\"></a>\n\n",
                    "#".repeat(usize::from(*level))
                ));
            }
            Block::Para(text) => out.push_str(&format!("{}\n\n", text.trim_end())),
            Block::List(items) => {
                for i in items {
                    out.push_str(&format!("- {i}\n"));
                }
                out.push('\n');
            }
            Block::Table { head, rows } => {
                out.push_str(&format!("| {} |\n", head.join(" | ")));
                out.push_str(&format!("|{}\n", " --- |".repeat(head.len())));
                for r in rows {
                    let cells: Vec<String> = r.iter().map(|c| cell(c)).collect();
                    out.push_str(&format!("| {} |\n", cells.join(" | ")));
                }
                out.push('\n');
            }
            Block::Diagram(diagram) => {
                out.push_str(&format!("```text\n{}```\n\n", diagram.text()));
            }
        }
    }
    out.trim_end().to_string() + "\n"
}

/// A table cell on one line, its pipes escaped.
fn cell(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        "".into()
    } else {
        one_line.replace('|', "\\|")
    }
}
