//! Numbers of a bit stream: integers (and the enums and flag sets over them), bools, floats,
//! variable-length integers.

use super::*;

impl BitRead<'_> {
    /// An integer of `it`, added under `abbrev` (the field's, or its length prefix's).
    pub(crate) fn int(&self, c: &mut Code, it: &IntTy, abbrev: &str) {
        let (tree, target) = (self.tree, self.target);
        self.need(c, &it.bits.to_string());
        if it.bits > 32 {
            let rb64 = self.reader("read_bits64");
            c.line(format!(
                "val = {rb64}(tvb, offset, {}, {})",
                it.bits, it.signed
            ));
        } else {
            let rb = self.reader("read_bits");
            c.line(format!("val = {rb}(tvb, offset, {})", it.bits));
        }
        if it.signed && it.bits <= 32 {
            c.line(format!(
                "if val >= {} then val = val - {} end",
                1u64 << (it.bits - 1),
                1u128 << it.bits
            ));
        }
        c.item(format!(
            "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, {}), val)",
            it.bits
        ));
        // Where the field starts and ends when that is not a byte boundary.
        let span = format!(
            "item:append_text(string.format(\" [bits %d-%d]\", offset, offset + {}))",
            it.bits - 1
        );
        if !it.bits.is_multiple_of(8) {
            c.read_item(shown::only(&span));
        } else {
            c.read_item(format!("if VISIBLE and offset % 8 ~= 0 then {span} end"));
        }
        // Expressions read numbers (exact up to 2^53).
        keep(
            c,
            target,
            if it.bits > 32 {
                "val:tonumber()"
            } else {
                "val"
            },
        );
        c.line(format!("offset = offset + {}", it.bits));
    }

    pub(crate) fn bool(&self, c: &mut Code) {
        let (tree, abbrev, target) = (self.tree, self.abbrev, self.target);
        self.need(c, "1");
        c.line(format!(
            "val = {}(tvb, offset, 1) == 1",
            self.reader("read_bits")
        ));
        c.item(format!(
            "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 1), val)"
        ));
        c.read_item(shown::only(
            "item:append_text(string.format(\" [bit %d]\", offset))",
        ));
        keep(c, target, "val");
        c.line("offset = offset + 1");
    }

    /// A float of `bits` bits (16, 32 or 64).
    pub(crate) fn float(&self, c: &mut Code, bits: u32) {
        let (tree, abbrev, target) = (self.tree, self.abbrev, self.target);
        self.need(c, &bits.to_string());
        let rb = self.reader("read_bits");
        match bits {
            32 => c.line(format!("val = f32_from_bits({rb}(tvb, offset, 32))")),
            16 => c.line(format!("val = f16_from_bits({rb}(tvb, offset, 16))")),
            _ => {
                // f64: its 64 bits as a UInt64, then the double they are.
                let rb64 = self.reader("read_bits64");
                c.line(format!("val = {rb64}(tvb, offset, 64, false)"));
                c.line("val = f64_from_bits(val:higher(), val:lower())");
            }
        }
        c.item(format!(
            "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, {bits}), val)"
        ));
        keep(c, target, "val");
        c.line(format!("offset = offset + {bits}"));
    }

    /// A LEB128 integer (ZigZag-encoded when `zigzag`).
    pub(crate) fn leb128(&self, c: &mut Code, zigzag: bool) {
        let (tree, abbrev, target, name) = (self.tree, self.abbrev, self.target, &self.name);
        c.line(format!(
            "val, n = {}(tvb, offset, limit)",
            self.reader("read_leb128")
        ));
        c.line(format!("if val == nil then return truncated_bits({tree}, tvb, offset, \"{name}\", n + 8, limit - offset) end"));
        c.line(format!("if val == false then {tree}:add_proto_expert_info(E.too_large, \"{name}: a variable-length integer longer than 64 bits\") return nil end"));
        if zigzag {
            c.line("val = zigzag64(val)");
        }
        c.item(format!(
            "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, n), val)"
        ));
        keep(c, target, "val:tonumber()");
        c.line("offset = offset + n");
    }

    /// A Rabbit integer of `bits` bits (ZigZag-encoded when `signed`).
    pub(crate) fn rabbit(&self, c: &mut Code, bits: u32, signed: bool) {
        let (tree, abbrev, target, name) = (self.tree, self.abbrev, self.target, &self.name);
        let k = match bits {
            16 => 1,
            32 => 2,
            _ => 3,
        };
        c.line(format!("val, n = read_rabbit(tvb, offset, limit, {k})"));
        c.line(format!("if val == nil then return truncated_bits({tree}, tvb, offset, \"{name}\", n, limit - offset) end"));
        let wide = bits == 64;
        if wide {
            // Up to 4 bytes read_rabbit gives a number, beyond a UInt64; 64-bit fields
            // take only UInt64/Int64 values.
            c.line("if type(val) == \"number\" then val = UInt64(val) end");
        }
        if signed && wide {
            c.line("val = zigzag64(val)");
        } else if signed {
            c.line("if val % 2 == 1 then val = -(val + 1) / 2 else val = val / 2 end");
        }
        c.item(format!(
            "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, n), val)"
        ));
        keep(c, target, if wide { "val:tonumber()" } else { "val" });
        c.line("offset = offset + n");
    }

    /// A flag set: its integer, then one item per named bit under it.
    pub(crate) fn flags(&self, c: &mut Code, fl: &Flags) {
        self.int(c, &fl.repr, self.abbrev);
        let w = fl.repr.bits;
        for b in &fl.bits {
            let a = naming::flag_abbrev(self.abbrev, &b.name);
            c.read_item(format!(
                "item:add(F[\"{a}\"], bit_range(tvb, offset - {w}, {w}), has_bit(val, {}))",
                b.value
            ));
        }
    }
}
