//! What only a shown tree needs. Subtrees of a label (an array, an element, a case, a nested
//! value's subtree) have no field of their own, so nothing filters on them and Wireshark fakes
//! them when the tree is not shown (tshark without `-V` or `-T fields`, a packet Wireshark does
//! not display): `add` then gives back the parent, after a C call and a new userdata. Text
//! appended to a label (a bit field's `[bits 4-19]`) is not seen either. The dissector asks
//! once per message whether the tree is shown (`VISIBLE`) and, when it is not, puts the fields
//! under the parent at once and writes no text: what Wireshark would have shown, without the
//! calls.

/// An expression: a subtree labelled `label` (a Lua expression) over `range` under `parent`
/// when the tree is shown, else `parent`.
pub(crate) fn subtree(parent: &str, range: &str, label: &str) -> String {
    format!("VISIBLE and {parent}:add({range}, {label}) or {parent}")
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
