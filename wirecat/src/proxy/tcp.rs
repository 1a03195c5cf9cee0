//! The TCP relay: each connection a client opens is matched by one to the server, and each
//! direction's bytes are passed on after the delay (with its jitter) and within the rate that
//! the rules say at that moment. Bytes are never lost, repeated or reordered on TCP: the rules
//! may set delay, jitter and rate only (said when the proxy starts).

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::impair::{Dice, Impairments, Way};
use super::{Config, Summary};

/// What the connections share: the generators, each direction's link, the counts.
struct Shared {
    config: Config,
    start: Instant,
    dice: [Mutex<Dice>; 2],
    link_free: [Mutex<Instant>; 2],
    summary: Mutex<Summary>,
    /// Directions still running (two per connection): at most `max_clients` connections.
    running: AtomicUsize,
}

/// A bound TCP proxy, ready to run.
pub struct Relay {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Relay {
    /// Binds the listening socket; refuses rules TCP cannot honour.
    pub fn bind(config: Config) -> Result<Relay, String> {
        for (i, rule) in config.rules.rules.iter().enumerate() {
            let s = &rule.set;
            let only = Impairments {
                delay: s.delay,
                jitter: s.jitter,
                rate: s.rate,
                ..Default::default()
            };
            if *s != only || rule.when.is_some() {
                return Err(format!(
                    "rule {}: over TCP only delay, jitter and rate apply (bytes are not lost, \
                     repeated or reordered; messages are not decoded to meet a condition)",
                    i + 1
                ));
            }
        }
        if config.received.is_some() || config.sent.is_some() {
            return Err(
                "over TCP no pcap files are written (capture the loopback with tshark)".into(),
            );
        }
        let listener =
            TcpListener::bind(config.listen).map_err(|e| format!("{}: {e}", config.listen))?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let now = Instant::now();
        Ok(Relay {
            listener,
            shared: Arc::new(Shared {
                dice: [
                    Mutex::new(Dice::new(config.seed, Way::ToServer)),
                    Mutex::new(Dice::new(config.seed, Way::ToClient)),
                ],
                config,
                start: now,
                link_free: [Mutex::new(now), Mutex::new(now)],
                summary: Mutex::new(Summary::default()),
                running: AtomicUsize::new(0),
            }),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or(self.shared.config.listen)
    }

    /// Accepts connections until `stop` (or the configured time); gives what was done.
    pub fn run(self, stop: &AtomicBool) -> Result<Summary, String> {
        let halt = Arc::new(AtomicBool::new(false));
        while !stop.load(Ordering::Relaxed)
            && self
                .shared
                .config
                .stop_after
                .is_none_or(|d| self.shared.start.elapsed() < d)
        {
            match self.listener.accept() {
                Ok((client, _)) => self.connect(client, &halt),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(_) => self.count(|s| s.socket_errors += 1),
            }
        }
        halt.store(true, Ordering::Relaxed);
        // A chunk is counted after it is written: wait for the pumps (a reader sees `halt`
        // within its 100 ms read timeout, its writer then drains what was read), so that what a
        // peer already received is in the summary. Bounded: a long delay rule does not hold
        // the summary back past two seconds.
        let deadline = Instant::now() + Duration::from_secs(2);
        while self.shared.running.load(Ordering::Relaxed) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let summary = self
            .shared
            .summary
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        Ok(summary)
    }

    fn count(&self, f: impl FnOnce(&mut Summary)) {
        if let Ok(mut s) = self.shared.summary.lock() {
            f(&mut s);
        }
    }

    /// Opens the server's side of a client's connection and starts both directions.
    fn connect(&self, client: TcpStream, halt: &Arc<AtomicBool>) {
        // Past the limit a connection is refused (closed at once), and counted.
        if self.shared.running.load(Ordering::Relaxed) / 2 >= self.shared.config.max_clients {
            self.count(|s| s.evicted += 1);
            return;
        }
        let Ok(server) = TcpStream::connect(self.shared.config.server) else {
            self.count(|s| s.socket_errors += 1);
            return;
        };
        self.count(|s| s.clients += 1);
        let _ = client.set_nonblocking(false);
        for (from, to, way) in [
            (&client, &server, Way::ToServer),
            (&server, &client, Way::ToClient),
        ] {
            let (Ok(from), Ok(to)) = (from.try_clone(), to.try_clone()) else {
                self.count(|s| s.socket_errors += 1);
                return;
            };
            self.shared.running.fetch_add(1, Ordering::Relaxed);
            pump(Arc::clone(&self.shared), from, to, way, Arc::clone(halt));
        }
    }
}

/// One direction of a connection: a thread reads, a thread writes each chunk when its delay
/// (and the rate) allow.
fn pump(
    shared: Arc<Shared>,
    mut from: TcpStream,
    mut to: TcpStream,
    way: Way,
    halt: Arc<AtomicBool>,
) {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    let _ = from.set_read_timeout(Some(Duration::from_millis(100)));
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 16 * 1024];
        while !halt.load(Ordering::Relaxed) {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                        break;
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(_) => break,
            }
        }
    });
    std::thread::spawn(move || {
        let w = way.index();
        let mut last = Instant::now();
        for (arrived, bytes) in rx {
            let since = arrived.saturating_duration_since(shared.start);
            let imp = shared.config.rules.settle(way, since, |_| false);
            let delay = match shared.dice[w].lock() {
                Ok(mut dice) => dice.roll(&imp, bytes.len()).delay,
                Err(_) => Duration::ZERO,
            };
            let mut at = (arrived + delay).max(last);
            if let (Some(rate), Ok(mut free)) =
                (imp.rate.filter(|r| *r > 0), shared.link_free[w].lock())
            {
                at = at.max(*free);
                *free = at + Duration::from_secs_f64(bytes.len() as f64 / rate as f64);
            }
            last = at;
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            let ok = to.write_all(&bytes).is_ok();
            if let Ok(mut s) = shared.summary.lock() {
                let c = &mut s.ways[w];
                c.received += 1;
                c.received_bytes += bytes.len() as u64;
                if ok {
                    c.sent += 1;
                    c.sent_bytes += bytes.len() as u64;
                    c.delayed += u64::from(!delay.is_zero());
                } else {
                    s.socket_errors += 1;
                }
            }
            if !ok {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
        shared.running.fetch_sub(1, Ordering::Relaxed);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::impair::Rule;

    #[test]
    fn bytes_pass_both_ways_after_the_delay_and_loss_is_refused() {
        let echo = TcpListener::bind("127.0.0.1:0").unwrap();
        let server = echo.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = echo.accept().unwrap();
            let mut buf = [0u8; 64];
            while let Ok(n) = s.read(&mut buf) {
                if n == 0 || s.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        });
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), server);
        config.rules.rules.push(Rule {
            set: Impairments {
                delay: Some(Duration::from_millis(50)),
                ..Default::default()
            },
            ..Default::default()
        });
        let relay = Relay::bind(config.clone()).unwrap();
        let listen = relay.local_addr();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let running = std::thread::spawn(move || relay.run(&flag).unwrap());
        let mut client = TcpStream::connect(listen).unwrap();
        let start = Instant::now();
        client.write_all(b"ping").unwrap();
        let mut back = [0u8; 4];
        client.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"ping");
        assert!(
            start.elapsed() >= Duration::from_millis(100),
            "{:?}",
            start.elapsed()
        );
        stop.store(true, Ordering::Relaxed);
        let summary = running.join().unwrap();
        assert_eq!(
            (summary.ways[0].sent_bytes, summary.ways[1].sent_bytes),
            (4, 4)
        );
        config.rules.rules[0].set.loss = Some(0.1);
        let refused = Relay::bind(config).err().unwrap();
        assert!(
            refused.starts_with("rule 1: over TCP only delay"),
            "{refused}"
        );
    }
}
