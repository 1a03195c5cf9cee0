//! What a value is read and written with besides its own fields: the enclosing fields the
//! types inside it read (`Header.channel`), each kept in a numbered slot.

use super::analysis::each_decoded_expr;
use crate::ir::*;

/// Every enclosing field some expression or join key reads, once, in schema order: the slot
/// numbers the coders keep their values under.
pub fn enclosing_slots(p: &Protocol) -> Vec<(StructId, usize)> {
    let mut slots = Vec::new();
    for s in &p.structs {
        each_decoded_expr(s, &mut |e| {
            e.each_enclosing(&mut |r| {
                let slot = (r.struct_id, r.field);
                if !slots.contains(&slot) {
                    slots.push(slot);
                }
            })
        });
    }
    // A join's key may be an enclosing field too: the dissector reads it where the part is.
    for r in p.joins.iter().flat_map(Join::enclosing_key) {
        let slot = (r.struct_id, r.field);
        if !slots.contains(&slot) {
            slots.push(slot);
        }
    }
    slots.sort();
    slots
}
