//! Encode/decode speed of the generated crates (`cargo bench -p wiregen-tests --bench codec`).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::borrow::Cow;
use wiregen_runtime::Codec;

fn rtype_login() -> rtype::Packet<'static> {
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

fn rtype_world(n: u32) -> rtype::Packet<'static> {
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

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("rtype");
    for (name, packet) in [("login", rtype_login()), ("world_100", rtype_world(100))] {
        let bytes = packet.encode().unwrap();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(format!("decode/{name}"), |b| {
            b.iter(|| rtype::Packet::decode(black_box(&bytes)).unwrap())
        });
        let mut out = Vec::with_capacity(bytes.len());
        g.bench_function(format!("encode/{name}"), |b| {
            b.iter(|| {
                out.clear();
                black_box(&packet).encode_into(&mut out).unwrap();
            })
        });
        g.bench_function(format!("dissect/{name}"), |b| {
            b.iter(|| rtype::Packet::dissect(black_box(&bytes)).1.len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
