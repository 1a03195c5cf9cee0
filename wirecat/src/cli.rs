//! The command line: one protocol's (`run::<P>()`) or every linked protocol's (`run_many`),
//! the same subcommands either way.

use std::io::{Read, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use wiregen_runtime::SerdeProtocol;

use crate::session::{self, Conversations};
use crate::types::{Decode, Encode, Job, List};
use crate::{capture, parse_hex, to_hex};

/// The protocols a multi-protocol wirecat links (this repository's generates it).
pub trait Registry {
    /// Every protocol's name.
    const NAMES: &'static [&'static str];
    /// Runs `job` on the protocol called `name` (`None` when there is none).
    fn run<J: Job>(name: &str, job: J) -> Option<J::Output>;
}

#[derive(Args)]
struct DecodeArgs {
    /// The type to decode (default: the root type).
    #[arg(short, long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// Messages as hex, one per argument (spaces allowed inside one).
    #[arg(required = true, value_name = "HEX")]
    hex: Vec<String>,
}

#[derive(Args)]
struct EncodeArgs {
    /// The type to encode (default: the root type).
    #[arg(short, long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// Values as JSON, as `decode` prints them; derived fields (lengths, counts, checksums) may
    /// be left as they are: the encoder fills them in.
    #[arg(required = true, value_name = "JSON")]
    json: Vec<String>,
}

#[derive(Args)]
struct CaptureArgs {
    /// A pcap or pcapng file, or `-` for standard input.
    capture: PathBuf,
    /// The server's UDP port (repeat for several; default: the schema's ports).
    #[arg(short, long = "port", value_name = "PORT")]
    ports: Vec<u16>,
}

#[derive(Subcommand)]
enum Command {
    /// Decodes messages given as hex; prints one JSON line each.
    Decode(DecodeArgs),
    /// Encodes messages given as JSON; prints one hex line each.
    Encode(EncodeArgs),
    /// Reads a capture's datagrams of the protocol, with conversation state: one JSON line
    /// each (frame, direction, endpoints, and the value or the error).
    Read(CaptureArgs),
    /// Checks that every datagram of the protocol in a capture decodes (with conversation
    /// state) and encodes back to the same bytes; exits non-zero unless all do.
    Check(CaptureArgs),
    /// Lists the protocol's types.
    Types,
}

/// One protocol's wirecat.
#[derive(Parser)]
#[command(
    version,
    about = "Decode, craft and check messages of one wiregen protocol"
)]
struct One {
    #[command(subcommand)]
    command: Command,
}

/// Every linked protocol's wirecat: the protocol's name comes after the command.
#[derive(Parser)]
#[command(
    name = "wirecat",
    version,
    about = "Decode, craft and check messages of every wiregen protocol linked in"
)]
struct Many {
    #[command(subcommand)]
    command: ManyCommand,
}

#[derive(Subcommand)]
enum ManyCommand {
    /// Lists the protocols and their types.
    List,
    /// Decodes messages given as hex; prints one JSON line each.
    Decode {
        protocol: String,
        #[command(flatten)]
        args: DecodeArgs,
    },
    /// Encodes messages given as JSON; prints one hex line each.
    Encode {
        protocol: String,
        #[command(flatten)]
        args: EncodeArgs,
    },
    /// Reads a capture's datagrams of the protocol, with conversation state (NDJSON).
    Read {
        protocol: String,
        #[command(flatten)]
        args: CaptureArgs,
    },
    /// Checks that every datagram of the protocol in a capture decodes and encodes back.
    Check {
        protocol: String,
        #[command(flatten)]
        args: CaptureArgs,
    },
}

/// The command line of one protocol's wirecat: `fn main() -> ExitCode { wirecat::run::<P>() }`.
pub fn run<P: SerdeProtocol>() -> ExitCode {
    let one = One::parse();
    finish(Exec(one.command).run::<P>())
}

/// The command line of a wirecat linking every protocol of registry `R`.
pub fn run_many<R: Registry>() -> ExitCode {
    let (protocol, command) = match Many::parse().command {
        ManyCommand::List => {
            for name in R::NAMES {
                if let Some((title, types)) = R::run(name, List) {
                    println!("{name}\t{title}\t{}", types.join(", "));
                }
            }
            return ExitCode::SUCCESS;
        }
        ManyCommand::Decode { protocol, args } => (protocol, Command::Decode(args)),
        ManyCommand::Encode { protocol, args } => (protocol, Command::Encode(args)),
        ManyCommand::Read { protocol, args } => (protocol, Command::Read(args)),
        ManyCommand::Check { protocol, args } => (protocol, Command::Check(args)),
    };
    let outcome = R::run(&protocol, Exec(command)).unwrap_or_else(|| {
        Err(format!(
            "unknown protocol '{protocol}' (known: {})",
            R::NAMES.join(", ")
        ))
    });
    finish(outcome)
}

fn finish(outcome: Result<bool, String>) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("wirecat: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A command run on one protocol: `Ok(false)` when it ran and found failures.
struct Exec(Command);

impl Job for Exec {
    type Output = Result<bool, String>;
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        match self.0 {
            Command::Types => {
                let (title, types) = List.run::<P>();
                println!("{}\t{title}\t{}", P::NAME, types.join(", "));
                Ok(true)
            }
            Command::Decode(a) => {
                for hex in &a.hex {
                    let bytes = parse_hex(hex)?;
                    let json = Decode {
                        ty: a.ty.as_deref(),
                        bytes: &bytes,
                    }
                    .run::<P>()?;
                    println!("{json}");
                }
                Ok(true)
            }
            Command::Encode(a) => {
                for json in &a.json {
                    let bytes = Encode {
                        ty: a.ty.as_deref(),
                        json,
                    }
                    .run::<P>()?;
                    println!("{}", to_hex(&bytes));
                }
                Ok(true)
            }
            Command::Read(a) => read::<P>(&a),
            Command::Check(a) => check::<P>(&a),
        }
    }
}

/// The capture's UDP datagrams, read as they are needed (`-`: standard input), and a progress
/// bar of the file's bytes read (drawn on a terminal only).
fn open(a: &CaptureArgs) -> Result<(capture::Datagrams<Box<dyn Read>>, Progress), String> {
    let read = Arc::new(AtomicU64::new(0));
    let (source, bar): (Box<dyn Read>, _) = if a.capture.as_os_str() == "-" {
        (Box::new(std::io::stdin().lock()), None)
    } else {
        let file =
            std::fs::File::open(&a.capture).map_err(|e| format!("{}: {e}", a.capture.display()))?;
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
    let datagrams =
        capture::datagrams(source).map_err(|e| format!("{}: {e}", a.capture.display()))?;
    Ok((datagrams, Progress { bar, read, seen: 0 }))
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
struct Progress {
    bar: Option<ProgressBar>,
    read: Arc<AtomicU64>,
    seen: u64,
}

impl Progress {
    /// One datagram more: the bar moves every few thousand.
    fn tick(&mut self) {
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

fn ports<P: SerdeProtocol>(a: &CaptureArgs) -> Result<Vec<u16>, String> {
    let ports = if a.ports.is_empty() {
        P::UDP_PORTS.to_vec()
    } else {
        a.ports.clone()
    };
    if ports.is_empty() {
        return Err(format!(
            "{} has no UDP ports in its schema: name the server's with --port",
            P::NAME
        ));
    }
    Ok(ports)
}

/// A datagram as JSON through the protocol's serializer.
struct AsJson<'v, 'a, P: SerdeProtocol>(&'v P::Datagram<'a>);

impl<P: SerdeProtocol> serde::Serialize for AsJson<'_, '_, P> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        P::serialize_datagram(self.0, s)
    }
}

fn read<P: SerdeProtocol>(a: &CaptureArgs) -> Result<bool, String> {
    let ports = ports::<P>(a)?;
    let mut conversations = Conversations::<P>::default();
    let mut all_ok = true;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (datagrams, mut progress) = open(a)?;
    for d in datagrams {
        progress.tick();
        let Ok(p) = session::place(d?, &ports) else {
            continue;
        };
        let d = &p.datagram;
        let mut line = serde_json::json!({
            "frame": d.frame,
            "from": if p.from_client { "client" } else { "server" },
            "src": d.src.to_string(),
            "dst": d.dst.to_string(),
        });
        match conversations.decode(&p) {
            Ok(v) => {
                line["value"] = serde_json::to_value(AsJson::<P>(&v)).map_err(|e| e.to_string())?
            }
            Err(e) => {
                all_ok = false;
                line["error"] = e.to_string().into();
                line["bytes"] = to_hex(&d.payload).into();
            }
        }
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    drop(progress);
    if conversations.evicted() > 0 {
        eprintln!(
            "wirecat: {} conversations were forgotten to keep at most {} (their later datagrams were read without their earlier state)",
            conversations.evicted(),
            session::CONVERSATIONS
        );
    }
    Ok(all_ok)
}

fn check<P: SerdeProtocol>(a: &CaptureArgs) -> Result<bool, String> {
    let ports = ports::<P>(a)?;
    let mut conversations = Conversations::<P>::default();
    let (mut total, mut failed, mut elsewhere) = (0usize, 0usize, 0u64);
    let (mut datagrams, mut progress) = open(a)?;
    for d in datagrams.by_ref() {
        progress.tick();
        let p = match session::place(d?, &ports) {
            Ok(p) => p,
            Err(_) => {
                elsewhere += 1;
                continue;
            }
        };
        total += 1;
        if let Some(f) = session::check::<P>(&mut conversations, &p) {
            failed += 1;
            println!("frame {}: {}", f.frame, f.problem);
        }
    }
    drop(progress);
    let counts = datagrams.counts();
    println!(
        "{}/{total} datagrams ok ({} frames in the capture, {elsewhere} UDP datagrams elsewhere, {} not UDP)",
        total - failed,
        counts.frames,
        counts.not_udp
    );
    if conversations.evicted() > 0 {
        println!(
            "{} conversations were forgotten to keep at most {} (their later datagrams were checked without their earlier state)",
            conversations.evicted(),
            session::CONVERSATIONS
        );
    }
    Ok(failed == 0 && total > 0)
}
