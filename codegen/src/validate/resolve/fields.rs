//! Pass: fields. Each field's type, condition, role (constant, checksum, reserved), allowed
//! values and padding; Info templates.

use super::*;

pub(crate) fn clone_field(f: &schema::FieldDef) -> schema::FieldDef {
    schema::FieldDef {
        name: f.name.clone(),
        doc: None,
        ty: None,
        endian: f.endian,
        constant: None,
        length: None,
        count: None,
        prefix: None,
        condition: None,
        switch: None,
        checksum: None,
        reserved: false,
        pad: None,
        align: None,
        max: None,
        valid: None,
        optional: false,
        warn: Vec::new(),
        packed: false,
        state: Default::default(),
        set_when: Default::default(),
        encoding: None,
        fields: Vec::new(),
        layout: None,
        element: None,
        compression: None,
        filter: None,
        display: None,
        subtree: None,
    }
}

pub(crate) fn runs_to_end(ty: &Ty) -> bool {
    match ty {
        Ty::Bytes(Len::Rest)
        | Ty::Str(Len::Rest, _)
        | Ty::Array(_, Len::Rest)
        | Ty::Struct(_, Some(Len::Rest))
        | Ty::Bits => true,
        Ty::Union(u) => {
            matches!(u.len, Len::Rest)
                || (matches!(u.len, Len::Natural)
                    && u.cases
                        .iter()
                        .map(|c| c.body)
                        .chain(u.default)
                        .any(|b| matches!(b, CaseBody::Bytes | CaseBody::Array(_))))
        }
        _ => false,
    }
}

impl<'f> Resolver<'f> {
    pub(crate) fn field(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
        layout: Layout,
    ) -> Field {
        let endian = f.endian.map_or(endian, Endian::from);
        let scope = |suffix: &str| format!("{fp}.{suffix}");
        let ty = self.field_type(sid, index, f, fp, endian, layout);
        let (ty, compression) = self.compression(f, fp, layout, ty);
        self.check_modifiers(f, fp, &ty, layout);
        let (role, const_text) = self.field_role(f, fp, &ty, layout);
        let condition = f.condition.as_ref().map(|c| {
            let s = Scope {
                struct_id: sid,
                visible: index,
                yaml_path: &scope("if"),
            };
            self.expr_of(&s, c, ExprTy::Bool)
        });
        if condition.is_some() && role != Role::Value {
            self.r.error(
                Code::E0313,
                &scope("if"),
                "constants, checksums and reserved fields cannot be conditional",
                None,
            );
        }
        let valid = f
            .valid
            .as_ref()
            .and_then(|v| self.valid(v, &ty, &scope("valid")));
        self.check_max(f, fp, &ty);
        let warnings = self.warnings(sid, index, f, fp);
        self.check_packed(f, fp, &ty, layout);
        let padding = self.padding(fp, f.pad, f.align, layout);
        if padding.any() && f.condition.is_some() {
            self.r.error(
                Code::E0318,
                &scope("if"),
                "a padded or aligned field cannot be conditional",
                Some("put the field and its padding in a type of their own".into()),
            );
        }
        let (implied, set_when_warnings) = self.set_when(sid, index, f, fp, &ty);
        let mut warnings: Vec<(Expr, String)> = warnings;
        warnings.extend(set_when_warnings);
        let select = self.state_select(sid, index, f, fp);
        let filter = self.filter_name(f, fp, &ty);
        let display = self.display(f, fp, &ty, layout);
        Field {
            name: f.name.clone(),
            doc: f.doc.clone(),
            ty,
            condition,
            role,
            max: f.max,
            valid,
            warnings,
            select,
            packed: f.packed,
            subtree: f.subtree.unwrap_or(true),
            padding,
            implied,
            group: None,
            compression,
            filter,
            display,
            const_text,
        }
    }

    /// The field's type: its switch, or its `type:` parsed and resolved.
    fn field_type(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        endian: Endian,
        layout: Layout,
    ) -> Ty {
        let scope = |suffix: &str| format!("{fp}.{suffix}");
        if let Some(sw) = &f.switch {
            if f.ty.is_some() {
                self.r.error(
                    Code::E0301,
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
                Ok(te) => self.ty(
                    FieldAt {
                        sid,
                        index,
                        f,
                        fp,
                        endian,
                        layout,
                    },
                    &te,
                ),
                Err(e) => {
                    let p = self.r.locs.value(&scope("type"));
                    self.r.error_at(
                        Code::E0302,
                        p.line,
                        p.col + e.at,
                        e.message,
                        Some("e.g. 'u16', 'bytes', 'string', 'Entity[]'".into()),
                    );
                    Ty::Bool
                }
            }
        } else {
            self.r.error(
                Code::E0303,
                fp,
                format!("field '{}' has no 'type'", f.name),
                Some("add e.g. 'type: u8'".into()),
            );
            Ty::Bool
        }
    }

    /// The keys that apply to some types only (`length`, `prefix`, `encoding`, `count`,
    /// `element`), on the types they apply to.
    fn check_modifiers(&mut self, f: &schema::FieldDef, fp: &str, ty: &Ty, layout: Layout) {
        let scope = |suffix: &str| format!("{fp}.{suffix}");
        if f.length.is_some()
            && !matches!(
                ty,
                Ty::Bytes(_) | Ty::Str(..) | Ty::Struct(..) | Ty::Union(_) | Ty::Array(..)
            )
        {
            self.r.error(
                Code::E0304,
                &scope("length"),
                "'length' applies to bytes, string, struct, switch and array fields",
                None,
            );
        }
        // In a bit stream, an array sized in bytes holds elements of whole bytes (their count
        // is then its size over theirs; PDL's arrays with a size field at a bit offset).
        let whole_bytes = |e: &Ty| match e {
            Ty::Int(it) => it.bits % 8 == 0,
            Ty::Float { .. } => true,
            _ => false,
        };
        let bits_ok = matches!(ty, Ty::Array(e, _) if whole_bytes(e)) && layout != Layout::Bytes;
        if matches!(ty, Ty::Array(_, Len::Bytes(_)))
            && ((layout != Layout::Bytes && !bits_ok) || f.packed)
        {
            self.r.error(Code::E0305,
                &scope("length"),
                if f.packed {
                    "an array sized in bytes ('length') cannot be packed"
                } else {
                    "in a bit stream, an array sized in bytes ('length') holds integers or floats of whole bytes"
                },
                Some("give the element count instead ('count')".into()),
            );
        }
        let var_prefixed = match ty {
            Ty::Bytes(l) | Ty::Str(l, _) | Ty::Array(_, l) => Some(l),
            Ty::Struct(_, Some(l)) => Some(l),
            Ty::Union(u) => Some(&u.len),
            _ => None,
        }
        .is_some_and(|l| matches!(l, Len::VarPrefix(_)));
        if var_prefixed && layout != Layout::Bytes {
            self.r.error(
                Code::E0306,
                &scope("prefix"),
                "a varint prefix in a bit-stream layout",
                Some("use an integer prefix ('prefix: u8') in bit streams".into()),
            );
        }
        if f.encoding.is_some() && !matches!(ty, Ty::Str(..)) {
            self.r.error(
                Code::E0307,
                &scope("encoding"),
                "'encoding' applies to 'string' and 'strz' fields",
                None,
            );
        }
        if f.count.is_some() && !matches!(ty, Ty::Array(..)) {
            self.r.error(
                Code::E0308,
                &scope("count"),
                "'count' applies to array fields ('T[]')",
                None,
            );
        }
        if f.element.is_some() && !matches!(ty, Ty::Array(..)) {
            self.r.error(
                Code::E0309,
                &scope("element"),
                "'element' frames the elements of an array of structs ('T[]')",
                None,
            );
        }
    }

    /// What the encoder does with the field: a value, a constant (with its hex spelling), a
    /// checksum (its range resolved later) or a reserved zero.
    fn field_role(
        &mut self,
        f: &schema::FieldDef,
        fp: &str,
        ty: &Ty,
        layout: Layout,
    ) -> (Role, Option<String>) {
        let scope = |suffix: &str| format!("{fp}.{suffix}");
        let mut role = Role::Value;
        let mut const_text = None;
        if let Some(c) = &f.constant {
            if let Some(c) = self.constant(c, ty, &scope("const")) {
                role = Role::Const(c);
                // Written in hex (`0xD1CE`) or negative (`-1`): the outputs write it so.
                const_text = match f.constant {
                    Some(schema::ConstDef::Negative(v)) => Some(v.to_string()),
                    _ => self.hex_text(&scope("const"), c),
                };
            }
        }
        if let Some(def) = &f.checksum {
            if let Some(algo) = self.checksum_algo(def, &scope("checksum")) {
                let width = algo.width();
                match ty {
                    // Its range is resolved once every field of the struct is known.
                    Ty::Int(it) if it.bits == width && !it.signed => {
                        role = Role::Checksum(Checksum {
                            algo,
                            from: None,
                            to: None,
                        })
                    }
                    _ => self.r.error(
                        Code::E0310,
                        &scope("type"),
                        format!("the {} checksum is stored in a u{width} field", algo.name()),
                        Some(format!("type: u{width}")),
                    ),
                }
            }
        }
        if f.reserved {
            let fixed_bytes = matches!(ty, Ty::Bytes(Len::Expr(Expr::Int(_, _))));
            if role != Role::Value {
                self.r.error(Code::E0311,
                    &scope("reserved"),
                    "a reserved field is written as zero: it cannot also be a constant or a checksum",
                    None,
                );
            } else if matches!(ty, Ty::Int(_)) || (fixed_bytes && layout == Layout::Bytes) {
                role = Role::Reserved;
            } else {
                self.r.error(
                    Code::E0312,
                    &scope("reserved"),
                    "reserved fields are integers, or bytes of a constant length in byte layouts",
                    Some("e.g. 'type: u16' or 'type: bytes' with 'length: 3'".into()),
                );
            }
        }
        (role, const_text)
    }

    /// `max` on an integer that can hold it; `optional` (not supported yet).
    fn check_max(&mut self, f: &schema::FieldDef, fp: &str, ty: &Ty) {
        let scope = |suffix: &str| format!("{fp}.{suffix}");
        if let Some(m) = f.max {
            if !matches!(ty, Ty::Int(_) | Ty::VarInt(_)) {
                self.r.error(
                    Code::E0314,
                    &scope("max"),
                    "'max' applies to integer fields",
                    None,
                );
            }
            if let Ty::Int(it) = ty {
                if m > it.max_value() {
                    self.r.error(
                        Code::E0315,
                        &scope("max"),
                        format!("max {m} does not fit in {} bits", it.bits),
                        None,
                    );
                }
            }
        }
        if f.optional {
            self.r.error(
                Code::E0316,
                &scope("optional"),
                "presence-bit optional fields are not supported yet",
                Some("use 'if' with an explicit flag field".into()),
            );
        }
    }

    /// The field's `warn:` conditions (they see the earlier fields and this one) and messages.
    fn warnings(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
    ) -> Vec<(Expr, String)> {
        f.warn
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
            .collect()
    }

    /// `packed` on a bool array in a byte layout.
    fn check_packed(&mut self, f: &schema::FieldDef, fp: &str, ty: &Ty, layout: Layout) {
        let scope = |suffix: &str| format!("{fp}.{suffix}");
        if f.packed
            && (layout != Layout::Bytes
                || !matches!(ty, Ty::Array(e, _) if matches!(**e, Ty::Bool)))
        {
            self.r.error(
                Code::E0317,
                &scope("packed"),
                "'packed' applies to bool[] in byte layouts",
                Some("in bit streams every bool is one bit already".into()),
            );
        }
    }

    /// The state tables the field's value is typed by (`state:`), with their keys.
    fn state_select(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
    ) -> Vec<(usize, Expr)> {
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
                    self.r.error_key(
                        Code::E0319,
                        &sp,
                        format!("unknown state table '{table}'"),
                        hint,
                    );
                }
            }
        }
        select
    }

    /// A type's or field's `pad` and `align`: sizes of at least one byte, in byte layouts.
    pub(crate) fn padding(
        &mut self,
        at: &str,
        pad: Option<u64>,
        align: Option<u64>,
        layout: Layout,
    ) -> Padding {
        let mut out = Padding::default();
        for (key, v, slot) in [("pad", pad, &mut out.pad), ("align", align, &mut out.align)] {
            let Some(v) = v else { continue };
            if layout != Layout::Bytes {
                self.r.error(
                    Code::E0341,
                    &format!("{at}.{key}"),
                    format!("'{key}' in a bit-stream layout"),
                    Some("padding and alignment are whole bytes: use them in byte layouts".into()),
                );
            } else if v == 0 || v > u32::MAX as u64 {
                self.r.error(
                    Code::E0342,
                    &format!("{at}.{key}"),
                    format!("'{key}: {v}'"),
                    Some("a size of 1 or more bytes".into()),
                );
            } else {
                *slot = Some(v as usize);
            }
        }
        out
    }

    pub(crate) fn info(&mut self, yp: &str, info: Option<&str>, fields: &[Field]) -> Vec<InfoPart> {
        let Some(text) = info else { return Vec::new() };
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(InfoPart::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                self.r.error(
                    Code::E0343,
                    &format!("{yp}.info"),
                    "unclosed '{' in info",
                    None,
                );
                return parts;
            };
            let name = &rest[open + 1..open + close];
            match fields.iter().position(|f| f.name == name) {
                Some(i) => parts.push(InfoPart::Field(i)),
                None => {
                    let hint = did_you_mean(name, fields.iter().map(|f| f.name.as_str()));
                    self.r.error(
                        Code::E0344,
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
}
