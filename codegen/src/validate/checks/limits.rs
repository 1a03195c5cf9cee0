//! Pass: what one backend cannot generate yet. A limit is not a mistake in the schema: the other
//! output is still generated, and the limit is reported at the construct's position, naming the
//! output it stops (never at `1:1`, never as a backend failure halfway through a file).

use super::*;

/// Every limit of `p`, in schema order.
pub(crate) fn limits(r: &Report, p: &Protocol) -> Vec<Limit> {
    let mut out = Vec::new();
    for (sid, s) in p.structs.iter().enumerate() {
        let bits = s.layout.is_bits();
        for (fi, f) in s.fields.iter().enumerate() {
            let fp = r.field_path(&s.name, fi);
            let at = |key: &str| format!("{fp}.{key}");
            if bits {
                bit_type_limits(r, p, &f.name, &f.ty, &at("type"), &mut out);
                bit_field_limits(r, p, sid, fi, &fp, &mut out);
            } else if let Ty::Union(u) = &f.ty {
                if u.unless.is_some() && matches!(u.len, Len::Natural) {
                    out.push(limit(
                        r,
                        Code::L0101,
                        Backend::Lua,
                        &at("switch.unless"),
                        format!("'{}': 'unless' on a switch without a length", f.name),
                        "give the switch a length, e.g. 'length: \"@remaining\"'",
                    ));
                }
            }
            if let Role::Derived(Derive::CountOf(ti, _) | Derive::LengthOf(ti, _)) = f.role {
                let encoded = s.fields[ti].ty.is_encoded();
                if encoded && matches!(f.ty, Ty::VarInt(_)) {
                    out.push(limit(
                        r,
                        Code::L0102,
                        Backend::Rust,
                        &at("type"),
                        format!(
                            "'{}': a varint length of '{}' (encoded)",
                            f.name, s.fields[ti].name
                        ),
                        "use a fixed-width integer for this length",
                    ));
                }
            }
            // A field of a group over 32 bits is taken out of a UInt64; a signed one over
            // 32 bits would need an Int64 of it.
            if let (Some(gi), Ty::Int(it)) = (f.group, &f.ty) {
                if it.signed && it.bits > 32 && s.groups[gi].int.bytes() > 4 {
                    out.push(limit(
                        r,
                        Code::L0103,
                        Backend::Lua,
                        &at("type"),
                        format!(
                            "'{}': a signed field of over 32 bits in a bit group",
                            f.name
                        ),
                        "make it unsigned, or at most 32 bits",
                    ));
                }
            }
            if let Role::Checksum(Checksum { algo: a, .. }) = f.role {
                if !(8..=32).contains(&a.width()) {
                    out.push(limit(
                        r,
                        Code::L0104,
                        Backend::Lua,
                        &at("checksum"),
                        format!("'{}': the {} checksum", f.name, a.name()),
                        "the dissector cannot verify it yet",
                    ));
                }
            }
        }
    }
    let bit_root = p.structs.get(p.root).is_some_and(|s| s.layout.is_bits());
    if bit_root {
        for (proto, h) in [
            ("udp", &p.transport.udp_heuristic),
            ("tcp", &p.transport.tcp_heuristic),
        ] {
            if h.is_some() {
                out.push(limit(
                    r,
                    Code::L0105,
                    Backend::Lua,
                    &format!("protocol.transport.heuristic.{proto}"),
                    "a heuristic over a bit-stream root".into(),
                    "register the dissector on its ports instead",
                ));
            }
        }
        if p.reassembly.is_some() {
            out.push(limit(
                r,
                Code::L0106,
                Backend::Lua,
                "protocol.reassembly",
                "reassembly over bit-stream datagrams".into(),
                "the crate's reassembler is generated; the dissector shows each piece",
            ));
        }
    }
    for (k, (_, id)) in p.opening.iter().enumerate() {
        if p.structs[*id].layout.is_bits() {
            out.push(limit(
                r,
                Code::L0107,
                Backend::Lua,
                &format!("protocol.conversation.opening.{k}.type"),
                format!("'{}': a bit-stream opening datagram", p.structs[*id].name),
                "opening datagrams are read as byte-aligned types",
            ));
        }
    }
    wide_number_limits(r, p, &mut out);
    csharp_limits(r, p, &mut out);
    csharp_record_limits(r, p, &mut out);
    out
}

/// What the C# codec does not generate yet (one code, L0118: each says what): checksums in bit
/// streams, compression, a length in a bit
/// group of a value encoded after it, length prefixes of encoded values in bit streams, and tags
/// the encoder cannot take from the variant.
fn csharp_limits(r: &Report, p: &Protocol, out: &mut Vec<Limit>) {
    let mut seen = std::collections::HashSet::new();
    for (sid, s) in p.structs.iter().enumerate() {
        for (fi, f) in s.fields.iter().enumerate() {
            let fp = r.field_path(&s.name, fi);
            let mut say = |key: &str, what: &str| {
                if seen.insert((sid, fi)) {
                    out.push(limit(
                        r,
                        Code::L0118,
                        Backend::CSharp,
                        &format!("{fp}.{key}"),
                        format!("'{}': {what}", f.name),
                        "the Rust crate and the dissector are generated; the C# codec is not yet",
                    ));
                }
            };
            if matches!(f.role, Role::Checksum(_)) && s.layout.is_bits() {
                say("checksum", "a checksum in a bit stream");
            } else if f.compression.is_some() {
                say("compression", "a compressed value");
            } else if f.group.is_some()
                && matches!(f.role, Role::Derived(Derive::LengthOf(t, _)) if s.fields[t].ty.is_encoded())
            {
                say(
                    "type",
                    "a length in a bit group of a value encoded after it",
                );
            } else if s.layout.is_bits()
                && (matches!(
                    &f.ty,
                    Ty::Struct(_, Some(Len::Prefix(_) | Len::VarPrefix(_)))
                ) || matches!(&f.ty, Ty::Union(u) if matches!(u.len, Len::Prefix(_) | Len::VarPrefix(_))))
            {
                say(
                    "type",
                    "a length prefix of an encoded value in a bit stream",
                );
            } else if let Role::Derived(Derive::TagOf(ui)) = f.role {
                let bare =
                    matches!(&s.fields[ui].ty, Ty::Union(u) if u.on.local_field() == Some(fi));
                if !bare {
                    say("type", "a tag solved from an expression");
                }
            } else if let Role::Derived(Derive::LengthOf(ti, _)) = f.role {
                let t = &s.fields[ti].ty;
                if t.is_encoded() && !matches!(f.ty, Ty::Int(_)) {
                    say(
                        "type",
                        "a length of an encoded value that is not an integer",
                    );
                }
            }
        }
    }
}

/// Lists the C# state records from the root itself or a struct a root switch holds: others
/// (deeper in a message) are a limit of the C# codec.
fn csharp_record_limits(r: &Report, p: &Protocol, out: &mut Vec<Limit>) {
    for (t, table) in p.state.iter().enumerate() {
        for (k, rec) in table.records.iter().enumerate() {
            let direct = rec.in_struct == p.root
                || p.root().fields.iter().any(|f| {
                    matches!(&f.ty, Ty::Union(u) if u.cases.iter().any(|c| c.body == CaseBody::Struct(rec.in_struct)))
                });
            if rec.via.is_none() && !direct {
                out.push(limit(
                    r,
                    Code::L0119,
                    Backend::CSharp,
                    &format!("protocol.state.{}.record.{k}", table.name),
                    format!(
                        "'{}': a list announced deeper than a case of the root (table {t})",
                        p.structs[rec.in_struct].name
                    ),
                    "the Rust crate and the dissector are generated; the C# codec is not yet",
                ));
            }
        }
    }
}

/// Limits of one value of a bit-stream type (array elements included).
fn bit_type_limits(r: &Report, p: &Protocol, name: &str, ty: &Ty, yp: &str, out: &mut Vec<Limit>) {
    let lua = |code: Code, what: String, hint: &str| {
        limit(r, code, Backend::Lua, yp, format!("'{name}': {what}"), hint)
    };
    let wide = |it: &IntTy| it.bits > 32;
    match ty {
        Ty::Enum(id) if wide(&p.enums[*id].repr) => out.push(lua(
            Code::L0108,
            format!("an enum of {} bits in a bit stream", p.enums[*id].repr.bits),
            "at most 32 bits per enum or flag set in bit streams; integers may have up to 64",
        )),
        Ty::Flags(id) if wide(&p.flags[*id].repr) => out.push(lua(
            Code::L0109,
            format!("flags of {} bits in a bit stream", p.flags[*id].repr.bits),
            "at most 32 bits per enum or flag set in bit streams; integers may have up to 64",
        )),
        Ty::Struct(_, Some(len)) => {
            out.push(lua(
                Code::L0110,
                "a struct with a length in a bit stream".into(),
                "let the struct delimit itself, without a length or prefix",
            ));
            if matches!(len, Len::Prefix(_)) {
                out.push(limit(
                    r,
                    Code::L0111,
                    Backend::Rust,
                    yp,
                    format!("'{name}': a length prefix of a struct in a bit stream"),
                    "let the struct delimit itself, without a prefix",
                ));
            }
        }
        Ty::Union(u) if !matches!(u.len, Len::Rest | Len::Natural) => {
            out.push(lua(
                Code::L0112,
                "a switch with a length in a bit stream".into(),
                "let the switch run to the end or delimit itself",
            ));
            if matches!(u.len, Len::Prefix(_)) {
                out.push(limit(
                    r,
                    Code::L0113,
                    Backend::Rust,
                    yp,
                    format!("'{name}': a length prefix of a switch in a bit stream"),
                    "let the switch delimit itself, without a prefix",
                ));
            }
        }
        Ty::Array(elem, _) => bit_type_limits(r, p, name, elem, yp, out),
        _ => {}
    }
}

/// Limits of a field's role in a bit-stream type.
fn bit_field_limits(
    r: &Report,
    p: &Protocol,
    sid: StructId,
    fi: usize,
    fp: &str,
    out: &mut Vec<Limit>,
) {
    let s = &p.structs[sid];
    let f = &s.fields[fi];
    let rust = |code: Code, key: &str, what: String, hint: &str| {
        limit(
            r,
            code,
            Backend::Rust,
            &format!("{fp}.{key}"),
            format!("'{}': {what}", f.name),
            hint,
        )
    };
    match f.role {
        Role::Checksum(_) => out.push(rust(
            Code::L0114,
            "checksum",
            "a checksum in a bit stream".into(),
            "checksums cover byte-aligned types",
        )),
        // (An array of whole-byte elements is measured by its count: see fields.)
        Role::Derived(Derive::CountOf(ti, _) | Derive::LengthOf(ti, _))
            if s.fields[ti].ty.is_encoded()
                && !matches!(s.fields[ti].ty, Ty::Array(_, Len::Bytes(_))) =>
        {
            out.push(rust(
                Code::L0115,
                "type",
                format!(
                    "the length of '{}' (encoded) in a bit stream",
                    s.fields[ti].name
                ),
                "let the struct or switch delimit itself",
            ))
        }
        _ => {}
    }
    if !f.select.is_empty() {
        out.push(rust(
            Code::L0116,
            "type",
            "values typed by conversation state in a bit stream".into(),
            "state lists are read in byte-aligned types",
        ));
    }
}

/// A limit of `backend` at the value of `yaml_path`.
pub(super) fn limit(
    r: &Report,
    code: Code,
    backend: Backend,
    yaml_path: &str,
    what: String,
    hint: &str,
) -> Limit {
    let pos = r.locs.value(yaml_path);
    let output = match backend {
        Backend::Rust => "the Rust crate",
        Backend::Lua => "the Lua dissector",
        Backend::CSharp => "the C# codec",
    };
    Limit {
        backend,
        diagnostic: Diagnostic {
            code,
            file: r.path.clone(),
            line: pos.line,
            col: pos.col,
            message: r.inherited(
                yaml_path,
                format!(
                    "{what}: not generated for {} yet, so {output} is not written",
                    backend.language()
                ),
            ),
            hint: Some(hint.to_string()),
        },
    }
}
