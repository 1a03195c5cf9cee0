//! The netcode lab's walkthrough (docs/netcode-lab.md): the R-Type game session of
//! tests/captures/rtype.pcap (its game conversation, port 9000) played at its recorded pace by a
//! client and a server on loopback, through `wirecat proxy` at 5% loss and 80 ms ± 20 ms each
//! way. Writes `received.pcap`, `sent.pcap` and `faults.ndjson` into the directory given.
//!
//! ```text
//! cargo run -p wirecat --example lab_rtype -- /tmp/lab [seed]
//! ```

use std::net::UdpSocket;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use wirecat::proxy::impair::{Impairments, Rule};
use wirecat::proxy::{udp, Config};
use wirecat::session::Ports;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "lab".into()));
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let capture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/captures/rtype.pcap");
    let file = std::fs::File::open(capture).map_err(|e| e.to_string())?;
    let packets = wirecat::capture::packets(Box::new(file) as Box<dyn std::io::Read>)?;
    let ports = Ports {
        udp: vec![9000],
        tcp: vec![],
    };
    let session = wirecat::replay::conversation::<rtype_impl::Protocol>(packets, &ports, None)?;
    // The server on the game's port, on an address of its own.
    let server = UdpSocket::bind("127.0.0.7:9000").map_err(|e| e.to_string())?;
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), server.local_addr().unwrap());
    config.seed = seed;
    config.rules.rules.push(Rule {
        set: Impairments {
            loss: Some(0.05),
            delay: Some(Duration::from_millis(80)),
            jitter: Some(Duration::from_millis(20)),
            ..Default::default()
        },
        ..Default::default()
    });
    config.received = Some(dir.join("received.pcap"));
    config.sent = Some(dir.join("sent.pcap"));
    config.log = Some(dir.join("faults.ndjson"));
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let (tx, rx) = std::sync::mpsc::channel();
    let relay = std::thread::spawn(move || {
        let relay = udp::Relay::<rtype_impl::Protocol>::bind(config)?;
        let _ = tx.send(relay.local_addr());
        relay.run(&flag)
    });
    let listen = rx.recv().map_err(|e| e.to_string())?;
    let (c, s) = wirecat::replay::play_both_sides(
        &session,
        listen,
        &server,
        1.0,
        Duration::from_millis(500),
    )
    .map_err(|e| e.to_string())?;
    stop.store(true, Ordering::Relaxed);
    let summary = relay.join().map_err(|_| "the relay panicked")??;
    println!("played {c} client and {s} server datagrams of the recorded session");
    print!("{}", summary.table());
    Ok(())
}
