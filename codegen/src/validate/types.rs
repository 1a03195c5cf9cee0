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

impl<'f> Validator<'f> {
    pub(crate) fn endian(&mut self, e: Option<&str>, yp: &str) -> Option<Endian> {
        match e {
            None => None,
            Some("little" | "le") => Some(Endian::Little),
            Some("big" | "be") => Some(Endian::Big),
            Some(other) => {
                self.error(
                    "E0201",
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
                self.error(
                    "E0202",
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
                self.error_key(
                    "E0203",
                    &vp,
                    format!("'{name}' is not a valid value name"),
                    Some("use letters, digits and '_'".into()),
                );
            }
            let (lo, hi, doc) = match v {
                NamedValue::Plain(v) => (*v, *v, None),
                NamedValue::Documented { value, doc } => (*value, *value, doc.clone()),
                NamedValue::Range(r) | NamedValue::DocumentedRange { range: r, .. } => {
                    let doc = match v {
                        NamedValue::DocumentedRange { doc, .. } => doc.clone(),
                        _ => None,
                    };
                    if !ranges_ok {
                        self.error("E0204", &vp, "a flag is one bit, not a range", None);
                        continue;
                    }
                    match crate::schema::parse_range(r) {
                        Some((lo, hi)) if lo < hi => (lo, hi, doc),
                        _ => {
                            self.error(
                                "E0205",
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
                self.error(
                    "E0206",
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
                self.error(
                    "E0207",
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
        let text = self.locs.text(path)?;
        let digits = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))?;
        let hex = !digits.is_empty() && digits.chars().all(|c| c.is_ascii_hexdigit());
        (hex && u64::from_str_radix(digits, 16) == Ok(value)).then(|| text.to_string())
    }

    pub(crate) fn enum_def(&mut self, name: &str, e: &schema::EnumDef, endian: Endian) -> Enum {
        let yp = format!("enums.{name}");
        if e.repr.is_empty() {
            self.error_key(
                "E0208",
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
            self.error_key(
                "E0209",
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
                self.error(
                    "E0210",
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

    /// `strz`: NUL-terminated without a length, NUL-padded to a constant one (byte layouts).
    fn strz(&mut self, f: &schema::FieldDef, fp: &str, layout: Layout) -> Ty {
        let tp = format!("{fp}.type");
        let encoding = self.encoding(f, fp, layout);
        if layout != Layout::Bytes {
            self.error(
                "E0211",
                &tp,
                "'strz' in a bit-stream layout",
                Some("NUL-terminated strings are byte-aligned: use them in byte layouts".into()),
            );
        }
        if f.prefix.is_some() {
            self.error(
                "E0212",
                &format!("{fp}.prefix"),
                "a 'strz' ends at its NUL or is padded to a constant length; it takes no prefix",
                Some("use 'type: string' with a prefix".into()),
            );
        }
        match &f.length {
            None => Ty::Str(
                Len::Natural,
                Text {
                    nul: Nul::Terminated,
                    encoding,
                },
            ),
            Some(ExprOrInt::Int(n))
                if *n % 2 == 1 && matches!(encoding, Encoding::Utf16 { .. }) =>
            {
                self.error(
                    "E0213",
                    &format!("{fp}.length"),
                    format!(
                        "a NUL-padded UTF-16 'strz' of {n} bytes: UTF-16 code units are 2 bytes"
                    ),
                    Some(format!(
                        "'length' counts bytes: e.g. {} for {n} characters",
                        2 * n
                    )),
                );
                Ty::Str(
                    Len::Natural,
                    Text {
                        nul: Nul::Terminated,
                        encoding,
                    },
                )
            }
            Some(ExprOrInt::Int(n)) if *n > 0 => Ty::Str(
                Len::Expr(Expr::int(*n)),
                Text {
                    nul: Nul::Padded,
                    encoding,
                },
            ),
            Some(_) => {
                self.error("E0214",
                    &format!("{fp}.length"),
                    "a NUL-padded 'strz' needs a constant length of 1 or more bytes (C's char[32] is 'length: 32')",
                    Some("a string whose length is given by another field is 'type: string'".into()),
                );
                Ty::Str(
                    Len::Natural,
                    Text {
                        nul: Nul::Terminated,
                        encoding,
                    },
                )
            }
        }
    }

    /// A string's `encoding` (UTF-8 unless it says otherwise; others in byte layouts only).
    fn encoding(&mut self, f: &schema::FieldDef, fp: &str, layout: Layout) -> Encoding {
        let Some(name) = f.encoding.as_deref() else {
            return Encoding::Utf8;
        };
        let at = format!("{fp}.encoding");
        let all = [
            Encoding::Utf8,
            Encoding::Ascii,
            Encoding::Latin1,
            Encoding::Utf16 { big: false },
            Encoding::Utf16 { big: true },
        ];
        let Some(e) = all.into_iter().find(|e| e.name() == name) else {
            let hint = did_you_mean(name, all.iter().map(|e| e.name()))
                .or_else(|| Some("one of utf8, ascii, latin1, utf16le, utf16be".into()));
            self.error("E0215", &at, format!("unknown encoding '{name}'"), hint);
            return Encoding::Utf8;
        };
        if e != Encoding::Utf8 && layout != Layout::Bytes {
            self.error(
                "E0216",
                &at,
                format!("'{name}' text in a bit-stream layout"),
                Some("strings in bit streams are UTF-8".into()),
            );
        }
        e
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
            .map(|i| self.group_layout(name, i))
            .collect();
        for (i, f) in t.fields.iter().enumerate() {
            let fp = self.field_path(name, i);
            if !is_snake_ident(&f.name) {
                self.error(
                    "E0217",
                    &format!("{fp}.name"),
                    format!("field name '{}' is not snake_case", f.name),
                    None,
                );
            }
            if seen.insert(&f.name, i).is_some() {
                self.error(
                    "E0218",
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
                self.error(
                    "E0219",
                    &self.field_path(name, i),
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
            fields,
            groups: Vec::new(),
        }
    }

    /// The type a field's `type:` names, checked where the field is.
    pub(crate) fn ty(&mut self, at: FieldAt, te: &TypeExpr) -> Ty {
        let FieldAt {
            sid,
            index,
            f,
            fp,
            endian,
            layout,
        } = at;
        let tp = format!("{fp}.type");
        match te {
            TypeExpr::Int {
                bits,
                signed,
                endian: e,
            } => self.int_field_ty(at, *bits, *signed, e.as_deref()),
            TypeExpr::Float { bits, endian: e } => {
                let endian = self.value_endian(e.as_deref(), f, &tp, endian, layout, *bits);
                Ty::Float {
                    bits: *bits,
                    endian,
                }
            }
            TypeExpr::Bool => Ty::Bool,
            TypeExpr::VarInt(name) => self.varint_ty(at, name),
            TypeExpr::Bytes => Ty::Bytes(self.len_of(sid, index, f, fp, endian, true)),
            TypeExpr::Bits => {
                if !layout.is_bits() {
                    self.error(
                        "E0225",
                        &tp,
                        "'bits' is the rest of a bit stream",
                        Some("use 'bytes' in a byte-aligned layout".into()),
                    );
                }
                if f.length.is_some() || f.prefix.is_some() {
                    self.error(
                        "E0226",
                        &tp,
                        "a 'bits' field runs to the end of its scope; it takes no length",
                        None,
                    );
                }
                Ty::Bits
            }
            TypeExpr::String => {
                let encoding = self.encoding(f, fp, layout);
                let len = self.len_of(sid, index, f, fp, endian, true);
                Ty::Str(
                    len,
                    Text {
                        nul: Nul::No,
                        encoding,
                    },
                )
            }
            TypeExpr::StrZ => self.strz(f, fp, layout),
            TypeExpr::Array(elem) => self.array_ty(at, elem),
            TypeExpr::Named(n) => self.named_ty(at, n),
        }
    }

    /// An integer of `bits` (1..64; whole bytes in byte layouts) in its byte order.
    fn int_field_ty(&mut self, at: FieldAt, bits: u32, signed: bool, e: Option<&str>) -> Ty {
        let FieldAt {
            f,
            fp,
            endian,
            layout,
            ..
        } = at;
        let tp = format!("{fp}.type");
        if !(1..=64).contains(&bits) {
            self.error(
                "E0220",
                &tp,
                format!("integer width {bits} is outside 1..64"),
                None,
            );
        } else if layout == Layout::Bytes && !bits.is_multiple_of(8) {
            self.error("E0221",
                &tp,
                format!("a {bits}-bit integer in a byte-aligned layout"),
                Some(
                    "use a whole number of bytes, a bit group (an integer with 'fields'), or 'layout: lsb-bits'"
                        .into(),
                ),
            );
        }
        let endian = self.value_endian(e, f, &tp, endian, layout, bits);
        Ty::Int(IntTy {
            bits,
            signed,
            endian,
        })
    }

    /// A varint, where its encoding belongs (Rabbit's in LSB-first streams, Riptide 2.0's
    /// length in byte layouts).
    fn varint_ty(&mut self, at: FieldAt, name: &str) -> Ty {
        let FieldAt { fp, layout, .. } = at;
        let tp = format!("{fp}.type");
        let v = match name {
            "leb128" => VarInt::Leb128,
            "zigzag" => VarInt::ZigZag,
            "riptide_len" => VarInt::RiptideLen,
            other => {
                let signed = other.starts_with("rabbit_i");
                let bits = other[8..].parse().unwrap_or(32);
                VarInt::Rabbit { bits, signed }
            }
        };
        match (v, layout) {
            (VarInt::Rabbit { .. }, Layout::Bytes) => self.error(
                "E0222",
                &tp,
                format!("'{name}' is bit-packed: it belongs to bit-stream types"),
                Some("give the type or the protocol 'layout: lsb-bits'".into()),
            ),
            (VarInt::Rabbit { .. }, Layout::MsbBits) => self.error(
                "E0223",
                &tp,
                format!("'{name}' is Riptide's LSB-first encoding"),
                Some("give the type 'layout: lsb-bits', or use 'leb128'".into()),
            ),
            (VarInt::RiptideLen, Layout::LsbBits | Layout::MsbBits) => self.error(
                "E0224",
                &tp,
                "'riptide_len' is a byte-aligned length (Riptide 2.0)",
                Some("in bit streams use 'leb128' or a 'rabbit_u32'".into()),
            ),
            _ => {}
        }
        Ty::VarInt(v)
    }

    /// An array: its element type (framed each by `element:` when asked) and its count.
    fn array_ty(&mut self, at: FieldAt, elem: &TypeExpr) -> Ty {
        let FieldAt {
            sid,
            index,
            f,
            fp,
            endian,
            layout,
        } = at;
        let tp = format!("{fp}.type");
        if matches!(elem, TypeExpr::Array(_)) {
            self.error(
                "E0227",
                &tp,
                "arrays of arrays need a named element type",
                None,
            );
        }
        let each = schema::FieldDef {
            length: None,
            count: None,
            prefix: None,
            ..clone_field(f)
        };
        let elem_ty = self.ty(FieldAt { f: &each, ..at }, elem);
        if let Ty::Bytes(_) | Ty::Str(..) = elem_ty {
            self.error(
                "E0228",
                &tp,
                "arrays of bytes or strings need a named element type that gives each a length",
                None,
            );
        }
        let elem_ty = match (&f.element, elem_ty) {
            (Some(e), Ty::Struct(id, None)) => {
                // Each element framed: decoded inside exactly its bytes.
                let ep = format!("{fp}.element");
                if e.length.is_none() && e.prefix.is_none() {
                    self.error(
                        "E0229",
                        &ep,
                        "'element' needs a 'length' or a 'prefix'",
                        Some("e.g. 'element: { prefix: u16 }'".into()),
                    );
                } else if layout != Layout::Bytes {
                    self.error("E0230", &ep, "element sizes are for byte layouts", None);
                }
                let framing = schema::FieldDef {
                    length: e.length.clone(),
                    prefix: e.prefix.clone(),
                    ..clone_field(f)
                };
                let len = self.len_of(sid, index, &framing, &ep, endian, false);
                Ty::Struct(id, Some(len))
            }
            (Some(_), other) => {
                self.error(
                    "E0231",
                    &format!("{fp}.element"),
                    "'element' frames the elements of an array of structs",
                    None,
                );
                other
            }
            (None, other) => other,
        };
        let count = self.count_of(sid, index, f, fp, endian);
        Ty::Array(Box::new(elem_ty), count)
    }

    /// A type named by the schema: an enum, a flag set or a struct (with its length, if any).
    fn named_ty(&mut self, at: FieldAt, n: &str) -> Ty {
        let FieldAt {
            sid,
            index,
            f,
            fp,
            endian,
            ..
        } = at;
        let tp = format!("{fp}.type");
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
            self.error("E0232", &tp, format!("unknown type '{n}'"), hint);
            Ty::Bool
        }
    }

    /// A number's byte order. A bit stream's bit order decides it (LSB-first streams are
    /// little-endian, MSB-first ones big-endian; the schema's `endian` is for byte layouts);
    /// asking for the other byte order there is refused rather than decoded wrong.
    fn value_endian(
        &mut self,
        in_type: Option<&str>,
        f: &schema::FieldDef,
        tp: &str,
        default: Endian,
        layout: Layout,
        bits: u32,
    ) -> Endian {
        let explicit = self.endian(in_type, tp);
        if layout == Layout::Bytes {
            return explicit.unwrap_or(default);
        }
        // The field's `endian:` (already checked where the field is read).
        let field_endian = f.endian.map(Endian::from);
        let stream = stream_order(layout);
        if bits > 8
            && explicit
                .or(field_endian)
                .is_some_and(|e| e != stream.endian)
        {
            // At what asked for it: the type's suffix, else the field's `endian:`.
            let at = match (explicit, tp.strip_suffix(".type")) {
                (None, Some(fp)) => format!("{fp}.endian"),
                _ => tp.to_string(),
            };
            let asked = stream.other;
            self.error(
                "E0233",
                &at,
                format!(
                    "'{}': a {asked}-endian {bits}-bit number in an {} type: this bit stream is \
                     read {}",
                    f.name,
                    layout.name(),
                    stream.read()
                ),
                Some(format!(
                    "drop the {asked}-endian suffix or 'endian:', or make the type 'layout: bytes'"
                )),
            );
        }
        stream.endian
    }

    /// Enums and flag sets take the schema's byte order: one wider than a byte that is
    /// big-endian cannot be read from a bit stream (see [`Validator::value_endian`]).
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
                    self.error(
                        "E0234",
                        &format!("{}.type", self.field_path(&s.name, fi)),
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

/// Where a field's type is checked: its struct and place, its definition and YAML path, and
/// the byte order and layout it is read in.
#[derive(Clone, Copy)]
pub(crate) struct FieldAt<'a> {
    pub sid: StructId,
    pub index: usize,
    pub f: &'a schema::FieldDef,
    pub fp: &'a str,
    pub endian: Endian,
    pub layout: Layout,
}
