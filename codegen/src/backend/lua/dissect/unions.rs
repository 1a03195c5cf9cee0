//! Switches: the case chains that pick a union variant.

use super::*;
use std::cell::RefCell;
use std::collections::HashMap;

/// A switch with at least this many cases that read alike (a type each, under its own label)
/// finds its case in a table built at load time, instead of testing the tag once per case.
const DISPATCH_TABLE_CASES: usize = 8;

/// Tables the dissector builds once, at load time (a switch's cases by tag value), each
/// declared before the first function that reads it.
#[derive(Default)]
pub(crate) struct Tables {
    /// Declarations not yet placed before a function.
    pending: RefCell<Vec<String>>,
    /// Every table declared so far, by its entries: a struct rendered again (a `filter:` use)
    /// or a second switch of the same cases reads the first one's table.
    declared: RefCell<HashMap<String, String>>,
}

impl Tables {
    /// The name of the table of `entries`: `name`, declared with `comment` before the next
    /// function, or the table of the same entries declared before.
    fn declare(&self, name: &str, comment: &str, entries: String) -> String {
        let mut declared = self.declared.borrow_mut();
        if let Some(first) = declared.get(&entries) {
            return first.clone();
        }
        declared.insert(entries.clone(), name.to_string());
        self.pending
            .borrow_mut()
            .push(format!("{comment}{name} = {{\n{entries}}}\n\n"));
        name.to_string()
    }

    /// The declarations the next function reads, to be written before it.
    pub(crate) fn take(&self) -> String {
        self.pending.take().concat()
    }
}

/// Where a switch's case chain is written: the protocol, the load-time tables, and the table
/// name this switch's cases would have (`CASES.TypedValue_value`).
pub(crate) struct Chain<'a> {
    pub(crate) p: &'a Protocol,
    pub(crate) tables: &'a Tables,
    pub(crate) table: String,
}

impl<'a> Chain<'a> {
    pub(crate) fn new(p: &'a Protocol, tables: &'a Tables, sid: StructId, field: &str) -> Self {
        Chain {
            p,
            tables,
            table: format!("CASES.{}_{field}", p.structs[sid].name),
        }
    }
}

/// Marks, in a case's lines, where its label and its type's function stand, so that cases
/// that differ only there can be told apart from the rest.
const LABEL: &str = "\u{1}";
const FUNCTION: &str = "\u{2}";

/// The cases of `u` a dispatch table can hold, and the lines that read them.
struct Dispatch {
    /// The lines of the cases shown under a label (with [`LABEL`] and [`FUNCTION`] marks).
    labelled: Option<Code>,
    /// The lines of the cases shown without one (inline, or of a type shown without a subtree:
    /// [`FUNCTION`] marked).
    plain: Option<Code>,
    /// Per case: its index, tag, label literal (none when shown without one) and function.
    entries: Vec<(usize, u64, Option<String>, String)>,
}

/// The cases of `u` that a dispatch table can hold: one tag value each (a Lua number, not
/// taken by another case), a type as body, lines alike but for the label (if they show one:
/// a case shown inline or of a type shown without a subtree has none) and the function, among
/// the cases with a label and among those without; `None` when fewer than
/// [`DISPATCH_TABLE_CASES`] qualify.
fn dispatch(chain: &Chain, u: &Union, rendered: &[(usize, Code)]) -> Option<Dispatch> {
    let mut d = Dispatch {
        labelled: None,
        plain: None,
        entries: Vec::new(),
    };
    for (ci, code) in rendered {
        let case = &u.cases[*ci];
        let (Some(tag), CaseBody::Struct(id)) = (case.single(), case.body) else {
            continue;
        };
        let taken_elsewhere = u.cases.iter().enumerate().any(|(other, c)| {
            other != *ci
                && c.values.iter().any(|v| match v {
                    CaseValue::One(x) => *x == tag,
                    CaseValue::Range(lo, hi) => (*lo..=*hi).contains(&tag),
                })
        });
        if tag >= 1 << 53 || taken_elsewhere {
            continue;
        }
        let function = struct_fn_name(chain.p, id, None);
        let Some((label, marked)) = marked_case(&code.lines, &case.variant, &function) else {
            continue;
        };
        let template = if label.is_some() {
            &mut d.labelled
        } else {
            &mut d.plain
        };
        match template {
            None => {
                let mut t = code.clone();
                t.lines = marked;
                *template = Some(t);
            }
            Some(t) if t.lines == marked => {}
            Some(_) => continue,
        }
        d.entries.push((*ci, tag, label, function));
    }
    (d.entries.len() >= DISPATCH_TABLE_CASES).then_some(d)
}

impl Dispatch {
    /// The lines reading the case found in table entry `case` (`case_value`): the one
    /// template's, or, when the table holds cases with a label and without (`false` in its
    /// label's place), both, chosen by the label.
    fn lines(self, case: &str, depth: usize) -> Code {
        let labelled = self.labelled.is_some();
        let function = if labelled {
            format!("{case}[2]")
        } else {
            case.to_string()
        };
        let fill = |mut t: Code| {
            for line in &mut t.lines {
                *line = line
                    .replace(LABEL, &format!("{case}[1]"))
                    .replace(FUNCTION, &function);
            }
            t
        };
        match (self.labelled.map(fill), self.plain.map(fill)) {
            (Some(one), None) | (None, Some(one)) => one,
            (Some(with), Some(without)) => {
                let mut both = Code::new(depth + 1);
                both.line(format!("if {case}[1] then"));
                both.append(with.indented(), 0);
                both.line("else");
                both.append(without.indented(), 0);
                both.line("end");
                both
            }
            (None, None) => Code::new(depth + 1),
        }
    }
}

/// A case's lines with its label literal (the string ending in `: <variant>`, if there is one)
/// and its one call of `function` marked, and that literal; `None` when the lines do not read
/// so.
fn marked_case(
    lines: &[String],
    variant: &str,
    function: &str,
) -> Option<(Option<String>, Vec<String>)> {
    let quoted = format!(": {variant}\"");
    let call = format!("{function}(");
    let (mut label, mut marked) = (None, Vec::new());
    for line in lines {
        let mut l = line.clone();
        if label.is_none() {
            if let Some(end) = l.find(&quoted) {
                let start = l[..end].rfind('"')?;
                let stop = end + quoted.len();
                label = Some(l[start..stop].to_string());
                l.replace_range(start..stop, LABEL);
            }
        }
        marked.push(l.replacen(&call, &format!("{FUNCTION}("), 1));
    }
    let calls: usize = marked.iter().map(|l| l.matches(function).count()).sum();
    let marks = marked.iter().filter(|l| l.contains(FUNCTION)).count();
    (marks == 1 && calls == 0).then_some((label, marked))
}

/// The case chain of a switch on `tag_<name>`:
/// `if tag == a or (tag >= lo and tag <= hi) then <body> elseif ... else <default> end`;
/// `no_case` is emitted when there is no default. Many cases that each read a type under
/// their own label are found in a load-time table instead (`local case_<name> =
/// CASES_<Type>_<name>[tag_<name>]`), the other cases chained after it.
pub(crate) fn case_chain(
    c: &mut Code,
    chain: &Chain,
    u: &Union,
    name: &str,
    body: &dyn Fn(&mut Code, CaseBody, &str),
    no_case: &dyn Fn(&mut Code),
) {
    // Each branch's lines, written one level in; cases without lines become a condition of the
    // catch-all instead of an empty branch.
    let depth = c.depth;
    let branch = |emit: &dyn Fn(&mut Code)| {
        let mut b = Code::new(depth + 1);
        emit(&mut b);
        b
    };
    let rendered: Vec<(usize, Code)> = u
        .cases
        .iter()
        .enumerate()
        .map(|(ci, case)| (ci, branch(&|b| body(b, case.body, &case.variant))))
        .collect();
    let table = dispatch(chain, u, &rendered);
    let mut branches: Vec<(String, Code)> = Vec::new();
    let mut silent: Vec<String> = Vec::new();
    let in_table: Vec<usize> = table
        .as_ref()
        .map_or(Vec::new(), |d| d.entries.iter().map(|e| e.0).collect());
    if let Some(d) = table {
        // Cases shown inline have no label: a table of such cases alone holds the functions
        // alone; beside labelled ones, `false` stands for the label.
        let labelled = d.entries.iter().any(|e| e.2.is_some());
        let mixed = labelled && d.entries.iter().any(|e| e.2.is_none());
        let comment = if mixed {
            format!(
                "-- The cases of `{name}` by tag: the label each is shown under (false: shown in the\n\
                 -- tree of what holds it) and the function that reads it.\n"
            )
        } else if labelled {
            format!(
                "-- The cases of `{name}` by tag: the label each is shown under and the function that\n\
                 -- reads it.\n"
            )
        } else {
            format!("-- The cases of `{name}` by tag: the function that reads each.\n")
        };
        let mut text = String::new();
        for (_, tag, label, function) in &d.entries {
            match label {
                Some(label) => text.push_str(&format!("  [{tag}] = {{ {label}, {function} }},\n")),
                None if labelled => {
                    text.push_str(&format!("  [{tag}] = {{ false, {function} }},\n"))
                }
                None => text.push_str(&format!("  [{tag}] = {function},\n")),
            }
        }
        let table = chain.tables.declare(&chain.table, &comment, text);
        c.line(format!("local case_{name} = {table}[tag_{name}]"));
        let template = d.lines(&format!("case_{name}"), depth);
        branches.push((format!("case_{name} ~= nil"), template));
    }
    for (ci, lines) in rendered {
        if in_table.contains(&ci) {
            continue;
        }
        let conds: Vec<String> = u.cases[ci]
            .values
            .iter()
            .map(|v| match v {
                CaseValue::One(x) => format!("tag_{name} == {x}"),
                CaseValue::Range(lo, hi) => format!("(tag_{name} >= {lo} and tag_{name} <= {hi})"),
            })
            .collect();
        if lines.lines.is_empty() {
            silent.extend(conds);
        } else {
            branches.push((conds.join(" or "), lines));
        }
    }
    let tail = branch(&|b| match u.default {
        Some(d) => body(b, d, &u.default_variant),
        None => no_case(b),
    });
    let mut keyword = "if";
    for (cond, lines) in branches {
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

impl<'p> Dissect<'p> {
    /// A union as long as its variant (no length): the variant's own size moves `offset`, and a
    /// `bytes` variant takes the rest of the scope.
    pub(crate) fn union_natural(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        u: &Union,
    ) -> Result<(), Internal> {
        let Place {
            sid,
            fi,
            abbrev,
            tree,
            target,
        } = at;
        let p = self.i.p;
        if u.unless.is_some() {
            return Err(Internal("'unless' on a switch without a length".into()));
        }
        let name = p.structs[sid].fields[fi].name.clone();
        let tag = self.i.exprs().tag_expr(&u.on);
        c.line(format!("local tag_{name} = {tag}"));
        state_tag_check(c, u, &name, tree);
        let inline = shown::case_inline(p, sid, fi, u);
        let field_subtree = p.structs[sid].fields[fi].subtree;
        let body = |c: &mut Code, b: CaseBody, variant: &str| match b {
            // Shown inline, or without a subtree (`subtree: false` on the type or the field): in
            // `tree`.
            CaseBody::Struct(id)
                if (inline && variant != u.default_variant)
                    || !p.structs[id].subtree
                    || !field_subtree =>
            {
                call_struct_or(p, c, id, (tree, "offset", "limit"), target, None);
                c.line("offset = nxt");
            }
            CaseBody::Struct(id) => {
                let label = format!("\"{}: {variant}\"", naming::label(&name));
                let sub = shown::subtree(tree, "tvb(offset, 0)", &label);
                c.line(format!("sub = {sub}"));
                call_struct(p, c, id, "offset", "limit", target);
                c.line(shown::set_len("sub", "nxt - offset"));
                c.line("offset = nxt");
            }
            // Values to the end of the datagram (or of the enclosing length).
            CaseBody::Array(id) => {
                let label = format!("\"{}: {variant}\"", naming::label(&name));
                let arr = if field_subtree {
                    shown::subtree(tree, "tvb(offset, limit - offset)", &label)
                } else {
                    tree.to_string()
                };
                c.line(format!("local arr_{name} = {arr}"));
                c.open("while offset < limit do");
                let element = format!("\"{}\"", p.structs[id].name);
                let arr = format!("arr_{name}");
                let sub = shown::element(p, id, c, &arr, "tvb(offset, 0)", &element);
                call_struct_or(p, c, id, (sub, "offset", "limit"), "", None);
                if sub == "sub" {
                    c.line(shown::set_len("sub", "nxt - offset"));
                }
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
        let chain = Chain::new(p, &self.tables, sid, &name);
        case_chain(c, &chain, u, &name, &body, &no_case);
        Ok(())
    }

    pub(crate) fn union(&mut self, c: &mut Code, at: Place<'_>, u: &Union) -> Result<(), Internal> {
        let Place {
            sid,
            fi,
            abbrev,
            tree,
            target,
        } = at;
        let p = self.i.p;
        let name = p.structs[sid].fields[fi].name.clone();
        if matches!(u.len, Len::Natural) {
            return self.union_natural(c, at, u);
        }
        self.length(c, at, &u.len, false)?;
        let tag = self.i.exprs().tag_expr(&u.on);
        let unless = u.unless.as_ref().map(|e| self.i.exprs().expr(e));
        c.line(format!("local tag_{name} = {tag}"));
        state_tag_check(c, u, &name, tree);
        let cases = |c: &mut Code| {
            if self.i.shared_switch == Some((sid, fi)) {
                let f = switch_fn_name(p, sid, fi);
                c.line(format!(
                    "if {f}(tvb, pinfo, {tree}, offset, n, tag_{name}, v) == nil then return nil end"
                ));
            } else {
                let inline = shown::case_inline(p, sid, fi, u);
                let field_subtree = p.structs[sid].fields[fi].subtree;
                let body = |c: &mut Code, b: CaseBody, variant: &str| {
                    let how = Shown {
                        inline: inline && variant != u.default_variant,
                        subtree: field_subtree,
                    };
                    case_body(p, c, &name, (b, variant), (abbrev, tree, target), how)
                };
                let chain = Chain::new(p, &self.tables, sid, &name);
                case_chain(c, &chain, u, &name, &body, &|c: &mut Code| {
                    no_case(c, &name, tree)
                });
            }
        };
        // `unless` chooses the default variant whatever the tag.
        match (&unless, u.default) {
            (Some(cond), Some(b)) => {
                c.open(format!("if {cond} then"));
                let how = Shown {
                    inline: false,
                    subtree: p.structs[sid].fields[fi].subtree,
                };
                case_body(
                    p,
                    c,
                    &name,
                    (b, &u.default_variant),
                    (abbrev, tree, target),
                    how,
                );
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

/// The name of the function of a shared switch (see [`Dissect::switch_fn`]).
pub(crate) fn switch_fn_name(p: &Protocol, sid: StructId, fi: usize) -> String {
    format!(
        "dissect.{}_{}",
        p.structs[sid].name, p.structs[sid].fields[fi].name
    )
}

/// The expert info of a tag no case takes (a switch without a default).
fn no_case(c: &mut Code, name: &str, tree: &str) {
    c.line(format!(
        "{tree}:add_proto_expert_info(E.invalid, fmt(\"{name}: no case for tag %d\", tag_{name}))"
    ));
}

/// How a case of a sized switch is shown: `inline` (see [`shown::case_inline`]), and whether the
/// switch field makes subtrees at all (`subtree: false` on it leaves out its cases' and its
/// arrays' subtrees).
#[derive(Clone, Copy)]
struct Shown {
    inline: bool,
    subtree: bool,
}

/// One case of a switch with a length `n` at `offset`: its variant's fields (in `tree` when
/// the case is shown without a subtree), or its bytes.
fn case_body(
    p: &Protocol,
    c: &mut Code,
    name: &str,
    (b, variant): (CaseBody, &str),
    (abbrev, tree, target): (&str, &str, &str),
    how: Shown,
) {
    match b {
        CaseBody::Struct(id) => {
            let sub = if how.inline || !how.subtree || !p.structs[id].subtree {
                tree
            } else {
                let label = format!("\"{}: {variant}\"", naming::label(name));
                c.line(format!(
                    "sub = {}",
                    shown::subtree(tree, "tvb(offset, n)", &label)
                ));
                "sub"
            };
            if target.is_empty() {
                // The length is known, so a case its bytes do not hold (a size field that
                // disagrees with the type's layout) is noted over those bytes and what follows
                // is still read. (A value later code reads cannot be skipped.)
                let recover = format!(
                    "{sub}:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes do not hold a {variant}; read on after them\", n)) nxt = offset + n"
                );
                call_struct_or(p, c, id, (sub, "offset", "offset + n"), "", Some(&recover));
            } else {
                call_struct_or(p, c, id, (sub, "offset", "offset + n"), target, None);
            }
            c.line(format!(
                "if nxt < offset + n then {sub}:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
            ));
        }
        // Values until the switch's length is read.
        CaseBody::Array(id) => {
            let label = format!("\"{}: {variant}\"", naming::label(name));
            let arr = if how.subtree {
                shown::subtree(tree, "tvb(offset, n)", &label)
            } else {
                tree.to_string()
            };
            c.line(format!("local arr_{name} = {arr}"));
            c.line(format!("local stop_{name} = offset + n"));
            c.line(format!("local at_{name} = offset"));
            c.open(format!("while at_{name} < stop_{name} do"));
            let element = format!("\"{}\"", p.structs[id].name);
            let range = format!("tvb(at_{name}, 0)");
            let arr = format!("arr_{name}");
            let sub = shown::element(p, id, c, &arr, &range, &element);
            let (lo, hi) = (format!("at_{name}"), format!("stop_{name}"));
            call_struct_or(p, c, id, (sub, &lo, &hi), "", None);
            if sub == "sub" {
                c.line(shown::set_len("sub", &format!("nxt - at_{name}")));
            }
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

impl<'p> Dissect<'p> {
    /// The cases of the root's switch `fi` as a function of their own, for the packet and for
    /// a reassembled payload (`dissect_whole`): given the `n` bytes at `offset` and the tag,
    /// it returns where the switch ends, or nil when a value later code reads could not be
    /// read. Its `unless` stays with the packet (a reassembled payload has none).
    pub(crate) fn switch_fn(&mut self, sid: StructId, fi: usize) -> Result<String, Internal> {
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        let Ty::Union(u) = &f.ty else {
            return Err(Internal("'as' must name a switch".into()));
        };
        let name = f.name.as_str();
        let abbrev = naming::abbrev(p, sid, fi);
        let target = self.i.value_target(sid, fi);
        let mut c = Code::new(0);
        c.line(format!(
            "-- {name}: the case tag_{name} picks, in the n bytes at offset (of a packet, or of a"
        ));
        c.line("-- reassembled payload).");
        c.open(format!(
            "function {}(tvb, pinfo, tree, offset, n, tag_{name}, v)",
            switch_fn_name(p, sid, fi)
        ));
        let locals = c.lines.len();
        c.start_function();
        let inline = shown::case_inline(p, sid, fi, u);
        let body = |c: &mut Code, b: CaseBody, variant: &str| {
            let how = Shown {
                inline: inline && variant != u.default_variant,
                subtree: f.subtree,
            };
            case_body(p, c, name, (b, variant), (&abbrev, "tree", &target), how)
        };
        let chain = Chain::new(p, &self.tables, sid, name);
        case_chain(&mut c, &chain, u, name, &body, &|c: &mut Code| {
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
