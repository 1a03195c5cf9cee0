//! Pass: protocol and transport. Ports, heuristic, opening datagrams, reassembly.

use super::*;

impl<'f> Resolver<'f> {
    /// Each type's layout: its own, else inherited from an enclosing bit-stream type, else the
    /// protocol's. Types used inside a bit stream are bit streams of the same bit order; one
    /// reached from streams of both orders, or declaring the other order, is refused (a stream
    /// cannot change its bit order in the middle).
    pub(crate) fn inherited_layouts(&mut self, default: Layout) -> Vec<Layout> {
        let own = |t: &schema::TypeDef| t.layout.map(Layout::from);
        let mut layouts: Vec<Layout> = self
            .file
            .types
            .values()
            .map(|t| own(t).unwrap_or(default))
            .collect();
        // Each child type with the index of the field that uses it.
        let children = |t: &schema::TypeDef| -> Vec<(StructId, usize)> {
            let mut out = Vec::new();
            for (fi, f) in t.fields.iter().enumerate() {
                if let Some(ty) = &f.ty {
                    let base = ty.trim_end_matches("[]");
                    out.extend(self.struct_ids.get(base).map(|c| (*c, fi)));
                }
                if let Some(sw) = &f.switch {
                    for case in sw.cases.values().chain(sw.default.iter()) {
                        let name = match case {
                            schema::CaseDef::Type(t) => t,
                            schema::CaseDef::Named { ty, .. } => ty,
                        };
                        out.extend(self.struct_ids.get(name.as_str()).map(|c| (*c, fi)));
                    }
                }
            }
            out
        };
        let mut work: Vec<StructId> = (0..layouts.len())
            .filter(|i| layouts[*i].is_bits())
            .collect();
        let mut clashes = Vec::new();
        while let Some(id) = work.pop() {
            let (parent, t) = self.file.types.get_index(id).unwrap();
            for (c, fi) in children(t) {
                let (child, ct) = self.file.types.get_index(c).unwrap();
                if layouts[c] == layouts[id] {
                    continue;
                }
                if !layouts[c].is_bits() && own(ct).is_none() {
                    layouts[c] = layouts[id];
                    work.push(c);
                } else if layouts[c].is_bits() {
                    clashes.push((
                        self.r.field_path(parent, fi),
                        format!(
                            "'{child}' is read as {} here, inside the {} type '{parent}'",
                            layouts[c].name(),
                            layouts[id].name()
                        ),
                    ));
                }
            }
        }
        for (at, msg) in clashes {
            self.r.error(
                Code::E0701,
                &at,
                format!("{msg}: a bit stream keeps one bit order"),
                Some("use one bit order for the types of one stream, or copy the type".into()),
            );
        }
        layouts
    }

    pub(crate) fn reassembly(&mut self, proto: &Protocol) -> Option<Reassembly> {
        let r = self.file.protocol.reassembly.as_ref()?;
        let yp = "protocol.reassembly";
        let root = proto.root();
        let label = format!("the root type '{}'", root.name);
        let field_of = |v: &mut Self, name: &str, at: &str| {
            v.field_in(proto, proto.root, &label, name, &format!("{yp}.{at}"))
        };
        let field = field_of(self, &r.field, "field")?;
        let piece_ok = match &root.fields[field].ty {
            Ty::Bytes(Len::Rest) => true,
            Ty::Union(u) => u.default == Some(CaseBody::Bytes),
            _ => false,
        };
        if !piece_ok {
            self.r.error(Code::E0702, &format!("{yp}.field"), format!("'{}' must be a bytes field that runs to the end, or a switch whose default is bytes", r.field), None);
        }
        let index = field_of(self, &r.index, "index")?;
        let mut key = Vec::new();
        for (k, name) in r.key.iter().enumerate() {
            key.push(field_of(self, name, &format!("key.{k}"))?);
        }
        let all = root.fields.len();
        let end = match (&r.last, &r.count) {
            (Some(last), None) => {
                let scope = Scope {
                    struct_id: proto.root,
                    visible: all,
                    yaml_path: &format!("{yp}.last"),
                };
                let e = self.expr_of(&scope, last, ExprTy::Bool);
                self.refuse_encoder_filled(proto, &e, &format!("{yp}.last"), Code::E0716);
                PieceEnd::Last(e)
            }
            (None, Some(count)) => PieceEnd::Count(field_of(self, count, "count")?),
            _ => {
                self.r.error(
                    Code::E0703,
                    yp,
                    "reassembly needs exactly one of 'last' and 'count'",
                    None,
                );
                return None;
            }
        };
        let when = r.when.as_ref().map(|w| {
            let scope = Scope {
                struct_id: proto.root,
                visible: all,
                yaml_path: &format!("{yp}.when"),
            };
            let e = self.expr_of(&scope, w, ExprTy::Bool);
            self.refuse_encoder_filled(proto, &e, &format!("{yp}.when"), Code::E0717);
            e
        });
        // The crate reads these of a decoded packet too.
        let named = [(index, "index".to_string())].into_iter().chain(
            key.iter()
                .enumerate()
                .map(|(k, f)| (*f, format!("key.{k}"))),
        );
        for (fi, at) in named {
            self.refuse_encoder_filled_field(
                proto,
                proto.root,
                fi,
                &format!("{yp}.{at}"),
                Code::E0718,
            );
        }
        let whole = self.reassembly_whole(proto, r)?;
        let numbered = match &r.numbered {
            Some(name) => {
                let fi = field_of(self, name, "numbered")?;
                if !matches!(root.fields[fi].ty, Ty::Int(it) if !it.signed) {
                    self.r.error(
                        Code::E0708,
                        &format!("{yp}.numbered"),
                        format!("'{name}' must be an unsigned integer field"),
                        None,
                    );
                }
                Some(fi)
            }
            None => None,
        };
        if r.piece_size == Some(0) {
            self.r.error(
                Code::E0709,
                &format!("{yp}.piece_size"),
                "piece_size must be at least 1",
                None,
            );
        }
        Some(Reassembly {
            field,
            key,
            index,
            end,
            when,
            piece_size: r.piece_size.unwrap_or_else(|| {
                super::session::default_piece_size(std::iter::once(super::session::length_limit(
                    proto, proto.root, field,
                )))
            }),
            numbered,
            whole,
        })
    }

    /// What a reassembled whole is read as: the client's and the server's types (E0704
    /// unknown, E0705 no server port), or the root's switch `as` names (E0706); E0707 neither.
    fn reassembly_whole(
        &mut self,
        proto: &Protocol,
        r: &schema::ReassemblyDef,
    ) -> Option<WholeType> {
        let yp = "protocol.reassembly";
        let root = proto.root();
        let label = format!("the root type '{}'", root.name);
        Some(match (&r.client, &r.server, &r.as_field) {
            (Some(c), Some(sv), None) => {
                let (client, server) = (
                    self.struct_ids.get(c).copied(),
                    self.struct_ids.get(sv).copied(),
                );
                if client.is_none() || server.is_none() {
                    self.r.error(
                        Code::E0704,
                        yp,
                        "unknown whole type for client or server",
                        None,
                    );
                    return None;
                }
                if proto.transport.udp_ports.is_empty() {
                    self.r.error(
                        Code::E0705,
                        yp,
                        "reassembly by direction needs the server's UDP ports",
                        Some("add transport.udp.ports".into()),
                    );
                }
                WholeType::ByDirection {
                    client: client?,
                    server: server?,
                }
            }
            (None, None, Some(f)) => {
                let fi = self.field_in(proto, proto.root, &label, f, &format!("{yp}.as"))?;
                if !matches!(root.fields[fi].ty, Ty::Union(_)) {
                    self.r.error(
                        Code::E0706,
                        &format!("{yp}.as"),
                        format!("'{f}' is not a switch"),
                        None,
                    );
                }
                WholeType::AsField(fi)
            }
            _ => {
                self.r.error(
                    Code::E0707,
                    yp,
                    "say what the whole is: 'client' and 'server' types, or 'as' a switch field",
                    None,
                );
                return None;
            }
        })
    }

    /// A field of struct `sid` by name, or an error at `yp` with a suggestion.
    pub(crate) fn field_named(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        name: &str,
        yp: &str,
    ) -> Option<usize> {
        let label = format!("'{}'", proto.structs[sid].name);
        self.field_in(proto, sid, &label, name, yp)
    }

    /// [`Self::field_named`], the struct called `label` in the message.
    pub(crate) fn field_in(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        label: &str,
        name: &str,
        yp: &str,
    ) -> Option<usize> {
        let s = &proto.structs[sid];
        let found = s.fields.iter().position(|f| f.name == name);
        if found.is_none() {
            let hint = did_you_mean(name, s.fields.iter().map(|f| f.name.as_str()));
            self.r.error(
                Code::E0710,
                yp,
                format!("'{name}' is not a field of {label}"),
                hint,
            );
        }
        found
    }

    pub(crate) fn struct_named(&mut self, name: &str, yp: &str) -> Option<StructId> {
        let found = self.struct_ids.get(name).copied();
        if found.is_none() {
            let hint = did_you_mean(name, self.struct_ids.keys().map(String::as_str));
            self.r
                .error(Code::E0711, yp, format!("unknown type '{name}'"), hint);
        }
        found
    }

    pub(crate) fn opening(&mut self) -> Vec<(Side, StructId)> {
        let Some(conv) = &self.file.protocol.conversation else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, step) in conv.opening.iter().enumerate() {
            let yp = format!("protocol.conversation.opening.{k}");
            let side = match step.from.as_str() {
                "client" => Side::Client,
                "server" => Side::Server,
                other => {
                    self.r.error(
                        Code::E0712,
                        &format!("{yp}.from"),
                        format!("unknown side '{other}'"),
                        Some("expected 'client' or 'server'".into()),
                    );
                    continue;
                }
            };
            if let Some(id) = self.struct_named(&step.ty, &format!("{yp}.type")) {
                out.push((side, id));
            }
        }
        out
    }

    /// The largest message a TCP prefix may announce: the schema's `max_message`, which the
    /// prefix must be able to hold, or what the prefix holds up to 1 MiB (a wider prefix could
    /// announce gigabytes, more than a game sends at once).
    fn tcp_max_message(
        &mut self,
        tcp: &schema::TcpDef,
        prefix: Option<IntTy>,
        counted: i64,
    ) -> u64 {
        let yp = "protocol.transport.tcp.max_message";
        let Some(prefix) = prefix else {
            if tcp.max_message.is_some() {
                self.r.error(
                    Code::E0713,
                    yp,
                    "'max_message' bounds a length prefix, and this transport has none",
                    Some("add 'length_prefix' (e.g. u16le) or remove 'max_message'".into()),
                );
            }
            return 0;
        };
        match tcp.max_message {
            Some(0) => {
                self.r
                    .error(Code::E0714, yp, "'max_message' must be at least 1", None);
                0
            }
            Some(n) if n > prefix.max_value() => {
                self.r.error(
                    Code::E0715,
                    yp,
                    format!(
                        "'max_message' {n} is more than the length prefix can announce ({})",
                        prefix.max_value()
                    ),
                    Some("use a wider 'length_prefix' or a smaller 'max_message'".into()),
                );
                prefix.max_value()
            }
            Some(n) if i128::from(n) + i128::from(counted) > i128::from(prefix.max_value()) => {
                self.r.error(
                    Code::E0721,
                    yp,
                    format!(
                        "a message of {n} bytes needs a prefix of {}, more than it can hold ({})",
                        i128::from(n) + i128::from(counted),
                        prefix.max_value()
                    ),
                    Some("a smaller 'max_message': the prefix's largest value less what it counts besides the message".into()),
                );
                n
            }
            Some(n) => n,
            // (A negative count, a length of what follows it inside the message, lets the
            // message be longer than the value.)
            None => (i128::from(prefix.max_value()) - i128::from(counted)).min(1 << 20) as u64,
        }
    }

    /// TCP carries a stream of bytes, not messages: a transport says how its messages are found
    /// in it (a length prefix), or that each segment is one message (`framing: none`), which
    /// misreads a message cut across segments or several in one as soon as a real path cuts
    /// them so.
    fn tcp_framing(&mut self, tcp: &schema::TcpDef) {
        let yp = "protocol.transport.tcp";
        match (&tcp.length_prefix, tcp.framing) {
            (None, None) => self.r.error(
                Code::E0722,
                yp,
                "TCP carries a stream, not messages: without a framing, a message cut across \
                 segments, or several in one segment, is misread",
                Some(
                    "give 'length_prefix' (e.g. u16le; 'length_counts: frame' when the size \
                     counts itself), or 'framing: none' if every segment holds exactly one message"
                        .into(),
                ),
            ),
            (Some(_), Some(schema::TcpFraming::None)) => self.r.error(
                Code::E0723,
                &format!("{yp}.framing"),
                "'framing: none' and a 'length_prefix' contradict each other",
                Some("keep the one the protocol uses".into()),
            ),
            _ => {}
        }
    }

    /// What a TCP length prefix's value counts besides the message (`length_counts`,
    /// `length_adjust`; with `length_at`, besides the whole message that holds it): the
    /// shortest frame must not need a negative value.
    fn tcp_counted(
        &mut self,
        tcp: &schema::TcpDef,
        prefix: Option<IntTy>,
        at: Option<usize>,
    ) -> i64 {
        let yp = "protocol.transport.tcp";
        let Some(prefix) = prefix else {
            if tcp.length_counts.is_some() || tcp.length_adjust.is_some() || tcp.length_at.is_some()
            {
                self.r.error(
                    Code::E0719,
                    yp,
                    "'length_counts', 'length_adjust' and 'length_at' say where a length prefix \
                     is and what it counts, and this transport has none",
                    Some("add 'length_prefix' (e.g. u16le)".into()),
                );
            }
            return 0;
        };
        let size = prefix.bytes() as i64;
        let frame = tcp.length_counts == Some(schema::LengthCounts::Frame);
        let own = match at {
            None if frame => size,
            None => 0,
            // Inside the message: counting all of it, or only what follows the length.
            Some(_) if frame => 0,
            Some(at) => -(at as i64 + size),
        };
        let counted = own + tcp.length_adjust.unwrap_or(0);
        let shortest = at.map_or(0, |at| at as i64 + size);
        if shortest + counted < 0 {
            self.r.error(
                Code::E0720,
                &format!("{yp}.length_adjust"),
                format!(
                    "the length would be {} for the shortest frame ({shortest} bytes): a value \
                     cannot be negative",
                    shortest + counted
                ),
                Some(
                    "a length that counts fewer bytes than the message has no frame to describe"
                        .into(),
                ),
            );
            return 0;
        }
        counted
    }

    /// A length inside the message (`length_at`) is a field of the root at that byte, of the
    /// prefix's integer type, that the encoder fills: an earlier field of variable size, a
    /// field of another type there, or one the user sets would let the framing and the message
    /// disagree.
    fn tcp_length_field(&mut self, proto: &Protocol, at: usize, prefix: IntTy) {
        let yp = "protocol.transport.tcp.length_at";
        let root = proto.root();
        if let Some(&(fi, _, n)) = leading_fixed(proto)
            .iter()
            .find(|(_, offset, _)| *offset == at)
        {
            let f = &root.fields[fi];
            if !matches!(f.ty, Ty::Int(it) if it == prefix) {
                let message = format!(
                    "the root's field at byte {at} is '{}', not a {} {} length",
                    f.name,
                    prefix.name(),
                    prefix.endian.words()
                );
                self.r.error(
                    Code::E0724,
                    yp,
                    message,
                    Some(format!(
                        "give 'length_at' the byte of the length field, or make '{}' a {} {}",
                        f.name,
                        prefix.name(),
                        prefix.endian.words()
                    )),
                );
            } else if !matches!(f.role, Role::Derived(_)) {
                let message = format!(
                    "the root's '{}' holds the TCP length, but nothing derives it: the \
                     encoder would write what the user sets",
                    f.name
                );
                self.r.error(
                    Code::E0726,
                    yp,
                    message,
                    Some(format!(
                        "make it the length of the root's last field, which the encoder then \
                     fills: length: \"{0} - {1}\" when it counts the whole message, \
                     length: {0} when it counts what follows it",
                        f.name,
                        at + n
                    )),
                );
            }
            return;
        }
        self.r.error(
            Code::E0725,
            yp,
            format!("no field of the root starts at byte {at} after fields of fixed size"),
            Some(
                "the length must be a field of the root's header, after fields of fixed size \
                 and without a condition"
                    .into(),
            ),
        );
    }

    pub(crate) fn transport(&mut self, proto: &Protocol, endian: Endian) -> Transport {
        let none = schema::TransportDef::default();
        let t = self.file.protocol.transport.as_ref().unwrap_or(&none);
        let mut out = Transport::default();
        if let Some(u) = &t.udp {
            out.udp_ports = u.ports.clone();
        }
        if let Some(tcp) = &t.tcp {
            out.tcp_ports = tcp.ports.clone();
            out.tcp_length_prefix = tcp
                .length_prefix
                .as_ref()
                .and_then(|p| self.int_ty(p, "protocol.transport.tcp.length_prefix", endian));
            self.tcp_framing(tcp);
            out.tcp_length_at = tcp.length_at.map(|at| at as usize);
            out.tcp_counted = self.tcp_counted(tcp, out.tcp_length_prefix, out.tcp_length_at);
            out.tcp_max_message = self.tcp_max_message(tcp, out.tcp_length_prefix, out.tcp_counted);
            if let (Some(at), Some(prefix)) = (out.tcp_length_at, out.tcp_length_prefix) {
                self.tcp_length_field(proto, at, prefix);
            }
        }
        if let Some(h) = &t.heuristic {
            out.udp_heuristic = h
                .udp
                .as_ref()
                .and_then(|e| self.heuristic(proto, e, "protocol.transport.heuristic.udp"));
            out.tcp_heuristic = h
                .tcp
                .as_ref()
                .and_then(|e| self.heuristic(proto, e, "protocol.transport.heuristic.tcp"));
        }
        out
    }

    pub(crate) fn heuristic(
        &mut self,
        proto: &Protocol,
        text: &str,
        yp: &str,
    ) -> Option<Heuristic> {
        // Only leading fixed-size fields have a known offset before dissection.
        let leading = leading_fixed(proto);
        let fixed = leading.len();
        let scope = Scope {
            struct_id: proto.root,
            visible: fixed,
            yaml_path: yp,
        };
        let expr = self.expr_of(&scope, text, ExprTy::Bool);
        let mut used = Vec::new();
        expr.local_fields(&mut used);
        let min_len = leading
            .iter()
            .filter(|(i, _, _)| used.contains(i))
            .map(|(_, offset, n)| offset + n)
            .max()
            .unwrap_or(0);
        Some(Heuristic { expr, min_len })
    }
}

/// The root's leading fields of a fixed size and no condition, each with its byte offset and
/// size: what is known of a message before dissecting it (heuristics, a TCP length inside it).
fn leading_fixed(proto: &Protocol) -> Vec<(usize, usize, usize)> {
    let mut offset = 0;
    proto
        .root()
        .fields
        .iter()
        .map_while(|f| {
            f.condition
                .is_none()
                .then(|| proto.fixed_size(&f.ty))
                .flatten()
        })
        .enumerate()
        .map(|(i, n)| {
            offset += n;
            (i, offset - n, n)
        })
        .collect()
}
