//! The dissecting functions: one per struct (and per `filter:` use of it), the switches, values,
//! bit groups, joins and the facts the netcode analysis reads. One renderer, [`Dissect`], whose
//! state is what changes while it renders: the filter names in use and the load-time tables.

mod bit_values;
mod facts;
mod groups;
mod joins;
mod shown;
mod stream_joins;
mod structs;
mod unions;
mod values;

pub(crate) use self::{joins::*, structs::*, unions::*, values::*};

use super::*;

/// Renders the dissecting functions of the schema's types.
pub(crate) struct Dissect<'p> {
    pub(crate) i: Input<'p>,
    /// The filter names of the fields being rendered.
    pub(crate) names: Names<'p>,
    /// Tables built at load time (switches' cases by tag), written before the function that
    /// first reads each.
    pub(crate) tables: Tables,
}

impl<'p> Dissect<'p> {
    pub(crate) fn new(i: Input<'p>) -> Self {
        Dissect {
            i,
            names: Names::new(i.p),
            tables: Tables::default(),
        }
    }

    /// Every struct's dissecting function in dependency order (with its copies under the
    /// filter names other fields give it, and the switch it shares with a reassembled whole),
    /// then `dissect_whole`.
    pub(crate) fn functions(&mut self) -> Result<Vec<String>, Internal> {
        let (p, uses) = (self.i.p, &self.i.l.filter_uses);
        let mut structs = Vec::new();
        if !p.stream_joins.is_empty() {
            structs.push(self.stream_join_declarations());
        }
        for id in order(p) {
            if let Some((sid, fi)) = self.i.shared_switch.filter(|(sid, _)| *sid == id) {
                let f = self.switch_fn(sid, fi)?;
                structs.push(self.tables.take() + &f);
            }
            for (_, filter) in uses.iter().filter(|(u, _)| *u == id) {
                let f = self.filtered_fn(id, filter)?;
                structs.push(self.tables.take() + &f);
            }
            let f = self.struct_fn(id)?;
            structs.push(self.tables.take() + &f);
        }
        if let Some(Reassembly {
            whole: WholeType::AsField(fi),
            ..
        }) = &p.reassembly
        {
            let f = self.whole_fn(*fi)?;
            structs.push(self.tables.take() + &f);
        }
        if !p.stream_joins.is_empty() {
            structs.push(self.stream_join_functions());
        }
        Ok(structs)
    }
}
