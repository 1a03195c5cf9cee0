//! What only a shown tree needs. Subtrees of a label (an array, an element, a case, a nested
//! value's subtree) have no field of their own, so nothing filters on them and Wireshark fakes
//! them when the tree is not shown (tshark without `-V` or `-T fields`, a packet Wireshark does
//! not display): `add` then gives back the parent, after a C call and a new userdata. Text
//! appended to a label (a bit field's `[bits 4-19]`) is not seen either. The dissector asks
//! once per message whether the tree is shown (`VISIBLE`) and, when it is not, puts the fields
//! under the parent at once and writes no text: what Wireshark would have shown, without the
//! calls.

use crate::ir::{CaseValue, Protocol, StructId, Ty, Union};

/// An expression: a subtree labelled `label` (a Lua expression) over `range` under `parent`
/// when the tree is shown, else `parent`.
pub(crate) fn subtree(parent: &str, range: &str, label: &str) -> String {
    format!("VISIBLE and {parent}:add({range}, {label}) or {parent}")
}

/// The tree an element of struct type `id` of array `arr` is shown in: a subtree labelled
/// `label` over `range`, made by a line written to `c` (`sub`), or, for a type shown without
/// one (`subtree: false`), the array's own (`arr`, nothing written). The caller sets the
/// subtree's length when it is `sub`.
pub(crate) fn element<'a>(
    p: &Protocol,
    id: StructId,
    c: &mut crate::backend::lua::code::Code,
    arr: &'a str,
    range: &str,
    label: &str,
) -> &'a str {
    if !p.structs[id].subtree {
        return arr;
    }
    c.line(format!("sub = {}", subtree(arr, range, label)));
    "sub"
}

/// A statement: such a subtree's length set once its end is known, when it was made.
pub(crate) fn set_len(item: &str, len: &str) -> String {
    format!("if VISIBLE then {item}:set_len({len}) end")
}

/// A statement: text appended to such a subtree's label, when it was made.
pub(crate) fn append_text(item: &str, text: &str) -> String {
    format!("if VISIBLE then {item}:append_text({text}) end")
}

/// A statement run only when the tree is shown (text of a label).
pub(crate) fn only(statement: &str) -> String {
    format!("if VISIBLE then {statement} end")
}

/// Whether switch `fi` of struct `sid` shows its case's fields in the struct's own tree (the
/// protocol's item for the root) rather than in a subtree of the case: when the switch is the
/// struct's last field, so that nothing after it could be taken for the case's, and its tag is
/// an enum field of the struct read before it that names every value a case takes, so that the
/// tag's line already says which case follows ("Code: LongReliableMessage (0x0a)", then the
/// message's fields, as a hand-written dissector shows them). A case picked by anything else (a
/// list announced earlier, an expression, a value the enum leaves unnamed) keeps its labelled
/// subtree: nothing else would name it; so does the switch's default, whatever the tag. One
/// subtree fewer per message, or per element of an array of such values: a C call and a
/// `set_len` each.
pub(crate) fn case_inline(p: &Protocol, sid: StructId, fi: usize, u: &Union) -> bool {
    let fields = &p.structs[sid].fields;
    let Some(tag) = u.on.local_field() else {
        return false;
    };
    let Ty::Enum(e) = fields[tag].ty else {
        return false;
    };
    let e = &p.enums[e];
    let named = |x: u64| e.values.iter().any(|v| v.value == x);
    let in_named_range = |lo: u64, hi: u64| e.ranges.iter().any(|r| r.lo <= lo && hi <= r.hi);
    let all_named = u.cases.iter().flat_map(|c| &c.values).all(|v| match *v {
        CaseValue::One(x) => named(x) || in_named_range(x, x),
        CaseValue::Range(lo, hi) => {
            in_named_range(lo, hi) || (hi - lo < 256 && (lo..=hi).all(named))
        }
    });
    // A struct shown without a subtree of its own (`subtree: false`) has no tree to end: its
    // case's fields would run on into what follows it.
    p.structs[sid].subtree
        && fi + 1 == fields.len()
        && tag < fi
        && u.unless.is_none()
        && fields[tag].condition.is_none()
        && all_named
}
