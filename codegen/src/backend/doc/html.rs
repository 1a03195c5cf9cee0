//! A reference as one self-contained HTML page (styles inline, diagrams as inline SVG, nothing
//! fetched when it is viewed).

use super::markup::escape;
use super::model::{Block, Document};
use super::svg;

const STYLE: &str = include_str!("style.css");

pub fn render(d: &Document) -> String {
    let mut body = String::new();
    let mut toc = String::new();
    for b in &d.blocks {
        match b {
            Block::Heading {
                level,
                text,
                anchor,
            } => {
                if (2..=3).contains(level) {
                    toc.push_str(&format!(
                        "<li class=\"l{level}\"><a href=\"#{anchor}\">{}</a></li>\n",
                        inline(text)
                    ));
                }
                body.push_str(&format!(
                    "<h{level} id=\"{anchor}\">{}</h{level}>\n",
                    inline(text)
                ));
            }
            Block::Para(text) => body.push_str(&format!("<p>{}</p>\n", inline(text))),
            Block::List(items) => {
                body.push_str("<ul>\n");
                for i in items {
                    body.push_str(&format!("<li>{}</li>\n", inline(i)));
                }
                body.push_str("</ul>\n");
            }
            Block::Table { head, rows } => {
                body.push_str("<table>\n<thead><tr>");
                for h in head {
                    body.push_str(&format!("<th>{}</th>", escape(h)));
                }
                body.push_str("</tr></thead>\n<tbody>\n");
                for r in rows {
                    body.push_str("<tr>");
                    for c in r {
                        body.push_str(&format!("<td>{}</td>", inline(c)));
                    }
                    body.push_str("</tr>\n");
                }
                body.push_str("</tbody>\n</table>\n");
            }
            Block::Diagram(diagram) => {
                if diagram.lsb_first {
                    body.push_str(
                        "<p class=\"caption\">A bit stream, least significant bit of each byte \
                         first: bit n is bit n mod 8 of byte n div 8.</p>\n",
                    );
                }
                body.push_str(&format!("<figure>\n{}</figure>\n", svg::render(diagram)));
            }
        }
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<nav>\n<ul>\n{toc}</ul>\n</nav>\n\
         <main>\n{body}</main>\n</body>\n</html>\n",
        escape(&d.title)
    )
}

/// Inline Markdown of the document's texts: `code` spans and [text](#anchor) links.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`') {
            if let Some(end) = after.find('`') {
                out.push_str(&format!("<code>{}</code>", escape(&after[..end])));
                rest = &after[end + 1..];
                continue;
            }
        }
        if let Some(after) = rest.strip_prefix('[') {
            if let Some((label, target, len)) = link(after) {
                out.push_str(&format!(
                    "<a href=\"{}\">{}</a>",
                    escape(target),
                    inline(label)
                ));
                rest = &after[len..];
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push_str(&escape(&c.to_string()));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `label](target)` at the start of `text`: the label, the target and the length read.
fn link(text: &str) -> Option<(&str, &str, usize)> {
    let close = text.find("](")?;
    let end = text[close + 2..].find(')')? + close + 2;
    let (label, target) = (&text[..close], &text[close + 2..end]);
    (!label.contains('[') && !target.contains(char::is_whitespace)).then_some((
        label,
        target,
        end + 1,
    ))
}
