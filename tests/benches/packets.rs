//! The packets the benches time (shared by `codec` and `versus`).

use std::borrow::Cow;

/// A 34-byte login request (the user name "Player1").
pub fn rtype_login() -> rtype::Packet<'static> {
    rtype::Packet {
        flags: rtype::PacketFlags::RELIABLE,
        sequence: 1,
        ack: 0,
        fragment_id: 0,
        fragment_index: 0,
        fragment_count: 0,
        payload: rtype::PacketPayload::ReqLogin(rtype::ReqLogin {
            username: Cow::Borrowed("Player1"),
            version: 1,
            preferred_fragment_size: 1004,
        }),
    }
}

/// A world update with `n` entities (9 bytes each).
pub fn rtype_world(n: u32) -> rtype::Packet<'static> {
    let entities = (0..n)
        .map(|i| rtype::EntityState {
            entity_id: i,
            x: i as u16,
            y: 7,
            r#type: 1,
        })
        .collect();
    rtype::Packet {
        payload: rtype::PacketPayload::SEntityState(rtype::SEntityState { entities }),
        flags: rtype::PacketFlags::empty(),
        ..rtype_login()
    }
}
