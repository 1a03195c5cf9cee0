//! `wirecat stats`: drives a capture through the analysis and prints it (tables, JSON, each
//! frame's verdict) and draws it (SVG).

use std::fmt::Write as _;
use std::io::Write as _;

use wiregen_runtime::SerdeProtocol;

use crate::cli::{open, ports, AsJson, StatsArgs};
use crate::reading;
use crate::session::Event;
use crate::stats::{verdict_json, Direction, Stats};

pub(crate) fn stats<P: SerdeProtocol>(a: &StatsArgs) -> Result<bool, String> {
    let ports = ports::<P>(&a.capture.ports)?;
    let (packets, mut progress) = open(&a.capture.capture)?;
    let mut stats = Stats::default();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut undecoded = 0u64;
    let tally = reading::each_event::<P, _>(
        packets,
        &ports,
        || progress.tick(),
        |conversations, event| {
            let Event::Message(m) = event else {
                return Ok(());
            };
            let datagram = match conversations.decode(&m) {
                Ok(d) => d,
                Err(_) => {
                    undecoded += 1;
                    return Ok(());
                }
            };
            let verdict = conversations.analyze(&m, &datagram);
            let bytes = m.bytes.len() as u64;
            stats.add(m.key, m.from_client, m.time, bytes, &verdict);
            if a.frames {
                if let Some(line) = verdict_json(m.frame, &verdict) {
                    writeln!(out, "{line}").map_err(|e| e.to_string())?;
                }
            }
            let value = serde_json::to_value(AsJson::<P>(&datagram)).map_err(|e| e.to_string())?;
            let ty = crate::export::message_type(&value);
            let t = stats.types.entry(ty).or_default();
            t.0 += 1;
            t.1 += bytes;
            for note in P::datagram_notes(&m.bytes).1 {
                let f = stats.fields.entry(note.abbrev).or_default();
                f.0 += 1;
                f.1 += note.len as u64;
            }
            Ok(())
        },
    )?;
    drop(progress);
    if a.json {
        let mut all = stats.to_json();
        all["undecoded"] = undecoded.into();
        writeln!(out, "{all}").map_err(|e| e.to_string())?;
    } else if !a.frames {
        write!(out, "{}", tables(&stats)).map_err(|e| e.to_string())?;
        if undecoded > 0 {
            writeln!(
                out,
                "{undecoded} messages did not decode and are not counted"
            )
            .map_err(|e| e.to_string())?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    if let Some(path) = &a.svg {
        std::fs::write(path, svg::<P>(&stats)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if tally.evicted > 0 {
        eprintln!(
            "wirecat: {} conversations were forgotten to stay within the limit (their later messages were analysed afresh)",
            tally.evicted
        );
    }
    Ok(true)
}

fn rtt_cells(d: &Direction) -> String {
    match d.rtt_summary() {
        Some((min, median, p99, jitter)) => {
            format!("{min:>9.3} {median:>9.3} {p99:>9.3} {jitter:>9.3}")
        }
        None => format!("{:>9} {:>9} {:>9} {:>9}", "-", "-", "-", "-"),
    }
}

/// The three tables: directions, message types, fields (largest first).
fn tables(s: &Stats) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<45} {:>9} {:>10} {:>6} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9}",
        "direction",
        "datagrams",
        "bytes",
        "lost",
        "loss%",
        "dup",
        "retx",
        "ooo",
        "rtt min",
        "median",
        "p99",
        "jitter"
    );
    let mut row = |name: String, d: &Direction| {
        let loss = if d.datagrams + d.lost() > 0 {
            100.0 * d.lost() as f64 / (d.datagrams + d.lost()) as f64
        } else {
            0.0
        };
        let _ = writeln!(
            t,
            "{name:<45} {:>9} {:>10} {:>6} {loss:>6.2} {:>6} {:>6} {:>6} {}",
            d.datagrams,
            d.bytes,
            d.lost(),
            d.duplicates,
            d.retransmissions,
            d.out_of_order,
            rtt_cells(d)
        );
    };
    for (key, pair) in &s.conversations {
        for (side, d) in pair.iter().enumerate() {
            let (src, dst) = key.endpoints(side == 0);
            row(format!("{src} -> {dst}"), d);
        }
    }
    if s.others_count > 0 {
        row("(other conversations, from clients)".into(), &s.others[0]);
        row("(other conversations, from servers)".into(), &s.others[1]);
    }
    let _ = writeln!(
        t,
        "(round trips in ms: of this direction's sends, acked or answered by the other side)"
    );
    let total: u64 = s.types.values().map(|(_, b)| b).sum::<u64>().max(1);
    let _ = writeln!(
        t,
        "\n{:<45} {:>9} {:>10} {:>6}",
        "message type", "datagrams", "bytes", "%"
    );
    let mut types: Vec<_> = s.types.iter().collect();
    types.sort_by_key(|(_, (_, b))| std::cmp::Reverse(*b));
    for (ty, (n, b)) in types {
        let _ = writeln!(
            t,
            "{ty:<45} {n:>9} {b:>10} {:>6.2}",
            100.0 * *b as f64 / total as f64
        );
    }
    let _ = writeln!(
        t,
        "\n{:<45} {:>9} {:>10} {:>6}  (bytes holding each field, a datagram decoded alone)",
        "field", "count", "bytes", "%"
    );
    let mut fields: Vec<_> = s.fields.iter().collect();
    fields.sort_by_key(|(_, (_, b))| std::cmp::Reverse(*b));
    for (f, (n, b)) in fields.into_iter().take(40) {
        let _ = writeln!(
            t,
            "{f:<45} {n:>9} {b:>10} {:>6.2}",
            100.0 * *b as f64 / total as f64
        );
    }
    t
}

/// Round trips (dots, left axis) and bandwidth (bars, right axis) per second of capture.
fn svg<P: SerdeProtocol>(s: &Stats) -> String {
    let (w, h, pad) = (900.0, 360.0, 50.0);
    let first = s.timeline.keys().next().copied().unwrap_or(0);
    let last = s.timeline.keys().last().copied().unwrap_or(0);
    let span = (last - first + 1) as f64;
    let max_bytes = s
        .timeline
        .values()
        .map(|(b, _)| *b)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let max_rtt = s
        .timeline
        .values()
        .flat_map(|(_, r)| r.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1.0);
    let x = |sec: u64| pad + (sec - first) as f64 / span * (w - 2.0 * pad);
    let bar = (w - 2.0 * pad) / span;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(out, r##"<rect width="{w}" height="{h}" fill="white"/>"##);
    let _ = writeln!(
        out,
        r##"<text x="{pad}" y="20">{}: bandwidth per second (bars, max {max_bytes} B/s) and round trips (dots, max {max_rtt:.1} ms)</text>"##,
        P::TITLE.replace('&', "&amp;").replace('<', "&lt;")
    );
    for (&sec, (bytes, rtts)) in &s.timeline {
        let bh = *bytes as f64 / max_bytes * (h - 2.0 * pad);
        let _ = writeln!(
            out,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="#9ecae1"/>"##,
            x(sec),
            h - pad - bh,
            (bar - 1.0).max(1.0)
        );
        for (i, r) in rtts.iter().enumerate() {
            let cx = x(sec) + bar * (i as f64 + 0.5) / rtts.len() as f64;
            let cy = h - pad - r / max_rtt * (h - 2.0 * pad);
            let _ = writeln!(
                out,
                r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="2" fill="#d62728"/>"##
            );
        }
    }
    let _ = writeln!(
        out,
        r##"<line x1="{pad}" y1="{0}" x2="{1}" y2="{0}" stroke="black"/>"##,
        h - pad,
        w - pad
    );
    let _ = writeln!(
        out,
        r##"<text x="{pad}" y="{}">{first} s</text><text x="{}" y="{}" text-anchor="end">{last} s</text>"##,
        h - pad + 16.0,
        w - pad,
        h - pad + 16.0
    );
    out.push_str("</svg>\n");
    out
}
