//! Types nothing reads (W0001).

use super::*;

/// Types nothing reads: not the root, an opening datagram, a reassembled or joined whole,
/// an application's message, nor held by any of them. Their code is generated and never
/// used, which is rarely what a schema means (a misspelt case, a forgotten field).
pub(crate) fn unread_types(r: &Report, p: &Protocol) -> Vec<Diagnostic> {
    let mut roots = p.top_level_types();
    if let Some(a) = &p.application {
        roots.extend(a.messages.iter().map(|(_, ty)| *ty));
    }
    let reached = crate::lower::analysis::reached_from(p, roots, |_, _| true);
    // An extension's inherited types are its base's to use or not.
    let own = |name: &str| !r.locs.inherited(&format!("types.{name}"));
    p.structs
        .iter()
        .enumerate()
        .filter(|(id, s)| !reached.contains(id) && own(&s.name))
        .map(|(_, s)| {
            let at = r.locs.key(&format!("types.{}", s.name));
            Diagnostic {
                code: Code::W0001,
                file: r.path.clone(),
                line: at.line,
                col: at.col,
                message: format!(
                    "nothing reads type '{}': the root does not hold it, nor does any type \
                     the outputs decode",
                    s.name
                ),
                hint: Some("use it in a field or a switch case, or remove it".into()),
            }
        })
        .collect()
}
