//! The lowering: below the IR, what both backends need to know about every field and type,
//! decided once.
//!
//! `lower(p)` runs once per schema after validation (`pipeline::generate`, the Builder) and the
//! same [`Lowered`] goes to the Rust and the Lua backend, which render it. Per field: how it is
//! reached ([`Access`]: bytes, a bit stream, bits of a bit group), the integer a checksum is
//! stored in, whether its own type's expressions read it, and how an encoder writes it
//! ([`WritePlan`]: its start kept for a patch, lengths patched after it, a derived size
//! computed, measured aside or patched, presence taken from the value or checked). Per type and
//! schema: which types borrow from the input, read conversation state, have one fixed size; the
//! order checksums are computed in; which values the dissector reads back; the filter names
//! fields give their values' fields. Model: pdl-compiler's `analyzer` + `backends/common/
//! alignment.rs` (each field's offset and chunk, computed once for every backend).
//!
//! What a backend cannot generate is not decided here either: `validate/checks/limits.rs` says it at the
//! construct's position, and a backend meeting anything else reports an internal error.

pub mod analysis;
mod context;
mod placement;
mod read;
mod write;

pub use placement::{group_drawn_by_fields, group_position, struct_bits, Placement};

pub use read::{bit_read, byte_read, BitNumber, ByteNumber, LenRead, Unlowered, ValueRead};
pub use write::{Presence, SizeWrite, WritePlan};

use self::analysis::{checksum_order, fields_read_by_expressions, kept_values, needed_values};
use crate::ir::*;
use std::collections::HashSet;

/// How many enclosing fields (`Header.channel`) one schema may read: the slots the runtime's
/// readers and writers keep (`wiregen_runtime::ENCLOSING_SLOTS`, tested equal).
pub const ENCLOSING_SLOTS: usize = 16;

/// Everything the backends take from the lowering of one schema.
#[derive(Debug, Clone)]
pub struct Lowered {
    /// One plan per struct, indexed like `Protocol::structs`.
    pub structs: Vec<StructPlan>,
    /// Whether values of each struct borrow from the input (hold bytes or strings).
    pub borrows: Vec<bool>,
    /// Whether decoding each struct reads conversation state (directly or through its fields).
    pub state_readers: Vec<bool>,
    /// Every field whose decoded value the dissector reads: the `kept` ones, and enums, looked
    /// up in their names as they are read.
    pub needed: HashSet<(StructId, usize)>,
    /// The values read back once their field is read (checks of a constant, a maximum or the
    /// values allowed, expressions, Info summaries, keys of state, joins and reassembly): what
    /// a dissector keeps in its type's values (`v.<field>`).
    pub kept: HashSet<(StructId, usize)>,
    /// Every (struct, filter name) a field gives its value's fields (`filter:`), once each, in
    /// the order of the schema.
    pub filter_uses: Vec<(StructId, String)>,
    /// The root's switch field a reassembled whole is decoded with (`as:` naming it), when it
    /// has a length and is read as a plain field: both coders read the packet's switch and the
    /// whole with one function.
    pub shared_switch: Option<(StructId, usize)>,
    /// The enclosing fields types read (`Header.channel`), by slot: the holder's coders keep
    /// the field's value in its slot once read or written, the types inside read it there.
    pub enclosing: Vec<(StructId, usize)>,
    /// Per struct: whether its coders need the direction (`@from_client`), for itself or a
    /// value inside it.
    pub reads_direction: Vec<bool>,
}

/// The lowering of one struct.
#[derive(Debug, Clone)]
pub struct StructPlan {
    pub fields: Vec<FieldPlan>,
    /// Its size in bytes when every value has the same (byte layout, every field present and of
    /// a fixed size): read with one bounds check.
    pub fixed_size: Option<usize>,
    /// Each field's offset and width in bits where the wire fixes them (the documents'
    /// diagrams).
    pub placements: Vec<Placement>,
    /// Its checksum fields in the order an encoder computes them (one covering another's bytes
    /// after it).
    pub checksum_order: Vec<usize>,
    /// The coders' local holding where a value of it starts (`start`; `start_` when a field is
    /// named `start`: see [`fresh`]).
    pub start: String,
    /// The encoder's local holding where a padded field starts (`padded`, likewise).
    pub padded: String,
}

/// The lowering of one field.
#[derive(Debug, Clone)]
pub struct FieldPlan {
    pub access: Access,
    /// The integer a checksum is stored in (`None` for other fields).
    pub checksum_int: Option<IntTy>,
    /// Whether an expression of its own struct (a condition, a length, a switch tag) reads it:
    /// a constant or reserved field is then bound by both coders, not only checked or skipped.
    pub read_by_expressions: bool,
    /// Whether the decoder keeps the field's start for the position of a check's error
    /// (constants, checksums, `max`, `valid`).
    pub decode_start: bool,
    pub write: WritePlan,
    /// The slot its value is kept in for the types inside that read it (see
    /// [`Lowered::enclosing`]).
    pub enclosing_slot: Option<usize>,
    /// An array read to the end (or to a size in bytes) whose elements may take no bytes: both
    /// coders check each element took some (else it would be read forever).
    pub empty_elements: bool,
    /// The coders' locals of this field beside its own (which has the field's name).
    pub locals: FieldLocals,
}

/// Locals the generated coders keep for one field, named after it (`kind_at`) unless a field of
/// the struct has that name already (see [`fresh`]).
#[derive(Debug, Clone)]
pub struct FieldLocals {
    /// Where the field starts (checks' error positions, patches, checksums).
    pub at: String,
    /// The index of a checksum's trace note (its status is inserted there).
    pub note: String,
    /// Where a checksum range named from this field starts.
    pub range_start: String,
    /// Where a checksum range named to this field ends.
    pub range_end: String,
    /// A bit group's reader or writer, and the byte writer it stands in for (on the group's
    /// first field).
    pub group: String,
    pub outer: String,
}

/// `base`, or `base` followed by as many `_` as it takes to be no field's name: a local of the
/// generated coders never shadows a field's local (a field named `start`, `kind_at`).
pub fn fresh(base: String, s: &Struct) -> String {
    let mut name = base;
    while s.fields.iter().any(|f| f.name == name) {
        name.push('_');
    }
    name
}

/// How a field's bits are reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// From whole bytes of a byte layout.
    Bytes,
    /// From the bit stream of a bit layout (of the struct's bit order).
    Stream,
    /// Bits `[shift, shift + width)` of bit group `group`'s integer (a byte layout's group).
    Group {
        group: usize,
        shift: u32,
        width: u32,
    },
}

impl Access {
    /// Whether the field is read and written as bits (a bit reader or a group's stands in).
    pub fn is_bits(self) -> bool {
        self != Access::Bytes
    }
}

impl Lowered {
    pub fn field(&self, sid: StructId, fi: usize) -> &FieldPlan {
        &self.structs[sid].fields[fi]
    }

    /// Whether values of this union borrow from the input (a bytes case, or a case's struct
    /// that borrows).
    pub fn union_borrows(&self, u: &Union) -> bool {
        u.borrows_with(&mut |id| self.borrows[id])
    }

    /// Whether a value of `ty` borrows from the decoded input (has a lifetime).
    pub fn type_borrows(&self, ty: &Ty) -> bool {
        ty.borrows_with(&mut |id| self.borrows[id])
    }
}

/// Lowers a validated schema.
pub fn lower(p: &Protocol) -> Lowered {
    let enclosing = context::enclosing_slots(p);
    let structs = p
        .structs
        .iter()
        .enumerate()
        .map(|(sid, s)| {
            let read = fields_read_by_expressions(p, sid);
            let fields = (0..s.fields.len())
                .map(|fi| {
                    let slot = enclosing.iter().position(|e| *e == (sid, fi));
                    let mut plan = field_plan(p, sid, fi, read.contains(&fi) || slot.is_some());
                    plan.enclosing_slot = slot;
                    plan
                })
                .collect();
            // Validation refuses checksums that cover each other; were any left, they would
            // still be computed (after the others).
            let checksum_order = checksum_order(&s.fields).unwrap_or_else(|left| left);
            StructPlan {
                fields,
                fixed_size: p.struct_fixed_size(sid),
                placements: placement::placements(p, sid),
                checksum_order,
                start: fresh("start".into(), s),
                padded: fresh("padded".into(), s),
            }
        })
        .collect();
    let kept = kept_values(p);
    Lowered {
        structs,
        borrows: (0..p.structs.len())
            .map(|id| p.struct_borrows(id))
            .collect(),
        state_readers: p.state_readers(),
        needed: needed_values(p, &kept),
        kept,
        filter_uses: p.filter_uses(),
        shared_switch: shared_switch(p),
        reads_direction: analysis::direction_readers(p),
        enclosing,
    }
}

/// See [`Lowered::shared_switch`].
fn shared_switch(p: &Protocol) -> Option<(StructId, usize)> {
    let Some(Reassembly {
        whole: WholeType::AsField(fi),
        ..
    }) = &p.reassembly
    else {
        return None;
    };
    let f = &p.root().fields[*fi];
    match &f.ty {
        Ty::Union(u) if !matches!(u.len, Len::Natural) && f.select.is_empty() => {
            Some((p.root, *fi))
        }
        _ => None,
    }
}

fn field_plan(p: &Protocol, sid: StructId, fi: usize, read_by_expressions: bool) -> FieldPlan {
    let s = &p.structs[sid];
    let f = &s.fields[fi];
    let access = match p.packing(sid, fi) {
        Some((_, shift, width)) => Access::Group {
            group: f.group.unwrap_or_default(),
            shift,
            width,
        },
        None if s.layout.is_bits() => Access::Stream,
        None => Access::Bytes,
    };
    let checksum_int = match (&f.role, &f.ty) {
        (Role::Checksum(_), Ty::Int(it)) => Some(*it),
        _ => None,
    };
    FieldPlan {
        access,
        checksum_int,
        read_by_expressions,
        decode_start: matches!(f.role, Role::Const(_) | Role::Checksum(_))
            || f.max.is_some()
            || f.valid.is_some(),
        write: write::plan(p, sid, fi),
        enclosing_slot: None,
        empty_elements: match &f.ty {
            Ty::Array(e, Len::Rest | Len::Natural | Len::Bytes(_)) => analysis::can_be_empty(p, e),
            _ => false,
        },
        locals: field_locals(s, fi),
    }
}

fn field_locals(s: &Struct, fi: usize) -> FieldLocals {
    let name = &s.fields[fi].name;
    let group = s.fields[fi]
        .group
        .map_or(String::new(), |g| s.groups[g].name.clone());
    FieldLocals {
        at: fresh(format!("{name}_at"), s),
        note: fresh(format!("{name}_note"), s),
        range_start: fresh(format!("{name}_start"), s),
        range_end: fresh(format!("{name}_end"), s),
        group: fresh(format!("group_{group}"), s),
        outer: fresh(format!("outer_{group}"), s),
    }
}

#[cfg(test)]
mod tests;
