//! The netcode lab from the command line, as docs/netcode-lab.md runs it: `wirecat serve` (a
//! stand-in numbering from 1,000), `wirecat proxy` in front of it (a scenario file: delay with
//! jitter, a lag spike, a condition duplicating the client's inputs; a fault log and a pcap),
//! `wirecat replay` through the proxy — the same answers; the proxy's log names the faults it
//! made; `wirecat stats --fields` and a failing `--budget` on the R-Type capture.

mod common;

use std::process::{Child, Command, Stdio};

use common::wirecat;

fn capture() -> String {
    format!(
        "{}/../tests/captures/rtype.pcap",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_wirecat"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: Child) -> (bool, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_replay_through_the_proxy_gets_the_recorded_answers_and_the_log_names_the_faults() {
    let dir = std::env::temp_dir().join(format!("wirecat-lab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("lag.yaml");
    std::fs::write(
        &scenario,
        "seed: 7\nrules:\n  - { delay: 10ms, jitter: 5ms }\n  - { at: 200ms, for: 200ms, delay: 60ms }\n  - { direction: to_server, when: \"type == CInput\", duplicate: 20% }\n",
    )
    .unwrap();
    let (log, sent) = (dir.join("faults.ndjson"), dir.join("sent.pcap"));
    let c = capture();
    // Loopback addresses of their own, so parallel tests do not meet.
    let serve = spawn(&[
        "serve",
        "rtype_impl",
        &c,
        "--port",
        "9000",
        "--listen",
        "127.0.0.41:9100",
        "--renumber",
        "1000",
        "--timeout",
        "5s",
    ]);
    let proxy = spawn(&[
        "proxy",
        "rtype_impl",
        "--listen",
        "127.0.0.41:9101",
        "--server",
        "127.0.0.41:9100",
        "--scenario",
        scenario.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--pcap-out",
        sent.to_str().unwrap(),
        "--count",
        "83",
        "--duration",
        "30s",
    ]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (ok, out, err) = wirecat(&[
        "replay",
        "rtype_impl",
        &c,
        "--port",
        "9000",
        "--server",
        "127.0.0.41:9101",
        "--speed",
        "0",
        "--timeout",
        "3s",
    ]);
    assert!(
        ok && out.contains("same: every answer as recorded"),
        "{out}{err}"
    );
    assert!(
        err.contains(
            "replayed 66 of the client's datagrams (65 with acks rewritten), 17 answers compared"
        ),
        "{err}"
    );
    let (ok, out, err) = finish(serve);
    assert!(ok, "{out}{err}");
    assert!(
        out.starts_with("served: 66 of 66 client datagrams as recorded, 0 not"),
        "{out}"
    );
    let (ok, out, err) = finish(proxy);
    assert!(ok, "{out}{err}");
    let faults = std::fs::read_to_string(&log).unwrap();
    let duplicates = faults
        .lines()
        .filter(|l| l.contains("\"fault\":\"duplicate\""))
        .count();
    assert!(duplicates > 0, "{faults}");
    // Every copy was of a client input, as the condition says.
    assert!(
        faults
            .lines()
            .filter(|l| l.contains("\"fault\":\"duplicate\""))
            .all(|l| l.contains("\"message\":\"CInput\"")
                && l.contains("\"direction\":\"to_server\""))
    );
    let summary = err.lines().find(|l| l.starts_with("to_server")).unwrap();
    let cells: Vec<&str> = summary.split_whitespace().collect();
    // received 66, sent 66 + the copies, dup = the copies logged.
    assert_eq!(
        (cells[1], cells[6]),
        ("66", duplicates.to_string().as_str()),
        "{err}"
    );
    // The sent capture reads as the conversation: every datagram decodes.
    let (ok, out, err) = wirecat(&[
        "check",
        "rtype_impl",
        sent.to_str().unwrap(),
        "--port",
        "9100",
    ]);
    assert!(ok, "{out}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fields_and_a_budget_over_it() {
    let dir = std::env::temp_dir().join(format!("wirecat-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let budget = dir.join("budget.yaml");
    std::fs::write(
        &budget,
        "limits:\n  - { type: CInput, direction: to_server, bytes_per_message: 24 }\n  - { type: SEntityState, direction: to_client, bytes_per_second: 1000 }\n",
    )
    .unwrap();
    let c = capture();
    let (ok, out, err) = wirecat(&[
        "stats",
        "rtype_impl",
        &c,
        "--fields",
        "--budget",
        budget.to_str().unwrap(),
    ]);
    assert!(!ok, "the budget fails");
    assert!(
        err.contains("over budget: CInput to_server: bytes_per_message 25.0 over 24"),
        "{err}"
    );
    assert!(!err.contains("SEntityState"), "{err}");
    // R-Type's world updates: a float of the transform is 32 bits, 36 of them.
    assert!(
        out.lines().any(|l| l.starts_with("SEntityState")
            && l.contains("rtype_impl.transform.x")
            && l.contains(" 36 ")
            && l.contains(" 1152 ")),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
