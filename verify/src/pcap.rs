//! Captures written for tshark: Ethernet + IPv4 frames around UDP datagrams or TCP segments,
//! in a classic pcap file.

use std::path::Path;

/// A UDP datagram between two loopback hosts.
#[derive(Debug, Clone)]
pub struct Datagram {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload: Vec<u8>,
}

/// Bytes of Ethernet + IPv4 + UDP headers before each payload in the pcaps written here.
pub const HEADERS: usize = 14 + 20 + 8;

/// A TCP segment from the client (127.0.0.1) to the server (127.0.0.2); sequence numbers follow
/// on from the previous segment of the same direction.
#[derive(Debug, Clone)]
pub struct Segment {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload: Vec<u8>,
}

/// Writes a pcap of TCP segments (one connection per port pair, no handshake needed by tshark).
pub fn write_tcp_pcap(path: &Path, segments: &[Segment]) -> std::io::Result<()> {
    let mut next_seq: std::collections::HashMap<(u16, u16), u32> = std::collections::HashMap::new();
    let packets: Vec<TcpPacket> = segments
        .iter()
        .map(|s| {
            let seq = next_seq.entry((s.src_port, s.dst_port)).or_insert(0);
            let packet = TcpPacket {
                src_port: s.src_port,
                dst_port: s.dst_port,
                seq: *seq,
                fin: false,
                payload: s.payload.clone(),
            };
            *seq += s.payload.len() as u32;
            packet
        })
        .collect();
    write_tcp_packets(path, &packets)
}

/// A TCP segment placed by hand: its sequence number (relative to the direction's first byte),
/// and whether it ends the sender's side of the connection (FIN). Segments written out of
/// sequence order make an out-of-order capture.
#[derive(Debug, Clone)]
pub struct TcpPacket {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub fin: bool,
    pub payload: Vec<u8>,
}

/// Writes a pcap of TCP segments exactly as given (sequence numbers, FIN flags, order).
pub fn write_tcp_packets(path: &Path, packets: &[TcpPacket]) -> std::io::Result<()> {
    let frames: Vec<(u8, bool, Vec<u8>)> = packets
        .iter()
        .map(|s| {
            let mut t = Vec::with_capacity(20 + s.payload.len());
            t.extend_from_slice(&s.src_port.to_be_bytes());
            t.extend_from_slice(&s.dst_port.to_be_bytes());
            t.extend_from_slice(&(1000 + s.seq).to_be_bytes());
            t.extend_from_slice(&1u32.to_be_bytes());
            // PSH + ACK, and FIN when the sender closes.
            let flags = 0x18 | u8::from(s.fin);
            t.extend_from_slice(&[5 << 4, flags, 0xff, 0xff, 0, 0, 0, 0]);
            t.extend_from_slice(&s.payload);
            (6, s.src_port < s.dst_port, t)
        })
        .collect();
    // 100 µs apart, as on loopback: a late segment is then out of order to Wireshark's TCP
    // analysis, not a retransmission.
    write_frames(path, &frames, 100)
}

/// Writes a classic little-endian pcap (Ethernet link type) holding `datagrams`, one per frame.
pub fn write_pcap(path: &Path, datagrams: &[Datagram]) -> std::io::Result<()> {
    let frames: Vec<(u8, bool, Vec<u8>)> = datagrams
        .iter()
        .map(|d| {
            let mut u = Vec::with_capacity(8 + d.payload.len());
            u.extend_from_slice(&d.src_port.to_be_bytes());
            u.extend_from_slice(&d.dst_port.to_be_bytes());
            u.extend_from_slice(&((8 + d.payload.len()) as u16).to_be_bytes());
            u.extend_from_slice(&[0, 0]);
            u.extend_from_slice(&d.payload);
            (17, d.src_port < d.dst_port, u)
        })
        .collect();
    write_frames(path, &frames, 1_000_000)
}

/// Ethernet + IPv4 frames around transport segments (protocol number, whether the sender is the
/// server, bytes), `spacing_us` microseconds apart. The server (the endpoint with the lower port in
/// these tests) is 127.0.0.2.
fn write_frames(
    path: &Path,
    transport: &[(u8, bool, Vec<u8>)],
    spacing_us: u64,
) -> std::io::Result<()> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&262144u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    for (i, (protocol, from_server, segment)) in transport.iter().enumerate() {
        let mut frame = Vec::with_capacity(34 + segment.len());
        frame.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00]);
        let mut ip = vec![0x45, 0];
        ip.extend_from_slice(&((20 + segment.len()) as u16).to_be_bytes());
        let (src, dst) = if *from_server { (2, 1) } else { (1, 2) };
        ip.extend_from_slice(&[
            0, 0, 0x40, 0, 64, *protocol, 0, 0, 127, 0, 0, src, 127, 0, 0, dst,
        ]);
        let sum = ip
            .chunks(2)
            .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
            .sum::<u32>();
        let sum = !(((sum & 0xffff) + (sum >> 16)) as u16);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        frame.extend_from_slice(&ip);
        frame.extend_from_slice(segment);
        let at = i as u64 * spacing_us;
        out.extend_from_slice(&((at / 1_000_000) as u32).to_le_bytes());
        out.extend_from_slice(&((at % 1_000_000) as u32).to_le_bytes());
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&frame);
    }
    std::fs::write(path, out)
}
