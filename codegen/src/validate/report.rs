//! Where a schema's mistakes are reported: its positions (the YAML text's, with bit groups
//! flattened into their types' fields) and the diagnostics so far. Resolving and every check
//! report through it.

use super::resolve::groups::GroupSpec;
use super::*;
use crate::schema::LayoutDef;

pub(crate) struct Report {
    /// The schema's path, as messages name it.
    pub(crate) path: String,
    pub(crate) locs: Locations,
    /// Bit groups replaced by their fields, and every field's schema position.
    pub(crate) flattened: groups::Flattened,
    /// The schema an extension inherits from (named in messages about what it inherited).
    pub(crate) base_source: Option<String>,
    pub(crate) diags: Vec<Diagnostic>,
}

impl Report {
    /// Reports a mistake at the value of `yaml_path`, under its stable `code` (`docs/diagnostics.md`).
    pub(crate) fn error(
        &mut self,
        code: Code,
        yaml_path: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        let p = self.locs.value(yaml_path);
        let message = self.inherited(yaml_path, message.into());
        self.error_at(code, p.line, p.col, message, hint);
    }

    /// Reports a mistake at the key naming the value of `yaml_path`.
    pub(crate) fn error_key(
        &mut self,
        code: Code,
        yaml_path: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        let p = self.locs.key(yaml_path);
        let message = self.inherited(yaml_path, message.into());
        self.error_at(code, p.line, p.col, message, hint);
    }

    /// A mistake in what an extension inherited is reported at its `extends`, saying where in
    /// the base it shows.
    pub(crate) fn inherited(&self, yaml_path: &str, message: String) -> String {
        match &self.base_source {
            Some(base) if self.locs.inherited(yaml_path) => {
                format!("{message} (in {base} at {yaml_path}, as this extension changes it)")
            }
            _ => message,
        }
    }

    pub(crate) fn error_at(
        &mut self,
        code: Code,
        line: usize,
        col: usize,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.diags.push(Diagnostic {
            code,
            file: self.path.clone(),
            line,
            col,
            message: message.into(),
            hint,
        });
    }

    /// The schema path of field `i` of type `ty` (`Name` or `types.Name`), inside its bit group
    /// when it is packed into one.
    pub(crate) fn field_path(&self, ty: &str, i: usize) -> String {
        let name = ty.strip_prefix("types.").unwrap_or(ty);
        self.flattened
            .paths
            .get(name)
            .and_then(|p| p.get(i).cloned())
            .unwrap_or_else(|| format!("types.{name}.fields.{i}"))
    }

    /// The packing of field `i` of type `ty` when it belongs to a bit group.
    /// The bit group field `i` of type `ty` is packed in, if any.
    pub(crate) fn group_of(&self, ty: &str, i: usize) -> Option<&GroupSpec> {
        self.flattened
            .groups
            .get(ty)?
            .iter()
            .find(|g| g.fields.contains(&i))
    }

    pub(crate) fn group_layout(&self, ty: &str, i: usize) -> Option<Layout> {
        let g = self
            .flattened
            .groups
            .get(ty)?
            .iter()
            .find(|g| g.fields.contains(&i))?;
        Some(match g.layout {
            Some(LayoutDef::MsbBits) => Layout::MsbBits,
            _ => Layout::LsbBits,
        })
    }
}
