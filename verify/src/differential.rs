//! The differential test of one protocol: arbitrary valid messages encoded by its crate, written
//! to one capture, dissected by its dissector in one tshark run, every field compared; then
//! hostile datagrams (truncations, bit flips, random bytes) that must raise no Lua error and no
//! panic in the crate.

use crate::compare::hex;
use crate::conversation::compare_opening;
use crate::coverage::Seen;
use crate::frame::compare_frame;
use crate::pcap::{write_pcap, Datagram};
use crate::report::{capture_path, keep_or_remove, Options, Report};
use crate::rng::Rng;
use crate::tshark::{dissect, Dissection};
use std::path::PathBuf;
use wiregen_runtime::{ArbitraryProtocol, Codec, DecodeError, DecodeErrorKind, Protocol};

/// Runs [`verify`], then, when [`Options::csharp`] names the C# proof program,
/// [`verify_csharp`]: the whole proof of a schema's three outputs.
pub fn verify_all<P: ArbitraryProtocol + wiregen_runtime::SerdeProtocol>(opts: &Options) -> Report {
    let mut report = verify::<P>(opts);
    if opts.csharp.is_some() && report.fatal.is_none() {
        verify_csharp::<P>(opts, &mut report);
    }
    report
}

/// The check of the schema's C# codec against the crate (`crate::csharp`), with the proof
/// program [`Options::csharp`] names: arbitrary valid messages of the crate (another draw than
/// [`verify`]'s), hostile datagrams made from them, and values the C# makes itself. Adds to
/// `report`; no tshark.
pub fn verify_csharp<P: ArbitraryProtocol + wiregen_runtime::SerdeProtocol>(
    opts: &Options,
    report: &mut Report,
) {
    let Some(program) = &opts.csharp else {
        report.errors.push("C#: no proof program named".into());
        return;
    };
    if report.coverage.types.is_empty() {
        report.coverage = opts.coverage.clone();
        report.unreachable = opts.unreachable.clone();
    }
    if opts.csharp_made_only {
        report.csharp_made_only = true;
        crate::csharp::check_made_only::<P>(program, opts.messages, opts.seed, report);
        return;
    }
    let mut rng = Rng(opts.seed ^ 0xc5);
    let mut scratch = Report {
        coverage: opts.coverage.clone(),
        unreachable: opts.unreachable.clone(),
        ..Report::default()
    };
    let valid = valid_messages::<P>(opts.messages, &mut rng, &mut scratch);
    if valid.is_empty() {
        report.errors.push("C#: no valid message to compare".into());
        return;
    }
    let hostile: Vec<Vec<u8>> = hostile_payloads(&valid, opts.hostile, &mut rng)
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    let conversations =
        crate::stateful::arbitrary_stateful::<P>(opts.messages / 10, &mut rng, &mut scratch);
    crate::csharp::check::<P>(program, &valid, &conversations, &hostile, opts.seed, report);
}

/// Runs the whole check for protocol `P` (see the module documentation).
pub fn verify<P: ArbitraryProtocol>(opts: &Options) -> Report {
    let mut report = Report {
        protocol: P::NAME,
        wanted: opts.messages,
        coverage: opts.coverage.clone(),
        unreachable: opts.unreachable.clone(),
        ..Report::default()
    };
    if let Err(why) = run::<P>(opts, &mut report) {
        report.fatal = Some(why);
    }
    report
}

fn run<P: ArbitraryProtocol>(opts: &Options, report: &mut Report) -> Result<(), String> {
    let (port, mut args) = port_and_args::<P>(opts);
    args.extend(opts.tshark_args.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut rng = Rng(opts.seed);
    let opening = opening::<P>(&mut rng)?;
    let messages = valid_messages::<P>(opts.messages, &mut rng, report);
    if messages.is_empty() {
        // The crate may have refused its own output: that is the finding, not the refusals.
        let own = match report.disagreements.first() {
            Some(first) => format!(
                "; {} encoded messages did not decode back, the first: {first}",
                report.disagreements.len()
            ),
            None => String::new(),
        };
        return Err(format!(
            "no arbitrary value of {} was accepted by the encoder in {} tries{own}",
            std::any::type_name::<P::Root<'_>>(),
            report.tried
        ));
    }
    // A protocol only on TCP is verified over TCP: its messages framed on two streams cut
    // anywhere.
    if let (Some(framing), true) = (P::TCP_FRAMING, P::UDP_PORTS.is_empty()) {
        return over_tcp::<P>(opts, framing, opts.port, &messages, &mut rng, report);
    }
    // With an opening, every message follows it in one conversation; else each message is a
    // conversation of its own (nothing one message leaves behind changes the next).
    let one_conversation = !opening.is_empty();
    let mut datagrams: Vec<Datagram> = opening
        .iter()
        .map(|(from_server, payload)| between(port, 40000, *from_server, payload))
        .collect();
    datagrams.extend(messages.iter().enumerate().map(|(i, (from_client, m))| {
        let client = if one_conversation {
            40000
        } else {
            client_port(port, i)
        };
        between(port, client, !from_client, m)
    }));
    // Then payloads cut into pieces, and messages after the lists they need announced, each in
    // a conversation of its own.
    let pieces = crate::pieces::arbitrary_pieces::<P>(opts.messages / 20, &mut rng, report);
    let pieces_from = datagrams.len();
    datagrams.extend(crate::pieces::datagrams(port, &opening, &pieces, between));
    let stateful = crate::stateful::arbitrary_stateful::<P>(opts.messages / 20, &mut rng, report);
    let stateful_from = datagrams.len();
    datagrams.extend(crate::stateful::datagrams(
        port, &opening, &stateful, between,
    ));
    let pcap = capture_path(opts, P::NAME, "valid");
    write_pcap(&pcap, &datagrams).map_err(|e| format!("{}: {e}", pcap.display()))?;
    let luas: Vec<&std::path::Path> = opts.luas.iter().map(PathBuf::as_path).collect();
    let d = dissect(&pcap, &luas, &args)?;
    loaded(&d, P::NAME, &opts.luas)?;
    let before = report.disagreements.len() + report.errors.len();
    // The opening's datagrams, as their conversation reads them (by their order).
    let mut conversation = P::Conversation::default();
    compare_opening::<P>(&d, 0, &mut conversation, &opening, report);
    for (i, (from_client, m)) in messages.iter().enumerate() {
        let frame = opening.len() + i;
        let notes = P::datagram_notes(*from_client, m).1;
        compare_frame(&d, frame, m, &notes, report);
    }
    joins::<P>(&d, &opening, &messages, one_conversation, report);
    crate::pieces::check::<P>(&d, pieces_from, &opening, &pieces, report);
    crate::stateful::check::<P>(&d, stateful_from, &opening, &stateful, report);
    lua_errors(&d, P::NAME, opening.len(), &datagrams, &mut report.errors);
    keep_or_remove(opts, pcap, before, report);
    hostile::<P>(opts, port, &args, &messages, &mut rng, report)?;
    // A protocol on UDP and TCP is verified on both: the same messages framed on two streams.
    // (An application's messages ride its transport's: their TCP is the transport's to prove.)
    let application = messages.first().is_some_and(|(from_client, m)| {
        crate::frame::layers(&P::datagram_notes(*from_client, m).1).len() > 1
    });
    match P::TCP_FRAMING {
        Some(_) if application => {
            report.skipped.push("over TCP: an application's messages, on its transport's TCP framing (the transport's own verify proves it)".into());
            Ok(())
        }
        Some(framing) => over_tcp::<P>(opts, framing, None, &messages, &mut rng, report),
        None => Ok(()),
    }
}

/// The messages over TCP, on `port` or the schema's first TCP port (see [`crate::tcp_stream`]).
fn over_tcp<P: ArbitraryProtocol>(
    opts: &Options,
    framing: wiregen_runtime::tcp::Framing,
    port: Option<u16>,
    messages: &[(bool, Vec<u8>)],
    rng: &mut Rng,
    report: &mut Report,
) -> Result<(), String> {
    let port = port.or(P::TCP_PORTS.first().copied()).unwrap_or(40404);
    let mut args: Vec<String> = if P::TCP_PORTS.contains(&port) {
        Vec::new()
    } else {
        vec!["-d".into(), format!("tcp.port=={port},{}", P::NAME)]
    };
    args.extend(opts.tshark_args.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    crate::tcp_stream::verify_tcp::<P>(opts, framing, port, &args, messages, rng, report)
}

/// The payloads the crate's `Protocol::join` completes, frame by frame, against those the
/// dissector joins (its `joined` notes): in one conversation after the opening, or each message
/// in a conversation of its own, as the capture sends them.
fn joins<P: ArbitraryProtocol>(
    d: &Dissection,
    opening: &[(bool, Vec<u8>)],
    messages: &[(bool, Vec<u8>)],
    one_conversation: bool,
    report: &mut Report,
) {
    let mut conversation = P::Conversation::default();
    let mut state = P::Joins::default();
    let sent = opening
        .iter()
        .map(|(from_server, bytes)| (!from_server, bytes))
        .chain(
            messages
                .iter()
                .map(|(from_client, bytes)| (*from_client, bytes)),
        );
    for (frame, (from_client, bytes)) in sent.enumerate() {
        if !one_conversation {
            conversation = P::Conversation::default();
            state = P::Joins::default();
        }
        // A payload joined that does not decode (an error inside "joined") is joined all the
        // same (the dissector shows it malformed); a piece refused joins nothing.
        let crate_joins = match P::decode_datagram(&mut conversation, from_client, bytes) {
            Ok(datagram) => {
                match P::join(
                    &mut conversation,
                    &mut state,
                    from_client,
                    &datagram,
                    frame as u64,
                ) {
                    Ok(done) => done.len(),
                    Err(e) if e.field().starts_with("joined") => 1,
                    Err(_) => 0,
                }
            }
            Err(_) => 0,
        };
        let shown = d
            .experts(frame, P::NAME)
            .iter()
            .filter(|e| e.ends_with(".expert.joined"))
            .count();
        report.joined += crate_joins.min(shown);
        if crate_joins != shown {
            report.disagreements.push(format!(
                "frame {} ({}): the crate joins {crate_joins} payloads there, the dissector {shown}",
                frame + 1,
                hex(bytes)
            ));
        }
    }
}

/// A decode error that only the state of earlier messages would have avoided (a value typed by
/// a list an earlier message announces): the message is counted, not compared.
fn needs_state(e: &DecodeError) -> bool {
    matches!(
        e.kind,
        DecodeErrorKind::NoState { .. } | DecodeErrorKind::NotInList { .. }
    )
}

/// The server port, and the tshark arguments that make the dissector claim it: Decode As when
/// the schema does not register that port.
fn port_and_args<P: Protocol>(opts: &Options) -> (u16, Vec<String>) {
    let port = opts.port.or(P::UDP_PORTS.first().copied()).unwrap_or(40404);
    let args = if P::UDP_PORTS.contains(&port) {
        Vec::new()
    } else {
        vec!["-d".into(), format!("udp.port=={port},{}", P::NAME)]
    };
    (port, args)
}

/// A client's port for message `i`: never the server's.
fn client_port(server: u16, i: usize) -> u16 {
    let p = 20000 + (i % 40000) as u16;
    if p == server {
        19999
    } else {
        p
    }
}

fn between(server: u16, client: u16, from_server: bool, payload: &[u8]) -> Datagram {
    let (src_port, dst_port) = if from_server {
        (server, client)
    } else {
        (client, server)
    };
    Datagram {
        src_port,
        dst_port,
        payload: payload.to_vec(),
    }
}

/// Arbitrary opening datagrams that the encoder accepts (empty when the protocol has none).
pub(crate) fn opening<P: ArbitraryProtocol>(rng: &mut Rng) -> Result<Vec<(bool, Vec<u8>)>, String> {
    for _ in 0..1000 {
        let len = 64 + rng.below(400) as usize;
        let raw = rng.bytes(len);
        let mut u = arbitrary::Unstructured::new(&raw);
        if let Ok(Some(datagrams)) = P::arbitrary_opening(&mut u) {
            return Ok(datagrams);
        }
    }
    Err("no arbitrary opening datagrams were accepted by the encoder in 1000 tries".into())
}

/// Up to `n` arbitrary messages the encoder accepts and the decoder reads back alone, each
/// checked first against the crate itself: it decodes and encodes back to the same bytes. Then,
/// while a type or case of the coverage is unreached, up to `n` more that each reach something
/// the others did not (a rare case of a long switch), drawn in at most `10 n` more tries.
pub(crate) fn valid_messages<P: ArbitraryProtocol>(
    n: usize,
    rng: &mut Rng,
    report: &mut Report,
) -> Vec<(bool, Vec<u8>)> {
    let mut out = Vec::new();
    let mut guide = Seen::default();
    let budget = n.saturating_mul(50).max(1);
    let guided_budget = budget + n.saturating_mul(10);
    loop {
        let more = out.len() < n;
        let guided = !more
            && !report
                .coverage
                .unreached(&guide, &report.unreachable)
                .is_empty();
        if !(more && report.tried < budget
            || guided && report.tried < guided_budget && out.len() < 2 * n)
        {
            break;
        }
        report.tried += 1;
        let len = 16 + rng.below(400) as usize;
        let raw = rng.bytes(len);
        let mut u = arbitrary::Unstructured::new(&raw);
        // Sent by either side: a layout may depend on the direction (`@from_client`).
        let from_client = rng.below(2) == 0;
        let bytes = match P::arbitrary_message(&mut u, from_client) {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(e)) => {
                report.refuse(&e);
                continue;
            }
            Err(_) => continue,
        };
        // Ok: agrees with itself; Err(None): needs earlier state; Err(Some): disagrees.
        let verdict: Result<(), Option<String>> =
            match <P::Root<'_> as Codec<'_>>::decode_from(&bytes, from_client) {
                Ok(back) => match back.encode_from(from_client) {
                    Ok(again) if again == bytes => Ok(()),
                    Ok(again) => Err(Some(format!(
                        "the crate decodes {} and encodes it back as {}",
                        hex(&bytes),
                        hex(&again)
                    ))),
                    Err(e) => Err(Some(format!(
                        "the crate decodes {} but cannot encode it back: {e}",
                        hex(&bytes)
                    ))),
                },
                Err(e) if needs_state(&e) => Err(None),
                Err(e) => Err(Some(format!(
                    "the crate encoded {} and cannot decode it: {e}",
                    hex(&bytes)
                ))),
            };
        // What the root does not decode (an application's message inside it) decodes too.
        let verdict = verdict.and_then(|()| match P::datagram_notes(from_client, &bytes).0 {
            Ok(()) => Ok(()),
            Err(e) if needs_state(&e) => Err(None),
            Err(e) => Err(Some(format!(
                "the crate encoded {} and cannot decode what it carries: {e}",
                hex(&bytes)
            ))),
        });
        match verdict {
            Ok(()) => {
                // Past the `n` asked for, only a message that reaches something new.
                let notes = P::datagram_notes(from_client, &bytes).1;
                if !more && !guide.adds(&notes, &report.coverage) {
                    continue;
                }
                guide.see(&notes, &report.coverage);
                out.push((from_client, bytes))
            }
            Err(None) => report.stateful += 1,
            Err(Some(problem)) => report.disagreements.push(problem),
        }
    }
    out
}

/// Fails when the dissector shows nothing at all: it did not load (Wireshark 4.4 and later run
/// no Lua as root) or registered under another name.
fn loaded(d: &Dissection, name: &str, luas: &[PathBuf]) -> Result<(), String> {
    if let Some(stderr) = d.load_error() {
        return Err(format!("the dissector failed to load:\n{stderr}"));
    }
    let shown = (0..d.frames.len()).any(|i| !d.fields(i, name).is_empty());
    if shown {
        return Ok(());
    }
    let root = std::env::var("USER").is_ok_and(|u| u == "root");
    Err(format!(
        "tshark showed no field of '{name}' with {}{}",
        luas.iter()
            .map(|l| l.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        if root {
            " (Wireshark 4.4 and later run no Lua plugin as root: run as another user)"
        } else {
            ""
        }
    ))
}

/// Every Lua error (`_ws.lua.error`) and internal error (`<proto>.expert.internal`) of the
/// frames from `first` on.
fn lua_errors(
    d: &Dissection,
    name: &str,
    first: usize,
    datagrams: &[Datagram],
    errors: &mut Vec<String>,
) {
    let internal = format!("{name}.expert.internal");
    for i in first..d.frames.len() {
        let bytes = datagrams
            .get(i)
            .map(|g| hex(&g.payload))
            .unwrap_or_default();
        let caught = d.frames[i].iter().filter(|f| f.name == internal);
        for f in d.lua_errors(i).into_iter().chain(caught) {
            errors.push(format!("frame {} ({bytes}): {}", i + 1, f.showname));
        }
    }
}

/// Hostile input: each valid message cut short, with bits flipped, and random datagrams, each
/// in a conversation of its own. The crate must return (an error or a value, never a panic),
/// the dissector must raise no Lua error.
/// `n` hostile datagrams made from `valid` ones: truncated, a few bits flipped, or random bytes
/// (mostly short: where every early branch of a layout is reached).
pub(crate) fn hostile_payloads(
    valid: &[(bool, Vec<u8>)],
    n: usize,
    rng: &mut Rng,
) -> Vec<(bool, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let (from_client, m) = &valid[rng.below(valid.len() as u64) as usize];
            let bytes = match i % 4 {
                0 => m[..rng.below(m.len() as u64) as usize].to_vec(),
                1 | 2 => {
                    let mut m = m.clone();
                    for _ in 0..=rng.below(3) {
                        if !m.is_empty() {
                            let at = rng.below(m.len() as u64) as usize;
                            m[at] ^= 1 << rng.below(8);
                        }
                    }
                    m
                }
                _ if i % 16 == 3 => rng.bytes_below(300),
                _ => rng.bytes_below(16),
            };
            (*from_client, bytes)
        })
        .collect()
}

fn hostile<P: ArbitraryProtocol>(
    opts: &Options,
    port: u16,
    args: &[&str],
    valid: &[(bool, Vec<u8>)],
    rng: &mut Rng,
    report: &mut Report,
) -> Result<(), String> {
    if opts.hostile == 0 {
        return Ok(());
    }
    let payloads = hostile_payloads(valid, opts.hostile, rng);
    let before = report.disagreements.len() + report.errors.len();
    for (from_client, p) in &payloads {
        let decoded = std::panic::catch_unwind(|| {
            let _ = <P::Root<'_> as Codec<'_>>::decode_from(p, *from_client);
            let _ = P::datagram_notes(*from_client, p);
        });
        if decoded.is_err() {
            report
                .errors
                .push(format!("the crate panics decoding {}", hex(p)));
        }
    }
    let datagrams: Vec<Datagram> = payloads
        .iter()
        .enumerate()
        .map(|(i, (from_client, p))| between(port, client_port(port, i), !from_client, p))
        .collect();
    let pcap = capture_path(opts, P::NAME, "hostile");
    write_pcap(&pcap, &datagrams).map_err(|e| format!("{}: {e}", pcap.display()))?;
    let luas: Vec<&std::path::Path> = opts.luas.iter().map(PathBuf::as_path).collect();
    let d = dissect(&pcap, &luas, args)?;
    report.hostile = datagrams.len();
    lua_errors(&d, P::NAME, 0, &datagrams, &mut report.errors);
    for line in crate::tshark::hidden_lua_errors(&pcap, &luas, args, &[P::NAME])? {
        report
            .errors
            .push(format!("a Lua error with the tree hidden: {line}"));
    }
    keep_or_remove(opts, pcap, before, report);
    Ok(())
}
