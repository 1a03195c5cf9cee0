//! The compiled limit (issue 47's spike): the hand-written C plugin `benches/c/rtype.c` beside
//! bare tshark, the generated `dissectors/rtype.lua` and the hand-written Lua one, on the same
//! R-Type capture, interleaved round by round (`WIREGEN_BENCH_C=1 cargo bench -p wiregen-tests
//! --bench lua_versus`; needs libwireshark-dev). Wireshark loads a personal plugin only for an
//! unprivileged user: as root every reader runs as `nobody`, so all pay the same.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use wiregen_tests::{repo_root, tshark};

/// The plugin built (`benches/c/build.sh`) into a home tshark reads it from, readable by all.
fn build() -> PathBuf {
    let home = std::env::temp_dir().join(format!("wiregen-c-plugin-{}", std::process::id()));
    let out = Command::new(repo_root().join("tests/benches/c/build.sh"))
        .arg(&home)
        .output()
        .expect("build.sh runs");
    assert!(
        out.status.success(),
        "the C plugin does not build (libwireshark-dev installed?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = Command::new("chmod")
        .arg("-R")
        .arg("a+rwX")
        .arg(&home)
        .status();
    home
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// tshark with `home` as its home (plugins and configuration there), as `nobody` when root.
fn run(home: &Path, pcap: &Path, lua: Option<&Path>, args: &[&str]) -> (f64, Vec<u8>) {
    let config = home.join("config");
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "nobody", "--", "env"]);
        c
    } else {
        Command::new("env")
    };
    cmd.arg(format!("HOME={}", home.display()))
        .arg(format!("XDG_CONFIG_HOME={}", config.display()))
        .arg(format!("WIRESHARK_CONFIG_DIR={}", config.display()))
        .arg(tshark())
        .arg("-r")
        .arg(pcap)
        .args(args);
    if let Some(l) = lua {
        cmd.arg("-X").arg(format!("lua_script:{}", l.display()));
    }
    let t = Instant::now();
    let out = cmd.output().expect("tshark runs");
    let elapsed = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (elapsed, out.stdout)
}

/// Times bare tshark, the C plugin, the generated Lua (analysis on and off) and the
/// hand-written Lua on `pcap` (readable by all), after checking that the C plugin prints the
/// generated dissector's fields.
pub fn compare(pcap: &Path, packets: usize, rounds: usize, modes: &[(&str, Vec<&str>)]) {
    let plugin = build();
    // The readers without the plugin get a home of their own (the plugin would claim `rtype`).
    let plain = std::env::temp_dir().join(format!("wiregen-c-plain-{}", std::process::id()));
    std::fs::create_dir_all(plain.join("config")).unwrap();
    std::fs::create_dir_all(plugin.join("config")).unwrap();
    let _ = Command::new("chmod")
        .arg("-R")
        .arg("a+rwX")
        .arg(&plain)
        .arg(&plugin)
        .status();
    let root = repo_root();
    let generated = root.join("dissectors/rtype.lua");
    let hand = root.join("tests/benches/lua/hand_rtype.lua");
    let fields = [
        "-T",
        "fields",
        "-c",
        "2000",
        "-e",
        "rtype.command",
        "-e",
        "rtype.flags.reliable",
        "-e",
        "rtype.sequence",
        "-e",
        "rtype.checksum.status",
        "-e",
        "rtype.req_login.username",
        "-e",
        "rtype.c_input.input_mask.shoot",
        "-e",
        "rtype.entity_state.entity_id",
        "-e",
        "rtype.entity_state.x",
    ];
    let (_, a) = run(&plain, pcap, Some(&generated), &fields);
    let (_, c) = run(&plugin, pcap, None, &fields);
    assert!(
        a.len() > 2000 && a == c,
        "the C plugin does not print the generated fields"
    );
    let readers: [(&str, &Path, Option<&Path>, Vec<&str>); 5] = [
        ("bare tshark", &plain, None, vec![]),
        ("C plugin (hand-written)", &plugin, None, vec![]),
        (
            "rtype.lua",
            &plain,
            Some(&generated),
            vec!["-o", "rtype.analyze:TRUE"],
        ),
        (
            "rtype.lua, analysis off",
            &plain,
            Some(&generated),
            vec!["-o", "rtype.analyze:FALSE"],
        ),
        ("hand_rtype.lua", &plain, Some(&hand), vec![]),
    ];
    println!(
        "R-Type, the compiled limit: {packets} datagrams, median of {rounds} interleaved rounds"
    );
    for (mode, args) in modes {
        let mut times = vec![Vec::new(); readers.len()];
        for _ in 0..rounds {
            for (i, (name, home, lua, options)) in readers.iter().enumerate() {
                // Without a dissector its fields do not exist: bare tshark prints one of UDP.
                let args: &[&str] = match (*name, args.first()) {
                    ("bare tshark", Some(&"-T")) => &["-T", "fields", "-e", "udp.length"],
                    _ => args,
                };
                let args: Vec<&str> = options.iter().chain(args).copied().collect();
                times[i].push(run(home, pcap, *lua, &args).0);
            }
        }
        println!("  {mode}:");
        let medians: Vec<f64> = times
            .into_iter()
            .map(|mut v| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            })
            .collect();
        for ((name, ..), t) in readers.iter().zip(&medians) {
            println!(
                "    {name:<26} {t:6.2} s  ({:6.2} µs per packet above bare tshark)",
                (t - medians[0]) * 1e6 / packets as f64
            );
        }
    }
    let _ = std::fs::remove_dir_all(&plain);
    let _ = std::fs::remove_dir_all(&plugin);
}
