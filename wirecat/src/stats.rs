//! `stats`: the netcode analysis of a capture. Per conversation and direction: datagrams,
//! bytes, loss, duplicates, retransmissions, reordering, round trips (from acks and pings) and
//! their jitter; and what the bytes are spent on, per message type and per field. The verdict
//! of each frame is the crate's `wiregen_runtime::analysis`, as the dissector shows it under
//! `<proto>.analysis`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;
use wiregen_runtime::analysis::Verdict;

use crate::session::Key;

/// Conversations given a row of their own; later ones are added to one `others` row.
pub const ROWS: usize = 4096;
/// Round trips kept per direction for the percentiles; later ones count in min and mean only.
pub const SAMPLES: usize = 1 << 20;

/// One direction of one conversation.
#[derive(Debug, Default, Clone)]
pub struct Direction {
    pub datagrams: u64,
    pub bytes: u64,
    /// Datagrams skipped, and skipped ones that came later (out of order): lost is the
    /// difference.
    pub skipped: u64,
    pub out_of_order: u64,
    /// Out-of-order datagrams below the first place their direction saw: they fill no gap
    /// that was counted.
    pub before_first: u64,
    pub duplicates: u64,
    pub retransmissions: u64,
    /// Round trips of this direction's sends, acked (or answered) by the other side, in ms.
    pub rtts: Vec<f64>,
    pub rtt_count: u64,
    pub rtt_min: Option<f64>,
    pub first: Option<Duration>,
    pub last: Duration,
}

impl Direction {
    /// Datagrams lost: numbers skipped that never came.
    pub fn lost(&self) -> u64 {
        self.skipped
            .saturating_sub(self.out_of_order - self.before_first)
    }

    fn rtt(&mut self, ms: f64) {
        self.rtt_count += 1;
        self.rtt_min = Some(self.rtt_min.map_or(ms, |m| m.min(ms)));
        if self.rtts.len() < SAMPLES {
            self.rtts.push(ms);
        }
    }

    /// Median and 99th percentile of the kept round trips, and the jitter: the mean difference
    /// between consecutive round trips (RFC 3550's idea, over round trips).
    pub fn rtt_summary(&self) -> Option<(f64, f64, f64, f64)> {
        let min = self.rtt_min?;
        let mut sorted = self.rtts.clone();
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        let jitter = if self.rtts.len() > 1 {
            self.rtts
                .windows(2)
                .map(|w| (w[1] - w[0]).abs())
                .sum::<f64>()
                / (self.rtts.len() - 1) as f64
        } else {
            0.0
        };
        Some((min, at(0.5), at(0.99), jitter))
    }
}

/// What a capture's run gathered.
#[derive(Debug, Default)]
pub struct Stats {
    /// Per conversation: from the client, from the server.
    pub conversations: BTreeMap<Key, [Direction; 2]>,
    /// Conversations past [`ROWS`], together.
    pub others: [Direction; 2],
    pub others_count: u64,
    /// Per message type: datagrams and bytes.
    pub types: BTreeMap<String, (u64, u64)>,
    /// Per field (its filter name): occurrences and bytes.
    pub fields: BTreeMap<&'static str, (u64, u64)>,
    /// Per message type and direction (from the client or not): datagrams and bytes; and per
    /// field of them: occurrences and bits (a bit stream's fields by their width).
    pub type_ways: BTreeMap<(String, bool), (u64, u64)>,
    pub type_fields: BTreeMap<(String, bool, &'static str), (u64, u64)>,
    /// Per tenth of a second of capture: bytes, and round trips seen (ms), for the plot.
    pub timeline: BTreeMap<u64, (u64, Vec<f64>)>,
}

impl Stats {
    /// Counts one message of `bytes` bytes and its verdict.
    pub fn add(&mut self, key: Key, from_client: bool, time: Duration, bytes: u64, v: &Verdict) {
        let side = usize::from(!from_client);
        let rows = self.conversations.len();
        let pair = match self.conversations.get_mut(&key) {
            Some(pair) => pair,
            None if rows < ROWS => self.conversations.entry(key).or_default(),
            None => {
                self.others_count += 1;
                &mut self.others
            }
        };
        let d = &mut pair[side];
        d.datagrams += 1;
        d.bytes += bytes;
        d.first.get_or_insert(time);
        d.last = time;
        d.skipped += v.lost;
        d.out_of_order += u64::from(v.out_of_order);
        d.before_first += u64::from(v.before_first);
        if v.repeat_of.is_some() {
            *if v.retransmission {
                &mut d.retransmissions
            } else {
                &mut d.duplicates
            } += 1;
        }
        // An ack's or a reply's round trip belongs to the direction that sent the original.
        let mut rtts: Vec<f64> = v.acked.iter().map(|a| ms(a.rtt)).collect();
        rtts.extend(v.ping.map(|p| ms(p.rtt)));
        let other = &mut pair[1 - side];
        for &r in &rtts {
            other.rtt(r);
        }
        let tenth = self
            .timeline
            .entry(time.as_millis() as u64 / 100)
            .or_default();
        tenth.0 += bytes;
        tenth.1.extend(rtts);
    }

    /// Counts a message of type `ty` and the fields it holds (`notes`, as the crate's dissect
    /// gives them): a part of a field (a flag bit, a checksum's status) shares its holder's
    /// bytes and is counted once, with it.
    pub fn add_message(
        &mut self,
        ty: &str,
        from_client: bool,
        bytes: u64,
        notes: &[wiregen_runtime::FieldNote<'_>],
    ) {
        let t = self.types.entry(ty.to_string()).or_default();
        t.0 += 1;
        t.1 += bytes;
        let tw = self
            .type_ways
            .entry((ty.to_string(), from_client))
            .or_default();
        tw.0 += 1;
        tw.1 += bytes;
        let mut holder: Option<(&str, usize, usize)> = None;
        for note in notes {
            let end = note.offset + note.len;
            if let Some((name, from, to)) = holder {
                let inside = note.abbrev.len() > name.len()
                    && note.abbrev.starts_with(name)
                    && note.abbrev.as_bytes()[name.len()] == b'.';
                if inside && from <= note.offset && end <= to {
                    continue;
                }
            }
            holder = Some((note.abbrev, note.offset, end));
            let f = self.fields.entry(note.abbrev).or_default();
            f.0 += 1;
            f.1 += note.len as u64;
            let key = (ty.to_string(), from_client, note.abbrev);
            let tf = self.type_fields.entry(key).or_default();
            tf.0 += 1;
            tf.1 += note.bits as u64;
        }
    }

    /// Bits per field per message type and direction, as JSON rows (largest first within a
    /// type): the share of the type's bits in that direction and of all bits.
    pub fn fields_by_type(&self) -> Vec<serde_json::Value> {
        let all = 8 * self.types.values().map(|(_, b)| b).sum::<u64>().max(1);
        let mut rows: Vec<_> = self.type_fields.iter().collect();
        rows.sort_by_key(|((t, c, _), (_, bits))| {
            let type_bytes = self.type_ways.get(&(t.clone(), *c)).map_or(0, |w| w.1);
            (
                std::cmp::Reverse(type_bytes),
                t.clone(),
                *c,
                std::cmp::Reverse(*bits),
            )
        });
        rows.into_iter()
            .map(|((t, c, f), (n, bits))| {
                let type_bits = 8 * self
                    .type_ways
                    .get(&(t.clone(), *c))
                    .map_or(0, |w| w.1)
                    .max(1);
                json!({
                    "type": t,
                    "direction": if *c { "to_server" } else { "to_client" },
                    "field": f,
                    "count": n,
                    "bits": bits,
                    "share_of_type": *bits as f64 / type_bits as f64,
                    "share_of_all": *bits as f64 / all as f64,
                })
            })
            .collect()
    }

    /// The whole as JSON: one object per conversation and direction, the types and the fields.
    pub fn to_json(&self) -> serde_json::Value {
        let mut rows = Vec::new();
        for (key, pair) in &self.conversations {
            for (side, d) in pair.iter().enumerate() {
                let (src, dst) = key.endpoints(side == 0);
                let mut row = direction_json(d);
                row["src"] = src.to_string().into();
                row["dst"] = dst.to_string().into();
                row["from"] = if side == 0 { "client" } else { "server" }.into();
                rows.push(row);
            }
        }
        let types: Vec<_> = self
            .types
            .iter()
            .map(|(t, (n, b))| json!({ "type": t, "datagrams": n, "bytes": b }))
            .collect();
        let fields: Vec<_> = self
            .fields
            .iter()
            .map(|(f, (n, b))| json!({ "field": f, "count": n, "bytes": b }))
            .collect();
        let mut out = json!({ "directions": rows, "types": types, "fields": fields,
            "fields_by_type": self.fields_by_type() });
        if self.others_count > 0 {
            out["others"] = json!({
                "conversations_messages": self.others_count,
                "from_client": direction_json(&self.others[0]),
                "from_server": direction_json(&self.others[1]),
            });
        }
        out
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn direction_json(d: &Direction) -> serde_json::Value {
    let mut row = json!({
        "datagrams": d.datagrams,
        "bytes": d.bytes,
        "lost": d.lost(),
        "duplicates": d.duplicates,
        "retransmissions": d.retransmissions,
        "out_of_order": d.out_of_order,
        "rtt_samples": d.rtt_count,
    });
    if let Some((min, median, p99, jitter)) = d.rtt_summary() {
        row["rtt_ms"] = json!({ "min": min, "median": median, "p99": p99, "jitter": jitter });
    }
    row
}

/// The frame's verdict as one JSON line (`None` when it says nothing), the fields named (and
/// round trips in ms) as the dissector's `<proto>.analysis.*`.
pub fn verdict_json(frame: u64, v: &Verdict) -> Option<serde_json::Value> {
    if *v == Verdict::default() {
        return None;
    }
    let mut line = json!({ "frame": frame });
    if v.lost > 0 {
        line["lost"] = v.lost.into();
    }
    if let Some(first) = v.repeat_of {
        let what = if v.retransmission {
            "retransmission_of"
        } else {
            "duplicate_of"
        };
        line[what] = first.into();
    }
    if v.out_of_order {
        line["out_of_order"] = true.into();
    }
    if v.before_first {
        line["before_first"] = true.into();
    }
    if !v.acked.is_empty() {
        line["acks_frame"] = v.acked.iter().map(|a| a.frame).collect::<Vec<_>>().into();
        line["ack_rtt"] = v.acked.iter().map(|a| ms(a.rtt)).collect::<Vec<_>>().into();
    }
    if let Some(p) = v.ping {
        line["ping_frame"] = p.frame.into();
        line["ping_rtt"] = ms(p.rtt).into();
    }
    Some(line)
}
