//! Finding every value of one type inside a decoded datagram, wherever the schema puts it (a
//! field, an optional field, an array, a switch case, a case of a case), in wire order: what
//! `Protocol::join` feeds to a joiner, as the dissector meets the parts while it reads.

use super::*;

/// Renders the visit of the types that carry a field, down from the root.
#[derive(Clone, Copy)]
pub(crate) struct Carriers<'p> {
    pub(crate) c: Crate<'p>,
}

/// Where a visited value is: the root (a reference), a place reached by a path of plain fields
/// (`message.packet`), or a local bound on the way down (a reference).
enum At {
    Root(TokenStream),
    Place(TokenStream),
    Bound(Ident),
}

impl At {
    /// The value as a place its fields are read from.
    fn place(&self) -> TokenStream {
        match self {
            At::Root(t) | At::Place(t) => t.clone(),
            At::Bound(x) => quote! { #x },
        }
    }
}

/// What the visit looks for: values of its targets, each bound as `part` (or `_` where its
/// statements do not read it), and the enclosing fields a join key reads, each as a local of the
/// field's name, copied from the nearest holder on the way down.
pub(crate) struct Visit<'a> {
    pub targets: Vec<Target>,
    pub keys: &'a [FieldRef],
}

/// One type a visit looks for, and the statements run for each of its values.
pub(crate) struct Target {
    pub sid: StructId,
    pub body: TokenStream,
    /// Whether the statements read the value (`part`).
    pub binds: bool,
}

impl Visit<'_> {
    fn target(&self, sid: StructId) -> Option<&Target> {
        self.targets.iter().find(|t| t.sid == sid)
    }
}

impl<'p> Carriers<'p> {
    /// Statements visiting every value of `v`'s targets in the value of struct `sid` that `at`
    /// refers to (`&Root`), or nothing when it holds none.
    pub(crate) fn visit_carriers(&self, v: &Visit, sid: StructId, at: TokenStream) -> TokenStream {
        self.visit_in(v, sid, &At::Root(at), 0).unwrap_or_default()
    }

    fn visit_in(&self, v: &Visit, sid: StructId, at: &At, depth: usize) -> Option<TokenStream> {
        let place = at.place();
        if let Some(t) = v.target(sid) {
            let body = &t.body;
            return Some(match at {
                // Bound as `part` on the way down.
                At::Bound(_) => body.clone(),
                _ if !t.binds => body.clone(),
                At::Root(root) => quote! { { let part = #root; #body } },
                At::Place(place) => quote! { { let part = &#place; #body } },
            });
        }
        if !self.holds(sid, v) {
            return None;
        }
        let s = &self.c.p.structs[sid];
        let mut out = Vec::new();
        for (fi, f) in s.fields.iter().enumerate() {
            // A key field of this holder, copied before the values after it are visited.
            for r in v
                .keys
                .iter()
                .filter(|r| r.struct_id == sid && r.field == fi)
            {
                let n = ident(&r.name);
                let copy = copy_of(quote! { #place.#n }, &f.ty);
                out.push(quote! { let #n = #copy; });
            }
            let name = ident(&f.name);
            let optional = f.condition.is_some();
            let inner = match &f.ty {
                // A plain field is reached by its path (`message.packet.body`).
                Ty::Struct(to, _) if !optional => {
                    let path = At::Place(quote! { #place.#name });
                    self.visit_in(v, *to, &path, depth + 1)
                }
                Ty::Struct(to, _) => {
                    let x = self.binding(v, *to, depth);
                    self.visit_in(v, *to, &At::Bound(x.clone()), depth + 1)
                        .map(|code| quote! { if let Some(#x) = &#place.#name { #code } })
                }
                Ty::Array(elem, _) => match elem.as_ref() {
                    Ty::Struct(to, _) => {
                        let x = self.binding(v, *to, depth);
                        let items = format_ident!("{}s", x);
                        self.visit_in(v, *to, &At::Bound(x.clone()), depth + 1)
                            .map(|code| {
                                if optional {
                                    quote! {
                                        if let Some(#items) = &#place.#name {
                                            for #x in #items { #code }
                                        }
                                    }
                                } else {
                                    quote! { for #x in &#place.#name { #code } }
                                }
                            })
                    }
                    _ => None,
                },
                Ty::Union(u) if !optional => {
                    self.visit_union(v, sid, fi, u, quote! { &#place.#name }, depth)
                }
                Ty::Union(u) => {
                    let present = format_ident!("{}", f.name);
                    self.visit_union(v, sid, fi, u, quote! { #present }, depth)
                        .map(|code| quote! { if let Some(#present) = &#place.#name { #code } })
                }
                _ => None,
            };
            out.extend(inner);
        }
        (!out.is_empty()).then(|| quote! { #(#out)* })
    }

    /// A `match` on the switch `at` refers to, with an arm per case that holds a target (a
    /// struct or an array of them).
    fn visit_union(
        &self,
        v: &Visit,
        sid: StructId,
        fi: usize,
        u: &Union,
        at: TokenStream,
        depth: usize,
    ) -> Option<TokenStream> {
        let un = ident(&self.c.p.union_name(sid, fi));
        let carries_tag = self.c.types().tag_field(sid, fi).is_some();
        let mut arms = Vec::new();
        let cases = u
            .cases
            .iter()
            .map(|c| (&c.variant, c.body, carries_tag && c.single().is_none()))
            .chain(u.default.map(|d| (&u.default_variant, d, true)));
        for (variant, body, named) in cases {
            let (to, array) = match body {
                CaseBody::Struct(to) => (to, false),
                CaseBody::Array(to) => (to, true),
                _ => continue,
            };
            let x = self.binding(v, to, depth);
            let Some(code) = self.visit_in(v, to, &At::Bound(x.clone()), depth + 1) else {
                continue;
            };
            let var = variant_ident(variant);
            // The case's value: an array's under the plural (`commands`).
            let bound = if array {
                format_ident!("{}s", x)
            } else {
                x.clone()
            };
            // A default case and a range case keep their tag beside the value.
            let pattern = if named {
                quote! { #un::#var { value: #bound, .. } }
            } else {
                quote! { #un::#var(#bound) }
            };
            arms.push(if array {
                (pattern, quote! { for #x in #bound { #code } })
            } else {
                (pattern, code)
            });
        }
        match arms.len() {
            0 => None,
            // One case: `if let`, as a person would write it.
            1 if self.union_has_other_cases(u) => {
                let (pattern, code) = arms.pop().expect("one arm");
                Some(quote! { if let #pattern = #at { #code } })
            }
            _ => {
                let arms = arms
                    .iter()
                    .map(|(pattern, code)| quote! { #pattern => { #code } });
                Some(quote! {
                    match #at {
                        #(#arms)*
                        _ => {}
                    }
                })
            }
        }
    }

    /// Whether a switch has a case (or a default) besides any one: an `if let` on one variant
    /// is then not irrefutable.
    fn union_has_other_cases(&self, u: &Union) -> bool {
        u.cases.len() + usize::from(u.default.is_some()) > 1
    }

    /// The local a value of struct `to` is bound to on the way down: `part` for a part, else
    /// its type's name in snake case (`command`), kept apart from the join's own locals and
    /// the keys.
    fn binding(&self, v: &Visit, to: StructId, depth: usize) -> Ident {
        if let Some(t) = v.target(to) {
            return if t.binds {
                format_ident!("part")
            } else {
                format_ident!("_")
            };
        }
        let name = self.c.p.structs[to].name.to_snake_case();
        let taken = [
            "message",
            "joins",
            "direction",
            "completed",
            "tag",
            "conversation",
            "from_client",
            "part",
            "joined",
            "tags",
        ];
        if taken.contains(&name.as_str()) || v.keys.iter().any(|k| k.name == name) {
            format_ident!("{}_{}", name, depth)
        } else {
            ident(&name)
        }
    }

    /// Whether a value of struct `sid` can hold a value of one of `v`'s targets.
    fn holds(&self, sid: StructId, v: &Visit) -> bool {
        crate::lower::analysis::reached_from(self.c.p, vec![sid], |_, _| true)
            .into_iter()
            .any(|id| v.target(id).is_some())
    }
}
