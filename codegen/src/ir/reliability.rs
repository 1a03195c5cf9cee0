//! Delivery semantics the wire already carries: which fields number datagrams, which ack them,
//! which carry ping ids. Read by the netcode analysis of both outputs (the crate's
//! `Protocol::facts`, the dissector's `<proto>.analysis.*` fields).

use super::*;

/// The schema's `reliability` block, resolved.
#[derive(Debug, Clone, Default)]
pub struct Reliability {
    /// Numberings kept apart, by index (`main` first when used).
    pub channels: Vec<Channel>,
    pub sequences: Vec<SequenceRule>,
    pub acks: Vec<AckRule>,
    pub pings: Vec<PingRule>,
    /// Every type a rule reads, and the routes from the root down to its values.
    pub carriers: Vec<(StructId, Vec<Route>)>,
}

#[derive(Debug, Clone)]
pub struct Channel {
    pub name: String,
    /// Numbers count modulo this.
    pub wrap: u64,
}

/// Values of `in_struct` (where `when` holds) are numbered by `field` in `channel`.
#[derive(Debug, Clone)]
pub struct SequenceRule {
    pub in_struct: StructId,
    pub field: usize,
    pub channel: usize,
    pub when: Option<Expr>,
    /// Resent until acked: always, never, or where this holds.
    pub reliable: Reliable,
    /// The part of the number's payload, and the condition marking the last part.
    pub part: Option<(usize, Expr)>,
}

#[derive(Debug, Clone)]
pub enum Reliable {
    Always,
    Never,
    When(Expr),
}

/// Values of `in_struct` (where `when` holds) ack `field` of `channel`'s other direction.
#[derive(Debug, Clone)]
pub struct AckRule {
    pub in_struct: StructId,
    pub field: usize,
    pub channel: usize,
    pub when: Option<Expr>,
    pub part: Option<usize>,
    /// A bitfield acking the numbers before `field`, and its width in bits.
    pub bits: Option<(usize, u32)>,
    pub cumulative: bool,
    /// The field is conditional: the rule acks when the value has it (a plain ack only).
    pub optional: bool,
}

/// Values of `in_struct` carry ping id `id`: a request, or the reply echoing it.
#[derive(Debug, Clone)]
pub struct PingRule {
    pub in_struct: StructId,
    pub id: usize,
    pub reply: bool,
}

/// One way down from the root to a value: the hops in order (empty: the root itself).
pub type Route = Vec<Hop>;

/// Through field `field` of `in_struct`; for a switch, the case holding the next type (`None`:
/// its default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub in_struct: StructId,
    pub field: usize,
    pub case: Option<Option<usize>>,
}

impl Reliability {
    /// The rules reading values of `sid`, in the order sequences, acks, pings.
    pub fn reads(&self, sid: StructId) -> bool {
        self.sequences.iter().any(|r| r.in_struct == sid)
            || self.acks.iter().any(|r| r.in_struct == sid)
            || self.pings.iter().any(|r| r.in_struct == sid)
    }
}

/// Every route from the root to values of `target`, when they are the only places such values
/// are: no array, reassembled payload or other type holds one (each output then finds the same
/// values, the crate by walking these routes, the dissector where it reads the type).
/// `Err` says where else a value is.
pub fn only_routes(p: &Protocol, target: StructId) -> Result<Vec<Route>, String> {
    fn walk(p: &Protocol, target: StructId, depth: usize) -> Result<Vec<Route>, String> {
        if depth > p.structs.len() {
            return Err("it contains itself".into());
        }
        let name = &p.structs[target].name;
        if target == p.root {
            return Ok(vec![Vec::new()]);
        }
        let mut out = Vec::new();
        for (sid, s) in p.structs.iter().enumerate() {
            for (fi, f) in s.fields.iter().enumerate() {
                let mut hops = Vec::new();
                match &f.ty {
                    Ty::Struct(t, _) if *t == target => hops.push(None),
                    Ty::Array(elem, _) if matches!(**elem, Ty::Struct(t, _) if t == target) => {
                        return Err(format!("'{}.{}' holds an array of {name}", s.name, f.name));
                    }
                    Ty::Union(u) => {
                        for (ci, c) in u.cases.iter().enumerate() {
                            match c.body {
                                CaseBody::Struct(t) if t == target => hops.push(Some(Some(ci))),
                                CaseBody::Array(t) if t == target => {
                                    return Err(format!(
                                        "'{}.{}' holds an array of {name}",
                                        s.name, f.name
                                    ))
                                }
                                _ => {}
                            }
                        }
                        if u.default == Some(CaseBody::Struct(target)) {
                            hops.push(Some(None));
                        }
                    }
                    _ => {}
                }
                if hops.is_empty() {
                    continue;
                }
                for route in walk(p, sid, depth + 1)? {
                    for &case in &hops {
                        let mut r = route.clone();
                        r.push(Hop {
                            in_struct: sid,
                            field: fi,
                            case,
                        });
                        out.push(r);
                    }
                }
            }
        }
        if out.is_empty() {
            return Err(format!("the root never holds a {name}"));
        }
        Ok(out)
    }
    let name = &p.structs[target].name;
    let wholes = p.reassembly.iter().flat_map(|r| match r.whole {
        WholeType::ByDirection { client, server } => vec![client, server],
        WholeType::AsField(_) => Vec::new(),
    });
    let streams = p
        .joins
        .iter()
        .flat_map(|j| j.streams.iter().filter_map(|s| s.whole));
    let opening = p.opening.iter().map(|(_, t)| *t);
    if wholes.chain(streams).chain(opening).any(|w| w == target) {
        return Err(format!(
            "a {name} is read from a reassembled payload or an opening datagram"
        ));
    }
    let routes = walk(p, target, 0)?;
    if let Some(Reassembly {
        whole: WholeType::AsField(fi),
        ..
    }) = p.reassembly
    {
        if routes
            .iter()
            .any(|r| r.first().is_some_and(|h| h.field == fi))
        {
            return Err(format!(
                "a {name} is read from the reassembled '{}' too",
                p.root().fields[fi].name
            ));
        }
    }
    Ok(routes)
}
