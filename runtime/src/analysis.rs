//! Netcode analysis, as Wireshark's `tcp.analysis` does it for TCP, for any protocol that
//! numbers its datagrams: which were lost, duplicated, reordered or resent, which frame acked
//! which, and round-trip times. Protocol-agnostic: a protocol says what each datagram carries
//! ([`Facts`]: its sequence number, whether it is resent until acked, what it acks, a ping id),
//! and an [`Analyzer`] per conversation gives each datagram its [`Verdict`]. Every table is
//! bounded: past its limit the oldest entry is forgotten and counted.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

/// Sequence numbers, acked sends and pings remembered per direction by default.
pub const WINDOW: usize = 4096;

/// What one datagram carries that the analysis reads (nothing, by default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Its sequence number, on the wire (wrapping at [`Analyzer::new`]'s `wrap`).
    pub sequence: Option<u64>,
    /// Whether the sender resends it until acked (a repeat is then a retransmission, not a
    /// duplicate).
    pub reliable: bool,
    /// The other direction's sequence numbers it acknowledges.
    pub acks: Vec<u64>,
    /// A ping id it carries: a request (`reply == false`) or the reply echoing it.
    pub ping: Option<Ping>,
}

/// A ping id, sent or echoed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ping {
    /// The id the request carries and the reply echoes.
    pub id: u64,
    /// Whether this is the reply.
    pub reply: bool,
}

/// What the analysis says of one datagram.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Sequence numbers skipped just before this one (datagrams lost, or yet to come).
    pub lost: u64,
    /// An earlier frame with the same sequence number: this is its retransmission (reliable)
    /// or duplicate (not).
    pub repeat_of: Option<u64>,
    /// Whether the repeat is of a reliable datagram (a retransmission).
    pub retransmission: bool,
    /// It came after a higher sequence number: the gap it fills was not a loss.
    pub out_of_order: bool,
    /// The frames of the other direction it acknowledges first, each with the round trip
    /// from that frame to this one.
    pub acked: Vec<(u64, Duration)>,
    /// The round trip of a ping this datagram answers: the request's frame and the time.
    pub ping: Option<(u64, Duration)>,
}

/// One direction's sequence numbers.
#[derive(Debug)]
struct Sequences {
    /// The highest sequence number so far, unwrapped to 64 bits.
    highest: Option<u64>,
    /// Recent sequence numbers (unwrapped) and the frame each first came in, oldest first.
    seen: HashMap<u64, u64>,
    order: VecDeque<u64>,
    /// Numbers skipped and not (yet) come.
    missing: HashMap<u64, ()>,
    missing_order: VecDeque<u64>,
}

impl Sequences {
    fn new() -> Self {
        Sequences {
            highest: None,
            seen: HashMap::new(),
            order: VecDeque::new(),
            missing: HashMap::new(),
            missing_order: VecDeque::new(),
        }
    }
}

/// Sends waiting for their ack, per direction: the sequence number (unwrapped) and its frame
/// and time.
#[derive(Debug, Default)]
struct Sends {
    waiting: HashMap<u64, (u64, Duration)>,
    order: VecDeque<u64>,
}

/// The analysis of one conversation, both directions.
#[derive(Debug)]
pub struct Analyzer {
    wrap: u64,
    window: usize,
    /// From the client, from the server.
    sequences: [Sequences; 2],
    sends: [Sends; 2],
    /// Pings waiting for their reply, per direction of the request.
    pings: [HashMap<u64, (u64, Duration)>; 2],
    ping_order: [VecDeque<u64>; 2],
    forgotten: u64,
}

impl Analyzer {
    /// An analyzer of sequence numbers counting modulo `wrap` (65,536 for a `u16`), keeping
    /// [`WINDOW`] of each table.
    pub fn new(wrap: u64) -> Self {
        Self::with_window(wrap, WINDOW)
    }

    /// An analyzer keeping `window` sequence numbers, sends and pings per direction.
    pub fn with_window(wrap: u64, window: usize) -> Self {
        Analyzer {
            wrap: wrap.max(2),
            window: window.max(1),
            sequences: [Sequences::new(), Sequences::new()],
            sends: Default::default(),
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

    /// Sequence numbers skipped in direction `from_client` and still missing: the datagrams
    /// lost so far (within the window).
    pub fn missing(&self, from_client: bool) -> usize {
        self.sequences[usize::from(!from_client)].missing.len()
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
        if let Some(raw) = facts.sequence {
            let seq = self.sequence(side, raw % self.wrap, frame, &mut verdict);
            if facts.reliable && verdict.repeat_of.is_none() {
                self.remember_send(side, seq, frame, time);
            }
            verdict.retransmission = verdict.repeat_of.is_some() && facts.reliable;
        }
        for &ack in &facts.acks {
            if let Some(acked) = self.ack(1 - side, ack % self.wrap, time) {
                verdict.acked.push(acked);
            }
        }
        if let Some(ping) = facts.ping {
            verdict.ping = self.ping(side, ping, frame, time);
        }
        verdict
    }

    /// `raw` unwrapped to the 64-bit number nearest `near`.
    fn unwrap(&self, raw: u64, near: u64) -> u64 {
        let base = near - near % self.wrap;
        [base.wrapping_sub(self.wrap), base, base + self.wrap]
            .into_iter()
            .map(|b| b.wrapping_add(raw))
            .filter(|c| *c < u64::MAX / 2)
            .min_by_key(|c| c.abs_diff(near))
            .unwrap_or(raw)
    }

    fn sequence(&mut self, side: usize, raw: u64, frame: u64, verdict: &mut Verdict) -> u64 {
        let window = self.window;
        let highest = self.sequences[side].highest;
        // The first number seen is placed one wrap up, so numbers just below it unwrap too.
        let seq = match highest {
            None => raw + self.wrap,
            Some(h) => self.unwrap(raw, h),
        };
        let s = &mut self.sequences[side];
        if let Some(&first) = s.seen.get(&seq) {
            verdict.repeat_of = Some(first);
            return seq;
        }
        match s.highest {
            Some(h) if seq > h + 1 => {
                verdict.lost = seq - h - 1;
                // The numbers skipped (at most a window of them is remembered).
                for m in seq.saturating_sub(window as u64).max(h + 1)..seq {
                    s.missing.insert(m, ());
                    s.missing_order.push_back(m);
                }
            }
            Some(h) if seq < h => {
                s.missing.remove(&seq);
                verdict.out_of_order = true;
            }
            _ => {}
        }
        s.highest = Some(s.highest.map_or(seq, |h| h.max(seq)));
        s.seen.insert(seq, frame);
        s.order.push_back(seq);
        let mut forgotten = 0;
        while s.order.len() > window {
            if let Some(old) = s.order.pop_front() {
                s.seen.remove(&old);
                forgotten += 1;
            }
        }
        while s.missing_order.len() > window {
            if let Some(old) = s.missing_order.pop_front() {
                if s.missing.remove(&old).is_some() {
                    forgotten += 1;
                }
            }
        }
        self.forgotten += forgotten;
        seq
    }

    fn remember_send(&mut self, side: usize, seq: u64, frame: u64, time: Duration) {
        let sends = &mut self.sends[side];
        sends.waiting.insert(seq, (frame, time));
        sends.order.push_back(seq);
        while sends.order.len() > self.window {
            if let Some(old) = sends.order.pop_front() {
                if sends.waiting.remove(&old).is_some() {
                    self.forgotten += 1;
                }
            }
        }
    }

    /// An ack, in the direction opposite `side`'s sends, of `raw`: the frame it acks first and
    /// the round trip.
    fn ack(&mut self, side: usize, raw: u64, time: Duration) -> Option<(u64, Duration)> {
        let near = self.sequences[side].highest?;
        let seq = self.unwrap(raw, near);
        let (frame, sent) = self.sends[side].waiting.remove(&seq)?;
        Some((frame, time.saturating_sub(sent)))
    }

    fn ping(
        &mut self,
        side: usize,
        ping: Ping,
        frame: u64,
        time: Duration,
    ) -> Option<(u64, Duration)> {
        if ping.reply {
            let (f, sent) = self.pings[1 - side].remove(&ping.id)?;
            return Some((f, time.saturating_sub(sent)));
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

#[cfg(test)]
#[path = "analysis_tests.rs"]
mod tests;
