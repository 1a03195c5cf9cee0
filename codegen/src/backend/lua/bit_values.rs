//! Reading a value of a bit stream (LSB-first or MSB-first).

use super::*;

impl<'p> Gen<'p> {
    /// Bit-stream layouts: reads one value of `ty` at bit `offset` (limit in bits too), shown over
    /// the bytes it touches with its decoded value.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn value_bits(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Internal> {
        let p = self.p;
        let f = &p.structs[sid].fields[fi];
        let name = f.name.clone();
        // The template's readers of this stream's bit order.
        let msb = p.structs[sid].layout == Layout::MsbBits;
        let order = |base: &str| {
            if msb {
                format!("{base}_msb")
            } else {
                base.to_string()
            }
        };
        let (rb, rb64) = (order("read_bits"), order("read_bits64"));
        let need = |c: &mut Code, w: String| {
            c.line(format!("if limit - offset < {w} then return truncated_bits({tree}, tvb, offset, \"{name}\", {w}, limit - offset) end"));
        };
        let int = |c: &mut Code, it: &IntTy, abbrev: &str| {
            need(c, it.bits.to_string());
            if it.bits > 32 {
                c.line(format!(
                    "val = {rb64}(tvb, offset, {}, {})",
                    it.bits, it.signed
                ));
            } else {
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
                c.read_item(span);
            } else {
                c.read_item(format!("if offset % 8 ~= 0 then {span} end"));
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
        };
        match ty {
            Ty::Int(it) => int(c, it, abbrev),
            Ty::Bool => {
                need(c, "1".into());
                c.line(format!("val = {rb}(tvb, offset, 1) == 1"));
                c.item(format!(
                    "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 1), val)"
                ));
                c.read_item("item:append_text(string.format(\" [bit %d]\", offset))");
                keep(c, target, "val");
                c.line("offset = offset + 1");
            }
            Ty::Float { bits: 32, .. } => {
                need(c, "32".into());
                c.line(format!("val = f32_from_bits({rb}(tvb, offset, 32))"));
                c.item(format!(
                    "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 32), val)"
                ));
                keep(c, target, "val");
                c.line("offset = offset + 32");
            }
            Ty::Float { bits: 16, .. } => {
                need(c, "16".into());
                c.line(format!("val = f16_from_bits({rb}(tvb, offset, 16))"));
                c.item(format!(
                    "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 16), val)"
                ));
                keep(c, target, "val");
                c.line("offset = offset + 16");
            }
            Ty::Float { .. } => {
                // f64: its 64 bits as a UInt64, then the double they are.
                need(c, "64".into());
                c.line(format!("val = {rb64}(tvb, offset, 64, false)"));
                c.line("val = f64_from_bits(val:higher(), val:lower())");
                c.item(format!(
                    "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 64), val)"
                ));
                keep(c, target, "val");
                c.line("offset = offset + 64");
            }
            Ty::VarInt(VarInt::Leb128 | VarInt::ZigZag) => {
                c.line(format!(
                    "val, n = {}(tvb, offset, limit)",
                    order("read_leb128")
                ));
                c.line(format!("if val == nil then return truncated_bits({tree}, tvb, offset, \"{name}\", n + 8, limit - offset) end"));
                c.line(format!("if val == false then {tree}:add_proto_expert_info(E.too_large, \"{name}: a variable-length integer longer than 64 bits\") return nil end"));
                if matches!(ty, Ty::VarInt(VarInt::ZigZag)) {
                    c.line("val = zigzag64(val)");
                }
                c.item(format!(
                    "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, n), val)"
                ));
                keep(c, target, "val:tonumber()");
                c.line("offset = offset + n");
            }
            Ty::VarInt(VarInt::Rabbit { bits, signed }) => {
                let k = match bits {
                    16 => 1,
                    32 => 2,
                    _ => 3,
                };
                c.line(format!("val, n = read_rabbit(tvb, offset, limit, {k})"));
                c.line(format!("if val == nil then return truncated_bits({tree}, tvb, offset, \"{name}\", n, limit - offset) end"));
                let wide = *bits == 64;
                if wide {
                    // Up to 4 bytes read_rabbit gives a number, beyond a UInt64; 64-bit fields
                    // take only UInt64/Int64 values.
                    c.line("if type(val) == \"number\" then val = UInt64(val) end");
                }
                if *signed && wide {
                    c.line("val = zigzag64(val)");
                } else if *signed {
                    c.line("if val % 2 == 1 then val = -(val + 1) / 2 else val = val / 2 end");
                }
                c.item(format!(
                    "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, n), val)"
                ));
                keep(c, target, if wide { "val:tonumber()" } else { "val" });
                c.line("offset = offset + n");
            }
            Ty::VarInt(_) => {
                return Err(Internal(format!("'{name}': this varint in a bit stream")))
            }
            Ty::Enum(id) => {
                let e = &p.enums[*id];
                int(c, &e.repr, abbrev);
                enum_check(c, e, &name);
            }
            Ty::Flags(id) => {
                let fl = &p.flags[*id];
                int(c, &fl.repr, abbrev);
                let w = fl.repr.bits;
                for b in &fl.bits {
                    let a = naming::flag_abbrev(abbrev, &b.name);
                    c.read_item(format!(
                        "item:add(F[\"{a}\"], bit_range(tvb, offset - {w}, {w}), has_bit(val, {}))",
                        b.value
                    ));
                }
            }
            Ty::Bytes(len) | Ty::Str(len, _) => {
                match len {
                    // Only arrays are sized in bytes (`length:` on an array).
                    Len::Bytes(_) => {
                        return Err(Internal(format!(
                            "'{name}': arrays sized in bytes in bit streams"
                        )))
                    }
                    Len::Expr(e) => {
                        let ex = self.expr(e);
                        c.line(format!("n = {ex}"));
                    }
                    Len::Rest | Len::Natural => c.line("n = floor((limit - offset) / 8)"),
                    Len::Prefix(it) => {
                        int(c, it, &naming::prefix_abbrev(abbrev));
                        c.line("n = val");
                    }
                    Len::VarPrefix(_) => {
                        return Err(Internal(format!(
                            "'{name}': a varint prefix in a bit stream"
                        )))
                    }
                }
                c.line(format!("if n < 0 or limit - offset < 8 * n then return truncated_bits({tree}, tvb, offset, \"{name}\", 8 * n, limit - offset) end"));
                if matches!(ty, Ty::Str(..)) {
                    c.line(format!("val = {}(tvb, offset, n)", order("read_bit_bytes")));
                    c.item(format!(
                        "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 8 * n), val)"
                    ));
                    keep(c, target, "val");
                    c.read_item(format!("if not utf8_valid(val) then item:add_proto_expert_info(E.invalid, \"{name}: not valid UTF-8\") end"));
                } else {
                    add_bytes(c, tree, abbrev, &name, "bit_range(tvb, offset, 8 * n)", "n");
                    keep(c, target, "n");
                }
                c.line("offset = offset + 8 * n");
            }
            Ty::Bits => {
                c.item(format!(
                    "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, limit - offset))"
                ));
                c.read_item(format!(
                    "{}(item, \"{}\", tvb, offset, limit)",
                    order("label_bit_string"),
                    naming::label(&name)
                ));
                keep(c, target, "limit - offset");
                c.line("offset = limit");
            }
            Ty::Struct(id, None | Some(Len::Natural)) => {
                let t = &p.structs[*id].name;
                c.line(format!(
                    "sub = {tree}:add(tvb(floor(offset / 8), 0), \"{}: {t}\")",
                    naming::label(&name)
                ));
                c.line(format!(
                    "{} = dissect_{t}(tvb, pinfo, sub, offset, limit)",
                    results(target)
                ));
                c.line("if nxt == nil then return nil end");
                c.line("sub:set_len(ceil8(nxt) - floor(offset / 8))");
                keep(c, target, "val");
                c.line("offset = nxt");
            }
            Ty::Struct(..) => {
                return Err(Internal(format!(
                    "'{name}': a struct with a length in a bit stream"
                )))
            }
            Ty::Array(elem, count) => {
                keep(c, target, "{}");
                match count {
                    // Elements of whole bytes (validation) until that many bytes are read.
                    Len::Bytes(e) => {
                        let ex = self.expr(e);
                        c.line(format!("n = {ex}"));
                        c.line(format!("if n < 0 or limit - offset < 8 * n then return truncated_bits({tree}, tvb, offset, \"{name}\", 8 * n, limit - offset) end"));
                        c.line(format!("local outer_limit_{name} = limit"));
                        c.line("limit = offset + 8 * n");
                        c.open("while offset < limit do");
                    }
                    Len::Rest | Len::Natural => c.open("while offset < limit - 7 do"),
                    Len::Expr(e) => {
                        let ex = self.expr(e);
                        c.line(format!("n = {ex}"));
                        c.open("for _ = 1, n do");
                    }
                    Len::VarPrefix(_) => {
                        return Err(Internal(format!(
                            "'{name}': a varint prefix in a bit stream"
                        )))
                    }
                    Len::Prefix(it) => {
                        int(c, it, &naming::prefix_abbrev(abbrev));
                        c.line("n = val");
                        c.open("for _ = 1, n do");
                    }
                }
                let item_target = item_of(target);
                self.value_bits(c, sid, fi, elem, abbrev, tree, &item_target)?;
                c.close("end");
                if let Len::Bytes(_) = count {
                    c.line(format!("limit = outer_limit_{name}"));
                }
            }
            Ty::Union(u) => {
                if !matches!(u.len, Len::Rest | Len::Natural) {
                    return Err(Internal(format!(
                        "'{name}': a switch with a length in a bit stream"
                    )));
                }
                let tag = self.tag_expr(&u.on);
                c.line(format!("local tag_{name} = {tag}"));
                let body = |c: &mut Code, b: CaseBody, variant: &str| match b {
                    CaseBody::Struct(id) => {
                        let t = &p.structs[id].name;
                        c.line(format!(
                            "sub = {tree}:add(tvb(floor(offset / 8), 0), \"{}: {variant}\")",
                            naming::label(&name)
                        ));
                        c.line(format!(
                            "{} = dissect_{t}(tvb, pinfo, sub, offset, limit)",
                            results(target)
                        ));
                        c.line("if nxt == nil then return nil end");
                        c.line("sub:set_len(ceil8(nxt) - floor(offset / 8))");
                        keep(c, target, "val");
                        c.line("offset = nxt");
                    }
                    // Values to the end, before the last byte's padding.
                    CaseBody::Array(id) => {
                        let t = &p.structs[id].name;
                        c.line(format!(
                            "local arr_{name} = {tree}:add(tvb(floor(offset / 8), 0), \"{}: {variant}\")",
                            naming::label(&name)
                        ));
                        c.line(format!("local arr_start_{name} = floor(offset / 8)"));
                        c.open("while offset < limit - 7 do");
                        c.line(format!(
                            "sub = arr_{name}:add(tvb(floor(offset / 8), 0), \"{t}\")"
                        ));
                        c.line(format!("nxt = dissect_{t}(tvb, pinfo, sub, offset, limit)"));
                        c.line("if nxt == nil then return nil end");
                        c.line("sub:set_len(ceil8(nxt) - floor(offset / 8))");
                        c.line("offset = nxt");
                        c.close("end");
                        c.line(format!(
                            "arr_{name}:set_len(ceil8(offset) - arr_start_{name})"
                        ));
                        keep(c, target, "{}");
                    }
                    CaseBody::Bytes => {
                        // Whole bytes to the end: what is left below 8 bits is the padding.
                        c.line("n = floor((limit - offset) / 8)");
                        add_bytes(c, tree, abbrev, &name, "bit_range(tvb, offset, 8 * n)", "n");
                        c.line("offset = offset + 8 * n");
                    }
                    CaseBody::Empty => {}
                };
                let no_case = |c: &mut Code| {
                    c.line(format!("{tree}:add_proto_expert_info(E.invalid, fmt(\"{name}: no case for tag %d\", tag_{name}))"));
                    c.line("return nil");
                };
                case_chain(c, u, &name, &body, &no_case);
            }
        }
        Ok(())
    }
}
