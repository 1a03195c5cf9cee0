//! Extensions: which types a schema takes from its base crate, and the notes it renames.

use super::*;

impl Reuse {
    pub(crate) fn of(p: &Protocol) -> Reuse {
        let Some(b) = &p.base else {
            return Reuse {
                base_crate: None,
                enums: vec![false; p.enums.len()],
                flags: vec![false; p.flags.len()],
                structs: vec![false; p.structs.len()],
            };
        };
        let kept = |name: &str| !b.touched.contains(name);
        let enums: Vec<bool> = p.enums.iter().map(|e| kept(&e.name)).collect();
        let flags: Vec<bool> = p.flags.iter().map(|f| kept(&f.name)).collect();
        let mut structs: Vec<bool> = p.structs.iter().map(|s| kept(&s.name)).collect();
        structs[p.root] = false;
        for j in &p.joins {
            structs[j.in_struct] = false;
        }
        fn parts_kept(ty: &Ty, enums: &[bool], flags: &[bool], structs: &[bool]) -> bool {
            match ty {
                Ty::Enum(id) => enums[*id],
                Ty::Flags(id) => flags[*id],
                Ty::Struct(id, _) => structs[*id],
                Ty::Array(e, _) => parts_kept(e, enums, flags, structs),
                Ty::Union(_) => {
                    let mut kids = Vec::new();
                    ty.child_structs(&mut kids);
                    kids.iter().all(|k| structs[*k])
                }
                _ => true,
            }
        }
        loop {
            let mut changed = false;
            for (id, s) in p.structs.iter().enumerate() {
                if structs[id]
                    && !s
                        .fields
                        .iter()
                        .all(|f| parts_kept(&f.ty, &enums, &flags, &structs))
                {
                    structs[id] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Reuse {
            base_crate: Some(ident(&b.protocol)),
            enums,
            flags,
            structs,
        }
    }

    pub(crate) fn any(&self) -> bool {
        self.structs.iter().any(|x| *x)
    }
}

/// The enums, flags and structs an extending schema takes from its base crate (`pub use`):
/// those it does not declare, whose every part is taken too. The root and the types that
/// reassembly code adds methods to are always its own.
pub(crate) struct Reuse {
    pub(crate) base_crate: Option<Ident>,
    pub(crate) enums: Vec<bool>,
    pub(crate) flags: Vec<bool>,
    pub(crate) structs: Vec<bool>,
}

impl<'p> Gen<'p> {
    /// `own_notes`: the base crate notes the fields of the types taken from it under its own
    /// protocol's names; `dissect` shows them under this one's, as the dissector does.
    pub(crate) fn own_notes(&self) -> TokenStream {
        let p = self.p;
        let Some(b) = p.base.as_ref().filter(|_| self.reuse.any()) else {
            return quote! {};
        };
        let mut arms = Vec::new();
        for (sid, s) in p.structs.iter().enumerate() {
            if !self.reuse.structs[sid] {
                continue;
            }
            for fi in 0..s.fields.len() {
                let own = naming::abbrev(p, sid, fi);
                let mut pairs = vec![own.clone()];
                pairs.push(naming::prefix_abbrev(&own));
                for own in pairs {
                    let theirs = format!("{}{}", b.protocol, &own[p.name.len()..]);
                    arms.push(quote! { #theirs => #own, });
                }
            }
        }
        quote! {
            /// Fields of the types taken from the base crate are noted under its protocol's names.
            fn own_notes(notes: Vec<FieldNote<'_>>) -> Vec<FieldNote<'_>> {
                notes
                    .into_iter()
                    .map(|mut n| {
                        n.abbrev = match n.abbrev {
                            #(#arms)*
                            other => other,
                        };
                        n
                    })
                    .collect()
            }
        }
    }
}
