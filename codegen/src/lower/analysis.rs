//! Analyses every backend needs: which decoded values are read later, which types an extension
//! takes from its base schema.

use crate::ir::*;
use std::collections::{BTreeSet, HashSet};

/// The fields (struct, index) an expression reads, along each path.
pub(crate) fn refs(e: &Expr, out: &mut HashSet<(StructId, usize)>) {
    match e {
        Expr::Field(path) | Expr::FlagBit(path, _) | Expr::Len(path, _) => {
            out.extend(path.iter().map(|r| (r.struct_id, r.field)));
        }
        Expr::Enclosing(r) => {
            out.insert((r.struct_id, r.field));
        }
        Expr::Not(x) | Expr::Neg(x) | Expr::Item(_, x) => refs(x, out),
        Expr::Binary(_, a, b) => {
            refs(a, out);
            refs(b, out);
        }
        Expr::Cond(c, a, b) => {
            refs(c, out);
            refs(a, out);
            refs(b, out);
        }
        _ => {}
    }
}

/// The fields a field's own expressions read: its condition, its length or count, its switch's
/// tag and length, the conditions of the bits its encoder sets (`set_when`).
fn field_refs(f: &Field, out: &mut HashSet<(StructId, usize)>) {
    each_own_expr(f, &mut |e| refs(e, out));
}

/// Calls `visit` on each of a field's own expressions (see [`field_refs`]).
pub(crate) fn each_own_expr(f: &Field, visit: &mut impl FnMut(&Expr)) {
    if let Some(c) = &f.condition {
        visit(c);
    }
    for imp in &f.implied {
        match &imp.when {
            ImpliedWhen::Holds(e, _) | ImpliedWhen::Variant { value: e, .. } => visit(e),
            _ => {}
        }
    }
    each_size_expr(&f.ty, visit);
}

/// Calls `visit` on each expression the sizes of a value of `ty` read (its elements' too:
/// `element: { length: f }`), and a switch's tag.
fn each_size_expr(ty: &Ty, visit: &mut impl FnMut(&Expr)) {
    match ty {
        Ty::Bytes(Len::Expr(e)) | Ty::Str(Len::Expr(e), _) | Ty::Struct(_, Some(Len::Expr(e))) => {
            visit(e)
        }
        Ty::Array(elem, len) => {
            if let Len::Expr(e) | Len::Bytes(e) = len {
                visit(e);
            }
            each_size_expr(elem, visit);
        }
        Ty::Union(u) => {
            visit(&u.on);
            if let Len::Expr(e) = &u.len {
                visit(e);
            }
        }
        _ => {}
    }
}

/// Calls `visit` on every expression a decoder of struct `s` evaluates: its fields' own, their
/// state lists' keys and their warnings.
pub(crate) fn each_decoded_expr(s: &Struct, visit: &mut impl FnMut(&Expr)) {
    for f in &s.fields {
        each_own_expr(f, visit);
        for (_, key) in &f.select {
            visit(key);
        }
        for (w, _) in &f.warnings {
            visit(w);
        }
    }
}

/// The fields of struct `sid` that its own expressions (conditions, lengths, counts, switch
/// tags and lengths) read.
pub fn fields_read_by_expressions(p: &Protocol, sid: StructId) -> HashSet<usize> {
    let mut out = HashSet::new();
    for f in &p.structs[sid].fields {
        field_refs(f, &mut out);
    }
    out.into_iter()
        .filter(|(s, _)| *s == sid)
        .map(|(_, fi)| fi)
        .collect()
}

/// Every field whose decoded value some generated Lua reads: the `kept` ones
/// ([`kept_values`]), and enums, whose names are looked up as each value is read.
pub fn needed_values(
    p: &Protocol,
    kept: &HashSet<(StructId, usize)>,
) -> HashSet<(StructId, usize)> {
    let mut out = kept.clone();
    for (sid, s) in p.structs.iter().enumerate() {
        for (fi, f) in s.fields.iter().enumerate() {
            let named = matches!(f.ty, Ty::Enum(_))
                || matches!(&f.ty, Ty::Array(e, _) if matches!(**e, Ty::Enum(_)));
            if named {
                out.insert((sid, fi));
            }
        }
    }
    out
}

/// Every field whose decoded value generated Lua reads back once it is read (checks of a
/// constant, a maximum or the values allowed, expressions, warnings, Info summaries, keys of
/// state, joins, reassembly and the analysis): the values a dissector keeps in its type's
/// values. An enum's value, only looked up in its names as it is read, needs no place there:
/// every kept value is a table store, and a new key in a table grows it.
pub fn kept_values(p: &Protocol) -> HashSet<(StructId, usize)> {
    let mut out = HashSet::new();
    for (sid, s) in p.structs.iter().enumerate() {
        for (fi, f) in s.fields.iter().enumerate() {
            field_refs(f, &mut out);
            for (w, _) in &f.warnings {
                refs(w, &mut out);
            }
            // (A checksum is checked against the bytes it is stored in, not its value.)
            if matches!(f.role, Role::Const(_)) || f.max.is_some() || f.valid.is_some() {
                out.insert((sid, fi));
            }
        }
    }
    // Any type's Info-column summary reads its values.
    for (sid, s) in p.structs.iter().enumerate() {
        for part in &s.info {
            if let InfoPart::Field(i) = part {
                out.insert((sid, *i));
            }
        }
    }
    for s in &p.structs {
        for f in &s.fields {
            for (_, key) in &f.select {
                refs(key, &mut out);
            }
        }
    }
    for t in &p.state {
        for r in &t.records {
            out.insert((r.in_struct, r.key));
            out.insert((r.elem, r.item));
            // The list is read back element by element.
            out.insert((r.holder, r.list));
        }
    }
    for a in &p.app_points {
        out.extend(a.id.map(|id| (a.in_struct, id)));
    }
    for j in &p.joins {
        out.extend(
            [&j.sequence]
                .into_iter()
                .chain(j.streams.iter().map(|s| &s.field))
                .map(|i| (j.in_struct, *i)),
        );
        out.extend(j.key.iter().map(|r| (r.struct_id, r.field)));
        refs(&j.first, &mut out);
        refs(&j.last, &mut out);
    }
    for j in &p.stream_joins {
        out.extend(j.streams.iter().map(|s| (j.in_struct, s.field)));
    }
    if let Some(r) = &p.reassembly {
        out.extend(
            r.key
                .iter()
                .chain([&r.index, &r.field])
                .map(|i| (p.root, *i)),
        );
        match &r.end {
            PieceEnd::Last(e) => refs(e, &mut out),
            PieceEnd::Count(f) => {
                out.insert((p.root, *f));
            }
        }
        if let WholeType::AsField(fi) = r.whole {
            if let Ty::Union(u) = &p.root().fields[fi].ty {
                refs(&u.on, &mut out);
            }
        }
        if let Some(w) = &r.when {
            refs(w, &mut out);
        }
    }
    if let Some(r) = &p.reliability {
        for q in &r.sequences {
            out.insert((q.in_struct, q.field));
            let reliable = match &q.reliable {
                Reliable::When(e) => Some(e),
                _ => None,
            };
            for e in q
                .when
                .iter()
                .chain(reliable)
                .chain(q.part.as_ref().map(|(_, l)| l))
            {
                refs(e, &mut out);
            }
            out.extend(q.part.as_ref().map(|(fi, _)| (q.in_struct, *fi)));
        }
        for a in &r.acks {
            out.insert((a.in_struct, a.field));
            out.extend(a.part.map(|fi| (a.in_struct, fi)));
            out.extend(a.bits.map(|(fi, _)| (a.in_struct, fi)));
            if let Some(w) = &a.when {
                refs(w, &mut out);
            }
        }
        for g in &r.pings {
            out.insert((g.in_struct, g.id));
        }
    }
    out
}

/// Integer tag fields that switches name: for each (struct, field) that is the whole tag of a
/// switch in its own struct, the name of the case each single tag value selects (Wireshark shows
/// `Variant: Pong (1)`, the crate's variant name). Tags whose switches disagree get none.
pub fn case_names(
    p: &Protocol,
) -> std::collections::HashMap<(StructId, usize), Vec<(u64, String)>> {
    let mut out: std::collections::HashMap<(StructId, usize), Vec<(u64, String)>> =
        std::collections::HashMap::new();
    let mut disputed = HashSet::new();
    for (sid, s) in p.structs.iter().enumerate() {
        for f in &s.fields {
            let Ty::Union(u) = &f.ty else { continue };
            let Expr::Field(path) = &u.on else { continue };
            let [tag] = path.as_slice() else { continue };
            if tag.struct_id != sid || !matches!(p.field(tag).ty, Ty::Int(_)) {
                continue;
            }
            let names: Vec<(u64, String)> = u
                .cases
                .iter()
                .flat_map(|c| {
                    c.values.iter().filter_map(|v| match v {
                        CaseValue::One(x) => Some((*x, c.variant.clone())),
                        CaseValue::Range(..) => None,
                    })
                })
                .collect();
            let key = (sid, tag.field);
            match out.get(&key) {
                Some(seen) if *seen != names => {
                    disputed.insert(key);
                }
                _ => {
                    out.insert(key, names);
                }
            }
        }
    }
    out.retain(|k, names| !disputed.contains(k) && !names.is_empty());
    out
}

/// The enums, flags and structs an extending schema takes from its base crate (`pub use`):
/// those it does not declare, whose every part is taken too. The root and the types that
/// reassembly code adds methods to are always its own.
pub struct Reuse {
    pub enums: Vec<bool>,
    pub flags: Vec<bool>,
    pub structs: Vec<bool>,
}

impl Reuse {
    pub fn of(p: &Protocol) -> Reuse {
        let Some(b) = &p.base else {
            return Reuse {
                enums: vec![false; p.enums.len()],
                flags: vec![false; p.flags.len()],
                structs: vec![false; p.structs.len()],
            };
        };
        let kept = |name: &str| !b.touched.contains(name);
        let enums: Vec<bool> = p.enums.iter().map(|e| kept(&e.name)).collect();
        let flags: Vec<bool> = p.flags.iter().map(|f| kept(&f.name)).collect();
        let mut structs: Vec<bool> = p.structs.iter().map(|s| kept(&s.name)).collect();
        structs[p.root] = false;
        for j in &p.joins {
            structs[j.in_struct] = false;
        }
        // What a type tells the netcode analysis is an impl of its own (`add_facts`), by this
        // schema's rules, which an extension may give anew.
        if let Some(r) = &p.reliability {
            for (id, kept) in structs.iter_mut().enumerate() {
                *kept &= !r.reads(id);
            }
        }
        fn parts_kept(ty: &Ty, enums: &[bool], flags: &[bool], structs: &[bool]) -> bool {
            match ty {
                Ty::Enum(id) => enums[*id],
                Ty::Flags(id) => flags[*id],
                Ty::Struct(id, _) => structs[*id],
                Ty::Array(e, _) => parts_kept(e, enums, flags, structs),
                Ty::Union(_) => {
                    let mut kids = Vec::new();
                    ty.child_structs(&mut kids);
                    kids.iter().all(|k| structs[*k])
                }
                _ => true,
            }
        }
        loop {
            let mut changed = false;
            for (id, s) in p.structs.iter().enumerate() {
                if structs[id]
                    && !s
                        .fields
                        .iter()
                        .all(|f| parts_kept(&f.ty, &enums, &flags, &structs))
                {
                    structs[id] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Reuse {
            enums,
            flags,
            structs,
        }
    }

    pub fn any(&self) -> bool {
        self.structs.iter().any(|x| *x)
    }
}

/// Whether every value of `p`'s root holds a value at the end of one of `routes` (a `match` on
/// them needs no catch-all): some route ends at the root itself, or through one field of it
/// every variant (or the one struct) leads on to a value the rest of the routes cover. Exact
/// for such paths: where no single field is covered, one uncovered value per field together
/// make a root no route matches.
pub fn routes_cover_root(p: &Protocol, routes: &[&[RouteStep]]) -> bool {
    fn covers(p: &Protocol, sid: StructId, routes: &[&[RouteStep]]) -> bool {
        if routes.iter().any(|r| r.is_empty()) {
            return true;
        }
        let s = &p.structs[sid];
        s.fields.iter().any(|f| {
            let through: Vec<&[RouteStep]> = routes
                .iter()
                .filter(|r| r[0].struct_name == s.name && r[0].field == f.name)
                .copied()
                .collect();
            if through.is_empty() {
                return false;
            }
            let rest = |variant: Option<&str>| -> Vec<&[RouteStep]> {
                through
                    .iter()
                    .filter(|r| r[0].variant.as_ref().map(|(_, v)| v.as_str()) == variant)
                    .map(|r| &r[1..])
                    .collect()
            };
            match &f.ty {
                Ty::Struct(to, _) => covers(p, *to, &rest(None)),
                Ty::Union(u) => {
                    let case = |variant: &str, body: CaseBody| match body {
                        CaseBody::Struct(to) => covers(p, to, &rest(Some(variant))),
                        _ => false,
                    };
                    u.cases.iter().all(|c| case(&c.variant, c.body))
                        && u.default.is_none_or(|d| case(&u.default_variant, d))
                }
                _ => false,
            }
        })
    }
    covers(p, p.root, routes)
}

/// Every plain path from `p`'s root down to a value of struct `target`: through struct fields
/// and switch variants the user sets, none of them optional (a receiver matches on it, a sender
/// builds it).
pub fn routes_to(p: &Protocol, target: StructId) -> Vec<Vec<RouteStep>> {
    fn walk(
        p: &Protocol,
        sid: StructId,
        target: StructId,
        path: &mut Vec<RouteStep>,
        seen: &mut Vec<StructId>,
        out: &mut Vec<Vec<RouteStep>>,
    ) {
        if sid == target {
            out.push(path.clone());
            return;
        }
        if seen.contains(&sid) {
            return;
        }
        seen.push(sid);
        let s = &p.structs[sid];
        let only_field = s.value_fields().count() == 1;
        for (fi, f) in s.value_fields().filter(|(_, f)| f.condition.is_none()) {
            let mut next = |to: StructId, variant: Option<(String, String)>| {
                path.push(RouteStep {
                    struct_name: s.name.clone(),
                    field: f.name.clone(),
                    variant,
                    only_field,
                });
                walk(p, to, target, path, seen, out);
                path.pop();
            };
            match &f.ty {
                Ty::Struct(to, _) => next(*to, None),
                Ty::Union(u) => {
                    let enum_name = p.union_name(sid, fi);
                    for c in &u.cases {
                        if let CaseBody::Struct(to) = c.body {
                            next(to, Some((enum_name.clone(), c.variant.clone())));
                        }
                    }
                    if let Some(CaseBody::Struct(to)) = u.default {
                        next(to, Some((enum_name.clone(), u.default_variant.clone())));
                    }
                }
                _ => {}
            }
        }
        seen.pop();
    }
    let mut out = Vec::new();
    walk(
        p,
        p.root,
        target,
        &mut Vec::new(),
        &mut Vec::new(),
        &mut out,
    );
    out
}

/// The fields of `sid` the user sets, other than `skip`, as arguments of a sender: `None` when
/// one is not a number, bool, enum or flag set (or is optional).
pub fn point_params(p: &Protocol, sid: StructId, skip: &[usize]) -> Option<Vec<PointParam>> {
    let mut out = Vec::new();
    for (fi, f) in p.structs[sid].value_fields() {
        if skip.contains(&fi) {
            continue;
        }
        if f.condition.is_some() {
            return None;
        }
        let (rust, transport_type) = match &f.ty {
            Ty::Int(it) => (
                format!("{}{}", if it.signed { "i" } else { "u" }, it.storage_bits()),
                false,
            ),
            Ty::Bool => ("bool".to_string(), false),
            Ty::Float { bits: 64, .. } => ("f64".to_string(), false),
            Ty::Float { .. } => ("f32".to_string(), false),
            Ty::VarInt(VarInt::Leb128) => ("u64".to_string(), false),
            Ty::VarInt(VarInt::ZigZag) => ("i64".to_string(), false),
            Ty::VarInt(VarInt::RiptideLen) => ("u16".to_string(), false),
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => {
                (format!("{}{bits}", if *signed { "i" } else { "u" }), false)
            }
            Ty::Enum(id) => (p.enums[*id].name.clone(), true),
            Ty::Flags(id) => (p.flags[*id].name.clone(), true),
            _ => return None,
        };
        out.push(PointParam {
            name: f.name.clone(),
            doc: f.doc.clone(),
            rust,
            transport_type,
        });
    }
    Some(out)
}

/// The checksum fields of `fields` in the order an encoder computes them: one that covers
/// another's bytes after it (it covers the other's value, not zeros). `Err` holds the
/// checksums left when they cover each other in a cycle.
pub fn checksum_order(fields: &[Field]) -> Result<Vec<usize>, Vec<usize>> {
    let mut left: Vec<(usize, Checksum)> = fields
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match f.role {
            Role::Checksum(c) => Some((i, c)),
            _ => None,
        })
        .collect();
    let mut order = Vec::new();
    while !left.is_empty() {
        let ready = left
            .iter()
            .position(|(i, c)| !left.iter().any(|(j, _)| j != i && c.covers(*j)));
        match ready {
            Some(k) => order.push(left.remove(k).0),
            None => return Err(left.into_iter().map(|(i, _)| i).collect()),
        }
    }
    Ok(order)
}

/// The fields of `fields` where a checksum's range starts and where one ends (explicit
/// `from`/`to`), whose positions the codecs keep.
pub fn checksum_bounds(fields: &[Field]) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let (mut starts, mut ends) = (BTreeSet::new(), BTreeSet::new());
    for f in fields {
        if let Role::Checksum(c) = f.role {
            starts.extend(c.from);
            ends.extend(c.to);
        }
    }
    (starts, ends)
}

/// Per struct: whether reading it reads the direction (`@from_client`), in its own expressions
/// or those of a value inside it.
pub fn direction_readers(p: &Protocol) -> Vec<bool> {
    let own: Vec<bool> = p
        .structs
        .iter()
        .map(|s| {
            let mut reads = false;
            each_decoded_expr(s, &mut |e| reads |= e.reads_direction());
            reads
        })
        .collect();
    (0..p.structs.len())
        .map(|sid| {
            reached_from(p, vec![sid], |_, _| true)
                .into_iter()
                .any(|id| own[id])
        })
        .collect()
}

/// Whether a value of `ty` can be read from no bytes (conservatively: a length or count given
/// by an expression may be 0).
pub fn can_be_empty(p: &Protocol, ty: &Ty) -> bool {
    empty_in(p, ty, true, &mut Vec::new())
}

/// Whether a value of `ty` can be read from no bytes whatever the lengths and counts it reads
/// from the wire say (every field of it optional, say): a schema mistake rather than data.
pub fn always_may_be_empty(p: &Protocol, ty: &Ty) -> bool {
    empty_in(p, ty, false, &mut Vec::new())
}

/// [`can_be_empty`] (`from_wire`: a length or count read from the data may be 0) and
/// [`always_may_be_empty`]; `seen` stops at recursive types.
fn empty_in(p: &Protocol, ty: &Ty, from_wire: bool, seen: &mut Vec<StructId>) -> bool {
    // A length or count: 0 when written so, maybe 0 when read from the data.
    let zero = |l: &Len| match l {
        Len::Expr(Expr::Int(n, _)) | Len::Bytes(Expr::Int(n, _)) => *n == 0,
        Len::Expr(_) | Len::Bytes(_) => from_wire,
        // The rest of a scope: empty when the scope's size, read from the data, is 0 (an
        // element's rest without a size of its own is refused as greedy elsewhere).
        Len::Rest => from_wire,
        Len::Natural => true,
        // The prefix itself takes bytes.
        Len::Prefix(_) | Len::VarPrefix(_) => false,
    };
    match ty {
        Ty::Bytes(l) | Ty::Str(l, Text { nul: Nul::No, .. }) => zero(l),
        Ty::Str(..) => false,
        Ty::Array(e, l) => zero(l) || empty_in(p, e, from_wire, seen),
        Ty::Bits => true,
        Ty::Struct(id, len) => {
            if len.as_ref().is_some_and(zero) {
                return true;
            }
            if seen.contains(id) {
                return false;
            }
            seen.push(*id);
            let s = &p.structs[*id];
            let empty = s.padding.pad.is_none()
                && s.fields.iter().all(|f| {
                    f.condition.is_some()
                        || f.group.is_none() && empty_in(p, &f.ty, from_wire, seen)
                });
            seen.pop();
            empty
        }
        Ty::Union(u) => {
            u.cases
                .iter()
                .map(|c| c.body)
                .chain(u.default)
                .any(|b| match b {
                    CaseBody::Struct(id) => empty_in(p, &Ty::Struct(id, None), from_wire, seen),
                    _ => true,
                })
                || u.default.is_none() && u.cases.is_empty()
        }
        _ => false,
    }
}

/// The structs values of `roots` may hold, the roots included, in the order they are found:
/// through every field `follow` lets through (`follow(holder, field)`), fields, arrays and
/// switch cases alike.
pub fn reached_from(
    p: &Protocol,
    roots: Vec<StructId>,
    follow: impl Fn(StructId, &Field) -> bool,
) -> Vec<StructId> {
    let mut reached = Vec::new();
    for r in roots {
        if !reached.contains(&r) {
            reached.push(r);
        }
    }
    let mut k = 0;
    while k < reached.len() {
        let sid = reached[k];
        let mut kids = Vec::new();
        for f in p.structs[sid].fields.iter().filter(|f| follow(sid, f)) {
            f.ty.child_structs(&mut kids);
        }
        for c in kids {
            if !reached.contains(&c) {
                reached.push(c);
            }
        }
        k += 1;
    }
    reached
}
