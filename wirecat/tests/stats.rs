//! `wirecat stats` on the R-Type game build's real capture (tests/captures/rtype.pcap): its
//! resent logouts and leave-lobby requests, its acks' round trips, the bytes per field with a
//! field's parts counted once, each frame's verdict, and the plot.

mod common;

use common::wirecat;
use serde_json::Value;

fn capture() -> String {
    format!(
        "{}/../tests/captures/rtype.pcap",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The stats as JSON, and the SVG drawn beside them.
fn stats() -> (Value, String) {
    let svg = std::env::temp_dir().join(format!("wirecat-stats-{}.svg", std::process::id()));
    let (ok, out, err) = wirecat(&[
        "stats",
        "rtype_impl",
        &capture(),
        "--json",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    let _ = std::fs::remove_file(&svg);
    (serde_json::from_str(&out).unwrap(), picture)
}

fn direction<'v>(all: &'v Value, src: &str, dst: &str) -> &'v Value {
    all["directions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["src"] == src && d["dst"] == dst)
        .unwrap_or_else(|| panic!("no direction {src} -> {dst}"))
}

#[test]
fn the_captures_resends_and_round_trips_are_counted_per_direction() {
    let (all, picture) = stats();
    assert_eq!(all["directions"].as_array().unwrap().len(), 4);
    assert_eq!(all["undecoded"], 0);
    // The client's leave-lobby request (main server) and logouts (both servers) are resent.
    let main = direction(&all, "127.0.0.1:54122", "127.0.0.1:8080");
    let game = direction(&all, "127.0.0.1:42997", "127.0.0.1:9000");
    assert_eq!(
        (main["datagrams"].as_u64(), main["retransmissions"].as_u64()),
        (Some(12), Some(3))
    );
    assert_eq!(
        (game["datagrams"].as_u64(), game["retransmissions"].as_u64()),
        (Some(66), Some(2))
    );
    for d in all["directions"].as_array().unwrap() {
        assert_eq!(
            (d["lost"].as_u64(), d["out_of_order"].as_u64()),
            (Some(0), Some(0))
        );
    }
    // The server's 17 reliable packets on 9000 are each acked by the client (cumulative acks):
    // 17 round trips, the longest the 100 ms tick of the world updates.
    let server = direction(&all, "127.0.0.1:9000", "127.0.0.1:42997");
    assert_eq!(server["rtt_samples"], 17);
    let p99 = server["rtt_ms"]["p99"].as_f64().unwrap();
    assert!((100.0..101.0).contains(&p99), "{p99}");
    // The plot: one dot per round trip.
    let samples: u64 = all["directions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rtt_samples"].as_u64().unwrap())
        .sum();
    assert!(picture.starts_with("<svg"));
    assert_eq!(picture.matches("<circle").count() as u64, samples);
}

#[test]
fn a_fields_parts_share_its_bytes() {
    let (all, _) = stats();
    let fields = all["fields"].as_array().unwrap();
    let field = |name: &str| fields.iter().find(|f| f["field"] == name);
    // 102 datagrams, one flags byte each; its flag bits are not counted again.
    assert_eq!(field("rtype_impl.flags").unwrap()["bytes"], 102);
    assert!(field("rtype_impl.flags.reliable").is_none());
    assert!(field("rtype_impl.checksum.status").is_none());
}

#[test]
fn each_frames_verdict_names_the_frame_it_repeats_or_acks() {
    let (ok, out, err) = wirecat(&["stats", "rtype_impl", &capture(), "--frames"]);
    assert!(ok, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let frame = |n: u64| lines.iter().find(|l| l["frame"] == n).unwrap();
    assert_eq!(frame(97)["retransmission_of"], 95);
    assert_eq!(frame(2)["acks_frame"], serde_json::json!([1]));
    // Frame 22 acks the four fragments of the world state at once.
    assert_eq!(frame(22)["acks_frame"], serde_json::json!([18, 19, 20, 21]));
}
