//! One dissection function per struct, and the calls between them.

use super::*;

/// `-- name: first line of its doc`.
pub(crate) fn heading(c: &mut Code, name: &str, doc: &str) {
    if doc.is_empty() {
        c.line(format!("-- {name}"));
    } else {
        c.line(format!("-- {name}: {doc}"));
    }
}

/// What a call of a struct's dissector assigns: its end, and its values when they are kept.
pub(crate) fn results(target: &str) -> &'static str {
    if target.is_empty() {
        "nxt"
    } else {
        "nxt, val"
    }
}

/// Calls the dissector of struct `id` from byte-aligned code over `[lo, hi)` (byte offsets) and
/// stores its values in `target` (kept nowhere when `target` is empty); a bit-stream struct gets
/// bit offsets and the caller resumes at the next whole byte. A struct that cannot be read ends
/// the caller too.
pub(crate) fn call_struct(
    p: &Protocol,
    c: &mut Code,
    id: StructId,
    lo: &str,
    hi: &str,
    target: &str,
) {
    call_struct_or(p, c, id, ("sub", lo, hi), target, None);
}

/// [`call_struct`] under `tree`, where a struct that cannot be read runs `recover` instead of
/// ending the caller (`recover` must set `nxt`, in bytes).
pub(crate) fn call_struct_or(
    p: &Protocol,
    c: &mut Code,
    id: StructId,
    (tree, lo, hi): (&str, &str, &str),
    target: &str,
    recover: Option<&str>,
) {
    call_struct_in(p, c, (id, None), ("tvb", tree, lo, hi), target, recover)
}

/// The locals of a struct's checksum range bounds that are fields (`start_x`, `end_y`).
fn bound_names(s: &Struct) -> Vec<String> {
    let (starts, ends) = crate::lower::analysis::checksum_bounds(&s.fields);
    starts
        .iter()
        .map(|&fi| format!("start_{}", s.fields[fi].name))
        .chain(ends.iter().map(|&fi| format!("end_{}", s.fields[fi].name)))
        .collect()
}

/// The name of the Lua function reading a value of struct `id` (for the fields of `filter`).
pub(crate) fn struct_fn_name(p: &Protocol, id: StructId, filter: Option<&str>) -> String {
    match filter {
        Some(f) => format!("dissect.{}_as_{f}", p.structs[id].name),
        None => format!("dissect.{}", p.structs[id].name),
    }
}

/// [`call_struct_or`] on the bytes of buffer `tvb` (decompressed ones, say).
pub(crate) fn call_struct_in(
    p: &Protocol,
    c: &mut Code,
    (id, filter): (StructId, Option<&str>),
    (tvb, tree, lo, hi): (&str, &str, &str, &str),
    target: &str,
    recover: Option<&str>,
) {
    let t = struct_fn_name(p, id, filter);
    let results = results(target);
    let bits = p.structs[id].layout.is_bits();
    if bits {
        c.line(format!(
            "{results} = {t}({tvb}, pinfo, {tree}, ({lo}) * 8, ({hi}) * 8)"
        ));
    } else {
        c.line(format!("{results} = {t}({tvb}, pinfo, {tree}, {lo}, {hi})"));
    }
    match recover {
        None => {
            c.line("if nxt == nil then return nil end");
            if bits {
                c.line("nxt = ceil8(nxt)");
            }
        }
        Some(recover) => {
            if bits {
                c.line("if nxt ~= nil then nxt = ceil8(nxt) end");
            }
            c.line(format!("if nxt == nil then {recover} end"));
        }
    }
    if !target.is_empty() {
        c.line(format!("{target} = val"));
    }
}

/// Zero bytes up to a multiple of `n` from the struct's start, shown as padding (`what` names
/// them when they are missing).
fn align_code(c: &mut Code, p: &Protocol, n: usize, what: &str) {
    c.reads_start = true;
    c.line(format!("n = ({n} - (offset - start) % {n}) % {n}"));
    c.open("if n > 0 then");
    c.line(format!(
        "if limit - offset < n then return truncated(tree, tvb, offset, \"{what}\", n, limit - offset) end"
    ));
    c.line(format!(
        "tree:add(F[\"{}\"], tvb(offset, n))",
        naming::padding_abbrev(p)
    ));
    c.line("offset = offset + n");
    c.close("end");
}

/// The start of a value padded to `n` bytes: its limit (`limit` until `pad_end` puts it back).
fn pad_start(c: &mut Code, n: usize, what: &str, outer: &str) {
    c.line(format!(
        "if limit - offset < {n} then return truncated(tree, tvb, offset, \"{what}\", {n}, limit - offset) end"
    ));
    if !outer.is_empty() {
        c.line(format!("local {outer} = limit"));
    }
    c.line(format!("limit = offset + {n}"));
}

/// The end of a padded value: the bytes left up to its limit shown as padding.
fn pad_end(c: &mut Code, p: &Protocol, outer: &str) {
    c.line(format!(
        "if offset < limit then tree:add(F[\"{}\"], tvb(offset, limit - offset)) end",
        naming::padding_abbrev(p)
    ));
    c.line("offset = limit");
    if !outer.is_empty() {
        c.line(format!("limit = {outer}"));
    }
}

/// Where a checksum field is and its tree item (nil until it is read).
pub(crate) fn checksum_locals(field: &str) -> String {
    format!("cs_at_{field}, cs_item_{field}")
}

/// Where checksum `cs` of `s` starts and stops: the locals its `from`/`to` fields set, else
/// `start` and `stop`.
pub(crate) fn range_bounds(s: &Struct, cs: Checksum, start: &str, stop: &str) -> (String, String) {
    (
        cs.from.map_or(start.to_string(), |fi| {
            format!("start_{}", s.fields[fi].name)
        }),
        cs.to
            .map_or(stop.to_string(), |fi| format!("end_{}", s.fields[fi].name)),
    )
}

/// The call verifying checksum `field` of `strukt` over `[start, stop)`.
pub(crate) fn verify_call(strukt: &str, field: &str, start: &str, stop: &str) -> String {
    format!("verify_{strukt}_{field}(tvb, {start}, {stop}, cs_at_{field}, cs_item_{field})")
}

/// Whether a value of struct `sid` adds its summary to the Info column after what the
/// message's own summary says: every type with `info:` but a transport's root, whose
/// summary is the message's.
pub(crate) fn info_tail(p: &Protocol, sid: StructId) -> bool {
    !p.structs[sid].info.is_empty() && (sid != p.root || p.application.is_some())
}

impl<'p> Dissect<'p> {
    /// `verify_<Struct>_<field>(tvb, start, stop, at, item)`: checks the checksum stored at `at`
    /// over `[start, stop)` with its own bytes zeroed, and says so on its item.
    fn verify_fn(&self, c: &mut Code, sid: StructId, fi: usize) {
        let p = self.i.p;
        let s = &p.structs[sid];
        let f = &s.fields[fi];
        let Role::Checksum(cs) = f.role else { return };
        let Some(int) = self.i.l.field(sid, fi).checksum_int else {
            return;
        };
        let (n, signed, endian) = (int.bytes(), int.signed, int.endian);
        let abbrev = naming::abbrev(p, sid, fi);
        let digits = n * 2;
        let field_name = |fi: Option<usize>, default: &str| {
            fi.map_or(default.to_string(), |fi| format!("'{}'", s.fields[fi].name))
        };
        let over = match (cs.from, cs.to) {
            (None, None) => format!("the whole {}", s.name),
            (from, to) => format!(
                "{} from {} to {}",
                s.name,
                field_name(from, "its start"),
                field_name(to, "its end")
            ),
        };
        let zeroed = if cs.covers(fi) {
            " with its own bytes zeroed"
        } else {
            ""
        };
        c.line(format!(
            "-- {}.{}: verified over {over}{zeroed}.",
            s.name, f.name
        ));
        c.open(format!(
            "local function verify_{}_{}(tvb, start, stop, at, item)",
            s.name, f.name
        ));
        c.line(format!(
            "local stored = tvb(at, {n}):{}",
            int_reader(n, signed, endian)
        ));
        c.line(format!(
            "local computed = {}(tvb, start, stop, at, {n})",
            checksum_func(cs.algo)
        ));
        c.open("if computed == stored then");
        // The usual case says nothing without a tree: no C call for it (tshark's summary).
        c.open("if HAS_TREE then");
        c.read_item(format!(
            "local status = item:add(F[\"{abbrev}.status\"], tvb(at, {n}), 1)"
        ));
        c.open("if VISIBLE then");
        c.line("status:set_generated()");
        c.read_item("item:append_text(\" [correct]\")");
        c.close("end");
        c.close("end");
        c.close("else");
        c.depth += 1;
        c.read_item(format!(
            "item:append_text(string.format(\" [incorrect, should be 0x%0{digits}x]\", computed))"
        ));
        c.read_item(format!(
            "item:add(F[\"{abbrev}.status\"], tvb(at, {n}), 0):set_generated()"
        ));
        c.read_item(format!(
            "item:add_proto_expert_info(E.bad_checksum, fmt(\"Bad {}: stored 0x%0{digits}x, computed 0x%0{digits}x\", stored, computed))",
            f.name
        ));
        c.line("BAD_CHECKSUM = true");
        c.close("end");
        c.close("end");
        c.line("");
    }

    /// Whether a value of struct `sid` adds its summary to the Info column after what the
    /// message's own summary says: every type with `info:` but a transport's root, whose
    /// summary is the message's.
    /// Struct `sid`'s dissecting function, after the helpers it calls (its joins' and
    /// checksums' functions, the root's checksum locals).
    pub(crate) fn struct_fn(&mut self, sid: StructId) -> Result<String, Internal> {
        let s = &self.i.p.structs[sid];
        let mut c = Code::new(0);
        for (ji, j) in self.i.p.joins.iter().enumerate() {
            if j.in_struct == sid {
                self.join_fn(&mut c, ji)?;
            }
        }
        let is_root = sid == self.i.p.root;
        let checksums: Vec<usize> = (0..s.fields.len())
            .filter(|&fi| matches!(s.fields[fi].role, Role::Checksum(_)))
            .collect();
        let bound_names = bound_names(s);
        for &fi in &checksums {
            self.verify_fn(&mut c, sid, fi);
            if is_root {
                // The root's checksum is also verified when its payload cannot be parsed
                // (dissect_message, over the whole datagram): where it is, kept past a failure.
                c.line(format!("local {}", checksum_locals(&s.fields[fi].name)));
                c.line("");
            }
        }
        if is_root && !bound_names.is_empty() {
            // And where its range starts and ends, when it names fields.
            c.line(format!("local {}", bound_names.join(", ")));
            c.line("");
        }
        self.function(&mut c, sid)?;
        Ok(c.lines.join("\n") + "\n")
    }

    /// A copy of struct `id`'s function for the fields of one `filter:` use: the same reading,
    /// its fields under the use's filter names. Placed before the type's own function, whose
    /// join and checksum helpers it calls.
    pub(crate) fn filtered_fn(&mut self, id: StructId, filter: &str) -> Result<String, Internal> {
        let mut c = Code::new(0);
        self.names.filter = Some((id, filter.to_string()));
        let function = self.function(&mut c, id);
        self.names.filter = None;
        function?;
        Ok(c.lines.join("\n") + "\n")
    }

    /// The function that dissects a value of struct `sid` (under the filter names of
    /// [`Names::filter`], when it is set for `sid`).
    fn function(&mut self, c: &mut Code, sid: StructId) -> Result<(), Internal> {
        let s = &self.i.p.structs[sid];
        let is_root = sid == self.i.p.root;
        let checksums: Vec<usize> = (0..s.fields.len())
            .filter(|&fi| matches!(s.fields[fi].role, Role::Checksum(_)))
            .collect();
        let (starts, ends) = crate::lower::analysis::checksum_bounds(&s.fields);
        let bound_names = bound_names(s);
        let filter = self.names.filter.as_ref().map(|(_, f)| f.clone());
        match &filter {
            Some(f) => c.line(format!(
                "-- {} of a field with 'filter: {f}': its fields are {}.{f}.*",
                s.name, self.i.p.name
            )),
            // Its function is named for it: only a doc says more.
            None if s.doc.is_some() => heading(c, &s.name, &first_line(&s.doc)),
            None => {}
        }
        c.open(format!(
            "function {}(tvb, pinfo, tree, offset, limit)",
            struct_fn_name(self.i.p, sid, filter.as_deref())
        ));
        let locals = c.lines.len();
        c.start_function();
        // A table of the values read, when later code reads one of them (or the caller keeps
        // the whole message).
        let keeps = is_root || (0..s.fields.len()).any(|fi| self.i.kept(sid, fi));
        if keeps {
            c.line("local v = {}");
        }
        if is_root && !self.i.p.root().info.is_empty() && !s.layout.is_bits() {
            // The Info column summarises what was read even when the rest is malformed.
            c.line("ROOT_VALUES = v");
        }
        for &fi in &checksums {
            let name = &s.fields[fi].name;
            if is_root {
                c.line(format!("cs_item_{name} = nil"));
            } else {
                c.line(format!("local {}", checksum_locals(name)));
            }
        }
        // The root's range bounds are the file's (see above), reset per message.
        let local = if is_root { "" } else { "local " };
        if is_root {
            for name in &bound_names {
                c.line(format!("{name} = nil"));
            }
        }
        // A padded struct reads its fields within its size (the caller's limit is its own).
        if let Some(n) = s.padding.pad {
            pad_start(c, n, "padding", "");
        }
        for fi in 0..s.fields.len() {
            let f = &s.fields[fi];
            if let Some(n) = f.padding.align {
                align_code(c, self.i.p, n, &f.name);
            }
            if starts.contains(&fi) {
                c.line(format!("{local}start_{} = offset", f.name));
            }
            let outer = format!("outer_{}", f.name);
            if let Some(n) = f.padding.pad {
                pad_start(c, n, &f.name, &outer);
            }
            self.field(c, sid, fi)?;
            if f.padding.pad.is_some() {
                pad_end(c, self.i.p, &outer);
            }
            if ends.contains(&fi) {
                c.line(format!("{local}end_{} = offset", f.name));
            }
        }
        if s.padding.pad.is_some() {
            pad_end(c, self.i.p, "");
        }
        if let Some(n) = s.padding.align {
            align_code(c, self.i.p, n, "padding");
        }
        self.after_fields(c, sid, &checksums);
        c.line(if keeps {
            "return offset, v"
        } else {
            "return offset"
        });
        c.close("end");
        let declared = c.locals(&[]);
        c.lines.splice(locals..locals, declared);
        Ok(())
    }

    /// What a struct's function does once its fields are read: its checksums verified, the
    /// values its state tables record, its joins and stream joins, the analysis's facts and
    /// its part of the Info column.
    fn after_fields(&mut self, c: &mut Code, sid: StructId, checksums: &[usize]) {
        let s = &self.i.p.structs[sid];
        for &fi in checksums {
            let f = &s.fields[fi];
            let Role::Checksum(cs) = f.role else { continue };
            let (from, to) = range_bounds(s, cs, "start", "offset");
            c.reads_start |= from == "start" || to == "start";
            let call = verify_call(&s.name, &f.name, &from, &to);
            if f.condition.is_some() {
                c.line(format!("if cs_item_{} ~= nil then {call} end", f.name));
            } else {
                c.line(call);
            }
        }
        for (t, table) in self.i.p.state.iter().enumerate() {
            for r in table
                .records
                .iter()
                .filter(|r| r.in_struct == sid && r.via.is_none())
            {
                record(self.i.p, c, t, r, "v", "v");
            }
        }
        for (ji, j) in self.i.p.joins.iter().enumerate() {
            if j.in_struct == sid {
                c.line(format!("join_{ji}(pinfo, tree, v)"));
            }
        }
        self.stream_join_calls(c, sid);
        self.facts_lines(c, sid);
        if info_tail(self.i.p, sid) {
            c.line(format!(
                "INFO_TAIL = INFO_TAIL .. \" \" .. {}",
                self.i.summary().info_of(sid, "v", false, "    ")
            ));
        }
    }

    /// `dissect_whole`: a joined payload decoded with the root's switch field `fi`, by the tag of
    /// the packet that completed it (its values `v`).
    pub(crate) fn whole_fn(&mut self, fi: usize) -> Result<String, Internal> {
        let p = self.i.p;
        let Ty::Union(u) = &p.root().fields[fi].ty else {
            return Err(Internal("'as' must name a switch".into()));
        };
        let mut c = Code::new(0);
        c.line("-- A reassembled payload, decoded like the switch of one whole message, by the tag of the");
        c.line("-- packet that completed it.");
        c.open("local function dissect_whole(tvb, pinfo, tree, v)");
        if let Some((sid, fi)) = self.i.shared_switch {
            // The packet's own switch (its values are not kept).
            let f = super::unions::switch_fn_name(p, sid, fi);
            let tag = self.i.exprs().tag_expr(&u.on);
            c.line(format!(
                "return {f}(tvb, pinfo, tree, 0, tvb:len(), {tag}, {{}})"
            ));
            c.close("end");
            return Ok(c.lines.join("\n") + "\n");
        }
        let mut whole = (**u).clone();
        whole.len = Len::Rest;
        whole.unless = None;
        c.line("local offset, limit = 0, tvb:len()");
        let locals = c.lines.len();
        c.start_function();
        let abbrev = naming::abbrev(p, p.root, fi);
        // No target: the whole's values are not kept.
        let at = Place {
            sid: p.root,
            fi,
            abbrev: &abbrev,
            tree: "tree",
            target: "",
        };
        self.union(&mut c, at, &whole)?;
        c.line("return offset");
        c.close("end");
        let declared = c.locals(&[]);
        c.lines.splice(locals..locals, declared);
        Ok(c.lines.join("\n") + "\n")
    }

    /// Code for one field of struct `sid`.
    pub(crate) fn field(&mut self, c: &mut Code, sid: StructId, fi: usize) -> Result<(), Internal> {
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        let abbrev = self.names.abbrev(sid, fi);
        let d = first_line(&f.doc);
        self.open_group(c, sid, fi, "tree");
        let heading_at = c.lines.len();
        heading(c, &f.name, &d);
        if let Some(cond) = &f.condition {
            let e = self.i.exprs().expr(cond);
            c.open(format!("if {e} then"));
        }
        if let Role::Checksum(_) = f.role {
            c.line(format!("cs_at_{} = offset", f.name));
        }
        // Only values later code reads are kept in the struct's table.
        let target = self.i.value_target(sid, fi);
        let app_payload = p
            .app_points
            .iter()
            .any(|a| a.in_struct == sid && a.payload == fi);
        if app_payload {
            c.line("local app_first = offset");
        }
        if f.select.is_empty() {
            self.value(
                c,
                Place {
                    sid,
                    fi,
                    abbrev: &abbrev,
                    tree: "tree",
                    target: &target,
                },
                &f.ty,
            )?;
        } else {
            self.selecting(c, sid, fi, &abbrev, &target)?;
        }
        if let Role::Checksum(_) = f.role {
            c.read_item(format!("cs_item_{} = item", f.name));
        }
        if app_payload {
            let id = p
                .app_points
                .iter()
                .find(|a| a.in_struct == sid && a.payload == fi)
                .and_then(|a| a.id)
                // A transport without ids hands every payload to the application under 0.
                .map(|id| value_slot(&p.structs[sid].fields[id].name))
                .unwrap_or_else(|| "0".into());
            if p.structs[sid].layout.is_bits() {
                c.line(format!(
                    "app_payload(tvb, pinfo, tree, {id}, app_first, offset)"
                ));
            } else {
                c.line(format!(
                    "app_payload(tvb, pinfo, tree, {id}, 8 * app_first, 8 * offset)"
                ));
            }
        }
        for (cond, message) in &f.warnings {
            let e = self.i.exprs().expr(cond);
            c.read_item(format!(
                "if {e} then item:add_proto_expert_info(E.quirk, \"{}\") end",
                lua_escape(message)
            ));
        }
        value_checks(c, f, &target);
        if f.condition.is_some() {
            c.close("end");
        }
        // Kept for the types inside that read it (`Header.channel`), as the crate keeps it.
        if let Some(slot) = self.i.l.field(sid, fi).enclosing_slot {
            let value = self.i.exprs().expr(&Expr::Field(vec![FieldRef {
                struct_id: sid,
                field: fi,
                name: f.name.clone(),
            }]));
            c.line(format!("ENCLOSING[{}] = {value}", slot + 1));
        }
        c.forget_items();
        // A field of a few lines names itself (its item's filter, its truncation's field): a
        // heading that says no more than its name goes.
        if d.is_empty() && c.lines.len() - heading_at <= 4 {
            c.lines.remove(heading_at);
        }
        Ok(())
    }
}

/// A field's checks once read (`item`, its value in `target`): a constant's value, a maximum,
/// the values `valid:` allows; each failing one is expert info on the item.
fn value_checks(c: &mut Code, f: &Field, target: &str) {
    match (&f.role, f.max) {
        (Role::Const(_), _) => {
            // As the schema wrote it.
            let k = f.const_literal().unwrap_or_default();
            c.open(format!("if {target} ~= {k} then"));
            // A negative one in decimal, as the schema wrote it.
            let digits = if f.const_negative() { "%d" } else { "0x%x" };
            c.read_item(format!("item:add_proto_expert_info(E.bad_const, fmt(\"{}: expected {digits}, found {digits}\", {k}, {target}))", f.name));
            c.close("end");
        }
        (_, Some(m)) => {
            c.open(format!("if {target} > {m} then"));
            c.read_item(format!("item:add_proto_expert_info(E.too_large, fmt(\"{}: %d is above the maximum {m}\", {target}))", f.name));
            c.close("end");
        }
        _ => {}
    }
    if let Some(valid) = &f.valid {
        let bad = match valid {
            Valid::Range { min, max } => {
                let sides: Vec<String> = min
                    .map(|lo| format!("{target} < {lo}"))
                    .into_iter()
                    .chain(max.map(|hi| format!("{target} > {hi}")))
                    .collect();
                sides.join(" or ")
            }
            Valid::List(values) if values.len() == 1 => format!("{target} ~= {}", values[0]),
            Valid::List(values) => {
                let any: Vec<String> = values.iter().map(|v| format!("{target} == {v}")).collect();
                format!("not ({})", any.join(" or "))
            }
        };
        c.open(format!("if {bad} then"));
        c.read_item(format!("item:add_proto_expert_info(E.invalid, fmt(\"{}: %s is not one the schema allows\", tostring({target})))", f.name));
        c.close("end");
    }
}
