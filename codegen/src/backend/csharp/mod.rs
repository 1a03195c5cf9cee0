//! The C# backend: one `.cs` file per schema for a Unity (or any .NET) client, rendering the
//! same lowering as the crate and the dissector, and the runtime file beside it.
//!
//! C# 7.2 (what Mono's `mcs` compiles without a warning; Unity's compiler takes it too) and
//! netstandard2.0 APIs: no reflection, no `unsafe`, no `Span`. Shapes: a schema type is a sealed
//! class with public fields; an enum a C# enum with its schema names from `WireName()`; flags a
//! `[Flags]` enum; a switch an abstract class with a sealed case class per variant (the tag of a
//! case of several values kept in it). Errors are `Wiregen.DecodeException` (field path, bit
//! offset, reason) and `Wiregen.EncodeException`. What this backend does not generate yet is
//! said in `validate/checks/limits.rs` (`Backend::CSharp`).

mod arbitrary;
mod code;
mod cstypes;
mod decode;
mod encode;
mod expr;
pub mod proof;
pub mod riptide;
mod types;

use self::code::Code;
use crate::backend::header::{header, Comment, Source};
use crate::backend::{Internal, Output};
use crate::ir::*;
use crate::lower::Lowered;
use heck::{ToLowerCamelCase, ToUpperCamelCase};

/// The runtime every generated file uses, written beside them once: each file's name in a C#
/// output folder and its text (three files, each of a size one reads through).
pub const RUNTIME: &[(&str, &str)] = &[
    (
        "WiregenRuntime.cs",
        include_str!("../../../csharp/WiregenRuntime.cs"),
    ),
    (
        "WiregenReader.cs",
        include_str!("../../../csharp/WiregenReader.cs"),
    ),
    (
        "WiregenWriter.cs",
        include_str!("../../../csharp/WiregenWriter.cs"),
    ),
];

/// The runtime's files in `dir`, as outputs.
pub fn runtime_outputs(dir: &std::path::Path) -> Vec<Output> {
    RUNTIME
        .iter()
        .map(|(name, text)| Output {
            path: dir.join(name).display().to_string(),
            contents: text.to_string(),
        })
        .collect()
}

/// What every renderer of the C# backend renders from.
#[derive(Clone, Copy)]
pub(crate) struct Input<'p> {
    pub(crate) p: &'p Protocol,
    pub(crate) l: &'p Lowered,
}

/// The C# file of `p` at `path`.
pub fn generate(p: &Protocol, l: &Lowered, path: &str) -> Result<Vec<Output>, Internal> {
    let i = Input { p, l };
    let mut c = Code::default();
    c.raw(&header(Comment::Slashes, Source::Schema(&p.source)));
    c.line("");
    c.line("using System;");
    c.line("using System.Collections.Generic;");
    c.line("using Wiregen;");
    c.line("");
    c.line(&format!("namespace {}", namespace(p)));
    c.open();
    types::Types { i }.render(&mut c)?;
    c.close();
    let mut out = vec![Output {
        path: path.to_string(),
        contents: c.finish(),
    }];
    if let Some(adapter) = riptide::adapter(p) {
        let dir = std::path::Path::new(path)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        out.push(Output {
            path: dir.join(riptide::file_name(p)).display().to_string(),
            contents: adapter,
        });
    }
    Ok(out)
}

/// A protocol's C# file name (`Rtype.cs`).
pub fn file_name(p: &Protocol) -> String {
    format!("{}.cs", p.name.to_upper_camel_case())
}

/// The namespace of a protocol's types (`Wiregen.Protocols.Rtype`).
pub fn namespace(p: &Protocol) -> String {
    format!("Wiregen.Protocols.{}", p.name.to_upper_camel_case())
}

const KEYWORDS: &[&str] = &[
    "abstract",
    "as",
    "base",
    "bool",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "checked",
    "class",
    "const",
    "continue",
    "decimal",
    "default",
    "delegate",
    "do",
    "double",
    "else",
    "enum",
    "event",
    "explicit",
    "extern",
    "false",
    "finally",
    "fixed",
    "float",
    "for",
    "foreach",
    "goto",
    "if",
    "implicit",
    "in",
    "int",
    "interface",
    "internal",
    "is",
    "lock",
    "long",
    "namespace",
    "new",
    "null",
    "object",
    "operator",
    "out",
    "override",
    "params",
    "private",
    "protected",
    "public",
    "readonly",
    "ref",
    "return",
    "sbyte",
    "sealed",
    "short",
    "sizeof",
    "stackalloc",
    "static",
    "string",
    "struct",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "uint",
    "ulong",
    "unchecked",
    "unsafe",
    "ushort",
    "using",
    "virtual",
    "void",
    "volatile",
    "while",
];

/// Members every generated class has: a field of that name gets a `_`.
const MEMBERS: &[&str] = &[
    "Read",
    "Write",
    "Decode",
    "TryDecode",
    "Encode",
    "WriteJson",
    "ToString",
    "Equals",
    "GetHashCode",
    "GetType",
    "Value",
    "Tag",
];

/// A schema type's C# name.
pub(crate) fn type_name(name: &str) -> String {
    escape(name.to_upper_camel_case())
}

/// A field's public name in its class (`Field_` where it would be the class's own name or a
/// member every class has).
pub(crate) fn member(class: &str, field: &str) -> String {
    let m = field.to_upper_camel_case();
    if m == class || MEMBERS.contains(&m.as_str()) {
        format!("{m}_")
    } else {
        escape(m)
    }
}

/// A field's local in a coder: camelCase, with a `_` where it would be a name the coders use
/// themselves.
pub(crate) fn local(field: &str) -> String {
    let l = field.to_lower_camel_case();
    const OWN: &[&str] = &[
        "r", "w", "j", "v", "value", "tag", "saved", "start", "list", "padded",
    ];
    if OWN.contains(&l.as_str()) || l.ends_with("Saved") || l.ends_with("At") {
        format!("{l}_")
    } else {
        escape(l)
    }
}

fn escape(s: String) -> String {
    if KEYWORDS.contains(&s.as_str()) {
        format!("@{s}")
    } else {
        s
    }
}

/// The C# type of an integer of `it` (its storage width).
pub(crate) fn int_type(it: &IntTy) -> &'static str {
    match (it.signed, it.storage_bits()) {
        (false, 8) => "byte",
        (false, 16) => "ushort",
        (false, 32) => "uint",
        (false, _) => "ulong",
        (true, 8) => "sbyte",
        (true, 16) => "short",
        (true, 32) => "int",
        (true, _) => "long",
    }
}

/// Whether a C# type is a value type (`T?` when optional) rather than a class.
pub(crate) fn is_value_type(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Int(_) | Ty::Bool | Ty::Float { .. } | Ty::VarInt(_) | Ty::Enum(_) | Ty::Flags(_)
    ) || matches!(ty, Ty::Bytes(_))
}

/// A doc comment's lines (`/// <summary>…</summary>`), escaped for XML.
pub(crate) fn doc(c: &mut Code, text: &Option<String>) {
    let Some(t) = text else { return };
    let t = t
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let lines = crate::backend::wrap(&t);
    c.line("/// <summary>");
    for l in lines {
        c.line(&format!("/// {l}"));
    }
    c.line("/// </summary>");
}

/// The checksums of a struct: (checksum field, its algorithm, from field, to field).
pub(crate) fn checksums(s: &Struct) -> Vec<(usize, Checksum)> {
    s.fields
        .iter()
        .enumerate()
        .filter_map(|(fi, f)| match f.role {
            Role::Checksum(c) => Some((fi, c)),
            _ => None,
        })
        .collect()
}

/// Whether a struct's coders keep where it starts: a checksum covers it from there, or a field or
/// the struct is aligned from there.
pub(crate) fn keeps_start(s: &Struct) -> bool {
    checksums(s).iter().any(|(_, c)| c.from.is_none())
        || s.padding.align.is_some()
        || s.fields.iter().any(|f| f.padding.align.is_some())
}

/// Whether field `fi` starts (`from`) or ends (`to`) a checksum's range: its coders keep where.
pub(crate) fn range_ends(s: &Struct, fi: usize) -> (bool, bool) {
    let cs = checksums(s);
    (
        cs.iter().any(|(_, c)| c.from == Some(fi)),
        cs.iter().any(|(_, c)| c.to == Some(fi)),
    )
}

/// The checksum object of an algorithm (a static of the class that uses it).
pub(crate) fn checksum_new(a: ChecksumAlgo) -> String {
    match a {
        ChecksumAlgo::Crc(c) => format!(
            "new WireCrc({}, 0x{:X}UL, 0x{:X}UL, {}, {}, 0x{:X}UL)",
            c.width, c.poly, c.init, c.refin, c.refout, c.xorout
        ),
        ChecksumAlgo::Sum(w) => format!("new WireSum(WireSum.Kind.Sum, {w})"),
        ChecksumAlgo::Xor8 => "new WireSum(WireSum.Kind.Xor8, 8)".into(),
        ChecksumAlgo::Internet => "new WireSum(WireSum.Kind.Internet, 16)".into(),
        ChecksumAlgo::Adler32 => "new WireSum(WireSum.Kind.Adler32, 32)".into(),
        ChecksumAlgo::Fletcher16 => "new WireSum(WireSum.Kind.Fletcher16, 16)".into(),
        ChecksumAlgo::Fletcher32 => "new WireSum(WireSum.Kind.Fletcher32, 32)".into(),
    }
}

/// The name of a checksum field's static algorithm in its class (`ChecksumAlgo`).
pub(crate) fn checksum_static(field: &str) -> String {
    format!("{}Algo", field.to_upper_camel_case())
}

/// The coders' local holding the integer of field `fi`'s bit group.
pub(crate) fn group_local(i: Input, sid: StructId, fi: usize) -> String {
    let mut g = i.l.field(sid, fi).locals.group.to_lower_camel_case();
    // (camelCase drops the `_` the lowering added to stay apart from a field's name.)
    while i.p.structs[sid].fields.iter().any(|f| local(&f.name) == g) {
        g.push('_');
    }
    g
}

/// A string literal.
pub(crate) fn lit(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
