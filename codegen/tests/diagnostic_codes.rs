//! Diagnostic codes are stable names of mistakes: each is used at one place in the generator,
//! has the shape `E0000`/`L0000`/`I0000`/`W0000`, and falls in a range `docs/diagnostics.md` lists.

use std::collections::BTreeMap;
use std::path::Path;

/// Every `"E0123"`-like literal under `dir`, with the files using it.
fn codes(dir: &Path, found: &mut BTreeMap<String, Vec<String>>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            codes(&path, found);
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices('"') {
            let rest = &text[i + 1..];
            let Some(code) = rest.get(..5) else { continue };
            let is_code = code.starts_with(['E', 'L', 'I', 'W'])
                && code[1..].bytes().all(|b| b.is_ascii_digit())
                && rest[5..].starts_with('"');
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
fn each_code_names_one_place_and_its_range_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = BTreeMap::new();
    codes(&root.join("src"), &mut found);
    assert!(found.len() > 150, "codes found: {}", found.len());
    let doc = std::fs::read_to_string(root.join("../docs/diagnostics.md")).unwrap();
    for (code, files) in &found {
        assert_eq!(
            files.len(),
            1,
            "{code} is used in more than one place: {files:?}"
        );
        let range = if code.starts_with('I') {
            code.clone()
        } else {
            format!("{}xx", &code[..3])
        };
        assert!(
            doc.contains(&format!("`{range}`")),
            "{code}: its range {range} is not in docs/diagnostics.md"
        );
    }
}
