//! Decoding borrows: a message whose types hold no arrays decodes with zero heap allocations,
//! and what a decoder allocates is bounded by its input, whatever counts the input claims.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use wiregen_runtime::Codec;

struct Counting;

// Per thread: tests run in parallel, each counts only its own allocations.
thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

fn bytes_allocated() -> usize {
    BYTES.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        let _ = BYTES.try_with(|c| c.set(c.get() + layout.size()));
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
    let before = allocations();
    let p = rtype::Packet::decode(&login).unwrap();
    let after = allocations();
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
    let before = allocations();
    let _ = rtype::Packet::decode(&bytes).unwrap();
    assert_eq!(allocations() - before, 1);
}

#[test]
fn absurd_counts_fail_without_allocating_what_they_claim() {
    // A Connection Request announcing 65535 protocols (u16 each) in a 5-byte datagram.
    let bytes = [0x00, 0xff, 0xff, 0x00, 0x00];
    let before = bytes_allocated();
    let e = dnp::Command::decode(&bytes).unwrap_err();
    let allocated = bytes_allocated() - before;
    assert!(
        matches!(e.kind, dnp::DecodeErrorKind::Truncated { .. }),
        "{e}"
    );
    // Room for the one protocol the input holds (and the error's field path), not 65535.
    assert!(allocated < 256, "{allocated} bytes");
}
