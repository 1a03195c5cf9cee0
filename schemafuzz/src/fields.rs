//! The types and fields a schema is made of: integer names, enums and flag sets, scalars, the
//! helper fields conditions read, text, arrays, and a length with its field (split from
//! `lib.rs`, which draws the schema's types and layout).

use super::*;

impl Gen {
    /// The name of an unsigned integer type of `bits` in this layout.
    pub(crate) fn int_name(&self, bits: u32) -> String {
        format!("u{bits}")
    }

    pub(crate) fn enum_def(&mut self, i: usize) {
        let bits = if self.layout.bits() {
            self.rng.range(2, 8) as u32
        } else {
            *self.rng.pick(&[8, 8, 16])
        };
        let max = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut values: Vec<(String, u64)> = Vec::new();
        let mut taken: Vec<u64> = Vec::new();
        let n = self.rng.range(1, 4);
        let start = self.rng.below(VALUE_WORDS.len() as u64) as usize;
        for k in 0..n as usize {
            let name = VALUE_WORDS[(start + k) % VALUE_WORDS.len()].to_string();
            let v = loop {
                let v = self.rng.below(max.min(40) + 1);
                if !taken.contains(&v) {
                    break v;
                }
            };
            taken.push(v);
            values.push((name, v));
        }
        // A named range above the single values, where it fits.
        if max >= 60 && self.rng.chance(30) {
            values.push(("RANGE_HI".into(), 50));
        }
        let closed = self.rng.chance(30);
        self.enums.push(EnumDef {
            name: format!("Kind{i}"),
            bits,
            values,
            closed,
        });
    }

    pub(crate) fn flags_def(&mut self, i: usize) {
        let n = self.rng.range(1, 4);
        let start = self.rng.below(VALUE_WORDS.len() as u64) as usize;
        let (ty, width) = *self
            .rng
            .pick(&[("u8", 8), ("u16be", 16), ("u32le", 32), ("u16le", 16)]);
        let spread = width / 4;
        let bits = (0..n as usize)
            .map(|k| {
                let name = VALUE_WORDS[(start + k) % VALUE_WORDS.len()].trim_start_matches('_');
                let bit = k * spread + self.rng.below(spread as u64) as usize;
                (format!("F_{name}"), 1u64 << bit)
            })
            .collect();
        self.flags.push(FlagsDef {
            name: format!("Opts{i}"),
            ty,
            bits,
        });
    }

    /// A scalar type for a field: (type text, extra keys).
    pub(crate) fn scalar(&mut self) -> (String, String) {
        if self.layout.bits() {
            return match self.rng.below(14) {
                0 => ("bool".into(), String::new()),
                // Wide integers: UInt64/Int64 in the dissector, exact beyond 2^53.
                10 => (format!("u{}", self.rng.range(33, 64)), String::new()),
                11 => (format!("i{}", self.rng.range(33, 64)), String::new()),
                12 if self.layout == Layout::Lsb => (
                    self.rng
                        .pick(&["rabbit_u16", "rabbit_u32", "rabbit_i32", "rabbit_u64"])
                        .to_string(),
                    String::new(),
                ),
                13 => (self.rng.pick(&["f32", "f64"]).to_string(), String::new()),
                1 if !self.enums.is_empty() => {
                    let e = self.rng.below(self.enums.len() as u64) as usize;
                    (self.enums[e].name.clone(), String::new())
                }
                2 => {
                    let bits = self.rng.range(2, 12);
                    let max = (1u64 << bits) - 1;
                    (
                        format!("u{bits}"),
                        format!(", max: {}", self.rng.range(1, max)),
                    )
                }
                3 => (format!("i{}", self.rng.range(2, 16)), String::new()),
                4 => ("leb128".into(), String::new()),
                _ => (format!("u{}", self.rng.range(1, 32)), String::new()),
            };
        }
        let suffix = |rng: &mut Rng| *rng.pick(&["", "", "le", "be"]);
        match self.rng.below(12) {
            0 => ("bool".into(), String::new()),
            1 => (
                self.rng.pick(&["f32", "f64", "f16"]).to_string(),
                String::new(),
            ),
            2 if !self.enums.is_empty() => {
                let e = self.rng.below(self.enums.len() as u64) as usize;
                (self.enums[e].name.clone(), String::new())
            }
            3 if !self.flags.is_empty() => {
                let f = self.rng.below(self.flags.len() as u64) as usize;
                (self.flags[f].name.clone(), String::new())
            }
            4 => ("leb128".into(), String::new()),
            5 => ("zigzag".into(), String::new()),
            6 => (
                "u8".into(),
                format!(
                    ", valid: [{}, {}]",
                    self.rng.below(100),
                    100 + self.rng.below(100)
                ),
            ),
            7 => {
                let s = suffix(&mut self.rng);
                (
                    format!("u16{s}"),
                    format!(", max: {}", self.rng.range(1, 60000)),
                )
            }
            _ => {
                let s = suffix(&mut self.rng);
                let w = self
                    .rng
                    .pick(&["u8", "u16", "u24", "u32", "u64", "i8", "i16", "i32", "i64"]);
                let s = if *w == "u8" || *w == "i8" { "" } else { s };
                // How the dissector shows it: every display an unsigned integer may have.
                let display = match (w.starts_with('u'), self.rng.below(4)) {
                    (true, 1) => ", display: hex",
                    (true, 2) => ", display: dec",
                    (true, 3) if *w != "u64" => ", display: bin",
                    _ => "",
                };
                (format!("{w}{s}"), display.to_string())
            }
        }
    }

    /// The fields of a helper type: a few scalars and maybe a prefixed string.
    pub(crate) fn helper_fields(&mut self) -> String {
        let mut out = String::new();
        let n = self.rng.range(1, 3);
        for k in 0..n {
            let (ty, extra) = self.scalar();
            // Inside the root: a condition over its `ctx`, or the direction (not on the first
            // field: a value of the type takes some bytes, as an array to the end needs).
            let cond = match self.rng.below(6) {
                _ if k == 0 => "",
                0 if self.context => ", if: \"Packet.ctx % 3 != 0\"",
                1 if self.context => ", if: \"Packet.ctx > 100 || @from_client\"",
                _ => "",
            };
            let _ = writeln!(
                out,
                "      - {{ name: \"{}\", type: {ty}{extra}{cond} }}",
                FIELD_WORDS[k as usize]
            );
        }
        if self.context && !self.layout.bits() && self.rng.chance(30) {
            let _ = writeln!(
                out,
                "      - {{ name: \"by_ctx\", type: bytes, length: \"Packet.ctx % 4\" }}"
            );
        }
        if !self.layout.bits() && self.rng.chance(40) {
            let _ = writeln!(
                out,
                "      - {{ name: \"label\", type: string, prefix: u8 }}"
            );
        }
        out
    }

    /// A text or bytes field's type and size: a prefix, NUL-terminated, or a constant length.
    pub(crate) fn text_field(&mut self) -> String {
        match self.rng.below(6) {
            0 => format!(
                "type: string, prefix: {}",
                self.rng.pick(&["u8", "u16", "leb128"])
            ),
            1 => format!(
                "type: bytes, prefix: {}",
                self.rng.pick(&["u8", "u16le", "riptide_len"])
            ),
            2 => "type: strz".to_string(),
            3 => format!(
                "type: strz, length: {}, encoding: {}",
                2 * self.rng.range(1, 4),
                self.rng.pick(&["utf8", "latin1", "utf16le", "utf16be"])
            ),
            4 => format!(
                "type: string, prefix: u8, encoding: {}",
                self.rng.pick(&["latin1", "utf16le", "utf16be"])
            ),
            _ => format!("type: bytes, length: {}", self.rng.range(0, 4)),
        }
    }

    /// An array of a scalar or a helper type, by a count field before it, by prefix, or of a
    /// constant count.
    pub(crate) fn array_field(&mut self, name: &str, cond: &str, out: &mut String) {
        let elem = if !self.helpers.is_empty() && self.rng.chance(40) {
            let h = self.rng.below(self.helpers.len() as u64) as usize;
            self.helpers[h].0.clone()
        } else if self.layout.bits() {
            format!("u{}", self.rng.range(3, 12))
        } else {
            self.rng.pick(&["u8", "u16", "i32", "f32"]).to_string()
        };
        let how = if self.layout.bits() {
            self.rng.below(2)
        } else {
            self.rng.below(3)
        };
        match how {
            0 => {
                let count = format!("{name}_count");
                let ct = if self.layout.bits() { "u3" } else { "u8" };
                let _ = writeln!(out, "      - {{ name: \"{count}\", type: {ct} }}");
                let _ = writeln!(
                    out,
                    "      - {{ name: \"{name}\", type: \"{elem}[]\", count: \"{count}\"{cond} }}"
                );
            }
            1 => {
                let _ = writeln!(
                    out,
                    "      - {{ name: \"{name}\", type: \"{elem}[]\", count: {}{cond} }}",
                    self.rng.range(0, 3)
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "      - {{ name: \"{name}\", type: \"{elem}[]\", prefix: u8{cond} }}"
                );
            }
        }
    }

    /// Bytes or text whose length is a field just before it.
    pub(crate) fn length_and_field(&mut self, name: &str, cond: &str, out: &mut String) {
        let len = format!("{name}_len");
        let lt = if self.layout.bits() { "u6" } else { "u8" };
        let _ = writeln!(out, "      - {{ name: \"{len}\", type: {lt} }}");
        let ty = if self.layout.bits() {
            "bytes"
        } else {
            *self.rng.pick(&["bytes", "string"])
        };
        let _ = writeln!(
            out,
            "      - {{ name: \"{name}\", type: {ty}, length: \"{len}\"{cond} }}"
        );
    }
}
