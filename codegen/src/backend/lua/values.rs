//! Reading a byte-aligned value: integers, strings, bytes, arrays, lengths.

use super::*;

/// How to read an integer of `bytes` bytes from a TvbRange, as a Lua number.
pub(crate) fn int_reader(bytes: usize, signed: bool, endian: Endian) -> String {
    let le = if endian == Endian::Little { "le_" } else { "" };
    match (bytes > 4, signed) {
        (false, false) => format!("{le}uint()"),
        (false, true) => format!("{le}int()"),
        (true, false) => format!("{le}uint64():tonumber()"),
        (true, true) => format!("{le}int64():tonumber()"),
    }
}

pub(crate) fn add_fn(endian: Endian) -> &'static str {
    if endian == Endian::Little {
        "add_le"
    } else {
        "add"
    }
}

/// Whether any field is a variable-length integer (its reader shares the bit-stream helpers).
pub(crate) fn uses_varints(p: &Protocol) -> bool {
    fn has(ty: &Ty) -> bool {
        match ty {
            Ty::VarInt(_) => true,
            Ty::Array(_, Len::VarPrefix(VarInt::Leb128))
            | Ty::Bytes(Len::VarPrefix(VarInt::Leb128))
            | Ty::Str(Len::VarPrefix(VarInt::Leb128), _)
            | Ty::Struct(_, Some(Len::VarPrefix(VarInt::Leb128))) => true,
            Ty::Union(u) => matches!(u.len, Len::VarPrefix(VarInt::Leb128)),
            Ty::Array(e, _) => has(e),
            _ => false,
        }
    }
    p.structs.iter().flat_map(|s| &s.fields).any(|f| has(&f.ty))
}

impl<'p> Gen<'p> {
    /// Reads one value of `ty` into `target`, adding it to `tree`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn value(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        ty: &Ty,
        abbrev: &str,
        tree: &str,
        target: &str,
    ) -> Result<(), Internal> {
        match self.l.field(sid, fi).access {
            Access::Stream => return self.value_bits(c, sid, fi, ty, abbrev, tree, target),
            Access::Group { .. } => {
                self.value_packed(c, sid, fi, abbrev, target);
                return Ok(());
            }
            Access::Bytes => {}
        }
        let p = self.p;
        let f = &p.structs[sid].fields[fi];
        let name = &f.name;
        let needed = self.l.needed.contains(&(sid, fi));
        // `range` is made when the value is read or the range is used again (flag bits).
        let scalar_in = |c: &mut Code, n: usize, endian: Endian, read: String, reused: bool| {
            c.line(format!("if limit - offset < {n} then return truncated({tree}, tvb, offset, \"{name}\", {n}, limit - offset) end"));
            if needed || reused {
                c.line(format!("range = tvb(offset, {n})"));
                c.line(format!(
                    "item = {tree}:{}(F[\"{abbrev}\"], range)",
                    add_fn(endian)
                ));
                if needed {
                    c.line(format!("val = range:{read}"));
                    keep(c, target, "val");
                }
            } else {
                c.line(format!(
                    "item = {tree}:{}(F[\"{abbrev}\"], tvb(offset, {n}))",
                    add_fn(endian)
                ));
            }
        };
        let scalar = |c: &mut Code, n: usize, endian: Endian, read: String| {
            scalar_in(c, n, endian, read, false)
        };
        match ty {
            Ty::Int(it) => {
                scalar(
                    c,
                    it.bytes(),
                    it.endian,
                    int_reader(it.bytes(), it.signed, it.endian),
                );
                c.line(format!("offset = offset + {}", it.bytes()));
            }
            Ty::Bool => {
                scalar(c, 1, Endian::Big, "uint() ~= 0".into());
                c.line("offset = offset + 1");
            }
            Ty::Float { bits: 16, endian } => {
                // Wireshark has no half-float field: decode the bits and show the value.
                let le = if *endian == Endian::Little { "le_" } else { "" };
                c.line(format!("if limit - offset < 2 then return truncated({tree}, tvb, offset, \"{name}\", 2, limit - offset) end"));
                c.line("range = tvb(offset, 2)");
                c.line(format!("val = f16_from_bits(range:{le}uint())"));
                c.line(format!("item = {tree}:add(F[\"{abbrev}\"], range, val)"));
                keep(c, target, "val");
                c.line("offset = offset + 2");
            }
            Ty::Float { bits, endian } => {
                let n = *bits as usize / 8;
                let le = if *endian == Endian::Little { "le_" } else { "" };
                scalar(c, n, *endian, format!("{le}float()"));
                c.line(format!("offset = offset + {n}"));
            }
            Ty::VarInt(VarInt::Leb128 | VarInt::ZigZag) => {
                leb128_lines(c, tree, name);
                if matches!(ty, Ty::VarInt(VarInt::ZigZag)) {
                    c.line("val = zigzag64(val)");
                }
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"
                ));
                keep(c, target, "val:tonumber()");
                c.line("offset = offset + n");
            }
            Ty::VarInt(VarInt::RiptideLen) => {
                riptide_len_lines(c, tree, name);
                c.line(format!(
                    "item = {tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"
                ));
                keep(c, target, "val");
                c.line("offset = offset + n");
            }
            Ty::VarInt(_) => {
                return Err(Internal(
                    "Rabbit varints belong to bit-stream layouts".into(),
                ))
            }
            Ty::Bits => return Err(Internal("'bits' belongs to bit-stream layouts".into())),
            Ty::Enum(id) => {
                let e = &p.enums[*id];
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
            Ty::Flags(id) => {
                let fl = &p.flags[*id];
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
                    c.line(format!(
                        "item:{}(F[\"{a}\"], range)",
                        add_fn(fl.repr.endian)
                    ));
                }
                c.line(format!("offset = offset + {n}"));
            }
            Ty::Str(
                _,
                Text {
                    nul: Nul::Terminated,
                    encoding,
                },
            ) => {
                // The string and its NUL; none before the end is a malformed field.
                let enc = lua_encoding(*encoding);
                let unit = if matches!(encoding, Encoding::Utf16 { .. }) {
                    // A NUL code unit: two zero bytes at an even offset.
                    c.line("n = nil");
                    c.line("val = tvb:raw(offset, limit - offset)");
                    c.open("for i = 1, #val - 1, 2 do");
                    c.line("if val:byte(i) == 0 and val:byte(i + 1) == 0 then n = i + 1 break end");
                    c.close("end");
                    2
                } else {
                    c.line("n = string.find(tvb:raw(offset, limit - offset), \"\\0\", 1, true)");
                    1
                };
                c.open("if n == nil then");
                c.line(format!("item = {tree}:add(tvb(offset, limit - offset), \"[{name}: no NUL before the end]\")"));
                c.line(format!(
                    "item:add_proto_expert_info(E.truncated, \"{name}: no NUL before the end\")"
                ));
                c.line("return nil");
                c.close("end");
                c.line(format!(
                    "item = {tree}:add_packet_field(F[\"{abbrev}\"], tvb(offset, n), {enc})"
                ));
                keep(c, target, &format!("tvb(offset, n):stringz({enc})"));
                let text = format!("n - {unit}");
                if let Some((bad, what)) =
                    invalid_text(*encoding, &format!("tvb:raw(offset, {text})"), &text)
                {
                    c.line(format!("if n > {unit} and {bad} then item:add_proto_expert_info(E.invalid, \"{name}: {what}\") end"));
                }
                c.line("offset = offset + n");
            }
            Ty::Str(
                len,
                Text {
                    nul: Nul::Padded,
                    encoding,
                },
            ) => {
                // The whole buffer is the item; the value is the bytes before the first NUL.
                self.length(c, sid, fi, len, false, abbrev, tree)?;
                if matches!(encoding, Encoding::Utf16 { .. }) {
                    // Up to the first NUL code unit (two zero bytes at an even offset).
                    c.line("val = tvb:raw(offset, n)");
                    c.open("for i = 1, n - 1, 2 do");
                    c.line("if val:byte(i) == 0 and val:byte(i + 1) == 0 then val = val:sub(1, i - 1) break end");
                    c.close("end");
                } else {
                    c.line("val = tvb:raw(offset, n):match(\"^[^\\0]*\")");
                }
                let text = match encoding {
                    Encoding::Utf8 => {
                        c.line(format!(
                            "item = {tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"
                        ));
                        "val".to_string()
                    }
                    e => {
                        // Wireshark decodes the text (Wireshark 4.0's TvbRange:string cuts a
                        // converted string to the byte count of its range); the item then covers
                        // the padding too.
                        let enc = lua_encoding(*e);
                        c.line(format!("item = {tree}:add_packet_field(F[\"{abbrev}\"], tvb(offset, #val), {enc})"));
                        c.line("item:set_len(n)");
                        format!("tvb(offset, #val):string({enc})")
                    }
                };
                if let Some((bad, what)) = invalid_text(*encoding, "val", "#val") {
                    c.line(format!("if {bad} then item:add_proto_expert_info(E.invalid, \"{name}: {what}\") end"));
                }
                keep(c, target, &text);
                c.line("offset = offset + n");
            }
            Ty::Bytes(len) | Ty::Str(len, _) => {
                self.length(c, sid, fi, len, false, abbrev, tree)?;
                if let Ty::Str(_, text) = ty {
                    let enc = lua_encoding(text.encoding);
                    if needed {
                        c.line("range = tvb(offset, n)");
                        c.line(format!(
                            "item = {tree}:add_packet_field(F[\"{abbrev}\"], range, {enc})"
                        ));
                        keep(c, target, &format!("range:string({enc})"));
                    } else {
                        c.line(format!("item = {tree}:add_packet_field(F[\"{abbrev}\"], tvb(offset, n), {enc})"));
                    }
                    // The crate refuses what is not text; Wireshark would only show replacement marks.
                    if let Some((bad, what)) =
                        invalid_text(text.encoding, "tvb:raw(offset, n)", "n")
                    {
                        c.line(format!("if n > 0 and {bad} then item:add_proto_expert_info(E.invalid, \"{name}: {what}\") end"));
                    }
                } else {
                    add_bytes(c, tree, abbrev, name, "tvb(offset, n)", "n");
                    keep(c, target, "n -- bytes are kept as their length");
                    if self.raw.contains(&(sid, fi)) && !target.is_empty() {
                        let raw =
                            value_slot(&format!("{}_raw", self.p.structs[sid].fields[fi].name));
                        c.line(format!("{raw} = tvb:raw(offset, n)"));
                    }
                }
                c.line("offset = offset + n");
            }
            Ty::Struct(id, len) if f.compression.is_some() => {
                let comp = f.compression.unwrap();
                let (t, method, max) = (&p.structs[*id].name, comp.method.name(), comp.max);
                let label = naming::label(name);
                self.length(
                    c,
                    sid,
                    fi,
                    len.as_ref().unwrap_or(&Len::Rest),
                    false,
                    abbrev,
                    tree,
                )?;
                c.line(format!("sub = {tree}:add(tvb(offset, n), string.format(\"{label}: {t} ({method}, %d bytes)\", n))"));
                // Shown in a data source of its own, as Wireshark shows decompressed HTTP bodies.
                c.open("do");
                c.line(format!("local plain = n > 0 and uncompress(tvb(offset, n), \"{label} ({method}-decompressed)\", \"{method}\") or nil"));
                c.open("if plain == nil then");
                c.line(format!("sub:add_proto_expert_info(E.compressed, fmt(\"{name}: the %d bytes are not valid {method} data\", n))"));
                c.line("return nil");
                c.close("end");
                c.open(format!("if plain:len() > {max} then"));
                c.line(format!("sub:add_proto_expert_info(E.compressed, fmt(\"{name}: decompresses to %d bytes, more than the {max} allowed\", plain:len()))"));
                c.line("return nil");
                c.close("end");
                let use_ = (*id, f.filter.as_deref());
                structs::call_struct_in(p, c, use_, "plain", "0", "plain:len()", target, None);
                c.line(format!(
                    "if nxt < plain:len() then sub:add_proto_expert_info(E.trailing, fmt(\"{name}: %d decompressed bytes left unread\", plain:len() - nxt)) end"
                ));
                c.close("end");
                c.line("offset = offset + n");
            }
            Ty::Struct(id, len) => {
                let t = &p.structs[*id].name;
                let label = format!("{}: {t}", naming::label(name));
                match len {
                    None | Some(Len::Natural) => match self.l.structs[*id].fixed_size {
                        // Its size is known: the subtree gets it at once (one C call, no
                        // set_len), cut to the bytes left when the value is truncated.
                        Some(k) if k > 0 => {
                            c.line(format!("sub = {tree}:add(tvb(offset, limit - offset < {k} and limit - offset or {k}), \"{label}\")"));
                            call_struct_as(
                                p,
                                c,
                                *id,
                                f.filter.as_deref(),
                                "offset",
                                "limit",
                                target,
                            );
                            c.line("offset = nxt");
                        }
                        _ => {
                            c.line(format!("sub = {tree}:add(tvb(offset, 0), \"{label}\")"));
                            call_struct_as(
                                p,
                                c,
                                *id,
                                f.filter.as_deref(),
                                "offset",
                                "limit",
                                target,
                            );
                            c.line("sub:set_len(nxt - offset)");
                            c.line("offset = nxt");
                        }
                    },
                    Some(len) => {
                        self.length(c, sid, fi, len, false, abbrev, tree)?;
                        c.line(format!("sub = {tree}:add(tvb(offset, n), \"{label}\")"));
                        call_struct_as(
                            p,
                            c,
                            *id,
                            f.filter.as_deref(),
                            "offset",
                            "offset + n",
                            target,
                        );
                        c.line(format!(
                            "if nxt < offset + n then sub:add_proto_expert_info(E.length, fmt(\"{name}: %d bytes left unread\", offset + n - nxt)) end"
                        ));
                        c.line("offset = offset + n");
                    }
                }
            }
            Ty::Array(_, count) if f.packed => {
                // Bools 8 per byte, lowest bit first.
                let label = naming::label(name);
                self.length(c, sid, fi, count, true, abbrev, tree)?;
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
            }
            Ty::Array(elem, count) => {
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
                let may_stop = matches!(**elem, Ty::Struct(id, _) if self.l.state_readers[id]);
                // A loop that runs `n` times to its end needs no counter.
                let counted = open_ended || may_stop || in_bytes;
                if !open_ended {
                    self.length(c, sid, fi, count, true, abbrev, tree)?;
                }
                let first_count = if counted { "0" } else { "n" };
                // The limit an array sized in bytes moves is put back for what follows (nothing
                // does after a last field, unless the struct is padded or aligned).
                let s = &self.p.structs[sid];
                let limit_read_after = fi + 1 < s.fields.len() || s.padding.any();
                if in_bytes {
                    if limit_read_after {
                        c.line(format!("local {arr}, {count_of}, outer_limit_{name} = {tree}:add(tvb(offset, n), \"{label}\"), 0, limit"));
                    } else {
                        c.line(format!(
                            "local {arr}, {count_of} = {tree}:add(tvb(offset, n), \"{label}\"), 0"
                        ));
                    }
                    c.line("limit = offset + n");
                } else if open_ended {
                    // It runs to the end of its scope: its length is known before it is read.
                    c.line(format!("local {arr}, {count_of} = {tree}:add(tvb(offset, limit - offset), \"{label}\"), 0"));
                } else {
                    c.line(format!("local {arr}, {arr_start}, {count_of} = {tree}:add(tvb(offset, 0), \"{label}\"), offset, {first_count}"));
                }
                c.open(if open_ended || in_bytes {
                    "while offset < limit do"
                } else {
                    "for _ = 1, n do"
                });
                if counted {
                    c.line(format!("{count_of} = {count_of} + 1"));
                }
                let item_target = item_of(target);
                let elem_abbrev = naming::element_abbrev(elem, abbrev);
                self.value(c, sid, fi, elem, &elem_abbrev, &arr, &item_target)?;
                if may_stop {
                    c.line("if REST_TAKEN then break end");
                }
                c.close("end");
                if in_bytes && limit_read_after {
                    c.line(format!("limit = outer_limit_{name}"));
                } else if !open_ended && !in_bytes {
                    c.line(format!("{arr}:set_len(offset - {arr_start})"));
                }
                c.line(format!(
                    "{arr}:append_text(string.format(\" (%d)\", {count_of}))"
                ));
            }
            Ty::Union(u) => self.union(c, sid, fi, u, abbrev, tree, target)?,
        }
        Ok(())
    }

    /// Sets `n` to a length or count (`counts`: an array's own count, not the byte length of
    /// an element), checks it against the bytes left, or returns.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn length(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        len: &Len,
        counts: bool,
        abbrev: &str,
        tree: &str,
    ) -> Result<(), Internal> {
        let f = &self.p.structs[sid].fields[fi];
        let name = &f.name;
        // An array's size in bytes is a length like any other.
        let is_count = counts && !matches!(len, Len::Bytes(_));
        match len {
            Len::Prefix(it) => {
                let k = it.bytes();
                let a = naming::prefix_abbrev(abbrev);
                c.line(format!("if limit - offset < {k} then return truncated({tree}, tvb, offset, \"{name} length\", {k}, limit - offset) end"));
                c.line(format!(
                    "{tree}:{}(F[\"{a}\"], tvb(offset, {k}))",
                    add_fn(it.endian)
                ));
                c.line(format!(
                    "n = tvb(offset, {k}):{}",
                    int_reader(k, it.signed, it.endian)
                ));
                c.line(format!("offset = offset + {k}"));
            }
            Len::VarPrefix(VarInt::Leb128) => {
                let a = naming::prefix_abbrev(abbrev);
                leb128_lines(c, tree, &format!("{name} length"));
                c.line(format!("{tree}:add(F[\"{a}\"], tvb(offset, n), val)"));
                c.line("offset = offset + n");
                // Beyond 2^53 no length fits what remains: the check below reports it.
                c.line("n = val:tonumber()");
            }
            Len::VarPrefix(VarInt::RiptideLen) => {
                let a = naming::prefix_abbrev(abbrev);
                riptide_len_lines(c, tree, &format!("{name} length"));
                c.line(format!("{tree}:add(F[\"{a}\"], tvb(offset, n), val)"));
                c.line("offset = offset + n");
                c.line("n = val");
            }
            Len::VarPrefix(_) => {
                return Err(Internal(format!("'{name}': this varint as a prefix")))
            }
            Len::Expr(e) | Len::Bytes(e) => {
                let ex = self.expr(e);
                c.line(format!("n = {ex}"));
            }
            Len::Rest | Len::Natural => {
                c.line("n = limit - offset");
            }
        }
        if is_count {
            c.line(format!(
                "if n < 0 then {tree}:add_proto_expert_info(E.length, fmt(\"{name}: impossible count %d\", n)) return nil end"
            ));
            return Ok(());
        }
        let source = match len {
            Len::Expr(Expr::Field(path)) | Len::Bytes(Expr::Field(path)) if path.len() == 1 => {
                Some(path[0].name.clone())
            }
            _ => None,
        };
        match source {
            Some(src) => c.line(format!(
                "if n < 0 or limit - offset < n then {tree}:add_proto_expert_info(E.length, fmt(\"{src} says %d bytes of {name}, %d remain\", n, limit - offset)) return nil end"
            )),
            None => c.line(format!(
                "if n < 0 or limit - offset < n then return truncated({tree}, tvb, offset, \"{name}\", n, limit - offset) end"
            )),
        }
        Ok(())
    }
}

/// `val, n`: the LEB128 value at `offset` (UInt64) and its byte count; running past `limit` or
/// beyond 64 bits ends the branch with an expert item naming `what`.
fn leb128_lines(c: &mut Code, tree: &str, what: &str) {
    // LEB128 groups are whole bytes here: the bit-stream reader at offset * 8.
    c.line("val, n = read_leb128(tvb, offset * 8, limit * 8)");
    c.line(format!("if val == nil then return truncated({tree}, tvb, offset, \"{what}\", n / 8 + 1, limit - offset) end"));
    c.line(format!("if val == false then {tree}:add_proto_expert_info(E.too_large, \"{what}: a variable-length integer longer than 64 bits\") return nil end"));
    c.line("n = n / 8");
}

/// `val, n`: the Riptide 2.0 length at `offset` (one byte below 0x80, else two big-endian with
/// 0x8000 set) and its byte count; running past `limit` ends the branch.
fn riptide_len_lines(c: &mut Code, tree: &str, what: &str) {
    c.line(format!("if limit - offset < 1 then return truncated({tree}, tvb, offset, \"{what}\", 1, limit - offset) end"));
    c.line("val, n = tvb(offset, 1):uint(), 1");
    c.open("if val >= 128 then");
    c.line(format!("if limit - offset < 2 then return truncated({tree}, tvb, offset, \"{what}\", 2, limit - offset) end"));
    c.line("val, n = tvb(offset, 2):uint() - 32768, 2");
    c.close("end");
}

/// Wireshark's encoding constant for text in `e`.
fn lua_encoding(e: Encoding) -> &'static str {
    match e {
        Encoding::Utf8 => "ENC_UTF_8",
        Encoding::Ascii => "ENC_ASCII",
        Encoding::Latin1 => "ENC_ISO_8859_1",
        Encoding::Utf16 { big: false } => "ENC_UTF_16 + ENC_LITTLE_ENDIAN",
        Encoding::Utf16 { big: true } => "ENC_UTF_16 + ENC_BIG_ENDIAN",
    }
}

/// A Lua condition that holds when `raw` (the field's bytes as a Lua string, `len` of them) is
/// not text in `e`, and what the expert item says then (the crate refuses such text); `None`
/// when every byte string is text (Latin-1). Lone UTF-16 surrogates are shown, not reported.
fn invalid_text(e: Encoding, raw: &str, len: &str) -> Option<(String, &'static str)> {
    match e {
        Encoding::Utf8 => Some((format!("not utf8_valid({raw})"), "not valid UTF-8")),
        Encoding::Ascii => Some((format!("{raw}:find(\"[\\128-\\255]\") ~= nil"), "not ASCII")),
        Encoding::Latin1 => None,
        Encoding::Utf16 { .. } => Some((format!("{len} % 2 == 1"), "an odd byte count for UTF-16")),
    }
}

/// Stores `value` in `target`, where a value that later code reads is kept (nothing when no
/// later code reads it: no table is filled per packet for nothing).
pub(crate) fn keep(c: &mut Code, target: &str, value: &str) {
    if !target.is_empty() {
        c.line(format!("{target} = {value}"));
    }
}

/// Where the next element of the list `target` is kept (nowhere when the list is not kept).
pub(crate) fn item_of(target: &str) -> String {
    if target.is_empty() {
        String::new()
    } else {
        format!("{target}[#{target} + 1]")
    }
}

/// Flags a value `val` of enum `e` (just added as `item`) that the enum does not name: unknown
/// when the enum is open, invalid when it is closed.
pub(crate) fn enum_check(c: &mut Code, e: &Enum, name: &str) {
    let (expert, what) = if e.closed {
        ("E.invalid", "is not allowed")
    } else {
        ("E.unknown", "is not named by the schema")
    };
    c.line(format!(
        "if VS_{}[val] == nil then item:add_proto_expert_info({expert}, fmt(\"{name} %d {what}\", val)) end",
        e.name
    ));
}

/// Adds a byte field over `range` (of `len` bytes) to `tree`. Wireshark 4.0 labels a zero-length
/// byte field `<MISSING>`, as if the capture lacked it: an empty one says `<empty>` instead.
pub(crate) fn add_bytes(
    c: &mut Code,
    tree: &str,
    abbrev: &str,
    name: &str,
    range: &str,
    len: &str,
) {
    c.line(format!("item = {tree}:add(F[\"{abbrev}\"], {range})"));
    c.line(format!(
        "if {len} == 0 then item:set_text(\"{}: <empty>\") end",
        naming::label(name)
    ));
}
