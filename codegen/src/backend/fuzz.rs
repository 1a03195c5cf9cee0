//! The fuzz crate (cargo-fuzz layout): one libFuzzer target per schema, over its top-level types
//! (the root, the opening datagrams, and what reassembly and joins produce).

use super::header::{header, Comment, Source};
use super::Output;
use crate::ir::Protocol;
use crate::naming;
use std::path::Path;

/// The cargo-fuzz crate in `dir`: `to_crates` is the generated crates' folder as seen from
/// `dir`, `generator` the manifest's `wiregen` location (`path = "../codegen"`).
pub fn generate(
    protocols: &[&Protocol],
    dir: &Path,
    to_crates: &str,
    generator: &str,
) -> Vec<Output> {
    let mut deps = String::new();
    let mut bins = String::new();
    let mut out = Vec::new();
    for p in protocols {
        let krate = naming::crate_name(p);
        let module = p.name.clone();
        deps.push_str(&format!(
            "{krate} = {{ path = \"{to_crates}/{}\", features = [\"arbitrary\"] }}\n",
            p.name
        ));
        bins.push_str(&format!(
            "\n[[bin]]\nname = \"{module}\"\npath = \"fuzz_targets/{module}.rs\"\ntest = false\ndoc = false\nbench = false\n"
        ));
        let mut checks: String = p
            .top_level_types()
            .iter()
            .map(|id| format!("    check!({module}::{}, data);\n", p.structs[*id].name))
            .collect();
        // An application's `Message`: any id and payload, and arbitrary messages round-trip.
        if let Some(a) = &p.application {
            let (decode, payload, again) = match (a.own_id.is_some(), a.layout.is_bits()) {
                (true, _) => ("decode(data)", "", "decode(&bytes)"),
                (false, true) => (
                    "decode(id, &payload)",
                    "let payload = {module}::BitString::from_bytes(data.to_vec());\n    ",
                    "decode(m.id(), &bytes)",
                ),
                (false, false) => ("decode(id, data)", "", "decode(m.id(), &bytes)"),
            };
            let payload = payload.replace("{module}", &module);
            checks.push_str(&format!(
                "    // Any input as a whole transport datagram: receiving never panics.\n    let _ = {module}::Message::receive(data);\n"
            ));
            checks.push_str(&format!(
                "    let id = data.first().copied().unwrap_or(0) as u64;\n    let _ = id;\n    {payload}if let Ok(m) = {module}::Message::{decode} {{\n        if let Ok(bytes) = m.encode() {{\n            let back = {module}::Message::{again}.expect(\"an encoded message decodes\");\n            assert_eq!(back.encode().expect(\"re-encodes\"), bytes);\n        }}\n    }}\n    let mut u = arbitrary::Unstructured::new(data);\n    if let Ok(m) = <{module}::Message as arbitrary::Arbitrary>::arbitrary(&mut u) {{\n        if let Ok(bytes) = m.encode() {{\n            let back = {module}::Message::{again}.expect(\"an encoded message decodes\");\n            assert_eq!(back.encode().expect(\"re-encodes\"), bytes);\n        }}\n    }}\n"
            ));
        }
        let target = fuzz_target(p, &krate, &module, &checks);
        out.push(Output {
            path: dir
                .join(format!("fuzz_targets/{module}.rs"))
                .display()
                .to_string(),
            contents: target,
        });
    }
    // The generator itself: any text as a schema.
    bins.push_str(
        "\n[[bin]]\nname = \"schema\"\npath = \"fuzz_targets/schema.rs\"\ntest = false\ndoc = false\nbench = false\n",
    );
    out.push(Output {
        path: dir.join("fuzz_targets/schema.rs").display().to_string(),
        contents: header(Comment::InnerDoc, Source::Generator) + SCHEMA_TARGET,
    });
    let toml_header = header(Comment::Hash, Source::AllSchemas);
    let cargo = format!(
        r#"{toml_header}# Run a target: cargo fuzz run <schema> (see docs/robustness.md); seeds are in corpus/<schema>.
[package]
name = "wiregen-fuzz"
version = "0.0.0"
edition = "2021"
publish = false

[package.metadata]
cargo-fuzz = true

[dependencies]
libfuzzer-sys = "0.4"
arbitrary = "1"
wiregen = {{ {generator} }}
{deps}
# Not part of the main workspace: built by cargo fuzz with its own flags.
[workspace]
members = ["."]
{bins}"#
    );
    out.insert(
        0,
        Output {
            path: dir.join("Cargo.toml").display().to_string(),
            contents: cargo,
        },
    );
    out
}

/// The fuzz target of one schema: `checks` run for each input.
fn fuzz_target(p: &Protocol, krate: &str, module: &str, checks: &str) -> String {
    format!(
        r#"{header}//!
//! Fuzzes the `{krate}` crate with every input twice per top-level type: as wire bytes
//! (decoding never panics, and what decodes re-encodes into bytes that decode and encode the
//! same), and as the source of an arbitrary value (what the encoder accepts decodes back and
//! re-encodes identically).
#![no_main]

use libfuzzer_sys::fuzz_target;
use {module}::{{Codec, DecodeError, DecodeErrorKind}};

/// Errors a decoder may give on bytes its own encoder wrote: values typed by conversation state
/// need the lists earlier messages announced.
fn needs_state(e: &DecodeError) -> bool {{
    matches!(e.kind, DecodeErrorKind::NoState {{ .. }} | DecodeErrorKind::NotInList {{ .. }})
}}

/// Encoded bytes decode, and the decoded value encodes to the same bytes.
macro_rules! round_trip {{
    ($t:ty, $bytes:expr) => {{{{
        let bytes: &[u8] = $bytes;
        match <$t>::decode(bytes) {{
            Ok(back) => {{
                let again = back
                    .encode()
                    .unwrap_or_else(|e| panic!("{{back:?}} does not re-encode: {{e}}"));
                assert_eq!(again, bytes, "{{back:?}} re-encodes differently");
            }}
            Err(e) if needs_state(&e) => {{}}
            Err(e) => panic!("encoded bytes {{bytes:02x?}} do not decode: {{e}}"),
        }}
    }}}};
}}

macro_rules! check {{
    ($t:ty, $data:expr) => {{{{
        let data: &[u8] = $data;
        if let Ok(m) = <$t>::decode(data) {{
            let bytes = m
                .encode()
                .unwrap_or_else(|e| panic!("{{m:?}} decoded but does not encode: {{e}}"));
            round_trip!($t, &bytes);
        }}
        let mut u = arbitrary::Unstructured::new(data);
        if let Ok(v) = <$t as arbitrary::Arbitrary>::arbitrary(&mut u) {{
            if let Ok(bytes) = v.encode() {{
                round_trip!($t, &bytes);
            }}
        }}
    }}}};
}}

fuzz_target!(|data: &[u8]| {{
{checks}}});
"#,
        header = header(Comment::InnerDoc, Source::Schema(&p.source)),
    )
}

/// The generator's own target: any input, read as a schema, is refused with diagnostics or
/// generates both outputs, never a panic, and never a backend's internal error (a construct
/// validation let through that a backend cannot write: the generated Rust is parsed by the
/// backend itself, so Rust that does not parse is one). Seeds: the golden snippets.
const SCHEMA_TARGET: &str = r#"//!
//! Fuzzes the generator: any input, read as a schema, is refused with diagnostics or generates
//! both outputs; it never panics and never reaches a backend's internal error (generated Rust
//! that does not parse is one: the backend parses what it writes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use wiregen::{backend::rust::RuntimeDep, pipeline, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(protocol) = validate::load("fuzz.yaml", text) else {
        return;
    };
    let runtime = RuntimeDep::Path("../runtime".into());
    let (_, problems) = pipeline::outputs(&protocol, &runtime);
    for d in &problems.0 {
        assert!(!d.message.contains("internal error"), "{d}");
    }
});
"#;
