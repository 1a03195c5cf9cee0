//! Reading captures as a stream: the UDP datagrams of a pcap or pcapng file (gzip-compressed or
//! not), one at a time, numbered as Wireshark numbers its frames (every packet of the file
//! counts, from 1). Memory stays that of one packet whatever the size of the file.

use std::io::{BufRead, BufReader, Read};
use std::net::{IpAddr, SocketAddr};

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use flate2::read::MultiGzDecoder;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::{DataLink, PcapError};

/// One UDP datagram of a capture.
#[derive(Debug, Clone)]
pub struct Datagram {
    /// Wireshark's frame number.
    pub frame: u64,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub payload: Vec<u8>,
}

/// What a capture held besides its UDP datagrams: how many frames, and how many were something
/// else (or could not be read: an IP fragment, an unknown link type), so nothing is dropped
/// silently.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub frames: u64,
    pub not_udp: u64,
}

/// The UDP datagrams of a capture, read from `R` as they are needed.
pub struct Datagrams<R: Read> {
    packets: Packets<Unzipped<R>>,
    counts: Counts,
}

enum Packets<R: Read> {
    Pcap(PcapReader<BufReader<R>>),
    PcapNg {
        reader: PcapNgReader<BufReader<R>>,
        /// The link type of each interface of the current section.
        links: Vec<DataLink>,
    },
}

/// A capture's bytes: as they are, or gunzipped (`.pcap.gz`, told by gzip's magic).
pub enum Unzipped<R: Read> {
    Plain(BufReader<R>),
    Gzip(MultiGzDecoder<BufReader<R>>),
}

impl<R: Read> Read for Unzipped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Unzipped::Plain(r) => r.read(buf),
            Unzipped::Gzip(r) => r.read(buf),
        }
    }
}

/// Opens a pcap or pcapng capture, gzip-compressed or not (told apart by their first bytes),
/// for reading.
pub fn datagrams<R: Read>(source: R) -> Result<Datagrams<R>, String> {
    let mut raw = BufReader::with_capacity(1 << 16, source);
    let gzip = raw
        .fill_buf()
        .map_err(|e| e.to_string())?
        .starts_with(&[0x1f, 0x8b]);
    let unzipped = if gzip {
        Unzipped::Gzip(MultiGzDecoder::new(raw))
    } else {
        Unzipped::Plain(raw)
    };
    let mut source = BufReader::with_capacity(1 << 16, unzipped);
    let magic = source.fill_buf().map_err(|e| format!("gzip: {e}"))?;
    let packets = if magic.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        Packets::PcapNg {
            reader: PcapNgReader::new(source).map_err(|e| format!("pcapng: {e}"))?,
            links: Vec::new(),
        }
    } else {
        Packets::Pcap(
            PcapReader::new(source).map_err(|e| format!("not a pcap or pcapng capture: {e}"))?,
        )
    };
    Ok(Datagrams {
        packets,
        counts: Counts::default(),
    })
}

impl<R: Read> Datagrams<R> {
    /// The frames read so far, and those that were not UDP.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// One frame more: `Some(datagram)` for a UDP one.
    fn add(counts: &mut Counts, link: Option<DataLink>, data: &[u8]) -> Option<Datagram> {
        counts.frames += 1;
        match udp_of(link, data) {
            Some((src, dst, payload)) => Some(Datagram {
                frame: counts.frames,
                src,
                dst,
                payload: payload.to_vec(),
            }),
            None => {
                counts.not_udp += 1;
                None
            }
        }
    }
}

impl<R: Read> Iterator for Datagrams<R> {
    type Item = Result<Datagram, String>;

    fn next(&mut self) -> Option<Self::Item> {
        let counts = &mut self.counts;
        loop {
            let datagram = match &mut self.packets {
                Packets::Pcap(reader) => {
                    let link = reader.header().datalink;
                    match reader.next_packet()? {
                        Ok(packet) => Self::add(counts, Some(link), &packet.data),
                        Err(e) => {
                            return Some(Err(format!("pcap, after frame {}: {e}", counts.frames)))
                        }
                    }
                }
                Packets::PcapNg { reader, links } => {
                    let block = match reader.next_block()? {
                        Ok(block) => block,
                        Err(e) => return Some(Err(failure("pcapng", counts, e))),
                    };
                    match block {
                        Block::SectionHeader(_) => {
                            links.clear();
                            None
                        }
                        Block::InterfaceDescription(idb) => {
                            links.push(idb.linktype);
                            None
                        }
                        Block::EnhancedPacket(epb) => {
                            let link = links.get(epb.interface_id as usize).copied();
                            Self::add(counts, link, &epb.data)
                        }
                        Block::SimplePacket(spb) => {
                            Self::add(counts, links.first().copied(), &spb.data)
                        }
                        Block::Packet(pb) => {
                            let link = links.get(pb.interface_id as usize).copied();
                            Self::add(counts, link, &pb.data)
                        }
                        _ => None,
                    }
                }
            };
            if let Some(d) = datagram {
                return Some(Ok(d));
            }
        }
    }
}

/// Why reading stopped, after the frames read so far.
fn failure(format: &str, counts: &Counts, e: PcapError) -> String {
    let why = match &e {
        PcapError::IncompleteBuffer => {
            "the file ends in the middle of a record (cut short?)".to_string()
        }
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends in the middle of a record (cut short?)".to_string()
        }
        PcapError::IoError(io) => io.to_string(),
        other => other.to_string(),
    };
    format!("{format}, after frame {}: {why}", counts.frames)
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
