//! Encode/decode speed of the generated crates (`cargo bench -p wiregen-tests --bench codec`).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use wiregen_runtime::Codec;

mod packets;
use packets::{rtype_login, rtype_world};

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
