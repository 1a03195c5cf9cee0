//! The proof program of a schema's C# codec (not shipped: `wiregen verify` builds it beside the
//! codec): it reads messages as hex lines, decodes each as the root type, and answers its JSON
//! and its encoding back, or the exception (see `wiregen_verify::csharp`).

use super::*;

/// The program's C# source for protocol `p`.
pub fn program(p: &Protocol) -> String {
    let ns = namespace(p);
    let root = type_name(&p.root().name);
    let mut c = Code::default();
    c.raw(&header(Comment::Slashes, Source::Schema(&p.source)));
    c.line("// The proof program of the C# codec (wiregen verify): not part of the codec.");
    c.line("");
    c.line("using System;");
    c.line("using System.IO;");
    c.line("using System.Text;");
    c.line("using Wiregen;");
    c.line("");
    c.line("static class Proof");
    c.open();
    c.line("static int Main()");
    c.open();
    c.line("var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));");
    c.line("string line;");
    c.line("while ((line = Console.In.ReadLine()) != null)");
    c.open();
    c.line("output.WriteLine(Answer(line));");
    c.close();
    c.line("output.Flush();");
    c.line("return 0;");
    c.close();
    c.gap();
    c.line("static string Answer(string line)");
    c.open();
    c.line("try");
    c.open();
    c.line(&format!(
        "var value = global::{ns}.{root}.Decode(FromHex(line));"
    ));
    c.line("var json = value.ToString();");
    c.line("try");
    c.open();
    c.line("return \"ok\\t\" + json + \"\\t\" + ToHex(value.Encode());");
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
    c.finish()
}
