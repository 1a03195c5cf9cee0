//! Numbers, bools, enums and flag sets of byte layouts: one bounds check, one item each.

use super::*;

impl<'p> Dissect<'p> {
    /// A number, bool, enum or flag set of a byte layout.
    pub(super) fn value_scalar(&mut self, c: &mut Code, at: Place<'_>, n: ByteNumber) {
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
        let needed = self.i.l.needed.contains(&(sid, fi));
        // `range` is made when the value is read or the range is used again (flag bits).
        let scalar_in = |c: &mut Code, n: usize, endian: Endian, read: String, reused: bool| {
            c.line(format!("if limit - offset < {n} then return truncated({tree}, tvb, offset, \"{name}\", {n}, limit - offset) end"));
            if needed || reused {
                c.line(format!("range = tvb(offset, {n})"));
                c.item(format!("{tree}:{}(F[\"{abbrev}\"], range)", add_fn(endian)));
                if needed {
                    c.line(format!("val = range:{read}"));
                    keep(c, target, "val");
                }
            } else {
                c.item(format!(
                    "{tree}:{}(F[\"{abbrev}\"], tvb(offset, {n}))",
                    add_fn(endian)
                ));
            }
        };
        let scalar = |c: &mut Code, n: usize, endian: Endian, read: String| {
            scalar_in(c, n, endian, read, false)
        };
        match n {
            ByteNumber::Int(it) => {
                scalar(
                    c,
                    it.bytes(),
                    it.endian,
                    int_reader(it.bytes(), it.signed, it.endian),
                );
                if needed && Numbering::keeps_exact(p, sid, fi) {
                    keep_exact(c, &it, name);
                }
                c.line(format!("offset = offset + {}", it.bytes()));
            }
            ByteNumber::Bool => {
                scalar(c, 1, Endian::Big, "uint() ~= 0".into());
                c.line("offset = offset + 1");
            }
            ByteNumber::Float { bits: 16, endian } => {
                // Wireshark has no half-float field: decode the bits and show the value.
                let le = if endian == Endian::Little { "le_" } else { "" };
                c.line(format!("if limit - offset < 2 then return truncated({tree}, tvb, offset, \"{name}\", 2, limit - offset) end"));
                c.line("range = tvb(offset, 2)");
                c.line(format!("val = f16_from_bits(range:{le}uint())"));
                c.item(format!("{tree}:add(F[\"{abbrev}\"], range, val)"));
                keep(c, target, "val");
                c.line("offset = offset + 2");
            }
            ByteNumber::Float { bits, endian } => {
                let n = bits as usize / 8;
                let le = if endian == Endian::Little { "le_" } else { "" };
                scalar(c, n, endian, format!("{le}float()"));
                c.line(format!("offset = offset + {n}"));
            }
            ByteNumber::Leb128 | ByteNumber::ZigZag => {
                leb128_lines(c, tree, name);
                if n == ByteNumber::ZigZag {
                    c.line("val = zigzag64(val)");
                }
                c.item(format!("{tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"));
                keep(c, target, "val:tonumber()");
                c.line("offset = offset + n");
            }
            ByteNumber::RiptideLen => {
                riptide_len_lines(c, tree, name);
                c.item(format!("{tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"));
                keep(c, target, "val");
                c.line("offset = offset + n");
            }
            ByteNumber::Enum(id) => {
                let e = &p.enums[id];
                let n = e.repr.bytes();
                scalar(
                    c,
                    n,
                    e.repr.endian,
                    int_reader(n, e.repr.signed, e.repr.endian),
                );
                enum_check(c, e, name);
                c.line(format!("offset = offset + {n}"));
            }
            ByteNumber::Flags(id) => {
                let fl = &p.flags[id];
                let n = fl.repr.bytes();
                scalar_in(
                    c,
                    n,
                    fl.repr.endian,
                    int_reader(n, fl.repr.signed, fl.repr.endian),
                    !fl.bits.is_empty(),
                );
                for b in &fl.bits {
                    let a = naming::flag_abbrev(abbrev, &b.name);
                    c.read_item(format!(
                        "item:{}(F[\"{a}\"], range)",
                        add_fn(fl.repr.endian)
                    ));
                }
                c.line(format!("offset = offset + {n}"));
            }
        }
    }
}

/// A join's number past 32 bits, read again from `range` (made when the value is read, which a
/// join's number always is), kept exact as a UInt64 beside the Lua number (see `Numbering`).
fn keep_exact(c: &mut Code, it: &IntTy, name: &str) {
    let le = if it.endian == Endian::Little {
        "le_"
    } else {
        ""
    };
    c.line(format!(
        "{} = range:{le}uint64()",
        value_slot(&format!("{name}_u64"))
    ));
}
