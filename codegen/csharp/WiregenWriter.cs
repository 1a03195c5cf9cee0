// The writer of the runtime every C# file wiregen generates uses (with WiregenRuntime.cs and
// WiregenReader.cs): whole bytes and bit streams into a growing buffer, with patches of lengths
// written before what they measure. Copied beside the generated files by `wiregen generate`.

using System;
using System.Collections.Generic;
using System.Text;

namespace Wiregen
{
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
}
