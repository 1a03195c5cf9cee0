//! The dissectors' CRC factory on both Lua arithmetics it chooses between at load time: Lua 5.2's
//! `bit32` (Wireshark 4.0) and native operators (Lua 5.3+, the current Wireshark), run in the
//! standalone interpreters (`test.sh` installs `lua5.2` and `lua5.4`) against the catalogue's
//! check values (CRC of "123456789").

use std::process::Command;

/// The factory as generated into a dissector, and a script that prints each check.
fn script() -> String {
    let lua = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../dissectors/rtype.lua"
    ))
    .expect("rtype dissector");
    let start = lua
        .find("-- CRCs in the Rocksoft model")
        .expect("CRC factory");
    let end = lua[start..]
        .find("-- Value strings.")
        .expect("end of the CRC block")
        + start;
    let mut s = lua[start..end].to_string();
    s.push_str(
        r#"
local function tvb_of(s)
  return { raw = function(_, from, len) return string.sub(s, from + 1, from + len) end }
end
local check = tvb_of("123456789")
local algos = {
  { "crc16-ccitt-false", 16, 0x1021, 0xffff, false, false, 0x0 },
  { "crc32", 32, 0x04c11db7, 0xffffffff, true, true, 0xffffffff },
  { "crc32c", 32, 0x1edc6f41, 0xffffffff, true, true, 0xffffffff },
  { "crc8", 8, 0x07, 0x0, false, false, 0x0 },
  { "crc16-ibm", 16, 0x8005, 0x0, true, true, 0x0 },
}
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
    s
}

#[test]
fn the_crc_factory_gives_the_catalogue_check_values_on_lua_5_2_and_5_4() {
    let path = std::env::temp_dir().join(format!("wiregen-crc-{}.lua", std::process::id()));
    std::fs::write(&path, script()).unwrap();
    let expected = "crc16-ccitt-false 29b1\ncrc32 cbf43926\ncrc32c e3069283\ncrc8 f4\ncrc16-ibm bb3d\nskip true\nshared true\n";
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
