{# Netcode analysis: the runtime's analysis::Analyzer in Lua, over the facts the types the schema's `reliability` names add. Included by dissector.lua. #}
{%- if let Some(a) = analysis %}

-- Netcode analysis, as tcp.analysis does it for TCP (the crate's wiregen_runtime::analysis,
-- line for line): the first pass reads each datagram's sequence number, acks and ping id in
-- capture order and keeps its verdict by frame; later passes and clicks show the kept verdict.
-- Numbers unwrap to the nearest of the last one's wraps; keys are number * 65536 + part.
proto.prefs.analyze = Pref.bool("Analyze sequence numbers, acks and pings", true,
  "Mark lost, duplicate, retransmitted and out-of-order datagrams and link acks and pings to what they answer (the {{ name }}.analysis.* fields)")
-- Places, sends and pings kept per channel and direction (the crate's analysis::WINDOW by
-- default, so both outputs forget the same; a bulk transfer with more sends in flight needs
-- more). Every entry kept is memory each garbage collection walks: see new_window.
proto.prefs.analysis_window = Pref.uint("Analysis window", 256,
  "Places, sends and pings remembered per channel and direction; past it the oldest is forgotten (a repeat of a place is not linked; a send or ping whose ack or answer can no longer be linked gets a {{ name }}.analysis.forgotten note)")
-- The preferences, read when they change (not per message: two C calls each).
local ANALYZE = proto.prefs.analyze
local ANALYSIS_WINDOW = 256
local MAX_ANALYSED = 65536
local WRAPS = { {{ a.wraps }} }
local analysed = bounded(MAX_ANALYSED)
-- A verdict is one flat table: `lost`, `repeat_of`, `retransmission`, `out_of_order`,
-- `before_first`, `ping_frame`, `ping_rtt`, `forgotten`, and the acked frames and their round
-- trips in its array part (frame, rtt, frame, rtt, …). The first pass's verdicts are kept as
-- binary records, one per thing a verdict says (keep_verdict), in chunks of whole verdicts
-- (VERDICT_CHUNK records or a few more), by the first frame of each: a capture's worth of
-- tables (or of numbers in one) is what every garbage collection walks, and the analysis cost
-- more than the dissection. A full chunk is kept in a ByteArray, whose bytes Wireshark holds
-- outside Lua's heap: kept strings grow the heap the collector paces itself by, and the rarer
-- its collections, the colder each message's garbage when it is swept. The records of the chunk
-- being filled wait as numbers (`verdict_values`, five a record), packed together when it is
-- full: a verdict kept is a few numbers put in an array. (Kept as text, each verdict was a
-- string.format of three integers and a float, about 1,300 instructions an integer: the
-- verdicts cost DNP's dissector 4,000 instructions a datagram.)
local VERDICT_CHUNK = 256
-- A record: frame, message index, kind of item, a number (a frame or a count) and a round trip
-- in seconds (0 when the kind has none), little-endian (the format says so itself, so that a
-- chunk's is the record's repeated), the float with every bit.
local RECORD, RECORD_SIZE = "<I4I4Bdd", 25
local ITEM = { ACKED = 1, LOST = 2, RETRANSMISSION = 3, DUPLICATE = 4, OUT_OF_ORDER = 5, BEFORE_FIRST = 6, PING = 7, FORGOTTEN = 8 }
local verdict_chunks, verdict_chunk_first = {}, {}
local verdict_values = {}
local ANALYSIS_INDEX = 0

-- The records not yet in a chunk, packed.
local function pending_bytes()
  return Struct.pack(string.rep(RECORD, #verdict_values / 5), table.unpack(verdict_values))
end

-- Puts a record after the `n` numbers of `values`; returns how many there are then.
local function put_record(values, n, frame, index, kind, number, rtt)
  values[n + 1], values[n + 2], values[n + 3], values[n + 4], values[n + 5] = frame, index, kind, number, rtt
  return n + 5
end

-- Keeps `v`, the verdict of message `index` of `frame` (frames come in increasing order): a
-- record per ack (the acked frame and its round trip), then one for each other thing it says
-- (lost: how many; a retransmission or duplicate: of which frame; out of order, below the first
-- or not; a ping: its frame and round trip; forgotten: how many so far).
local function keep_verdict(frame, index, v)
  local values = verdict_values
  local n = #values
  if n == 0 then verdict_chunk_first[#verdict_chunks + 1] = frame end
  for i = 1, #v, 2 do n = put_record(values, n, frame, index, ITEM.ACKED, v[i], v[i + 1]) end
  if v.lost ~= nil then n = put_record(values, n, frame, index, ITEM.LOST, v.lost, 0) end
  if v.repeat_of ~= nil then
    n = put_record(values, n, frame, index, v.retransmission and ITEM.RETRANSMISSION or ITEM.DUPLICATE, v.repeat_of, 0)
  end
  if v.out_of_order then n = put_record(values, n, frame, index, v.before_first and ITEM.BEFORE_FIRST or ITEM.OUT_OF_ORDER, 0, 0) end
  if v.ping_frame ~= nil then n = put_record(values, n, frame, index, ITEM.PING, v.ping_frame, v.ping_rtt) end
  if v.forgotten ~= nil then n = put_record(values, n, frame, index, ITEM.FORGOTTEN, v.forgotten, 0) end
  if n >= 5 * VERDICT_CHUNK then
    verdict_chunks[#verdict_chunks + 1] = ByteArray.new(pending_bytes(), true)
    verdict_values = {}
  end
end

-- The records that may hold `frame`'s: from the last chunk starting before it to the last
-- starting at it (a frame of many messages may fill several), the records not yet in a chunk
-- last; each as the string of its bytes.
local function verdict_records(frame)
  local lo, hi, at = 1, #verdict_chunk_first, nil
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if verdict_chunk_first[mid] <= frame then at, lo = mid, mid + 1 else hi = mid - 1 end
  end
  if at == nil then return {} end
  local first = at
  while first > 1 and verdict_chunk_first[first] == frame do first = first - 1 end
  local chunks = {}
  for j = first, at do
    local chunk = verdict_chunks[j]
    chunks[#chunks + 1] = chunk ~= nil and chunk:raw() or pending_bytes()
  end
  return chunks
end

-- The place (from 0) of the first record in `bytes` of `frame`'s message `index` (of any of
-- its messages when `index` is nil), by bisection: records are in frame and message order.
local function first_record(bytes, frame, index)
  local lo, hi, found = 0, #bytes / RECORD_SIZE - 1, nil
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    local f, i = Struct.unpack("<I4I4", bytes, mid * RECORD_SIZE + 1)
    if f > frame or (f == frame and (index == nil or i >= index)) then
      if f == frame and (index == nil or i == index) then found = mid end
      hi = mid - 1
    else
      lo = mid + 1
    end
  end
  return found
end

-- Appends to `verdicts` the verdicts (tables again) of the records of `frame` from place `at`
-- on, of message `index` only unless it is nil. Numbers are made whole again: packed as
-- floats, Lua 5.4 would show a frame as "12.0".
local function read_verdicts(bytes, at, frame, index, verdicts)
  local current, v
  for r = at, #bytes / RECORD_SIZE - 1 do
    local f, i, kind, number, rtt = Struct.unpack(RECORD, bytes, r * RECORD_SIZE + 1)
    if f ~= frame or (index ~= nil and i ~= index) then return end
    if i ~= current then
      current, v = i, {}
      verdicts[#verdicts + 1] = v
    end
    number = math.floor(number)
    if kind == ITEM.ACKED then
      local n = #v
      v[n + 1], v[n + 2] = number, rtt
    elseif kind == ITEM.LOST then
      v.lost = number
    elseif kind == ITEM.RETRANSMISSION or kind == ITEM.DUPLICATE then
      v.repeat_of, v.retransmission = number, kind == ITEM.RETRANSMISSION
    elseif kind == ITEM.OUT_OF_ORDER or kind == ITEM.BEFORE_FIRST then
      v.out_of_order = true
      if kind == ITEM.BEFORE_FIRST then v.before_first = true end
    elseif kind == ITEM.PING then
      v.ping_frame, v.ping_rtt = number, rtt
    elseif kind == ITEM.FORGOTTEN then
      v.forgotten = number
    end
  end
end

-- The kept verdicts of `frame`'s message `index` (a list of one or none), or of all its
-- messages (`index` nil), in order.
local function kept_verdicts(frame, index)
  local verdicts = {}
  for _, bytes in ipairs(verdict_records(frame)) do
    local at = first_record(bytes, frame, index)
    if at ~= nil then read_verdicts(bytes, at, frame, index, verdicts) end
  end
  return verdicts
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

-- A window of places (the crate's analysis::Window): at most ANALYSIS_WINDOW entries, past it
-- the oldest added goes. `at[key]` is the serial of the add that made key's entry; its
-- key, frame and time sit in three rings of numbers at the serial's slot. A removed (acked) entry
-- empties its slot, so the oldest kept entry is the first filled slot from `head`, and a key
-- added again is never taken for its older self. Why rings: every table the analysis keeps is
-- walked by each garbage collection and makes the collections rarer, so the garbage of every
-- message is colder when they come; three hashes per window (key to frame, key to place, place
-- to key) made the analysis cost more than the dissection.
local WINDOW_SLOTS = 2 * ANALYSIS_WINDOW

-- A new window size (a preference changed; the state is made anew before the next pass).
local function set_analysis_window(n)
  ANALYSIS_WINDOW = math.max(1, n)
  WINDOW_SLOTS = 2 * ANALYSIS_WINDOW
end

local function new_window()
  return { at = {}, keys = {}, frames = {}, times = {}, head = 1, tail = 0, count = 0 }
end

local function window_slot(serial)
  return (serial - 1) % WINDOW_SLOTS + 1
end

-- The frame and time of `key`'s entry (nil: none).
local function window_get(w, key)
  local serial = w.at[key]
  if serial == nil then return nil end
  local slot = window_slot(serial)
  return w.frames[slot], w.times[slot]
end

-- Takes `key`'s entry out of the window: its frame and time (nil: none). An ack's send is
-- found and forgotten with one look-up.
local function window_take(w, key)
  local serial = w.at[key]
  if serial == nil then return nil end
  local slot = window_slot(serial)
  local frame, time = w.frames[slot], w.times[slot]
  w.at[key], w.keys[slot], w.frames[slot], w.times[slot] = nil, nil, nil, nil
  w.count = w.count - 1
  return frame, time
end

-- Moves `head` past the slots removed entries emptied.
local function window_skip(w)
  local head, keys = w.head, w.keys
  while head <= w.tail and keys[window_slot(head)] == nil do head = head + 1 end
  w.head = head
end

-- The kept entries one after the other again from serial 1, when emptied slots would make the
-- next add wrap onto a kept one (at most once every ANALYSIS_WINDOW adds).
local function window_pack(w)
  local keys, frames, times, n = {}, {}, {}, 0
  for serial = w.head, w.tail do
    local slot = window_slot(serial)
    local k = w.keys[slot]
    if k ~= nil then
      n = n + 1
      keys[n], frames[n], times[n] = k, w.frames[slot], w.times[slot]
      w.at[k] = n
    end
  end
  w.keys, w.frames, w.times, w.head, w.tail = keys, frames, times, 1, n
end

-- Adds `key` with its frame and time (a key kept already keeps its place and takes them).
-- Returns true when the oldest entry was forgotten to make room.
local function window_add(w, key, frame, time)
  local serial = w.at[key]
  if serial ~= nil then
    local slot = (serial - 1) % WINDOW_SLOTS + 1
    w.frames[slot], w.times[slot] = frame, time
    return false
  end
  if w.count < w.tail - w.head + 1 then window_skip(w) end
  if w.tail - w.head + 1 >= WINDOW_SLOTS then window_pack(w) end
  serial = w.tail + 1
  local slot = (serial - 1) % WINDOW_SLOTS + 1
  w.at[key], w.keys[slot], w.frames[slot], w.times[slot] = serial, key, frame, time
  w.tail, w.count = serial, w.count + 1
  if w.count <= ANALYSIS_WINDOW then return false end
  window_skip(w)
  window_take(w, w.keys[(w.head - 1) % WINDOW_SLOTS + 1])
  return true
end

local function new_analysis()
  -- Pings by id per direction: the frame and time of each, and the order they came in (a ring
  -- of ANALYSIS_WINDOW + 1 ids, an id answered and sent again in it twice, as the crate does).
  local st = { channels = {}, pings = { {}, {} }, ping_at = { {}, {} },
    ping_order = { { head = 1, tail = 0 }, { head = 1, tail = 0 } }, forgotten = 0 }
  for c = 1, #WRAPS do
    st.channels[c] = {}
    for side = 1, 2 do
      -- `highest` is number * 65536 + part; `highest_n` its number. `waiting` holds the
      -- reliable sends not acked yet.
      st.channels[c][side] = { highest = nil, highest_n = nil, closed = true, seen = new_window(),
        waiting = new_window() }
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
  local first = window_get(d.seen, key)
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
  -- Places roll out of `seen` as the window slides; a send forgotten from `waiting` is one whose
  -- ack can no longer be linked, and counted.
  window_add(d.seen, key, frame, nil)
  if FACTS.seq_rel and window_add(d.waiting, key, frame, time) then
    st.forgotten = st.forgotten + 1
  end
end

-- Ack `i` of FACTS, of direction `side`'s sends.
local function analysis_ack(st, side, i, time, verdict)
  local wrap = WRAPS[FACTS.ack_ch[i] + 1]
  local d = st.channels[FACTS.ack_ch[i] + 1][side]
  if d.highest == nil then return end
  local number = analysis_unwrap(FACTS.ack_n[i] % wrap, d.highest_n, wrap)
  local w = d.waiting
  if not FACTS.ack_cum[i] then
    local frame, sent = window_take(w, number * 65536 + FACTS.ack_part[i])
    if frame ~= nil then
      local n = #verdict
      verdict[n + 1], verdict[n + 2] = frame, time - sent
    end
    return
  end
  -- Every send still waiting below the next number, in the order of their places.
  window_skip(w)
  local acked
  local limit, keys = (number + 1) * 65536, w.keys
  for serial = w.head, w.tail do
    local k = keys[window_slot(serial)]
    if k ~= nil and k < limit then
      acked = acked or {}
      acked[#acked + 1] = k
    end
  end
  if acked == nil then return end
  if #acked > 1 then table.sort(acked) end
  for j = 1, #acked do
    local frame, sent = window_take(w, acked[j])
    local n = #verdict
    verdict[n + 1], verdict[n + 2] = frame, time - sent
  end
end

local function analysis_ping(st, side, frame, time, verdict)
  local id = FACTS.ping_id
  local pings, ping_at = st.pings[side], st.ping_at[side]
  if FACTS.ping_reply then
    local asked, asked_at = st.pings[3 - side], st.ping_at[3 - side]
    local sent = asked[id]
    if sent ~= nil then
      verdict.ping_frame, verdict.ping_rtt = sent, time - asked_at[id]
      asked[id], asked_at[id] = nil, nil
    end
    return
  end
  -- The order is a ring of ids by serial (at most ANALYSIS_WINDOW + 1 of them at once).
  local order = st.ping_order[side]
  if pings[id] == nil then
    order.tail = order.tail + 1
    order[window_slot(order.tail)] = id
  end
  pings[id], ping_at[id] = frame, time
  while order.tail - order.head + 1 > ANALYSIS_WINDOW do
    local slot = window_slot(order.head)
    local old = order[slot]
    order[slot], order.head = nil, order.head + 1
    if pings[old] ~= nil then
      pings[old], ping_at[old] = nil, nil
      st.forgotten = st.forgotten + 1
    end
  end
end

-- The verdict of the datagram just dissected (nil when it says nothing): computed on the first
-- pass from FACTS, kept by frame and message; later passes read the kept one.
local function analysis_verdict(pinfo, root)
  ANALYSIS_INDEX = ANALYSIS_INDEX + 1
  -- A message that tells the analysis nothing has no verdict on any pass (the facts are read
  -- again each time): no pinfo field asked for it.
  if not FACTS.seq and FACTS.nacks == 0 and not FACTS.ping then return nil end
  local frame = pinfo.number
  if pinfo.visited then return kept_verdicts(frame, ANALYSIS_INDEX)[1] end
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
  local forgotten = st.forgotten
  if FACTS.seq then analysis_numbered(st, side, frame, time, verdict) end
  for i = 1, FACTS.nacks do analysis_ack(st, 3 - side, i, time, verdict) end
  if FACTS.ping then analysis_ping(st, side, frame, time, verdict) end
  -- This datagram made a window forget a send or a ping: the conversation's count so far.
  if st.forgotten > forgotten then verdict.forgotten = st.forgotten end
  -- (before_first comes with out_of_order, retransmission with repeat_of, ping_rtt with ping_frame)
  if #verdict == 0 and verdict.lost == nil and verdict.repeat_of == nil and not verdict.out_of_order
      and verdict.ping_frame == nil and verdict.forgotten == nil then
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
local function show_analysis(verdict, root)
  if verdict == nil then return "" end
  -- With no tree the items are skipped, not only their adds: no range made for them.
  -- (No range given: Wireshark places it at the start of the packet, length 0.)
  local sub = HAS_TREE and root:add(A.analysis) or root
  if VISIBLE then sub:set_generated() end
  local info = nil
  if verdict.lost ~= nil then
    add_generated(sub, A.lost, verdict.lost)
    sub:add_proto_expert_info(E.lost, fmt("%d datagram(s) before this one not seen (lost, or yet to come)", verdict.lost))
    info = { fmt("LOST %d", verdict.lost) }
  end
  if verdict.repeat_of ~= nil then
    if verdict.retransmission then
      add_generated(sub, A.retransmission_of, verdict.repeat_of)
      sub:add_proto_expert_info(E.retransmission, fmt("Retransmission of frame %d", verdict.repeat_of))
      info = info or {}
      info[#info + 1] = "RETRANSMISSION"
    else
      add_generated(sub, A.duplicate_of, verdict.repeat_of)
      sub:add_proto_expert_info(E.duplicate, fmt("Duplicate of frame %d", verdict.repeat_of))
      info = info or {}
      info[#info + 1] = "DUPLICATE"
    end
  end
  if verdict.out_of_order then
    add_generated(sub, A.out_of_order, true)
    sub:add_proto_expert_info(E.out_of_order, "Out of order: a later datagram came first")
    info = info or {}
    info[#info + 1] = "OUT OF ORDER"
  end
  if HAS_TREE then
    for i = 1, #verdict, 2 do
      add_generated(sub, A.acks_frame, verdict[i])
      add_generated(sub, A.ack_rtt, verdict[i + 1] * 1000)
    end
  end
  if HAS_TREE and verdict.ping_frame ~= nil then
    add_generated(sub, A.ping_frame, verdict.ping_frame)
    add_generated(sub, A.ping_rtt, verdict.ping_rtt * 1000)
  end
  if verdict.forgotten ~= nil then
    sub:add_proto_expert_info(E.forgotten, fmt(
      "Past the analysis window (%d per channel and direction) the oldest send or ping waiting is forgotten: an ack or answer of it is not linked; %d forgotten in this conversation so far",
      ANALYSIS_WINDOW, verdict.forgotten))
  end
  if info == nil then return "" end
  if VISIBLE then sub:append_text(": " .. table.concat(info, ", ")) end
  return "[" .. table.concat(info, "] [") .. "] "
end

-- The message just dissected, analysed and shown: what dissect_protected calls, protected (a
-- function of its own, not a closure made per message).
local function analysis_step(tvb, pinfo, root)
  return show_analysis(analysis_verdict(pinfo, root), root)
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
