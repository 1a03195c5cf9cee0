//! Reading captures: the UDP datagrams of a pcap or pcapng file, numbered as Wireshark numbers
//! its frames (every packet of the file counts, from 1).

use std::net::{IpAddr, SocketAddr};

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::DataLink;

/// One UDP datagram of a capture.
#[derive(Debug, Clone)]
pub struct Datagram {
    /// Wireshark's frame number.
    pub frame: u64,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub payload: Vec<u8>,
}

/// What a capture holds: its UDP datagrams, and how many frames were something else (or could
/// not be read: an IP fragment, an unknown link type), so nothing is dropped silently.
#[derive(Debug, Default)]
pub struct Capture {
    pub datagrams: Vec<Datagram>,
    pub frames: u64,
    pub not_udp: u64,
}

/// Reads a pcap or pcapng capture (told apart by its first bytes).
pub fn read(bytes: &[u8]) -> Result<Capture, String> {
    let mut capture = Capture::default();
    if bytes.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        let mut reader = PcapNgReader::new(bytes).map_err(|e| format!("pcapng: {e}"))?;
        let mut links: Vec<DataLink> = Vec::new();
        while let Some(block) = reader.next_block() {
            let block =
                block.map_err(|e| format!("pcapng, after frame {}: {e}", capture.frames))?;
            match block {
                Block::SectionHeader(_) => links.clear(),
                Block::InterfaceDescription(idb) => links.push(idb.linktype),
                Block::EnhancedPacket(epb) => {
                    let link = links.get(epb.interface_id as usize).copied();
                    capture.add(link, &epb.data);
                }
                Block::SimplePacket(spb) => capture.add(links.first().copied(), &spb.data),
                Block::Packet(pb) => {
                    let link = links.get(pb.interface_id as usize).copied();
                    capture.add(link, &pb.data);
                }
                _ => {}
            }
        }
    } else {
        let mut reader =
            PcapReader::new(bytes).map_err(|e| format!("not a pcap or pcapng capture: {e}"))?;
        let link = reader.header().datalink;
        while let Some(packet) = reader.next_packet() {
            let packet =
                packet.map_err(|e| format!("pcap, after frame {}: {e}", capture.frames))?;
            capture.add(Some(link), &packet.data);
        }
    }
    Ok(capture)
}

impl Capture {
    fn add(&mut self, link: Option<DataLink>, data: &[u8]) {
        self.frames += 1;
        match udp_of(link, data) {
            Some((src, dst, payload)) => self.datagrams.push(Datagram {
                frame: self.frames,
                src,
                dst,
                payload: payload.to_vec(),
            }),
            None => self.not_udp += 1,
        }
    }
}

/// The addresses and payload of a UDP packet (not an IP fragment) on link type `link`.
fn udp_of(link: Option<DataLink>, data: &[u8]) -> Option<(SocketAddr, SocketAddr, &[u8])> {
    let sliced = match link? {
        DataLink::ETHERNET => SlicedPacket::from_ethernet(data),
        DataLink::LINUX_SLL => SlicedPacket::from_linux_sll(data),
        // BSD loopback: a 4-byte address family, then the IP packet.
        DataLink::NULL | DataLink::LOOP => SlicedPacket::from_ip(data.get(4..)?),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => SlicedPacket::from_ip(data),
        _ => return None,
    }
    .ok()?;
    let (src, dst): (IpAddr, IpAddr) = match sliced.net? {
        NetSlice::Ipv4(ip) if !ip.is_payload_fragmented() => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        NetSlice::Ipv6(ip) if !ip.is_payload_fragmented() => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        _ => return None,
    };
    match sliced.transport? {
        TransportSlice::Udp(udp) => Some((
            SocketAddr::new(src, udp.source_port()),
            SocketAddr::new(dst, udp.destination_port()),
            udp.payload(),
        )),
        _ => None,
    }
}
