-- A hand-written R-Type dissector, as a competent Wireshark Lua author would write it: the
-- yardstick of `cargo bench -p wiregen-tests --bench lua_versus`. It registers the same protocol
-- name and the same fields as the generated `dissectors/rtype.lua` (the bench first checks that
-- both print the same field values), reads the 20-byte header at fixed offsets after one length
-- check, adds each field with `tree:add_le(field, tvb(offset, len))`, and computes the CRC with a
-- 256-entry table and Wireshark 4.0's `bit32`. It is not generated and not a product: only the
-- benchmark loads it.

local proto = Proto("rtype", "R-Type Protocol")

local VS_Command = {
  [1] = "REQ_LOGIN", [2] = "RES_LOGIN", [3] = "REQ_JOIN_ROOM", [4] = "RES_ROOM_STATE",
  [16] = "C_INPUT", [17] = "S_ENTITY_STATE", [32] = "S_PLAYER_DEATH", [33] = "S_SCORE_UPDATE",
  [255] = "ACK",
}
local VS_STATUS = { [0] = "Bad", [1] = "Good" }

local f = {
  magic = ProtoField.uint16("rtype.magic", "Magic", base.HEX),
  command = ProtoField.uint8("rtype.command", "Command", base.HEX, VS_Command),
  flags = ProtoField.uint8("rtype.flags", "Flags", base.HEX),
  reliable = ProtoField.bool("rtype.flags.reliable", "RELIABLE", 8, nil, 0x1),
  is_fragment = ProtoField.bool("rtype.flags.is_fragment", "IS_FRAGMENT", 8, nil, 0x2),
  is_ack = ProtoField.bool("rtype.flags.is_ack", "IS_ACK", 8, nil, 0x4),
  is_error = ProtoField.bool("rtype.flags.is_error", "IS_ERROR", 8, nil, 0x8),
  sequence = ProtoField.uint32("rtype.sequence", "Sequence"),
  ack = ProtoField.uint32("rtype.ack", "Ack"),
  fragment_id = ProtoField.uint16("rtype.fragment_id", "Fragment id"),
  fragment_index = ProtoField.uint8("rtype.fragment_index", "Fragment index"),
  fragment_count = ProtoField.uint8("rtype.fragment_count", "Fragment count"),
  payload_size = ProtoField.uint16("rtype.payload_size", "Payload size"),
  checksum = ProtoField.uint16("rtype.checksum", "Checksum", base.HEX),
  status = ProtoField.uint8("rtype.checksum.status", "Checksum status", base.DEC, VS_STATUS),
  payload = ProtoField.bytes("rtype.payload", "Payload"),
  username_len = ProtoField.uint8("rtype.req_login.username_len", "Username len"),
  username = ProtoField.string("rtype.req_login.username", "Username", base.UNICODE),
  version = ProtoField.uint32("rtype.req_login.version", "Version"),
  preferred = ProtoField.uint16("rtype.req_login.preferred_fragment_size", "Preferred fragment size"),
  success = ProtoField.uint8("rtype.res_login.success", "Success"),
  player_id = ProtoField.uint32("rtype.res_login.player_id", "Player id"),
  effective = ProtoField.uint16("rtype.res_login.effective_fragment_size", "Effective fragment size"),
  room_id = ProtoField.uint32("rtype.req_join_room.room_id", "Room id"),
  input_mask = ProtoField.uint8("rtype.c_input.input_mask", "Input mask", base.HEX),
  up = ProtoField.bool("rtype.c_input.input_mask.up", "UP", 8, nil, 0x1),
  down = ProtoField.bool("rtype.c_input.input_mask.down", "DOWN", 8, nil, 0x2),
  left = ProtoField.bool("rtype.c_input.input_mask.left", "LEFT", 8, nil, 0x4),
  right = ProtoField.bool("rtype.c_input.input_mask.right", "RIGHT", 8, nil, 0x8),
  shoot = ProtoField.bool("rtype.c_input.input_mask.shoot", "SHOOT", 8, nil, 0x10),
  entity_id = ProtoField.uint32("rtype.entity_state.entity_id", "Entity id"),
  x = ProtoField.uint16("rtype.entity_state.x", "X"),
  y = ProtoField.uint16("rtype.entity_state.y", "Y"),
  type = ProtoField.uint8("rtype.entity_state.type", "Type"),
}
proto.fields = {
  f.magic, f.command, f.flags, f.reliable, f.is_fragment, f.is_ack, f.is_error, f.sequence,
  f.ack, f.fragment_id, f.fragment_index, f.fragment_count, f.payload_size, f.checksum,
  f.status, f.payload, f.username_len, f.username, f.version, f.preferred, f.success,
  f.player_id, f.effective, f.room_id, f.input_mask, f.up, f.down, f.left, f.right, f.shoot,
  f.entity_id, f.x, f.y, f.type,
}

local e_short = ProtoExpert.new("rtype.expert.truncated", "Truncated", expert.group.MALFORMED, expert.severity.ERROR)
local e_checksum = ProtoExpert.new("rtype.expert.bad_checksum", "Bad checksum", expert.group.CHECKSUM, expert.severity.ERROR)
proto.experts = { e_short, e_checksum }

-- CRC-16/CCITT-FALSE, one table lookup per byte.
local band, bxor, lshift, rshift = bit32.band, bit32.bxor, bit32.lshift, bit32.rshift
local CRC = {}
for i = 0, 255 do
  local c = lshift(i, 8)
  for _ = 1, 8 do
    if band(c, 0x8000) ~= 0 then c = band(bxor(lshift(c, 1), 0x1021), 0xFFFF)
    else c = band(lshift(c, 1), 0xFFFF) end
  end
  CRC[i] = c
end
local function crc16(s, skip)
  local c = 0xFFFF
  for k = 1, #s do
    local b = (k == skip or k == skip + 1) and 0 or s:byte(k)
    c = bxor(band(lshift(c, 8), 0xFFFF), CRC[bxor(rshift(c, 8), b)])
  end
  return c
end

local function flag_text(v)
  local out = {}
  if v % 2 == 1 then out[#out + 1] = "RELIABLE" end
  if math.floor(v / 2) % 2 == 1 then out[#out + 1] = "IS_FRAGMENT" end
  if math.floor(v / 4) % 2 == 1 then out[#out + 1] = "IS_ACK" end
  if math.floor(v / 8) % 2 == 1 then out[#out + 1] = "IS_ERROR" end
  if #out == 0 then return "" end
  return " [" .. table.concat(out, ",") .. "]"
end
local FLAG_TEXT = {}
for v = 0, 255 do FLAG_TEXT[v] = flag_text(v) end

local function payload(tvb, tree, command, off, n)
  if command == 17 then
    local sub = tree:add(tvb(off, n), "Payload: SEntityState")
    local list = sub:add(tvb(off, n), "Entities")
    local count = math.floor(n / 9)
    for i = 0, count - 1 do
      local o = off + i * 9
      local e = list:add(tvb(o, 9), "Entities: EntityState")
      e:add_le(f.entity_id, tvb(o, 4))
      e:add_le(f.x, tvb(o + 4, 2))
      e:add_le(f.y, tvb(o + 6, 2))
      e:add_le(f.type, tvb(o + 8, 1))
    end
    list:append_text(string.format(" (%d)", count))
  elseif command == 16 then
    local sub = tree:add(tvb(off, n), "Payload: CInput")
    local r = tvb(off, 1)
    local m = sub:add_le(f.input_mask, r)
    m:add_le(f.up, r)
    m:add_le(f.down, r)
    m:add_le(f.left, r)
    m:add_le(f.right, r)
    m:add_le(f.shoot, r)
  elseif command == 1 then
    local sub = tree:add(tvb(off, n), "Payload: ReqLogin")
    local len = tvb(off, 1):uint()
    sub:add_le(f.username_len, tvb(off, 1))
    sub:add_packet_field(f.username, tvb(off + 1, len), ENC_UTF_8)
    sub:add_le(f.version, tvb(off + 1 + len, 4))
    sub:add_le(f.preferred, tvb(off + 5 + len, 2))
  elseif command == 2 then
    local sub = tree:add(tvb(off, n), "Payload: ResLogin")
    sub:add_le(f.success, tvb(off, 1))
    sub:add_le(f.player_id, tvb(off + 1, 4))
    sub:add_le(f.effective, tvb(off + 5, 2))
  elseif command == 3 then
    local sub = tree:add(tvb(off, n), "Payload: ReqJoinRoom")
    sub:add_le(f.room_id, tvb(off, 4))
  elseif command ~= 255 and n > 0 then
    tree:add(f.payload, tvb(off, n))
  end
end

function proto.dissector(tvb, pinfo, tree)
  local len = tvb:len()
  pinfo.cols.protocol:set("RTYPE")
  local root = tree:add(proto, tvb())
  if len < 20 then
    root:add_proto_expert_info(e_short, "shorter than the 20-byte header")
    return len
  end
  root:add_le(f.magic, tvb(0, 2))
  local command = tvb(2, 1):uint()
  root:add_le(f.command, tvb(2, 1))
  local fr = tvb(3, 1)
  local flags = fr:uint()
  local fi = root:add_le(f.flags, fr)
  fi:add_le(f.reliable, fr)
  fi:add_le(f.is_fragment, fr)
  fi:add_le(f.is_ack, fr)
  fi:add_le(f.is_error, fr)
  local seq = tvb(4, 4):le_uint()
  root:add_le(f.sequence, tvb(4, 4))
  local ack = tvb(8, 4):le_uint()
  root:add_le(f.ack, tvb(8, 4))
  root:add_le(f.fragment_id, tvb(12, 2))
  root:add_le(f.fragment_index, tvb(14, 1))
  root:add_le(f.fragment_count, tvb(15, 1))
  local n = tvb(16, 2):le_uint()
  root:add_le(f.payload_size, tvb(16, 2))
  local cr = tvb(18, 2)
  local ci = root:add_le(f.checksum, cr)
  local computed = crc16(tvb:raw(0, len), 19)
  if computed == cr:le_uint() then
    ci:add(f.status, cr, 1):set_generated()
  else
    ci:add(f.status, cr, 0):set_generated()
    ci:add_proto_expert_info(e_checksum)
  end
  if n > len - 20 then
    root:add_proto_expert_info(e_short, "payload_size beyond the datagram")
  elseif flags % 4 >= 2 then
    root:add(f.payload, tvb(20, n))
  else
    payload(tvb, root, command, 20, n)
  end
  pinfo.cols.info:set((VS_Command[command] or string.format("Unknown (0x%02x)", command))
    .. " seq=" .. seq .. " ack=" .. ack .. FLAG_TEXT[flags])
  return len
end

DissectorTable.get("udp.port"):add(8080, proto)
