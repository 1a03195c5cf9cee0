//! Lua backend: one self-contained Wireshark dissector per schema (Wireshark 4.0+, Lua 5.2-5.4).
//!
//! The file skeleton (helpers, fields, experts, registration) is the askama template
//! `templates/dissector.lua`; the per-type dissection functions are built here from the IR.

mod checksum;
mod code;
mod dissect;
mod expr;
mod fields;
mod methods;
mod protocol;
mod template;

use super::{wrap, Internal, Output};
use crate::expr::BinOp;
use crate::ir::Display;
use crate::ir::*;
use crate::naming;
use askama::Template;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use self::{
    checksum::*, code::*, dissect::*, expr::Exprs, fields::*, protocol::InfoAndHeuristic,
    template::*,
};
use crate::lower::analysis::case_names;
use crate::lower::{Access, Lowered};

/// The Lua function reading bits of a stream of `layout` (its padding, at the end).
fn bit_reader(layout: Layout) -> &'static str {
    match layout {
        Layout::MsbBits => "read_bits_msb",
        _ => "read_bits",
    }
}

/// Lua's reserved words: a field of one of these names cannot be written `v.<name>`.
const LUA_KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// How a table's member `name` is indexed: `.name`, or `["end"]` for a Lua keyword.
pub(crate) fn member(name: &str) -> String {
    if LUA_KEYWORDS.contains(&name) {
        format!("[\"{name}\"]")
    } else {
        format!(".{name}")
    }
}

/// Where a struct's value of field `name` is kept: `v.name`, or `v["end"]` for a Lua keyword.
pub(crate) fn value_slot(name: &str) -> String {
    format!("v{}", member(name))
}

/// What validation refuses before a dissector is generated (an internal error if it came here).
fn not_generated(p: &Protocol) -> Result<(), Internal> {
    if p.layout.is_bits()
        && (p.transport.udp_heuristic.is_some() || p.transport.tcp_heuristic.is_some())
    {
        return Err(Internal("a heuristic over a bit-stream root".into()));
    }
    if p.opening
        .iter()
        .any(|(_, id)| p.structs[*id].layout.is_bits())
    {
        return Err(Internal("a bit-stream opening datagram".into()));
    }
    Ok(())
}

/// Every `ProtoField` of the dissector: the schema's fields, those filters read, and an
/// application's message id.
fn field_decls(i: Input<'_>) -> Result<FieldDecls<'_>, Internal> {
    let mut decls = FieldDecls::new(i);
    decls.declare_fields()?;
    decls.declare_filtered_fields(&i.l.filter_uses)?;
    if let Some(it) = i.p.application.as_ref().and_then(|a| a.own_id) {
        let a = format!("{}.message_id", i.p.name);
        decls.add_field(
            a.clone(),
            format!("ProtoField.{}(\"{a}\", \"Message id\", base.DEC, nil, nil, \"Which message follows\")", protofield_int(&it)),
        );
    }
    Ok(decls)
}

pub fn generate(p: &Protocol, l: &Lowered, path: &str) -> Result<Vec<Output>, Internal> {
    not_generated(p)?;
    let (raw, case_names, bitops) = (joined_streams(p), case_names(p), Cell::new(false));
    let i = Input {
        p,
        l,
        raw: &raw,
        case_names: &case_names,
        shared_switch: l.shared_switch,
        bitops: &bitops,
    };
    let mut decls = field_decls(i)?;
    let mut structs = Dissect::new(i).functions()?;
    let (crcs, checksums) = checksums(p)?;
    let value_strings = value_strings(p, &case_names);
    if let Some(names) = flag_names(p) {
        structs.insert(0, names);
    }
    let udp_heuristic = match &p.transport.udp_heuristic {
        Some(h) => Some(i.summary().heuristic(h)?),
        None => None,
    };
    let info = i.summary().info("v", false, "    ");
    let has_info_tail = (0..p.structs.len()).any(|sid| info_tail(p, sid));
    // Only a byte-aligned root summarises a malformed message and re-checks its checksums.
    let byte_root = !p.root().layout.is_bits();
    let partial_info = if byte_root {
        i.summary().info("ROOT_VALUES", true, "        ")
    } else {
        String::new()
    };
    let root_checksums = root_checksums(p);
    let conversations = has_conversations(p);
    let port_tables = port_tables(p, l, conversations);
    let tcp_framing = tcp_framing(p, &mut decls);
    let reassembly = reassembly_def(i)?;
    let checks_visible = p.reliability.is_some()
        || structs
            .iter()
            .flat_map(|f| f.lines())
            .any(|l| mentions(l, "VISIBLE"));
    let d = Dissector {
        header: super::header::header(
            super::header::Comment::Dashes,
            super::header::Source::Schema(&p.source),
        ),
        path: path.to_string(),
        name: p.name.clone(),
        title: p.title.clone(),
        column: p.name.to_uppercase(),
        doc_lines: p.doc.as_deref().map(wrap).unwrap_or_default(),
        method_locals: methods::declarations(),
        needs_bitops: bitops.get(),
        bits: p.structs.iter().any(|s| s.layout.is_bits()) || uses_varints(p),
        root_bits: p.root().layout.is_bits(),
        root_bit_reader: bit_reader(p.root().layout),
        crcs,
        checksums,
        value_strings,
        fields: decls.fields,
        structs,
        root: p.root().name.clone(),
        root_values_read: p.reassembly.is_some() || mentions(&info, "v"),
        info,
        port_tables,
        tcp_framing,
        conversations,
        enclosing: !l.enclosing.is_empty(),
        state_tables: p.state.len(),
        checks_visible,
        app_points: !p.app_points.is_empty(),
        application: app_def(p),
        has_joins: !p.joins.is_empty() || !p.stream_joins.is_empty(),
        stream_joins: (0..p.stream_joins.len()).collect(),
        analysis: p.reliability.as_ref().map(|r| AnalysisDef {
            wraps: r
                .channels
                .iter()
                .map(|c| c.wrap.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }),
        has_info_tail,
        joins: (0..p.joins.len()).collect(),
        reassembly,
        opening_client: opening(p, Side::Client),
        opening_server: opening(p, Side::Server),
        udp_heuristic,
        has_checksums: has_checksums(p),
        compression: p.uses_compression(),
        root_checksums,
        partial_info,
        family: family(p),
    };
    let text = d
        .render()
        .map_err(|e| Internal(format!("the dissector template: {e}")))?;
    Ok(vec![Output {
        path: path.to_string(),
        contents: drop_unused_definitions(&methods::swap_only_called_adds(
            &methods::call_through_locals(&text),
        )),
    }])
}

/// The value strings of the dissector: each enum's names (and ranges), each switch's case
/// names by tag, the checksum status.
fn value_strings(
    p: &Protocol,
    case_names: &std::collections::HashMap<(StructId, usize), Vec<(u64, String)>>,
) -> Vec<ValueString> {
    let mut value_strings: Vec<ValueString> = p
        .enums
        .iter()
        .map(|e| ValueString {
            var: format!("VS.{}", e.name),
            entries: e
                .values
                .iter()
                .map(|v| (v.value.to_string(), lua_escape(&v.name)))
                .collect(),
            ranges: if e.ranges.is_empty() {
                Vec::new()
            } else {
                e.values
                    .iter()
                    .map(|v| (v.value, v.value, lua_escape(&v.name)))
                    .chain(e.ranges.iter().map(|r| (r.lo, r.hi, lua_escape(&r.name))))
                    .collect()
            },
        })
        .collect();
    let mut tags: Vec<_> = case_names.iter().collect();
    tags.sort();
    value_strings.extend(tags.into_iter().map(|(&(sid, fi), names)| {
        ValueString {
            var: case_names_var(p, sid, fi),
            entries: names
                .iter()
                .map(|(v, name)| (v.to_string(), lua_escape(name)))
                .collect(),
            ranges: Vec::new(),
        }
    }));
    value_strings.push(ValueString {
        var: "VS_CHECKSUM_STATUS".into(),
        entries: vec![("0".into(), "Bad".into()), ("1".into(), "Good".into())],
        ranges: Vec::new(),
    });
    value_strings
}

/// Each flag set's bit names, for the Info column (`local FN_Flags = { … }`), if any.
fn flag_names(p: &Protocol) -> Option<String> {
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
    (!flag_lists.is_empty()).then(|| {
        format!(
            "-- Flag names, for the Info column.\n{}\n",
            flag_lists.join("\n")
        )
    })
}

/// What every renderer of the dissector reads: the protocol, its lowering and what is computed
/// once from them. Each renderer ([`FieldDecls`], [`Dissect`], [`Exprs`], [`InfoAndHeuristic`])
/// holds it, so what one renders from is in its type.
#[derive(Clone, Copy)]
pub(crate) struct Input<'p> {
    pub(crate) p: &'p Protocol,
    /// The schema's lowering: each field's access, the shared facts (`needed`: the values the
    /// dissector reads back; the others are only added to the tree, which saves Wireshark API
    /// calls per field and packet).
    pub(crate) l: &'p Lowered,
    /// Bytes fields whose data is kept (`v.<name>_raw`): pieces of joined payloads.
    pub(crate) raw: &'p HashSet<(StructId, usize)>,
    /// Switch tags shown with the name of the case they select.
    pub(crate) case_names: &'p HashMap<(StructId, usize), Vec<(u64, String)>>,
    /// The root's switch that reassembled payloads are decoded with as well: a function of its
    /// own (see [`Dissect::switch_fn`]), called by the root's and by `dissect_whole`.
    pub(crate) shared_switch: Option<(StructId, usize)>,
    /// Set once an expression uses `bor`/`band`, which the template then defines.
    pub(crate) bitops: &'p Cell<bool>,
}

impl<'p> Input<'p> {
    pub(crate) fn exprs(self) -> Exprs<'p> {
        Exprs { i: self }
    }

    pub(crate) fn summary(self) -> InfoAndHeuristic<'p> {
        InfoAndHeuristic { i: self }
    }

    /// Whether field `fi` of struct `sid` is kept in its struct's values table: later code
    /// reads it, or its bytes are a piece of a joined payload.
    fn kept(&self, sid: StructId, fi: usize) -> bool {
        self.l.kept.contains(&(sid, fi)) || self.raw.contains(&(sid, fi))
    }

    /// Where field `fi` of struct `sid` is kept (`v.<name>`), or "" when it is not.
    fn value_target(&self, sid: StructId, fi: usize) -> String {
        if self.kept(sid, fi) {
            value_slot(&self.p.structs[sid].fields[fi].name)
        } else {
            String::new()
        }
    }
}

/// The filter names of fields, which a `filter:` use renames while its fields are declared and
/// dissected.
pub(crate) struct Names<'p> {
    p: &'p Protocol,
    /// While a struct's fields are rendered for a `filter:` use: the struct, and the use's
    /// filter name (its fields' filter names are `<protocol>.<filter>.<field>`).
    pub(crate) filter: Option<(StructId, String)>,
}

impl<'p> Names<'p> {
    pub(crate) fn new(p: &'p Protocol) -> Self {
        Names { p, filter: None }
    }

    /// The filter name of field `fi` of struct `sid` (under a `filter:` use's name while one's
    /// fields are rendered: see [`Names::filter`]).
    pub(crate) fn abbrev(&self, sid: StructId, fi: usize) -> String {
        self.member_abbrev(sid, &self.p.structs[sid].fields[fi].name)
            .unwrap_or_else(|| naming::abbrev(self.p, sid, fi))
    }

    /// The filter name of bit group `gi` of struct `sid`, likewise.
    pub(crate) fn group_abbrev(&self, sid: StructId, gi: usize) -> String {
        self.member_abbrev(sid, &self.p.structs[sid].groups[gi].name)
            .unwrap_or_else(|| naming::group_abbrev(self.p, sid, gi))
    }

    fn member_abbrev(&self, sid: StructId, name: &str) -> Option<String> {
        match &self.filter {
            Some((id, filter)) if *id == sid => {
                Some(format!("{}.{name}", naming::use_abbrev(self.p, filter)))
            }
            _ => None,
        }
    }
}

/// The root's checksums re-checked after a malformed message, where the dissector got far
/// enough to know their bounds (byte-aligned roots only).
fn root_checksums(p: &Protocol) -> Vec<String> {
    let byte_root = !p.root().layout.is_bits();
    p.root()
        .fields
        .iter()
        .filter(|f| byte_root && matches!(f.role, Role::Checksum(_)))
        .filter_map(|f| {
            let Role::Checksum(cs) = f.role else {
                return None;
            };
            let (from, to) = range_bounds(p.root(), cs, "0", "size");
            // Bounds that are fields are known only when the dissector got that far.
            let known: String = [(cs.from, &from), (cs.to, &to)]
                .iter()
                .filter(|(field, _)| field.is_some())
                .map(|(_, b)| format!(" and {b} ~= nil"))
                .collect();
            Some(format!(
                "if cs_item_{} ~= nil{known} then {} end",
                f.name,
                verify_call(&p.root().name, &f.name, &from, &to)
            ))
        })
        .collect()
}

/// Whether the dissector keeps conversations (openings, reliability, reassembly, state, joins).
fn has_conversations(p: &Protocol) -> bool {
    !p.opening.is_empty()
        || p.reliability.is_some()
        || p.reassembly.is_some()
        || !p.state.is_empty()
        || !p.joins.is_empty()
        || !p.stream_joins.is_empty()
}

/// The port preferences (UDP, TCP) the dissector registers on.
fn port_tables(p: &Protocol, l: &Lowered, conversations: bool) -> Vec<PortTable> {
    let ports = |v: &[u16]| v.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
    // The first table's ports are the server's (UDP's, when both).
    let server_ports = conversations || l.reads_direction.iter().any(|d| *d);
    [
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
    .enumerate()
    .map(|(k, (lower, upper, list))| PortTable {
        lower,
        upper,
        ports: ports(list),
        server: server_ports && k == 0,
    })
    .collect()
}

/// A TCP framing's prefix: its ProtoField and how the template reads it.
fn tcp_framing(p: &Protocol, decls: &mut FieldDecls) -> Option<Framing> {
    p.transport.tcp_length_prefix.map(|it| {
        let abbrev = format!("{}.frame_length", p.name);
        let counted = p.transport.tcp_counted;
        let counts = p.transport.tcp_counts();
        let inside_at = p.transport.tcp_length_at;
        // A length inside the message is shown by the message's own field.
        if inside_at.is_none() {
            let blurb = match counted {
                0 => "Bytes of the message after this prefix".to_string(),
                _ => format!("Length of the message after this prefix, {counts}"),
            };
            decls.add_field(
                abbrev.clone(),
                format!(
                    "ProtoField.{}(\"{abbrev}\", \"Frame length\", base.DEC, nil, nil, \"{blurb}\")",
                    protofield_int(&it)
                ),
            );
        }
        Framing {
            size: it.bytes(),
            max: p.transport.tcp_max_message,
            read: int_reader(it.bytes(), it.signed, it.endian),
            add: add_fn(it.endian),
            doc: format!("{} {}", it.name(), it.endian.words()),
            counts,
            minus: match counted {
                0 => String::new(),
                c if c < 0 => format!(" + {}", -c),
                c => format!(" - {c}"),
            },
            inside_at,
            fixed: inside_at.unwrap_or(0) + it.bytes(),
        }
    })
}

/// What the template's reassembly reads: keys, index, piece, how the count is known, and
/// what the whole is read as.
fn reassembly_def(i: Input) -> Result<Option<ReassemblyDef>, Internal> {
    let p = i.p;
    Ok(match &p.reassembly {
        None => None,
        Some(r) => {
            if p.root().layout.is_bits() {
                return Err(Internal("reassembly over bit-stream datagrams".into()));
            }
            let root = p.root();
            let v = |i: usize| value_slot(&root.fields[i].name);
            let when = r
                .when
                .as_ref()
                .map(|w| i.exprs().expr(w))
                .unwrap_or_else(|| "true".into());
            // How a piece tells the number of pieces.
            let count = match &r.end {
                PieceEnd::Last(e) => {
                    format!("if {} then st.count = index + 1 end", i.exprs().expr(e))
                }
                PieceEnd::Count(f) => {
                    let c = v(*f);
                    format!(
                        "if st.count ~= nil and st.count ~= {c} then root:add_proto_expert_info(E.reassembly, fmt(\"inconsistent piece count %d (earlier pieces said %d)\", {c}, st.count)) end\n      if index >= {c} then root:add_proto_expert_info(E.reassembly, fmt(\"piece %d of %d is out of range\", index, {c})) end\n      st.count = {c}"
                    )
                }
            };
            let (client, client_bits, server, server_bits, as_field) = match r.whole {
                WholeType::ByDirection { client, server } => (
                    p.structs[client].name.clone(),
                    p.structs[client].layout.is_bits(),
                    p.structs[server].name.clone(),
                    p.structs[server].layout.is_bits(),
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
    })
}

/// An application schema's dissector: the transport's message-id table it registers in, its
/// messages by id, and how it reads their payloads.
fn app_def(p: &Protocol) -> Option<AppDef> {
    p.application.as_ref().map(|a| AppDef {
        table: format!("{}.message_id", a.transport),
        transport: a.transport.clone(),
        messages: a
            .messages
            .iter()
            .map(|(id, sid)| (*id, p.structs[*sid].name.clone()))
            .collect(),
        bits: a.layout.is_bits(),
        bit_reader: bit_reader(a.layout),
        own_id: a.own_id.map(|it| it.bytes()),
    })
}

/// The family of dissectors a transport and its extensions share (not for applications).
fn family(p: &Protocol) -> Option<Family> {
    p.application.is_none().then(|| Family {
        name: p
            .base
            .as_ref()
            .map_or_else(|| p.name.clone(), |b| b.protocol.clone()),
        base: p.base.as_ref().map(|b| b.protocol.clone()),
    })
}

fn has_checksums(p: &Protocol) -> bool {
    p.structs
        .iter()
        .flat_map(|s| &s.fields)
        .any(|f| matches!(f.role, Role::Checksum(_)))
}

/// The opening datagrams `side` sends, in order: (type name, function name).
fn opening(p: &Protocol, side: Side) -> Vec<(String, String)> {
    p.opening
        .iter()
        .filter(|(s, _)| *s == side)
        .map(|(_, id)| (p.structs[*id].name.clone(), p.structs[*id].name.clone()))
        .collect()
}

/// The fields joins take the bytes of (their raw bytes are kept as they are read).
fn joined_streams(p: &Protocol) -> std::collections::HashSet<(StructId, usize)> {
    let sequence = p.joins.iter().map(|j| (j.in_struct, &j.streams));
    let stream = p.stream_joins.iter().map(|j| (j.in_struct, &j.streams));
    sequence
        .chain(stream)
        .flat_map(|(sid, streams)| streams.iter().map(move |s| (sid, s.field)))
        .collect()
}

/// An expression as the dissector writes it (for the table test of every target's printing).
#[cfg(test)]
pub(crate) fn dissected_expr(p: &Protocol, l: &Lowered, e: &Expr) -> String {
    let (raw, case_names, bitops) = (joined_streams(p), case_names(p), Cell::new(false));
    let i = Input {
        p,
        l,
        raw: &raw,
        case_names: &case_names,
        shared_switch: l.shared_switch,
        bitops: &bitops,
    };
    i.exprs().expr(e)
}
