//! Schema → IR: resolves names, checks widths, expression types and layouts, derives the fields
//! the encoder fills in, and reports every mistake with `file:line:column` and a hint.

use crate::diag::{did_you_mean, Diagnostic, Diagnostics};
use crate::expr::{self, BinOp, TypeExpr, UnOp};
use crate::ir::*;
use crate::locate::Locations;
use crate::schema::{self, ExprOrInt, NamedValue, SchemaFile};
use heck::ToUpperCamelCase;
use std::collections::HashMap;

/// Parses one schema file (YAML shape only).
fn parse(path: &str, source: &str) -> Result<SchemaFile, Diagnostics> {
    serde_yaml::from_str(source).map_err(|e| {
        let (line, col) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 1));
        let message = e.to_string();
        // serde_yaml appends " at line X column Y"; the prefix already says where.
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
        } else {
            None
        };
        Diagnostics(vec![Diagnostic {
            file: path.to_string(),
            line,
            col,
            message,
            hint,
        }])
    })
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
            let fail = |message: String, hint: Option<String>| {
                Diagnostics(vec![Diagnostic {
                    file: path.to_string(),
                    line: at.line,
                    col: at.col,
                    message,
                    hint,
                }])
            };
            let (base_path, base_source) = resolve(&name).map_err(|e| {
                fail(
                    e,
                    Some("a path relative to this schema, e.g. 'rtype.yaml'".into()),
                )
            })?;
            // The base is validated on its own first: its own mistakes are reported in it.
            let base_proto = load_with(&base_path, &base_source, resolve)?;
            let base_file = parse(&base_path, &base_source)?;
            if base_file.protocol.extends.is_some() {
                return Err(fail(
                    format!("'{name}' extends another schema itself"),
                    Some("extend the schema it extends, or merge the two".into()),
                ));
            }
            let (merged, changes) = crate::extend::merge(base_file, file);
            locs.fallback = Some(at);
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
    let mut v = Validator {
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
    Unknown,
}

struct Validator<'f> {
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
    fn error(&mut self, yaml_path: &str, message: impl Into<String>, hint: Option<String>) {
        let p = self.locs.value(yaml_path);
        let message = self.inherited(yaml_path, message.into());
        self.error_at(p.line, p.col, message, hint);
    }

    fn error_key(&mut self, yaml_path: &str, message: impl Into<String>, hint: Option<String>) {
        let p = self.locs.key(yaml_path);
        let message = self.inherited(yaml_path, message.into());
        self.error_at(p.line, p.col, message, hint);
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
        line: usize,
        col: usize,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.diags.push(Diagnostic {
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
                "protocol.name",
                format!("protocol name '{}' is not a lower-case identifier", p.name),
                Some("use letters, digits and '_', e.g. 'rtype' or 'riptide_2_0'".into()),
            );
        }
        let endian = self
            .endian(p.endian.as_deref(), "protocol.endian")
            .unwrap_or(Endian::Little);
        let app_bits = self.transport.as_ref().is_some_and(|t| {
            t.app_points
                .iter()
                .any(|a| matches!(t.structs[a.in_struct].fields[a.payload].ty, Ty::Bits))
        });
        let layout = match p.layout.as_deref() {
            None if app_bits => Layout::LsbBits,
            None | Some("bytes") => Layout::Bytes,
            Some("lsb-bits") => Layout::LsbBits,
            Some(other) => {
                self.error(
                    "protocol.layout",
                    format!("unknown layout '{other}'"),
                    Some("expected 'bytes' or 'lsb-bits'".into()),
                );
                Layout::Bytes
            }
        };

        // Names first, so that every type can refer to every other.
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
                        &yp,
                        format!("type name '{name}' is not UpperCamelCase"),
                        Some(format!("e.g. '{}'", name.to_upper_camel_case())),
                    );
                }
                if let Some(prev) = taken.insert(name.clone(), kind.to_string()) {
                    self.error_key(
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

        for (i, (name, t)) in p.state.iter().enumerate() {
            let items = self.enum_ids.get(&t.items).copied();
            if items.is_none() {
                let hint = did_you_mean(&t.items, self.enum_ids.keys().map(String::as_str));
                self.error(
                    &format!("protocol.state.{name}.items"),
                    format!("'{}' is not an enum", t.items),
                    hint,
                );
            }
            self.tables.insert(name.clone(), (i, items));
        }

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
                "protocol",
                "the protocol needs a 'root' type",
                Some("the type of one whole message, e.g. 'root: Packet'".into()),
            );
        }
        for target in self.file.cases.keys() {
            self.error_key(
                &format!("cases.{target}"),
                format!("'{target}' is not a switch field of the base schema"),
                Some("write 'Type.field', e.g. 'Packet.payload'".into()),
            );
        }
        let root = match self.struct_ids.get(&root_name) {
            Some(id) => *id,
            None if app_root.is_some() => 0,
            None => {
                let hint = did_you_mean(&root_name, self.struct_ids.keys().map(String::as_str));
                self.error(
                    "protocol.root",
                    format!("unknown root type '{root_name}'"),
                    hint,
                );
                0
            }
        };
        if self.file.types.is_empty() {
            self.error(
                "types",
                "a schema needs at least one type under 'types'",
                None,
            );
            return None;
        }
        self.check_cycles(&structs);

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
            state: Vec::new(),
            base: None,
            app_points: Vec::new(),
            application: None,
            enums,
            flags,
            structs,
            source: self.path.clone(),
        };
        proto.transport = self.transport(&proto, endian);
        proto.opening = self.opening();
        proto.reassembly = self.reassembly(&proto);
        proto.joins = self.joins(&proto);
        proto.state = self.state(&proto);
        proto.app_points = self.app_points(&proto);
        proto.application = self.application(&proto);
        if !proto.opening.is_empty() && proto.transport.udp_ports.is_empty() {
            self.error(
                "protocol.conversation",
                "an opening needs the server's UDP ports",
                Some("add transport.udp.ports".into()),
            );
        }
        Some(proto)
    }

    /// Each type's layout: its own, else inherited from an enclosing bit-stream type, else the
    /// protocol's. Types used inside a bit stream are bit streams too.
    fn inherited_layouts(&self, default: Layout) -> Vec<Layout> {
        let own = |t: &schema::TypeDef| match t.layout.as_deref() {
            Some("lsb-bits") => Some(Layout::LsbBits),
            Some("bytes") => Some(Layout::Bytes),
            _ => None,
        };
        let mut layouts: Vec<Layout> = self
            .file
            .types
            .values()
            .map(|t| own(t).unwrap_or(default))
            .collect();
        let children = |t: &schema::TypeDef| -> Vec<StructId> {
            let mut out = Vec::new();
            for f in &t.fields {
                if let Some(ty) = &f.ty {
                    let base = ty.trim_end_matches("[]");
                    out.extend(self.struct_ids.get(base).copied());
                }
                if let Some(sw) = &f.switch {
                    for case in sw.cases.values().chain(sw.default.iter()) {
                        let name = match case {
                            schema::CaseDef::Type(t) => t,
                            schema::CaseDef::Named { ty, .. } => ty,
                        };
                        out.extend(self.struct_ids.get(name.as_str()).copied());
                    }
                }
            }
            out
        };
        let mut work: Vec<StructId> = (0..layouts.len())
            .filter(|i| layouts[*i] == Layout::LsbBits)
            .collect();
        while let Some(id) = work.pop() {
            let (_, t) = self.file.types.get_index(id).unwrap();
            for c in children(t) {
                let (_, ct) = self.file.types.get_index(c).unwrap();
                if layouts[c] != Layout::LsbBits && own(ct).is_none() {
                    layouts[c] = Layout::LsbBits;
                    work.push(c);
                }
            }
        }
        layouts
    }

    fn reassembly(&mut self, proto: &Protocol) -> Option<Reassembly> {
        let r = self.file.protocol.reassembly.as_ref()?;
        let yp = "protocol.reassembly";
        let root = proto.root();
        let label = format!("the root type '{}'", root.name);
        let field_of = |v: &mut Self, name: &str, at: &str| {
            v.field_in(proto, proto.root, &label, name, &format!("{yp}.{at}"))
        };
        let field = field_of(self, &r.field, "field")?;
        let piece_ok = match &root.fields[field].ty {
            Ty::Bytes(Len::Rest) => true,
            Ty::Union(u) => u.default == Some(CaseBody::Bytes),
            _ => false,
        };
        if !piece_ok {
            self.error(&format!("{yp}.field"), format!("'{}' must be a bytes field that runs to the end, or a switch whose default is bytes", r.field), None);
        }
        let index = field_of(self, &r.index, "index")?;
        let mut key = Vec::new();
        for (k, name) in r.key.iter().enumerate() {
            key.push(field_of(self, name, &format!("key.{k}"))?);
        }
        let all = root.fields.len();
        let end = match (&r.last, &r.count) {
            (Some(last), None) => {
                let scope = Scope {
                    struct_id: proto.root,
                    visible: all,
                    yaml_path: &format!("{yp}.last"),
                };
                PieceEnd::Last(self.expr_of(&scope, last, ExprTy::Bool))
            }
            (None, Some(count)) => PieceEnd::Count(field_of(self, count, "count")?),
            _ => {
                self.error(
                    yp,
                    "reassembly needs exactly one of 'last' and 'count'",
                    None,
                );
                return None;
            }
        };
        let when = r.when.as_ref().map(|w| {
            let scope = Scope {
                struct_id: proto.root,
                visible: all,
                yaml_path: &format!("{yp}.when"),
            };
            self.expr_of(&scope, w, ExprTy::Bool)
        });
        let whole = match (&r.client, &r.server, &r.as_field) {
            (Some(c), Some(sv), None) => {
                let (client, server) = (
                    self.struct_ids.get(c).copied(),
                    self.struct_ids.get(sv).copied(),
                );
                if client.is_none() || server.is_none() {
                    self.error(yp, "unknown whole type for client or server", None);
                    return None;
                }
                if proto.transport.udp_ports.is_empty() {
                    self.error(
                        yp,
                        "reassembly by direction needs the server's UDP ports",
                        Some("add transport.udp.ports".into()),
                    );
                }
                WholeType::ByDirection {
                    client: client?,
                    server: server?,
                }
            }
            (None, None, Some(f)) => {
                let fi = field_of(self, f, "as")?;
                if !matches!(root.fields[fi].ty, Ty::Union(_)) {
                    self.error(&format!("{yp}.as"), format!("'{f}' is not a switch"), None);
                }
                WholeType::AsField(fi)
            }
            _ => {
                self.error(
                    yp,
                    "say what the whole is: 'client' and 'server' types, or 'as' a switch field",
                    None,
                );
                return None;
            }
        };
        Some(Reassembly {
            field,
            key,
            index,
            end,
            when,
            piece_size: r.piece_size,
            whole,
        })
    }

    /// A field of struct `sid` by name, or an error at `yp` with a suggestion.
    fn field_named(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        name: &str,
        yp: &str,
    ) -> Option<usize> {
        let label = format!("'{}'", proto.structs[sid].name);
        self.field_in(proto, sid, &label, name, yp)
    }

    /// [`Self::field_named`], the struct called `label` in the message.
    fn field_in(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        label: &str,
        name: &str,
        yp: &str,
    ) -> Option<usize> {
        let s = &proto.structs[sid];
        let found = s.fields.iter().position(|f| f.name == name);
        if found.is_none() {
            let hint = did_you_mean(name, s.fields.iter().map(|f| f.name.as_str()));
            self.error(yp, format!("'{name}' is not a field of {label}"), hint);
        }
        found
    }

    fn struct_named(&mut self, name: &str, yp: &str) -> Option<StructId> {
        let found = self.struct_ids.get(name).copied();
        if found.is_none() {
            let hint = did_you_mean(name, self.struct_ids.keys().map(String::as_str));
            self.error(yp, format!("unknown type '{name}'"), hint);
        }
        found
    }

    fn joins(&mut self, proto: &Protocol) -> Vec<Join> {
        let mut out = Vec::new();
        for (k, j) in self.file.protocol.sequence_reassembly.iter().enumerate() {
            let yp = format!("protocol.sequence_reassembly.{k}");
            let Some(sid) = self.struct_named(&j.in_type, &format!("{yp}.in")) else {
                continue;
            };
            if proto.structs[sid].layout != Layout::Bytes {
                self.error(
                    &format!("{yp}.in"),
                    "parts in bit-stream types are not supported yet",
                    None,
                );
            }
            if j.fields.is_empty() {
                self.error(
                    &format!("{yp}.fields"),
                    "name at least one bytes field",
                    None,
                );
            }
            if !j.as_types.is_empty() && j.as_types.len() != j.fields.len() {
                self.error(
                    &format!("{yp}.as"),
                    format!(
                        "'as' gives {} types for {} fields",
                        j.as_types.len(),
                        j.fields.len()
                    ),
                    Some("one type (or 'bytes') per field, in the same order".into()),
                );
            }
            let mut streams = Vec::new();
            for (i, name) in j.fields.iter().enumerate() {
                let fp = format!("{yp}.fields.{i}");
                let Some(field) = self.field_named(proto, sid, name, &fp) else {
                    continue;
                };
                if !matches!(proto.structs[sid].fields[field].ty, Ty::Bytes(_)) {
                    self.error(&fp, format!("'{name}' must be a bytes field"), None);
                }
                let whole = match j.as_types.get(i).map(String::as_str) {
                    None | Some("bytes") => None,
                    Some(t) => self.struct_named(t, &format!("{yp}.as.{i}")),
                };
                if let Some(w) = whole {
                    if proto.structs[w].layout != Layout::Bytes {
                        self.error(
                            &format!("{yp}.as.{i}"),
                            "a joined stream decodes as a byte-aligned type",
                            None,
                        );
                    }
                }
                streams.push(Stream { field, whole });
            }
            let mut key = Vec::new();
            for (i, name) in j.key.iter().enumerate() {
                key.extend(self.field_named(proto, sid, name, &format!("{yp}.key.{i}")));
            }
            let Some(sequence) =
                self.field_named(proto, sid, &j.sequence, &format!("{yp}.sequence"))
            else {
                continue;
            };
            let range = match &proto.structs[sid].fields[sequence].ty {
                Ty::Int(it) if !it.signed => it.max_value().saturating_add(1),
                _ => {
                    self.error(
                        &format!("{yp}.sequence"),
                        format!("'{}' must be an unsigned integer", j.sequence),
                        None,
                    );
                    continue;
                }
            };
            let wrap = j.wrap.unwrap_or(range);
            if wrap < 2 || wrap > range {
                self.error(
                    &format!("{yp}.wrap"),
                    format!("wrap {wrap} is outside 2..={range} (the sequence field's range)"),
                    None,
                );
            }
            let all = proto.structs[sid].fields.len();
            let cond = |v: &mut Self, text: &str, at: &str| {
                let scope = Scope {
                    struct_id: sid,
                    visible: all,
                    yaml_path: &format!("{yp}.{at}"),
                };
                v.expr_of(&scope, text, ExprTy::Bool)
            };
            let first = cond(self, &j.first, "first");
            let last = cond(self, &j.last, "last");
            if j.piece_size == 0 {
                self.error(
                    &format!("{yp}.piece_size"),
                    "piece_size must be at least 1",
                    None,
                );
            }
            out.push(Join {
                in_struct: sid,
                streams,
                key,
                sequence,
                wrap,
                first,
                last,
                piece_size: j.piece_size,
            });
        }
        out
    }

    fn state(&mut self, proto: &Protocol) -> Vec<StateTable> {
        let mut out = Vec::new();
        for (name, t) in &self.file.protocol.state {
            let yp = format!("protocol.state.{name}");
            let Some((_, Some(items))) = self.tables.get(name).copied() else {
                continue;
            };
            let mut records = Vec::new();
            for (k, r) in t.record.iter().enumerate() {
                let rp = format!("{yp}.record.{k}");
                let Some(sid) = self.struct_named(&r.in_type, &format!("{rp}.in")) else {
                    continue;
                };
                let Some(key) = self.field_named(proto, sid, &r.key, &format!("{rp}.key")) else {
                    continue;
                };
                if !matches!(proto.structs[sid].fields[key].ty, Ty::Int(_)) {
                    self.error(
                        &format!("{rp}.key"),
                        format!("key '{}' must be an integer field", r.key),
                        None,
                    );
                }
                let ip = format!("{rp}.items");
                let steps: Vec<&str> = r.items.split('.').collect();
                let (mut holder, mut via, mut rest) = (sid, None, &steps[..]);
                // A first step naming a joined stream continues in its whole.
                if let Some(first) = steps.first() {
                    for (ji, j) in proto.joins.iter().enumerate() {
                        if j.in_struct != sid {
                            continue;
                        }
                        for (si, st) in j.streams.iter().enumerate() {
                            if proto.structs[sid].fields[st.field].name == *first {
                                match st.whole {
                                    Some(w) => {
                                        holder = w;
                                        via = Some((ji, si));
                                        rest = &steps[1..];
                                    }
                                    None => self.error(
                                        &ip,
                                        format!("the joined stream '{first}' stays bytes"),
                                        None,
                                    ),
                                }
                            }
                        }
                    }
                }
                let [list, item] = rest else {
                    self.error(
                        &ip,
                        format!(
                            "'{}' should be an array field and its elements' field",
                            r.items
                        ),
                        Some("e.g. 'values.type'".into()),
                    );
                    continue;
                };
                let Some(list) = self.field_named(proto, holder, list, &ip) else {
                    continue;
                };
                let elem = match &proto.structs[holder].fields[list].ty {
                    Ty::Array(e, _) => match **e {
                        Ty::Struct(id, _) => Some(id),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(elem) = elem else {
                    self.error(
                        &ip,
                        format!(
                            "'{}' is not an array of a type with fields",
                            proto.structs[holder].fields[list].name
                        ),
                        None,
                    );
                    continue;
                };
                let Some(item) = self.field_named(proto, elem, item, &ip) else {
                    continue;
                };
                if !matches!(proto.structs[elem].fields[item].ty, Ty::Enum(e) if e == items) {
                    self.error(
                        &ip,
                        format!(
                            "'{}' is not of the table's enum '{}'",
                            r.items, proto.enums[items].name
                        ),
                        None,
                    );
                }
                records.push(Record {
                    in_struct: sid,
                    key,
                    via,
                    holder,
                    list,
                    elem,
                    item,
                });
            }
            out.push(StateTable {
                name: name.clone(),
                doc: t.doc.clone(),
                items,
                records,
            });
        }
        out
    }

    fn app_points(&mut self, proto: &Protocol) -> Vec<AppPoint> {
        let mut out = Vec::new();
        for (k, a) in self.file.protocol.applications.iter().enumerate() {
            let yp = format!("protocol.applications.{k}");
            let Some(sid) = self.struct_named(&a.in_type, &format!("{yp}.in")) else {
                continue;
            };
            let id = match &a.id {
                None => None,
                Some(name) => {
                    let Some(id) = self.field_named(proto, sid, name, &format!("{yp}.id")) else {
                        continue;
                    };
                    if !matches!(
                        proto.structs[sid].fields[id].ty,
                        Ty::Int(_) | Ty::VarInt(VarInt::Leb128)
                    ) {
                        self.error(
                            &format!("{yp}.id"),
                            format!("'{name}' must be an unsigned integer"),
                            None,
                        );
                    }
                    Some(id)
                }
            };
            let Some(payload) = self.field_named(proto, sid, &a.payload, &format!("{yp}.payload"))
            else {
                continue;
            };
            if !matches!(
                proto.structs[sid].fields[payload].ty,
                Ty::Bits | Ty::Bytes(Len::Rest)
            ) {
                self.error(
                    &format!("{yp}.payload"),
                    format!("'{}' must be bytes or bits running to the end", a.payload),
                    None,
                );
            }
            out.push(AppPoint {
                in_struct: sid,
                id,
                payload,
            });
        }
        out
    }

    fn application(&mut self, proto: &Protocol) -> Option<Application> {
        let a = self.file.protocol.application.as_ref()?;
        let t = self.transport.clone()?;
        if t.app_points.is_empty() {
            self.error(
                "protocol.application.transport",
                format!(
                    "the transport '{}' declares no 'applications' to plug into",
                    t.name
                ),
                None,
            );
            return None;
        }
        let mut messages = Vec::new();
        for (id, name) in &a.messages {
            if let Some(sid) =
                self.struct_named(name, &format!("protocol.application.messages.{id}"))
            {
                messages.push((*id, sid));
            }
        }
        let bits = t
            .app_points
            .iter()
            .any(|p| matches!(t.structs[p.in_struct].fields[p.payload].ty, Ty::Bits));
        if bits != (proto.layout == Layout::LsbBits) {
            self.error(
                "protocol.layout",
                "an application's layout follows its transport's payloads (bits or bytes)",
                None,
            );
        }
        let points = t
            .app_points
            .iter()
            .map(|p| {
                let s = &t.structs[p.in_struct];
                let id = p.id.map(|id| {
                    let rust = match &s.fields[id].ty {
                        Ty::Int(it) => format!("u{}", it.storage_bits()),
                        _ => "u64".to_string(),
                    };
                    (s.fields[id].name.clone(), rust)
                });
                PointInfo {
                    type_name: s.name.clone(),
                    borrows: t.struct_borrows(p.in_struct),
                    id,
                    payload_field: s.fields[p.payload].name.clone(),
                }
            })
            .collect();
        let carried = t.app_points.iter().any(|p| p.id.is_some());
        let own_id = match (&a.id, carried) {
            (Some(text), false) => {
                let it = self.int_ty(text, "protocol.application.id", Endian::Little);
                if it.is_some_and(|it| it.signed || it.bits % 8 != 0 || it.bits > 32) {
                    self.error(
                        "protocol.application.id",
                        "the message id is an unsigned integer of 1 to 4 bytes",
                        None,
                    );
                }
                it
            }
            (None, false) => {
                self.error(
                    "protocol.application",
                    format!("'{}' carries no message id: say the type of the one your messages start with", t.name),
                    Some("e.g. 'id: u8'".into()),
                );
                None
            }
            (Some(_), true) => {
                self.error(
                    "protocol.application.id",
                    format!("'{}' carries the message id itself", t.name),
                    Some("remove 'id'".into()),
                );
                None
            }
            (None, true) => None,
        };
        Some(Application {
            transport: t.name.clone(),
            transport_crate: t.name.replace('_', "-"),
            bits,
            points,
            messages,
            own_id,
        })
    }

    fn opening(&mut self) -> Vec<(Side, StructId)> {
        let Some(conv) = &self.file.protocol.conversation else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, step) in conv.opening.iter().enumerate() {
            let yp = format!("protocol.conversation.opening.{k}");
            let side = match step.from.as_str() {
                "client" => Side::Client,
                "server" => Side::Server,
                other => {
                    self.error(
                        &format!("{yp}.from"),
                        format!("unknown side '{other}'"),
                        Some("expected 'client' or 'server'".into()),
                    );
                    continue;
                }
            };
            if let Some(id) = self.struct_named(&step.ty, &format!("{yp}.type")) {
                out.push((side, id));
            }
        }
        out
    }

    fn endian(&mut self, e: Option<&str>, yp: &str) -> Option<Endian> {
        match e {
            None => None,
            Some("little" | "le") => Some(Endian::Little),
            Some("big" | "be") => Some(Endian::Big),
            Some(other) => {
                self.error(
                    yp,
                    format!("unknown byte order '{other}'"),
                    Some("expected 'little' or 'big'".into()),
                );
                None
            }
        }
    }

    /// An integer type used as a representation (enum, flags, prefix, framing).
    fn int_ty(&mut self, text: &str, yp: &str, endian: Endian) -> Option<IntTy> {
        match expr::parse_type(text) {
            Ok(TypeExpr::Int {
                bits,
                signed,
                endian: e,
            }) if (1..=64).contains(&bits) => {
                let endian = self.endian(e.as_deref(), yp).unwrap_or(endian);
                Some(IntTy {
                    bits,
                    signed,
                    endian,
                })
            }
            _ => {
                self.error(
                    yp,
                    format!("'{text}' is not an integer type"),
                    Some("expected u1..u64 or i1..i64, e.g. 'u8' or 'u16be'".into()),
                );
                None
            }
        }
    }

    fn named_values(
        &mut self,
        yp: &str,
        values: &indexmap::IndexMap<String, NamedValue>,
        repr: IntTy,
    ) -> Vec<NamedConst> {
        let mut out: Vec<NamedConst> = Vec::new();
        for (name, v) in values {
            let (value, doc) = match v {
                NamedValue::Plain(v) => (*v, None),
                NamedValue::Documented { value, doc } => (*value, doc.clone()),
            };
            let vp = format!("{yp}.{name}");
            if !is_value_ident(name) {
                self.error_key(
                    &vp,
                    format!("'{name}' is not a valid value name"),
                    Some("use letters, digits and '_'".into()),
                );
            }
            if value > repr.max_value() {
                self.error(
                    &vp,
                    format!("value {value} does not fit in {} bits", repr.bits),
                    None,
                );
            }
            if let Some(prev) = out.iter().find(|c| c.value == value) {
                self.error(
                    &vp,
                    format!("value {value} is already named '{}'", prev.name),
                    None,
                );
            }
            out.push(NamedConst {
                name: name.clone(),
                value,
                doc,
            });
        }
        out
    }

    fn enum_def(&mut self, name: &str, e: &schema::EnumDef, endian: Endian) -> Enum {
        let yp = format!("enums.{name}");
        if e.repr.is_empty() {
            self.error_key(
                &yp,
                format!("enum '{name}' needs a 'type'"),
                Some("its integer type, e.g. 'type: u8'".into()),
            );
        }
        let repr = Some(&e.repr)
            .filter(|r| !r.is_empty())
            .and_then(|r| self.int_ty(r, &format!("{yp}.type"), endian))
            .unwrap_or(IntTy {
                bits: 8,
                signed: false,
                endian,
            });
        let values = self.named_values(&format!("{yp}.values"), &e.values, repr);
        Enum {
            name: name.to_string(),
            doc: e.doc.clone(),
            repr,
            closed: e.closed,
            values,
        }
    }

    fn flags_def(&mut self, name: &str, f: &schema::FlagsDef, endian: Endian) -> Flags {
        let yp = format!("flags.{name}");
        if f.repr.is_empty() {
            self.error_key(
                &yp,
                format!("flags '{name}' needs a 'type'"),
                Some("its integer type, e.g. 'type: u8'".into()),
            );
        }
        let repr = Some(&f.repr)
            .filter(|r| !r.is_empty())
            .and_then(|r| self.int_ty(r, &format!("{yp}.type"), endian))
            .unwrap_or(IntTy {
                bits: 8,
                signed: false,
                endian,
            });
        let bits = self.named_values(&format!("{yp}.bits"), &f.bits, repr);
        for b in &bits {
            if b.value == 0 || !b.value.is_power_of_two() {
                self.error(
                    &format!("{yp}.bits.{}", b.name),
                    format!(
                        "flag '{}' has mask {:#x}, which is not a single bit",
                        b.name, b.value
                    ),
                    None,
                );
            }
        }
        Flags {
            name: name.to_string(),
            doc: f.doc.clone(),
            repr,
            bits,
        }
    }

    fn shape(&self, f: &schema::FieldDef) -> Shape {
        if f.switch.is_some() {
            return Shape::Union;
        }
        let Some(t) = &f.ty else {
            return Shape::Unknown;
        };
        match expr::parse_type(t) {
            Ok(TypeExpr::Array(_) | TypeExpr::Bytes | TypeExpr::String) => Shape::Seq,
            Ok(TypeExpr::Bool) => Shape::Bool,
            Ok(TypeExpr::Named(n)) => {
                if let Some(id) = self.enum_ids.get(&n) {
                    Shape::Enum(*id)
                } else if let Some(id) = self.flags_ids.get(&n) {
                    Shape::Flags(*id)
                } else if let Some(id) = self.struct_ids.get(&n) {
                    Shape::Struct(*id)
                } else {
                    Shape::Unknown
                }
            }
            Ok(_) => Shape::Scalar,
            Err(_) => Shape::Unknown,
        }
    }

    fn struct_def(
        &mut self,
        id: StructId,
        name: &str,
        t: &schema::TypeDef,
        endian: Endian,
        layout: Layout,
    ) -> Struct {
        let yp = format!("types.{name}");
        let layout = match t.layout.as_deref() {
            None => layout,
            Some("bytes") => Layout::Bytes,
            Some("lsb-bits") => Layout::LsbBits,
            Some(other) => {
                self.error(
                    &format!("{yp}.layout"),
                    format!("unknown layout '{other}'"),
                    Some("expected 'bytes' or 'lsb-bits'".into()),
                );
                layout
            }
        };
        let mut fields: Vec<Field> = Vec::new();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, f) in t.fields.iter().enumerate() {
            let fp = format!("{yp}.fields.{i}");
            if !is_snake_ident(&f.name) {
                self.error(
                    &format!("{fp}.name"),
                    format!("field name '{}' is not snake_case", f.name),
                    None,
                );
            }
            if seen.insert(&f.name, i).is_some() {
                self.error(
                    &format!("{fp}.name"),
                    format!("duplicate field '{}' in type '{name}'", f.name),
                    None,
                );
            }
            let field = self.field(id, i, f, &fp, endian, layout);
            fields.push(field);
        }
        // A field that runs to the end of its scope must be the last one.
        for (i, f) in fields.iter().enumerate() {
            if i + 1 < fields.len() && runs_to_end(&f.ty) {
                self.error(
                    &format!("{yp}.fields.{i}"),
                    format!(
                        "field '{}' runs to the end of '{name}' but is not its last field",
                        f.name
                    ),
                    Some("give it a 'length', 'count' or 'prefix'".into()),
                );
            }
        }
        self.derive(name, &yp, &mut fields);
        let info = self.info(&yp, t.info.as_deref(), &fields);
        Struct {
            name: name.to_string(),
            layout,
            explicit_layout: t.layout.is_some(),
            doc: t.doc.clone(),
            info,
            fields,
        }
    }

    fn field(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
        layout: Layout,
    ) -> Field {
        let endian = self
            .endian(f.endian.as_deref(), &format!("{fp}.endian"))
            .unwrap_or(endian);
        let scope = |suffix: &str| format!("{fp}.{suffix}");
        let mut role = Role::Value;

        let ty = if let Some(sw) = &f.switch {
            if f.ty.is_some() {
                self.error(
                    &scope("type"),
                    "a field has either a 'type' or a 'switch', not both",
                    None,
                );
            }
            // Without a length the union is as long as its variant (a `bytes` variant: the rest).
            let len = if f.length.is_some() || f.prefix.is_some() {
                self.len_of(sid, index, f, fp, endian, false)
            } else {
                Len::Natural
            };
            Ty::Union(Box::new(self.union(sid, index, sw, &scope("switch"), len)))
        } else if let Some(t) = &f.ty {
            match expr::parse_type(t) {
                Ok(te) => self.ty(sid, index, &te, f, fp, endian, layout),
                Err(e) => {
                    let p = self.locs.value(&scope("type"));
                    self.error_at(
                        p.line,
                        p.col + e.at,
                        format!("{} '{t}'", e.message),
                        Some("e.g. 'u16', 'bytes', 'string', 'Entity[]'".into()),
                    );
                    Ty::Bool
                }
            }
        } else {
            self.error(
                fp,
                format!("field '{}' has no 'type'", f.name),
                Some("add e.g. 'type: u8'".into()),
            );
            Ty::Bool
        };

        if f.length.is_some()
            && !matches!(
                ty,
                Ty::Bytes(_) | Ty::Str(_) | Ty::Struct(..) | Ty::Union(_)
            )
        {
            self.error(
                &scope("length"),
                "'length' applies to bytes, string, struct and switch fields",
                Some("use 'count' for arrays".into()),
            );
        }
        if f.count.is_some() && !matches!(ty, Ty::Array(..)) {
            self.error(
                &scope("count"),
                "'count' applies to array fields ('T[]')",
                None,
            );
        }

        if let Some(c) = f.constant {
            match &ty {
                Ty::Int(it) if c <= it.max_value() => role = Role::Const(c),
                Ty::Int(it) => self.error(
                    &scope("const"),
                    format!("constant {c:#x} does not fit in {} bits", it.bits),
                    None,
                ),
                _ => self.error(
                    &scope("const"),
                    "only integer fields can be constants",
                    None,
                ),
            }
        }
        if let Some(algo) = &f.checksum {
            match ChecksumAlgo::ALL.iter().find(|(n, _)| n == algo) {
                Some((_, a)) => {
                    let (width, ..) = a.crc_params();
                    match &ty {
                        Ty::Int(it) if it.bits == width && !it.signed => role = Role::Checksum(*a),
                        _ => self.error(
                            &scope("type"),
                            format!("a {algo} checksum is stored in a u{width} field"),
                            None,
                        ),
                    }
                }
                None => {
                    let hint = did_you_mean(algo, ChecksumAlgo::ALL.iter().map(|(n, _)| *n))
                        .or_else(|| {
                            Some(format!(
                                "known: {}",
                                ChecksumAlgo::ALL
                                    .iter()
                                    .map(|(n, _)| *n)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        });
                    self.error(
                        &scope("checksum"),
                        format!("unknown checksum algorithm '{algo}'"),
                        hint,
                    );
                }
            }
        }
        let condition = f.condition.as_ref().map(|c| {
            let s = Scope {
                struct_id: sid,
                visible: index,
                yaml_path: &scope("if"),
            };
            self.expr_of(&s, c, ExprTy::Bool)
        });
        if condition.is_some() && role != Role::Value {
            self.error(
                &scope("if"),
                "constants and checksums cannot be conditional",
                None,
            );
        }
        if let Some(m) = f.max {
            if !matches!(ty, Ty::Int(_) | Ty::VarInt(_)) {
                self.error(&scope("max"), "'max' applies to integer fields", None);
            }
            if let Ty::Int(it) = &ty {
                if m > it.max_value() {
                    self.error(
                        &scope("max"),
                        format!("max {m} does not fit in {} bits", it.bits),
                        None,
                    );
                }
            }
        }
        if f.optional {
            self.error(
                &scope("optional"),
                "presence-bit optional fields are not supported yet",
                Some("use 'if' with an explicit flag field".into()),
            );
        }
        // A warning sees the earlier fields and this one.
        let warnings = f
            .warn
            .iter()
            .enumerate()
            .map(|(k, w)| {
                let s = Scope {
                    struct_id: sid,
                    visible: index + 1,
                    yaml_path: &format!("{fp}.warn.{k}.if"),
                };
                (
                    self.expr_of(&s, &w.condition, ExprTy::Bool),
                    w.message.clone(),
                )
            })
            .collect();
        if f.packed
            && (layout != Layout::Bytes
                || !matches!(&ty, Ty::Array(e, _) if matches!(**e, Ty::Bool)))
        {
            self.error(
                &scope("packed"),
                "'packed' applies to bool[] in byte layouts",
                Some("in bit streams every bool is one bit already".into()),
            );
        }
        let mut select = Vec::new();
        for (table, key) in &f.state {
            let sp = format!("{fp}.state.{table}");
            match self.tables.get(table).copied() {
                Some((t, _)) => {
                    let s = Scope {
                        struct_id: sid,
                        visible: index,
                        yaml_path: &sp,
                    };
                    select.push((t, self.expr_of(&s, key, ExprTy::Int)));
                }
                None => {
                    let hint = did_you_mean(table, self.tables.keys().map(String::as_str));
                    self.error_key(&sp, format!("unknown state table '{table}'"), hint);
                }
            }
        }
        Field {
            name: f.name.clone(),
            doc: f.doc.clone(),
            ty,
            condition,
            role,
            max: f.max,
            warnings,
            select,
            packed: f.packed,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn ty(
        &mut self,
        sid: StructId,
        index: usize,
        te: &TypeExpr,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
        layout: Layout,
    ) -> Ty {
        let tp = format!("{fp}.type");
        match te {
            TypeExpr::Int {
                bits,
                signed,
                endian: e,
            } => {
                if !(1..=64).contains(bits) {
                    self.error(&tp, format!("integer width {bits} is outside 1..64"), None);
                } else if layout == Layout::Bytes && bits % 8 != 0 {
                    self.error(
                        &tp,
                        format!("a {bits}-bit integer in a byte-aligned layout"),
                        Some("use a whole number of bytes, or 'layout: lsb-bits'".into()),
                    );
                }
                let endian = self.endian(e.as_deref(), &tp).unwrap_or(endian);
                Ty::Int(IntTy {
                    bits: *bits,
                    signed: *signed,
                    endian,
                })
            }
            TypeExpr::Float { bits, endian: e } => {
                let endian = self.endian(e.as_deref(), &tp).unwrap_or(endian);
                Ty::Float {
                    bits: *bits,
                    endian,
                }
            }
            TypeExpr::Bool => Ty::Bool,
            TypeExpr::VarInt(name) => Ty::VarInt(match name.as_str() {
                "leb128" => VarInt::Leb128,
                "zigzag" => VarInt::ZigZag,
                "riptide_len" => VarInt::RiptideLen,
                other => {
                    let signed = other.starts_with("rabbit_i");
                    let bits = other[8..].parse().unwrap_or(32);
                    VarInt::Rabbit { bits, signed }
                }
            }),
            TypeExpr::Bytes => Ty::Bytes(self.len_of(sid, index, f, fp, endian, true)),
            TypeExpr::Bits => {
                if layout != Layout::LsbBits {
                    self.error(
                        &tp,
                        "'bits' is the rest of a bit stream",
                        Some("use 'bytes' in a byte-aligned layout".into()),
                    );
                }
                if f.length.is_some() || f.prefix.is_some() {
                    self.error(
                        &tp,
                        "a 'bits' field runs to the end of its scope; it takes no length",
                        None,
                    );
                }
                Ty::Bits
            }
            TypeExpr::String => Ty::Str(self.len_of(sid, index, f, fp, endian, true)),
            TypeExpr::Array(elem) => {
                if matches!(**elem, TypeExpr::Array(_)) {
                    self.error(&tp, "arrays of arrays need a named element type", None);
                }
                let elem_ty = self.ty(
                    sid,
                    index,
                    elem,
                    &schema::FieldDef {
                        length: None,
                        count: None,
                        prefix: None,
                        ..clone_field(f)
                    },
                    fp,
                    endian,
                    layout,
                );
                if let Ty::Bytes(_) | Ty::Str(_) = elem_ty {
                    self.error(&tp, "arrays of bytes or strings need a named element type that gives each a length", None);
                }
                let count = self.count_of(sid, index, f, fp, endian);
                Ty::Array(Box::new(elem_ty), count)
            }
            TypeExpr::Named(n) => {
                if let Some(id) = self.enum_ids.get(n) {
                    Ty::Enum(*id)
                } else if let Some(id) = self.flags_ids.get(n) {
                    Ty::Flags(*id)
                } else if let Some(&id) = self.struct_ids.get(n) {
                    let len = if f.length.is_some() || f.prefix.is_some() {
                        Some(self.len_of(sid, index, f, fp, endian, false))
                    } else {
                        None
                    };
                    Ty::Struct(id, len)
                } else {
                    let names = self
                        .enum_ids
                        .keys()
                        .chain(self.flags_ids.keys())
                        .chain(self.struct_ids.keys())
                        .map(String::as_str);
                    let hint = did_you_mean(n, names);
                    self.error(&tp, format!("unknown type '{n}'"), hint);
                    Ty::Bool
                }
            }
        }
    }

    /// Byte length of a bytes/string/struct/union field: prefix, expression, or the rest.
    fn len_of(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
        rest_ok: bool,
    ) -> Len {
        if f.length.is_some() && f.prefix.is_some() {
            self.error(
                &format!("{fp}.prefix"),
                "a field has either a 'length' or a 'prefix', not both",
                None,
            );
        }
        if let Some(p) = &f.prefix {
            return self
                .int_ty(p, &format!("{fp}.prefix"), endian)
                .map(Len::Prefix)
                .unwrap_or(Len::Rest);
        }
        match &f.length {
            Some(l) => self.len_expr(sid, index, l, &format!("{fp}.length")),
            None if rest_ok => Len::Rest,
            None => Len::Rest,
        }
    }

    fn count_of(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
    ) -> Len {
        if let Some(p) = &f.prefix {
            if f.count.is_some() {
                self.error(
                    &format!("{fp}.prefix"),
                    "a field has either a 'count' or a 'prefix', not both",
                    None,
                );
            }
            return self
                .int_ty(p, &format!("{fp}.prefix"), endian)
                .map(Len::Prefix)
                .unwrap_or(Len::Rest);
        }
        match &f.count {
            Some(c) => self.len_expr(sid, index, c, &format!("{fp}.count")),
            None => Len::Rest,
        }
    }

    fn len_expr(&mut self, sid: StructId, index: usize, l: &ExprOrInt, yp: &str) -> Len {
        let scope = Scope {
            struct_id: sid,
            visible: index,
            yaml_path: yp,
        };
        match l {
            ExprOrInt::Int(n) => Len::Expr(Expr::Int(*n)),
            ExprOrInt::Expr(text) => Len::Expr(self.expr_of(&scope, text, ExprTy::Int)),
        }
    }

    fn union(
        &mut self,
        sid: StructId,
        index: usize,
        sw: &schema::SwitchDef,
        sp: &str,
        len: Len,
    ) -> Union {
        let scope = Scope {
            struct_id: sid,
            visible: index,
            yaml_path: &format!("{sp}.on"),
        };
        self.in_tag = true;
        let before = self.diags.len();
        let on = self.expr_of(&scope, &sw.on, ExprTy::Int);
        let on_failed = self.diags.len() > before;
        self.in_tag = false;
        // Case keys may name values of the tag's enum.
        let tag_shape = match &on {
            Expr::Field(path) => Some(
                self.shapes[path.last().unwrap().struct_id][path.last().unwrap().field]
                    .1
                    .clone(),
            ),
            Expr::Item(t, _) => self
                .tables
                .values()
                .find(|(i, _)| i == t)
                .map(|(_, e)| e.map_or(Shape::Unknown, Shape::Enum)),
            _ => None,
        };
        let tag_enum = match tag_shape {
            Some(Shape::Enum(e)) => Some(e),
            _ => None,
        };
        // The tag's type is already reported as unknown: its case keys cannot be checked.
        let tag_unknown = on_failed || matches!(tag_shape, Some(Shape::Unknown));
        if sw.tag_bits.is_some() {
            self.error(
                &format!("{sp}.tag_bits"),
                "unions that write their own tag bits are not supported yet",
                None,
            );
        }
        // `cases_from: Type.field` borrows another switch's cases and default.
        let own = sw;
        let mut sw = sw;
        if let Some(from) = &sw.cases_from {
            let found = from.split_once('.').and_then(|(t, f)| {
                self.file
                    .types
                    .get(t)?
                    .fields
                    .iter()
                    .find(|x| x.name == f)?
                    .switch
                    .as_ref()
            });
            match found {
                Some(other) if other.cases_from.is_none() => {
                    if !sw.cases.is_empty() || sw.default.is_some() {
                        self.error(
                            &format!("{sp}.cases_from"),
                            "a switch has either 'cases' or 'cases_from'",
                            None,
                        );
                    }
                    sw = other;
                }
                _ => self.error(
                    &format!("{sp}.cases_from"),
                    format!("'{from}' does not name a switch field with its own cases"),
                    Some("write 'Type.field', e.g. 'TypedValue.value'".into()),
                ),
            }
        }
        let mut cases: Vec<Case> = Vec::new();
        for (key, case) in &sw.cases {
            let (body, name, doc) = match case {
                schema::CaseDef::Type(t) => (t, None, None),
                schema::CaseDef::Named { ty, name, doc } => (ty, name.clone(), doc.clone()),
            };
            let cp = format!("{sp}.cases.{key}");
            let (values, variant) = if tag_unknown {
                (vec![], key.to_upper_camel_case())
            } else {
                self.case_key(key, tag_enum, &cp)
            };
            let body = self.case_body(body, &cp);
            let variant = match (name, body) {
                (Some(n), _) => {
                    if !is_camel_ident(&n) {
                        self.error(
                            &format!("{cp}.name"),
                            format!("variant name '{n}' is not UpperCamelCase"),
                            None,
                        );
                    }
                    n
                }
                (None, CaseBody::Struct(id)) if tag_enum.is_none() => {
                    self.file.types.get_index(id).unwrap().0.clone()
                }
                (None, _) => variant,
            };
            if cases.iter().any(|c| c.variant == variant) {
                self.error_key(
                    &cp,
                    format!("two cases make a variant named '{variant}'"),
                    None,
                );
            }
            for v in &values {
                for c in &cases {
                    if c.values.iter().any(|w| overlaps(*v, *w)) {
                        self.error_key(
                            &cp,
                            format!("case '{key}' overlaps case '{}'", c.variant),
                            None,
                        );
                    }
                }
            }
            cases.push(Case {
                variant,
                values,
                body,
                doc,
            });
        }
        let (default, default_variant) = match &sw.default {
            None => (None, "Other".to_string()),
            Some(schema::CaseDef::Type(t)) => (
                Some(self.case_body(t, &format!("{sp}.default"))),
                "Other".to_string(),
            ),
            Some(schema::CaseDef::Named { ty, name, .. }) => {
                let name = name.clone().unwrap_or_else(|| "Other".into());
                if !is_camel_ident(&name) {
                    self.error(
                        &format!("{sp}.default.name"),
                        format!("variant name '{name}' is not UpperCamelCase"),
                        None,
                    );
                }
                (Some(self.case_body(ty, &format!("{sp}.default"))), name)
            }
        };
        if cases.iter().any(|c| c.variant == default_variant) && default.is_some() {
            self.error(
                &format!("{sp}.default"),
                format!("the default variant's name '{default_variant}' is taken by a case"),
                None,
            );
        }
        let unless = own.unless.as_ref().map(|u| {
            let scope = Scope {
                struct_id: sid,
                visible: index,
                yaml_path: &format!("{sp}.unless"),
            };
            self.expr_of(&scope, u, ExprTy::Bool)
        });
        if unless.is_some() && default.is_none() {
            self.error(
                &format!("{sp}.unless"),
                "'unless' chooses the default variant; this switch has none",
                Some("add a 'default'".into()),
            );
        }
        Union {
            on,
            len,
            cases,
            default,
            default_variant,
            unless,
        }
    }

    fn case_key(
        &mut self,
        key: &str,
        tag_enum: Option<EnumId>,
        cp: &str,
    ) -> (Vec<CaseValue>, String) {
        let parse_int = |s: &str| -> Option<u64> {
            let s = s.trim().replace('_', "");
            match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => s.parse().ok(),
            }
        };
        if let Some((lo, hi)) = key.split_once("..") {
            if let (Some(lo), Some(hi)) = (parse_int(lo), parse_int(hi)) {
                if lo > hi {
                    self.error_key(cp, format!("empty range {key}"), None);
                }
                return (vec![CaseValue::Range(lo, hi)], format!("Range{lo}To{hi}"));
            }
        }
        if let Some(v) = parse_int(key) {
            return (vec![CaseValue::One(v)], format!("Tag{v}"));
        }
        if let Some(e) = tag_enum {
            let en = self.file.enums.get_index(e).unwrap();
            match en.1.values.get_full(key) {
                Some((_, _, v)) => {
                    let value = match v {
                        NamedValue::Plain(v) => *v,
                        NamedValue::Documented { value, .. } => *value,
                    };
                    return (vec![CaseValue::One(value)], key.to_upper_camel_case());
                }
                None => {
                    let hint = did_you_mean(key, en.1.values.keys().map(String::as_str));
                    self.error_key(
                        cp,
                        format!("'{key}' is not a value of enum '{}'", en.0),
                        hint,
                    );
                }
            }
        } else {
            self.error_key(
                cp,
                format!("case key '{key}' is not an integer or range"),
                Some("enum value names work when 'on' is an enum field".into()),
            );
        }
        (vec![], key.to_upper_camel_case())
    }

    fn case_body(&mut self, body: &str, cp: &str) -> CaseBody {
        match body {
            "bytes" => CaseBody::Bytes,
            "empty" => CaseBody::Empty,
            name => match self.struct_ids.get(name) {
                Some(id) => CaseBody::Struct(*id),
                None => {
                    let hint = did_you_mean(name, self.struct_ids.keys().map(String::as_str));
                    self.error(
                        cp,
                        format!("unknown type '{name}'"),
                        hint.or(Some("a case holds a type name, 'bytes' or 'empty'".into())),
                    );
                    CaseBody::Empty
                }
            },
        }
    }

    /// Marks the fields the encoder fills: lengths, counts and tags named by a bare reference.
    fn derive(&mut self, sname: &str, yp: &str, fields: &mut [Field]) {
        let mut derived: Vec<(usize, Derive, usize)> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let (src, kind) = match &f.ty {
                Ty::Bytes(Len::Expr(e))
                | Ty::Str(Len::Expr(e))
                | Ty::Struct(_, Some(Len::Expr(e))) => (Some(e), Derive::LengthOf(i)),
                Ty::Array(_, Len::Expr(e)) => (Some(e), Derive::CountOf(i)),
                Ty::Union(u) => {
                    if let Len::Expr(e) = &u.len {
                        if let Some(r) = e.local_field() {
                            derived.push((r, Derive::LengthOf(i), i));
                        }
                    }
                    (Some(&u.on), Derive::TagOf(i))
                }
                _ => (None, Derive::LengthOf(i)),
            };
            if let Some(r) = src.and_then(Expr::local_field) {
                derived.push((r, kind, i));
            }
        }
        // A bool that is the whole condition of exactly one later field is that field's presence
        // bit: the encoder writes it from the Option.
        for (i, f) in fields.iter().enumerate() {
            let Some(r) = f.condition.as_ref().and_then(Expr::local_field) else {
                continue;
            };
            let guards = fields
                .iter()
                .filter(|g| g.condition.as_ref().and_then(Expr::local_field) == Some(r))
                .count();
            if guards == 1
                && matches!(fields[r].ty, Ty::Bool)
                && fields[r].role == Role::Value
                && fields[r].condition.is_none()
            {
                derived.push((r, Derive::PresenceOf(i), i));
            }
        }
        for (target, how, by) in derived {
            let t = &fields[target];
            let fp = format!("{yp}.fields.{target}");
            let fits = match how {
                Derive::PresenceOf(_) => matches!(t.ty, Ty::Bool),
                _ => matches!(t.ty, Ty::Int(_) | Ty::Enum(_) | Ty::VarInt(_)),
            };
            if !fits {
                continue;
            }
            if t.condition.is_some() {
                self.error(&fp, format!("field '{}' gives the length, count or tag of '{}' and cannot be conditional", t.name, fields[by].name), None);
                continue;
            }
            match &t.role {
                Role::Value => fields[target].role = Role::Derived(how),
                Role::Derived(prev) => {
                    let prev_by = match prev {
                        Derive::LengthOf(j)
                        | Derive::CountOf(j)
                        | Derive::TagOf(j)
                        | Derive::PresenceOf(j) => *j,
                    };
                    let name = fields[target].name.clone();
                    let (a, b) = (fields[prev_by].name.clone(), fields[by].name.clone());
                    self.error(&fp, format!("field '{name}' of '{sname}' would be derived from both '{a}' and '{b}'"), Some("give one of them its own length field".into()));
                }
                _ => {}
            }
        }
    }

    fn info(&mut self, yp: &str, info: Option<&str>, fields: &[Field]) -> Vec<InfoPart> {
        let Some(text) = info else { return Vec::new() };
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(InfoPart::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                self.error(&format!("{yp}.info"), "unclosed '{' in info", None);
                return parts;
            };
            let name = &rest[open + 1..open + close];
            match fields.iter().position(|f| f.name == name) {
                Some(i) => parts.push(InfoPart::Field(i)),
                None => {
                    let hint = did_you_mean(name, fields.iter().map(|f| f.name.as_str()));
                    self.error(
                        &format!("{yp}.info"),
                        format!("unknown field '{name}' in info"),
                        hint,
                    );
                }
            }
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(InfoPart::Text(rest.to_string()));
        }
        parts
    }

    fn transport(&mut self, proto: &Protocol, endian: Endian) -> Transport {
        let none = schema::TransportDef::default();
        let t = self.file.protocol.transport.as_ref().unwrap_or(&none);
        let mut out = Transport::default();
        if let Some(u) = &t.udp {
            out.udp_ports = u.ports.clone();
        }
        if let Some(tcp) = &t.tcp {
            out.tcp_ports = tcp.ports.clone();
            out.tcp_length_prefix = tcp
                .length_prefix
                .as_ref()
                .and_then(|p| self.int_ty(p, "protocol.transport.tcp.length_prefix", endian));
        }
        if let Some(h) = &t.heuristic {
            out.udp_heuristic = h
                .udp
                .as_ref()
                .and_then(|e| self.heuristic(proto, e, "protocol.transport.heuristic.udp"));
            out.tcp_heuristic = h
                .tcp
                .as_ref()
                .and_then(|e| self.heuristic(proto, e, "protocol.transport.heuristic.tcp"));
        }
        out
    }

    fn heuristic(&mut self, proto: &Protocol, text: &str, yp: &str) -> Option<Heuristic> {
        // Only leading fixed-size fields have a known offset before dissection.
        let root = proto.root();
        let fixed = root
            .fields
            .iter()
            .take_while(|f| f.condition.is_none() && proto.fixed_size(&f.ty).is_some())
            .count();
        let scope = Scope {
            struct_id: proto.root,
            visible: fixed,
            yaml_path: yp,
        };
        let expr = self.expr_of(&scope, text, ExprTy::Bool);
        let mut min_len = 0;
        let mut offset = 0;
        let mut used = Vec::new();
        expr.local_fields(&mut used);
        for (i, f) in root.fields.iter().take(fixed).enumerate() {
            let n = proto.fixed_size(&f.ty).unwrap_or(0);
            offset += n;
            if used.contains(&i) {
                min_len = offset;
            }
        }
        Some(Heuristic { expr, min_len })
    }

    fn check_cycles(&mut self, structs: &[Struct]) {
        // 0 = unvisited, 1 = on the stack, 2 = done.
        fn visit(
            id: StructId,
            structs: &[Struct],
            state: &mut [u8],
            stack: &mut Vec<StructId>,
        ) -> Option<Vec<StructId>> {
            if state[id] == 1 {
                let start = stack.iter().position(|s| *s == id).unwrap();
                return Some(stack[start..].to_vec());
            }
            if state[id] == 2 {
                return None;
            }
            state[id] = 1;
            stack.push(id);
            let mut kids = Vec::new();
            for f in &structs[id].fields {
                f.ty.child_structs(&mut kids);
            }
            for k in kids {
                if let Some(c) = visit(k, structs, state, stack) {
                    return Some(c);
                }
            }
            stack.pop();
            state[id] = 2;
            None
        }
        let mut state = vec![0u8; structs.len()];
        for id in 0..structs.len() {
            if let Some(cycle) = visit(id, structs, &mut state, &mut Vec::new()) {
                let names: Vec<&str> = cycle
                    .iter()
                    .chain(cycle.first())
                    .map(|i| structs[*i].name.as_str())
                    .collect();
                self.error_key(
                    &format!("types.{}", structs[cycle[0]].name),
                    format!("type cycle: {}", names.join(" → ")),
                    Some("a type cannot contain itself".into()),
                );
                return;
            }
        }
    }

    // ---- expressions ----------------------------------------------------------------------

    fn expr_of(&mut self, scope: &Scope, text: &str, want: ExprTy) -> Expr {
        match expr::parse_expr(text) {
            Ok(e) => {
                let (e, ty) = self.check(scope, &e);
                if ty != ExprTy::Error
                    && (ty != want && ty != ExprTy::Int
                        || (ty == ExprTy::Int && want == ExprTy::Bool))
                {
                    let (got, exp) = if want == ExprTy::Bool {
                        ("an integer", "a condition")
                    } else {
                        ("a condition", "an integer")
                    };
                    self.expr_error(
                        scope,
                        0,
                        format!("'{text}' is {got} where {exp} is needed"),
                        None,
                    );
                }
                e
            }
            Err(e) => {
                self.expr_error(scope, e.at, format!("{} '{text}'", e.message), None);
                Expr::Int(0)
            }
        }
    }

    fn expr_error(&mut self, scope: &Scope, at: usize, message: String, hint: Option<String>) {
        let p = self.locs.value(scope.yaml_path);
        if self.locs.inherited(scope.yaml_path) {
            let message = self.inherited(scope.yaml_path, message);
            self.error_at(p.line, p.col, message, hint);
        } else {
            self.error_at(p.line, p.col + at, message, hint);
        }
    }

    fn check(&mut self, scope: &Scope, e: &expr::Expr) -> (Expr, ExprTy) {
        match e {
            expr::Expr::Int(v, _) => (Expr::Int(*v), ExprTy::Int),
            expr::Expr::Bool(b, _) => (Expr::Bool(*b), ExprTy::Bool),
            expr::Expr::Special(name, at) => match name.as_str() {
                "size" => (Expr::MessageSize, ExprTy::Int),
                "remaining" => (Expr::Remaining, ExprTy::Int),
                _ => {
                    self.expr_error(
                        scope,
                        *at,
                        format!("unknown built-in '@{name}'"),
                        Some("known: @size, @remaining".into()),
                    );
                    (Expr::Int(0), ExprTy::Error)
                }
            },
            expr::Expr::Path(path, at) => self.path(scope, path, *at, false),
            expr::Expr::Item(table, index, at) => {
                let (i, ty) = self.check(scope, index);
                self.want(scope, ty, ExprTy::Int, index.at(), "a list index");
                if !self.in_tag {
                    self.expr_error(
                        scope,
                        *at,
                        format!("'{table}[...]' can only be a switch's tag"),
                        Some(
                            "a list item chooses the layout of a value: 'switch: { on: ... }'"
                                .into(),
                        ),
                    );
                }
                match self.tables.get(table).copied() {
                    Some((t, _)) => (Expr::Item(t, Box::new(i)), ExprTy::Int),
                    None => {
                        let hint = did_you_mean(table, self.tables.keys().map(String::as_str));
                        self.expr_error(
                            scope,
                            *at,
                            format!("'{table}' is not a state table"),
                            hint.or(Some("declare it under protocol.state".into())),
                        );
                        (Expr::Int(0), ExprTy::Error)
                    }
                }
            }
            expr::Expr::Len(inner, at) => match &**inner {
                expr::Expr::Path(path, pat) => self.path(scope, path, *pat, true),
                _ => {
                    self.expr_error(scope, *at, "len() takes a field".into(), None);
                    (Expr::Int(0), ExprTy::Error)
                }
            },
            expr::Expr::Unary(op, inner, at) => {
                let (x, ty) = self.check(scope, inner);
                match op {
                    UnOp::Not => {
                        self.want(scope, ty, ExprTy::Bool, *at, "'!'");
                        (Expr::Not(Box::new(x)), ExprTy::Bool)
                    }
                    UnOp::Neg => {
                        self.want(scope, ty, ExprTy::Int, *at, "'-'");
                        (Expr::Neg(Box::new(x)), ExprTy::Int)
                    }
                }
            }
            expr::Expr::Binary(op, l, r, at) => {
                let (a, ta) = self.check(scope, l);
                let (b, tb) = self.check(scope, r);
                let operand = if op.is_logical() {
                    ExprTy::Bool
                } else {
                    ExprTy::Int
                };
                let what = format!("'{}'", op.symbol());
                if matches!(op, BinOp::Eq | BinOp::Ne) && ta == tb {
                    // == and != also compare conditions.
                } else {
                    self.want(scope, ta, operand, *at, &what);
                    self.want(scope, tb, operand, r.at(), &what);
                }
                let ty = if op.is_logical() || op.is_comparison() {
                    ExprTy::Bool
                } else {
                    ExprTy::Int
                };
                (Expr::Binary(*op, Box::new(a), Box::new(b)), ty)
            }
        }
    }

    fn want(&mut self, scope: &Scope, got: ExprTy, want: ExprTy, at: usize, what: &str) {
        if got != want && got != ExprTy::Error {
            let w = if want == ExprTy::Bool {
                "conditions"
            } else {
                "integers"
            };
            self.expr_error(scope, at, format!("{what} takes {w}"), None);
        }
    }

    /// Resolves `a.b.c` against the visible fields of the scope (or an enum constant).
    fn path(&mut self, scope: &Scope, path: &[String], at: usize, in_len: bool) -> (Expr, ExprTy) {
        let fail = (Expr::Int(0), ExprTy::Error);
        // Enum constants: `Command.REQ_LOGIN`.
        if path.len() == 2 {
            if let Some(e) = self.enum_ids.get(&path[0]) {
                let en = self.file.enums.get_index(*e).unwrap().1;
                return match en.values.get(&path[1]) {
                    Some(NamedValue::Plain(v)) | Some(NamedValue::Documented { value: v, .. }) => {
                        (Expr::Int(*v), ExprTy::Int)
                    }
                    None => {
                        let hint = did_you_mean(&path[1], en.values.keys().map(String::as_str));
                        self.expr_error(
                            scope,
                            at,
                            format!("'{}' is not a value of enum '{}'", path[1], path[0]),
                            hint,
                        );
                        fail
                    }
                };
            }
        }
        let mut refs = Vec::new();
        let mut sid = scope.struct_id;
        let mut visible = scope.visible;
        let mut col = at;
        for (depth, seg) in path.iter().enumerate() {
            let fields = &self.shapes[sid];
            let found = fields.iter().take(visible).position(|(n, _)| n == seg);
            let Some(fi) = found else {
                let later = fields.iter().skip(visible).any(|(n, _)| n == seg);
                let hint = if later {
                    Some(format!(
                        "'{seg}' comes later; only earlier fields can be used here"
                    ))
                } else {
                    did_you_mean(seg, fields.iter().take(visible).map(|(n, _)| n.as_str()))
                };
                self.expr_error(scope, col, format!("unknown field '{seg}'"), hint);
                return fail;
            };
            refs.push(FieldRef {
                struct_id: sid,
                field: fi,
                name: seg.clone(),
            });
            let shape = fields[fi].1.clone();
            let last = depth + 1 == path.len();
            if last {
                return match shape {
                    Shape::Seq if in_len => (Expr::Len(refs, LenKind::Bytes), ExprTy::Int),
                    _ if in_len => {
                        self.expr_error(
                            scope,
                            at,
                            format!(
                                "len() takes a bytes, string or array field; '{seg}' is not one"
                            ),
                            None,
                        );
                        fail
                    }
                    Shape::Seq | Shape::Union | Shape::Struct(_) => {
                        self.expr_error(
                            scope,
                            at,
                            format!("'{seg}' is not a number"),
                            Some(format!("use len({})", path.join("."))),
                        );
                        fail
                    }
                    Shape::Bool => (Expr::Field(refs), ExprTy::Bool),
                    _ => (Expr::Field(refs), ExprTy::Int),
                };
            }
            col += seg.len() + 1;
            match shape {
                Shape::Struct(id) => {
                    sid = id;
                    visible = usize::MAX;
                }
                Shape::Flags(fid) => {
                    let fl = self.file.flags.get_index(fid).unwrap();
                    let bit = &path[depth + 1];
                    if depth + 2 != path.len() {
                        self.expr_error(scope, col, "a flag bit has no fields".into(), None);
                        return fail;
                    }
                    return match fl.1.bits.get(bit) {
                        Some(NamedValue::Plain(m))
                        | Some(NamedValue::Documented { value: m, .. }) => {
                            (Expr::FlagBit(refs, *m), ExprTy::Bool)
                        }
                        None => {
                            let hint = did_you_mean(bit, fl.1.bits.keys().map(String::as_str));
                            self.expr_error(
                                scope,
                                col,
                                format!("'{bit}' is not a flag of '{}'", fl.0),
                                hint,
                            );
                            fail
                        }
                    };
                }
                _ => {
                    self.expr_error(scope, col, format!("'{seg}' has no fields"), None);
                    return fail;
                }
            }
        }
        fail
    }
}

fn clone_field(f: &schema::FieldDef) -> schema::FieldDef {
    schema::FieldDef {
        name: f.name.clone(),
        doc: None,
        ty: None,
        endian: f.endian.clone(),
        constant: None,
        length: None,
        count: None,
        prefix: None,
        condition: None,
        switch: None,
        checksum: None,
        max: None,
        optional: false,
        warn: Vec::new(),
        packed: false,
        state: Default::default(),
    }
}

fn overlaps(a: CaseValue, b: CaseValue) -> bool {
    let r = |v| match v {
        CaseValue::One(x) => (x, x),
        CaseValue::Range(l, h) => (l, h),
    };
    let ((al, ah), (bl, bh)) = (r(a), r(b));
    al <= bh && bl <= ah
}

fn runs_to_end(ty: &Ty) -> bool {
    match ty {
        Ty::Bytes(Len::Rest) | Ty::Str(Len::Rest) | Ty::Array(_, Len::Rest) | Ty::Bits => true,
        Ty::Union(u) => {
            matches!(u.len, Len::Rest)
                || (matches!(u.len, Len::Natural)
                    && u.cases
                        .iter()
                        .map(|c| c.body)
                        .chain(u.default)
                        .any(|b| b == CaseBody::Bytes))
        }
        _ => false,
    }
}

fn is_snake_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('a'..='z')) && c.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

fn is_camel_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('A'..='Z')) && c.all(|c| c.is_ascii_alphanumeric())
}

fn is_value_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('A'..='Z' | 'a'..='z' | '_'))
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
