//! How an encoder writes each field: the order facts a writer of one pass over the output needs
//! (what it must remember, what it writes before it knows it, what it checks).

use crate::ir::*;

/// How one field is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritePlan {
    /// The output position where the field starts is kept: a checksum or a patched length is
    /// written there later, or the field's own bytes are measured from there.
    pub keeps_start: bool,
    /// Derived lengths written (as zeros) before this field and patched once it is written, in
    /// field order.
    pub patches: Vec<usize>,
    /// For a derived length or count: how its value is found.
    pub size: Option<SizeWrite>,
    /// Another field is derived from this one's length or count (so its size needs no check).
    pub size_derived: bool,
    /// The value's length is checked against its length expression before it is written (an
    /// expression nothing derives and that does not read the position).
    pub len_check: bool,
    /// An array sized in bytes by an expression nothing derives: the bytes its elements fill
    /// are checked once written.
    pub bytes_check: bool,
    /// How an optional value's presence is written.
    pub presence: Presence,
}

/// How the encoder finds the value of a derived length or count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeWrite {
    /// From the target's value (its length or element count), before the target is written.
    FromValue,
    /// The element count times each element's whole bytes (an array sized in bytes in a bit
    /// stream).
    WholeElements(usize),
    /// The target is encoded aside first to measure it (a length packed in a bit group is
    /// written with the group's integer, before the value).
    MeasuredAside,
    /// Zeros now, patched once the target is written (the length of encoded data).
    Patched,
}

/// How an optional field's presence is decided when it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Not optional.
    Always,
    /// The value says it: presence is read from the position (`@remaining > 0`), or announced
    /// by what the encoder wrote from this very `Option` (a derived presence bit, an implied
    /// flag bit).
    FromValue,
    /// The condition is computed and must agree with the value (refused otherwise).
    Checked,
}

/// The write plan of field `fi` of struct `sid`.
pub(super) fn plan(p: &Protocol, sid: StructId, fi: usize) -> WritePlan {
    let s = &p.structs[sid];
    let f = &s.fields[fi];
    let bits = s.layout.is_bits();
    let encoded = |i: usize| s.fields[i].ty.is_encoded();
    let size_derived = s.fields.iter().any(|d| {
        matches!(d.role, Role::Derived(Derive::LengthOf(t, _) | Derive::CountOf(t, _)) if t == fi)
    });
    let bytes_check = matches!(&f.ty, Ty::Array(_, Len::Bytes(e))
        if !size_derived && f.condition.is_none() && !e.reads_position());
    // Lengths patched in after the value (not one in a bit group or a bit stream: computed
    // before it).
    let patches: Vec<usize> = if bits || !encoded(fi) {
        Vec::new()
    } else {
        s.fields
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                matches!(d.role, Role::Derived(Derive::LengthOf(t, _)) if t == fi)
                    && d.group.is_none()
            })
            .map(|(i, _)| i)
            .collect()
    };
    let size = match f.role {
        Role::Derived(Derive::CountOf(ti, _) | Derive::LengthOf(ti, _)) => {
            let target = &s.fields[ti].ty;
            Some(match target {
                _ if matches!(f.ty, Ty::VarInt(_)) => SizeWrite::FromValue,
                // (Validation keeps such elements whole bytes.)
                Ty::Array(e, Len::Bytes(_)) if bits && p.fixed_size(e).is_some() => {
                    SizeWrite::WholeElements(p.fixed_size(e).unwrap_or_default())
                }
                _ if !target.is_encoded() => SizeWrite::FromValue,
                _ if f.group.is_some() => SizeWrite::MeasuredAside,
                // (Encoded lengths in bit streams are a limit: validate/checks/limits.rs.)
                _ => SizeWrite::Patched,
            })
        }
        _ => None,
    };
    let patched_here = size == Some(SizeWrite::Patched)
        && matches!(f.role, Role::Derived(Derive::LengthOf(..)))
        && !bits;
    let keeps_start =
        matches!(f.role, Role::Checksum(_)) || patched_here || !patches.is_empty() || bytes_check;
    let len_check = f.role == Role::Value
        && !size_derived
        && matches!(&f.ty,
            Ty::Bytes(Len::Expr(e))
            | Ty::Str(Len::Expr(e), Text { nul: Nul::No, .. })
            | Ty::Array(_, Len::Expr(e)) if !e.reads_position());
    let presence = match &f.condition {
        None => Presence::Always,
        Some(c) if c.reads_position() || presence_follows(s, fi) => Presence::FromValue,
        Some(_) => Presence::Checked,
    };
    WritePlan {
        keeps_start,
        patches,
        size,
        size_derived,
        len_check,
        bytes_check,
        presence,
    }
}

/// Whether field `fi`'s condition holds exactly when the field is present because the encoder
/// wrote it so: a presence bit derived from it, or a flag bit implied by it and by nothing else.
fn presence_follows(s: &Struct, fi: usize) -> bool {
    let by_this =
        |w: &ImpliedWhen| matches!(w, ImpliedWhen::Present(i) | ImpliedWhen::Absent(i) if *i == fi);
    s.fields.iter().any(|d| {
        matches!(d.role, Role::Derived(Derive::PresenceOf(i) | Derive::AbsenceOf(i)) if i == fi)
            || d.implied.iter().any(|imp| {
                matches!(imp.value, ImpliedValue::Bit(_))
                    && by_this(&imp.when)
                    && d.implied.iter().filter(|o| o.value == imp.value).count() == 1
            })
    })
}
