{# TCP length-prefix framing (dissect_tcp_pdus) and the out-of-step recovery. Included by dissector.lua. #}
{%- if let Some(f) = tcp_framing %}

{%- if let Some(at) = f.inside_at %}

-- TCP: each message holds its length at byte {{ at }} ({{ f.doc }}, {{ f.counts }}).
{%- else %}

-- TCP: each message is preceded by its length ({{ f.doc }}, {{ f.counts }}).
{%- endif %}
-- Messages split across segments are reassembled; several in one segment are all dissected.
-- A prefix that is negative or announces more than the largest message means the stream is out
-- of step: the rest of the segment is skipped (and said so), and reading resumes at the next one.
local tcp_infos = {}
proto.prefs.max_tcp_message = Pref.uint("Largest TCP message", {{ f.max }},
  "A longer length prefix means the stream is out of step: the rest of its segment is skipped and reading resumes at the next segment")

-- The bytes still missing, as TCP was asked for them (a prefix cut in two asks for "one more
-- segment", not a count).
local function missing_text(missing)
  if missing >= 0x0fffffff then return "the rest of its length prefix and all of its body" end
  return int_text(missing) .. " more bytes"
end

{%- if let Some(at) = f.inside_at %}

local function impossible_length(n)
  return n < {{ f.fixed }} or n > proto.prefs.max_tcp_message
end

local function tcp_pdu_len(tvb, pinfo, offset)
  local n = tvb(offset + {{ at }}, {{ f.size }}):{{ f.read }}{{ f.minus }}
  if impossible_length(n) then return tvb:len() - offset end
  return n
end

local function dissect_tcp_pdu(tvb, pinfo, tree)
  local root = tree:add(proto, tvb())
  local n = tvb({{ at }}, {{ f.size }}):{{ f.read }}{{ f.minus }}
  if impossible_length(n) then
    root:add_proto_expert_info(E.length, fmt(
      "impossible frame length %d at byte {{ at }} (at least {{ f.fixed }}, at most %d): the stream's framing is lost here, %d bytes skipped; reading on at the next segment",
      n, proto.prefs.max_tcp_message, tvb:len()))
    tcp_infos[#tcp_infos + 1] = "{{ title }} [framing lost]"
  else
    tcp_infos[#tcp_infos + 1] = dissect_protected(tvb, pinfo, root)
  end
  return tvb:len()
end
{%- else %}

local function impossible_length(n)
  return n < 0 or n > proto.prefs.max_tcp_message
end

local function tcp_pdu_len(tvb, pinfo, offset)
  local n = tvb(offset, {{ f.size }}):{{ f.read }}{{ f.minus }}
  if impossible_length(n) then return tvb:len() - offset end
  return {{ f.size }} + n
end

local function dissect_tcp_pdu(tvb, pinfo, tree)
  local root = tree:add(proto, tvb())
  local item = root:{{ f.add }}(F["{{ name }}.frame_length"], tvb(0, {{ f.size }}))
  local n = tvb(0, {{ f.size }}):{{ f.read }}{{ f.minus }}
  if impossible_length(n) then
    item:add_proto_expert_info(E.length, fmt(
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

-- What is followed per TCP connection and direction, so that nothing is lost silently: the message a
-- segment leaves incomplete (said when the connection or the capture ends before it is), and
-- whether out-of-order data was already noted. Bounded: past the limit the oldest stream is no
-- longer followed, and that is said.
local tcp_fin_f = Field.new("tcp.flags.fin")
local tcp_out_of_order_f = Field.new("tcp.analysis.out_of_order")
local tcp_lost_segment_f = Field.new("tcp.analysis.lost_segment")
local MAX_TCP_FOLLOWED = 4096
local tcp_waiting = bounded(MAX_TCP_FOLLOWED)
local tcp_out_of_order_noted = bounded(MAX_TCP_FOLLOWED)

-- Whether Wireshark reassembles out-of-order segments (tcp.reassemble_out_of_order, off by
-- default): without it the messages of a stream with out-of-order data are not shown.
local function tcp_reassembles_out_of_order()
  local ok, on = pcall(get_preference, "tcp.reassemble_out_of_order")
  return ok and on == true
end

local function follow_tcp_stream(tvb, pinfo, tree)
  -- By endpoints and direction: TCP's own fields are not there on a first pass without a tree.
  local key = tostring(pinfo.src) .. ":" .. pinfo.src_port .. ">" .. tostring(pinfo.dst) .. ":" .. pinfo.dst_port
  -- A gap before this segment (the data comes later, out of order) or data out of order: TCP
  -- hands that data to no dissector unless it reassembles out-of-order segments.
  -- Noted once per stream, on the first frame that shows it (kept by frame: clicks agree).
  if (tcp_lost_segment_f() or tcp_out_of_order_f()) and tcp_out_of_order_noted.map[key] == nil
      and not tcp_reassembles_out_of_order() then
    bounded_set(tcp_out_of_order_noted, key, pinfo.number)
    if tcp_out_of_order_noted.count > MAX_TCP_FOLLOWED then bounded_evict(tcp_out_of_order_noted) end
  end
  if tcp_out_of_order_noted.map[key] == pinfo.number then
    tree:add(proto, tvb()):add_proto_expert_info(E.tcp,
      "TCP data missing before this segment (lost, or arriving out of order): its messages may not be shown unless the TCP preference 'Reassemble out-of-order segments' is on (tcp.reassemble_out_of_order)")
  end
  local missing = pinfo.desegment_len
  if not pinfo.visited then
    if missing > 0 then
      local have = tvb:len() - pinfo.desegment_offset
      bounded_set(tcp_waiting, key, { frame = pinfo.number, have = have, missing = missing })
      if tcp_waiting.count > MAX_TCP_FOLLOWED then
        local _, old = bounded_evict(tcp_waiting)
        tree:add(proto, tvb()):add_proto_expert_info(E.evicted, fmt(
          "%d TCP streams wait for the rest of a message: the oldest (frame %d) is no longer followed, so its end is not checked",
          MAX_TCP_FOLLOWED, old.frame))
      end
    else
      bounded_remove(tcp_waiting, key)
    end
  end
  local w = tcp_waiting.map[key]
  -- (The FIN flag is looked up only for a segment that leaves a message incomplete.)
  local fin = missing > 0 and tcp_fin_f()
  if fin and fin.value then
    tree:add(proto, tvb(pinfo.desegment_offset)):add_proto_expert_info(E.tcp, fmt(
      "the connection closes in the middle of a message: %d bytes of it here, %s never sent",
      tvb:len() - pinfo.desegment_offset, missing_text(missing)))
  elseif pinfo.visited and w and w.frame == pinfo.number then
    tree:add(proto, tvb(tvb:len() - w.have)):add_proto_expert_info(E.tcp, fmt(
      "the stream ends (connection closed or capture cut) in the middle of a message: %d bytes of it here, %s never arrived",
      w.have, missing_text(w.missing)))
  end
end
{%- endif %}
