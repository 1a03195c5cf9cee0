// The runtime every C# file wiregen generates uses: the codec's exceptions, conversation state,
// checksums, text encodings, half floats and JSON; its reader and writer of bytes and bit streams
// are WiregenReader.cs and WiregenWriter.cs. The three are copied beside the generated files by
// `wiregen generate` (csharp_out); one copy serves every schema.
//
// C# 7.3 and netstandard2.0 (Unity 2019.4 and later), no reflection, no `unsafe`. Decoding
// allocates only strings, lists and the byte arrays of bit strings that start inside a byte;
// bytes are `ArraySegment<byte>` over the caller's buffer.

using System;
using System.Collections.Generic;
using System.Text;

namespace Wiregen
{
    /// <summary>Bytes that do not decode: the field (a path from the message), the byte and bit
    /// where it starts, and why.</summary>
    public sealed class DecodeException : Exception
    {
        /// <summary>The field, as a path of the schema's names (<c>payload.username</c>).</summary>
        public string Field { get; }
        /// <summary>Where the field starts, in bits from the start of the message.</summary>
        public long BitOffset { get; }
        /// <summary>Why it does not decode.</summary>
        public string Reason { get; }
        /// <summary>The value is typed by a list an earlier message announces, and it is not
        /// known: decoded in its conversation (with its <c>ConversationState</c>), it may decode.</summary>
        public bool NeedsState { get; }

        public DecodeException(string field, long bitOffset, string reason, bool needsState = false)
            : base(Describe(field, bitOffset, reason))
        {
            Field = field;
            BitOffset = bitOffset;
            Reason = reason;
            NeedsState = needsState;
        }

        /// <summary>The same error, its field inside <paramref name="outer"/>.</summary>
        public DecodeException Within(string outer)
        {
            return new DecodeException(Field.Length == 0 ? outer : outer + "." + Field, BitOffset, Reason, NeedsState);
        }

        static string Describe(string field, long bit, string reason)
        {
            var at = bit % 8 == 0 ? "byte " + (bit / 8) : "bit " + bit;
            return (field.Length == 0 ? "message" : "'" + field + "'") + " at " + at + ": " + reason;
        }
    }

    /// <summary>A value that cannot be encoded: the field (a path) and why.</summary>
    public sealed class EncodeException : Exception
    {
        public string Field { get; }
        public string Reason { get; }

        public EncodeException(string field, string reason)
            : base("'" + field + "': " + reason)
        {
            Field = field;
            Reason = reason;
        }

        public EncodeException Within(string outer)
        {
            return new EncodeException(outer + "." + Field, Reason);
        }
    }

    /// <summary>The bits left of a bit stream: <c>Bits</c> bits from the first bit of
    /// <c>Bytes</c>, in the stream's bit order (the last byte padded with zeros).</summary>
    public sealed class BitString
    {
        public ArraySegment<byte> Bytes;
        public int Bits;

        public BitString(ArraySegment<byte> bytes, int bits)
        {
            Bytes = bytes;
            Bits = bits;
        }
    }

    /// <summary>Lists announced by earlier messages of a conversation, by key, one map per
    /// state table of the schema. A table holds at most <c>MaxKeys</c> keys: past it the key
    /// announced first is forgotten and counted in <c>Evicted</c>, so a peer announcing ever new
    /// keys cannot make it grow without bound.</summary>
    public sealed class WireState
    {
        readonly List<Dictionary<ulong, ulong[]>> tables = new List<Dictionary<ulong, ulong[]>>();
        readonly List<Queue<ulong>> order = new List<Queue<ulong>>();

        /// <summary>Keys a table holds at most.</summary>
        public int MaxKeys = 65536;
        /// <summary>Keys forgotten to stay within <c>MaxKeys</c>, in all tables.</summary>
        public long Evicted;

        /// <summary>The list table <paramref name="t"/> holds under <paramref name="key"/>, or null.</summary>
        public ulong[] Get(int t, ulong key)
        {
            ulong[] list;
            return t < tables.Count && tables[t].TryGetValue(key, out list) ? list : null;
        }

        /// <summary>Remembers <paramref name="list"/> for <paramref name="key"/>.</summary>
        public void Set(int t, ulong key, ulong[] list)
        {
            while (tables.Count <= t)
            {
                tables.Add(new Dictionary<ulong, ulong[]>());
                order.Add(new Queue<ulong>());
            }
            bool known = tables[t].ContainsKey(key);
            tables[t][key] = list;
            if (known) return;
            order[t].Enqueue(key);
            if (tables[t].Count <= Math.Max(MaxKeys, 1)) return;
            tables[t].Remove(order[t].Dequeue());
            Evicted++;
        }
    }

    /// <summary>A checksum over bytes [from, to) of a buffer, the <paramref name="zeroLen"/>
    /// bytes at <paramref name="zeroAt"/> (the checksum's own) read as zeros.</summary>
    public interface IWireChecksum
    {
        ulong Compute(byte[] buf, int from, int to, int zeroAt, int zeroLen);
    }

    /// <summary>A CRC in the Rocksoft model (width up to 64 bits), table-driven.</summary>
    public sealed class WireCrc : IWireChecksum
    {
        readonly int width;
        readonly ulong init, xorout, mask;
        readonly bool refin, refout;
        readonly ulong[] table = new ulong[256];

        public WireCrc(int width, ulong poly, ulong init, bool refin, bool refout, ulong xorout)
        {
            this.width = width;
            this.refin = refin;
            this.refout = refout;
            this.xorout = xorout;
            mask = width == 64 ? ulong.MaxValue : (1UL << width) - 1;
            if (refin)
            {
                ulong rpoly = Reflect(poly, width);
                for (uint i = 0; i < 256; i++)
                {
                    ulong c = i;
                    for (int k = 0; k < 8; k++) c = (c & 1) != 0 ? (c >> 1) ^ rpoly : c >> 1;
                    table[i] = c;
                }
                this.init = Reflect(init, width);
            }
            else
            {
                // Left-aligned in 64 bits: any width, the top bit implied.
                ulong lpoly = poly << (64 - width);
                for (uint i = 0; i < 256; i++)
                {
                    ulong c = (ulong)i << 56;
                    for (int k = 0; k < 8; k++) c = (c & (1UL << 63)) != 0 ? (c << 1) ^ lpoly : c << 1;
                    table[i] = c;
                }
                this.init = init << (64 - width);
            }
        }

        ulong Run(ulong reg, byte[] buf, int from, int to)
        {
            var t = table;
            if (refin)
            {
                for (int i = from; i < to; i++) reg = (reg >> 8) ^ t[(reg ^ buf[i]) & 0xFF];
            }
            else
            {
                for (int i = from; i < to; i++) reg = (reg << 8) ^ t[(reg >> 56) ^ buf[i]];
            }
            return reg;
        }

        static ulong Reflect(ulong v, int bits)
        {
            ulong r = 0;
            for (int i = 0; i < bits; i++)
            {
                r = (r << 1) | (v & 1);
                v >>= 1;
            }
            return r;
        }

        public ulong Compute(byte[] buf, int from, int to, int zeroAt, int zeroLen)
        {
            // The bytes before the zeroed ones, the zeros, the bytes after: no test per byte.
            int zeroEnd = Math.Min(Math.Max(zeroAt + zeroLen, from), to);
            zeroAt = Math.Min(Math.Max(zeroAt, from), to);
            ulong reg = Run(init, buf, from, zeroAt);
            for (int i = zeroAt; i < zeroEnd; i++)
                reg = refin ? (reg >> 8) ^ table[reg & 0xFF] : (reg << 8) ^ table[reg >> 56];
            reg = Run(reg, buf, zeroEnd, to);
            if (!refin) reg >>= 64 - width;
            if (refin != refout) reg = Reflect(reg, width);
            return (reg ^ xorout) & mask;
        }
    }

    /// <summary>The checksums that are not CRCs: sums, XOR, the Internet checksum, Adler-32, Fletcher.</summary>
    public sealed class WireSum : IWireChecksum
    {
        public enum Kind { Sum, Xor8, Internet, Adler32, Fletcher16, Fletcher32 }

        readonly Kind kind;
        readonly int width;

        public WireSum(Kind kind, int width)
        {
            this.kind = kind;
            this.width = width;
        }

        // Byte i of the range: 0 past its end (a last odd byte's pair) and in the zeroed bytes.
        static ulong At(byte[] buf, int from, int n, int zeroAt, int zeroLen, int i)
        {
            int k = from + i;
            return i >= n || (k >= zeroAt && k < zeroAt + zeroLen) ? 0UL : buf[k];
        }

        public ulong Compute(byte[] buf, int from, int to, int zeroAt, int zeroLen)
        {
            ulong a = 0, b = 0;
            int n = to - from;
            switch (kind)
            {
                case Kind.Sum:
                    for (int i = 0; i < n; i++) a += At(buf, from, n, zeroAt, zeroLen, i);
                    return width >= 64 ? a : a & ((1UL << width) - 1);
                case Kind.Xor8:
                    for (int i = 0; i < n; i++) a ^= At(buf, from, n, zeroAt, zeroLen, i);
                    return a;
                case Kind.Internet:
                    for (int i = 0; i < n; i += 2) a += (At(buf, from, n, zeroAt, zeroLen, i) << 8) | At(buf, from, n, zeroAt, zeroLen, i + 1);
                    while ((a >> 16) != 0) a = (a & 0xFFFF) + (a >> 16);
                    return ~a & 0xFFFF;
                case Kind.Adler32:
                    a = 1;
                    for (int i = 0; i < n; i++) { a = (a + At(buf, from, n, zeroAt, zeroLen, i)) % 65521; b = (b + a) % 65521; }
                    return (b << 16) | a;
                case Kind.Fletcher16:
                    for (int i = 0; i < n; i++) { a = (a + At(buf, from, n, zeroAt, zeroLen, i)) % 255; b = (b + a) % 255; }
                    return (b << 8) | a;
                default:
                    for (int i = 0; i < n; i += 2) { a = (a + (At(buf, from, n, zeroAt, zeroLen, i) | (At(buf, from, n, zeroAt, zeroLen, i + 1) << 8))) % 65535; b = (b + a) % 65535; }
                    return (b << 16) | a;
            }
        }
    }

    /// <summary>The schema's integer operators where C#'s differ: division by zero gives 0,
    /// shifts past 63 bits give 0.</summary>
    public static class WireOps
    {
        public static long Div(long a, long b) { return b == 0 ? 0 : (b == -1 ? -a : a / b); }
        public static long Rem(long a, long b) { return b == 0 || b == -1 ? 0 : a % b; }
        public static long Shl(long a, long b) { return b < 0 || b > 63 ? 0 : a << (int)b; }
        public static long Shr(long a, long b) { return b < 0 ? 0 : b > 63 ? (a < 0 ? -1 : 0) : a >> (int)b; }
    }

    /// <summary>A float's bits and back, without allocating.</summary>
    public static class WireFloats
    {
        public static float FromBits(uint bits)
        {
            return BitConverter.ToSingle(BitConverter.GetBytes(bits), 0);
        }

        public static ulong ToBits(float x)
        {
            return BitConverter.ToUInt32(BitConverter.GetBytes(x), 0);
        }
    }

    /// <summary>Checks of values against the widths and encodings of their fields.</summary>
    public static class WireFit
    {
        public static ulong Unsigned(ulong v, ulong max, string field)
        {
            if (v > max) throw new EncodeException(field, v + " does not fit (max " + max + ")");
            return v;
        }

        public static long Signed(long v, int bits, string field)
        {
            long lo = -(1L << (bits - 1)), hi = (1L << (bits - 1)) - 1;
            if (v < lo || v > hi) throw new EncodeException(field, v + " does not fit in " + bits + " bits");
            return v;
        }

        /// <summary>The x whose <c>mul * x + add</c> is <paramref name="size"/>, refused when none is.</summary>
        public static long Solve(long size, long mul, long add, string field)
        {
            if (mul == 0 || (size - add) % mul != 0)
                throw new EncodeException(field, "no value gives a size of " + size);
            return (size - add) / mul;
        }

        public static int Count(long v, ulong max, string field)
        {
            if (v < 0 || (ulong)v > max) throw new EncodeException(field, v + " does not fit (max " + max + ")");
            return (int)v;
        }
    }

    /// <summary>Text in the encodings schemas name, strict both ways.</summary>
    public static class WireText
    {
        static readonly UTF8Encoding Utf8Strict = new UTF8Encoding(false, true);
        static readonly UnicodeEncoding Utf16LeStrict = new UnicodeEncoding(false, false, true);
        static readonly UnicodeEncoding Utf16BeStrict = new UnicodeEncoding(true, false, true);

        public static string Utf8(ArraySegment<byte> b, long bitAt, string field)
        {
            try
            {
                return Utf8Strict.GetString(b.Array, b.Offset, b.Count);
            }
            catch (DecoderFallbackException e)
            {
                throw new DecodeException(field, bitAt + 8L * Math.Max(0, e.Index), "invalid UTF-8");
            }
        }

        public static string Ascii(ArraySegment<byte> b, long bitAt, string field)
        {
            for (int i = 0; i < b.Count; i++)
            {
                if (b.Array[b.Offset + i] >= 0x80) throw new DecodeException(field, bitAt + 8L * i, "invalid ASCII");
            }
            return Encoding.ASCII.GetString(b.Array, b.Offset, b.Count);
        }

        public static string Latin1(ArraySegment<byte> b)
        {
            var chars = new char[b.Count];
            for (int i = 0; i < b.Count; i++) chars[i] = (char)b.Array[b.Offset + i];
            return new string(chars);
        }

        public static string Utf16(ArraySegment<byte> b, bool big, long bitAt, string field)
        {
            if (b.Count % 2 != 0) throw new DecodeException(field, bitAt + 8L * (b.Count - 1), "invalid UTF-16 (an odd byte count)");
            try
            {
                return (big ? Utf16BeStrict : Utf16LeStrict).GetString(b.Array, b.Offset, b.Count);
            }
            catch (DecoderFallbackException e)
            {
                throw new DecodeException(field, bitAt + 8L * Math.Max(0, e.Index), "invalid UTF-16");
            }
        }

        public static byte[] Utf8Bytes(string s, string field)
        {
            if (s == null) throw new EncodeException(field, "null");
            try
            {
                return Utf8Strict.GetBytes(s);
            }
            catch (EncoderFallbackException)
            {
                throw new EncodeException(field, "not encodable as UTF-8 (a lone surrogate)");
            }
        }

        public static byte[] AsciiBytes(string s, string field)
        {
            if (s == null) throw new EncodeException(field, "null");
            var b = new byte[s.Length];
            for (int i = 0; i < s.Length; i++)
            {
                if (s[i] >= 0x80) throw new EncodeException(field, "character " + i + " is not ASCII");
                b[i] = (byte)s[i];
            }
            return b;
        }

        public static byte[] Latin1Bytes(string s, string field)
        {
            if (s == null) throw new EncodeException(field, "null");
            var b = new byte[s.Length];
            for (int i = 0; i < s.Length; i++)
            {
                if (s[i] > 0xFF) throw new EncodeException(field, "character " + i + " is not Latin-1");
                b[i] = (byte)s[i];
            }
            return b;
        }

        public static byte[] Utf16Bytes(string s, bool big, string field)
        {
            if (s == null) throw new EncodeException(field, "null");
            try
            {
                return (big ? Utf16BeStrict : Utf16LeStrict).GetBytes(s);
            }
            catch (EncoderFallbackException)
            {
                throw new EncodeException(field, "not encodable as UTF-16 (a lone surrogate)");
            }
        }
    }

    /// <summary>IEEE 754 binary16 to and from float (netstandard2.0 has no System.Half).</summary>
    public static class WireHalf
    {
        public static float ToSingle(ushort h)
        {
            float sign = (h & 0x8000) != 0 ? -1f : 1f;
            int e = (h >> 10) & 0x1F;
            float m = h & 0x3FF;
            if (e == 0) return sign * m * (float)Math.Pow(2, -24);
            // A quiet NaN with the sign kept, as the crate's f16_to_f32 (.NET's float.NaN has
            // the sign bit set: negating it made a negative NaN positive).
            if (e == 31) return m == 0 ? sign * float.PositiveInfinity : QuietNaN(sign < 0);
            return sign * (1f + m / 1024f) * (float)Math.Pow(2, e - 15);
        }

        static float QuietNaN(bool negative)
        {
            return BitConverter.ToSingle(BitConverter.GetBytes(negative ? 0xFFC00000u : 0x7FC00000u), 0);
        }

        public static ushort FromSingle(float x, string field)
        {
            uint b = BitConverter.ToUInt32(BitConverter.GetBytes(x), 0);
            ushort sign = (ushort)((b >> 16) & 0x8000);
            int exp = (int)((b >> 23) & 0xFF);
            uint man = b & 0x7FFFFF;
            if (exp == 0xFF) return (ushort)(sign | 0x7C00 | (man != 0 ? 0x200 : 0));
            int e = exp - 127 + 15;
            if (e <= 0)
            {
                if (e < -10) return sign;
                uint m = man | 0x800000;
                int shift = 14 - e;
                uint rounded = (m + (1u << (shift - 1)) - 1 + ((m >> shift) & 1)) >> shift;
                return (ushort)(sign | rounded);
            }
            uint r = man + 0xFFF + ((man >> 13) & 1);
            if ((r & 0x800000) != 0) { e += 1; r = 0; }
            if (e >= 0x1F) throw new EncodeException(field, x + " is over 65504, the largest half float");
            return (ushort)(sign | (e << 10) | (int)(r >> 13));
        }
    }

    /// <summary>JSON text of decoded values, in the shape wirecat and the crate's serde give
    /// them: what <c>ToString()</c> of every generated type returns.</summary>
    public sealed class WireJson
    {
        readonly StringBuilder sb = new StringBuilder();
        bool first = true;

        public override string ToString() { return sb.ToString(); }

        void Sep()
        {
            if (!first) sb.Append(',');
            first = false;
        }

        public WireJson Open() { Sep(); sb.Append('{'); first = true; return this; }
        public WireJson Close() { sb.Append('}'); first = false; return this; }
        public WireJson OpenList() { Sep(); sb.Append('['); first = true; return this; }
        public WireJson CloseList() { sb.Append(']'); first = false; return this; }

        public WireJson Key(string k)
        {
            Sep();
            Quote(k);
            sb.Append(':');
            first = true;
            return this;
        }

        public WireJson Str(string s) { Sep(); Quote(s); return this; }
        public WireJson Num(ulong v) { Sep(); sb.Append(v.ToString(System.Globalization.CultureInfo.InvariantCulture)); return this; }
        public WireJson Num(long v) { Sep(); sb.Append(v.ToString(System.Globalization.CultureInfo.InvariantCulture)); return this; }
        public WireJson Bool(bool v) { Sep(); sb.Append(v ? "true" : "false"); return this; }
        public WireJson Null() { Sep(); sb.Append("null"); return this; }

        public WireJson Float(double v)
        {
            Sep();
            if (double.IsNaN(v) || double.IsInfinity(v)) sb.Append("null");
            else sb.Append(v.ToString("R", System.Globalization.CultureInfo.InvariantCulture));
            return this;
        }

        public WireJson Hex(ArraySegment<byte> b)
        {
            Sep();
            sb.Append('"');
            for (int i = 0; i < b.Count; i++) sb.Append(b.Array[b.Offset + i].ToString("x2"));
            sb.Append('"');
            return this;
        }

        /// <summary>Bytes as a list of numbers (the crate's serde writes optional bytes and
        /// bytes in lists so).</summary>
        public WireJson Numbers(ArraySegment<byte> b)
        {
            OpenList();
            for (int i = 0; i < b.Count; i++) Num((ulong)b.Array[b.Offset + i]);
            return CloseList();
        }

        public WireJson Bits(BitString s)
        {
            Open().Key("bytes").Hex(s.Bytes).Key("bits").Num((long)s.Bits);
            return Close();
        }

        /// <summary>An enum's value: its schema name, or its number when the schema names none.</summary>
        public WireJson Named(string name, ulong raw)
        {
            return name != null ? Str(name) : Num(raw);
        }

        /// <summary>A flag set: the names of its bits, then any other bits as a number.</summary>
        public WireJson Flags(ulong bits, string[] names, ulong[] masks)
        {
            OpenList();
            ulong known = 0;
            for (int i = 0; i < names.Length; i++)
            {
                known |= masks[i];
                if ((bits & masks[i]) != 0) Str(names[i]);
            }
            if ((bits & ~known) != 0) Num(bits & ~known);
            return CloseList();
        }

        void Quote(string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                if (c == '"' || c == '\\') sb.Append('\\').Append(c);
                else if (c < 0x20 || c > 0x7E) sb.Append("\\u").Append(((int)c).ToString("x4"));
                else sb.Append(c);
            }
            sb.Append('"');
        }
    }
}
