//! Netcode analysis, as Wireshark's `tcp.analysis` does it for TCP, for any protocol that
//! numbers its datagrams: which were lost, duplicated, reordered or resent, which frame acked
//! which, and round-trip times. Protocol-agnostic: a protocol says what each datagram carries
//! ([`Facts`]: its place in a numbered sequence, whether it is resent until acked, what it acks,
//! a ping id) and an [`Analyzer`] per conversation gives each datagram its [`Verdict`]. The
//! generated dissector computes the same verdicts on its first pass. Every table is bounded:
//! past [`WINDOW`] entries the oldest are forgotten, and counted.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Duration;

/// Sequence numbers, sends waiting for their ack and pings remembered per channel and direction
/// (the dissector's default too; its `analysis_window` preference and [`Analyzer::with_window`]
/// change it). 256 places is seconds of a game's traffic: a repeat later than that is read as out
/// of order. Kept small for the dissector: what it keeps is memory every Lua garbage collection
/// walks, and at 4,096 the analysis cost more than the dissection (docs/performance.md).
pub const WINDOW: usize = 256;

/// Where a datagram sits in its sender's numbering: a number, and for protocols that cut one
/// number's payload into parts, the part's index (0 otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The numbering it belongs to (a protocol may keep several, e.g. reliable and notify).
    pub channel: u8,
    /// The number on the wire (it wraps at the channel's `wrap`).
    pub number: u64,
    /// The part of that number's payload (0 when payloads are not cut).
    pub part: u64,
}

/// The datagram's own place, and what the sender promises about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Numbered {
    /// Its number (and part).
    pub place: Place,
    /// Whether the sender resends it until acked (a repeat is then a retransmission, not a
    /// duplicate, and an ack of it gives a round trip).
    pub reliable: bool,
    /// Whether this is its number's last part (always, when payloads are not cut).
    pub last_part: bool,
}

/// Which numbering a field [`Protocol::renumber`](crate::Protocol::renumber) gives holds: the
/// sender's own sequence numbers, or its acks of the other side's, in a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Numbering {
    /// The datagram's own number in `channel`.
    Sequence {
        /// The channel's index in `Protocol::CHANNELS`.
        channel: u8,
    },
    /// The other side's number in `channel` it acknowledges.
    Ack {
        /// The channel's index in `Protocol::CHANNELS`.
        channel: u8,
    },
}

/// An acknowledgement of the other direction's datagram at `place`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    /// The number (and part) it acks.
    pub place: Place,
    /// Whether it acks every number up to `place` too (a cumulative ack).
    pub cumulative: bool,
}

/// What one datagram carries that the analysis reads (nothing, by default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Its own number, when it has one.
    pub sequence: Option<Numbered>,
    /// The other direction's numbers it acks.
    pub acks: Vec<Ack>,
    /// A ping id it carries: a request (`reply == false`) or the reply echoing it.
    pub ping: Option<Ping>,
}

impl Facts {
    /// Sets the datagram's own number (and part) in `channel`.
    pub fn numbered(
        &mut self,
        channel: u8,
        number: u64,
        part: u64,
        reliable: bool,
        last_part: bool,
    ) {
        self.sequence = Some(Numbered {
            place: Place {
                channel,
                number,
                part,
            },
            reliable,
            last_part,
        });
    }

    /// Adds an ack of the other direction's `number` (and part) in `channel`.
    pub fn ack(&mut self, channel: u8, number: u64, part: u64, cumulative: bool) {
        self.acks.push(Ack {
            place: Place {
                channel,
                number,
                part,
            },
            cumulative,
        });
    }

    /// Sets the ping id it carries: a request, or the `reply` echoing it.
    pub fn ping(&mut self, id: u64, reply: bool) {
        self.ping = Some(Ping { id, reply });
    }

    /// Adds the acks a bitfield gives: bit `k` of `bits` acks `number - 1 - k` (wrapping at
    /// `wrap`), as Riptide's and ENet-style ack fields do.
    pub fn ack_bits(&mut self, channel: u8, number: u64, bits: u64, width: u32, wrap: u64) {
        for k in 0..u64::from(width.min(64)) {
            if bits >> k & 1 == 1 {
                let back = (k + 1) % wrap.max(1);
                let number = (number % wrap.max(1) + wrap - back) % wrap.max(1);
                self.acks.push(Ack {
                    place: Place {
                        channel,
                        number,
                        part: 0,
                    },
                    cumulative: false,
                });
            }
        }
    }
}

/// A ping id, sent or echoed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ping {
    /// The id the request carries and the reply echoes.
    pub id: u64,
    /// Whether this is the reply.
    pub reply: bool,
}

/// A frame of the other direction an ack acknowledges for the first time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acked {
    /// The acked (or answered) frame.
    pub frame: u64,
    /// From that frame to the ack.
    pub rtt: Duration,
}

/// What the analysis says of one datagram.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Datagrams skipped just before this one (lost, or yet to come: a later out-of-order
    /// datagram fills the gap). Where a number's payload is cut into parts, a number whose last
    /// part never came counts as one.
    pub lost: u64,
    /// An earlier frame with the same place: this is its retransmission (reliable) or duplicate
    /// (not).
    pub repeat_of: Option<u64>,
    /// Whether the repeat is of a reliable datagram (a retransmission).
    pub retransmission: bool,
    /// It came after a higher place: it fills a gap an earlier datagram reported.
    pub out_of_order: bool,
    /// An out-of-order place below the first its direction saw: no earlier datagram reported
    /// its gap, so it fills none (the direction's loss is not lowered by it).
    pub before_first: bool,
    /// The frames of the other direction it acknowledges first, each with its round trip.
    pub acked: Vec<Acked>,
    /// The round trip of a ping this datagram answers: the request's frame and the time.
    pub ping: Option<Acked>,
}

/// A place unwrapped to 64 bits, ordered by number then part.
type Key = (u64, u64);

/// A table of places keeping at most a window of them: past it the oldest added goes.
///
/// Each entry keeps the serial of the add that made it, and so does its place in `order`: a key
/// removed (acked) and added again has two places there, and only the newer one is its own — the
/// older must not evict it (the dissector's bounded tables check a key's place the same way).
#[derive(Debug)]
struct Window<V> {
    map: BTreeMap<Key, (V, u64)>,
    order: VecDeque<(Key, u64)>,
    adds: u64,
}

impl<V> Default for Window<V> {
    fn default() -> Self {
        Window {
            map: BTreeMap::new(),
            order: VecDeque::new(),
            adds: 0,
        }
    }
}

impl<V> Window<V> {
    fn get(&self, key: &Key) -> Option<&V> {
        self.map.get(key).map(|(v, _)| v)
    }

    fn remove(&mut self, key: &Key) -> Option<V> {
        self.map.remove(key).map(|(v, _)| v)
    }

    /// Whether `serial` is `key`'s own place in `order` (not one left by a removed entry).
    fn holds(&self, key: &Key, serial: u64) -> bool {
        self.map.get(key).is_some_and(|(_, s)| *s == serial)
    }

    /// Adds `key` (a key already in keeps its place); returns how many entries were forgotten
    /// to keep `limit`.
    fn add(&mut self, key: Key, value: V, limit: usize) -> u64 {
        if let Some(entry) = self.map.get_mut(&key) {
            entry.0 = value;
        } else {
            self.adds += 1;
            self.map.insert(key, (value, self.adds));
            self.order.push_back((key, self.adds));
        }
        let mut forgotten = 0;
        while self.map.len() > limit {
            match self.order.pop_front() {
                Some((old, serial)) if self.holds(&old, serial) => {
                    self.map.remove(&old);
                    forgotten += 1;
                }
                Some(_) => {}
                None => break,
            }
        }
        // Keys removed otherwise (acked) leave their place in `order`: drop them now and then.
        if self.order.len() > 4 * limit + 64 {
            let mut order = std::mem::take(&mut self.order);
            order.retain(|(k, serial)| self.holds(k, *serial));
            self.order = order;
        }
        forgotten
    }
}

/// One direction of one channel.
#[derive(Debug, Default)]
struct Direction {
    /// The highest place so far, and whether it was its number's last part.
    highest: Option<(Key, bool)>,
    /// The first place seen: gaps below it were never reported.
    first: Option<Key>,
    /// Places seen (within the window) and the frame each first came in.
    seen: Window<u64>,
    /// Reliable sends not yet acked: their frame and time.
    waiting: Window<(u64, Duration)>,
}

/// The analysis of one conversation, both directions.
#[derive(Debug)]
pub struct Analyzer {
    /// Each channel's wrap, and its directions (from the client, from the server).
    channels: Vec<(u64, [Direction; 2])>,
    window: usize,
    /// Pings waiting for their reply, per direction of the request.
    pings: [HashMap<u64, (u64, Duration)>; 2],
    ping_order: [VecDeque<u64>; 2],
    forgotten: u64,
}

impl Analyzer {
    /// An analyzer of channels whose numbers count modulo `wraps` (65,536 for a `u16`), keeping
    /// [`WINDOW`] of each table.
    pub fn new(wraps: &[u64]) -> Self {
        Self::with_window(wraps, WINDOW)
    }

    /// An analyzer keeping `window` places, sends and pings per channel and direction.
    pub fn with_window(wraps: &[u64], window: usize) -> Self {
        Analyzer {
            channels: wraps
                .iter()
                .map(|w| (*w.max(&2), Default::default()))
                .collect(),
            window: window.max(1),
            pings: Default::default(),
            ping_order: Default::default(),
            forgotten: 0,
        }
    }

    /// Entries forgotten to stay within the window (a repeat or an ack of one is then not
    /// linked to its frame).
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// Reads one datagram (frame `frame`, captured at `time`) of direction `from_client`.
    pub fn observe(
        &mut self,
        frame: u64,
        time: Duration,
        from_client: bool,
        facts: &Facts,
    ) -> Verdict {
        let side = usize::from(!from_client);
        let mut verdict = Verdict::default();
        if let Some(n) = facts.sequence {
            self.numbered(side, n, frame, time, &mut verdict);
        }
        for ack in &facts.acks {
            self.ack(1 - side, ack, time, &mut verdict.acked);
        }
        if let Some(ping) = facts.ping {
            verdict.ping = self.ping(side, ping, frame, time);
        }
        verdict
    }

    fn numbered(
        &mut self,
        side: usize,
        n: Numbered,
        frame: u64,
        time: Duration,
        verdict: &mut Verdict,
    ) {
        let window = self.window;
        let Some((wrap, dirs)) = self.channels.get_mut(usize::from(n.place.channel)) else {
            return;
        };
        let wrap = *wrap;
        let d = &mut dirs[side];
        // The first number seen is placed one wrap up, so numbers just below it unwrap too.
        let number = match d.highest {
            None => n.place.number % wrap + wrap,
            Some(((h, _), _)) => unwrap(n.place.number % wrap, h, wrap),
        };
        let key = (number, n.place.part);
        if let Some(&first) = d.seen.get(&key) {
            verdict.repeat_of = Some(first);
            verdict.retransmission = n.reliable;
            return;
        }
        match d.highest {
            Some((high, _)) if key < high => {
                verdict.out_of_order = true;
                verdict.before_first = d.first.is_some_and(|first| key < first);
            }
            Some(((h, hp), closed)) => {
                verdict.lost = if number == h {
                    key.1 - hp - 1
                } else {
                    u64::from(!closed) + (number - h - 1) + key.1
                };
            }
            None => {}
        }
        d.first.get_or_insert(key);
        if d.highest.map_or(true, |(high, _)| key > high) {
            d.highest = Some((key, n.last_part));
        }
        self.forgotten += d.seen.add(key, frame, window);
        if n.reliable {
            self.forgotten += d.waiting.add(key, (frame, time), window);
        }
    }

    /// An ack of direction `side`'s sends: the frames it acks first, with their round trips.
    fn ack(&mut self, side: usize, ack: &Ack, time: Duration, out: &mut Vec<Acked>) {
        let Some((wrap, dirs)) = self.channels.get_mut(usize::from(ack.place.channel)) else {
            return;
        };
        let d = &mut dirs[side];
        let Some(((near, _), _)) = d.highest else {
            return;
        };
        let key = (
            unwrap(ack.place.number % *wrap, near, *wrap),
            ack.place.part,
        );
        let acked: Vec<Key> = if ack.cumulative {
            d.waiting
                .map
                .range(..=(key.0, u64::MAX))
                .map(|(k, _)| *k)
                .collect()
        } else {
            d.waiting
                .map
                .get_key_value(&key)
                .map(|(k, _)| *k)
                .into_iter()
                .collect()
        };
        for k in acked {
            if let Some((frame, sent)) = d.waiting.remove(&k) {
                out.push(Acked {
                    frame,
                    rtt: time.saturating_sub(sent),
                });
            }
        }
    }

    fn ping(&mut self, side: usize, ping: Ping, frame: u64, time: Duration) -> Option<Acked> {
        if ping.reply {
            let (frame, sent) = self.pings[1 - side].remove(&ping.id)?;
            return Some(Acked {
                frame,
                rtt: time.saturating_sub(sent),
            });
        }
        if self.pings[side].insert(ping.id, (frame, time)).is_none() {
            self.ping_order[side].push_back(ping.id);
        }
        while self.ping_order[side].len() > self.window {
            if let Some(old) = self.ping_order[side].pop_front() {
                if self.pings[side].remove(&old).is_some() {
                    self.forgotten += 1;
                }
            }
        }
        None
    }
}

/// `raw` (already reduced modulo `wrap`) unwrapped to the 64-bit number nearest `near`.
fn unwrap(raw: u64, near: u64, wrap: u64) -> u64 {
    let base = near - near % wrap;
    [base.wrapping_sub(wrap), base, base + wrap]
        .into_iter()
        .map(|b| b.wrapping_add(raw))
        .filter(|c| *c < u64::MAX / 2)
        .min_by_key(|c| c.abs_diff(near))
        .unwrap_or(raw)
}

#[cfg(test)]
#[path = "analysis_tests.rs"]
mod tests;
