//! Pass: names in the forms the backends give them. A schema name is valid YAML and valid
//! schema, but it also becomes a Rust item, variant, constant or local and a Lua table key:
//! two names that differ in the schema may be one after case conversion (`V2`, `V_2`), and a
//! name may be one the generated crate defines or imports itself (`Codec`, `Unknown`, a reader
//! called `r`). Each is refused here, at its position and with a hint, so that an accepted
//! schema always generates code that compiles. (Lua keywords need no refusal: the dissector
//! indexes values by string where a name is one.)

use super::*;
use heck::ToSnakeCase;

/// Items every generated crate defines itself: a schema type of one of these names would
/// redefine it. (Names of std's prelude and of the runtime are free: generated code names those
/// items by path where a schema type takes the name, `backend/rust/paths.rs`.)
const ALWAYS_TAKEN: &[&str] = &[
    // the crate's marker of the schema as a whole
    "Protocol", // a keyword that cannot be a raw identifier
    "Self",
];

/// Locals of the generated decoders that a field's local would shadow (the reader; the writer
/// `w` only for the fields the encoder keeps a local of: see `check_names`), and the Rust
/// keywords that cannot be raw identifiers.
const TAKEN_FIELD_NAMES: &[(&str, &str)] = &[
    ("r", "the decoders' reader"),
    ("self", "a Rust keyword"),
    ("super", "a Rust keyword"),
    ("crate", "a Rust keyword"),
];

/// Associated items of a generated flag set that a bit's constant would redefine.
const FLAG_SET_ITEMS: &[&str] = &["NAMES"];

/// Checks every name of `p` in its Rust form (and filter-name form where two could meet).
pub(crate) fn check_names(r: &mut Report, p: &Protocol) {
    check_type_names(r, p);
    for e in &p.enums {
        check_value_names(r, e);
    }
    for f in &p.flags {
        check_bit_names(r, f);
    }
    for s in &p.structs {
        for (fi, f) in s.fields.iter().enumerate() {
            // The encoder computes derived, checksum and implied values into locals.
            let encoder_local = !matches!(f.role, Role::Value | Role::Const(_) | Role::Reserved)
                || !f.implied.is_empty();
            let writer = (encoder_local && f.name == "w").then_some("the encoders' writer");
            let taken = TAKEN_FIELD_NAMES
                .iter()
                .find(|(n, _)| *n == f.name)
                .map(|(_, what)| *what)
                .or(writer);
            if let Some(what) = taken {
                let at = format!("{}.name", r.field_path(&s.name, fi));
                r.error(
                    Code::E0601,
                    &at,
                    format!("field name '{}' is {what} in the generated Rust", f.name),
                    Some(format!("rename it, e.g. '{}_value'", f.name)),
                );
            }
        }
    }
    if wireshark_has(&p.name) {
        r.error(Code::E0602,
            "protocol.name",
            format!(
                "Wireshark has a protocol '{}' built in: a dissector of that name does not register",
                p.name
            ),
            Some(format!("name yours otherwise, e.g. '{}_game'", p.name)),
        );
    }
    if wireshark_has_title(&p.title) {
        r.error(Code::E0603,
            "protocol.title",
            format!(
                "Wireshark has a protocol titled '{}' built in: a dissector of that title does not register",
                p.title
            ),
            Some(format!("title yours otherwise, e.g. '{} (game)'", p.title)),
        );
    }
    if syn::parse_str::<syn::Ident>(&p.name).is_err()
        || [
            "std",
            "core",
            "alloc",
            "wiregen_runtime",
            "serde",
            "arbitrary",
        ]
        .contains(&p.name.as_str())
    {
        r.error(
            Code::E0604,
            "protocol.name",
            format!(
                "protocol name '{}' is a Rust keyword or a crate the generated crate uses",
                p.name
            ),
            Some(format!("e.g. '{}_proto'", p.name)),
        );
    }
}

/// Type names against what the generated crate defines: fixed items, items of the
/// constructs this schema uses, and the enums it makes of switches (`PacketPayload`).
fn check_type_names(r: &mut Report, p: &Protocol) {
    let mut generated: Vec<(String, String)> = ALWAYS_TAKEN
        .iter()
        .map(|n| {
            (
                n.to_string(),
                "an item every generated crate defines".into(),
            )
        })
        .collect();
    let mut construct = |names: &[&str], why: &str| {
        for n in names {
            generated.push((n.to_string(), why.to_string()));
        }
    };
    if !p.opening.is_empty() {
        construct(
            &["Conversation", "Datagram"],
            "defined for the conversation's opening",
        );
    }
    if p.application.is_some() {
        construct(
            &["Message", "Received"],
            "defined for an application's messages",
        );
    }
    if !p.state.is_empty() {
        construct(
            &["State", "DecodeWith"],
            "defined for the conversation state",
        );
    }
    if p.reassembly.is_some() {
        construct(&["Whole", "Reassembler"], "defined for reassembly");
    }
    for j in &p.joins {
        let s = &p.structs[j.in_struct].name;
        for suffix in ["Joined", "Joiner", "Part"] {
            generated.push((
                format!("{s}{suffix}"),
                format!("defined for the joins of '{s}'"),
            ));
        }
    }
    for (sid, s) in p.structs.iter().enumerate() {
        for (fi, f) in s.fields.iter().enumerate() {
            if matches!(f.ty, Ty::Union(_)) {
                generated.push((
                    p.union_name(sid, fi),
                    format!("the enum of switch '{}.{}'", s.name, f.name),
                ));
            }
        }
    }
    let declared = p
        .enums
        .iter()
        .map(|e| ("enums", &e.name))
        .chain(p.flags.iter().map(|f| ("flags", &f.name)))
        .chain(p.structs.iter().map(|s| ("types", &s.name)));
    let mut snake: HashMap<String, String> = HashMap::new();
    for (kind, name) in declared {
        let at = format!("{kind}.{name}");
        if let Some((_, why)) = generated.iter().find(|(n, _)| n == name) {
            r.error_key(
                Code::E0605,
                &at,
                format!("type name '{name}' is taken in the generated Rust: {why}"),
                Some(format!("rename it, e.g. '{name}Type'")),
            );
        }
        // Types' fields are filtered as `proto.<type in snake_case>.<field>`.
        if kind != "types" {
            continue;
        }
        if let Some(prev) = snake
            .insert(name.to_snake_case(), name.clone())
            .filter(|prev| prev != name)
        {
            r.error_key(
                Code::E0606,
                &at,
                format!(
                    "type names '{prev}' and '{name}' make one filter name '{}'",
                    name.to_snake_case()
                ),
                Some("rename one of them".into()),
            );
        }
    }
}

/// An enum's values become variants (`ONE` → `One`): each must be an identifier, none
/// `Self`, no two alike, and none the `Unknown` an open enum keeps unnamed values in.
fn check_value_names(r: &mut Report, e: &Enum) {
    let mut seen: HashMap<String, String> = HashMap::new();
    let names = e
        .values
        .iter()
        .map(|v| &v.name)
        .chain(e.ranges.iter().map(|r| &r.name));
    for name in names {
        let at = format!("enums.{}.values.{name}", e.name);
        let variant = name.to_upper_camel_case();
        let problem = if !variant.starts_with(|c: char| c.is_ascii_alphabetic()) {
            Some(format!(
                "value name '{name}' makes no Rust variant ('{variant}' is not an identifier)"
            ))
        } else if variant == "Self" {
            Some(format!(
                "value name '{name}' makes the Rust variant 'Self', which is a keyword"
            ))
        } else if variant == "Unknown" && !e.closed {
            Some(format!(
                "value name '{name}' makes the variant 'Unknown', which this open enum keeps \
                 unnamed values in"
            ))
        } else {
            seen.insert(variant.clone(), name.clone()).map(|prev| {
                format!("value names '{prev}' and '{name}' make one Rust variant '{variant}'")
            })
        };
        if let Some(message) = problem {
            r.error_key(
                Code::E0607,
                &at,
                message,
                Some("rename it: value names are UPPER_SNAKE_CASE words, e.g. 'MODE_2'".into()),
            );
        }
    }
}

/// A flag set's bits become constants (`fin` → `FIN`) and filter names (`proto.x.fin`).
fn check_bit_names(r: &mut Report, f: &Flags) {
    let mut consts: HashMap<String, String> = HashMap::new();
    let mut filters: HashMap<String, String> = HashMap::new();
    for b in &f.bits {
        let at = format!("flags.{}.bits.{}", f.name, b.name);
        let konst = b.name.to_uppercase();
        let problem = if FLAG_SET_ITEMS.contains(&konst.as_str()) {
            Some(format!(
                "bit name '{}' makes the constant '{konst}', which every flag set defines",
                b.name
            ))
        } else if let Some(prev) = consts.insert(konst.clone(), b.name.clone()) {
            Some(format!(
                "bit names '{prev}' and '{}' make one Rust constant '{konst}'",
                b.name
            ))
        } else {
            filters
                .insert(b.name.to_snake_case(), b.name.clone())
                .map(|prev| {
                    format!(
                        "bit names '{prev}' and '{}' make one filter name '{}'",
                        b.name,
                        b.name.to_snake_case()
                    )
                })
        };
        if let Some(message) = problem {
            r.error_key(Code::E0608, &at, message, Some("rename it".into()));
        }
    }
}

/// Whether Wireshark registers a protocol of filter name `name` itself (the list in
/// `wireshark_protocols.txt`, from `tshark -G protocols` of the versions tested).
fn wireshark_has(name: &str) -> bool {
    include_str!("wireshark_protocols.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .any(|l| l == name)
}

/// Whether Wireshark registers a protocol of description `title` itself
/// (`wireshark_titles.txt`).
fn wireshark_has_title(title: &str) -> bool {
    include_str!("wireshark_titles.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .any(|l| l == title)
}
