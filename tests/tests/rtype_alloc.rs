//! Decoding borrows: a message whose types hold no arrays decodes with zero heap allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn decoding_strings_and_bytes_does_not_allocate() {
    let login = [
        0xce, 0xd1, 0x01, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0e, 0x00, 0x2e, 0xe9,
        0x07, b'P', b'l', b'a', b'y', b'e', b'r', b'1', 1, 0, 0, 0, 0xec, 0x03,
    ];
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let p = rtype::Packet::decode(&login).unwrap();
    let after = ALLOCATIONS.load(Ordering::SeqCst);
    assert_eq!(after - before, 0, "decode allocated");
    match &p.payload {
        rtype::PacketPayload::ReqLogin(l) => {
            assert!(matches!(l.username, std::borrow::Cow::Borrowed("Player1")));
            // The name points into the input: no copy was made.
            assert_eq!(l.username.as_ptr(), login[21..].as_ptr());
        }
        other => panic!("{other:?}"),
    }
    // A Vec of records allocates once, sized by what the input can hold.
    let mut world = rtype::Packet {
        payload: rtype::PacketPayload::SEntityState(rtype::SEntityState { entities: vec![] }),
        ..p.clone()
    };
    if let rtype::PacketPayload::SEntityState(s) = &mut world.payload {
        s.entities = vec![
            rtype::EntityState {
                entity_id: 1,
                x: 2,
                y: 3,
                r#type: 4
            };
            50
        ];
    }
    let bytes = world.encode().unwrap();
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let _ = rtype::Packet::decode(&bytes).unwrap();
    assert_eq!(ALLOCATIONS.load(Ordering::SeqCst) - before, 1);
}
