//! `wirecat export` to Parquet, queried by a real engine: DuckDB (its Python package; `./test.sh`
//! installs it when missing, or `WIREGEN_DUCKDB_PYTHON` names a Python that has it). The
//! queries are the ones docs/wirecat.md shows.
#![cfg(feature = "export")]

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::wirecat;

fn capture(name: &str) -> String {
    format!("{}/../tests/captures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A Python that imports duckdb, or a failure that says how to get one.
fn python() -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/duckdb-venv/bin/python3");
    let candidates = [
        std::env::var_os("WIREGEN_DUCKDB_PYTHON").map(PathBuf::from),
        Some(venv),
        Some(PathBuf::from("python3")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| {
            Command::new(p)
                .args(["-c", "import duckdb"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("no Python with duckdb: run ./test.sh (it installs duckdb in target/duckdb-venv)")
}

/// Runs `sql` in DuckDB; one line per row, columns separated by `|`.
fn duckdb(sql: &str) -> Vec<String> {
    let script = "import duckdb, sys\nfor row in duckdb.sql(sys.argv[1]).fetchall():\n    print('|'.join(str(c) for c in row))";
    let out = Command::new(python())
        .args(["-c", script, sql])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{sql}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// `wirecat export dnp` of the DNP capture to `out`; its standard output.
fn export_dnp(out: &std::path::Path) -> String {
    let (ok, stdout, err) = wirecat(&[
        "export",
        "dnp",
        &capture("dnp.pcap"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}{err}");
    stdout
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirecat-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn duckdb_reads_bytes_per_message_type_and_typed_fields() {
    let out = temp("dnp.parquet");
    let stdout = export_dnp(&out);
    assert!(stdout.contains("35 messages of 35 frames"), "{stdout}");
    let file = out.display();
    // The documented query: bytes per message type, per second.
    let per_second = duckdb(&format!(
        "SELECT message, date_trunc('second', time) AS second, count(*), sum(bytes) \
         FROM '{file}' GROUP BY ALL ORDER BY second, message"
    ));
    assert!(!per_second.is_empty());
    let totals = duckdb(&format!(
        "SELECT message, count(*), sum(bytes) FROM '{file}' GROUP BY ALL ORDER BY message"
    ));
    assert!(
        totals.contains(&"LongReliableMessage|6|7024".to_string()),
        "{totals:?}"
    );
    // Typed nested columns: the joined long messages (3000 and 4000 bytes, as binary), and a
    // Link Update's values read with the types its Link State announced (WIRE-NOTES §3).
    let joined = duckdb(&format!(
        "SELECT frame, joined_message, joined.LongReliableMessage.parts, \
         octet_length(joined.LongReliableMessage.chunk), len(joined_from), joined_from[-1] \
         FROM '{file}' WHERE joined IS NOT NULL ORDER BY frame"
    ));
    assert_eq!(
        joined,
        [
            "24|LongReliableMessage|3|3000|3|24",
            "31|LongReliableMessage|3|4000|3|31"
        ]
    );
    let update = duckdb(&format!(
        "SELECT value.body.LinkUpdate.links[1].\"values\"[1].\"value\".UInt8.\"value\" \
         FROM '{file}' WHERE frame = 21"
    ));
    assert_eq!(update, ["77"]);
}

#[test]
fn several_captures_are_written_as_hive_partitions() {
    let dir = temp("riptide");
    let (ok, stdout, err) = wirecat(&[
        "export",
        "riptide_2_1",
        &capture("riptide21-udp.pcap"),
        &capture("riptide20-udp.pcap"),
        "-o",
        dir.to_str().unwrap(),
    ]);
    // The 2.0 capture is not 2.1: its rows say why, with an error column, but are written.
    assert!(ok, "{stdout}{err}");
    let rows = duckdb(&format!(
        "SELECT capture, count(*) FROM read_parquet('{}/*/*.parquet', hive_partitioning = true, \
         union_by_name = true) GROUP BY ALL ORDER BY capture",
        dir.display()
    ));
    assert_eq!(rows, ["riptide20-udp.pcap|83", "riptide21-udp.pcap|93"]);
}

/// The columns' types come from the schema: integers keep their width, an enumeration's value
/// is a dictionary string, bytes are binary, a unit variant is `true`.
#[test]
fn columns_are_typed_from_the_schema() {
    let out = temp("dnp-typed.parquet");
    export_dnp(&out);
    let file = out.display();
    let ack = duckdb(&format!(
        "SELECT value.body.ConnectionAck.result, typeof(value.body.ConnectionAck.result), \
         typeof(value.body.LinkState.number), typeof(value.body.LinkState.message), \
         typeof(frame), typeof(bytes) FROM '{file}' WHERE frame = 2"
    ));
    assert_eq!(ack, ["Accepted|VARCHAR|USMALLINT|BLOB|UBIGINT|UINTEGER"]);
    let state = duckdb(&format!(
        "SELECT value.body.LinkState.message, value.body.LinkState.flags \
         FROM '{file}' WHERE frame = 3"
    ));
    assert_eq!(state, ["b'world'|['READ_ONLY']"]);
}

/// One pass: a capture on standard input gives the file the same capture gives.
#[test]
fn standard_input_is_exported_as_the_file_is() {
    let from_file = temp("dnp-file.parquet");
    let from_stdin = temp("dnp-stdin.parquet");
    export_dnp(&from_file);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wirecat"))
        .args(["export", "dnp", "-", "-o", from_stdin.to_str().unwrap()])
        .stdin(std::fs::File::open(capture("dnp.pcap")).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("35 messages of 35 frames"));
    assert_eq!(
        std::fs::read(&from_file).unwrap(),
        std::fs::read(&from_stdin).unwrap()
    );
}
