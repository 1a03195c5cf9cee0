//! Lines of Lua with indentation, and text helpers.

/// The scratch locals generated functions share, in the order a function declares them.
pub(crate) const SCRATCH: [&str; 6] = ["item", "n", "sub", "nxt", "val", "range"];

/// Lines of Lua with indentation, and what they hold that the function around them declares:
/// the scratch locals their statements assign, and the tree items no line has read yet.
#[derive(Clone)]
pub(crate) struct Code {
    pub(crate) lines: Vec<String>,
    pub(crate) depth: usize,
    /// Which of [`SCRATCH`] a statement assigns (a scratch local is always assigned before it
    /// is read).
    assigned: [bool; SCRATCH.len()],
    /// The `item = …` lines ([`Code::item`]) no line has read since ([`Code::read_item`]).
    unread_items: Vec<usize>,
    /// Whether a line reads where the struct started (`start`: alignment, checksum ranges).
    pub(crate) reads_start: bool,
}

impl Code {
    pub(crate) fn new(depth: usize) -> Self {
        Code {
            lines: Vec::new(),
            depth,
            assigned: [false; SCRATCH.len()],
            unread_items: Vec::new(),
            reads_start: false,
        }
    }

    /// A statement; one that assigns scratch locals (`nxt, val = …`) notes them.
    pub(crate) fn line(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        if let Some((targets, _)) = s.split_once(" = ") {
            for name in targets.split(", ") {
                if let Some(k) = SCRATCH.iter().position(|&x| x == name) {
                    self.assigned[k] = true;
                }
            }
        }
        self.lines.push(format!("{}{}", "  ".repeat(self.depth), s));
    }

    pub(crate) fn open(&mut self, s: impl AsRef<str>) {
        self.line(s);
        self.depth += 1;
    }

    pub(crate) fn close(&mut self, s: impl AsRef<str>) {
        self.depth -= 1;
        self.line(s);
    }

    /// A tree item added by `expr` (`tree:add(…)`), kept in `item` when a later line of its
    /// field reads it ([`Code::read_item`]); see [`Code::forget_items`].
    pub(crate) fn item(&mut self, expr: impl AsRef<str>) {
        self.unread_items.push(self.lines.len());
        self.lines.push(format!(
            "{}item = {}",
            "  ".repeat(self.depth),
            expr.as_ref()
        ));
    }

    /// A statement that reads the last tree item added (`item:append_text(…)`): the items
    /// not read yet are kept in `item`, which the function then declares.
    pub(crate) fn read_item(&mut self, s: impl AsRef<str>) {
        if !self.unread_items.is_empty() {
            self.unread_items.clear();
            self.assigned[0] = true;
        }
        self.line(s);
    }

    /// Ends a field: the items it added and never read are added without keeping them
    /// (`tree:add(…)`, not `item = tree:add(…)`), and one over a range made for it alone only
    /// when there is a tree (`if HAS_TREE then tree:add(…, tvb(offset, 2)) end`): with none the
    /// add is skipped anyway, but making its range is a C call and a userdata for the collector.
    pub(crate) fn forget_items(&mut self) {
        for i in std::mem::take(&mut self.unread_items) {
            let line = &mut self.lines[i];
            let indent = line.len() - line.trim_start().len();
            line.replace_range(indent..indent + "item = ".len(), "");
            if line[indent..].contains("tvb(") {
                line.insert_str(indent, "if HAS_TREE then ");
                line.push_str(" end");
            }
        }
    }

    /// Appends `other`'s lines (a branch written apart), with what they hold, each line
    /// `dedent` levels less indented.
    pub(crate) fn append(&mut self, other: Code, dedent: usize) {
        let offset = self.lines.len();
        self.unread_items
            .extend(other.unread_items.iter().map(|i| i + offset));
        for (mine, theirs) in self.assigned.iter_mut().zip(other.assigned) {
            *mine |= theirs;
        }
        self.reads_start |= other.reads_start;
        self.lines.extend(
            other
                .lines
                .into_iter()
                .map(|l| l[(2 * dedent).min(l.len() - l.trim_start().len())..].to_string()),
        );
    }

    /// The same lines one level further in.
    pub(crate) fn indented(mut self) -> Code {
        for line in &mut self.lines {
            line.insert_str(0, "  ");
        }
        self.depth += 1;
        self
    }

    /// Starts recording what the lines of a new function hold (what the lines before it
    /// held is another function's).
    pub(crate) fn start_function(&mut self) {
        self.assigned = [false; SCRATCH.len()];
        self.unread_items.clear();
        self.reads_start = false;
    }

    /// The locals a function declares at its top for its lines (`local start = offset`, then
    /// `local item, n, …` without those in `except`, its parameters), indented one level; each
    /// tree item no line read is added without being kept first.
    pub(crate) fn locals(&mut self, except: &[&str]) -> Vec<String> {
        self.forget_items();
        let mut out = Vec::new();
        if self.reads_start {
            out.push("  local start = offset".to_string());
        }
        out.extend(self.declaration(except).map(|d| format!("  {d}")));
        self.start_function();
        out
    }

    /// `local item, n, …`: the scratch locals the lines assign but those in `except` (the
    /// function's parameters), or `None`.
    fn declaration(&self, except: &[&str]) -> Option<String> {
        let used: Vec<&str> = SCRATCH
            .iter()
            .zip(self.assigned)
            .filter(|(name, on)| *on && !except.contains(name))
            .map(|(name, _)| *name)
            .collect();
        (!used.is_empty()).then(|| format!("local {}", used.join(", ")))
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
