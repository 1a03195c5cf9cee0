//! Lines of Lua with indentation, and text helpers.

/// Lines of Lua with indentation.
pub(crate) struct Code {
    pub(crate) lines: Vec<String>,
    pub(crate) depth: usize,
}

impl Code {
    pub(crate) fn new(depth: usize) -> Self {
        Code {
            lines: Vec::new(),
            depth,
        }
    }
    pub(crate) fn line(&mut self, s: impl AsRef<str>) {
        self.lines
            .push(format!("{}{}", "  ".repeat(self.depth), s.as_ref()));
    }
    pub(crate) fn open(&mut self, s: impl AsRef<str>) {
        self.line(s);
        self.depth += 1;
    }
    pub(crate) fn close(&mut self, s: impl AsRef<str>) {
        self.depth -= 1;
        self.line(s);
    }

    /// Inserts, at line `at`, `local` declarations of those `names` that the lines after it
    /// mention: a function's scratch variables are declared once, and only when used.
    pub(crate) fn declare_used(&mut self, at: usize, names: &[&str]) {
        let used: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| self.lines[at..].iter().any(|l| mentions(l, n)))
            .collect();
        if !used.is_empty() {
            let indent = self.lines.get(at).map_or(String::new(), |l| {
                l[..l.len() - l.trim_start().len()].to_string()
            });
            self.lines
                .insert(at, format!("{indent}local {}", used.join(", ")));
        }
    }

    /// Drops `item = ` from the assignments after line `from` whose value no later line reads.
    /// Sound for one field's lines: every field assigns `item` before it reads it, so a later
    /// field never reads an earlier field's item.
    pub(crate) fn drop_unread_items(&mut self, from: usize) {
        for i in from..self.lines.len() {
            let line = &self.lines[i];
            let body = line.trim_start();
            if !body.starts_with("item = ") {
                continue;
            }
            let read_later = self.lines[i + 1..].iter().any(|l| {
                let b = l.trim_start();
                let rest = b.strip_prefix("item = ").unwrap_or(b);
                mentions(rest, "item")
            });
            if !read_later {
                let indent = line.len() - body.len();
                self.lines[i] = format!("{}{}", &line[..indent], &body["item = ".len()..]);
            }
        }
    }
}

/// Whether the code of `line` (not its strings or comment) mentions the identifier `name`.
pub(crate) fn mentions(line: &str, name: &str) -> bool {
    mentions_in(&code_of(line), name)
}

/// Whether `text` has `name` as a whole word, not as a table field (`E.name`, `t:name`).
fn mentions_in(text: &str, name: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let mut before = text[..i].chars().rev();
        let field = match before.next() {
            Some(':') => true,
            Some('.') => before.next() != Some('.'),
            Some(c) => is_ident(c),
            None => false,
        };
        let after = text[i + name.len()..].chars().next();
        !field && !after.is_some_and(is_ident)
    })
}

/// `line` with its string literals emptied and its comment cut.
fn code_of(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match quote {
            Some(q) => {
                if ch == '\\' {
                    chars.next();
                } else if ch == q {
                    quote = None;
                    out.push(ch);
                }
            }
            None if ch == '"' || ch == '\'' => {
                quote = Some(ch);
                out.push(ch);
            }
            None if ch == '-' && chars.peek() == Some(&'-') => break,
            None => out.push(ch),
        }
    }
    out
}

/// Drops the top-level `local function f` and `local NAME = …` definitions of a whole
/// dissector that nothing else mentions (with the comment just above them), until none is left:
/// the template's helpers and tables appear only in the dissectors that use them.
pub(crate) fn drop_unused_definitions(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    loop {
        let mut dropped = false;
        let mut i = 0;
        while i < lines.len() {
            let Some((name, end)) = definition_at(&lines, i) else {
                i += 1;
                continue;
            };
            // A table key `name = …` at the start of a line is not a use.
            let key = format!("{name} = ");
            let used = lines.iter().enumerate().any(|(k, l)| {
                (k < i || k > end)
                    && mentions(l.trim_start().strip_prefix(&key).unwrap_or(l), &name)
            });
            if used {
                i = end + 1;
                continue;
            }
            let mut first = i;
            while first > 0 && lines[first - 1].starts_with("--") {
                first -= 1;
            }
            let mut last = end;
            // One blank line goes with it, so none doubles up.
            if first > 0
                && lines[first - 1].is_empty()
                && lines.get(last + 1).is_some_and(|l| l.is_empty())
            {
                last += 1;
            }
            lines.drain(first..=last);
            dropped = true;
            i = first;
        }
        if !dropped {
            return lines.join("\n") + "\n";
        }
    }
}

/// The name and last line of a top-level definition starting at line `i`.
fn definition_at(lines: &[String], i: usize) -> Option<(String, usize)> {
    let line = &lines[i];
    let ident_end = |s: &str| {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let code = code_of(line);
    let count = |set: &[char]| code.chars().filter(|c| set.contains(c)).count();
    let balanced = count(&['(', '{', '[']) == count(&[')', '}', ']']);
    if let Some(rest) = line.strip_prefix("local function ") {
        let name = rest[..ident_end(rest)].to_string();
        if code.trim_end().ends_with(" end") {
            return balanced.then_some((name, i));
        }
        let end = (i + 1..lines.len()).find(|&k| lines[k] == "end")?;
        return Some((name, end));
    }
    let rest = line.strip_prefix("local ")?;
    let n = ident_end(rest);
    let (name, after) = rest.split_at(n);
    if name.is_empty() || !after.starts_with(" = ") {
        return None;
    }
    // A table constructor spanning lines ends at the first line that is just `}`.
    let end = if after.trim_end().ends_with('{') {
        (i + 1..lines.len()).find(|&k| lines[k] == "}")?
    } else if balanced {
        i
    } else {
        return None;
    };
    Some((name.to_string(), end))
}

pub(crate) fn lua_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', " ")
}

pub(crate) fn first_line(d: &Option<String>) -> String {
    d.as_deref()
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
