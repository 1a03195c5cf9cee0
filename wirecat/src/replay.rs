//! `wirecat replay`: sends the client's side of a recorded conversation to a live server, at the
//! recorded pace or faster, and compares the server's answers with the recorded ones field by
//! field.
//!
//! What the schema says is per session is rewritten: the client's acks name the live server's
//! numbers (learnt from its answers: the k-th answer's sequence number stands for the recorded
//! k-th answer's), and every derived field (lengths, checksums) is filled anew by encoding the
//! changed datagram. An answer is compared with its numbering put back as recorded, so a server
//! numbering from elsewhere is not a difference. Answers are matched by order (loopback or a
//! lab network: a reordering network makes differences of its own).

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use serde_json::Value;
use wiregen_runtime::analysis::Numbering;
use wiregen_runtime::SerdeProtocol;

use crate::session::{Event, Key, Ports};

/// One datagram of the recorded conversation.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub frame: u64,
    pub time: Duration,
    pub from_client: bool,
    pub bytes: Vec<u8>,
}

/// The UDP conversation of a capture between `client` (default: the conversation with most
/// datagrams) and the server's ports.
pub fn conversation<P: SerdeProtocol>(
    packets: crate::capture::Packets<Box<dyn std::io::Read>>,
    ports: &Ports,
    client: Option<SocketAddr>,
) -> Result<Vec<Recorded>, String> {
    let mut all: Vec<(Key, Recorded)> = Vec::new();
    crate::reading::each_event::<P, _>(
        packets,
        ports,
        || {},
        |_, event| {
            if let Event::Message(m) = event {
                if !m.key.tcp {
                    all.push((
                        m.key,
                        Recorded {
                            frame: m.frame,
                            time: m.time,
                            from_client: m.from_client,
                            bytes: m.bytes,
                        },
                    ));
                }
            }
            Ok(())
        },
    )?;
    let mut counts: HashMap<Key, usize> = HashMap::new();
    for (k, _) in &all {
        *counts.entry(*k).or_default() += 1;
    }
    let key = match client {
        Some(c) => counts
            .keys()
            .copied()
            .find(|k| k.client == c)
            .ok_or_else(|| format!("no UDP conversation of client {c} in the capture"))?,
        None => counts
            .iter()
            .max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k)))
            .map(|(k, _)| *k)
            .ok_or("no UDP conversation of the protocol in the capture")?,
    };
    Ok(all
        .into_iter()
        .filter(|(k, _)| *k == key)
        .map(|(_, r)| r)
        .collect())
}

/// Plays both sides of a recorded conversation on this machine: a client socket sends the
/// client's datagrams to `via` (a proxy in front of `server`), and `server` answers whoever
/// relays for that client (before it has heard from the client it waits, up to `linger`; then
/// it cannot answer and the datagram is not sent). Each datagram leaves at its recorded time
/// scaled by `speed` (0: 1 ms apart), or later when the server had to wait;
/// what comes back is read and dropped, until `linger` after the last. Gives the datagrams
/// sent by the client and by the server.
pub fn play_both_sides(
    recorded: &[Recorded],
    via: SocketAddr,
    server: &UdpSocket,
    speed: f64,
    linger: Duration,
) -> std::io::Result<(usize, usize)> {
    server.set_nonblocking(true)?;
    let client = UdpSocket::bind(if via.is_ipv4() {
        "127.0.0.1:0"
    } else {
        "[::1]:0"
    })?;
    client.set_nonblocking(true)?;
    let mut upstream = None;
    let mut buf = vec![0u8; 65_536];
    let mut drain = |upstream: &mut Option<SocketAddr>| {
        while let Ok((_, from)) = server.recv_from(&mut buf) {
            *upstream = Some(from);
        }
        while client.recv_from(&mut buf).is_ok() {}
    };
    let (mut from_client, mut from_server) = (0, 0);
    let start = Instant::now();
    let first = recorded.first().map_or(Duration::ZERO, |r| r.time);
    for r in recorded {
        let due = if speed > 0.0 {
            r.time.saturating_sub(first).div_f64(speed)
        } else {
            start.elapsed() + Duration::from_millis(1)
        };
        // Waiting, the answers are read as they come.
        while start.elapsed() < due {
            drain(&mut upstream);
            std::thread::sleep(Duration::from_micros(200).min(due.saturating_sub(start.elapsed())));
        }
        drain(&mut upstream);
        let heard_by = Instant::now() + linger;
        while !r.from_client && upstream.is_none() && Instant::now() < heard_by {
            std::thread::sleep(Duration::from_millis(1));
            drain(&mut upstream);
        }
        if r.from_client {
            client.send_to(&r.bytes, via)?;
            from_client += 1;
        } else if let Some(u) = upstream {
            server.send_to(&r.bytes, u)?;
            from_server += 1;
        }
    }
    let end = Instant::now() + linger;
    while Instant::now() < end {
        drain(&mut upstream);
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok((from_client, from_server))
}

/// How a replay runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub server: SocketAddr,
    /// 1.0: the recorded pace; 2.0 twice as fast; 0: as fast as the answers come.
    pub speed: f64,
    /// How long to wait for each answer.
    pub timeout: Duration,
    /// Fields not compared: a name (`tick`) or a path (`payload.SEntityState.tick`).
    pub ignore: Vec<String>,
}

/// Where the live server's answer first differs from the recorded one.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// The recorded answer's frame, and which answer it is (from 1).
    pub frame: u64,
    pub answer: usize,
    /// The field's path in the answer's JSON (`` for the whole answer).
    pub field: String,
    pub recorded: Value,
    pub live: Value,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "answer {} (recorded frame {}): {}: recorded {}, live {}",
            self.answer,
            self.frame,
            if self.field.is_empty() {
                "the answer"
            } else {
                &self.field
            },
            self.recorded,
            self.live
        )
    }
}

/// What a replay did.
#[derive(Debug, Default, Clone)]
pub struct Report {
    pub sent: usize,
    /// Client datagrams whose numbers were rewritten.
    pub rewritten: usize,
    pub answers: usize,
    pub difference: Option<Difference>,
}

/// The numbering of one side's datagrams: recorded number → live number, per channel.
type Renumbering = HashMap<(u8, u64), u64>;

/// Replays `recorded` (one conversation) against `options.server`.
pub fn replay<P: SerdeProtocol>(
    recorded: &[Recorded],
    options: &Options,
) -> Result<Report, String> {
    let socket = UdpSocket::bind(if options.server.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    })
    .map_err(|e| e.to_string())?;
    socket
        .connect(options.server)
        .map_err(|e| format!("{}: {e}", options.server))?;
    let mut report = Report::default();
    // The recorded conversation's state (to decode it as it was) and the live one's.
    let mut recorded_state = P::Conversation::default();
    let mut live_state = P::Conversation::default();
    let mut server_numbers: Renumbering = HashMap::new();
    let start = Instant::now();
    let first = recorded.first().map_or(Duration::ZERO, |r| r.time);
    let mut buf = vec![0u8; 65_536];
    for r in recorded {
        if r.from_client {
            if options.speed > 0.0 {
                let due = (r.time.saturating_sub(first)).div_f64(options.speed);
                std::thread::sleep(due.saturating_sub(start.elapsed()));
            }
            let (bytes, changed) = rewrite::<P>(&mut recorded_state, r, &server_numbers)?;
            report.rewritten += usize::from(changed);
            socket
                .send(&bytes)
                .map_err(|e| format!("sending frame {}: {e}", r.frame))?;
            report.sent += 1;
            continue;
        }
        report.answers += 1;
        let answer = report.answers;
        let differ = |field: &str, recorded: Value, live: Value| Difference {
            frame: r.frame,
            answer,
            field: field.to_string(),
            recorded,
            live,
        };
        let want = decoded::<P>(&mut recorded_state, false, &r.bytes);
        socket
            .set_read_timeout(Some(options.timeout))
            .map_err(|e| e.to_string())?;
        let got = match socket.recv(&mut buf) {
            Ok(n) => buf[..n].to_vec(),
            Err(_) => {
                let none = format!("no answer within {:?}", options.timeout);
                report.difference = Some(differ("", want.json.unwrap_or(Value::Null), none.into()));
                return Ok(report);
            }
        };
        let live = match P::decode_datagram(&mut live_state, false, &got) {
            Ok(mut d) => {
                // The live numbers are learnt, and put back as recorded for the comparison.
                let mut recorded_numbers = want.sequences.clone().into_iter();
                P::renumber(&mut d, &mut |n, live| match n {
                    Numbering::Sequence { channel } => match recorded_numbers.next() {
                        Some(rec) => {
                            server_numbers.insert((channel, rec), live);
                            rec
                        }
                        None => live,
                    },
                    Numbering::Ack { .. } => live,
                });
                P::serialize_datagram(&d, serde_json::value::Serializer)
                    .map_err(|e| e.to_string())?
            }
            Err(e) => Value::String(format!("does not decode: {e}")),
        };
        let Some(want_json) = want.json else {
            continue;
        };
        if let Some((path, a, b)) = first_difference(&want_json, &live, "", &options.ignore) {
            report.difference = Some(differ(&path, a, b));
            return Ok(report);
        }
    }
    Ok(report)
}

/// A recorded datagram decoded: its JSON and its own sequence numbers, in the order
/// `renumber` visits them.
struct Decoded {
    json: Option<Value>,
    sequences: Vec<u64>,
}

fn decoded<P: SerdeProtocol>(
    state: &mut P::Conversation,
    from_client: bool,
    bytes: &[u8],
) -> Decoded {
    let Ok(mut d) = P::decode_datagram(state, from_client, bytes) else {
        return Decoded {
            json: None,
            sequences: Vec::new(),
        };
    };
    let mut sequences = Vec::new();
    P::renumber(&mut d, &mut |n, v| {
        if matches!(n, Numbering::Sequence { .. }) {
            sequences.push(v);
        }
        v
    });
    Decoded {
        json: P::serialize_datagram(&d, serde_json::value::Serializer).ok(),
        sequences,
    }
}

/// The client datagram to send: its acks of the server's numbers made the live ones, encoded
/// anew when one changed (lengths and checksums filled again); as recorded otherwise, or when
/// it does not decode.
fn rewrite<P: SerdeProtocol>(
    state: &mut P::Conversation,
    r: &Recorded,
    server_numbers: &Renumbering,
) -> Result<(Vec<u8>, bool), String> {
    let Ok(mut d) = P::decode_datagram(state, true, &r.bytes) else {
        return Ok((r.bytes.clone(), false));
    };
    let mut changed = false;
    P::renumber(&mut d, &mut |n, v| match n {
        Numbering::Ack { channel } => match server_numbers.get(&(channel, v)) {
            Some(&live) => {
                changed |= live != v;
                live
            }
            None => v,
        },
        Numbering::Sequence { .. } => v,
    });
    if !changed {
        return Ok((r.bytes.clone(), false));
    }
    P::encode_datagram(true, &d)
        .map(|b| (b, true))
        .map_err(|e| {
            format!(
                "frame {}: its acks rewritten, it does not encode: {e}",
                r.frame
            )
        })
}

/// The first field (depth first, in order) where `a` and `b` differ, outside the ignored ones:
/// its path and both values.
pub fn first_difference(
    a: &Value,
    b: &Value,
    path: &str,
    ignore: &[String],
) -> Option<(String, Value, Value)> {
    let name = path.rsplit('.').next().unwrap_or(path);
    if !path.is_empty() && ignore.iter().any(|i| i == path || i == name) {
        return None;
    }
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if x.keys().eq(y.keys()) => x
            .iter()
            .find_map(|(k, v)| first_difference(v, &y[k], &join(k), ignore)),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, &join(&i.to_string()), ignore)),
        _ if a == b => None,
        _ => Some((path.to_string(), a.clone(), b.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_names_its_field_and_both_values() {
        let a = json!({"seq": 3, "payload": {"ResLogin": {"success": 1, "player_id": 0}}});
        let b = json!({"seq": 3, "payload": {"ResLogin": {"success": 1, "player_id": 7}}});
        assert_eq!(
            first_difference(&a, &b, "", &[]),
            Some(("payload.ResLogin.player_id".into(), json!(0), json!(7)))
        );
        assert_eq!(first_difference(&a, &b, "", &["player_id".into()]), None);
        let c = json!({"seq": 3, "payload": {"ResLobbyList": {}}});
        assert_eq!(first_difference(&a, &c, "", &[]).unwrap().0, "payload");
    }
}

/// `wirecat replay`'s arguments.
#[derive(clap::Args)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    capture: crate::input::CaptureArgs,
    /// The live server.
    #[arg(long, value_name = "ADDR")]
    server: SocketAddr,
    /// The recorded client whose conversation is replayed (default: the busiest).
    #[arg(long, value_name = "ADDR")]
    client: Option<SocketAddr>,
    /// 1: the recorded pace; 2: twice as fast; 0: as fast as the answers come.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// How long to wait for each answer (e.g. 2s, 500ms).
    #[arg(long, default_value = "2s")]
    timeout: String,
    /// A field not compared: its name or its path (repeat, or separate with commas).
    #[arg(long, value_name = "FIELD", value_delimiter = ',')]
    ignore: Vec<String>,
}

/// Runs `wirecat replay`: prints what it did, and the first difference (exit status 1).
pub(crate) fn run<P: SerdeProtocol>(a: &ReplayArgs) -> Result<bool, String> {
    let ports = crate::input::ports::<P>(&a.capture.ports)?;
    let (packets, _progress) = crate::input::open(&a.capture.capture)?;
    let recorded = conversation::<P>(packets, &ports, a.client)?;
    let options = Options {
        server: a.server,
        speed: a.speed.max(0.0),
        timeout: crate::proxy::impair::duration(&a.timeout)?,
        ignore: a.ignore.clone(),
    };
    let report = replay::<P>(&recorded, &options)?;
    eprintln!(
        "wirecat: replayed {} of the client's datagrams ({} with acks rewritten), {} answers compared",
        report.sent, report.rewritten, report.answers
    );
    match &report.difference {
        Some(d) => {
            println!("difference: {d}");
            Ok(false)
        }
        None => {
            println!("same: every answer as recorded");
            Ok(true)
        }
    }
}
