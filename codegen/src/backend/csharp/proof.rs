//! The proof program of a schema's C# codec (not shipped: `wiregen verify` builds it beside the
//! codec): it reads messages as hex lines, decodes each as the root type, and answers its JSON
//! and its encoding back, or the exception (see `wiregen_verify::csharp`).

use super::*;

/// What every proof program has: the randomness its values are made of.
const ARBITRARY_BASE: &str = r#"class TooDeep : Exception { }

class ArbitraryBase
{
    readonly Random rng;
    int depth;

    protected ArbitraryBase(int seed) { rng = new Random(seed); }

    protected void Enter() { if (++depth > 16) { depth = 0; throw new TooDeep(); } }
    protected void Leave() { depth--; }
    public void Reset() { depth = 0; }

    protected int Below(int n) { return rng.Next(n); }
    protected bool Chance(int n) { return rng.Next(n) == 0; }
    protected int Small(ulong most) { return rng.Next((int)Math.Min(most, 16UL) + 1); }

    protected ulong Bits(int n)
    {
        var b = new byte[8];
        rng.NextBytes(b);
        ulong v = BitConverter.ToUInt64(b, 0);
        // Often small: lengths, ids and counts are.
        if (Chance(3)) v &= 0xFF;
        return n >= 64 ? v : v & ((1UL << n) - 1);
    }

    protected long SBits(int n)
    {
        ulong v = Bits(n);
        if (n >= 64) return (long)v;
        int shift = 64 - n;
        return (long)(v << shift) >> shift;
    }

    protected long Between(long lo, long hi)
    {
        ulong span = (ulong)(hi - lo);
        return span == ulong.MaxValue ? (long)Bits(64) : lo + (long)(Bits(64) % (span + 1));
    }

    protected T Pick<T>(T[] values) { return values[rng.Next(values.Length)]; }

    protected ArraySegment<byte> SomeBytes(int n)
    {
        var b = new byte[n];
        rng.NextBytes(b);
        return new ArraySegment<byte>(b);
    }

    protected string SomeText(int n, int kind)
    {
        const string ascii = "abcdefghijklmnopqrstuvwxyz0123456789 _-";
        const string latin1 = "éüßÅ";
        const string other = "é漢ЖΩ";
        var sb = new StringBuilder();
        for (int i = 0; i < n; i++)
        {
            if (kind >= 1 && Chance(4)) sb.Append(kind == 1 ? latin1[rng.Next(latin1.Length)] : other[rng.Next(other.Length)]);
            else sb.Append(ascii[rng.Next(ascii.Length)]);
        }
        return sb.ToString();
    }

    protected BitString SomeBits()
    {
        int n = Small(8);
        var b = SomeBytes(n);
        return new BitString(b, 8 * n);
    }

    protected List<T> Many<T>(int n, Func<T> make)
    {
        var list = new List<T>(n);
        for (int i = 0; i < n; i++) list.Add(make());
        return list;
    }
}
"#;

/// The program's C# source for protocol `p`.
/// `Answer`: decodes one line of hex (`c HEX` or `s HEX`: sent by the client or the server) and
/// says what became of it: `ok`, its value and the bytes it encodes back to; `encode-error`,
/// `error` or `crash` and why.
fn answer_method(c: &mut Code, p: &Protocol, l: &Lowered, stateful: bool) {
    let ns = namespace(p);
    let root = type_name(&p.root().name);
    c.line("static string Answer(string line)");
    c.open();
    c.line("try");
    c.open();
    // `c HEX` or `s HEX`: sent by the client or the server.
    c.line("bool? fc = line.StartsWith(\"c \") ? true : line.StartsWith(\"s \") ? (bool?)false : null;");
    c.line("var bytes = FromHex(fc == null ? line : line.Substring(2));");
    if stateful {
        c.line(&format!("var value = state == null ? global::{ns}.{root}.Decode(bytes) : global::{ns}.{root}.Decode(bytes, 0, bytes.Length, state);"));
        c.line("if (state != null) state.Record(value);");
    } else if l.reads_direction[p.root] {
        c.line(&format!("var value = fc == null ? global::{ns}.{root}.Decode(bytes) : global::{ns}.{root}.Decode(bytes, 0, bytes.Length, fc.Value);"));
    } else {
        c.line(&format!("var value = global::{ns}.{root}.Decode(bytes);"));
    }
    c.line("var json = value.ToString();");
    c.line("try");
    c.open();
    if l.reads_direction[p.root] {
        c.line("return \"ok\\t\" + json + \"\\t\" + ToHex(fc == null ? value.Encode() : value.Encode(fc.Value));");
    } else {
        c.line("return \"ok\\t\" + json + \"\\t\" + ToHex(value.Encode());");
    }
    c.close();
    c.line("catch (EncodeException e)");
    c.open();
    c.line("return \"encode-error\\t\" + json + \"\\t\" + OneLine(e.Message);");
    c.close();
    c.close();
    c.line("catch (DecodeException e)");
    c.open();
    c.line("return \"error\\t\" + OneLine(e.Message);");
    c.close();
    c.line("catch (Exception e)");
    c.open();
    c.line("return \"crash\\t\" + e.GetType().Name + \": \" + OneLine(e.Message);");
    c.close();
    c.close();
    c.gap();
}

pub fn program(p: &Protocol, l: &Lowered) -> Result<String, Internal> {
    let ns = namespace(p);
    // Conversations keep the lists their messages announce (`new` starts one).
    let stateful = !p.state.is_empty() && l.state_readers[p.root];
    let mut c = Code::default();
    c.raw(&header(Comment::Slashes, Source::Schema(&p.source)));
    c.line("// The proof program of the C# codec (wiregen verify): not part of the codec.");
    c.line("");
    c.line("using System;");
    c.line("using System.Collections.Generic;");
    c.line("using System.IO;");
    c.line("using System.Text;");
    c.line("using Wiregen;");
    c.line(&format!("using {ns};"));
    c.line("");
    c.raw(ARBITRARY_BASE);
    c.line("");
    super::arbitrary::ArbitraryValues { i: Input { p, l } }.render(&mut c)?;
    c.line("");
    c.line("static class Proof");
    c.open();
    c.line("static int Main(string[] args)");
    c.open();
    c.line("var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));");
    c.line("if (args.Length == 3 && args[0] == \"random\")");
    c.open();
    c.line("var made = new Arbitrary(int.Parse(args[2]));");
    c.line("int n = int.Parse(args[1]);");
    for id in proof_types(p) {
        let t = type_name(&p.structs[id].name);
        let name = lit(&p.structs[id].name);
        if l.reads_direction[id] {
            // Sent by either side: the value is encoded and decoded for that direction.
            c.line(&format!("for (int i = 0; i < n; i++) {{ bool fc = i % 2 == 0; output.WriteLine(Made({name}, () => made.Make{t}(), v => v.Encode(fc), b => global::{ns}.{t}.Decode(b, 0, b.Length, fc).ToString()) + (fc ? \"\\tc\" : \"\\ts\")); }}"));
        } else {
            c.line(&format!("for (int i = 0; i < n; i++) output.WriteLine(Made({name}, () => made.Make{t}(), v => v.Encode(), b => global::{ns}.{t}.Decode(b).ToString()));"));
        }
    }
    c.line("output.Flush();");
    c.line("return 0;");
    c.close();
    c.line("string line;");
    c.line("while ((line = Console.In.ReadLine()) != null)");
    c.open();
    if stateful {
        // `new` starts a conversation: the messages after it are decoded with its lists.
        c.line("if (line == \"new\") { state = new ConversationState(); output.WriteLine(\"new\"); continue; }");
    }
    c.line("output.WriteLine(Answer(line));");
    c.close();
    c.line("output.Flush();");
    c.line("return 0;");
    c.close();
    c.gap();
    if stateful {
        c.line("static ConversationState state;");
        c.gap();
    }
    answer_method(&mut c, p, l, stateful);
    made_method(&mut c);
    c.gap();
    corrupted_method(&mut c);
    c.line("static string OneLine(string s)");
    c.open();
    c.line("return s.Replace('\\n', ' ').Replace('\\t', ' ');");
    c.close();
    c.gap();
    c.line("static byte[] FromHex(string s)");
    c.open();
    c.line("var b = new byte[s.Length / 2];");
    c.line("for (int i = 0; i < b.Length; i++) b[i] = Convert.ToByte(s.Substring(2 * i, 2), 16);");
    c.line("return b;");
    c.close();
    c.gap();
    c.line("static string ToHex(byte[] b)");
    c.open();
    c.line("var sb = new StringBuilder(2 * b.Length);");
    c.line("foreach (var x in b) sb.Append(x.ToString(\"x2\"));");
    c.line("return sb.ToString();");
    c.close();
    c.close();
    Ok(c.finish())
}

/// `Made`: a value made at random, encoded, and decoded back by the C# (a line for the crate).
/// The types the proof makes values of: what a decoder reads directly (the root, the opening,
/// joined payloads), or an application's messages.
fn proof_types(p: &Protocol) -> Vec<StructId> {
    match &p.application {
        Some(a) => a.messages.iter().map(|(_, id)| *id).collect(),
        None => p.top_level_types(),
    }
}

/// `Corrupted`: the value's encoding cut short and with bits flipped, decoded: only
/// `DecodeException` may come out (else what did, and the bytes).
fn corrupted_method(c: &mut Code) {
    c.line("static string Corrupted(byte[] bytes, Func<byte[], string> decode)");
    c.open();
    c.line("for (int k = 0; k < 4 && bytes.Length > 0; k++)");
    c.open();
    c.line("var b = k < 2 ? new byte[bytes.Length - 1 - k * (bytes.Length - 1) / 2] : (byte[])bytes.Clone();");
    c.line("if (k < 2) Array.Copy(bytes, b, b.Length);");
    c.line("else b[(k == 2 ? 0 : bytes.Length / 2)] ^= (byte)(1 << (bytes.Length % 8));");
    c.line("try { decode(b); }");
    c.line("catch (DecodeException) { }");
    c.line("catch (Exception e) { return e.GetType().Name + \": \" + OneLine(e.Message) + \" decoding \" + ToHex(b); }");
    c.close();
    c.line("return null;");
    c.close();
    c.gap();
}

fn made_method(c: &mut Code) {
    c.line("/// <summary>A value made at random, encoded, and decoded back: `made\\tType\\tjson\\thex`,");
    c.line(
        "/// or why not (`refused`, `self` when the C# cannot decode its own encoding).</summary>",
    );
    c.line("static string Made<T>(string type, Func<T> make, Func<T, byte[]> encode, Func<byte[], string> decode)");
    c.open();
    c.line("byte[] bytes;");
    c.line("try");
    c.open();
    c.line("bytes = encode(make());");
    c.close();
    c.line("catch (EncodeException e)");
    c.open();
    c.line("return \"refused\\t\" + type + \"\\t\" + OneLine(e.Message);");
    c.close();
    c.line("catch (TooDeep)");
    c.open();
    c.line("return \"refused\\t\" + type + \"\\ttoo deep\";");
    c.close();
    c.line("catch (Exception e)");
    c.open();
    c.line("return \"crash\\t\" + e.GetType().Name + \": \" + OneLine(e.Message);");
    c.close();
    c.line("var corrupted = Corrupted(bytes, decode);");
    c.line("if (corrupted != null) return \"crash\\t\" + type + \": \" + corrupted;");
    c.line("try");
    c.open();
    c.line("return \"made\\t\" + type + \"\\t\" + decode(bytes) + \"\\t\" + ToHex(bytes);");
    c.close();
    c.line("catch (DecodeException e) when (e.NeedsState)");
    c.open();
    c.line("return \"needs-state\\t\" + type;");
    c.close();
    c.line("catch (DecodeException e)");
    c.open();
    c.line("return \"self\\t\" + type + \"\\t\" + ToHex(bytes) + \"\\t\" + OneLine(e.Message);");
    c.close();
    c.close();
    c.gap();
}
