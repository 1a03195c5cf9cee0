//! `wirecat check` on the real captures of the reference implementations (tests/captures, from
//! ../shared/captures): every datagram of the protocol decodes, with conversation state, and
//! encodes back to the same bytes.

mod common;

use common::wirecat;

fn capture(name: &str) -> String {
    format!("{}/../tests/captures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Checks `protocol` on `file` and returns the summary line.
fn check(protocol: &str, file: &str, extra: &[&str]) -> String {
    let path = capture(file);
    let mut args = vec!["check", protocol, path.as_str()];
    args.extend_from_slice(extra);
    let (ok, out, err) = wirecat(&args);
    assert!(ok, "wirecat check {protocol} {file} failed:\n{out}{err}");
    out.lines().last().unwrap_or_default().to_string()
}

#[test]
fn riptide_2_0_session_round_trips() {
    let last = check("riptide_2_0", "riptide20-udp.pcap", &[]);
    assert!(
        last.starts_with("83/83 messages ok (83 UDP datagrams, 0 TCP segments; 83 frames"),
        "{last}"
    );
}

#[test]
fn riptide_2_1_session_round_trips() {
    let last = check("riptide_2_1", "riptide21-udp.pcap", &[]);
    assert!(
        last.starts_with("93/93 messages ok (93 UDP datagrams, 0 TCP segments; 93 frames"),
        "{last}"
    );
}

#[test]
fn game_protocol_session_round_trips_with_its_opening() {
    let last = check("game_protocol", "gameproto-start.pcap", &[]);
    assert!(
        last.starts_with("700/700 datagrams ok (700 frames"),
        "{last}"
    );
}

#[test]
fn dnp_session_round_trips_with_link_state_per_connection() {
    let last = check("dnp", "dnp.pcap", &[]);
    assert!(last.starts_with("35/35 datagrams ok (35 frames"), "{last}");
    // Frame 21: the client's Link Update of the read-write link the server announced
    // (WIRE-NOTES §3): hp 77 and position (-3.5, 8), typed by the server's Link State.
    let path = capture("dnp.pcap");
    let (ok, out, err) = wirecat(&["read", "dnp", &path]);
    assert!(ok, "{err}");
    let line: serde_json::Value = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .find(|v: &serde_json::Value| v["frame"] == 21)
        .expect("frame 21");
    assert_eq!(line["from"], "client");
    let values = &line["value"]["body"]["LinkUpdate"]["links"][0]["values"];
    assert_eq!(values[0]["value"]["UInt8"]["value"], 77, "{line}");
    assert_eq!(values[1]["value"]["Vector2F16"]["x"], -3.5, "{line}");
    assert_eq!(values[1]["value"]["Vector2F16"]["y"], 8.0, "{line}");
}

#[test]
fn rtype_game_build_round_trips_on_both_servers() {
    // The login server (8080) and the lobby's game server (9000).
    let last = check(
        "rtype_impl",
        "rtype.pcap",
        &["--port", "8080", "--port", "9000"],
    );
    assert!(
        last.starts_with("102/102 datagrams ok (102 frames"),
        "{last}"
    );
}

/// `read` writes each line straight from the decoded value: the keys in their order (frame,
/// direction, endpoints, then the value), and an f32 as the f32 it is (the game's 0.2f, not the
/// f64 nearest it, 0.20000000298023224).
#[test]
fn read_writes_lines_in_order_and_floats_as_they_are() {
    let path = capture("rtype.pcap");
    let (ok, out, err) = wirecat(&[
        "read",
        "rtype_impl",
        &path,
        "--port",
        "8080",
        "--port",
        "9000",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 102);
    for line in out.lines() {
        assert!(line.starts_with("{\"frame\":"), "{line}");
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys[..4], ["frame", "from", "src", "dst"], "{line}");
        assert!(v.get("value").is_some(), "{line}");
    }
    assert!(out.contains("\"shoot_cooldown\":0.2}"), "{out}");
    assert!(!out.contains("0.20000000298023224"));
}

#[test]
fn failures_name_the_frame_and_the_field() {
    // The RFC's R-Type reads the game build's lobby traffic (port 9000) as an RFC packet: its
    // payloads disagree with the RFC's sizes, and wirecat says where.
    let path = capture("rtype.pcap");
    let (ok, out, _) = wirecat(&["check", "rtype", &path, "--port", "9000"]);
    assert!(!ok);
    assert!(
        out.contains(
            "frame 92: does not decode: field 'payload' at byte 21: 4 unexpected trailing bytes"
        ),
        "{out}"
    );
    assert!(out.lines().last().unwrap().ends_with("0 not UDP)"), "{out}");
}

#[test]
fn a_file_that_is_not_a_capture_is_refused() {
    let (ok, _, err) = wirecat(&[
        "check",
        "rtype",
        concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
    ]);
    assert!(!ok);
    assert!(err.contains("not a pcap or pcapng capture"), "{err}");
}

/// Arena (an application on Riptide 2.1) on the 2.1 capture: its Chat ('gg wp') and Spawn
/// messages decode inside the transport's datagrams and encode back through it; the capture's
/// other user messages (ids 10-13) are not Arena's, and `check` says so for each.
#[test]
fn an_application_reads_its_messages_inside_the_transport() {
    let path = capture("riptide21-udp.pcap");
    let (ok, out, err) = wirecat(&["read", "arena", path.as_str()]);
    assert!(!ok, "ids 10-13 are not Arena's: {err}");
    assert!(
        out.contains(r#""message":{"Chat":{"text":"gg wp"}}"#),
        "{out}"
    );
    assert!(
        out.contains(r#""message":{"Spawn":{"entities":[{"id":7,"kind":"Monster","x":-5,"y":300}"#),
        "{out}"
    );
    let (ok, out, _) = wirecat(&["check", "arena", path.as_str()]);
    assert!(!ok);
    let failures: Vec<&str> = out.lines().filter(|l| l.starts_with("frame ")).collect();
    assert_eq!(failures.len(), 10, "{out}");
    for f in failures {
        assert!(
            f.contains("field 'body.payload.message_id'") && f.contains("unknown value 0x"),
            "{f}"
        );
    }
    assert!(
        out.ends_with(
            "83/93 messages ok (93 UDP datagrams, 0 TCP segments; 93 frames in the capture, 0 UDP datagrams and 0 TCP segments elsewhere, 0 neither UDP nor TCP)\n"
        ),
        "{out}"
    );
}

/// A capture is read as a stream: from standard input as from a file, with the same counts;
/// one cut short ends in an error naming the last whole frame, after what it did read.
#[test]
fn a_capture_streams_from_standard_input_and_a_cut_one_says_where() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let bytes = std::fs::read(capture("riptide21-udp.pcap")).unwrap();
    let run = |input: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wirecat"))
            .args(["check", "riptide_2_1", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.success(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (ok, out, err) = run(&bytes);
    assert!(ok, "{out}{err}");
    assert!(
        out.starts_with("93/93 messages ok (93 UDP datagrams"),
        "{out}"
    );
    // Cut in the middle of its last block (after the 93 packets).
    let (ok, _, err) = run(&bytes[..bytes.len() - 5]);
    assert!(!ok);
    assert!(
        err.contains("pcapng, after frame 93: the file ends in the middle of a record"),
        "{err}"
    );
}

/// A gzip-compressed capture (`.pcap.gz`) is read as it is: the same datagrams, the same counts.
#[test]
fn a_gzip_compressed_capture_reads_like_the_plain_one() {
    use std::io::Write;
    let bytes = std::fs::read(capture("dnp.pcap")).unwrap();
    let dir = std::env::temp_dir().join(format!("wirecat-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gz = dir.join("dnp.pcap.gz");
    let mut encoder =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    encoder.write_all(&bytes).unwrap();
    encoder.finish().unwrap();
    let (ok, out, err) = wirecat(&["check", "dnp", gz.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(
        out.lines()
            .last()
            .unwrap()
            .starts_with("35/35 datagrams ok (35 frames"),
        "{out}"
    );
}

/// A DNP Long Link State that is both its first and last part (the issue's example): `read`
/// shows the joined values decoded (the value 1.5), not only the part's bytes.
#[test]
fn read_shows_a_joined_long_link_state_decoded() {
    use pcap_file::pcap::{PcapPacket, PcapWriter};
    let payload = wirecat::parse_hex("0b070006000701006e02000107090000c03f").unwrap();
    let mut frame = Vec::new();
    etherparse::PacketBuilder::ethernet2([0; 6], [0; 6])
        .ipv4([127, 0, 0, 1], [127, 0, 0, 1], 64)
        .udp(50000, 3413)
        .write(&mut frame, &payload)
        .unwrap();
    let dir = std::env::temp_dir().join(format!("wirecat-lls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long-link-state.pcap");
    let mut writer = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    let time = std::time::Duration::from_secs(1);
    writer
        .write_packet(&PcapPacket::new(time, frame.len() as u32, &frame))
        .unwrap();
    drop(writer);
    let (ok, out, err) = wirecat(&["read", "dnp", path.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    let line: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let joined = &line["joined"]["LongLinkState"];
    assert_eq!(
        (&joined["link_id"], &joined["parts"]),
        (&6.into(), &1.into()),
        "{line}"
    );
    assert_eq!(line["joined_from"], serde_json::json!([1]), "{line}");
    let values = &joined["values_chunk"]["values"];
    assert_eq!(values[0]["value"]["UInt8"]["value"], 7, "{line}");
    assert_eq!(values[1]["value"]["Float32"]["value"], 1.5, "{line}");
}
