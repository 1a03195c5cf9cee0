{# An application schema: its dissector, claimed by message id in its transport's table. Included by dissector.lua. #}

{%- if a.own_id.is_some() %}

-- {{ a.transport }} carries no message id, so its payloads are this application's only where
-- the user says so: on every {{ a.transport }} message, or on the ports of a preference.
proto.prefs.every_payload = Pref.bool("Every {{ a.transport }} payload", false,
  "Read the payload of every {{ a.transport }} message with this dissector ({{ a.transport }} carries no message id)")
proto.prefs.udp_ports = Pref.range("UDP ports", "", "Ports whose {{ a.transport }} payloads this dissector reads", 65535)
local claimed_ports = {}

-- The ports of the preference ("3413,4000-4010") as {first, last} pairs, read once per change.
local function read_ports()
  claimed_ports = {}
  for part in string.gmatch(tostring(proto.prefs.udp_ports), "[^,%s]+") do
    local a, b = string.match(part, "^(%d+)-(%d+)$")
    if a == nil then a = string.match(part, "^(%d+)$"); b = a end
    if a ~= nil then claimed_ports[#claimed_ports + 1] = { tonumber(a), tonumber(b) } end
  end
end
read_ports()

local function claims(pinfo)
  if proto.prefs.every_payload then return true end
  for _, r in ipairs(claimed_ports) do
    if (pinfo.src_port >= r[1] and pinfo.src_port <= r[2]) or (pinfo.dst_port >= r[1] and pinfo.dst_port <= r[2]) then
      return true
    end
  end
  return false
end
{%- endif %}

function proto.dissector(tvb, pinfo, tree)
{%- if a.own_id.is_some() %}
  if not claims(pinfo) then return 0 end
{%- endif %}
  choose_tree_adds(tree)
  pinfo.cols.protocol:set("{{ column }}")
  local root = tree:add(proto, tvb())
  -- The transport's Info column names this message after its own summary ("Reliable: Chat").
  pinfo.private["wiregen.info"] = dissect_protected(tvb, pinfo, root)
  return tvb:len()
end

-- Registered in the {{ a.transport }} dissector's table, one entry per message id: now if that
-- dissector is already loaded, else when a capture starts (plugins load in name order).
local function register_messages()
  local ok, table = pcall(DissectorTable.get, "{{ a.table }}")
  if ok and table ~= nil then
{%- if a.own_id.is_some() %}
    -- The transport has no ids: it hands every payload over under 0.
    table:add(0, proto)
{%- else %}
{%- for (id, _) in a.messages %}
    table:add({{ id }}, proto)
{%- endfor %}
{%- endif %}
  end
end
register_messages()
{%- if !conversations %}
function proto.init()
  register_messages()
end
{%- endif %}
