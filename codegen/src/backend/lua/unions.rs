//! Switches: the case chains that pick a union variant.

use super::*;

/// The case chain of a switch on `tag_<name>`:
/// `if tag == a or (tag >= lo and tag <= hi) then <body> elseif ... else <default> end`;
/// `no_case` is emitted when there is no default.
pub(crate) fn case_chain(
    c: &mut Code,
    u: &Union,
    name: &str,
    body: &dyn Fn(&mut Code, CaseBody, &str),
    no_case: &dyn Fn(&mut Code),
) {
    // Each branch's lines, written one level in; cases without lines become a condition of the
    // catch-all instead of an empty branch.
    let branch = |emit: &dyn Fn(&mut Code)| {
        let mut b = Code::new(c.depth + 1);
        emit(&mut b);
        b
    };
    let mut chain: Vec<(String, Code)> = Vec::new();
    let mut silent: Vec<String> = Vec::new();
    for case in &u.cases {
        let conds: Vec<String> = case
            .values
            .iter()
            .map(|v| match v {
                CaseValue::One(x) => format!("tag_{name} == {x}"),
                CaseValue::Range(lo, hi) => format!("(tag_{name} >= {lo} and tag_{name} <= {hi})"),
            })
            .collect();
        let lines = branch(&|b| body(b, case.body, &case.variant));
        if lines.lines.is_empty() {
            silent.extend(conds);
        } else {
            chain.push((conds.join(" or "), lines));
        }
    }
    let tail = branch(&|b| match u.default {
        Some(d) => body(b, d, &u.default_variant),
        None => no_case(b),
    });
    let mut keyword = "if";
    for (cond, lines) in chain {
        c.line(format!("{keyword} {cond} then"));
        c.append(lines, 0);
        keyword = "elseif";
    }
    if !tail.lines.is_empty() {
        match (keyword, silent.is_empty()) {
            ("if", true) => {
                c.append(tail, 1);
                return;
            }
            (_, true) => c.line("else"),
            (_, false) => {
                // `not (a == 1 or b == 2)`, with `~=` for one plain value.
                let cond = match silent.as_slice() {
                    [one] if one.contains(" == ") && !one.starts_with('(') => {
                        one.replace(" == ", " ~= ")
                    }
                    _ => format!("not ({})", silent.join(" or ")),
                };
                c.line(format!("{keyword} {cond} then"));
            }
        }
        c.append(tail, 0);
        keyword = "elseif";
    }
    if keyword == "elseif" {
        c.line("end");
    }
}

/// A tag read from conversation state is nil when the list is unknown or too short: say so and
/// stop this branch.
pub(crate) fn state_tag_check(c: &mut Code, u: &Union, name: &str, tree: &str) {
    if u.on.reads_state() {
        c.line(format!("if tag_{name} == nil then {tree}:add_proto_expert_info(E.no_state, \"{name}: its type is not in the list announced earlier\") return nil end"));
    }
}

impl<'p> Gen<'p> {
    /// A union as long as its variant (no length): the variant's own size moves `offset`, and a
    /// `bytes` variant takes the rest of the scope.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn union_natural(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        u: &Union,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Internal> {
        let p = self.p;
        if u.unless.is_some() {
            return Err(Internal("'unless' on a switch without a length".into()));
        }
        let name = p.structs[sid].fields[fi].name.clone();
        let tag = self.tag_expr(&u.on);
        c.line(format!("local tag_{name} = {tag}"));
        state_tag_check(c, u, &name, tree);
        let body = |c: &mut Code, b: CaseBody, variant: &str| match b {
            CaseBody::Struct(id) => {
                c.line(format!(
                    "sub = {tree}:add(tvb(offset, 0), \"{}: {variant}\")",
                    naming::label(&name)
                ));
                call_struct(p, c, id, "offset", "limit", target);
                c.line("sub:set_len(nxt - offset)");
                c.line("offset = nxt");
            }
            // Values to the end of the datagram (or of the enclosing length).
            CaseBody::Array(id) => {
                c.line(format!(
                    "local arr_{name} = {tree}:add(tvb(offset, limit - offset), \"{}: {variant}\")",
                    naming::label(&name)
                ));
                c.open("while offset < limit do");
                c.line(format!(
                    "sub = arr_{name}:add(tvb(offset, 0), \"{}\")",
                    p.structs[id].name
                ));
                call_struct(p, c, id, "offset", "limit", "");
                c.line("sub:set_len(nxt - offset)");
                c.line("offset = nxt");
                c.close("end");
                keep(c, target, "{}");
            }
            CaseBody::Bytes => {
                add_bytes(
                    c,
                    tree,
                    abbrev,
                    &name,
                    "tvb(offset, limit - offset)",
                    "limit - offset",
                );
                keep(c, target, "limit - offset");
                c.line("offset = limit");
            }
            CaseBody::Empty => {}
        };
        let no_case = |c: &mut Code| {
            c.line(format!("{tree}:add_proto_expert_info(E.invalid, fmt(\"{name}: no case for tag %d\", tag_{name}))"));
            c.line("return nil");
        };
        case_chain(c, u, &name, &body, &no_case);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn union(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        u: &Union,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Internal> {
        let p = self.p;
        let name = p.structs[sid].fields[fi].name.clone();
        if matches!(u.len, Len::Natural) {
            return self.union_natural(c, sid, fi, u, abbrev, tree, target);
        }
        self.length(c, sid, fi, &u.len, false, abbrev, tree)?;
        let tag = self.tag_expr(&u.on);
        let unless = u.unless.as_ref().map(|e| self.expr(e));
        c.line(format!("local tag_{name} = {tag}"));
        state_tag_check(c, u, &name, tree);
        let cases = |c: &mut Code| {
            if self.shared_switch == Some((sid, fi)) {
                let f = switch_fn_name(p, sid, fi);
                c.line(format!(
                    "if {f}(tvb, pinfo, {tree}, offset, n, tag_{name}, v) == nil then return nil end"
                ));
            } else {
                let body = |c: &mut Code, b: CaseBody, variant: &str| {
                    case_body(p, c, &name, b, variant, abbrev, tree, target)
                };
                case_chain(c, u, &name, &body, &|c: &mut Code| no_case(c, &name, tree));
            }
        };
        // `unless` chooses the default variant whatever the tag.
        match (&unless, u.default) {
            (Some(cond), Some(b)) => {
                c.open(format!("if {cond} then"));
                case_body(p, c, &name, b, &u.default_variant, abbrev, tree, target);
                c.depth -= 1;
                c.open("else");
                cases(c);
                c.close("end");
            }
            _ => cases(c),
        }
        c.line("offset = offset + n");
        Ok(())
    }
}

/// The name of the function of a shared switch (see [`Gen::switch_fn`]).
pub(crate) fn switch_fn_name(p: &Protocol, sid: StructId, fi: usize) -> String {
    format!(
        "dissect_{}_{}",
        p.structs[sid].name, p.structs[sid].fields[fi].name
    )
}

/// The expert info of a tag no case takes (a switch without a default).
fn no_case(c: &mut Code, name: &str, tree: &str) {
    c.line(format!(
        "{tree}:add_proto_expert_info(E.invalid, fmt(\"{name}: no case for tag %d\", tag_{name}))"
    ));
}

/// One case of a switch with a length `n` at `offset`: its variant's fields, or its bytes.
#[allow(clippy::too_many_arguments)]
fn case_body(
    p: &Protocol,
    c: &mut Code,
    name: &str,
    b: CaseBody,
    variant: &str,
    abbrev: &str,
    tree: &str,
    target: &str,
) {
    match b {
        CaseBody::Struct(id) => {
            c.line(format!(
                "sub = {tree}:add(tvb(offset, n), \"{}: {variant}\")",
                naming::label(name)
            ));
            if target.is_empty() {
                // The length is known, so a case its bytes do not hold (a size field that
                // disagrees with the type's layout) is noted over those bytes and what follows
                // is still read. (A value later code reads cannot be skipped.)
                let recover = format!(
                    "sub:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes do not hold a {variant}; read on after them\", n)) nxt = offset + n"
                );
                call_struct_or(p, c, id, "offset", "offset + n", "", Some(&recover));
            } else {
                call_struct(p, c, id, "offset", "offset + n", target);
            }
            c.line(format!(
                "if nxt < offset + n then sub:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
            ));
        }
        // Values until the switch's length is read.
        CaseBody::Array(id) => {
            c.line(format!(
                "local arr_{name} = {tree}:add(tvb(offset, n), \"{}: {variant}\")",
                naming::label(name)
            ));
            c.line(format!("local stop_{name} = offset + n"));
            c.line(format!("local at_{name} = offset"));
            c.open(format!("while at_{name} < stop_{name} do"));
            c.line(format!(
                "sub = arr_{name}:add(tvb(at_{name}, 0), \"{}\")",
                p.structs[id].name
            ));
            call_struct(p, c, id, &format!("at_{name}"), &format!("stop_{name}"), "");
            c.line(format!("sub:set_len(nxt - at_{name})"));
            c.line(format!("at_{name} = nxt"));
            c.close("end");
            keep(c, target, "{}");
        }
        CaseBody::Bytes => {
            add_bytes(c, tree, abbrev, name, "tvb(offset, n)", "n");
            keep(c, target, "n");
        }
        CaseBody::Empty => {
            c.line(format!(
                "if n > 0 then {tree}:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes where none were expected\", n)) end"
            ));
        }
    }
}

impl<'p> Gen<'p> {
    /// The cases of the root's switch `fi` as a function of their own, for the packet and for
    /// a reassembled payload (`dissect_whole`): given the `n` bytes at `offset` and the tag,
    /// it returns where the switch ends, or nil when a value later code reads could not be
    /// read. Its `unless` stays with the packet (a reassembled payload has none).
    pub(crate) fn switch_fn(&mut self, sid: StructId, fi: usize) -> Result<String, Internal> {
        let p = self.p;
        let f = &p.structs[sid].fields[fi];
        let Ty::Union(u) = &f.ty else {
            return Err(Internal("'as' must name a switch".into()));
        };
        let name = f.name.as_str();
        let abbrev = naming::abbrev(p, sid, fi);
        let target = self.value_target(sid, fi);
        let mut c = Code::new(0);
        c.line(format!(
            "-- {name}: the case tag_{name} picks, in the n bytes at offset (of a packet, or of a"
        ));
        c.line("-- reassembled payload).");
        c.open(format!(
            "local function {}(tvb, pinfo, tree, offset, n, tag_{name}, v)",
            switch_fn_name(p, sid, fi)
        ));
        let locals = c.lines.len();
        c.start_function();
        let body = |c: &mut Code, b: CaseBody, variant: &str| {
            case_body(p, c, name, b, variant, &abbrev, "tree", &target)
        };
        case_chain(&mut c, u, name, &body, &|c: &mut Code| {
            no_case(c, name, "tree")
        });
        c.line("return offset + n");
        c.close("end");
        // (`n` is a parameter.)
        let declared = c.locals(&["n"]);
        c.lines.splice(locals..locals, declared);
        Ok(c.lines.join("\n") + "\n")
    }
}
