//! Pass: reliability. Sequence numbers, acks and pings: fields that exist, are plain unsigned
//! integers, sit in types the root holds in one place only, and numberings that agree.

use super::*;
use crate::schema::{BoolOrExpr, ReliabilityDef};

impl<'f> Resolver<'f> {
    pub(crate) fn reliability(&mut self, proto: &Protocol) -> Option<Reliability> {
        let def: &ReliabilityDef = self.file.protocol.reliability.as_ref()?;
        if proto.application.is_some() {
            self.r.error(
                Code::E1601,
                "protocol.reliability",
                "an application schema rides on its transport's numbering",
                Some("declare reliability in the transport's schema".into()),
            );
            return None;
        }
        let mut out = Reliability::default();
        for (k, d) in def.sequence.iter().enumerate() {
            if let Some(rule) = self.sequence_rule(proto, &mut out, k, d) {
                out.sequences.push(rule);
            }
        }
        self.check_channel_names(&mut out, def);
        for (k, d) in def.ack.iter().enumerate() {
            if let Some(rule) = self.ack_rule(proto, &mut out, k, d) {
                out.acks.push(rule);
            }
        }
        for (reply, list, key) in [(false, &def.ping, "ping"), (true, &def.pong, "pong")] {
            for (k, d) in list.iter().enumerate() {
                let yp = format!("protocol.reliability.{key}.{k}");
                if let Some((sid, id, _)) = self.number_field(proto, &d.in_type, &d.id, &yp, "id") {
                    out.pings.push(PingRule {
                        in_struct: sid,
                        id,
                        reply,
                    });
                }
            }
        }
        if def.ping.is_empty() != def.pong.is_empty() {
            self.r.error(
                Code::E1606,
                "protocol.reliability",
                "a ping needs its reply: give both 'ping' and 'pong'",
                None,
            );
        }
        self.carriers(proto, def, &mut out);
        Some(out)
    }

    /// Sequence rule `k`: its field, wrap (E1602), channel, conditions and parts (E1603).
    fn sequence_rule(
        &mut self,
        proto: &Protocol,
        out: &mut Reliability,
        k: usize,
        d: &schema::SequenceDef,
    ) -> Option<SequenceRule> {
        let yp = format!("protocol.reliability.sequence.{k}");
        let (sid, field, range) = self.number_field(proto, &d.in_type, &d.field, &yp, "field")?;
        let wrap = d.wrap.unwrap_or(range);
        if wrap < 2 || wrap > range {
            self.r.error(
                Code::E1602,
                &format!("{yp}.wrap"),
                format!("wrap {wrap} is outside 2..={range} (the field's range)"),
                None,
            );
        }
        let channel = self.channel(out, d.channel.as_deref(), Some(wrap), &yp);
        let when = d
            .when
            .as_ref()
            .map(|w| self.condition(proto, sid, w, &yp, "when"));
        let reliable = match &d.reliable {
            None | Some(BoolOrExpr::Bool(false)) => Reliable::Never,
            Some(BoolOrExpr::Bool(true)) => Reliable::Always,
            Some(BoolOrExpr::Expr(e)) => {
                Reliable::When(self.condition(proto, sid, e, &yp, "reliable"))
            }
        };
        let part = match (&d.part, &d.last) {
            (Some(part), Some(last)) => {
                let part_yp = format!("{yp}.part");
                let fi = self.plain_uint(proto, sid, part, &part_yp, 16);
                let last = self.condition(proto, sid, last, &yp, "last");
                fi.map(|(fi, _)| (fi, last))
            }
            (None, None) => None,
            _ => {
                self.r.error(
                    Code::E1603,
                    &yp,
                    "'part' and 'last' go together",
                    Some("name the part field and the condition of the last part".into()),
                );
                None
            }
        };
        Some(SequenceRule {
            in_struct: sid,
            field,
            channel,
            when,
            reliable,
            part,
        })
    }

    /// Ack rule `k`: its field, channel, acked part (E1604: as its numbering has parts) and
    /// bitfield (E1605: not with a cumulative ack).
    fn ack_rule(
        &mut self,
        proto: &Protocol,
        out: &mut Reliability,
        k: usize,
        d: &schema::AckDef,
    ) -> Option<AckRule> {
        let yp = format!("protocol.reliability.ack.{k}");
        // A plain ack (no bitfield, no part) may name a field that is not always there: it acks
        // when the value has it (Riptide 2.2's for_seq).
        let plain = d.bits.is_none() && d.part.is_none();
        let sid = self.struct_named(&d.in_type, &format!("{yp}.in"))?;
        let (field, _) =
            self.uint_field(proto, sid, &d.field, &format!("{yp}.field"), 32, plain)?;
        let optional = proto.structs[sid].fields[field].condition.is_some();
        let channel = self.channel(out, d.channel.as_deref(), None, &yp);
        let when = d
            .when
            .as_ref()
            .map(|w| self.condition(proto, sid, w, &yp, "when"));
        let part = d.part.as_ref().and_then(|part| {
            self.plain_uint(proto, sid, part, &format!("{yp}.part"), 16)
                .map(|(fi, _)| fi)
        });
        let channel_parts = out
            .sequences
            .iter()
            .any(|s| s.channel == channel && s.part.is_some());
        // A cumulative ack covers whole numbers, every part of them.
        let wants_part = channel_parts && !d.cumulative;
        if part.is_some() != wants_part && (d.part.is_some() || wants_part) {
            self.r.error(
                Code::E1604,
                &yp,
                if wants_part {
                    "its numbering has parts: name the acked part too"
                } else if d.cumulative {
                    "a cumulative ack covers every part of its numbers: drop 'part'"
                } else {
                    "its numbering has no parts: drop 'part'"
                },
                None,
            );
        }
        let bits = d.bits.as_ref().and_then(|b| {
            self.plain_uint(proto, sid, b, &format!("{yp}.bits"), 32)
                .map(|(fi, it)| (fi, it.bits))
        });
        if bits.is_some() && d.cumulative {
            self.r.error(
                Code::E1605,
                &yp,
                "an ack is cumulative or carries a bitfield, not both",
                None,
            );
        }
        Some(AckRule {
            in_struct: sid,
            field,
            channel,
            when,
            part,
            bits,
            cumulative: d.cumulative,
            optional,
        })
    }

    /// The routes to every type a rule reads; a type held elsewhere too is an error at the
    /// first rule naming it.
    fn carriers(&mut self, proto: &Protocol, def: &ReliabilityDef, out: &mut Reliability) {
        let named = def
            .sequence
            .iter()
            .enumerate()
            .map(|(k, d)| (format!("sequence.{k}"), &d.in_type))
            .chain(
                def.ack
                    .iter()
                    .enumerate()
                    .map(|(k, d)| (format!("ack.{k}"), &d.in_type)),
            )
            .chain(
                def.ping
                    .iter()
                    .enumerate()
                    .map(|(k, d)| (format!("ping.{k}"), &d.in_type)),
            )
            .chain(
                def.pong
                    .iter()
                    .enumerate()
                    .map(|(k, d)| (format!("pong.{k}"), &d.in_type)),
            );
        for (at, name) in named {
            let Some(&sid) = self.struct_ids.get(name.as_str()) else {
                continue;
            };
            if out.carriers.iter().any(|(s, _)| *s == sid) {
                continue;
            }
            match only_routes(proto, sid) {
                Ok(routes) => out.carriers.push((sid, routes)),
                Err(why) => self.r.error(
                    Code::E1607,
                    &format!("protocol.reliability.{at}.in"),
                    format!("the analysis reads values the root holds in one place only: {why}"),
                    None,
                ),
            }
        }
    }

    /// `in`'s plain unsigned integer `field`: the type, the field and the field's range.
    fn number_field(
        &mut self,
        proto: &Protocol,
        in_type: &str,
        field: &str,
        yp: &str,
        key: &str,
    ) -> Option<(StructId, usize, u64)> {
        let sid = self.struct_named(in_type, &format!("{yp}.in"))?;
        let (fi, it) = self.plain_uint(proto, sid, field, &format!("{yp}.{key}"), 32)?;
        Some((sid, fi, it.max_value().saturating_add(1)))
    }

    /// A field of `sid` the user sets, always present, of an unsigned integer type.
    fn plain_uint(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        name: &str,
        yp: &str,
        max_bits: u32,
    ) -> Option<(usize, IntTy)> {
        self.uint_field(proto, sid, name, yp, max_bits, false)
    }

    /// A field of `sid` the user sets, of an unsigned integer type, always present unless
    /// `conditional` allows it not to be.
    fn uint_field(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        name: &str,
        yp: &str,
        max_bits: u32,
        conditional: bool,
    ) -> Option<(usize, IntTy)> {
        let fi = self.field_named(proto, sid, name, yp)?;
        let f = &proto.structs[sid].fields[fi];
        let condition = if conditional { &None } else { &f.condition };
        match (&f.ty, &f.role, condition) {
            // Both outputs count in 64 bits and the dissector's Lua numbers are exact to 2^53:
            // numbers and ids up to 32 bits, parts up to 16 (a place is number * 65536 + part).
            (Ty::Int(it), Role::Value, None) if !it.signed && it.bits > max_bits => {
                self.r.error(
                    Code::E1612,
                    yp,
                    format!(
                        "'{name}' is {} bits wide; the analysis reads at most {max_bits}",
                        it.bits
                    ),
                    None,
                );
                None
            }
            (Ty::Int(it), Role::Value, None) if !it.signed => Some((fi, *it)),
            _ => {
                self.r.error(
                    Code::E1608,
                    yp,
                    format!(
                        "'{name}' must be an unsigned integer field{}, that the sender sets",
                        if conditional { "" } else { ", always present" }
                    ),
                    None,
                );
                None
            }
        }
    }

    /// A condition over the fields of `sid`, at `yp.key`.
    fn condition(
        &mut self,
        proto: &Protocol,
        sid: StructId,
        text: &str,
        yp: &str,
        key: &str,
    ) -> Expr {
        let all = proto.structs[sid].fields.len();
        let at = format!("{yp}.{key}");
        let scope = Scope {
            struct_id: sid,
            visible: all,
            yaml_path: &at,
        };
        let e = self.expr_of(&scope, text, ExprTy::Bool);
        // The crate reads a decoded value: the fields the encoder fills are not in it.
        self.refuse_encoder_filled(proto, &e, &at, Code::E1613);
        e
    }

    /// The index of channel `name` (`main` when none is given), added on first use by a
    /// sequence; `wrap` must agree with the channel's.
    fn channel(
        &mut self,
        out: &mut Reliability,
        name: Option<&str>,
        wrap: Option<u64>,
        yp: &str,
    ) -> usize {
        let name = name.unwrap_or("main");
        if let Some(i) = out.channels.iter().position(|c| c.name == name) {
            if let Some(w) = wrap.filter(|w| *w != out.channels[i].wrap) {
                self.r.error(
                    Code::E1609,
                    yp,
                    format!(
                        "channel '{name}' counts modulo {}, this numbering modulo {w}",
                        out.channels[i].wrap
                    ),
                    Some("one channel, one wrap: give 'wrap' or another 'channel'".into()),
                );
            }
            return i;
        }
        let Some(wrap) = wrap else {
            let known: Vec<&str> = out.channels.iter().map(|c| c.name.as_str()).collect();
            self.r.error(
                Code::E1610,
                &format!("{yp}.channel"),
                format!("no sequence numbers channel '{name}'"),
                did_you_mean(name, known),
            );
            return 0;
        };
        if out.channels.len() == 256 {
            self.r.error(Code::E1611, yp, "at most 256 channels", None);
        }
        out.channels.push(Channel {
            name: name.into(),
            wrap,
        });
        out.channels.len() - 1
    }
}

impl<'f> Resolver<'f> {
    /// A sequence's `channel` opens a channel where its name is new: a misspelt one would count
    /// numbers nobody acknowledges, and the mistake would show at the ack. A channel no ack
    /// names, close to a name an ack uses, is refused at the sequence (and taken as that name,
    /// so the acks read on without errors of their own).
    fn check_channel_names(&mut self, out: &mut Reliability, def: &ReliabilityDef) {
        let acked: Vec<&str> = def
            .ack
            .iter()
            .map(|a| a.channel.as_deref().unwrap_or("main"))
            .collect();
        for (k, d) in def.sequence.iter().enumerate() {
            let Some(name) = d.channel.as_deref() else {
                continue;
            };
            if acked.contains(&name) {
                continue;
            }
            let Some(meant) = closest(name, acked.iter().copied()) else {
                continue;
            };
            self.r.error(
                Code::E1614,
                &format!("protocol.reliability.sequence.{k}.channel"),
                format!("no ack names channel '{name}': its numbers would never be acknowledged"),
                Some(format!("did you mean '{meant}'?")),
            );
            if !out.channels.iter().any(|c| c.name == meant) {
                if let Some(c) = out.channels.iter_mut().find(|c| c.name == name) {
                    c.name = meant.to_string();
                }
            }
        }
    }
}
