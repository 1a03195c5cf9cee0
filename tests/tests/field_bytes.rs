//! Bytes per field, two ways: `wirecat stats` (the crate's notes of each datagram) and the
//! dissector's `tshark -z <proto>,fields` tap (the fields of its tree), on every shipped
//! protocol's capture — the same fields, counts and bytes, row for row.

mod analysis_support;

use std::collections::BTreeMap;
use std::io::Cursor;

use analysis_support::as_pcap;
use wirecat::session::{Event, Ports};
use wirecat::stats::Stats;
use wiregen_runtime::Protocol;

fn crate_fields<P: Protocol>(pcap: &[u8], ports: &[u16]) -> BTreeMap<String, (u64, u64)> {
    let ports = Ports {
        udp: ports.to_vec(),
        tcp: vec![],
    };
    let mut stats = Stats::default();
    wirecat::reading::each_event::<P, _>(
        wirecat::capture::packets(Cursor::new(pcap.to_vec())).unwrap(),
        &ports,
        || {},
        |c, event| {
            if let Event::Message(m) = event {
                if c.decode(&m).is_ok() {
                    let notes = c.notes(&m);
                    stats.add_message("", m.from_client, m.bytes.len() as u64, &notes);
                }
            }
            Ok(())
        },
    )
    .unwrap();
    stats
        .fields
        .iter()
        .map(|(f, v)| (f.to_string(), *v))
        .collect()
}

fn dissector_fields(pcap: &[u8], lua: &str, proto: &str) -> BTreeMap<String, (u64, u64)> {
    let text = analysis_support::tap_text(pcap, lua, proto, "fields", "capture", "bytes per field");
    text.lines()
        .filter(|l| l.starts_with(&format!("{proto}.")))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (
                w[0].to_string(),
                (w[1].parse().unwrap(), w[2].parse().unwrap()),
            )
        })
        .collect()
}

fn same<P: Protocol>(pcap: Vec<u8>, ports: &[u16], lua: &str) {
    let proto = P::NAME;
    let ours = crate_fields::<P>(&pcap, ports);
    assert!(ours.len() > 3, "{proto}: {ours:?}");
    assert_eq!(dissector_fields(&pcap, lua, proto), ours, "{proto}");
}

#[test]
fn rtype_impl() {
    same::<rtype_impl::Protocol>(
        as_pcap("rtype.pcap", "fields-rtype"),
        &[8080, 9000],
        "dissectors/rtype_impl.lua",
    );
}

#[test]
fn riptide_2_1() {
    same::<riptide_2_1::Protocol>(
        as_pcap("riptide21-udp.pcap", "fields-r21"),
        &[7777],
        "dissectors/riptide_2_1.lua",
    );
}

#[test]
fn riptide_2_0() {
    same::<riptide_2_0::Protocol>(
        as_pcap("riptide20-udp.pcap", "fields-r20"),
        &[7777],
        "dissectors/riptide_2_0.lua",
    );
}

#[test]
fn dnp() {
    same::<dnp::Protocol>(
        as_pcap("dnp.pcap", "fields-dnp"),
        &[3413],
        "dissectors/dnp.lua",
    );
}

#[test]
fn game_protocol() {
    same::<game_protocol::Protocol>(
        as_pcap("gameproto-start.pcap", "fields-gp"),
        &[8999],
        "dissectors/game_protocol.lua",
    );
}

#[test]
fn riptide_2_2() {
    same::<riptide_2_2::Protocol>(
        analysis_support::riptide_2_2_capture(),
        &[7777],
        "dissectors/riptide_2_2.lua",
    );
}
