//! Random valid wiregen schemas: the generator's own fuzzer. Each seed gives one schema mixing
//! the constructs of `docs/schema.md` (integers of every width and byte order, bools, floats,
//! open and closed enums with ranges, flag sets announcing optional fields, constants, `max`,
//! bytes and strings by prefix, derived length, constant length and to the end, NUL-terminated
//! and NUL-padded strings in four encodings, arrays by count, prefix and to the end, nested
//! types, conditions over bools, enums and flag bits, switches with single, range, empty,
//! bytes and default cases, checksums, varints, padding, and LSB- and MSB-first bit streams,
//! fields of the root read by the types inside it (`Packet.ctx`) and the direction
//! (`@from_client`), TCP framings (a size of what follows or of the whole frame) beside UDP),
//! written as a user would write it. `wiregen verify` then proves its crate and dissector agree
//! (over TCP for a TCP schema) and that its messages reached every type.
//!
//! The schemas are valid by construction: a seed whose schema the validator refuses is a bug
//! of this generator or of the validator, and is reported as such.

mod constructs;
mod fields;
mod rng;

pub use rng::Rng;
use std::fmt::Write;

/// Field names: ordinary words, Lua keywords (`end`, `then`), Rust keywords (`type`,
/// `match`), which both backends must escape, and names of the generated coders' own locals
/// (`start`, `computed`, `alpha_at`), which must give way to the fields'.
const FIELD_WORDS: &[&str] = &[
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "end",
    "then",
    "type",
    "match",
    "value",
    "data",
    "len",
    "count",
    "kind",
    "flags",
    "v",
    "n",
    "at",
    "raw",
    "x",
    "start",
    "computed",
    "expected",
    "actual",
    "padded",
    "alpha_at",
    "check_note",
    "item",
    "bits",
];

/// Enum value and flag bit names.
const VALUE_WORDS: &[&str] = &[
    "PING", "PONG", "HELLO", "BYE", "MOVE", "JUMP", "FIRE", "STOP", "JOIN", "LEAVE", "SYNC", "ACK",
    "NACK", "DATA", "OPEN", "CLOSE", "V2", "MODE_A", "MODE_B", "_HIDDEN",
];

/// Type names (never one the generated crate defines).
const TYPE_WORDS: &[&str] = &[
    "Header", "Entity", "Vector", "Player", "Chunk", "Record", "Item", "Pose", "Stats", "Cell",
];

/// One random schema: the YAML text.
pub fn schema(seed: u64) -> String {
    Gen::new(seed, None).schema()
}

/// The files of seed `seed`, the one to verify last: one schema (which may be an application
/// on one of the transports in `schema_dir`), or one in six times a base schema and an
/// extension of it (`extends:`: an enum value added, a type replaced, a type and a switch case
/// added), each file named as it must be written (beside each other).
pub fn schema_files(seed: u64, schema_dir: &std::path::Path) -> Vec<(String, String)> {
    let mut g = Gen::new(seed, Some(schema_dir.to_path_buf()));
    if g.transport.is_some() || !g.rng.chance(17) {
        return vec![(format!("seed-{seed}.yaml"), g.schema())];
    }
    let base_file = format!("seed-{seed}-base.yaml");
    let mut ext = g.extension(&base_file);
    let base = g
        .schema()
        .replacen("  name: fuzz\n", "  name: fuzz_base\n", 1);
    // A case added to a switch of the base (on its own tag: keys 0, 2, 4 and 8..11 are taken).
    if let Some(sw) = g.own_tag_switches.first() {
        let _ = write!(ext, "cases:\n  Packet.{sw}:\n    6: Added\n");
    }
    vec![(base_file, base), (format!("seed-{seed}.yaml"), ext)]
}

/// One random schema, which may be an application on one of the transports in `schema_dir`
/// (this repository's `schema/`: Riptide 2.1's bit-stream payloads, Riptide 2.0's and DNP's
/// byte payloads), written to a file that names the transport by this absolute path.
pub fn schema_with_transports(seed: u64, schema_dir: &std::path::Path) -> String {
    Gen::new(seed, Some(schema_dir.to_path_buf())).schema()
}

/// The layout of the protocol being generated.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Bytes,
    Lsb,
    Msb,
}

impl Layout {
    fn bits(self) -> bool {
        self != Layout::Bytes
    }
}

struct EnumDef {
    name: String,
    /// Width in bits of its representation.
    bits: u32,
    values: Vec<(String, u64)>,
    closed: bool,
}

struct FlagsDef {
    name: String,
    /// Its integer type (`u8`, `u16be`, `u32le`).
    ty: &'static str,
    bits: Vec<(String, u64)>,
}

/// What a later field may refer to.
#[derive(Clone)]
enum Known {
    /// An unconditional bool.
    Bool,
    /// An unconditional value of enum `i`.
    Enum(usize),
    /// An unconditional flag set `i`.
    Flags(usize),
}

struct Gen {
    rng: Rng,
    seed: u64,
    /// An application's transport schema (absolute path), when this schema is one.
    transport: Option<String>,
    layout: Layout,
    endian_big: bool,
    enums: Vec<EnumDef>,
    flags: Vec<FlagsDef>,
    /// Helper types: name and YAML of their fields.
    helpers: Vec<(String, String)>,
    /// Switches of the root on a tag of their own (an extension can add cases to them).
    own_tag_switches: Vec<String>,
    /// The enums, flag sets and helper types are drawn.
    decided: bool,
    /// The root starts with a `ctx` field the helper types read (`Packet.ctx`), and fields
    /// depend on the direction (`@from_client`).
    context: bool,
}

impl Gen {
    fn new(seed: u64, schema_dir: Option<std::path::PathBuf>) -> Gen {
        let mut rng = Rng::new(seed);
        let mut layout = match rng.below(10) {
            0 | 1 => Layout::Lsb,
            2 => Layout::Msb,
            _ => Layout::Bytes,
        };
        // One schema in five is an application: its messages in a transport's payloads, in
        // the transport's bit order.
        let transport = schema_dir.filter(|_| rng.chance(20)).map(|dir| {
            let (file, l) = *rng.pick(&[
                ("riptide-2.1.yaml", Layout::Lsb),
                ("riptide-2.0.yaml", Layout::Bytes),
                ("dnp.yaml", Layout::Bytes),
            ]);
            layout = l;
            dir.join(file).display().to_string()
        });
        let endian_big = match layout {
            Layout::Bytes => rng.chance(50),
            Layout::Lsb => false,
            Layout::Msb => true,
        };
        let context = transport.is_none() && seed % 4 == 1;
        Gen {
            rng,
            seed,
            transport,
            layout,
            endian_big,
            enums: Vec::new(),
            flags: Vec::new(),
            helpers: Vec::new(),
            own_tag_switches: Vec::new(),
            decided: false,
            // Decided by the seed, so the other draws stay as they were.
            context,
        }
    }

    /// An extension of the schema this generator is about to write (call before `schema`:
    /// it decides the enums, flag sets and helpers first).
    fn extension(&mut self, base_file: &str) -> String {
        let mut out = format!(
            "# Random extension of seed {seed} (wiregen-schemafuzz).\nprotocol:\n  name: fuzz\n  \
             title: \"Fuzz {seed} extended\"\n  extends: {base_file}\n",
            seed = self.seed
        );
        // Decided here and reused by `schema`: the same enums and helpers.
        self.decide_types();
        if let Some(e) = self.enums.first() {
            let max = (1u64 << e.bits.min(16)) - 1;
            let free = (0..=max).rev().find(|v| {
                !e.values
                    .iter()
                    .any(|(n, x)| *x == *v || (n.starts_with("RANGE") && (*x..=*x + 3).contains(v)))
            });
            if let Some(v) = free {
                let _ = write!(
                    out,
                    "enums:\n  {}:\n    values:\n      ADDED: {v:#x}\n",
                    e.name
                );
            }
        }
        out.push_str("types:\n");
        if let Some((name, _)) = self.helpers.first().cloned() {
            let fields = self.helper_fields();
            let _ = write!(out, "  {name}:\n    fields:\n{fields}");
        }
        let fields = self.helper_fields();
        let _ = write!(out, "  Added:\n    fields:\n{fields}");
        out
    }

    /// The enums, flag sets and helper types (once).
    fn decide_types(&mut self) {
        if self.decided {
            return;
        }
        self.decided = true;
        for i in 0..self.rng.below(3) {
            self.enum_def(i as usize);
        }
        if !self.layout.bits() {
            for i in 0..self.rng.below(2) {
                self.flags_def(i as usize);
            }
        }
        let n_helpers = self.rng.below(3) as usize;
        for i in 0..n_helpers {
            let name = format!(
                "{}{}",
                TYPE_WORDS[(self.seed as usize + i) % TYPE_WORDS.len()],
                i
            );
            let fields = self.helper_fields();
            self.helpers.push((name, fields));
        }
    }

    /// The `enums:` and `flags:` sections of the types decided.
    fn write_enums_and_flags(&self, out: &mut String) {
        if !self.enums.is_empty() {
            out.push_str("enums:\n");
            for e in &self.enums {
                let values: Vec<String> = e
                    .values
                    .iter()
                    .map(|(n, v)| {
                        if n.starts_with("RANGE") {
                            format!("{n}: \"{}..{}\"", v, v + 3)
                        } else {
                            format!("{n}: {v:#x}")
                        }
                    })
                    .collect();
                let closed = if e.closed { ", closed: true" } else { "" };
                let _ = writeln!(
                    out,
                    "  {}: {{ type: {}{closed}, values: {{ {} }} }}",
                    e.name,
                    self.int_name(e.bits),
                    values.join(", ")
                );
            }
        }
        if !self.flags.is_empty() {
            out.push_str("flags:\n");
            for f in &self.flags {
                let bits: Vec<String> =
                    f.bits.iter().map(|(n, v)| format!("{n}: {v:#x}")).collect();
                let _ = writeln!(
                    out,
                    "  {}: {{ type: {}, bits: {{ {} }} }}",
                    f.name,
                    f.ty,
                    bits.join(", ")
                );
            }
        }
    }

    fn schema(&mut self) -> String {
        self.decide_types();
        // The root, or an application's messages (each to the end of its payload).
        let messages: Vec<String> = if self.transport.is_some() {
            (0..self.rng.range(1, 3))
                .map(|_| self.root_fields())
                .collect()
        } else {
            let mut fields = self.root_fields();
            // One schema in three numbers and acks its packets (the netcode analysis), decided
            // by the seed so the other draws stay as they were.
            if self.seed % 3 == 0 {
                fields = format!(
                    "      - {{ name: \"rel_seq\", type: u16 }}\n      - {{ name: \"rel_ack\", type: u16 }}\n{fields}"
                );
            }
            vec![fields]
        };

        let mut out = String::new();
        let framed_inside = self.protocol_header(&mut out, messages.len());
        self.write_enums_and_flags(&mut out);
        out.push_str("types:\n");
        for (i, fields) in messages.iter().enumerate() {
            let name = if self.transport.is_some() {
                format!("Msg{i}")
            } else {
                "Packet".to_string()
            };
            // An Info-column summary of one or two of its fields (any type).
            let names: Vec<&str> = fields
                .lines()
                .filter_map(|l| l.strip_prefix("      - { name: \""))
                .filter_map(|l| l.split('"').next())
                .collect();
            let info = if names.is_empty() || !self.rng.chance(40) {
                String::new()
            } else {
                let a = names[self.rng.below(names.len() as u64) as usize];
                let b = names[self.rng.below(names.len() as u64) as usize];
                format!("    info: \"{a}={{{a}}} {{{b}}}\"\n")
            };
            let _ = write!(out, "  {name}:\n{info}    fields:\n{fields}");
        }
        for (i, (name, fields)) in self.helpers.iter().enumerate() {
            // Every second helper type is shown without a subtree of its own (no draw from the
            // generator: a seed's other choices stay what they were).
            let subtree = if i % 2 == 1 {
                "    subtree: false\n"
            } else {
                ""
            };
            let _ = write!(out, "  {name}:\n{subtree}    fields:\n{fields}");
        }
        if framed_inside {
            // The message holds its TCP length: a channel byte, then the size of the whole
            // frame, derived by the encoder from the packet it holds.
            out.push_str(
                "  Frame:\n    fields:\n      - { name: channel, type: u8 }\n      \
                 - { name: size, type: u16le }\n      \
                 - { name: packet, type: Packet, length: \"size - 3\" }\n",
            );
        }
        out
    }

    /// The `protocol:` section: a transport (UDP, or TCP framed one of four ways) or an
    /// application of `n_messages` messages over one. Whether the root is the `Frame` that
    /// holds its TCP length.
    fn protocol_header(&self, out: &mut String, n_messages: usize) -> bool {
        let mut framed_inside = false;
        let layout = match self.layout {
            Layout::Bytes => String::new(),
            Layout::Lsb => "\n  layout: lsb-bits".into(),
            Layout::Msb => "\n  layout: msb-bits".into(),
        };
        let endian = if self.layout.bits() {
            ""
        } else if self.endian_big {
            "\n  endian: big"
        } else {
            "\n  endian: little"
        };
        let port = 40000 + self.seed % 20000;
        match &self.transport {
            Some(path) => {
                // An application keeps its transport's layout and byte order.
                let ids: Vec<String> = (0..n_messages)
                    .map(|i| format!("{}: Msg{i}", i + 1))
                    .collect();
                let _ = write!(
                    out,
                    "# Random schema of seed {seed} (wiregen-schemafuzz).\nprotocol:\n  name: fuzz\n  \
                     title: \"Fuzz {seed}\"\n  application:\n    transport: \"{path}\"\n{id}    \
                     messages: {{ {} }}\n",
                    ids.join(", "),
                    // A transport without message ids: the messages start with their own.
                    id = if path.ends_with("dnp.yaml") { "    id: u8\n" } else { "" },
                    seed = self.seed
                );
            }
            None => {
                // One schema in five (byte layouts) is on TCP, framed as protocols frame it: a
                // size of what follows, or of the whole frame (decided by the seed, so the
                // other draws stay as they were).
                let transport = if self.seed % 5 == 2 && !self.layout.bits() {
                    let framing = [
                        "length_prefix: u16le, length_counts: frame",
                        "length_prefix: u32be",
                        "length_prefix: u16be, length_counts: frame",
                        // A size inside a header after a channel byte (the Frame type below).
                        "length_prefix: u16le, length_at: 1, length_counts: frame",
                    ][(self.seed / 5 % 4) as usize];
                    framed_inside = framing.contains("length_at");
                    format!("tcp: {{ ports: [{port}], {framing} }}")
                } else {
                    format!("udp: {{ ports: [{port}] }}")
                };
                let root = if framed_inside { "Frame" } else { "Packet" };
                let _ = write!(
                    out,
                    "# Random schema of seed {seed} (wiregen-schemafuzz).\nprotocol:\n  name: fuzz\n  \
                     title: \"Fuzz {seed}\"{endian}{layout}\n  root: {root}\n  transport: {{ {transport} }}\n",
                    seed = self.seed
                );
                if self.seed % 3 == 0 {
                    out.push_str(
                        "  reliability:\n    sequence: [{ in: Packet, field: rel_seq, reliable: true }]\n    \
                         ack: [{ in: Packet, field: rel_ack }]\n",
                    );
                }
            }
        }
        framed_inside
    }

    fn root_fields(&mut self) -> String {
        let mut out = String::new();
        let mut known: Vec<(String, Known)> = Vec::new();
        let mut used: Vec<String> = Vec::new();
        let n = self.rng.range(2, 9);
        let start = self.rng.below(FIELD_WORDS.len() as u64) as usize;
        let fresh = |used: &mut Vec<String>, k: usize| fresh_name(used, start, k);
        if self.context {
            let _ = writeln!(out, "      - {{ name: \"ctx\", type: u8 }}");
            used.push("ctx".into());
        }
        if !self.layout.bits() && self.rng.chance(25) {
            // One seed in four a signed magic number written negative (decided by the seed,
            // so the other draws stay as they were).
            let magic = if self.seed % 4 == 1 {
                "type: i16, const: -12345"
            } else {
                "type: u16, const: 0xD1CE"
            };
            let _ = writeln!(out, "      - {{ name: \"magic\", {magic} }}");
            used.push("magic".into());
        }
        for k in 0..n as usize {
            let name = fresh(&mut used, k);
            let cond = self.condition(&known);
            match self.rng.below(11) {
                // A scalar, remembered for conditions and switches.
                0..=3 => {
                    let (ty, extra) = self.scalar();
                    let _ = writeln!(
                        out,
                        "      - {{ name: \"{name}\", type: {ty}{extra}{cond} }}"
                    );
                    if cond.is_empty() {
                        if ty == "bool" {
                            known.push((name, Known::Bool));
                        } else if let Some(e) = self.enums.iter().position(|e| e.name == ty) {
                            known.push((name, Known::Enum(e)));
                        } else if let Some(f) = self.flags.iter().position(|f| f.name == ty) {
                            known.push((name, Known::Flags(f)));
                        }
                    }
                }
                // Bytes or text with a derived length field just before.
                4 => self.length_and_field(&name, &cond, &mut out),
                // Prefixed or constant-length text (byte layouts: every encoding).
                5 if !self.layout.bits() => {
                    let line = self.text_field();
                    let _ = writeln!(out, "      - {{ name: \"{name}\", {line}{cond} }}");
                }
                // Arrays: by a count field, by prefix, or of a constant count.
                5 | 6 => self.array_field(&name, &cond, &mut out),
                // A nested type.
                7 if !self.helpers.is_empty() => {
                    let h = self.rng.below(self.helpers.len() as u64) as usize;
                    let t = self.helpers[h].0.clone();
                    let _ = writeln!(out, "      - {{ name: \"{name}\", type: {t}{cond} }}");
                }
                // A switch on an earlier enum or a tag of its own.
                8 => {
                    let line = self.switch(&name, &known, &mut out, false);
                    out.push_str(&line);
                }
                // Padding or alignment after a byte.
                9 if !self.layout.bits() => {
                    let pad = if self.rng.chance(50) {
                        "pad: 1"
                    } else {
                        "align: 4"
                    };
                    let _ = writeln!(out, "      - {{ name: \"{name}\", type: u8, {pad} }}");
                }
                // Byte layouts: bit groups, reserved fields, framed and sized structs, framed
                // elements, set_when, sizes by expression.
                10 if !self.layout.bits() => {
                    let line = self.byte_construct(&name, &known, &mut out);
                    out.push_str(&line);
                }
                _ => {
                    let (ty, extra) = self.scalar();
                    let _ = writeln!(
                        out,
                        "      - {{ name: \"{name}\", type: {ty}{extra}{cond} }}"
                    );
                }
            }
        }
        self.root_end(&mut out, &known, fresh(&mut used, 99));
        out
    }

    /// The end of the root: an optional trailing field, a checksum, a switch (named `name`) with
    /// a bytes case, or data to the end.
    fn root_end(&mut self, out: &mut String, known: &[(String, Known)], name: String) {
        // An optional field at the end of the message, present when bytes are left.
        if !self.layout.bits() && self.rng.chance(15) {
            let _ = writeln!(
                out,
                "      - {{ name: \"trailer\", type: u16, if: \"@remaining > 0\" }}"
            );
            return;
        }
        // The end: a checksum, a switch with a bytes case, or data to the end.
        match self.rng.below(5) {
            0 if !self.layout.bits() => {
                let (ty, algo) = *self.rng.pick(&[
                    ("u8", "sum8"),
                    ("u8", "xor8"),
                    ("u16", "internet"),
                    ("u16", "fletcher16"),
                ]);
                let _ = writeln!(
                    out,
                    "      - {{ name: \"check\", type: {ty}, checksum: {{ algorithm: {algo} }} }}"
                );
            }
            1 => {
                let line = self.switch(&name, known, out, true);
                out.push_str(&line);
            }
            2 => {
                let ty = if self.layout.bits() {
                    *self.rng.pick(&["bytes", "\"u8[]\"", "\"u12[]\""])
                } else {
                    *self.rng.pick(&["bytes", "string", "\"u8[]\"", "\"u16[]\""])
                };
                let _ = writeln!(out, "      - {{ name: \"rest\", type: {ty} }}");
            }
            _ => {}
        }
    }
}

/// The `k`th field name of a type whose names start at word `start`, not one of `used` (a
/// number added), and now used.
fn fresh_name(used: &mut Vec<String>, start: usize, k: usize) -> String {
    let base = FIELD_WORDS[(start + k) % FIELD_WORDS.len()];
    let mut name = base.to_string();
    let mut i = 2;
    while used.contains(&name) {
        name = format!("{base}_{i}");
        i += 1;
    }
    used.push(name.clone());
    name
}
