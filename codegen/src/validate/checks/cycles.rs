//! Pass: cycles. No type may contain itself (also through a switch default).

use super::*;

pub(crate) fn check_cycles(r: &mut Report, structs: &[Struct]) {
    // 0 = unvisited, 1 = on the stack, 2 = done.
    fn visit(
        id: StructId,
        structs: &[Struct],
        state: &mut [u8],
        stack: &mut Vec<StructId>,
    ) -> Option<Vec<StructId>> {
        if state[id] == 1 {
            let start = stack.iter().position(|s| *s == id).unwrap();
            return Some(stack[start..].to_vec());
        }
        if state[id] == 2 {
            return None;
        }
        state[id] = 1;
        stack.push(id);
        let mut kids = Vec::new();
        structs[id].child_structs(&mut kids);
        for k in kids {
            if let Some(c) = visit(k, structs, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state[id] = 2;
        None
    }
    let mut state = vec![0u8; structs.len()];
    for id in 0..structs.len() {
        if let Some(cycle) = visit(id, structs, &mut state, &mut Vec::new()) {
            let names: Vec<&str> = cycle
                .iter()
                .chain(cycle.first())
                .map(|i| structs[*i].name.as_str())
                .collect();
            r.error_key(
                Code::E1101,
                &format!("types.{}", structs[cycle[0]].name),
                format!("type cycle: {}", names.join(" → ")),
                Some("a type cannot contain itself".into()),
            );
            return;
        }
    }
}
