//! Methods of Wireshark's tree items and byte ranges called as functions.
//!
//! `tree:add(f, range)` looks `add` up through the TreeItem metatable's `__index`, a C function,
//! on every call; in a dissector that adds ten items a packet that lookup is a tenth of its
//! cost (measured with callgrind on the DNP session of `lua_versus`). The template declares each
//! method once as a local (`local tree_add = TreeItem.add`, Wireshark 4.0 and later) and this
//! pass rewrites the calls of the dissector's own tree items and ranges (`tree:add(f, range)` →
//! `tree_add(tree, f, range)`), outside strings and comments; declarations nothing calls are
//! dropped afterwards with the other unused definitions.

/// Variables holding tree items in the generated code and the template (`arr_<name>` too).
const TREE_ITEMS: &[&str] = &["tree", "sub", "item", "root"];
/// Tree item methods called per packet.
const TREE_METHODS: &[&str] = &[
    "add",
    "add_le",
    "add_packet_field",
    "add_proto_expert_info",
    "append_text",
    "set_generated",
    "set_len",
    "set_text",
];
/// Variables holding byte ranges (`TvbRange`), and the readers called on them.
const RANGES: &[&str] = &["range"];
const RANGE_METHODS: &[&str] = &[
    "bytes",
    "float",
    "int",
    "int64",
    "le_float",
    "le_int",
    "le_int64",
    "le_uint",
    "le_uint64",
    "raw",
    "uint",
    "uint64",
];

/// The local a method is called through: `tree_add`, `range_le_uint`.
fn local_of(receiver: &str, method: &str) -> Option<String> {
    let is_tree = TREE_ITEMS.contains(&receiver) || receiver.starts_with("arr_");
    if is_tree && TREE_METHODS.contains(&method) {
        return Some(format!("tree_{method}"));
    }
    if RANGES.contains(&receiver) && RANGE_METHODS.contains(&method) {
        return Some(format!("range_{method}"));
    }
    None
}

/// The declarations of every local [`local_of`] can name, for the template.
pub(crate) fn declarations() -> String {
    let mut out = String::new();
    for m in TREE_METHODS {
        out.push_str(&format!("local tree_{m} = TreeItem.{m}\n"));
    }
    for m in RANGE_METHODS {
        out.push_str(&format!("local range_{m} = TvbRange.{m}\n"));
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The level of a long bracket opening at `at` (`[[` is 0, `[==[` is 2), if one does.
fn long_bracket(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'[') {
        return None;
    }
    let level = b[at + 1..].iter().take_while(|&&c| c == b'=').count();
    (b.get(at + 1 + level) == Some(&b'[')).then_some(level)
}

/// Where the long string or comment of `level` whose body starts at `from` ends (after `]=*]`).
fn long_end(b: &[u8], from: usize, level: usize) -> usize {
    let close = format!("]{}]", "=".repeat(level));
    let close = close.as_bytes();
    (from..b.len())
        .find(|&i| b[i..].starts_with(close))
        .map_or(b.len(), |i| i + close.len())
}

/// The adds `choose_tree_adds` swaps for `add_nothing` when Wireshark builds no tree (the
/// dissector template lists all three).
const TREE_ADDS: &[&str] = &["tree_add", "tree_add_le", "tree_add_packet_field"];

/// `text` with `choose_tree_adds` swapping only the adds the dissector calls: a local assigned
/// and never called is dead code (luacheck says so), and its declaration can then be dropped.
pub(crate) fn swap_only_called_adds(text: &str) -> String {
    let all = TREE_ADDS.join(", ");
    let called: Vec<&str> = TREE_ADDS
        .iter()
        .copied()
        .filter(|name| {
            text.lines()
                .any(|l| !l.contains(&all) && l.contains(&format!("{name}(")))
        })
        .collect();
    let list = |each: &dyn Fn(usize, &str) -> String| {
        called
            .iter()
            .enumerate()
            .map(|(i, n)| each(i, n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let names = list(&|_, n| n.to_string());
    text.replace(&format!("{{ {all} }}"), &format!("{{ {names} }}"))
        .replace(
            &format!("{all} = add_nothing, add_nothing, add_nothing"),
            &format!("{names} = {}", list(&|_, _| "add_nothing".into())),
        )
        .replace(
            &format!("{all} = TREE_ADDS[1], TREE_ADDS[2], TREE_ADDS[3]"),
            &format!(
                "{names} = {}",
                list(&|i, _| format!("TREE_ADDS[{}]", i + 1))
            ),
        )
}

/// `text` with `receiver:method(` calls of tree items and ranges made through their locals.
pub(crate) fn call_through_locals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = match long_bracket(b, i + 2) {
                    Some(level) => long_end(b, i + 4 + level, level),
                    None => (i..b.len()).find(|&k| b[k] == b'\n').unwrap_or(b.len()),
                };
            }
            b'"' | b'\'' => {
                let quote = b[i];
                i += 1;
                while i < b.len() && b[i] != quote && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'[' if long_bracket(b, i).is_some() => {
                let level = long_bracket(b, i).unwrap_or(0);
                i = long_end(b, i + 2 + level, level);
            }
            c if is_ident(c) && (i == 0 || !is_ident(b[i - 1])) => {
                let start = i;
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
                // `x.tree:add(` is a member's method, not one of these variables.
                let member = start > 0 && matches!(b[start - 1], b'.' | b':');
                if member || b.get(i) != Some(&b':') {
                    continue;
                }
                let m_start = i + 1;
                let mut m_end = m_start;
                while m_end < b.len() && is_ident(b[m_end]) {
                    m_end += 1;
                }
                if b.get(m_end) != Some(&b'(') {
                    continue;
                }
                let receiver = &text[start..i];
                let Some(local) = local_of(receiver, &text[m_start..m_end]) else {
                    continue;
                };
                out.push_str(&text[copied..start]);
                let no_args = b.get(m_end + 1) == Some(&b')');
                out.push_str(&local);
                out.push('(');
                out.push_str(receiver);
                if !no_args {
                    out.push_str(", ");
                }
                i = m_end + 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_of_tree_items_and_ranges_go_through_locals() {
        let lua = "item = tree:add_le(F[\"a\"], range)\nval = range:le_uint()\nsub:set_len(n)\n";
        assert_eq!(
            call_through_locals(lua),
            "item = tree_add_le(tree, F[\"a\"], range)\nval = range_le_uint(range)\ntree_set_len(sub, n)\n"
        );
        assert_eq!(
            call_through_locals("arr_values:append_text(\" (1)\")"),
            "tree_append_text(arr_values, \" (1)\")"
        );
    }

    #[test]
    fn strings_comments_members_and_other_objects_are_left_alone() {
        for lua in [
            "x = \"tree:add(f)\"",
            "x = 'sub:set_len(1)'",
            "-- tree:add(f)",
            "--[[ tree:add(f) ]] y = 1",
            "x = [==[ tree:add(f) ]==]",
            "t:add(ports, proto)",
            "v.tree:add(f)",
            "tree:text()",
            "tree.add(f)",
        ] {
            assert_eq!(call_through_locals(lua), lua);
        }
        assert_eq!(
            call_through_locals("x = \"a\\\"b\" tree:add(f)"),
            "x = \"a\\\"b\" tree_add(tree, f)"
        );
    }

    #[test]
    fn only_the_adds_a_dissector_calls_are_swapped() {
        let chooser = "local TREE_ADDS = { tree_add, tree_add_le, tree_add_packet_field }\n\
            tree_add, tree_add_le, tree_add_packet_field = add_nothing, add_nothing, add_nothing\n\
            tree_add, tree_add_le, tree_add_packet_field = TREE_ADDS[1], TREE_ADDS[2], TREE_ADDS[3]\n";
        let body =
            "item = tree_add(tree, F.a, range)\nsub = tree_add_packet_field(sub, F.b, r, 0)\n";
        assert_eq!(
            swap_only_called_adds(&format!("{chooser}{body}")),
            format!(
                "local TREE_ADDS = {{ tree_add, tree_add_packet_field }}\n\
                 tree_add, tree_add_packet_field = add_nothing, add_nothing\n\
                 tree_add, tree_add_packet_field = TREE_ADDS[1], TREE_ADDS[2]\n{body}"
            )
        );
    }
}
