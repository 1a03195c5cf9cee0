//! When the tree is not shown (tshark without `-V` or `-T fields`, a packet Wireshark does not
//! display), the generated dissectors give arrays, elements and cases no subtree of their
//! label and put their fields under the parent (`VISIBLE`): what Wireshark does with such
//! items anyway, without the calls. Nothing a filter, a tap or a column reads may change: over
//! the real captures, every field the dissector shows (its offset, length and value) and every
//! expert message are the same with the tree hidden as with it shown, read by a post-dissector
//! through field extractors in both runs.
//!
//! With no tree at all (tshark's summary without a filter) the dissectors do not call Wireshark's
//! adds (`choose_tree_adds`): the summary lines and the expert infos must be the same as when a
//! filter makes tshark build the tree.

use std::collections::BTreeSet;
use std::path::Path;
use wiregen_tests::{dissect, repo_root, same_with_and_without_tree, tshark_output};

/// A post-dissector printing every value of `names` in each frame (`@@frame name offset
/// length value`): field extractors make tshark create those fields even in a hidden tree.
fn extractor_script(names: &BTreeSet<String>) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    format!(
        r#"local extractors = {{}}
for _, name in ipairs({{ {} }}) do
  -- Expert items show in the tree under their own names, which no field has.
  local ok, f = pcall(Field.new, name)
  if ok then extractors[#extractors + 1] = {{ name, f }} end
end
local post = Proto("wiregen_values", "Values of the fields")
function post.dissector(tvb, pinfo, tree)
  for _, e in ipairs(extractors) do
    for _, fi in ipairs({{ e[2]() }}) do
      io.stdout:write(string.format("@@%d %s %d %d %s\n", pinfo.number, e[1], fi.offset, fi.len, tostring(fi.value)))
    end
  end
end
register_postdissector(post)
"#,
        list.join(", ")
    )
}

/// The post-dissector's lines, with the tree shown (`-T fields`) or hidden (summary lines).
fn values(pcap: &Path, lua: &Path, script: &Path, shown: bool) -> Vec<String> {
    let args: &[&str] = if shown {
        &["-T", "fields", "-e", "frame.number"]
    } else {
        &[]
    };
    tshark_output(pcap, &[lua, script], args)
        .lines()
        .filter(|l| l.starts_with("@@"))
        .map(str::to_string)
        .collect()
}

/// Checks capture `name` reads the same with `proto`'s tree hidden as shown; returns how many
/// values were compared.
fn same_hidden_and_shown(name: &str, proto: &str) -> usize {
    let pcap = repo_root().join("tests/captures").join(name);
    let lua = repo_root().join(format!("dissectors/{proto}.lua"));
    // The fields the dissector shows in this capture, and its expert messages.
    let d = dissect(&pcap, &lua, &[]);
    let mut names: BTreeSet<String> = d
        .frames
        .iter()
        .flatten()
        .map(|f| f.name.clone())
        .filter(|n| n.starts_with(&format!("{proto}.")))
        .collect();
    assert!(names.len() > 10, "{name}: only {names:?}");
    names.insert("_ws.expert.message".into());
    let dir = std::env::temp_dir().join(format!("wiregen-hidden-{}-{proto}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("values.lua");
    std::fs::write(&script, extractor_script(&names)).unwrap();
    let shown = values(&pcap, &lua, &script, true);
    let hidden = values(&pcap, &lua, &script, false);
    assert!(shown.len() > 100, "{name}: {} values", shown.len());
    for (i, (s, h)) in shown.iter().zip(&hidden).enumerate() {
        assert_eq!(s, h, "{name}: value {i} differs with the tree hidden");
    }
    assert_eq!(shown.len(), hidden.len(), "{name}: values shown / hidden");
    std::fs::remove_dir_all(&dir).ok();
    shown.len()
}

#[test]
fn real_captures_read_the_same_with_the_tree_hidden() {
    for (capture, proto) in [
        ("dnp.pcap", "dnp"),
        ("riptide20-udp.pcap", "riptide_2_0"),
        ("riptide21-udp.pcap", "riptide_2_1"),
        ("gameproto-start.pcap", "game_protocol"),
        ("rtype.pcap", "rtype_impl"),
    ] {
        let n = same_hidden_and_shown(capture, proto);
        eprintln!("{capture}: {n} values the same");
    }
}

#[test]
fn real_captures_read_the_same_with_no_tree() {
    for (capture, proto) in [
        ("dnp.pcap", "dnp"),
        ("riptide20-udp.pcap", "riptide_2_0"),
        ("riptide21-udp.pcap", "riptide_2_1"),
        ("gameproto-start.pcap", "game_protocol"),
        ("rtype.pcap", "rtype_impl"),
    ] {
        let pcap = repo_root().join("tests/captures").join(capture);
        let lua = repo_root().join(format!("dissectors/{proto}.lua"));
        let summary = same_with_and_without_tree(&pcap, &[&lua]);
        assert!(
            summary.contains(&proto.to_uppercase()),
            "{capture}: {summary}"
        );
    }
}
