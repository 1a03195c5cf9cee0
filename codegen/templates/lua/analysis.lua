{# Netcode analysis: the runtime's analysis::Analyzer in Lua, over the facts the types the schema's `reliability` names add. Included by dissector.lua. #}
{%- if let Some(a) = analysis %}

-- Netcode analysis, as tcp.analysis does it for TCP (the crate's wiregen_runtime::analysis,
-- line for line): the first pass reads each datagram's sequence number, acks and ping id in
-- capture order and keeps its verdict by frame; later passes and clicks show the kept verdict.
-- Numbers unwrap to the nearest of the last one's wraps; keys are number * 65536 + part.
proto.prefs.analyze = Pref.bool("Analyze sequence numbers, acks and pings", true,
  "Mark lost, duplicate, retransmitted and out-of-order datagrams and link acks and pings to what they answer (the {{ name }}.analysis.* fields)")
local ANALYSIS_WINDOW = 4096
local MAX_ANALYSED = 65536
local WRAPS = { {{ a.wraps }} }
local analysed = bounded(MAX_ANALYSED)
local frame_verdicts = {}
local ANALYSIS_INDEX = 0

local function analysis_unwrap(raw, near, wrap)
  local base = near - near % wrap
  local best = nil
  for _, b in ipairs({ base - wrap, base, base + wrap }) do
    local c = b + raw
    if c >= 0 and (best == nil or math.abs(c - near) < math.abs(best - near)) then best = c end
  end
  return best
end

-- A window of places: past ANALYSIS_WINDOW the oldest added goes, counted.
local function window_add(w, key, value, st)
  bounded_set(w, key, value)
  if w.count > ANALYSIS_WINDOW then
    bounded_evict(w)
    st.forgotten = st.forgotten + 1
  end
end

local function new_analysis()
  local st = { channels = {}, pings = { {}, {} }, ping_order = { {}, {} }, forgotten = 0 }
  for c = 1, #WRAPS do
    st.channels[c] = {}
    for side = 1, 2 do
      st.channels[c][side] = { highest = nil, closed = true, seen = bounded(ANALYSIS_WINDOW), waiting = bounded(ANALYSIS_WINDOW) }
    end
  end
  return st
end

local function analysis_numbered(st, side, f, frame, time, verdict)
  local wrap = WRAPS[f[1] + 1]
  local d = st.channels[f[1] + 1][side]
  local number
  if d.highest == nil then
    number = f[2] % wrap + wrap
  else
    number = analysis_unwrap(f[2] % wrap, math.floor(d.highest / 65536), wrap)
  end
  local key = number * 65536 + f[3]
  local first = d.seen.map[key]
  if first ~= nil then
    verdict.repeat_of = first
    verdict.retransmission = f[4]
    return
  end
  if d.highest ~= nil then
    if key < d.highest then
      verdict.out_of_order = true
    else
      local h, hp = math.floor(d.highest / 65536), d.highest % 65536
      if number == h then
        verdict.lost = f[3] - hp - 1
      else
        verdict.lost = (d.closed and 0 or 1) + (number - h - 1) + f[3]
      end
    end
  end
  if d.highest == nil or key > d.highest then
    d.highest, d.closed = key, f[5]
  end
  window_add(d.seen, key, frame, st)
  if f[4] then window_add(d.waiting, key, { frame, time }, st) end
end

local function analysis_ack(st, side, f, time, verdict)
  local wrap = WRAPS[f[1] + 1]
  local d = st.channels[f[1] + 1][side]
  if d.highest == nil then return end
  local number = analysis_unwrap(f[2] % wrap, math.floor(d.highest / 65536), wrap)
  local keys = {}
  local w = d.waiting
  if f[4] then
    -- Acked sends leave their queue slots behind: skip those at the front first, so a
    -- cumulative ack reads only the sends still waiting.
    while w.head <= w.tail and (w.queue[w.head] == nil or w.pos[w.queue[w.head]] ~= w.head) do
      w.queue[w.head] = nil
      w.head = w.head + 1
    end
    for i = w.head, w.tail do
      local k = w.queue[i]
      if k ~= nil and w.pos[k] == i and k < (number + 1) * 65536 then keys[#keys + 1] = k end
    end
    table.sort(keys)
  elseif d.waiting.map[number * 65536 + f[3]] ~= nil then
    keys[1] = number * 65536 + f[3]
  end
  for _, k in ipairs(keys) do
    local sent = w.map[k]
    bounded_remove(w, k)
    verdict.acked[#verdict.acked + 1] = { sent[1], time - sent[2] }
  end
end

local function analysis_ping(st, side, f, frame, time, verdict)
  if f[2] then
    local sent = st.pings[3 - side][f[1]]
    if sent ~= nil then
      st.pings[3 - side][f[1]] = nil
      verdict.ping = { sent[1], time - sent[2] }
    end
    return
  end
  local order = st.ping_order[side]
  if st.pings[side][f[1]] == nil then order[#order + 1] = f[1] end
  st.pings[side][f[1]] = { frame, time }
  while #order > ANALYSIS_WINDOW do
    local old = table.remove(order, 1)
    if st.pings[side][old] ~= nil then
      st.pings[side][old] = nil
      st.forgotten = st.forgotten + 1
    end
  end
end

-- The verdict of the datagram just dissected: computed on the first pass, kept by frame (and
-- message, for several in one TCP segment).
local function analysis_verdict(pinfo, root)
  local facts = FACTS
  FACTS = nil
  ANALYSIS_INDEX = ANALYSIS_INDEX + 1
  local kept = frame_verdicts[pinfo.number]
  if pinfo.visited then return kept and kept[ANALYSIS_INDEX] end
  if facts == nil or (facts.seq == nil and #facts.acks == 0 and facts.ping == nil) then return nil end
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
  local verdict = { lost = 0, acked = {} }
  if facts.seq ~= nil then analysis_numbered(st, side, facts.seq, pinfo.number, time, verdict) end
  for _, ack in ipairs(facts.acks) do analysis_ack(st, 3 - side, ack, time, verdict) end
  if facts.ping ~= nil then analysis_ping(st, side, facts.ping, pinfo.number, time, verdict) end
  if kept == nil then
    kept = {}
    frame_verdicts[pinfo.number] = kept
  end
  kept[ANALYSIS_INDEX] = verdict
  return verdict
end

-- The verdict under `root` as `{{ name }}.analysis.*` fields and expert info; returns the Info
-- column's prefix.
local function show_analysis(verdict, tvb, root)
  if verdict == nil then return "" end
  local t = root:add(A.analysis, tvb(0, 0))
  t:set_generated()
  local info = {}
  if verdict.lost > 0 then
    t:add(A.lost, verdict.lost):set_generated()
    t:add_proto_expert_info(E.lost, fmt("%d datagram(s) before this one not seen (lost, or yet to come)", verdict.lost))
    info[#info + 1] = fmt("LOST %d", verdict.lost)
  end
  if verdict.repeat_of ~= nil then
    if verdict.retransmission then
      t:add(A.retransmission_of, verdict.repeat_of):set_generated()
      t:add_proto_expert_info(E.retransmission, fmt("Retransmission of frame %d", verdict.repeat_of))
      info[#info + 1] = "RETRANSMISSION"
    else
      t:add(A.duplicate_of, verdict.repeat_of):set_generated()
      t:add_proto_expert_info(E.duplicate, fmt("Duplicate of frame %d", verdict.repeat_of))
      info[#info + 1] = "DUPLICATE"
    end
  end
  if verdict.out_of_order then
    t:add(A.out_of_order, true):set_generated()
    t:add_proto_expert_info(E.out_of_order, "Out of order: a later datagram came first")
    info[#info + 1] = "OUT OF ORDER"
  end
  for _, acked in ipairs(verdict.acked) do
    t:add(A.acks_frame, acked[1]):set_generated()
    t:add(A.ack_rtt, acked[2] * 1000):set_generated()
  end
  if verdict.ping ~= nil then
    t:add(A.ping_frame, verdict.ping[1]):set_generated()
    t:add(A.ping_rtt, verdict.ping[2] * 1000):set_generated()
  end
  if #info == 0 then return "" end
  t:append_text(": " .. table.concat(info, ", "))
  return "[" .. table.concat(info, "] [") .. "] "
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
      r = { datagrams = 0, skipped = 0, late = 0, dup = 0, retx = 0, rtt_n = 0, rtt_sum = 0, rtt_max = 0 }
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
    local conv, from = conversation_key(pinfo)
    local r = row(conv, from)
    r.datagrams = r.datagrams + 1
    for _, v in pairs(frame_verdicts[pinfo.number] or {}) do
      r.skipped = r.skipped + v.lost
      if v.out_of_order then r.late = r.late + 1 end
      if v.repeat_of ~= nil and v.retransmission then r.retx = r.retx + 1 end
      if v.repeat_of ~= nil and not v.retransmission then r.dup = r.dup + 1 end
      local sender = row(conv, from == "client" and "server" or "client")
      for _, a in ipairs(v.acked) do rtt(sender, a[2] * 1000) end
      if v.ping ~= nil then rtt(sender, v.ping[2] * 1000) end
    end
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
        math.max(r.skipped - r.late, 0), r.dup, r.retx, r.late, r.rtt_n, times)
    end
    return table.concat(lines, "\n")
  end
  return tap, text
end

register_stat_cmd_arg("{{ name }},stats", function()
  local tap, text = analysis_stats()
  function tap.draw() print(text()) end
end)
if gui_enabled() then
  register_menu("wiregen/{{ title }} netcode analysis", function()
    local window = TextWindow.new("{{ title }} netcode analysis")
    local tap, text = analysis_stats()
    function tap.draw() window:set(text()) end
    window:set_atclose(function() tap:remove() end)
    retap_packets()
  end, MENU_STAT_UNSORTED)
end
{%- endif %}
