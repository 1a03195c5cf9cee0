//! Running the generated dissector in real tshark, isolated from the user's configuration, and
//! reading back every field it showed (PDML).

use std::path::{Path, PathBuf};
use std::process::Command;

/// tshark: the program `WIREGEN_TSHARK` names (another Wireshark release, or a wrapper that runs
/// one, as the tests do with the current release), else the first on `PATH`; or an error that
/// says how to get it.
pub fn tshark() -> Result<PathBuf, String> {
    if let Some(chosen) = std::env::var_os("WIREGEN_TSHARK").filter(|p| !p.is_empty()) {
        let chosen = PathBuf::from(chosen);
        return if chosen.is_file() {
            Ok(chosen)
        } else {
            Err(format!(
                "WIREGEN_TSHARK names {}, which is not a file",
                chosen.display()
            ))
        };
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| {
            d.join(if cfg!(windows) {
                "tshark.exe"
            } else {
                "tshark"
            })
        })
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "tshark is not installed: the dissector is checked in real tshark \
             (`apt-get install tshark`, `brew install wireshark`, or Wireshark's installer)"
                .to_string()
        })
}

/// One dissected field from PDML.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub pos: usize,
    pub size: usize,
    pub show: String,
    pub value: String,
    /// The whole label as Wireshark shows it (`Custom: <empty>`).
    pub showname: String,
}

/// Whether `name` is one of `proto`'s fields read from the wire: not an expert item, not the
/// netcode analysis.
fn on_the_wire(name: &str, proto: &str) -> bool {
    name.strip_prefix(proto)
        .and_then(|rest| rest.strip_prefix('.'))
        .is_some_and(|rest| {
            !rest.starts_with("expert.") && rest != "analysis" && !rest.starts_with("analysis.")
        })
}

/// What tshark made of a capture: every field of every frame, plus its diagnostics.
#[derive(Debug)]
pub struct Dissection {
    pub frames: Vec<Vec<Field>>,
    /// Per frame, each top-level protocol element: its name and its fields with positions made
    /// relative to the element's start (reassembled PDUs have their own buffer).
    pub pdus: Vec<Vec<(String, Vec<Field>)>>,
    pub stderr: String,
}

impl Dissection {
    /// Fields of frame `i` named `proto.*` except expert items and the netcode analysis
    /// (`proto.analysis.*`: computed, not on the wire), in tree order.
    pub fn fields(&self, i: usize, proto: &str) -> Vec<&Field> {
        self.frames[i]
            .iter()
            .filter(|f| on_the_wire(&f.name, proto))
            .collect()
    }

    /// The netcode analysis of frame `i`: its `proto.analysis.*` fields and expert items.
    pub fn analysis(&self, i: usize, proto: &str) -> Vec<&Field> {
        let prefix = format!("{proto}.analysis.");
        self.frames[i]
            .iter()
            .filter(|f| f.name.starts_with(&prefix))
            .collect()
    }

    /// Each `proto` PDU of frame `i`: its fields (expert items left out), positions relative to the
    /// PDU's first byte.
    pub fn pdus(&self, i: usize, proto: &str) -> Vec<Vec<&Field>> {
        self.pdus[i]
            .iter()
            .filter(|(name, _)| name == proto)
            .map(|(_, fields)| {
                fields
                    .iter()
                    .filter(|f| on_the_wire(&f.name, proto))
                    .collect()
            })
            .collect()
    }

    /// Names of the expert items of frame `i` raised by `proto`.
    pub fn experts(&self, i: usize, proto: &str) -> Vec<&str> {
        let expert = format!("{proto}.expert.");
        self.frames[i]
            .iter()
            .filter(|f| f.name.starts_with(&expert))
            .map(|f| f.name.as_str())
            .collect()
    }

    /// The expert items of frame `i` by which `proto` calls it malformed
    /// ([`MALFORMED_EXPERTS`]).
    pub fn malformed(&self, i: usize, proto: &str) -> Vec<&str> {
        self.experts(i, proto)
            .into_iter()
            .filter(|e| MALFORMED_EXPERTS.contains(&e.rsplit('.').next().unwrap_or("")))
            .collect()
    }

    /// The Lua errors raised while dissecting frame `i` (`_ws.lua.error`).
    pub fn lua_errors(&self, i: usize) -> Vec<&Field> {
        self.frames[i]
            .iter()
            .filter(|f| f.name == "_ws.lua.error")
            .collect()
    }

    /// What tshark printed when a dissector failed to load, if one did: "Lua: Error during
    /// loading" (a runtime error at load time) or, from Wireshark 4.0, "Lua: syntax error".
    pub fn load_error(&self) -> Option<&str> {
        let failed = self.stderr.lines().any(|l| {
            l.find("Lua: ")
                .is_some_and(|i| l[i..].to_ascii_lowercase().contains("error"))
                // A generated dissector says so when Wireshark refuses its name or title.
                || l.contains("dissector cannot register")
        });
        failed.then(|| self.stderr.trim_end())
    }
}

/// Expert items that say a message is malformed: a valid message must show none of them.
pub const MALFORMED_EXPERTS: &[&str] = &[
    "truncated",
    "length_mismatch",
    "trailing",
    "bad_const",
    "bad_checksum",
    "invalid_value",
    "internal",
    "compressed",
];

/// A tshark command with an isolated, empty configuration: its home, personal configuration and
/// personal plugin folders are an empty folder of this process, so a dissector or preference a
/// user installed (an older copy of the same dissector, say) cannot change what is checked.
pub fn tshark_command() -> Result<Command, String> {
    tshark_command_via(&[])
}

/// [`tshark_command`] run through another program (`["/usr/bin/time", "-f", "%M"]`): the
/// program and its arguments, then tshark, in the same isolated configuration.
pub fn tshark_command_via(wrapper: &[&str]) -> Result<Command, String> {
    let home = std::env::temp_dir().join(format!("wiregen-tshark-home-{}", std::process::id()));
    let config = home.join("config");
    std::fs::create_dir_all(&config)
        .map_err(|e| format!("cannot create {}: {e}", config.display()))?;
    let mut cmd = match wrapper.split_first() {
        Some((program, args)) => {
            let mut cmd = Command::new(program);
            cmd.args(args).arg(tshark()?);
            cmd
        }
        None => Command::new(tshark()?),
    };
    cmd.env("HOME", &home)
        .env("XDG_CONFIG_HOME", &config)
        .env("WIRESHARK_CONFIG_DIR", &config)
        .env("APPDATA", &config);
    Ok(cmd)
}

/// A boolean as Wireshark 4.0 shows it in PDML (`1`/`0`): 4.2 and later show `True`/`False`.
/// A string field reading "True" is told apart by its value, which is then the text's bytes.
fn boolean_show<'s>(show: &'s str, value: &str) -> &'s str {
    match show {
        "True" if value != "54727565" => "1",
        "False" if value != "46616c7365" => "0",
        _ => show,
    }
}

/// An isolated tshark reading `pcap` with the dissectors `luas`.
fn reading(pcap: &Path, luas: &[&Path]) -> Result<Command, String> {
    let mut cmd = tshark_command()?;
    cmd.arg("-r").arg(pcap);
    for lua in luas {
        cmd.arg("-X").arg(format!("lua_script:{}", lua.display()));
    }
    Ok(cmd)
}

/// The frames of `pcap` whose dissection by `luas` (and `extra` arguments) raised a Lua error
/// with the tree not shown (tshark's summary mode, where the generated dissectors make no
/// subtree of a label: a path PDML never takes), as the dissectors of `protos` caught them
/// (`<proto>.expert.internal`): frame number and summary line.
pub fn hidden_lua_errors(
    pcap: &Path,
    luas: &[&Path],
    extra: &[&str],
    protos: &[&str],
) -> Result<Vec<String>, String> {
    let mut cmd = reading(pcap, luas)?;
    let internal: Vec<String> = protos
        .iter()
        .map(|p| format!("{p}.expert.internal"))
        .collect();
    let out = cmd
        .args(extra)
        .args(["-Y", &internal.join(" || ")])
        .output()
        .map_err(|e| format!("cannot run tshark: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("Lua") {
        return Err(format!("tshark failed: {}", stderr.trim_end()));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .collect())
}

/// Pushes `c`, or, for a character XML forbids that a string may hold, its text as Wireshark
/// 4.0 writes it in a `showname` (`\uFFFF`): U+FFFE and U+FFFF (its other forbidden characters,
/// controls, it shows as `\x` escapes, and surrogates are not UTF-8). Its `show`, and both in 4.2 and later, hold
/// the character itself, which leaves the PDML not XML (schemafuzz seed 996: a UTF-16 string
/// holding `FF FF`); read here as this text, and a string the crate decoded is compared so too.
pub(crate) fn push_xml_safe(out: &mut String, c: char) {
    match c {
        '\u{fffe}' | '\u{ffff}' => out.push_str(&format!("\\u{:04X}", c as u32)),
        c => out.push(c),
    }
}

/// `pdml` with every character of [`push_xml_safe`] replaced by its text.
fn xml_characters(pdml: String) -> String {
    if !pdml.contains(['\u{fffe}', '\u{ffff}']) {
        return pdml;
    }
    pdml.chars()
        .fold(String::with_capacity(pdml.len()), |mut out, c| {
            push_xml_safe(&mut out, c);
            out
        })
}

/// Runs tshark with the dissectors `luas` (and `extra` arguments) on `pcap` and parses its PDML.
/// A Lua error is not a failure here: [`Dissection::lua_errors`] lists them.
pub fn dissect(pcap: &Path, luas: &[&Path], extra: &[&str]) -> Result<Dissection, String> {
    let mut cmd = reading(pcap, luas)?;
    let out = cmd
        .args(["-T", "pdml"])
        .args(extra)
        .output()
        .map_err(|e| format!("cannot run tshark: {e}"))?;
    let stdout = xml_characters(String::from_utf8_lossy(&out.stdout).into_owned());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!("tshark failed: {}", stderr.trim_end()));
    }
    let doc = roxmltree::Document::parse(&stdout)
        .map_err(|e| format!("tshark printed no valid PDML: {e}"))?;
    let field = |n: roxmltree::Node| -> Option<Field> {
        let value = n.attribute("value").unwrap_or("");
        Some(Field {
            name: n.attribute("name")?.to_string(),
            pos: n.attribute("pos")?.parse().ok()?,
            size: n.attribute("size")?.parse().ok()?,
            show: boolean_show(n.attribute("show").unwrap_or(""), value).to_string(),
            value: value.to_string(),
            showname: n.attribute("showname").unwrap_or("").to_string(),
        })
    };
    let packets: Vec<roxmltree::Node> = doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("packet"))
        .collect();
    let frames = packets
        .iter()
        .map(|packet| {
            packet
                .descendants()
                .filter(|n| n.has_tag_name("field"))
                .filter_map(field)
                .collect()
        })
        .collect();
    let pdus = packets
        .iter()
        .map(|packet| {
            packet
                .children()
                .filter(|n| n.has_tag_name("proto"))
                .map(|p| {
                    let base: usize = p.attribute("pos").and_then(|x| x.parse().ok()).unwrap_or(0);
                    let fields = p
                        .descendants()
                        .filter(|n| n.has_tag_name("field"))
                        .filter_map(field)
                        .map(|mut f| {
                            f.pos = f.pos.wrapping_sub(base);
                            f
                        })
                        .collect();
                    (p.attribute("name").unwrap_or("").to_string(), fields)
                })
                .collect()
        })
        .collect();
    Ok(Dissection {
        frames,
        pdus,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The field of schemafuzz seed 996 as Wireshark 4.0 wrote it (`\uFFFF` in `showname`, the
    /// character in `show`) and as 4.6 did (the character in both): read as XML, and its `show`
    /// equal to what the compare makes of the string the crate decoded.
    #[test]
    fn noncharacters_in_pdml_are_read_as_the_compare_writes_them() {
        let decoded = "\u{a654}\u{ffff}x";
        for showname in ["India: \u{a654}\\uFFFFx", "India: \u{a654}\u{ffff}x"] {
            let pdml = format!(
                "<pdml><field name=\"fuzz.india\" showname=\"{showname}\" show=\"{decoded}\"/></pdml>"
            );
            assert!(roxmltree::Document::parse(&pdml).is_err());
            let read = xml_characters(pdml);
            let doc = roxmltree::Document::parse(&read).expect("XML once escaped");
            let field = doc.root_element().first_element_child().unwrap();
            assert_eq!(field.attribute("show"), Some("\u{a654}\\uFFFFx"));
            assert_eq!(field.attribute("showname"), Some("India: \u{a654}\\uFFFFx"));
            assert_eq!(
                crate::compare::wireshark_escaped(decoded),
                field.attribute("show").unwrap()
            );
        }
    }
}
