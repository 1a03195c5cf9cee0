
-- A statistic printed as text: `tshark -z {{ name }},<arg>` and, in Wireshark, an item of
-- Statistics › wiregen. `make` gives a tap and the function writing its text.
local function register_text_stat(arg, title, make)
  register_stat_cmd_arg("{{ name }}," .. arg, function()
    local tap, text = make()
    function tap.draw() print(text()) end
  end)
  if gui_enabled() then
    register_menu("wiregen/" .. title, function()
      local window = TextWindow.new(title)
      local tap, text = make()
      function tap.draw() window:set(text()) end
      window:set_atclose(function() tap:remove() end)
      retap_packets()
    end, MENU_STAT_UNSORTED)
  end
end

-- `tshark -z {{ name }},fields` (and Statistics › wiregen › {{ title }} bytes per field): the
-- bytes each field takes, summed over the capture, as `wirecat stats` counts them — the fields
-- of the datagram's own bytes (not of payloads joined from several), a part of a field (a flag
-- bit, a checksum's status) counted with it, computed values not at all. The tap sees every
-- field of a frame only while it is on: dissection pays nothing for it otherwise.
local function field_stats()
  local rows, order = {}, {}
  local prefix = "{{ name }}."
  local tap = Listener.new("frame", "{{ name }}", true)
  function tap.packet(pinfo, tvb)
    local frame_len = tvb:reported_len()
    local holder, from, to
    for _, fi in ipairs({ all_field_infos() }) do
      local name = fi.name
      if name:sub(1, #prefix) == prefix and not fi.generated
          and fi.source ~= nil and fi.source:reported_len() == frame_len
          and name:sub(#prefix + 1, #prefix + 9) ~= "analysis." and name:sub(#prefix + 1, #prefix + 7) ~= "expert." then
        local offset = fi.offset
        local last = offset + fi.len
        local inside = holder ~= nil and #name > #holder and name:sub(1, #holder + 1) == holder .. "."
          and from <= offset and last <= to
        if not inside then
          holder, from, to = name, offset, last
          local r = rows[name]
          if r == nil then
            r = { count = 0, bytes = 0 }
            rows[name] = r
            order[#order + 1] = name
          end
          r.count = r.count + 1
          r.bytes = r.bytes + fi.len
        end
      end
    end
  end
  function tap.reset()
    rows, order = {}, {}
  end
  local function text()
    table.sort(order, function(a, b)
      if rows[a].bytes ~= rows[b].bytes then return rows[a].bytes > rows[b].bytes end
      return a < b
    end)
    local lines = { "{{ title }} bytes per field",
      fmt("%-60s %9s %11s", "field", "count", "bytes") }
    for _, name in ipairs(order) do
      lines[#lines + 1] = fmt("%-60s %9d %11d", name, rows[name].count, rows[name].bytes)
    end
    return table.concat(lines, "\n")
  end
  return tap, text
end

register_text_stat("fields", "{{ title }} bytes per field", field_stats)
