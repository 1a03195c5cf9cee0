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

use wiregen_runtime::{Codec, SerdeProtocol, SerdeTypeVisitor, Type};

/// Something wirecat does with one protocol, whichever it is (see [`registry::run`]).
pub(crate) trait Job {
    type Output;
    fn run<P: SerdeProtocol>(self) -> Self::Output;
}

fn to_json<T: serde::Serialize>(v: T) -> Result<serde_json::Value, String> {
    serde_json::to_value(v).map_err(|e| e.to_string())
}

fn unknown_type(name: &str) -> String {
    format!("unknown type '{name}' (see `wirecat list`)")
}

/// (title, type names) of a protocol.
struct List;

impl Job for List {
    type Output = (&'static str, Vec<&'static str>);
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        struct Names(Vec<&'static str>);
        impl SerdeTypeVisitor for Names {
            fn visit<T: Type>(&mut self)
            where
                for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
            {
                self.0.push(<T::Of<'static> as Codec<'static>>::NAME);
            }
        }
        let mut names = Names(Vec::new());
        P::each_serde_type(&mut names);
        (P::TITLE, names.0)
    }
}

/// What to do with the one type `--type` names: the type is known only as a parameter.
trait OnType {
    type Output;
    fn on<T: Type>(self) -> Result<Self::Output, String>
    where
        for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>;
}

/// Runs `action` on protocol `P`'s type called `ty` (default: its root).
fn on_type<P: SerdeProtocol, A: OnType>(ty: Option<&str>, action: A) -> Result<A::Output, String> {
    struct Find<'t, A: OnType> {
        ty: &'t str,
        action: Option<A>,
        out: Option<Result<A::Output, String>>,
    }
    impl<A: OnType> SerdeTypeVisitor for Find<'_, A> {
        fn visit<T: Type>(&mut self)
        where
            for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
        {
            if <T::Of<'static> as Codec<'static>>::NAME == self.ty {
                if let Some(action) = self.action.take() {
                    self.out = Some(action.on::<T>());
                }
            }
        }
    }
    let ty = ty.unwrap_or(<P::Root<'static> as Codec<'static>>::NAME);
    let mut find = Find {
        ty,
        action: Some(action),
        out: None,
    };
    P::each_serde_type(&mut find);
    find.out.unwrap_or_else(|| Err(unknown_type(ty)))
}

/// Decodes bytes as a named type (default: the root) into JSON.
struct Decode<'b> {
    ty: Option<&'b str>,
    bytes: &'b [u8],
}

impl OnType for Decode<'_> {
    type Output = serde_json::Value;
    fn on<T: Type>(self) -> Result<serde_json::Value, String>
    where
        for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
    {
        T::Of::decode(self.bytes)
            .map_err(|e| e.to_string())
            .and_then(to_json)
    }
}

impl Job for Decode<'_> {
    type Output = Result<serde_json::Value, String>;
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        on_type::<P, _>(self.ty, self)
    }
}

/// Encodes a JSON value of a named type (default: the root).
struct Encode<'j> {
    ty: Option<&'j str>,
    json: &'j str,
}

impl OnType for Encode<'_> {
    type Output = Vec<u8>;
    fn on<T: Type>(self) -> Result<Vec<u8>, String>
    where
        for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
    {
        serde_json::from_str::<T::Of<'_>>(self.json)
            .map_err(|e| format!("invalid JSON for this type: {e}"))
            .and_then(|v| v.encode().map_err(|e| e.to_string()))
    }
}

impl Job for Encode<'_> {
    type Output = Result<Vec<u8>, String>;
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        on_type::<P, _>(self.ty, self)
    }
}

fn unknown_schema(name: &str) -> String {
    format!("unknown schema '{name}'")
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
        for name in registry::NAMES {
            if let Some((title, types)) = registry::run(name, List) {
                println!("{name}\t{title}\t{}", types.join(", "));
            }
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
                let json = registry::run(schema, Decode { ty, bytes: &bytes })
                    .ok_or_else(|| unknown_schema(schema))??;
                println!("{json}");
            }
            Ok(())
        }
        "encode" => {
            for json in inputs {
                let bytes = registry::run(schema, Encode { ty, json })
                    .ok_or_else(|| unknown_schema(schema))??;
                println!("{}", to_hex(&bytes));
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
