//! `add_facts` on every type the schema's `reliability` reads, and `Protocol::facts`: what a
//! datagram tells the netcode analysis (`wiregen_runtime::analysis`).

use super::*;

/// What the walk from a datagram to the values a rule reads does at each: its call, and
/// whether it changes them.
struct Visit {
    call: TokenStream,
    mutable: bool,
}

/// Renders the `facts` module: the values netcode analysis reads.
#[derive(Clone, Copy)]
pub(crate) struct FactsModule<'p> {
    pub(crate) c: Crate<'p>,
}

impl<'p> FactsModule<'p> {
    /// `impl T { fn add_facts }` for each type a rule reads.
    pub(crate) fn facts_module(&self) -> TokenStream {
        let Some(r) = &self.c.p.reliability else {
            return quote! {};
        };
        let mut out = Vec::new();
        for &(sid, _) in &r.carriers {
            let s = &self.c.p.structs[sid];
            let mut body = Vec::new();
            let number = |fi: usize| {
                let f = ident(&s.fields[fi].name);
                quote! { u64::from(self.#f) }
            };
            // `channel, number, part`: where a datagram sits in a numbering.
            let place = |channel: usize, field: usize, part: Option<usize>| {
                let channel = Literal::u8_unsuffixed(channel as u8);
                let n = number(field);
                let part = part.map_or(quote! { 0 }, number);
                quote! { #channel, #n, #part }
            };
            let guarded = |when: &Option<Expr>, stmt: TokenStream| match when {
                Some(w) => {
                    let w = self.c.exprs().expr_top(w, Ctx::Value);
                    quote! { if #w { #stmt } }
                }
                None => stmt,
            };
            for q in r.sequences.iter().filter(|q| q.in_struct == sid) {
                let place = place(q.channel, q.field, q.part.as_ref().map(|(p, _)| *p));
                let reliable = match &q.reliable {
                    Reliable::Always => quote! { true },
                    Reliable::Never => quote! { false },
                    Reliable::When(e) => self.c.exprs().expr_top(e, Ctx::Value),
                };
                let last = match &q.part {
                    Some((_, e)) => self.c.exprs().expr_top(e, Ctx::Value),
                    None => quote! { true },
                };
                body.push(guarded(
                    &q.when,
                    quote! {
                        facts.numbered(#place, #reliable, #last);
                    },
                ));
            }
            for a in r.acks.iter().filter(|a| a.in_struct == sid) {
                let stmt = match a.bits {
                    Some((bits, width)) => {
                        let channel = Literal::u8_unsuffixed(a.channel as u8);
                        let (n, b) = (number(a.field), number(bits));
                        let wrap = lit_u64(r.channels[a.channel].wrap);
                        let width = Literal::u32_unsuffixed(width);
                        let place = place(a.channel, a.field, a.part);
                        quote! {
                            facts.ack(#place, false);
                            facts.ack_bits(#channel, #n, #b, #width, #wrap);
                        }
                    }
                    // A field not always there acks when the value has it.
                    None if a.optional => {
                        let channel = Literal::u8_unsuffixed(a.channel as u8);
                        let f = ident(&s.fields[a.field].name);
                        let cumulative = a.cumulative;
                        quote! {
                            if let Some(n) = self.#f {
                                facts.ack(#channel, u64::from(n), 0, #cumulative);
                            }
                        }
                    }
                    None => {
                        let place = place(a.channel, a.field, a.part);
                        let cumulative = a.cumulative;
                        quote! { facts.ack(#place, #cumulative); }
                    }
                };
                body.push(guarded(&a.when, stmt));
            }
            for g in r.pings.iter().filter(|g| g.in_struct == sid) {
                let (id, reply) = (number(g.id), g.reply);
                body.push(quote! { facts.ping(#id, #reply); });
            }
            let renumber = self.renumber_body(sid, &guarded);
            let ty = self.c.ty_anon(sid);
            let doc = doc_prose(&format!(
                "Adds what this `{}` tells the netcode analysis (the schema's `reliability`).",
                s.name
            ));
            let renumber_doc = doc_prose(&format!(
                "Rewrites the sequence numbers and acks of this `{}` (see `Protocol::renumber`).",
                s.name
            ));
            // A type carrying only ping ids has nothing to renumber.
            let renumber = (!renumber.is_empty()).then(|| {
                quote! {
                    #renumber_doc
                    pub fn renumber(
                        &mut self,
                        map: &mut dyn FnMut(wiregen_runtime::analysis::Numbering, u64) -> u64,
                    ) {
                        #(#renumber)*
                    }
                }
            });
            out.push(quote! {
                impl #ty {
                    #doc
                    pub fn add_facts(&self, facts: &mut wiregen_runtime::analysis::Facts) {
                        #(#body)*
                    }

                    #renumber
                }
            });
        }
        quote! { #(#out)* }
    }

    /// The statements of `renumber` on `sid`: each sequence number and ack (an ack bitfield's
    /// base) mapped, guarded as its rule is, kept when the new number does not fit.
    fn renumber_body(
        &self,
        sid: StructId,
        guarded: &dyn Fn(&Option<Expr>, TokenStream) -> TokenStream,
    ) -> Vec<TokenStream> {
        let Some(r) = &self.c.p.reliability else {
            return Vec::new();
        };
        let s = &self.c.p.structs[sid];
        let mut body = Vec::new();
        let set = |field: usize, role: TokenStream, channel: usize| {
            let f = ident(&s.fields[field].name);
            let channel = Literal::u8_unsuffixed(channel as u8);
            let numbering =
                quote! { wiregen_runtime::analysis::Numbering::#role { channel: #channel } };
            quote! {
                if let Ok(n) = map(#numbering, u64::from(self.#f)).try_into() {
                    self.#f = n;
                }
            }
        };
        for q in r.sequences.iter().filter(|q| q.in_struct == sid) {
            body.push(guarded(
                &q.when,
                set(q.field, quote! { Sequence }, q.channel),
            ));
        }
        for a in r.acks.iter().filter(|a| a.in_struct == sid) {
            let stmt = if a.optional && a.bits.is_none() {
                let f = ident(&s.fields[a.field].name);
                let channel = Literal::u8_unsuffixed(a.channel as u8);
                quote! {
                    if let Some(old) = self.#f {
                        let numbering = wiregen_runtime::analysis::Numbering::Ack { channel: #channel };
                        if let Ok(n) = map(numbering, u64::from(old)).try_into() {
                            self.#f = Some(n);
                        }
                    }
                }
            } else {
                set(a.field, quote! { Ack }, a.channel)
            };
            body.push(guarded(&a.when, stmt));
        }
        body
    }

    /// The `Protocol` items of the analysis: the channels and `facts`, which walks the routes
    /// from a datagram down to every value a rule reads.
    pub(crate) fn facts_protocol(&self) -> TokenStream {
        let p = self.c.p;
        let Some(r) = &p.reliability else {
            return quote! {};
        };
        let names = r.channels.iter().map(|c| &c.name);
        let wraps = r.channels.iter().map(|c| lit_u64(c.wrap));
        let message = format_ident!("message");
        let routes: Vec<&[Hop]> = r
            .carriers
            .iter()
            .flat_map(|(_, routes)| routes.iter().map(Vec::as_slice))
            .collect();
        let add = Visit {
            call: quote! { add_facts(&mut facts) },
            mutable: false,
        };
        let visits = self.routes_visit(&routes, quote! { #message }, 0, &add);
        let change = Visit {
            call: quote! { renumber(map) },
            mutable: true,
        };
        let numbered: Vec<&[Hop]> = r
            .carriers
            .iter()
            .filter(|(sid, _)| {
                r.sequences.iter().any(|q| q.in_struct == *sid)
                    || r.acks.iter().any(|a| a.in_struct == *sid)
            })
            .flat_map(|(_, routes)| routes.iter().map(Vec::as_slice))
            .collect();
        let renumbers = self.routes_visit(&numbered, quote! { #message }, 0, &change);
        let (take_root, take_root_mut) = if p.opening.is_empty() {
            (
                quote! { let message = datagram; },
                quote! { let message = datagram; },
            )
        } else {
            let v = ident(&p.root().name);
            (
                quote! {
                    let Datagram::#v(message) = datagram else {
                        return facts;
                    };
                },
                quote! {
                    let Datagram::#v(message) = datagram else {
                        return;
                    };
                },
            )
        };
        quote! {
            const CHANNELS: &'static [&'static str] = &[#(#names),*];
            const CHANNEL_WRAPS: &'static [u64] = &[#(#wraps),*];

            fn facts(datagram: &Self::Datagram<'_>) -> wiregen_runtime::analysis::Facts {
                let mut facts = wiregen_runtime::analysis::Facts::default();
                #take_root
                #visits
                facts
            }

            fn renumber(
                datagram: &mut Self::Datagram<'_>,
                map: &mut dyn FnMut(wiregen_runtime::analysis::Numbering, u64) -> u64,
            ) {
                #take_root_mut
                #renumbers
            }
        }
    }

    /// `visit.call` on every value at the end of `routes` (hop lists from `at`, bound `v{k}`):
    /// routes through one field share one `match` on it, one arm per case.
    fn routes_visit(
        &self,
        routes: &[&[Hop]],
        at: TokenStream,
        k: usize,
        visit: &Visit,
    ) -> TokenStream {
        let p = self.c.p;
        let mut out = Vec::new();
        let call = &visit.call;
        if routes.iter().any(|r| r.is_empty()) {
            out.push(quote! { #at.#call; });
        }
        let by = if visit.mutable {
            quote! { &mut }
        } else {
            quote! { & }
        };
        let mut fields: Vec<(StructId, usize)> = Vec::new();
        for r in routes.iter().filter_map(|r| r.first()) {
            if !fields.contains(&(r.in_struct, r.field)) {
                fields.push((r.in_struct, r.field));
            }
        }
        let bind = format_ident!("v{}", k);
        for (sid, fi) in fields {
            let f = &p.structs[sid].fields[fi];
            let name = ident(&f.name);
            let through: Vec<&[Hop]> = routes
                .iter()
                .filter(|r| {
                    r.first()
                        .is_some_and(|h| (h.in_struct, h.field) == (sid, fi))
                })
                .copied()
                .collect();
            let mut cases: Vec<Option<Option<usize>>> = Vec::new();
            for r in &through {
                if !cases.contains(&r[0].case) {
                    cases.push(r[0].case);
                }
            }
            let mut arms = Vec::new();
            for case in cases {
                let rest: Vec<&[Hop]> = through
                    .iter()
                    .filter(|r| r[0].case == case)
                    .map(|r| &r[1..])
                    .collect();
                let inner = self.routes_visit(&rest, quote! { #bind }, k + 1, visit);
                let pat = match case {
                    None => quote! { #bind },
                    Some(case) => self.case_pattern(sid, fi, case, &bind),
                };
                let pat = match f.condition {
                    Some(_) => quote! { Some(#pat) },
                    None => pat,
                };
                arms.push((pat, inner));
            }
            // Whether the arms cover every value (no catch-all then, and a lone arm is a `let`).
            let every = f.condition.is_none()
                && match &f.ty {
                    Ty::Union(u) => arms.len() == u.cases.len() + usize::from(u.default.is_some()),
                    _ => true,
                };
            out.push(match arms.as_slice() {
                [(pat, inner)] if every => quote! { { let #pat = #by #at.#name; #inner } },
                [(pat, inner)] => quote! { if let #pat = #by #at.#name { #inner } },
                _ => {
                    let arms = arms
                        .iter()
                        .map(|(pat, inner)| quote! { #pat => { #inner } });
                    let rest = (!every).then(|| quote! { _ => {} });
                    quote! { match #by #at.#name { #(#arms)* #rest } }
                }
            });
        }
        quote! { #(#out)* }
    }

    /// The pattern of case `case` (`None`: the default) of switch field `fi` of `sid`, binding
    /// the case's value as `bind`.
    fn case_pattern(
        &self,
        sid: StructId,
        fi: usize,
        case: Option<usize>,
        bind: &Ident,
    ) -> TokenStream {
        let p = self.c.p;
        let Ty::Union(u) = &p.structs[sid].fields[fi].ty else {
            return quote! { #bind };
        };
        let un = ident(&p.union_name(sid, fi));
        let tagged = self.c.types().tag_field(sid, fi).is_some();
        let (variant, carries_tag) = match case {
            Some(ci) => (
                &u.cases[ci].variant,
                tagged && u.cases[ci].single().is_none(),
            ),
            None => (&u.default_variant, tagged),
        };
        let v = variant_ident(variant);
        if carries_tag {
            quote! { #un::#v { value: #bind, .. } }
        } else {
            quote! { #un::#v(#bind) }
        }
    }
}
