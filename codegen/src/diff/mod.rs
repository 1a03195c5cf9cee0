//! `wiregen diff OLD NEW`: what changed between two versions of a protocol's schema, each
//! change classified as `buf breaking` classifies protobuf's:
//!
//! - **breaking**: the bytes change meaning (a field moved, its width, byte order, size rule or
//!   presence changed, an enum value renumbered or removed, a switch case removed, the layout
//!   changed): old and new programs misread each other;
//! - **dissector-only**: names, filter names, docs, ports (captures read the same bytes, filters
//!   and the Rust API change);
//! - **safe**: additions old readers tolerate (a case of a switch that keeps unknown tags, a
//!   value of an open enum, a flag bit, a trailing optional field).
//!
//! The types are compared structurally from the two roots (a type renamed is still paired with
//! its old self), each change at `file:line:col` of both sides.

mod rule;
mod switches;
mod types;
mod values;
mod walk;

pub use rule::{Allowance, Rule};

use crate::diag::Diagnostics;
use crate::ir::Protocol;
use crate::locate::{Locations, Pos};
use crate::pipeline;
use serde::Serialize;
use std::fmt;
use std::path::Path;

/// How a change affects programs and captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Breaking,
    DissectorOnly,
    Safe,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::DissectorOnly => "dissector-only",
            Class::Safe => "safe",
        }
    }
}

/// One difference.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub class: Class,
    /// The rule's name (`ENUM_VALUE_RENUMBERED`): what `--allow` names.
    pub rule: Rule,
    /// Where, as `Type.field` (or `Enum.VALUE`, `protocol.layout`).
    pub path: String,
    pub message: String,
    /// `file:line:col` in the old schema and the new one (absent on the side without it).
    pub old: Option<String>,
    pub new: Option<String>,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let here = self.new.as_ref().or(self.old.as_ref());
        if let Some(at) = here {
            write!(f, "{at}: ")?;
        }
        write!(
            f,
            "{}[{}]: {}: {}",
            self.class.name(),
            self.rule,
            self.path,
            self.message
        )?;
        match (&self.old, &self.new) {
            (Some(old), Some(_)) => write!(f, " (old: {old})"),
            _ => Ok(()),
        }
    }
}

/// A loaded schema and where its text is: its own file, then the schemas it builds on.
pub struct Side {
    pub p: Protocol,
    pub files: Vec<(String, Locations)>,
}

impl Side {
    /// Loads and validates `file` and indexes the positions of every file it read (paths
    /// shown relative to `root` when given, else as they are).
    pub fn load(file: &Path, root: Option<&Path>) -> Result<Side, Diagnostics> {
        let (p, read) = pipeline::load_recording(file, root)?;
        let files = read
            .iter()
            .map(|f| {
                let shown = root.and_then(|r| f.strip_prefix(r).ok()).unwrap_or(f);
                // It was just read: a file gone since only costs its positions.
                let text = std::fs::read_to_string(f).unwrap_or_default();
                (shown.display().to_string(), Locations::index(&text))
            })
            .collect();
        Ok(Side { p, files })
    }

    /// `file:line:col` of the YAML node at `path` (the first file holding it).
    pub fn at(&self, path: &str) -> Option<String> {
        let (file, locs) = self
            .files
            .iter()
            .find(|(_, l)| !l.inherited(path))
            .or(self.files.last())?;
        let Pos { line, col } = locs.key(path);
        Some(format!("{file}:{line}:{col}"))
    }

    /// `file:line:col` of field `name` of type `ty` (wherever bit groups nest it).
    pub fn field_at(&self, ty: &str, name: &str) -> Option<String> {
        let prefix = format!("types.{ty}.fields.");
        for (file, locs) in &self.files {
            if let Some(path) = locs.named(&prefix, name) {
                let Pos { line, col } = locs.key(&path);
                return Some(format!("{file}:{line}:{col}"));
            }
        }
        self.at(&format!("types.{ty}"))
    }

    /// `file:line:col` of the case `tag` of switch field `field` of type `ty`: in an
    /// extension's `cases:` block, else in the switch, else the field.
    pub fn case_at(&self, ty: &str, field: &str, tag: &str) -> Option<String> {
        for (file, locs) in &self.files {
            let added = format!("cases.{ty}.{field}.{tag}");
            let own = locs
                .named(&format!("types.{ty}.fields."), field)
                .map(|f| format!("{f}.switch.cases.{tag}"));
            if let Some(path) = std::iter::once(added).chain(own).find(|p| locs.holds(p)) {
                let Pos { line, col } = locs.key(&path);
                return Some(format!("{file}:{line}:{col}"));
            }
        }
        self.field_at(ty, field)
    }
}

/// Every difference between `old` and `new`, breaking ones first.
pub fn diff(old: &Side, new: &Side) -> Vec<Change> {
    let mut d = Differ {
        old,
        new,
        changes: Vec::new(),
    };
    d.protocol();
    let enum_pairs = types::compare(&mut d);
    values::compare(&mut d, &enum_pairs);
    d.changes.sort_by_key(|c| c.class);
    d.changes
}

/// The comparison under way.
pub(crate) struct Differ<'a> {
    pub old: &'a Side,
    pub new: &'a Side,
    pub changes: Vec<Change>,
}

impl<'a> Differ<'a> {
    /// The two protocols, for as long as the comparison.
    pub fn protocols(&self) -> (&'a Protocol, &'a Protocol) {
        (&self.old.p, &self.new.p)
    }

    pub fn push(
        &mut self,
        class: Class,
        rule: Rule,
        path: String,
        message: String,
        old: Option<String>,
        new: Option<String>,
    ) {
        self.changes.push(Change {
            class,
            rule,
            path,
            message,
            old,
            new,
        });
    }

    /// A change at the same place on both sides (`at`: old, new).
    pub fn push_at(
        &mut self,
        class: Class,
        rule: Rule,
        path: impl Into<String>,
        message: impl Into<String>,
        at: &(Option<String>, Option<String>),
    ) {
        self.push(
            class,
            rule,
            path.into(),
            message.into(),
            at.0.clone(),
            at.1.clone(),
        );
    }

    fn protocol(&mut self) {
        let (o, n) = self.protocols();
        let at = |s: &Side, key: &str| s.at(&format!("protocol.{key}"));
        if o.name != n.name {
            self.push(
                Class::DissectorOnly,
                Rule::ProtocolRenamed,
                "protocol.name".into(),
                format!(
                    "`{}` → `{}`: every filter name and the crate's name change",
                    o.name, n.name
                ),
                at(self.old, "name"),
                at(self.new, "name"),
            );
        }
        if o.layout != n.layout {
            self.push(
                Class::Breaking,
                Rule::LayoutChanged,
                "protocol.layout".into(),
                format!(
                    "`{}` → `{}`: every field is read another way",
                    o.layout.name(),
                    n.layout.name()
                ),
                at(self.old, "layout"),
                at(self.new, "layout"),
            );
        }
        let (ot, nt) = (&o.transport, &n.transport);
        if ot.tcp_length_prefix != nt.tcp_length_prefix
            || ot.tcp_counted != nt.tcp_counted
            || ot.tcp_length_at != nt.tcp_length_at
        {
            let show = |t: &crate::ir::Transport| {
                t.tcp_length_prefix.map_or("none".into(), |it| {
                    let at = t
                        .tcp_length_at
                        .map_or(String::new(), |at| format!(" at byte {at}"));
                    format!(
                        "{} {}{at}, {}",
                        it.name(),
                        it.endian.words(),
                        t.tcp_counts()
                    )
                })
            };
            self.push(
                Class::Breaking,
                Rule::FramingChanged,
                "protocol.transport.tcp.length_prefix".into(),
                format!("TCP length prefix {} → {}", show(ot), show(nt)),
                at(self.old, "transport"),
                at(self.new, "transport"),
            );
        }
        if ot.udp_ports != nt.udp_ports || ot.tcp_ports != nt.tcp_ports {
            self.push(
                Class::DissectorOnly,
                Rule::PortsChanged,
                "protocol.transport".into(),
                format!(
                    "ports UDP {:?} TCP {:?} → UDP {:?} TCP {:?}: the dissector registers on others",
                    ot.udp_ports, ot.tcp_ports, nt.udp_ports, nt.tcp_ports
                ),
                at(self.old, "transport"),
                at(self.new, "transport"),
            );
        }
    }
}

/// Whether `change` is one the user allowed: its rule, at any path or at the allowance's path
/// and under it (`Type` covers `Type.field`).
pub fn allowed(change: &Change, allow: &[Allowance]) -> bool {
    allow.iter().any(|a| {
        a.rule == change.rule
            && a.path.as_ref().is_none_or(|path| {
                change.path == *path || change.path.starts_with(&format!("{path}."))
            })
    })
}
