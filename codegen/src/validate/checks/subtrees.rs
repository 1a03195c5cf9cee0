//! W0005: `subtree: false` where the dissector makes no subtree to leave out: on the root type
//! (shown as the protocol's item), on a field shown as one line, on a compressed value (whose
//! subtree says where its decompressed bytes are shown) or on bools packed 8 a byte (whose list
//! is one item over their bytes). The schema asks for a tree it does not get.

use super::*;

pub(super) fn idle_subtrees(r: &Report, p: &Protocol) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if !p.root().subtree {
        let message = format!(
            "'subtree: false' on '{}' changes nothing: the root is shown as the protocol's item",
            p.root().name
        );
        let path = format!("types.{}.subtree", p.root().name);
        out.push(warning(r, &path, message, "leave it out".into()));
    }
    for s in &p.structs {
        for (fi, f) in s.fields.iter().enumerate() {
            if f.subtree {
                continue;
            }
            let why = match &f.ty {
                _ if f.compression.is_some() => {
                    "a compressed value keeps its subtree: it says where the decompressed bytes are shown"
                }
                Ty::Array(..) if f.packed => "bools packed 8 a byte are one list over their bytes",
                Ty::Struct(..) | Ty::Array(..) | Ty::Union(_) => continue,
                _ => "its value is shown as one line",
            };
            let message = format!("'subtree: false' on '{}' changes nothing: {why}", f.name);
            let path = format!("{}.subtree", r.field_path(&format!("types.{}", s.name), fi));
            out.push(warning(r, &path, message, "leave it out".into()));
        }
    }
    out
}

/// A W0005 warning at the `subtree` key of `path`.
fn warning(r: &Report, path: &str, message: String, hint: String) -> Diagnostic {
    let at = r.locs.key(path);
    Diagnostic {
        code: Code::W0005,
        file: r.path.clone(),
        line: at.line,
        col: at.col,
        message,
        hint: Some(hint),
    }
}
