//! A capture's packets read as one protocol: told apart by port, grouped into conversations
//! (client endpoint, server endpoint, transport) whose state each message's decoding keeps. A
//! UDP datagram is one message; a TCP connection's bytes are put in order and cut into the
//! protocol's framed messages ([`crate::stream`]). Conversations are kept up to a limit: past
//! it the least recently used one is forgotten, and counted.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::Duration;

use wiregen_runtime::tcp::Framing;
use wiregen_runtime::Protocol;

use crate::capture::{Packet, Transport};
use crate::stream::{self, Piece, Stream};

/// A conversation: its two endpoints, and whether it is a TCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub client: SocketAddr,
    pub server: SocketAddr,
    pub tcp: bool,
}

impl Key {
    /// (source, destination) of a packet of this conversation sent by the client or not.
    pub fn endpoints(&self, from_client: bool) -> (SocketAddr, SocketAddr) {
        if from_client {
            (self.client, self.server)
        } else {
            (self.server, self.client)
        }
    }
}

/// The server's ports, per transport.
#[derive(Debug, Clone, Default)]
pub struct Ports {
    pub udp: Vec<u16>,
    pub tcp: Vec<u16>,
}

/// A packet of the protocol: which side sent it, and the conversation it belongs to.
pub struct Placed {
    pub packet: Packet,
    pub from_client: bool,
    pub key: Key,
}

/// `p` placed in its conversation when it goes to or comes from one of the server's ports of
/// its transport; else it is given back.
pub fn place(p: Packet, ports: &Ports) -> Result<Placed, Packet> {
    let (tcp, ports) = match p.transport {
        Transport::Udp => (false, &ports.udp),
        Transport::Tcp(_) => (true, &ports.tcp),
    };
    let (from_client, client, server) = if ports.contains(&p.dst.port()) {
        (true, p.src, p.dst)
    } else if ports.contains(&p.src.port()) {
        (false, p.dst, p.src)
    } else {
        return Err(p);
    };
    Ok(Placed {
        key: Key {
            client,
            server,
            tcp,
        },
        packet: p,
        from_client,
    })
}

/// One message of the protocol: a UDP datagram, or a framed message of a TCP stream.
#[derive(Debug, Clone)]
pub struct Message {
    /// The frame its first byte came in (TCP: a message may span segments).
    pub first_frame: u64,
    /// The frame that completed it.
    pub frame: u64,
    /// When that frame was captured.
    pub time: Duration,
    pub from_client: bool,
    pub key: Key,
    pub bytes: Vec<u8>,
}

/// What reading a packet gave.
#[derive(Debug, Clone)]
pub enum Event {
    Message(Message),
    /// Something a TCP stream's reading found (see [`stream::Note`]).
    Note {
        frame: u64,
        from_client: bool,
        key: Key,
        note: stream::Note,
    },
}

/// How many conversations are kept at once by default.
pub const CONVERSATIONS: usize = 1 << 16;

/// The most bytes all TCP streams hold at once (each also has its own bounds, see
/// [`crate::stream`]); past it the least recently used conversations are forgotten.
pub const TCP_BYTES: usize = 64 << 20;

/// What one conversation keeps: the protocol's state, the pieces of payloads being joined, and
/// each direction's TCP stream.
struct Conversation<P: Protocol> {
    state: P::Conversation,
    /// A second copy of the state, for reading messages field by field ([`Conversations::notes`])
    /// besides decoding them.
    notes_state: P::Conversation,
    joins: P::Joins,
    /// From the client, from the server.
    streams: [Stream; 2],
    /// When it was last used (its key in `recency`).
    used: u64,
    /// When its last packet was captured.
    last_time: Duration,
    /// The netcode analysis of its datagrams (`stats`).
    analyzer: wiregen_runtime::analysis::Analyzer,
}

impl<P: Protocol> Conversation<P> {
    /// A new conversation whose analysis keeps `window` places, sends and pings.
    fn new(window: usize) -> Self {
        Conversation {
            state: P::Conversation::default(),
            notes_state: P::Conversation::default(),
            joins: P::Joins::default(),
            streams: Default::default(),
            used: 0,
            last_time: Duration::ZERO,
            analyzer: wiregen_runtime::analysis::Analyzer::with_window(P::CHANNEL_WRAPS, window),
        }
    }
}

/// Every conversation's state, created on its first packet; at most `limit` of them.
pub struct Conversations<P: Protocol> {
    states: HashMap<Key, Conversation<P>>,
    /// The conversations by when they were last used.
    recency: BTreeMap<u64, Key>,
    clock: u64,
    limit: usize,
    evicted: u64,
    /// Bytes every TCP stream holds, together, and the most they may.
    tcp_bytes: usize,
    tcp_limit: usize,
    pieces: Vec<Piece>,
    /// Places, sends and pings each new conversation's analysis keeps per channel and direction.
    analysis_window: usize,
}

impl<P: Protocol> Default for Conversations<P> {
    fn default() -> Self {
        Self::with_limit(CONVERSATIONS)
    }
}

impl<P: Protocol> Conversations<P> {
    /// Keeps at most `limit` conversations (at least one).
    pub fn with_limit(limit: usize) -> Self {
        Self::with_limits(limit, TCP_BYTES)
    }

    /// Keeps at most `limit` conversations (at least one), their TCP streams holding at most
    /// `tcp_bytes` together.
    pub fn with_limits(limit: usize, tcp_bytes: usize) -> Self {
        Conversations {
            tcp_limit: tcp_bytes,
            states: HashMap::new(),
            recency: BTreeMap::new(),
            clock: 0,
            limit: limit.max(1),
            evicted: 0,
            tcp_bytes: 0,
            pieces: Vec::new(),
            analysis_window: wiregen_runtime::analysis::WINDOW,
        }
    }

    /// The analysis of every conversation keeps `window` places, sends and pings per channel and
    /// direction (at least one; [`wiregen_runtime::analysis::WINDOW`] by default), as the
    /// dissector's `<proto>.analysis_window` preference sets its own.
    pub fn with_analysis_window(mut self, window: usize) -> Self {
        self.analysis_window = window.max(1);
        self
    }

    /// How many conversations were forgotten to stay within the limit (their later messages
    /// were read without their earlier state).
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// The conversation `key`, made the most recently used (created when new).
    fn touch(&mut self, key: Key) -> &mut Conversation<P> {
        self.clock += 1;
        let window = self.analysis_window;
        let conversation = self
            .states
            .entry(key)
            .or_insert_with(|| Conversation::new(window));
        if conversation.used != 0 {
            self.recency.remove(&conversation.used);
        }
        conversation.used = self.clock;
        self.recency.insert(self.clock, key);
        conversation
    }

    /// Reads one packet of the protocol: a UDP datagram is a message; a TCP segment gives the
    /// messages it completes, and notes. Appends them to `out`.
    pub fn push(&mut self, placed: Placed, out: &mut Vec<Event>) {
        let Placed {
            packet,
            from_client,
            key,
        } = placed;
        if !self.states.contains_key(&key) && self.states.len() >= self.limit {
            self.forget_oldest(out);
        }
        let Transport::Tcp(tcp) = packet.transport else {
            out.push(Event::Message(Message {
                first_frame: packet.frame,
                frame: packet.frame,
                time: packet.time,
                from_client,
                key,
                bytes: packet.payload,
            }));
            return;
        };
        let framing = Self::framing();
        let mut pieces = std::mem::take(&mut self.pieces);
        let conversation = self.touch(key);
        conversation.last_time = packet.time;
        let stream = &mut conversation.streams[usize::from(!from_client)];
        let before = stream.buffered();
        stream.push(&framing, packet.frame, tcp, &packet.payload, &mut pieces);
        let after = stream.buffered();
        self.tcp_bytes = self.tcp_bytes + after - before;
        Self::events(pieces.drain(..), packet.time, from_client, key, out);
        self.pieces = pieces;
        // Every stream is bounded; so is what all of them hold together.
        while self.tcp_bytes > self.tcp_limit && self.states.len() > 1 {
            self.forget_oldest(out);
        }
    }

    /// Forgets the least recently used conversation (counted); what its TCP streams held
    /// unread is said, as at their end.
    fn forget_oldest(&mut self, out: &mut Vec<Event>) {
        let Some((_, oldest)) = self.recency.pop_first() else {
            return;
        };
        let Some(mut conversation) = self.states.remove(&oldest) else {
            return;
        };
        self.evicted += 1;
        let framing = Self::framing();
        let mut pieces = Vec::new();
        for (i, stream) in conversation.streams.iter_mut().enumerate() {
            self.tcp_bytes -= stream.buffered();
            stream.end(&framing, &mut pieces);
            // Messages after a gap are read as at the end; the conversation's state is gone, so
            // they are decoded without it.
            Self::events(
                pieces.drain(..),
                conversation.last_time,
                i == 0,
                oldest,
                out,
            );
        }
    }

    /// The end of the capture: what every TCP stream left unread is said (conversations are
    /// kept, so a capture read in parts goes on).
    pub fn finish(&mut self, out: &mut Vec<Event>) {
        let framing = Self::framing();
        let mut pieces = Vec::new();
        let mut keys: Vec<(u64, Key)> = self.states.iter().map(|(k, c)| (c.used, *k)).collect();
        keys.sort_by_key(|(used, _)| *used);
        for (_, key) in keys {
            let Some(conversation) = self.states.get_mut(&key) else {
                continue;
            };
            let time = conversation.last_time;
            for (i, stream) in conversation.streams.iter_mut().enumerate() {
                stream.end(&framing, &mut pieces);
                Self::events(pieces.drain(..), time, i == 0, key, out);
            }
        }
    }

    /// The protocol's TCP framing (placed TCP packets come only from a protocol that has one).
    fn framing() -> Framing {
        P::TCP_FRAMING.unwrap_or(Framing::new(4, false, false, 0))
    }

    fn events(
        pieces: impl Iterator<Item = Piece>,
        time: Duration,
        from_client: bool,
        key: Key,
        out: &mut Vec<Event>,
    ) {
        out.extend(pieces.map(|piece| match piece {
            Piece::Message {
                first_frame,
                frame,
                bytes,
            } => Event::Message(Message {
                first_frame,
                frame,
                time,
                from_client,
                key,
                bytes,
            }),
            Piece::Note { frame, note } => Event::Note {
                frame,
                from_client,
                key,
                note,
            },
        }));
    }

    /// Decodes a message in its conversation.
    pub fn decode<'a>(
        &mut self,
        message: &'a Message,
    ) -> Result<P::Datagram<'a>, wiregen_runtime::DecodeError> {
        let state = &mut self.touch(message.key).state;
        P::decode_datagram(state, message.from_client, &message.bytes)
    }

    /// A message's fields as the dissector shows them (offsets from its first byte), read with
    /// what the conversation's earlier messages announced (its own copy of the state, so it may
    /// be called besides [`Conversations::decode`]), up to any error.
    pub fn notes<'a>(&mut self, message: &'a Message) -> Vec<wiregen_runtime::FieldNote<'a>> {
        let c = self.touch(message.key);
        P::datagram_notes_in(&mut c.notes_state, message.from_client, &message.bytes).1
    }

    /// The netcode analysis of a decoded message, in its conversation: what it says of the
    /// schema's sequence numbers, acks and pings (see [`wiregen_runtime::analysis`]).
    pub fn analyze(
        &mut self,
        message: &Message,
        datagram: &P::Datagram<'_>,
    ) -> wiregen_runtime::analysis::Verdict {
        let facts = P::facts(datagram);
        let c = self.touch(message.key);
        c.analyzer
            .observe(message.frame, message.time, message.from_client, &facts)
    }

    /// Joins the pieces a decoded message carries (see [`Protocol::join`]): the payloads they
    /// complete, each with the frames its pieces came in.
    pub fn join(
        &mut self,
        message: &Message,
        datagram: &P::Datagram<'_>,
    ) -> Result<Vec<wiregen_runtime::Tagged<P::Joined>>, wiregen_runtime::DecodeError> {
        let c = self.touch(message.key);
        P::join(
            &mut c.state,
            &mut c.joins,
            message.from_client,
            datagram,
            message.frame,
        )
    }
}

/// What `check` found in one datagram that does not round-trip.
#[derive(Debug)]
pub struct Failure {
    pub frame: u64,
    pub problem: String,
}

/// Decodes a message of the protocol (in its conversation), encodes it back and joins the
/// piece it carries: what does not round-trip, or completes a payload that does not decode.
pub fn check<P: Protocol>(conversations: &mut Conversations<P>, m: &Message) -> Option<Failure> {
    let bytes = &m.bytes;
    let problem = match conversations.decode(m) {
        Err(e) => Some(format!("does not decode: {e}")),
        Ok(value) => match P::encode_datagram(m.from_client, &value) {
            Err(e) => Some(format!("decodes, but does not encode back: {e}")),
            Ok(again) if &again != bytes => Some(first_difference(bytes, &again)),
            Ok(_) => conversations
                .join(m, &value)
                .err()
                .map(|e| format!("decodes, but the payload it completes does not: {e}")),
        },
    }?;
    Some(Failure {
        frame: m.frame,
        problem: format!("{problem}\n    bytes: {}", crate::to_hex(bytes)),
    })
}

fn first_difference(was: &[u8], again: &[u8]) -> String {
    let at = was
        .iter()
        .zip(again)
        .position(|(a, b)| a != b)
        .unwrap_or(was.len().min(again.len()));
    format!(
        "encodes back differently from byte {at} ({} bytes, re-encoded {}): re-encoded {}",
        was.len(),
        again.len(),
        crate::to_hex(again)
    )
}

#[cfg(all(test, feature = "repository"))]
mod tests {
    use super::*;

    fn datagram(client_port: u16) -> Placed {
        let client: SocketAddr = format!("10.0.0.1:{client_port}").parse().unwrap();
        let server: SocketAddr = "10.0.0.2:8080".parse().unwrap();
        let p = Packet {
            frame: 1,
            time: Duration::ZERO,
            src: client,
            dst: server,
            transport: Transport::Udp,
            payload: vec![0xCE, 0xD1],
        };
        let ports = Ports {
            udp: vec![8080],
            tcp: vec![],
        };
        place(p, &ports).ok().unwrap()
    }

    #[test]
    fn past_the_limit_the_least_recently_used_conversation_is_forgotten_and_counted() {
        let mut conversations = Conversations::<rtype::Protocol>::with_limit(2);
        let mut out = Vec::new();
        let mut read = |conversations: &mut Conversations<_>, port| {
            conversations.push(datagram(port), &mut out);
            let Some(Event::Message(m)) = out.pop() else {
                panic!("a datagram is a message")
            };
            let _ = conversations.decode(&m);
            m.key
        };
        let a = read(&mut conversations, 1000);
        let b = read(&mut conversations, 1001);
        read(&mut conversations, 1000);
        assert_eq!(conversations.evicted(), 0);
        // b is the least recently used: c takes its place.
        read(&mut conversations, 1002);
        assert_eq!(conversations.evicted(), 1);
        assert!(conversations.states.contains_key(&a));
        assert!(!conversations.states.contains_key(&b));
        read(&mut conversations, 1001);
        assert_eq!(conversations.evicted(), 2);
        assert_eq!(conversations.states.len(), 2);
        assert_eq!(conversations.recency.len(), 2);
    }

    #[test]
    fn past_the_tcp_byte_limit_the_least_recently_used_stream_is_forgotten_and_said() {
        let mut conversations = Conversations::<riptide_2_1::Protocol>::with_limits(16, 1000);
        let ports = Ports {
            udp: vec![],
            tcp: vec![7777],
        };
        let mut out = Vec::new();
        // Two connections, each 600 bytes into a message of 2000 (a 4-byte length prefix).
        for (frame, port) in [(1, 50001), (2, 50002)] {
            let mut payload = 2000i32.to_le_bytes().to_vec();
            payload.resize(600, 0);
            let p = Packet {
                frame,
                time: Duration::ZERO,
                src: format!("10.0.0.1:{port}").parse().unwrap(),
                dst: "10.0.0.2:7777".parse().unwrap(),
                transport: Transport::Tcp(crate::capture::Tcp {
                    seq: 1,
                    syn: false,
                    fin: false,
                    rst: false,
                }),
                payload,
            };
            conversations.push(place(p, &ports).ok().unwrap(), &mut out);
        }
        assert_eq!(conversations.evicted(), 1);
        assert_eq!(conversations.tcp_bytes, 600);
        let [Event::Note {
            frame, note, key, ..
        }] = &out[..]
        else {
            panic!("{out:?}")
        };
        assert_eq!(*note, stream::Note::Unfinished { bytes: 600 });
        assert_eq!((*frame, key.client.port()), (1, 50001));
    }
}
