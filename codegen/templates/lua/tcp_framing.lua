{# TCP length-prefix framing (dissect_tcp_pdus) and the out-of-step recovery. Included by dissector.lua. #}
{%- if let Some(f) = tcp_framing %}

-- TCP: each message is preceded by its length ({{ f.doc }}, not counting the prefix).
-- Messages split across segments are reassembled; several in one segment are all dissected.
-- A prefix that is negative or announces more than the largest message means the stream is out
-- of step: the rest of the segment is skipped (and said so), and reading resumes at the next one.
local tcp_infos = {}
proto.prefs.max_tcp_message = Pref.uint("Largest TCP message", {{ f.max }},
  "A longer length prefix means the stream is out of step: the rest of its segment is skipped and reading resumes at the next segment")

local function impossible_length(n)
  return n < 0 or n > proto.prefs.max_tcp_message
end

local function tcp_pdu_len(tvb, pinfo, offset)
  local n = tvb(offset, {{ f.size }}):{{ f.read }}
  if impossible_length(n) then return tvb:len() - offset end
  return {{ f.size }} + n
end

local function dissect_tcp_pdu(tvb, pinfo, tree)
  local root = tree:add(proto, tvb())
  local item = root:{{ f.add }}(F["{{ name }}.frame_length"], tvb(0, {{ f.size }}))
  local n = tvb(0, {{ f.size }}):{{ f.read }}
  if impossible_length(n) then
    item:add_proto_expert_info(E.length, string.format(
      "impossible frame length %d (the largest allowed is %d): the stream's framing is lost here, %d bytes skipped; reading on at the next segment",
      n, proto.prefs.max_tcp_message, tvb:len() - {{ f.size }}))
    tcp_infos[#tcp_infos + 1] = "{{ title }} [framing lost]"
  elseif n == 0 then
    item:add_proto_expert_info(E.truncated, "empty frame")
    tcp_infos[#tcp_infos + 1] = "{{ title }} [empty frame]"
  else
    tcp_infos[#tcp_infos + 1] = dissect_protected(tvb({{ f.size }}, n):tvb(), pinfo, root)
  end
  return tvb:len()
end
{%- endif %}
