//! How a command ends: it ran ([`Outcome`], clean or with failures it reported), or it could
//! not run ([`CliError`], said once on standard error). Both decide the exit status.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

/// A command that ran: whether everything it read was right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Every message read whole (or the command had nothing to judge).
    Clean,
    /// Some message did not read whole, or bytes went unread: each was reported as it was
    /// met (exit status 1).
    Failures,
}

impl Outcome {
    /// `Clean` when `ok`.
    pub(crate) fn from_ok(ok: bool) -> Self {
        if ok {
            Outcome::Clean
        } else {
            Outcome::Failures
        }
    }
}

/// Why a command could not run.
#[derive(Debug)]
pub(crate) enum CliError {
    /// `wirecat <protocol>` named none of the linked protocols.
    UnknownProtocol {
        name: String,
        known: &'static [&'static str],
    },
    /// A file (or standard input, `-`) could not be read or written.
    File { path: PathBuf, error: String },
    /// A hex file held other bytes than text.
    NotHexText { path: PathBuf },
    /// A message or value given on the command line, or in a file, is not what it must be
    /// (odd hex, a JSON value the type does not take, a type the protocol has not).
    Input(String),
    /// The ports given, or the schema's, cannot find the protocol's messages.
    Ports(String),
    /// The capture could not be read (not pcap or pcapng, cut short).
    Capture(String),
    /// Writing the output failed (standard output closed, a full disk).
    Output(std::io::Error),
    /// This wirecat was built without the `export` feature.
    #[cfg(not(feature = "export"))]
    NoExport,
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::UnknownProtocol { name, known } => {
                write!(f, "unknown protocol '{name}' (known: {})", known.join(", "))
            }
            CliError::File { path, error } => write!(f, "{}: {error}", path.display()),
            CliError::NotHexText { path } => write!(f, "{}: not hex text", path.display()),
            CliError::Input(e) | CliError::Ports(e) | CliError::Capture(e) => f.write_str(e),
            CliError::Output(e) => write!(f, "writing the output: {e}"),
            #[cfg(not(feature = "export"))]
            CliError::NoExport => f.write_str(
                "this wirecat was built without Parquet export: depend on wirecat with \
                 `features = [\"export\"]` (docs/wirecat.md)",
            ),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Output(e)
    }
}

/// The exit status of a command's end, saying a [`CliError`] first.
pub(crate) fn finish(outcome: Result<Outcome, CliError>) -> ExitCode {
    match outcome {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Failures) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("wirecat: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_and_where() {
        let unknown = CliError::UnknownProtocol {
            name: "rtyp".into(),
            known: &["dnp", "rtype"],
        };
        assert_eq!(
            unknown.to_string(),
            "unknown protocol 'rtyp' (known: dnp, rtype)"
        );
        let file = CliError::File {
            path: "caps/a.pcap".into(),
            error: "No such file or directory (os error 2)".into(),
        };
        assert_eq!(
            file.to_string(),
            "caps/a.pcap: No such file or directory (os error 2)"
        );
        assert_eq!(
            CliError::NotHexText {
                path: "m.hex".into()
            }
            .to_string(),
            "m.hex: not hex text"
        );
    }

    #[test]
    fn failures_and_errors_exit_with_one() {
        assert_eq!(Outcome::from_ok(true), Outcome::Clean);
        assert_eq!(Outcome::from_ok(false), Outcome::Failures);
        assert_eq!(finish(Ok(Outcome::Clean)), ExitCode::SUCCESS);
        assert_eq!(finish(Ok(Outcome::Failures)), ExitCode::FAILURE);
        assert_eq!(
            finish(Err(CliError::Input(
                "'abc': odd number of hex digits".into()
            ))),
            ExitCode::FAILURE
        );
    }
}
