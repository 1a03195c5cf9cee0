//! What a Riptide user calls (an application schema on Riptide 2.1 or 2.2, whose messages are
//! bit-packed): `<App>Riptide.cs`, the message ids as an enum for `Message.Create(sendMode, id)`,
//! and each message type a Riptide `IMessageSerializable` (`message.AddSerializable(value)`,
//! `message.GetSerializable<T>()`), its bits moved by the runtime's `WiregenRiptide.cs`.

use super::*;

/// The runtime part for Riptide, written beside the generated files when an adapter is.
pub const RUNTIME: &str = include_str!("../../../csharp/WiregenRiptide.cs");

/// Its file name in a C# output folder.
pub const RUNTIME_FILE: &str = "WiregenRiptide.cs";

/// Whether `p` is an application on Riptide with bit-packed messages (2.1 and later: Riptide
/// 2.0's byte-based `Message` has no bit access nor `IMessageSerializable`).
pub fn rides_on_riptide(p: &Protocol) -> bool {
    p.application
        .as_ref()
        .is_some_and(|a| a.transport.starts_with("riptide") && a.layout == Layout::LsbBits)
}

/// The adapter's file name (`ArenaRiptide.cs`).
pub fn file_name(p: &Protocol) -> String {
    format!("{}Riptide.cs", p.name.to_upper_camel_case())
}

/// The adapter of `p`, when it rides on Riptide.
pub fn adapter(p: &Protocol) -> Option<String> {
    let a = p.application.as_ref().filter(|_| rides_on_riptide(p))?;
    let mut c = Code::default();
    c.raw(&header(Comment::Slashes, Source::Schema(&p.source)));
    c.line("");
    c.line("using Riptide;");
    c.line("using Wiregen;");
    c.line("");
    c.line(&format!("namespace {}", namespace(p)));
    c.open();
    c.line(&format!(
        "/// <summary>The ids {}'s messages are sent with: <c>Message.Create(sendMode, (ushort)MessageId.X)</c>.</summary>",
        p.name.to_upper_camel_case()
    ));
    c.line("public enum MessageId : ushort");
    c.open();
    for (id, sid) in &a.messages {
        c.line(&format!("{} = {id},", type_name(&p.structs[*sid].name)));
    }
    c.close();
    for (_, sid) in &a.messages {
        c.gap();
        serializable(&mut c, &p.structs[*sid]);
    }
    c.close();
    Some(c.finish())
}

fn serializable(c: &mut Code, s: &Struct) {
    let name = type_name(&s.name);
    c.line(&format!(
        "public sealed partial class {name} : IMessageSerializable"
    ));
    c.open();
    c.line("/// <summary>Adds the value's bits to the message (<c>message.AddSerializable(value)</c>).</summary>");
    c.line("public void Serialize(Message message)");
    c.open();
    c.line("var w = WiregenRiptide.Writer();");
    c.line("Write(w);");
    c.line("WiregenRiptide.Add(message, w);");
    c.close();
    c.gap();
    c.line(&format!(
        "/// <summary>Reads the value from the message (<c>message.GetSerializable&lt;{name}&gt;()</c>).</summary>"
    ));
    c.line("public void Deserialize(Message message)");
    c.open();
    c.line("var r = WiregenRiptide.Reader(message);");
    c.line("var v = Read(r);");
    c.line("WiregenRiptide.Skip(message, r);");
    for (_, f) in s.value_fields() {
        let m = member(&name, &f.name);
        c.line(&format!("{m} = v.{m};"));
    }
    c.close();
    c.close();
}
