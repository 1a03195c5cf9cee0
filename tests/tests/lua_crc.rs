//! The dissectors' CRC factory on both Lua arithmetics it chooses between at load time: Lua 5.2's
//! `bit32` (Wireshark 4.0) and native operators (Lua 5.3+, the current Wireshark), run in the
//! standalone interpreters (`test.sh` installs `lua5.2` and `lua5.4`) against the catalogue's
//! check values (CRC of "123456789"), for every CRC of the catalogue schemas can name; and the
//! checksums that are not CRCs (sums, XOR, Internet, Adler-32, Fletcher) the same way.

use std::process::Command;
use wiregen::ir::{ChecksumAlgo, CrcAlgo};
use wiregen_runtime::{Checksum, Crc};

/// The block of generated Lua `file` (relative to the repository) from the line starting with
/// `marker` to the value strings that follow it.
fn lua_block(file: &str, marker: &str) -> String {
    let path = format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"));
    let lua = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = lua
        .find(marker)
        .unwrap_or_else(|| panic!("{file}: {marker}"));
    let end = lua[start..]
        .find("-- Value strings")
        .expect("end of the block")
        + start;
    lua[start..end].to_string()
}

/// Runs `script` in Lua 5.2 and 5.4 and checks that each prints `expected`.
fn prints_on_both_luas(script: &str, expected: &str) {
    let path = std::env::temp_dir().join(format!(
        "wiregen-lua-{}-{}.lua",
        std::process::id(),
        expected.len()
    ));
    std::fs::write(&path, script).unwrap();
    for lua in ["lua5.2", "lua5.4"] {
        let out = Command::new(lua)
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("{lua}: {e} (test.sh installs it)"));
        assert!(
            out.status.success(),
            "{lua}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{lua}");
    }
    let _ = std::fs::remove_file(&path);
}

/// The factory as generated into a dissector, and a script that prints each check.
fn script() -> String {
    let mut s = lua_block("dissectors/rtype.lua", "-- CRCs in the Rocksoft model");
    s.push_str(
        r#"
local function tvb_of(s)
  return { raw = function(_, from, len) return string.sub(s, from + 1, from + len) end }
end
local check = tvb_of("123456789")
ALGOS
for _, a in ipairs(algos) do
  local f = wiregen_crc(a[1], a[2], a[3], a[4], a[5], a[6], a[7])
  print(a[1] .. " " .. string.format("%x", f(check, 0, 9, 9, 0)))
end
-- Bytes 2..3 read as zero (a checksum field in place).
local crc32 = wiregen_crc("crc32", 32, 0x04c11db7, 0xffffffff, true, true, 0xffffffff)
print("skip " .. tostring(crc32(tvb_of("12\171\20556789"), 0, 9, 2, 2) == crc32(tvb_of("12\0\00056789"), 0, 9, 9, 0)))
-- A second dissector asking for the same CRC gets the same function (built once per state).
print("shared " .. tostring(wiregen_crc("crc32", 32, 0x04c11db7, 0xffffffff, true, true, 0xffffffff) == crc32))
"#,
    );
    s.replace("ALGOS", &algos_table())
}

/// Every CRC of the catalogue the dissectors compute (8 to 32 bits), as a Lua table.
fn algos_table() -> String {
    let mut t = String::from("local algos = {\n");
    for (name, a, _) in lua_catalogue() {
        t.push_str(&format!(
            "  {{ \"{name}\", {}, {:#x}, {:#x}, {}, {}, {:#x} }},\n",
            a.width, a.poly, a.init, a.refin, a.refout, a.xorout
        ));
    }
    t.push_str("}\n");
    t
}

fn lua_catalogue() -> impl Iterator<Item = &'static (&'static str, CrcAlgo, u64)> {
    CrcAlgo::CATALOGUE
        .iter()
        .filter(|(_, a, _)| (8..=32).contains(&a.width))
}

/// The runtime's CRC engine gives every catalogue entry's check value (what the crates compute).
#[test]
fn every_catalogue_crc_has_its_check_value_in_the_runtime() {
    for (name, a, check) in CrcAlgo::CATALOGUE {
        let c = Crc::new(a.width, a.poly, a.init, a.refin, a.refout, a.xorout);
        assert_eq!(c.checksum(&[b"123456789"]), *check, "{name}");
    }
}

#[test]
fn the_crc_factory_gives_the_catalogue_check_values_on_lua_5_2_and_5_4() {
    let mut expected: String = lua_catalogue()
        .map(|(name, _, check)| format!("{name} {check:x}\n"))
        .collect();
    expected.push_str("skip true\nshared true\n");
    prints_on_both_luas(&script(), &expected);
}

/// Every length from 0 to 40 (blocks of eight bytes and the bytes after them), with two bytes
/// inside read as zeros, and from byte 3 with the bytes to skip before it, gives on Lua 5.2 and 5.4 the runtime's CRC of the same bytes: the
/// check values above are of nine bytes, one block and one byte.
#[test]
fn the_crc_factory_agrees_with_the_runtime_at_every_length() {
    let data: Vec<u8> = (0..40u32).map(|i| (i * 37 + 11) as u8).collect();
    let quoted: String = data.iter().map(|b| format!("\\{b}")).collect();
    let mut script = lua_block("dissectors/rtype.lua", "-- CRCs in the Rocksoft model");
    script.push_str(&algos_table());
    script.push_str(&format!(
        r#"
local data = "{quoted}"
local tvb = {{ raw = function(_, from, len) return string.sub(data, from + 1, from + len) end }}
for _, a in ipairs(algos) do
  local f = wiregen_crc(a[1], a[2], a[3], a[4], a[5], a[6], a[7])
  for n = 0, #data do
    local at = math.floor(n / 3)
    -- A range from byte 3, with a skip before it (nothing read as zero).
    local later = n >= 3 and string.format(" %x", f(tvb, 3, n, 1, 2)) or ""
    print(string.format("%s %d %x %x", a[1], n, f(tvb, 0, n, n, 0), f(tvb, 0, n, at, 2)) .. later)
  end
end
"#
    ));
    let mut expected = String::new();
    for (name, a, _) in lua_catalogue() {
        let crc = Crc::new(a.width, a.poly, a.init, a.refin, a.refout, a.xorout);
        for n in 0..=data.len() {
            let mut zeroed = data[..n].to_vec();
            let at = n / 3;
            for b in zeroed.iter_mut().skip(at).take(2) {
                *b = 0;
            }
            let later = if n >= 3 {
                format!(" {:x}", crc.checksum(&[&data[3..n]]))
            } else {
                String::new()
            };
            expected.push_str(&format!(
                "{name} {n} {:x} {:x}{later}\n",
                crc.checksum(&[&data[..n]]),
                crc.checksum(&[&zeroed])
            ));
        }
    }
    prints_on_both_luas(&script, &expected);
}

/// The runtime computes the check value the schema language documents for each checksum that
/// is not a CRC.
#[test]
fn every_other_checksum_has_its_check_value_in_the_runtime() {
    for (name, a, check) in ChecksumAlgo::OTHERS {
        let c = match a {
            ChecksumAlgo::Sum(w) => Checksum::Sum(*w),
            ChecksumAlgo::Xor8 => Checksum::Xor8,
            ChecksumAlgo::Internet => Checksum::Internet,
            ChecksumAlgo::Adler32 => Checksum::Adler32,
            ChecksumAlgo::Fletcher16 => Checksum::Fletcher16,
            ChecksumAlgo::Fletcher32 => Checksum::Fletcher32,
            ChecksumAlgo::Crc(_) => unreachable!("{name} is a CRC"),
        };
        assert_eq!(c.checksum(&[b"1234", b"56789"]), *check, "{name}");
    }
}

/// The Lua of every checksum that is not a CRC, as generated into the golden snippet that uses
/// them all, gives the check values on Lua 5.2 and 5.4 (XOR is `bit32.bxor` on one, `~` on the
/// other), and reads the checksum's own bytes as zeros.
#[test]
fn the_other_checksums_give_their_check_values_on_lua_5_2_and_5_4() {
    let mut script = lua_block(
        "codegen/tests/golden/checksum_family.lua",
        "-- Checksums other than CRCs",
    );
    script.push_str(
        r#"
local function tvb_of(s)
  return { raw = function(_, from, len) return string.sub(s, from + 1, from + len) end }
end
local check = tvb_of("123456789")
local funcs = {
  sum8 = checksum_sum8, sum16 = checksum_sum16, sum32 = checksum_sum32, xor8 = checksum_xor8,
  internet = checksum_internet, adler32 = checksum_adler32, fletcher16 = checksum_fletcher16,
  fletcher32 = checksum_fletcher32,
}
for _, name in ipairs({ NAMES }) do
  print(name .. " " .. string.format("%x", funcs[name](check, 0, 9, 9, 0)))
end
-- Bytes 2..3 read as zero, and a range that starts past the skipped bytes.
print("skip " .. tostring(checksum_adler32(tvb_of("12\171\20556789"), 0, 9, 2, 2) == checksum_adler32(tvb_of("12\0\00056789"), 0, 9, 9, 0)))
print("range " .. string.format("%x", checksum_internet(tvb_of("xx123456789"), 2, 11, 0, 2)))
"#,
    );
    let names: Vec<String> = ChecksumAlgo::OTHERS
        .iter()
        .map(|(n, ..)| format!("\"{n}\""))
        .collect();
    let script = script.replace("NAMES", &names.join(", "));
    let mut expected: String = ChecksumAlgo::OTHERS
        .iter()
        .map(|(name, _, check)| format!("{name} {check:x}\n"))
        .collect();
    expected.push_str("skip true\nrange f62a\n");
    prints_on_both_luas(&script, &expected);
}

/// Float16 values the dissectors show, the same on both Luas: -0 keeps its sign (Lua 5.4 makes
/// `-1 * 0` the integer 0), subnormals, infinities and NaN.
#[test]
fn float16_reads_the_same_on_both_luas() {
    let path = format!("{}/../dissectors/dnp.lua", env!("CARGO_MANIFEST_DIR"));
    let lua = std::fs::read_to_string(&path).unwrap();
    let start = lua
        .find("local function f16_from_bits")
        .expect("f16_from_bits");
    let end = lua[start..].find("\nend\n").expect("its end") + start + 5;
    let script = format!(
        "local floor = math.floor\n{}\n{}",
        &lua[start..end],
        r#"
for _, h in ipairs({ 0x0000, 0x8000, 0x0001, 0x3c00, 0xc000, 0x7bff, 0x7c00, 0xfc00 }) do
  local v = f16_from_bits(h)
  -- The sign of zero shows in its reciprocal.
  print(string.format("%04x %.10g %s", h, v, tostring(1 / v > 0)))
end
local nan = f16_from_bits(0x7e00)
print("nan " .. tostring(nan ~= nan))
"#
    );
    prints_on_both_luas(
        &script,
        "0000 0 true\n8000 -0 false\n0001 5.960464478e-08 true\n3c00 1 true\nc000 -2 false\n\
         7bff 65504 true\n7c00 inf false\nfc00 -inf false\nnan true\n",
    );
}
