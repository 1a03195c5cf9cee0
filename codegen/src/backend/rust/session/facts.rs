//! `add_facts` on every type the schema's `reliability` reads, and `Protocol::facts`: what a
//! datagram tells the netcode analysis (`wiregen_runtime::analysis`).

use super::*;

impl<'p> Gen<'p> {
    /// `impl T { fn add_facts }` for each type a rule reads.
    pub(crate) fn facts_module(&self) -> TokenStream {
        let Some(r) = &self.p.reliability else {
            return quote! {};
        };
        let mut out = Vec::new();
        for &(sid, _) in &r.carriers {
            let s = &self.p.structs[sid];
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
                    let w = self.expr_top(w, Ctx::Value);
                    quote! { if #w { #stmt } }
                }
                None => stmt,
            };
            for q in r.sequences.iter().filter(|q| q.in_struct == sid) {
                let place = place(q.channel, q.field, q.part.as_ref().map(|(p, _)| *p));
                let reliable = match &q.reliable {
                    Reliable::Always => quote! { true },
                    Reliable::Never => quote! { false },
                    Reliable::When(e) => self.expr_top(e, Ctx::Value),
                };
                let last = match &q.part {
                    Some((_, e)) => self.expr_top(e, Ctx::Value),
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
            let ty = self.ty_anon(sid);
            let doc = doc_prose(&format!(
                "Adds what this `{}` tells the netcode analysis (the schema's `reliability`).",
                s.name
            ));
            out.push(quote! {
                impl #ty {
                    #doc
                    pub fn add_facts(&self, facts: &mut wiregen_runtime::analysis::Facts) {
                        #(#body)*
                    }
                }
            });
        }
        quote! { #(#out)* }
    }

    /// The `Protocol` items of the analysis: the channels and `facts`, which walks the routes
    /// from a datagram down to every value a rule reads.
    pub(crate) fn facts_protocol(&self) -> TokenStream {
        let p = self.p;
        let Some(r) = &p.reliability else {
            return quote! {};
        };
        let names = r.channels.iter().map(|c| &c.name);
        let wraps = r.channels.iter().map(|c| lit_u64(c.wrap));
        let message = format_ident!("message");
        let mut visits = Vec::new();
        for (_, routes) in &r.carriers {
            for route in routes {
                visits.push(self.route_visit(route, quote! { #message }, 0));
            }
        }
        let take_root = if p.opening.is_empty() {
            quote! { let message = datagram; }
        } else {
            let v = ident(&p.root().name);
            quote! {
                let Datagram::#v(message) = datagram else {
                    return facts;
                };
            }
        };
        quote! {
            const CHANNELS: &'static [&'static str] = &[#(#names),*];
            const CHANNEL_WRAPS: &'static [u64] = &[#(#wraps),*];

            fn facts(datagram: &Self::Datagram<'_>) -> wiregen_runtime::analysis::Facts {
                let mut facts = wiregen_runtime::analysis::Facts::default();
                #take_root
                #(#visits)*
                facts
            }
        }
    }

    /// `value.add_facts(&mut facts)` for the value at the end of `route`, from `at` (hop `k`).
    fn route_visit(&self, route: &[Hop], at: TokenStream, k: usize) -> TokenStream {
        let Some(hop) = route.first() else {
            return quote! { #at.add_facts(&mut facts); };
        };
        let p = self.p;
        let f = &p.structs[hop.in_struct].fields[hop.field];
        let name = ident(&f.name);
        let bind = format_ident!("v{}", k);
        let inner = self.route_visit(&route[1..], quote! { #bind }, k + 1);
        let Some(case) = hop.case else {
            return match f.condition {
                Some(_) => quote! { if let Some(#bind) = &#at.#name { #inner } },
                None => quote! { { let #bind = &#at.#name; #inner } },
            };
        };
        let Ty::Union(u) = &f.ty else {
            return quote! {};
        };
        let un = ident(&naming::union_type(p, hop.in_struct, hop.field));
        let tagged = self.tag_field(hop.in_struct, hop.field).is_some();
        let pat = match case {
            Some(ci) => {
                let c = &u.cases[ci];
                let v = ident(&c.variant);
                if tagged && c.single().is_none() {
                    quote! { #un::#v { value: #bind, .. } }
                } else {
                    quote! { #un::#v(#bind) }
                }
            }
            None => {
                let v = ident(&u.default_variant);
                if tagged {
                    quote! { #un::#v { value: #bind, .. } }
                } else {
                    quote! { #un::#v(#bind) }
                }
            }
        };
        let subject = match f.condition {
            Some(_) => quote! { Some(#pat) },
            None => pat,
        };
        quote! { if let #subject = &#at.#name { #inner } }
    }
}
