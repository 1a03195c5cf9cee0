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
