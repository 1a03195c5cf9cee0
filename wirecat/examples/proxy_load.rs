//! The proxy's throughput and memory on loopback: a client sends R-Type packets (the login of
//! tests/captures/rtype.pcap, frame 1) as fast as the relay takes them, a server answers each,
//! and the relay passes both ways — without a condition (nothing decoded), with one (every
//! datagram decoded to be matched), and for a long session. Not a test: run it with
//!
//! ```text
//! cargo run --release -p wirecat --example proxy_load [datagrams]
//! ```

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wirecat::proxy::impair::{Impairments, Rule};
use wirecat::proxy::{udp, Config};

/// R-Type's ReqLogin (tests/captures/rtype.pcap, frame 1).
const LOGIN: &str = "ced101010100000000000000000000000c00c0ab05616c69636501000000ec03";

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Relays `n` datagrams each way (a window of 64 in flight); gives datagrams per second
/// relayed (both ways).
fn run(n: u64, when: Option<&str>, bytes: &[u8]) -> f64 {
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    let server_addr = server.local_addr().unwrap();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), server_addr);
    config.rules.rules.push(Rule {
        when: when.map(|w| w.parse().unwrap()),
        set: Impairments {
            loss: Some(0.0),
            ..Default::default()
        },
        ..Default::default()
    });
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let (tx, rx) = std::sync::mpsc::channel();
    let relay = std::thread::spawn(move || {
        let relay = udp::Relay::<rtype_impl::Protocol>::bind(config).unwrap();
        tx.send(relay.local_addr()).unwrap();
        relay.run(&flag).unwrap()
    });
    let listen = rx.recv().unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        server
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        while let Ok((len, from)) = server.recv_from(&mut buf) {
            let _ = server.send_to(&buf[..len], from);
        }
    });
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 2048];
    let start = Instant::now();
    let (mut sent, mut back) = (0u64, 0u64);
    while back < n {
        while sent < n && sent - back < 64 {
            client.send_to(bytes, listen).unwrap();
            sent += 1;
        }
        match client.recv_from(&mut buf) {
            Ok(_) => back += 1,
            // A datagram the kernel dropped: send on.
            Err(_) => back = sent,
        }
    }
    let rate = 2.0 * back as f64 / start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let summary = relay.join().unwrap();
    assert_eq!(summary.ways[0].undecodable, 0);
    rate
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let bytes: Vec<u8> = wirecat::parse_hex(LOGIN).unwrap();
    assert!(wiregen_runtime::Codec::decode(&bytes[..])
        .map(|_: rtype_impl::Packet| ())
        .is_ok());
    for (name, when) in [
        ("no condition", None),
        (
            "condition `type == ReqLogin and flags.RELIABLE`",
            Some("type == ReqLogin and flags.RELIABLE"),
        ),
    ] {
        let rate = run(n, when, &bytes);
        println!("{name}: {rate:.0} datagrams/s relayed ({n} each way)");
    }
    let before = peak_rss_kib();
    let rate = run(n * 10, Some("flags.RELIABLE"), &bytes);
    println!(
        "long session, {} datagrams each way with a condition: {rate:.0} datagrams/s; peak RSS {} KiB (after the short runs: {before} KiB)",
        n * 10,
        peak_rss_kib()
    );
}
