//! Golden snippets cross-checked like the shipped protocols: values encoded by the snippet's
//! generated Rust, dissected by its generated Lua in tshark, field by field.

use std::borrow::Cow;
use std::path::PathBuf;
use wiregen_golden::checksum_params::{Framed, FramedBody, Inner};
use wiregen_runtime::{Codec, Crc};
use wiregen_tests::*;

mod bit_streams;
mod checksums;
mod compression;
mod enclosing;
mod enet;
mod fields;
mod filter_names;
mod strings;
mod tcp;
mod wide_join;

fn snippet_lua(name: &str) -> PathBuf {
    repo_root().join(format!("codegen/tests/golden/{name}.lua"))
}

/// What frame `i` shows for each field `name` (`proto.…`, of that protocol).
fn shown(d: &Dissection, i: usize, name: &str) -> Vec<String> {
    let proto = name.split('.').next().unwrap_or(name);
    d.fields(i, proto)
        .into_iter()
        .filter(|f| f.name == name)
        .map(|f| f.show.clone())
        .collect()
}

/// `payloads` as UDP datagrams to `port`, dissected by snippet `name`'s dissector.
fn dissect_payloads(name: &str, port: u16, payloads: &[Vec<u8>]) -> Dissection {
    let dir = std::env::temp_dir().join(format!("wiregen-golden-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join(format!("{name}.pcap"));
    let datagrams: Vec<Datagram> = payloads
        .iter()
        .map(|payload| Datagram {
            src_port: 40000,
            dst_port: port,
            payload: payload.clone(),
        })
        .collect();
    write_pcap(&pcap, &datagrams);
    let d = dissect(&pcap, &snippet_lua(name), &[]);
    let _ = std::fs::remove_dir_all(dir);
    d
}

/// The value of the only field `name` of frame `i`.
fn value(d: &Dissection, i: usize, name: &str) -> String {
    let found = shown(d, i, name);
    assert_eq!(found.len(), 1, "frame {i}: one {name}");
    found[0].clone()
}
