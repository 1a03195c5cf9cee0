{# Reassembly of a payload from pieces, with limits that evict and say so. Included by dissector.lua. #}
{%- if let Some(r) = reassembly %}

-- Reassembly: pieces of one payload are collected on the first pass by conversation, direction
-- and {{ r.key_doc }}; the frame that completes a payload keeps it by frame number and shows it
-- decoded in its own "Reassembled payload" tab, as the client's or the server's type.
-- Limits: payloads waiting for pieces in the whole capture and per conversation, and how many
-- frames one may wait. Past them the oldest waiting payload is evicted, with a note.
local MAX_PENDING = 1024
local MAX_PENDING_PER_CONVERSATION = 64
local MAX_AGE_FRAMES = 10000
local pieces = bounded(MAX_PENDING)
local conversation_pending = {}
local frame_wholes = {}
-- The pieces of the payloads joined last (their bytes, by key and index), as the crate's
-- Reassembler: a piece that comes again with them is a retransmission, not a new payload.
local JOINED_PIECES = 4096
local joined_pieces = bounded(JOINED_PIECES)
local frame_rejoined = {}

-- One payload of conversation `conv` no longer waits (joined or evicted).
local function conversation_released(conv)
  local left = conversation_pending[conv] - 1
  conversation_pending[conv] = left > 0 and left or nil
end

local function evict_piece(root, why, skip)
  local _, st = bounded_evict(pieces, skip)
  if st == nil then return end
  conversation_released(st.conv)
  local held = 0
  for _ in pairs(st.parts) do held = held + 1 end
  root:add_proto_expert_info(E.evicted, fmt(
    "reassembly: the payload begun in frame %d (%d pieces held) is dropped %s; %d dropped so far",
    st.first, held, why, pieces.evicted))
end

local function reassemble(tvb, pinfo, root, v)
  if not ({{ r.when }}) then return "" end
  local conv, side = conversation_key(pinfo)
  local key = conv .. "|" .. side{% for k in r.keys %} .. "|" .. tostring({{ k }}){% endfor %}
  local index = {{ r.index }}
  local here = pinfo.number .. "|" .. key .. "|" .. tostring(index)
  if not pinfo.visited then
    local piece = tvb:raw(tvb:len() - {{ r.piece }}, {{ r.piece }})
    local done = key .. "|" .. tostring(index)
    if joined_pieces.map[done] == piece then
      frame_rejoined[here] = true
    else
      bounded_remove(joined_pieces, done)
      local st = pieces.map[key]
      if st == nil then
        -- Room for a new payload: the ones waiting too long go first, then the oldest.
        local oldest = bounded_oldest(pieces)
        while oldest ~= nil and pinfo.number - pieces.map[oldest].first > MAX_AGE_FRAMES do
          evict_piece(root, fmt("after %d frames", MAX_AGE_FRAMES))
          oldest = bounded_oldest(pieces)
        end
        if pieces.count >= MAX_PENDING then
          evict_piece(root, fmt("(%d payloads waiting)", MAX_PENDING))
        end
        if (conversation_pending[conv] or 0) >= MAX_PENDING_PER_CONVERSATION then
          evict_piece(root, fmt("(%d payloads waiting in this conversation)", MAX_PENDING_PER_CONVERSATION),
            function(other) return other.conv ~= conv end)
        end
        st = { parts = {}, first = pinfo.number, conv = conv }
        bounded_set(pieces, key, st)
        conversation_pending[conv] = (conversation_pending[conv] or 0) + 1
      end
      local earlier = st.parts[index]
      if earlier == nil then
        st.parts[index] = piece
      elseif earlier ~= piece then
        -- A retransmission repeats a piece; different bytes under the same index are reported
        -- and the first kept.
        root:add_proto_expert_info(E.reassembly, fmt(
          "piece %d again, with different bytes: the first one is kept", index))
      end
      {{ r.count }}
      if st.count ~= nil then
        local list = {}
        for i = 0, st.count - 1 do
          if st.parts[i] == nil then list = nil break end
          list[#list + 1] = st.parts[i]
        end
        if list ~= nil then
          -- Kept by frame for later passes, the bytes in a ByteArray: outside Lua's heap, whose
          -- size paces the garbage collector (docs/performance.md).
          frame_wholes[pinfo.number] = { data = ByteArray.new(table.concat(list), true), side = side, count = st.count }
          bounded_remove(pieces, key)
          conversation_released(conv)
          for i = 0, st.count - 1 do
            bounded_set(joined_pieces, key .. "|" .. tostring(i), list[i + 1])
            if joined_pieces.count > JOINED_PIECES then bounded_evict(joined_pieces) end
          end
        end
      end
    end
  end
  if frame_rejoined[here] then
    root:add_proto_expert_info(E.rejoined, fmt("piece %s came again after its payload was joined: a retransmission", tostring(index)))
    return ""
  end
  local whole = frame_wholes[pinfo.number]
  if whole == nil or whole.data:len() == 0 then return "" end
  local wtvb = whole.data:tvb("Reassembled payload")
  local sub = root:add(wtvb(), string.format("Reassembled payload (%d bytes in %d pieces)", wtvb:len(), whole.count))
  sub:add_proto_expert_info(E.joined, fmt("payload joined from %d pieces", whole.count))
  local size = wtvb:len()
  local nxt, name
{%- if let Some(f) = r.as_field %}
  name = "{{ f }}"
  nxt = dissect_whole(wtvb, pinfo, sub, v)
  if nxt == nil then return " [reassembled " .. name .. ", malformed]" end
  if nxt < size then
    sub:add_proto_expert_info(E.trailing, fmt("%d unexpected bytes after the payload", size - nxt))
  end
  return " [reassembled]"
{%- else %}
  if whole.side == "client" then
    name = "{{ r.client }}"
    nxt = dissect.{{ r.client }}(wtvb, pinfo, sub, 0, size{% if r.client_bits %} * 8{% endif %})
{%- if r.client_bits %}
    if nxt ~= nil then nxt = ceil8(nxt) end
{%- endif %}
  else
    name = "{{ r.server }}"
    nxt = dissect.{{ r.server }}(wtvb, pinfo, sub, 0, size{% if r.server_bits %} * 8{% endif %})
{%- if r.server_bits %}
    if nxt ~= nil then nxt = ceil8(nxt) end
{%- endif %}
  end
  if nxt == nil then return " [" .. name .. ", malformed]" end
  if nxt < size then
    sub:add_proto_expert_info(E.trailing, fmt("%d unexpected bytes after the payload", size - nxt))
  end
  return " [" .. name .. "]"
{%- endif %}
end
{%- endif %}
