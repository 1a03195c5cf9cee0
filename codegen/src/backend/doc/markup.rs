//! Text placed in HTML and in the SVG drawn inside it: one escaping for both.

/// Text with `&`, `<`, `>` and `"` escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
