//! The command line: one protocol's (`run::<P>()`) or every linked protocol's (`run_many`),
//! the same subcommands either way.

use std::io::Write as _;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use wiregen_runtime::SerdeProtocol;

use crate::input::{open, ports, CaptureArgs, PortArgs};
use crate::json::HowFar;
use crate::line;
use crate::outcome::{finish, CliError, Outcome};
use crate::proxy::ProxyArgs;
use crate::reading::{self, Tally};
use crate::replay::ReplayArgs;
use crate::session::{self, Event};
use crate::stand_in::ServeArgs;
use crate::stats_cli::StatsArgs;
use crate::types::{Decode, Encode, Job, List};
use crate::{parse_hex, to_hex};

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
    #[arg(value_name = "HEX", required_unless_present_any = ["file", "hex_file"])]
    hex: Vec<String>,
    /// A message as its raw bytes: a file, or `-` for standard input (a message too large
    /// for an argument).
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Messages as hex, one per line: a file, or `-` for standard input.
    #[arg(long, value_name = "FILE")]
    hex_file: Option<PathBuf>,
    /// The bytes were realigned from a bit offset (a payload as the dissector shows it: 52
    /// bits in 7 bytes): one whole zero byte after the message is padding. Without it, any byte
    /// after the message is an error.
    #[arg(long)]
    realigned: bool,
}

#[derive(Args)]
struct EncodeArgs {
    /// The type to encode (default: the root type).
    #[arg(short, long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// Values as JSON, as `decode` prints them; derived fields (lengths, counts, checksums) may
    /// be left as they are: the encoder fills them in.
    #[arg(value_name = "JSON", required_unless_present = "file")]
    json: Vec<String>,
    /// Values as JSON, one after another: a file, or `-` for standard input.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

impl DecodeArgs {
    /// The messages to decode: the hex arguments, then the hex file's lines, then the raw file.
    fn messages(&self) -> Result<Vec<Vec<u8>>, CliError> {
        let mut out = Vec::new();
        for hex in &self.hex {
            out.push(parse_hex(hex).map_err(CliError::Input)?);
        }
        if let Some(path) = &self.hex_file {
            let text = String::from_utf8(read_input(path)?)
                .map_err(|_| CliError::NotHexText { path: path.clone() })?;
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                out.push(parse_hex(line).map_err(CliError::Input)?);
            }
        }
        if let Some(path) = &self.file {
            out.push(read_input(path)?);
        }
        Ok(out)
    }
}

impl EncodeArgs {
    /// The values to encode: the JSON arguments, then the file's JSON values.
    fn values(&self) -> Result<Vec<String>, CliError> {
        let mut out = self.json.clone();
        if let Some(path) = &self.file {
            let bytes = read_input(path)?;
            for value in
                serde_json::Deserializer::from_slice(&bytes).into_iter::<serde_json::Value>()
            {
                let value = value.map_err(|e| CliError::File {
                    path: path.clone(),
                    error: e.to_string(),
                })?;
                out.push(value.to_string());
            }
        }
        Ok(out)
    }
}

/// The bytes of file `path`, or of standard input for `-`.
fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
    } else {
        std::fs::File::open(path).and_then(|mut f| std::io::Read::read_to_end(&mut f, &mut bytes))
    };
    read.map_err(|e| CliError::File {
        path: path.to_path_buf(),
        error: e.to_string(),
    })?;
    Ok(bytes)
}

#[derive(Args)]
struct ExportArgs {
    /// pcap or pcapng files (gzip-compressed or not); each is read twice, so not standard input.
    #[arg(required = true, value_name = "CAPTURE")]
    captures: Vec<PathBuf>,
    #[command(flatten)]
    ports: PortArgs,
    /// The Parquet file to write; with several captures, a directory holding one
    /// `capture=<file name>/part-0.parquet` per capture (Hive-style partitions, as Spark, Trino
    /// and DuckDB read a directory).
    #[arg(short, long, value_name = "PATH")]
    output: PathBuf,
}

#[derive(Subcommand)]
enum Command {
    /// Decodes messages given as hex; prints one JSON line each.
    Decode(DecodeArgs),
    /// Encodes messages given as JSON; prints one hex line each.
    Encode(EncodeArgs),
    /// Reads a capture's messages of the protocol (UDP datagrams, framed messages of TCP
    /// streams), with conversation state: one JSON line each (frame, direction, endpoints, and
    /// the value or the error; TCP notes as `note`).
    Read(CaptureArgs),
    /// Checks that every message of the protocol in a capture decodes (with conversation
    /// state) and encodes back to the same bytes, and that TCP streams read whole; exits
    /// non-zero unless all do.
    Check(CaptureArgs),
    /// Writes a capture's messages as Parquet: one row per message (frame, time, endpoints,
    /// direction, transport, size, message type) with the decoded message and any payload it
    /// completes as typed nested columns.
    Export(ExportArgs),
    /// Netcode analysis: per conversation and direction, datagrams, bytes, loss, duplicates,
    /// retransmissions, reordering and round trips; bytes per message type and per field.
    Stats(StatsArgs),
    /// A relay between clients and a server that impairs the traffic (loss, delay, jitter,
    /// duplication, reordering, a rate limit, corruption), scoped by conditions on the decoded
    /// messages, reproducible from a seed, logging every fault it made.
    Proxy(Box<ProxyArgs>),
    /// Sends the client's side of a recorded conversation to a live server (its acks rewritten
    /// to the live server's numbers, lengths and checksums filled anew) and compares the
    /// answers with the recorded ones field by field; exits non-zero on a difference.
    Replay(ReplayArgs),
    /// Answers one client as a recorded conversation's server did (numbering from elsewhere
    /// with --renumber, one answer changed with --change-answer): a stand-in server to replay
    /// against or to test a client with.
    Serve(ServeArgs),
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
    /// Writes a capture's messages as Parquet (one row per message, typed columns).
    Export {
        protocol: String,
        #[command(flatten)]
        args: ExportArgs,
    },
    /// Netcode analysis: loss, duplicates, retransmissions, round trips, bandwidth.
    Stats {
        protocol: String,
        #[command(flatten)]
        args: StatsArgs,
    },
    /// A relay impairing the traffic between clients and a server (loss, delay, reordering…).
    Proxy {
        protocol: String,
        #[command(flatten)]
        args: Box<ProxyArgs>,
    },
    /// Replays a recorded conversation against a live server and compares its answers.
    Replay {
        protocol: String,
        #[command(flatten)]
        args: ReplayArgs,
    },
    /// Answers one client as a recorded conversation's server did.
    Serve {
        protocol: String,
        #[command(flatten)]
        args: ServeArgs,
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
        ManyCommand::Export { protocol, args } => (protocol, Command::Export(args)),
        ManyCommand::Stats { protocol, args } => (protocol, Command::Stats(args)),
        ManyCommand::Proxy { protocol, args } => (protocol, Command::Proxy(args)),
        ManyCommand::Replay { protocol, args } => (protocol, Command::Replay(args)),
        ManyCommand::Serve { protocol, args } => (protocol, Command::Serve(args)),
    };
    let outcome = R::run(&protocol, Exec(command)).unwrap_or(Err(CliError::UnknownProtocol {
        name: protocol,
        known: R::NAMES,
    }));
    finish(outcome)
}

/// A command run on one protocol.
struct Exec(Command);

impl Job for Exec {
    type Output = Result<Outcome, CliError>;
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        match self.0 {
            Command::Types => {
                let (title, types) = List.run::<P>();
                println!("{}\t{title}\t{}", P::NAME, types.join(", "));
                Ok(Outcome::Clean)
            }
            Command::Decode(a) => {
                for bytes in a.messages()? {
                    let json = Decode {
                        ty: a.ty.as_deref(),
                        bytes: &bytes,
                        realigned: a.realigned,
                    }
                    .run::<P>()
                    .map_err(CliError::Input)?;
                    println!("{json}");
                }
                Ok(Outcome::Clean)
            }
            Command::Encode(a) => {
                for json in a.values()? {
                    let bytes = Encode {
                        ty: a.ty.as_deref(),
                        json: &json,
                    }
                    .run::<P>()
                    .map_err(CliError::Input)?;
                    println!("{}", to_hex(&bytes));
                }
                Ok(Outcome::Clean)
            }
            Command::Read(a) => read::<P>(&a),
            Command::Check(a) => check::<P>(&a),
            #[cfg(feature = "export")]
            Command::Export(a) => export::<P>(&a),
            #[cfg(not(feature = "export"))]
            Command::Export(_) => Err(CliError::NoExport),
            Command::Stats(a) => crate::stats_cli::stats::<P>(&a),
            Command::Proxy(a) => crate::proxy::proxy::<P>(&a)
                .map(|_| Outcome::Clean)
                .map_err(CliError::Input),
            Command::Replay(a) => crate::replay::run::<P>(&a)
                .map(Outcome::from_ok)
                .map_err(CliError::Input),
            Command::Serve(a) => crate::stand_in::run::<P>(&a)
                .map(Outcome::from_ok)
                .map_err(CliError::Input),
        }
    }
}

fn read<P: SerdeProtocol>(a: &CaptureArgs) -> Result<Outcome, CliError> {
    let ports = ports::<P>(&a.ports).map_err(CliError::Ports)?;
    let mut all_ok = true;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (packets, mut progress) = open(&a.capture).map_err(CliError::Capture)?;
    let tally = reading::each_event::<P, _>(
        packets,
        &ports,
        || progress.tick(),
        |conversations, event| match event {
            Event::Message(m) => {
                let read = line::write_message(conversations, &m, &mut out)?;
                all_ok &= read == HowFar::Whole;
                Ok(())
            }
            Event::Note {
                frame,
                from_client,
                key,
                note,
            } => {
                all_ok &= !note.loses_bytes();
                line::write_note(frame, from_client, &key, &note, &mut out)
            }
        },
    )
    .map_err(CliError::Capture)?;
    out.flush()?;
    drop(progress);
    if tally.evicted > 0 {
        eprintln!(
            "wirecat: {} conversations were forgotten to keep at most {} (their later messages were read without their earlier state)",
            tally.evicted,
            session::CONVERSATIONS
        );
    }
    Ok(Outcome::from_ok(all_ok))
}

fn check<P: SerdeProtocol>(a: &CaptureArgs) -> Result<Outcome, CliError> {
    let ports = ports::<P>(&a.ports).map_err(CliError::Ports)?;
    let (packets, mut progress) = open(&a.capture).map_err(CliError::Capture)?;
    let (t, failed) = reading::check::<P, _>(
        packets,
        &ports,
        || progress.tick(),
        |f| println!("frame {}: {}", f.frame, f.problem),
    )
    .map_err(CliError::Capture)?;
    drop(progress);
    println!("{}", summary(&t, failed, !ports.tcp.is_empty()));
    if t.evicted > 0 {
        println!(
            "{} conversations were forgotten to keep at most {} (their later messages were checked without their earlier state)",
            t.evicted,
            session::CONVERSATIONS
        );
    }
    Ok(Outcome::from_ok(failed == 0 && t.messages > 0))
}

/// `check`'s last line: how many messages were right, and what else the capture held.
fn summary(t: &Tally, failed: u64, tcp: bool) -> String {
    if !tcp {
        return format!(
            "{}/{} datagrams ok ({} frames in the capture, {} UDP datagrams elsewhere, {} not UDP)",
            t.messages.saturating_sub(failed),
            t.messages,
            t.frames,
            t.udp_elsewhere,
            t.other + t.tcp_segments + t.tcp_elsewhere
        );
    }
    let mut line = format!(
        "{}/{} messages ok ({} UDP datagrams, {} TCP segments; {} frames in the capture, {} UDP datagrams and {} TCP segments elsewhere, {} neither UDP nor TCP)",
        t.messages.saturating_sub(failed - t.unread),
        t.messages,
        t.udp,
        t.tcp_segments,
        t.frames,
        t.udp_elsewhere,
        t.tcp_elsewhere,
        t.other
    );
    if t.retransmissions + t.out_of_order + t.unread > 0 {
        line += &format!(
            "\nTCP: {} retransmitted segments skipped, {} put back in order, {} places where bytes went unread",
            t.retransmissions, t.out_of_order, t.unread
        );
    }
    line
}

#[cfg(feature = "export")]
fn export<P: SerdeProtocol>(a: &ExportArgs) -> Result<Outcome, CliError> {
    let ports = ports::<P>(&a.ports).map_err(CliError::Ports)?;
    let partitioned = a.captures.len() > 1;
    let mut all_ok = true;
    for capture in &a.captures {
        let out = if partitioned {
            let name = capture.file_name().unwrap_or_default().to_string_lossy();
            let dir = a.output.join(format!("capture={name}"));
            std::fs::create_dir_all(&dir).map_err(|e| CliError::File {
                path: dir.clone(),
                error: e.to_string(),
            })?;
            dir.join("part-0.parquet")
        } else {
            a.output.clone()
        };
        let (packets, mut bar) = open(capture).map_err(CliError::Capture)?;
        let (t, rows) = crate::export::export::<P, _>(packets, &ports, &out, || bar.tick())
            .map_err(CliError::Capture)?;
        println!(
            "{}: {rows} messages of {} frames written to {}{}",
            capture.display(),
            t.frames,
            out.display(),
            if t.unread > 0 {
                format!(
                    " ({} places in TCP streams where bytes went unread)",
                    t.unread
                )
            } else {
                String::new()
            }
        );
        all_ok &= t.unread == 0;
    }
    Ok(Outcome::from_ok(all_ok))
}
