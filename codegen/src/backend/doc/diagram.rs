//! A type's packet diagram as RFCs draw it: 32 bits a row, each field a box as wide as its bits,
//! cut where it crosses a row. Built once per type ([`Diagram::grid`]) and drawn as text for
//! Markdown ([`Diagram::text`]) and as SVG for HTML (`svg.rs`).

/// Bits in one row of a diagram.
pub const ROW: u64 = 32;

/// One field's box.
#[derive(Debug, Clone)]
pub struct Cell {
    pub label: String,
    /// Its width in bits; `None` for a field of variable length (drawn to the end of its row,
    /// and what follows starts a new row).
    pub bits: Option<u64>,
}

/// The boxes of one type in wire order.
#[derive(Debug, Clone)]
pub struct Diagram {
    pub cells: Vec<Cell>,
    /// Bits are numbered in stream order, lowest bit of each byte first (an LSB-first bit
    /// stream); otherwise most significant first, as network byte order diagrams are.
    pub lsb_first: bool,
}

/// A diagram cut into rows: every segment, the one of each box its label is written in, the
/// labels (keyed where too long) and the keys' legend.
pub struct Drawing {
    pub grid: Vec<Segment>,
    pub label_at: Vec<Segment>,
    pub labels: Vec<String>,
    pub legend: Vec<(String, String)>,
}

/// A box's piece in one row: columns `[from, to)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub row: usize,
    pub from: u64,
    pub to: u64,
    pub cell: usize,
}

impl Diagram {
    /// Every box cut into rows, in order.
    pub fn grid(&self) -> Vec<Segment> {
        let mut out = Vec::new();
        let mut at = 0u64;
        for (cell, c) in self.cells.iter().enumerate() {
            match c.bits {
                Some(0) => {}
                Some(bits) => {
                    let end = at + bits;
                    while at < end {
                        let row_end = (at / ROW + 1) * ROW;
                        let to = end.min(row_end);
                        out.push(Segment {
                            row: (at / ROW) as usize,
                            from: at % ROW,
                            to: to - at / ROW * ROW,
                            cell,
                        });
                        at = to;
                    }
                }
                None => {
                    out.push(Segment {
                        row: (at / ROW) as usize,
                        from: at % ROW,
                        to: ROW,
                        cell,
                    });
                    at = (at / ROW + 1) * ROW;
                }
            }
        }
        out
    }

    /// The segment of each box its label is written in: its widest (the first of equals).
    fn label_segments(grid: &[Segment]) -> Vec<Segment> {
        let mut best: Vec<Segment> = Vec::new();
        for s in grid {
            match best.iter_mut().find(|b| b.cell == s.cell) {
                Some(b) if s.to - s.from > b.to - b.from => *b = *s,
                Some(_) => {}
                None => best.push(*s),
            }
        }
        best
    }

    /// The boxes cut into rows with their labels placed: labels too long for their box get a
    /// key (`a`, `b`, …) explained under the diagram; `room(segment)` says how many characters
    /// a box holds.
    pub fn draw(&self, room: impl Fn(&Segment) -> usize) -> Drawing {
        let grid = self.grid();
        let label_at = Self::label_segments(&grid);
        let mut labels: Vec<String> = self.cells.iter().map(|c| c.label.clone()).collect();
        let mut legend = Vec::new();
        for s in &label_at {
            let label = &self.cells[s.cell].label;
            if label.chars().count() > room(s) {
                let key = key_name(legend.len());
                legend.push((key.clone(), label.clone()));
                labels[s.cell] = key;
            }
        }
        Drawing {
            grid,
            label_at,
            labels,
            legend,
        }
    }

    /// The diagram as text: bit numbers, then boxes of `|` and `+-+`.
    pub fn text(&self) -> String {
        let Drawing {
            grid,
            label_at,
            labels,
            legend,
        } = self.draw(|s| (2 * (s.to - s.from) - 1) as usize);
        let rows = grid.iter().map(|s| s.row + 1).max().unwrap_or(0);
        // The box holding each column of each row.
        let mut owner = vec![[None::<usize>; ROW as usize]; rows];
        for s in &grid {
            for col in s.from..s.to {
                owner[s.row][col as usize] = Some(s.cell);
            }
        }
        let mut out = String::new();
        if self.lsb_first {
            out.push_str("bit stream, least significant bit of each byte first:\n");
        }
        out.push(' ');
        out.push_str(
            &(0..ROW)
                .map(|b| {
                    if b % 10 == 0 {
                        format!("{:<2}", b / 10)
                    } else {
                        "  ".into()
                    }
                })
                .collect::<String>(),
        );
        out = out.trim_end().to_string() + "\n ";
        out.push_str(&(0..ROW).map(|b| format!("{} ", b % 10)).collect::<String>());
        out = out.trim_end().to_string() + "\n";
        let none = [None; ROW as usize];
        for r in 0..=rows {
            let above = if r == 0 { &none } else { &owner[r - 1] };
            let below = if r == rows { &none } else { &owner[r] };
            out.push_str(&border(above, below));
            out.push('\n');
            if r == rows {
                break;
            }
            let mut line = String::new();
            let mut col = 0usize;
            for s in grid.iter().filter(|s| s.row == r) {
                if line.is_empty() || col != s.from as usize {
                    line.push_str(&" ".repeat(2 * (s.from as usize - col)));
                    line.push('|');
                }
                let width = (2 * (s.to - s.from) - 1) as usize;
                let text = if label_at.contains(s) {
                    labels[s.cell].as_str()
                } else {
                    ""
                };
                line.push_str(&centre(text, width));
                line.push('|');
                col = s.to as usize;
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for (key, label) in legend {
            out.push_str(&format!("{key}: {label}\n"));
        }
        out
    }
}

/// The line between two rows: `+-` under and over every box edge.
fn border(above: &[Option<usize>; ROW as usize], below: &[Option<usize>; ROW as usize]) -> String {
    let line = |j: usize| above[j] != below[j];
    let edge = |row: &[Option<usize>; ROW as usize], j: usize| {
        let left = if j == 0 { None } else { row[j - 1] };
        let right = row.get(j).copied().flatten();
        left != right
    };
    let mut s = String::new();
    for j in 0..=ROW as usize {
        let plus = (j > 0 && line(j - 1))
            || (j < ROW as usize && line(j))
            || edge(above, j)
            || edge(below, j);
        s.push(if plus { '+' } else { ' ' });
        if j < ROW as usize {
            s.push(if line(j) { '-' } else { ' ' });
        }
    }
    s.trim_end().to_string()
}

/// `text` centred in `width` characters.
fn centre(text: &str, width: usize) -> String {
    let len = text.chars().count().min(width);
    let left = (width - len) / 2;
    format!(
        "{}{}{}",
        " ".repeat(left),
        text.chars().take(len).collect::<String>(),
        " ".repeat(width - len - left)
    )
}

/// `a`, `b`, … `z`, `aa`, …
fn key_name(i: usize) -> String {
    let letter = |n: usize| char::from(b'a' + (n % 26) as u8);
    if i < 26 {
        letter(i).to_string()
    } else {
        format!("{}{}", letter(i / 26 - 1), letter(i))
    }
}
