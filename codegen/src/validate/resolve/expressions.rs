//! Pass: expressions. Parsed with pest, names resolved against earlier fields, types checked.

use super::*;

impl<'f> Resolver<'f> {
    /// Refuses, at `at` with `code`, what expression `e` (evaluated by the crate on a decoded
    /// value: reassembly's `when`/`last`, joins' `first`/`last`, reliability's conditions)
    /// reads that a decoded value does not keep: the fields the encoder fills (lengths, counts,
    /// presence bits). A switch's tag is kept (its switch's).
    pub(crate) fn refuse_encoder_filled(
        &mut self,
        proto: &Protocol,
        e: &Expr,
        at: &str,
        code: Code,
    ) {
        if e.reads_context() {
            self.r.error(
                Code::E0525,
                at,
                "this is evaluated on a decoded value, which does not keep the enclosing values \
                 nor the direction it was read with",
                Some("read fields of this type only here".into()),
            );
        }
        let mut read = std::collections::HashSet::new();
        crate::lower::analysis::refs(e, &mut read);
        let mut read: Vec<_> = read.into_iter().collect();
        read.sort();
        for (s, fi) in read {
            self.refuse_encoder_filled_field(proto, s, fi, at, code);
        }
    }

    /// Refuses field `fi` of `sid` where a decoded value is read (see
    /// [`Self::refuse_encoder_filled`]) when the encoder fills it.
    pub(crate) fn refuse_encoder_filled_field(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        fi: usize,
        at: &str,
        code: Code,
    ) {
        let fields = &proto.structs[sid].fields;
        let f = &fields[fi];
        let hint = match f.role {
            Role::Derived(Derive::LengthOf(of, _) | Derive::CountOf(of, _)) => {
                format!("read len({}) instead", fields[of].name)
            }
            Role::Derived(Derive::PresenceOf(of) | Derive::AbsenceOf(of)) => format!(
                "read what the value holds instead (whether '{}' is there)",
                fields[of].name
            ),
            _ => return,
        };
        self.r.error(
            code,
            at,
            format!(
                "'{}' is filled by the encoder: a decoded value does not keep it",
                f.name
            ),
            Some(hint),
        );
    }

    pub(crate) fn expr_of(&mut self, scope: &Scope, text: &str, want: ExprTy) -> Expr {
        match expr::parse_expr(text) {
            Ok(e) => {
                let (e, ty) = self.check(scope, &e);
                if ty != ExprTy::Error
                    && (ty != want && ty != ExprTy::Int
                        || (ty == ExprTy::Int && want == ExprTy::Bool))
                {
                    let (got, exp) = if want == ExprTy::Bool {
                        ("an integer", "a condition")
                    } else {
                        ("a condition", "an integer")
                    };
                    // A switch's tag is a number or a bool field: a condition is one too, said so.
                    let hint = (self.in_tag && want == ExprTy::Int).then(|| {
                        format!(
                            "switch on `({text}) ? 1 : 0` with cases 1 and 0, or on a bool \
                             field with cases \"true\" and \"false\""
                        )
                    });
                    self.expr_error(
                        Code::E0501,
                        scope,
                        0,
                        format!("'{text}' is {got} where {exp} is needed"),
                        hint,
                    );
                }
                e
            }
            Err(e) => {
                self.expr_error(Code::E0502, scope, e.at, e.message, None);
                Expr::int(0)
            }
        }
    }

    pub(crate) fn expr_error(
        &mut self,
        code: Code,
        scope: &Scope,
        at: usize,
        message: String,
        hint: Option<String>,
    ) {
        let p = self.r.locs.value(scope.yaml_path);
        if self.r.locs.inherited(scope.yaml_path) {
            let message = self.r.inherited(scope.yaml_path, message);
            self.r.error_at(code, p.line, p.col, message, hint);
        } else {
            self.r.error_at(code, p.line, p.col + at, message, hint);
        }
    }

    pub(crate) fn check(&mut self, scope: &Scope, e: &expr::Expr) -> (Expr, ExprTy) {
        match e {
            expr::Expr::Int(v, radix, _) => (Expr::Int(*v, *radix), ExprTy::Int),
            expr::Expr::Bool(b, _) => (Expr::Bool(*b), ExprTy::Bool),
            expr::Expr::Special(name, at) => match name.as_str() {
                "size" => (Expr::MessageSize, ExprTy::Int),
                "remaining" => (Expr::Remaining, ExprTy::Int),
                "from_client" => (Expr::FromClient, ExprTy::Bool),
                _ => {
                    let known = ["@size", "@remaining", "@from_client"];
                    let hint = did_you_mean(&format!("@{name}"), known)
                        .unwrap_or_else(|| "known: @size, @remaining, @from_client".into());
                    self.expr_error(
                        Code::E0503,
                        scope,
                        *at,
                        format!("unknown built-in '@{name}'"),
                        Some(hint),
                    );
                    (Expr::int(0), ExprTy::Error)
                }
            },
            expr::Expr::Path(path, at) => self.path(scope, path, *at, false),
            expr::Expr::Item(table, index, at) => {
                let (i, ty) = self.check(scope, index);
                self.want(scope, ty, ExprTy::Int, index.at(), "a list index");
                if !self.in_tag {
                    self.expr_error(
                        Code::E0504,
                        scope,
                        *at,
                        format!("'{table}[...]' can only be a switch's tag"),
                        Some(
                            "a list item chooses the layout of a value: 'switch: { on: ... }'"
                                .into(),
                        ),
                    );
                }
                match self.tables.get(table).copied() {
                    Some((t, _)) => (Expr::Item(t, Box::new(i)), ExprTy::Int),
                    None => {
                        let hint = did_you_mean(table, self.tables.keys().map(String::as_str));
                        self.expr_error(
                            Code::E0505,
                            scope,
                            *at,
                            format!("'{table}' is not a state table"),
                            hint.or(Some("declare it under protocol.state".into())),
                        );
                        (Expr::int(0), ExprTy::Error)
                    }
                }
            }
            expr::Expr::Len(inner, at) => match &**inner {
                expr::Expr::Path(path, pat) => self.path(scope, path, *pat, true),
                _ => {
                    self.expr_error(Code::E0506, scope, *at, "len() takes a field".into(), None);
                    (Expr::int(0), ExprTy::Error)
                }
            },
            expr::Expr::Unary(op, inner, at) => {
                let (x, ty) = self.check(scope, inner);
                match op {
                    UnOp::Not => {
                        self.want(scope, ty, ExprTy::Bool, *at, "'!'");
                        (Expr::Not(Box::new(x)), ExprTy::Bool)
                    }
                    UnOp::Neg => {
                        self.want(scope, ty, ExprTy::Int, *at, "'-'");
                        (Expr::Neg(Box::new(x)), ExprTy::Int)
                    }
                }
            }
            expr::Expr::Binary(op, l, r, at) => {
                let (a, ta) = self.check(scope, l);
                let (b, tb) = self.check(scope, r);
                let operand = if op.is_logical() {
                    ExprTy::Bool
                } else {
                    ExprTy::Int
                };
                let what = format!("'{}'", op.symbol());
                if matches!(op, BinOp::Eq | BinOp::Ne) && ta == tb {
                    // == and != also compare conditions.
                } else {
                    self.want(scope, ta, operand, *at, &what);
                    self.want(scope, tb, operand, r.at(), &what);
                }
                let ty = if op.is_logical() || op.is_comparison() {
                    ExprTy::Bool
                } else {
                    ExprTy::Int
                };
                (Expr::Binary(*op, Box::new(a), Box::new(b)), ty)
            }
            expr::Expr::Cond(c, a, b, at) => {
                let (c2, tc) = self.check(scope, c);
                self.want(scope, tc, ExprTy::Bool, *at, "'?'");
                let (a2, ta) = self.check(scope, a);
                let (b2, tb) = self.check(scope, b);
                // Both branches of one type: that of the first that is not already wrong.
                let ty = if ta == ExprTy::Error { tb } else { ta };
                self.want(scope, ta, ty, a.at(), "'?:'");
                self.want(scope, tb, ty, b.at(), "'?:'");
                (Expr::Cond(Box::new(c2), Box::new(a2), Box::new(b2)), ty)
            }
        }
    }

    pub(crate) fn want(&mut self, scope: &Scope, got: ExprTy, want: ExprTy, at: usize, what: &str) {
        if got != want && got != ExprTy::Error {
            let w = if want == ExprTy::Bool {
                "conditions"
            } else {
                "integers"
            };
            self.expr_error(Code::E0507, scope, at, format!("{what} takes {w}"), None);
        }
    }

    /// Resolves `a.b.c` against the visible fields of the scope (or an enum constant).
    pub(crate) fn path(
        &mut self,
        scope: &Scope,
        path: &[String],
        at: usize,
        in_len: bool,
    ) -> (Expr, ExprTy) {
        let fail = (Expr::int(0), ExprTy::Error);
        // Enum constants: `Command.REQ_LOGIN`.
        if let Some(constant) = self.enum_constant(scope, path, at) {
            return constant;
        }
        // `Header.channel`: a field of the enclosing type `Header` (a field of this type by
        // that name comes first).
        let local = self.shapes[scope.struct_id]
            .iter()
            .take(scope.visible)
            .any(|(n, _)| *n == path[0]);
        if path.len() >= 2 && !local {
            if let Some(holder) = self.struct_ids.get(&path[0]).copied() {
                return self.enclosing_path(scope, holder, path, at, in_len);
            }
        }
        let mut refs = Vec::new();
        let mut sid = scope.struct_id;
        let mut visible = scope.visible;
        let mut col = at;
        for (depth, seg) in path.iter().enumerate() {
            let fields = &self.shapes[sid];
            let found = fields.iter().take(visible).position(|(n, _)| n == seg);
            let Some(fi) = found else {
                let later = fields.iter().skip(visible).any(|(n, _)| n == seg);
                let hint = if later {
                    Some(format!(
                        "'{seg}' comes later; only earlier fields can be used here"
                    ))
                } else {
                    did_you_mean(seg, fields.iter().take(visible).map(|(n, _)| n.as_str())).or_else(
                        || {
                            (depth == 0)
                                .then(|| self.enclosing_hint(sid, seg))
                                .flatten()
                        },
                    )
                };
                self.expr_error(
                    Code::E0510,
                    scope,
                    col,
                    format!("unknown field '{seg}'"),
                    hint,
                );
                return fail;
            };
            refs.push(FieldRef {
                struct_id: sid,
                field: fi,
                name: seg.clone(),
            });
            let shape = fields[fi].1.clone();
            let last = depth + 1 == path.len();
            if last {
                return self.path_end(scope, refs, shape, path, at, in_len);
            }
            col += seg.len() + 1;
            match shape {
                Shape::Struct(id) => {
                    sid = id;
                    visible = usize::MAX;
                }
                Shape::Flags(fid) => {
                    let fl = self.file.flags.get_index(fid).unwrap();
                    let bit = &path[depth + 1];
                    if depth + 2 != path.len() {
                        self.expr_error(
                            Code::E0515,
                            scope,
                            col,
                            "a flag bit has no fields".into(),
                            None,
                        );
                        return fail;
                    }
                    return match fl.1.bits.get(bit) {
                        Some(m) => (Expr::FlagBit(refs, m.value()), ExprTy::Bool),
                        None => {
                            let hint = did_you_mean(bit, fl.1.bits.keys().map(String::as_str));
                            self.expr_error(
                                Code::E0516,
                                scope,
                                col,
                                format!("'{bit}' is not a flag of '{}'", fl.0),
                                hint,
                            );
                            fail
                        }
                    };
                }
                _ => {
                    self.expr_error(
                        Code::E0517,
                        scope,
                        col,
                        format!("'{seg}' has no fields"),
                        None,
                    );
                    return fail;
                }
            }
        }
        fail
    }

    /// `Enum.VALUE`: a value an enum names (E0508 a range, E0509 no such value); `None` when
    /// the path does not start with an enum's name.
    fn enum_constant(
        &mut self,
        scope: &Scope,
        path: &[String],
        at: usize,
    ) -> Option<(Expr, ExprTy)> {
        if path.len() != 2 {
            return None;
        }
        let fail = (Expr::int(0), ExprTy::Error);
        let e = self.enum_ids.get(&path[0])?;
        let en = self.file.enums.get_index(*e).unwrap().1;
        Some(match en.values.get(&path[1]) {
            Some(v) if v.is_range() => {
                self.expr_error(
                    Code::E0508,
                    scope,
                    at,
                    format!(
                        "'{}' names a range of values of enum '{}', not one value",
                        path[1], path[0]
                    ),
                    Some(
                        "compare with the range's ends ('x >= 1 && x <= 6'), or switch on it"
                            .into(),
                    ),
                );
                fail
            }
            Some(v) => (Expr::int(v.value()), ExprTy::Int),
            None => {
                let hint = did_you_mean(&path[1], en.values.keys().map(String::as_str));
                self.expr_error(
                    Code::E0509,
                    scope,
                    at,
                    format!("'{}' is not a value of enum '{}'", path[1], path[0]),
                    hint,
                );
                fail
            }
        })
    }

    /// What a path to a field of shape `shape` (its last segment) is: a number, a bool, or
    /// a length in `len()`; E0511-E0514 where it is none of what is asked.
    fn path_end(
        &mut self,
        scope: &Scope,
        refs: Vec<FieldRef>,
        shape: Shape,
        path: &[String],
        at: usize,
        in_len: bool,
    ) -> (Expr, ExprTy) {
        let fail = (Expr::int(0), ExprTy::Error);
        let seg = &path[path.len() - 1];
        match shape {
            Shape::Seq if in_len => (Expr::Len(refs, LenKind::Bytes), ExprTy::Int),
            Shape::Opaque if in_len => {
                self.expr_error(Code::E0511,
                    scope,
                    at,
                    format!("len({seg}): the text's length is not its length on the wire (a NUL-terminated string, or text in another encoding than UTF-8)"),
                    Some("give the string a length field ('length' or 'prefix') and use that field".into()),
                );
                fail
            }
            _ if in_len => {
                self.expr_error(
                    Code::E0512,
                    scope,
                    at,
                    format!("len() takes a bytes, string or array field; '{seg}' is not one"),
                    None,
                );
                fail
            }
            Shape::Opaque => {
                self.expr_error(Code::E0513,
                    scope,
                    at,
                    format!("'{seg}' is a NUL-terminated string or text in another encoding than UTF-8: neither a number nor a length"),
                    Some("give the string a length field ('length' or 'prefix') and use that field".into()),
                );
                fail
            }
            Shape::Seq | Shape::Union | Shape::Struct(_) => {
                self.expr_error(
                    Code::E0514,
                    scope,
                    at,
                    format!("'{seg}' is not a number"),
                    Some(format!("use len({})", path.join("."))),
                );
                fail
            }
            Shape::Bool => (Expr::Field(refs), ExprTy::Bool),
            _ => (Expr::Field(refs), ExprTy::Int),
        }
    }
}

impl<'f> Resolver<'f> {
    /// When `name` is no field of struct `sid` but one of a type that holds it (a field of
    /// that type, an array of it, a switch case): says so, as that is what the schema meant.
    fn enclosing_hint(&self, sid: StructId, name: &str) -> Option<String> {
        let (this, _) = self.file.types.get_index(sid)?;
        let names_this = |ty: &str| ty.trim_end_matches("[]") == this.as_str();
        let holder = self.file.types.iter().find_map(|(holder, t)| {
            let holds = t.fields.iter().any(|f| {
                f.ty.as_deref().is_some_and(names_this)
                    || f.switch.as_ref().is_some_and(|s| {
                        s.cases.values().chain(s.default.as_ref()).any(|c| match c {
                            schema::CaseDef::Type(ty) | schema::CaseDef::Named { ty, .. } => {
                                names_this(ty)
                            }
                        })
                    })
            });
            let has_it = t.fields.iter().any(|f| f.name == name);
            (holds && has_it).then_some(holder)
        })?;
        Some(format!(
            "'{name}' is a field of '{holder}', which holds '{this}': write '{holder}.{name}' \
             to read it from the '{holder}' around this value"
        ))
    }
}
