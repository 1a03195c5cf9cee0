//! Stream joins (`stream_reassembly`): pieces joined in the order they come, from a begin
//! message to an end message, per conversation and direction, as the crate's `StreamJoiner`.

use super::*;

/// Conversations with a payload open at once, per stream join (the oldest evicted, and said).
const MAX_OPEN: usize = 1024;

impl Dissect<'_> {
    /// The stream joins' functions, declared before every type's function (which call them)
    /// and defined after them (they call the joined types' functions).
    pub(crate) fn stream_join_declarations(&self) -> String {
        (0..self.i.p.stream_joins.len())
            .map(|k| {
                format!(
                    "-- Stream join {k}'s begin, piece and end (defined after the types' functions).\n\
                     local stream_begin_{k}, stream_piece_{k}, stream_end_{k}\n"
                )
            })
            .collect()
    }

    /// The stream joins' functions.
    pub(crate) fn stream_join_functions(&mut self) -> String {
        let mut c = Code::new(0);
        for k in 0..self.i.p.stream_joins.len() {
            self.stream_join_fn(&mut c, k);
        }
        c.lines.join("\n") + "\n"
    }

    fn stream_join_fn(&mut self, c: &mut Code, k: usize) {
        let p = self.i.p;
        let j = &p.stream_joins[k];
        let s = &p.structs[j.in_struct];
        let (begin, end) = (&p.structs[j.begin].name, &p.structs[j.end].name);
        c.line(format!(
            "-- {} pieces in the order they come, from a {begin} to a {end}, per conversation and",
            s.name
        ));
        c.line("-- direction: joined on the first pass and kept by the frame that completed it.");
        c.line(format!("local STREAM_MAX_SIZE_{k} = {}", j.max_size));
        c.line(format!("local stream_open_{k} = bounded({MAX_OPEN})"));
        c.line(format!("local frame_streams_{k} = {{}}"));
        c.line("");
        let lists: Vec<String> = (1..=j.streams.len())
            .map(|i| format!("s{i} = {{}}"))
            .collect();
        c.open(format!("function stream_begin_{k}(pinfo, tree)"));
        c.line("if pinfo.visited then return end");
        c.line("local conv, side = conversation_key(pinfo)");
        c.line("local key = conv .. \"|\" .. side");
        c.open(format!("if stream_open_{k}.map[key] ~= nil then"));
        c.line(format!(
            "tree:add_proto_expert_info(E.reassembly, \"a {begin} before the {end} of the payload begun earlier: that one is dropped\")"
        ));
        c.line(format!("bounded_remove(stream_open_{k}, key)"));
        c.close("end");
        c.open(format!("if stream_open_{k}.count >= {MAX_OPEN} then"));
        c.line(format!("bounded_evict(stream_open_{k})"));
        c.line(format!(
            "tree:add_proto_expert_info(E.evicted, \"{MAX_OPEN} {} payloads open at once: the oldest is dropped\")",
            s.name
        ));
        c.close("end");
        c.line(format!(
            "bounded_set(stream_open_{k}, key, {{ count = 0, len = 0, {} }})",
            lists.join(", ")
        ));
        c.close("end");
        c.line("");
        let raws: Vec<String> = j
            .streams
            .iter()
            .map(|st| value_slot(&format!("{}_raw", s.fields[st.field].name)))
            .collect();
        c.open(format!("function stream_piece_{k}(pinfo, tree, v)"));
        c.line("if pinfo.visited then return end");
        c.line("local conv, side = conversation_key(pinfo)");
        c.line("local key = conv .. \"|\" .. side");
        c.line(format!("local open = stream_open_{k}.map[key]"));
        c.open("if open == nil then");
        c.line(format!(
            "tree:add_proto_expert_info(E.reassembly, \"a piece with no {begin} before it: not joined\")"
        ));
        c.line("return");
        c.close("end");
        let more: Vec<String> = raws.iter().map(|r| format!("#{r}")).collect();
        c.line(format!("local len = open.len + {}", more.join(" + ")));
        c.open(format!("if len > STREAM_MAX_SIZE_{k} then"));
        c.line(format!(
            "tree:add_proto_expert_info(E.reassembly, fmt(\"the payload grows past %d bytes: dropped\", STREAM_MAX_SIZE_{k}))"
        ));
        c.line(format!("bounded_remove(stream_open_{k}, key)"));
        c.line("return");
        c.close("end");
        c.line("open.len = len");
        c.line("open.count = open.count + 1");
        for (i, r) in raws.iter().enumerate() {
            let n = i + 1;
            c.line(format!("open.s{n}[open.count] = {r}"));
        }
        c.close("end");
        c.line("");
        c.open(format!("function stream_end_{k}(pinfo, tree)"));
        c.line("local conv, side = conversation_key(pinfo)");
        c.line("local key = conv .. \"|\" .. side");
        c.line("local here = pinfo.number .. \"|\" .. key");
        c.open("if not pinfo.visited then");
        c.line(format!("local open = stream_open_{k}.map[key]"));
        c.open("if open ~= nil then");
        c.line(format!("bounded_remove(stream_open_{k}, key)"));
        // Kept by frame in ByteArrays, outside Lua's heap (see join_whole).
        for n in 1..=j.streams.len() {
            c.line(format!(
                "open.s{n} = ByteArray.new(table.concat(open.s{n}), true)"
            ));
        }
        c.line(format!("frame_streams_{k}[here] = open"));
        c.close("end");
        c.close("end");
        c.line(format!("local whole = frame_streams_{k}[here]"));
        c.line("if whole == nil then return end");
        let streams = j.streams.clone();
        self.show_joined(c, j.in_struct, &streams, None);
        c.line("");
    }

    /// The call of stream join functions at the end of struct `sid`'s function.
    pub(crate) fn stream_join_calls(&self, c: &mut Code, sid: StructId) {
        for (k, j) in self.i.p.stream_joins.iter().enumerate() {
            if j.begin == sid {
                c.line(format!("stream_begin_{k}(pinfo, tree)"));
            }
            if j.in_struct == sid {
                c.line(format!("stream_piece_{k}(pinfo, tree, v)"));
            }
            if j.end == sid {
                c.line(format!("stream_end_{k}(pinfo, tree)"));
            }
        }
    }
}
