//! Arrays in a bit stream: by count, by bytes, or to the end.

use super::*;

impl<'p> Dissect<'p> {
    /// An array of `elem`, `count` of them (or as many as fit its bytes, or to the end).
    pub(crate) fn bit_array(
        &mut self,
        c: &mut Code,
        at: &BitRead<'_>,
        elem: &Ty,
        count: &Len,
    ) -> Result<(), Internal> {
        let (tree, abbrev, target, name) = (at.tree, at.abbrev, at.target, &at.name);
        keep(c, target, "{}");
        match count {
            // Elements of whole bytes (validation) until that many bytes are read.
            Len::Bytes(e) => {
                let ex = self.i.exprs().expr(e);
                c.line(format!("n = {ex}"));
                c.line(format!("if n < 0 or limit - offset < 8 * n then return truncated_bits({tree}, tvb, offset, \"{name}\", 8 * n, limit - offset) end"));
                c.line(format!("local outer_limit_{name} = limit"));
                c.line("limit = offset + 8 * n");
                c.open("while offset < limit do");
            }
            Len::Rest | Len::Natural => c.open("while offset < limit - 7 do"),
            Len::Expr(e) => {
                let ex = self.i.exprs().expr(e);
                c.line(format!("n = {ex}"));
                c.open("for _ = 1, n do");
            }
            Len::VarPrefix(_) => {
                return Err(Internal(format!(
                    "'{name}': a varint prefix in a bit stream"
                )))
            }
            Len::Prefix(it) => {
                at.int(c, it, &naming::prefix_abbrev(abbrev));
                c.line("n = val");
                c.open("for _ = 1, n do");
            }
        }
        let item_target = item_of(target);
        self.value_bits(
            c,
            Place {
                sid: at.sid,
                fi: at.fi,
                abbrev,
                tree,
                target: &item_target,
            },
            elem,
        )?;
        c.close("end");
        if let Len::Bytes(_) = count {
            c.line(format!("limit = outer_limit_{name}"));
        }
        Ok(())
    }
}
