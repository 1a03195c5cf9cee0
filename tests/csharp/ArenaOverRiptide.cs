// The Arena example's messages through Riptide's `Message` (the stand-in): what a Unity client
// on Riptide 2.1/2.2 calls. Reads datagrams (hex lines) the Rust crate sent and answers each
// message's JSON and the datagram the C# sends back; `made N SEED` sends N random messages of
// its own (the proof program's Arbitrary) for the crate to read.

using System;
using System.IO;
using System.Text;
using Riptide;
using Wiregen;
using Wiregen.Protocols.Arena;

static class ArenaOverRiptide
{
    static int Main(string[] args)
    {
        var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        if (args.Length == 3 && args[0] == "made")
        {
            var made = new Arbitrary(int.Parse(args[2]));
            for (int i = 0; i < int.Parse(args[1]); i++)
            {
                made.Reset();
                try
                {
                    Message m;
                    switch (i % 3)
                    {
                        case 0: m = Message.Create(MessageSendMode.Unreliable, (ushort)MessageId.PlayerMove).AddSerializable(made.MakePlayerMove()); break;
                        case 1: m = Message.Create(MessageSendMode.Unreliable, (ushort)MessageId.Chat).AddSerializable(made.MakeChat()); break;
                        default: m = Message.Create(MessageSendMode.Unreliable, (ushort)MessageId.Spawn).AddSerializable(made.MakeSpawn()); break;
                    }
                    var datagram = m.ToDatagram();
                    output.WriteLine("made\t" + Received(datagram).Item1 + "\t" + Hex(datagram));
                }
                catch (EncodeException e)
                {
                    output.WriteLine("refused\t" + e.Message);
                }
                catch (TooDeep)
                {
                    output.WriteLine("refused\ttoo deep");
                }
            }
            output.Flush();
            return 0;
        }
        string line;
        while ((line = Console.In.ReadLine()) != null)
        {
            try
            {
                var r = Received(FromHex(line));
                output.WriteLine("ok\t" + r.Item1 + "\t" + Hex(r.Item2));
            }
            catch (Exception e)
            {
                output.WriteLine("error\t" + e.GetType().Name + ": " + e.Message.Replace('\n', ' '));
            }
        }
        output.Flush();
        return 0;
    }

    /// <summary>A received datagram's message as JSON (the crate's shape: {"Variant": value}),
    /// and the datagram that sends the same message again.</summary>
    static Tuple<string, byte[]> Received(byte[] datagram)
    {
        var m = Message.FromDatagram(datagram);
        var id = (MessageId)m.GetVarULong();
        var again = Message.Create(MessageSendMode.Unreliable, (ushort)id);
        string json;
        switch (id)
        {
            case MessageId.PlayerMove:
            {
                var v = m.GetSerializable<PlayerMove>();
                again.AddSerializable(v);
                json = "{\"PlayerMove\":" + v + "}";
                break;
            }
            case MessageId.Chat:
            {
                var v = m.GetSerializable<Chat>();
                again.AddSerializable(v);
                json = "{\"Chat\":" + v + "}";
                break;
            }
            case MessageId.Spawn:
            {
                var v = m.GetSerializable<Spawn>();
                again.AddSerializable(v);
                json = "{\"Spawn\":" + v + "}";
                break;
            }
            default:
                throw new InvalidDataException("no message " + (ushort)id);
        }
        // What is left is the padding of the last byte.
        if (m.UnreadBits >= 8) throw new InvalidDataException(m.UnreadBits + " bits left");
        return Tuple.Create(json, again.ToDatagram());
    }

    static byte[] FromHex(string s)
    {
        var b = new byte[s.Length / 2];
        for (int i = 0; i < b.Length; i++) b[i] = Convert.ToByte(s.Substring(2 * i, 2), 16);
        return b;
    }

    static string Hex(byte[] b)
    {
        var sb = new StringBuilder();
        foreach (var x in b) sb.Append(x.ToString("x2"));
        return sb.ToString();
    }
}
