{# Byte-wise bit operations and the CRC engine shared per Lua state, then each checksum the schema uses. Included by dissector.lua. #}
{%- if needs_bitops %}

-- Byte-wise XOR{% if needs_bitops %}, AND and OR{% endif %} tables, built once at load time from 4-bit tables.
local XOR8{% if needs_bitops %}, AND8, OR8{% endif %} = {}{% if needs_bitops %}, {}, {}{% endif %}
do
  local X4{% if needs_bitops %}, A4, O4{% endif %} = {}{% if needs_bitops %}, {}, {}{% endif %}
  for a = 0, 15 do
    for b = 0, 15 do
      local x, y, bit = a, b, 1
      local rx{% if needs_bitops %}, ra, ro{% endif %} = 0{% if needs_bitops %}, 0, 0{% endif %}
      for _ = 1, 4 do
        local p, q = x % 2, y % 2
        if p ~= q then rx = rx + bit end
{%- if needs_bitops %}
        if p == 1 and q == 1 then ra = ra + bit end
        if p == 1 or q == 1 then ro = ro + bit end
{%- endif %}
        x, y, bit = (x - p) / 2, (y - q) / 2, bit * 2
      end
      X4[a * 16 + b] = rx
{%- if needs_bitops %}
      A4[a * 16 + b], O4[a * 16 + b] = ra, ro
{%- endif %}
    end
  end
  for a = 0, 255 do
    local ah, al = floor(a / 16), a % 16
    for b = 0, 255 do
      local hi, lo = ah * 16 + floor(b / 16), al * 16 + b % 16
      XOR8[a * 256 + b] = X4[hi] * 16 + X4[lo]
{%- if needs_bitops %}
      AND8[a * 256 + b] = A4[hi] * 16 + A4[lo]
      OR8[a * 256 + b] = O4[hi] * 16 + O4[lo]
{%- endif %}
    end
  end
end
{%- endif %}
{%- if needs_bitops %}

-- Applies a byte table to two non-negative integers below 2^53.
local function bitop(t, a, b)
  local r, scale = 0, 1
  while a > 0 or b > 0 do
    local x, y = a % 256, b % 256
    r = r + t[x * 256 + y] * scale
    a, b, scale = (a - x) / 256, (b - y) / 256, scale * 256
  end
  return r
end

local function band(a, b) return bitop(AND8, a, b) end
local function bor(a, b) return bitop(OR8, a, b) end
{%- endif %}
{%- if !crcs.is_empty() %}

-- CRCs in the Rocksoft model, with the fastest bit operations this Lua has, chosen once: native
-- operators on Lua 5.3+ (compiled with `load`, so that Lua 5.2 still parses this file), else
-- Lua 5.2's bit32. Each table is built once per Lua state and shared by every wiregen
-- dissector that needs the same CRC (`wiregen_crc_v1` in the globals).
local wiregen_crc
do
  local shared = rawget(_G, "wiregen_crc_v1")
  if shared == nil then
    local CRC = [[
      local band, bxor, lshift, rshift, width, poly, init, refin, refout, xorout = ...
      local mask = lshift(1, width - 1) * 2 - 1
      local function reflect(v, n)
        local r = 0
        for _ = 1, n do
          r = lshift(r, 1) + band(v, 1)
          v = rshift(v, 1)
        end
        return r
      end
      local T = {}
      if refin then
        local rpoly = reflect(poly, width)
        for i = 0, 255 do
          local c = i
          for _ = 1, 8 do
            if band(c, 1) == 1 then c = bxor(rshift(c, 1), rpoly) else c = rshift(c, 1) end
          end
          T[i] = c
        end
      else
        local top = lshift(1, width - 1)
        for i = 0, 255 do
          local c = lshift(i, width - 8)
          for _ = 1, 8 do
            if band(c, top) ~= 0 then
              c = band(bxor(lshift(c, 1), poly), mask)
            else
              c = band(lshift(c, 1), mask)
            end
          end
          T[i] = c
        end
      end
      local shift, sbyte = width - 8, string.byte
      -- Eight bytes at a time (slicing by 8): S[k][v] is what byte v adds to the register
      -- when k bytes follow it (S[0] is T). The register, at most 32 bits, is XORed into the
      -- block's first four bytes (its low bytes first when reflected, else its high bytes),
      -- and the block's eight bytes then each pick their part from one table: one read of the
      -- bytes and two XORs a block where byte by byte takes eight and sixteen calls.
      local S = { [0] = T }
      for k = 1, 7 do
        local prev, cur = S[k - 1], {}
        for v = 0, 255 do
          local p = prev[v]
          if refin then
            cur[v] = bxor(rshift(p, 8), T[band(p, 255)])
          else
            cur[v] = bxor(band(lshift(p, 8), mask), T[rshift(p, shift)])
          end
        end
        S[k] = cur
      end
      local S0, S1, S2, S3, S4, S5, S6, S7 = S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7]
    ]] .. (math.type ~= nil and [[
      -- Feeds bytes i..j of `data` into register c (Lua 5.3+: native operators, no calls but
      -- the reads of the bytes).
      local feed
      if refin then
        feed = function(c, data, i, j)
          local k = i
          while k + 7 <= j do
            local b1, b2, b3, b4, b5, b6, b7, b8 = sbyte(data, k, k + 7)
            local x = c ~ (b1 | b2 << 8 | b3 << 16 | b4 << 24)
            c = S7[x & 255] ~ S6[(x >> 8) & 255] ~ S5[(x >> 16) & 255] ~ S4[x >> 24]
              ~ S3[b5] ~ S2[b6] ~ S1[b7] ~ S0[b8]
            k = k + 8
          end
          for n = k, j do
            c = (c >> 8) ~ T[(c ~ sbyte(data, n)) & 255]
          end
          return c
        end
      else
        local lift = 32 - width
        feed = function(c, data, i, j)
          local k = i
          while k + 7 <= j do
            local b1, b2, b3, b4, b5, b6, b7, b8 = sbyte(data, k, k + 7)
            local x = (c << lift) ~ (b1 << 24 | b2 << 16 | b3 << 8 | b4)
            c = S7[x >> 24] ~ S6[(x >> 16) & 255] ~ S5[(x >> 8) & 255] ~ S4[x & 255]
              ~ S3[b5] ~ S2[b6] ~ S1[b7] ~ S0[b8]
            k = k + 8
          end
          for n = k, j do
            c = ((c << 8) & mask) ~ T[(c >> shift) ~ sbyte(data, n)]
          end
          return c
        end
      end
    ]] or [[
      -- Feeds bytes i..j of `data` into register c (Lua 5.2: the shifts and masks as exact
      -- arithmetic on numbers below 2^32, so that only the XORs and the reads are calls).
      local feed
      if refin then
        feed = function(c, data, i, j)
          local k = i
          while k + 7 <= j do
            local b1, b2, b3, b4, b5, b6, b7, b8 = sbyte(data, k, k + 7)
            local x = bxor(c, b1 + b2 * 256 + b3 * 65536 + b4 * 16777216)
            local x1 = x % 256
            x = (x - x1) / 256
            local x2 = x % 256
            x = (x - x2) / 256
            local x3 = x % 256
            c = bxor(S7[x1], S6[x2], S5[x3], S4[(x - x3) / 256], S3[b5], S2[b6], S1[b7], S0[b8])
            k = k + 8
          end
          for n = k, j do
            local lo = c % 256
            c = bxor((c - lo) / 256, T[bxor(lo, sbyte(data, n))])
          end
          return c
        end
      else
        local low, up = 2 ^ shift, 2 ^ (32 - width)
        feed = function(c, data, i, j)
          local k = i
          while k + 7 <= j do
            local b1, b2, b3, b4, b5, b6, b7, b8 = sbyte(data, k, k + 7)
            local x = bxor(c * up, b1 * 16777216 + b2 * 65536 + b3 * 256 + b4)
            local x4 = x % 256
            x = (x - x4) / 256
            local x3 = x % 256
            x = (x - x3) / 256
            local x2 = x % 256
            c = bxor(S7[(x - x2) / 256], S6[x2], S5[x3], S4[x4], S3[b5], S2[b6], S1[b7], S0[b8])
            k = k + 8
          end
          for n = k, j do
            local r = c % low
            c = bxor(r * 256, T[bxor((c - r) / low, sbyte(data, n))])
          end
          return c
        end
      end
    ]]) .. [[
      local start = refin and reflect(init, width) or init
      -- CRC of tvb bytes [from, to), reading `skip_len` zero bytes in place of those at
      -- `skip_at` (the checksum field itself).
      -- (Every register above is below 2^width: no mask at the end. The clipping is done with
      -- comparisons, and the zeros of a checksum field are made once: each a call saved.)
      local ZEROS = string.rep("\0", 16)
      return function(tvb, from, to, skip_at, skip_len)
        local data = tvb:raw(from, to - from)
        local a = skip_at < to and skip_at or to
        if a < from then a = from end
        local b = skip_at + skip_len
        if b > to then b = to end
        if b < a then b = a end
        local c = feed(start, data, 1, a - from)
        if b > a then c = feed(c, b - a <= 16 and ZEROS or string.rep("\0", b - a), 1, b - a) end
        c = feed(c, data, b - from + 1, to - from)
        if refin ~= refout then c = reflect(c, width) end
        if xorout ~= 0 then c = bxor(c, xorout) end
        return c
      end
    ]]
    local ops
    if math.type ~= nil then
      ops = { load("return function(a, b) return a & b end, function(a, b) return a ~ b end, "
        .. "function(a, n) return a << n end, function(a, n) return a >> n end")() }
    else
      ops = { bit32.band, bit32.bxor, bit32.lshift, bit32.rshift }
    end
    local build = load(CRC)
    local made = {}
    shared = function(name, width, poly, init, refin, refout, xorout)
      local f = made[name]
      if f == nil then
        f = build(ops[1], ops[2], ops[3], ops[4], width, poly, init, refin, refout, xorout)
        made[name] = f
      end
      return f
    end
    rawset(_G, "wiregen_crc_v1", shared)
  end
  wiregen_crc = shared
end
{%- endif %}
{%- for crc in crcs %}

{{ crc.code }}
{%- endfor %}
{%- for checksum in checksums %}

{{ checksum.code }}
{%- endfor %}
