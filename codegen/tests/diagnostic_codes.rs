//! Diagnostic codes are stable names of mistakes (`wiregen::diag::Code`): each is reported at one
//! place in the generator, and `docs/diagnostics.md` lists every one as the enum says it.

use std::collections::BTreeMap;
use std::path::Path;
use wiregen::diag::{markdown, Code};

/// Every `Code::E0123`-like use under `dir` (but the enum's own file), with the files using it.
fn uses(dir: &Path, found: &mut BTreeMap<String, Vec<String>>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            uses(&path, found);
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") || path.ends_with("diag/codes.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices("Code::") {
            let rest = &text[i + 6..];
            let Some(code) = rest.get(..5) else { continue };
            let is_code = code.starts_with(['E', 'L', 'I', 'W'])
                && code[1..].bytes().all(|b| b.is_ascii_digit());
            if is_code {
                found
                    .entry(code.to_string())
                    .or_default()
                    .push(path.display().to_string());
            }
        }
    }
}

#[test]
fn each_code_is_reported_at_one_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = BTreeMap::new();
    uses(&root.join("src"), &mut found);
    for (code, files) in &found {
        assert_eq!(
            files.len(),
            1,
            "{code} is used in more than one place: {files:?}"
        );
    }
    // Every code of the enum is reported somewhere (a removed check's code stays in the enum
    // only while something still reports it).
    let unused: Vec<&str> = Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !found.contains_key(*c))
        .collect();
    assert!(unused.is_empty(), "codes nothing reports: {unused:?}");
}

/// The list between the markers of `docs/diagnostics.md` is the enum's (`UPDATE_DOCS=1`
/// rewrites it).
#[test]
fn docs_list_every_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = (
        "<!-- every code: begin (wiregen::diag::markdown) -->",
        "<!-- every code: end -->",
    );
    let (Some(a), Some(b)) = (doc.find(begin), doc.find(end)) else {
        panic!("docs/diagnostics.md has no {begin} … {end}");
    };
    let want = format!("{}{}\n{}", &doc[..a + begin.len()], markdown(), &doc[b..]);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    assert!(
        doc == want,
        "docs/diagnostics.md lists other codes than wiregen::diag::Code: rerun with UPDATE_DOCS=1"
    );
}
