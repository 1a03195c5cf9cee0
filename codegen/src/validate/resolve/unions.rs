//! Pass: unions. Switches, their tags and cases (no overlaps, keys of the tag's type).

use super::*;

pub(crate) fn overlaps(a: CaseValue, b: CaseValue) -> bool {
    let r = |v| match v {
        CaseValue::One(x) => (x, x),
        CaseValue::Range(l, h) => (l, h),
    };
    let ((al, ah), (bl, bh)) = (r(a), r(b));
    al <= bh && bl <= ah
}

impl<'f> Resolver<'f> {
    pub(crate) fn union(
        &mut self,
        sid: StructId,
        index: usize,
        sw: &schema::SwitchDef,
        sp: &str,
        len: Len,
    ) -> Union {
        let scope = Scope {
            struct_id: sid,
            visible: index,
            yaml_path: &format!("{sp}.on"),
        };
        self.in_tag = true;
        let before = self.r.diags.len();
        // A bool field is a tag of two values: cases 'true' and 'false'.
        let tag_bool = self.shapes[sid][..index]
            .iter()
            .any(|(n, shape)| *n == sw.on.trim() && matches!(shape, Shape::Bool));
        let on = self.expr_of(
            &scope,
            &sw.on,
            if tag_bool { ExprTy::Bool } else { ExprTy::Int },
        );
        let on_failed = self.r.diags.len() > before;
        self.in_tag = false;
        // Case keys may name values of the tag's enum; a tag whose type is already reported
        // as unknown has keys that cannot be checked.
        let (tag_enum, tag_unknown) = self.tag_kind(&on, on_failed);
        if sw.tag_bits.is_some() {
            self.r.error(
                Code::E0401,
                &format!("{sp}.tag_bits"),
                "unions that write their own tag bits are not supported yet",
                None,
            );
        }
        // `cases_from: Type.field` borrows another switch's cases and default.
        let own = sw;
        let sw = self.cases_source(sw, sp);
        let tag_max = self.tag_max(&on);
        let mut cases: Vec<Case> = Vec::new();
        for (key, case) in &sw.cases {
            let (body, name, doc) = match case {
                schema::CaseDef::Type(t) => (t, None, None),
                schema::CaseDef::Named { ty, name, doc } => (ty, name.clone(), doc.clone()),
            };
            let cp = format!("{sp}.cases.{key}");
            let (values, variant) = if tag_unknown {
                (vec![], key.to_upper_camel_case())
            } else if tag_bool {
                self.bool_case_key(key, &cp)
            } else {
                self.case_key(key, tag_enum, &cp)
            };
            let body = self.case_body(body, &cp);
            let variant = match (name, body) {
                (Some(n), _) => self.named_variant(n, &cp),
                (None, CaseBody::Struct(id)) if tag_enum.is_none() => {
                    self.file.types.get_index(id).unwrap().0.clone()
                }
                (None, _) => variant,
            };
            self.check_case(&cp, key, &variant, &values, &cases, &tag_max);
            cases.push(Case {
                variant,
                values,
                body,
                doc,
            });
        }
        let (default, default_variant) = self.default_case(sw, sp);
        if cases.iter().any(|c| c.variant == default_variant) && default.is_some() {
            self.r.error(
                Code::E0410,
                &format!("{sp}.default"),
                format!("the default variant's name '{default_variant}' is taken by a case"),
                None,
            );
        }
        let unless = own.unless.as_ref().map(|u| {
            let scope = Scope {
                struct_id: sid,
                visible: index,
                yaml_path: &format!("{sp}.unless"),
            };
            self.expr_of(&scope, u, ExprTy::Bool)
        });
        if unless.is_some() && default.is_none() {
            self.r.error(
                Code::E0411,
                &format!("{sp}.unless"),
                "'unless' chooses the default variant; this switch has none",
                Some("add a 'default'".into()),
            );
        }
        let shares = self.shares(own, default.is_none(), &cases);
        Union {
            on,
            len,
            cases,
            default,
            default_variant,
            unless,
            shares,
        }
    }

    /// The values and variant of a case of a bool tag: `true` or `false`.
    fn bool_case_key(&mut self, key: &str, cp: &str) -> (Vec<CaseValue>, String) {
        match key {
            "true" => (vec![CaseValue::One(1)], "True".to_string()),
            "false" => (vec![CaseValue::One(0)], "False".to_string()),
            _ => {
                self.r.error_key(
                    Code::E0404,
                    cp,
                    format!("case key '{key}' of a bool tag"),
                    Some("a bool tag's cases are \"true\" and \"false\"".into()),
                );
                (vec![], key.to_upper_camel_case())
            }
        }
    }

    /// A case's variant as its `name:` gives it (UpperCamelCase, or an error at `cp.name`).
    fn named_variant(&mut self, n: String, cp: &str) -> String {
        if !is_camel_ident(&n) {
            self.r.error(
                Code::E0405,
                &format!("{cp}.name"),
                format!("variant name '{n}' is not UpperCamelCase"),
                None,
            );
        }
        n
    }

    /// The switch a `cases_from` switch shares its enum with: the one it names, when the
    /// variants are alike (each case of one value, no default).
    fn shares(
        &self,
        own: &schema::SwitchDef,
        no_default: bool,
        cases: &[Case],
    ) -> Option<(StructId, usize)> {
        let alike = no_default && cases.iter().all(|c| c.single().is_some());
        own.cases_from
            .as_ref()
            .filter(|_| alike)
            .and_then(|from| self.switch_at(from))
    }

    /// The (struct, field) a `Type.field` names.
    fn switch_at(&self, path: &str) -> Option<(StructId, usize)> {
        let (t, f) = path.split_once('.')?;
        let sid = *self.struct_ids.get(t)?;
        let fi = self
            .shapes
            .get(sid)?
            .iter()
            .position(|(name, _)| name == f)?;
        Some((sid, fi))
    }

    /// The enum a switch's tag is (its case keys may name its values), and whether its type is
    /// unknown (reported already: its case keys cannot be checked).
    fn tag_kind(&self, on: &Expr, on_failed: bool) -> (Option<usize>, bool) {
        let tag_shape = match on {
            Expr::Field(path) => Some(
                self.shapes[path.last().unwrap().struct_id][path.last().unwrap().field]
                    .1
                    .clone(),
            ),
            Expr::Item(t, _) => self
                .tables
                .values()
                .find(|(i, _)| i == t)
                .map(|(_, e)| e.map_or(Shape::Unknown, Shape::Enum)),
            _ => None,
        };
        let tag_enum = match tag_shape {
            Some(Shape::Enum(e)) => Some(e),
            _ => None,
        };
        let tag_unknown = on_failed || matches!(tag_shape, Some(Shape::Unknown));
        (tag_enum, tag_unknown)
    }

    /// The switch whose cases and default this one has: its own, or those `cases_from` names
    /// (E0402 both, E0403 not a switch with cases of its own).
    fn cases_source<'s>(&mut self, sw: &'s schema::SwitchDef, sp: &str) -> &'s schema::SwitchDef
    where
        'f: 's,
    {
        let mut sw = sw;
        if let Some(from) = &sw.cases_from {
            let found = from.split_once('.').and_then(|(t, f)| {
                self.file
                    .types
                    .get(t)?
                    .fields
                    .iter()
                    .find(|x| x.name == f)?
                    .switch
                    .as_ref()
            });
            match found {
                Some(other) if other.cases_from.is_none() => {
                    if !sw.cases.is_empty() || sw.default.is_some() {
                        self.r.error(
                            Code::E0402,
                            &format!("{sp}.cases_from"),
                            "a switch has either 'cases' or 'cases_from'",
                            None,
                        );
                    }
                    sw = other;
                }
                _ => self.r.error(
                    Code::E0403,
                    &format!("{sp}.cases_from"),
                    format!("'{from}' does not name a switch field with its own cases"),
                    Some("write 'Type.field', e.g. 'TypedValue.value'".into()),
                ),
            }
        }
        sw
    }

    /// A case's variant and values against the cases before it and the tag's width: E0406 a
    /// variant twice, E0407 a value the tag cannot hold, E0408 overlapping values.
    fn check_case(
        &mut self,
        cp: &str,
        key: &str,
        variant: &str,
        values: &[CaseValue],
        cases: &[Case],
        tag_max: &Option<(u64, String)>,
    ) {
        if cases.iter().any(|c| c.variant == variant) {
            self.r.error_key(
                Code::E0406,
                cp,
                format!("two cases make a variant named '{variant}'"),
                None,
            );
        }
        if let Some((max, ty)) = tag_max {
            let top = values.iter().map(|v| match v {
                CaseValue::One(x) | CaseValue::Range(_, x) => *x,
            });
            if let Some(big) = top.filter(|x| x > max).max() {
                self.r.error_key(
                    Code::E0407,
                    cp,
                    format!(
                        "case '{key}' ({big}) can never match: the tag is a {ty}, at most {max}"
                    ),
                    Some("remove the case, or give the tag a wider type".into()),
                );
            }
        }
        for v in values {
            for c in cases {
                if c.values.iter().any(|w| overlaps(*v, *w)) {
                    self.r.error_key(
                        Code::E0408,
                        cp,
                        format!("case '{key}' overlaps case '{}'", c.variant),
                        None,
                    );
                }
            }
        }
    }

    /// The default case's body and variant name (`Other` unless named; E0409 not UpperCamelCase).
    fn default_case(&mut self, sw: &schema::SwitchDef, sp: &str) -> (Option<CaseBody>, String) {
        match &sw.default {
            None => (None, "Other".to_string()),
            Some(schema::CaseDef::Type(t)) => (
                Some(self.case_body(t, &format!("{sp}.default"))),
                "Other".to_string(),
            ),
            Some(schema::CaseDef::Named { ty, name, .. }) => {
                let name = name.clone().unwrap_or_else(|| "Other".into());
                if !is_camel_ident(&name) {
                    self.r.error(
                        Code::E0409,
                        &format!("{sp}.default.name"),
                        format!("variant name '{name}' is not UpperCamelCase"),
                        None,
                    );
                }
                (Some(self.case_body(ty, &format!("{sp}.default"))), name)
            }
        }
    }

    /// The largest value a tag that is an unsigned integer or enum field can hold, and its
    /// type's name (a case above it can never match).
    fn tag_max(&self, on: &Expr) -> Option<(u64, String)> {
        let Expr::Field(path) = on else { return None };
        let r = path.last()?;
        let t = self
            .file
            .types
            .get_index(r.struct_id)?
            .1
            .fields
            .get(r.field)?
            .ty
            .as_deref()?;
        let t = match expr::parse_type(t).ok()? {
            TypeExpr::Named(n) => self.file.enums.get(&n)?.repr.clone(),
            _ => t.to_string(),
        };
        match expr::parse_type(&t).ok()? {
            TypeExpr::Int {
                bits,
                signed: false,
                ..
            } if bits < 64 => Some(((1u64 << bits) - 1, t)),
            _ => None,
        }
    }

    pub(crate) fn case_key(
        &mut self,
        key: &str,
        tag_enum: Option<EnumId>,
        cp: &str,
    ) -> (Vec<CaseValue>, String) {
        let parse_int = |s: &str| -> Option<u64> {
            let s = s.trim().replace('_', "");
            match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => s.parse().ok(),
            }
        };
        if let Some((lo, hi)) = key.split_once("..") {
            if let (Some(lo), Some(hi)) = (parse_int(lo), parse_int(hi)) {
                if lo > hi {
                    self.r
                        .error_key(Code::E0412, cp, format!("empty range {key}"), None);
                }
                return (vec![CaseValue::Range(lo, hi)], format!("Range{lo}To{hi}"));
            }
        }
        if let Some(v) = parse_int(key) {
            return (vec![CaseValue::One(v)], format!("Tag{v}"));
        }
        if let Some(e) = tag_enum {
            let en = self.file.enums.get_index(e).unwrap();
            match en.1.values.get_full(key) {
                Some((_, _, v)) => {
                    // A named range of the enum is a range case.
                    let values = match v {
                        NamedValue::Range(r) | NamedValue::DocumentedRange { range: r, .. } => {
                            match crate::schema::parse_range(r) {
                                Some((lo, hi)) => vec![CaseValue::Range(lo, hi)],
                                None => vec![],
                            }
                        }
                        v => vec![CaseValue::One(v.value())],
                    };
                    return (values, key.to_upper_camel_case());
                }
                None => {
                    let hint = did_you_mean(key, en.1.values.keys().map(String::as_str));
                    self.r.error_key(
                        Code::E0413,
                        cp,
                        format!("'{key}' is not a value of enum '{}'", en.0),
                        hint,
                    );
                }
            }
        } else {
            self.r.error_key(
                Code::E0414,
                cp,
                format!("case key '{key}' is not an integer or range"),
                Some("enum value names work when 'on' is an enum field".into()),
            );
        }
        (vec![], key.to_upper_camel_case())
    }

    pub(crate) fn case_body(&mut self, body: &str, cp: &str) -> CaseBody {
        match body {
            "bytes" => CaseBody::Bytes,
            "empty" => CaseBody::Empty,
            name => match self.struct_ids.get(name) {
                Some(id) => CaseBody::Struct(*id),
                // Values of a type until the end of the switch (ENet's commands).
                None if name.ends_with("[]") => {
                    let elem = name.trim_end_matches("[]");
                    match self.struct_ids.get(elem) {
                        Some(id) => CaseBody::Array(*id),
                        None => {
                            let hint =
                                did_you_mean(elem, self.struct_ids.keys().map(String::as_str));
                            self.r.error(Code::E0415,
                                cp,
                                format!("unknown type '{elem}' (a case's array holds a type of this schema)"),
                                hint,
                            );
                            CaseBody::Empty
                        }
                    }
                }
                None => {
                    let hint = did_you_mean(name, self.struct_ids.keys().map(String::as_str));
                    self.r.error(
                        Code::E0416,
                        cp,
                        format!("unknown type '{name}'"),
                        hint.or(Some("a case holds a type name, 'bytes' or 'empty'".into())),
                    );
                    CaseBody::Empty
                }
            },
        }
    }
}
