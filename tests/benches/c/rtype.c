/*
 * A hand-written R-Type dissector as a Wireshark plugin in C: the compiled limit beside the Lua
 * ones in `cargo bench -p wiregen-tests --bench lua_versus` (issue 47's spike; not generated,
 * not a product). It registers the same protocol name and fields as `benches/lua/hand_rtype.lua`
 * and the generated `dissectors/rtype.lua`: the bench first checks that it prints the same field
 * values. Built out of tree against Debian's libwireshark-dev (Wireshark 4.0) by `build.sh`.
 */

#define WS_BUILD_DLL
#include <ws_version.h>
#include <epan/packet.h>
#include <epan/expert.h>

#ifndef VERSION
#define VERSION "0.1.0"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);

static int proto_rtype = -1;
static int hf_magic = -1, hf_command = -1, hf_flags = -1, hf_reliable = -1, hf_is_fragment = -1,
           hf_is_ack = -1, hf_is_error = -1, hf_sequence = -1, hf_ack = -1, hf_fragment_id = -1,
           hf_fragment_index = -1, hf_fragment_count = -1, hf_payload_size = -1, hf_checksum = -1,
           hf_status = -1, hf_payload = -1, hf_username_len = -1, hf_username = -1, hf_version = -1,
           hf_preferred = -1, hf_success = -1, hf_player_id = -1, hf_effective = -1,
           hf_room_id = -1, hf_input_mask = -1, hf_up = -1, hf_down = -1, hf_left = -1,
           hf_right = -1, hf_shoot = -1, hf_entity_id = -1, hf_x = -1, hf_y = -1, hf_type = -1;
static gint ett_rtype = -1, ett_flags = -1, ett_payload = -1, ett_entities = -1, ett_entity = -1,
            ett_mask = -1, ett_checksum = -1;
static expert_field ei_short = EI_INIT, ei_checksum = EI_INIT;

static const value_string command_vals[] = {
    {1, "REQ_LOGIN"}, {2, "RES_LOGIN"}, {3, "REQ_JOIN_ROOM"}, {4, "RES_ROOM_STATE"},
    {16, "C_INPUT"}, {17, "S_ENTITY_STATE"}, {32, "S_PLAYER_DEATH"}, {33, "S_SCORE_UPDATE"},
    {255, "ACK"}, {0, NULL}};
static const value_string status_vals[] = {{0, "Bad"}, {1, "Good"}, {0, NULL}};

/* CRC-16/CCITT-FALSE, one table lookup per byte. */
static guint16 crc_table[256];

static void crc_init(void)
{
    for (int i = 0; i < 256; i++) {
        guint16 c = (guint16)(i << 8);
        for (int k = 0; k < 8; k++)
            c = (c & 0x8000) ? (guint16)((c << 1) ^ 0x1021) : (guint16)(c << 1);
        crc_table[i] = c;
    }
}

/* The CRC of the datagram with its checksum's two bytes (18, 19) read as zero. */
static guint16 crc16(const guint8 *p, guint len)
{
    guint16 c = 0xFFFF;
    for (guint k = 0; k < len; k++) {
        guint8 b = (k == 18 || k == 19) ? 0 : p[k];
        c = (guint16)((c << 8) ^ crc_table[((c >> 8) ^ b) & 0xFF]);
    }
    return c;
}

static void dissect_payload(tvbuff_t *tvb, proto_tree *tree, guint8 command, int off, int n)
{
    proto_tree *sub;
    proto_item *item;
    switch (command) {
    case 17: {
        sub = proto_tree_add_subtree(tree, tvb, off, n, ett_payload, NULL, "Payload: SEntityState");
        int count = n / 9;
        proto_tree *list = proto_tree_add_subtree(sub, tvb, off, n, ett_entities, &item, "Entities");
        for (int i = 0; i < count; i++) {
            int o = off + i * 9;
            proto_tree *e = proto_tree_add_subtree(list, tvb, o, 9, ett_entity, NULL, "Entities: EntityState");
            proto_tree_add_item(e, hf_entity_id, tvb, o, 4, ENC_LITTLE_ENDIAN);
            proto_tree_add_item(e, hf_x, tvb, o + 4, 2, ENC_LITTLE_ENDIAN);
            proto_tree_add_item(e, hf_y, tvb, o + 6, 2, ENC_LITTLE_ENDIAN);
            proto_tree_add_item(e, hf_type, tvb, o + 8, 1, ENC_LITTLE_ENDIAN);
        }
        proto_item_append_text(item, " (%d)", count);
        break;
    }
    case 16: {
        static int *const mask_bits[] = {&hf_up, &hf_down, &hf_left, &hf_right, &hf_shoot, NULL};
        sub = proto_tree_add_subtree(tree, tvb, off, n, ett_payload, NULL, "Payload: CInput");
        proto_tree_add_bitmask(sub, tvb, off, hf_input_mask, ett_mask, mask_bits, ENC_LITTLE_ENDIAN);
        break;
    }
    case 1: {
        sub = proto_tree_add_subtree(tree, tvb, off, n, ett_payload, NULL, "Payload: ReqLogin");
        guint len = tvb_get_guint8(tvb, off);
        proto_tree_add_item(sub, hf_username_len, tvb, off, 1, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(sub, hf_username, tvb, off + 1, len, ENC_UTF_8);
        proto_tree_add_item(sub, hf_version, tvb, off + 1 + len, 4, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(sub, hf_preferred, tvb, off + 5 + len, 2, ENC_LITTLE_ENDIAN);
        break;
    }
    case 2:
        sub = proto_tree_add_subtree(tree, tvb, off, n, ett_payload, NULL, "Payload: ResLogin");
        proto_tree_add_item(sub, hf_success, tvb, off, 1, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(sub, hf_player_id, tvb, off + 1, 4, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(sub, hf_effective, tvb, off + 5, 2, ENC_LITTLE_ENDIAN);
        break;
    case 3:
        sub = proto_tree_add_subtree(tree, tvb, off, n, ett_payload, NULL, "Payload: ReqJoinRoom");
        proto_tree_add_item(sub, hf_room_id, tvb, off, 4, ENC_LITTLE_ENDIAN);
        break;
    default:
        if (command != 255 && n > 0)
            proto_tree_add_item(tree, hf_payload, tvb, off, n, ENC_NA);
    }
}

static int dissect_rtype(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    static int *const flag_bits[] = {&hf_reliable, &hf_is_fragment, &hf_is_ack, &hf_is_error, NULL};
    guint len = tvb_captured_length(tvb);
    col_set_str(pinfo->cinfo, COL_PROTOCOL, "RTYPE");
    proto_item *ti = proto_tree_add_item(tree, proto_rtype, tvb, 0, -1, ENC_NA);
    proto_tree *root = proto_item_add_subtree(ti, ett_rtype);
    if (len < 20) {
        expert_add_info_format(pinfo, ti, &ei_short, "shorter than the 20-byte header");
        return len;
    }
    guint8 command = tvb_get_guint8(tvb, 2);
    guint8 flags = tvb_get_guint8(tvb, 3);
    guint32 seq = tvb_get_letohl(tvb, 4);
    guint32 ack = tvb_get_letohl(tvb, 8);
    int n = tvb_get_letohs(tvb, 16);
    if (tree) {
        proto_tree_add_item(root, hf_magic, tvb, 0, 2, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(root, hf_command, tvb, 2, 1, ENC_LITTLE_ENDIAN);
        proto_tree_add_bitmask(root, tvb, 3, hf_flags, ett_flags, flag_bits, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(root, hf_sequence, tvb, 4, 4, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(root, hf_ack, tvb, 8, 4, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(root, hf_fragment_id, tvb, 12, 2, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(root, hf_fragment_index, tvb, 14, 1, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(root, hf_fragment_count, tvb, 15, 1, ENC_LITTLE_ENDIAN);
        proto_tree_add_item(root, hf_payload_size, tvb, 16, 2, ENC_LITTLE_ENDIAN);
    }
    /* The checksum is checked on every pass (its expert item counts in summaries too). */
    proto_item *ci = proto_tree_add_item(root, hf_checksum, tvb, 18, 2, ENC_LITTLE_ENDIAN);
    proto_tree *ct = proto_item_add_subtree(ci, ett_checksum);
    gboolean good = crc16(tvb_get_ptr(tvb, 0, len), len) == tvb_get_letohs(tvb, 18);
    proto_item *si = proto_tree_add_uint(ct, hf_status, tvb, 18, 2, good ? 1 : 0);
    proto_item_set_generated(si);
    if (!good)
        expert_add_info(pinfo, ci, &ei_checksum);
    if (n > (int)len - 20)
        expert_add_info_format(pinfo, ti, &ei_short, "payload_size beyond the datagram");
    else if (flags & 0x2)
        proto_tree_add_item(root, hf_payload, tvb, 20, n, ENC_NA);
    else if (tree)
        dissect_payload(tvb, root, command, 20, n);
    col_add_fstr(pinfo->cinfo, COL_INFO, "%s seq=%u ack=%u%s%s%s%s%s%s%s%s%s",
                 val_to_str_const(command, command_vals, "Unknown"), seq, ack,
                 (flags & 0xF) ? " [" : "",
                 (flags & 1) ? "RELIABLE" : "",
                 (flags & 1) && (flags & 0xE) ? "," : "",
                 (flags & 2) ? "IS_FRAGMENT" : "",
                 (flags & 2) && (flags & 0xC) ? "," : "",
                 (flags & 4) ? "IS_ACK" : "",
                 (flags & 4) && (flags & 0x8) ? "," : "",
                 (flags & 8) ? "IS_ERROR" : "",
                 (flags & 0xF) ? "]" : "");
    return len;
}

static void proto_register_rtype(void)
{
    static hf_register_info hf[] = {
        {&hf_magic, {"Magic", "rtype.magic", FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_command, {"Command", "rtype.command", FT_UINT8, BASE_HEX, VALS(command_vals), 0, NULL, HFILL}},
        {&hf_flags, {"Flags", "rtype.flags", FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_reliable, {"RELIABLE", "rtype.flags.reliable", FT_BOOLEAN, 8, NULL, 0x1, NULL, HFILL}},
        {&hf_is_fragment, {"IS_FRAGMENT", "rtype.flags.is_fragment", FT_BOOLEAN, 8, NULL, 0x2, NULL, HFILL}},
        {&hf_is_ack, {"IS_ACK", "rtype.flags.is_ack", FT_BOOLEAN, 8, NULL, 0x4, NULL, HFILL}},
        {&hf_is_error, {"IS_ERROR", "rtype.flags.is_error", FT_BOOLEAN, 8, NULL, 0x8, NULL, HFILL}},
        {&hf_sequence, {"Sequence", "rtype.sequence", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_ack, {"Ack", "rtype.ack", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_fragment_id, {"Fragment id", "rtype.fragment_id", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_fragment_index, {"Fragment index", "rtype.fragment_index", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_fragment_count, {"Fragment count", "rtype.fragment_count", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_payload_size, {"Payload size", "rtype.payload_size", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_checksum, {"Checksum", "rtype.checksum", FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_status, {"Checksum status", "rtype.checksum.status", FT_UINT8, BASE_DEC, VALS(status_vals), 0, NULL, HFILL}},
        {&hf_payload, {"Payload", "rtype.payload", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_username_len, {"Username len", "rtype.req_login.username_len", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_username, {"Username", "rtype.req_login.username", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_version, {"Version", "rtype.req_login.version", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_preferred, {"Preferred fragment size", "rtype.req_login.preferred_fragment_size", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_success, {"Success", "rtype.res_login.success", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_player_id, {"Player id", "rtype.res_login.player_id", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_effective, {"Effective fragment size", "rtype.res_login.effective_fragment_size", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_room_id, {"Room id", "rtype.req_join_room.room_id", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_input_mask, {"Input mask", "rtype.c_input.input_mask", FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_up, {"UP", "rtype.c_input.input_mask.up", FT_BOOLEAN, 8, NULL, 0x1, NULL, HFILL}},
        {&hf_down, {"DOWN", "rtype.c_input.input_mask.down", FT_BOOLEAN, 8, NULL, 0x2, NULL, HFILL}},
        {&hf_left, {"LEFT", "rtype.c_input.input_mask.left", FT_BOOLEAN, 8, NULL, 0x4, NULL, HFILL}},
        {&hf_right, {"RIGHT", "rtype.c_input.input_mask.right", FT_BOOLEAN, 8, NULL, 0x8, NULL, HFILL}},
        {&hf_shoot, {"SHOOT", "rtype.c_input.input_mask.shoot", FT_BOOLEAN, 8, NULL, 0x10, NULL, HFILL}},
        {&hf_entity_id, {"Entity id", "rtype.entity_state.entity_id", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_x, {"X", "rtype.entity_state.x", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_y, {"Y", "rtype.entity_state.y", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_type, {"Type", "rtype.entity_state.type", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
    };
    static gint *ett[] = {&ett_rtype, &ett_flags, &ett_payload, &ett_entities, &ett_entity, &ett_mask, &ett_checksum};
    static ei_register_info ei[] = {
        {&ei_short, {"rtype.expert.truncated", PI_MALFORMED, PI_ERROR, "Truncated", EXPFILL}},
        {&ei_checksum, {"rtype.expert.bad_checksum", PI_CHECKSUM, PI_ERROR, "Bad checksum", EXPFILL}},
    };
    proto_rtype = proto_register_protocol("R-Type Protocol", "RTYPE", "rtype");
    proto_register_field_array(proto_rtype, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_register_field_array(expert_register_protocol(proto_rtype), ei, array_length(ei));
    crc_init();
}

static void proto_reg_handoff_rtype(void)
{
    dissector_handle_t handle = create_dissector_handle(dissect_rtype, proto_rtype);
    dissector_add_uint("udp.port", 8080, handle);
}

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_rtype;
    plug.register_handoff = proto_reg_handoff_rtype;
    proto_register_plugin(&plug);
}
