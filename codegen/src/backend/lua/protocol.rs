//! The protocol as a whole: heuristic and Info column.

use super::*;

impl<'p> Gen<'p> {
    pub(crate) fn heuristic(&mut self, h: &Heuristic) -> Result<HeuristicDef, Unsupported> {
        let p = self.p;
        let root = p.root();
        let mut used = Vec::new();
        h.expr.local_fields(&mut used);
        let mut reads = Vec::new();
        let mut offset = 0;
        for (i, f) in root.fields.iter().enumerate() {
            let Some(n) = p.fixed_size(&f.ty) else { break };
            if used.contains(&i) {
                let (signed, endian) = match &f.ty {
                    Ty::Int(it) => (it.signed, it.endian),
                    Ty::Enum(id) => (p.enums[*id].repr.signed, p.enums[*id].repr.endian),
                    Ty::Flags(id) => (p.flags[*id].repr.signed, p.flags[*id].repr.endian),
                    _ => (false, Endian::Big),
                };
                let read = if matches!(f.ty, Ty::Bool) {
                    "uint() ~= 0".to_string()
                } else {
                    int_reader(n, signed, endian)
                };
                reads.push(format!("v.{} = tvb({offset}, {n}):{read}", f.name));
            }
            offset += n;
        }
        let expr = self.expr(&h.expr).replace("tvb:len()", "size");
        Ok(HeuristicDef {
            doc: "a datagram whose leading fields satisfy the schema's rule".into(),
            min_len: h.min_len,
            reads,
            expr,
        })
    }

    pub(crate) fn info(&self) -> String {
        let p = self.p;
        let root = p.root();
        let parts: Vec<String> = root
            .info
            .iter()
            .map(|part| match part {
                InfoPart::Text(t) => format!("\"{}\"", lua_escape(t)),
                InfoPart::Field(i) => {
                    let f = &root.fields[*i];
                    match &f.ty {
                        Ty::Enum(id) => {
                            format!("enum_name(VS_{}, v.{})", p.enums[*id].name, f.name)
                        }
                        Ty::Flags(id) => format!(
                            "\"[\" .. flag_names(v.{}, FN_{}) .. \"]\"",
                            f.name, p.flags[*id].name
                        ),
                        _ => format!("tostring(v.{})", f.name),
                    }
                }
            })
            .collect();
        parts.join(" .. ")
    }
}
