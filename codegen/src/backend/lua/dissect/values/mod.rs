//! Reading a byte-aligned value: one small renderer per kind of value (`scalars`, `text`,
//! `nested`, `arrays`), the lengths they share, and helpers.

mod arrays;
mod nested;
mod scalars;
mod text;

use super::*;
use crate::lower::{byte_read, ByteNumber, LenRead, ValueRead};

/// One value being read: the field it belongs to, its ProtoField's filter name, the tree it
/// goes under and where its value is kept (`""`: nowhere, no later code reads it).
#[derive(Clone, Copy)]
pub(crate) struct Place<'a> {
    pub sid: StructId,
    pub fi: usize,
    pub abbrev: &'a str,
    pub tree: &'a str,
    pub target: &'a str,
}

/// How to read an integer of `bytes` bytes from a TvbRange, as a Lua number.
pub(crate) fn int_reader(bytes: usize, signed: bool, endian: Endian) -> String {
    let le = if endian == Endian::Little { "le_" } else { "" };
    match (bytes > 4, signed) {
        (false, false) => format!("{le}uint()"),
        (false, true) => format!("{le}int()"),
        (true, false) => format!("{le}uint64():tonumber()"),
        (true, true) => format!("{le}int64():tonumber()"),
    }
}

pub(crate) fn add_fn(endian: Endian) -> &'static str {
    if endian == Endian::Little {
        "add_le"
    } else {
        "add"
    }
}

/// Whether any field is a variable-length integer (its reader shares the bit-stream helpers).
pub(crate) fn uses_varints(p: &Protocol) -> bool {
    fn has(ty: &Ty) -> bool {
        match ty {
            Ty::VarInt(_) => true,
            Ty::Array(_, Len::VarPrefix(VarInt::Leb128))
            | Ty::Bytes(Len::VarPrefix(VarInt::Leb128))
            | Ty::Str(Len::VarPrefix(VarInt::Leb128), _)
            | Ty::Struct(_, Some(Len::VarPrefix(VarInt::Leb128))) => true,
            Ty::Union(u) => matches!(u.len, Len::VarPrefix(VarInt::Leb128)),
            Ty::Array(e, _) => has(e),
            _ => false,
        }
    }
    p.structs.iter().flat_map(|s| &s.fields).any(|f| has(&f.ty))
}

impl<'p> Dissect<'p> {
    /// Reads one value of `ty` into `target`, adding it to `tree`: by the field's access (a bit
    /// stream, a bit group, bytes), then by what the value is.
    pub(crate) fn value(&mut self, c: &mut Code, at: Place<'_>, ty: &Ty) -> Result<(), Internal> {
        let Place {
            sid, fi, abbrev, ..
        } = at;
        match self.i.l.field(sid, fi).access {
            Access::Stream => return self.value_bits(c, at, ty),
            Access::Group { .. } => {
                self.value_packed(c, sid, fi, abbrev, at.target);
                return Ok(());
            }
            Access::Bytes => {}
        }
        match byte_read(ty)? {
            ValueRead::Number(n) => {
                self.value_scalar(c, at, n);
                Ok(())
            }
            ValueRead::Text { len, text } => self.value_text(c, at, len, text),
            ValueRead::Nested { id, len } => self.value_struct(c, at, id, len),
            ValueRead::Array { elem, len } => self.value_array(c, at, elem, len),
            ValueRead::Switch(u) => self.union(c, at, u),
        }
    }

    /// Sets `n` to a length or count (`counts`: an array's own count, not the byte length of
    /// an element), checks it against the bytes left, or returns.
    pub(crate) fn length(
        &mut self,
        c: &mut Code,
        at: Place<'_>,
        len: &Len,
        counts: bool,
    ) -> Result<(), Internal> {
        let Place {
            sid,
            fi,
            abbrev,
            tree,
            ..
        } = at;
        let f = &self.i.p.structs[sid].fields[fi];
        let name = &f.name;
        // An array's size in bytes is a length like any other.
        let is_count = counts && !matches!(len, Len::Bytes(_));
        match LenRead::of(len)? {
            LenRead::Prefix(it) => {
                let k = it.bytes();
                let a = naming::prefix_abbrev(abbrev);
                c.line(format!("if limit - offset < {k} then return truncated({tree}, tvb, offset, \"{name} length\", {k}, limit - offset) end"));
                c.line(format!(
                    "{tree}:{}(F[\"{a}\"], tvb(offset, {k}))",
                    add_fn(it.endian)
                ));
                c.line(format!(
                    "n = tvb(offset, {k}):{}",
                    int_reader(k, it.signed, it.endian)
                ));
                c.line(format!("offset = offset + {k}"));
            }
            LenRead::Leb128 => {
                let a = naming::prefix_abbrev(abbrev);
                leb128_lines(c, tree, &format!("{name} length"));
                c.line(format!("{tree}:add(F[\"{a}\"], tvb(offset, n), val)"));
                c.line("offset = offset + n");
                // Beyond 2^53 no length fits what remains: the check below reports it.
                c.line("n = val:tonumber()");
            }
            LenRead::RiptideLen => {
                let a = naming::prefix_abbrev(abbrev);
                riptide_len_lines(c, tree, &format!("{name} length"));
                c.line(format!("{tree}:add(F[\"{a}\"], tvb(offset, n), val)"));
                c.line("offset = offset + n");
                c.line("n = val");
            }
            LenRead::Expr(e) | LenRead::Bytes(e) => {
                let ex = self.i.exprs().expr(e);
                c.line(format!("n = {ex}"));
            }
            LenRead::Rest => {
                c.line("n = limit - offset");
            }
        }
        if is_count {
            c.line(format!(
                "if n < 0 then {tree}:add_proto_expert_info(E.length, fmt(\"{name}: impossible count %d\", n)) return nil end"
            ));
            return Ok(());
        }
        // The rest of the scope always fits; a length that cannot be negative is not asked.
        let negative = match len {
            Len::Rest | Len::Natural => return Ok(()),
            Len::Prefix(it) => it.signed,
            Len::VarPrefix(_) => false,
            Len::Expr(Expr::Field(path)) | Len::Bytes(Expr::Field(path)) => {
                !matches!(&self.i.p.field(path.last().unwrap_or(&path[0])).ty, Ty::Int(it) if !it.signed)
            }
            Len::Expr(_) | Len::Bytes(_) => true,
        };
        let short = if negative {
            "n < 0 or limit - offset < n"
        } else {
            "limit - offset < n"
        };
        let source = match len {
            Len::Expr(Expr::Field(path)) | Len::Bytes(Expr::Field(path)) if path.len() == 1 => {
                Some(path[0].name.clone())
            }
            _ => None,
        };
        match source {
            Some(src) => c.line(format!(
                "if {short} then {tree}:add_proto_expert_info(E.length, fmt(\"{src} says %d bytes of {name}, %d remain\", n, limit - offset)) return nil end"
            )),
            None => c.line(format!(
                "if {short} then return truncated({tree}, tvb, offset, \"{name}\", n, limit - offset) end"
            )),
        }
        Ok(())
    }
}

/// `val, n`: the LEB128 value at `offset` (UInt64) and its byte count; running past `limit` or
/// beyond 64 bits ends the branch with an expert item naming `what`.
fn leb128_lines(c: &mut Code, tree: &str, what: &str) {
    // LEB128 groups are whole bytes here: the bit-stream reader at offset * 8.
    c.line("val, n = read_leb128(tvb, offset * 8, limit * 8)");
    c.line(format!("if val == nil then return truncated({tree}, tvb, offset, \"{what}\", n / 8 + 1, limit - offset) end"));
    c.line(format!("if val == false then {tree}:add_proto_expert_info(E.too_large, \"{what}: a variable-length integer longer than 64 bits\") return nil end"));
    c.line("n = n / 8");
}

/// `val, n`: the Riptide 2.0 length at `offset` (one byte below 0x80, else two big-endian with
/// 0x8000 set) and its byte count; running past `limit` ends the branch.
fn riptide_len_lines(c: &mut Code, tree: &str, what: &str) {
    c.line(format!("if limit - offset < 1 then return truncated({tree}, tvb, offset, \"{what}\", 1, limit - offset) end"));
    c.line("val, n = tvb(offset, 1):uint(), 1");
    c.open("if val >= 128 then");
    c.line(format!("if limit - offset < 2 then return truncated({tree}, tvb, offset, \"{what}\", 2, limit - offset) end"));
    c.line("val, n = tvb(offset, 2):uint() - 32768, 2");
    c.close("end");
}

/// Wireshark's encoding constant for text in `e`.
fn lua_encoding(e: Encoding) -> &'static str {
    match e {
        Encoding::Utf8 => "ENC_UTF_8",
        Encoding::Ascii => "ENC_ASCII",
        Encoding::Latin1 => "ENC_ISO_8859_1",
        Encoding::Utf16 { big: false } => "ENC_UTF_16 + ENC_LITTLE_ENDIAN",
        Encoding::Utf16 { big: true } => "ENC_UTF_16 + ENC_BIG_ENDIAN",
    }
}

/// A Lua condition that holds when `raw` (the field's bytes as a Lua string, `len` of them) is
/// not text in `e`, and what the expert item says then (the crate refuses such text); `None`
/// when every byte string is text (Latin-1). Lone UTF-16 surrogates are shown, not reported.
fn invalid_text(e: Encoding, raw: &str, len: &str) -> Option<(String, &'static str)> {
    match e {
        Encoding::Utf8 => Some((format!("not utf8_valid({raw})"), "not valid UTF-8")),
        Encoding::Ascii => Some((format!("{raw}:find(\"[\\128-\\255]\") ~= nil"), "not ASCII")),
        Encoding::Latin1 => None,
        Encoding::Utf16 { .. } => Some((format!("{len} % 2 == 1"), "an odd byte count for UTF-16")),
    }
}

/// Stores `value` in `target`, where a value that later code reads is kept (nothing when no
/// later code reads it: no table is filled per packet for nothing).
pub(crate) fn keep(c: &mut Code, target: &str, value: &str) {
    if !target.is_empty() {
        c.line(format!("{target} = {value}"));
    }
}

/// Where the next element of the list `target` is kept (nowhere when the list is not kept).
pub(crate) fn item_of(target: &str) -> String {
    if target.is_empty() {
        String::new()
    } else {
        format!("{target}[#{target} + 1]")
    }
}

/// Flags a value `val` of enum `e` (just added as `item`) that the enum does not name: unknown
/// when the enum is open, invalid when it is closed.
pub(crate) fn enum_check(c: &mut Code, e: &Enum, name: &str) {
    let (expert, what) = if e.closed {
        ("E.invalid", "is not allowed")
    } else {
        ("E.unknown", "is not named by the schema")
    };
    c.read_item(format!(
        "if VS.{}[val] == nil then item:add_proto_expert_info({expert}, fmt(\"{name} %d {what}\", val)) end",
        e.name
    ));
}

/// Adds a byte field over `range` (of `len` bytes) to `tree`. Wireshark 4.0 labels a zero-length
/// byte field `<MISSING>`, as if the capture lacked it: an empty one says `<empty>` instead.
pub(crate) fn add_bytes(
    c: &mut Code,
    tree: &str,
    abbrev: &str,
    name: &str,
    range: &str,
    len: &str,
) {
    c.item(format!("{tree}:add(F[\"{abbrev}\"], {range})"));
    c.read_item(format!(
        "if {len} == 0 then item:set_text(\"{}: <empty>\") end",
        naming::label(name)
    ));
}
