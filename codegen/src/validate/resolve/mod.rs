//! Schema → IR: names resolved, widths, expression types and layouts checked, the fields the
//! encoder fills derived. One pass, [`Resolver`], over the schema's parts (a file each).

mod application;
mod checksums;
mod derived;
mod enclosing;
mod expressions;
mod field_types;
mod field_values;
mod fields;
pub(crate) use self::fields::runs_to_end;
pub(crate) mod groups;
mod lift;
mod protocol;
mod reliability;
mod session;
mod sizes;
mod solved_tags;
mod types;
mod unions;

use self::{field_types::*, fields::*, types::*};
use super::*;

/// What pass one knows of a field: enough to resolve paths into it.
#[derive(Debug, Clone)]
pub(crate) enum Shape {
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

/// Builds the IR of a schema: names first, then every type, then what spans types (transport,
/// joins, state, reliability), reporting what cannot be resolved. The checks over the result
/// are functions of it (`checks`).
pub(crate) struct Resolver<'f> {
    pub(crate) r: Report,
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
    /// The transport an application schema rides on.
    transport: Option<Protocol>,
    /// Every `Header.channel` read so far, checked once all types are known.
    enclosing_uses: Vec<enclosing::EnclosingUse>,
}

/// The context an expression is checked in.
pub(crate) struct Scope<'a> {
    struct_id: StructId,
    /// Fields visible by name (the earlier fields of the struct).
    visible: usize,
    /// YAML path of the expression, and the offset of its text (for positions).
    yaml_path: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExprTy {
    Int,
    Bool,
    /// An expression already reported as wrong: fits anywhere, so one mistake gives one message.
    Error,
}

impl<'f> Resolver<'f> {
    pub(crate) fn new(r: Report, file: &'f SchemaFile, transport: Option<Protocol>) -> Self {
        Resolver {
            r,
            file,
            enum_ids: HashMap::new(),
            flags_ids: HashMap::new(),
            struct_ids: HashMap::new(),
            shapes: Vec::new(),
            tables: HashMap::new(),
            in_tag: false,
            transport,
            enclosing_uses: Vec::new(),
        }
    }

    pub(crate) fn protocol(&mut self) -> Option<Protocol> {
        let p = &self.file.protocol;
        if !is_snake_ident(&p.name) {
            self.r.error(
                Code::E0101,
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
            self.r.error(
                Code::E0109,
                "types",
                "a schema needs at least one type under 'types'",
                None,
            );
            return None;
        }
        checks::check_cycles(&mut self.r, &structs);
        checks::check_filters(&mut self.r, &structs, root);

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
            source: self.r.path.clone(),
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
        proto.limits = checks::limits(&self.r, &proto);
        for check in checks::CHECKS {
            check(&mut self.r, &proto);
        }
        self.check_enclosing(&proto);
        for warnings in checks::WARNINGS {
            proto.warnings.extend(warnings(&self.r, &proto));
        }
        if !proto.opening.is_empty() && proto.transport.udp_ports.is_empty() {
            self.r.error(
                Code::E0110,
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
            self.r.error(
                Code::E0102,
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
                    self.r.error_key(
                        Code::E0103,
                        &yp,
                        format!("type name '{name}' is not UpperCamelCase"),
                        Some(format!("e.g. '{}'", name.to_upper_camel_case())),
                    );
                }
                if let Some(prev) = taken.insert(name.clone(), kind.to_string()) {
                    self.r.error_key(
                        Code::E0104,
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
                self.r.error(
                    Code::E0105,
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
            self.r.error(
                Code::E0106,
                "protocol",
                "the protocol needs a 'root' type",
                Some("the type of one whole message, e.g. 'root: Packet'".into()),
            );
        }
        for target in self.file.cases.keys() {
            self.r.error_key(
                Code::E0107,
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
                self.r.error(
                    Code::E0108,
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

/// The `bits` low bits of `v` in two's complement: how a negative number is on the wire.
fn wire_bits(v: i64, bits: u32) -> u64 {
    (v as u64) & (u64::MAX >> (64 - bits.clamp(1, 64)))
}
