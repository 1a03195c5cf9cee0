{# Bit-stream readers (LSB- and MSB-first, wide values, bit strings, LEB128, Rabbit varints), only in dissectors with a bit-stream type. Included by dissector.lua. #}
{%- if bits || app_points %}

-- Bytes holding `bits` bits.
local function ceil8(bits)
  return floor((bits + 7) / 8)
end
{%- endif %}
{%- if bits %}

-- Bit streams. LSB-first: bit n of the message is bit n % 8 of byte n / 8, values start with
-- their least significant bit. MSB-first (network bit order): bit n is bit 7 - n % 8 of byte
-- n / 8, values start with their most significant bit. Offsets and limits below are in bits.

-- The bytes a field of `w` bits at bit `pos` touches (where the tree shows it).
local function bit_range(tvb, pos, w)
  local first = floor(pos / 8)
  if w == 0 then return tvb(first, 0) end
  return tvb(first, ceil8(pos + w) - first)
end

-- The value of the `w`-bit field (w <= 32) at bit `pos` of an LSB-first stream: one read of the
-- bytes it touches.
local function read_bits(tvb, pos, w)
  local first = floor(pos / 8)
  local shift = pos - first * 8
  local n = ceil8(shift + w)
  local raw
  if n <= 4 then raw = tvb(first, n):le_uint() else raw = tvb(first, n):le_uint64():tonumber() end
  return floor(raw / 2 ^ shift) % 2 ^ w
end

-- The same in an MSB-first stream: the bytes it touches read big-endian, the bits below the
-- field shifted out.
local function read_bits_msb(tvb, pos, w)
  local first = floor(pos / 8)
  local shift = pos - first * 8
  local n = ceil8(shift + w)
  local raw
  if n <= 4 then raw = tvb(first, n):uint() else raw = tvb(first, n):uint64():tonumber() end
  return floor(raw / 2 ^ (8 * n - shift - w)) % 2 ^ w
end

-- The value of the `w`-bit field (32 < w <= 64) at bit `pos`: UInt64, or Int64 when signed (the
-- sign bit copied into the bits above w).
local function wide_bits(low, high, w, signed)
  if not signed then return UInt64(low, high) end
  if w < 64 and high >= 2 ^ (w - 33) then high = high + 2 ^ 32 - 2 ^ (w - 32) end
  return Int64(low, high)
end

local function read_bits64(tvb, pos, w, signed)
  return wide_bits(read_bits(tvb, pos, 32), read_bits(tvb, pos + 32, w - 32), w, signed)
end

-- MSB-first, the high bits come first.
local function read_bits64_msb(tvb, pos, w, signed)
  return wide_bits(read_bits_msb(tvb, pos + w - 32, 32), read_bits_msb(tvb, pos, w - 32), w, signed)
end

-- The `n` whole bytes starting at bit `pos`, realigned, as numbers: the bytes they touch are read
-- once and shifted in Lua (MSB-first when `msb`), not read a byte at a time.
local function realigned_bytes(tvb, pos, n, msb)
  local s, first = pos % 8, floor(pos / 8)
  -- One read of the bytes touched (and the one after, when there is one).
  local raw = tvb(first, math.min(n + 1, tvb:len() - first)):raw()
  local up, down = 2 ^ s, 2 ^ (8 - s)
  local out = {}
  for i = 1, n do
    local b0, b1 = raw:byte(i), raw:byte(i + 1) or 0
    if msb then
      out[i] = (b0 * up) % 256 + floor(b1 / down)
    else
      out[i] = floor(b0 / up) + (b1 % up) * down
    end
  end
  return out
end

-- A reader of `n` whole bytes starting at bit `pos`, as a Lua string (MSB-first when `msb`).
local function bit_bytes_reader(msb)
  return function(tvb, pos, n)
    if pos % 8 == 0 then return tvb(pos / 8, n):raw() end
    local out = realigned_bytes(tvb, pos, n, msb)
    for i = 1, n do out[i] = string.char(out[i]) end
    return table.concat(out)
  end
end
local read_bit_bytes = bit_bytes_reader(false)
local read_bit_bytes_msb = bit_bytes_reader(true)

-- A labeller of bit strings (bits pos to limit, shown by `item` labelled `label`) read with
-- `read`: an unaligned one shows the bytes its reader gets, realigned (the first 24), not the
-- shifted bytes it touches; the zero bits that only fill the message's last byte are padding,
-- not data.
local function bit_string_labeller(read, msb)
  return function(item, label, tvb, pos, limit)
    -- Only text: nothing to do when the tree is not shown (a summary line, -T fields).
    if not item.visible then return end
    local n = limit - pos
    if n == 0 then item:set_text(label .. ": <empty>") return end
    if n < 8 and limit % 8 == 0 and read(tvb, pos, n) == 0 then
      item:set_text(string.format("%s: <empty> [%d bits of padding]", label, n))
      return
    end
    if pos % 8 == 0 then item:append_text(string.format(" [%d bits]", n)) return end
    local count = math.min(ceil8(n), 24)
    local bytes = realigned_bytes(tvb, pos, count, msb)
    -- A last partial byte keeps only its own bits, where the stream's order puts them.
    local w = n - 8 * (count - 1)
    if w < 8 then
      local b = bytes[count]
      if msb then bytes[count] = floor(b / 2 ^ (8 - w)) * 2 ^ (8 - w) else bytes[count] = b % 2 ^ w end
    end
    local hex = string.format(string.rep("%02x", count), table.unpack(bytes, 1, count))
    if ceil8(n) > 24 then hex = hex .. "…" end
    item:set_text(string.format("%s: %s [%d bits from bit %d, realigned]", label, hex, n, pos))
  end
end
local label_bit_string = bit_string_labeller(read_bits, false)
local label_bit_string_msb = bit_string_labeller(read_bits_msb, true)

-- A reader of unsigned LEB128 values whose group bytes are unaligned 8-bit fields (read with
-- `read`): it returns the value (UInt64) and the bits it takes, or nil and the bits read when it
-- runs past `limit` (false when it is longer than 64 bits).
local function leb128_reader(read)
  return function(tvb, pos, limit)
    local value, used, shift = UInt64(0), 0, 0
    while true do
      if limit - pos - used < 8 then return nil, used end
      local g = read(tvb, pos + used, 8)
      used = used + 8
      -- The tenth group holds bit 63 only: anything more does not fit 64 bits.
      if shift == 63 and g % 128 > 1 then return false, used end
      value = value + UInt64(g % 128):lshift(shift)
      shift = shift + 7
      if g < 128 then return value, used end
    end
  end
end
local read_leb128 = leb128_reader(read_bits)
local read_leb128_msb = leb128_reader(read_bits_msb)

-- A Rabbit variable-length integer: the byte count minus one in `k` bits, then the bytes, lowest
-- first (for 64-bit values over 4 bytes the high 32-bit group comes first). Returns the value and
-- the bits it takes, or nil and the bits needed when it runs past `limit`.
local function read_rabbit(tvb, pos, limit, k)
  if limit - pos < k then return nil, k end
  local m = read_bits(tvb, pos, k) + 1
  if limit - pos - k < 8 * m then return nil, k + 8 * m end
  if m <= 4 then return read_bits(tvb, pos + k, 8 * m), k + 8 * m end
  local high = read_bits(tvb, pos + k, 8 * (m - 4))
  local low = read_bits(tvb, pos + k + 8 * (m - 4), 32)
  return UInt64(low, high), k + 8 * m
end

-- Zig-zag decoding of a UInt64 into an Int64: 0, 1, 2, 3 -> 0, -1, 1, -2.
local function zigzag64(z)
  local half = z:rshift(1)
  local value = Int64(half:lower(), half:higher())
  if z:band(UInt64(1)) == UInt64(1) then value = -value - 1 end
  return value
end

local function f32_from_bits(u)
  local sign = 1
  if u >= 2 ^ 31 then sign, u = -1, u - 2 ^ 31 end
  local e, m = floor(u / 2 ^ 23), u % 2 ^ 23
  if e == 255 then
    if m == 0 then return sign * math.huge end
    return 0 / 0
  end
  if e == 0 then return sign * m * 2 ^ -149 end
  return sign * (1 + m / 2 ^ 23) * 2 ^ (e - 127)
end

-- The double whose IEEE 754 bits are `hi` (the high 32) and `lo` (the low 32), exactly: the
-- 52-bit mantissa fits a Lua 5.2 number.
local function f64_from_bits(hi, lo)
  local sign = 1
  if hi >= 2 ^ 31 then sign, hi = -1, hi - 2 ^ 31 end
  local e, m = floor(hi / 2 ^ 20), (hi % 2 ^ 20) * 2 ^ 32 + lo
  if e == 2047 then
    if m == 0 then return sign * math.huge end
    return 0 / 0
  end
  if e == 0 then return sign * m * 2 ^ -1074 end
  return sign * (1 + m / 2 ^ 52) * 2 ^ (e - 1023)
end
{%- endif %}
