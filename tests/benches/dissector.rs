//! Throughput of a generated dissector in real tshark (`cargo bench -p wiregen-tests --bench
//! dissector`): one capture of 20,000 R-Type datagrams, read by tshark with and without the
//! dissector, once printing summary lines and once printing the full tree (`-V`, where printing the
//! extra tree lines is part of the cost). Prints packets per second and the cost per packet; needs
//! tshark.

use std::process::Stdio;
use std::time::Instant;
use wiregen_runtime::Codec;
use wiregen_tests::*;

fn run(pcap: &std::path::Path, lua: Option<&std::path::Path>, verbose: bool) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let mut cmd = tshark_command();
        cmd.arg("-r")
            .arg(pcap)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if verbose {
            cmd.arg("-V");
        }
        if let Some(lua) = lua {
            cmd.arg("-X").arg(format!("lua_script:{}", lua.display()));
        }
        let t = Instant::now();
        assert!(cmd.status().unwrap().success());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut rng = Rng(42);
    let n = 20_000;
    let datagrams: Vec<Datagram> = (0..n)
        .map(|i| {
            let entities = (0..rng.below(40))
                .map(|k| rtype::EntityState {
                    entity_id: k as u32,
                    x: 1,
                    y: 2,
                    r#type: 3,
                })
                .collect();
            let p = rtype::Packet {
                flags: rtype::PacketFlags(rng.next_u64() as u8 & 0x0D), // never IS_FRAGMENT
                sequence: i,
                ack: i,
                fragment_id: 0,
                fragment_index: 0,
                fragment_count: 0,
                payload: rtype::PacketPayload::SEntityState(rtype::SEntityState { entities }),
            };
            Datagram {
                src_port: 40000,
                dst_port: 8080,
                payload: p.encode().unwrap(),
            }
        })
        .collect();
    let pcap = std::env::temp_dir().join("wiregen-bench-rtype.pcap");
    write_pcap(&pcap, &datagrams);
    let lua = repo_root().join("dissectors/rtype.lua");
    for (mode, verbose) in [
        ("summary lines (tree not printed)", false),
        ("full tree printed (-V)", true),
    ] {
        let base = run(&pcap, None, verbose);
        let with = run(&pcap, Some(&lua), verbose);
        println!("tshark, {n} R-Type datagrams (~20 entities each), {mode}:");
        println!("  without dissector: {base:.2} s");
        println!(
            "  with rtype.lua:    {with:.2} s ({:.0} packets/s, {:.1} µs more per packet)",
            n as f64 / with,
            (with - base) * 1e6 / n as f64
        );
    }
    let _ = std::fs::remove_file(pcap);
    scaling();
}

/// No quadratic work on long input: the same number of DNP typed values dissected as many small
/// Link States and as a few large ones cost about the same per value.
fn scaling() {
    let link_state = |values: usize| {
        let c = dnp::Command {
            body: dnp::CommandBody::LinkState(dnp::LinkState {
                number: 1,
                link_id: 2,
                flags: dnp::LinkFlags(0),
                message: std::borrow::Cow::Borrowed(b"m"),
                values: (0..values)
                    .map(|i| dnp::TypedValue {
                        value: dnp::TypedValueValue::UInt32(dnp::UInt32Value { value: i as u32 }),
                    })
                    .collect(),
            }),
        };
        c.encode().unwrap()
    };
    let total = 400_000;
    let lua = repo_root().join("dissectors/dnp.lua");
    println!("tshark, {total} DNP typed values (summary lines):");
    for per in [40, 4_000, 12_000] {
        let datagrams: Vec<Datagram> = (0..total / per)
            .map(|_| Datagram {
                src_port: 40000,
                dst_port: 3413,
                payload: link_state(per),
            })
            .collect();
        let pcap = std::env::temp_dir().join(format!("wiregen-bench-dnp-{per}.pcap"));
        write_pcap(&pcap, &datagrams);
        let base = run(&pcap, None, false);
        let with = run(&pcap, Some(&lua), false);
        println!(
            "  {per:>6} values per datagram ({:>6} bytes): {:.2} µs per value",
            datagrams[0].payload.len(),
            (with - base) * 1e6 / total as f64
        );
        let _ = std::fs::remove_file(pcap);
    }
}
