//! Pass: fields. Each field's type, length or count, condition, role; derived fields; Info templates.

use super::*;
use indexmap::IndexMap;

pub(crate) fn clone_field(f: &schema::FieldDef) -> schema::FieldDef {
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
    }
}

pub(crate) fn runs_to_end(ty: &Ty) -> bool {
    match ty {
        Ty::Bytes(Len::Rest) | Ty::Str(Len::Rest, _) | Ty::Array(_, Len::Rest) | Ty::Bits => true,
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

impl<'f> Validator<'f> {
    pub(crate) fn field(
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
                        e.message,
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
                Ty::Bytes(_) | Ty::Str(..) | Ty::Struct(..) | Ty::Union(_)
            )
        {
            self.error(
                &scope("length"),
                "'length' applies to bytes, string, struct and switch fields",
                Some("use 'count' for arrays".into()),
            );
        }
        let var_prefixed = match &ty {
            Ty::Bytes(l) | Ty::Str(l, _) | Ty::Array(_, l) => Some(l),
            Ty::Struct(_, Some(l)) => Some(l),
            Ty::Union(u) => Some(&u.len),
            _ => None,
        }
        .is_some_and(|l| matches!(l, Len::VarPrefix(_)));
        if var_prefixed {
            if layout != Layout::Bytes {
                self.error(
                    &scope("prefix"),
                    "a varint prefix in a bit-stream layout",
                    Some("use an integer prefix ('prefix: u8') in bit streams".into()),
                );
            } else if matches!(ty, Ty::Struct(..) | Ty::Union(_)) {
                self.error(
                    &scope("prefix"),
                    "a varint prefix of a struct or switch is not generated yet",
                    Some(
                        "give it a length field ('length: size'), which the encoder derives".into(),
                    ),
                );
            }
        }
        if f.encoding.is_some() && !matches!(ty, Ty::Str(..)) {
            self.error(
                &scope("encoding"),
                "'encoding' applies to 'string' and 'strz' fields",
                None,
            );
        }
        if f.count.is_some() && !matches!(ty, Ty::Array(..)) {
            self.error(
                &scope("count"),
                "'count' applies to array fields ('T[]')",
                None,
            );
        }

        if let Some(c) = &f.constant {
            if let Some(c) = self.constant(c, &ty, &scope("const")) {
                role = Role::Const(c);
            }
        }
        if let Some(def) = &f.checksum {
            if let Some(algo) = self.checksum_algo(def, &scope("checksum")) {
                let width = algo.width();
                match &ty {
                    // Its range is resolved once every field of the struct is known.
                    Ty::Int(it) if it.bits == width && !it.signed => {
                        role = Role::Checksum(Checksum {
                            algo,
                            from: None,
                            to: None,
                        })
                    }
                    _ => self.error(
                        &scope("type"),
                        format!("the {} checksum is stored in a u{width} field", algo.name()),
                        Some(format!("type: u{width}")),
                    ),
                }
            }
        }
        if f.reserved {
            let fixed_bytes = matches!(&ty, Ty::Bytes(Len::Expr(Expr::Int(_))));
            if role != Role::Value {
                self.error(
                    &scope("reserved"),
                    "a reserved field is written as zero: it cannot also be a constant or a checksum",
                    None,
                );
            } else if matches!(ty, Ty::Int(_)) || (fixed_bytes && layout == Layout::Bytes) {
                role = Role::Reserved;
            } else {
                self.error(
                    &scope("reserved"),
                    "reserved fields are integers, or bytes of a constant length in byte layouts",
                    Some("e.g. 'type: u16' or 'type: bytes' with 'length: 3'".into()),
                );
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
                "constants, checksums and reserved fields cannot be conditional",
                None,
            );
        }
        let valid = f.valid.as_ref().and_then(|v| {
            if !matches!(ty, Ty::Int(_) | Ty::VarInt(_)) {
                self.error(&scope("valid"), "'valid' applies to integer fields", None);
                return None;
            }
            Some(match v {
                schema::ValidDef::List(l) if l.is_empty() => {
                    self.error(
                        &scope("valid"),
                        "an empty list of valid values",
                        Some("list the values the field may hold".into()),
                    );
                    return None;
                }
                schema::ValidDef::List(l) => Valid::List(l.clone()),
                schema::ValidDef::Range {
                    min: Some(lo),
                    max: Some(hi),
                } if lo > hi => {
                    self.error(&scope("valid"), format!("min {lo} is above max {hi}"), None);
                    return None;
                }
                schema::ValidDef::Range {
                    min: None,
                    max: None,
                } => {
                    self.error(
                        &scope("valid"),
                        "'valid' needs a 'min', a 'max' or a list",
                        None,
                    );
                    return None;
                }
                schema::ValidDef::Range { min, max } => Valid::Range {
                    min: *min,
                    max: *max,
                },
            })
        });
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
        let padding = self.padding(fp, f.pad, f.align, layout);
        if padding.any() && f.condition.is_some() {
            self.error(
                &scope("if"),
                "a padded or aligned field cannot be conditional",
                Some("put the field and its padding in a type of their own".into()),
            );
        }
        let (implied, set_when_warnings) = self.set_when(sid, index, f, fp, &ty);
        let mut warnings: Vec<(Expr, String)> = warnings;
        warnings.extend(set_when_warnings);
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
            valid,
            warnings,
            select,
            packed: f.packed,
            padding,
            implied,
        }
    }

    /// A field's `const`: an integer that fits its integer or enum type, or (on an enum field)
    /// the name of one of its values.
    fn constant(&mut self, c: &schema::ConstDef, ty: &Ty, at: &str) -> Option<u64> {
        let (bits, max, en) = match ty {
            Ty::Int(it) => (it.bits, it.max_value(), None),
            Ty::Enum(id) => {
                let (name, def) = self.file.enums.get_index(*id).unwrap();
                let repr = expr::parse_type(&def.repr).ok().and_then(|t| match t {
                    TypeExpr::Int { bits, .. } => Some(bits),
                    _ => None,
                });
                let bits = repr.unwrap_or(64);
                let max = if bits >= 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                };
                (bits, max, Some((name.clone(), def)))
            }
            _ => {
                self.error(at, "only integer and enum fields can be constants", None);
                return None;
            }
        };
        match (c, en) {
            (schema::ConstDef::Int(v), _) if *v <= max => Some(*v),
            (schema::ConstDef::Int(v), _) => {
                self.error(
                    at,
                    format!("constant {v:#x} does not fit in {bits} bits"),
                    None,
                );
                None
            }
            (schema::ConstDef::Name(n), Some((en, def))) => {
                let bare = n.strip_prefix(&format!("{en}.")).unwrap_or(n);
                match def.values.get(bare) {
                    Some(v) if v.is_range() => {
                        self.error(
                            at,
                            format!("'{bare}' names a range of values of '{en}', not one value"),
                            Some("give the value's number".into()),
                        );
                        None
                    }
                    Some(v) => Some(v.value()),
                    None => {
                        let hint = did_you_mean(bare, def.values.keys().map(String::as_str));
                        self.error(at, format!("'{bare}' is not a value of enum '{en}'"), hint);
                        None
                    }
                }
            }
            (schema::ConstDef::Name(n), None) => {
                self.error(
                    at,
                    format!("constant '{n}' is a name, but the field is an integer"),
                    Some("write the number".into()),
                );
                None
            }
        }
    }

    /// A flag-set field's `set_when`: the bits the encoder sets exactly when their condition
    /// (over earlier fields) holds, and the dissector's warnings for packets that disagree.
    fn set_when(
        &mut self,
        sid: StructId,
        index: usize,
        f: &schema::FieldDef,
        fp: &str,
        ty: &Ty,
    ) -> (Vec<Implied>, Vec<(Expr, String)>) {
        let (mut implied, mut warnings) = (Vec::new(), Vec::new());
        if f.set_when.is_empty() {
            return (implied, warnings);
        }
        let Ty::Flags(fid) = ty else {
            self.error(
                &format!("{fp}.set_when"),
                "'set_when' applies to fields of a flag-set type",
                Some("a bool or integer given by other fields is written by the encoder from an 'if' or a length".into()),
            );
            return (implied, warnings);
        };
        if f.condition.is_some() {
            self.error(
                &format!("{fp}.set_when"),
                "a field with 'set_when' cannot be conditional",
                None,
            );
        }
        let (fl_name, fl) = self.file.flags.get_index(*fid).unwrap();
        let fl_name = fl_name.clone();
        let bits: IndexMap<String, u64> = fl
            .bits
            .iter()
            .map(|(k, v)| (k.clone(), v.value()))
            .collect();
        for (bit, cond) in &f.set_when {
            let bp = format!("{fp}.set_when.{bit}");
            let Some(mask) = bits.get(bit).copied() else {
                let hint = did_you_mean(bit, bits.keys().map(String::as_str));
                self.error_key(&bp, format!("'{bit}' is not a flag of '{fl_name}'"), hint);
                continue;
            };
            let s = Scope {
                struct_id: sid,
                visible: index,
                yaml_path: &bp,
            };
            let e = self.expr_of(&s, cond, ExprTy::Bool);
            let own = Expr::FlagBit(
                vec![FieldRef {
                    struct_id: sid,
                    field: index,
                    name: f.name.clone(),
                }],
                mask,
            );
            warnings.push((
                Expr::Binary(BinOp::Ne, Box::new(own), Box::new(e.clone())),
                format!("{bit} should be set exactly when {cond}"),
            ));
            implied.push(Implied {
                value: ImpliedValue::Bit(mask),
                when: ImpliedWhen::Holds(e, cond.clone()),
            });
        }
        (implied, warnings)
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
                self.error(
                    &format!("{at}.{key}"),
                    format!("'{key}' in a bit-stream layout"),
                    Some("padding and alignment are whole bytes: use them in byte layouts".into()),
                );
            } else if v == 0 || v > u32::MAX as u64 {
                self.error(
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

    /// Byte length of a bytes/string/struct/union field: prefix, expression, or the rest.
    pub(crate) fn len_of(
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
            return self.prefix(p, fp, endian);
        }
        match &f.length {
            Some(l) => self.len_expr(sid, index, l, &format!("{fp}.length")),
            None if rest_ok => Len::Rest,
            None => Len::Rest,
        }
    }

    /// A length or count prefix: an integer type, or a varint (`leb128`, `riptide_len`).
    fn prefix(&mut self, p: &str, fp: &str, endian: Endian) -> Len {
        match p {
            "leb128" => Len::VarPrefix(VarInt::Leb128),
            "riptide_len" => Len::VarPrefix(VarInt::RiptideLen),
            _ => self
                .int_ty(p, &format!("{fp}.prefix"), endian)
                .map(Len::Prefix)
                .unwrap_or(Len::Rest),
        }
    }

    pub(crate) fn count_of(
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
            return self.prefix(p, fp, endian);
        }
        match &f.count {
            Some(c) => self.len_expr(sid, index, c, &format!("{fp}.count")),
            None => Len::Rest,
        }
    }

    pub(crate) fn len_expr(&mut self, sid: StructId, index: usize, l: &ExprOrInt, yp: &str) -> Len {
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

    /// Marks the fields the encoder fills: lengths, counts and tags named by a bare reference.
    pub(crate) fn derive(&mut self, sname: &str, yp: &str, fields: &mut [Field]) {
        let mut derived: Vec<(usize, Derive, usize)> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            // A length or count that is a linear function of one field (`size - 2`) derives it.
            match &f.ty {
                Ty::Bytes(Len::Expr(e))
                | Ty::Str(Len::Expr(e), _)
                | Ty::Struct(_, Some(Len::Expr(e))) => {
                    if let Some((r, l)) = e.linear_field() {
                        derived.push((r, Derive::LengthOf(i, l), i));
                    }
                }
                Ty::Array(_, Len::Expr(e)) => {
                    if let Some((r, l)) = e.linear_field() {
                        derived.push((r, Derive::CountOf(i, l), i));
                    }
                }
                Ty::Union(u) => {
                    if let Some((r, l)) = match &u.len {
                        Len::Expr(e) => e.linear_field(),
                        _ => None,
                    } {
                        derived.push((r, Derive::LengthOf(i, l), i));
                    }
                    if let Some(r) = u.on.local_field() {
                        derived.push((r, Derive::TagOf(i), i));
                    }
                }
                _ => {}
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
        self.imply_presence(sname, yp, fields, &mut derived);
        for (target, how, by) in derived {
            let t = &fields[target];
            let fp = format!("{yp}.fields.{target}");
            let fits = match how {
                Derive::PresenceOf(_) | Derive::AbsenceOf(_) => matches!(t.ty, Ty::Bool),
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
                        Derive::LengthOf(j, _)
                        | Derive::CountOf(j, _)
                        | Derive::TagOf(j)
                        | Derive::PresenceOf(j)
                        | Derive::AbsenceOf(j) => *j,
                    };
                    let name = fields[target].name.clone();
                    let (a, b) = (fields[prev_by].name.clone(), fields[by].name.clone());
                    self.error(&fp, format!("field '{name}' of '{sname}' would be derived from both '{a}' and '{b}'"), Some("give one of them its own length field".into()));
                }
                _ => {}
            }
        }
    }

    /// Presence announced by something else than a bare bool, which the encoder sets from the
    /// Option: a bool meaning "absent" (`!no_x`, derived like a presence bit), a flag bit
    /// (`flags.HAS_X`, `!flags.NO_X`) or a value (`kind == Kind.EXT`, `kind != Kind.NONE`) of a
    /// field the user otherwise sets.
    fn imply_presence(
        &mut self,
        sname: &str,
        yp: &str,
        fields: &mut [Field],
        derived: &mut Vec<(usize, Derive, usize)>,
    ) {
        let settable = |f: &Field| f.role == Role::Value && f.condition.is_none();
        let mut implied: Vec<(usize, Implied)> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let Some(c) = &f.condition else { continue };
            let (c, absent) = match c {
                Expr::Not(x) => (x.as_ref(), true),
                c => (c, false),
            };
            let when = if absent {
                ImpliedWhen::Absent(i)
            } else {
                ImpliedWhen::Present(i)
            };
            match c {
                Expr::Field(p) if absent && p.len() == 1 => {
                    let r = p[0].field;
                    let guards = fields
                        .iter()
                        .filter(|g| g.condition.as_ref() == f.condition.as_ref())
                        .count();
                    if guards == 1 && matches!(fields[r].ty, Ty::Bool) && settable(&fields[r]) {
                        derived.push((r, Derive::AbsenceOf(i), i));
                    }
                }
                Expr::FlagBit(p, m) if p.len() == 1 && settable(&fields[p[0].field]) => {
                    implied.push((
                        p[0].field,
                        Implied {
                            value: ImpliedValue::Bit(*m),
                            when,
                        },
                    ));
                }
                Expr::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) if !absent => {
                    let (p, v) = match (a.as_ref(), b.as_ref()) {
                        (Expr::Field(p), Expr::Int(v)) | (Expr::Int(v), Expr::Field(p)) => (p, *v),
                        _ => continue,
                    };
                    let r = p[0].field;
                    let fits = match &fields[r].ty {
                        Ty::Int(it) => v <= it.max_value() && !it.signed,
                        // A named value (an unnamed one may not fit the enum's width).
                        Ty::Enum(id) => self.file.enums[*id]
                            .values
                            .values()
                            .any(|n| !n.is_range() && n.value() == v),
                        _ => false,
                    };
                    if p.len() == 1 && fits && settable(&fields[r]) {
                        let when = match op {
                            BinOp::Eq => ImpliedWhen::Present(i),
                            _ => ImpliedWhen::Absent(i),
                        };
                        implied.push((
                            r,
                            Implied {
                                value: ImpliedValue::Equals(v),
                                when,
                            },
                        ));
                    }
                }
                _ => {}
            }
        }
        for (r, imp) in implied {
            // A bit that `set_when` already gives cannot also follow an optional field.
            let given = fields[r]
                .implied
                .iter()
                .find(|x| x.value == imp.value && matches!(x.when, ImpliedWhen::Holds(..)));
            if let (Some(_), ImpliedWhen::Present(i) | ImpliedWhen::Absent(i)) = (given, &imp.when)
            {
                let (flags, by) = (fields[r].name.clone(), fields[*i].name.clone());
                self.error(
                    &format!("{yp}.fields.{i}.if"),
                    format!("'{by}' of '{sname}' is announced by a bit of '{flags}' that its 'set_when' already gives"),
                    Some("remove the bit from 'set_when' or give the field its own flag".into()),
                );
                continue;
            }
            fields[r].implied.push(imp);
        }
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

    /// The algorithm a field's `checksum:` names or describes, or `None` after reporting why not.
    fn checksum_algo(&mut self, def: &schema::ChecksumDef, at: &str) -> Option<ChecksumAlgo> {
        let (name, crc) = match def {
            schema::ChecksumDef::Named(name) => (Some(name), None),
            schema::ChecksumDef::Full(spec) => (spec.algorithm.as_ref(), spec.crc.as_ref()),
        };
        let full = matches!(def, schema::ChecksumDef::Full(_));
        match (name, crc) {
            (Some(name), None) => {
                let found = ChecksumAlgo::named(name);
                if found.is_none() {
                    let names = ChecksumAlgo::names();
                    let hint = did_you_mean(name, names.clone()).or_else(|| {
                        Some(format!(
                            "known: {}; or give a CRC's parameters: {{ crc: {{ width, poly, init, refin, refout, xorout }} }}",
                            names.collect::<Vec<_>>().join(", ")
                        ))
                    });
                    let at = if full {
                        format!("{at}.algorithm")
                    } else {
                        at.to_string()
                    };
                    self.error(&at, format!("unknown checksum algorithm '{name}'"), hint);
                }
                found
            }
            (Some(_), Some(_)) | (None, None) => {
                self.error(
                    at,
                    "a checksum names its 'algorithm' or gives a 'crc', one of the two",
                    Some("e.g. { algorithm: internet, from: header } or { crc: { width: 16, poly: 0x1021 } }".into()),
                );
                None
            }
            (None, Some(crc)) => self.crc_algo(crc, at).map(ChecksumAlgo::Crc),
        }
    }

    /// The CRC of a schema's parameters, or `None` after reporting why not.
    fn crc_algo(&mut self, crc: &schema::CrcDef, at: &str) -> Option<CrcAlgo> {
        {
            {
                let w = crc.width;
                if !(5..=64).contains(&w) {
                    self.error(
                        &format!("{at}.crc.width"),
                        format!("a CRC of {w} bits"),
                        Some("CRCs of 5 to 64 bits are generated".into()),
                    );
                    return None;
                }
                let max = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                let mut ok = true;
                for (key, v) in [
                    ("poly", crc.poly),
                    ("init", crc.init),
                    ("xorout", crc.xorout),
                ] {
                    if v > max {
                        self.error(
                            &format!("{at}.crc.{key}"),
                            format!("{key} {v:#x} does not fit in the CRC's {w} bits"),
                            None,
                        );
                        ok = false;
                    }
                }
                if crc.poly & 1 == 0 {
                    self.error(
                        &format!("{at}.crc.poly"),
                        format!("poly {:#x} is even", crc.poly),
                        Some("give the polynomial in normal form without its top bit, e.g. 0x04c11db7 for CRC-32".into()),
                    );
                    ok = false;
                }
                ok.then_some(CrcAlgo {
                    width: w,
                    poly: crc.poly,
                    init: crc.init,
                    refin: crc.refin,
                    refout: crc.refout.unwrap_or(crc.refin),
                    xorout: crc.xorout,
                })
            }
        }
    }

    /// Resolves each checksum's `from`/`to` to field indices; refuses a range that ends before
    /// it starts and two checksums that cover each other (neither could be computed first).
    pub(crate) fn checksum_ranges(
        &mut self,
        yp: &str,
        t: &schema::TypeDef,
        seen: &HashMap<&str, usize>,
        fields: &mut [Field],
    ) {
        // A range already refused is not also reported as covering another.
        let mut refused = false;
        for (i, f) in t.fields.iter().enumerate() {
            let Some(schema::ChecksumDef::Full(spec)) = &f.checksum else {
                continue;
            };
            let at = format!("{yp}.fields.{i}.checksum");
            let mut find = |key: &str, name: &Option<String>| {
                let name = name.as_ref()?;
                let found = seen.get(name.as_str()).copied();
                if found.is_none() {
                    let hint = did_you_mean(name, t.fields.iter().map(|f| f.name.as_str()));
                    self.error(
                        &format!("{at}.{key}"),
                        format!(
                            "the checksum covers field '{name}', which this type does not have"
                        ),
                        hint,
                    );
                }
                found
            };
            let (from, to) = (find("from", &spec.from), find("to", &spec.to));
            refused |= from.is_none() != spec.from.is_none() || to.is_none() != spec.to.is_none();
            if let (Some(a), Some(b)) = (from, to) {
                if a > b {
                    self.error(
                        &format!("{at}.to"),
                        format!(
                            "the checksum's range ends at '{}', before it starts at '{}'",
                            t.fields[b].name, t.fields[a].name
                        ),
                        Some("'from' names the first field covered and 'to' the last".into()),
                    );
                    refused = true;
                    continue;
                }
            }
            if let Role::Checksum(c) = &mut fields[i].role {
                c.from = from;
                c.to = to;
            }
        }
        if refused {
            return;
        }
        if let Err(cycle) = crate::ir::analysis::checksum_order(fields) {
            let names: Vec<&str> = cycle.iter().map(|&i| fields[i].name.as_str()).collect();
            self.error(
                &format!("{yp}.fields.{}.checksum", cycle[0]),
                format!(
                    "checksums {} cover each other: none can be computed first",
                    names.join(", ")
                ),
                Some("end one checksum's range before the other's field ('from'/'to')".into()),
            );
        }
    }
}
