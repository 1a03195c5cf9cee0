//! Reading captures as a stream: the UDP datagrams and TCP segments of a pcap or pcapng file
//! (gzip-compressed or not), one at a time, numbered as Wireshark numbers its frames (every
//! packet of the file counts, from 1). Memory stays that of one packet whatever the size of the
//! file.

use std::io::{BufRead, BufReader, Read};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use flate2::read::MultiGzDecoder;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::{DataLink, PcapError};

/// One UDP datagram or TCP segment of a capture.
#[derive(Debug, Clone)]
pub struct Packet {
    /// Wireshark's frame number.
    pub frame: u64,
    /// When it was captured (since the Unix epoch).
    pub time: Duration,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub transport: Transport,
    pub payload: Vec<u8>,
}

/// Which transport carried a packet, and for TCP what places its bytes in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Udp,
    Tcp(Tcp),
}

/// What a TCP segment's header says about its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tcp {
    /// The sequence number of its first byte (of the SYN itself when `syn`).
    pub seq: u32,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
}

/// What a capture held besides UDP and TCP: how many frames, and how many were something else
/// (or could not be read: an IP fragment, an unknown link type), so nothing is dropped
/// silently.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub frames: u64,
    pub other: u64,
}

/// The UDP datagrams and TCP segments of a capture, read from `R` as they are needed.
pub struct Packets<R: Read> {
    reader: Reader<Unzipped<R>>,
    counts: Counts,
}

enum Reader<R: Read> {
    Pcap(PcapReader<BufReader<R>>),
    PcapNg {
        reader: PcapNgReader<BufReader<R>>,
        /// The link type and time resolution of each interface of the current section.
        links: Vec<(DataLink, Resolution)>,
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
pub fn packets<R: Read>(source: R) -> Result<Packets<R>, String> {
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
    let reader = if magic.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        Reader::PcapNg {
            reader: PcapNgReader::new(source).map_err(|e| format!("pcapng: {e}"))?,
            links: Vec::new(),
        }
    } else {
        Reader::Pcap(
            PcapReader::new(source).map_err(|e| format!("not a pcap or pcapng capture: {e}"))?,
        )
    };
    Ok(Packets {
        reader,
        counts: Counts::default(),
    })
}

impl<R: Read> Packets<R> {
    /// The frames read so far, and those that were neither UDP nor TCP.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// One frame more: `Some(packet)` for a UDP or TCP one.
    fn add(
        counts: &mut Counts,
        link: Option<DataLink>,
        time: Duration,
        data: &[u8],
    ) -> Option<Packet> {
        counts.frames += 1;
        match transport_of(link, data) {
            Some((src, dst, transport, payload)) => Some(Packet {
                frame: counts.frames,
                time,
                src,
                dst,
                transport,
                payload: payload.to_vec(),
            }),
            None => {
                counts.other += 1;
                None
            }
        }
    }
}

impl<R: Read> Iterator for Packets<R> {
    type Item = Result<Packet, String>;

    fn next(&mut self) -> Option<Self::Item> {
        let counts = &mut self.counts;
        loop {
            let packet = match &mut self.reader {
                Reader::Pcap(reader) => {
                    let link = reader.header().datalink;
                    match reader.next_packet()? {
                        Ok(packet) => Self::add(counts, Some(link), packet.timestamp, &packet.data),
                        Err(e) => {
                            return Some(Err(format!("pcap, after frame {}: {e}", counts.frames)))
                        }
                    }
                }
                Reader::PcapNg { reader, links } => {
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
                            links.push((idb.linktype, Resolution::of(&idb.options)));
                            None
                        }
                        Block::EnhancedPacket(epb) => {
                            let (link, time) = match links.get(epb.interface_id as usize) {
                                // pcap-file reads the raw count of units as nanoseconds.
                                Some((link, r)) => {
                                    (Some(*link), r.time(epb.timestamp.as_nanos() as u64))
                                }
                                None => (None, Duration::ZERO),
                            };
                            Self::add(counts, link, time, &epb.data)
                        }
                        // A simple packet block has no time: it reads as the epoch.
                        Block::SimplePacket(spb) => {
                            let link = links.first().map(|(link, _)| *link);
                            Self::add(counts, link, Duration::ZERO, &spb.data)
                        }
                        Block::Packet(pb) => {
                            let (link, time) = match links.get(pb.interface_id as usize) {
                                Some((link, r)) => (Some(*link), r.time(pb.timestamp)),
                                None => (None, Duration::ZERO),
                            };
                            Self::add(counts, link, time, &pb.data)
                        }
                        _ => None,
                    }
                }
            };
            if let Some(p) = packet {
                return Some(Ok(p));
            }
        }
    }
}

/// An interface's unit of time (pcapng's `if_tsresol`: a power of ten or of two of a second;
/// microseconds when absent).
#[derive(Debug, Clone, Copy)]
enum Resolution {
    /// 10^-n s.
    Decimal(u32),
    /// 2^-n s.
    Binary(u32),
}

impl Resolution {
    fn of(options: &[InterfaceDescriptionOption]) -> Self {
        options
            .iter()
            .find_map(|o| match o {
                InterfaceDescriptionOption::IfTsResol(r) if r & 0x80 == 0 => {
                    Some(Resolution::Decimal(u32::from(*r)))
                }
                InterfaceDescriptionOption::IfTsResol(r) => {
                    Some(Resolution::Binary(u32::from(r & 0x7f)))
                }
                _ => None,
            })
            .unwrap_or(Resolution::Decimal(6))
    }

    /// `units` of this resolution since the epoch.
    fn time(self, units: u64) -> Duration {
        let units = u128::from(units);
        let nanos = match self {
            Resolution::Decimal(n) if n <= 9 => units * 10u128.pow(9 - n),
            Resolution::Decimal(n) => units / 10u128.pow((n - 9).min(38)),
            Resolution::Binary(n) => (units * 1_000_000_000) >> n.min(127),
        };
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
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

/// The addresses, transport and payload of a UDP or TCP packet (not an IP fragment) on link
/// type `link`.
fn transport_of(
    link: Option<DataLink>,
    data: &[u8],
) -> Option<(SocketAddr, SocketAddr, Transport, &[u8])> {
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
            Transport::Udp,
            udp.payload(),
        )),
        TransportSlice::Tcp(tcp) => Some((
            SocketAddr::new(src, tcp.source_port()),
            SocketAddr::new(dst, tcp.destination_port()),
            Transport::Tcp(Tcp {
                seq: tcp.sequence_number(),
                syn: tcp.syn(),
                fin: tcp.fin(),
                rst: tcp.rst(),
            }),
            tcp.payload(),
        )),
        _ => None,
    }
}
