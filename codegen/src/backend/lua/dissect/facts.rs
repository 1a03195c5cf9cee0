//! What each type the schema's `reliability` names tells the netcode analysis: lines that add
//! its sequence number, acks and ping id to `FACTS` (`fact_numbered`, `fact_ack`, `ack_bits`,
//! `fact_ping`; read by `lua/analysis.lua`).

use super::*;

impl<'p> Dissect<'p> {
    /// The fact lines of struct `sid` (its values in `v`), if a rule reads it.
    pub(crate) fn facts_lines(&mut self, c: &mut Code, sid: StructId) {
        let p = self.i.p;
        let Some(r) = &p.reliability else { return };
        if !r.reads(sid) {
            return;
        }
        let s = &p.structs[sid];
        let slot = |fi: usize| value_slot(&s.fields[fi].name);
        c.line("-- What this message tells the netcode analysis.");
        for q in r.sequences.iter().filter(|q| q.in_struct == sid) {
            let reliable = match &q.reliable {
                Reliable::Always => "true".to_string(),
                Reliable::Never => "false".to_string(),
                Reliable::When(e) => format!("({}) and true or false", self.i.exprs().expr(e)),
            };
            let (part, last) = match &q.part {
                Some((fi, e)) => (
                    slot(*fi),
                    format!("({}) and true or false", self.i.exprs().expr(e)),
                ),
                None => ("0".to_string(), "true".to_string()),
            };
            let line = format!(
                "fact_numbered({}, {}, {part}, {reliable}, {last})",
                q.channel,
                slot(q.field)
            );
            self.guarded(c, &q.when, vec![line]);
        }
        for a in r.acks.iter().filter(|a| a.in_struct == sid) {
            let part = a.part.map_or("0".to_string(), slot);
            let ack = format!(
                "fact_ack({}, {}, {part}, {})",
                a.channel,
                slot(a.field),
                a.cumulative
            );
            // A field not always there acks when the value has it.
            let mut lines = vec![if a.optional {
                format!("if {} ~= nil then {ack} end", slot(a.field))
            } else {
                ack
            }];
            if let Some((bits, width)) = a.bits {
                lines.push(format!(
                    "ack_bits({}, {}, {}, {width}, {})",
                    a.channel,
                    slot(a.field),
                    slot(bits),
                    r.channels[a.channel].wrap
                ));
            }
            self.guarded(c, &a.when, lines);
        }
        for g in r.pings.iter().filter(|g| g.in_struct == sid) {
            c.line(format!("fact_ping({}, {})", slot(g.id), g.reply));
        }
    }

    /// `lines`, under `if when then` when there is a condition.
    fn guarded(&mut self, c: &mut Code, when: &Option<Expr>, lines: Vec<String>) {
        let w = when.as_ref().map(|w| self.i.exprs().expr(w));
        if let Some(w) = &w {
            c.open(format!("if {w} then"));
        }
        for line in lines {
            c.line(line);
        }
        if w.is_some() {
            c.close("end");
        }
    }
}
