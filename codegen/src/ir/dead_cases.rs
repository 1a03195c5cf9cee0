//! Switch cases no message can take, whatever the encoder is given: the case's tag values are
//! all outside the tag field's `valid`, or another switch on the same tag has none of them and
//! no default (decoding it would fail). The validator warns of them (W0002, W0003) and a proof's
//! coverage list leaves them out, as it leaves out a default no tag value chooses.

use super::*;

/// Why a case cannot be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadCase {
    /// None of its values is one the tag field's `valid` allows.
    OutsideValid,
    /// The switch at this field index of the same struct, on the same tag, has a case for none
    /// of its values and no default.
    NoCaseIn(usize),
}

impl Protocol {
    /// Whether case `ci` of switch field `fi` of struct `sid` can never be taken, and why.
    pub fn dead_case(&self, sid: StructId, fi: usize, ci: usize) -> Option<DeadCase> {
        let s = &self.structs[sid];
        let Ty::Union(u) = &s.fields[fi].ty else {
            return None;
        };
        let tag = u.on.local_field()?;
        let case = u.cases.get(ci)?;
        if let Some(valid) = &s.fields[tag].valid {
            if !case.values.iter().any(|v| allows(valid, *v)) {
                return Some(DeadCase::OutsideValid);
            }
        }
        self.switches_beside(sid, fi, tag)
            .find(|(_, values)| !case.values.iter().any(|v| values.any_overlap(*v)))
            .map(|(oi, _)| DeadCase::NoCaseIn(oi))
    }

    /// Whether the default of switch field `fi` of struct `sid` can never be taken: another
    /// switch on the same tag without a default has cases only for values this one's cases take
    /// (its field index).
    pub fn dead_default(&self, sid: StructId, fi: usize) -> Option<usize> {
        let Ty::Union(u) = &self.structs[sid].fields[fi].ty else {
            return None;
        };
        let tag = u.on.local_field()?;
        u.default.as_ref()?;
        let ours: Vec<CaseValue> = u.cases.iter().flat_map(|c| c.values.clone()).collect();
        self.switches_beside(sid, fi, tag)
            .find(|(_, values)| values.0.iter().all(|w| covered(*w, &ours)))
            .map(|(oi, _)| oi)
    }

    /// The other switches of struct `sid` on field `tag` that take only their cases' values
    /// (no default, no `unless`), with those values.
    fn switches_beside(
        &self,
        sid: StructId,
        fi: usize,
        tag: usize,
    ) -> impl Iterator<Item = (usize, CaseValues)> + '_ {
        let fields = &self.structs[sid].fields;
        fields
            .iter()
            .enumerate()
            .filter_map(move |(oi, o)| match &o.ty {
                Ty::Union(other)
                    if oi != fi
                        && other.on.local_field() == Some(tag)
                        && other.default.is_none()
                        && other.unless.is_none() =>
                {
                    let values = other.cases.iter().flat_map(|c| c.values.clone());
                    Some((oi, CaseValues(values.collect())))
                }
                _ => None,
            })
    }
}

/// The tag values of a switch's cases.
struct CaseValues(Vec<CaseValue>);

impl CaseValues {
    /// Whether one of them shares a tag value with `v`.
    fn any_overlap(&self, v: CaseValue) -> bool {
        self.0.iter().any(|w| overlap(v, *w))
    }
}

/// Whether every tag value of `v` is one of `values`.
fn covered(v: CaseValue, values: &[CaseValue]) -> bool {
    let (mut next, hi) = v.bounds();
    // The values in order of their start: each must continue the run from `next`.
    let mut ranges: Vec<(u64, u64)> = values.iter().map(|w| w.bounds()).collect();
    ranges.sort_unstable();
    for (lo, top) in ranges {
        if lo > next {
            break;
        }
        if top >= next {
            if top >= hi {
                return true;
            }
            next = top + 1;
        }
    }
    false
}

/// Whether two case values share a tag value.
fn overlap(a: CaseValue, b: CaseValue) -> bool {
    let ((alo, ahi), (blo, bhi)) = (a.bounds(), b.bounds());
    alo <= bhi && blo <= ahi
}

/// Whether `valid` allows a value of `v`.
fn allows(valid: &Valid, v: CaseValue) -> bool {
    let (lo, hi) = v.bounds();
    let (lo, hi) = (i128::from(lo), i128::from(hi));
    match valid {
        Valid::List(values) => values
            .iter()
            .any(|&x| lo <= i128::from(x) && i128::from(x) <= hi),
        Valid::Range { min, max } => {
            min.is_none_or(|m| hi >= i128::from(m)) && max.is_none_or(|m| lo <= i128::from(m))
        }
    }
}
