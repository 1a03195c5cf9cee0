//! Schema → IR: resolves names, checks widths, expression types and layouts, derives the fields
//! the encoder fills in, and reports every mistake with `file:line:column` and a hint.

mod application;
mod checksums;
mod cycles;
mod dead_cases;
mod derived;
mod enclosing;
mod expressions;
mod field_types;
mod field_values;
mod fields;
mod filters;
mod groups;
mod lift;
mod limits;
mod names;
mod protocol;
mod reliability;
mod session;
mod sizes;
mod solved_tags;
mod types;
mod unions;
mod wide_numbers;

use crate::diag::{closest, did_you_mean, Diagnostic, Diagnostics};
use crate::expr::{self, BinOp, TypeExpr, UnOp};
use crate::ir::*;
use crate::locate::Locations;
use crate::schema::{self, ExprOrInt, NamedValue, SchemaFile};
use heck::ToUpperCamelCase;
use std::collections::HashMap;

use self::{field_types::*, fields::*, types::*};

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
            code: "E0001",
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
            let fail = |code: &'static str, message: String, hint: Option<String>| {
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
                    "E0002",
                    e,
                    Some("a path relative to this schema, e.g. 'rtype.yaml'".into()),
                )
            })?;
            // The base is validated on its own first: its own mistakes are reported in it.
            let base_proto = load_with(&base_path, &base_source, resolve)?;
            let base_file = parse(&base_path, &base_source)?;
            if base_file.protocol.extends.is_some() {
                return Err(fail(
                    "E0003",
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
                    code: "E0004",
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
    let mut v = Validator {
        flattened,
        path: path.to_string(),
        locs,
        diags: Vec::new(),
        file: &file,
        enum_ids: HashMap::new(),
        flags_ids: HashMap::new(),
        struct_ids: HashMap::new(),
        shapes: Vec::new(),
        tables: HashMap::new(),
        in_tag: false,
        base_source: base.as_ref().map(|b| b.source.clone()),
        transport,
        enclosing_uses: Vec::new(),
    };
    let proto = v.protocol().map(|mut p| {
        p.base = base;
        p
    });
    if v.diags.is_empty() {
        Ok(proto.expect("no diagnostics means a protocol"))
    } else {
        Err(Diagnostics(v.diags))
    }
}

/// What pass one knows of a field: enough to resolve paths into it.
#[derive(Debug, Clone)]
enum Shape {
    Scalar,
    Bool,
    Enum(EnumId),
    Flags(FlagsId),
    Struct(StructId),
    Seq,
    Union,
    /// Neither a number nor a length (a NUL-terminated string).
    Opaque,
    Unknown,
}

struct Validator<'f> {
    /// Bit groups replaced by their fields, and every field's schema position.
    flattened: groups::Flattened,
    path: String,
    locs: Locations,
    diags: Vec<Diagnostic>,
    file: &'f SchemaFile,
    enum_ids: HashMap<String, EnumId>,
    flags_ids: HashMap<String, FlagsId>,
    struct_ids: HashMap<String, StructId>,
    /// Per struct, per field: name and shape.
    shapes: Vec<Vec<(String, Shape)>>,
    /// State tables by name: index and item enum.
    tables: HashMap<String, (usize, Option<EnumId>)>,
    /// A switch tag is being checked (the only place list items may be read).
    in_tag: bool,
    /// The schema an extension inherits from (named in messages about what it inherited).
    base_source: Option<String>,
    /// The transport an application schema rides on.
    transport: Option<Protocol>,
    /// Every `Header.channel` read so far, checked once all types are known.
    enclosing_uses: Vec<enclosing::EnclosingUse>,
}

/// The context an expression is checked in.
struct Scope<'a> {
    struct_id: StructId,
    /// Fields visible by name (the earlier fields of the struct).
    visible: usize,
    /// YAML path of the expression, and the offset of its text (for positions).
    yaml_path: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExprTy {
    Int,
    Bool,
    /// An expression already reported as wrong: fits anywhere, so one mistake gives one message.
    Error,
}

impl<'f> Validator<'f> {
    /// Reports a mistake at the value of `yaml_path`, under its stable `code` (`docs/diagnostics.md`).
    fn error(
        &mut self,
        code: &'static str,
        yaml_path: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        let p = self.locs.value(yaml_path);
        let message = self.inherited(yaml_path, message.into());
        self.error_at(code, p.line, p.col, message, hint);
    }

    /// Reports a mistake at the key naming the value of `yaml_path`.
    fn error_key(
        &mut self,
        code: &'static str,
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
    fn inherited(&self, yaml_path: &str, message: String) -> String {
        match &self.base_source {
            Some(base) if self.locs.inherited(yaml_path) => {
                format!("{message} (in {base} at {yaml_path}, as this extension changes it)")
            }
            _ => message,
        }
    }

    fn error_at(
        &mut self,
        code: &'static str,
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

    fn protocol(&mut self) -> Option<Protocol> {
        let p = &self.file.protocol;
        if !is_snake_ident(&p.name) {
            self.error(
                "E0101",
                "protocol.name",
                format!("protocol name '{}' is not a lower-case identifier", p.name),
                Some("use letters, digits and '_', e.g. 'rtype' or 'riptide_2_0'".into()),
            );
        }
        let (layout, endian) = self.layout_and_endian();
        // Names first, so that every type can refer to every other.
        self.declare_names();

        let enums: Vec<Enum> = self
            .file
            .enums
            .iter()
            .map(|(name, e)| self.enum_def(name, e, endian))
            .collect();
        let flags: Vec<Flags> = self
            .file
            .flags
            .iter()
            .map(|(name, f)| self.flags_def(name, f, endian))
            .collect();

        self.state_tables();

        // Pass one: shapes of every field, for path resolution across types.
        self.shapes = self
            .file
            .types
            .iter()
            .map(|(_, t)| {
                t.fields
                    .iter()
                    .map(|f| (f.name.clone(), self.shape(f)))
                    .collect()
            })
            .collect();

        let layouts = self.inherited_layouts(layout);
        let mut structs = Vec::new();
        for (id, (name, t)) in self.file.types.iter().enumerate() {
            structs.push(self.struct_def(id, name, t, endian, layouts[id]));
        }
        for s in &mut structs {
            self.bit_groups(s, &enums, &flags, endian);
        }
        self.bit_byte_order(&structs, &enums, &flags);

        let root = self.root_type();
        if self.file.types.is_empty() {
            self.error(
                "E0109",
                "types",
                "a schema needs at least one type under 'types'",
                None,
            );
            return None;
        }
        self.check_cycles(&structs);
        self.check_filters(&structs, root);

        let mut proto = Protocol {
            name: p.name.clone(),
            title: p.title.clone(),
            doc: p.doc.clone(),
            layout,
            root,
            transport: Transport::default(),
            opening: Vec::new(),
            reassembly: None,
            joins: Vec::new(),
            stream_joins: Vec::new(),
            state: Vec::new(),
            reliability: None,
            base: None,
            app_points: Vec::new(),
            application: None,
            enums,
            flags,
            structs,
            source: self.path.clone(),
            limits: Vec::new(),
            warnings: Vec::new(),
        };
        proto.transport = self.transport(&proto, endian);
        proto.opening = self.opening();
        proto.reassembly = self.reassembly(&proto);
        proto.joins = self.joins(&proto);
        proto.stream_joins = self.stream_joins(&proto);
        proto.state = self.state(&proto);
        proto.app_points = self.app_points(&proto);
        proto.application = self.application(&proto);
        proto.reliability = self.reliability(&proto);
        proto.limits = self.limits(&proto);
        self.check_names(&proto);
        self.check_bit_rest_arrays(&proto);
        self.check_endless_arrays(&proto);
        self.check_greedy_values(&proto);
        self.check_lengths_to_the_end(&proto);
        self.check_enclosing(&proto);
        proto.warnings = self.unread_types(&proto);
        proto.warnings.extend(self.dead_cases(&proto));
        if !proto.opening.is_empty() && proto.transport.udp_ports.is_empty() {
            self.error(
                "E0110",
                "protocol.conversation",
                "an opening needs the server's UDP ports",
                Some("add transport.udp.ports".into()),
            );
        }
        Some(proto)
    }

    /// The protocol's layout and byte order: an application reading the rest of a bit stream
    /// takes its order, and a bit stream's numbers take its bit order (E0102 otherwise).
    fn layout_and_endian(&mut self) -> (Layout, Endian) {
        let p = &self.file.protocol;
        let explicit_endian = p.endian.map(Endian::from);
        // An application whose payload is the rest of a bit stream reads it in that stream's
        // bit order.
        let app_bits = self.transport.as_ref().and_then(|t| {
            t.app_points
                .iter()
                .find(|a| matches!(t.structs[a.in_struct].fields[a.payload].ty, Ty::Bits))
                .map(|a| t.structs[a.in_struct].layout)
        });
        let layout = match p.layout {
            None => app_bits.unwrap_or(Layout::Bytes),
            Some(l) => Layout::from(l),
        };
        // A bit stream's numbers take its bit order.
        let stream = types::stream_order(layout);
        let endian = explicit_endian.unwrap_or(stream.endian);
        if layout.is_bits() && endian != stream.endian {
            let drop = stream.other;
            self.error(
                "E0102",
                "protocol.endian",
                format!(
                    "a {drop}-endian protocol in 'layout: {}': bit streams are read \
                     {}-significant bit first, so their numbers are {}-endian",
                    layout.name(),
                    stream.first,
                    stream.own
                ),
                Some(format!(
                    "drop 'endian: {drop}'; byte-layout types can still give each number its own \
                     byte order"
                )),
            );
        }
        (layout, endian)
    }

    /// Every enum's, flag set's and type's name and id (E0103 not UpperCamelCase, E0104 taken).
    fn declare_names(&mut self) {
        let mut taken: HashMap<String, String> = HashMap::new();
        let kinds = [
            ("enums", self.file.enums.keys().collect::<Vec<_>>()),
            ("flags", self.file.flags.keys().collect()),
            ("types", self.file.types.keys().collect()),
        ];
        for (kind, names) in kinds {
            for (i, name) in names.into_iter().enumerate() {
                let yp = format!("{kind}.{name}");
                if !is_camel_ident(name) {
                    self.error_key(
                        "E0103",
                        &yp,
                        format!("type name '{name}' is not UpperCamelCase"),
                        Some(format!("e.g. '{}'", name.to_upper_camel_case())),
                    );
                }
                if let Some(prev) = taken.insert(name.clone(), kind.to_string()) {
                    self.error_key(
                        "E0104",
                        &yp,
                        format!("duplicate type name '{name}' (already declared in '{prev}')"),
                        None,
                    );
                }
                match kind {
                    "enums" => self.enum_ids.insert(name.clone(), i),
                    "flags" => self.flags_ids.insert(name.clone(), i),
                    _ => self.struct_ids.insert(name.clone(), i),
                };
            }
        }
    }

    /// The state tables' names and the enum of their items (E0105).
    fn state_tables(&mut self) {
        let p = &self.file.protocol;
        for (i, (name, t)) in p.state.iter().enumerate() {
            let items = self.enum_ids.get(&t.items).copied();
            if items.is_none() {
                let hint = did_you_mean(&t.items, self.enum_ids.keys().map(String::as_str));
                self.error(
                    "E0105",
                    &format!("protocol.state.{name}.items"),
                    format!("'{}' is not an enum", t.items),
                    hint,
                );
            }
            self.tables.insert(name.clone(), (i, items));
        }
    }

    /// The root type (an application's first message when it names none): E0106 none, E0108
    /// unknown; and E0107 for an extension's `cases:` of a field that is no switch.
    fn root_type(&mut self) -> StructId {
        let p = &self.file.protocol;
        let app_root = p
            .application
            .as_ref()
            .and_then(|a| a.messages.values().next().cloned());
        let root_name = if p.root.is_empty() {
            app_root.clone().unwrap_or_default()
        } else {
            p.root.clone()
        };
        if root_name.is_empty() {
            self.error(
                "E0106",
                "protocol",
                "the protocol needs a 'root' type",
                Some("the type of one whole message, e.g. 'root: Packet'".into()),
            );
        }
        for target in self.file.cases.keys() {
            self.error_key(
                "E0107",
                &format!("cases.{target}"),
                format!("'{target}' is not a switch field of the base schema"),
                Some("write 'Type.field', e.g. 'Packet.payload'".into()),
            );
        }
        match self.struct_ids.get(&root_name) {
            Some(id) => *id,
            None if app_root.is_some() => 0,
            None => {
                let hint = did_you_mean(&root_name, self.struct_ids.keys().map(String::as_str));
                self.error(
                    "E0108",
                    "protocol.root",
                    format!("unknown root type '{root_name}'"),
                    hint,
                );
                0
            }
        }
    }

    // ---- expressions ----------------------------------------------------------------------
}

impl<'f> Validator<'f> {
    /// Types nothing reads: not the root, an opening datagram, a reassembled or joined whole,
    /// an application's message, nor held by any of them. Their code is generated and never
    /// used, which is rarely what a schema means (a misspelt case, a forgotten field).
    fn unread_types(&self, p: &Protocol) -> Vec<Diagnostic> {
        let mut roots = p.top_level_types();
        if let Some(a) = &p.application {
            roots.extend(a.messages.iter().map(|(_, ty)| *ty));
        }
        let reached = crate::ir::analysis::reached_from(p, roots, |_, _| true);
        // An extension's inherited types are its base's to use or not.
        let own = |name: &str| {
            self.file.types.contains_key(name) && !self.locs.inherited(&format!("types.{name}"))
        };
        p.structs
            .iter()
            .enumerate()
            .filter(|(id, s)| !reached.contains(id) && own(&s.name))
            .map(|(_, s)| {
                let at = self.locs.key(&format!("types.{}", s.name));
                Diagnostic {
                    code: "W0001",
                    file: self.path.clone(),
                    line: at.line,
                    col: at.col,
                    message: format!(
                        "nothing reads type '{}': the root does not hold it, nor does any type \
                         the outputs decode",
                        s.name
                    ),
                    hint: Some("use it in a field or a switch case, or remove it".into()),
                }
            })
            .collect()
    }
}
