//! wirecat end to end: decode the WIRE-NOTES R-Type vector to JSON, edit it, encode it back.

mod common;

use common::wirecat;

const LOGIN: &str = "ce d1 01 01 01 00 00 00 00 00 00 00 00 00 00 00 0e 00 2e e9 07 50 6c 61 79 65 72 31 01 00 00 00 ec 03";

#[test]
fn decode_prints_schema_names_and_numbers() {
    let (ok, out, err) = wirecat(&["decode", "rtype", LOGIN]);
    assert!(ok, "{err}");
    assert_eq!(
        out.trim(),
        r#"{"flags":["RELIABLE"],"sequence":1,"ack":0,"fragment_id":0,"fragment_index":0,"fragment_count":0,"payload":{"ReqLogin":{"username":"Player1","version":1,"preferred_fragment_size":1004}}}"#
    );
}

#[test]
fn encode_reproduces_the_bytes_and_fills_derived_fields() {
    let (_, json, _) = wirecat(&["decode", "rtype", LOGIN]);
    let (ok, hex, err) = wirecat(&["encode", "rtype", json.trim()]);
    assert!(ok, "{err}");
    assert_eq!(hex.trim(), LOGIN);
    // A longer name: username_len, payload_size and checksum follow.
    let edited = json.replace("Player1", "Player12");
    let (ok, hex, _) = wirecat(&["encode", "rtype", edited.trim()]);
    assert!(ok);
    let (ok, back, err) = wirecat(&["decode", "rtype", hex.trim()]);
    assert!(ok, "{err}");
    assert!(back.contains("\"username\":\"Player12\""));
    assert!(
        hex.starts_with("ce d1 01 01 01 00 00 00 00 00 00 00 00 00 00 00 0f 00"),
        "{hex}"
    );
}

#[test]
fn other_types_and_errors() {
    let (ok, out, _) = wirecat(&[
        "decode",
        "rtype",
        "--type",
        "EntityState",
        "01000000 6400 c800 03",
    ]);
    assert!(ok);
    assert_eq!(out.trim(), r#"{"entity_id":1,"x":100,"y":200,"type":3}"#);
    let (ok, _, err) = wirecat(&["decode", "rtype", "ce d1 01"]);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "wirecat: field 'flags' at byte 3: truncated: needs 1 bytes, 0 available"
    );
    let (ok, _, err) = wirecat(&["encode", "rtype", r#"{"flags":["NOPE"]}"#]);
    assert!(!ok);
    assert!(err.contains("unknown name 'NOPE'"), "{err}");
}

/// An application's datagrams are its transport's: decoded whole, the game message inside, and
/// errors in it named from the datagram (the WIRE-NOTES Riptide 2.1 vector with Arena's Chat).
#[test]
fn an_application_decodes_whole_transport_datagrams() {
    let (ok, out, err) = wirecat(&["decode", "arena", "17 00 20 20 80 94 06"]);
    assert!(ok, "{err}");
    assert_eq!(
        out.trim(),
        r#"{"transport":{"body":{"Reliable":{"sequence_id":1,"message_id":2,"payload":{"bytes":"02486900","bits":28}}}},"message":{"Chat":{"text":"Hi"}}}"#
    );
    // Cut inside the text: the game's field, at its bit in the datagram.
    let (ok, _, err) = wirecat(&["decode", "arena", "17 00 20 20 80 94"]);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "wirecat: field 'body.payload.text' at bit 36 (byte 4): truncated: needs 2 bytes, 1 available"
    );
    // A payload alone is decoded by naming its type; a datagram cannot be encoded from the
    // application alone.
    let (ok, out, _) = wirecat(&["decode", "arena", "--type", "Chat", "02 48 69"]);
    assert!(ok);
    assert_eq!(out.trim(), r#"{"text":"Hi"}"#);
    // The realigned payload of riptide21-udp.pcap frame 41 as the dissector shows it: 52 bits,
    // 48 of them the Chat, so its last byte holds only padding: taken so when said so
    // (`--realigned`), strict otherwise (PDL's TrailingBytesError vectors end in a zero byte).
    let chat = ["decode", "arena", "--type", "Chat", "05676720777000"];
    let (ok, _, err) = wirecat(&chat);
    assert!(!ok);
    assert!(err.contains("unexpected trailing bytes"), "{err}");
    let (ok, out, err) = wirecat(&[&chat[..], &["--realigned"]].concat());
    assert!(ok, "{err}");
    assert_eq!(out.trim(), r#"{"text":"gg wp"}"#);
    let (ok, _, err) = wirecat(&[
        "decode",
        "arena",
        "--realigned",
        "--type",
        "Chat",
        "0567672077700001",
    ]);
    assert!(!ok);
    assert!(err.contains("unexpected trailing bytes"), "{err}");
    let (ok, _, err) = wirecat(&["encode", "arena", "{}"]);
    assert!(!ok);
    assert!(err.contains("'arena' is an application"), "{err}");
}

/// `decode` and `encode` take files and standard input as well as arguments: a message too
/// large for a command line (here a 300 KB DNP message, raw and as hex) goes through whole.
#[test]
fn decode_and_encode_read_files_and_standard_input() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("wirecat-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The R-Type login as raw bytes in a file, and as hex lines (twice) on standard input.
    let login = wirecat::parse_hex(LOGIN).unwrap();
    let raw = dir.join("login.bin");
    std::fs::write(&raw, &login).unwrap();
    let (ok, from_file, err) = wirecat(&["decode", "rtype", "--file", raw.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        from_file.contains("\"username\":\"Player1\""),
        "{from_file}"
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_wirecat"))
        .args(["decode", "rtype", "--hex-file", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{LOGIN}\n\n{LOGIN}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert_eq!(text.lines().next(), from_file.lines().next());
    // The JSON in a file (pretty-printed, two values) encodes to the same bytes each time.
    let value: serde_json::Value = serde_json::from_str(from_file.trim()).unwrap();
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    let json = dir.join("login.json");
    std::fs::write(&json, format!("{pretty}\n{pretty}\n")).unwrap();
    let (ok, hex, err) = wirecat(&["encode", "rtype", "--file", json.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!(hex.lines().collect::<Vec<_>>(), [LOGIN, LOGIN]);
    // A 300 KB message: DNP's Message command carries it whole.
    let big = vec![b'x'; 300_000];
    let mut dnp = vec![3u8]; // UnreliableMessage: its data to the end
    dnp.extend_from_slice(&big);
    let raw = dir.join("big.bin");
    std::fs::write(&raw, &dnp).unwrap();
    let (ok, out, err) = wirecat(&["decode", "dnp", "--file", raw.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.len() > 300_000, "{}", out.len());
    // Neither hex nor a file: clap says what is missing.
    let (ok, _, err) = wirecat(&["decode", "rtype"]);
    assert!(!ok && err.contains("<HEX>"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
