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
        let a = self.group_abbrev(sid, gi);
        self.add_field(
            a.clone(),
            format!(
                "ProtoField.{}(\"{a}\", \"{}\", base.HEX, nil, nil, \"{}\")",
                container_field(&g.int, false),
                naming::label(&g.name),
                lua_escape(&first_line(&g.doc))
            ),
        );
        // Fields of an integer wider than 32 bits are shown with the values the dissector takes
        // out of it (a UInt64), not by mask: Wireshark 4.0 takes a mask as a Lua number only.
        let wide = g.int.bytes() > 4;
        let width = if wide {
            "base.NONE".to_string()
        } else {
            g.int.bits.to_string()
        };
        for fi in g.fields.clone() {
            let f = &s.fields[fi];
            let Access::Group {
                shift, width: bits, ..
            } = self.l.field(sid, fi).access
            else {
                continue;
            };
            let mask = if wide {
                "nil".to_string()
            } else {
                format!("{:#x}", ((1u64 << bits) - 1) << shift)
            };
            // The integer type a field's ProtoField has: the group's (masked), or its own.
            let own = |signed: bool, bits: u32| {
                let int = if wide {
                    IntTy {
                        bits,
                        signed,
                        endian: g.int.endian,
                    }
                } else {
                    g.int
                };
                container_field(&int, signed)
            };
            let a = self.abbrev(sid, fi);
            let label = naming::label(&f.name);
            let doc = lua_escape(&first_line(&f.doc));
            let ctor = match &f.ty {
                Ty::Bool => {
                    format!(
                        "ProtoField.bool(\"{a}\", \"{label}\", {width}, nil, {mask}, \"{doc}\")"
                    )
                }
                Ty::Int(it) => format!(
                    "ProtoField.{}(\"{a}\", \"{label}\", {}, nil, {mask}, \"{doc}\")",
                    own(it.signed, it.bits),
                    // (A group holds no checksum: validation.)
                    int_base(it, shows_hex(&f.role, f.display))
                ),
                Ty::Enum(id) => {
                    let e = &p.enums[*id];
                    let (base, names) = if e.ranges.is_empty() {
                        ("base.HEX", format!("VS_{}", e.name))
                    } else {
                        ("base.RANGE_STRING", format!("RS_{}", e.name))
                    };
                    format!(
                        "ProtoField.{}(\"{a}\", \"{label}\", {base}, {names}, {mask}, \"{doc}\")",
                        own(false, e.repr.bits)
                    )
                }
                Ty::Flags(id) => {
                    let fl = &p.flags[*id];
                    for b in &fl.bits {
                        let fa = naming::flag_abbrev(&a, &b.name);
                        let bit_mask = if wide {
                            "nil".to_string()
                        } else {
                            format!("{:#x}", b.value << shift)
                        };
                        self.add_field(
                            fa.clone(),
                            format!(
                                "ProtoField.bool(\"{fa}\", \"{}\", {width}, nil, {bit_mask}, \"{}\")",
                                lua_escape(&b.name),
                                lua_escape(&first_line(&b.doc))
                            ),
                        );
                    }
                    format!(
                        "ProtoField.{}(\"{a}\", \"{label}\", base.HEX, nil, {mask}, \"{doc}\")",
                        own(false, fl.repr.bits)
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
        let Access::Group { group: gi, .. } = self.l.field(sid, fi).access else {
            return;
        };
        let g = &p.structs[sid].groups[gi];
        if g.fields.start != fi {
            return;
        }
        let n = g.int.bytes();
        c.line(format!("-- {}: a bit group", g.name));
        c.line(format!("if limit - offset < {n} then return truncated({tree}, tvb, offset, \"{}\", {n}, limit - offset) end", g.name));
        // Wider than 32 bits: kept a UInt64, its fields taken out exactly.
        let reader = if n > 4 {
            let le = if g.int.endian == Endian::Little {
                "le_"
            } else {
                ""
            };
            format!("{le}uint64()")
        } else {
            int_reader(n, false, g.int.endian)
        };
        c.line(format!(
            "local group_{} = tvb(offset, {n}):{reader}",
            g.name
        ));
        c.line(format!(
            "local group_{}_item = {tree}:{}(F[\"{}\"], tvb(offset, {n}))",
            g.name,
            add_fn(g.int.endian),
            self.group_abbrev(sid, gi)
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
        let Access::Group {
            group,
            shift,
            width: bits,
        } = self.l.field(sid, fi).access
        else {
            return;
        };
        let g = &p.structs[sid].groups[group];
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
        let wide = n > 4;
        let value = if wide {
            // A UInt64's field: shifted and masked as a UInt64, a number where it is exact.
            let mask = if bits > 53 {
                format!("UInt64.fromhex(\"{:x}\")", u64::MAX >> (64 - bits))
            } else {
                format!("{:#x}", (1u64 << bits) - 1)
            };
            // A field over 32 bits has a 64-bit ProtoField, which takes the UInt64 itself.
            let exact = if bits <= 32 { ":tonumber()" } else { "" };
            Some(format!("val = {raw}:rshift({shift}):band({mask}){exact}"))
        } else {
            read.then(|| format!("val = {shifted} % {}", 1u64 << bits))
        };
        if let Some(value) = value {
            c.line(value);
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
        if wide {
            c.item(format!(
                "{group_item}:add(F[\"{abbrev}\"], tvb(offset, {n}), val)"
            ));
            // A number for what reads it on (exact up to 2^53).
            if (33..=53).contains(&bits) && read {
                c.line("val = val:tonumber()");
            }
        } else {
            c.item(format!(
                "{group_item}:{add}(F[\"{abbrev}\"], tvb(offset, {n}))"
            ));
        }
        match &f.ty {
            Ty::Enum(id) => enum_check(c, &p.enums[*id], &f.name),
            Ty::Flags(id) => {
                for b in &p.flags[*id].bits {
                    let fa = naming::flag_abbrev(abbrev, &b.name);
                    if wide {
                        c.read_item(format!(
                            "item:add(F[\"{fa}\"], tvb(offset, {n}), has_bit(val, {:#x}))",
                            b.value
                        ));
                    } else {
                        c.read_item(format!("item:{add}(F[\"{fa}\"], tvb(offset, {n}))"));
                    }
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
