//! A stand-in server: answers one client as a recorded conversation's server did, numbering
//! its datagrams from elsewhere (as a live server would), and says whether each client
//! datagram it got was the recorded one once its acks are put back. What `wirecat replay` is
//! proven against; a client's developer can test against a capture the same way.

use std::collections::HashSet;
use std::net::UdpSocket;
use std::time::Duration;

use wiregen_runtime::analysis::Numbering;
use wiregen_runtime::SerdeProtocol;

use crate::replay::Recorded;

/// What the stand-in saw of its client.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// Client datagrams that were the recorded ones (acks put back), and those that were not.
    pub same: usize,
    pub other: usize,
    pub answers: usize,
    /// Datagrams that repeated the one before (a network's duplicate): not taken for the next.
    pub repeats: usize,
}

/// Serves `recorded` once on `socket`: each client datagram is awaited (up to `timeout`; past
/// it the stand-in stops), each recorded answer sent with its own numbers moved on by
/// `offset` (modulo the channel's wrap) — the answer numbered `change` (from 1) replaced by the
/// next recorded answer, a server that answers otherwise.
pub fn serve_recorded<P: SerdeProtocol>(
    socket: &UdpSocket,
    recorded: &[Recorded],
    offset: u64,
    change: Option<usize>,
    timeout: Duration,
) -> Served {
    let _ = socket.set_read_timeout(Some(timeout));
    let mut peer = None;
    let (mut recorded_state, mut live_state) =
        (P::Conversation::default(), P::Conversation::default());
    let mut served = Served::default();
    let mut sent = HashSet::new();
    let mut buf = vec![0u8; 65_536];
    let mut last: Vec<u8> = Vec::new();
    let mut last_recorded: &[u8] = &[];
    for (i, r) in recorded.iter().enumerate() {
        if r.from_client {
            // The recording's own repeat (a retransmission) is awaited; any other is the
            // network's.
            let repeat_awaited = r.bytes == last_recorded;
            last_recorded = &r.bytes;
            let n = loop {
                let Ok((n, from)) = socket.recv_from(&mut buf) else {
                    return served;
                };
                peer = Some(from);
                if repeat_awaited || buf[..n] != last[..] {
                    break n;
                }
                served.repeats += 1;
            };
            last = buf[..n].to_vec();
            let _ = P::decode_datagram(&mut recorded_state, true, &r.bytes);
            if as_recorded::<P>(&mut live_state, &buf[..n], offset, &sent) == r.bytes {
                served.same += 1;
            } else {
                served.other += 1;
            }
            continue;
        }
        served.answers += 1;
        let mut bytes = renumbered::<P>(&mut recorded_state, &r.bytes, offset, &mut sent);
        if change == Some(served.answers) {
            if let Some(next) = recorded[i + 1..].iter().find(|n| !n.from_client) {
                bytes = next.bytes.clone();
            }
        }
        if let Some(peer) = peer {
            let _ = socket.send_to(&bytes, peer);
            // A burst larger than the client's socket buffer would lose answers.
            std::thread::sleep(Duration::from_micros(100));
        }
    }
    served
}

/// A recorded answer as the stand-in sends it: its own numbers moved on by `offset` (noted in
/// `sent`), lengths and checksums filled anew.
fn renumbered<P: SerdeProtocol>(
    state: &mut P::Conversation,
    bytes: &[u8],
    offset: u64,
    sent: &mut HashSet<(u8, u64)>,
) -> Vec<u8> {
    let Ok(mut d) = P::decode_datagram(state, false, bytes) else {
        return bytes.to_vec();
    };
    P::renumber(&mut d, &mut |n, v| match n {
        Numbering::Sequence { channel } => {
            let live = (v + offset) % P::CHANNEL_WRAPS[usize::from(channel)];
            sent.insert((channel, live));
            live
        }
        Numbering::Ack { .. } => v,
    });
    P::encode_datagram(false, &d).unwrap_or_else(|_| bytes.to_vec())
}

/// A client datagram as recorded: its acks of numbers the stand-in sent put back (an ack of
/// nothing yet, say 0, stays).
fn as_recorded<P: SerdeProtocol>(
    state: &mut P::Conversation,
    bytes: &[u8],
    offset: u64,
    sent: &HashSet<(u8, u64)>,
) -> Vec<u8> {
    let Ok(mut d) = P::decode_datagram(state, true, bytes) else {
        return bytes.to_vec();
    };
    P::renumber(&mut d, &mut |n, v| match n {
        Numbering::Ack { channel } if sent.contains(&(channel, v)) => {
            let wrap = P::CHANNEL_WRAPS[usize::from(channel)];
            (v + wrap - offset % wrap) % wrap
        }
        _ => v,
    });
    P::encode_datagram(true, &d).unwrap_or_else(|_| bytes.to_vec())
}

/// `wirecat serve`'s arguments.
#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    capture: crate::input::CaptureArgs,
    /// Where to answer.
    #[arg(long, value_name = "ADDR")]
    listen: std::net::SocketAddr,
    /// The recorded client whose conversation is served (default: the busiest).
    #[arg(long, value_name = "ADDR")]
    client: Option<std::net::SocketAddr>,
    /// Numbers the answers this much further on than recorded (as a live server would).
    #[arg(long, default_value_t = 0)]
    renumber: u64,
    /// Sends the next recorded answer in place of this one (from 1): a changed server.
    #[arg(long, value_name = "N")]
    change_answer: Option<usize>,
    /// How long to wait for each client datagram (e.g. 10s).
    #[arg(long, default_value = "10s")]
    timeout: String,
}

/// Runs `wirecat serve`: answers one client, then says what it got.
pub(crate) fn run<P: SerdeProtocol>(a: &ServeArgs) -> Result<bool, String> {
    let ports = crate::input::ports::<P>(&a.capture.ports)?;
    let (packets, _progress) = crate::input::open(&a.capture.capture)?;
    let recorded = crate::replay::conversation::<P>(packets, &ports, a.client)?;
    let timeout = crate::proxy::impair::duration(&a.timeout)?;
    let socket = UdpSocket::bind(a.listen).map_err(|e| format!("{}: {e}", a.listen))?;
    eprintln!(
        "wirecat: answering one client on {} as the recorded server did",
        socket.local_addr().map_err(|e| e.to_string())?
    );
    let served = serve_recorded::<P>(&socket, &recorded, a.renumber, a.change_answer, timeout);
    let clients = recorded.iter().filter(|r| r.from_client).count();
    println!(
        "served: {} of {} client datagrams as recorded, {} not ({} repeats of the one before \
         left out), {} answers sent",
        served.same, clients, served.other, served.repeats, served.answers
    );
    Ok(served.same == clients && served.other == 0)
}
