// The runtime every C# file wiregen generates uses: readers and writers of bytes and bit
// streams, varints, text encodings, half floats and the codec's exceptions. Copied beside the
// generated files by `wiregen generate` (csharp_out); one copy serves every schema.
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

    /// <summary>Reads a message: whole bytes, and bit streams of either bit order, with a
    /// scope whose end <c>Limit</c> narrows. Every read checks its bytes are there.</summary>
    public sealed class WireReader
    {
        readonly byte[] buf;
        readonly int start;
        readonly int length;
        // Positions are bits from `start`.
        long pos;
        long end;

        public WireReader(byte[] buffer, int offset, int count)
        {
            if (buffer == null) throw new ArgumentNullException("buffer");
            if (offset < 0 || count < 0 || offset > buffer.Length - count)
                throw new ArgumentOutOfRangeException("count");
            buf = buffer;
            start = offset;
            length = count;
            end = 8L * count;
        }

        /// <summary>A reader of the first <paramref name="bits"/> bits of the bytes (a bit string
        /// that ends inside its last byte).</summary>
        public WireReader(byte[] buffer, int offset, int count, long bits)
            : this(buffer, offset, count)
        {
            if (bits < 0 || bits > 8L * count) throw new ArgumentOutOfRangeException("bits");
            end = bits;
        }

        /// <summary>The byte offset from the start of the message (of the byte holding the next bit).</summary>
        public int Position { get { return (int)(pos >> 3); } }
        /// <summary>The bit offset from the start of the message.</summary>
        public long BitPosition { get { return pos; } }
        /// <summary>Whole bytes left in the scope.</summary>
        public int Remaining { get { return (int)((end - pos) >> 3); } }
        /// <summary>Bits left in the scope.</summary>
        public long BitsLeft { get { return end - pos; } }
        /// <summary>The message's size in bytes.</summary>
        public int MessageLength { get { return length; } }

        /// <summary>The lists earlier messages announced (null: none known).</summary>
        public WireState State;

        /// <summary>Whether the message was sent by the client (null: not said), for layouts
        /// that depend on the direction.</summary>
        public bool? Direction;
        readonly ulong[] enclosing = new ulong[16];
        int enclosingSet;

        /// <summary>Keeps a field's value for the types inside its holder that read it.</summary>
        public void SetEnclosing(int slot, ulong value)
        {
            enclosing[slot] = value;
            enclosingSet |= 1 << slot;
        }

        /// <summary>The value an enclosing holder's field kept (an error outside that holder).</summary>
        public ulong Enclosing(int slot, string holder, string field)
        {
            if ((enclosingSet & (1 << slot)) == 0)
                throw new DecodeException(field, pos, "read outside a " + holder + ", whose field it needs");
            return enclosing[slot];
        }

        /// <summary>The direction (an error when the caller did not say it).</summary>
        public bool FromClient(string field)
        {
            if (Direction == null)
                throw new DecodeException(field, pos, "its layout depends on the direction: decode it with fromClient");
            return Direction.Value;
        }
        ulong[][] selected = new ulong[0][];

        /// <summary>Selects table <paramref name="t"/>'s list of <paramref name="key"/> for the
        /// values read next; returns the list it replaces (for <c>Restore</c>).</summary>
        public ulong[] Select(int t, ulong key, string field)
        {
            ulong[] list = State == null ? null : State.Get(t, key);
            if (list == null)
                throw new DecodeException(field, pos, "no list announced for key " + key + " (its announcement was not seen)", true);
            if (selected.Length <= t) Array.Resize(ref selected, t + 1);
            ulong[] previous = selected[t];
            selected[t] = list;
            return previous;
        }

        public void Restore(int t, ulong[] previous)
        {
            if (t < selected.Length) selected[t] = previous;
        }

        /// <summary>Item <paramref name="i"/> of table <paramref name="t"/>'s selected list.</summary>
        public ulong Item(int t, long i, string field)
        {
            ulong[] list = t < selected.Length ? selected[t] : null;
            if (list == null) throw new DecodeException(field, pos, "no list announced for key 0 (its announcement was not seen)", true);
            if (i < 0 || i >= list.Length) throw new DecodeException(field, pos, "index " + i + " is not in the list");
            return list[i];
        }

        public DecodeException Error(string field, long bitAt, string reason)
        {
            return new DecodeException(field, bitAt, reason);
        }

        void Need(long bits, string field)
        {
            if (bits > end - pos)
            {
                throw new DecodeException(field, pos,
                    "truncated: needs " + ((bits + 7) / 8) + " bytes, " + ((end - pos) / 8) + " left");
            }
        }

        // Whole bytes.

        public byte U8(string field)
        {
            Need(8, field);
            if ((pos & 7) != 0) return (byte)Bits(8, false, field);
            var b = buf[start + (int)(pos >> 3)];
            pos += 8;
            return b;
        }

        /// <summary>An unsigned integer of <paramref name="n"/> bytes (1..8).</summary>
        public ulong UInt(int n, bool big, string field)
        {
            Need(8L * n, field);
            int i = start + (int)(pos >> 3);
            if ((pos & 7) == 0 && !big)
            {
                // The common case, unrolled: little-endian 2 and 4 bytes on a byte boundary.
                if (n == 2)
                {
                    pos += 16;
                    return (ulong)(buf[i] | buf[i + 1] << 8);
                }
                if (n == 4)
                {
                    pos += 32;
                    return (uint)(buf[i] | buf[i + 1] << 8 | buf[i + 2] << 16 | buf[i + 3] << 24);
                }
            }
            ulong v = 0;
            if (big)
            {
                for (int k = 0; k < n; k++) v = (v << 8) | buf[i + k];
            }
            else
            {
                for (int k = n - 1; k >= 0; k--) v = (v << 8) | buf[i + k];
            }
            pos += 8L * n;
            return v;
        }

        /// <summary>A signed integer of <paramref name="n"/> bytes, sign-extended.</summary>
        public long SInt(int n, bool big, string field)
        {
            int shift = 64 - 8 * n;
            return (long)(UInt(n, big, field) << shift) >> shift;
        }

        public float F32(bool big, string field)
        {
            return BitConverter.ToSingle(BitConverter.GetBytes((uint)UInt(4, big, field)), 0);
        }

        public double F64(bool big, string field)
        {
            return BitConverter.Int64BitsToDouble((long)UInt(8, big, field));
        }

        public float F16(bool big, string field)
        {
            return WireHalf.ToSingle((ushort)UInt(2, big, field));
        }

        public ArraySegment<byte> Bytes(int n, string field)
        {
            Need(8L * n, field);
            if ((pos & 7) != 0) return new ArraySegment<byte>(Realigned(8L * n, false, field));
            var s = new ArraySegment<byte>(buf, start + (int)(pos >> 3), n);
            pos += 8L * n;
            return s;
        }

        /// <summary>The bytes before the next NUL, which is read too.</summary>
        public ArraySegment<byte> BytesToNul(string field, bool wide)
        {
            int from = start + (int)(pos >> 3), to = start + (int)(end >> 3);
            int step = wide ? 2 : 1;
            for (int i = from; i + step <= to; i += step)
            {
                if (buf[i] == 0 && (!wide || buf[i + 1] == 0))
                {
                    var s = Bytes(i - from, field);
                    pos += 8 * step;
                    return s;
                }
            }
            throw new DecodeException(field, end, "no NUL ends it");
        }

        /// <summary><paramref name="n"/> bytes up to their first NUL (a NUL-padded string's).</summary>
        public ArraySegment<byte> BytesPadded(int n, string field, bool wide)
        {
            var s = Bytes(n, field);
            int step = wide ? 2 : 1;
            for (int i = 0; i + step <= s.Count; i += step)
            {
                if (s.Array[s.Offset + i] == 0 && (!wide || s.Array[s.Offset + i + 1] == 0))
                    return new ArraySegment<byte>(s.Array, s.Offset, i);
            }
            return s;
        }

        public ulong Leb128(string field)
        {
            long at = pos;
            ulong v = 0;
            for (int shift = 0; ; shift += 7)
            {
                byte b = (pos & 7) == 0 ? U8(field) : (byte)Bits(8, false, field);
                if (shift == 63 && b > 1) throw new DecodeException(field, at, "overlong LEB128");
                v |= (ulong)(b & 0x7F) << shift;
                if ((b & 0x80) == 0) return v;
                if (shift == 63) throw new DecodeException(field, at, "overlong LEB128");
            }
        }

        /// <summary>A LEB128 read from a bit stream of this order.</summary>
        public ulong Leb128(bool msb, string field)
        {
            long at = pos;
            ulong v = 0;
            for (int shift = 0; ; shift += 7)
            {
                byte b = (byte)Bits(8, msb, field);
                if (shift == 63 && b > 1) throw new DecodeException(field, at, "overlong LEB128");
                v |= (ulong)(b & 0x7F) << shift;
                if ((b & 0x80) == 0) return v;
                if (shift == 63) throw new DecodeException(field, at, "overlong LEB128");
            }
        }

        public static long UnZigZag(ulong v)
        {
            return (long)(v >> 1) ^ -(long)(v & 1);
        }

        /// <summary>Riptide 2.0's length: one byte below 0x80, else two big-endian with 0x8000 set.</summary>
        public ushort RiptideLen(string field)
        {
            byte first = U8(field);
            if ((first & 0x80) == 0) return first;
            return (ushort)(((first & 0x7F) << 8) | U8(field));
        }

        /// <summary>A length in bytes or elements from an expression's value.</summary>
        public int Length(long value, string field)
        {
            if (value < 0 || value > int.MaxValue)
                throw new DecodeException(field, pos, "bad length " + value);
            return (int)value;
        }

        /// <summary>Narrows the scope to the next <paramref name="n"/> bytes; returns the end to restore.</summary>
        public long Limit(int n, string field)
        {
            Need(8L * n, field);
            long saved = end;
            end = pos + 8L * n;
            return saved;
        }

        /// <summary>Ends a byte layout's <c>Limit</c>: everything inside must have been read.</summary>
        public void Unlimit(long saved, string field)
        {
            if (pos != end)
                throw new DecodeException(field, pos, "trailing data: " + ((end - pos + 7) / 8) + " bytes");
            end = saved;
        }

        /// <summary>Ends a bit stream's <c>Limit</c>: fewer than 8 zero bits may be left.</summary>
        public void UnlimitBits(long saved, bool msb, string field)
        {
            long left = end - pos;
            if (left >= 8 || (left > 0 && Bits((int)left, msb, field) != 0))
                throw new DecodeException(field, end - left, "trailing data: " + ((left + 7) / 8) + " bytes");
            pos = end;
            end = saved;
        }

        /// <summary>The end of a byte-layout message: nothing may be left.</summary>
        public void Finish()
        {
            Unlimit(8L * length, "");
        }

        /// <summary>The end of a bit-stream message: only the padding of its last byte may be left.</summary>
        public void FinishBits(bool msb)
        {
            UnlimitBits(8L * length, msb, "");
        }

        /// <summary>Ends a <c>Limit</c> that pads a value to a fixed size: the bytes left up to
        /// it are padding (their value ignored).</summary>
        public void Pad(long saved)
        {
            pos = end;
            end = saved;
        }

        /// <summary>Skips the padding that aligns the position to a multiple of
        /// <paramref name="n"/> bytes from <paramref name="from"/> (its value ignored).</summary>
        public void Align(int from, int n, string field)
        {
            int k = (n - (Position - from) % n) % n;
            if (k > 0) Bytes(k, field);
        }

        /// <summary>Continues at the next whole byte (after a bit-stream value inside bytes).</summary>
        public void AlignToByte()
        {
            pos = (pos + 7) & ~7L;
        }

        /// <summary><paramref name="n"/> bools packed 8 a byte, the lowest bit first.</summary>
        public List<bool> PackedBools(int n, string field)
        {
            var bytes = Bytes((n + 7) / 8, field);
            var list = new List<bool>(n);
            for (int i = 0; i < n; i++)
                list.Add(((bytes.Array[bytes.Offset + i / 8] >> (i % 8)) & 1) != 0);
            return list;
        }

        /// <summary>The checksum of the message's bytes [from, to) with the checksum's own
        /// <paramref name="zeroLen"/> bytes at <paramref name="zeroAt"/> read as zeros (byte offsets).</summary>
        public ulong Checksum(IWireChecksum algo, int from, int to, int zeroAt, int zeroLen)
        {
            return algo.Compute(buf, start + from, start + to, start + zeroAt, zeroLen);
        }

        // Bit streams.

        /// <summary>An unsigned value of <paramref name="n"/> bits (0..64) of a bit stream whose
        /// first bit is the lowest (<paramref name="msb"/> false) or the highest bit of a byte.</summary>
        public ulong Bits(int n, bool msb, string field)
        {
            Need(n, field);
            ulong v = 0;
            if (msb)
            {
                for (int k = 0; k < n; k++)
                {
                    long b = pos + k;
                    int bit = (buf[start + (int)(b >> 3)] >> (7 - (int)(b & 7))) & 1;
                    v = (v << 1) | (ulong)bit;
                }
            }
            else
            {
                int done = 0;
                while (done < n)
                {
                    long b = pos + done;
                    int shift = (int)(b & 7);
                    int take = Math.Min(8 - shift, n - done);
                    ulong chunk = (ulong)((buf[start + (int)(b >> 3)] >> shift) & ((1 << take) - 1));
                    v |= chunk << done;
                    done += take;
                }
            }
            pos += n;
            return v;
        }

        /// <summary>A signed value of <paramref name="n"/> bits, sign-extended.</summary>
        public long SBits(int n, bool msb, string field)
        {
            ulong v = Bits(n, msb, field);
            if (n == 0 || n == 64) return (long)v;
            int shift = 64 - n;
            return (long)(v << shift) >> shift;
        }

        /// <summary>Whole bytes from a bit stream: borrowed when aligned, realigned otherwise.</summary>
        public ArraySegment<byte> BitBytes(int n, bool msb, string field)
        {
            Need(8L * n, field);
            if ((pos & 7) == 0) return Bytes(n, field);
            return new ArraySegment<byte>(Realigned(8L * n, msb, field));
        }

        /// <summary>A Rabbit integer of a <paramref name="width"/>-bit type: the byte count
        /// minus one in k bits, then the bytes (over 4: the high group first).</summary>
        public ulong Rabbit(int width, bool msb, string field)
        {
            int k = width == 16 ? 1 : width == 32 ? 2 : 3;
            int m = (int)Bits(k, msb, field) + 1;
            if (m > 4)
            {
                ulong high = Bits(8 * (m - 4), msb, field);
                ulong low = Bits(32, msb, field);
                return (high << 32) | low;
            }
            return Bits(8 * m, msb, field);
        }

        /// <summary>Every bit left in the scope.</summary>
        public BitString RestBits(bool msb, string field)
        {
            long bits = end - pos;
            if ((pos & 7) == 0 && (end & 7) == 0)
                return new BitString(Bytes((int)(bits >> 3), field), (int)bits);
            return new BitString(new ArraySegment<byte>(Realigned(bits, msb, field)), (int)bits);
        }

        byte[] Realigned(long bits, bool msb, string field)
        {
            var outp = new byte[(bits + 7) / 8];
            int i = 0;
            while (bits > 0)
            {
                int k = (int)Math.Min(8, bits);
                byte b = (byte)Bits(k, msb, field);
                outp[i++] = msb ? (byte)(b << (8 - k)) : b;
                bits -= k;
            }
            return outp;
        }
    }

    /// <summary>Writes a message into a growing buffer (or the caller's): whole bytes and bit
    /// streams, with patches of lengths written before what they measure.</summary>
    public sealed class WireWriter
    {
        byte[] buf;
        long pos; // bits

        /// <summary>Whether the message is sent by the client (null: not said), for layouts
        /// that depend on the direction.</summary>
        public bool? Direction;
        readonly ulong[] enclosing = new ulong[16];
        int enclosingSet;

        /// <summary>Keeps a field's value for the types inside its holder that read it.</summary>
        public void SetEnclosing(int slot, ulong value)
        {
            enclosing[slot] = value;
            enclosingSet |= 1 << slot;
        }

        /// <summary>The value an enclosing holder's field kept (an error outside that holder).</summary>
        public ulong Enclosing(int slot, string holder, string field)
        {
            if ((enclosingSet & (1 << slot)) == 0)
                throw new EncodeException(field, "written outside a " + holder + ", whose field it needs");
            return enclosing[slot];
        }

        /// <summary>The direction (an error when the caller did not say it).</summary>
        public bool FromClient(string field)
        {
            if (Direction == null)
                throw new EncodeException(field, "its layout depends on the direction: encode it with fromClient");
            return Direction.Value;
        }

        public WireWriter(int capacity = 64)
        {
            buf = new byte[Math.Max(capacity, 8)];
        }

        /// <summary>A writer of a value written aside (measured before its length is written),
        /// with this one's direction and enclosing fields: the value may read them.</summary>
        public WireWriter Nested()
        {
            var w = new WireWriter { Direction = Direction, enclosingSet = enclosingSet };
            Array.Copy(enclosing, w.enclosing, enclosing.Length);
            return w;
        }

        /// <summary>Bytes written (a partial last byte counts).</summary>
        public int Length { get { return (int)((pos + 7) >> 3); } }
        public long BitLength { get { return pos; } }

        /// <summary>Starts again, keeping the buffer (a writer reused per message allocates nothing).</summary>
        public void Clear()
        {
            Array.Clear(buf, 0, Length);
            pos = 0;
            enclosingSet = 0;
        }

        public byte[] ToArray()
        {
            var a = new byte[Length];
            Buffer.BlockCopy(buf, 0, a, 0, a.Length);
            return a;
        }

        /// <summary>The bytes written, over the writer's own buffer (valid until the next write).</summary>
        public ArraySegment<byte> Written { get { return new ArraySegment<byte>(buf, 0, Length); } }

        void Grow(long bits)
        {
            long need = (pos + bits + 7) >> 3;
            if (need <= buf.Length) return;
            if (need > int.MaxValue) throw new EncodeException("", "the message is over 2 GiB");
            var n = new byte[Math.Max(need, 2L * buf.Length)];
            Buffer.BlockCopy(buf, 0, n, 0, Length);
            buf = n;
        }

        public void U8(byte v)
        {
            if ((pos & 7) != 0) { Bits(v, 8, false); return; }
            Grow(8);
            buf[pos >> 3] = v;
            pos += 8;
        }

        public void UInt(ulong v, int n, bool big)
        {
            Grow(8L * n);
            int i = (int)(pos >> 3);
            if (!big && (n == 2 || n == 4))
            {
                buf[i] = (byte)v;
                buf[i + 1] = (byte)(v >> 8);
                if (n == 4)
                {
                    buf[i + 2] = (byte)(v >> 16);
                    buf[i + 3] = (byte)(v >> 24);
                }
                pos += 8L * n;
                return;
            }
            for (int k = 0; k < n; k++)
            {
                int shift = big ? 8 * (n - 1 - k) : 8 * k;
                buf[i + k] = (byte)(v >> shift);
            }
            pos += 8L * n;
        }

        public void F32(float v, bool big)
        {
            UInt(BitConverter.ToUInt32(BitConverter.GetBytes(v), 0), 4, big);
        }

        public void F64(double v, bool big)
        {
            UInt((ulong)BitConverter.DoubleToInt64Bits(v), 8, big);
        }

        public void F16(float v, bool big, string field)
        {
            UInt(WireHalf.FromSingle(v, field), 2, big);
        }

        public void Put(ArraySegment<byte> bytes)
        {
            if ((pos & 7) != 0)
            {
                PutBits(bytes, false);
                return;
            }
            Grow(8L * bytes.Count);
            if (bytes.Count > 0) Buffer.BlockCopy(bytes.Array, bytes.Offset, buf, (int)(pos >> 3), bytes.Count);
            pos += 8L * bytes.Count;
        }

        public void Put(byte[] bytes)
        {
            Put(new ArraySegment<byte>(bytes));
        }

        /// <summary>Whole bytes into a bit stream of this order.</summary>
        public void PutBits(ArraySegment<byte> bytes, bool msb)
        {
            if ((pos & 7) == 0)
            {
                Put(bytes);
                return;
            }
            for (int k = 0; k < bytes.Count; k++) Bits(bytes.Array[bytes.Offset + k], 8, msb);
        }

        public void Zeros(int n)
        {
            Grow(8L * n);
            pos += 8L * n;
        }

        public void Leb128(ulong v)
        {
            do
            {
                byte b = (byte)(v & 0x7F);
                v >>= 7;
                U8(v != 0 ? (byte)(b | 0x80) : b);
            } while (v != 0);
        }

        public void Leb128(ulong v, bool msb)
        {
            do
            {
                byte b = (byte)(v & 0x7F);
                v >>= 7;
                Bits(v != 0 ? (ulong)(b | 0x80) : b, 8, msb);
            } while (v != 0);
        }

        public static ulong ZigZag(long v)
        {
            return (ulong)((v << 1) ^ (v >> 63));
        }

        public void RiptideLen(ulong v, string field)
        {
            if (v > 0x7FFF) throw new EncodeException(field, v + " is over 32767");
            if (v < 0x80) U8((byte)v);
            else UInt(v | 0x8000, 2, true);
        }

        /// <summary>The low <paramref name="n"/> bits of <paramref name="v"/> into a bit stream.</summary>
        public void Bits(ulong v, int n, bool msb)
        {
            Grow(n);
            for (int k = 0; k < n; k++)
            {
                int bit = msb ? (int)((v >> (n - 1 - k)) & 1) : (int)((v >> k) & 1);
                long b = pos + k;
                int shift = msb ? 7 - (int)(b & 7) : (int)(b & 7);
                if (bit != 0) buf[b >> 3] |= (byte)(1 << shift);
            }
            pos += n;
        }

        public void Rabbit(ulong v, int width, bool msb)
        {
            int k = width == 16 ? 1 : width == 32 ? 2 : 3;
            int m = 1;
            while (m < 8 && (v >> (8 * m)) != 0) m++;
            Bits((ulong)(m - 1), k, msb);
            if (m > 4)
            {
                Bits(v >> 32, 8 * (m - 4), msb);
                Bits(v & 0xFFFFFFFF, 32, msb);
                return;
            }
            Bits(v, 8 * m, msb);
        }

        public void PutBitString(BitString s, bool msb)
        {
            long left = s.Bits;
            int i = 0;
            while (left > 0)
            {
                int k = (int)Math.Min(8, left);
                byte b = s.Bytes.Array[s.Bytes.Offset + i++];
                Bits(msb ? (ulong)(b >> (8 - k)) : (ulong)(b & ((1 << k) - 1)), k, msb);
                left -= k;
            }
        }

        /// <summary>Pads what was written since <paramref name="from"/> with zeros to
        /// <paramref name="size"/> bytes; refuses more.</summary>
        public void Pad(int from, int size, string field)
        {
            int used = Position - from;
            if (used > size) throw new EncodeException(field, used + " bytes where " + size + " fit");
            Zeros(size - used);
        }

        /// <summary>Zeros up to the next multiple of <paramref name="n"/> bytes from <paramref name="from"/>.</summary>
        public void Align(int from, int n)
        {
            Zeros((n - (Position - from) % n) % n);
        }

        /// <summary>Continues at the next whole byte.</summary>
        public void AlignToByte()
        {
            pos = (pos + 7) & ~7L;
        }

        /// <summary>Bools packed 8 a byte, the lowest bit first.</summary>
        public void PackedBools(List<bool> bools)
        {
            for (int k = 0; k < (bools.Count + 7) / 8; k++)
            {
                int b = 0;
                for (int i = 8 * k; i < Math.Min(8 * k + 8, bools.Count); i++)
                {
                    if (bools[i]) b |= 1 << (i % 8);
                }
                U8((byte)b);
            }
        }

        /// <summary>The checksum of the bytes written [from, to), the checksum's own bytes at
        /// <paramref name="zeroAt"/> read as zeros.</summary>
        public ulong Checksum(IWireChecksum algo, int from, int to, int zeroAt, int zeroLen)
        {
            return algo.Compute(buf, from, to, zeroAt, zeroLen);
        }

        /// <summary>The byte offset of the next byte written.</summary>
        public int Position { get { return (int)(pos >> 3); } }

        /// <summary>Overwrites <paramref name="n"/> bytes at <paramref name="at"/> with an integer.</summary>
        public void Patch(int at, ulong v, int n, bool big)
        {
            for (int k = 0; k < n; k++)
            {
                int shift = big ? 8 * (n - 1 - k) : 8 * k;
                buf[at + k] = (byte)(v >> shift);
            }
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
