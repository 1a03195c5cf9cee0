//! What the file-driven tests share.

use std::fmt;

/// A failure whose text is shown as it is (a unified diff): the harness prints errors with
/// `Debug`, which would quote a `String` and escape its line breaks.
pub struct Failure(pub String);

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

/// The unified diff from `expected` to `got`, or `None` when they are the same.
pub fn diff(expected: &str, got: &str, expected_name: &str, got_name: &str) -> Option<String> {
    (expected != got).then(|| {
        similar::TextDiff::from_lines(expected, got)
            .unified_diff()
            .context_radius(3)
            .header(expected_name, got_name)
            .to_string()
    })
}
