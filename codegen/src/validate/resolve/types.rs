//! Pass: types. Integer widths and byte orders, enums, flag sets, structs and their layouts.

use super::*;

pub(crate) fn is_snake_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('a'..='z')) && c.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

pub(crate) fn is_camel_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('A'..='Z')) && c.all(|c| c.is_ascii_alphanumeric())
}

pub(crate) fn is_value_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('A'..='Z' | 'a'..='z' | '_'))
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl<'f> Resolver<'f> {
    pub(crate) fn endian(&mut self, e: Option<&str>, yp: &str) -> Option<Endian> {
        match e {
            None => None,
            Some("little" | "le") => Some(Endian::Little),
            Some("big" | "be") => Some(Endian::Big),
            Some(other) => {
                self.r.error(
                    Code::E0201,
                    yp,
                    format!("unknown byte order '{other}'"),
                    Some("expected 'little' or 'big'".into()),
                );
                None
            }
        }
    }

    /// An integer type used as a representation (enum, flags, prefix, framing).
    pub(crate) fn int_ty(&mut self, text: &str, yp: &str, endian: Endian) -> Option<IntTy> {
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
                self.r.error(
                    Code::E0202,
                    yp,
                    format!("'{text}' is not an integer type"),
                    Some("expected u1..u64 or i1..i64, e.g. 'u8' or 'u16be'".into()),
                );
                None
            }
        }
    }

    pub(crate) fn named_values(
        &mut self,
        yp: &str,
        values: &indexmap::IndexMap<String, NamedValue>,
        repr: IntTy,
        ranges_ok: bool,
    ) -> (Vec<NamedConst>, Vec<NamedRange>) {
        let mut out: Vec<NamedConst> = Vec::new();
        let mut ranges: Vec<NamedRange> = Vec::new();
        for (name, v) in values {
            let vp = format!("{yp}.{name}");
            if !is_value_ident(name) {
                self.r.error_key(
                    Code::E0203,
                    &vp,
                    format!("'{name}' is not a valid value name"),
                    Some("use letters, digits and '_'".into()),
                );
            }
            let (lo, hi, doc) = match v {
                NamedValue::Plain(v) => (*v, *v, None),
                NamedValue::Negative(v) => {
                    self.r.error(
                        Code::E0235,
                        &vp,
                        format!("value {v} is negative: enum and flag values are unsigned"),
                        Some(format!(
                            "make the type u{0} and write the value's {0}-bit pattern, {1:#x}",
                            repr.bits,
                            wire_bits(*v, repr.bits)
                        )),
                    );
                    continue;
                }
                NamedValue::Documented { value, doc } => (*value, *value, doc.clone()),
                NamedValue::Range(r) | NamedValue::DocumentedRange { range: r, .. } => {
                    let doc = match v {
                        NamedValue::DocumentedRange { doc, .. } => doc.clone(),
                        _ => None,
                    };
                    if !ranges_ok {
                        self.r
                            .error(Code::E0204, &vp, "a flag is one bit, not a range", None);
                        continue;
                    }
                    match crate::schema::parse_range(r) {
                        Some((lo, hi)) if lo < hi => (lo, hi, doc),
                        _ => {
                            self.r.error(
                                Code::E0205,
                                &vp,
                                format!("'{r}' is not a range"),
                                Some(
                                    "write 'lo..hi' with lo below hi, e.g. '1..6' or '0x10..0x1F'"
                                        .into(),
                                ),
                            );
                            continue;
                        }
                    }
                }
            };
            if hi > repr.max_value() {
                self.r.error(
                    Code::E0206,
                    &vp,
                    format!("value {hi} does not fit in {} bits", repr.bits),
                    None,
                );
            }
            // A single value may be named inside a named range (PDL's tags inside a range: the
            // single name wins); two single names of one value, or overlapping ranges, clash.
            let clash = if lo == hi && !v.is_range() {
                out.iter().find(|c| c.value == lo).map(|c| c.name.clone())
            } else {
                ranges
                    .iter()
                    .find(|r| lo <= r.hi && r.lo <= hi)
                    .map(|r| r.name.clone())
            };
            if let Some(prev) = clash {
                let what = if lo == hi {
                    format!("value {lo}")
                } else {
                    format!("range {lo}..{hi}")
                };
                self.r.error(
                    Code::E0207,
                    &vp,
                    format!("{what} is already named '{prev}'"),
                    None,
                );
            }
            if lo == hi && !v.is_range() {
                let hex = self
                    .hex_text(&vp, lo)
                    .or_else(|| self.hex_text(&format!("{vp}.value"), lo));
                out.push(NamedConst {
                    name: name.clone(),
                    value: lo,
                    hex,
                    doc,
                });
            } else {
                ranges.push(NamedRange {
                    name: name.clone(),
                    lo,
                    hi,
                    doc,
                });
            }
        }
        (out, ranges)
    }

    /// The schema's text at `path` if it writes `value` in hex (`0xD1CE`): the outputs write
    /// it so too.
    pub(crate) fn hex_text(&self, path: &str, value: u64) -> Option<String> {
        let text = self.r.locs.text(path)?;
        let digits = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))?;
        let hex = !digits.is_empty() && digits.chars().all(|c| c.is_ascii_hexdigit());
        (hex && u64::from_str_radix(digits, 16) == Ok(value)).then(|| text.to_string())
    }

    pub(crate) fn enum_def(&mut self, name: &str, e: &schema::EnumDef, endian: Endian) -> Enum {
        let yp = format!("enums.{name}");
        if e.repr.is_empty() {
            self.r.error_key(
                Code::E0208,
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
        let (values, ranges) = self.named_values(&format!("{yp}.values"), &e.values, repr, true);
        Enum {
            name: name.to_string(),
            doc: e.doc.clone(),
            repr,
            closed: e.closed,
            values,
            ranges,
        }
    }

    pub(crate) fn flags_def(&mut self, name: &str, f: &schema::FlagsDef, endian: Endian) -> Flags {
        let yp = format!("flags.{name}");
        if f.repr.is_empty() {
            self.r.error_key(
                Code::E0209,
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
        let (bits, _) = self.named_values(&format!("{yp}.bits"), &f.bits, repr, false);
        for b in &bits {
            if b.value == 0 || !b.value.is_power_of_two() {
                self.r.error(
                    Code::E0210,
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

    pub(crate) fn shape(&self, f: &schema::FieldDef) -> Shape {
        if f.switch.is_some() {
            return Shape::Union;
        }
        let Some(t) = &f.ty else {
            return Shape::Unknown;
        };
        match expr::parse_type(t) {
            // Its length in bytes is not the decoded text's.
            Ok(TypeExpr::String) if f.encoding.as_deref().is_some_and(|e| e != "utf8") => {
                Shape::Opaque
            }
            Ok(TypeExpr::Array(_) | TypeExpr::Bytes | TypeExpr::String) => Shape::Seq,
            Ok(TypeExpr::Bool) => Shape::Bool,
            Ok(TypeExpr::StrZ) => Shape::Opaque,
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

    pub(crate) fn struct_def(
        &mut self,
        id: StructId,
        name: &str,
        t: &schema::TypeDef,
        endian: Endian,
        layout: Layout,
    ) -> Struct {
        let yp = format!("types.{name}");
        let layout = t.layout.map_or(layout, Layout::from);
        let mut fields: Vec<Field> = Vec::new();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        // Fields packed into a bit group are read from its integer: of any width, in the
        // group's packing.
        let member_layout: Vec<Option<Layout>> = (0..t.fields.len())
            .map(|i| self.r.group_layout(name, i))
            .collect();
        for (i, f) in t.fields.iter().enumerate() {
            let fp = self.r.field_path(name, i);
            if !is_snake_ident(&f.name) {
                self.r.error(
                    Code::E0217,
                    &format!("{fp}.name"),
                    format!("field name '{}' is not snake_case", f.name),
                    None,
                );
            }
            if seen.insert(&f.name, i).is_some() {
                self.r.error(
                    Code::E0218,
                    &format!("{fp}.name"),
                    format!("duplicate field '{}' in type '{name}'", f.name),
                    None,
                );
            }
            let field = self.field(id, i, f, &fp, endian, member_layout[i].unwrap_or(layout));
            fields.push(field);
        }
        // A field that runs to the end of its scope must be the last one.
        for (i, f) in fields.iter().enumerate() {
            if i + 1 < fields.len() && runs_to_end(&f.ty) {
                self.r.error(
                    Code::E0219,
                    &self.r.field_path(name, i),
                    format!(
                        "field '{}' runs to the end of '{name}' but is not its last field",
                        f.name
                    ),
                    Some("give it a 'length', 'count' or 'prefix'".into()),
                );
            }
        }
        self.checksum_ranges(name, t, &seen, &mut fields);
        self.derive(name, &yp, &mut fields);
        let info = self.info(&yp, t.info.as_deref(), &fields);
        let padding = self.padding(&yp, t.pad, t.align, layout);
        Struct {
            padding,
            name: name.to_string(),
            layout,
            explicit_layout: t.layout.is_some(),
            doc: t.doc.clone(),
            info,
            subtree: t.subtree,
            fields,
            groups: Vec::new(),
        }
    }

    /// Enums and flag sets take the schema's byte order: one wider than a byte that is
    /// big-endian cannot be read from a bit stream (see [`Resolver::value_endian`]).
    pub(crate) fn bit_byte_order(&mut self, structs: &[Struct], enums: &[Enum], flags: &[Flags]) {
        for s in structs.iter().filter(|s| s.layout.is_bits()) {
            for (fi, f) in s.fields.iter().enumerate() {
                let mut ty = &f.ty;
                while let Ty::Array(e, _) = ty {
                    ty = e;
                }
                let (repr, name, what) = match ty {
                    Ty::Enum(id) => (enums[*id].repr, &enums[*id].name, "enum"),
                    Ty::Flags(id) => (flags[*id].repr, &flags[*id].name, "flag set"),
                    _ => continue,
                };
                let stream = stream_order(s.layout);
                if repr.bits > 8 && repr.endian != stream.endian {
                    self.r.error(
                        Code::E0234,
                        &format!("{}.type", self.r.field_path(&s.name, fi)),
                        format!(
                            "'{}': {what} '{name}' is a {}-endian {}-bit number, and this \
                             bit stream is read {}",
                            f.name,
                            stream.other,
                            repr.bits,
                            stream.read()
                        ),
                        Some(format!(
                            "give '{name}' the stream's byte order, e.g. 'type: u{}{}'",
                            repr.bits, stream.suffix
                        )),
                    );
                }
            }
        }
    }
}

/// How a bit stream orders its numbers, in the words its errors use: LSB-first streams are
/// little-endian, MSB-first (network order) ones big-endian.
pub(crate) struct StreamOrder {
    pub endian: Endian,
    /// Its byte order and the other one (`little`, `big`).
    pub own: &'static str,
    pub other: &'static str,
    /// Which bit comes first (`least`, `most`), and the type suffix of its numbers (`le`).
    pub first: &'static str,
    pub suffix: &'static str,
}

impl StreamOrder {
    /// `least-significant bit first (little-endian)`.
    pub fn read(&self) -> String {
        format!("{}-significant bit first ({}-endian)", self.first, self.own)
    }
}

pub(crate) fn stream_order(layout: Layout) -> StreamOrder {
    match layout {
        Layout::MsbBits => StreamOrder {
            endian: Endian::Big,
            own: "big",
            other: "little",
            first: "most",
            suffix: "be",
        },
        _ => StreamOrder {
            endian: Endian::Little,
            own: "little",
            other: "big",
            first: "least",
            suffix: "le",
        },
    }
}
