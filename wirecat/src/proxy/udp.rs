//! The UDP relay: one socket where clients send, and for each client address a socket of its
//! own towards the server (as a NAT does), so the server sees one peer per client. A datagram's
//! fate is drawn when it arrives; what is not lost waits in one queue ordered by when it leaves.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use serde_json::json;
use wiregen_runtime::SerdeProtocol;

use super::impair::{Dice, Fate, Way};
use super::record::{Log, PcapOut};
use super::{Config, Summary};

const LISTEN: Token = Token(0);

/// A client the proxy relays for.
struct Client<P: SerdeProtocol> {
    upstream: UdpSocket,
    token: Token,
    last_seen: Instant,
    /// The conversation's state, to decode its messages (conditions, the log).
    state: P::Conversation,
    /// Per direction: when its last datagram leaves (datagrams keep their order), and the
    /// datagram held back to be reordered.
    last_leaves: [Instant; 2],
    held: [Option<Held>; 2],
}

/// A datagram held back until the conversation's next one of its direction has gone.
struct Held {
    copies: Vec<Pending>,
    until: Instant,
}

/// A datagram (or a copy) waiting to leave.
struct Pending {
    at: Instant,
    order: u64,
    way: Way,
    client: SocketAddr,
    bytes: Vec<u8>,
    /// Its frame in the received capture, its number among its direction's datagrams, and
    /// its message type.
    frame: u64,
    nth: u64,
    message: String,
    /// What was done to it, logged as it leaves.
    delay: Duration,
    copy: bool,
    flipped: Vec<usize>,
    reordered_after: Option<u64>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.order) == (other.at, other.order)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.order).cmp(&(other.at, other.order))
    }
}

/// A bound UDP proxy, ready to run.
pub struct Relay<P: SerdeProtocol> {
    config: Config,
    poll: Poll,
    listen: UdpSocket,
    clients: HashMap<SocketAddr, Client<P>>,
    tokens: HashMap<Token, SocketAddr>,
    next_token: usize,
    queue: BinaryHeap<Reverse<Pending>>,
    /// The holds (until when, client, direction), soonest first: found without a walk over
    /// every client.
    holds: BTreeSet<(Instant, SocketAddr, usize)>,
    order: u64,
    dice: [Dice; 2],
    /// When the link of each direction is free again (the rate limit).
    link_free: [Instant; 2],
    start: Instant,
    received: Option<PcapOut>,
    sent: Option<PcapOut>,
    received_frames: u64,
    sent_frames: u64,
    log: Option<Log>,
    summary: Summary,
    /// The last original sent: its received frame and its sent frame. A copy leaves right
    /// after its original (same time, the next place in the queue), so this is what it repeats.
    last_original: Option<(u64, u64)>,
}

impl<P: SerdeProtocol> Relay<P> {
    /// Binds the listening socket and opens the files the configuration names.
    pub fn bind(config: Config) -> Result<Self, String> {
        let poll = Poll::new().map_err(|e| e.to_string())?;
        let mut listen =
            UdpSocket::bind(config.listen).map_err(|e| format!("{}: {e}", config.listen))?;
        poll.registry()
            .register(&mut listen, LISTEN, Interest::READABLE)
            .map_err(|e| e.to_string())?;
        let open = |p: &Option<std::path::PathBuf>| p.as_deref().map(PcapOut::create).transpose();
        let now = Instant::now();
        Ok(Relay {
            received: open(&config.received)?,
            sent: open(&config.sent)?,
            log: config.log.as_deref().map(Log::create).transpose()?,
            dice: [
                Dice::new(config.seed, Way::ToServer),
                Dice::new(config.seed, Way::ToClient),
            ],
            config,
            poll,
            listen,
            clients: HashMap::new(),
            tokens: HashMap::new(),
            next_token: 1,
            queue: BinaryHeap::new(),
            holds: BTreeSet::new(),
            order: 0,
            link_free: [now; 2],
            start: now,
            received_frames: 0,
            sent_frames: 0,
            summary: Summary::default(),
            last_original: None,
        })
    }

    /// Where clients send.
    pub fn local_addr(&self) -> SocketAddr {
        self.listen.local_addr().unwrap_or(self.config.listen)
    }

    /// Relays until `stop` is set (or the configuration's time or count is reached); gives what
    /// it did.
    pub fn run(mut self, stop: &AtomicBool) -> Result<Summary, String> {
        let mut events = Events::with_capacity(256);
        let mut buf = vec![0u8; 65_536];
        self.start = Instant::now();
        while !stop.load(Ordering::Relaxed) && !self.finished() {
            let timeout = self.next_wake().saturating_duration_since(Instant::now());
            match self.poll.poll(&mut events, Some(timeout)) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.to_string()),
            }
            for event in &events {
                self.drain(event.token(), &mut buf);
            }
            self.release_due();
        }
        self.summary.unsent_at_stop = self.queue.len() as u64
            + self
                .clients
                .values()
                .flat_map(|c| c.held.iter().flatten())
                .map(|h| h.copies.len() as u64)
                .sum::<u64>();
        if let Some(log) = &mut self.log {
            log.flush();
        }
        for pcap in [self.received.take(), self.sent.take()]
            .into_iter()
            .flatten()
        {
            pcap.finish().map_err(|e| e.to_string())?;
        }
        Ok(self.summary)
    }

    fn finished(&self) -> bool {
        let counted = self
            .config
            .max_datagrams
            .is_some_and(|n| self.received_frames >= n && self.queue.is_empty());
        counted
            || self
                .config
                .stop_after
                .is_some_and(|d| self.start.elapsed() >= d)
    }

    /// When the loop must wake at the latest: the next datagram to leave, a hold to end, or a
    /// look at the stop flag.
    fn next_wake(&self) -> Instant {
        let mut wake = Instant::now() + Duration::from_millis(50);
        if let Some(Reverse(p)) = self.queue.peek() {
            wake = wake.min(p.at);
        }
        if let Some((until, ..)) = self.holds.first() {
            wake = wake.min(*until);
        }
        wake
    }

    /// Reads every datagram waiting on the socket of `token`.
    fn drain(&mut self, token: Token, buf: &mut [u8]) {
        loop {
            let got = if token == LISTEN {
                self.listen
                    .recv_from(buf)
                    .map(|(n, from)| (n, from, Way::ToServer))
            } else {
                let Some(&client) = self.tokens.get(&token) else {
                    return;
                };
                let Some(c) = self.clients.get(&client) else {
                    return;
                };
                c.upstream
                    .recv_from(buf)
                    .map(|(n, _)| (n, client, Way::ToClient))
            };
            match got {
                Ok((n, client, way)) => self.arrive(way, client, &buf[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                // An ICMP error of an earlier send (the server or a client gone): counted.
                Err(_) => self.summary.socket_errors += 1,
            }
        }
    }

    /// A client's entry, created (with its upstream socket) on its first datagram; past the
    /// limit the least recently seen client is forgotten, and said.
    fn client(&mut self, addr: SocketAddr) -> Option<&mut Client<P>> {
        if !self.clients.contains_key(&addr) {
            if self.clients.len() >= self.config.max_clients {
                self.evict_oldest();
            }
            let any: SocketAddr = if self.config.server.is_ipv4() {
                "0.0.0.0:0".parse().ok()?
            } else {
                "[::]:0".parse().ok()?
            };
            let mut upstream = UdpSocket::bind(any).ok()?;
            let token = Token(self.next_token);
            self.next_token += 1;
            self.poll
                .registry()
                .register(&mut upstream, token, Interest::READABLE)
                .ok()?;
            self.tokens.insert(token, addr);
            let now = Instant::now();
            self.clients.insert(
                addr,
                Client {
                    upstream,
                    token,
                    last_seen: now,
                    state: Default::default(),
                    last_leaves: [now; 2],
                    held: [None, None],
                },
            );
            self.summary.clients += 1;
        }
        self.clients.get_mut(&addr)
    }

    fn evict_oldest(&mut self) {
        let Some((&addr, _)) = self.clients.iter().min_by_key(|(_, c)| c.last_seen) else {
            return;
        };
        if let Some(mut c) = self.clients.remove(&addr) {
            let _ = self.poll.registry().deregister(&mut c.upstream);
            self.tokens.remove(&c.token);
            for (w, h) in c.held.iter().enumerate() {
                if let Some(h) = h {
                    self.holds.remove(&(h.until, addr, w));
                    self.summary.unsent_evicted += h.copies.len() as u64;
                }
            }
        }
        self.summary.evicted += 1;
        let time = self.start.elapsed().as_secs_f64();
        if let Some(log) = &mut self.log {
            log.line(
                &json!({ "time": time, "client": addr.to_string(), "event": "evicted",
                "why": format!("more than {} clients at once", self.config.max_clients) }),
            );
        }
    }

    /// A datagram arrived: recorded, decoded when something reads it, its fate drawn.
    fn arrive(&mut self, way: Way, client: SocketAddr, bytes: &[u8]) {
        let now = Instant::now();
        let server = self.config.server;
        let (src, dst) = match way {
            Way::ToServer => (client, server),
            Way::ToClient => (server, client),
        };
        self.received_frames += 1;
        let frame = self.received_frames;
        if let Some(pcap) = &mut self.received {
            if pcap.write(src, dst, bytes).is_err() {
                self.summary.capture_errors += 1;
            }
        }
        let count = &mut self.summary.ways[way.index()];
        count.received += 1;
        count.received_bytes += bytes.len() as u64;
        let since = self.start.elapsed();
        let reads = self.config.rules.reads_messages() || self.log.is_some();
        if self.client(client).is_none() {
            self.summary.socket_errors += 1;
            return;
        }
        let rules = &self.config.rules;
        let Some(c) = self.clients.get_mut(&client) else {
            return;
        };
        c.last_seen = now;
        let decoded = reads.then(|| super::describe::<P>(&mut c.state, way, bytes));
        let imp = rules.settle(way, since, |cond| {
            decoded
                .as_ref()
                .is_some_and(|(value, ty)| value.as_ref().is_some_and(|v| cond.holds(v, ty)))
        });
        let message = match &decoded {
            Some((Some(_), ty)) => ty.clone(),
            Some((None, _)) => "(undecodable)".to_string(),
            None => String::new(),
        };
        if matches!(decoded, Some((None, _))) {
            self.summary.ways[way.index()].undecodable += 1;
        }
        let fate = self.dice[way.index()].roll(&imp, bytes.len());
        let arrival = Arrival {
            way,
            client,
            frame,
            nth: self.summary.ways[way.index()].received,
            message,
        };
        self.place(arrival, bytes, fate, imp.rate.unwrap_or(0));
    }
}

/// Who sent a datagram, and how it is known in the log: its frame in the received capture and
/// its number among its direction's datagrams (what the same seed's faults are the same of,
/// however the two directions interleave).
struct Arrival {
    way: Way,
    client: SocketAddr,
    frame: u64,
    nth: u64,
    message: String,
}

impl<P: SerdeProtocol> Relay<P> {
    /// Queues a datagram as its fate says: lost, or leaving after its delay (never before an
    /// earlier one of its conversation and direction, nor before the link is free), with its
    /// copies, its bits flipped, or held back to go after the next one.
    fn place(&mut self, a: Arrival, bytes: &[u8], fate: Fate, rate: u64) {
        let now = Instant::now();
        let w = a.way.index();
        if fate.lost {
            self.summary.ways[w].lost += 1;
            self.fault(&a, None, json!({ "fault": "loss" }));
            return;
        }
        let copies = 1 + fate.duplicates as usize;
        let Some(c) = self.clients.get_mut(&a.client) else {
            return;
        };
        let mut at = (now + fate.delay).max(c.last_leaves[w]);
        if rate > 0 {
            at = at.max(self.link_free[w]);
            if at.saturating_duration_since(now) > self.config.queue {
                self.summary.ways[w].queue_full += 1;
                self.fault(&a, None, json!({ "fault": "queue_full", "queue_ms": self.config.queue.as_secs_f64() * 1e3 }));
                return;
            }
            let busy = (bytes.len() * copies) as f64 / rate as f64;
            self.link_free[w] = at + Duration::from_secs_f64(busy);
        }
        c.last_leaves[w] = at;
        let mut data = bytes.to_vec();
        for &bit in &fate.flipped {
            data[bit / 8] ^= 0x80 >> (bit % 8);
        }
        let mut pendings: Vec<Pending> = (0..copies)
            .map(|i| Pending {
                at,
                order: 0,
                way: a.way,
                client: a.client,
                bytes: data.clone(),
                frame: a.frame,
                nth: a.nth,
                message: a.message.clone(),
                delay: at - now,
                copy: i > 0,
                flipped: fate.flipped.clone(),
                reordered_after: None,
            })
            .collect();
        if fate.reorder && c.held[w].is_none() {
            let until = now + self.config.hold;
            c.held[w] = Some(Held {
                copies: pendings,
                until,
            });
            self.holds.insert((until, a.client, w));
            return;
        }
        // The datagram held back (if any) goes right after this one.
        if let Some(held) = c.held[w].take() {
            self.holds.remove(&(held.until, a.client, w));
            pendings.extend(held.copies.into_iter().map(|mut p| {
                p.at = at;
                p.reordered_after = Some(a.frame);
                p
            }));
        }
        for mut p in pendings {
            self.order += 1;
            p.order = self.order;
            self.queue.push(Reverse(p));
        }
    }

    /// Sends every datagram whose time has come, and lets go of holds that found nothing to
    /// be reordered with.
    fn release_due(&mut self) {
        let now = Instant::now();
        while let Some(&(until, client, w)) = self.holds.first() {
            if until > now {
                break;
            }
            self.holds.pop_first();
            let held = self.clients.get_mut(&client).and_then(|c| c.held[w].take());
            let copies = held.map(|h| h.copies).unwrap_or_default();
            // Nothing came to swap with: the hold was a delay (logged as such; the seed drew a
            // reorder all the same).
            if let Some(p) = copies.first() {
                let a = Arrival {
                    way: p.way,
                    client: p.client,
                    frame: p.frame,
                    nth: p.nth,
                    message: p.message.clone(),
                };
                let ms = self.config.hold.as_secs_f64() * 1e3;
                self.fault(&a, None, json!({ "fault": "held", "ms": ms }));
            }
            for mut p in copies {
                self.order += 1;
                p.order = self.order;
                p.at = now;
                self.queue.push(Reverse(p));
            }
            self.summary.holds_alone += 1;
        }
        while self.queue.peek().is_some_and(|Reverse(p)| p.at <= now) {
            let Some(Reverse(p)) = self.queue.pop() else {
                break;
            };
            self.send(p);
        }
    }

    fn send(&mut self, p: Pending) {
        let server = self.config.server;
        let sent = match p.way {
            Way::ToServer => match self.clients.get(&p.client) {
                Some(c) => c.upstream.send_to(&p.bytes, server),
                None => {
                    self.summary.unsent_evicted += 1;
                    return;
                }
            },
            Way::ToClient => self.listen.send_to(&p.bytes, p.client),
        };
        if sent.is_err() {
            self.summary.socket_errors += 1;
            return;
        }
        let (src, dst) = match p.way {
            Way::ToServer => (p.client, server),
            Way::ToClient => (server, p.client),
        };
        self.sent_frames += 1;
        let frame = self.sent_frames;
        if let Some(pcap) = &mut self.sent {
            if pcap.write(src, dst, &p.bytes).is_err() {
                self.summary.capture_errors += 1;
            }
        }
        let w = p.way.index();
        self.summary.ways[w].sent += 1;
        self.summary.ways[w].sent_bytes += p.bytes.len() as u64;
        let a = Arrival {
            way: p.way,
            client: p.client,
            frame: p.frame,
            nth: p.nth,
            message: p.message,
        };
        if p.copy {
            self.summary.ways[w].duplicated += 1;
            let of = self
                .last_original
                .filter(|(received, _)| *received == p.frame)
                .map_or(0, |(_, sent)| sent);
            self.fault(
                &a,
                Some(frame),
                json!({ "fault": "duplicate", "copy_of": of }),
            );
        } else {
            self.last_original = Some((p.frame, frame));
            if let Some(after) = p.reordered_after {
                self.summary.ways[w].reordered += 1;
                self.fault(
                    &a,
                    Some(frame),
                    json!({ "fault": "reorder", "after": after }),
                );
            }
            if !p.flipped.is_empty() {
                self.summary.ways[w].corrupted += 1;
                self.fault(
                    &a,
                    Some(frame),
                    json!({ "fault": "corrupt", "bits": p.flipped }),
                );
            }
            if !p.delay.is_zero() {
                self.summary.ways[w].delayed += 1;
                let ms = p.delay.as_secs_f64() * 1e3;
                self.fault(
                    &a,
                    Some(frame),
                    json!({ "fault": "delay", "ms": (ms * 1000.0).round() / 1000.0 }),
                );
            }
        }
    }

    /// One line of the fault log: when, which way, which datagram (its frame in the received
    /// capture and, when it left, in the sent one), its message, and the fault.
    fn fault(&mut self, a: &Arrival, sent_frame: Option<u64>, fault: serde_json::Value) {
        let Some(log) = &mut self.log else {
            return;
        };
        let mut line = json!({
            "time": (self.start.elapsed().as_secs_f64() * 1e6).round() / 1e6,
            "direction": a.way.name(),
            "client": a.client.to_string(),
            "frame": a.frame,
            "n": a.nth,
        });
        if let Some(s) = sent_frame {
            line["sent_frame"] = s.into();
        }
        line["message"] = a.message.clone().into();
        if let (Some(o), serde_json::Value::Object(f)) = (line.as_object_mut(), fault) {
            o.extend(f);
        }
        log.line(&line);
    }
}

#[cfg(all(test, feature = "repository"))]
mod tests {
    use super::*;
    use std::net::UdpSocket as StdSocket;
    use std::sync::Arc;

    #[test]
    fn past_the_client_limit_the_least_recently_seen_is_forgotten_and_said() {
        let server = StdSocket::bind("127.0.0.1:0").unwrap();
        let dir = std::env::temp_dir().join(format!("wirecat-evict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), server.local_addr().unwrap());
        config.max_clients = 1;
        config.log = Some(dir.join("log.ndjson"));
        config.max_datagrams = Some(3);
        let relay = Relay::<rtype::Protocol>::bind(config).unwrap();
        let listen = relay.local_addr();
        let (a, b) = (
            StdSocket::bind("127.0.0.1:0").unwrap(),
            StdSocket::bind("127.0.0.1:0").unwrap(),
        );
        for (socket, bytes) in [(&a, b"one"), (&b, b"two"), (&a, b"thr")] {
            socket.send_to(bytes, listen).unwrap();
        }
        let summary = relay.run(&Arc::new(AtomicBool::new(false))).unwrap();
        assert_eq!((summary.clients, summary.evicted), (3, 2));
        // A datagram still queued for a forgotten client is not sent, and is counted.
        assert_eq!(summary.ways[0].sent + summary.unsent_evicted, 3);
        // Undecodable datagrams are forwarded, and counted.
        assert_eq!(summary.ways[0].undecodable, 3);
        let log = std::fs::read_to_string(dir.join("log.ndjson")).unwrap();
        assert_eq!(log.matches("\"event\":\"evicted\"").count(), 2, "{log}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
