//! Pass: a field's type. Integers and their byte order in bit streams, varints, text (NUL
//! terminated or padded, encodings), bytes, arrays and their elements, named types; checked
//! where the field is ([`FieldAt`]).

use super::*;

impl<'f> Resolver<'f> {
    /// `strz`: NUL-terminated without a length, NUL-padded to a constant one (byte layouts).
    fn strz(&mut self, f: &schema::FieldDef, fp: &str, layout: Layout) -> Ty {
        let tp = format!("{fp}.type");
        let encoding = self.encoding(f, fp, layout);
        if layout != Layout::Bytes {
            self.r.error(
                Code::E0211,
                &tp,
                "'strz' in a bit-stream layout",
                Some("NUL-terminated strings are byte-aligned: use them in byte layouts".into()),
            );
        }
        if f.prefix.is_some() {
            self.r.error(
                Code::E0212,
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
                self.r.error(
                    Code::E0213,
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
                self.r.error(Code::E0214,
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
            self.r
                .error(Code::E0215, &at, format!("unknown encoding '{name}'"), hint);
            return Encoding::Utf8;
        };
        if e != Encoding::Utf8 && layout != Layout::Bytes {
            self.r.error(
                Code::E0216,
                &at,
                format!("'{name}' text in a bit-stream layout"),
                Some("strings in bit streams are UTF-8".into()),
            );
        }
        e
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
                    self.r.error(
                        Code::E0225,
                        &tp,
                        "'bits' is the rest of a bit stream",
                        Some("use 'bytes' in a byte-aligned layout".into()),
                    );
                }
                if f.length.is_some() || f.prefix.is_some() {
                    self.r.error(
                        Code::E0226,
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
            self.r.error(
                Code::E0220,
                &tp,
                format!("integer width {bits} is outside 1..64"),
                None,
            );
        } else if layout == Layout::Bytes && !bits.is_multiple_of(8) {
            self.r.error(Code::E0221,
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
            (VarInt::Rabbit { .. }, Layout::Bytes) => self.r.error(
                Code::E0222,
                &tp,
                format!("'{name}' is bit-packed: it belongs to bit-stream types"),
                Some("give the type or the protocol 'layout: lsb-bits'".into()),
            ),
            (VarInt::Rabbit { .. }, Layout::MsbBits) => self.r.error(
                Code::E0223,
                &tp,
                format!("'{name}' is Riptide's LSB-first encoding"),
                Some("give the type 'layout: lsb-bits', or use 'leb128'".into()),
            ),
            (VarInt::RiptideLen, Layout::LsbBits | Layout::MsbBits) => self.r.error(
                Code::E0224,
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
            self.r.error(
                Code::E0227,
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
            self.r.error(
                Code::E0228,
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
                    self.r.error(
                        Code::E0229,
                        &ep,
                        "'element' needs a 'length' or a 'prefix'",
                        Some("e.g. 'element: { prefix: u16 }'".into()),
                    );
                } else if layout != Layout::Bytes {
                    self.r
                        .error(Code::E0230, &ep, "element sizes are for byte layouts", None);
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
                self.r.error(
                    Code::E0231,
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
            self.r
                .error(Code::E0232, &tp, format!("unknown type '{n}'"), hint);
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
            self.r.error(
                Code::E0233,
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
