{# Conversation keys, bounded insertion-ordered tables that evict, and conversation state lists. Included by dissector.lua. #}
{%- if conversations %}

-- A conversation's key (client endpoint > server endpoint) and the side that sent from `src`;
-- the server is the side on the UDP ports preference. (One string.format instead of six
-- concatenations, two of them of numbers.)
local function endpoints_key(src, src_port, dst, dst_port)
  if is_server_port(dst_port) then
    return string.format("%s:%d>%s:%d", tostring(src), src_port, tostring(dst), dst_port), "client"
  end
  return string.format("%s:%d>%s:%d", tostring(dst), dst_port, tostring(src), src_port), "server"
end

-- The key and side of this frame's conversation. (Each `pinfo` field is a C call, asked once.)
local function conversation_key_of(pinfo)
  return endpoints_key(pinfo.src, pinfo.src_port, pinfo.dst, pinfo.dst_port)
end

-- The keys made last, by their ports (a slot per ports % KEY_SLOTS, the newest in it): a
-- datagram of a conversation met before finds its key by comparing two addresses, where making
-- it again is two addresses made text and a string built and hashed. A cache, not state: a key
-- pushed out is made again when next asked.
local KEY_SLOTS = 64
local key_slots = {}
local function cached_conversation_key(pinfo)
  local src, src_port, dst, dst_port = pinfo.src, pinfo.src_port, pinfo.dst, pinfo.dst_port
  local slot = (src_port * 65536 + dst_port) % KEY_SLOTS + 1
  local c = key_slots[slot]
  if c ~= nil and c.src_port == src_port and c.dst_port == dst_port and c.src == src and c.dst == dst then
    return c.key, c.side
  end
  local key, side = endpoints_key(src, src_port, dst, dst_port)
  key_slots[slot] = { src = src, src_port = src_port, dst = dst, dst_port = dst_port, key = key, side = side }
  return key, side
end

-- The key and side of the message being dissected: worked out once per message (its joins,
-- state and analysis all ask; each asking built it from two addresses), forgotten when the next
-- message starts (dissect_protected).
local CONVERSATION, CONVERSATION_SIDE = nil, nil
local function conversation_key(pinfo)
  if CONVERSATION == nil then CONVERSATION, CONVERSATION_SIDE = cached_conversation_key(pinfo) end
  return CONVERSATION, CONVERSATION_SIDE
end
{%- endif %}
{%- if conversations || tcp_framing.is_some() %}

-- A table that grows with the capture, bounded: entries keep their insertion order, and the
-- caller evicts the oldest (and says so) instead of refusing new ones. `pos[k]` is k's place in
-- the queue, so a key removed and added again is not taken for its older self.
local function bounded(limit)
  return { map = {}, pos = {}, queue = {}, head = 1, tail = 0, count = 0, limit = limit, evicted = 0 }
end

local function bounded_remove(b, k)
  if b.map[k] ~= nil then
    b.map[k] = nil
    b.pos[k] = nil
    b.count = b.count - 1
  end
end

-- The oldest key whose value `skip` does not exclude (any key when `skip` is nil), or nil.
local function bounded_oldest(b, skip)
  for i = b.head, b.tail do
    local k = b.queue[i]
    if k ~= nil and b.pos[k] == i and (skip == nil or not skip(b.map[k])) then return k end
    if i == b.head then
      -- Slots of removed keys at the front are dropped as the queue moves on.
      if k == nil or b.pos[k] ~= i then
        b.queue[i] = nil
        b.head = i + 1
      end
    end
  end
  return nil
end

local function bounded_set(b, k, v)
  if b.map[k] == nil then
    b.count = b.count + 1
    b.tail = b.tail + 1
    b.queue[b.tail] = k
    b.pos[k] = b.tail
    if b.tail - b.head > 4 * b.limit + 64 then
      -- Mostly slots of removed keys: keep the live ones, in order.
      local queue, n = {}, 0
      for i = b.head, b.tail do
        local q = b.queue[i]
        if q ~= nil and b.pos[q] == i then
          n = n + 1
          queue[n] = q
          b.pos[q] = n
        end
      end
      b.queue, b.head, b.tail = queue, 1, n
    end
  end
  b.map[k] = v
end

-- Evicts the oldest entry (for which `skip` is false) and returns its key and value.
local function bounded_evict(b, skip)
  local k = bounded_oldest(b, skip)
  if k == nil then return nil end
  local v = b.map[k]
  bounded_remove(b, k)
  b.evicted = b.evicted + 1
  return k, v
end
{%- endif %}
{%- if state_tables > 0 %}

-- Conversation state: lists remembered by table, conversation and key (both sides read and
-- write the same lists: a DNP link announced by one side is updated by either), found through
-- `state_index[conv][t][key]`; `state_lists` holds them in the order they were announced, to
-- evict the oldest past MAX_KEYS. A frame keeps what it read by table and frame number
-- (computed when first dissected), so re-dissection, clicks and two-pass analysis (tshark -2)
-- show the same thing: `frame_key[t][frame]` is the first key the frame read and
-- `frame_list[t][frame]` its list (false: none), the frame's other keys of that table in
-- `frame_more[t][frame]` (a datagram of several messages). Two numbers in two arrays, not a table per frame: a capture's
-- worth of small tables is what every garbage collection walked, and the collections came
-- rarer as the capture went on, each message's garbage colder when swept.
local MAX_KEYS = 65536
local state_lists = bounded(MAX_KEYS)
local state_index = {}
local frame_key, frame_list, frame_more = {}, {}, {}
-- The list each table's reads use while a field with `state` is dissected.
local LISTS = {}
-- Set when a value without its list took the rest of the message as bytes.
local REST_TAKEN = false

-- `t[k]`, an empty table put there first when there is none.
local function subtable(t, k)
  local s = t[k]
  if s == nil then
    s = {}
    t[k] = s
  end
  return s
end

local function state_get(pinfo, t, key)
  if key == nil then return nil end
  local frame = pinfo.number
  local keys, lists = subtable(frame_key, t), subtable(frame_list, t)
  local first = keys[frame]
  if first == key then return lists[frame] or nil end
  local more = first ~= nil and subtable(subtable(frame_more, t), frame) or nil
  local got = more and more[key]
  if got == nil then
    local of_conv = state_index[conversation_key(pinfo)]
    local of_table = of_conv and of_conv[t]
    got = of_table and of_table[key] or false
    if more == nil then
      keys[frame], lists[frame] = key, got
    else
      more[key] = got
    end
  end
  return got or nil
end

local function state_set(pinfo, tree, t, key, list)
  if pinfo.visited or key == nil then return end
  local conv = conversation_key(pinfo)
  subtable(subtable(state_index, conv), t)[key] = list
  bounded_set(state_lists, conv .. "|" .. t .. "|" .. tostring(key), { conv, t, key })
  if state_lists.count > MAX_KEYS then
    local evicted, where = bounded_evict(state_lists)
    state_index[where[1]][where[2]][where[3]] = nil
    tree:add_proto_expert_info(E.evicted, fmt(
      "%d lists remembered: the oldest (%s) is forgotten; %d forgotten so far", MAX_KEYS, evicted, state_lists.evicted))
  end
end

-- Item `i` (from 0) of the list selected for table `t`, or nil.
local function list_item(t, i)
  local list = LISTS[t]
  if list == nil then return nil end
  return list[i + 1]
end
{%- endif %}
