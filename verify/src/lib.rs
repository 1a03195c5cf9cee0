//! wiregen-verify: proof that a schema's two outputs agree, for any generated protocol.
//!
//! [`verify`] encodes thousands of arbitrary valid messages with the generated crate, dissects
//! them with the generated Lua dissector in real tshark (one run, isolated from the user's
//! Wireshark configuration), and compares every field: name, offset, length, value. Then it
//! feeds both hostile datagrams (truncations, bit flips, random bytes): the crate must not
//! panic, the dissector must raise no Lua error. `wiregen verify <schema>` builds a small
//! program around [`main`] for the schema's crate; this repository's own tests call
//! [`verify`] directly.
//!
//! ```ignore
//! // src/bin/verify.rs of a game crate built with the `arbitrary` feature:
//! fn main() -> std::process::ExitCode {
//!     wiregen_verify::main::<mygame::Protocol>()
//! }
//! ```

#![forbid(unsafe_code)]

mod compare;
mod conversation;
mod coverage;
pub mod csharp;
mod differential;
mod frame;
mod pcap;
mod pieces;
mod report;
mod rng;
mod stateful;
mod tcp_stream;
mod tshark;

pub use compare::{compare, expected, hex, Expected, ExpectedField};
pub use coverage::{coverage_list, CaseValues, Coverage, TypeFields};
pub use differential::{verify, verify_all, verify_csharp};
pub use pcap::{
    write_pcap, write_tcp_packets, write_tcp_pcap, Datagram, Segment, TcpPacket, HEADERS,
};
pub use report::{Options, Report};
pub use rng::Rng;
pub use tshark::{
    dissect, hidden_lua_errors, tshark, tshark_command, tshark_command_via, Dissection, Field,
    MALFORMED_EXPERTS,
};

use std::process::ExitCode;
use wiregen_runtime::ArbitraryProtocol;

const USAGE: &str = "usage: verify [--lua FILE]... [--messages N] [--hostile N] [--seed N] \
                     [--port N] [--work-dir DIR] [--keep] [--tshark-arg ARG]... \
                     [--coverage FILE] [--unreachable TYPE|CASE]... [--csharp-exe FILE [--csharp-made-only]]";

/// A verifier program for protocol `P`: reads [`Options`] from the command line (`--lua` the
/// dissector, then any it needs; `--messages`, `--hostile`, `--seed`, `--port`, `--work-dir`,
/// `--tshark-arg`), prints the report, and exits non-zero unless everything agreed.
pub fn main<P: ArbitraryProtocol + wiregen_runtime::SerdeProtocol>() -> ExitCode {
    let opts = match options(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let report = verify_all::<P>(&opts);
    print!("{report}");
    if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn options(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut opts = Options::new("");
    opts.luas.clear();
    let mut args = args.peekable();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| -> Result<u64, String> {
            v.parse().map_err(|_| format!("{flag}: not a number: {v}"))
        };
        match flag.as_str() {
            "--lua" => opts.luas.push(value()?.into()),
            "--messages" => opts.messages = number(value()?)? as usize,
            "--hostile" => opts.hostile = number(value()?)? as usize,
            "--seed" => opts.seed = number(value()?)?,
            "--port" => {
                let v = value()?;
                opts.port = Some(v.parse().map_err(|_| format!("--port: not a port: {v}"))?)
            }
            "--work-dir" => opts.work_dir = Some(value()?.into()),
            "--keep" => opts.keep = true,
            "--tshark-arg" => opts.tshark_args.push(value()?),
            "--coverage" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                opts.coverage = coverage::coverage_list(&text);
            }
            "--unreachable" => opts.unreachable.push(value()?),
            "--csharp-exe" => opts.csharp = Some(vec!["mono".into(), value()?]),
            "--csharp-made-only" => opts.csharp_made_only = true,
            "-h" | "--help" => return Err("the differential test of a wiregen schema".into()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if opts.luas.is_empty() {
        return Err("name the dissector: --lua FILE".into());
    }
    Ok(opts)
}
