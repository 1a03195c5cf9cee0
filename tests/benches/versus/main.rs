//! Generated code side by side with the code a good engineer would write by hand, and with
//! deku, in one run: `cargo bench -p wiregen-tests --bench versus`.
//!
//! Each case runs every implementation in interleaved rounds (so that a noisy moment of the
//! host hits all of them alike), takes the median time per operation of each, and prints the
//! ratios to the generated code. A counting allocator reports heap allocations per operation.
//! Every implementation is first checked to give the same result as the generated one: a fast
//! wrong decoder would prove nothing.

mod alloc_count;
mod deku_rtype;
mod hand_riptide;
mod hand_rtype;
#[path = "../packets.rs"]
mod packets;

use std::hint::black_box;
use std::time::{Duration, Instant};
use wiregen_runtime::Codec;

#[global_allocator]
static ALLOC: alloc_count::Counting = alloc_count::Counting;

/// One implementation of one operation: runs it once on its prepared input.
struct Contender<'c> {
    name: &'static str,
    run: Box<dyn FnMut() + 'c>,
}

/// Median nanoseconds per call of each contender over `rounds` interleaved rounds.
fn race(contenders: &mut [Contender<'_>], rounds: usize) -> Vec<f64> {
    // Calls per round: enough for a round of the first to take about 2 ms.
    let mut calls = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..calls {
            (contenders[0].run)();
        }
        if t.elapsed() > Duration::from_millis(2) || calls > 1 << 24 {
            break;
        }
        calls *= 2;
    }
    let mut samples = vec![Vec::with_capacity(rounds); contenders.len()];
    for _ in 0..rounds {
        for (c, s) in contenders.iter_mut().zip(&mut samples) {
            let t = Instant::now();
            for _ in 0..calls {
                (c.run)();
            }
            s.push(t.elapsed().as_nanos() as f64 / calls as f64);
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect()
}

/// Heap allocations of one call.
fn allocations(run: &mut dyn FnMut()) -> u64 {
    run();
    let before = alloc_count::count();
    run();
    alloc_count::count() - before
}

fn report(case: &str, contenders: &mut [Contender<'_>], rounds: usize) {
    let allocs: Vec<u64> = contenders
        .iter_mut()
        .map(|c| allocations(&mut c.run))
        .collect();
    let times = race(contenders, rounds);
    let generated = times[0];
    for ((c, t), a) in contenders.iter().zip(&times).zip(&allocs) {
        let ratio = if c.name == "generated" {
            String::new()
        } else {
            format!("generated/{} = {:.2}", c.name, generated / t)
        };
        println!(
            "{case:<34} {:<10} {t:>9.1} ns  {a:>2} allocs  {ratio}",
            c.name
        );
    }
}

fn main() {
    // `cargo test` runs benches once as tests: keep that quick.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        31
    } else {
        3
    };
    println!(
        "{:<34} {:<10} {:>12}  {:>9}  ratio (< 1: generated is faster)",
        "case", "code", "time/op", "allocs"
    );
    // `cargo bench --bench versus -- riptide` runs only the cases whose name contains it.
    let only = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let wanted = |case: &str| only.as_deref().is_none_or(|o| case.contains(o));
    if wanted("rtype") {
        rtype_cases(rounds);
    }
    if wanted("riptide") {
        riptide_cases(rounds);
    }
}

fn rtype_cases(rounds: usize) {
    for (name, packet) in [
        ("rtype login (34 B, CRC)", packets::rtype_login()),
        ("rtype world, 100 entities", packets::rtype_world(100)),
    ] {
        let bytes = packet.encode().unwrap();
        // The same values, the same way, from all three.
        let hand = hand_rtype::decode(&bytes).unwrap();
        hand_rtype::assert_same(&hand, &packet);
        assert_eq!(hand_rtype::encode(&hand), bytes);
        let deku = deku_rtype::decode(&bytes).unwrap();
        assert_eq!(deku_rtype::encode(&deku), bytes);

        report(
            &format!("{name}: decode"),
            &mut [
                Contender {
                    name: "generated",
                    run: Box::new(|| {
                        black_box(rtype::Packet::decode(black_box(&bytes)).unwrap());
                    }),
                },
                Contender {
                    name: "hand",
                    run: Box::new(|| {
                        black_box(hand_rtype::decode(black_box(&bytes)).unwrap());
                    }),
                },
                Contender {
                    name: "deku",
                    run: Box::new(|| {
                        black_box(deku_rtype::decode(black_box(&bytes)).unwrap());
                    }),
                },
            ],
            rounds,
        );
        report(
            &format!("{name}: encode"),
            &mut [
                Contender {
                    name: "generated",
                    run: Box::new(|| {
                        black_box(black_box(&packet).encode().unwrap());
                    }),
                },
                Contender {
                    name: "hand",
                    run: Box::new(|| {
                        black_box(hand_rtype::encode(black_box(&hand)));
                    }),
                },
                Contender {
                    name: "deku",
                    run: Box::new(|| {
                        black_box(deku_rtype::encode(black_box(&deku)));
                    }),
                },
            ],
            rounds,
        );
    }
}

fn riptide_cases(rounds: usize) {
    let bytes = hand_riptide::message().encode().unwrap();
    let decoded = riptide_2_1::Message::decode(&bytes).unwrap();
    let hand = hand_riptide::decode(&bytes).unwrap();
    hand_riptide::assert_same(&hand, &decoded);
    assert_eq!(hand_riptide::encode(&hand), bytes);
    assert_eq!(decoded.encode().unwrap(), bytes);
    let name = "riptide 2.1 reliable (45 B, bits)";
    report(
        &format!("{name}: decode"),
        &mut [
            Contender {
                name: "generated",
                run: Box::new(|| {
                    black_box(riptide_2_1::Message::decode(black_box(&bytes)).unwrap());
                }),
            },
            Contender {
                name: "hand",
                run: Box::new(|| {
                    black_box(hand_riptide::decode(black_box(&bytes)).unwrap());
                }),
            },
        ],
        rounds,
    );
    report(
        &format!("{name}: encode"),
        &mut [
            Contender {
                name: "generated",
                run: Box::new(|| {
                    black_box(black_box(&decoded).encode().unwrap());
                }),
            },
            Contender {
                name: "hand",
                run: Box::new(|| {
                    black_box(hand_riptide::encode(black_box(&hand)));
                }),
            },
        ],
        rounds,
    );
}
