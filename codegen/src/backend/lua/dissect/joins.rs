//! Conversation state and sequence joins, kept per frame.

use super::*;

/// Remembers the list a record announces: the key from `carrier`, the items from the array of
/// `holder` (Lua tables of values).
pub(crate) fn record(
    p: &Protocol,
    c: &mut Code,
    t: usize,
    r: &Record,
    carrier: &str,
    holder: &str,
) {
    let key = &p.structs[r.in_struct].fields[r.key].name;
    let list = &p.structs[r.holder].fields[r.list].name;
    let item = &p.structs[r.elem].fields[r.item].name;
    c.line(format!(
        "-- Remember the {} announced for this {key}.",
        p.state[t].name
    ));
    c.open("do");
    c.line("local list = {}");
    c.line(format!(
        "for i, e in ipairs({holder}.{list}) do list[i] = e.{item} end"
    ));
    c.line(format!(
        "state_set(pinfo, tree, {}, {carrier}.{key}, list)",
        t + 1
    ));
    c.close("end");
}

impl<'p> Dissect<'p> {
    /// A field whose values read conversation-state lists: select them by key first; without
    /// them the rest of the scope is shown as bytes with a note.
    pub(crate) fn selecting(
        &mut self,
        c: &mut Code,
        sid: StructId,
        fi: usize,
        abbrev: &str,
        target: &str,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        let f = &p.structs[sid].fields[fi];
        // The lists selected before (by an enclosing value) are put back after it, each kept in
        // a local of its own.
        c.line(format!("local known_{} = true", f.name));
        for (t, key) in &f.select {
            let k = self.i.exprs().expr(key);
            let n = t + 1;
            c.line(format!("local saved_{}_{n} = LISTS[{n}]", f.name));
            c.line(format!("LISTS[{n}] = state_get(pinfo, {n}, {k})"));
            c.open(format!("if LISTS[{n}] == nil then"));
            c.line(format!(
                "tree:add_proto_expert_info(E.no_state, fmt(\"{}: no {} list was announced for %s earlier in this direction; the rest is shown as bytes\", tostring({k})))",
                f.name, p.state[*t].name
            ));
            c.line(format!("known_{} = false", f.name));
            c.close("end");
        }
        c.open(format!("if known_{} then", f.name));
        self.value(
            c,
            Place {
                sid,
                fi,
                abbrev,
                tree: "tree",
                target,
            },
            &f.ty,
        )?;
        c.close("else");
        c.depth += 1;
        c.line(format!(
            "tree:add(F[\"{abbrev}.unknown\"], tvb(offset, limit - offset))"
        ));
        c.line("offset = limit");
        c.line("REST_TAKEN = true");
        c.close("end");
        for (t, _) in &f.select {
            c.line(format!("LISTS[{0}] = saved_{1}_{0}", t + 1, f.name));
        }
        Ok(())
    }

    /// `join_<k>`: collects the parts of join `ji` on the first pass (per conversation, direction
    /// and key, by sequence number); the frame whose part completes a run from a first part to a
    /// last one keeps the joined streams and shows them decoded.
    pub(crate) fn join_fn(&mut self, c: &mut Code, ji: usize) -> Result<(), Internal> {
        let p = self.i.p;
        let j = &p.joins[ji];
        let s = &p.structs[j.in_struct];
        let first = self.i.exprs().expr(&j.first);
        let last = self.i.exprs().expr(&j.last);
        let wrap = j.wrap;
        let num = Numbering::of(p, ji);
        join_tables(c, ji, &s.name, &s.fields[j.sequence].name, wrap);
        num.constants(c);
        c.open(format!("local function join_{ji}(pinfo, tree, v)"));
        c.line("local conv, side = conversation_key(pinfo)");
        // The part's own keys, and those of the enclosing value (`Command.channel_id`) as its
        // dissector kept them.
        let keys: String = j
            .key
            .iter()
            .map(|r| {
                let value = if r.struct_id == j.in_struct {
                    value_slot(&r.name)
                } else {
                    self.i.exprs().expr(&Expr::Enclosing(r.clone()))
                };
                format!(" .. \"|\" .. tostring({value})")
            })
            .collect();
        c.line(format!("local key = conv .. \"|\" .. side{keys}"));
        let seq_name = &s.fields[j.sequence].name;
        c.line(format!("local seq = {}", num.sequence(seq_name)));
        c.line("local frame = pinfo.number");
        // The part's place by the frame's payloads: its key and number as text, made only for a
        // frame that made a payload or saw a part again (and on later passes).
        let here = format!("key .. \"|\" .. {}", num.text("seq"));
        let raws: Vec<String> = j
            .streams
            .iter()
            .map(|st| value_slot(&format!("{}_raw", s.fields[st.field].name)))
            .collect();
        c.open("if not pinfo.visited then");
        // Its place among the parts joined last: by the key's number (`key_number`).
        c.line(format!(
            "local numbered = key_number(join_keys_{ji}, key, tree)"
        ));
        c.line(format!("local done = {}", num.done_key("seq")));
        c.line(format!("local bytes = {}", part_bytes(&raws)));
        c.open(format!("if join_done_{ji}.map[done] == bytes then"));
        c.line(format!(
            "frame_joined(frame_joins_{ji}, frame, {here}, false)"
        ));
        c.line("return join_retransmitted(tree, seq)");
        c.close("end");
        c.line(format!("bounded_remove(join_done_{ji}, done)"));
        c.line(format!("local st = join_parts_{ji}.map[key]"));
        c.open("if st == nil then");
        c.line("st = { parts = {}, n = 0 }");
        c.line(format!("bounded_set(join_parts_{ji}, key, st)"));
        c.open(format!("if join_parts_{ji}.count > JOIN_WAITING then"));
        c.line(format!("local evicted = bounded_evict(join_parts_{ji})"));
        c.line(format!("tree:add_proto_expert_info(E.evicted, fmt(\"%d payloads waiting for parts: the oldest (%s) is forgotten; %d forgotten so far\", JOIN_WAITING, evicted, join_parts_{ji}.evicted))"));
        c.close("end");
        c.close("end");
        // A part numbered like one waiting replaces it: the walk kept below (`run_a`) may
        // have passed through the old one, so it is walked again.
        c.line(format!(
            "if {} == nil then st.n = st.n + 1 else st.run_a = nil end",
            num.part("seq")
        ));
        c.open("if st.n > 4096 then");
        c.line("tree:add_proto_expert_info(E.reassembly, \"more than 4096 parts waiting to be joined; dropped\")");
        c.line(format!("bounded_remove(join_parts_{ji}, key)"));
        c.line("return");
        c.close("end");
        c.line(format!(
            "{} = {{ first = {first}, last = {last}, {} }}",
            num.part("seq"),
            raws.join(", ")
        ));
        join_walk(c, &num);
        join_whole(c, ji, j.streams.len(), &num);
        c.line(format!(
            "if st.n == 0 then bounded_remove(join_parts_{ji}, key) end"
        ));
        c.line(format!(
            "frame_joined(frame_joins_{ji}, frame, {here}, whole)"
        ));
        c.close("end");
        c.close("end");
        c.line(format!("local joined = frame_joins_{ji}[frame]"));
        c.line(format!("local whole = joined and joined[{here}]"));
        c.line("if whole == false then return join_retransmitted(tree, seq) end");
        c.line("if whole == nil then return end");
        self.show_joined(c, j.in_struct, &j.streams, Some(ji));
        c.line("");
        Ok(())
    }

    /// Shows the payload `whole` (its streams `whole.s1`…, ByteArrays, joined from
    /// `whole.count` parts) of the pieces of struct `sid`: each stream in a tab of its own, as
    /// bytes or decoded as its type (and what a sequence join `ji`'s stream announces,
    /// recorded); then ends the function.
    pub(crate) fn show_joined(
        &mut self,
        c: &mut Code,
        sid: StructId,
        streams: &[Stream],
        ji: Option<usize>,
    ) {
        let p = self.i.p;
        let s = &p.structs[sid];
        c.line(format!(
            "tree:add_proto_expert_info(E.joined, fmt(\"{} joined from %d parts\", whole.count))",
            s.name
        ));
        c.line(format!(
            "INFO_SUFFIX = string.format(\" [{} joined from %d parts]\", whole.count)",
            s.name
        ));
        let locals = c.lines.len();
        c.start_function();
        for (i, st) in streams.iter().enumerate() {
            let f = &s.fields[st.field];
            let k = i + 1;
            let abbrev = naming::abbrev(p, sid, st.field);
            c.open(format!("if whole.s{k}:len() > 0 then"));
            c.line(format!(
                "local wtvb = whole.s{k}:tvb(\"Joined {}\")",
                f.name
            ));
            match st.whole {
                None => {
                    c.line(format!(
                        "sub = tree:add(wtvb(), string.format(\"Joined {} (%d bytes)\", wtvb:len()))",
                        f.name
                    ));
                    c.line(format!("sub:add(F[\"{abbrev}.joined\"], wtvb())"));
                }
                Some(w) => {
                    let wn = &p.structs[w].name;
                    c.line(format!(
                        "sub = tree:add(wtvb(), string.format(\"Joined {}: {wn} (%d bytes)\", wtvb:len()))",
                        f.name
                    ));
                    c.line(format!(
                        "nxt, val = dissect.{wn}(wtvb, pinfo, sub, 0, wtvb:len())"
                    ));
                    c.open("if nxt ~= nil then");
                    c.line(format!("if nxt < wtvb:len() then sub:add_proto_expert_info(E.trailing, fmt(\"%d unexpected bytes after the joined {}\", wtvb:len() - nxt)) end", f.name));
                    for (t, table) in p.state.iter().enumerate() {
                        for r in table
                            .records
                            .iter()
                            .filter(|r| ji.is_some_and(|ji| r.via == Some((ji, i))))
                        {
                            record(p, c, t, r, "v", "val");
                        }
                    }
                    c.close("end");
                }
            }
            c.close("end");
        }
        c.close("end");
        let declared = c.locals(&[]);
        c.lines.splice(locals..locals, declared);
    }
}
/// A part's bytes as one Lua string, from its streams' strings: the one stream itself, or each
/// with its length before it (so that two parts' strings are equal when their streams are).
fn part_bytes(raws: &[String]) -> String {
    match raws {
        [one] => one.clone(),
        _ => raws
            .iter()
            .map(|r| format!("#{r} .. \":\" .. {r}"))
            .collect::<Vec<_>>()
            .join(" .. "),
    }
}

/// The tables of join `ji` (of struct `part`, numbered by `sequence` modulo `wrap`): the payloads
/// waiting for parts, what each frame's parts made, the parts joined last.
fn join_tables(c: &mut Code, ji: usize, part: &str, sequence: &str, wrap: u64) {
    c.line(format!(
        "-- Parts of one {part} payload: consecutive {sequence} numbers (modulo {wrap}) from a first part to a last"
    ));
    c.line("-- one, per conversation and direction; joined on the first pass and kept by the frame and");
    c.line("-- the part that completed it (several payloads may complete in one frame): a table per such");
    c.line("-- frame, by the part's key and number as text (made only for a frame that has one).");
    c.line("-- At most JOIN_WAITING payloads wait for parts at once: past it the oldest is forgotten, and said.");
    c.line(format!("local join_parts_{ji} = bounded(JOIN_WAITING)"));
    c.line(format!("local frame_joins_{ji} = {{}}"));
    // As the crate's joiner: the parts of the payloads joined last, by key and number, to
    // tell a part sent again (a retransmission) from the start of a new payload.
    let done_limit = (wrap / 2).clamp(1, 4096);
    c.line("-- The bytes of the parts of the payloads joined last (at most half the numbers' range): a");
    c.line("-- part that comes again with them is a retransmission, not a new payload.");
    c.line(format!("local JOIN_DONE_LIMIT_{ji} = {done_limit}"));
    c.line(format!(
        "local join_done_{ji} = bounded(JOIN_DONE_LIMIT_{ji})"
    ));
    c.line(format!("local join_keys_{ji} = key_numbers()"));
}

/// From the part just kept (`seq`) back to the first part and on to the last one: `a` and `b`,
/// or nil where a part in between is missing.
fn join_walk(c: &mut Code, num: &Numbering) {
    c.line("-- Back to the first part and on to the last one, every part in between present. The");
    c.line("-- walk back from the part before this one, when it reached a first part and none was taken");
    c.line("-- out since (`run_a`, `run_b`), is not walked again: parts coming in order join in linear time.");
    c.line("local a, b, steps = seq, seq, 0");
    c.open(format!(
        "if st.run_a ~= nil and seq == {} and not {}.first then",
        num.next("st.run_b"),
        num.part("seq")
    ));
    c.line("a = st.run_a");
    c.close("else");
    c.depth += 1;
    c.open(format!("while a ~= nil and not {}.first do", num.part("a")));
    c.line(format!("a = {}", num.prev("a")));
    c.line("steps = steps + 1");
    c.line(format!(
        "if {} == nil or steps > st.n then a = nil end",
        num.part("a")
    ));
    c.close("end");
    c.close("end");
    c.line("if a ~= nil then st.run_a, st.run_b = a, seq end");
    c.line("steps = 0");
    c.open(format!(
        "while a ~= nil and b ~= nil and not {}.last do",
        num.part("b")
    ));
    c.line(format!("b = {}", num.next("b")));
    c.line("steps = steps + 1");
    c.line(format!(
        "if {0} == nil or steps > st.n or {0}.first then b = nil end",
        num.part("b")
    ));
    c.close("end");
}

/// Inside `if a ~= nil and b ~= nil`: the parts from `a` to `b` taken out of the waiting ones
/// into `whole` (`streams` lists of bytes, concatenated), each remembered as joined (by its
/// key's number and its own).
fn join_whole(c: &mut Code, ji: usize, streams: usize, num: &Numbering) {
    c.open("if a ~= nil and b ~= nil then");
    let lists: Vec<String> = (1..=streams).map(|i| format!("s{i} = {{}}")).collect();
    c.line(format!(
        "local whole = {{ count = 0, {} }}",
        lists.join(", ")
    ));
    c.line("local i = a");
    c.open("while true do");
    c.line(format!("local part = {}", num.part("i")));
    for i in 1..=streams {
        c.line(format!("whole.s{i}[#whole.s{i} + 1] = part[{i}]"));
    }
    let part_raws: Vec<String> = (1..=streams).map(|i| format!("part[{i}]")).collect();
    c.line(format!(
        "bounded_set(join_done_{ji}, {}, {})",
        num.done_key("i"),
        part_bytes(&part_raws)
    ));
    c.line(format!(
        "if join_done_{ji}.count > JOIN_DONE_LIMIT_{ji} then bounded_evict(join_done_{ji}) end"
    ));
    c.line(format!("{} = nil", num.part("i")));
    c.line("st.n = st.n - 1");
    c.line("whole.count = whole.count + 1");
    c.line("if i == b then break end");
    c.line(format!("i = {}", num.next("i")));
    c.close("end");
    c.line("st.run_a = nil");
    // Kept by frame for later passes: in a ByteArray, whose bytes are outside Lua's heap (a
    // capture's worth of payloads there would make every garbage collection rarer and its
    // sweeps colder: docs/performance.md).
    for i in 1..=streams {
        c.line(format!(
            "whole.s{i} = ByteArray.new(table.concat(whole.s{i}), true)"
        ));
    }
}

/// How a join's sequence numbers are written: Lua numbers up to 32 bits; a wider one as a
/// UInt64 (a double holds integers exactly only to 2^53, and Lua prints one past 10^14 in
/// exponent form, so two numbers could share a text), kept exact by the field's reader
/// (`v.<sequence>_u64`), counted with UInt64 arithmetic and made text where it indexes a table.
pub(crate) struct Numbering {
    ji: usize,
    wrap: u64,
    wide: bool,
    /// Whether the wrap is below the field's range (the number read is taken modulo it, as
    /// the crate's joiner takes it).
    reduced: bool,
}

impl Numbering {
    pub(crate) fn of(p: &Protocol, ji: usize) -> Numbering {
        let j = &p.joins[ji];
        let bits = match &p.structs[j.in_struct].fields[j.sequence].ty {
            Ty::Int(it) => it.bits,
            _ => 64,
        };
        let range = if bits >= 64 { u64::MAX } else { 1 << bits };
        Numbering {
            ji,
            wrap: j.wrap,
            wide: bits > 32,
            reduced: j.wrap < range,
        }
    }

    /// Whether field `fi` of struct `sid` is the wide sequence of a join: its reader keeps the
    /// UInt64 too.
    pub(crate) fn keeps_exact(p: &Protocol, sid: StructId, fi: usize) -> bool {
        (0..p.joins.len()).any(|ji| {
            let j = &p.joins[ji];
            j.in_struct == sid && j.sequence == fi && Numbering::of(p, ji).wide
        })
    }

    /// The file-level constants a wide numbering counts with.
    fn constants(&self, c: &mut Code) {
        if self.wide {
            c.line(format!(
                "local WRAP_{0}, ZERO_{0} = UInt64.new({1}, {2}), UInt64.new(0)",
                self.ji,
                self.wrap & 0xFFFF_FFFF,
                self.wrap >> 32
            ));
        }
    }

    /// The part's number, read from the value kept as `field`.
    fn sequence(&self, field: &str) -> String {
        if self.wide {
            format!("{} % WRAP_{}", value_slot(&format!("{field}_u64")), self.ji)
        } else if self.reduced {
            format!("{} % {}", value_slot(field), self.wrap)
        } else {
            value_slot(field)
        }
    }

    /// Number `x` as text.
    fn text(&self, x: &str) -> String {
        if self.wide {
            format!("tostring({x})")
        } else {
            x.to_string()
        }
    }

    /// The waiting part numbered `x`.
    fn part(&self, x: &str) -> String {
        format!("st.parts[{}]", self.text(x))
    }

    /// The number after `x`.
    fn next(&self, x: &str) -> String {
        if self.wide {
            format!("({x} + 1) % WRAP_{}", self.ji)
        } else {
            format!("({x} + 1) % {}", self.wrap)
        }
    }

    /// The number before `x` (a UInt64 has no room to add `wrap - 1` first).
    fn prev(&self, x: &str) -> String {
        if self.wide {
            format!("({x} == ZERO_{0} and WRAP_{0} or {x}) - 1", self.ji)
        } else {
            format!("({x} + {}) % {}", self.wrap - 1, self.wrap)
        }
    }

    /// A part's place among the parts joined last, from its key's number (`numbered`) and its
    /// own `n`: one Lua number while every key's can be told apart in the 53 bits of a double
    /// with room to spare (numbers of 16 bits), else short text of both.
    fn done_key(&self, n: &str) -> String {
        if self.wrap <= 1 << 16 {
            format!("numbered * {} + {n}", self.wrap)
        } else {
            format!("numbered .. \"|\" .. {}", self.text(n))
        }
    }
}
