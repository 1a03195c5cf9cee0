//! `wirecat proxy`: a relay between a game's clients and its server that impairs the traffic as
//! a bad network would — loss, delay with jitter, duplication, reordering, a rate limit,
//! corruption — per direction, each scoped by a condition on the decoded message and changed
//! over time by a scenario file. Reproducible (a seed; one generator per direction), it logs
//! every fault it made and can record what it received and what it sent as pcap files.
//!
//! - [`condition`]: the conditions (`type == ReqLogin and flags.RELIABLE`);
//! - [`impair`]: rules, scenario files, and a datagram's fate;
//! - [`udp`]: the UDP relay; [`tcp`]: the TCP relay (delay and rate only);
//! - [`record`]: the pcap files and the fault log.

pub mod condition;
pub mod impair;
pub mod record;
pub mod tcp;
pub mod udp;

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use wiregen_runtime::SerdeProtocol;

use impair::{Impairments, Rule, Rules, Way};

/// What a proxy does: where it listens and relays to, its rules, and what it writes down.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub server: SocketAddr,
    pub rules: Rules,
    pub seed: u64,
    /// pcap files of the datagrams received and sent (between the client's and the server's
    /// addresses).
    pub received: Option<PathBuf>,
    pub sent: Option<PathBuf>,
    /// The fault log (NDJSON; `-` for standard output).
    pub log: Option<PathBuf>,
    /// Clients relayed for at once; past it the least recently seen one is forgotten.
    pub max_clients: usize,
    /// The longest a datagram waits for the rate limit; past it, it is dropped (`queue_full`).
    pub queue: Duration,
    /// The longest a datagram is held to be reordered when nothing comes after it.
    pub hold: Duration,
    /// Stop after this long, or once this many datagrams came and all have left.
    pub stop_after: Option<Duration>,
    pub max_datagrams: Option<u64>,
}

impl Config {
    /// A proxy from `listen` to `server` that changes nothing.
    pub fn new(listen: SocketAddr, server: SocketAddr) -> Config {
        Config {
            listen,
            server,
            rules: Rules::default(),
            seed: 0,
            received: None,
            sent: None,
            log: None,
            max_clients: 4096,
            queue: Duration::from_secs(1),
            hold: Duration::from_millis(200),
            stop_after: None,
            max_datagrams: None,
        }
    }
}

/// What one direction saw and did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct WayCount {
    pub received: u64,
    pub received_bytes: u64,
    pub sent: u64,
    pub sent_bytes: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub reordered: u64,
    pub corrupted: u64,
    pub delayed: u64,
    /// Dropped because the rate limit's queue was full.
    pub queue_full: u64,
    /// Forwarded although the protocol could not decode it.
    pub undecodable: u64,
}

/// What a proxy did, for its summary.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Summary {
    /// To the server, to the clients.
    pub ways: [WayCount; 2],
    pub clients: u64,
    pub evicted: u64,
    /// Datagrams still waiting when it stopped, or whose client was forgotten first.
    pub unsent_at_stop: u64,
    pub unsent_evicted: u64,
    /// Datagrams held to be reordered that nothing came after (sent alone).
    pub holds_alone: u64,
    pub socket_errors: u64,
    pub capture_errors: u64,
}

impl Summary {
    /// The summary as a table (what Ctrl-C prints).
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<10} {:>9} {:>11} {:>9} {:>11} {:>7} {:>6} {:>8} {:>8} {:>8} {:>6} {:>11}",
            "direction",
            "received",
            "bytes",
            "sent",
            "bytes",
            "lost",
            "dup",
            "reorder",
            "corrupt",
            "delayed",
            "queue",
            "undecodable"
        );
        for (way, c) in [Way::ToServer, Way::ToClient].iter().zip(&self.ways) {
            let _ = writeln!(
                t,
                "{:<10} {:>9} {:>11} {:>9} {:>11} {:>7} {:>6} {:>8} {:>8} {:>8} {:>6} {:>11}",
                way.name(),
                c.received,
                c.received_bytes,
                c.sent,
                c.sent_bytes,
                c.lost,
                c.duplicated,
                c.reordered,
                c.corrupted,
                c.delayed,
                c.queue_full,
                c.undecodable
            );
        }
        let _ = writeln!(
            t,
            "{} clients ({} forgotten past the limit); unsent at stop {}, of forgotten clients {}; \
             holds with nothing to swap {}; socket errors {}; capture write errors {}",
            self.clients, self.evicted, self.unsent_at_stop, self.unsent_evicted, self.holds_alone,
            self.socket_errors, self.capture_errors
        );
        t
    }
}

/// A datagram decoded in its conversation: its JSON (none when it does not decode) and its
/// message type as `wirecat stats` names it.
pub(crate) fn describe<P: SerdeProtocol>(
    state: &mut P::Conversation,
    way: Way,
    bytes: &[u8],
) -> (Option<Value>, String) {
    let Ok(d) = P::decode_datagram(state, way == Way::ToServer, bytes) else {
        return (None, String::new());
    };
    let Ok(value) = P::serialize_datagram(&d, serde_json::value::Serializer) else {
        return (None, String::new());
    };
    let ty = crate::message_type::message_type(&value);
    (Some(value), ty)
}

/// The command line's impairments (one rule; the scenario's come after it).
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct ProxyArgs {
    /// Where clients send (the address the game's client is given).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// The game's server.
    #[arg(long, value_name = "ADDR")]
    server: SocketAddr,
    /// Relay TCP connections instead of UDP datagrams (delay, jitter and rate only).
    #[arg(long)]
    tcp: bool,
    /// Datagrams lost, in percent.
    #[arg(long, value_name = "PERCENT")]
    loss: Option<String>,
    /// Delay (80, 80ms, 1s).
    #[arg(long, value_name = "TIME")]
    delay: Option<String>,
    /// The delay varies by up to this much either way (order is kept: see --reorder).
    #[arg(long, value_name = "TIME")]
    jitter: Option<String>,
    /// Datagrams sent twice, in percent.
    #[arg(long, value_name = "PERCENT")]
    duplicate: Option<String>,
    /// Datagrams held back until the conversation's next one of their direction has gone, in
    /// percent.
    #[arg(long, value_name = "PERCENT")]
    reorder: Option<String>,
    /// Datagrams with one bit flipped, in percent (to test the game's own decoder).
    #[arg(long, value_name = "PERCENT")]
    corrupt: Option<String>,
    /// The link's rate per direction (bytes per second, or 64kbit, 1mbit, 20kB).
    #[arg(long, value_name = "RATE")]
    rate: Option<String>,
    /// Impair only datagrams going this way: to_server, to_client (default both).
    #[arg(long, value_name = "WAY")]
    direction: Option<String>,
    /// Impair only messages meeting this condition (`type == ReqLogin`, `flags.RELIABLE`).
    #[arg(long, value_name = "CONDITION")]
    when: Option<String>,
    /// A scenario file (YAML): rules changing over time.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// The generator's seed (default: the scenario's, else 0).
    #[arg(long)]
    seed: Option<u64>,
    /// The fault log (NDJSON), a file or `-`.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Writes the datagrams received as a pcap file.
    #[arg(long, value_name = "FILE")]
    pcap_in: Option<PathBuf>,
    /// Writes the datagrams sent as a pcap file.
    #[arg(long, value_name = "FILE")]
    pcap_out: Option<PathBuf>,
    /// Clients relayed for at once (past it the least recently seen is forgotten).
    #[arg(long, default_value_t = 4096)]
    max_clients: usize,
    /// Stop after this long (e.g. 60s).
    #[arg(long, value_name = "TIME")]
    duration: Option<String>,
    /// Stop once this many datagrams came and all have left.
    #[arg(long, value_name = "N")]
    count: Option<u64>,
}

impl ProxyArgs {
    /// The configuration these arguments say (the scenario file read).
    fn config(&self) -> Result<Config, String> {
        use impair::{duration, percent, rate};
        let p = |s: &Option<String>| s.as_deref().map(percent).transpose();
        let d = |s: &Option<String>| s.as_deref().map(duration).transpose();
        let way = impair::direction(self.direction.as_deref()).map_err(|e| format!("--{e}"))?;
        let rule = Rule {
            way,
            when: self
                .when
                .as_deref()
                .map(|w| w.parse().map_err(|e| format!("--when: {e}")))
                .transpose()?,
            from: Duration::ZERO,
            until: None,
            set: Impairments {
                loss: p(&self.loss)?,
                duplicate: p(&self.duplicate)?,
                reorder: p(&self.reorder)?,
                corrupt: p(&self.corrupt)?,
                delay: d(&self.delay)?,
                jitter: d(&self.jitter)?,
                rate: self.rate.as_deref().map(rate).transpose()?,
            },
        };
        let mut config = Config::new(self.listen, self.server);
        config.rules.rules.push(rule);
        if let Some(path) = &self.scenario {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let (seed, rules) =
                impair::scenario(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            config.seed = seed.unwrap_or(0);
            config.rules.rules.extend(rules);
        }
        if let Some(seed) = self.seed {
            config.seed = seed;
        }
        config.log.clone_from(&self.log);
        config.received.clone_from(&self.pcap_in);
        config.sent.clone_from(&self.pcap_out);
        config.max_clients = self.max_clients.max(1);
        config.stop_after = d(&self.duration)?;
        config.max_datagrams = self.count;
        Ok(config)
    }
}

/// Runs the proxy the arguments say until Ctrl-C (or its time or count); prints the summary.
pub(crate) fn proxy<P: SerdeProtocol>(args: &ProxyArgs) -> Result<Summary, String> {
    let config = args.config()?;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&stop);
    // A second Ctrl-C while stopping is ignored: the summary is printed once the files close.
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    let summary = if args.tcp {
        let relay = tcp::Relay::bind(config)?;
        eprintln!(
            "wirecat: relaying TCP {} -> {} (Ctrl-C stops)",
            relay.local_addr(),
            args.server
        );
        relay.run(&stop)?
    } else {
        let relay = udp::Relay::<P>::bind(config)?;
        eprintln!(
            "wirecat: relaying {} UDP {} -> {} (Ctrl-C stops)",
            P::NAME,
            relay.local_addr(),
            args.server
        );
        relay.run(&stop)?
    };
    eprint!("{}", summary.table());
    Ok(summary)
}
