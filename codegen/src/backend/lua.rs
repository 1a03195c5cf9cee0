//! Lua backend: one self-contained Wireshark dissector per schema (Wireshark 4.0+, Lua 5.2-5.4).
//!
//! The file skeleton (helpers, fields, experts, registration) is the askama template
//! `templates/dissector.lua`; the per-type dissection functions are built here from the IR.

use super::{Output, Unsupported};
use crate::expr::BinOp;
use crate::ir::*;
use crate::naming;
use askama::Template;
use std::collections::HashSet;

#[derive(Template)]
#[template(path = "dissector.lua", escape = "none")]
struct Dissector {
    source: String,
    path: String,
    name: String,
    title: String,
    column: String,
    doc_lines: Vec<String>,
    needs_bitops: bool,
    needs_xor: bool,
    /// Some type is a bit stream (the bit helpers are needed).
    bits: bool,
    /// The root type is a bit stream (whole-message offsets are in bits).
    root_bits: bool,
    crcs: Vec<CrcDef>,
    value_strings: Vec<ValueString>,
    fields: Vec<FieldDef>,
    structs: Vec<String>,
    root: String,
    info: String,
    port_tables: Vec<PortTable>,
    tcp_framing: Option<Framing>,
    /// Some conversation-level feature needs the conversation key.
    conversations: bool,
    reassembly: Option<ReassemblyDef>,
    /// Some field reads conversation state.
    has_state: bool,
    /// A transport with application points (a dissector table by message id).
    app_points: bool,
    /// An application schema: its transport's table and its messages.
    application: Option<AppDef>,
    has_joins: bool,
    /// Indexes of the sequence joins (their state tables are reset per capture).
    joins: Vec<usize>,
    /// Opening datagrams per side: (type name for dissect_*, label).
    opening_client: Vec<(String, String)>,
    opening_server: Vec<(String, String)>,
    udp_heuristic: Option<HeuristicDef>,
}

struct CrcDef {
    code: String,
}

struct ValueString {
    var: String,
    entries: Vec<(String, String)>,
}

/// Reassembly, as Lua expressions over the root's values `v`.
struct ReassemblyDef {
    key_doc: String,
    keys: Vec<String>,
    index: String,
    piece: String,
    /// Lua statements that set `st.count` from this piece.
    count: String,
    when: String,
    client: String,
    client_bits: bool,
    server: String,
    server_bits: bool,
    /// Decode the whole with this switch field (`dissect_whole`), by the packet's tag.
    as_field: Option<String>,
}

/// An application schema's dissector: registered in its transport's table by message id.
struct AppDef {
    table: String,
    transport: String,
    /// (message id, type name).
    messages: Vec<(u64, String)>,
    bits: bool,
    /// Bytes of the id the messages start with (the transport carries none).
    own_id: Option<usize>,
}

/// TCP framing: a length prefix before each message.
struct Framing {
    size: usize,
    read: String,
    add: &'static str,
    doc: String,
}

/// A dissector table (`udp.port`, `tcp.port`) the protocol registers in, by preference.
struct PortTable {
    lower: &'static str,
    upper: &'static str,
    ports: String,
}

struct FieldDef {
    abbrev: String,
    ctor: String,
}

struct HeuristicDef {
    doc: String,
    min_len: usize,
    reads: Vec<String>,
    expr: String,
}

pub fn generate(p: &Protocol, path: &str) -> Result<Vec<Output>, Unsupported> {
    if p.layout == Layout::LsbBits
        && (p.transport.udp_heuristic.is_some() || p.transport.tcp_heuristic.is_some())
    {
        return Err(Unsupported(
            "heuristics over bit-stream layouts are not generated yet".into(),
        ));
    }
    let mut g = Gen {
        p,
        fields: Vec::new(),
        needs_bitops: false,
        needed: needed_values(p),
        cur: std::cell::Cell::new(p.layout),
        raw: p
            .joins
            .iter()
            .flat_map(|j| j.streams.iter().map(|s| (j.in_struct, s.field)))
            .collect(),
        state_readers: p.state_readers(),
    };
    g.declare_fields()?;
    if let Some(it) = p.application.as_ref().and_then(|a| a.own_id) {
        let a = format!("{}.message_id", p.name);
        g.add_field(
            a.clone(),
            format!("ProtoField.{}(\"{a}\", \"Message id\", base.DEC, nil, nil, \"Which message follows\")", protofield_int(&it)),
        );
    }
    let mut structs = Vec::new();
    for id in g.order() {
        structs.push(g.struct_fn(id)?);
    }
    if let Some(Reassembly {
        whole: WholeType::AsField(fi),
        ..
    }) = &p.reassembly
    {
        structs.push(g.whole_fn(*fi)?);
    }
    let crcs = g.crcs()?;
    let needs_xor = !crcs.is_empty();
    let mut value_strings: Vec<ValueString> = p
        .enums
        .iter()
        .map(|e| ValueString {
            var: format!("VS_{}", e.name),
            entries: e
                .values
                .iter()
                .map(|v| (v.value.to_string(), lua_escape(&v.name)))
                .collect(),
        })
        .collect();
    value_strings.push(ValueString {
        var: "VS_CHECKSUM_STATUS".into(),
        entries: vec![("0".into(), "Bad".into()), ("1".into(), "Good".into())],
    });
    let flag_lists: Vec<String> = p
        .flags
        .iter()
        .map(|f| {
            let items: Vec<String> = f
                .bits
                .iter()
                .map(|b| format!("{{ {}, \"{}\" }}", b.value, lua_escape(&b.name)))
                .collect();
            format!("local FN_{} = {{ {} }}", f.name, items.join(", "))
        })
        .collect();
    if !flag_lists.is_empty() {
        structs.insert(
            0,
            format!(
                "-- Flag names, for the Info column.\n{}\n",
                flag_lists.join("\n")
            ),
        );
    }
    let udp_heuristic = match &p.transport.udp_heuristic {
        Some(h) => Some(g.heuristic(h)?),
        None => None,
    };
    let info = g.info();
    let ports = |v: &[u16]| v.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
    let port_tables = [
        ("udp", "UDP", &p.transport.udp_ports),
        ("tcp", "TCP", &p.transport.tcp_ports),
    ]
    .into_iter()
    // A UDP protocol without default ports (an implementation profile) still gets the preference
    // and Decode As.
    .filter(|(lower, _, list)| {
        !list.is_empty()
            || (*lower == "udp" && p.transport.tcp_ports.is_empty() && p.application.is_none())
    })
    .map(|(lower, upper, list)| PortTable {
        lower,
        upper,
        ports: ports(list),
    })
    .collect();
    let tcp_framing = p.transport.tcp_length_prefix.map(|it| {
        let abbrev = format!("{}.frame_length", p.name);
        g.add_field(
            abbrev.clone(),
            format!("ProtoField.{}(\"{abbrev}\", \"Frame length\", base.DEC, nil, nil, \"Bytes of the message after this prefix\")", protofield_int(&it)),
        );
        Framing {
            size: it.bytes(),
            read: int_reader(it.bytes(), it.signed, it.endian),
            add: add_fn(it.endian),
            doc: format!(
                "{}{} {}",
                if it.signed { "i" } else { "u" },
                it.bits,
                if it.endian == Endian::Little { "little-endian" } else { "big-endian" }
            ),
        }
    });
    let opening = |side: Side| -> Vec<(String, String)> {
        p.opening
            .iter()
            .filter(|(s, _)| *s == side)
            .map(|(_, id)| (p.structs[*id].name.clone(), p.structs[*id].name.clone()))
            .collect()
    };
    if p.opening
        .iter()
        .any(|(_, id)| p.structs[*id].layout == Layout::LsbBits)
    {
        return Err(Unsupported(
            "bit-stream opening datagrams are not generated yet".into(),
        ));
    }
    let reassembly = match &p.reassembly {
        None => None,
        Some(r) => {
            if p.root().layout == Layout::LsbBits {
                return Err(Unsupported(
                    "reassembly over bit-stream packets is not generated yet".into(),
                ));
            }
            let root = p.root();
            let v = |i: usize| format!("v.{}", root.fields[i].name);
            let when = r
                .when
                .as_ref()
                .map(|w| g.expr(w))
                .unwrap_or_else(|| "true".into());
            // How a piece tells the number of pieces.
            let count = match &r.end {
                PieceEnd::Last(e) => format!("if {} then st.count = index + 1 end", g.expr(e)),
                PieceEnd::Count(f) => {
                    let c = v(*f);
                    format!(
                        "if st.count ~= nil and st.count ~= {c} then root:add_proto_expert_info(E.reassembly, string.format(\"inconsistent piece count %d (earlier pieces said %d)\", {c}, st.count)) end\n    if index >= {c} then root:add_proto_expert_info(E.reassembly, string.format(\"piece %d of %d is out of range\", index, {c})) end\n    st.count = {c}"
                    )
                }
            };
            let (client, client_bits, server, server_bits, as_field) = match r.whole {
                WholeType::ByDirection { client, server } => (
                    p.structs[client].name.clone(),
                    p.structs[client].layout == Layout::LsbBits,
                    p.structs[server].name.clone(),
                    p.structs[server].layout == Layout::LsbBits,
                    None,
                ),
                WholeType::AsField(fi) => (
                    String::new(),
                    false,
                    String::new(),
                    false,
                    Some(root.fields[fi].name.clone()),
                ),
            };
            Some(ReassemblyDef {
                key_doc: r
                    .key
                    .iter()
                    .map(|k| root.fields[*k].name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
                keys: r.key.iter().map(|k| v(*k)).collect(),
                index: v(r.index),
                piece: v(r.field),
                count,
                when,
                client,
                client_bits,
                server,
                server_bits,
                as_field,
            })
        }
    };
    let d = Dissector {
        source: p.source.clone(),
        path: path.to_string(),
        name: p.name.clone(),
        title: p.title.clone(),
        column: p.name.to_uppercase(),
        doc_lines: p.doc.as_deref().map(wrap).unwrap_or_default(),
        needs_bitops: g.needs_bitops,
        needs_xor,
        bits: p.structs.iter().any(|s| s.layout == Layout::LsbBits) || uses_varints(p),
        root_bits: p.root().layout == Layout::LsbBits,
        crcs,
        value_strings,
        fields: g.fields,
        structs,
        root: p.root().name.clone(),
        info,
        port_tables,
        tcp_framing,
        conversations: !p.opening.is_empty()
            || p.reassembly.is_some()
            || !p.state.is_empty()
            || !p.joins.is_empty(),
        has_state: !p.state.is_empty(),
        app_points: !p.app_points.is_empty(),
        application: p.application.as_ref().map(|a| AppDef {
            table: format!("{}.message_id", a.transport),
            transport: a.transport.clone(),
            messages: a
                .messages
                .iter()
                .map(|(id, sid)| (*id, p.structs[*sid].name.clone()))
                .collect(),
            bits: a.bits,
            own_id: a.own_id.map(|it| it.bytes()),
        }),
        has_joins: !p.joins.is_empty(),
        joins: (0..p.joins.len()).collect(),
        reassembly,
        opening_client: opening(Side::Client),
        opening_server: opening(Side::Server),
        udp_heuristic,
    };
    let text = d
        .render()
        .map_err(|e| Unsupported(format!("internal: dissector template: {e}")))?;
    Ok(vec![Output {
        path: path.to_string(),
        contents: text + "\n",
    }])
}

fn wrap(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + word.len() > 95 {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

fn lua_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', " ")
}

fn first_line(d: &Option<String>) -> String {
    d.as_deref()
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Lines of Lua with indentation.
struct Code {
    lines: Vec<String>,
    depth: usize,
}

impl Code {
    fn new(depth: usize) -> Self {
        Code {
            lines: Vec::new(),
            depth,
        }
    }
    fn line(&mut self, s: impl AsRef<str>) {
        self.lines
            .push(format!("{}{}", "  ".repeat(self.depth), s.as_ref()));
    }
    fn open(&mut self, s: impl AsRef<str>) {
        self.line(s);
        self.depth += 1;
    }
    fn close(&mut self, s: impl AsRef<str>) {
        self.depth -= 1;
        self.line(s);
    }
}

struct Gen<'p> {
    p: &'p Protocol,
    fields: Vec<FieldDef>,
    needs_bitops: bool,
    /// Fields whose value the dissector uses (expressions, Info column, checks); the others are
    /// only added to the tree, which saves Wireshark API calls per field and packet.
    needed: HashSet<(StructId, usize)>,
    /// Layout of the type being generated.
    cur: std::cell::Cell<Layout>,
    /// Bytes fields whose data is kept (`v.<name>_raw`): pieces of joined payloads.
    raw: HashSet<(StructId, usize)>,
    /// Structs whose values read conversation state.
    state_readers: Vec<bool>,
}

/// Every field whose decoded value some generated Lua reads.
fn needed_values(p: &Protocol) -> HashSet<(StructId, usize)> {
    fn refs(e: &Expr, out: &mut HashSet<(StructId, usize)>) {
        match e {
            Expr::Field(path) | Expr::FlagBit(path, _) | Expr::Len(path, _) => {
                out.extend(path.iter().map(|r| (r.struct_id, r.field)));
            }
            Expr::Not(x) | Expr::Neg(x) | Expr::Item(_, x) => refs(x, out),
            Expr::Binary(_, a, b) => {
                refs(a, out);
                refs(b, out);
            }
            _ => {}
        }
    }
    let mut out = HashSet::new();
    for (sid, s) in p.structs.iter().enumerate() {
        for (fi, f) in s.fields.iter().enumerate() {
            if let Some(c) = &f.condition {
                refs(c, &mut out);
            }
            match &f.ty {
                Ty::Bytes(Len::Expr(e))
                | Ty::Str(Len::Expr(e))
                | Ty::Array(_, Len::Expr(e))
                | Ty::Struct(_, Some(Len::Expr(e))) => refs(e, &mut out),
                Ty::Union(u) => {
                    refs(&u.on, &mut out);
                    if let Len::Expr(e) = &u.len {
                        refs(e, &mut out);
                    }
                }
                _ => {}
            }
            let checked = matches!(f.role, Role::Const(_) | Role::Checksum(_))
                || f.max.is_some()
                || matches!(f.ty, Ty::Enum(_))
                || matches!(&f.ty, Ty::Array(e, _) if matches!(**e, Ty::Enum(_)));
            if checked {
                out.insert((sid, fi));
            }
        }
    }
    for part in &p.root().info {
        if let InfoPart::Field(i) = part {
            out.insert((p.root, *i));
        }
    }
    for s in &p.structs {
        for f in &s.fields {
            for (_, key) in &f.select {
                refs(key, &mut out);
            }
        }
    }
    for t in &p.state {
        for r in &t.records {
            out.insert((r.in_struct, r.key));
            out.insert((r.elem, r.item));
        }
    }
    for a in &p.app_points {
        out.extend(a.id.map(|id| (a.in_struct, id)));
    }
    for j in &p.joins {
        out.extend(
            j.key
                .iter()
                .chain([&j.sequence])
                .chain(j.streams.iter().map(|s| &s.field))
                .map(|i| (j.in_struct, *i)),
        );
        refs(&j.first, &mut out);
        refs(&j.last, &mut out);
    }
    if let Some(r) = &p.reassembly {
        out.extend(
            r.key
                .iter()
                .chain([&r.index, &r.field])
                .map(|i| (p.root, *i)),
        );
        match &r.end {
            PieceEnd::Last(e) => refs(e, &mut out),
            PieceEnd::Count(f) => {
                out.insert((p.root, *f));
            }
        }
        if let WholeType::AsField(fi) = r.whole {
            if let Ty::Union(u) = &p.root().fields[fi].ty {
                refs(&u.on, &mut out);
            }
        }
        if let Some(w) = &r.when {
            refs(w, &mut out);
        }
    }
    out
}

/// How to read an integer of `bytes` bytes from a TvbRange, as a Lua number.
fn int_reader(bytes: usize, signed: bool, endian: Endian) -> String {
    let le = if endian == Endian::Little { "le_" } else { "" };
    match (bytes > 4, signed) {
        (false, false) => format!("{le}uint()"),
        (false, true) => format!("{le}int()"),
        (true, false) => format!("{le}uint64():tonumber()"),
        (true, true) => format!("{le}int64():tonumber()"),
    }
}

fn add_fn(endian: Endian) -> &'static str {
    if endian == Endian::Little {
        "add_le"
    } else {
        "add"
    }
}

fn protofield_int(it: &IntTy) -> String {
    let bits = match it.bytes() {
        1 => 8,
        2 => 16,
        3 => 24,
        4 => 32,
        _ => 64,
    };
    format!("{}{}", if it.signed { "int" } else { "uint" }, bits)
}

impl<'p> Gen<'p> {
    fn add_field(&mut self, abbrev: String, ctor: String) {
        if !self.fields.iter().any(|f| f.abbrev == abbrev) {
            self.fields.push(FieldDef { abbrev, ctor });
        }
    }

    fn declare_fields(&mut self) -> Result<(), Unsupported> {
        let p = self.p;
        for (sid, s) in p.structs.iter().enumerate() {
            // A field's declaration depends on the layout of the type holding it.
            self.cur.set(s.layout);
            for (fi, f) in s.fields.iter().enumerate() {
                let abbrev = naming::abbrev(p, sid, fi);
                self.declare(
                    &abbrev,
                    &naming::label(&f.name),
                    &first_line(&f.doc),
                    &f.ty,
                    &f.role,
                )?;
                if !f.select.is_empty() {
                    let a = format!("{abbrev}.unknown");
                    self.add_field(a.clone(), format!("ProtoField.bytes(\"{a}\", \"{} (types unknown)\", base.NONE, \"Bytes that need a list announced earlier in the conversation\")", naming::label(&f.name)));
                }
            }
        }
        for j in &p.joins {
            for st in j.streams.iter().filter(|st| st.whole.is_none()) {
                let f = &p.structs[j.in_struct].fields[st.field];
                let a = format!("{}.joined", naming::abbrev(p, j.in_struct, st.field));
                self.add_field(a.clone(), format!("ProtoField.bytes(\"{a}\", \"Joined {}\", base.NONE, \"The {} of every part, joined\")", naming::label(&f.name), f.name));
            }
        }
        Ok(())
    }

    fn declare(
        &mut self,
        abbrev: &str,
        label: &str,
        doc: &str,
        ty: &Ty,
        role: &Role,
    ) -> Result<(), Unsupported> {
        let p = self.p;
        let doc = lua_escape(doc);
        let hex = matches!(role, Role::Const(_) | Role::Checksum(_));
        let base = if hex { "base.HEX" } else { "base.DEC" };
        match ty {
            Ty::Int(it) => {
                self.add_field(
                    abbrev.into(),
                    format!(
                        "ProtoField.{}(\"{abbrev}\", \"{label}\", {base}, nil, nil, \"{doc}\")",
                        protofield_int(it)
                    ),
                );
                if matches!(role, Role::Checksum(_)) {
                    let a = format!("{abbrev}.status");
                    self.add_field(a.clone(), format!("ProtoField.uint8(\"{a}\", \"{label} status\", base.DEC, VS_CHECKSUM_STATUS, nil, \"Whether the {label} matches the data\")"));
                }
            }
            Ty::Bool => self.add_field(
                abbrev.into(),
                format!(
                    "ProtoField.bool(\"{abbrev}\", \"{label}\", base.NONE, nil, nil, \"{doc}\")"
                ),
            ),
            Ty::Float { bits: 32, .. } => self.add_field(
                abbrev.into(),
                format!("ProtoField.float(\"{abbrev}\", \"{label}\", nil, \"{doc}\")"),
            ),
            Ty::Float { bits: 64, .. } => self.add_field(
                abbrev.into(),
                format!("ProtoField.double(\"{abbrev}\", \"{label}\", nil, \"{doc}\")"),
            ),
            Ty::Float { bits: 16, .. } => self.add_field(
                abbrev.into(),
                format!(
                    "ProtoField.float(\"{abbrev}\", \"{label}\", nil, \"{doc} (IEEE binary16)\")"
                ),
            ),
            Ty::Float { bits, .. } => {
                return Err(Unsupported(format!(
                    "the Lua backend does not support f{bits} yet"
                )))
            }
            Ty::VarInt(VarInt::Leb128) => self.add_field(
                abbrev.into(),
                format!(
                    "ProtoField.uint64(\"{abbrev}\", \"{label}\", base.DEC, nil, nil, \"{doc}\")"
                ),
            ),
            Ty::VarInt(VarInt::ZigZag) => self.add_field(
                abbrev.into(),
                format!(
                    "ProtoField.int64(\"{abbrev}\", \"{label}\", base.DEC, nil, nil, \"{doc}\")"
                ),
            ),
            Ty::VarInt(VarInt::RiptideLen) => self.add_field(
                abbrev.into(),
                format!(
                    "ProtoField.uint16(\"{abbrev}\", \"{label}\", base.DEC, nil, nil, \"{doc}\")"
                ),
            ),
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => self.add_field(
                abbrev.into(),
                format!(
                    "ProtoField.{}{bits}(\"{abbrev}\", \"{label}\", base.DEC, nil, nil, \"{doc}\")",
                    if *signed { "int" } else { "uint" }
                ),
            ),
            Ty::Bits => self.add_field(
                abbrev.into(),
                format!("ProtoField.bytes(\"{abbrev}\", \"{label}\", base.NONE, \"{doc}\")"),
            ),
            Ty::Enum(id) => {
                let e = &p.enums[*id];
                self.add_field(
                    abbrev.into(),
                    format!(
                        "ProtoField.{}(\"{abbrev}\", \"{label}\", base.HEX, VS_{}, nil, \"{doc}\")",
                        protofield_int(&e.repr),
                        e.name
                    ),
                );
            }
            Ty::Flags(id) => {
                let fl = &p.flags[*id];
                self.add_field(
                    abbrev.into(),
                    format!(
                        "ProtoField.{}(\"{abbrev}\", \"{label}\", base.HEX, nil, nil, \"{doc}\")",
                        protofield_int(&fl.repr)
                    ),
                );
                // In bit streams a flag's bytes are not where a mask could find it: the value is
                // given explicitly instead.
                let bits = self.cur.get() == Layout::LsbBits;
                for b in &fl.bits {
                    let a = naming::flag_abbrev(abbrev, &b.name);
                    let bd = lua_escape(&first_line(&b.doc));
                    let (width, mask) = if bits {
                        ("base.NONE".to_string(), "nil".to_string())
                    } else {
                        ((fl.repr.bytes() * 8).to_string(), format!("{:#x}", b.value))
                    };
                    self.add_field(
                        a.clone(),
                        format!(
                            "ProtoField.bool(\"{a}\", \"{}\", {width}, nil, {mask}, \"{bd}\")",
                            lua_escape(&b.name)
                        ),
                    );
                }
            }
            Ty::Bytes(len) | Ty::Str(len) => {
                if let Len::Prefix(it) = len {
                    let a = naming::prefix_abbrev(abbrev);
                    self.add_field(a.clone(), format!("ProtoField.{}(\"{a}\", \"{label} length\", base.DEC, nil, nil, \"Length of {label}\")", protofield_int(it)));
                }
                if matches!(ty, Ty::Str(_)) {
                    self.add_field(
                        abbrev.into(),
                        format!(
                            "ProtoField.string(\"{abbrev}\", \"{label}\", base.UNICODE, \"{doc}\")"
                        ),
                    );
                } else {
                    self.add_field(
                        abbrev.into(),
                        format!(
                            "ProtoField.bytes(\"{abbrev}\", \"{label}\", base.NONE, \"{doc}\")"
                        ),
                    );
                }
            }
            Ty::Array(elem, count) => {
                if let Len::Prefix(it) = count {
                    let a = naming::prefix_abbrev(abbrev);
                    self.add_field(a.clone(), format!("ProtoField.{}(\"{a}\", \"{label} count\", base.DEC, nil, nil, \"Number of {label}\")", protofield_int(it)));
                }
                if !matches!(**elem, Ty::Struct(..)) {
                    self.declare(abbrev, label, &doc, elem, &Role::Value)?;
                }
            }
            Ty::Struct(..) => {}
            Ty::Union(u) => {
                if u.default == Some(CaseBody::Bytes)
                    || u.cases.iter().any(|c| c.body == CaseBody::Bytes)
                {
                    self.add_field(
                        abbrev.into(),
                        format!(
                            "ProtoField.bytes(\"{abbrev}\", \"{label}\", base.NONE, \"{doc}\")"
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// Structs in dependency order: every function is defined before its callers.
    fn order(&self) -> Vec<StructId> {
        fn visit(p: &Protocol, id: StructId, done: &mut Vec<bool>, out: &mut Vec<StructId>) {
            if done[id] {
                return;
            }
            done[id] = true;
            let mut k = Vec::new();
            for f in &p.structs[id].fields {
                f.ty.child_structs(&mut k);
            }
            for j in p.joins.iter().filter(|j| j.in_struct == id) {
                k.extend(j.streams.iter().filter_map(|s| s.whole));
            }
            for c in k {
                visit(p, c, done, out);
            }
            out.push(id);
        }
        let mut done = vec![false; self.p.structs.len()];
        let mut out = Vec::new();
        for id in 0..self.p.structs.len() {
            visit(self.p, id, &mut done, &mut out);
        }
        out
    }

    fn crcs(&self) -> Result<Vec<CrcDef>, Unsupported> {
        let mut algos: Vec<ChecksumAlgo> = Vec::new();
        for s in &self.p.structs {
            for f in &s.fields {
                if let Role::Checksum(a) = f.role {
                    if !algos.contains(&a) {
                        algos.push(a);
                    }
                }
            }
        }
        algos
            .into_iter()
            .map(|a| crc_code(a).map(|code| CrcDef { code }))
            .collect()
    }

    fn struct_fn(&mut self, sid: StructId) -> Result<String, Unsupported> {
        let s = &self.p.structs[sid];
        self.cur.set(s.layout);
        let mut c = Code::new(0);
        for (ji, j) in self.p.joins.iter().enumerate() {
            if j.in_struct == sid {
                self.join_fn(&mut c, ji)?;
                self.cur.set(s.layout);
            }
        }
        let d = first_line(&s.doc);
        heading(&mut c, &s.name, &d);
        c.line("-- Returns the offset after the value and its fields, or nil after reporting a problem.");
        c.open(format!(
            "local function dissect_{}(tvb, pinfo, tree, offset, limit)",
            s.name
        ));
        c.line("local start = offset");
        c.line("local v = {}");
        c.line("local item, n, sub, nxt, val, range");
        for fi in 0..s.fields.len() {
            self.field(&mut c, sid, fi)?;
        }
        for f in &s.fields {
            if let Role::Checksum(algo) = f.role {
                let n = self.p.fixed_size(&f.ty).unwrap_or(2);
                let abbrev = naming::abbrev(
                    self.p,
                    sid,
                    s.fields.iter().position(|x| x.name == f.name).unwrap(),
                );
                let digits = n * 2;
                c.line(format!(
                    "-- {}: verified over the whole {} with its own bytes zeroed.",
                    f.name, s.name
                ));
                c.open("do");
                c.line(format!(
                    "local computed = {}(tvb, start, offset, cs_at_{1}, {n})",
                    crc_func(algo),
                    f.name
                ));
                c.open(format!("if computed == v.{} then", f.name));
                c.line(format!("cs_item_{}:append_text(\" [correct]\")", f.name));
                c.line(format!("cs_item_{0}:add(F[\"{abbrev}.status\"], tvb(cs_at_{0}, {n}), 1):set_generated()", f.name));
                c.close("else");
                c.depth += 1;
                c.line(format!("cs_item_{0}:append_text(string.format(\" [incorrect, should be 0x%0{digits}x]\", computed))", f.name));
                c.line(format!("cs_item_{0}:add(F[\"{abbrev}.status\"], tvb(cs_at_{0}, {n}), 0):set_generated()", f.name));
                c.line(format!(
                    "cs_item_{0}:add_proto_expert_info(E.bad_checksum, string.format(\"Bad {0}: stored 0x%0{digits}x, computed 0x%0{digits}x\", v.{0}, computed))",
                    f.name
                ));
                c.close("end");
                c.close("end");
            }
        }
        for (t, table) in self.p.state.iter().enumerate() {
            for r in table
                .records
                .iter()
                .filter(|r| r.in_struct == sid && r.via.is_none())
            {
                record(self.p, &mut c, t, r, "v", "v");
            }
        }
        for (ji, j) in self.p.joins.iter().enumerate() {
            if j.in_struct == sid {
                c.line(format!("join_{ji}(pinfo, tree, v)"));
            }
        }
        c.line("return offset, v");
        c.close("end");
        Ok(c.lines.join("\n") + "\n")
    }

    /// A field whose values read conversation-state lists: select them by key first; without
    /// them the rest of the scope is shown as bytes with a note.
    fn selecting(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        abbrev: &str,
        target: &str,
    ) -> Result<(), Unsupported> {
        let p = self.p;
        let f = &p.structs[sid].fields[fi];
        c.line(format!("local saved_{} = {{}}", f.name));
        c.line(format!("local known_{} = true", f.name));
        for (t, key) in &f.select {
            let k = self.expr(key);
            let n = t + 1;
            c.line(format!("saved_{}[{n}] = LISTS[{n}]", f.name));
            c.line(format!("LISTS[{n}] = state_get(pinfo, {n}, {k})"));
            c.open(format!("if LISTS[{n}] == nil then"));
            c.line(format!(
                "tree:add_proto_expert_info(E.no_state, string.format(\"{}: no {} list was announced for %s earlier in this direction; the rest is shown as bytes\", tostring({k})))",
                f.name, p.state[*t].name
            ));
            c.line(format!("known_{} = false", f.name));
            c.close("end");
        }
        c.open(format!("if known_{} then", f.name));
        self.value(c, sid, fi, &f.ty, abbrev, "tree", target)?;
        c.close("else");
        c.depth += 1;
        c.line(format!(
            "tree:add(F[\"{abbrev}.unknown\"], tvb(offset, limit - offset))"
        ));
        c.line("offset = limit");
        c.line("REST_TAKEN = true");
        c.close("end");
        for (t, _) in &f.select {
            c.line(format!("LISTS[{0}] = saved_{1}[{0}]", t + 1, f.name));
        }
        Ok(())
    }

    /// `join_<k>`: collects the parts of join `ji` on the first pass (per conversation, direction
    /// and key, by sequence number); the frame whose part completes a run from a first part to a
    /// last one keeps the joined streams and shows them decoded.
    fn join_fn(&mut self, c: &mut Code, ji: usize) -> Result<(), Unsupported> {
        let p = self.p;
        let j = &p.joins[ji];
        let s = &p.structs[j.in_struct];
        self.cur.set(s.layout);
        let first = self.expr(&j.first);
        let last = self.expr(&j.last);
        let wrap = j.wrap;
        c.line(format!(
            "-- Parts of one {} payload: consecutive {} numbers (modulo {wrap}) from a first part to a last",
            s.name, s.fields[j.sequence].name
        ));
        c.line("-- one, per conversation and direction; joined on the first pass and kept by frame number.");
        c.line(format!("local join_parts_{ji} = {{}}"));
        c.line(format!("local frame_joins_{ji} = {{}}"));
        c.open(format!("local function join_{ji}(pinfo, tree, v)"));
        c.open("if not pinfo.visited then");
        c.line("local conv, side = conversation_key(pinfo)");
        let keys: String = j
            .key
            .iter()
            .map(|k| format!(" .. \"|\" .. tostring(v.{})", s.fields[*k].name))
            .collect();
        c.line(format!("local key = conv .. \"|\" .. side{keys}"));
        c.line(format!("local st = join_parts_{ji}[key]"));
        c.open("if st == nil then");
        c.line("st = { parts = {}, n = 0 }");
        c.line(format!("join_parts_{ji}[key] = st"));
        c.close("end");
        c.line(format!("local seq = v.{}", s.fields[j.sequence].name));
        c.line("if st.parts[seq] == nil then st.n = st.n + 1 end");
        c.open("if st.n > 4096 then");
        c.line("tree:add_proto_expert_info(E.reassembly, \"more than 4096 parts waiting to be joined; dropped\")");
        c.line(format!("join_parts_{ji}[key] = nil"));
        c.line("return");
        c.close("end");
        let raws: Vec<String> = j
            .streams
            .iter()
            .map(|st| format!("v.{}_raw", s.fields[st.field].name))
            .collect();
        c.line(format!(
            "st.parts[seq] = {{ first = {first}, last = {last}, {} }}",
            raws.join(", ")
        ));
        c.line("-- Back to the first part and on to the last one, every part in between present.");
        c.line("local a, b, steps = seq, seq, 0");
        c.open("while a ~= nil and not st.parts[a].first do");
        c.line(format!("a = (a + {}) % {wrap}", wrap - 1));
        c.line("steps = steps + 1");
        c.line("if st.parts[a] == nil or steps > st.n then a = nil end");
        c.close("end");
        c.line("steps = 0");
        c.open("while a ~= nil and b ~= nil and not st.parts[b].last do");
        c.line(format!("b = (b + 1) % {wrap}"));
        c.line("steps = steps + 1");
        c.line("if st.parts[b] == nil or steps > st.n or st.parts[b].first then b = nil end");
        c.close("end");
        c.open("if a ~= nil and b ~= nil then");
        let lists: Vec<String> = (1..=j.streams.len())
            .map(|i| format!("s{i} = {{}}"))
            .collect();
        c.line(format!(
            "local whole = {{ count = 0, {} }}",
            lists.join(", ")
        ));
        c.line("local i = a");
        c.open("while true do");
        c.line("local part = st.parts[i]");
        for i in 1..=j.streams.len() {
            c.line(format!("whole.s{i}[#whole.s{i} + 1] = part[{i}]"));
        }
        c.line("st.parts[i] = nil");
        c.line("st.n = st.n - 1");
        c.line("whole.count = whole.count + 1");
        c.line("if i == b then break end");
        c.line(format!("i = (i + 1) % {wrap}"));
        c.close("end");
        for i in 1..=j.streams.len() {
            c.line(format!("whole.s{i} = table.concat(whole.s{i})"));
        }
        c.line(format!("frame_joins_{ji}[pinfo.number] = whole"));
        c.close("end");
        c.close("end");
        c.line(format!("local whole = frame_joins_{ji}[pinfo.number]"));
        c.line("if whole == nil then return end");
        c.line(format!(
            "tree:add_proto_expert_info(E.joined, string.format(\"{} joined from %d parts\", whole.count))",
            s.name
        ));
        c.line(format!(
            "INFO_SUFFIX = string.format(\" [{} joined from %d parts]\", whole.count)",
            s.name
        ));
        c.line("local item, n, sub, nxt, val");
        for (i, st) in j.streams.iter().enumerate() {
            let f = &s.fields[st.field];
            let k = i + 1;
            let abbrev = naming::abbrev(p, j.in_struct, st.field);
            c.open(format!("if #whole.s{k} > 0 then"));
            c.line(format!(
                "local wtvb = ByteArray.new(whole.s{k}, true):tvb(\"Joined {}\")",
                f.name
            ));
            match st.whole {
                None => {
                    c.line(format!(
                        "sub = tree:add(wtvb(), string.format(\"Joined {} (%d bytes)\", wtvb:len()))",
                        f.name
                    ));
                    c.line(format!("sub:add(F[\"{abbrev}.joined\"], wtvb())"));
                }
                Some(w) => {
                    let wn = &p.structs[w].name;
                    c.line(format!(
                        "sub = tree:add(wtvb(), string.format(\"Joined {}: {wn} (%d bytes)\", wtvb:len()))",
                        f.name
                    ));
                    c.line(format!(
                        "nxt, val = dissect_{wn}(wtvb, pinfo, sub, 0, wtvb:len())"
                    ));
                    c.open("if nxt ~= nil then");
                    c.line(format!("if nxt < wtvb:len() then sub:add_proto_expert_info(E.trailing, string.format(\"%d unexpected bytes after the joined {}\", wtvb:len() - nxt)) end", f.name));
                    for (t, table) in p.state.iter().enumerate() {
                        for r in table.records.iter().filter(|r| r.via == Some((ji, i))) {
                            record(p, c, t, r, "v", "val");
                        }
                    }
                    c.close("end");
                }
            }
            c.close("end");
        }
        c.close("end");
        c.line("");
        Ok(())
    }

    /// `dissect_whole`: a joined payload decoded with the root's switch field `fi`, by the tag of
    /// the packet that completed it (its values `v`).
    fn whole_fn(&mut self, fi: usize) -> Result<String, Unsupported> {
        let p = self.p;
        let Ty::Union(u) = &p.root().fields[fi].ty else {
            return Err(Unsupported("'as' must name a switch".into()));
        };
        let mut whole = (**u).clone();
        whole.len = Len::Rest;
        whole.unless = None;
        self.cur.set(p.root().layout);
        let mut c = Code::new(0);
        c.line("-- A reassembled payload, decoded like the switch of one whole message, by the tag of the");
        c.line("-- packet that completed it.");
        c.open("local function dissect_whole(tvb, pinfo, tree, v)");
        c.line("local offset, limit = 0, tvb:len()");
        c.line("local item, n, sub, nxt, val, range");
        let abbrev = naming::abbrev(p, p.root, fi);
        self.union(&mut c, p.root, fi, &whole, &abbrev, "tree", "val")?;
        c.line("return offset");
        c.close("end");
        Ok(c.lines.join("\n") + "\n")
    }

    /// Code for one field of struct `sid`.
    fn field(&mut self, c: &mut Code, sid: StructId, fi: usize) -> Result<(), Unsupported> {
        let p = self.p;
        let f = &p.structs[sid].fields[fi];
        let abbrev = naming::abbrev(p, sid, fi);
        let d = first_line(&f.doc);
        heading(c, &f.name, &d);
        if let Some(cond) = &f.condition {
            let e = self.expr(cond);
            c.open(format!("if {e} then"));
        }
        if let Role::Checksum(_) = f.role {
            c.line(format!("local cs_at_{} = offset", f.name));
        }
        let target = format!("v.{}", f.name);
        let app_payload = p
            .app_points
            .iter()
            .any(|a| a.in_struct == sid && a.payload == fi);
        if app_payload {
            c.line("local app_first = offset");
        }
        if f.select.is_empty() {
            self.value(c, sid, fi, &f.ty, &abbrev, "tree", &target)?;
        } else {
            self.selecting(c, sid, fi, &abbrev, &target)?;
        }
        if let Role::Checksum(_) = f.role {
            c.line(format!("local cs_item_{} = item", f.name));
        }
        if app_payload {
            let id = p
                .app_points
                .iter()
                .find(|a| a.in_struct == sid && a.payload == fi)
                .and_then(|a| a.id)
                // A transport without ids hands every payload to the application under 0.
                .map(|id| format!("v.{}", p.structs[sid].fields[id].name))
                .unwrap_or_else(|| "0".into());
            let unit = if self.cur.get() == Layout::LsbBits {
                "bits"
            } else {
                "bytes"
            };
            c.line(format!(
                "app_payload_{unit}(tvb, pinfo, tree, {id}, app_first, offset)"
            ));
        }
        for (cond, message) in &f.warnings {
            let e = self.expr(cond);
            c.line(format!(
                "if {e} then item:add_proto_expert_info(E.quirk, \"{}\") end",
                lua_escape(message)
            ));
        }
        match (&f.role, f.max) {
            (Role::Const(k), _) => {
                c.open(format!("if {target} ~= {k:#X} then").replace("0X", "0x"));
                c.line(format!("item:add_proto_expert_info(E.bad_const, string.format(\"{}: expected 0x%x, found 0x%x\", {k}, {target}))", f.name));
                c.close("end");
            }
            (_, Some(m)) => {
                c.open(format!("if {target} > {m} then"));
                c.line(format!("item:add_proto_expert_info(E.too_large, string.format(\"{}: %d is above the maximum {m}\", {target}))", f.name));
                c.close("end");
            }
            _ => {}
        }
        if f.condition.is_some() {
            c.close("end");
        }
        Ok(())
    }

    /// Bit-stream layouts: reads one value of `ty` at bit `offset` (limit in bits too), shown over
    /// the bytes it touches with its decoded value.
    #[allow(clippy::too_many_arguments)]
    fn value_bits(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Unsupported> {
        let p = self.p;
        let f = &p.structs[sid].fields[fi];
        let name = f.name.clone();
        let need = |c: &mut Code, w: String| {
            c.line(format!("if limit - offset < {w} then return truncated_bits({tree}, tvb, offset, \"{name}\", {w}, limit - offset) end"));
        };
        let int = |c: &mut Code, it: &IntTy| {
            need(c, it.bits.to_string());
            c.line(format!("val = read_bits(tvb, offset, {})", it.bits));
            if it.signed {
                c.line(format!(
                    "if val >= {} then val = val - {} end",
                    1u64 << (it.bits - 1),
                    1u128 << it.bits
                ));
            }
            c.line(format!(
                "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, {}), val)",
                it.bits
            ));
            // Where the field starts and ends when that is not a byte boundary.
            let span = format!(
                "item:append_text(string.format(\" [bits %d-%d]\", offset, offset + {}))",
                it.bits - 1
            );
            if !it.bits.is_multiple_of(8) {
                c.line(span);
            } else {
                c.line(format!("if offset % 8 ~= 0 then {span} end"));
            }
            c.line(format!("{target} = val"));
            c.line(format!("offset = offset + {}", it.bits));
        };
        match ty {
            Ty::Int(it) => {
                if it.bits > 32 {
                    return Err(Unsupported(format!("'{name}': integers wider than 32 bits in bit streams are not generated for Lua yet")));
                }
                int(c, it)
            }
            Ty::Bool => {
                need(c, "1".into());
                c.line("val = read_bits(tvb, offset, 1) == 1");
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 1), val)"
                ));
                c.line("item:append_text(string.format(\" [bit %d]\", offset))");
                c.line(format!("{target} = val"));
                c.line("offset = offset + 1");
            }
            Ty::Float { bits: 32, .. } => {
                need(c, "32".into());
                c.line("val = f32_from_bits(read_bits(tvb, offset, 32))");
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 32), val)"
                ));
                c.line(format!("{target} = val"));
                c.line("offset = offset + 32");
            }
            Ty::Float { bits: 16, .. } => {
                need(c, "16".into());
                c.line("val = f16_from_bits(read_bits(tvb, offset, 16))");
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 16), val)"
                ));
                c.line(format!("{target} = val"));
                c.line("offset = offset + 16");
            }
            Ty::Float { .. } => {
                return Err(Unsupported(format!(
                    "'{name}': only f32 is generated for bit streams in Lua yet"
                )))
            }
            Ty::VarInt(VarInt::Leb128 | VarInt::ZigZag) => {
                c.line("val, n = read_leb128(tvb, offset, limit)");
                c.line(format!("if val == nil then return truncated_bits({tree}, tvb, offset, \"{name}\", n + 8, limit - offset) end"));
                c.line(format!("if val == false then {tree}:add_proto_expert_info(E.too_large, \"{name}: a variable-length integer longer than 64 bits\") return nil end"));
                if matches!(ty, Ty::VarInt(VarInt::ZigZag)) {
                    c.line("val = zigzag64(val)");
                }
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, n), val)"
                ));
                c.line(format!("{target} = val:tonumber()"));
                c.line("offset = offset + n");
            }
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => {
                if *bits == 64 && *signed {
                    return Err(Unsupported(format!(
                        "'{name}': rabbit_i64 is not generated for Lua yet"
                    )));
                }
                let k = match bits {
                    16 => 1,
                    32 => 2,
                    _ => 3,
                };
                c.line(format!("val, n = read_rabbit(tvb, offset, limit, {k})"));
                c.line(format!("if val == nil then return truncated_bits({tree}, tvb, offset, \"{name}\", n, limit - offset) end"));
                if *signed {
                    c.line("if val % 2 == 1 then val = -(val + 1) / 2 else val = val / 2 end");
                }
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, n), val)"
                ));
                c.line(format!("{target} = val"));
                c.line("offset = offset + n");
            }
            Ty::VarInt(_) => {
                return Err(Unsupported(format!(
                    "'{name}': this varint is not generated for Lua yet"
                )))
            }
            Ty::Enum(id) => {
                let e = &p.enums[*id];
                int(c, &e.repr);
                let (expert, what) = if e.closed {
                    ("E.invalid", "is not allowed")
                } else {
                    ("E.unknown", "is not named by the schema")
                };
                c.line(format!("if VS_{}[val] == nil then item:add_proto_expert_info({expert}, string.format(\"{name} %d {what}\", val)) end", e.name));
            }
            Ty::Flags(id) => {
                let fl = &p.flags[*id];
                int(c, &fl.repr);
                let w = fl.repr.bits;
                for b in &fl.bits {
                    let a = naming::flag_abbrev(abbrev, &b.name);
                    c.line(format!(
                        "item:add(F[\"{a}\"], bit_range(tvb, offset - {w}, {w}), has_bit(val, {}))",
                        b.value
                    ));
                }
            }
            Ty::Bytes(len) | Ty::Str(len) => {
                match len {
                    Len::Expr(e) => {
                        let ex = self.expr(e);
                        c.line(format!("n = {ex}"));
                    }
                    Len::Rest | Len::Natural => c.line("n = floor((limit - offset) / 8)"),
                    Len::Prefix(it) => {
                        int(c, it);
                        c.line(format!("n = {target}"));
                    }
                }
                c.line(format!("if n < 0 or limit - offset < 8 * n then return truncated_bits({tree}, tvb, offset, \"{name}\", 8 * n, limit - offset) end"));
                if matches!(ty, Ty::Str(_)) {
                    c.line("val = read_bit_bytes(tvb, offset, n)");
                    c.line(format!(
                        "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 8 * n), val)"
                    ));
                    c.line(format!("{target} = val"));
                    c.line(format!("if not utf8_valid(val) then item:add_proto_expert_info(E.invalid, \"{name}: not valid UTF-8\") end"));
                } else {
                    c.line(format!(
                        "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 8 * n))"
                    ));
                    c.line(format!("{target} = n"));
                }
                c.line("offset = offset + 8 * n");
            }
            Ty::Bits => {
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, limit - offset))"
                ));
                c.line("if limit > offset then item:append_text(string.format(\" [%d bits from bit %d]\", limit - offset, offset)) end");
                c.line(format!("{target} = limit - offset"));
                c.line("offset = limit");
            }
            Ty::Struct(id, None | Some(Len::Natural)) => {
                let t = &p.structs[*id].name;
                c.line(format!(
                    "sub = {tree}:add(tvb(floor(offset / 8), 0), \"{}: {t}\")",
                    naming::label(&name)
                ));
                c.line(format!(
                    "nxt, val = dissect_{t}(tvb, pinfo, sub, offset, limit)"
                ));
                c.line("if nxt == nil then return nil end");
                c.line("sub:set_len(ceil8(nxt) - floor(offset / 8))");
                c.line(format!("{target} = val"));
                c.line("offset = nxt");
            }
            Ty::Struct(..) => {
                return Err(Unsupported(format!(
                    "'{name}': structs with a length in bit streams are not generated for Lua yet"
                )))
            }
            Ty::Array(elem, count) => {
                c.line(format!("{target} = {{}}"));
                match count {
                    Len::Rest | Len::Natural => c.open("while offset < limit - 7 do"),
                    Len::Expr(e) => {
                        let ex = self.expr(e);
                        c.line(format!("n = {ex}"));
                        c.open("for _ = 1, n do");
                    }
                    Len::Prefix(it) => {
                        int(c, it);
                        c.line(format!("n = {target}"));
                        c.line(format!("{target} = {{}}"));
                        c.open("for _ = 1, n do");
                    }
                }
                let item_target = format!("{target}[#{target} + 1]");
                self.value_bits(c, sid, fi, elem, abbrev, tree, &item_target)?;
                c.close("end");
            }
            Ty::Union(u) => {
                if !matches!(u.len, Len::Rest | Len::Natural) {
                    return Err(Unsupported(format!("'{name}': switches with a length in bit streams are not generated for Lua yet")));
                }
                let tag = self.expr(&u.on);
                c.line(format!("local tag_{name} = {tag}"));
                let body = |c: &mut Code, b: CaseBody, variant: &str| match b {
                    CaseBody::Struct(id) => {
                        let t = &p.structs[id].name;
                        c.line(format!(
                            "sub = {tree}:add(tvb(floor(offset / 8), 0), \"{}: {variant}\")",
                            naming::label(&name)
                        ));
                        c.line(format!(
                            "nxt, val = dissect_{t}(tvb, pinfo, sub, offset, limit)"
                        ));
                        c.line("if nxt == nil then return nil end");
                        c.line("sub:set_len(ceil8(nxt) - floor(offset / 8))");
                        c.line(format!("{target} = val"));
                        c.line("offset = nxt");
                    }
                    CaseBody::Bytes => {
                        c.line(format!(
                            "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, limit - offset))"
                        ));
                        c.line("offset = limit");
                    }
                    CaseBody::Empty => {}
                };
                let no_case = |c: &mut Code| {
                    c.line(format!("{tree}:add_proto_expert_info(E.invalid, string.format(\"{name}: no case for tag %d\", tag_{name}))"));
                    c.line("return nil");
                };
                case_chain(c, u, &name, &body, &no_case);
            }
        }
        Ok(())
    }

    /// A union as long as its variant (no length): the variant's own size moves `offset`, and a
    /// `bytes` variant takes the rest of the scope.
    #[allow(clippy::too_many_arguments)]
    fn union_natural(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        u: &Union,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Unsupported> {
        let p = self.p;
        if u.unless.is_some() {
            return Err(Unsupported(
                "'unless' on a switch without a length is not generated for Lua yet".into(),
            ));
        }
        let name = p.structs[sid].fields[fi].name.clone();
        let tag = self.expr(&u.on);
        c.line(format!("local tag_{name} = {tag}"));
        state_tag_check(c, u, &name, tree);
        let body = |c: &mut Code, b: CaseBody, variant: &str| match b {
            CaseBody::Struct(id) => {
                c.line(format!(
                    "sub = {tree}:add(tvb(offset, 0), \"{}: {variant}\")",
                    naming::label(&name)
                ));
                call_struct(p, c, id, "offset", "limit");
                c.line("sub:set_len(nxt - offset)");
                c.line(format!("{target} = val"));
                c.line("offset = nxt");
            }
            CaseBody::Bytes => {
                c.line(format!(
                    "{tree}:add(F[\"{abbrev}\"], tvb(offset, limit - offset))"
                ));
                c.line(format!("{target} = limit - offset"));
                c.line("offset = limit");
            }
            CaseBody::Empty => {}
        };
        let no_case = |c: &mut Code| {
            c.line(format!("{tree}:add_proto_expert_info(E.invalid, string.format(\"{name}: no case for tag %d\", tag_{name}))"));
            c.line("return nil");
        };
        case_chain(c, u, &name, &body, &no_case);
        Ok(())
    }

    /// Reads one value of `ty` into `target`, adding it to `tree`.
    #[allow(clippy::too_many_arguments)]
    fn value(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Unsupported> {
        if self.cur.get() == Layout::LsbBits {
            return self.value_bits(c, sid, fi, ty, abbrev, tree, target);
        }
        let p = self.p;
        let f = &p.structs[sid].fields[fi];
        let name = &f.name;
        let needed = self.needed.contains(&(sid, fi));
        let scalar = |c: &mut Code, n: usize, endian: Endian, read: String| {
            c.line(format!("if limit - offset < {n} then return truncated({tree}, tvb, offset, \"{name}\", {n}, limit - offset) end"));
            if needed {
                c.line(format!("range = tvb(offset, {n})"));
                c.line(format!(
                    "item = {tree}:{}(F[\"{abbrev}\"], range)",
                    add_fn(endian)
                ));
                c.line(format!("val = range:{read}"));
                c.line(format!("{target} = val"));
            } else {
                c.line(format!(
                    "item = {tree}:{}(F[\"{abbrev}\"], tvb(offset, {n}))",
                    add_fn(endian)
                ));
            }
        };
        match ty {
            Ty::Int(it) => {
                scalar(
                    c,
                    it.bytes(),
                    it.endian,
                    int_reader(it.bytes(), it.signed, it.endian),
                );
                c.line(format!("offset = offset + {}", it.bytes()));
            }
            Ty::Bool => {
                scalar(c, 1, Endian::Big, "uint() ~= 0".into());
                c.line("offset = offset + 1");
            }
            Ty::Float { bits: 16, endian } => {
                // Wireshark has no half-float field: decode the bits and show the value.
                let le = if *endian == Endian::Little { "le_" } else { "" };
                c.line(format!("if limit - offset < 2 then return truncated({tree}, tvb, offset, \"{name}\", 2, limit - offset) end"));
                c.line("range = tvb(offset, 2)");
                c.line(format!("val = f16_from_bits(range:{le}uint())"));
                c.line(format!("item = {tree}:add(F[\"{abbrev}\"], range, val)"));
                c.line(format!("{target} = val"));
                c.line("offset = offset + 2");
            }
            Ty::Float { bits, endian } => {
                let n = *bits as usize / 8;
                let le = if *endian == Endian::Little { "le_" } else { "" };
                scalar(c, n, *endian, format!("{le}float()"));
                c.line(format!("offset = offset + {n}"));
            }
            Ty::VarInt(VarInt::Leb128 | VarInt::ZigZag) => {
                // LEB128 groups are whole bytes here: the bit-stream reader at offset * 8.
                c.line("val, n = read_leb128(tvb, offset * 8, limit * 8)");
                c.line(format!("if val == nil then return truncated({tree}, tvb, offset, \"{name}\", n / 8 + 1, limit - offset) end"));
                c.line(format!("if val == false then {tree}:add_proto_expert_info(E.too_large, \"{name}: a variable-length integer longer than 64 bits\") return nil end"));
                c.line("n = n / 8");
                if matches!(ty, Ty::VarInt(VarInt::ZigZag)) {
                    c.line("val = zigzag64(val)");
                }
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"
                ));
                c.line(format!("{target} = val:tonumber()"));
                c.line("offset = offset + n");
            }
            Ty::VarInt(VarInt::RiptideLen) => {
                c.line(format!("if limit - offset < 1 then return truncated({tree}, tvb, offset, \"{name}\", 1, limit - offset) end"));
                c.line("val, n = tvb(offset, 1):uint(), 1");
                c.line("if val >= 128 then");
                c.line(format!("  if limit - offset < 2 then return truncated({tree}, tvb, offset, \"{name}\", 2, limit - offset) end"));
                c.line("  val, n = tvb(offset, 2):uint() - 32768, 2");
                c.line("end");
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"
                ));
                c.line(format!("{target} = val"));
                c.line("offset = offset + n");
            }
            Ty::VarInt(_) => {
                return Err(Unsupported(
                    "Rabbit varints belong to bit-stream layouts".into(),
                ))
            }
            Ty::Bits => return Err(Unsupported("'bits' belongs to bit-stream layouts".into())),
            Ty::Enum(id) => {
                let e = &p.enums[*id];
                let n = e.repr.bytes();
                scalar(
                    c,
                    n,
                    e.repr.endian,
                    int_reader(n, e.repr.signed, e.repr.endian),
                );
                let (expert, what) = if e.closed {
                    ("E.invalid", "is not allowed")
                } else {
                    ("E.unknown", "is not named by the schema")
                };
                c.line(format!(
                    "if VS_{}[val] == nil then item:add_proto_expert_info({expert}, string.format(\"{name} %d {what}\", val)) end",
                    e.name
                ));
                c.line(format!("offset = offset + {n}"));
            }
            Ty::Flags(id) => {
                let fl = &p.flags[*id];
                let n = fl.repr.bytes();
                scalar(
                    c,
                    n,
                    fl.repr.endian,
                    int_reader(n, fl.repr.signed, fl.repr.endian),
                );
                for b in &fl.bits {
                    let a = naming::flag_abbrev(abbrev, &b.name);
                    c.line(format!(
                        "item:{}(F[\"{a}\"], tvb(offset, {n}))",
                        add_fn(fl.repr.endian)
                    ));
                }
                c.line(format!("offset = offset + {n}"));
            }
            Ty::Bytes(len) | Ty::Str(len) => {
                self.length(c, sid, fi, len, abbrev, tree)?;
                if matches!(ty, Ty::Str(_)) {
                    if needed {
                        c.line("range = tvb(offset, n)");
                        c.line(format!(
                            "item = {tree}:add_packet_field(F[\"{abbrev}\"], range, ENC_UTF_8)"
                        ));
                        c.line(format!("{target} = range:string(ENC_UTF_8)"));
                    } else {
                        c.line(format!("item = {tree}:add_packet_field(F[\"{abbrev}\"], tvb(offset, n), ENC_UTF_8)"));
                    }
                    // The crate refuses what is not UTF-8; Wireshark would only show replacement marks.
                    c.line(format!("if n > 0 and not utf8_valid(tvb:raw(offset, n)) then item:add_proto_expert_info(E.invalid, \"{name}: not valid UTF-8\") end"));
                } else {
                    c.line(format!(
                        "item = {tree}:add(F[\"{abbrev}\"], tvb(offset, n))"
                    ));
                    c.line(format!("{target} = n -- bytes are kept as their length"));
                    if self.raw.contains(&(sid, fi)) {
                        c.line(format!("{target}_raw = tvb:raw(offset, n)"));
                    }
                }
                c.line("offset = offset + n");
            }
            Ty::Struct(id, len) => {
                let t = &p.structs[*id].name;
                let label = format!("{}: {t}", naming::label(name));
                match len {
                    None | Some(Len::Natural) => {
                        c.line(format!("sub = {tree}:add(tvb(offset, 0), \"{label}\")"));
                        call_struct(p, c, *id, "offset", "limit");
                        c.line("sub:set_len(nxt - offset)");
                        c.line(format!("{target} = val"));
                        c.line("offset = nxt");
                    }
                    Some(len) => {
                        self.length(c, sid, fi, len, abbrev, tree)?;
                        c.line(format!("sub = {tree}:add(tvb(offset, n), \"{label}\")"));
                        call_struct(p, c, *id, "offset", "offset + n");
                        c.line(format!(
                            "if nxt < offset + n then sub:add_proto_expert_info(E.length, string.format(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
                        ));
                        c.line(format!("{target} = val"));
                        c.line("offset = offset + n");
                    }
                }
            }
            Ty::Array(_, count) if f.packed => {
                // Bools 8 per byte, lowest bit first.
                let label = naming::label(name);
                self.length(c, sid, fi, count, abbrev, tree)?;
                c.line("local packed = floor((n + 7) / 8)");
                c.line(format!("if limit - offset < packed then return truncated({tree}, tvb, offset, \"{name}\", packed, limit - offset) end"));
                c.line(format!("local arr_{name} = {tree}:add(tvb(offset, packed), string.format(\"{label} (%d)\", n))"));
                c.line(format!("{target} = {{}}"));
                c.open("for i = 0, n - 1 do");
                c.line("range = tvb(offset + floor(i / 8), 1)");
                c.line("val = floor(range:uint() / 2 ^ (i % 8)) % 2 == 1");
                c.line(format!("arr_{name}:add(F[\"{abbrev}\"], range, val)"));
                c.line(format!("{target}[i + 1] = val"));
                c.close("end");
                c.line("offset = offset + packed");
            }
            Ty::Array(elem, count) => {
                let label = naming::label(name);
                c.line(format!("{target} = {{}}"));
                let arr = format!("arr_{name}");
                let arr_start = format!("arr_start_{name}");
                match count {
                    Len::Rest | Len::Natural => {
                        c.line(format!("local {arr}, {arr_start} = {tree}:add(tvb(offset, 0), \"{label}\"), offset"));
                        c.open("while offset < limit do");
                    }
                    _ => {
                        self.length(c, sid, fi, count, abbrev, tree)?;
                        c.line(format!("local {arr}, {arr_start} = {tree}:add(tvb(offset, 0), \"{label}\"), offset"));
                        c.open("for _ = 1, n do");
                    }
                }
                let item_target = format!("{target}[#{target} + 1]");
                self.value(c, sid, fi, elem, abbrev, &arr, &item_target)?;
                if matches!(**elem, Ty::Struct(id, _) if self.state_readers[id]) {
                    // An element without its state list took the rest as bytes.
                    c.line("if REST_TAKEN then break end");
                }
                c.close("end");
                c.line(format!("{arr}:set_len(offset - {arr_start})"));
                c.line(format!(
                    "{arr}:append_text(string.format(\" (%d)\", #{target}))"
                ));
            }
            Ty::Union(u) => self.union(c, sid, fi, u, abbrev, tree, target)?,
        }
        Ok(())
    }

    /// Sets `n` to a length or count, checks it against the bytes left, or returns.
    fn length(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        len: &Len,
        abbrev: &str,
        tree: &str,
    ) -> Result<(), Unsupported> {
        let f = &self.p.structs[sid].fields[fi];
        let name = &f.name;
        let is_count = matches!(f.ty, Ty::Array(..));
        match len {
            Len::Prefix(it) => {
                let k = it.bytes();
                let a = naming::prefix_abbrev(abbrev);
                c.line(format!("if limit - offset < {k} then return truncated({tree}, tvb, offset, \"{name} length\", {k}, limit - offset) end"));
                c.line(format!(
                    "{tree}:{}(F[\"{a}\"], tvb(offset, {k}))",
                    add_fn(it.endian)
                ));
                c.line(format!(
                    "n = tvb(offset, {k}):{}",
                    int_reader(k, it.signed, it.endian)
                ));
                c.line(format!("offset = offset + {k}"));
            }
            Len::Expr(e) => {
                let ex = self.expr(e);
                c.line(format!("n = {ex}"));
            }
            Len::Rest | Len::Natural => {
                c.line("n = limit - offset");
            }
        }
        if is_count {
            c.line(format!(
                "if n < 0 then {tree}:add_proto_expert_info(E.length, string.format(\"{name}: impossible count %d\", n)) return nil end"
            ));
            return Ok(());
        }
        let source = match len {
            Len::Expr(Expr::Field(path)) if path.len() == 1 => Some(path[0].name.clone()),
            _ => None,
        };
        match source {
            Some(src) => c.line(format!(
                "if n < 0 or limit - offset < n then {tree}:add_proto_expert_info(E.length, string.format(\"{src} says %d bytes of {name}, %d remain\", n, limit - offset)) return nil end"
            )),
            None => c.line(format!(
                "if n < 0 or limit - offset < n then return truncated({tree}, tvb, offset, \"{name}\", n, limit - offset) end"
            )),
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn union(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        u: &Union,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Unsupported> {
        let p = self.p;
        let name = p.structs[sid].fields[fi].name.clone();
        if matches!(u.len, Len::Natural) {
            return self.union_natural(c, sid, fi, u, abbrev, tree, target);
        }
        self.length(c, sid, fi, &u.len, abbrev, tree)?;
        let tag = self.expr(&u.on);
        let unless = u.unless.as_ref().map(|e| self.expr(e));
        c.line(format!("local tag_{name} = {tag}"));
        state_tag_check(c, u, &name, tree);
        let body = |c: &mut Code, b: CaseBody, variant: &str| match b {
            CaseBody::Struct(id) => {
                c.line(format!(
                    "sub = {tree}:add(tvb(offset, n), \"{}: {variant}\")",
                    naming::label(&name)
                ));
                call_struct(p, c, id, "offset", "offset + n");
                c.line(format!(
                        "if nxt < offset + n then sub:add_proto_expert_info(E.length, string.format(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
                    ));
                c.line(format!("{target} = val"));
            }
            CaseBody::Bytes => {
                c.line(format!("{tree}:add(F[\"{abbrev}\"], tvb(offset, n))"));
                c.line(format!("{target} = n"));
            }
            CaseBody::Empty => {
                c.line(format!(
                        "if n > 0 then {tree}:add_proto_expert_info(E.length, string.format(\"{name}: %d bytes where none were expected\", n)) end"
                    ));
            }
        };
        // `unless` chooses the default variant whatever the tag.
        let guarded = match (&unless, u.default) {
            (Some(cond), Some(b)) => {
                c.open(format!("if {cond} then"));
                body(c, b, &u.default_variant);
                c.depth -= 1;
                c.open("else");
                true
            }
            _ => false,
        };
        let no_case = |c: &mut Code| {
            c.line(format!("{tree}:add_proto_expert_info(E.invalid, string.format(\"{name}: no case for tag %d\", tag_{name}))"));
        };
        case_chain(c, u, &name, &body, &no_case);
        if guarded {
            c.close("end");
        }
        c.line("offset = offset + n");
        Ok(())
    }

    fn heuristic(&mut self, h: &Heuristic) -> Result<HeuristicDef, Unsupported> {
        let p = self.p;
        let root = p.root();
        let mut used = Vec::new();
        h.expr.local_fields(&mut used);
        let mut reads = Vec::new();
        let mut offset = 0;
        for (i, f) in root.fields.iter().enumerate() {
            let Some(n) = p.fixed_size(&f.ty) else { break };
            if used.contains(&i) {
                let (signed, endian) = match &f.ty {
                    Ty::Int(it) => (it.signed, it.endian),
                    Ty::Enum(id) => (p.enums[*id].repr.signed, p.enums[*id].repr.endian),
                    Ty::Flags(id) => (p.flags[*id].repr.signed, p.flags[*id].repr.endian),
                    _ => (false, Endian::Big),
                };
                let read = if matches!(f.ty, Ty::Bool) {
                    "uint() ~= 0".to_string()
                } else {
                    int_reader(n, signed, endian)
                };
                reads.push(format!("v.{} = tvb({offset}, {n}):{read}", f.name));
            }
            offset += n;
        }
        let expr = self.expr(&h.expr).replace("tvb:len()", "size");
        Ok(HeuristicDef {
            doc: "a datagram whose leading fields satisfy the schema's rule".into(),
            min_len: h.min_len,
            reads,
            expr,
        })
    }

    fn info(&self) -> String {
        let p = self.p;
        let root = p.root();
        let parts: Vec<String> = root
            .info
            .iter()
            .map(|part| match part {
                InfoPart::Text(t) => format!("\"{}\"", lua_escape(t)),
                InfoPart::Field(i) => {
                    let f = &root.fields[*i];
                    match &f.ty {
                        Ty::Enum(id) => {
                            format!("enum_name(VS_{}, v.{})", p.enums[*id].name, f.name)
                        }
                        Ty::Flags(id) => format!(
                            "\"[\" .. flag_names(v.{}, FN_{}) .. \"]\"",
                            f.name, p.flags[*id].name
                        ),
                        _ => format!("tostring(v.{})", f.name),
                    }
                }
            })
            .collect();
        parts.join(" .. ")
    }

    fn expr(&mut self, e: &Expr) -> String {
        let p = self.p;
        let path = |refs: &[FieldRef]| -> String {
            format!(
                "v.{}",
                refs.iter()
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>()
                    .join(".")
            )
        };
        match e {
            Expr::Int(v) => v.to_string(),
            Expr::Bool(b) => b.to_string(),
            Expr::Field(refs) => path(refs),
            Expr::FlagBit(refs, mask) => format!("has_bit({}, {mask})", path(refs)),
            Expr::MessageSize => "tvb:len()".into(),
            Expr::Remaining => "(limit - offset)".into(),
            Expr::Len(refs, _) => match &p.field(refs.last().unwrap()).ty {
                Ty::Bytes(_) => path(refs),
                _ => format!("#{}", path(refs)),
            },
            Expr::Item(t, i) => format!("list_item({}, {})", t + 1, self.expr(i)),
            Expr::Not(x) => format!("(not {})", self.expr(x)),
            Expr::Neg(x) => format!("(-{})", self.expr(x)),
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                match op {
                    BinOp::Or => format!("({a} or {b})"),
                    BinOp::And => format!("({a} and {b})"),
                    BinOp::Eq => format!("({a} == {b})"),
                    BinOp::Ne => format!("({a} ~= {b})"),
                    BinOp::Lt => format!("({a} < {b})"),
                    BinOp::Le => format!("({a} <= {b})"),
                    BinOp::Gt => format!("({a} > {b})"),
                    BinOp::Ge => format!("({a} >= {b})"),
                    BinOp::BitOr => {
                        self.needs_bitops = true;
                        format!("bor({a}, {b})")
                    }
                    BinOp::BitAnd => {
                        self.needs_bitops = true;
                        format!("band({a}, {b})")
                    }
                    BinOp::Shl => format!("({a} * 2 ^ {b})"),
                    BinOp::Shr => format!("floor({a} / 2 ^ {b})"),
                    BinOp::Add => format!("({a} + {b})"),
                    BinOp::Sub => format!("({a} - {b})"),
                    BinOp::Mul => format!("({a} * {b})"),
                    BinOp::Div => format!("idiv({a}, {b})"),
                    BinOp::Rem => format!("irem({a}, {b})"),
                }
            }
        }
    }
}

/// A table-driven CRC with the register kept as separate bytes, so each input byte costs a few
/// table lookups and no bit arithmetic (Lua 5.2 has no integer bit operators).
fn crc_code(a: ChecksumAlgo) -> Result<String, Unsupported> {
    let (width, poly, init, refin, refout, xorout) = a.crc_params();
    if width % 8 != 0 || width > 32 || refin || refout {
        return Err(Unsupported(format!(
            "the Lua backend has no code for the {} checksum yet",
            a.name()
        )));
    }
    let n = (width / 8) as usize;
    let byte = |v: u64, k: usize| (v >> (8 * k)) & 0xFF;
    let regs: Vec<String> = (0..n).map(|k| format!("c{k}")).collect();
    let mut c = Code::new(0);
    c.line(format!(
        "-- {}: width {width}, poly {poly:#x}, init {init:#x}, xorout {xorout:#x}.",
        a.name()
    ));
    c.line("-- Tk[i] is byte k of the table entry for index i; built once at load time.");
    c.line(format!("local {}", crc_func(a)));
    c.open("do");
    c.line(format!(
        "local T = {{ {} }}",
        (0..n).map(|_| "{}").collect::<Vec<_>>().join(", ")
    ));
    c.open("for i = 0, 255 do");
    c.line(format!(
        "local v, full = i * 2 ^ {}, 2 ^ {width}",
        width - 8
    ));
    c.open("for _ = 1, 8 do");
    c.line("v = v * 2");
    c.open("if v >= full then");
    c.line("v = v - full");
    c.line("-- v xor poly, byte by byte");
    c.line("local r, scale, x, p = 0, 1, v, POLY");
    c.open("for _ = 1, WIDTH_BYTES do");
    c.line("local xb, pb = x % 256, p % 256");
    c.line("r = r + XOR8[xb * 256 + pb] * scale");
    c.line("x, p, scale = (x - xb) / 256, (p - pb) / 256, scale * 256");
    c.close("end");
    c.line("v = r");
    c.close("end");
    c.close("end");
    c.open(format!("for k = 1, {n} do"));
    c.line("T[k][i] = v % 256");
    c.line("v = (v - v % 256) / 256");
    c.close("end");
    c.close("end");
    c.line(format!(
        "local {} = {}",
        (0..n)
            .map(|k| format!("T{k}"))
            .collect::<Vec<_>>()
            .join(", "),
        (1..=n)
            .map(|k| format!("T[{k}]"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    c.line("-- CRC of tvb bytes [from, to), reading `skip_len` zero bytes in place of those at `skip_at`.");
    c.open(format!(
        "{} = function(tvb, from, to, skip_at, skip_len)",
        crc_func(a)
    ));
    c.line(format!(
        "local {} = {}",
        regs.join(", "),
        (0..n)
            .map(|k| byte(init, k).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    c.line("local data = tvb:raw(from, to - from)");
    c.line("local sbyte = string.byte");
    c.open("for i = 1, to - from do");
    c.line("local pos = from + i - 1");
    c.line("local b = 0");
    c.line("if pos < skip_at or pos >= skip_at + skip_len then b = sbyte(data, i) end");
    c.line(format!("local idx = XOR8[c{} * 256 + b]", n - 1));
    for k in (1..n).rev() {
        c.line(format!("c{k} = XOR8[c{} * 256 + T{k}[idx]]", k - 1));
    }
    c.line("c0 = T0[idx]");
    c.close("end");
    let value: Vec<String> = (0..n)
        .map(|k| {
            format!(
                "XOR8[c{k} * 256 + {}] * {}",
                byte(xorout, k),
                1u64 << (8 * k)
            )
        })
        .collect();
    c.line(format!("return {}", value.join(" + ")));
    c.close("end");
    c.close("end");
    Ok(c.lines
        .join("\n")
        .replace("POLY", &poly.to_string())
        .replace("WIDTH_BYTES", &n.to_string()))
}

/// `-- name: first line of its doc`.
fn heading(c: &mut Code, name: &str, doc: &str) {
    if doc.is_empty() {
        c.line(format!("-- {name}"));
    } else {
        c.line(format!("-- {name}: {doc}"));
    }
}

/// The case chain of a switch on `tag_<name>`: `if tag == a or (tag >= lo and tag <= hi) then
/// <body> elseif ... else <default> end`; `no_case` is emitted when there is no default.
fn case_chain(
    c: &mut Code,
    u: &Union,
    name: &str,
    body: &dyn Fn(&mut Code, CaseBody, &str),
    no_case: &dyn Fn(&mut Code),
) {
    let mut first = true;
    for case in &u.cases {
        let conds: Vec<String> = case
            .values
            .iter()
            .map(|v| match v {
                CaseValue::One(x) => format!("tag_{name} == {x}"),
                CaseValue::Range(lo, hi) => format!("(tag_{name} >= {lo} and tag_{name} <= {hi})"),
            })
            .collect();
        if !first {
            c.depth -= 1;
        }
        c.open(format!(
            "{} {} then",
            if first { "if" } else { "elseif" },
            conds.join(" or ")
        ));
        first = false;
        body(c, case.body, &case.variant);
    }
    if !first {
        c.depth -= 1;
        c.open("else");
    }
    match u.default {
        Some(b) => body(c, b, &u.default_variant),
        None => no_case(c),
    }
    if !first {
        c.close("end");
    }
}

/// Remembers the list a record announces: the key from `carrier`, the items from the array of
/// `holder` (Lua tables of values).
fn record(p: &Protocol, c: &mut Code, t: usize, r: &Record, carrier: &str, holder: &str) {
    let key = &p.structs[r.in_struct].fields[r.key].name;
    let list = &p.structs[r.holder].fields[r.list].name;
    let item = &p.structs[r.elem].fields[r.item].name;
    c.line(format!(
        "-- Remember the {} announced for this {key}.",
        p.state[t].name
    ));
    c.open("do");
    c.line("local list = {}");
    c.line(format!(
        "for i, e in ipairs({holder}.{list}) do list[i] = e.{item} end"
    ));
    c.line(format!(
        "state_set(pinfo, {}, {carrier}.{key}, list)",
        t + 1
    ));
    c.close("end");
}

/// A tag read from conversation state is nil when the list is unknown or too short: say so and
/// stop this branch.
fn state_tag_check(c: &mut Code, u: &Union, name: &str, tree: &str) {
    if u.on.reads_state() {
        c.line(format!("if tag_{name} == nil then {tree}:add_proto_expert_info(E.no_state, \"{name}: its type is not in the list announced earlier\") return nil end"));
    }
}

/// Calls the dissector of struct `id` from byte-aligned code over `[lo, hi)` (byte offsets);
/// a bit-stream struct gets bit offsets and the caller resumes at the next whole byte.
fn call_struct(p: &Protocol, c: &mut Code, id: StructId, lo: &str, hi: &str) {
    let t = &p.structs[id].name;
    if p.structs[id].layout == Layout::LsbBits {
        c.line(format!(
            "nxt, val = dissect_{t}(tvb, pinfo, sub, ({lo}) * 8, ({hi}) * 8)"
        ));
        c.line("if nxt == nil then return nil end");
        c.line("nxt = ceil8(nxt)");
    } else {
        c.line(format!(
            "nxt, val = dissect_{t}(tvb, pinfo, sub, {lo}, {hi})"
        ));
        c.line("if nxt == nil then return nil end");
    }
}

/// Whether any field is a variable-length integer (its reader shares the bit-stream helpers).
fn uses_varints(p: &Protocol) -> bool {
    fn has(ty: &Ty) -> bool {
        match ty {
            Ty::VarInt(_) => true,
            Ty::Array(e, _) => has(e),
            _ => false,
        }
    }
    p.structs.iter().flat_map(|s| &s.fields).any(|f| has(&f.ty))
}

fn crc_func(a: ChecksumAlgo) -> String {
    format!("crc_{}", a.name().replace('-', "_"))
}
