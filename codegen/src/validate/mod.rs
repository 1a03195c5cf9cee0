//! Schema → IR: resolves names, checks widths, expression types and layouts, derives the fields
//! the encoder fills in, and reports every mistake with `file:line:column` and a hint.

mod checks;
mod report;
mod resolve;

use crate::diag::{closest, did_you_mean, Code, Diagnostic, Diagnostics};
use crate::expr::{self, BinOp, TypeExpr, UnOp};
use crate::ir::*;
use crate::locate::Locations;
use crate::schema::{self, ExprOrInt, NamedValue, SchemaFile};
use heck::ToUpperCamelCase;
use std::collections::HashMap;

use self::{
    report::Report,
    resolve::{groups, Resolver},
};

/// Parses one schema file (YAML shape only).
fn parse(path: &str, source: &str) -> Result<SchemaFile, Diagnostics> {
    serde_norway::from_str(source).map_err(|e| {
        let (line, col) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 1));
        let message = e.to_string();
        // serde_norway appends " at line X column Y"; the prefix already says where.
        let message = match message.find(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        let hint = if message.contains("tab character") {
            Some("indent with spaces".to_string())
        } else if message.contains("did not find expected key")
            || message.contains("mapping values are not allowed")
        {
            Some("check the indentation of this line and the lines above".to_string())
        } else if message.contains("did not find expected ',' or '}'")
            || message.contains("did not find expected ',' or ']'")
        {
            Some("a '{' or '[' on an earlier line is not closed".to_string())
        } else if let Some(shapes) = untagged_shapes(&message) {
            Some(shapes.to_string())
        } else {
            misspelt_key(&message)
        };
        // serde's "data did not match any variant of untagged enum NamedValue" names our types.
        let message = match message.find("data did not match any variant of untagged enum") {
            Some(i) => format!(
                "{}this value has none of the shapes it may have",
                &message[..i]
            ),
            None => message,
        };
        Diagnostics(vec![Diagnostic {
            code: Code::E0001,
            file: path.to_string(),
            line,
            col,
            message,
            hint,
        }])
    })
}

/// The shapes a value of an untagged schema type may have, for serde's message about one that
/// has none of them.
fn untagged_shapes(message: &str) -> Option<&'static str> {
    let name = message
        .split("untagged enum ")
        .nth(1)?
        .split_whitespace()
        .next()?;
    Some(match name {
        "NamedValue" => {
            "a number, a range \"lo..hi\", or { value: N, doc: text }; quote a doc that holds \
             a comma, a colon or a brace"
        }
        "ConstDef" => "a number, or the name of one of the enum's values",
        "ValidDef" => "a list of numbers, or { min: N, max: N }",
        "ExprOrInt" => "a number or an expression in quotes",
        "CaseDef" => "a type name, 'bytes', 'empty', or { type: Name, name: Variant, doc: text }",
        "ChecksumDef" => "an algorithm's name, or { algorithm: name, from: field, to: field }",
        "CompressionDef" => "a method's name, or { method: name, max: N }",
        _ => return None,
    })
}

/// "did you mean" for serde's ``unknown field `lenght`, expected one of `name`, `length`, …``
/// (and unknown variants): the closest key it lists.
fn misspelt_key(message: &str) -> Option<String> {
    let rest = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| message.find(p).map(|i| &message[i + p.len()..]))?;
    let (wrong, expected) = rest.split_once('`')?;
    let candidates = expected.split('`').skip(1).step_by(2);
    crate::diag::did_you_mean(wrong, candidates)
}

/// Loads a schema that extends no other (see [`load_with`]).
pub fn load(path: &str, source: &str) -> Result<Protocol, Diagnostics> {
    load_with(path, source, &|name: &str| {
        Err(format!(
            "cannot read '{name}': this schema was loaded on its own"
        ))
    })
}

/// Reads a schema named by `extends`: its display path and text, from the name as written
/// (relative to the extending file).
pub type Resolve<'r> = &'r dyn Fn(&str) -> Result<(String, String), String>;

/// Loads and validates the schema at `path` (for messages) holding `source`; a schema that
/// extends another is merged over it first (`resolve` reads the base).
pub fn load_with(path: &str, source: &str, resolve: Resolve) -> Result<Protocol, Diagnostics> {
    let file = parse(path, source)?;
    let mut locs = Locations::index(source);
    let (file, base) = match file.protocol.extends.clone() {
        None => (file, None),
        Some(name) => {
            let at = locs.value("protocol.extends");
            let fail = |code: Code, message: String, hint: Option<String>| {
                Diagnostics(vec![Diagnostic {
                    code,
                    file: path.to_string(),
                    line: at.line,
                    col: at.col,
                    message,
                    hint,
                }])
            };
            let (base_path, base_source) = resolve(&name).map_err(|e| {
                fail(
                    Code::E0002,
                    e,
                    Some("a path relative to this schema, e.g. 'rtype.yaml'".into()),
                )
            })?;
            // The base is validated on its own first: its own mistakes are reported in it.
            let base_proto = load_with(&base_path, &base_source, resolve)?;
            let base_file = parse(&base_path, &base_source)?;
            if base_file.protocol.extends.is_some() {
                return Err(fail(
                    Code::E0003,
                    format!("'{name}' extends another schema itself"),
                    Some("extend the schema it extends, or merge the two".into()),
                ));
            }
            let (merged, changes) = crate::extend::merge(base_file, file);
            locs.fallback = Some(at);
            locs.base_texts = Some(Locations::index(&base_source).into_texts());
            (
                merged,
                Some(Base {
                    protocol: base_proto.name.clone(),
                    source: base_path,
                    touched: changes.touched,
                }),
            )
        }
    };
    // An application schema reads its transport's schema (validated on its own).
    let transport = match file.protocol.application.as_ref() {
        None => None,
        Some(a) => {
            let at = locs.value("protocol.application.transport");
            let fail = |message: String| {
                Diagnostics(vec![Diagnostic {
                    code: Code::E0004,
                    file: path.to_string(),
                    line: at.line,
                    col: at.col,
                    message,
                    hint: Some("a path relative to this schema, e.g. '../riptide-2.1.yaml'".into()),
                }])
            };
            let (tpath, tsource) = resolve(&a.transport).map_err(fail)?;
            Some(load_with(&tpath, &tsource, resolve)?)
        }
    };
    let mut file = file;
    let flattened = groups::flatten(&mut file);
    let report = Report {
        path: path.to_string(),
        locs,
        flattened,
        base_source: base.as_ref().map(|b| b.source.clone()),
        diags: Vec::new(),
    };
    let mut v = Resolver::new(report, &file, transport);
    let proto = v.protocol().map(|mut p| {
        p.base = base;
        p
    });
    if v.r.diags.is_empty() {
        Ok(proto.expect("no diagnostics means a protocol"))
    } else {
        Err(Diagnostics(v.r.diags))
    }
}
