//! Bytes and strings of a bit stream (whole bytes at any bit), and a bit string to the end.

use super::*;

impl<'p> Dissect<'p> {
    /// Bytes, or a UTF-8 string when `text`, of length `len`.
    pub(crate) fn bit_text(
        &mut self,
        c: &mut Code,
        at: &BitRead<'_>,
        len: &Len,
        text: bool,
    ) -> Result<(), Internal> {
        let (tree, abbrev, target, name) = (at.tree, at.abbrev, at.target, &at.name);
        match len {
            // Only arrays are sized in bytes (`length:` on an array).
            Len::Bytes(_) => {
                return Err(Internal(format!(
                    "'{name}': arrays sized in bytes in bit streams"
                )))
            }
            Len::Expr(e) => {
                let ex = self.i.exprs().expr(e);
                c.line(format!("n = {ex}"));
            }
            Len::Rest | Len::Natural => c.line("n = floor((limit - offset) / 8)"),
            Len::Prefix(it) => {
                at.int(c, it, &naming::prefix_abbrev(abbrev));
                c.line("n = val");
            }
            Len::VarPrefix(_) => {
                return Err(Internal(format!(
                    "'{name}': a varint prefix in a bit stream"
                )))
            }
        }
        c.line(format!("if n < 0 or limit - offset < 8 * n then return truncated_bits({tree}, tvb, offset, \"{name}\", 8 * n, limit - offset) end"));
        if text {
            c.line(format!(
                "val = {}(tvb, offset, n)",
                at.reader("read_bit_bytes")
            ));
            c.item(format!(
                "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, 8 * n), val)"
            ));
            keep(c, target, "val");
            c.read_item(format!("if not utf8_valid(val) then item:add_proto_expert_info(E.invalid, \"{name}: not valid UTF-8\") end"));
        } else {
            add_bytes(c, tree, abbrev, name, "bit_range(tvb, offset, 8 * n)", "n");
            keep(c, target, "n");
        }
        c.line("offset = offset + 8 * n");
        Ok(())
    }
}

impl BitRead<'_> {
    /// The bits to the end, labelled as a bit string.
    pub(crate) fn bit_string(&self, c: &mut Code) {
        let (tree, abbrev) = (self.tree, self.abbrev);
        c.item(format!(
            "{tree}:add(F[\"{abbrev}\"], bit_range(tvb, offset, limit - offset))"
        ));
        c.read_item(format!(
            "{}(item, \"{}\", tvb, offset, limit)",
            self.reader("label_bit_string"),
            naming::label(&self.name)
        ));
        keep(c, self.target, "limit - offset");
        c.line("offset = limit");
    }
}
