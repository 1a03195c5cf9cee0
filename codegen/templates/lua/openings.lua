{# Opening datagrams by order, classified once per frame. Included by dissector.lua. #}
{%- if !opening_client.is_empty() || !opening_server.is_empty() %}

-- Conversations: the k-th datagram from a side is that side's k-th opening datagram; later ones
-- are the root type. The server is the side on the UDP ports preference. The classification is
-- made when a frame is first dissected and kept by frame number, so re-dissection, clicks and
-- two-pass analysis (tshark -2) all agree.
local OPENING = {
  client = { {%- for (f, n) in opening_client %}{ dissect.{{ f }}, "{{ n }}" }, {% endfor -%} },
  server = { {%- for (f, n) in opening_server %}{ dissect.{{ f }}, "{{ n }}" }, {% endfor -%} },
}
local conversation_counts = {}
local frame_steps = {}

-- The opening step of this frame ({side, k}), k = 0 after the opening.
local function classify(pinfo)
  local step = frame_steps[pinfo.number]
  if step ~= nil then return step end
  local key, side = conversation_key(pinfo)
  local counts = conversation_counts[key]
  if counts == nil then
    counts = { client = 0, server = 0 }
    conversation_counts[key] = counts
  end
  counts[side] = counts[side] + 1
  local k = counts[side]
  if k > #OPENING[side] then k = 0 end
  step = { side = side, k = k }
  frame_steps[pinfo.number] = step
  return step
end
{%- endif %}
