//! A capture read as one protocol from start to end: packets placed in their conversations,
//! TCP streams cut into messages, every event handed on, and a tally of what was seen (so
//! nothing is dropped silently). `read`, `check` and the tests drive captures through it.

use std::io::Read;

use wiregen_runtime::Protocol;

use crate::capture::{Packets, Transport};
use crate::session::{self, Conversations, Event, Failure, Ports};
use crate::stream::Note;

/// What a run over a capture saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Frames in the capture.
    pub frames: u64,
    /// UDP datagrams and TCP segments of the protocol (to or from the server's ports).
    pub udp: u64,
    pub tcp_segments: u64,
    /// UDP datagrams and TCP segments of other ports.
    pub udp_elsewhere: u64,
    pub tcp_elsewhere: u64,
    /// Frames neither UDP nor TCP (or unreadable: IP fragments, unknown links).
    pub other: u64,
    /// Messages read: every UDP datagram, every framed message of a TCP stream.
    pub messages: u64,
    /// TCP segments skipped as retransmitted, and put back in order.
    pub retransmissions: u64,
    pub out_of_order: u64,
    /// TCP notes where bytes went unread (gaps, lost framing, unfinished messages).
    pub unread: u64,
    /// Conversations forgotten to stay within the limit.
    pub evicted: u64,
}

/// Reads every packet of `packets` as protocol `P` (the server on `ports`), calling `each` on
/// every event in capture order (`tick` once per packet, for a progress bar).
pub fn each_event<P: Protocol, R: Read>(
    packets: Packets<R>,
    ports: &Ports,
    tick: impl FnMut(),
    each: impl FnMut(&mut Conversations<P>, Event) -> Result<(), String>,
) -> Result<Tally, String> {
    each_event_in(Conversations::default(), packets, ports, tick, each)
}

/// [`each_event`] with `conversations` made by the caller (their limits, their analysis window).
pub fn each_event_in<P: Protocol, R: Read>(
    mut conversations: Conversations<P>,
    mut packets: Packets<R>,
    ports: &Ports,
    mut tick: impl FnMut(),
    mut each: impl FnMut(&mut Conversations<P>, Event) -> Result<(), String>,
) -> Result<Tally, String> {
    let mut tally = Tally::default();
    let mut events = Vec::new();
    for packet in packets.by_ref() {
        tick();
        let packet = packet?;
        let tcp = matches!(packet.transport, Transport::Tcp(_));
        match session::place(packet, ports) {
            Ok(placed) => {
                *if tcp {
                    &mut tally.tcp_segments
                } else {
                    &mut tally.udp
                } += 1;
                conversations.push(placed, &mut events);
            }
            Err(_) => {
                *if tcp {
                    &mut tally.tcp_elsewhere
                } else {
                    &mut tally.udp_elsewhere
                } += 1
            }
        }
        for event in events.drain(..) {
            count(&mut tally, &event);
            each(&mut conversations, event)?;
        }
    }
    conversations.finish(&mut events);
    for event in events.drain(..) {
        count(&mut tally, &event);
        each(&mut conversations, event)?;
    }
    let counts = packets.counts();
    tally.frames = counts.frames;
    tally.other = counts.other;
    tally.evicted = conversations.evicted();
    Ok(tally)
}

fn count(tally: &mut Tally, event: &Event) {
    match event {
        Event::Message(_) => tally.messages += 1,
        Event::Note { note, .. } => match note {
            Note::Retransmission => tally.retransmissions += 1,
            Note::OutOfOrder => tally.out_of_order += 1,
            _ => tally.unread += 1,
        },
    }
}

/// Checks every message of a capture: it decodes (in its conversation) and encodes back to
/// its bytes. `failed` is called on each that does not, and on each TCP note where bytes went
/// unread; the result is the tally and how many failures there were.
pub fn check<P: Protocol, R: Read>(
    packets: Packets<R>,
    ports: &Ports,
    tick: impl FnMut(),
    mut failed: impl FnMut(Failure),
) -> Result<(Tally, u64), String> {
    let mut failures = 0;
    let tally = each_event::<P, R>(packets, ports, tick, |conversations, event| {
        let failure = match event {
            Event::Message(m) => session::check::<P>(conversations, &m),
            Event::Note { frame, note, .. } if note.loses_bytes() => Some(Failure {
                frame,
                problem: note.to_string(),
            }),
            Event::Note { .. } => None,
        };
        if let Some(f) = failure {
            failures += 1;
            failed(f);
        }
        Ok(())
    })?;
    Ok((tally, failures))
}
