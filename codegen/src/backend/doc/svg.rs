//! A packet diagram as inline SVG (the HTML reference): the same rows and boxes as the text.

use super::diagram::{Diagram, Drawing, ROW};
use super::markup::escape;

const BIT: u64 = 22;
const ROW_HEIGHT: u64 = 34;
const TOP: u64 = 30;
const LEFT: u64 = 4;
/// Characters of a label that fit in a box of `bits` bits (about 7 px a character).
fn room(bits: u64) -> usize {
    ((bits * BIT).saturating_sub(6) / 7) as usize
}

/// The diagram as an `<svg>` element, with its legend of keyed labels after it.
pub fn render(d: &Diagram) -> String {
    let Drawing {
        grid,
        label_at,
        labels,
        legend,
    } = d.draw(|s| room(s.to - s.from));
    let rows = grid.iter().map(|s| s.row as u64 + 1).max().unwrap_or(0);
    let width = LEFT * 2 + ROW * BIT;
    let height = TOP + rows * ROW_HEIGHT + 4;
    let mut s = format!(
        "<svg class=\"diagram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\">\n"
    );
    for b in 0..ROW {
        let x = LEFT + b * BIT + BIT / 2;
        s.push_str(&format!(
            "<text class=\"bit\" x=\"{x}\" y=\"{}\">{}</text>\n",
            TOP - 8,
            b
        ));
    }
    for seg in &grid {
        let x = LEFT + seg.from * BIT;
        let y = TOP + seg.row as u64 * ROW_HEIGHT;
        let w = (seg.to - seg.from) * BIT;
        let variable = d.cells[seg.cell].bits.is_none();
        s.push_str(&format!(
            "<rect class=\"{}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{ROW_HEIGHT}\"/>\n",
            if variable { "field variable" } else { "field" }
        ));
        if label_at.contains(seg) {
            s.push_str(&format!(
                "<text class=\"label\" x=\"{}\" y=\"{}\">{}</text>\n",
                x + w / 2,
                y + ROW_HEIGHT / 2 + 5,
                escape(&labels[seg.cell])
            ));
        }
    }
    s.push_str("</svg>\n");
    if !legend.is_empty() {
        s.push_str("<p class=\"legend\">");
        let items: Vec<String> = legend
            .iter()
            .map(|(k, l)| format!("<b>{}</b>: {}", escape(k), escape(l)))
            .collect();
        s.push_str(&items.join(" · "));
        s.push_str("</p>\n");
    }
    s
}
