//! `read`'s JSON lines, serialized straight from the decoded values into the output, without
//! building a `serde_json::Value` tree for every message.

use std::fmt::Display;
use std::io::Write;

use serde::ser::{SerializeMap, Serializer};
use wiregen_runtime::{SerdeProtocol, Tagged};

use crate::json::{read_message, AsJson, HowFar, Joined, Read};
use crate::session::{Conversations, Key, Message};

/// A value serialized as the text `Display` gives (an address), without a `String` between.
struct Text<T: Display>(T);

impl<T: Display> serde::Serialize for Text<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// An address as text: IPv4 written digit by digit into a buffer on the stack (every line has
/// two; `Display` through the formatting machinery took a tenth of `read`'s time), IPv6
/// through `Display`.
struct Address(std::net::SocketAddr);

impl serde::Serialize for Address {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let std::net::SocketAddr::V4(v4) = self.0 else {
            return s.collect_str(&self.0);
        };
        let mut text = [0u8; 21];
        let mut at = 0;
        for (i, octet) in v4.ip().octets().into_iter().enumerate() {
            if i > 0 {
                text[at] = b'.';
                at += 1;
            }
            at += decimal(octet.into(), &mut text[at..]);
        }
        text[at] = b':';
        at += 1;
        at += decimal(v4.port().into(), &mut text[at..]);
        // Digits, dots and a colon: ASCII.
        s.serialize_str(std::str::from_utf8(&text[..at]).unwrap_or_default())
    }
}

/// Writes `n` in decimal at the start of `out` (room for five digits); returns its length.
fn decimal(n: u32, out: &mut [u8]) -> usize {
    let mut digits = [0u8; 5];
    let mut len = 0;
    let mut n = n;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 || len == digits.len() {
            break;
        }
    }
    for (i, d) in digits[..len].iter().rev().enumerate() {
        out[i] = *d;
    }
    len
}

/// Bytes as lower-case hex pairs separated by spaces (`crate::to_hex`), written as they go.
struct Hex<'b>(&'b [u8]);

impl Display for Hex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The frame, direction and endpoints every line starts with.
fn head<M: SerializeMap>(
    map: &mut M,
    frame: u64,
    from_client: bool,
    key: &Key,
) -> Result<(), M::Error> {
    let (src, dst) = key.endpoints(from_client);
    map.serialize_entry("frame", &frame)?;
    map.serialize_entry("from", if from_client { "client" } else { "server" })?;
    map.serialize_entry("src", &Address(src))?;
    map.serialize_entry("dst", &Address(dst))?;
    if key.tcp {
        map.serialize_entry("transport", "tcp")?;
    }
    Ok(())
}

/// One message's line.
struct MessageLine<'m, 'r, P: SerdeProtocol> {
    m: &'m Message,
    read: &'r Read<'m, P>,
}

impl<P: SerdeProtocol> serde::Serialize for MessageLine<'_, '_, P> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.m;
        let mut map = s.serialize_map(None)?;
        head(&mut map, m.frame, m.from_client, &m.key)?;
        if m.first_frame != m.frame {
            map.serialize_entry("first_frame", &m.first_frame)?;
        }
        match self.read {
            Read::NotDecoded(e) => {
                map.serialize_entry("error", e)?;
                map.serialize_entry("bytes", &Text(Hex(&m.bytes)))?;
            }
            Read::Decoded { value, joined } => {
                map.serialize_entry("value", &AsJson::<P>(value))?;
                match joined {
                    Ok(completed) => {
                        // The first payload the datagram completes; any more in `also_joined`.
                        if let Some((first, frames)) = completed.first() {
                            map.serialize_entry("joined", &Joined::<P>(first))?;
                            map.serialize_entry("joined_from", frames)?;
                        }
                        if completed.len() > 1 {
                            map.serialize_entry("also_joined", &AlsoJoined::<P>(&completed[1..]))?;
                        }
                    }
                    Err(e) => map.serialize_entry("error", e)?,
                }
            }
        }
        map.end()
    }
}

/// The payloads a datagram completes after its first: `[{ joined, joined_from }, …]`.
struct AlsoJoined<'j, P: SerdeProtocol>(&'j [Tagged<P::Joined>]);

impl<P: SerdeProtocol> serde::Serialize for AlsoJoined<'_, P> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.0
                .iter()
                .map(|(joined, frames)| OneJoined::<P> { joined, frames }),
        )
    }
}

struct OneJoined<'j, P: SerdeProtocol> {
    joined: &'j P::Joined,
    frames: &'j [u64],
}

impl<P: SerdeProtocol> serde::Serialize for OneJoined<'_, P> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("joined", &Joined::<P>(self.joined))?;
        map.serialize_entry("joined_from", self.frames)?;
        map.end()
    }
}

/// Decodes `m` in its conversation, joins the piece it carries, and writes its line to `out`.
pub(crate) fn write_message<P: SerdeProtocol>(
    conversations: &mut Conversations<P>,
    m: &Message,
    out: &mut impl Write,
) -> Result<HowFar, String> {
    let read = read_message(conversations, m);
    write(out, &MessageLine { m, read: &read })?;
    Ok(read.how_far())
}

/// A TCP stream's note as a line: `{ frame, from, src, dst, transport, note }`.
pub(crate) fn write_note(
    frame: u64,
    from_client: bool,
    key: &Key,
    note: &impl Display,
    out: &mut impl Write,
) -> Result<(), String> {
    struct NoteLine<'k, N: Display> {
        frame: u64,
        from_client: bool,
        key: &'k Key,
        note: &'k N,
    }
    impl<N: Display> serde::Serialize for NoteLine<'_, N> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(None)?;
            head(&mut map, self.frame, self.from_client, self.key)?;
            map.serialize_entry("note", &Text(self.note))?;
            map.end()
        }
    }
    let line = NoteLine {
        frame,
        from_client,
        key,
        note,
    };
    write(out, &line)
}

fn write(out: &mut impl Write, line: &impl serde::Serialize) -> Result<(), String> {
    serde_json::to_writer(&mut *out, line).map_err(|e| e.to_string())?;
    out.write_all(b"\n").map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn addresses_are_written_as_display_writes_them() {
        for text in [
            "127.0.0.1:8080",
            "0.0.0.0:0",
            "255.255.255.255:65535",
            "10.2.30.4:9",
            "[::1]:443",
        ] {
            let addr: std::net::SocketAddr = text.parse().unwrap();
            let json = serde_json::to_string(&super::Address(addr)).unwrap();
            assert_eq!(json, format!("\"{addr}\""));
        }
    }
}
