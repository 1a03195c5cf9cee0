//! ProtoField declarations: one per schema field, with value strings and flag bits.

use super::*;

/// The value string naming the cases a switch's tag selects.
pub(crate) fn case_names_var(p: &Protocol, sid: StructId, fi: usize) -> String {
    format!(
        "VS.CASE_{}_{}",
        p.structs[sid].name, p.structs[sid].fields[fi].name
    )
}

/// How an integer field shows: hexadecimal when asked, except that Wireshark allows signed
/// integers only in decimal.
pub(crate) fn int_base(it: &IntTy, hex: bool) -> &'static str {
    if hex && !it.signed {
        "base.HEX"
    } else {
        "base.DEC"
    }
}

/// Whether an integer is shown in hex: as `display` says, else constants, checksums and
/// reserved fields.
pub(crate) fn shows_hex(role: &Role, display: Option<Display>) -> bool {
    match display {
        Some(d) => d == Display::Hex,
        None => matches!(role, Role::Const(_) | Role::Checksum(_) | Role::Reserved),
    }
}

pub(crate) fn protofield_int(it: &IntTy) -> String {
    let bits = match it.bytes() {
        1 => 8,
        2 => 16,
        3 => 24,
        4 => 32,
        _ => 64,
    };
    format!("{}{}", if it.signed { "int" } else { "uint" }, bits)
}

/// Renders the ProtoField declarations: every field's, once per filter name.
pub(crate) struct FieldDecls<'p> {
    pub(crate) i: Input<'p>,
    /// The filter names of the fields being declared.
    pub(crate) names: Names<'p>,
    /// The declarations so far, each filter name once.
    pub(crate) fields: Vec<FieldDef>,
}

impl<'p> FieldDecls<'p> {
    pub(crate) fn new(i: Input<'p>) -> Self {
        FieldDecls {
            i,
            names: Names::new(i.p),
            fields: Vec::new(),
        }
    }

    /// Declares bit group `gi` of struct `sid`: its integer and every field in it, masked.
    pub(crate) fn declare_group(&mut self, sid: StructId, gi: usize) {
        let p = self.i.p;
        let s = &p.structs[sid];
        let g = &s.groups[gi];
        let a = self.names.group_abbrev(sid, gi);
        self.add_field(
            a.clone(),
            format!(
                "ProtoField.{}(\"{a}\", \"{}\", base.HEX, nil, nil, \"{}\")",
                container_field(&g.int, false),
                naming::label(&g.name),
                lua_escape(&first_line(&g.doc))
            ),
        );
        // Fields of an integer wider than 32 bits are shown with the values the dissector takes
        // out of it (a UInt64), not by mask: Wireshark 4.0 takes a mask as a Lua number only.
        let wide = g.int.bytes() > 4;
        let width = if wide {
            "base.NONE".to_string()
        } else {
            g.int.bits.to_string()
        };
        for fi in g.fields.clone() {
            let f = &s.fields[fi];
            let Access::Group {
                shift, width: bits, ..
            } = self.i.l.field(sid, fi).access
            else {
                continue;
            };
            let mask = if wide {
                "nil".to_string()
            } else {
                format!("{:#x}", ((1u64 << bits) - 1) << shift)
            };
            // The integer type a field's ProtoField has: the group's (masked), or its own.
            let own = |signed: bool, bits: u32| {
                let int = if wide {
                    IntTy {
                        bits,
                        signed,
                        endian: g.int.endian,
                    }
                } else {
                    g.int
                };
                container_field(&int, signed)
            };
            let a = self.names.abbrev(sid, fi);
            let label = naming::label(&f.name);
            let doc = lua_escape(&first_line(&f.doc));
            let ctor = match &f.ty {
                Ty::Bool => {
                    format!(
                        "ProtoField.bool(\"{a}\", \"{label}\", {width}, nil, {mask}, \"{doc}\")"
                    )
                }
                Ty::Int(it) => format!(
                    "ProtoField.{}(\"{a}\", \"{label}\", {}, nil, {mask}, \"{doc}\")",
                    own(it.signed, it.bits),
                    // (A group holds no checksum: validation.)
                    int_base(it, shows_hex(&f.role, f.display))
                ),
                Ty::Enum(id) => {
                    let e = &p.enums[*id];
                    let (base, names) = if e.ranges.is_empty() {
                        ("base.HEX", format!("VS.{}", e.name))
                    } else {
                        ("base.RANGE_STRING", format!("RS.{}", e.name))
                    };
                    format!(
                        "ProtoField.{}(\"{a}\", \"{label}\", {base}, {names}, {mask}, \"{doc}\")",
                        own(false, e.repr.bits)
                    )
                }
                Ty::Flags(id) => {
                    let fl = &p.flags[*id];
                    for b in &fl.bits {
                        let fa = naming::flag_abbrev(&a, &b.name);
                        let bit_mask = if wide {
                            "nil".to_string()
                        } else {
                            format!("{:#x}", b.value << shift)
                        };
                        self.add_field(
                            fa.clone(),
                            format!(
                                "ProtoField.bool(\"{fa}\", \"{}\", {width}, nil, {bit_mask}, \"{}\")",
                                lua_escape(&b.name),
                                lua_escape(&first_line(&b.doc))
                            ),
                        );
                    }
                    format!(
                        "ProtoField.{}(\"{a}\", \"{label}\", base.HEX, nil, {mask}, \"{doc}\")",
                        own(false, fl.repr.bits)
                    )
                }
                // Validation lets only those into a group.
                _ => continue,
            };
            self.add_field(a, ctor);
        }
    }

    pub(crate) fn add_field(&mut self, abbrev: String, ctor: String) {
        if !self.fields.iter().any(|f| f.abbrev == abbrev) {
            self.fields.push(FieldDef { abbrev, ctor });
        }
    }

    /// Every field of every type, then the padding and joined payloads.
    pub(crate) fn declare_fields(&mut self) -> Result<(), Internal> {
        let p = self.i.p;
        for sid in 0..p.structs.len() {
            self.declare_struct(sid)?;
        }
        let padded = p
            .structs
            .iter()
            .any(|s| s.padding.any() || s.fields.iter().any(|f| f.padding.any()));
        if padded {
            let a = naming::padding_abbrev(p);
            self.add_field(
                a.clone(),
                format!("ProtoField.bytes(\"{a}\", \"Padding\", base.NONE, \"Bytes that pad or align a value (ignored)\")"),
            );
        }
        for sid in 0..p.structs.len() {
            self.declare_joined(sid);
        }
        Ok(())
    }

    /// The fields of struct `sid`: its bit groups, then each field (with its flag bits, length
    /// prefix, status, …).
    fn declare_struct(&mut self, sid: StructId) -> Result<(), Internal> {
        let p = self.i.p;
        let s = &p.structs[sid];
        for gi in 0..s.groups.len() {
            self.declare_group(sid, gi);
        }
        for (fi, f) in s.fields.iter().enumerate() {
            let abbrev = self.names.abbrev(sid, fi);
            if f.group.is_some() {
                continue;
            }
            if let (Some(_), Ty::Int(it)) = (self.i.case_names.get(&(sid, fi)), &f.ty) {
                // A switch's tag shows the name of the case it selects.
                self.add_field(
                    abbrev.clone(),
                    format!(
                        "ProtoField.{}(\"{abbrev}\", \"{}\", base.DEC, {}, nil, \"{}\")",
                        protofield_int(it),
                        naming::label(&f.name),
                        case_names_var(p, sid, fi),
                        lua_escape(&first_line(&f.doc))
                    ),
                );
                continue;
            }
            // A field's declaration depends on the layout of the type holding it.
            self.declare(
                s.layout,
                &abbrev,
                &naming::label(&f.name),
                &first_line(&f.doc),
                &f.ty,
                (&f.role, f.display),
            )?;
            if !f.select.is_empty() {
                let a = format!("{abbrev}.unknown");
                self.add_field(a.clone(), format!("ProtoField.bytes(\"{a}\", \"{} (types unknown)\", base.NONE, \"Bytes that need a list announced earlier in the conversation\")", naming::label(&f.name)));
            }
        }
        Ok(())
    }

    /// The joined payloads of the joins in struct `sid` (pieces kept as bytes).
    fn declare_joined(&mut self, sid: StructId) {
        let p = self.i.p;
        let sequence = p
            .joins
            .iter()
            .filter(|j| j.in_struct == sid)
            .map(|j| &j.streams);
        let stream = p
            .stream_joins
            .iter()
            .filter(|j| j.in_struct == sid)
            .map(|j| &j.streams);
        for streams in sequence.chain(stream) {
            for st in streams.iter().filter(|st| st.whole.is_none()) {
                let f = &p.structs[sid].fields[st.field];
                let a = format!("{}.joined", self.names.abbrev(sid, st.field));
                self.add_field(a.clone(), format!("ProtoField.bytes(\"{a}\", \"Joined {}\", base.NONE, \"The {} of every part, joined\")", naming::label(&f.name), f.name));
            }
        }
    }

    /// The fields of every `filter:` use: its type's own, under the use's filter names.
    pub(crate) fn declare_filtered_fields(
        &mut self,
        uses: &[(StructId, String)],
    ) -> Result<(), Internal> {
        for (id, filter) in uses {
            self.names.filter = Some((*id, filter.clone()));
            let declared = self.declare_struct(*id);
            self.declare_joined(*id);
            self.names.filter = None;
            declared?;
        }
        Ok(())
    }

    /// Declares the ProtoField(s) of a value of `ty`; `(role, display)` say how an integer is
    /// shown (constants, checksums and reserved fields in hex unless `display` says otherwise).
    pub(crate) fn declare(
        &mut self,
        layout: Layout,
        abbrev: &str,
        label: &str,
        doc: &str,
        ty: &Ty,
        (role, display): (&Role, Option<Display>),
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let doc = lua_escape(doc);
        let hex = shows_hex(role, display);
        let base = |it: &IntTy| int_base(it, hex);
        match ty {
            Ty::Int(it) => {
                // `display: bin`: a mask of the whole integer, so Wireshark draws its bits.
                let mask = match display {
                    Some(Display::Bin) => format!("{:#x}", u64::MAX >> (64 - 8 * it.bytes())),
                    _ => "nil".into(),
                };
                self.add_field(
                    abbrev.into(),
                    format!(
                        "ProtoField.{}(\"{abbrev}\", \"{label}\", {}, nil, {mask}, \"{doc}\")",
                        protofield_int(it),
                        base(it)
                    ),
                );
                if matches!(role, Role::Checksum(_)) {
                    let a = format!("{abbrev}.status");
                    self.add_field(a.clone(), format!("ProtoField.uint8(\"{a}\", \"{label} status\", base.DEC, VS_CHECKSUM_STATUS, nil, \"Whether the {label} matches the data\")"));
                }
            }
            Ty::Flags(id) => self.declare_flags(layout, abbrev, label, &doc, *id),
            Ty::Bool | Ty::Float { .. } | Ty::VarInt(_) | Ty::Bits | Ty::Enum(_) => {
                let field = number_protofield(p, ty, abbrev, label, &doc, hex)?;
                self.add_field(abbrev.into(), field);
            }
            Ty::Str(
                _,
                Text {
                    nul: Nul::Terminated,
                    ..
                },
            ) => {
                // FT_STRINGZ: the item covers the NUL, the value stops before it.
                self.add_field(
                    abbrev.into(),
                    format!(
                        "ProtoField.stringz(\"{abbrev}\", \"{label}\", base.UNICODE, \"{doc}\")"
                    ),
                );
            }
            Ty::Bytes(len) | Ty::Str(len, _) => {
                if let Some(pf) = prefix_protofield(len) {
                    let a = naming::prefix_abbrev(abbrev);
                    self.add_field(a.clone(), format!("ProtoField.{pf}(\"{a}\", \"{label} length\", base.DEC, nil, nil, \"Length of {label}\")"));
                }
                if matches!(ty, Ty::Str(..)) {
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
                if let Some(pf) = prefix_protofield(count) {
                    let a = naming::prefix_abbrev(abbrev);
                    self.add_field(a.clone(), format!("ProtoField.{pf}(\"{a}\", \"{label} count\", base.DEC, nil, nil, \"Number of {label}\")"));
                }
                if !matches!(**elem, Ty::Struct(..)) {
                    self.declare(layout, abbrev, label, &doc, elem, (&Role::Value, display))?;
                }
                if let Ty::Struct(_, Some(len)) = &**elem {
                    self.declare_size_prefix(
                        &naming::element_abbrev(elem, abbrev),
                        &format!("{label} element"),
                        len,
                    );
                }
            }
            Ty::Struct(_, Some(len)) => self.declare_size_prefix(abbrev, label, len),
            Ty::Struct(..) => {}
            Ty::Union(u) => {
                self.declare_size_prefix(abbrev, label, &u.len);
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

    /// A flag set's ProtoField and one bool ProtoField per flag (a mask where its bytes are).
    fn declare_flags(&mut self, layout: Layout, abbrev: &str, label: &str, doc: &str, id: FlagsId) {
        let fl = &self.i.p.flags[id];
        self.add_field(
            abbrev.into(),
            format!(
                "ProtoField.{}(\"{abbrev}\", \"{label}\", {}, nil, nil, \"{doc}\")",
                protofield_int(&fl.repr),
                int_base(&fl.repr, true)
            ),
        );
        // In bit streams a flag's bytes are not where a mask could find it: the value is
        // given explicitly instead.
        let bits = layout.is_bits();
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

    /// The size prefix of a struct or switch read inside its size (`prefix:` on the field, or
    /// each element's with `element: { prefix }`), shown as `abbrev.length`.
    fn declare_size_prefix(&mut self, abbrev: &str, label: &str, len: &Len) {
        if let Some(pf) = prefix_protofield(len) {
            let a = naming::prefix_abbrev(abbrev);
            self.add_field(a.clone(), format!("ProtoField.{pf}(\"{a}\", \"{label} length\", base.DEC, nil, nil, \"Bytes of {label}\")"));
        }
    }
}

/// The ProtoField constructor of a length or count prefix, if `len` is one.
fn prefix_protofield(len: &Len) -> Option<String> {
    match len {
        Len::Prefix(it) => Some(protofield_int(it).to_string()),
        Len::VarPrefix(VarInt::RiptideLen) => Some("uint16".into()),
        Len::VarPrefix(_) => Some("uint64".into()),
        _ => None,
    }
}

/// The ProtoField of a number other than an integer (a bool, float, varint, enum) or of a bit
/// string, as `ProtoField.<kind>(abbrev, label, …, doc)`.
fn number_protofield(
    p: &Protocol,
    ty: &Ty,
    abbrev: &str,
    label: &str,
    doc: &str,
    hex: bool,
) -> Result<String, Internal> {
    Ok(match ty {
        Ty::Bool => {
            format!("ProtoField.bool(\"{abbrev}\", \"{label}\", base.NONE, nil, nil, \"{doc}\")")
        }
        Ty::Float { bits: 32, .. } => {
            format!("ProtoField.float(\"{abbrev}\", \"{label}\", nil, \"{doc}\")")
        }
        Ty::Float { bits: 64, .. } => {
            format!("ProtoField.double(\"{abbrev}\", \"{label}\", nil, \"{doc}\")")
        }
        Ty::Float { bits: 16, .. } => {
            format!("ProtoField.float(\"{abbrev}\", \"{label}\", nil, \"{doc} (IEEE binary16)\")")
        }
        Ty::Float { bits, .. } => return Err(Internal(format!("a float of {bits} bits"))),
        Ty::VarInt(VarInt::Leb128) => format!(
            "ProtoField.uint64(\"{abbrev}\", \"{label}\", {}, nil, nil, \"{doc}\")",
            if hex { "base.HEX" } else { "base.DEC" }
        ),
        Ty::VarInt(VarInt::ZigZag) => {
            format!("ProtoField.int64(\"{abbrev}\", \"{label}\", base.DEC, nil, nil, \"{doc}\")")
        }
        Ty::VarInt(VarInt::RiptideLen) => format!(
            "ProtoField.uint16(\"{abbrev}\", \"{label}\", {}, nil, nil, \"{doc}\")",
            if hex { "base.HEX" } else { "base.DEC" }
        ),
        Ty::VarInt(VarInt::Rabbit { bits, signed }) => format!(
            "ProtoField.{}{bits}(\"{abbrev}\", \"{label}\", base.DEC, nil, nil, \"{doc}\")",
            if *signed { "int" } else { "uint" }
        ),
        Ty::Bits => format!("ProtoField.bytes(\"{abbrev}\", \"{label}\", base.NONE, \"{doc}\")"),
        Ty::Enum(id) if !p.enums[*id].ranges.is_empty() => {
            let e = &p.enums[*id];
            format!(
                    "ProtoField.{}(\"{abbrev}\", \"{label}\", base.RANGE_STRING, RS.{}, nil, \"{doc}\")",
                    protofield_int(&e.repr),
                    e.name
                )
        }
        Ty::Enum(id) => {
            let e = &p.enums[*id];
            format!(
                "ProtoField.{}(\"{abbrev}\", \"{label}\", {}, VS.{}, nil, \"{doc}\")",
                protofield_int(&e.repr),
                int_base(&e.repr, true),
                e.name
            )
        }
        _ => return Err(Internal("a number's ProtoField for another type".into())),
    })
}

/// Structs in dependency order: every function is defined before its callers.
pub(crate) fn order(p: &Protocol) -> Vec<StructId> {
    fn visit(p: &Protocol, id: StructId, done: &mut Vec<bool>, out: &mut Vec<StructId>) {
        if done[id] {
            return;
        }
        done[id] = true;
        let mut k = Vec::new();
        p.structs[id].child_structs(&mut k);
        for j in p.joins.iter().filter(|j| j.in_struct == id) {
            k.extend(j.streams.iter().filter_map(|s| s.whole));
        }
        for c in k {
            visit(p, c, done, out);
        }
        out.push(id);
    }
    let mut done = vec![false; p.structs.len()];
    let mut out = Vec::new();
    for id in 0..p.structs.len() {
        visit(p, id, &mut done, &mut out);
    }
    out
}

/// The ProtoField type of a group's integer (`uint16`); its fields are declared with it too,
/// since a mask must fit the field's type.
fn container_field(int: &IntTy, signed: bool) -> String {
    protofield_int(&IntTy { signed, ..*int })
}
