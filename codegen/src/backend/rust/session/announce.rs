//! `ArbitraryProtocol::arbitrary_stateful`: a random message whose values are typed by lists
//! (the schema's `state`), after messages announcing exactly the lists it needs, so that
//! `wiregen verify` reaches the types only such a conversation can carry (DNP's Link Update).
//!
//! The message is drawn first; a visit of its values collects, per table and key, the value
//! each index it reads took (a variant of the switch whose cases the list's elements have too:
//! `cases_from`, one enum for both); then each list is announced by a random value of the
//! record's type carrying that key and, at each index, a random element holding that value,
//! wrapped in a random root message.

use super::carriers::{Target, Visit};
use super::*;

/// Renders `arbitrary_stateful`: conversations whose messages announce what later ones use.
#[derive(Clone, Copy)]
pub(crate) struct StatefulDraws<'p> {
    pub(crate) c: Crate<'p>,
}

/// A state table verify can announce: its record's holder reached as a case of the root's
/// switch, its elements holding the values the consumers' switches took.
struct Announced {
    /// The local collecting the lists the message needs (the table's name).
    lists: Ident,
    /// Statements announcing every collected list (pushing root messages to `datagrams`).
    announce: TokenStream,
    /// The elements' switch (struct, field), whose enum the consumers' switches share.
    elements: (StructId, usize),
    /// The record's key type (as `Debug` writes it: the consumers' keys must be alike).
    key_ty: String,
}

impl StatefulDraws<'_> {
    pub(crate) fn arbitrary_stateful(&self) -> TokenStream {
        let p = self.c.p;
        if p.state.is_empty() || !p.opening.is_empty() {
            return quote! {};
        }
        let mut tables = Vec::new();
        let mut targets: Vec<Target> = Vec::new();
        for (ti, table) in p.state.iter().enumerate() {
            let Some(announced) = self.announced(table) else {
                continue;
            };
            let found = self.consumers(ti, &announced);
            if found.is_empty() {
                continue;
            }
            for (sid, body) in found {
                match targets.iter_mut().find(|t| t.sid == sid) {
                    Some(t) => t.body.extend(body),
                    None => targets.push(Target {
                        sid,
                        body,
                        binds: true,
                    }),
                }
            }
            tables.push(announced);
        }
        if tables.is_empty() {
            return quote! {};
        }
        let root = ident(&p.root().name);
        let visit = self.c.carriers().visit_carriers(
            &Visit { targets, keys: &[] },
            p.root,
            quote! { message },
        );
        let lists = tables.iter().map(|t| &t.lists);
        let announce = tables.iter().map(|t| &t.announce);
        let lists_check = tables.iter().map(|t| &t.lists);
        let (encode, direction) = if self.c.l.reads_direction[p.root] {
            (quote! { encode_from(from_client) }, quote! {})
        } else {
            (quote! { encode() }, quote! { let _ = from_client; })
        };
        quote! {
            fn arbitrary_stateful(u: &mut arbitrary::Unstructured<'_>, from_client: bool) -> arbitrary::Result<Result<Vec<Vec<u8>>, EncodeError>> {
                #direction
                let message = <#root as arbitrary::Arbitrary>::arbitrary(u)?;
                // Per table and key, the value each index the message reads took.
                #( let mut #lists = Vec::new(); )*
                #visit
                if #( #lists_check.is_empty() )&&* {
                    return Ok(Ok(Vec::new()));
                }
                let mut datagrams = Vec::new();
                #(#announce)*
                datagrams.push(message);
                Ok(datagrams.iter().map(|datagram| datagram.#encode).collect())
            }
        }
    }

    /// How a table's lists are announced, when its record is a case of the root's switch and
    /// its elements' switch, whose tag is the item, has the enum the consumers' switches share.
    fn announced(&self, table: &StateTable) -> Option<Announced> {
        let p = self.c.p;
        let r = table
            .records
            .iter()
            .find(|r| r.via.is_none() && r.holder == r.in_struct)?;
        // The root's switch case carrying the record's type.
        let root = p.root();
        let (carrier_field, carrier_case) =
            root.fields.iter().enumerate().find_map(|(fi, f)| {
                let Ty::Union(u) = &f.ty else { return None };
                let c = u
                    .cases
                    .iter()
                    .find(|c| c.body == CaseBody::Struct(r.in_struct) && c.single().is_some())?;
                Some((fi, c.variant.clone()))
            })?;
        // The elements' switch whose tag is the item.
        let elem = &p.structs[r.elem];
        let switch = elem.fields.iter().position(|f| {
            matches!(&f.ty, Ty::Union(u) if u.on.local_field() == Some(r.item) && u.shares.is_none())
        })?;
        let lists = format_ident!("{}", table.name.to_snake_case());
        let holder = ident(&p.structs[r.holder].name);
        let elem_n = ident(&elem.name);
        let (hkey, list) = (
            ident(&p.structs[r.holder].fields[r.key].name),
            ident(&p.structs[r.holder].fields[r.list].name),
        );
        let value = ident(&elem.fields[switch].name);
        let carrier = ident(&root.fields[carrier_field].name);
        let carrier_union = ident(&p.union_name(p.root, carrier_field));
        let carrier_case = variant_ident(&carrier_case);
        let root_n = ident(&root.name);
        let announce = quote! {
            for (key, values) in #lists {
                let mut holder = <#holder as arbitrary::Arbitrary>::arbitrary(u)?;
                holder.#hkey = key;
                holder.#list = values
                    .into_iter()
                    .map(|value| {
                        let mut element = <#elem_n as arbitrary::Arbitrary>::arbitrary(u)?;
                        if let Some(value) = value {
                            element.#value = value;
                        }
                        Ok(element)
                    })
                    .collect::<arbitrary::Result<_>>()?;
                let mut carrier = <#root_n as arbitrary::Arbitrary>::arbitrary(u)?;
                carrier.#carrier = #carrier_union::#carrier_case(holder);
                datagrams.push(carrier);
            }
        };
        Some(Announced {
            lists,
            announce,
            elements: (r.elem, switch),
            key_ty: format!("{:?}", p.structs[r.holder].fields[r.key].ty),
        })
    }

    /// The structs whose values read table `ti` (an array field selecting one of its lists by
    /// a field of theirs, of the record's key type, whose elements' switch is on an item of it
    /// and shares the enum of the announced elements), each with the statements collecting the
    /// values its value `part` holds into the lists, by index.
    fn consumers(&self, ti: usize, announced: &Announced) -> Vec<(StructId, TokenStream)> {
        let p = self.c.p;
        let (elements, lists) = (announced.elements, &announced.lists);
        let Ty::Union(eu) = &p.structs[elements.0].fields[elements.1].ty else {
            return Vec::new();
        };
        let Some(item) = eu.on.local_field() else {
            return Vec::new();
        };
        let tag = ident(&p.structs[elements.0].fields[item].name);
        let mut out = Vec::new();
        for (sid, s) in p.structs.iter().enumerate() {
            for f in &s.fields {
                let Some(key) = f
                    .select
                    .iter()
                    .find(|(t, _)| *t == ti)
                    .and_then(|(_, key)| key.local_field())
                else {
                    continue;
                };
                let Ty::Array(e, _) = &f.ty else { continue };
                let Ty::Struct(eid, _) = **e else { continue };
                let es = &p.structs[eid];
                let Some((vi, index)) = es.fields.iter().enumerate().find_map(|(vi, v)| {
                    let Ty::Union(u) = &v.ty else { return None };
                    let Expr::Item(t, index) = &u.on else {
                        return None;
                    };
                    (*t == ti && u.shares == Some(elements)).then_some(())?;
                    Some((vi, index.local_field()?))
                }) else {
                    continue;
                };
                // The holder's key and this one are of one type (the lists are keyed alike).
                if !matches!(es.fields[index].ty, Ty::Int(_))
                    || announced.key_ty != format!("{:?}", s.fields[key].ty)
                {
                    continue;
                }
                let (key, field, value, index) = (
                    ident(&s.fields[key].name),
                    ident(&f.name),
                    ident(&es.fields[vi].name),
                    ident(&es.fields[index].name),
                );
                out.push((
                    sid,
                    quote! {
                        let list = wiregen_runtime::arbitrary_support::list_of(&mut #lists, part.#key);
                        for element in &part.#field {
                            let value = element.#value.clone();
                            let index = element.#index as usize;
                            wiregen_runtime::arbitrary_support::require(list, index, value, |a, b| a.#tag() == b.#tag())?;
                        }
                    },
                ));
            }
        }
        out
    }
}
