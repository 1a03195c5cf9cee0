//! Bit groups: the integer read once and shown as a subtree, each field under it as a masked
//! ProtoField (Wireshark draws the bit pattern: `.... .... .... 0101 = Kind: DATA`), its value
//! for later expressions taken from the integer.

use super::*;

impl<'p> Dissect<'p> {
    /// Before field `fi` when it is the first of a bit group: the group's integer, read once
    /// and added to `tree` (its fields go under it).
    pub(crate) fn open_group(&mut self, c: &mut Code, sid: StructId, fi: usize, tree: &str) {
        let p = self.i.p;
        let Access::Group { group: gi, .. } = self.i.l.field(sid, fi).access else {
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
            self.names.group_abbrev(sid, gi)
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
        let p = self.i.p;
        let Access::Group {
            group,
            shift,
            width: bits,
        } = self.i.l.field(sid, fi).access
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
