//! Schema diagnostics: what is wrong, where (`file:line:column`), and a hint when there is one.

mod codes;

pub use codes::{explain, markdown, Code, AREAS};

use std::fmt;

/// One mistake in a schema, shown as `file:line:column: error[CODE]: message (hint)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of mistake it is, stable across releases whatever the wording
    /// (`docs/diagnostics.md`): `E…` a schema error, `L…` a construct one backend cannot
    /// generate yet, `I…` an internal error of the generator.
    pub code: Code,
    /// The schema file, as given.
    pub file: String,
    /// 1-based line of the construct.
    pub line: usize,
    /// 1-based column of the construct.
    pub col: usize,
    /// What is wrong.
    pub message: String,
    /// What to write instead, when there is something to say.
    pub hint: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `W…` codes are warnings: the outputs are written, the schema is probably not what
        // its author meant.
        let severity = if self.code.is_warning() {
            "warning"
        } else {
            "error"
        };
        write!(
            f,
            "{}:{}:{}: {severity}[{}]: {}",
            self.file, self.line, self.col, self.code, self.message
        )?;
        if let Some(h) = &self.hint {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

/// Every diagnostic of one run; printed one per line.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// "did you mean 'x'?" for the closest candidate, if any is close enough to be a typo.
pub fn did_you_mean<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    closest(wrong, candidates).map(|c| format!("did you mean '{c}'?"))
}

/// The candidate `wrong` is probably a misspelling of, if any is close enough to be a typo.
pub fn closest<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(wrong, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
