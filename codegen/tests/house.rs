//! The house rules the compiler does not check: no import cycle between the files of one crate,
//! no hand-written file longer than one reads through (800 lines), no function past 120.
//!
//! A file may use its parent module's items (a parent is its children's header), any other use
//! of a file by another is an edge, and the edges of every crate of the workspace form no
//! cycle: a newcomer reads each file after the files it uses. Paths are read from the source
//! text (`crate::`, `super::` and `self::` paths, `use` groups included), comments and the
//! `#[cfg(test)] mod tests` that close a file left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates whose files are held to it.
const CRATES: &[&str] = &["codegen", "runtime", "verify", "wirecat", "schemafuzz"];

/// A file's module path inside its crate (`backend::rust::decode`), the crate root being "".
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    // src/bin/x.rs is a crate of its own: kept apart under its own name.
    parts.join("::")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text a file's edges are read from: no comments, no closing test module.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a `use` tree or an inline path starting at `crate`, `super` or `self` names, as
/// segment lists (`use super::{svg, html::escape}` gives `[super, svg]` and
/// `[super, html, escape]`).
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .find(|p| bytes[i..].starts_with(p.as_bytes()))
            .filter(|_| i == 0 || !ident(bytes[i - 1]) && bytes[i - 1] != b':');
        match starts {
            Some(_) => i = tree(code, i, Vec::new(), &mut out),
            None => i += 1,
        }
    }
    out
}

/// Reads one use tree at `i` below `prefix`; returns where it ends.
fn tree(code: &str, mut i: usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let bytes = code.as_bytes();
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    loop {
        i = skip_space(i);
        if i < bytes.len() && bytes[i] == b'{' {
            i += 1;
            loop {
                i = skip_space(i);
                if i >= bytes.len() || bytes[i] == b'}' {
                    return i + 1;
                }
                let at = i;
                i = tree(code, i, prefix.clone(), out);
                // Anything else a group holds (`*`, `as x`) is stepped over.
                if i == at {
                    i += 1;
                }
                i = skip_space(i);
                if i < bytes.len() && bytes[i] == b',' {
                    i += 1;
                }
            }
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if start == i {
            out.push(prefix);
            return i;
        }
        prefix.push(code[start..i].to_string());
        if bytes[i..].starts_with(b"::") {
            i += 2;
        } else {
            out.push(prefix);
            return i;
        }
    }
}

/// The module of `modules` a path written in module `at` names (the longest one it reaches).
fn resolve(at: &str, path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    let mut base: Vec<&str> = if at.is_empty() {
        vec![]
    } else {
        at.split("::").collect()
    };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    let mut found = None;
    for len in 0..=rest.len() {
        let mut m: Vec<&str> = base.clone();
        m.extend(rest[..len].iter().map(String::as_str));
        let m = m.join("::");
        if modules.contains(&m) {
            found = Some(m);
        }
    }
    found
}

/// The files' edges: module → the modules it uses, parents and itself left out.
fn edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let files: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|f| !f.starts_with(src.join("bin")))
        .map(|f| (module_of(src, &f), f))
        .collect();
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut edges = BTreeMap::new();
    for (m, file) in &files {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let used: BTreeSet<String> = paths_in(&code)
            .iter()
            .filter_map(|p| resolve(m, p, &modules))
            .filter(|t| t != m && !t.is_empty() && !m.starts_with(&format!("{t}::")))
            .collect();
        edges.insert(m.clone(), used);
    }
    edges
}

/// One cycle of `edges`, if there is one (the modules in order, the first repeated last).
fn a_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(m.to_string(), Mark::Open);
        stack.push(m.to_string());
        for next in &edges[m] {
            match marks[next] {
                Mark::Open => {
                    let from = stack.iter().position(|s| s == next).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(cycle) = visit(next, edges, marks, stack) {
                        return Some(cycle);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks.insert(m.to_string(), Mark::Done);
        None
    }
    let mut marks: BTreeMap<String, Mark> = edges.keys().map(|m| (m.clone(), Mark::New)).collect();
    for m in edges.keys() {
        if marks[m] == Mark::New {
            if let Some(cycle) = visit(m, edges, &mut marks, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn no_file_of_a_crate_is_in_an_import_cycle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut cycles = Vec::new();
    for krate in CRATES {
        let mut edges = edges(&workspace.join(krate).join("src"));
        // Every cycle, not only the first: one edge of each found is taken out and looked again.
        while let Some(cycle) = a_cycle(&edges) {
            cycles.push(format!("{krate}: {}", cycle.join(" -> ")));
            let (a, b) = (&cycle[0], &cycle[1]);
            edges.get_mut(a).unwrap().remove(b);
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The most lines a hand-written file may have: past it, a file holds more than one thing.
const MOST_LINES: usize = 800;

#[test]
fn no_hand_written_file_is_longer_than_the_house_allows() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&workspace.join(krate).join("src"), &mut files);
    }
    // The C# runtimes and the dissector's templates are written by hand too.
    for dir in [
        "codegen/csharp",
        "codegen/templates",
        "codegen/templates/lua",
    ] {
        files.extend(
            std::fs::read_dir(workspace.join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file()),
        );
    }
    assert!(files.len() > 100, "{} files", files.len());
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|&(_, n)| n > MOST_LINES)
        .map(|(f, n)| {
            format!(
                "{}: {n} lines",
                f.strip_prefix(workspace).unwrap().display()
            )
        })
        .collect();
    assert!(long.is_empty(), "longer than {MOST_LINES} lines: {long:#?}");
}

#[test]
fn use_trees_and_inline_paths_are_read_and_resolved() {
    let code = code_of(
        "use super::{svg, html::escape};\n// use crate::gone;\nlet x = crate::ir::Endian::Big;\n\
         #[cfg(test)]\nmod tests { use crate::later; }",
    );
    let paths: Vec<String> = paths_in(&code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        paths,
        [
            "super::svg",
            "super::html::escape",
            "crate::ir::Endian::Big"
        ]
    );
    let modules: BTreeSet<String> = ["doc", "doc::svg", "doc::html", "ir"]
        .iter()
        .map(|m| m.to_string())
        .collect();
    let at = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        resolve("doc::html", &at("super::svg::draw"), &modules).as_deref(),
        Some("doc::svg")
    );
    assert_eq!(
        resolve("doc::html", &at("crate::ir::Endian::Big"), &modules).as_deref(),
        Some("ir")
    );
    let mut edges = BTreeMap::new();
    edges.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    edges.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(a_cycle(&edges).unwrap(), ["a", "b", "a"]);
    edges.get_mut("b").unwrap().clear();
    assert_eq!(a_cycle(&edges), None);
}

/// The most lines a function may have, signature to closing brace.
const MOST_FUNCTION_LINES: usize = 120;

/// Each function of `text` (rustfmt's layout: its body closes with `}` at the indentation of
/// `fn`; a declaration without a body is left out) with its name and length in lines.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let Some(at) = code.find("fn ") else { continue };
        let before = &code[..at];
        let head = before
            .split_whitespace()
            .all(|w| w.starts_with("pub") || ["const", "async", "unsafe"].contains(&w));
        if !head || (at > 0 && !before.ends_with(' ')) {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // A function of one line (`fn f() -> u8 { 1 }`, as in a `quote!`) fits.
        if code.contains('{') && code.matches('{').count() == code.matches('}').count() {
            continue;
        }
        // The signature ends at the first line ending in `{` (a body) or `;` (none).
        let Some(open) = (i..lines.len()).find(|&j| {
            let l = lines[j].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = (open..lines.len()).find(|&j| lines[j] == close) {
            out.push((name, end - i + 1));
        }
    }
    out
}

#[test]
fn no_function_is_longer_than_the_house_allows() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&workspace.join(krate).join("src"), &mut files);
    }
    let mut long = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(workspace).unwrap().display().to_string();
        for (name, n) in function_lengths(&std::fs::read_to_string(f).unwrap()) {
            if n > MOST_FUNCTION_LINES {
                long.push(format!("{rel}: {name} ({n} lines)"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "longer than {MOST_FUNCTION_LINES} lines: {long:#?}"
    );
}

#[test]
fn functions_are_measured_from_signature_to_closing_brace() {
    let text = "fn a() {\n    let x = 1;\n}\nquote! { fn one() -> u8 { 1 } }\nimpl X {\n    pub(crate) fn b(\n        y: u8,\n    ) -> u8 {\n        y\n    }\n    fn decl(&self);\n}\n";
    assert_eq!(
        function_lengths(text),
        [("a".to_string(), 3), ("b".to_string(), 5)]
    );
}
