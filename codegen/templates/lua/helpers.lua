{# What every message's code calls: formats that never fail, truncation reports, decompression, UTF-8 checks, flag and enum names for the Info column. Included by dissector.lua. #}

-- string.format for messages that show wire values: a %d or %x given a number Lua cannot
-- format as an integer (a fraction, beyond 2^63, a UInt64) shows it as tostring does instead of
-- raising an error. Only a failed format pays for the fallback.
local function fmt(pattern, ...)
  local ok, text = pcall(string.format, pattern, ...)
  if ok then return text end
  local n, args = select("#", ...), { ... }
  for i = 1, n do args[i] = tostring(args[i]) end
  return string.format((pattern:gsub("%%[-0]?%d*[dx]", "%%s")), table.unpack(args, 1, n))
end

-- Reports that `field` needs `need` bytes where only `have` remain; ends this branch.
local function truncated(tree, tvb, offset, field, need, have)
  local item = tree:add(tvb(offset, 0), fmt("[%s: needs %d bytes, %d available]", field, need, have))
  item:add_proto_expert_info(E.truncated, fmt("%s truncated: needs %d bytes, %d available", field, need, have))
  return nil
end

{%- if compression %}

-- Decompresses zlib, deflate or gzip bytes (a TvbRange) into a data source of their own named
-- `name`, as a Tvb; nil when they are not valid data of `method`. `uncompress_zlib` on
-- Wireshark 4.4 and later, `uncompress` (the same decoder) before: both take any of the three
-- and keep what decoded before an error, so the header and the trailer are checked here, as
-- the crate's decoder checks them (the Adler-32 of zlib's plain bytes, gzip's size).
local uncompress_range = rawget(TvbRange, "uncompress_zlib") or rawget(TvbRange, "uncompress")
local function uncompress(range, name, method)
  local n = range:len()
  if method == "zlib" then
    local cmf, flg = range(0, 1):uint(), n > 1 and range(1, 1):uint() or 0
    if n < 6 or cmf % 16 ~= 8 or (cmf * 256 + flg) % 31 ~= 0 then return nil end
  elseif method == "gzip" then
    if n < 18 or range(0, 2):uint() ~= 0x1f8b then return nil end
  end
  local plain = uncompress_range(range, name)
  if plain == nil then return nil end
  local tvb = plain:tvb()
  if method == "zlib" then
    local s, byte, a, b = tvb:raw(), string.byte, 1, 0
    for i = 1, #s do
      a = (a + byte(s, i)) % 65521
      b = (b + a) % 65521
    end
    if b * 65536 + a ~= range(n - 4, 4):uint() then return nil end
  elseif method == "gzip" and tvb:len() % 4294967296 ~= range(n - 4, 4):le_uint() then
    return nil
  end
  return tvb
end
{%- endif %}

{%- if bits %}

-- Reports that `field` needs `need` bits where only `have` remain; ends this branch.
local function truncated_bits(tree, tvb, pos, field, need, have)
  local item = tree:add(tvb(floor(pos / 8), 0), fmt("[%s: needs %d bits, %d available]", field, need, have))
  item:add_proto_expert_info(E.truncated, fmt("%s truncated at bit %d: needs %d bits, %d available", field, pos, need, have))
  return nil
end
{%- endif %}

-- Whether `s` is valid UTF-8, as the generated crate requires of string fields (shortest forms,
-- no surrogates, at most U+10FFFF).
local function utf8_valid(s)
  local i, n = 1, #s
  while i <= n do
    local c = s:byte(i)
    if c < 0x80 then
      i = i + 1
    else
      local k, min
      if c >= 0xC2 and c <= 0xDF then k, min = 1, 0x80
      elseif c >= 0xE0 and c <= 0xEF then k, min = 2, 0x800
      elseif c >= 0xF0 and c <= 0xF4 then k, min = 3, 0x10000
      else return false end
      if i + k > n then return false end
      local cp = c % 2 ^ (6 - k)
      for j = 1, k do
        local b = s:byte(i + j)
        if b < 0x80 or b > 0xBF then return false end
        cp = cp * 64 + (b - 0x80)
      end
      if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then return false end
      i = i + k + 1
    end
  end
  return true
end

-- For the Info column, the names of the bits of `v` set, from a {mask, name} list:
-- `gap .. "[A,B]"`, or "" when none is. Each value's text is built once and remembered in the
-- list (up to 1024 values a flag set, so wide flag sets cannot grow it without bound; past that
-- the text is built each time).
local function flag_names(v, names, gap)
  local texts = names.texts
  if texts == nil then
    texts = { n = 0 }
    names.texts = texts
  end
  local text = texts[v]
  if text == nil then
    local out = {}
    for _, pair in ipairs(names) do
      if has_bit(v, pair[1]) then out[#out + 1] = pair[2] end
    end
    text = #out == 0 and "" or "[" .. table.concat(out, ",") .. "]"
    if texts.n < 1024 then
      texts[v] = text
      texts.n = texts.n + 1
    end
  end
  if text == "" then return "" end
  return gap .. text
end

local function enum_name(vs, v, unknown)
  return vs[v] or fmt(unknown, v)
end
