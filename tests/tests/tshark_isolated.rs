//! The tests' tshark never reads the user's personal configuration or plugin folders, where an
//! installed copy of a generated dissector would be loaded twice (and fail) or a preference could
//! change ports.

use wiregen_tests::tshark_command;

#[test]
fn personal_folders_are_the_isolated_ones() {
    let out = tshark_command().args(["-G", "folders"]).output().unwrap();
    assert!(out.status.success());
    let folders = String::from_utf8_lossy(&out.stdout);
    let home = std::env::var("HOME").unwrap_or_default();
    let personal: Vec<&str> = folders
        .lines()
        .filter(|l| l.starts_with("Personal"))
        .collect();
    assert!(personal.len() >= 2, "{folders}");
    for line in personal {
        let path = line.split('\t').next_back().unwrap().trim();
        assert!(path.contains("wiregen-tshark-home-"), "{line}");
        assert!(
            home.is_empty() || !path.starts_with(&format!("{home}/")),
            "{line}"
        );
    }
}

/// A schema whose protocol has the name of a dissector built into Wireshark ("presence") is
/// refused at its name; one that a Wireshark newer than the list (or another plugin) has taken
/// still cannot register, and the generated dissector says so in one line naming the protocol,
/// instead of a bare `Proto_new` error, and tshark carries on. (The dissector is generated
/// under a free name, then renamed, as a newer Wireshark would make it clash.)
#[test]
fn a_name_wireshark_already_has_is_reported_plainly() {
    let schema = |name: &str| {
        format!(
            "protocol: {{ name: {name}, title: Presence test, root: P, transport: {{ udp: {{ ports: [7000] }} }} }}
types:
  P:
    fields:
      - {{ name: a, type: u8 }}
"
        )
    };
    let refused = wiregen::validate::load("presence.yaml", &schema("presence")).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("Wireshark has a protocol 'presence' built in"),
        "{refused}"
    );
    let p = wiregen::validate::load("presencx.yaml", &schema("presencx")).expect("valid schema");
    let runtime = wiregen::backend::rust::RuntimeDep::Published;
    let (outputs, problems) = wiregen::pipeline::outputs(&p, &runtime);
    assert!(problems.0.is_empty());
    let lua = outputs
        .iter()
        .find(|o| o.path.ends_with(".lua"))
        .expect("a dissector");
    let dir = std::env::temp_dir().join(format!("wiregen-clash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("presence.lua");
    std::fs::write(&path, lua.contents.replace("presencx", "presence")).unwrap();
    let out = tshark_command()
        .args([
            "-X",
            &format!("lua_script:{}", path.display()),
            "-G",
            "protocols",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wiregen: the presence dissector cannot register")
            && stderr.contains("rename the schema's protocol"),
        "{stderr}"
    );
    assert!(!stderr.contains("stack traceback"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}
