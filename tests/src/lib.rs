//! Test support: write datagrams to a pcap, dissect it with a generated Lua dissector in real
//! tshark, and compare every dissected field with what the generated Rust decoder reports.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (this crate lives in `tests/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A UDP datagram between two loopback hosts.
#[derive(Debug, Clone)]
pub struct Datagram {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload: Vec<u8>,
}

/// Bytes of Ethernet + IPv4 + UDP headers before each payload in the pcaps written here.
pub const HEADERS: usize = 14 + 20 + 8;

/// A TCP segment from the client (127.0.0.1) to the server (127.0.0.2); sequence numbers follow
/// on from the previous segment of the same direction.
#[derive(Debug, Clone)]
pub struct Segment {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload: Vec<u8>,
}

/// Writes a pcap of TCP segments (one connection per port pair, no handshake needed by tshark).
pub fn write_tcp_pcap(path: &Path, segments: &[Segment]) {
    let mut next_seq: std::collections::HashMap<(u16, u16), u32> = std::collections::HashMap::new();
    let frames: Vec<(u8, bool, Vec<u8>)> = segments
        .iter()
        .map(|s| {
            let seq = next_seq.entry((s.src_port, s.dst_port)).or_insert(1000);
            let mut t = Vec::with_capacity(20 + s.payload.len());
            t.extend_from_slice(&s.src_port.to_be_bytes());
            t.extend_from_slice(&s.dst_port.to_be_bytes());
            t.extend_from_slice(&seq.to_be_bytes());
            t.extend_from_slice(&1u32.to_be_bytes());
            t.extend_from_slice(&[5 << 4, 0x18, 0xff, 0xff, 0, 0, 0, 0]);
            t.extend_from_slice(&s.payload);
            *seq += s.payload.len() as u32;
            (6, s.src_port < s.dst_port, t)
        })
        .collect();
    write_frames(path, &frames);
}

/// Writes a classic little-endian pcap (Ethernet link type) holding `datagrams`, one per frame.
pub fn write_pcap(path: &Path, datagrams: &[Datagram]) {
    let frames: Vec<(u8, bool, Vec<u8>)> = datagrams
        .iter()
        .map(|d| {
            let mut u = Vec::with_capacity(8 + d.payload.len());
            u.extend_from_slice(&d.src_port.to_be_bytes());
            u.extend_from_slice(&d.dst_port.to_be_bytes());
            u.extend_from_slice(&((8 + d.payload.len()) as u16).to_be_bytes());
            u.extend_from_slice(&[0, 0]);
            u.extend_from_slice(&d.payload);
            (17, d.src_port < d.dst_port, u)
        })
        .collect();
    write_frames(path, &frames);
}

/// Ethernet + IPv4 frames around transport segments (protocol number, whether the sender is the
/// server, bytes). The server (the endpoint with the lower port in these tests) is 127.0.0.2.
fn write_frames(path: &Path, transport: &[(u8, bool, Vec<u8>)]) {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&262144u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    for (i, (protocol, from_server, segment)) in transport.iter().enumerate() {
        let mut frame = Vec::with_capacity(34 + segment.len());
        frame.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00]);
        let mut ip = vec![0x45, 0];
        ip.extend_from_slice(&((20 + segment.len()) as u16).to_be_bytes());
        let (src, dst) = if *from_server { (2, 1) } else { (1, 2) };
        ip.extend_from_slice(&[
            0, 0, 0x40, 0, 64, *protocol, 0, 0, 127, 0, 0, src, 127, 0, 0, dst,
        ]);
        let sum = ip
            .chunks(2)
            .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
            .sum::<u32>();
        let sum = !(((sum & 0xffff) + (sum >> 16)) as u16);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        frame.extend_from_slice(&ip);
        frame.extend_from_slice(segment);
        out.extend_from_slice(&(i as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&frame);
    }
    std::fs::write(path, out).unwrap();
}

/// tshark, or a failure that says how to get it. Tests that need it never pass without it.
pub fn tshark() -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("tshark"))
        .find(|p| p.is_file());
    match found {
        Some(p) => p,
        None => panic!(
            "tshark is not installed: this test runs the generated dissector in real tshark. \
             Run ./test.sh (it installs tshark from the OS packages) or `apt-get install tshark`."
        ),
    }
}

/// One dissected field from PDML.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub pos: usize,
    pub size: usize,
    pub show: String,
    pub value: String,
    /// The whole label as Wireshark shows it (`Custom: <empty>`).
    pub showname: String,
}

/// What tshark made of a capture: every field of every frame, plus its diagnostics.
#[derive(Debug)]
pub struct Dissection {
    pub frames: Vec<Vec<Field>>,
    /// Per frame, each top-level protocol element: its name and its fields with positions made
    /// relative to the element's start (reassembled PDUs have their own buffer).
    pub pdus: Vec<Vec<(String, Vec<Field>)>>,
    pub stderr: String,
}

impl Dissection {
    /// Fields of frame `i` named `proto.*` except expert items, in tree order.
    pub fn fields(&self, i: usize, proto: &str) -> Vec<&Field> {
        let prefix = format!("{proto}.");
        let expert = format!("{proto}.expert.");
        self.frames[i]
            .iter()
            .filter(|f| f.name.starts_with(&prefix) && !f.name.starts_with(&expert))
            .collect()
    }

    /// Each `proto` PDU of frame `i`: its fields (expert items left out), positions relative to the
    /// PDU's first byte.
    pub fn pdus(&self, i: usize, proto: &str) -> Vec<Vec<&Field>> {
        let prefix = format!("{proto}.");
        let expert = format!("{proto}.expert.");
        self.pdus[i]
            .iter()
            .filter(|(name, _)| name == proto)
            .map(|(_, fields)| {
                fields
                    .iter()
                    .filter(|f| f.name.starts_with(&prefix) && !f.name.starts_with(&expert))
                    .collect()
            })
            .collect()
    }

    /// Names of the expert items of frame `i` raised by `proto`.
    pub fn experts(&self, i: usize, proto: &str) -> Vec<&str> {
        let expert = format!("{proto}.expert.");
        self.frames[i]
            .iter()
            .filter(|f| f.name.starts_with(&expert))
            .map(|f| f.name.as_str())
            .collect()
    }
}

/// A tshark command with an isolated, empty configuration: its home, personal configuration and
/// personal plugin folders are an empty folder of the test run, so a dissector or preference a
/// user installed cannot change what the tests see.
pub fn tshark_command() -> Command {
    let home = std::env::temp_dir().join(format!("wiregen-tshark-home-{}", std::process::id()));
    let config = home.join("config");
    std::fs::create_dir_all(&config).expect("isolated tshark home");
    let mut cmd = Command::new(tshark());
    cmd.env("HOME", &home)
        .env("XDG_CONFIG_HOME", &config)
        .env("WIRESHARK_CONFIG_DIR", &config);
    cmd
}

/// Runs tshark with the dissector on `pcap` (two-pass when `two_pass`) and parses its PDML.
pub fn dissect(pcap: &Path, lua: &Path, extra: &[&str]) -> Dissection {
    let out = tshark_command()
        .arg("-r")
        .arg(pcap)
        .arg("-X")
        .arg(format!("lua_script:{}", lua.display()))
        .args(["-T", "pdml"])
        .args(extra)
        .output()
        .expect("tshark runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "tshark failed: {stderr}");
    assert!(
        !stderr.contains("Lua: Error"),
        "the dissector raised a Lua error:\n{stderr}"
    );
    let doc = roxmltree::Document::parse(&stdout).expect("tshark prints valid PDML");
    let field = |n: roxmltree::Node| -> Option<Field> {
        Some(Field {
            name: n.attribute("name")?.to_string(),
            pos: n.attribute("pos")?.parse().ok()?,
            size: n.attribute("size")?.parse().ok()?,
            show: n.attribute("show").unwrap_or("").to_string(),
            value: n.attribute("value").unwrap_or("").to_string(),
            showname: n.attribute("showname").unwrap_or("").to_string(),
        })
    };
    let packets: Vec<roxmltree::Node> = doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("packet"))
        .collect();
    let frames = packets
        .iter()
        .map(|packet| {
            packet
                .descendants()
                .filter(|n| n.has_tag_name("field"))
                .filter_map(field)
                .collect()
        })
        .collect();
    let pdus = packets
        .iter()
        .map(|packet| {
            packet
                .children()
                .filter(|n| n.has_tag_name("proto"))
                .map(|p| {
                    let base: usize = p.attribute("pos").and_then(|x| x.parse().ok()).unwrap_or(0);
                    let fields = p
                        .descendants()
                        .filter(|n| n.has_tag_name("field"))
                        .filter_map(field)
                        .map(|mut f| {
                            f.pos = f.pos.wrapping_sub(base);
                            f
                        })
                        .collect();
                    (p.attribute("name").unwrap_or("").to_string(), fields)
                })
                .collect()
        })
        .collect();
    Dissection {
        frames,
        pdus,
        stderr,
    }
}

/// A value the Rust decoder reports for a field, protocol-independently.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Int(i128),
    Float(f64),
    Bool(bool),
    Bytes(Vec<u8>),
    Str(String),
}

/// One field as the Rust decoder reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedField {
    pub name: String,
    pub offset: usize,
    pub len: usize,
    pub value: Expected,
}

/// Converts a generated crate's `FieldNote`s (each crate has its own type) into [`ExpectedField`]s.
#[macro_export]
macro_rules! expected {
    ($krate:ident, $notes:expr) => {
        $notes
            .iter()
            .map(|n| $crate::ExpectedField {
                name: n.abbrev.to_string(),
                offset: n.offset,
                len: n.len,
                value: match &n.value {
                    $krate::Value::U(v) => $crate::Expected::Int(*v as i128),
                    $krate::Value::I(v) => $crate::Expected::Int(*v as i128),
                    $krate::Value::F(v) => $crate::Expected::Float(*v),
                    $krate::Value::Bool(v) => $crate::Expected::Bool(*v),
                    $krate::Value::Bytes(v) => $crate::Expected::Bytes(v.to_vec()),
                    $krate::Value::Str(v) => $crate::Expected::Str(v.to_string()),
                },
            })
            .collect::<Vec<_>>()
    };
}

fn parse_int(show: &str) -> Option<i128> {
    match show.strip_prefix("0x") {
        Some(h) => i128::from_str_radix(h, 16).ok(),
        None => show.parse().ok(),
    }
}

/// A string as Wireshark shows it (`format_text_wsp`): whitespace control characters as a space,
/// other control characters as `\x` and their hex digits; its strings end at a NUL.
fn wireshark_escaped(s: &str) -> String {
    let mut out = String::new();
    for c in s.split('\0').next().unwrap_or("").chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares the Rust decoder's fields with tshark's, field by field: name, offset, length, value.
pub fn compare(expected: &[ExpectedField], got: &[&Field], base: usize) -> Result<(), String> {
    for (i, e) in expected.iter().enumerate() {
        let Some(g) = got.get(i) else {
            return Err(format!(
                "tshark stops before field #{i} {} (it shows {} fields)",
                e.name,
                got.len()
            ));
        };
        let place = format!("field #{i} {}", e.name);
        if g.name != e.name {
            return Err(format!("{place}: tshark shows {} there", g.name));
        }
        if g.pos != base + e.offset || g.size != e.len {
            return Err(format!(
                "{place}: Rust says bytes {}..+{}, tshark says {}..+{}",
                e.offset,
                e.len,
                g.pos.wrapping_sub(base),
                g.size
            ));
        }
        let same = match &e.value {
            Expected::Int(v) => parse_int(&g.show) == Some(*v),
            Expected::Bool(b) => g.show == if *b { "1" } else { "0" },
            // Wireshark prints floats with 6 significant digits (FLT_DIG) and doubles with 15.
            Expected::Float(f) => g
                .show
                .parse::<f64>()
                .map(|x| x == *f || (x.is_nan() && f.is_nan()) || (x - f).abs() <= 5e-6 * f.abs())
                .unwrap_or(false),
            Expected::Bytes(b) => g.value == hex(b),
            // Wireshark escapes control characters in `show`; `value` holds the raw bytes.
            Expected::Str(s) => {
                &g.show == s || g.value == hex(s.as_bytes()) || g.show == wireshark_escaped(s)
            }
        };
        if !same {
            return Err(format!(
                "{place}: Rust decodes {:?}, tshark shows {:?} (raw {})",
                e.value, g.show, g.value
            ));
        }
    }
    if got.len() > expected.len() {
        return Err(format!(
            "tshark shows extra fields: {:?}",
            &got[expected.len()..]
        ));
    }
    Ok(())
}

/// A small deterministic generator (xorshift64*) for reproducible random messages.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Between 0 and `max - 1` random bytes.
    pub fn bytes_below(&mut self, max: u64) -> Vec<u8> {
        let n = self.below(max) as usize;
        self.bytes(n)
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
    /// `n` buffers of 16 to 16 + `spread` - 1 random bytes: sources of arbitrary values (which
    /// borrow from them).
    pub fn buffers(&mut self, n: usize, spread: u64) -> Vec<Vec<u8>> {
        (0..n)
            .map(|_| {
                let len = 16 + self.below(spread) as usize;
                self.bytes(len)
            })
            .collect()
    }
}

/// Bytes from a hex string (spaces allowed).
pub fn hex_bytes(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The cross-check over UDP: sends message i to `ports[i % ports.len()]` (a registered port, or
/// another to exercise the heuristic), dissects the capture with the dissector at `lua` (relative
/// to the repository), and compares each frame's fields with `expect(index, bytes)`: the Rust
/// decoder's fields and the expert items the frame must show.
pub fn udp_cross_check(
    name: &str,
    lua: &str,
    ports: &[u16],
    messages: &[Vec<u8>],
    expect: impl Fn(usize, &[u8]) -> (Vec<ExpectedField>, Vec<String>),
) {
    let proto = name;
    let datagrams: Vec<Datagram> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| Datagram {
            src_port: 30000,
            dst_port: ports[i % ports.len()],
            payload: m.clone(),
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!("wiregen-{name}-{}.pcap", std::process::id()));
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &repo_root().join(lua), &[]);
    for (i, m) in messages.iter().enumerate() {
        let (fields, experts) = expect(i, m);
        compare(&fields, &d.fields(i, proto), HEADERS)
            .unwrap_or_else(|e| panic!("frame {i} {m:02x?}: {e}"));
        assert_eq!(
            d.experts(i, proto),
            experts.iter().map(String::as_str).collect::<Vec<_>>(),
            "frame {i} {m:02x?}"
        );
    }
    let _ = std::fs::remove_file(pcap);
}

/// Up to `n` random valid messages of type `$t`: arbitrary values (from a seeded byte stream)
/// that the encoder accepts, encoded.
#[macro_export]
macro_rules! arbitrary_messages {
    ($t:ty, $seed:expr, $n:expr) => {{
        let mut rng = $crate::Rng($seed);
        let mut out: Vec<Vec<u8>> = Vec::new();
        let mut tries = 0;
        while out.len() < $n && tries < $n * 50 {
            tries += 1;
            let len = 16 + rng.below(400) as usize;
            let raw = rng.bytes(len);
            let mut u = arbitrary::Unstructured::new(&raw);
            let Ok(v) = <$t as arbitrary::Arbitrary>::arbitrary(&mut u) else {
                continue;
            };
            if let Ok(bytes) = v.encode() {
                out.push(bytes);
            }
        }
        out
    }};
}

/// Expert items that say a message is malformed: a valid message must show none of them.
pub const MALFORMED_EXPERTS: &[&str] = &[
    "truncated",
    "length_mismatch",
    "trailing",
    "bad_const",
    "bad_checksum",
    "invalid_value",
    "internal",
];

/// Differential test of the two outputs of one schema: `opening` datagrams (whether the server
/// sent it, bytes) start one conversation, then every message of `messages` is sent by the
/// client, in that conversation when `one_conversation`, else each from its own port; one tshark
/// run dissects them all. For each message, `expect` gives the Rust decoder's fields: tshark must
/// show exactly those (a joined payload may follow them), and no expert item that calls a valid
/// message malformed. Fails with the schema, the frame, the field and the bytes.
pub fn differential_check(
    name: &str,
    lua: &str,
    port: u16,
    opening: &[(bool, Vec<u8>)],
    one_conversation: bool,
    messages: &[Vec<u8>],
    expect: impl Fn(&[u8]) -> Vec<ExpectedField>,
) {
    differential_check_with(
        name,
        lua,
        &[],
        port,
        opening,
        one_conversation,
        messages,
        expect,
    )
}

/// [`differential_check`] with more tshark arguments (a dissector chosen with Decode As).
#[allow(clippy::too_many_arguments)]
pub fn differential_check_with(
    name: &str,
    lua: &str,
    tshark_args: &[&str],
    port: u16,
    opening: &[(bool, Vec<u8>)],
    one_conversation: bool,
    messages: &[Vec<u8>],
    expect: impl Fn(&[u8]) -> Vec<ExpectedField>,
) {
    let mut datagrams: Vec<Datagram> = opening
        .iter()
        .map(|(from_server, payload)| Datagram {
            src_port: if *from_server { port } else { 40000 },
            dst_port: if *from_server { 40000 } else { port },
            payload: payload.clone(),
        })
        .collect();
    datagrams.extend(messages.iter().enumerate().map(|(i, m)| Datagram {
        src_port: if one_conversation {
            40000
        } else {
            20000 + i as u16
        },
        dst_port: port,
        payload: m.clone(),
    }));
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-differential-{name}-{}.pcap",
        std::process::id()
    ));
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &repo_root().join(lua), tshark_args);
    for (i, m) in messages.iter().enumerate() {
        let frame = opening.len() + i;
        let fields = d.fields(frame, name);
        let own = expect(m);
        let n = own.len().min(fields.len());
        compare(&own, &fields[..n], HEADERS)
            .unwrap_or_else(|e| panic!("{name}: frame {frame} {m:02x?}: {e}"));
        let experts = d.experts(frame, name);
        // A joined payload (its pieces arbitrary) may well be malformed: only the datagram's own
        // fields are compared then.
        let joined = fields.len() > own.len()
            || experts
                .iter()
                .any(|e| e.ends_with(".joined") || e.ends_with(".reassembly"));
        if !joined {
            for e in &experts {
                let kind = e.rsplit('.').next().unwrap_or("");
                assert!(
                    !MALFORMED_EXPERTS.contains(&kind),
                    "{name}: frame {frame} {m:02x?}: a valid message shows {e}"
                );
            }
        }
    }
    let _ = std::fs::remove_file(pcap);
}

/// The cross-check of an application on its transport: sends each transport message to `port`,
/// dissects the capture with the transport's and the application's dissectors loaded (one pass,
/// then two), and compares frame `i` with `expect(i, bytes)`: the transport decoder's fields, and
/// the application decoder's (and no expert calls a message malformed). Returns the pcap (for further runs; the caller removes it).
pub fn application_cross_check(
    transport: (&str, &str),
    application: (&str, &str),
    port: u16,
    messages: &[Vec<u8>],
    expect: impl Fn(usize, &[u8]) -> (Vec<ExpectedField>, Vec<ExpectedField>),
) -> PathBuf {
    let datagrams: Vec<Datagram> = messages
        .iter()
        .map(|m| Datagram {
            src_port: 40000,
            dst_port: port,
            payload: m.clone(),
        })
        .collect();
    let pcap = std::env::temp_dir().join(format!(
        "wiregen-{}-{}.pcap",
        application.0,
        std::process::id()
    ));
    write_pcap(&pcap, &datagrams);
    let app_lua = format!("lua_script:{}", repo_root().join(application.1).display());
    for args in [&["-X", &app_lua][..], &["-X", &app_lua, "-2"][..]] {
        let d = dissect(&pcap, &repo_root().join(transport.1), args);
        for (i, bytes) in messages.iter().enumerate() {
            let (outer, inner) = expect(i, bytes);
            compare(&outer, &d.fields(i, transport.0), HEADERS)
                .unwrap_or_else(|e| panic!("{args:?} frame {i} {}: {e}", transport.0));
            compare(&inner, &d.fields(i, application.0), HEADERS)
                .unwrap_or_else(|e| panic!("{args:?} frame {i} {}: {e}", application.0));
            // Valid messages: notes (an unnamed enum value) at most, nothing malformed.
            for e in d.experts(i, application.0) {
                let kind = e.rsplit('.').next().unwrap_or("");
                assert!(
                    !MALFORMED_EXPERTS.contains(&kind),
                    "{args:?} frame {i}: {e}"
                );
            }
        }
    }
    pcap
}

/// The Info column of every frame of `pcap` dissected with the dissectors at `luas` (relative
/// to the repository) and `extra` arguments.
pub fn info_column(pcap: &Path, luas: &[&str], extra: &[&str]) -> Vec<String> {
    let mut cmd = tshark_command();
    cmd.arg("-r").arg(pcap);
    for lua in luas {
        cmd.arg("-X")
            .arg(format!("lua_script:{}", repo_root().join(lua).display()));
    }
    let out = cmd
        .args(["-T", "fields", "-e", "_ws.col.Info"])
        .args(extra)
        .output()
        .expect("tshark runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {stderr}");
    assert!(!stderr.contains("Lua"), "a Lua error:\n{stderr}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}
