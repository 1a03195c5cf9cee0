-- A hand-written Drag[en]gine Network Protocol dissector, as a careful Wireshark Lua author would
-- write it: the layered yardstick of `cargo bench -p wiregen-tests --bench lua_versus`. It
-- registers the same protocol name and field names as the generated `dissectors/dnp.lua` (the
-- bench first checks that both print the same field values), reads the 38 value types from one
-- table (size, fields, how to read them), remembers each link's value types per conversation
-- for the Link Updates after it (per frame, so a second pass or a click shows the same), and
-- joins Long Reliable Messages and Long Link States from their parts, in order, per
-- conversation and direction. It does no netcode analysis and keeps no limits on its tables. It
-- is not generated and not a product: only the benchmark loads it.

local proto = Proto("dnp", "Drag[en]gine Network Protocol")
local SERVER_PORT = 3413

local VS_Code = {
  [0] = "ConnectionRequest", [1] = "ConnectionAck", [2] = "ConnectionClose",
  [3] = "UnreliableMessage", [4] = "ReliableMessage", [5] = "LinkState", [6] = "ReliableAck",
  [7] = "LinkUp", [8] = "LinkDown", [9] = "LinkUpdate", [10] = "LongReliableMessage",
  [11] = "LongLinkState",
}
local VS_Result = { [0] = "Accepted", [1] = "Rejected", [2] = "NoCommonProtocol" }
local VS_Protocol = { [0] = "DNP1" }
local VS_Ack = { [0] = "Success", [1] = "Failed" }

-- Value types by code: their name, the field prefix, the fields in order, the ProtoField
-- constructor and size of each ("f16" for binary16 floats; strings and data are told apart).
local TYPES = {}
local function value_type(code, name, prefix, parts, ctor, size)
  TYPES[code] = { name = name, prefix = prefix, parts = parts, ctor = ctor, size = size }
end
local X, XY, XYZ, XYZW = { "value" }, { "x", "y" }, { "x", "y", "z" }, { "x", "y", "z", "w" }
value_type(0, "SInt8", "s_int8_value", X, ProtoField.int8, 1)
value_type(1, "UInt8", "u_int8_value", X, ProtoField.uint8, 1)
value_type(2, "SInt16", "s_int16_value", X, ProtoField.int16, 2)
value_type(3, "UInt16", "u_int16_value", X, ProtoField.uint16, 2)
value_type(4, "SInt32", "s_int32_value", X, ProtoField.int32, 4)
value_type(5, "UInt32", "u_int32_value", X, ProtoField.uint32, 4)
value_type(6, "SInt64", "s_int64_value", X, ProtoField.int64, 8)
value_type(7, "UInt64", "u_int64_value", X, ProtoField.uint64, 8)
value_type(8, "Float16", "float16_value", X, "f16", 2)
value_type(9, "Float32", "float32_value", X, ProtoField.float, 4)
value_type(10, "Float64", "float64_value", X, ProtoField.double, 8)
value_type(11, "String", "string_value", { "length", "text" }, "string", 0)
value_type(12, "Data", "data_value", { "length", "data" }, "data", 0)
local next_code = 13
for _, dims in ipairs({ { "point2", XY }, { "point3", XYZ } }) do
  for _, int in ipairs({ { "S8", "s8", ProtoField.int8, 1 }, { "U8", "u8", ProtoField.uint8, 1 },
      { "S16", "s16", ProtoField.int16, 2 }, { "U16", "u16", ProtoField.uint16, 2 },
      { "S32", "s32", ProtoField.int32, 4 }, { "U32", "u32", ProtoField.uint32, 4 },
      { "S64", "s64", ProtoField.int64, 8 }, { "U64", "u64", ProtoField.uint64, 8 } }) do
    local name = dims[1]:gsub("^p", "P") .. int[1]
    value_type(next_code, name, dims[1] .. "_" .. int[2] .. "_value", dims[2], int[3], int[4])
    next_code = next_code + 1
  end
end
for _, kind in ipairs({ { "Vector2", "vector2", XY }, { "Vector3", "vector3", XYZ },
    { "Quaternion", "quaternion", XYZW } }) do
  for _, fl in ipairs({ { "F16", "f16", "f16", 2 }, { "F32", "f32", ProtoField.float, 4 },
      { "F64", "f64", ProtoField.double, 8 } }) do
    value_type(next_code, kind[1] .. fl[1], kind[2] .. "_" .. fl[2] .. "_value", kind[3], fl[3], fl[4])
    next_code = next_code + 1
  end
end
local VS_Type = {}
for c, t in pairs(TYPES) do VS_Type[c] = t.name end

local f = {
  code = ProtoField.uint8("dnp.code", "Code", base.HEX, VS_Code),
  body = ProtoField.bytes("dnp.body", "Body"),
  protocol_count = ProtoField.uint16("dnp.connection_request.protocol_count", "Protocol count"),
  protocols = ProtoField.uint16("dnp.connection_request.protocols", "Protocols", base.HEX, VS_Protocol),
  result = ProtoField.uint8("dnp.connection_ack.result", "Result", base.HEX, VS_Result),
  protocol = ProtoField.uint16("dnp.connection_ack.protocol", "Protocol", base.HEX, VS_Protocol),
  unreliable_data = ProtoField.bytes("dnp.unreliable_message.data", "Data"),
  reliable_number = ProtoField.uint16("dnp.reliable_message.number", "Number"),
  reliable_data = ProtoField.bytes("dnp.reliable_message.data", "Data"),
  ls_number = ProtoField.uint16("dnp.link_state.number", "Number"),
  ls_link_id = ProtoField.uint16("dnp.link_state.link_id", "Link id"),
  ls_flags = ProtoField.uint8("dnp.link_state.flags", "Flags", base.HEX),
  ls_read_only = ProtoField.bool("dnp.link_state.flags.read_only", "READ_ONLY", 8, nil, 0x1),
  ls_message_len = ProtoField.uint16("dnp.link_state.message_len", "Message len"),
  ls_message = ProtoField.bytes("dnp.link_state.message", "Message"),
  ls_value_count = ProtoField.uint16("dnp.link_state.value_count", "Value count"),
  type = ProtoField.uint8("dnp.typed_value.type", "Type", base.HEX, VS_Type),
  ack_number = ProtoField.uint16("dnp.reliable_ack.number", "Number"),
  ack_result = ProtoField.uint8("dnp.reliable_ack.result", "Result", base.HEX, VS_Ack),
  link_id = ProtoField.uint16("dnp.link_id.link_id", "Link id"),
  link_count = ProtoField.uint8("dnp.link_update.link_count", "Link count"),
  lu_link_id = ProtoField.uint16("dnp.link_update_link.link_id", "Link id"),
  lu_value_count = ProtoField.uint8("dnp.link_update_link.value_count", "Value count"),
  lu_unknown = ProtoField.bytes("dnp.link_update_link.values.unknown", "Values (types unknown)"),
  index = ProtoField.uint16("dnp.indexed_value.index", "Index"),
  lv_value_count = ProtoField.uint16("dnp.link_values.value_count", "Value count"),
  lm_number = ProtoField.uint16("dnp.long_reliable_message.number", "Number"),
  lm_flags = ProtoField.uint8("dnp.long_reliable_message.flags", "Flags", base.HEX),
  lm_first = ProtoField.bool("dnp.long_reliable_message.flags.first", "FIRST", 8, nil, 0x1),
  lm_last = ProtoField.bool("dnp.long_reliable_message.flags.last", "LAST", 8, nil, 0x2),
  lm_chunk = ProtoField.bytes("dnp.long_reliable_message.chunk", "Chunk"),
  lm_joined = ProtoField.bytes("dnp.long_reliable_message.chunk.joined", "Joined Chunk"),
  ll_number = ProtoField.uint16("dnp.long_link_state.number", "Number"),
  ll_link_id = ProtoField.uint16("dnp.long_link_state.link_id", "Link id"),
  ll_flags = ProtoField.uint8("dnp.long_link_state.flags", "Flags", base.HEX),
  ll_read_only = ProtoField.bool("dnp.long_link_state.flags.read_only", "READ_ONLY", 8, nil, 0x1),
  ll_first = ProtoField.bool("dnp.long_link_state.flags.first", "FIRST", 8, nil, 0x2),
  ll_last = ProtoField.bool("dnp.long_link_state.flags.last", "LAST", 8, nil, 0x4),
  ll_message_len = ProtoField.uint16("dnp.long_link_state.message_chunk_len", "Message chunk len"),
  ll_message = ProtoField.bytes("dnp.long_link_state.message_chunk", "Message chunk"),
  ll_values = ProtoField.bytes("dnp.long_link_state.values_chunk", "Values chunk"),
  ll_joined = ProtoField.bytes("dnp.long_link_state.message_chunk.joined", "Joined Message chunk"),
}
local fields = {}
for _, field in pairs(f) do fields[#fields + 1] = field end
-- Each value type's fields, by part: `t.fields[i]` reads `t.parts[i]`.
for _, t in pairs(TYPES) do
  t.fields = {}
  for i, part in ipairs(t.parts) do
    local abbrev, label = "dnp." .. t.prefix .. "." .. part, part:sub(1, 1):upper() .. part:sub(2)
    local field
    if t.ctor == "f16" then
      field = ProtoField.float(abbrev, label)
    elseif part == "length" then
      field = ProtoField.uint16(abbrev, label)
    elseif t.ctor == "string" then
      field = ProtoField.string(abbrev, label, base.UNICODE)
    elseif t.ctor == "data" then
      field = ProtoField.bytes(abbrev, label)
    else
      field = t.ctor(abbrev, label)
    end
    t.fields[i] = field
    fields[#fields + 1] = field
  end
end
proto.fields = fields

local e_malformed = ProtoExpert.new("dnp.expert.truncated", "Truncated field", expert.group.MALFORMED, expert.severity.ERROR)
local e_no_types = ProtoExpert.new("dnp.expert.no_state", "Needs an earlier message of the conversation", expert.group.SEQUENCE, expert.severity.NOTE)
local e_joined = ProtoExpert.new("dnp.expert.joined", "Parts joined", expert.group.REASSEMBLE, expert.severity.CHAT)
proto.experts = { e_malformed, e_no_types, e_joined }

-- A binary16 float from its bits.
local function f16(h)
  local sign = h >= 0x8000 and -1 or 1
  local exp, frac = math.floor(h / 0x400) % 0x20, h % 0x400
  if exp == 0 then return sign * frac * 2 ^ -24 end
  if exp == 31 then return frac == 0 and sign * math.huge or 0 / 0 end
  return sign * (1 + frac / 1024) * 2 ^ (exp - 15)
end

-- A truncated message: an error item, and the dissection stops (nil offset).
local function short(tree, what)
  tree:add_proto_expert_info(e_malformed, what .. " is cut short")
  return nil
end

-- One value of type `t` at `offset`; returns the offset after it.
local function value(tvb, tree, t, offset, len)
  local size = t.size
  if size == 0 then
    if offset + 2 > len then return short(tree, t.name) end
    local n = tvb(offset, 2):le_uint()
    if offset + 2 + n > len then return short(tree, t.name) end
    local sub = tree:add(tvb(offset, 2 + n), t.name)
    sub:add_le(t.fields[1], tvb(offset, 2))
    if t.ctor == "string" then
      sub:add_packet_field(t.fields[2], tvb(offset + 2, n), ENC_UTF_8)
    else
      sub:add(t.fields[2], tvb(offset + 2, n))
    end
    return offset + 2 + n
  end
  local parts = #t.fields
  if offset + size * parts > len then return short(tree, t.name) end
  local sub = parts > 1 and tree:add(tvb(offset, size * parts), t.name) or tree
  for i = 1, parts do
    local range = tvb(offset, size)
    if t.ctor == "f16" then
      sub:add(t.fields[i], range, f16(range:le_uint()))
    else
      sub:add_le(t.fields[i], range)
    end
    offset = offset + size
  end
  return offset
end

-- Typed values (a type code before each), as Link States and Long Link States carry them;
-- returns the offset after them and their types.
local function typed_values(tvb, tree, offset, len, count)
  local list = tree:add(tvb(offset, 0), string.format("Values (%d)", count))
  local start, types = offset, {}
  for i = 1, count do
    if offset >= len then return short(list, "value " .. i) end
    local code = tvb(offset, 1):uint()
    local t = TYPES[code]
    list:add(f.type, tvb(offset, 1))
    if t == nil then return short(list, "value of unknown type " .. code) end
    types[i] = code
    offset = value(tvb, list, t, offset + 1, len)
    if offset == nil then return nil end
  end
  list:set_len(offset - start)
  return offset, types
end

-- Per conversation (client address and port): each link's value types, as its latest Link State
-- announced them; and the long messages being joined, per direction (and link).
local link_types = {}
local pending = {}
-- What the first pass found, by frame: the link types a Link Update used, joined payloads.
local frame_types = {}
local frame_joined = {}

function proto.init()
  link_types, pending, frame_types, frame_joined = {}, {}, {}, {}
end

local function conversation(pinfo)
  if pinfo.src_port == SERVER_PORT then
    return tostring(pinfo.dst) .. ":" .. pinfo.dst_port, "s"
  end
  return tostring(pinfo.src) .. ":" .. pinfo.src_port, "c"
end

-- Adds a part to the long message of `key`; returns the joined parts (a table of strings per
-- field) when this part is the last one. Parts come in order, numbered one after another.
local function join(key, number, first, last, chunks)
  local p = pending[key]
  if first then
    p = { next = number, parts = {} }
    pending[key] = p
  end
  if p == nil or p.next ~= number then
    pending[key] = nil
    return nil
  end
  p.parts[#p.parts + 1] = chunks
  p.next = (number + 1) % 65535
  if not last then return nil end
  pending[key] = nil
  return p.parts
end

local function link_state(tvb, pinfo, tree, len)
  if len < 10 then return short(tree, "Link State") end
  tree:add_le(f.ls_number, tvb(1, 2))
  tree:add_le(f.ls_link_id, tvb(3, 2))
  local flags = tree:add_le(f.ls_flags, tvb(5, 1))
  flags:add_le(f.ls_read_only, tvb(5, 1))
  local message_len = tvb(6, 2):le_uint()
  tree:add_le(f.ls_message_len, tvb(6, 2))
  if 8 + message_len + 2 > len then return short(tree, "Link State message") end
  tree:add(f.ls_message, tvb(8, message_len))
  local at = 8 + message_len
  tree:add_le(f.ls_value_count, tvb(at, 2))
  local offset, types = typed_values(tvb, tree, at + 2, len, tvb(at, 2):le_uint())
  if offset ~= nil and not pinfo.visited then
    local conv = conversation(pinfo)
    link_types[conv .. "|" .. tvb(3, 2):le_uint()] = types
  end
  return offset
end

local function link_update(tvb, pinfo, tree, len)
  if len < 2 then return short(tree, "Link Update") end
  local count = tvb(1, 1):uint()
  tree:add(f.link_count, tvb(1, 1))
  local known = frame_types[pinfo.number]
  local conv
  if not pinfo.visited then
    known, conv = {}, conversation(pinfo)
    frame_types[pinfo.number] = known
  end
  local offset = 2
  for _ = 1, count do
    if offset + 3 > len then return short(tree, "link") end
    local link_id = tvb(offset, 2):le_uint()
    local values = tvb(offset + 2, 1):uint()
    local sub = tree:add(tvb(offset, 3), "Link " .. link_id)
    sub:add_le(f.lu_link_id, tvb(offset, 2))
    sub:add(f.lu_value_count, tvb(offset + 2, 1))
    offset = offset + 3
    local types = known[link_id]
    if types == nil and conv ~= nil then
      types = link_types[conv .. "|" .. link_id]
      known[link_id] = types
    end
    if types == nil then
      sub:add_proto_expert_info(e_no_types, "no Link State announced this link's value types")
      sub:add(f.lu_unknown, tvb(offset, len - offset))
      return len
    end
    local start = offset
    for _ = 1, values do
      if offset + 2 > len then return short(sub, "value index") end
      local index = tvb(offset, 2):le_uint()
      sub:add_le(f.index, tvb(offset, 2))
      local t = TYPES[types[index + 1]]
      if t == nil then return short(sub, "value " .. index) end
      offset = value(tvb, sub, t, offset + 2, len)
      if offset == nil then return nil end
    end
    sub:set_len(3 + offset - start)
  end
  return offset
end

local function long_message(tvb, pinfo, tree, len)
  if len < 4 then return short(tree, "Long Reliable Message") end
  tree:add_le(f.lm_number, tvb(1, 2))
  local flags = tvb(3, 1):uint()
  local item = tree:add(f.lm_flags, tvb(3, 1))
  item:add(f.lm_first, tvb(3, 1))
  item:add(f.lm_last, tvb(3, 1))
  tree:add(f.lm_chunk, tvb(4, len - 4))
  if not pinfo.visited then
    local conv, side = conversation(pinfo)
    local parts = join(conv .. side, tvb(1, 2):le_uint(), flags % 2 == 1, flags >= 2,
      tvb:raw(4, len - 4))
    if parts ~= nil then frame_joined[pinfo.number] = { table.concat(parts), #parts } end
  end
  local joined = frame_joined[pinfo.number]
  if joined ~= nil then
    local whole = ByteArray.new(joined[1], true):tvb("Joined chunk")
    tree:add(f.lm_joined, whole())
    tree:add_proto_expert_info(e_joined, "joined from " .. joined[2] .. " parts")
    return len, " [joined from " .. joined[2] .. " parts]"
  end
  return len
end

local function long_link_state(tvb, pinfo, tree, len)
  if len < 8 then return short(tree, "Long Link State") end
  tree:add_le(f.ll_number, tvb(1, 2))
  tree:add_le(f.ll_link_id, tvb(3, 2))
  local flags = tvb(5, 1):uint()
  local item = tree:add(f.ll_flags, tvb(5, 1))
  item:add(f.ll_read_only, tvb(5, 1))
  item:add(f.ll_first, tvb(5, 1))
  item:add(f.ll_last, tvb(5, 1))
  local message_len = tvb(6, 2):le_uint()
  tree:add_le(f.ll_message_len, tvb(6, 2))
  if 8 + message_len > len then return short(tree, "Long Link State message") end
  tree:add(f.ll_message, tvb(8, message_len))
  tree:add(f.ll_values, tvb(8 + message_len, len - 8 - message_len))
  local link_id = tvb(3, 2):le_uint()
  if not pinfo.visited then
    local conv, side = conversation(pinfo)
    local parts = join(conv .. side .. link_id, tvb(1, 2):le_uint(), flags % 4 >= 2, flags >= 4,
      { tvb:raw(8, message_len), tvb:raw(8 + message_len, len - 8 - message_len) })
    if parts ~= nil then
      local message, values = {}, {}
      for i, p in ipairs(parts) do message[i], values[i] = p[1], p[2] end
      frame_joined[pinfo.number] = { table.concat(message), table.concat(values), #parts, conv }
    end
  end
  local joined = frame_joined[pinfo.number]
  if joined == nil then return len end
  tree:add_proto_expert_info(e_joined, "joined from " .. joined[3] .. " parts")
  if #joined[1] > 0 then
    tree:add(f.ll_joined, ByteArray.new(joined[1], true):tvb("Joined message_chunk")())
  end
  local values = ByteArray.new(joined[2], true):tvb("Joined values_chunk")
  local sub = tree:add(values(), "Joined values")
  if values:len() < 2 then return short(sub, "joined values") end
  sub:add_le(f.lv_value_count, values(0, 2))
  local _, types = typed_values(values, sub, 2, values:len(), values(0, 2):le_uint())
  if types ~= nil and not pinfo.visited then link_types[joined[4] .. "|" .. link_id] = types end
  return len, " [joined from " .. joined[3] .. " parts]"
end

-- The commands that carry only fixed fields: (field, offset, size) each.
local FIXED = {
  [1] = { { f.result, 1, 1 }, { f.protocol, 2, 2 } },
  [6] = { { f.ack_number, 1, 2 }, { f.ack_result, 3, 1 } },
  [7] = { { f.link_id, 1, 2 } },
  [8] = { { f.link_id, 1, 2 } },
}

local function body(tvb, pinfo, tree, command, len)
  if command == 9 then return link_update(tvb, pinfo, tree, len) end
  if command == 5 then return link_state(tvb, pinfo, tree, len) end
  if command == 10 then return long_message(tvb, pinfo, tree, len) end
  if command == 11 then return long_link_state(tvb, pinfo, tree, len) end
  if command == 3 then
    tree:add(f.unreliable_data, tvb(1, len - 1))
    return len
  end
  if command == 4 then
    if len < 3 then return short(tree, "Reliable Message") end
    tree:add_le(f.reliable_number, tvb(1, 2))
    tree:add(f.reliable_data, tvb(3, len - 3))
    return len
  end
  if command == 0 then
    if len < 3 then return short(tree, "Connection Request") end
    local count = tvb(1, 2):le_uint()
    tree:add_le(f.protocol_count, tvb(1, 2))
    if 3 + 2 * count > len then return short(tree, "protocols") end
    for i = 0, count - 1 do tree:add_le(f.protocols, tvb(3 + 2 * i, 2)) end
    return 3 + 2 * count
  end
  local fixed = FIXED[command]
  if fixed ~= nil then
    for _, x in ipairs(fixed) do
      -- A Connection Ack names a protocol only when it accepts.
      if x[2] + x[3] > len then
        if command == 1 and len == 2 then return len end
        return short(tree, VS_Code[command])
      end
      tree:add_le(x[1], tvb(x[2], x[3]))
    end
    return len
  end
  if command ~= 2 and len > 1 then tree:add(f.body, tvb(1, len - 1)) end
  return len
end

function proto.dissector(tvb, pinfo, tree)
  local len = tvb:len()
  if len < 1 then return 0 end
  pinfo.cols.protocol:set("DNP")
  local root = tree:add(proto, tvb())
  local command = tvb(0, 1):uint()
  root:add(f.code, tvb(0, 1))
  local _, suffix = body(tvb, pinfo, root, command, len)
  pinfo.cols.info:set((VS_Code[command] or "Unknown") .. (suffix or ""))
  return len
end

DissectorTable.get("udp.port"):add(SERVER_PORT, proto)
