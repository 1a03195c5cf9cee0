//! One frame of a capture against the fields the crate noted in the message it holds, layer by
//! layer (a transport's fields, then the application's inside it): shared by the checks of
//! single messages, and of conversations.

use crate::compare::{compare, expected, hex};
use crate::pcap::HEADERS;
use crate::report::Report;
use crate::tshark::Dissection;
use wiregen_runtime::FieldNote;

/// Frame `frame` of `d` (holding `bytes`) against the fields the crate noted in it, layer by
/// layer (a transport's fields, then the application's inside it); counted in `report`.
pub fn compare_frame(
    d: &Dissection,
    frame: usize,
    bytes: &[u8],
    notes: &[FieldNote<'_>],
    report: &mut Report,
) {
    report.compared += 1;
    report.see(notes);
    let mut problem = None;
    for layer in layers(notes) {
        let own = expected(&notes_of(notes, layer));
        let shown = d.fields(frame, layer);
        report.fields += own.len();
        let n = own.len().min(shown.len());
        if let Err(e) = compare(&own, &shown[..n], HEADERS) {
            problem = Some(format!("frame {} ({}): {e}", frame + 1, hex(bytes)));
            break;
        }
        // A joined payload (its pieces arbitrary) may well be malformed: only the datagram's
        // own fields are compared then.
        let experts = d.experts(frame, layer);
        let joined = shown.len() > own.len()
            || experts
                .iter()
                .any(|e| e.ends_with(".joined") || e.ends_with(".reassembly"));
        if let Some(e) = d.malformed(frame, layer).first().filter(|_| !joined) {
            problem = Some(format!(
                "frame {} ({}): the crate encoded it, the dissector calls it malformed ({e})",
                frame + 1,
                hex(bytes)
            ));
            break;
        }
    }
    match problem {
        Some(p) => report.disagreements.push(p),
        None => report.agreed += 1,
    }
}

/// The protocols whose fields `notes` holds (`riptide_2_1`, then `arena`), in order of first
/// appearance: a field's protocol is its filter name's first part.
pub fn layers<'n>(notes: &'n [FieldNote<'_>]) -> Vec<&'n str> {
    let mut out: Vec<&str> = Vec::new();
    for n in notes {
        let layer = n.abbrev.split('.').next().unwrap_or(n.abbrev);
        if !out.contains(&layer) {
            out.push(layer);
        }
    }
    out
}

/// The notes of one protocol.
fn notes_of<'a>(notes: &[FieldNote<'a>], layer: &str) -> Vec<FieldNote<'a>> {
    notes
        .iter()
        .filter(|n| n.abbrev.split('.').next() == Some(layer))
        .cloned()
        .collect()
}
