-- luacheck's rules for the generated dissectors (checked by tests/tests/luacheck.rs): Lua 5.2
-- (Wireshark 4.0's; 5.3+ operators are compiled with `load`), Wireshark's Lua API as read-only
-- globals, and the two globals every generated dissector shares on purpose.
std = "lua52"
max_line_length = false
-- Dissector signatures keep Wireshark's argument names even where one is not used.
ignore = { "212" }
read_globals = {
  "Proto", "ProtoField", "ProtoExpert", "expert", "ftypes", "base", "DissectorTable",
  "ByteArray", "Struct", "Pref", "UInt64", "Int64", "ENC_UTF_8", "ENC_ASCII", "ENC_ISO_8859_1", "ENC_UTF_16", "ENC_LITTLE_ENDIAN", "ENC_BIG_ENDIAN", "report_failure", "bit32",
  "dissect_tcp_pdus", "get_version", "TvbRange", "TreeItem", "Dissector", "Field", "get_preference",
  -- The netcode analysis's statistics: a tap, `-z <proto>,stats` and a Statistics menu.
  "Listener", "register_stat_cmd_arg", "gui_enabled", "register_menu", "TextWindow",
  "retap_packets", "MENU_STAT_UNSORTED",
  -- Bytes per field: a tap seeing every field of the frame.
  "all_field_infos",
  -- Present on Lua 5.3+ only; read behind a check.
  math = { fields = { "type" } },
}
globals = { "wiregen_loaded", "wiregen_crc_v1" }
