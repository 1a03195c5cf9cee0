//! Checksums in Lua: the CRC table and function, chosen for the Lua that runs them.

use super::*;

/// A table-driven CRC with the register kept as separate bytes, so each input byte costs a few
/// table lookups and no bit arithmetic (Lua 5.2 has no integer bit operators).
pub(crate) fn crc_code(a: ChecksumAlgo) -> Result<String, Unsupported> {
    let (width, poly, init, refin, refout, xorout) = a.crc_params();
    if width % 8 != 0 || width > 32 || refin || refout {
        return Err(Unsupported(format!(
            "the Lua backend has no code for the {} checksum yet",
            a.name()
        )));
    }
    let n = (width / 8) as usize;
    let byte = |v: u64, k: usize| (v >> (8 * k)) & 0xFF;
    let regs: Vec<String> = (0..n).map(|k| format!("c{k}")).collect();
    let mut c = Code::new(0);
    c.line(format!(
        "-- {}: width {width}, poly {poly:#x}, init {init:#x}, xorout {xorout:#x}.",
        a.name()
    ));
    c.line("-- Tk[i] is byte k of the table entry for index i; built once at load time.");
    c.line(format!("local {}", crc_func(a)));
    c.open("do");
    c.line(format!(
        "local T = {{ {} }}",
        (0..n).map(|_| "{}").collect::<Vec<_>>().join(", ")
    ));
    c.open("for i = 0, 255 do");
    c.line(format!(
        "local v, full = i * 2 ^ {}, 2 ^ {width}",
        width - 8
    ));
    c.open("for _ = 1, 8 do");
    c.line("v = v * 2");
    c.open("if v >= full then");
    c.line("v = v - full");
    c.line("-- v xor poly, byte by byte");
    c.line("local r, scale, x, p = 0, 1, v, POLY");
    c.open("for _ = 1, WIDTH_BYTES do");
    c.line("local xb, pb = x % 256, p % 256");
    c.line("r = r + XOR8[xb * 256 + pb] * scale");
    c.line("x, p, scale = (x - xb) / 256, (p - pb) / 256, scale * 256");
    c.close("end");
    c.line("v = r");
    c.close("end");
    c.close("end");
    c.open(format!("for k = 1, {n} do"));
    c.line("T[k][i] = v % 256");
    c.line("v = (v - v % 256) / 256");
    c.close("end");
    c.close("end");
    c.line(format!(
        "local {} = {}",
        (0..n)
            .map(|k| format!("T{k}"))
            .collect::<Vec<_>>()
            .join(", "),
        (1..=n)
            .map(|k| format!("T[{k}]"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    c.line("-- CRC of tvb bytes [from, to), reading `skip_len` zero bytes in place of those at `skip_at`.");
    c.open(format!(
        "{} = function(tvb, from, to, skip_at, skip_len)",
        crc_func(a)
    ));
    c.line(format!(
        "local {} = {}",
        regs.join(", "),
        (0..n)
            .map(|k| byte(init, k).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    c.line("local data = tvb:raw(from, to - from)");
    c.line("local sbyte = string.byte");
    c.open("for i = 1, to - from do");
    c.line("local pos = from + i - 1");
    c.line("local b = 0");
    c.line("if pos < skip_at or pos >= skip_at + skip_len then b = sbyte(data, i) end");
    c.line(format!("local idx = XOR8[c{} * 256 + b]", n - 1));
    for k in (1..n).rev() {
        c.line(format!("c{k} = XOR8[c{} * 256 + T{k}[idx]]", k - 1));
    }
    c.line("c0 = T0[idx]");
    c.close("end");
    let value: Vec<String> = (0..n)
        .map(|k| {
            format!(
                "XOR8[c{k} * 256 + {}] * {}",
                byte(xorout, k),
                1u64 << (8 * k)
            )
        })
        .collect();
    c.line(format!("return {}", value.join(" + ")));
    c.close("end");
    c.close("end");
    Ok(c.lines
        .join("\n")
        .replace("POLY", &poly.to_string())
        .replace("WIDTH_BYTES", &n.to_string()))
}

pub(crate) fn crc_func(a: ChecksumAlgo) -> String {
    format!("crc_{}", a.name().replace('-', "_"))
}

impl<'p> Gen<'p> {
    pub(crate) fn crcs(&self) -> Result<Vec<CrcDef>, Unsupported> {
        let mut algos: Vec<ChecksumAlgo> = Vec::new();
        for s in &self.p.structs {
            for f in &s.fields {
                if let Role::Checksum(a) = f.role {
                    if !algos.contains(&a) {
                        algos.push(a);
                    }
                }
            }
        }
        algos
            .into_iter()
            .map(|a| crc_code(a).map(|code| CrcDef { code }))
            .collect()
    }
}
