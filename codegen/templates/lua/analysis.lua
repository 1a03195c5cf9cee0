{# Netcode analysis: the runtime's analysis::Analyzer in Lua, over the facts the types the schema's `reliability` names add. Included by dissector.lua. #}
{%- if let Some(a) = analysis %}

-- Netcode analysis, as tcp.analysis does it for TCP (the crate's wiregen_runtime::analysis,
-- line for line): the first pass reads each datagram's sequence number, acks and ping id in
-- capture order and keeps its verdict by frame; later passes and clicks show the kept verdict.
-- Numbers unwrap to the nearest of the last one's wraps; keys are number * 65536 + part.
proto.prefs.analyze = Pref.bool("Analyze sequence numbers, acks and pings", true,
  "Mark lost, duplicate, retransmitted and out-of-order datagrams and link acks and pings to what they answer (the {{ name }}.analysis.* fields)")
-- The preference, read when it changes (not per message: two C calls).
local ANALYZE = proto.prefs.analyze
local ANALYSIS_WINDOW = 4096
local MAX_ANALYSED = 65536
local WRAPS = { {{ a.wraps }} }
local analysed = bounded(MAX_ANALYSED)
-- A verdict is one flat table: `lost`, `repeat_of`, `retransmission`, `out_of_order`,
-- `before_first`, `ping_frame`, `ping_rtt`, and the acked frames and their round trips in its
-- array part (frame, rtt, frame, rtt, …). The first pass's verdicts are kept as text, a record
-- per message ("\n<frame>:<message index>:<numbers>;"), in strings of VERDICT_CHUNK records, by
-- the first frame of each: a capture's worth of tables (or of numbers in one) is what every
-- garbage collection walks, and the analysis cost more than the dissection; a string is one
-- object to the collector whatever it holds.
local VERDICT_CHUNK = 256
local verdict_chunks, verdict_chunk_first = {}, {}
local verdict_records = {}
local ANALYSIS_INDEX = 0

-- Keeps `v`, the verdict of message `index` of `frame` (frames come in increasing order). Whole
-- numbers are written as integers, round trips (fractions of a second) with every digit, in one
-- string.format each: a number concatenated is formatted as a float, several times the cost.
local function keep_verdict(frame, index, v)
  local record = string.format("\n%d:%d:%d,%d,%d,%d,%d,%d,%s", frame, index, v.lost or 0,
    v.repeat_of or 0, v.retransmission and 1 or 0, v.out_of_order and 1 or 0,
    v.before_first and 1 or 0, v.ping_frame or 0, v.ping_rtt and string.format("%.17g", v.ping_rtt) or "0")
  for i = 1, #v, 2 do record = record .. string.format(",%d,%.17g", v[i], v[i + 1]) end
  if #verdict_records == 0 then verdict_chunk_first[#verdict_chunks + 1] = frame end
  verdict_records[#verdict_records + 1] = record .. ";"
  if #verdict_records == VERDICT_CHUNK then
    verdict_chunks[#verdict_chunks + 1] = table.concat(verdict_records)
    verdict_records = {}
  end
end

-- The texts that may hold `frame`'s records: from the last chunk starting before it to the last
-- starting at it (a frame of many messages may fill several), the records not yet in a chunk
-- last.
local function verdict_texts(frame)
  local lo, hi, at = 1, #verdict_chunk_first, nil
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if verdict_chunk_first[mid] <= frame then at, lo = mid, mid + 1 else hi = mid - 1 end
  end
  if at == nil then return {} end
  local first = at
  while first > 1 and verdict_chunk_first[first] == frame do first = first - 1 end
  local texts = {}
  for j = first, at do texts[#texts + 1] = verdict_chunks[j] or table.concat(verdict_records) end
  return texts
end

-- The verdict whose numbers start at `from` in `text`, as a table again.
local function parse_verdict(text, from)
  local numbers = {}
  for x in text:sub(from, text:find(";", from, true) - 1):gmatch("[^,]+") do
    numbers[#numbers + 1] = tonumber(x)
  end
  local v = {}
  if numbers[1] > 0 then v.lost = numbers[1] end
  if numbers[2] > 0 then v.repeat_of, v.retransmission = numbers[2], numbers[3] == 1 end
  if numbers[4] == 1 then v.out_of_order = true end
  if numbers[5] == 1 then v.before_first = true end
  if numbers[6] > 0 then v.ping_frame, v.ping_rtt = numbers[6], numbers[7] end
  for i = 8, #numbers do v[i - 7] = numbers[i] end
  return v
end

-- The kept verdict of message `index` of `frame` (nil: none).
local function kept_verdict(frame, index)
  local key = "\n" .. frame .. ":" .. index .. ":"
  for _, text in ipairs(verdict_texts(frame)) do
    local from = text:find(key, 1, true)
    if from ~= nil then return parse_verdict(text, from + #key) end
  end
  return nil
end

-- Every kept verdict of `frame`'s messages, in order.
local function kept_verdicts(frame)
  local prefix = "\n" .. frame .. ":"
  local all = {}
  for _, text in ipairs(verdict_texts(frame)) do
    local from = text:find(prefix, 1, true)
    while from ~= nil do
      local numbers_at = text:find(":", from + #prefix, true) + 1
      all[#all + 1] = parse_verdict(text, numbers_at)
      from = text:find(prefix, numbers_at, true)
    end
  end
  return all
end

-- `raw` unwrapped to the number nearest `near` (the first of equally near ones), never below 0.
-- (Distances compared without math.abs: a library call each.)
local function analysis_unwrap(raw, near, wrap)
  local base = near - near % wrap
  local best = base + raw
  local below = best - wrap
  local d_best = best >= near and best - near or near - best
  if below >= 0 and near - below <= d_best then best, d_best = below, near - below end
  local above = base + raw + wrap
  if above - near < d_best then best = above end
  return best
end

-- Adds to a window of places; past ANALYSIS_WINDOW the oldest added goes, counted. Returns the
-- key forgotten, if any.
local function window_add(w, key, value, st)
  bounded_set(w, key, value)
  if w.count > ANALYSIS_WINDOW then
    st.forgotten = st.forgotten + 1
    return bounded_evict(w)
  end
  return nil
end

local function new_analysis()
  local st = { channels = {}, pings = { {}, {} }, ping_at = { {}, {} }, ping_order = { {}, {} }, forgotten = 0 }
  for c = 1, #WRAPS do
    st.channels[c] = {}
    for side = 1, 2 do
      -- `waiting` holds a reliable send's frame, `sent_at` its time.
      -- `highest` is number * 65536 + part; `highest_n` its number.
      st.channels[c][side] = { highest = nil, highest_n = nil, closed = true, seen = bounded(ANALYSIS_WINDOW),
        waiting = bounded(ANALYSIS_WINDOW), sent_at = {} }
    end
  end
  return st
end

local function analysis_numbered(st, side, frame, time, verdict)
  local wrap = WRAPS[FACTS.seq_ch + 1]
  local d = st.channels[FACTS.seq_ch + 1][side]
  local part = FACTS.seq_part
  local number
  if d.highest == nil then
    number = FACTS.seq_n % wrap + wrap
  else
    number = analysis_unwrap(FACTS.seq_n % wrap, d.highest_n, wrap)
  end
  local key = number * 65536 + part
  local first = d.seen.map[key]
  if first ~= nil then
    verdict.repeat_of = first
    verdict.retransmission = FACTS.seq_rel
    return
  end
  if d.highest ~= nil then
    if key < d.highest then
      verdict.out_of_order = true
      -- Below the first place seen: no earlier datagram reported this gap.
      if key < d.first then verdict.before_first = true end
    else
      local h, hp = d.highest_n, d.highest % 65536
      local lost
      if number == h then
        lost = part - hp - 1
      else
        lost = (d.closed and 0 or 1) + (number - h - 1) + part
      end
      if lost > 0 then verdict.lost = lost end
    end
  end
  if d.first == nil then d.first = key end
  if d.highest == nil or key > d.highest then
    d.highest, d.highest_n, d.closed = key, number, FACTS.seq_last
  end
  window_add(d.seen, key, frame, st)
  if FACTS.seq_rel then
    d.sent_at[key] = time
    local gone = window_add(d.waiting, key, frame, st)
    if gone ~= nil then d.sent_at[gone] = nil end
  end
end

-- Ack `i` of FACTS, of direction `side`'s sends.
local function analysis_ack(st, side, i, time, verdict)
  local wrap = WRAPS[FACTS.ack_ch[i] + 1]
  local d = st.channels[FACTS.ack_ch[i] + 1][side]
  if d.highest == nil then return end
  local number = analysis_unwrap(FACTS.ack_n[i] % wrap, d.highest_n, wrap)
  local w = d.waiting
  local acked
  if FACTS.ack_cum[i] then
    -- Acked sends leave their queue slots behind: skip those at the front first, so a
    -- cumulative ack reads only the sends still waiting.
    while w.head <= w.tail and (w.queue[w.head] == nil or w.pos[w.queue[w.head]] ~= w.head) do
      w.queue[w.head] = nil
      w.head = w.head + 1
    end
    local limit = (number + 1) * 65536
    for j = w.head, w.tail do
      local k = w.queue[j]
      if k ~= nil and w.pos[k] == j and k < limit then
        acked = acked or {}
        acked[#acked + 1] = k
      end
    end
    if acked ~= nil then table.sort(acked) end
  elseif w.map[number * 65536 + FACTS.ack_part[i]] ~= nil then
    acked = { number * 65536 + FACTS.ack_part[i] }
  end
  if acked == nil then return end
  for j = 1, #acked do
    local k = acked[j]
    verdict[#verdict + 1] = w.map[k]
    verdict[#verdict + 1] = time - d.sent_at[k]
    bounded_remove(w, k)
    d.sent_at[k] = nil
  end
end

local function analysis_ping(st, side, frame, time, verdict)
  local id = FACTS.ping_id
  if FACTS.ping_reply then
    local sent = st.pings[3 - side][id]
    if sent ~= nil then
      verdict.ping_frame, verdict.ping_rtt = sent, time - st.ping_at[3 - side][id]
      st.pings[3 - side][id], st.ping_at[3 - side][id] = nil, nil
    end
    return
  end
  local order = st.ping_order[side]
  if st.pings[side][id] == nil then order[#order + 1] = id end
  st.pings[side][id], st.ping_at[side][id] = frame, time
  while #order > ANALYSIS_WINDOW do
    local old = table.remove(order, 1)
    if st.pings[side][old] ~= nil then
      st.pings[side][old], st.ping_at[side][old] = nil, nil
      st.forgotten = st.forgotten + 1
    end
  end
end

-- The verdict of the datagram just dissected (nil when it says nothing): computed on the first
-- pass from FACTS, kept by frame and message; later passes read the kept one.
local function analysis_verdict(pinfo, root)
  ANALYSIS_INDEX = ANALYSIS_INDEX + 1
  local frame = pinfo.number
  if pinfo.visited then return kept_verdict(frame, ANALYSIS_INDEX) end
  if not FACTS.seq and FACTS.nacks == 0 and not FACTS.ping then return nil end
  local conv, from = conversation_key(pinfo)
  local st = analysed.map[conv]
  if st == nil then
    st = new_analysis()
    bounded_set(analysed, conv, st)
    if analysed.count > MAX_ANALYSED then
      local evicted = bounded_evict(analysed)
      root:add_proto_expert_info(E.evicted, fmt(
        "%d conversations analysed: the oldest (%s) is forgotten; %d forgotten so far", MAX_ANALYSED, evicted, analysed.evicted))
    end
  end
  local side = from == "client" and 1 or 2
  local time = pinfo.rel_ts
  local verdict = {}
  if FACTS.seq then analysis_numbered(st, side, frame, time, verdict) end
  for i = 1, FACTS.nacks do analysis_ack(st, 3 - side, i, time, verdict) end
  if FACTS.ping then analysis_ping(st, side, frame, time, verdict) end
  -- (before_first comes with out_of_order, retransmission with repeat_of, ping_rtt with ping_frame)
  if #verdict == 0 and verdict.lost == nil and verdict.repeat_of == nil and not verdict.out_of_order
      and verdict.ping_frame == nil then
    return nil
  end
  keep_verdict(frame, ANALYSIS_INDEX, verdict)
  return verdict
end

-- Adds a computed item (shown in brackets, as Wireshark shows what is not on the wire).
local function add_generated(sub, field, value)
  local item = sub:add(field, value)
  if VISIBLE then item:set_generated() end
end

-- The verdict under `root` as `{{ name }}.analysis.*` fields and expert info; returns the Info
-- column's prefix.
local function show_analysis(verdict, tvb, root)
  if verdict == nil then return "" end
  local sub = root:add(A.analysis, tvb(0, 0))
  if VISIBLE then sub:set_generated() end
  local info = {}
  if verdict.lost ~= nil then
    add_generated(sub, A.lost, verdict.lost)
    sub:add_proto_expert_info(E.lost, fmt("%d datagram(s) before this one not seen (lost, or yet to come)", verdict.lost))
    info[#info + 1] = fmt("LOST %d", verdict.lost)
  end
  if verdict.repeat_of ~= nil then
    if verdict.retransmission then
      add_generated(sub, A.retransmission_of, verdict.repeat_of)
      sub:add_proto_expert_info(E.retransmission, fmt("Retransmission of frame %d", verdict.repeat_of))
      info[#info + 1] = "RETRANSMISSION"
    else
      add_generated(sub, A.duplicate_of, verdict.repeat_of)
      sub:add_proto_expert_info(E.duplicate, fmt("Duplicate of frame %d", verdict.repeat_of))
      info[#info + 1] = "DUPLICATE"
    end
  end
  if verdict.out_of_order then
    add_generated(sub, A.out_of_order, true)
    sub:add_proto_expert_info(E.out_of_order, "Out of order: a later datagram came first")
    info[#info + 1] = "OUT OF ORDER"
  end
  for i = 1, #verdict, 2 do
    add_generated(sub, A.acks_frame, verdict[i])
    add_generated(sub, A.ack_rtt, verdict[i + 1] * 1000)
  end
  if verdict.ping_frame ~= nil then
    add_generated(sub, A.ping_frame, verdict.ping_frame)
    add_generated(sub, A.ping_rtt, verdict.ping_rtt * 1000)
  end
  if #info == 0 then return "" end
  if VISIBLE then sub:append_text(": " .. table.concat(info, ", ")) end
  return "[" .. table.concat(info, "] [") .. "] "
end

-- The message just dissected, analysed and shown: what dissect_protected calls, protected (a
-- function of its own, not a closure made per message).
local function analysis_step(tvb, pinfo, root)
  return show_analysis(analysis_verdict(pinfo, root), tvb, root)
end

-- The analysis summed per conversation and direction, from the kept verdicts: a Listener on
-- {{ name }} frames and the text it prints (`tshark -z {{ name }},stats`; Statistics menu in
-- Wireshark). Round trips count for the direction that sent what was acked or pinged.
local function analysis_stats()
  local rows, order = {}, {}
  local function row(conv, side)
    local client, server = conv:match("^(.*)>(.*)$")
    local key = side == "client" and (client .. " -> " .. server) or (server .. " -> " .. client)
    local r = rows[key]
    if r == nil then
      r = { datagrams = 0, skipped = 0, late = 0, fills = 0, dup = 0, retx = 0, rtt_n = 0, rtt_sum = 0, rtt_max = 0 }
      rows[key] = r
      order[#order + 1] = key
    end
    return r
  end
  local function rtt(r, ms)
    r.rtt_n, r.rtt_sum = r.rtt_n + 1, r.rtt_sum + ms
    r.rtt_min = math.min(r.rtt_min or ms, ms)
    r.rtt_max = math.max(r.rtt_max, ms)
  end
  local tap = Listener.new(nil, "{{ name }}")
  function tap.packet(pinfo)
    local conv, from = conversation_key_of(pinfo)
    local r = row(conv, from)
    r.datagrams = r.datagrams + 1
    local function add(v)
      r.skipped = r.skipped + (v.lost or 0)
      if v.out_of_order then r.late = r.late + 1 end
      if v.out_of_order and not v.before_first then r.fills = r.fills + 1 end
      if v.repeat_of ~= nil and v.retransmission then r.retx = r.retx + 1 end
      if v.repeat_of ~= nil and not v.retransmission then r.dup = r.dup + 1 end
      local sender = row(conv, from == "client" and "server" or "client")
      for i = 2, #v, 2 do rtt(sender, v[i] * 1000) end
      if v.ping_rtt ~= nil then rtt(sender, v.ping_rtt * 1000) end
    end
    for _, v in ipairs(kept_verdicts(pinfo.number)) do add(v) end
  end
  function tap.reset()
    rows, order = {}, {}
  end
  local function text()
    local lines = { "{{ title }} netcode analysis (round trips in ms, of the direction's sends)",
      fmt("%-45s %9s %6s %6s %6s %6s %8s %9s %9s %9s", "direction", "datagrams", "lost", "dup", "retx", "ooo", "rtts", "min", "mean", "max") }
    for _, key in ipairs(order) do
      local r = rows[key]
      local times = "        -         -         -"
      if r.rtt_n > 0 then times = fmt("%9.3f %9.3f %9.3f", r.rtt_min, r.rtt_sum / r.rtt_n, r.rtt_max) end
      lines[#lines + 1] = fmt("%-45s %9d %6d %6d %6d %6d %8d %s", key, r.datagrams,
        math.max(r.skipped - r.fills, 0), r.dup, r.retx, r.late, r.rtt_n, times)
    end
    return table.concat(lines, "\n")
  end
  return tap, text
end

register_text_stat("stats", "{{ title }} netcode analysis", analysis_stats)
{%- endif %}
