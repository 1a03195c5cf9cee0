// The part of wiregen's C# runtime for Riptide (2.1 and later, whose messages are bit-packed):
// a generated message type reads and writes its bits through a Riptide `Message`
// (`message.AddSerializable(value)`, `message.GetSerializable<T>()`). Copied beside the
// generated files by `wiregen generate` when an application schema rides on Riptide 2.1 or 2.2.

using System;
using Riptide;

namespace Wiregen
{
    /// <summary>Moves a value's bits between wiregen's readers and writers and a Riptide
    /// <c>Message</c>: the same LSB-first bit stream Riptide puts on the wire.</summary>
    public static class WiregenRiptide
    {
        [ThreadStatic] static WireWriter writer;
        [ThreadStatic] static byte[] scratch;

        /// <summary>An empty writer, reused per thread (a message's encoding allocates nothing).</summary>
        public static WireWriter Writer()
        {
            if (writer == null) writer = new WireWriter(256);
            writer.Clear();
            return writer;
        }

        /// <summary>Adds the bits <paramref name="w"/> wrote to <paramref name="message"/>, 8 at a time.</summary>
        public static void Add(Message message, WireWriter w)
        {
            var bytes = w.Written;
            long bits = w.BitLength;
            for (int i = 0; bits > 0; i++)
            {
                int k = (int)Math.Min(8, bits);
                message.AddBits(bytes.Array[bytes.Offset + i], k);
                bits -= k;
            }
        }

        /// <summary>A reader over the bits <paramref name="message"/> has left, copied from where
        /// it reads (the message's read position does not move: see <c>Skip</c>).</summary>
        public static WireReader Reader(Message message)
        {
            int n = message.UnreadBits;
            int len = (n + 7) / 8;
            if (scratch == null || scratch.Length < len) scratch = new byte[Math.Max(len, 256)];
            for (int i = 0; i < len; i++)
            {
                byte b;
                message.PeekBits(Math.Min(8, n - 8 * i), message.ReadBits + 8 * i, out b);
                scratch[i] = b;
            }
            return new WireReader(scratch, 0, len, n);
        }

        /// <summary>Moves <paramref name="message"/>'s read position past what <paramref name="r"/> read.</summary>
        public static void Skip(Message message, WireReader r)
        {
            message.SkipBits((int)r.BitPosition);
        }
    }
}
