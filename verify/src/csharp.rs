//! The third implementation: the schema's C# codec, run by its proof program (`wiregen verify`
//! builds it with Mono's `mcs`). Every valid message the crate encoded is decoded by the C#,
//! its value compared with the crate's field by field (both as the JSON of the crate's serde
//! shape: names, numbers, strings, bytes as hex, variants), and encoded back by the C# to the
//! same bytes; hostile datagrams may only raise the codec's `DecodeException`, never another
//! exception, and the program must answer every line (no endless loop).
//!
//! The program reads one message per line (hex) and answers one line each:
//! `ok\t<json>\t<hex of its encoding>`, `encode-error\t<json>\t<why>`, `error\t<why>` or
//! `crash\t<exception>`.

use crate::compare::hex;
use crate::report::Report;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use wiregen_runtime::{Codec, SerdeProtocol, SerdeTypeVisitor, Type};

/// What the C# answered for one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Decoded to this JSON, and encoded back to these bytes (hex).
    Ok(serde_json::Value, String),
    /// Decoded to this JSON, and refused to encode it back: why.
    EncodeError(serde_json::Value, String),
    /// `DecodeException`: why.
    Error(String),
    /// Any other exception.
    Crash(String),
    /// A conversation started (`new`).
    New,
}

/// Runs `cmd` with `input` on its standard input; its output lines, once it ends, or an error
/// when it does not start or does not end within `timeout`.
fn output_lines(
    cmd: &[String],
    input: String,
    timeout: std::time::Duration,
) -> Result<Vec<String>, String> {
    let (program, args) = cmd.split_first().ok_or("no C# program named")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let lines: Vec<String> = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect();
        let _ = tx.send(lines);
    });
    let Ok(lines) = rx.recv_timeout(timeout) else {
        let _ = child.kill();
        return Err(format!(
            "the C# program did not end within {timeout:?} (an endless loop?)"
        ));
    };
    let _ = writer.join();
    child.wait().map_err(|e| e.to_string())?;
    Ok(lines)
}

/// Runs the C# proof `program` (a command and its arguments) over `lines` of bytes, one answer
/// each; fails when it does not start, does not answer every line within `timeout`, or answers
/// what is not a line of the protocol above.
pub fn run(
    program: &[String],
    lines: &[Vec<u8>],
    timeout: std::time::Duration,
) -> Result<Vec<Answer>, String> {
    run_lines(program, lines.iter().map(|l| hex(l)).collect(), timeout)
}

/// Runs the C# proof program over input lines (hex, or `new` to start a conversation), one
/// answer each.
fn run_lines(
    program: &[String],
    lines: Vec<String>,
    timeout: std::time::Duration,
) -> Result<Vec<Answer>, String> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let answers = output_lines(program, input, timeout)?;
    if answers.len() != lines.len() {
        return Err(format!(
            "the C# program answered {} of {} lines",
            answers.len(),
            lines.len()
        ));
    }
    answers.iter().map(|a| parse(a)).collect()
}

fn parse(line: &str) -> Result<Answer, String> {
    let mut parts = line.splitn(3, '\t');
    let kind = parts.next().unwrap_or_default();
    let json = |s: Option<&str>| -> Result<serde_json::Value, String> {
        serde_json::from_str(s.unwrap_or_default()).map_err(|e| format!("not JSON ({e}): {line}"))
    };
    Ok(match kind {
        "ok" => {
            let j = json(parts.next())?;
            Answer::Ok(j, parts.next().unwrap_or_default().to_string())
        }
        "encode-error" => {
            let j = json(parts.next())?;
            Answer::EncodeError(j, parts.next().unwrap_or_default().to_string())
        }
        "error" => Answer::Error(parts.next().unwrap_or_default().to_string()),
        "crash" => Answer::Crash(parts.next().unwrap_or_default().to_string()),
        "new" => Answer::New,
        _ => return Err(format!("not an answer: {line}")),
    })
}

/// The crate's value of each message (its root type decoded) as JSON; `None` where the crate
/// does not decode it.
pub fn crate_values<P: SerdeProtocol>(
    messages: &[(bool, Vec<u8>)],
) -> Vec<Option<serde_json::Value>> {
    struct Root<'m> {
        name: &'static str,
        messages: &'m [(bool, Vec<u8>)],
        out: Vec<Option<serde_json::Value>>,
    }
    impl SerdeTypeVisitor for Root<'_> {
        fn visit<T: Type>(&mut self)
        where
            for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
        {
            if <T::Of<'_> as Codec<'_>>::NAME != self.name || !self.out.is_empty() {
                return;
            }
            self.out = self
                .messages
                .iter()
                .map(|(from_client, m)| {
                    <T::Of<'_> as Codec<'_>>::decode_from(m, *from_client)
                        .ok()
                        .and_then(|v| serde_json::to_value(&v).ok())
                })
                .collect();
        }
    }
    let mut root = Root {
        name: <P::Root<'_> as Codec<'_>>::NAME,
        messages,
        out: Vec::new(),
    };
    P::each_serde_type(&mut root);
    if root.out.is_empty() {
        root.out = vec![None; messages.len()];
    }
    root.out
}

/// Whether two JSON values are the same value: numbers equal as integers, or as floats (or as
/// the `f32` both are, for a float the crate printed as the shortest `f32`), the rest equal.
pub fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                return x == y;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x as f32) == (y as f32),
                _ => false,
            }
        }
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// One value the C# made at random: its type, its JSON as the C# decoded its own encoding, and
/// that encoding.
struct Made {
    ty: String,
    json: serde_json::Value,
    bytes: Vec<u8>,
    /// The direction it was sent in, for a type whose layout depends on it.
    from_client: Option<bool>,
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// Runs the proof program's `random` mode: `n` values of each top-level type.
fn made(program: &[String], n: usize, seed: u64, report: &mut Report) -> Vec<Made> {
    let mut cmd = program.to_vec();
    cmd.extend([
        "random".to_string(),
        n.to_string(),
        (seed % i32::MAX as u64).to_string(),
    ]);
    let lines = match output_lines(&cmd, String::new(), std::time::Duration::from_secs(120)) {
        Ok(l) => l,
        Err(e) => {
            report.errors.push(format!("C#: {e}"));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for line in lines {
        let parts: Vec<&str> = line.split('\t').collect();
        match parts.as_slice() {
            ["made", ty, json, hex, direction @ ..] => {
                match (serde_json::from_str(json), unhex(hex)) {
                    (Ok(json), Some(bytes)) => out.push(Made {
                        ty: ty.to_string(),
                        json,
                        bytes,
                        from_client: direction.first().map(|d| *d == "c"),
                    }),
                    _ => report.errors.push(format!("C#: not a value line: {line}")),
                }
            }
            ["refused", ..] => report.csharp_refused += 1,
            ["needs-state", ..] => report.csharp_needs_state += 1,
            ["self", ty, hex, why] => report.disagreements.push(format!(
                "C# encodes a {ty} as {hex} and cannot decode it: {why}"
            )),
            _ => report.errors.push(format!("C#: {line}")),
        }
    }
    out
}

/// The values the C# made, each decoded by the crate as its type (found by name), compared with
/// the C#'s and encoded back by the crate to the same bytes; what they reached is noted.
fn check_made<P: SerdeProtocol>(made: &[Made], report: &mut Report) {
    struct ByName<'m> {
        made: &'m [Made],
        problems: Vec<String>,
        agreed: usize,
        coverage: &'m crate::coverage::Coverage,
        seen: &'m mut crate::coverage::Seen,
    }
    impl SerdeTypeVisitor for ByName<'_> {
        fn visit<T: Type>(&mut self)
        where
            for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
        {
            let name = <T::Of<'_> as Codec<'_>>::NAME;
            for m in self.made.iter().filter(|m| m.ty == name) {
                let (decoded, notes) = match m.from_client {
                    Some(fc) => <T::Of<'_> as Codec<'_>>::dissect_from(&m.bytes, fc),
                    None => <T::Of<'_> as Codec<'_>>::dissect(&m.bytes),
                };
                let problem = match decoded {
                    Err(e) => Some(format!(
                        "the crate does not decode the {name} the C# encoded as {}: {e}",
                        hex(&m.bytes)
                    )),
                    Ok(v) => match (
                        serde_json::to_value(&v),
                        match m.from_client {
                            Some(fc) => v.encode_from(fc),
                            None => v.encode(),
                        },
                    ) {
                        (Ok(json), _) if !same(&json, &m.json) => Some(format!(
                            "the crate decodes the {name} the C# encoded as {} to {json}, the C# to {}",
                            hex(&m.bytes),
                            m.json
                        )),
                        (_, Ok(again)) if again != m.bytes => Some(format!(
                            "the crate decodes the {name} the C# encoded as {} and encodes it as {}",
                            hex(&m.bytes),
                            hex(&again)
                        )),
                        (_, Err(e)) => Some(format!(
                            "the crate decodes the {name} the C# encoded as {} but cannot encode it: {e}",
                            hex(&m.bytes)
                        )),
                        _ => None,
                    },
                };
                match problem {
                    Some(p) => self.problems.push(p),
                    None => self.agreed += 1,
                }
                self.seen.see(&notes, self.coverage);
            }
        }
    }
    let mut seen = std::mem::take(&mut report.csharp_seen);
    let mut by_name = ByName {
        made,
        problems: Vec::new(),
        agreed: 0,
        coverage: &report.coverage,
        seen: &mut seen,
    };
    P::each_serde_type(&mut by_name);
    let (agreed, problems) = (by_name.agreed, by_name.problems);
    report.csharp_seen = seen;
    report.csharp_made += made.len();
    report.csharp_made_agreed += agreed;
    report.disagreements.extend(problems);
}

/// A datagram as the crate's conversation decoded it, as JSON ([`SerdeProtocol::serialize_datagram`]).
struct DatagramJson<'d, 'a, P: SerdeProtocol>(&'d P::Datagram<'a>);

impl<P: SerdeProtocol> serde::Serialize for DatagramJson<'_, '_, P> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        P::serialize_datagram(self.0, s)
    }
}

/// Conversations whose messages need the lists the earlier ones announced: each decoded by
/// the C# with its `ConversationState` (`new` between them) and by the crate with its
/// conversation, values compared and encoded back to the same bytes.
fn check_conversations<P: SerdeProtocol>(
    program: &[String],
    conversations: &[crate::stateful::Stateful],
    report: &mut Report,
) {
    let mut lines = Vec::new();
    let mut messages = Vec::new();
    let mut expected = Vec::new();
    for c in conversations {
        // `new`: the messages after it share one ConversationState.
        lines.push("new".to_string());
        messages.push(Vec::new());
        expected.push(None);
        let mut conv = P::Conversation::default();
        let mut notes_conv = P::Conversation::default();
        for m in &c.datagrams {
            let want = P::decode_datagram(&mut conv, c.from_client, m)
                .ok()
                .and_then(|d| serde_json::to_value(DatagramJson::<P>(&d)).ok());
            let notes = P::datagram_notes_in(&mut notes_conv, c.from_client, m).1;
            report.csharp_seen.see(&notes, &report.coverage);
            lines.push(hex(m));
            messages.push(m.clone());
            expected.push(want);
        }
    }
    let timeout = std::time::Duration::from_secs(60 + lines.len() as u64 / 100);
    let answers = match run_lines(program, lines, timeout) {
        Ok(a) => a,
        Err(e) => {
            report.errors.push(format!("C#: {e}"));
            return;
        }
    };
    for ((m, want), got) in messages.iter().zip(&expected).zip(&answers) {
        let Some(want) = want else { continue };
        report.csharp_in_conversations += 1;
        compare_answer(m, want, got, report);
    }
}

/// One message the crate decoded to `want`, as the C# answered it.
fn compare_answer(m: &[u8], want: &serde_json::Value, got: &Answer, report: &mut Report) {
    let problem = match got {
        Answer::Ok(json, _) if !same(json, want) => Some(format!(
            "C# decodes {} as {json}, the crate as {want}",
            hex(m)
        )),
        Answer::Ok(_, again) if *again != hex(m) => Some(format!(
            "C# decodes {} and encodes it back as {again}",
            hex(m)
        )),
        Answer::Ok(..) => None,
        Answer::EncodeError(_, why) => Some(format!(
            "C# decodes {} but refuses to encode it back: {why}",
            hex(m)
        )),
        Answer::Error(why) => Some(format!(
            "C# does not decode {}, which the crate encoded: {why}",
            hex(m)
        )),
        Answer::Crash(why) => Some(format!("C# crashes decoding {}: {why}", hex(m))),
        Answer::New => Some(format!("C# answered `new` for {}", hex(m))),
    };
    match problem {
        Some(p) => report.disagreements.push(p),
        None => report.csharp_agreed += 1,
    }
}

/// The C# check of an application: `n` values the C# makes of each message, read by the crate.
pub fn check_made_only<P: SerdeProtocol>(
    program: &[String],
    n: usize,
    seed: u64,
    report: &mut Report,
) {
    let made_values = made(program, n.max(100), seed, report);
    check_made::<P>(&made_values, report);
}

/// The whole C# check of protocol `P`: `valid` messages (encoded by the crate) compared value
/// by value and re-encoded byte for byte, `hostile` datagrams raising only `DecodeException`;
/// then values the C# made of every type the decoders read directly, checked by the crate.
/// What both directions reached is measured against the schema's types and cases.
pub fn check<P: SerdeProtocol>(
    program: &[String],
    valid: &[(bool, Vec<u8>)],
    conversations: &[crate::stateful::Stateful],
    hostile: &[Vec<u8>],
    seed: u64,
    report: &mut Report,
) {
    for (from_client, m) in valid {
        let notes = P::datagram_notes(*from_client, m).1;
        report.csharp_seen.see(&notes, &report.coverage);
    }
    let made_values = made(program, valid.len().max(100), seed, report);
    check_made::<P>(&made_values, report);
    let expected = crate_values::<P>(valid);
    // Each of the crate's messages with its direction (`c HEX`, `s HEX`), the hostile ones
    // without.
    let lines: Vec<String> = valid
        .iter()
        .map(|(fc, m)| format!("{} {}", if *fc { "c" } else { "s" }, hex(m)))
        .chain(hostile.iter().map(|m| hex(m)))
        .collect();
    let valid: Vec<Vec<u8>> = valid.iter().map(|(_, m)| m.clone()).collect();
    // Generous: Mono starts in a fraction of a second and decodes thousands a second.
    let timeout = std::time::Duration::from_secs(60 + lines.len() as u64 / 100);
    let answers = match run_lines(program, lines, timeout) {
        Ok(a) => a,
        Err(e) => {
            report.errors.push(format!("C#: {e}"));
            return;
        }
    };
    let (valid_answers, hostile_answers) = answers.split_at(valid.len());
    for ((m, want), got) in valid.iter().zip(&expected).zip(valid_answers) {
        let Some(want) = want else {
            continue;
        };
        report.csharp_compared += 1;
        compare_answer(m, want, got, report);
    }
    check_conversations::<P>(program, conversations, report);
    if report.csharp_compared == 0 {
        report
            .errors
            .push("C#: not one message the crate decodes as its root to compare".into());
    }
    for (m, got) in hostile.iter().zip(hostile_answers) {
        report.csharp_hostile += 1;
        if let Answer::Crash(why) = got {
            report.errors.push(format!(
                "C# raises more than DecodeException on {}: {why}",
                hex(m)
            ));
        }
    }
}
