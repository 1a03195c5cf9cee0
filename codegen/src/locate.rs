//! Where each value of a YAML document sits in its file, so that errors found long after serde
//! has thrown the positions away can still point at `file:line:column`.
//!
//! serde (serde_norway) keeps no positions for valid documents, so the file is read a second time with
//! yaml-rust2's event parser and every node is recorded under its path (`types.Packet.fields.3.type`).

use std::collections::HashMap;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A position in a schema file, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

#[derive(Debug, Default)]
pub struct Locations {
    /// Position of each node's value, by path.
    values: HashMap<String, Pos>,
    /// Position of each mapping key, by the path of its value.
    keys: HashMap<String, Pos>,
    /// The text of each scalar value as written (`0xD1CE`, where serde gives 53710), by path.
    texts: HashMap<String, String>,
    /// Where to point when nothing on a path is in this file (what an extension inherited).
    pub fallback: Option<Pos>,
    /// The texts of the schema an extension extends: what it inherited is written as the base
    /// writes it (`0xD1CE` in the extension's outputs too).
    pub base_texts: Option<HashMap<String, String>>,
}

impl Locations {
    pub fn index(source: &str) -> Locations {
        let mut b = Builder::default();
        // A document serde_norway accepted parses here too; a failure only costs positions.
        let _ = Parser::new_from_str(source).load(&mut b, false);
        b.locs
    }

    /// Position of the value at `path`, or of the nearest enclosing node that has one.
    pub fn value(&self, path: &str) -> Pos {
        self.find(&self.values, path)
    }

    /// The scalar at `path` as the file writes it (`None` for a mapping or sequence, or a path
    /// the file does not hold).
    pub fn text(&self, path: &str) -> Option<&str> {
        match (self.texts.get(path), &self.base_texts) {
            (Some(own), _) => Some(own),
            (None, Some(base)) if self.inherited(path) => base.get(path).map(String::as_str),
            _ => None,
        }
    }

    /// The scalars' texts as written, by path (for an extension's [`Locations::base_texts`]).
    pub fn into_texts(self) -> HashMap<String, String> {
        self.texts
    }

    /// Position of the key naming the value at `path` (falls back to the value).
    pub fn key(&self, path: &str) -> Pos {
        match self.keys.get(path) {
            Some(p) => *p,
            None => self.value(path),
        }
    }

    /// Whether the file holds a node at exactly `path`.
    pub fn holds(&self, path: &str) -> bool {
        self.values.contains_key(path)
    }

    /// The path of the mapping under `prefix` (at any depth) whose `name:` is `name`: a field of
    /// a type (`types.T.fields.`), wherever bit groups nest it.
    pub fn named(&self, prefix: &str, name: &str) -> Option<String> {
        let mut found: Vec<&String> = self
            .texts
            .iter()
            .filter(|(path, text)| {
                path.starts_with(prefix) && path.ends_with(".name") && text.as_str() == name
            })
            .map(|(path, _)| path)
            .collect();
        found.sort();
        found
            .first()
            .map(|p| p[..p.len() - ".name".len()].to_string())
    }

    /// Whether `path` is inherited (an extension's base holds it): then positions point at the
    /// fallback.
    pub fn inherited(&self, path: &str) -> bool {
        self.fallback.is_some() && self.nearest(&self.values, path).is_none()
    }

    /// The position of `path` or of its nearest ancestor below the top-level sections.
    fn nearest(&self, map: &HashMap<String, Pos>, path: &str) -> Option<Pos> {
        let mut p = path;
        loop {
            if let Some(pos) = map.get(p) {
                return Some(*pos);
            }
            match p.rfind('.') {
                // A section (`types`) alone says nothing about which entry.
                Some(i) if p[..i].contains('.') || !path.contains('.') => p = &p[..i],
                _ => return None,
            }
        }
    }

    fn find(&self, map: &HashMap<String, Pos>, path: &str) -> Pos {
        if self.fallback.is_some() {
            return self
                .nearest(map, path)
                .or(self.fallback)
                .unwrap_or(Pos { line: 1, col: 1 });
        }
        let mut p = path;
        loop {
            if let Some(pos) = map.get(p) {
                return *pos;
            }
            match p.rfind('.') {
                Some(i) => p = &p[..i],
                None => return self.fallback.unwrap_or(Pos { line: 1, col: 1 }),
            }
        }
    }
}

enum Frame {
    Map { key: Option<String> },
    Seq { index: usize },
}

#[derive(Default)]
struct Builder {
    locs: Locations,
    stack: Vec<(String, Frame)>,
}

fn pos(m: Marker, style: Option<TScalarStyle>) -> Pos {
    // Quoted scalars start one column before their text; expressions point into the text.
    let quote = matches!(
        style,
        Some(TScalarStyle::SingleQuoted) | Some(TScalarStyle::DoubleQuoted)
    );
    Pos {
        line: m.line(),
        col: m.col() + 1 + usize::from(quote),
    }
}

impl Builder {
    /// The path of the node about to start, and whether it is a mapping key.
    fn next_path(&self) -> (String, bool) {
        match self.stack.last() {
            None => (String::new(), false),
            Some((path, Frame::Map { key: None })) => (path.clone(), true),
            Some((path, Frame::Map { key: Some(k) })) => (join(path, k), false),
            Some((path, Frame::Seq { index })) => (join(path, &index.to_string()), false),
        }
    }

    /// Called after a complete value: advance the parent frame.
    fn value_done(&mut self) {
        match self.stack.last_mut() {
            Some((_, Frame::Map { key })) => *key = None,
            Some((_, Frame::Seq { index })) => *index += 1,
            None => {}
        }
    }
}

fn join(path: &str, seg: &str) -> String {
    if path.is_empty() {
        seg.to_string()
    } else {
        format!("{path}.{seg}")
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::Scalar(text, style, ..) => {
                let (path, is_key) = self.next_path();
                if is_key {
                    let key_path = join(&path, &text);
                    self.locs.keys.insert(key_path, pos(mark, Some(style)));
                    if let Some((_, Frame::Map { key })) = self.stack.last_mut() {
                        *key = Some(text);
                    }
                } else {
                    self.locs
                        .values
                        .insert(path.clone(), pos(mark, Some(style)));
                    self.locs.texts.insert(path, text);
                    self.value_done();
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let (path, _) = self.next_path();
                self.locs.values.insert(path.clone(), pos(mark, None));
                let frame = if matches!(ev, Event::MappingStart(..)) {
                    Frame::Map { key: None }
                } else {
                    Frame::Seq { index: 0 }
                };
                self.stack.push((path, frame));
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
                self.value_done();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_point_at_values_and_keys() {
        let src = "protocol:\n  name: x\ntypes:\n  P:\n    fields:\n      - name: a\n        type: 'u8'\n";
        let l = Locations::index(src);
        assert_eq!(l.value("protocol.name"), Pos { line: 2, col: 9 });
        assert_eq!(l.key("types.P"), Pos { line: 4, col: 3 });
        assert_eq!(l.value("types.P.fields.0.type"), Pos { line: 7, col: 16 });
        assert_eq!(l.value("types.P.fields.0.nope").line, 6);
        assert_eq!(l.text("types.P.fields.0.type"), Some("u8"));
        assert_eq!(l.text("types.P.fields"), None);
    }
}
