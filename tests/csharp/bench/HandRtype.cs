// R-Type as a competent C# engineer writes it by hand (the C# twin of
// tests/benches/versus/hand_rtype.rs): one length check for the 20-byte header and reads at fixed
// offsets, 9-byte entity records, a CRC-16 table, the output sized before it is written. Only the
// two payloads the benchmark uses are typed.

using System;
using System.Collections.Generic;
using System.Text;

static class HandRtype
{
    public sealed class Entity
    {
        public uint EntityId;
        public ushort X, Y;
        public byte Kind;
    }

    public sealed class Packet
    {
        public byte Command, Flags;
        public uint Sequence, Ack;
        public ushort FragmentId;
        public byte FragmentIndex, FragmentCount;
        // Login
        public string Username;
        public uint Version;
        public ushort PreferredFragmentSize;
        // World update
        public List<Entity> Entities;
    }

    static readonly ushort[] Table = MakeTable();

    static ushort[] MakeTable()
    {
        var t = new ushort[256];
        for (int i = 0; i < 256; i++)
        {
            int c = i << 8;
            for (int b = 0; b < 8; b++) c = (c & 0x8000) != 0 ? (c << 1) ^ 0x1021 : c << 1;
            t[i] = (ushort)c;
        }
        return t;
    }

    static ushort Crc(byte[] d, int count)
    {
        int crc = 0xFFFF;
        for (int i = 0; i < count; i++)
        {
            byte b = i == 18 || i == 19 ? (byte)0 : d[i];
            crc = ((crc << 8) ^ Table[((crc >> 8) ^ b) & 0xFF]) & 0xFFFF;
        }
        return (ushort)crc;
    }

    static ushort U16(byte[] b, int i) { return (ushort)(b[i] | b[i + 1] << 8); }
    static uint U32(byte[] b, int i) { return (uint)(b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24); }

    public static Packet Decode(byte[] buf)
    {
        if (buf.Length < 20) throw new FormatException("short");
        if (U16(buf, 0) != 0xD1CE) throw new FormatException("magic");
        int n = buf.Length - 20;
        if (U16(buf, 16) != n) throw new FormatException("size");
        if (U16(buf, 18) != Crc(buf, buf.Length)) throw new FormatException("checksum");
        var p = new Packet
        {
            Command = buf[2],
            Flags = buf[3],
            Sequence = U32(buf, 4),
            Ack = U32(buf, 8),
            FragmentId = U16(buf, 12),
            FragmentIndex = buf[14],
            FragmentCount = buf[15],
        };
        if (p.Command == 0x01)
        {
            int len = buf[20];
            if (len > 32 || n != 1 + len + 6) throw new FormatException("payload");
            p.Username = Encoding.UTF8.GetString(buf, 21, len);
            p.Version = U32(buf, 21 + len);
            p.PreferredFragmentSize = U16(buf, 25 + len);
        }
        else if (p.Command == 0x11)
        {
            if (n % 9 != 0) throw new FormatException("payload");
            p.Entities = new List<Entity>(n / 9);
            for (int i = 20; i < buf.Length; i += 9)
                p.Entities.Add(new Entity { EntityId = U32(buf, i), X = U16(buf, i + 4), Y = U16(buf, i + 6), Kind = buf[i + 8] });
        }
        return p;
    }

    static void Put16(byte[] b, int i, int v) { b[i] = (byte)v; b[i + 1] = (byte)(v >> 8); }
    static void Put32(byte[] b, int i, uint v) { b[i] = (byte)v; b[i + 1] = (byte)(v >> 8); b[i + 2] = (byte)(v >> 16); b[i + 3] = (byte)(v >> 24); }

    public static byte[] Encode(Packet p)
    {
        int ulen = p.Username == null ? 0 : Encoding.UTF8.GetByteCount(p.Username);
        int n = p.Command == 0x01 ? 1 + ulen + 6 : 9 * p.Entities.Count;
        var b = new byte[20 + n];
        Put16(b, 0, 0xD1CE);
        b[2] = p.Command;
        b[3] = p.Flags;
        Put32(b, 4, p.Sequence);
        Put32(b, 8, p.Ack);
        Put16(b, 12, p.FragmentId);
        b[14] = p.FragmentIndex;
        b[15] = p.FragmentCount;
        Put16(b, 16, n);
        if (p.Command == 0x01)
        {
            b[20] = (byte)ulen;
            Encoding.UTF8.GetBytes(p.Username, 0, p.Username.Length, b, 21);
            Put32(b, 21 + ulen, p.Version);
            Put16(b, 25 + ulen, p.PreferredFragmentSize);
        }
        else
        {
            int i = 20;
            foreach (var e in p.Entities)
            {
                Put32(b, i, e.EntityId);
                Put16(b, i + 4, e.X);
                Put16(b, i + 6, e.Y);
                b[i + 8] = e.Kind;
                i += 9;
            }
        }
        Put16(b, 18, Crc(b, b.Length));
        return b;
    }
}
