//! The protocol's layering and conversation rules in words: transport, heuristic, application
//! points, opening datagrams, reassembly, joins, state, reliability.

use super::model::Document;
use super::text::{expr, type_link};
use crate::ir::*;

/// What the protocol rides on and what rides on it.
pub fn layering(d: &mut Document, p: &Protocol) {
    let t = &p.transport;
    let mut items = Vec::new();
    let ports = |ps: &[u16]| {
        ps.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !t.udp_ports.is_empty() {
        items.push(format!(
            "UDP, port(s) {}: one message per datagram.",
            ports(&t.udp_ports)
        ));
    }
    if !t.tcp_ports.is_empty() {
        let framing = match &t.tcp_length_prefix {
            Some(it) if t.tcp_length_at.is_some() => format!(
                "each message holds its length at byte {} as `{}` ({}, {}), at most {} bytes",
                t.tcp_length_at.unwrap_or(0),
                it.name(),
                it.endian.words(),
                t.tcp_counts(),
                t.tcp_max_message
            ),
            Some(it) if t.tcp_counted != 0 => format!(
                "each message after a `{}` length prefix ({}, {}), at most {} bytes",
                it.name(),
                it.endian.words(),
                t.tcp_counts(),
                t.tcp_max_message
            ),
            Some(it) => format!(
                "each message after a `{}` length prefix ({}), at most {} bytes",
                it.name(),
                it.endian.words(),
                t.tcp_max_message
            ),
            None => "each segment read as one message (`framing: none`)".into(),
        };
        items.push(format!("TCP, port(s) {}: {framing}.", ports(&t.tcp_ports)));
    }
    if let Some(h) = &t.udp_heuristic {
        items.push(format!(
            "Recognised on any UDP port when `{}` (at least {} bytes).",
            expr(p, &h.expr),
            h.min_len
        ));
    }
    if let Some(h) = &t.tcp_heuristic {
        items.push(format!(
            "Recognised on any TCP port when `{}` (at least {} bytes).",
            expr(p, &h.expr),
            h.min_len
        ));
    }
    for a in &p.app_points {
        let s = &p.structs[a.in_struct];
        items.push(format!(
            "Carries an application's messages in {}.`{}`{}: application schemas (`application:`) \
             name their messages by id and ride on this protocol.",
            type_link(p, a.in_struct),
            s.fields[a.payload].name,
            a.id.map_or(String::new(), |i| format!(
                ", told apart by `{}`",
                s.fields[i].name
            ))
        ));
    }
    if let Some(app) = &p.application {
        items.push(format!(
            "An application protocol carried by `{}` (its crate `{}`, message type `{}`): each of \
             its messages below is the payload of a transport message with its id.",
            app.transport, app.transport_crate, app.transport_root
        ));
    }
    if !items.is_empty() {
        d.heading(3, "Layering", "layering");
        d.list(items);
    }
    if let Some(app) = &p.application {
        let rows = app
            .messages
            .iter()
            .map(|(id, sid)| vec![format!("`{id}`"), type_link(p, *sid)])
            .collect();
        d.table(vec!["Id", "Message"], rows);
    }
}

/// How a conversation is read beyond one message at a time.
pub fn conversation(d: &mut Document, p: &Protocol) {
    let root = p.root();
    let field = |i: usize| format!("`{}`", root.fields[i].name);
    let mut items = Vec::new();
    if !p.opening.is_empty() {
        let steps: Vec<String> = p
            .opening
            .iter()
            .map(|(side, sid)| format!("{} sends {}", side_name(*side), type_link(p, *sid)))
            .collect();
        items.push(format!(
            "A conversation opens with {}; every later datagram is a {}.",
            steps.join(", then "),
            type_link(p, p.root)
        ));
    }
    if let Some(r) = &p.reassembly {
        let keys: Vec<String> = r.key.iter().map(|&k| field(k)).collect();
        let end = match &r.end {
            PieceEnd::Last(e) => format!("the piece where `{}` is the last", expr(p, e)),
            PieceEnd::Count(c) => format!("{} pieces in all", field(*c)),
        };
        let whole = match r.whole {
            WholeType::ByDirection { client, server } => format!(
                "read as {} from the client and {} from the server",
                type_link(p, client),
                type_link(p, server)
            ),
            WholeType::AsField(fi) => format!("read as {} by the pieces' tag", field(fi)),
        };
        items.push(format!(
            "Reassembly: {} holds a piece of a larger payload{}; pieces are keyed by the \
             conversation, the direction and {}, ordered by {}, ended by {}; pieces carry at most \
             {} bytes; the joined whole is {whole}.{}",
            field(r.field),
            r.when
                .as_ref()
                .map_or(String::new(), |w| format!(" when `{}`", expr(p, w))),
            if keys.is_empty() {
                "nothing else".into()
            } else {
                keys.join(", ")
            },
            field(r.index),
            end,
            r.piece_size,
            r.numbered.map_or(String::new(), |n| format!(
                " Every piece has its own {}.",
                field(n)
            ))
        ));
    }
    for j in &p.joins {
        let s = &p.structs[j.in_struct];
        let streams: Vec<String> = j
            .streams
            .iter()
            .map(|st| {
                format!(
                    "`{}`{}",
                    s.fields[st.field].name,
                    st.whole
                        .map_or(String::new(), |w| format!(" (read as {})", type_link(p, w)))
                )
            })
            .collect();
        items.push(format!(
            "Joined parts: values of {} with consecutive `{}` (modulo {}) from the one where `{}` \
             to the one where `{}` carry parts of {}, each at most {} bytes.",
            type_link(p, j.in_struct),
            s.fields[j.sequence].name,
            j.wrap,
            expr(p, &j.first),
            expr(p, &j.last),
            streams.join(" and "),
            j.piece_size
        ));
    }
    for t in &p.state {
        items.push(format!(
            "State `{}`: a list per conversation and direction, remembered from earlier messages \
             and read by later ones{}.",
            t.name,
            t.doc
                .as_ref()
                .map_or(String::new(), |d| format!(" ({})", d.trim_end_matches('.')))
        ));
    }
    if let Some(r) = &p.reliability {
        items.extend(reliability(p, r));
    }
    if !items.is_empty() {
        d.heading(3, "Conversations", "conversations");
        d.list(items);
    }
}

fn reliability(p: &Protocol, r: &Reliability) -> Vec<String> {
    let at = |sid: StructId, fi: usize| {
        format!("{}.`{}`", type_link(p, sid), p.structs[sid].fields[fi].name)
    };
    let when = |w: &Option<Expr>| {
        w.as_ref()
            .map_or(String::new(), |w| format!(" when `{}`", expr(p, w)))
    };
    let channel = |c: usize| {
        let ch = &r.channels[c];
        format!("channel `{}` (modulo {})", ch.name, ch.wrap)
    };
    let mut items = Vec::new();
    for s in &r.sequences {
        let reliable = match &s.reliable {
            Reliable::Always => ", resent until acked".to_string(),
            Reliable::Never => String::new(),
            Reliable::When(e) => format!(", resent until acked when `{}`", expr(p, e)),
        };
        items.push(format!(
            "Numbered: {}{} numbers its message in {}{reliable}{}.",
            at(s.in_struct, s.field),
            when(&s.when),
            channel(s.channel),
            s.part
                .as_ref()
                .map_or(String::new(), |(part, last)| format!(
                    "; parts counted by `{}`, the last where `{}`",
                    p.structs[s.in_struct].fields[*part].name,
                    expr(p, last)
                ))
        ));
    }
    for a in &r.acks {
        items.push(format!(
            "Ack: {}{} acknowledges {}{}{}.",
            at(a.in_struct, a.field),
            when(&a.when),
            channel(a.channel),
            if a.cumulative {
                " up to and including that number"
            } else {
                ""
            },
            a.bits.map_or(String::new(), |(f, n)| format!(
                ", and `{}` the {n} numbers before it, one bit each",
                p.structs[a.in_struct].fields[f].name
            ))
        ));
    }
    for g in &r.pings {
        items.push(format!(
            "{}: {} is the id{}.",
            if g.reply { "Pong" } else { "Ping" },
            at(g.in_struct, g.id),
            if g.reply {
                " of the ping it answers"
            } else {
                " its pong echoes"
            }
        ));
    }
    items
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Client => "the client",
        Side::Server => "the server",
    }
}
