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
}

pub(crate) fn wrap(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + word.len() > 95 {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
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
