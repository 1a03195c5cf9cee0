//! `ConversationState`: the lists earlier messages of a conversation announced (the schema's
//! `state`), as the crate's `State`: read by the values they type, recorded from the messages
//! that announce them.

use super::*;

/// The class's name (a schema type of that name would take it: validation's names are the
/// schema's, so the class is named apart).
pub(crate) const STATE_CLASS: &str = "ConversationState";

impl Types<'_> {
    pub(super) fn state(&self, c: &mut Code) -> Result<(), Internal> {
        let p = self.i.p;
        c.line("/// <summary>Lists announced by earlier messages of a conversation, by key. Keep one per");
        c.line("/// conversation (both sides share it), <c>Record</c> every decoded message from either side");
        c.line("/// and decode the next ones with it.</summary>");
        c.line(&format!("public sealed class {STATE_CLASS}"));
        c.open();
        c.line("public readonly WireState Tables = new WireState();");
        c.gap();
        c.line("/// <summary>Lists forgotten so far to stay within <c>Tables.MaxKeys</c> per table.</summary>");
        c.line("public long Evicted { get { return Tables.Evicted; } }");
        for (t, table) in p.state.iter().enumerate() {
            let e = type_name(&p.enums[table.items].name);
            let m = table.name.to_upper_camel_case();
            c.gap();
            doc(c, &table.doc);
            c.line(&format!("public {e}[] {m}(ulong key)"));
            c.open();
            c.line(&format!("var list = Tables.Get({t}, key);"));
            c.line("if (list == null) return null;");
            c.line(&format!("var items = new {e}[list.Length];"));
            c.line(&format!(
                "for (int i = 0; i < list.Length; i++) items[i] = ({e})list[i];"
            ));
            c.line("return items;");
            c.close();
            c.gap();
            c.line("/// <summary>Sets the list of <paramref name=\"key\"/>, as a message announcing it would.</summary>");
            c.line(&format!("public void Set{m}(ulong key, {e}[] items)"));
            c.open();
            c.line("var list = new ulong[items.Length];");
            c.line("for (int i = 0; i < items.Length; i++) list[i] = (ulong)items[i];");
            c.line(&format!("Tables.Set({t}, key, list);"));
            c.close();
            for r in table.records.iter().filter(|r| r.via.is_none()) {
                c.gap();
                self.record(c, t, r)?;
            }
        }
        c.gap();
        self.record_root(c);
        c.close();
        Ok(())
    }

    /// `Record<Type>`: the list a value of `r.in_struct` announces.
    fn record(&self, c: &mut Code, t: usize, r: &Record) -> Result<(), Internal> {
        let p = self.i.p;
        let s = &p.structs[r.in_struct];
        let name = type_name(&s.name);
        let elem = &p.structs[r.elem];
        let elem_name = type_name(&elem.name);
        let key = member(&name, &s.fields[r.key].name);
        let list = member(&name, &s.fields[r.list].name);
        let item_field = &elem.fields[r.item];
        let item = match &item_field.role {
            Role::Value => format!("e.{}", member(&elem_name, &item_field.name)),
            Role::Derived(Derive::TagOf(u)) => {
                format!("e.{}.WireTag", member(&elem_name, &elem.fields[*u].name))
            }
            _ => {
                return Err(Internal(format!(
                    "a list item '{}' the value does not hold",
                    item_field.name
                )))
            }
        };
        c.line(&format!(
            "/// <summary>Remembers the list a <c>{name}</c> announces.</summary>"
        ));
        c.line(&format!("public void Record{name}({name} v)"));
        c.open();
        c.line(&format!("var list = new ulong[v.{list}.Count];"));
        c.line("int i = 0;");
        c.line(&format!(
            "foreach (var e in v.{list}) list[i++] = (ulong){item};"
        ));
        c.line(&format!("Tables.Set({t}, (ulong)v.{key}, list);"));
        c.close();
        Ok(())
    }

    /// `Record`: whatever a decoded message announces (nothing for most messages).
    fn record_root(&self, c: &mut Code) {
        let p = self.i.p;
        let root = type_name(&p.root().name);
        c.line("/// <summary>Remembers whatever <paramref name=\"message\"/> announces (nothing for most messages).</summary>");
        c.line(&format!("public void Record({root} message)"));
        c.open();
        let mut k = 0;
        for r in p
            .state
            .iter()
            .flat_map(|t| &t.records)
            .filter(|r| r.via.is_none())
        {
            let name = type_name(&p.structs[r.in_struct].name);
            if r.in_struct == p.root {
                c.line(&format!("Record{name}(message);"));
                continue;
            }
            for (fi, f) in p.root().fields.iter().enumerate() {
                let Ty::Union(u) = &f.ty else { continue };
                let class = type_name(&p.union_name(p.root, fi));
                let m = member(&root, &f.name);
                for case in u
                    .cases
                    .iter()
                    .filter(|k| k.body == CaseBody::Struct(r.in_struct))
                {
                    let v = format!("announced{k}");
                    k += 1;
                    c.line(&format!(
                        "var {v} = message.{m} as {class}.{};",
                        variant(&case.variant)
                    ));
                    c.line(&format!("if ({v} != null) Record{name}({v}.Value);"));
                }
            }
        }
        c.close();
    }
}
