//! `wirecat stats --budget FILE`: a game's bandwidth limits, per message type and direction,
//! checked against a capture — a CI gate. A budget file (YAML):
//!
//! ```yaml
//! window: 1s                 # rates are measured over windows this long (default 1 s)
//! per: conversation          # each client's conversation (default), or `all` together
//! limits:
//!   - { type: SEntityState, direction: to_client, bytes_per_second: 20000, datagrams_per_second: 30 }
//!   - { type: CInput, direction: to_server, bytes_per_message: 64 }
//!   - { type: "*", direction: both, bytes_per_second: 40000 }
//! ```
//!
//! A limit's `type` is a message type as `wirecat stats` names it (or one of its parts: `Packet`
//! matches `Packet.SEntityState`), `*` every type. Rates are taken over consecutive windows of
//! the capture's time (as Wireshark's I/O graphs count them); the worst window counts.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Deserialize;

use crate::proxy::impair::duration;
use crate::session::Key;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetFile {
    window: Option<String>,
    per: Option<String>,
    limits: Vec<Limit>,
}

/// One limit as the file says it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default = "both")]
    pub direction: String,
    pub bytes_per_second: Option<f64>,
    pub bytes_per_message: Option<u64>,
    pub datagrams_per_second: Option<f64>,
}

fn both() -> String {
    "both".into()
}

impl Limit {
    fn applies(&self, ty: &str, from_client: bool) -> bool {
        let way = match self.direction.as_str() {
            "to_server" => from_client,
            "to_client" => !from_client,
            _ => true,
        };
        way && (self.ty == "*" || ty == self.ty || ty.split('.').any(|p| p == self.ty))
    }
}

/// The worst a limit saw: the value, and in which conversation and window.
#[derive(Debug, Default, Clone, Copy)]
struct Worst {
    value: f64,
    key: Option<Key>,
    /// Seconds from the capture's first message to the window's start (or the message).
    at: f64,
}

impl Worst {
    fn see(&mut self, value: f64, key: Option<Key>, at: f64) {
        if value > self.value {
            *self = Worst { value, key, at };
        }
    }
}

/// One window of one limit in one conversation (or all): its bytes and datagrams.
#[derive(Debug, Default, Clone, Copy)]
struct Window {
    index: u64,
    bytes: u64,
    datagrams: u64,
}

/// Open windows kept at once; past it, those of conversations gone quiet are closed.
const OPEN: usize = 1 << 16;

/// A budget being checked against a capture's messages.
pub struct Budget {
    limits: Vec<Limit>,
    window: Duration,
    per_conversation: bool,
    open: HashMap<(usize, Option<Key>), Window>,
    worst: Vec<[Worst; 3]>,
    start: Option<Duration>,
}

impl Budget {
    /// Reads a budget file; its mistakes are said with the limit they are in.
    pub fn parse(text: &str) -> Result<Budget, String> {
        let file: BudgetFile = serde_norway::from_str(text).map_err(|e| e.to_string())?;
        let window = file
            .window
            .as_deref()
            .map(duration)
            .transpose()?
            .unwrap_or(Duration::from_secs(1));
        if window.is_zero() {
            return Err("window: longer than zero".into());
        }
        let per_conversation = match file.per.as_deref() {
            None | Some("conversation") => true,
            Some("all") => false,
            Some(other) => return Err(format!("per: '{other}': conversation or all")),
        };
        for (i, l) in file.limits.iter().enumerate() {
            if !matches!(l.direction.as_str(), "both" | "to_server" | "to_client") {
                return Err(format!(
                    "limit {}: direction '{}': both, to_server or to_client",
                    i + 1,
                    l.direction
                ));
            }
            if l.bytes_per_second.is_none()
                && l.bytes_per_message.is_none()
                && l.datagrams_per_second.is_none()
            {
                return Err(format!("limit {}: says no bytes_per_second, bytes_per_message nor datagrams_per_second", i + 1));
            }
        }
        Ok(Budget {
            worst: vec![[Worst::default(); 3]; file.limits.len()],
            limits: file.limits,
            window,
            per_conversation,
            open: HashMap::new(),
            start: None,
        })
    }

    /// Counts a message of type `ty`, `bytes` long, captured at `time`.
    pub fn add(&mut self, ty: &str, from_client: bool, key: Key, time: Duration, bytes: u64) {
        let start = *self.start.get_or_insert(time);
        let since = time.saturating_sub(start);
        let index = (since.as_nanos() / self.window.as_nanos()) as u64;
        let secs = self.window.as_secs_f64();
        let conv = self.per_conversation.then_some(key);
        for i in 0..self.limits.len() {
            if !self.limits[i].applies(ty, from_client) {
                continue;
            }
            self.worst[i][1].see(bytes as f64, conv, since.as_secs_f64());
            let w = self.open.entry((i, conv)).or_default();
            if w.index != index {
                *w = Window {
                    index,
                    bytes: 0,
                    datagrams: 0,
                };
            }
            w.bytes += bytes;
            w.datagrams += 1;
            let at = index as f64 * secs;
            let (b, d) = (w.bytes as f64 / secs, w.datagrams as f64 / secs);
            self.worst[i][0].see(b, conv, at);
            self.worst[i][2].see(d, conv, at);
        }
        if self.open.len() > OPEN {
            self.open.retain(|_, w| w.index == index);
        }
    }

    /// Every row over budget (limit, measure, worst value, the limit, where); empty when the
    /// capture keeps to it.
    pub fn over(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (l, worst) in self.limits.iter().zip(&self.worst) {
            let measures = [
                ("bytes_per_second", l.bytes_per_second),
                ("bytes_per_message", l.bytes_per_message.map(|b| b as f64)),
                ("datagrams_per_second", l.datagrams_per_second),
            ];
            for ((name, limit), w) in measures.iter().zip(worst) {
                let Some(limit) = limit else { continue };
                if w.value > *limit {
                    let mut row = format!(
                        "{} {}: {name} {:.1} over {limit} (at {:.3} s",
                        l.ty, l.direction, w.value, w.at
                    );
                    if let Some(k) = w.key {
                        let _ = write!(row, ", {} <-> {}", k.client, k.server);
                    }
                    row.push(')');
                    out.push(row);
                }
            }
        }
        out
    }

    /// Each limit's worst values beside it, as a table.
    pub fn table(&self) -> String {
        let mut t = format!(
            "{:<30} {:<10} {:>14} {:>14} {:>14}  (budget: worst {} window{})\n",
            "message type",
            "direction",
            "bytes/s",
            "bytes/message",
            "datagrams/s",
            humantime(self.window),
            if self.per_conversation {
                " of a conversation"
            } else {
                ", all conversations"
            }
        );
        for (l, w) in self.limits.iter().zip(&self.worst) {
            let cell = |v: f64, limit: Option<f64>| match limit {
                Some(limit) => format!("{v:.0}/{limit:.0}{}", if v > limit { " !" } else { "" }),
                None => format!("{v:.0}"),
            };
            let _ = writeln!(
                t,
                "{:<30} {:<10} {:>14} {:>14} {:>14}",
                l.ty,
                l.direction,
                cell(w[0].value, l.bytes_per_second),
                cell(w[1].value, l.bytes_per_message.map(|b| b as f64)),
                cell(w[2].value, l.datagrams_per_second)
            );
        }
        t
    }
}

fn humantime(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(port: u16) -> Key {
        Key {
            client: format!("127.0.0.1:{port}").parse().unwrap(),
            server: "127.0.0.1:9000".parse().unwrap(),
            tcp: false,
        }
    }

    #[test]
    fn the_worst_window_of_a_conversation_is_held_against_its_limit() {
        let mut b = Budget::parse(
            "limits:\n  - { type: SEntityState, direction: to_client, bytes_per_second: 1000, datagrams_per_second: 3 }\n  - { type: CInput, direction: to_server, bytes_per_message: 20 }\n",
        )
        .unwrap();
        let ms = Duration::from_millis;
        // 4 world updates of 300 bytes in the second second of one client: 1200 B/s, 4/s.
        for t in [0, 1100, 1200, 1300, 1400] {
            b.add("Packet.SEntityState", false, key(1), ms(t), 300);
        }
        // Another client's, and the other direction's, do not count for it.
        b.add("Packet.SEntityState", false, key(2), ms(1500), 300);
        b.add("CInput", true, key(1), ms(1500), 18);
        let over = b.over();
        assert_eq!(over.len(), 2, "{over:?}");
        assert!(over[0].starts_with("SEntityState to_client: bytes_per_second 1200.0 over 1000 (at 1.000 s, 127.0.0.1:1"), "{}", over[0]);
        assert!(
            over[1].starts_with("SEntityState to_client: datagrams_per_second 4.0 over 3"),
            "{}",
            over[1]
        );
        b.add("CInput", true, key(1), ms(1600), 21);
        assert!(b.over()[2].starts_with("CInput to_server: bytes_per_message 21.0 over 20"));
    }

    #[test]
    fn mistakes_name_the_limit() {
        let e = Budget::parse("limits:\n  - { type: A, direction: up, bytes_per_second: 1 }\n")
            .err()
            .unwrap();
        assert!(e.starts_with("limit 1: direction 'up'"), "{e}");
        let e = Budget::parse("limits:\n  - { type: A }\n").err().unwrap();
        assert!(e.starts_with("limit 1: says no"), "{e}");
    }
}
