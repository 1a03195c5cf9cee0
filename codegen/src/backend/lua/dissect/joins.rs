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
        c.line(format!("local saved_{} = {{}}", f.name));
        c.line(format!("local known_{} = true", f.name));
        for (t, key) in &f.select {
            let k = self.i.exprs().expr(key);
            let n = t + 1;
            c.line(format!("saved_{}[{n}] = LISTS[{n}]", f.name));
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
            c.line(format!("LISTS[{0}] = saved_{1}[{0}]", t + 1, f.name));
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
        join_tables(c, ji, &s.name, &s.fields[j.sequence].name, wrap);
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
        c.line(format!(
            "local seq = {}",
            value_slot(&s.fields[j.sequence].name)
        ));
        c.line("local frame = pinfo.number");
        // A number up to 32 bits is a Lua number, made text by the concatenation; a wider one is
        // a UInt64, made text by its own `tostring`.
        let wide = !matches!(&s.fields[j.sequence].ty, Ty::Int(it) if it.bits <= 32);
        let seq_text = if wide { "tostring(seq)" } else { "seq" };
        // The part's place by the frame's payloads: its key and number as text, made only for a
        // frame that made a payload or saw a part again (and on later passes).
        let here = format!("key .. \"|\" .. {seq_text}");
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
        c.line(format!("local done = {}", done_key("seq", wrap, wide)));
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
        c.line("if st.parts[seq] == nil then st.n = st.n + 1 else st.run_a = nil end");
        c.open("if st.n > 4096 then");
        c.line("tree:add_proto_expert_info(E.reassembly, \"more than 4096 parts waiting to be joined; dropped\")");
        c.line(format!("bounded_remove(join_parts_{ji}, key)"));
        c.line("return");
        c.close("end");
        c.line(format!(
            "st.parts[seq] = {{ first = {first}, last = {last}, {} }}",
            raws.join(", ")
        ));
        c.line(
            "-- Back to the first part and on to the last one, every part in between present. The",
        );
        c.line("-- walk back from the part before this one, when it reached a first part and none was taken");
        c.line("-- out since (`run_a`, `run_b`), is not walked again: parts coming in order join in linear time.");
        c.line("local a, b, steps = seq, seq, 0");
        c.open(format!(
            "if st.run_a ~= nil and seq == (st.run_b + 1) % {wrap} and not st.parts[seq].first then"
        ));
        c.line("a = st.run_a");
        c.close("else");
        c.depth += 1;
        c.open("while a ~= nil and not st.parts[a].first do");
        c.line(format!("a = (a + {}) % {wrap}", wrap - 1));
        c.line("steps = steps + 1");
        c.line("if st.parts[a] == nil or steps > st.n then a = nil end");
        c.close("end");
        c.close("end");
        c.line("if a ~= nil then st.run_a, st.run_b = a, seq end");
        c.line("steps = 0");
        c.open("while a ~= nil and b ~= nil and not st.parts[b].last do");
        c.line(format!("b = (b + 1) % {wrap}"));
        c.line("steps = steps + 1");
        c.line("if st.parts[b] == nil or steps > st.n or st.parts[b].first then b = nil end");
        c.close("end");
        join_whole(c, ji, j.streams.len(), wrap, wide);
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

/// A part's place among the parts joined last, from its key's number (`numbered`) and its own
/// number `n` (modulo `wrap`): one Lua number while every key's can be told apart in the 53 bits
/// of a double with room to spare (numbers of 16 bits), else short text of both (a `wide`
/// number is a UInt64, made text by `tostring`).
fn done_key(n: &str, wrap: u64, wide: bool) -> String {
    if wrap <= 1 << 16 {
        format!("numbered * {wrap} + {n}")
    } else if wide {
        format!("numbered .. \"|\" .. tostring({n})")
    } else {
        format!("numbered .. \"|\" .. {n}")
    }
}

/// Inside `if a ~= nil and b ~= nil`: the parts from `a` to `b` (numbers modulo `wrap`) taken
/// out of the waiting ones into `whole` (`streams` lists of bytes, concatenated), each
/// remembered as joined (by its key's number and its own; a `wide` number is a UInt64).
fn join_whole(c: &mut Code, ji: usize, streams: usize, wrap: u64, wide: bool) {
    c.open("if a ~= nil and b ~= nil then");
    let lists: Vec<String> = (1..=streams).map(|i| format!("s{i} = {{}}")).collect();
    c.line(format!(
        "local whole = {{ count = 0, {} }}",
        lists.join(", ")
    ));
    c.line("local i = a");
    c.open("while true do");
    c.line("local part = st.parts[i]");
    for i in 1..=streams {
        c.line(format!("whole.s{i}[#whole.s{i} + 1] = part[{i}]"));
    }
    let part_raws: Vec<String> = (1..=streams).map(|i| format!("part[{i}]")).collect();
    c.line(format!(
        "bounded_set(join_done_{ji}, {}, {})",
        done_key("i", wrap, wide),
        part_bytes(&part_raws)
    ));
    c.line(format!(
        "if join_done_{ji}.count > JOIN_DONE_LIMIT_{ji} then bounded_evict(join_done_{ji}) end"
    ));
    c.line("st.parts[i] = nil");
    c.line("st.n = st.n - 1");
    c.line("whole.count = whole.count + 1");
    c.line("if i == b then break end");
    c.line(format!("i = (i + 1) % {wrap}"));
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
