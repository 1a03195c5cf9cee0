//! What `wirecat proxy` writes down: the datagrams it received and those it sent, as pcap files
//! (each between the client's and the server's addresses, so a capture reads as the
//! conversation the game had, whatever sockets the proxy used), and every fault it made, as
//! NDJSON lines.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};

/// A pcap file of UDP datagrams, numbered as Wireshark numbers frames.
pub struct PcapOut {
    writer: PcapWriter<BufWriter<File>>,
    frames: u64,
    scratch: Vec<u8>,
}

impl PcapOut {
    pub fn create(path: &Path) -> Result<PcapOut, String> {
        let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            ..Default::default()
        };
        let writer = PcapWriter::with_header(BufWriter::new(file), header)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(PcapOut {
            writer,
            frames: 0,
            scratch: Vec::new(),
        })
    }

    /// Writes a datagram from `src` to `dst` now; gives its frame number.
    pub fn write(
        &mut self,
        src: SocketAddr,
        dst: SocketAddr,
        payload: &[u8],
    ) -> Result<u64, String> {
        let ethernet = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
        let ip = match (src.ip(), dst.ip()) {
            (IpAddr::V4(s), IpAddr::V4(d)) => ethernet.ipv4(s.octets(), d.octets(), 64),
            (s, d) => ethernet.ipv6(v6(s), v6(d), 64),
        };
        self.scratch.clear();
        ip.udp(src.port(), dst.port())
            .write(&mut self.scratch, payload)
            .map_err(|e| e.to_string())?;
        let len = self.scratch.len() as u32;
        self.writer
            .write_packet(&PcapPacket::new(now(), len, &self.scratch))
            .map_err(|e| e.to_string())?;
        self.frames += 1;
        Ok(self.frames)
    }

    /// Writes out what is buffered and closes the file.
    pub fn finish(self) -> std::io::Result<()> {
        self.writer.into_writer().flush()
    }
}

fn v6(ip: IpAddr) -> [u8; 16] {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        IpAddr::V6(v6) => v6.octets(),
    }
}

/// The wall clock, since the Unix epoch (pcap's time).
pub fn now() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// The fault log: one JSON object per line.
pub struct Log {
    out: Box<dyn Write + Send>,
}

impl Log {
    pub fn create(path: &Path) -> Result<Log, String> {
        let out: Box<dyn Write + Send> = if path.as_os_str() == "-" {
            Box::new(std::io::stdout())
        } else {
            Box::new(BufWriter::new(
                File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
            ))
        };
        Ok(Log { out })
    }

    pub fn line(&mut self, line: &serde_json::Value) {
        // A log that cannot be written (a full disk) must not stop the relay: said at the end.
        let _ = writeln!(self.out, "{line}");
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}
