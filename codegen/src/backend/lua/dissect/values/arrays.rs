//! Arrays: counted, sized in bytes, to the end, and bools packed 8 per byte.

use super::*;

impl<'p> Dissect<'p> {
    /// An array of `elem`s, `count` of them (or as many as fill a size or the rest).
    pub(super) fn value_array(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        elem: &Ty,
        count: &Len,
    ) -> Result<(), Internal> {
        let Place {
            sid,
            fi,
            abbrev,
            tree,
            target,
        } = at;
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        let name = &f.name;
        if f.packed {
            return self.value_packed_bools(c, at, count);
        }
        let label = naming::label(name);
        keep(c, target, "{}");
        let arr = format!("arr_{name}");
        let arr_start = format!("arr_start_{name}");
        // The label counts the elements read (the list itself is kept only when needed).
        let count_of = format!("count_{name}");
        let open_ended = matches!(count, Len::Rest | Len::Natural);
        // Sized in bytes: elements until exactly that many are read, with `limit` moved
        // to their end meanwhile (no element reads past them).
        let in_bytes = matches!(count, Len::Bytes(_));
        // An element without its state list takes the rest as bytes and ends the loop.
        let may_stop = matches!(*elem, Ty::Struct(id, _) if self.i.l.state_readers[id]);
        // A loop that runs `n` times to its end needs no counter.
        let counted = open_ended || may_stop || in_bytes;
        if !open_ended {
            self.length(c, at, count, true)?;
        }
        // The limit an array sized in bytes moves is put back for what follows (nothing
        // does after a last field, unless the struct is padded or aligned).
        let s = &self.i.p.structs[sid];
        let limit_read_after = fi + 1 < s.fields.len() || s.padding.any();
        // `subtree: false` on the field: no list, the elements in the field's tree.
        let list = f.subtree;
        let shape = ArrayShape {
            list,
            in_bytes,
            open_ended,
            counted,
            limit_read_after,
        };
        open_array(c, tree, name, &label, &shape);
        if in_bytes {
            c.line("limit = offset + n");
        }
        c.open(if open_ended || in_bytes {
            "while offset < limit do"
        } else {
            "for _ = 1, n do"
        });
        if counted && list {
            c.line(format!("{count_of} = {count_of} + 1"));
        }
        let item_target = item_of(target);
        let elem_abbrev = naming::element_abbrev(elem, abbrev);
        let empty_elements = self.i.l.field(sid, fi).empty_elements;
        if empty_elements {
            c.line(format!("local before_{name} = offset"));
        }
        self.value(
            c,
            Place {
                sid,
                fi,
                abbrev: &elem_abbrev,
                tree: &arr,
                target: &item_target,
            },
            elem,
        )?;
        if empty_elements {
            // As the crate: an element of no bytes ends the array, said so.
            c.open(format!("if offset == before_{name} then"));
            c.line(format!(
                "{arr}:add_proto_expert_info(E.length, \"an element takes no bytes: the array to the end cannot go on\")"
            ));
            c.line("break");
            c.close("end");
        }
        if may_stop {
            c.line("if REST_TAKEN then break end");
        }
        c.close("end");
        if in_bytes && limit_read_after {
            c.line(format!("limit = outer_limit_{name}"));
        } else if !open_ended && !in_bytes && list {
            c.line(shown::set_len(&arr, &format!("offset - {arr_start}")));
        }
        if counted && list {
            c.line(shown::append_text(
                &arr,
                &format!("string.format(\" (%d)\", {count_of})"),
            ));
        }
        Ok(())
    }

    /// Bools packed 8 per byte, lowest bit first, in a list of their own.
    fn value_packed_bools(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        count: &Len,
    ) -> Result<(), Internal> {
        let Place {
            sid,
            fi,
            abbrev,
            tree,
            target,
        } = at;
        let name = &self.i.p.structs[sid].fields[fi].name;
        let label = naming::label(name);
        self.length(c, at, count, true)?;
        c.line("local packed = floor((n + 7) / 8)");
        c.line(format!("if limit - offset < packed then return truncated({tree}, tvb, offset, \"{name}\", packed, limit - offset) end"));
        c.line(format!("local arr_{name} = {tree}:add(tvb(offset, packed), string.format(\"{label} (%d)\", n))"));
        keep(c, target, "{}");
        c.open("for i = 0, n - 1 do");
        c.line("range = tvb(offset + floor(i / 8), 1)");
        c.line("val = floor(range:uint() / 2 ^ (i % 8)) % 2 == 1");
        c.line(format!("arr_{name}:add(F[\"{abbrev}\"], range, val)"));
        if !target.is_empty() {
            c.line(format!("{target}[i + 1] = val"));
        }
        c.close("end");
        c.line("offset = offset + packed");
        Ok(())
    }
}

/// How an array is read and shown, for [`open_array`].
struct ArrayShape {
    /// In a list of its own (not `subtree: false`).
    list: bool,
    /// Sized in bytes, with `limit` moved to their end.
    in_bytes: bool,
    /// Read to the end of its scope.
    open_ended: bool,
    /// Its elements counted as they are read (not known to be `n` at once).
    counted: bool,
    /// A limit it moves is read after it (put back).
    limit_read_after: bool,
}

/// The locals an array's loop starts from: the tree its elements go in (its list, with the
/// range and label known before the elements are read, or the field's tree), its start, its
/// count so far, the limit it moves.
fn open_array(c: &mut Code, tree: &str, name: &str, label: &str, shape: &ArrayShape) {
    let arr = format!("arr_{name}");
    let arr_start = format!("arr_start_{name}");
    let count_of = format!("count_{name}");
    if !shape.list {
        if shape.in_bytes && shape.limit_read_after {
            c.line(format!("local {arr}, outer_limit_{name} = {tree}, limit"));
        } else {
            c.line(format!("local {arr} = {tree}"));
        }
        return;
    }
    let quoted = format!("\"{label}\"");
    let (range, label_expr, locals, values) = if shape.in_bytes {
        let (locals, values) = if shape.limit_read_after {
            (format!("{arr}, {count_of}, outer_limit_{name}"), "0, limit")
        } else {
            (format!("{arr}, {count_of}"), "0")
        };
        ("tvb(offset, n)", quoted, locals, values)
    } else if shape.open_ended {
        // It runs to the end of its scope: its length is known before it is read.
        let locals = format!("{arr}, {count_of}");
        ("tvb(offset, limit - offset)", quoted, locals, "0")
    } else if shape.counted {
        let locals = format!("{arr}, {arr_start}, {count_of}");
        ("tvb(offset, 0)", quoted, locals, "offset, 0")
    } else {
        // All `n` are read (or the message ends malformed): the label says so at once.
        let counted_label = format!("string.format(\"{label} (%d)\", n)");
        let locals = format!("{arr}, {arr_start}");
        ("tvb(offset, 0)", counted_label, locals, "offset")
    };
    let item = shown::subtree(tree, range, &label_expr);
    c.line(format!("local {locals} = {item}, {values}"));
}
