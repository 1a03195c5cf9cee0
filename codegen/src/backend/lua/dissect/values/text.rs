//! Strings (NUL-terminated, NUL-padded, sized) and bytes.

use super::*;

impl<'p> Dissect<'p> {
    /// A string (`text`) or bytes value of length `len`.
    pub(super) fn value_text(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        len: &Len,
        text: Option<Text>,
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
        let needed = self.i.l.needed.contains(&(sid, fi));
        match text {
            Some(Text {
                nul: Nul::Terminated,
                encoding,
            }) => strz(c, (tree, abbrev, target), name, encoding),
            Some(Text {
                nul: Nul::Padded,
                encoding,
            }) => {
                // The whole buffer is the item; the value is the bytes before the first NUL.
                self.length(c, at, len, false)?;
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
                        c.item(format!("{tree}:add(F[\"{abbrev}\"], tvb(offset, n), val)"));
                        "val".to_string()
                    }
                    e => {
                        // Wireshark decodes the text (Wireshark 4.0's TvbRange:string cuts a
                        // converted string to the byte count of its range); the item then covers
                        // the padding too.
                        let enc = lua_encoding(e);
                        c.item(format!(
                            "{tree}:add_packet_field(F[\"{abbrev}\"], tvb(offset, #val), {enc})"
                        ));
                        c.read_item("item:set_len(n)");
                        format!("tvb(offset, #val):string({enc})")
                    }
                };
                if let Some((bad, what)) = invalid_text(encoding, "val", "#val") {
                    c.read_item(format!("if {bad} then item:add_proto_expert_info(E.invalid, \"{name}: {what}\") end"));
                }
                keep(c, target, &text);
                c.line("offset = offset + n");
            }
            Some(Text { nul: Nul::No, .. }) | None => {
                self.length(c, at, len, false)?;
                if let Some(text) = text {
                    let enc = lua_encoding(text.encoding);
                    if needed {
                        c.line("range = tvb(offset, n)");
                        c.item(format!(
                            "{tree}:add_packet_field(F[\"{abbrev}\"], range, {enc})"
                        ));
                        keep(c, target, &format!("range:string({enc})"));
                    } else {
                        c.item(format!(
                            "{tree}:add_packet_field(F[\"{abbrev}\"], tvb(offset, n), {enc})"
                        ));
                    }
                    // The crate refuses what is not text; Wireshark would only show replacement marks.
                    if let Some((bad, what)) =
                        invalid_text(text.encoding, "tvb:raw(offset, n)", "n")
                    {
                        c.read_item(format!("if n > 0 and {bad} then item:add_proto_expert_info(E.invalid, \"{name}: {what}\") end"));
                    }
                } else {
                    add_bytes(c, tree, abbrev, name, "tvb(offset, n)", "n");
                    keep(c, target, "n -- bytes are kept as their length");
                    if self.i.raw.contains(&(sid, fi)) && !target.is_empty() {
                        let raw =
                            value_slot(&format!("{}_raw", self.i.p.structs[sid].fields[fi].name));
                        c.line(format!("{raw} = tvb:raw(offset, n)"));
                    }
                }
                c.line("offset = offset + n");
            }
        }
        Ok(())
    }
}

/// A NUL-terminated string: the item covers the string and its NUL; none before the end is a
/// malformed field.
fn strz(c: &mut Code, (tree, abbrev, target): (&str, &str, &str), name: &str, encoding: Encoding) {
    let enc = lua_encoding(encoding);
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
    c.item(format!(
        "{tree}:add(tvb(offset, limit - offset), \"[{name}: no NUL before the end]\")"
    ));
    c.read_item(format!(
        "item:add_proto_expert_info(E.truncated, \"{name}: no NUL before the end\")"
    ));
    c.line("return nil");
    c.close("end");
    c.item(format!(
        "{tree}:add_packet_field(F[\"{abbrev}\"], tvb(offset, n), {enc})"
    ));
    keep(c, target, &format!("tvb(offset, n):stringz({enc})"));
    let text = format!("n - {unit}");
    if let Some((bad, what)) = invalid_text(encoding, &format!("tvb:raw(offset, {text})"), &text) {
        c.read_item(format!("if n > {unit} and {bad} then item:add_proto_expert_info(E.invalid, \"{name}: {what}\") end"));
    }
    c.line("offset = offset + n");
}
