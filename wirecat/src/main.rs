//! wirecat: decode or craft messages of any wiregen schema without Wireshark.
//!
//! ```text
//! wirecat decode <schema> [--type T] <hex>...     one JSON line per message
//! wirecat encode <schema> [--type T] '<json>'     the message as hex
//! wirecat list                                    schemas and their types
//! ```

#[rustfmt::skip]
mod registry;

use std::process::ExitCode;

pub(crate) fn to_json<T: serde::Serialize>(v: T) -> Result<serde_json::Value, String> {
    serde_json::to_value(v).map_err(|e| e.to_string())
}

pub(crate) fn from_json<'a, T: serde::Deserialize<'a>>(json: &'a str) -> Result<T, String> {
    serde_json::from_str(json).map_err(|e| format!("invalid JSON for this type: {e}"))
}

pub(crate) fn unknown_type(name: &str) -> String {
    format!("unknown type '{name}' (see `wirecat list`)")
}

fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| !matches!(c, b' ' | b':' | b'\n' | b'\t' | b'-'))
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("'{text}': odd number of hex digits"));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).map_err(|_| "not hex".to_string())?;
            u8::from_str_radix(s, 16).map_err(|_| format!("'{s}' is not a hex byte"))
        })
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

const USAGE: &str = "usage: wirecat decode <schema> [--type T] <hex>...\n       wirecat encode <schema> [--type T] '<json>'\n       wirecat list";

fn run(args: &[String]) -> Result<(), String> {
    let (cmd, rest) = args.split_first().ok_or(USAGE)?;
    if cmd == "list" {
        for (name, title, types) in registry::SCHEMAS {
            println!("{name}\t{title}\t{}", types.join(", "));
        }
        return Ok(());
    }
    let (schema, rest) = rest.split_first().ok_or(USAGE)?;
    let mut ty = None;
    let mut inputs = Vec::new();
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        if a == "--type" || a == "-t" {
            ty = Some(it.next().ok_or("--type needs a type name")?.as_str());
        } else {
            inputs.push(a.as_str());
        }
    }
    if inputs.is_empty() {
        return Err(USAGE.into());
    }
    match cmd.as_str() {
        "decode" => {
            for hex in inputs {
                let bytes = parse_hex(hex)?;
                let json = registry::decode(schema, ty, &bytes)?;
                println!("{json}");
            }
            Ok(())
        }
        "encode" => {
            for json in inputs {
                println!("{}", to_hex(&registry::encode(schema, ty, json)?));
            }
            Ok(())
        }
        _ => Err(USAGE.into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wirecat: {e}");
            ExitCode::FAILURE
        }
    }
}
