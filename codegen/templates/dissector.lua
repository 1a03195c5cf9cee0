{{ header }}--
-- {{ title }} dissector for Wireshark 4.0+ (Lua 5.2 to 5.4).
{%- for line in doc_lines %}
-- {{ line }}
{%- endfor %}
--
-- Load it with `tshark -X lua_script:{{ path }}` or `wireshark -X lua_script:{{ path }}`, or
-- install it into Wireshark's personal Lua plugins folder with `wiregen install`.
-- Every field is filterable under `{{ name }}.`; problems are reported as expert info
-- (`{{ name }}.expert.*`), never as Lua errors.

-- A table every generated dissector shares (a global, made by the first one loaded).
local function shared_table(name)
  local t = rawget(_G, name)
  if t == nil then
    t = {}
    rawset(_G, name, t)
  end
  return t
end

-- Loaded twice (installed as a plugin and also given with `-X lua_script:`)? Then the first copy
-- stays and this one says so, instead of failing in Proto() with a duplicate-protocol error.
do
  local this_file = debug and debug.getinfo and debug.getinfo(1, "S").source or "?"
  this_file = string.gsub(this_file, "^@", "")
  local loaded = shared_table("wiregen_loaded")
  if loaded["{{ name }}"] ~= nil then
    local message = "wiregen: the {{ name }} dissector is loaded twice: " .. loaded["{{ name }}"]
      .. " and " .. this_file .. "; keeping the first (remove one copy)"
    if report_failure then report_failure(message) else io.stderr:write(message .. "\n") end
    return
  end
  loaded["{{ name }}"] = this_file
end

-- A name or title another dissector has (one built into Wireshark, such as "presence") cannot
-- be registered: say which and stop, instead of a bare Proto_new error.
local registered, proto = pcall(Proto, "{{ name }}", "{{ title }}")
if not registered then
  local message = "wiregen: the {{ name }} dissector cannot register (" .. tostring(proto)
    .. "): another dissector, perhaps one built into Wireshark, has this name or title; rename"
    .. " the schema's protocol"
  if report_failure then report_failure(message) else io.stderr:write(message .. "\n") end
  return
end

-- Methods of tree items and byte ranges, called as functions (`tree_add(tree, …)` for
-- `tree:add(…)`): a method call looks the method up through Wireshark's __index, a C function,
-- every time; these look each up once, here.
{{ method_locals }}

-- Wireshark builds no tree when nothing shows or filters the packet (tshark's summary without a
-- filter); an add then keeps nothing, yet costs a C call and a TreeItem, a userdata the
-- collector has to finalise: a fifth of what a DNP message cost. Per packet the adds are
-- Wireshark's, or `add_nothing`, which hands back the tree it was given so that expert info
-- still reaches the packet (as a C dissector skips its tree code when `tree` is NULL). Only a
-- root that says exactly that it has neither item nor subtree takes the short way (HAS_TREE
-- false), so a Wireshark that words it otherwise only loses the saving. A shown tree
-- (TREE_SHOWN: `-V`, a packet Wireshark displays) is one without asking that: whether a tree is
-- shown is a C call that answers a boolean, where the root as text is a string formatted and
-- made (some 5,000 instructions a packet).
local TREE_ADDS = { tree_add, tree_add_le, tree_add_packet_field }
local HAS_TREE, TREE_SHOWN = true, true
local NO_TREE = "TreeItem: expired=false, has item=false, has subtree=false, they are the same"
local function add_nothing(tree) return tree end
local function choose_tree_adds(tree)
  TREE_SHOWN = tree.visible
  HAS_TREE = TREE_SHOWN or tostring(tree) ~= NO_TREE
  if not HAS_TREE then
    tree_add, tree_add_le, tree_add_packet_field = add_nothing, add_nothing, add_nothing
  else
    tree_add, tree_add_le, tree_add_packet_field = TREE_ADDS[1], TREE_ADDS[2], TREE_ADDS[3]
  end
end

-- Portable arithmetic: no bit32, no `//`, no native bit operators, so one file runs on Lua 5.2
-- (Wireshark 4.0) and Lua 5.4 alike.
local floor = math.floor

local function idiv(a, b)
  if b == 0 then return 0 end
  local q = a / b
  if q < 0 then return -floor(-q) end
  return floor(q)
end

-- `c ? a : b` of the schema's expressions (both already evaluated).
local function pick(c, a, b)
  if c then return a end
  return b
end

local function irem(a, b)
  if b == 0 then return 0 end
  return a - idiv(a, b) * b
end

-- IEEE binary16 bits to a number (Wireshark has no half-float field type).
-- The sign is a float so that -0 stays -0 under Lua 5.4's integer arithmetic (-1 * 0 is 0).
local function f16_from_bits(h)
  local sign = 1.0
  if h >= 32768 then sign, h = -1.0, h - 32768 end
  local e, m = floor(h / 1024), h % 1024
  if e == 31 then
    if m == 0 then return sign * math.huge end
    return 0 / 0
  end
  if e == 0 then return sign * m * 2 ^ -24 end
  return sign * (1 + m / 1024) * 2 ^ (e - 15)
end

-- An integer for the Info column: in full on every Lua (5.3+ prints a float-held 7 as "7.0"),
-- a UInt64 or Int64 as itself.
local function int_text(v)
  if type(v) == "number" then return string.format("%.0f", v) end
  return tostring(v)
end

-- Truth of the bit `mask` (a power of two) in `v`.
local function has_bit(v, mask)
  return floor(v / mask) % 2 == 1
end

-- Whether `port` is in a range preference such as "8080,9000-9010".
local server_port_ranges = {}
local function parse_ranges(text)
  local out = {}
  for part in string.gmatch(tostring(text), "[^,]+") do
    local lo, hi = string.match(part, "^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if lo == nil then
      lo = string.match(part, "^%s*(%d+)%s*$")
      hi = lo
    end
    if lo ~= nil then out[#out + 1] = { tonumber(lo), tonumber(hi) } end
  end
  return out
end

local function is_server_port(port)
  for i = 1, #server_port_ranges do
    local r = server_port_ranges[i]
    if port >= r[1] and port <= r[2] then return true end
  end
  return false
end

-- Whether this frame was sent by the client: to one of the server's ports (`@from_client`).
local function from_client(pinfo)
  return is_server_port(pinfo.dst_port)
end
{%- if enclosing %}

-- Fields of enclosing values the types inside read (`Header.channel`), by slot: set by the
-- holder when it reads the field, before any value inside it.
local ENCLOSING = {}
{%- endif %}
{%- include "lua/bit_streams.lua" %}
{%- include "lua/checksums.lua" %}

-- Value strings: by enum (`VS.<Enum>`, and `RS.<Enum>` for one with named ranges) and by
-- switch (`VS.CASE_<Type>_<switch>`).
local VS = {}
local RS = {}
{%- for vs in value_strings %}
{% if !vs.var.contains(".") %}local {% endif %}{{ vs.var }} = {
{%- for (value, label) in vs.entries %}
  [{{ value }}] = "{{ label }}",
{%- endfor %}
}
{%- if !vs.ranges.is_empty() %}
-- Every name as a range, for the field's display; values of a named range are looked up there.
R{{ vs.var[1..] }} = {
{%- for (lo, hi, label) in vs.ranges %}
  { {{ lo }}, {{ hi }}, "{{ label }}" },
{%- endfor %}
}
setmetatable({{ vs.var }}, { __index = function(_, v)
  if type(v) ~= "number" then return nil end
  for _, r in ipairs(R{{ vs.var[1..] }}) do
    if v >= r[1] and v <= r[2] then return r[3] end
  end
  return nil
end })
{%- endif %}
{%- endfor %}

-- Fields, by filter name; each is registered in the order it is declared here.
local field_list = {}
local F = setmetatable({}, { __newindex = function(t, abbrev, field)
  rawset(t, abbrev, field)
  field_list[#field_list + 1] = field
end })
{%- for f in fields %}
F["{{ f.abbrev }}"] = {{ f.ctor }}
{%- endfor %}
{%- if analysis.is_some() %}

-- The netcode analysis's fields (computed, like tcp.analysis: not on the wire).
local A = {
  analysis = ProtoField.none("{{ name }}.analysis", "Netcode analysis"),
  lost = ProtoField.uint32("{{ name }}.analysis.lost", "Datagrams not seen before this one"),
  duplicate_of = ProtoField.framenum("{{ name }}.analysis.duplicate_of", "Duplicate of frame"),
  retransmission_of = ProtoField.framenum("{{ name }}.analysis.retransmission_of", "Retransmission of frame"),
  out_of_order = ProtoField.bool("{{ name }}.analysis.out_of_order", "Out of order"),
  acks_frame = ProtoField.framenum("{{ name }}.analysis.acks_frame", "Acknowledges frame"),
  ack_rtt = ProtoField.double("{{ name }}.analysis.ack_rtt", "Round trip from that frame (ms)"),
  ping_frame = ProtoField.framenum("{{ name }}.analysis.ping_frame", "Answers the ping of frame"),
  ping_rtt = ProtoField.double("{{ name }}.analysis.ping_rtt", "Ping round trip (ms)"),
}
{%- endif %}
{%- if analysis.is_some() %}
for _, name in ipairs({ "analysis", "lost", "duplicate_of", "retransmission_of", "out_of_order",
    "acks_frame", "ack_rtt", "ping_frame", "ping_rtt" }) do
  field_list[#field_list + 1] = A[name]
end
{%- endif %}
proto.fields = field_list

-- Expert info.
local E = {
  truncated = ProtoExpert.new("{{ name }}.expert.truncated", "Truncated field", expert.group.MALFORMED, expert.severity.ERROR),
  length = ProtoExpert.new("{{ name }}.expert.length_mismatch", "Length mismatch", expert.group.MALFORMED, expert.severity.ERROR),
  trailing = ProtoExpert.new("{{ name }}.expert.trailing", "Unexpected trailing bytes", expert.group.MALFORMED, expert.severity.WARN),
  bad_const = ProtoExpert.new("{{ name }}.expert.bad_const", "Wrong constant (magic number)", expert.group.MALFORMED, expert.severity.ERROR),
  bad_checksum = ProtoExpert.new("{{ name }}.expert.bad_checksum", "Bad checksum", expert.group.CHECKSUM, expert.severity.ERROR),
  too_large = ProtoExpert.new("{{ name }}.expert.too_large", "Value above the allowed maximum", expert.group.PROTOCOL, expert.severity.WARN),
  unknown = ProtoExpert.new("{{ name }}.expert.unknown_value", "Value the schema does not name", expert.group.UNDECODED, expert.severity.NOTE),
  invalid = ProtoExpert.new("{{ name }}.expert.invalid_value", "Value the schema does not allow", expert.group.MALFORMED, expert.severity.ERROR),
  internal = ProtoExpert.new("{{ name }}.expert.internal", "Dissector could not finish", expert.group.MALFORMED, expert.severity.ERROR),
  quirk = ProtoExpert.new("{{ name }}.expert.quirk", "Known implementation quirk", expert.group.PROTOCOL, expert.severity.WARN),
  no_state = ProtoExpert.new("{{ name }}.expert.no_state", "Needs an earlier message of the conversation", expert.group.SEQUENCE, expert.severity.NOTE),
  joined = ProtoExpert.new("{{ name }}.expert.joined", "Parts joined", expert.group.REASSEMBLE, expert.severity.CHAT),
  reassembly = ProtoExpert.new("{{ name }}.expert.reassembly", "Pieces that cannot be joined", expert.group.REASSEMBLE, expert.severity.WARN),
  evicted = ProtoExpert.new("{{ name }}.expert.evicted", "Oldest entry of a full table evicted", expert.group.SEQUENCE, expert.severity.WARN),
{%- if has_joins || reassembly.is_some() %}
  rejoined = ProtoExpert.new("{{ name }}.expert.rejoined", "Part of a payload joined already (a retransmission)", expert.group.SEQUENCE, expert.severity.NOTE),
{%- endif %}
{%- if compression %}
  compressed = ProtoExpert.new("{{ name }}.expert.compressed", "Compressed data that does not decompress", expert.group.MALFORMED, expert.severity.ERROR),
{%- endif %}
{%- if analysis.is_some() %}
  lost = ProtoExpert.new("{{ name }}.analysis.lost_datagrams", "Datagrams not seen (lost, or yet to come)", expert.group.SEQUENCE, expert.severity.WARN),
  duplicate = ProtoExpert.new("{{ name }}.analysis.duplicate", "Duplicate datagram", expert.group.SEQUENCE, expert.severity.NOTE),
  retransmission = ProtoExpert.new("{{ name }}.analysis.retransmission", "Retransmission", expert.group.SEQUENCE, expert.severity.NOTE),
  out_of_order = ProtoExpert.new("{{ name }}.analysis.out_of_order_datagram", "Out-of-order datagram", expert.group.SEQUENCE, expert.severity.WARN),
  forgotten = ProtoExpert.new("{{ name }}.analysis.forgotten", "Send or ping forgotten unanswered (past the analysis window)", expert.group.SEQUENCE, expert.severity.NOTE),
{%- endif %}
{%- if tcp_framing.is_some() %}
  tcp = ProtoExpert.new("{{ name }}.expert.tcp_stream", "TCP stream cannot be read whole", expert.group.REASSEMBLE, expert.severity.WARN),
{%- endif %}
}
proto.experts = { E.truncated, E.length, E.trailing, E.bad_const, E.bad_checksum, E.too_large, E.unknown, E.invalid, E.internal, E.quirk, E.no_state, E.joined, E.reassembly, E.evicted{% if has_joins || reassembly.is_some() %}, E.rejoined{% endif %}{% if analysis.is_some() %}, E.lost, E.duplicate, E.retransmission, E.out_of_order, E.forgotten{% endif %}{% if compression %}, E.compressed{% endif %}{% if tcp_framing.is_some() %}, E.tcp{% endif %} }
{%- include "lua/helpers.lua" %}
{%- include "lua/conversations.lua" %}
{%- if has_joins %}

-- Set by a joined payload, appended to the Info column.
local INFO_SUFFIX = ""

-- A part that came again after its payload was joined (its sender retransmitted it): shown as
-- such, and the start of no second payload.
local function join_retransmitted(tree, seq)
  tree:add_proto_expert_info(E.rejoined, fmt("part %s came again after its payload was joined: a retransmission", tostring(seq)))
end
{%- endif %}
{%- if !joins.is_empty() %}

-- Payloads of one join waiting for parts at once (by conversation, direction and key), as the
-- crate's joiner holds at most 4096 parts: past it the oldest is forgotten, and said.
local JOIN_WAITING = 4096

-- Keeps what `frame`'s part `done` made on the first pass (a joined payload, or false for a
-- part sent again) in `joins`, a table per frame that made one.
local function frame_joined(joins, frame, done, what)
  local of_frame = joins[frame]
  if of_frame == nil then
    of_frame = {}
    joins[frame] = of_frame
  end
  of_frame[done] = what
end

-- A number for each key of a join (conversation, direction and the part's own keys), which with
-- a part's number places it among the parts joined last (`join_done_<k>`): a Lua number, or
-- short text for numbers past 16 bits. Text made of the whole key and the number, the key once,
-- hashed badly: Lua 5.2 hashes a string of 32 characters or more by every other character, the
-- parts of a long payload shared a few hash chains whose entries were compared byte by byte,
-- and the dissector slowed as the capture went on. Numbers are not reused; at most JOIN_KEYS
-- keys keep theirs, past it the oldest is forgotten, and said (a part of its payloads sent
-- again is then taken for the first part of a new one).
local JOIN_KEYS = 65536
local function key_numbers()
  local numbers = bounded(JOIN_KEYS)
  numbers.last = 0
  return numbers
end

local function key_number(numbers, key, tree)
  local n = numbers.map[key]
  if n == nil then
    n = numbers.last + 1
    numbers.last = n
    bounded_set(numbers, key, n)
    if numbers.count > JOIN_KEYS then
      local evicted = bounded_evict(numbers)
      tree:add_proto_expert_info(E.evicted, fmt("%d join keys numbered: the oldest (%s) is forgotten; %d forgotten so far", JOIN_KEYS, evicted, numbers.evicted))
    end
  end
  return n
end
{%- endif %}
{%- if has_info_tail %}

-- The summaries (info:) of the types read in this message, in order, for the Info column.
local INFO_TAIL = ""
{%- endif %}
{%- if checks_visible %}

-- Whether this message's tree is shown (tshark -V or -T fields, the packet Wireshark displays).
-- When it is not, arrays, elements and cases get no subtree of their label: their fields go
-- under the parent, where Wireshark would put them anyway (it fakes items nobody sees), and
-- the C calls of making, sizing and marking them are saved.
local VISIBLE = true
{%- endif %}
{%- if app_points %}

-- Application dissectors (a game's messages) register in this table by message id; a payload
-- whose id has one is shown by it, inside this tree. It learns where the payload starts from
-- pinfo.private: "wiregen.id", "wiregen.bit" (first bit in the first byte) and "wiregen.bits".
local APPS = DissectorTable.new("{{ name }}.message_id", "{{ title }} message id", ftypes.UINT32, base.DEC, proto)

-- Whether this message handed a payload to one (only then is pinfo.private read back).
local APP_TRIED = false

local function app_try(sub, pinfo, tree, id, bit, bits)
  -- The application dissector names its message here.
  pinfo.private["wiregen.info"] = ""
  APP_TRIED = true
  pinfo.private["wiregen.id"] = tostring(id)
  pinfo.private["wiregen.bit"] = tostring(bit)
  pinfo.private["wiregen.bits"] = tostring(bits)
  APPS:try(id, sub, pinfo, tree)
end

-- A payload from bit `first` to bit `last` of `tvb` (byte layouts pass byte offsets times 8):
-- handed over as the bytes it touches, with the bit it starts at.
local function app_payload(tvb, pinfo, tree, id, first, last)
  if id == nil or id > 4294967295 or APPS:get_dissector(id) == nil then return end
  local from = floor(first / 8)
  local to = ceil8(last)
  if to > from then
    app_try(tvb(from, to - from):tvb(), pinfo, tree, id, first - 8 * from, last - first)
  else
    app_try(tvb, pinfo, tree, id, 0, 0)
  end
end
{%- endif %}
{%- if has_checksums %}

-- Set when a checksum is wrong: the Info column says so.
local BAD_CHECKSUM = false
{%- endif %}
{%- if !partial_info.is_empty() %}

-- The root's values as far as they were read (the Info column of a malformed message).
local ROOT_VALUES = {}
{%- endif %}

{%- if analysis.is_some() %}

-- What the datagram being dissected tells the netcode analysis, set by the types that carry it
-- (one table, emptied per message: its own number, the acks as parallel lists, a ping id).
local FACTS = { seq = false, nacks = 0, ack_ch = {}, ack_n = {}, ack_part = {}, ack_cum = {}, ping = false }

local function fact_numbered(channel, number, part, reliable, last)
  FACTS.seq, FACTS.seq_ch, FACTS.seq_n, FACTS.seq_part = true, channel, number, part
  FACTS.seq_rel, FACTS.seq_last = reliable, last
end

local function fact_ack(channel, number, part, cumulative)
  local i = FACTS.nacks + 1
  FACTS.nacks = i
  FACTS.ack_ch[i], FACTS.ack_n[i], FACTS.ack_part[i], FACTS.ack_cum[i] = channel, number, part, cumulative
end

-- Bit k of `bits` acks `number - 1 - k`.
local function ack_bits(channel, number, bits, width, wrap)
  for k = 0, width - 1 do
    if math.floor(bits / 2 ^ k) % 2 == 1 then
      fact_ack(channel, (number % wrap + wrap - (k + 1) % wrap) % wrap, 0, false)
    end
  end
end

local function fact_ping(id, reply)
  FACTS.ping, FACTS.ping_id, FACTS.ping_reply = true, id, reply
end
{%- endif %}

-- One function per type: dissect.<Type>(tvb, pinfo, tree, offset, limit) adds a value read at
-- `offset` (not past `limit`) to `tree`, and returns the offset after it and its fields, or nil
-- after reporting a problem (an expert item) on what it could read. (In a table: Lua allows a
-- chunk 200 locals, and a protocol may well have more types.)
local dissect = {}
-- Each switch's case table (`CASES.<Type>_<switch>`: tag to name and function), by the
-- function that reads it.
local CASES = {}
{% for s in structs %}
{{ s }}
{%- endfor %}


{%- include "lua/field_stats.lua" %}

{%- include "lua/analysis.lua" %}

{%- include "lua/openings.lua" %}

{%- include "lua/reassembly.lua" %}

{%- if conversations %}

-- A new capture (or a reload) starts with no conversation state.
function proto.init()
{%- if conversations %}
  key_slots = {}
{%- endif %}
{%- if !opening_client.is_empty() || !opening_server.is_empty() %}
  conversation_counts = {}
  frame_steps = {}
{%- endif %}
{%- if reassembly.is_some() %}
  pieces = bounded(MAX_PENDING)
  conversation_pending = {}
  frame_wholes = {}
  joined_pieces = bounded(JOINED_PIECES)
  frame_rejoined = {}
{%- endif %}
{%- if state_tables > 0 %}
  state_lists = bounded(MAX_KEYS)
  state_index = {}
  frame_key, frame_list, frame_more = {}, {}, {}
{%- endif %}
{%- for j in joins %}
  join_parts_{{ j }} = bounded(JOIN_WAITING)
  frame_joins_{{ j }} = {}
  join_done_{{ j }} = bounded(JOIN_DONE_LIMIT_{{ j }})
  join_keys_{{ j }} = key_numbers()
{%- endfor %}
{%- for k in stream_joins %}
  stream_open_{{ k }} = bounded(stream_open_{{ k }}.limit)
  frame_streams_{{ k }} = {}
{%- endfor %}
{%- if analysis.is_some() %}
  analysed = bounded(MAX_ANALYSED)
  verdict_chunks, verdict_chunk_first, verdict_values = {}, {}, {}
{%- endif %}
end
{%- endif %}

{%- if let Some(a) = application %}

-- One application message: its type by the message id the {{ a.transport }} dissector read,
-- from the bit (and for the bits) it gives. Returns the Info-column summary.
local function dissect_message(tvb, pinfo, root)
{%- if a.own_id.is_none() %}
  local id = tonumber(pinfo.private["wiregen.id"] or "")
{%- endif %}
  local first = tonumber(pinfo.private["wiregen.bit"] or "") or 0
  local size = tonumber(pinfo.private["wiregen.bits"] or "") or 8 * tvb:len()
{%- if !a.bits %}
  first, size = first / 8, size / 8
{%- endif %}
{%- if let Some(n) = a.own_id %}
  -- The message starts with its id (the transport carries none).
  if size < {{ n }} then return truncated(root, tvb, first, "message_id", {{ n }}, size) or "{{ title }} [malformed]" end
  local id = tvb(first, {{ n }}):le_uint()
  root:add_le(F["{{ name }}.message_id"], tvb(first, {{ n }}))
  first, size = first + {{ n }}, size - {{ n }}
{%- endif %}
  local limit = first + size
  local offset, name
{%- for (id, t) in a.messages %}
  {% if loop.first %}if{% else %}elseif{% endif %} id == {{ id }} then
    name = "{{ t }}"
    offset = dissect.{{ t }}(tvb, pinfo, root, first, limit)
{%- endfor %}
  else
    root:add_proto_expert_info(E.unknown, fmt("message id %s is not named by the schema", tostring(id)))
    return "{{ title }}: unknown message " .. tostring(id)
  end
  root:append_text(": " .. name)
  if offset == nil then return name .. " [malformed]" end
{%- if a.bits %}
  -- Only the zero padding of the last byte may follow.
  if limit - offset >= 8 or (limit > offset and {{ a.bit_reader }}(tvb, offset, limit - offset) ~= 0) then
    root:add_proto_expert_info(E.trailing, fmt("%d unexpected bits after the message", limit - offset))
  end
{%- else %}
  if offset < limit then
    root:add_proto_expert_info(E.trailing, fmt("%d unexpected bytes after the message", limit - offset))
  end
{%- endif %}
  return name
end
{%- else %}

-- Whole message: the root type over the datagram (or framed PDU), then checks of the whole.
-- Returns the Info-column summary.
local function dissect_message(tvb, pinfo, root)
{%- if !opening_client.is_empty() || !opening_server.is_empty() %}
  local step = classify(pinfo)
  if step.k > 0 then
    local entry = OPENING[step.side][step.k]
    local offset = entry[1](tvb, pinfo, root, 0, tvb:len())
    if offset == nil then return entry[2] .. " [malformed]" end
    if offset < tvb:len() then
      root:add_proto_expert_info(E.trailing, fmt("%d unexpected bytes after the message", tvb:len() - offset))
    end
    return entry[2]
  end
{%- endif %}
{%- if root_bits %}
  local size = tvb:len() * 8
  local offset{% if root_values_read %}, v{% endif %} = dissect.{{ root }}(tvb, pinfo, root, 0, size)
  if offset == nil then return "{{ title }} [malformed]" end
  -- Only the zero padding of the last byte may follow.
  if size - offset >= 8 or (size > offset and {{ root_bit_reader }}(tvb, offset, size - offset) ~= 0) then
    root:add_proto_expert_info(E.trailing, fmt("%d unexpected bits after the message", size - offset))
  end
{%- else %}
  local size = tvb:len()
  local offset{% if root_values_read %}, v{% endif %} = dissect.{{ root }}(tvb, pinfo, root, 0, size)
  if offset == nil then
{%- for call in root_checksums %}
    {{ call }}
{%- endfor %}
{%- if !partial_info.is_empty() %}
    if next(ROOT_VALUES) ~= nil then
      return {{ partial_info }}
        .. " [malformed]"
    end
{%- endif %}
    return "{{ title }} [malformed]"
  end
  if offset < size then
    root:add_proto_expert_info(E.trailing, fmt("%d unexpected bytes after the message", size - offset))
  end
{%- endif %}
{%- if reassembly.is_some() %}
  local whole = reassemble(tvb, pinfo, root, v)
{%- endif %}
{%- if reassembly.is_some() %}
{%- if !info.is_empty() %}
  return {{ info }} .. whole
{%- else %}
  return "{{ title }}" .. whole
{%- endif %}
{%- else %}
{%- if !info.is_empty() %}
  return {{ info }}
{%- else %}
  return "{{ title }}"
{%- endif %}
{%- endif %}
end

{%- endif %}

-- Dissects one whole message in `tvb` under `root`; a Lua error becomes expert info.
local function dissect_protected(tvb, pinfo, root)
{%- if checks_visible %}
  -- (The root's tree is the packet's: shown or not as it is.)
  VISIBLE = TREE_SHOWN
{%- endif %}
{%- if state_tables > 0 %}
  -- (A message that ended early may have left its lists selected.)
{%- for t in 1..state_tables + 1 %}
  LISTS[{{ t }}] = nil
{%- endfor %}
  REST_TAKEN = false
{%- endif %}
{%- if has_joins %}
  INFO_SUFFIX = ""
{%- endif %}
{%- if has_info_tail %}
  INFO_TAIL = ""
{%- endif %}
{%- if has_checksums %}
  BAD_CHECKSUM = false
{%- endif %}
{%- if conversations %}
  CONVERSATION = nil
{%- endif %}
{%- if app_points %}
  APP_TRIED = false
{%- endif %}
{%- if analysis.is_some() %}
  FACTS.seq, FACTS.nacks, FACTS.ping = false, 0, false
{%- endif %}
  local ok, info = pcall(dissect_message, tvb, pinfo, root)
{%- if analysis.is_some() %}
  if ok and ANALYZE then
    local shown, prefix = pcall(analysis_step, tvb, pinfo, root)
    if shown then
      info = prefix .. info
    else
      root:add_proto_expert_info(E.internal, "netcode analysis error: " .. tostring(prefix))
    end
  end
{%- endif %}
{%- if has_info_tail %}
  if ok then info = info .. INFO_TAIL end
{%- endif %}
{%- if app_points %}
  if APP_TRIED then
    local app = pinfo.private["wiregen.info"]
    if ok and app ~= nil and app ~= "" then info = info .. ": " .. app end
  end
{%- endif %}
{%- if has_joins %}
  if ok then info = info .. INFO_SUFFIX end
{%- endif %}
{%- if has_checksums %}
  if ok and BAD_CHECKSUM then info = info .. " [bad checksum]" end
{%- endif %}
  if not ok then
    root:add_proto_expert_info(E.internal, "dissector error: " .. tostring(info))
    return "{{ title }} [dissector error]"
  end
  return info
end
{%- include "lua/tcp_framing.lua" %}

{%- if let Some(a) = application %}
{%- include "lua/application.lua" %}
{%- else %}

{%- if let Some(f) = family %}

-- One family of dissectors (a schema and the schemas extending it) shares ports and heuristics:
-- the one the family's claim names reads the traffic, the others hand it over{% if f.base.is_some() %} (this one
-- claims it unless its preference says otherwise){% endif %}.
local claims = shared_table("wiregen_claims")
{%- if let Some(base) = f.base %}
proto.prefs.claim = Pref.bool("Read {{ base }} traffic", true, "When the {{ base }} dissector is loaded too, this one reads the traffic of their ports and heuristic (off: {{ base }} does)")
local function update_claim()
  if proto.prefs.claim then
    claims["{{ f.name }}"] = "{{ name }}"
  elseif claims["{{ f.name }}"] == "{{ name }}" then
    claims["{{ f.name }}"] = "{{ base }}"
  end
end
update_claim()
{%- else %}
if claims["{{ f.name }}"] == nil then claims["{{ f.name }}"] = "{{ name }}" end
{%- endif %}
local claimants = {}

-- The loaded dissector of the family that claims its traffic, or nil when it is this one.
local function claimant()
  local owner = claims["{{ f.name }}"]
  if owner == nil or owner == "{{ name }}" then return nil end
  local d = claimants[owner]
  if d == nil then
    local ok, found = pcall(Dissector.get, owner)
    d = ok and found or false
    claimants[owner] = d
  end
  return d or nil
end
{%- endif %}

function proto.dissector(tvb, pinfo, tree)
{%- if family.is_some() %}
  local other = claimant()
  if other then return other:call(tvb, pinfo, tree) end
{%- endif %}
  choose_tree_adds(tree)
  pinfo.cols.protocol:set("{{ column }}")
{%- if analysis.is_some() %}
  ANALYSIS_INDEX = 0
{%- endif %}
{%- if tcp_framing.is_some() %}
  if pinfo.port_type == 2 then -- TCP
    tcp_infos = {}
    local ok, err = pcall(dissect_tcp_pdus, tvb, tree, {{ tcp_framing.as_ref().unwrap().fixed }}, tcp_pdu_len, dissect_tcp_pdu, true)
    if not ok then
      tree:add(proto, tvb()):add_proto_expert_info(E.internal, "dissector error: " .. tostring(err))
    end
    follow_tcp_stream(tvb, pinfo, tree)
    if #tcp_infos > 0 then pinfo.cols.info:set(table.concat(tcp_infos, " | ")) end
    return tvb:len()
  end
{%- endif %}
  local root = tree:add(proto, tvb())
  pinfo.cols.info:set(dissect_protected(tvb, pinfo, root))
  return tvb:len()
end
{%- endif %}
{%- for t in port_tables %}

-- {{ t.upper }} ports, a preference (a range such as "8080,9000-9010").
proto.prefs.{{ t.lower }}_ports = Pref.range("{{ t.upper }} ports", "{{ t.ports }}", "{{ t.upper }} ports of {{ title }}", 65535)
local {{ t.lower }}_registered = nil
local function register_{{ t.lower }}_ports()
  local t = DissectorTable.get("{{ t.lower }}.port")
  if {{ t.lower }}_registered ~= nil then t:remove({{ t.lower }}_registered, proto) end
  {{ t.lower }}_registered = tostring(proto.prefs.{{ t.lower }}_ports)
  if {{ t.lower }}_registered ~= "" then t:add({{ t.lower }}_registered, proto) end
  t:add_for_decode_as(proto)
{%- if t.server %}
  server_port_ranges = parse_ranges({{ t.lower }}_registered)
{%- endif %}
end
register_{{ t.lower }}_ports()
{%- endfor %}

function proto.prefs_changed()
{%- if analysis.is_some() %}
  ANALYZE = proto.prefs.analyze
  set_analysis_window(proto.prefs.analysis_window)
{%- endif %}
{%- if let Some(a) = application %}
{%- if a.own_id.is_some() %}
  read_ports()
{%- endif %}
{%- endif %}
{%- if let Some(f) = family %}
{%- if f.base.is_some() %}
  update_claim()
{%- endif %}
{%- endif %}
{%- for t in port_tables %}
  register_{{ t.lower }}_ports()
{%- endfor %}
end
{%- if let Some(h) = udp_heuristic %}

-- Heuristic: recognise {{ title }} on any UDP port.
--   {{ h.doc }}
local function heuristic_udp(tvb, pinfo, tree)
{%- if family.is_some() %}
  if claimant() then return false end
{%- endif %}
  local ok, matched = pcall(function()
    local size = tvb:len()
    if size < {{ h.min_len }} then return false end
    local v = {}
{%- for line in h.reads %}
    {{ line }}
{%- endfor %}
    return {{ h.expr }}
  end)
  if not ok or not matched then return false end
  proto.dissector(tvb, pinfo, tree)
  return true
end
proto:register_heuristic("udp", heuristic_udp)
{%- endif %}
