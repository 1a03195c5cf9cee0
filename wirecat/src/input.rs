//! What the capture-reading commands are given and open: the capture (a file, gzip-compressed
//! or not, or standard input) with a progress bar on a terminal, and the server's ports (those
//! given, else the schema's).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use wiregen_runtime::SerdeProtocol;

use crate::capture;
use crate::session::Ports;

#[derive(Args)]
pub(crate) struct CaptureArgs {
    /// A pcap or pcapng file (gzip-compressed or not), or `-` for standard input.
    pub capture: PathBuf,
    #[command(flatten)]
    pub ports: PortArgs,
}

#[derive(Args)]
pub(crate) struct PortArgs {
    /// The server's UDP port (repeat for several; default: the schema's ports).
    #[arg(short, long = "port", value_name = "PORT")]
    udp: Vec<u16>,
    /// The server's TCP port (repeat for several; default: the schema's ports).
    #[arg(long = "tcp-port", value_name = "PORT")]
    tcp: Vec<u16>,
}

/// The capture's packets, read as they are needed (`-`: standard input), and a progress bar of
/// the file's bytes read (drawn on a terminal only).
pub(crate) fn open(path: &Path) -> Result<(capture::Packets<Box<dyn Read>>, Progress), String> {
    let read = Arc::new(AtomicU64::new(0));
    let (source, bar): (Box<dyn Read>, _) = if path.as_os_str() == "-" {
        (Box::new(std::io::stdin().lock()), None)
    } else {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let bar = ProgressBar::with_draw_target(Some(size), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
                .map_err(|e| e.to_string())?,
        );
        let counted = Counted {
            inner: file,
            read: Arc::clone(&read),
        };
        (Box::new(counted), Some(bar))
    };
    let packets = capture::packets(source).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((packets, Progress { bar, read, seen: 0 }))
}

/// A reader that counts the bytes read through it.
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// How far into the file a long run is, on the terminal (quiet when stderr is not one).
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    read: Arc<AtomicU64>,
    seen: u64,
}

impl Progress {
    /// One packet more: the bar moves every few thousand.
    pub(crate) fn tick(&mut self) {
        self.seen += 1;
        if self.seen & 0xFFF == 0 {
            if let Some(bar) = &self.bar {
                bar.set_position(self.read.load(Ordering::Relaxed));
            }
        }
    }
}

/// The bar is cleared when the run ends, however it ends.
impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The server's ports: those given, else the schema's.
pub(crate) fn ports<P: SerdeProtocol>(a: &PortArgs) -> Result<Ports, String> {
    let or_schema = |given: &[u16], schema: &[u16]| {
        if given.is_empty() {
            schema.to_vec()
        } else {
            given.to_vec()
        }
    };
    let ports = Ports {
        udp: or_schema(&a.udp, P::UDP_PORTS),
        tcp: or_schema(&a.tcp, P::TCP_PORTS),
    };
    if !ports.tcp.is_empty() && P::TCP_FRAMING.is_none() {
        return Err(format!(
            "{} is not framed on TCP in its schema (transport.tcp.length_prefix): its messages cannot be found in a TCP stream",
            P::NAME
        ));
    }
    if ports.udp.is_empty() && ports.tcp.is_empty() {
        return Err(format!(
            "{} has no ports in its schema: name the server's with --port (UDP) or --tcp-port",
            P::NAME
        ));
    }
    Ok(ports)
}
