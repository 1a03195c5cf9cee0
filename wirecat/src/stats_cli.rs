//! `wirecat stats`: drives a capture through the analysis and prints it (tables, JSON, each
//! frame's verdict) and draws it (SVG).

use std::fmt::Write as _;
use std::io::Write as _;
use wiregen_runtime::SerdeProtocol;

use std::path::PathBuf;

use clap::Args;

use crate::budget::Budget;
use crate::input::{open, ports, CaptureArgs};
use crate::json::AsJson;
use crate::outcome::{CliError, Outcome};
use crate::reading;
use crate::session::{Conversations, Event};
use crate::stats::{verdict_json, Direction, Stats};

pub(crate) fn stats<P: SerdeProtocol>(a: &StatsArgs) -> Result<Outcome, CliError> {
    let ports = ports::<P>(&a.capture.ports).map_err(CliError::Ports)?;
    let (packets, mut progress) = open(&a.capture.capture).map_err(CliError::Capture)?;
    let mut stats = Stats::default();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut undecoded = 0u64;
    let mut budget = match &a.budget {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| Budget::parse(&text))
                .map_err(|e| CliError::File {
                    path: path.clone(),
                    error: e,
                })?,
        ),
        None => None,
    };
    let conversations = Conversations::default().with_analysis_window(a.analysis_window);
    let tally = reading::each_event_in::<P, _>(
        conversations,
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
            let mut ty = crate::message_type::message_type(&value);
            if ty.is_empty() {
                ty = "(no variant)".into();
            }
            if let Some(b) = &mut budget {
                b.add(&ty, m.from_client, m.key, m.time, bytes);
            }
            let notes = conversations.notes(&m);
            stats.add_message(&ty, m.from_client, bytes, &notes);
            Ok(())
        },
    )
    .map_err(CliError::Capture)?;
    drop(progress);
    if a.json {
        let mut all = stats.to_json();
        all["undecoded"] = undecoded.into();
        if let Some(b) = &budget {
            all["over_budget"] = b.over().into();
        }
        writeln!(out, "{all}")?;
    } else if !a.frames {
        write!(out, "{}", tables(&stats))?;
        if a.fields {
            write!(out, "{}", fields_table(&stats))?;
        }
        if let Some(b) = &budget {
            write!(out, "\n{}", b.table())?;
        }
        if undecoded > 0 {
            writeln!(
                out,
                "{undecoded} messages did not decode and are not counted"
            )?;
        }
    }
    out.flush()?;
    if let Some(path) = &a.svg {
        std::fs::write(path, svg::<P>(&stats)).map_err(|e| CliError::File {
            path: path.clone(),
            error: e.to_string(),
        })?;
    }
    let over = budget.as_ref().map(Budget::over).unwrap_or_default();
    for row in &over {
        eprintln!("wirecat: over budget: {row}");
    }
    if tally.evicted > 0 {
        eprintln!(
            "wirecat: {} conversations were forgotten to stay within the limit (their later messages were analysed afresh)",
            tally.evicted
        );
    }
    Ok(Outcome::from_ok(over.is_empty()))
}

/// Bits per field per message type and direction (`--fields`).
fn fields_table(s: &Stats) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "\n{:<40} {:<10} {:<45} {:>9} {:>11} {:>7} {:>7}  (bits: a bit stream's fields by their width)",
        "message type", "direction", "field", "count", "bits", "%type", "%all"
    );
    for row in s.fields_by_type() {
        let _ = writeln!(
            t,
            "{:<40} {:<10} {:<45} {:>9} {:>11} {:>7.2} {:>7.2}",
            row["type"].as_str().unwrap_or(""),
            row["direction"].as_str().unwrap_or(""),
            row["field"].as_str().unwrap_or(""),
            row["count"].as_u64().unwrap_or(0),
            row["bits"].as_u64().unwrap_or(0),
            100.0 * row["share_of_type"].as_f64().unwrap_or(0.0),
            100.0 * row["share_of_all"].as_f64().unwrap_or(0.0)
        );
    }
    t
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

/// Bandwidth (bars) and round trips (dots) over the capture, in at most 120 bins.
fn svg<P: SerdeProtocol>(s: &Stats) -> String {
    let (w, h, pad) = (900.0, 360.0, 50.0);
    let first = s.timeline.keys().next().copied().unwrap_or(0);
    let last = s.timeline.keys().last().copied().unwrap_or(0);
    // Tenths of a second per bin.
    let per = (last - first + 1).div_ceil(120).max(1);
    let n = ((last - first) / per + 1) as usize;
    let mut bins: Vec<(u64, Vec<f64>)> = vec![(0, Vec::new()); n];
    for (&t, (bytes, rtts)) in &s.timeline {
        let b = &mut bins[((t - first) / per) as usize];
        b.0 += bytes;
        b.1.extend(rtts);
    }
    let seconds = per as f64 / 10.0;
    let rate = |bytes: u64| bytes as f64 / seconds;
    let max_rate = bins.iter().map(|b| rate(b.0)).fold(1.0, f64::max);
    let max_rtt = bins
        .iter()
        .flat_map(|b| b.1.iter().copied())
        .fold(0.001, f64::max);
    let bar = (w - 2.0 * pad) / n as f64;
    let plot = h - 2.0 * pad;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(out, r##"<rect width="{w}" height="{h}" fill="white"/>"##);
    let title = P::TITLE.replace('&', "&amp;").replace('<', "&lt;");
    let _ = writeln!(
        out,
        r##"<text x="{pad}" y="20">{title}: bytes per second (bars, up to {max_rate:.0} B/s) and round trips (dots, up to {max_rtt:.3} ms)</text>"##
    );
    for (i, (bytes, rtts)) in bins.iter().enumerate() {
        let x = pad + i as f64 * bar;
        let bh = rate(*bytes) / max_rate * plot;
        let _ = writeln!(
            out,
            r##"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="#9ecae1"/>"##,
            h - pad - bh,
            (bar - 1.0).max(0.5)
        );
        for (k, r) in rtts.iter().enumerate() {
            let cx = x + bar * (k as f64 + 0.5) / rtts.len() as f64;
            let cy = h - pad - r / max_rtt * plot;
            let _ = writeln!(
                out,
                r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="2.5" fill="#d62728"/>"##
            );
        }
    }
    let _ = writeln!(
        out,
        r##"<line x1="{pad}" y1="{0}" x2="{1}" y2="{0}" stroke="black"/>"##,
        h - pad,
        w - pad
    );
    let span = (last + 1 - first) as f64 / 10.0;
    let _ = writeln!(
        out,
        r##"<text x="{pad}" y="{0}">0 s</text><text x="{1}" y="{0}" text-anchor="end">{span:.1} s from the first datagram ({seconds:.1} s per bar)</text>"##,
        h - pad + 16.0,
        w - pad
    );
    out.push_str("</svg>\n");
    out
}

#[derive(Args)]
pub(crate) struct StatsArgs {
    #[command(flatten)]
    pub capture: CaptureArgs,
    /// Prints the whole as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Prints each frame's verdict (lost, duplicate, retransmission, out of order, acks, round
    /// trips) as a JSON line, as the dissector's `<proto>.analysis.*` fields show it.
    #[arg(long)]
    pub frames: bool,
    /// Places, sends and pings the analysis keeps per channel and direction (past it the
    /// oldest is forgotten, and counted): set it as the dissector's
    /// `<proto>.analysis_window` preference is set, and both link the same acks.
    #[arg(long, value_name = "N", default_value_t = wiregen_runtime::analysis::WINDOW)]
    pub analysis_window: usize,
    /// Also prints bits per field per message type and direction (the share of the type's bits
    /// and of all): what to shrink first.
    #[arg(long)]
    pub fields: bool,
    /// Checks a budget file (limits per message type and direction: bytes per second, bytes
    /// per message, datagrams per second): exits non-zero listing every row over it.
    #[arg(long, value_name = "FILE")]
    pub budget: Option<PathBuf>,
    /// Also draws round trips and bandwidth over time as an SVG picture.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}
