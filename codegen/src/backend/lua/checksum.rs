//! Checksums in Lua: each algorithm a schema uses, as one local function
//! `(tvb, from, to, skip_at, skip_len)` over the bytes `[from, to)` with `skip_len` zero bytes
//! in place of those at `skip_at` (the checksum field itself).

use super::*;

/// The code defining the function of checksum `a`: a CRC taken from the factory the template
/// defines (`wiregen_crc`: one table per algorithm and Lua state, shared by every dissector),
/// any other written out.
pub(crate) fn checksum_code(a: ChecksumAlgo) -> Result<String, Internal> {
    let func = checksum_func(a);
    let name = a.name();
    let body = |doc: &str, lines: &[&str]| {
        let mut c = Code::new(0);
        c.line(format!("-- {name}: {doc}"));
        c.open(format!(
            "local function {func}(tvb, from, to, skip_at, skip_len)"
        ));
        c.line("local data = checksum_bytes(tvb, from, to, skip_at, skip_len)");
        for l in lines {
            c.line(*l);
        }
        c.close("end");
        c.lines.join("\n")
    };
    Ok(match a {
        ChecksumAlgo::Crc(crc) => {
            let (width, poly, init, refin, refout, xorout) = crc.crc_params();
            if !(8..=32).contains(&width) {
                return Err(Internal(format!("the {name} checksum")));
            }
            format!(
                "-- {name}: width {width}, poly {poly:#x}, init {init:#x}, refin {refin}, refout {refout}, xorout {xorout:#x}.\n\
                 local {func} = wiregen_crc(\"{name}\", {width}, {poly:#x}, {init:#x}, {refin}, {refout}, {xorout:#x})"
            )
        }
        ChecksumAlgo::Sum(width) => body(
            &format!("the sum of the bytes modulo 2^{width}."),
            &[
                "local s = 0",
                "for k = 1, #data do s = s + sbyte(data, k) end",
                &format!("return s % {}", 1u64 << width),
            ],
        ),
        ChecksumAlgo::Xor8 => body(
            "the XOR of the bytes.",
            &[
                "local x = 0",
                "for k = 1, #data do x = bxor(x, sbyte(data, k)) end",
                "return x",
            ],
        ),
        ChecksumAlgo::Internet => body(
            "RFC 1071, the ones' complement of the ones' complement sum of big-endian words.",
            &[
                "local s, n = 0, #data",
                "for k = 1, n - 1, 2 do",
                "  local hi, lo = sbyte(data, k, k + 1)",
                "  s = s + hi * 256 + lo",
                "end",
                "if n % 2 == 1 then s = s + sbyte(data, n) * 256 end",
                "while s > 0xFFFF do s = s % 0x10000 + math.floor(s / 0x10000) end",
                "return 0xFFFF - s",
            ],
        ),
        ChecksumAlgo::Adler32 => body(
            "RFC 1950, b * 65536 + a with both sums modulo 65521.",
            &[
                "local a, b = 1, 0",
                "for k = 1, #data do",
                "  a = (a + sbyte(data, k)) % 65521",
                "  b = (b + a) % 65521",
                "end",
                "return b * 65536 + a",
            ],
        ),
        ChecksumAlgo::Fletcher16 => body(
            "c1 * 256 + c0, both sums of the bytes modulo 255.",
            &[
                "local c0, c1 = 0, 0",
                "for k = 1, #data do",
                "  c0 = (c0 + sbyte(data, k)) % 255",
                "  c1 = (c1 + c0) % 255",
                "end",
                "return c1 * 256 + c0",
            ],
        ),
        ChecksumAlgo::Fletcher32 => body(
            "c1 * 65536 + c0, both sums of little-endian words modulo 65535.",
            &[
                "local c0, c1, n = 0, 0, #data",
                "for k = 1, n, 2 do",
                "  local lo, hi = sbyte(data, k, k + 1)",
                "  c0 = (c0 + lo + (hi or 0) * 256) % 65535",
                "  c1 = (c1 + c0) % 65535",
                "end",
                "return c1 * 65536 + c0",
            ],
        ),
    })
}

pub(crate) fn checksum_func(a: ChecksumAlgo) -> String {
    match a {
        ChecksumAlgo::Crc(_) => format!("crc_{}", a.name().replace('-', "_")),
        _ => format!("checksum_{}", a.name()),
    }
}

/// What the checksums other than CRCs share: the covered bytes with the field's own zeroed,
/// and XOR with the fastest operation the running Lua has (chosen once).
const SHARED: &str = r#"-- Checksums other than CRCs read the bytes [from, to) of tvb, with `skip_len` zero bytes in
-- place of those at `skip_at` (the checksum field itself).
local sbyte = string.byte
local function checksum_bytes(tvb, from, to, skip_at, skip_len)
  local data = tvb:raw(from, to - from)
  local a = math.max(from, math.min(skip_at, to))
  local b = math.max(a, math.min(skip_at + skip_len, to))
  if b > a then
    data = data:sub(1, a - from) .. string.rep("\0", b - a) .. data:sub(b - from + 1)
  end
  return data
end"#;

/// XOR of two bytes: native on Lua 5.3+ (compiled with `load`, so Lua 5.2 parses the file),
/// else Lua 5.2's bit32.
const XOR: &str = r#"local bxor = math.type ~= nil and load("return function(a, b) return a ~ b end")() or bit32.bxor"#;

/// The code of every checksum the schema uses: CRCs (`crcs`, built by the template's
/// factory) and the others (`checksums`, after what they share).
pub(crate) fn checksums(p: &Protocol) -> Result<(Vec<ChecksumCode>, Vec<ChecksumCode>), Internal> {
    let mut algos: Vec<ChecksumAlgo> = Vec::new();
    for s in &p.structs {
        for f in &s.fields {
            if let Role::Checksum(c) = f.role {
                if !algos.contains(&c.algo) {
                    algos.push(c.algo);
                }
            }
        }
    }
    let (mut crcs, mut others) = (Vec::new(), Vec::new());
    for a in &algos {
        let def = ChecksumCode {
            code: checksum_code(*a)?,
        };
        if matches!(a, ChecksumAlgo::Crc(_)) {
            crcs.push(def);
        } else {
            others.push(def);
        }
    }
    if !others.is_empty() {
        let mut shared = SHARED.to_string();
        if algos.contains(&ChecksumAlgo::Xor8) {
            shared = format!("{shared}\n{XOR}");
        }
        others.insert(0, ChecksumCode { code: shared });
    }
    Ok((crcs, others))
}
