// The reader of the runtime every C# file wiregen generates uses (with WiregenRuntime.cs and
// WiregenWriter.cs): whole bytes, bit streams of either bit order, varints and text, each read
// checked against the scope it is in. Copied beside the generated files by `wiregen generate`.

using System;
using System.Collections.Generic;
using System.Text;

namespace Wiregen
{
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
}
