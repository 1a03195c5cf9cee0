//! What `wiregen verify` is asked (Options, the types the schema declares) and what it answers
//! (Report: counts, coverage, disagreements, errors, the captures kept), shared by the datagram
//! and the TCP runs.

use crate::coverage::{Coverage, Seen};
use std::fmt;
use std::path::PathBuf;

/// What to check and how hard.
#[derive(Debug, Clone)]
pub struct Options {
    /// The protocol's dissector, then any other it needs loaded (the base of an extension).
    pub luas: Vec<PathBuf>,
    /// More tshark arguments.
    pub tshark_args: Vec<String>,
    /// How many valid messages to compare.
    pub messages: usize,
    /// How many hostile datagrams to dissect.
    pub hostile: usize,
    /// The seed of every random choice: the same seed checks the same messages.
    pub seed: u64,
    /// The server's UDP port (default: the schema's first); on a port the schema does not
    /// register, the dissector is chosen with Decode As.
    pub port: Option<u16>,
    /// Where the captures go (default: the system's temporary folder); they are kept when a
    /// check fails, for Wireshark.
    pub work_dir: Option<PathBuf>,
    /// Keep every capture (the report says where), not only those of a failing check: to open
    /// what was proven in Wireshark.
    pub keep: bool,
    /// The types valid messages may hold, each with the filter names of its fields, and the
    /// cases of their switches: the report says which the compared messages reached, and fails
    /// on a type or case none reached (empty: not measured).
    pub coverage: Coverage,
    /// Types and cases (`PacketPayload.Login`) declared unreachable: not a failure when no
    /// message reaches them.
    pub unreachable: Vec<String>,
    /// The C# codec's proof program, as a command (`mono proof.exe`): with it, [`crate::verify_all`]
    /// checks the C# against the crate too.
    pub csharp: Option<Vec<String>>,
    /// The C# is checked by the values it makes alone (an application: the crate's messages are
    /// whole transport datagrams, which its C# does not read).
    pub csharp_made_only: bool,
}

impl Options {
    /// The defaults for the dissector at `lua`: 2,000 valid messages, 2,000 hostile datagrams.
    pub fn new(lua: impl Into<PathBuf>) -> Self {
        Options {
            luas: vec![lua.into()],
            tshark_args: Vec::new(),
            messages: 2000,
            hostile: 2000,
            seed: 0x5eed,
            port: None,
            work_dir: None,
            keep: false,
            csharp: None,
            csharp_made_only: false,
            coverage: Coverage::default(),
            unreachable: Vec::new(),
        }
    }
}

/// The outcome: counts, and each problem found (the first few of each kind in full).
#[derive(Debug, Default)]
pub struct Report {
    pub protocol: &'static str,
    /// Valid messages asked for.
    pub wanted: usize,
    /// Arbitrary values tried.
    pub tried: usize,
    /// Values the encoder refused (a value the schema does not allow: its refusal is the
    /// encoder's job, covered by its own tests).
    pub refused: usize,
    /// Why: how many refusals per field and kind of refusal.
    pub refusals: std::collections::BTreeMap<(String, String), usize>,
    /// Encoded messages that need an earlier message's state (a list announced before): not
    /// sent alone.
    pub stateful: usize,
    /// Conversations sent with the messages announcing the lists their last message needs.
    pub stateful_sent: usize,
    /// Messages compared over TCP (framed on a stream cut into segments).
    pub over_tcp: usize,
    /// Checks not run, and why (said in the report).
    pub skipped: Vec<String>,
    /// Messages compared field by field.
    pub compared: usize,
    /// Messages whose every field agreed, and that the dissector did not call malformed.
    pub agreed: usize,
    /// Fields compared.
    pub fields: usize,
    /// Payloads the crate joined from the compared messages' pieces (each where the dissector
    /// joined one too).
    pub joined: usize,
    /// Crate and dissector disagree, or the crate disagrees with itself.
    pub disagreements: Vec<String>,
    /// Hostile datagrams dissected (and decoded by the crate).
    pub hostile: usize,
    /// Lua errors and internal errors the dissector raised, and crate panics.
    pub errors: Vec<String>,
    /// Why nothing could be checked (no tshark, the dissector did not load, …).
    pub fatal: Option<String>,
    /// The captures, kept when something failed.
    pub captures: Vec<PathBuf>,
    /// Payloads cut into pieces and sent as a conversation, by how their pieces went: a single
    /// piece, in order, out of order, one sent twice, one missing.
    pub pieces: [usize; 5],
    /// The fields the compared messages held, and the values their switch tags took.
    pub seen: Seen,
    /// The types and cases to reach (see [`Options::coverage`]), and those declared
    /// unreachable.
    pub coverage: Coverage,
    pub unreachable: Vec<String>,
    /// Messages the C# codec decoded and the crate too (their values compared).
    pub csharp_compared: usize,
    /// Of those, the ones whose values agreed and that the C# encoded back to their bytes.
    pub csharp_agreed: usize,
    /// Hostile datagrams the C# codec was given.
    pub csharp_hostile: usize,
    /// Values the C# made at random and encoded, checked by the crate.
    pub csharp_made: usize,
    /// Of those, the ones the crate decoded to the same values and encoded to the same bytes.
    pub csharp_made_agreed: usize,
    /// Values the C# made that its encoder refused (a value the schema does not allow).
    pub csharp_refused: usize,
    /// Values the C# made whose decoding needs lists an earlier message announces (checked in
    /// conversations instead).
    pub csharp_needs_state: usize,
    /// The crate's messages decoded by the C# in conversations (after those announcing the lists
    /// they need).
    pub csharp_in_conversations: usize,
    /// What the messages of both directions of the C# check held.
    pub csharp_seen: Seen,
    /// The C# was checked by the values it makes alone ([`Options::csharp_made_only`]).
    pub csharp_made_only: bool,
}

impl Report {
    /// Whether everything agreed, on enough messages to mean something.
    pub fn ok(&self) -> bool {
        self.fatal.is_none()
            && self.disagreements.is_empty()
            && self.errors.is_empty()
            && !self.too_few()
            && self.unreached().is_empty()
            && self.csharp_unreached().is_empty()
    }

    /// Whether the C# check alone ([`crate::verify_csharp`]) found everything agreeing, on
    /// messages of both directions, every type and case reached.
    pub fn csharp_ok(&self) -> bool {
        self.fatal.is_none()
            && self.disagreements.is_empty()
            && self.errors.is_empty()
            && (self.csharp_compared > 0 || self.csharp_made_only)
            && self.csharp_made > 0
            && self.csharp_unreached().is_empty()
    }

    /// The types and cases the C# check did not reach (when it ran), but those declared
    /// unreachable.
    pub fn csharp_unreached(&self) -> Vec<&str> {
        if self.csharp_compared == 0 && !self.csharp_made_only {
            return Vec::new();
        }
        self.coverage
            .unreached(&self.csharp_seen, &self.unreachable)
    }

    /// Notes what one compared message held.
    pub fn see(&mut self, notes: &[wiregen_runtime::FieldNote<'_>]) {
        self.seen.see(notes, &self.coverage);
    }

    /// Per type: how many of its fields the compared messages held, of how many.
    pub fn type_coverage(&self) -> Vec<(&str, usize, usize)> {
        self.coverage.types_held(&self.seen)
    }

    fn declared(&self, name: &str) -> bool {
        self.unreachable.iter().any(|u| u == name)
    }

    /// The types (with fields to show) and the cases no compared message reached, but those
    /// declared unreachable.
    pub fn unreached(&self) -> Vec<&str> {
        self.coverage.unreached(&self.seen, &self.unreachable)
    }

    /// Counts a value the encoder refused, by field and kind of refusal: the reasons a schema's
    /// random values are mostly invalid (a count field too small for the lists, say).
    pub(crate) fn refuse(&mut self, e: &wiregen_runtime::EncodeError) {
        self.refused += 1;
        let kind = format!("{:?}", e.kind);
        let kind = kind.split([' ', '{']).next().unwrap_or("").to_string();
        *self.refusals.entry((e.field(), kind)).or_default() += 1;
    }

    /// Fewer than a tenth of the messages asked for: the encoder refused nearly every arbitrary
    /// value, and a pass would prove little.
    pub fn too_few(&self) -> bool {
        self.compared == 0 || self.compared * 10 < self.wanted
    }
}

/// Problems listed in full; the rest are counted.
const SHOWN: usize = 10;

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.protocol;
        if let Some(why) = &self.fatal {
            return writeln!(f, "{p}: not verified: {why}");
        }
        for (what, list) in [
            ("disagreement", &self.disagreements),
            ("error", &self.errors),
        ] {
            for line in list.iter().take(SHOWN) {
                writeln!(f, "{p}: {what}: {line}")?;
            }
            if list.len() > SHOWN {
                writeln!(f, "{p}: … and {} more of these", list.len() - SHOWN)?;
            }
        }
        if self.too_few() || self.refused > self.compared {
            let mut reasons: Vec<_> = self.refusals.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1));
            for ((field, kind), n) in reasons.iter().take(3) {
                writeln!(
                    f,
                    "{p}: the encoder refused {n} arbitrary values at field '{field}' ({kind})"
                )?;
            }
        }
        if self.too_few() {
            writeln!(
                f,
                "{p}: only {} of {} messages could be made: too few to prove anything",
                self.compared, self.wanted
            )?;
        }
        for c in &self.captures {
            writeln!(f, "{p}: capture kept for Wireshark: {}", c.display())?;
        }
        if !self.coverage.types.is_empty() {
            self.fmt_coverage(f)?;
        }
        if self.pieces.iter().sum::<usize>() > 0 {
            let [one, ordered, reordered, again, missing] = self.pieces;
            writeln!(
                f,
                "{p}: payloads cut into pieces: {one} of one piece; of several: {ordered} in \
                 order, {reordered} out of order, {again} with a piece sent twice, {missing} \
                 with one missing"
            )?;
        }
        for why in &self.skipped {
            writeln!(f, "{p}: not checked: {why}")?;
        }
        if self.csharp_compared > 0 || self.csharp_hostile > 0 || self.csharp_made > 0 {
            self.fmt_csharp(f)?;
            if !self.coverage.types.is_empty() {
                let table = self.coverage.types_held(&self.csharp_seen);
                let reached = table.iter().filter(|(_, held, _)| *held > 0).count();
                let measured = table.iter().filter(|(_, _, of)| *of > 0).count();
                let (held, of) = table
                    .iter()
                    .fold((0, 0), |(h, o), (_, held, of)| (h + held, o + of));
                let cases = self.coverage.cases_taken(&self.csharp_seen);
                let taken = cases.iter().filter(|(_, t)| *t).count();
                writeln!(
                    f,
                    "{p}: C#: coverage: {reached} of {measured} types, {held} of {of} fields, {taken} of {} switch cases reached",
                    cases.len()
                )?;
                for what in self.csharp_unreached() {
                    writeln!(f, "{p}: C#: never reached: {what}")?;
                }
            }
        }
        if self.over_tcp > 0 {
            writeln!(
                f,
                "{p}: {} messages compared over TCP (framed, the streams cut into segments anywhere)",
                self.over_tcp
            )?;
        }
        writeln!(
            f,
            "{p}: {} of {} messages agree field by field ({} fields, {} joined payloads; {} \
             values refused by the encoder, {} need earlier state, {} sent after it); {} hostile \
             datagrams, {} \
             errors: {}",
            self.agreed,
            self.compared,
            self.fields,
            self.joined,
            self.refused,
            self.stateful,
            self.stateful_sent,
            self.hostile,
            self.errors.len(),
            if self.ok() { "ok" } else { "FAILED" }
        )
    }
}

impl Report {
    /// The coverage table: per type the fields the compared messages held (a type of no fields
    /// shows none), the totals, the cases never taken, and what no message reached.
    /// The C# check's counts: the crate's messages it read (none for an application, checked by
    /// the values the C# makes), the values it made, the hostile datagrams.
    fn fmt_csharp(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.protocol;
        if !self.csharp_made_only {
            writeln!(
                f,
                "{p}: C#: {} of {} of the crate's messages ({} of them in conversations, after \
                 the lists they need) decoded to the crate's values and encoded back to the same \
                 bytes; {} hostile datagrams raised nothing but DecodeException",
                self.csharp_agreed,
                self.csharp_compared + self.csharp_in_conversations,
                self.csharp_in_conversations,
                self.csharp_hostile
            )?;
        }
        writeln!(
            f,
            "{p}: C#: {} of {} values the C# made decoded by the crate to the same values and \
             bytes ({} refused by the C# encoder, {} needing lists: checked in conversations); 4 \
             corrupted copies of each raised nothing but DecodeException in the C#",
            self.csharp_made_agreed, self.csharp_made, self.csharp_refused, self.csharp_needs_state
        )
    }

    fn fmt_coverage(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.protocol;
        let table = self.type_coverage();
        let width = table.iter().map(|(n, _, _)| n.len()).max().unwrap_or(0);
        writeln!(
            f,
            "{p}: coverage (fields the compared messages held, per type):"
        )?;
        for (name, held, of) in &table {
            let note = if *of == 0 {
                "  (no fields: not measured)"
            } else if *held == 0 && self.unreachable.iter().any(|u| u == name) {
                "  (declared unreachable)"
            } else if *held == 0 {
                "  NEVER REACHED"
            } else {
                ""
            };
            writeln!(f, "{p}:   {name:<width$} {held:>3}/{of:<3}{note}")?;
        }
        let (held, of) = table
            .iter()
            .fold((0, 0), |(h, o), (_, held, of)| (h + held, o + of));
        let reached = table.iter().filter(|(_, held, _)| *held > 0).count();
        let measured = table.iter().filter(|(_, _, of)| *of > 0).count();
        let cases = self.coverage.cases_taken(&self.seen);
        let taken = cases.iter().filter(|(_, t)| *t).count();
        writeln!(
            f,
            "{p}: coverage: {reached} of {measured} types, {held} of {of} fields, {taken} of \
             {} switch cases reached",
            cases.len()
        )?;
        for (name, why) in &self.coverage.dead {
            writeln!(
                f,
                "{p}:   case {name}: no message can take it ({why}), not counted"
            )?;
        }
        for (name, _) in cases.iter().filter(|(_, t)| !t) {
            let note = match self.declared(name) {
                true => " (declared unreachable)",
                false => "",
            };
            writeln!(f, "{p}:   case {name} NEVER TAKEN{note}")?;
        }
        for name in self.unreached() {
            let what = match cases.iter().any(|(c, _)| c == &name) {
                true => "case",
                false => "type",
            };
            writeln!(
                f,
                "{p}: no message reached {what} '{name}' (declare it with --unreachable \
                 {name} if no valid message can)"
            )?;
        }
        Ok(())
    }
}

/// Where a capture goes.
pub(crate) fn capture_path(opts: &Options, name: &str, what: &str) -> PathBuf {
    let dir = opts.work_dir.clone().unwrap_or_else(std::env::temp_dir);
    let _ = std::fs::create_dir_all(&dir);
    dir.join(format!(
        "wiregen-verify-{name}-{what}-{}.pcap",
        std::process::id()
    ))
}

/// Keeps the capture when this step found a problem or every capture is wanted (for
/// Wireshark), else removes it.
pub(crate) fn keep_or_remove(
    opts: &Options,
    pcap: PathBuf,
    problems_before: usize,
    report: &mut Report,
) {
    if opts.keep || report.disagreements.len() + report.errors.len() > problems_before {
        report.captures.push(pcap);
    } else {
        let _ = std::fs::remove_file(pcap);
    }
}
