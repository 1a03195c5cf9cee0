//! Bit groups: the integer read once and shown as a subtree, each field under it as a masked
//! ProtoField (Wireshark draws the bit pattern: `.... .... .... 0101 = Kind: DATA`), its value
//! for later expressions taken from the integer.

use super::*;

/// The ProtoField type of a group's integer (`uint16`); its fields are declared with it too,
/// since a mask must fit the field's type.
fn container_field(int: &IntTy, signed: bool) -> String {
    protofield_int(&IntTy { signed, ..*int })
}

impl<'p> Gen<'p> {
    /// Declares bit group `gi` of struct `sid`: its integer and every field in it, masked.
    pub(crate) fn declare_group(&mut self, sid: StructId, gi: usize) {
        let p = self.p;
        let s = &p.structs[sid];
        let g = &s.groups[gi];
        let a = naming::group_abbrev(p, sid, gi);
        self.add_field(
            a.clone(),
            format!(
                "ProtoField.{}(\"{a}\", \"{}\", base.HEX, nil, nil, \"{}\")",
                container_field(&g.int, false),
                naming::label(&g.name),
                lua_escape(&first_line(&g.doc))
            ),
        );
        let width = g.int.bits;
        for fi in g.fields.clone() {
            let f = &s.fields[fi];
            let Some((_, shift, bits)) = p.packing(sid, fi) else {
                continue;
            };
            let mask = ((1u64 << bits) - 1) << shift;
            let a = naming::abbrev(p, sid, fi);
            let label = naming::label(&f.name);
            let doc = lua_escape(&first_line(&f.doc));
            let ctor = match &f.ty {
                Ty::Bool => {
                    format!(
                        "ProtoField.bool(\"{a}\", \"{label}\", {width}, nil, {mask:#x}, \"{doc}\")"
                    )
                }
                Ty::Int(it) => format!(
                    "ProtoField.{}(\"{a}\", \"{label}\", {}, nil, {mask:#x}, \"{doc}\")",
                    container_field(&g.int, it.signed),
                    int_base(
                        it,
                        f.display
                            .map_or(matches!(f.role, Role::Const(_) | Role::Reserved), |d| {
                                d == DisplayDef::Hex
                            })
                    )
                ),
                Ty::Enum(id) => {
                    let e = &p.enums[*id];
                    let (base, names) = if e.ranges.is_empty() {
                        ("base.HEX", format!("VS_{}", e.name))
                    } else {
                        ("base.RANGE_STRING", format!("RS_{}", e.name))
                    };
                    format!(
                        "ProtoField.{}(\"{a}\", \"{label}\", {base}, {names}, {mask:#x}, \"{doc}\")",
                        container_field(&g.int, false)
                    )
                }
                Ty::Flags(id) => {
                    let fl = &p.flags[*id];
                    for b in &fl.bits {
                        let fa = naming::flag_abbrev(&a, &b.name);
                        self.add_field(
                            fa.clone(),
                            format!(
                                "ProtoField.bool(\"{fa}\", \"{}\", {width}, nil, {:#x}, \"{}\")",
                                lua_escape(&b.name),
                                b.value << shift,
                                lua_escape(&first_line(&b.doc))
                            ),
                        );
                    }
                    format!(
                        "ProtoField.{}(\"{a}\", \"{label}\", base.HEX, nil, {mask:#x}, \"{doc}\")",
                        container_field(&g.int, false)
                    )
                }
                // Validation lets only those into a group.
                _ => continue,
            };
            self.add_field(a, ctor);
        }
    }

    /// Before field `fi` when it is the first of a bit group: the group's integer, read once
    /// and added to `tree` (its fields go under it).
    pub(crate) fn open_group(&mut self, c: &mut Code, sid: StructId, fi: usize, tree: &str) {
        let p = self.p;
        let Some((g, _, _)) = p.packing(sid, fi) else {
            return;
        };
        if g.fields.start != fi {
            return;
        }
        let n = g.int.bytes();
        let gi = p.structs[sid].fields[fi].group.unwrap_or(0);
        c.line(format!("-- {}: a bit group", g.name));
        c.line(format!("if limit - offset < {n} then return truncated({tree}, tvb, offset, \"{}\", {n}, limit - offset) end", g.name));
        c.line(format!(
            "local group_{} = tvb(offset, {n}):{}",
            g.name,
            int_reader(n, false, g.int.endian)
        ));
        c.line(format!(
            "local group_{}_item = {tree}:{}(F[\"{}\"], tvb(offset, {n}))",
            g.name,
            add_fn(g.int.endian),
            naming::group_abbrev(p, sid, gi)
        ));
    }

    /// Reads field `fi`, packed into a bit group: its value from the group's integer, its item
    /// under the integer's; past the integer after the last field.
    pub(crate) fn value_packed(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        abbrev: &str,
        target: &str,
    ) {
        let p = self.p;
        let Some((g, shift, bits)) = p.packing(sid, fi) else {
            return;
        };
        let f = &p.structs[sid].fields[fi];
        let n = g.int.bytes();
        let (raw, group_item) = (
            format!("group_{}", g.name),
            format!("group_{}_item", g.name),
        );
        let add = add_fn(g.int.endian);
        let shifted = if shift == 0 {
            raw.clone()
        } else {
            format!("floor({raw} / {})", 1u64 << shift)
        };
        // The value only where something reads it: a later field, or a check of this one.
        let read = !target.is_empty()
            || matches!(f.ty, Ty::Enum(_))
            || matches!(f.role, Role::Const(_))
            || f.valid.is_some()
            || f.max.is_some()
            || !f.warnings.is_empty();
        if read {
            c.line(format!("val = {shifted} % {}", 1u64 << bits));
            match &f.ty {
                Ty::Bool => c.line("val = val == 1"),
                Ty::Int(it) if it.signed => c.line(format!(
                    "if val >= {} then val = val - {} end",
                    1u64 << (bits - 1),
                    1u64 << bits
                )),
                _ => {}
            }
        }
        c.line(format!(
            "item = {group_item}:{add}(F[\"{abbrev}\"], tvb(offset, {n}))"
        ));
        match &f.ty {
            Ty::Enum(id) => enum_check(c, &p.enums[*id], &f.name),
            Ty::Flags(id) => {
                for b in &p.flags[*id].bits {
                    let fa = naming::flag_abbrev(abbrev, &b.name);
                    c.line(format!("item:{add}(F[\"{fa}\"], tvb(offset, {n}))"));
                }
            }
            _ => {}
        }
        keep(c, target, "val");
        if g.fields.end == fi + 1 {
            c.line(format!("offset = offset + {n}"));
        }
    }
}
