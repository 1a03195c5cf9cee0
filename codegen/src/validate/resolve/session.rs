//! Pass: session state. State tables and the messages that record them; sequence joins.

use super::*;

impl<'f> Resolver<'f> {
    /// A join's streams: its bytes `fields` of `sid`, each read as its `as` type (if any).
    fn join_streams(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        fields: &[String],
        as_types: &[String],
        yp: &str,
    ) -> Vec<Stream> {
        if fields.is_empty() {
            self.r.error(
                Code::E0802,
                &format!("{yp}.fields"),
                "name at least one bytes field",
                None,
            );
        }
        if !as_types.is_empty() && as_types.len() != fields.len() {
            self.r.error(
                Code::E0803,
                &format!("{yp}.as"),
                format!(
                    "'as' gives {} types for {} fields",
                    as_types.len(),
                    fields.len()
                ),
                Some("one type (or 'bytes') per field, in the same order".into()),
            );
        }
        let mut streams = Vec::new();
        for (i, name) in fields.iter().enumerate() {
            let fp = format!("{yp}.fields.{i}");
            let Some(field) = self.field_named(proto, sid, name, &fp) else {
                continue;
            };
            if !matches!(proto.structs[sid].fields[field].ty, Ty::Bytes(_)) {
                self.r.error(
                    Code::E0804,
                    &fp,
                    format!("'{name}' must be a bytes field"),
                    None,
                );
            }
            let whole = match as_types.get(i).map(String::as_str) {
                None | Some("bytes") => None,
                Some(t) => self.struct_named(t, &format!("{yp}.as.{i}")),
            };
            if let Some(w) = whole {
                if proto.structs[w].layout != Layout::Bytes {
                    self.r.error(
                        Code::E0805,
                        &format!("{yp}.as.{i}"),
                        "a joined stream decodes as a byte-aligned type",
                        None,
                    );
                }
            }
            streams.push(Stream { field, whole });
        }
        streams
    }

    /// `stream_reassembly`: pieces joined in the order they come, between a begin and an end
    /// message.
    pub(crate) fn stream_joins(&mut self, proto: &Protocol) -> Vec<StreamJoin> {
        let mut out = Vec::new();
        for (k, j) in self.file.protocol.stream_reassembly.iter().enumerate() {
            let yp = format!("protocol.stream_reassembly.{k}");
            let Some(sid) = self.struct_named(&j.in_type, &format!("{yp}.in")) else {
                continue;
            };
            let begin = self.struct_named(&j.begin, &format!("{yp}.begin"));
            let end = self.struct_named(&j.end, &format!("{yp}.end"));
            if proto.structs[sid].layout != Layout::Bytes {
                self.r.error(
                    Code::E0817,
                    &format!("{yp}.in"),
                    "parts in bit-stream types are not supported yet",
                    None,
                );
            }
            let streams = self.join_streams(proto, sid, &j.fields, &j.as_types, &yp);
            let (Some(begin), Some(end)) = (begin, end) else {
                continue;
            };
            // Three roles, three types: a begin that is also a piece would start and feed.
            if begin == end || begin == sid || end == sid {
                self.r.error(
                    Code::E0818,
                    &yp,
                    "the pieces, the begin and the end message are three different types",
                    Some("name the packet types that start and end a payload, such as MAP_BEGIN and MAP_DONE".into()),
                );
            }
            let twice = out.iter().any(|o: &StreamJoin| o.in_struct == sid)
                || proto.joins.iter().any(|o| o.in_struct == sid);
            if twice {
                self.r.error(
                    Code::E0820,
                    &format!("{yp}.in"),
                    format!("'{}' carries the pieces of another join already", j.in_type),
                    Some("one join per type of pieces".into()),
                );
            }
            if j.max_size == Some(0) {
                self.r.error(
                    Code::E0819,
                    &format!("{yp}.max_size"),
                    "max_size must be at least 1",
                    None,
                );
            }
            out.push(StreamJoin {
                in_struct: sid,
                streams,
                begin,
                end,
                max_size: j.max_size.unwrap_or(16 << 20),
            });
        }
        out
    }

    pub(crate) fn joins(&mut self, proto: &Protocol) -> Vec<Join> {
        let mut out = Vec::new();
        for (k, j) in self.file.protocol.sequence_reassembly.iter().enumerate() {
            let yp = format!("protocol.sequence_reassembly.{k}");
            let Some(sid) = self.struct_named(&j.in_type, &format!("{yp}.in")) else {
                continue;
            };
            if proto.structs[sid].layout != Layout::Bytes {
                self.r.error(
                    Code::E0801,
                    &format!("{yp}.in"),
                    "parts in bit-stream types are not supported yet",
                    None,
                );
            }
            let streams = self.join_streams(proto, sid, &j.fields, &j.as_types, &yp);
            let mut key = Vec::new();
            for (i, name) in j.key.iter().enumerate() {
                let at = format!("{yp}.key.{i}");
                match name.split_once('.') {
                    Some((holder, field)) => {
                        key.extend(self.enclosing_key(proto, sid, holder, field, &at));
                    }
                    None => {
                        key.extend(self.field_named(proto, sid, name, &at).map(|fi| FieldRef {
                            struct_id: sid,
                            field: fi,
                            name: name.clone(),
                        }))
                    }
                }
            }
            let Some(sequence) =
                self.field_named(proto, sid, &j.sequence, &format!("{yp}.sequence"))
            else {
                continue;
            };
            let range = match &proto.structs[sid].fields[sequence].ty {
                Ty::Int(it) if !it.signed => it.max_value().saturating_add(1),
                _ => {
                    self.r.error(
                        Code::E0806,
                        &format!("{yp}.sequence"),
                        format!("'{}' must be an unsigned integer", j.sequence),
                        None,
                    );
                    continue;
                }
            };
            let wrap = j.wrap.unwrap_or(range);
            if wrap < 2 || wrap > range {
                self.r.error(
                    Code::E0807,
                    &format!("{yp}.wrap"),
                    format!("wrap {wrap} is outside 2..={range} (the sequence field's range)"),
                    None,
                );
            }
            let all = proto.structs[sid].fields.len();
            let cond = |v: &mut Self, text: &str, at: &str| {
                let scope = Scope {
                    struct_id: sid,
                    visible: all,
                    yaml_path: &format!("{yp}.{at}"),
                };
                v.expr_of(&scope, text, ExprTy::Bool)
            };
            let first = cond(self, &j.first, "first");
            let last = cond(self, &j.last, "last");
            // The crate evaluates them, and reads the key and number, on decoded values.
            self.refuse_encoder_filled(proto, &first, &format!("{yp}.first"), Code::E0814);
            self.refuse_encoder_filled(proto, &last, &format!("{yp}.last"), Code::E0815);
            let numbering = [(sequence, "sequence".to_string())].into_iter().chain(
                key.iter()
                    .enumerate()
                    .filter(|(_, f)| f.struct_id == sid)
                    .map(|(k, f)| (f.field, format!("key.{k}"))),
            );
            for (fi, at) in numbering {
                self.refuse_encoder_filled_field(
                    proto,
                    sid,
                    fi,
                    &format!("{yp}.{at}"),
                    Code::E0816,
                );
            }
            if j.piece_size == Some(0) {
                self.r.error(
                    Code::E0808,
                    &format!("{yp}.piece_size"),
                    "piece_size must be at least 1",
                    None,
                );
            }
            let limits = streams.iter().map(|s| length_limit(proto, sid, s.field));
            let piece_size = j.piece_size.unwrap_or_else(|| default_piece_size(limits));
            out.push(Join {
                in_struct: sid,
                streams,
                key,
                sequence,
                wrap,
                first,
                last,
                piece_size,
            });
        }
        out
    }

    pub(crate) fn state(&mut self, proto: &Protocol) -> Vec<StateTable> {
        let mut out = Vec::new();
        for (name, t) in &self.file.protocol.state {
            let yp = format!("protocol.state.{name}");
            let Some((_, Some(items))) = self.tables.get(name).copied() else {
                continue;
            };
            let mut records = Vec::new();
            for (k, r) in t.record.iter().enumerate() {
                let rp = format!("{yp}.record.{k}");
                let Some(sid) = self.struct_named(&r.in_type, &format!("{rp}.in")) else {
                    continue;
                };
                let Some(key) = self.field_named(proto, sid, &r.key, &format!("{rp}.key")) else {
                    continue;
                };
                if !matches!(proto.structs[sid].fields[key].ty, Ty::Int(_)) {
                    self.r.error(
                        Code::E0809,
                        &format!("{rp}.key"),
                        format!("key '{}' must be an integer field", r.key),
                        None,
                    );
                }
                let ip = format!("{rp}.items");
                let steps: Vec<&str> = r.items.split('.').collect();
                let (mut holder, mut via, mut rest) = (sid, None, &steps[..]);
                // A first step naming a joined stream continues in its whole.
                if let Some(first) = steps.first() {
                    for (ji, j) in proto.joins.iter().enumerate() {
                        if j.in_struct != sid {
                            continue;
                        }
                        for (si, st) in j.streams.iter().enumerate() {
                            if proto.structs[sid].fields[st.field].name == *first {
                                match st.whole {
                                    Some(w) => {
                                        holder = w;
                                        via = Some((ji, si));
                                        rest = &steps[1..];
                                    }
                                    None => self.r.error(
                                        Code::E0810,
                                        &ip,
                                        format!("the joined stream '{first}' stays bytes"),
                                        None,
                                    ),
                                }
                            }
                        }
                    }
                }
                let [list, item] = rest else {
                    self.r.error(
                        Code::E0811,
                        &ip,
                        format!(
                            "'{}' should be an array field and its elements' field",
                            r.items
                        ),
                        Some("e.g. 'values.type'".into()),
                    );
                    continue;
                };
                let Some(list) = self.field_named(proto, holder, list, &ip) else {
                    continue;
                };
                let elem = match &proto.structs[holder].fields[list].ty {
                    Ty::Array(e, _) => match **e {
                        Ty::Struct(id, _) => Some(id),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(elem) = elem else {
                    self.r.error(
                        Code::E0812,
                        &ip,
                        format!(
                            "'{}' is not an array of a type with fields",
                            proto.structs[holder].fields[list].name
                        ),
                        None,
                    );
                    continue;
                };
                let Some(item) = self.field_named(proto, elem, item, &ip) else {
                    continue;
                };
                if !matches!(proto.structs[elem].fields[item].ty, Ty::Enum(e) if e == items) {
                    self.r.error(
                        Code::E0813,
                        &ip,
                        format!(
                            "'{}' is not of the table's enum '{}'",
                            r.items, proto.enums[items].name
                        ),
                        None,
                    );
                }
                records.push(Record {
                    in_struct: sid,
                    key,
                    via,
                    holder,
                    list,
                    elem,
                    item,
                });
            }
            out.push(StateTable {
                name: name.clone(),
                doc: t.doc.clone(),
                items,
                records,
            });
        }
        out
    }
}

/// The piece size a splitter uses when the schema gives none: 1200 bytes (a datagram that
/// crosses the Internet unfragmented, with room for headers), or the least that a piece's
/// length can announce when that is smaller.
pub(crate) fn default_piece_size(limits: impl Iterator<Item = Option<u64>>) -> usize {
    limits.flatten().fold(1200u64, u64::min).max(1) as usize
}

/// The most bytes field `fi` of struct `sid` can hold, when its length says (a prefix, or a
/// length field's integer type or `max`).
pub(crate) fn length_limit(p: &Protocol, sid: StructId, fi: usize) -> Option<u64> {
    let len = match &p.structs[sid].fields[fi].ty {
        Ty::Bytes(l) | Ty::Str(l, _) => l,
        _ => return None,
    };
    match len {
        Len::Prefix(it) => Some(it.max_value()),
        Len::Expr(Expr::Field(refs)) if refs.len() == 1 => {
            let f = p.field(&refs[0]);
            match (&f.ty, f.max) {
                (_, Some(max)) => Some(max),
                (Ty::Int(it), None) => Some(it.max_value()),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod piece_size_tests {
    /// Without `piece_size`, reassembly and joins cut pieces of 1200 bytes, or as many as a
    /// joined stream's length can announce when fewer (the guide calls it a default: it was
    /// required).
    #[test]
    fn a_missing_piece_size_is_the_default_the_piece_length_allows() {
        let reassembly = "protocol:
  name: pieces
  title: Pieces
  root: Packet
  transport: { udp: { ports: [9700] } }
  reassembly: { field: data, key: [id], index: index, last: last, client: Joined, server: Joined }
types:
  Packet:
    fields:
      - { name: id, type: u16 }
      - { name: index, type: u8 }
      - { name: last, type: bool }
      - { name: data, type: bytes }
  Joined: { fields: [ { name: rest, type: bytes } ] }
";
        let p = crate::validate::load("pieces.yaml", reassembly).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(p.reassembly.unwrap().piece_size, 1200);
        let joins = |stream: &str| {
            format!(
                "protocol:
  name: parts
  title: Parts
  root: Part
  transport: {{ udp: {{ ports: [9701] }} }}
  sequence_reassembly:
    - {{ in: Part, fields: [chunk], sequence: number, first: first, last: last }}
types:
  Part:
    fields:
      - {{ name: number, type: u16 }}
      - {{ name: first, type: bool }}
      - {{ name: last, type: bool }}
      {stream}
"
            )
        };
        for (stream, expected) in [
            ("- { name: chunk, type: bytes }", 1200),
            ("- { name: chunk, type: bytes, prefix: u8 }", 255),
            (
                "- { name: size, type: u16, max: 700 }\n      - { name: chunk, type: bytes, length: size }",
                700,
            ),
        ] {
            let p = crate::validate::load("parts.yaml", &joins(stream))
                .unwrap_or_else(|d| panic!("{stream}: {d}"));
            assert_eq!(p.joins[0].piece_size, expected, "{stream}");
        }
    }
}
