//! Lines of C# with their indentation (four spaces a level, braces on their own lines).

#[derive(Default)]
pub(crate) struct Code {
    out: String,
    depth: usize,
}

impl Code {
    /// A line at the current depth (an empty line stays empty).
    pub(crate) fn line(&mut self, s: &str) {
        if !s.is_empty() {
            for _ in 0..self.depth {
                self.out.push_str("    ");
            }
            self.out.push_str(s);
        }
        self.out.push('\n');
    }

    /// Text as it is (a header that ends in its newline).
    pub(crate) fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    pub(crate) fn open(&mut self) {
        self.line("{");
        self.depth += 1;
    }

    pub(crate) fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }

    /// Closes a block with `};` (an object initializer).
    pub(crate) fn close_with(&mut self, end: &str) {
        self.depth -= 1;
        self.line(&format!("}}{end}"));
    }

    /// A blank line between members, never two in a row nor after an opening brace.
    pub(crate) fn gap(&mut self) {
        if !(self.out.ends_with("\n\n") || self.out.ends_with("{\n")) {
            self.out.push('\n');
        }
    }

    pub(crate) fn finish(mut self) -> String {
        while self.out.ends_with("\n\n") {
            self.out.pop();
        }
        self.out
    }
}
