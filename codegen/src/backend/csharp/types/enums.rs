//! Enums (a C# enum, its schema names from `WireName()`, closed ones checked) and flag sets (a
//! `[Flags]` enum, its bits' names for JSON).

use super::*;

impl Types<'_> {
    pub(super) fn enumeration(&self, c: &mut Code, e: &Enum) {
        let name = type_name(&e.name);
        doc(c, &e.doc);
        c.line(&format!("public enum {name} : {}", int_type(&e.repr)));
        c.open();
        for v in &e.values {
            doc(c, &v.doc);
            c.line(&format!(
                "{} = {},",
                variant(&v.name),
                literal(v.value, &v.hex)
            ));
        }
        c.close();
        c.gap();
        c.line(&format!("public static class {name}Names"));
        c.open();
        c.line(
            "/// <summary>The schema's name of the value, or null when it names none.</summary>",
        );
        c.line(&format!("public static string WireName(this {name} value)"));
        c.open();
        c.line("switch (value)");
        c.open();
        for v in &e.values {
            c.line(&format!(
                "case {name}.{}: return {};",
                variant(&v.name),
                lit(&v.name)
            ));
        }
        if e.ranges.is_empty() {
            c.line("default: return null;");
            c.close();
            c.close();
        } else {
            c.line("default: break;");
            c.close();
            self.range_names(c, e);
        }
        if !e.ranges.is_empty() {
            c.gap();
            c.line("/// <summary>The name of a value the schema names alone (not by a range), or null: its JSON.</summary>");
            c.line(&format!(
                "public static string SingleName(this {name} value)"
            ));
            c.open();
            c.line("switch (value)");
            c.open();
            for v in &e.values {
                c.line(&format!(
                    "case {name}.{}: return {};",
                    variant(&v.name),
                    lit(&v.name)
                ));
            }
            c.line("default: return null;");
            c.close();
            c.close();
        }
        if e.closed {
            c.gap();
            c.line("/// <summary>The value read, refused when the schema names no such value.</summary>");
            c.line(&format!(
                "public static {name} Known({name} value, WireReader r, string field)"
            ));
            c.open();
            c.line("if (value.WireName() == null)");
            c.open();
            c.line("throw r.Error(field, r.BitPosition, \"unknown value \" + (ulong)value);");
            c.close();
            c.line("return value;");
            c.close();
            c.gap();
            c.line("/// <summary>The value to write, refused when the schema names no such value.</summary>");
            c.line(&format!(
                "public static {name} Known({name} value, string field)"
            ));
            c.open();
            c.line("if (value.WireName() == null)");
            c.open();
            c.line("throw new EncodeException(field, \"unknown value \" + (ulong)value);");
            c.close();
            c.line("return value;");
            c.close();
        }
        c.close();
    }

    /// The end of `WireName` for an enum with named ranges: a value of one is named by it (and
    /// keeps its number).
    fn range_names(&self, c: &mut Code, e: &Enum) {
        for r in &e.ranges {
            c.line(&format!(
                "if ((ulong)value >= {}UL && (ulong)value <= {}UL) return {};",
                r.lo,
                r.hi,
                lit(&r.name)
            ));
        }
        c.line("return null;");
        c.close();
    }

    pub(super) fn flag_set(&self, c: &mut Code, f: &Flags) {
        let name = type_name(&f.name);
        doc(c, &f.doc);
        c.line("[System.Flags]");
        c.line(&format!("public enum {name} : {}", int_type(&f.repr)));
        c.open();
        c.line("None = 0,");
        for b in &f.bits {
            doc(c, &b.doc);
            c.line(&format!(
                "{} = {},",
                variant(&b.name),
                literal(b.value, &b.hex)
            ));
        }
        c.close();
        c.gap();
        c.line(&format!("public static class {name}Names"));
        c.open();
        let names: Vec<String> = f.bits.iter().map(|b| lit(&b.name)).collect();
        let masks: Vec<String> = f.bits.iter().map(|b| literal(b.value, &b.hex)).collect();
        c.line(&format!(
            "public static readonly string[] Names = {{ {} }};",
            names.join(", ")
        ));
        c.line(&format!(
            "public static readonly ulong[] Masks = {{ {} }};",
            masks.join(", ")
        ));
        c.close();
    }
}
