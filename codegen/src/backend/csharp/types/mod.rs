//! The declarations: enums (with their schema names), flag sets, a class per schema type with
//! its decode and encode entry points and JSON text, and a class per switch.

mod enums;
mod state;
mod switches;

pub(crate) use state::STATE_CLASS;

use super::cstypes::{case_test, literal, variant, CsTypes};
use super::decode::Decoder;
use super::encode::Encoder;
use super::*;

/// Renders every type of a schema.
pub(crate) struct Types<'p> {
    pub(crate) i: Input<'p>,
}

impl<'p> Types<'p> {
    fn cs(&self) -> CsTypes<'p> {
        CsTypes { i: self.i }
    }

    pub(crate) fn render(&self, c: &mut Code) -> Result<(), Internal> {
        let p = self.i.p;
        for e in &p.enums {
            c.gap();
            self.enumeration(c, e);
        }
        for f in &p.flags {
            c.gap();
            self.flag_set(c, f);
        }
        if !p.state.is_empty() {
            c.gap();
            self.state(c)?;
        }
        for (sid, s) in p.structs.iter().enumerate() {
            c.gap();
            self.class(c, sid, s)?;
            for (fi, f) in s.fields.iter().enumerate() {
                if let Ty::Union(u) = &f.ty {
                    if u.shares.is_none() {
                        c.gap();
                        self.switch(c, sid, fi, u)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn class(&self, c: &mut Code, sid: StructId, s: &Struct) -> Result<(), Internal> {
        let name = type_name(&s.name);
        doc(c, &s.doc);
        c.line(&format!("public sealed partial class {name}"));
        c.open();
        for (fi, sum) in checksums(s) {
            c.line(&format!(
                "static readonly IWireChecksum {} = {};",
                checksum_static(&s.fields[fi].name),
                checksum_new(sum.algo)
            ));
        }
        for (fi, f) in s.value_fields() {
            doc(c, &f.doc);
            let t = self.cs().field_type(sid, fi, f)?;
            c.line(&format!("public {t} {};", member(&name, &f.name)));
        }
        c.gap();
        self.entry_points(c, &name, sid);
        c.gap();
        Decoder::new(self.i).read_method(c, sid)?;
        c.gap();
        Encoder::new(self.i).write_method(c, sid)?;
        c.gap();
        c.line("/// <summary>The value as JSON, in the shape of the crate's serde and wirecat.</summary>");
        c.line("public void WriteJson(WireJson j)");
        c.open();
        c.line("j.Open();");
        for (_, f) in s.value_fields() {
            c.line(&format!("j.Key({});", lit(&f.name)));
            let m = member(&name, &f.name);
            if f.condition.is_some() {
                let test = if is_value_type(&f.ty) {
                    format!("{m}.HasValue")
                } else {
                    format!("{m} != null")
                };
                let inner = if is_value_type(&f.ty) {
                    format!("{m}.Value")
                } else {
                    m.clone()
                };
                c.line(&format!("if ({test})"));
                c.open();
                // (The crate's serde writes optional bytes as numbers, not hex.)
                self.json(c, &f.ty, &inner, 0, false)?;
                c.close();
                c.line("else j.Null();");
            } else {
                self.json(c, &f.ty, &m, 0, true)?;
            }
        }
        c.line("j.Close();");
        c.close();
        c.gap();
        c.line("public override string ToString()");
        c.open();
        c.line("var j = new WireJson();");
        c.line("WriteJson(j);");
        c.line("return j.ToString();");
        c.close();
        c.close();
        Ok(())
    }

    /// `Decode`, `TryDecode` and `Encode`: a whole message of this type.
    fn entry_points(&self, c: &mut Code, name: &str, sid: StructId) {
        let s = &self.i.p.structs[sid];
        let reads_state = self.i.l.state_readers[sid];
        let reads_direction = self.i.l.reads_direction[sid];
        let finish = match s.layout {
            Layout::Bytes => "r.Finish();".to_string(),
            l => format!("r.FinishBits({});", l == Layout::MsbBits),
        };
        c.line(&format!(
            "/// <summary>Decodes a whole message: its bytes must be exactly one {name}.</summary>"
        ));
        c.line(&format!(
            "public static {name} Decode(byte[] buffer, int offset, int count)"
        ));
        c.open();
        c.line("var r = new WireReader(buffer, offset, count);");
        c.line("var value = Read(r);");
        c.line(&finish);
        c.line("return value;");
        c.close();
        c.gap();
        c.line(&format!("public static {name} Decode(byte[] buffer)"));
        c.open();
        c.line("return Decode(buffer, 0, buffer.Length);");
        c.close();
        c.gap();
        c.line("/// <summary>Decodes like <c>Decode</c>; false (and why) when the bytes do not decode.</summary>");
        c.line(&format!("public static bool TryDecode(byte[] buffer, int offset, int count, out {name} value, out DecodeException error)"));
        c.open();
        c.line("try");
        c.open();
        c.line("value = Decode(buffer, offset, count);");
        c.line("error = null;");
        c.line("return true;");
        c.close();
        c.line("catch (DecodeException e)");
        c.open();
        c.line("value = null;");
        c.line("error = e;");
        c.line("return false;");
        c.close();
        c.close();
        c.gap();
        if reads_state {
            c.gap();
            c.line("/// <summary>Decodes a whole message whose values are typed by lists earlier messages");
            c.line("/// announced (kept by <paramref name=\"state\"/>).</summary>");
            c.line(&format!(
                "public static {name} Decode(byte[] buffer, int offset, int count, {STATE_CLASS} state)"
            ));
            c.open();
            c.line("var r = new WireReader(buffer, offset, count) { State = state.Tables };");
            c.line("var value = Read(r);");
            c.line(&finish);
            c.line("return value;");
            c.close();
        }
        if reads_direction {
            c.gap();
            c.line("/// <summary>Decodes a whole message sent by the client (<paramref name=\"fromClient\"/>) or the");
            c.line("/// server: its layout depends on the direction.</summary>");
            c.line(&format!(
                "public static {name} Decode(byte[] buffer, int offset, int count, bool fromClient)"
            ));
            c.open();
            c.line("var r = new WireReader(buffer, offset, count) { Direction = fromClient };");
            c.line("var value = Read(r);");
            c.line(&finish);
            c.line("return value;");
            c.close();
            c.gap();
            c.line("/// <summary>Encodes the message the client (<paramref name=\"fromClient\"/>) or the server sends.</summary>");
            c.line("public byte[] Encode(bool fromClient)");
            c.open();
            c.line("var w = new WireWriter { Direction = fromClient };");
            c.line("Write(w);");
            c.line("return w.ToArray();");
            c.close();
        }
        c.gap();
        c.line("/// <summary>Encodes the message, filling in every length, count, tag and constant.</summary>");
        c.line("public byte[] Encode()");
        c.open();
        c.line("var w = new WireWriter();");
        c.line("Write(w);");
        c.line("return w.ToArray();");
        c.close();
    }

    /// Statements writing `x`, a value of `ty`, as JSON.
    pub(crate) fn json(
        &self,
        c: &mut Code,
        ty: &Ty,
        x: &str,
        depth: usize,
        hex: bool,
    ) -> Result<(), Internal> {
        let p = self.i.p;
        match ty {
            Ty::Int(it) if it.signed => c.line(&format!("j.Num((long){x});")),
            Ty::Int(_) | Ty::VarInt(VarInt::Leb128 | VarInt::RiptideLen) => {
                c.line(&format!("j.Num((ulong){x});"))
            }
            Ty::VarInt(VarInt::ZigZag) => c.line(&format!("j.Num((long){x});")),
            Ty::VarInt(VarInt::Rabbit { signed, .. }) => {
                let t = if *signed { "long" } else { "ulong" };
                c.line(&format!("j.Num(({t}){x});"))
            }
            Ty::Bool => c.line(&format!("j.Bool({x});")),
            Ty::Float { .. } => c.line(&format!("j.Float({x});")),
            // (The crate's serde writes a value of a named range as its number.)
            Ty::Enum(id) if !p.enums[*id].ranges.is_empty() => {
                c.line(&format!("j.Named({x}.SingleName(), (ulong){x});"))
            }
            Ty::Enum(_) => c.line(&format!("j.Named({x}.WireName(), (ulong){x});")),
            Ty::Flags(id) => {
                let n = type_name(&p.flags[*id].name);
                c.line(&format!(
                    "j.Flags((ulong){x}, {n}Names.Names, {n}Names.Masks);"
                ))
            }
            Ty::Bytes(_) if hex => c.line(&format!("j.Hex({x});")),
            Ty::Bytes(_) => c.line(&format!("j.Numbers({x});")),
            Ty::Str(..) => c.line(&format!("j.Str({x});")),
            Ty::Bits => c.line(&format!("j.Bits({x});")),
            Ty::Struct(..) | Ty::Union(_) => c.line(&format!("{x}.WriteJson(j);")),
            Ty::Array(e, _) => {
                let item = format!("item{depth}");
                c.line("j.OpenList();");
                c.line(&format!("foreach (var {item} in {x})"));
                c.open();
                self.json(c, e, &item, depth + 1, false)?;
                c.close();
                c.line("j.CloseList();");
            }
        }
        Ok(())
    }
}
