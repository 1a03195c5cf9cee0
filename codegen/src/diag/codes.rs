//! Every diagnostic code, with what it says in one line: one enum, so a code cannot be misspelt
//! or given twice, `wiregen explain CODE` reads it and `docs/diagnostics.md` lists it (a test
//! keeps that list equal to this one).
//!
//! The letter says what kind: `E` a schema error, `L` a construct one backend cannot generate
//! yet, `W` a warning, `I` an internal error of the generator. The first two digits of an `E`
//! code say which part of validation found it (`Code::area`). A code names one kind of mistake
//! for good: a message may be reworded, its code stays, and a removed check's code is not given
//! to another.

/// Declares [`Code`] from `CODE => "summary"` lines.
macro_rules! codes {
    ($($code:ident => $summary:literal,)*) => {
        /// A diagnostic's stable code (see the module's documentation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(
                #[doc = $summary]
                $code,
            )*
        }

        impl Code {
            /// Every code, in order.
            pub const ALL: &'static [Code] = &[$(Code::$code),*];

            /// The code as it is printed (`E0510`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)*
                }
            }

            /// What the code says, in one line.
            pub fn summary(self) -> &'static str {
                match self {
                    $(Code::$code => $summary,)*
                }
            }
        }
    };
}

codes! {
    E0001 => "the YAML is not a schema: a syntax error, an unknown key or a value of the wrong kind",
    E0002 => "the schema an 'extends' names cannot be read",
    E0003 => "'…' extends another schema itself",
    E0004 => "the transport schema an application names cannot be read",
    E0005 => "the schema file cannot be read",
    E0101 => "protocol name '…' is not a lower-case identifier",
    E0102 => "the protocol's byte order contradicts its bit layout: a bit stream's numbers take its bit order",
    E0103 => "a type name is not UpperCamelCase",
    E0104 => "duplicate type name '…' (already declared in '…')",
    E0105 => "'…' is not an enum",
    E0106 => "the protocol needs a 'root' type",
    E0107 => "'…' is not a switch field of the base schema",
    E0108 => "unknown root type '…'",
    E0109 => "a schema needs at least one type under 'types'",
    E0110 => "an opening needs the server's UDP ports",
    E0201 => "unknown byte order '…'",
    E0202 => "'…' is not an integer type",
    E0203 => "'…' is not a valid value name",
    E0204 => "a flag is one bit, not a range",
    E0205 => "'…' is not a range",
    E0206 => "value … does not fit in … bits",
    E0207 => "… is already named '…'",
    E0208 => "enum '…' needs a 'type'",
    E0209 => "flags '…' needs a 'type'",
    E0210 => "flag '…' has mask …, which is not a single bit",
    E0211 => "'strz' in a bit-stream layout",
    E0212 => "a 'strz' ends at its NUL or is padded to a constant length; it takes no prefix",
    E0213 => "a NUL-padded UTF-16 'strz' of … bytes: UTF-16 code units are 2 bytes",
    E0214 => "a NUL-padded 'strz' needs a constant length of 1 or more bytes (C's `char[32]` is 'length: 32')",
    E0215 => "unknown encoding '…'",
    E0216 => "'…' text in a bit-stream layout",
    E0217 => "field name '…' is not snake_case",
    E0218 => "duplicate field '…' in type '…'",
    E0219 => "field '…' runs to the end of '…' but is not its last field",
    E0220 => "integer width … is outside 1..64",
    E0221 => "a …-bit integer in a byte-aligned layout",
    E0222 => "'…' is bit-packed: it belongs to bit-stream types",
    E0223 => "'…' is Riptide's LSB-first encoding",
    E0224 => "'riptide_len' is a byte-aligned length (Riptide 2.0)",
    E0225 => "'bits' is the rest of a bit stream",
    E0226 => "a 'bits' field runs to the end of its scope; it takes no length",
    E0227 => "arrays of arrays need a named element type",
    E0228 => "arrays of bytes or strings need a named element type that gives each a length",
    E0229 => "'element' needs a 'length' or a 'prefix'",
    E0230 => "element sizes are for byte layouts",
    E0231 => "'element' frames the elements of an array of structs",
    E0232 => "unknown type '…'",
    E0233 => "a number's byte order contradicts the bit stream it is read in",
    E0234 => "an enum's or flag set's byte order contradicts the bit stream a field reads it in",
    E0235 => "value … is negative: enum and flag values are unsigned",
    E0301 => "a field has either a 'type' or a 'switch', not both",
    E0302 => "a field's type does not parse",
    E0303 => "field '…' has no 'type'",
    E0304 => "'length' applies to bytes, string, struct, switch and array fields",
    E0305 => "an array sized in bytes ('length') cannot be packed",
    E0306 => "a varint prefix in a bit-stream layout",
    E0307 => "'encoding' applies to 'string' and 'strz' fields",
    E0308 => "'count' applies to array fields ('T[]')",
    E0309 => "'element' frames the elements of an array of structs ('T[]')",
    E0310 => "the … checksum is stored in a u… field",
    E0311 => "a reserved field is written as zero: it cannot also be a constant or a checksum",
    E0312 => "reserved fields are integers, or bytes of a constant length in byte layouts",
    E0313 => "constants, checksums and reserved fields cannot be conditional",
    E0314 => "'max' applies to integer fields",
    E0315 => "max … does not fit in … bits",
    E0316 => "presence-bit optional fields are not supported yet",
    E0317 => "'packed' applies to bool[] in byte layouts",
    E0318 => "a padded or aligned field cannot be conditional",
    E0319 => "unknown state table '…'",
    E0320 => "Wireshark shows signed integers in decimal only",
    E0321 => "'display: bin' applies to integers of at most 32 bits in byte layouts",
    E0322 => "'display: bin' applies to fixed-width integers",
    E0323 => "'display' applies to unsigned integer fields",
    E0324 => "'filter' names the fields of a struct-typed value",
    E0325 => "'…' is not a filter name part",
    E0326 => "unknown compression '…'",
    E0327 => "'max' must be at least 1",
    E0328 => "'max' is the most bytes one field decompresses to: at most 4 GiB",
    E0329 => "compressed fields are for byte layouts",
    E0330 => "'compression' applies to fields of a struct type",
    E0331 => "'valid' applies to integer fields",
    E0332 => "an empty list of valid values",
    E0333 => "min … is above max …",
    E0334 => "'valid' needs a 'min', a 'max' or a list",
    E0335 => "only integer and enum fields can be constants",
    E0336 => "constant … does not fit in … bits",
    E0337 => "'…' names a range of values of '…', not one value",
    E0338 => "'…' is not a value of enum '…'",
    E0339 => "constant … is negative, but the field is unsigned (or an enum, or it does not fit the signed bits)",
    E0340 => "constant '…' is a name, but the field is an integer",
    E0341 => "'…' in a bit-stream layout",
    E0342 => "padding or alignment of zero bytes",
    E0343 => "unclosed '{' in info",
    E0344 => "unknown field '…' in info",
    E0401 => "unions that write their own tag bits are not supported yet",
    E0402 => "a switch has either 'cases' or 'cases_from'",
    E0403 => "'…' does not name a switch field with its own cases",
    E0404 => "case key '…' of a bool tag",
    E0405 => "variant name '…' is not UpperCamelCase",
    E0406 => "two cases make a variant named '…'",
    E0407 => "case '…' (…) can never match: the tag is a …, at most …",
    E0408 => "case '…' overlaps case '…'",
    E0409 => "variant name '…' is not UpperCamelCase",
    E0410 => "the default variant's name '…' is taken by a case",
    E0411 => "'unless' chooses the default variant; this switch has none",
    E0412 => "empty range …",
    E0413 => "'…' is not a value of enum '…'",
    E0414 => "case key '…' is not an integer or range",
    E0415 => "unknown type '…' (a case's array holds a type of this schema)",
    E0416 => "unknown type '…'",
    E0501 => "'…' is … where … is needed",
    E0502 => "an expression does not parse",
    E0503 => "unknown built-in '@…'",
    E0504 => "'…[...]' can only be a switch's tag",
    E0505 => "'…' is not a state table",
    E0506 => "len() takes a field",
    E0507 => "… takes …",
    E0508 => "'…' names a range of values of enum '…', not one value",
    E0509 => "'…' is not a value of enum '…'",
    E0510 => "unknown field '…'",
    E0511 => "len(…): the text's length is not its length on the wire (a NUL-terminated string, or text in another encoding than UTF-8)",
    E0512 => "len() takes a bytes, string or array field; '…' is not one",
    E0513 => "'…' is a NUL-terminated string or text in another encoding than UTF-8: neither a number nor a length",
    E0514 => "'…' is not a number",
    E0515 => "a flag bit has no fields",
    E0516 => "'…' is not a flag of '…'",
    E0517 => "'…' has no fields",
    E0518 => "'…' is this type: its fields are read by their names alone",
    E0519 => "'…' has no field '…'",
    E0520 => "len() of an enclosing type's field ('…')",
    E0521 => "'…' is not a number, a bool or a flag of an enclosing type",
    E0522 => "'…' is not known here: …",
    E0523 => "an enclosing field is read before its holder has read it",
    E0524 => "an enclosing field the encoder fills from the data is read inside it",
    E0525 => "an expression evaluated on a decoded value reads enclosing fields or the direction",
    E0526 => "more than … enclosing fields are read in one schema",
    E0527 => "'…' reads the direction (@from_client), which is not known …",
    E0528 => "'…' is not a flag of '…'",
    E0529 => "'….…' is not an integer, an enum or a bool",
    E0530 => "'…' is the parts' own type: its fields are named alone",
    E0531 => "an enclosing field read inside its holder is one the encoder fills: a decoded value does not keep it",
    E0601 => "field name '…' is … in the generated Rust",
    E0602 => "Wireshark has a protocol '…' built in: a dissector of that name does not register",
    E0603 => "Wireshark has a protocol titled '…' built in: a dissector of that title does not register",
    E0604 => "protocol name '…' is a Rust keyword or a crate the generated crate uses",
    E0605 => "type name '…' is taken in the generated Rust: …",
    E0606 => "type names '…' and '…' make one filter name '…'",
    E0607 => "an enum value's name is not UPPER_SNAKE_CASE, or clashes in the generated code",
    E0608 => "a flag's name is not UPPER_SNAKE_CASE, or clashes in the generated code",
    E0701 => "…: a bit stream keeps one bit order",
    E0702 => "'…' must be a bytes field that runs to the end, or a switch whose default is bytes",
    E0703 => "reassembly needs exactly one of 'last' and 'count'",
    E0704 => "unknown whole type for client or server",
    E0705 => "reassembly by direction needs the server's UDP ports",
    E0706 => "'…' is not a switch",
    E0707 => "say what the whole is: 'client' and 'server' types, or 'as' a switch field",
    E0708 => "'…' must be an unsigned integer field",
    E0709 => "piece_size must be at least 1",
    E0710 => "'…' is not a field of …",
    E0711 => "unknown type '…'",
    E0712 => "unknown side '…'",
    E0713 => "'max_message' bounds a length prefix, and this transport has none",
    E0714 => "'max_message' must be at least 1",
    E0715 => "'max_message' … is more than the length prefix can announce (…)",
    E0716 => "a reassembly's 'last' reads a field the encoder fills",
    E0717 => "a reassembly's 'when' reads a field the encoder fills",
    E0718 => "a reassembly's index or key is a field the encoder fills",
    E0719 => "'length_counts', 'length_adjust' or 'length_at' on a transport without a length prefix",
    E0720 => "a length that counts fewer bytes than the message has no frame to describe",
    E0721 => "a message of … bytes needs a prefix of …, more than it can hold (…)",
    E0722 => "TCP without a framing: messages cannot be found in the stream",
    E0723 => "'framing: none' and a 'length_prefix' contradict each other",
    E0724 => "'length_at' names a field that is not of the length prefix's type",
    E0725 => "no field of the root starts at byte … after fields of fixed size",
    E0726 => "the length field 'length_at' names is filled by nothing",
    E0801 => "parts in bit-stream types are not supported yet",
    E0802 => "name at least one bytes field",
    E0803 => "'as' gives … types for … fields",
    E0804 => "'…' must be a bytes field",
    E0805 => "a joined stream decodes as a byte-aligned type",
    E0806 => "'…' must be an unsigned integer",
    E0807 => "wrap … is outside 2..=… (the sequence field's range)",
    E0808 => "piece_size must be at least 1",
    E0809 => "key '…' must be an integer field",
    E0810 => "the joined stream '…' stays bytes",
    E0811 => "'…' should be an array field and its elements' field",
    E0812 => "'…' is not an array of a type with fields",
    E0813 => "'…' is not of the table's enum '…'",
    E0814 => "a join's 'first' reads a field the encoder fills",
    E0815 => "a join's 'last' reads a field the encoder fills",
    E0816 => "a join's sequence or key is a field the encoder fills",
    E0817 => "parts in bit-stream types are not supported yet",
    E0818 => "the pieces, the begin and the end message are three different types",
    E0819 => "max_size must be at least 1",
    E0820 => "'…' carries the pieces of another join already",
    E0901 => "'…' must be an unsigned integer",
    E0902 => "'…' must be bytes or bits running to the end",
    E0903 => "the transport '…' declares no 'applications' to plug into",
    E0904 => "an application's layout follows its transport's payloads (…)",
    E0905 => "the message id is an unsigned integer of 1 to 4 bytes",
    E0906 => "'…' carries no message id: say the type of the one your messages start with",
    E0907 => "'…' carries the message id itself",
    E1001 => "unknown checksum algorithm '…'",
    E1002 => "a checksum names its 'algorithm' or gives a 'crc', one of the two",
    E1003 => "a CRC of … bits",
    E1004 => "… … does not fit in the CRC's … bits",
    E1005 => "poly … is even",
    E1006 => "a checksum's range names a bit group",
    E1007 => "the checksum covers field '…', which this type does not have",
    E1008 => "the checksum's range cannot … at '…': it is packed in the bit group '…', with no bytes of its own",
    E1009 => "the checksum's range ends at '…', before it starts at '…'",
    E1010 => "checksums … cover each other: none can be computed first",
    E1101 => "type cycle: …",
    E1201 => "'set_when' applies to fields of a flag-set type",
    E1202 => "a field with 'set_when' cannot be conditional",
    E1203 => "'…' is not a flag of '…'",
    E1204 => "field '…' gives the length, count or tag of '…' and cannot be conditional",
    E1205 => "field '…' of '…' would be derived from both '…' and '…'",
    E1206 => "'…' of '…' is announced by a bit of '…' that its 'set_when' already gives",
    E1301 => "'…' is the filter name of type '…' already",
    E1302 => "'…' is a field of the root type: its filter name is taken",
    E1303 => "'…' already names the fields of a '…' value, not of a '…'",
    E1304 => "the root type's fields have filter names of their own (`proto.<field>`)",
    E1305 => "'…' has a checksum: its fields keep their type's filter names",
    E1401 => "field name '…' is not snake_case",
    E1402 => "the bit group '…' has the name of a field of '…'",
    E1403 => "'…' on a bit group: the group only holds its fields",
    E1404 => "a bit group in the … type '…': a bit stream packs its fields already",
    E1405 => "a bit group packs bits: its layout is a bit order",
    E1406 => "the bit group '…' needs an unsigned integer of 1 to 8 whole bytes",
    E1407 => "'…' in a bit group: only integers, bools, enums and flag sets are packed into one",
    E1408 => "a modifier a bit group's field cannot have ('if', 'max', a constant …)",
    E1409 => "the fields of bit group '…' take … bits of its …",
    E1501 => "a field has either a 'length' or a 'prefix', not both",
    E1502 => "a field has either a 'count' or a 'prefix', not both",
    E1503 => "an array has either a 'count' (elements) or a 'length' (bytes), not both",
    E1504 => "an array read to the end of a bit stream has elements narrower than its padding",
    E1505 => "an array read to the end has elements that may take no bytes: it would never end",
    E1506 => "a value runs to the end of the message but fields follow it",
    E1507 => "an array or value runs to a size other fields bound, which the decoder cannot find",
    E1601 => "an application schema rides on its transport's numbering",
    E1602 => "wrap … is outside 2..=… (the field's range)",
    E1603 => "'part' and 'last' go together",
    E1604 => "its numbering has parts: name the acked part too",
    E1605 => "an ack is cumulative or carries a bitfield, not both",
    E1606 => "a ping needs its reply: give both 'ping' and 'pong'",
    E1607 => "the analysis reads values the root holds in one place only: …",
    E1608 => "'…' must be an unsigned integer field, always present, that the sender sets",
    E1609 => "channel '…' counts modulo …, this numbering modulo …",
    E1610 => "no sequence numbers channel '…'",
    E1611 => "at most 256 channels",
    E1612 => "'…' is … bits wide; the analysis reads at most …",
    E1613 => "the netcode analysis reads a condition over a field the encoder fills",
    E1614 => "no ack names channel '…': its numbers would never be acknowledged",
    I0001 => "an internal error of a backend: validation let through what it cannot generate (please report the schema)",
    L0101 => "'…': 'unless' on a switch without a length",
    L0102 => "'…': a varint length of '…' (encoded)",
    L0103 => "'…': a signed field of over 32 bits in a bit group",
    L0104 => "'…': the … checksum",
    L0105 => "a heuristic over a bit-stream root",
    L0106 => "reassembly over bit-stream datagrams",
    L0107 => "'…': a bit-stream opening datagram",
    L0108 => "an enum of … bits in a bit stream",
    L0109 => "flags of … bits in a bit stream",
    L0110 => "a struct with a length in a bit stream",
    L0111 => "'…': a length prefix of a struct in a bit stream",
    L0112 => "a switch with a length in a bit stream",
    L0113 => "'…': a length prefix of a switch in a bit stream",
    L0114 => "a checksum in a bit stream",
    L0115 => "the length of '…' (encoded) in a bit stream",
    L0116 => "values typed by conversation state in a bit stream",
    L0117 => "'…': …, past the 2^53 a Lua number holds exactly",
    L0118 => "'…': … (what the C# codec does not generate yet)",
    L0119 => "'…': a list announced deeper than a case of the root (the C# codec records lists from those only)",
    W0001 => "nothing reads a type: the root does not hold it, nor does any type the outputs decode",
    W0002 => "a switch case its tag field's 'valid' never allows",
    W0003 => "a switch case another switch on the same tag has no case for, and no default",
    W0004 => "a switch default another switch on the same tag leaves no value for",
    W0005 => "'subtree: false' where the dissector makes no subtree to leave out",
}

impl Code {
    /// The code printed as `text` (`E0510`, any case), if there is one.
    pub fn parse(text: &str) -> Option<Code> {
        let text = text.trim().to_ascii_uppercase();
        Code::ALL.iter().copied().find(|c| c.as_str() == text)
    }

    /// Whether it is a warning: every output is still written.
    pub fn is_warning(self) -> bool {
        self.as_str().starts_with('W')
    }

    /// The part of wiregen that reports it, and what that part checks.
    pub fn area(self) -> (&'static str, &'static str) {
        let s = self.as_str();
        AREAS
            .iter()
            .find(|(prefix, ..)| s.starts_with(prefix))
            .map(|(_, part, what)| (*part, *what))
            .unwrap_or(("validation", ""))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of wiregen reports the codes starting so, and what it checks.
pub const AREAS: &[(&str, &str, &str)] = &[
    ("E00", "loading", "YAML syntax and shape (unknown keys, wrong value kinds), files that cannot be read, `extends` and `application.transport`"),
    ("E01", "validate/resolve/mod.rs", "protocol names, the default byte/bit order, type names, state tables, root type, opening datagrams"),
    ("E02", "validate/resolve/types.rs, field_types.rs", "enums, flag sets, integer widths, constants, strings, floats, arrays"),
    ("E03", "validate/resolve/fields.rs, field_values.rs", "fields: duplicates, lengths, counts, prefixes, conditions, padding, limits, state, display, valid, compression"),
    ("E04", "validate/resolve/unions.rs", "switches: tags, cases, defaults, unless"),
    ("E05", "validate/resolve/expressions.rs, enclosing.rs", "expression syntax, names (fields read before they are), types; fields of enclosing types (`Header.channel`) and the direction (`@from_client`): where they are known"),
    ("E06", "validate/checks/names.rs", "names in their Rust and Lua forms: keywords, clashes"),
    ("E07", "validate/resolve/protocol.rs", "transports, ports, heuristics, TCP framing, reassembly"),
    ("E08", "validate/resolve/session.rs", "conversation state, joins, sequences"),
    ("E09", "validate/resolve/application.rs", "application schemas over a transport"),
    ("E10", "validate/resolve/checksums.rs", "checksum algorithms, widths, what they cover"),
    ("E11", "validate/checks/cycles.rs", "types that contain themselves"),
    ("E12", "validate/resolve/derived.rs", "fields the encoder fills in (lengths, counts, sizes, tags, presence)"),
    ("E13", "validate/checks/filters.rs", "Wireshark display filters and their fields"),
    ("E14", "validate/resolve/groups.rs", "bit groups"),
    ("E15", "validate/resolve/sizes.rs, validate/checks/arrays.rs", "lengths and prefixes; arrays and values read to the end"),
    ("E16", "validate/resolve/reliability.rs", "sequence numbers, acks and pings the netcode analysis reads"),
    ("L01", "validate/checks/limits.rs", "a construct one backend cannot generate yet: that output is not written, the other one is"),
    ("I00", "the backends", "an internal error (validation let something through a backend refuses): please report the schema"),
    ("W00", "validate/checks/unread.rs, dead_cases.rs (ir/dead_cases.rs)", "warnings: every output is written, but the schema is probably not what its author meant"),
];

/// The list of every code as `docs/diagnostics.md` holds it: a table per area.
pub fn markdown() -> String {
    let mut out = String::new();
    for (prefix, part, what) in AREAS {
        out +=
            &format!("\n### `{prefix}xx`: {what} ({part})\n\n| Code | Says |\n|------|------|\n");
        for c in Code::ALL.iter().filter(|c| c.as_str().starts_with(prefix)) {
            out += &format!("| `{c}` | {} |\n", c.summary().replace('|', "\\|"));
        }
    }
    out
}

/// What `wiregen explain CODE` prints.
pub fn explain(code: Code) -> String {
    let (part, what) = code.area();
    let kind = match code.as_str().as_bytes()[0] {
        b'E' => "error: the schema's outputs are not written",
        b'L' => "limit: one backend cannot generate this yet; the other output is written",
        b'W' => "warning: every output is written",
        _ => "internal error of wiregen: please report the schema",
    };
    format!(
        "{code}: {}\n\n  kind:     {kind}\n  found by: {part} ({what})\n\nEvery code: docs/diagnostics.md\n",
        code.summary()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_back_and_have_an_area() {
        for &c in Code::ALL {
            assert_eq!(Code::parse(c.as_str()), Some(c));
            assert!(!c.summary().is_empty(), "{c}");
            assert_ne!(c.area().1, "", "{c} has no area");
        }
        assert_eq!(Code::parse("e0510"), Some(Code::E0510));
        assert_eq!(Code::parse("E9999"), None);
        assert!(explain(Code::E0510).starts_with("E0510: unknown field '…'"));
    }
}
