//! A reference document as blocks, built once from a schema (`content.rs`) and rendered by
//! `markdown.rs` and `html.rs`. Inline text may hold `code` spans in backticks and
//! [links](#anchor): Markdown keeps them, HTML turns them into elements.

use super::diagram::Diagram;

#[derive(Debug, Clone)]
pub enum Block {
    /// A heading of level 1 to 4 with the anchor other blocks link to.
    Heading {
        level: u8,
        text: String,
        anchor: String,
    },
    Para(String),
    List(Vec<String>),
    Table {
        head: Vec<&'static str>,
        rows: Vec<Vec<String>>,
    },
    Diagram(Diagram),
}

/// One protocol's reference.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub title: String,
    pub blocks: Vec<Block>,
}

impl Document {
    pub fn heading(&mut self, level: u8, text: impl Into<String>, anchor: impl Into<String>) {
        self.blocks.push(Block::Heading {
            level,
            text: text.into(),
            anchor: anchor.into(),
        });
    }

    pub fn para(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !text.trim().is_empty() {
            self.blocks.push(Block::Para(text));
        }
    }

    pub fn list(&mut self, items: Vec<String>) {
        if !items.is_empty() {
            self.blocks.push(Block::List(items));
        }
    }

    pub fn table(&mut self, head: Vec<&'static str>, rows: Vec<Vec<String>>) {
        if !rows.is_empty() {
            self.blocks.push(Block::Table { head, rows });
        }
    }
}
