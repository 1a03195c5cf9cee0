// A stand-in for Riptide's `Message` (RiptideNetworking 2.1/2.2, MIT), written from its
// documented bit layout for the tests (the real library cannot be fetched in CI): the bits of a
// message in ulong segments, the first bit the lowest of the first segment, sent as the
// segments' little-endian bytes; a 4-bit header (then, for unreliable user messages, the message
// id as a VarULong). Only what wiregen's Riptide adapter and these tests call is here, with
// Riptide's names and semantics.

using System;

namespace Riptide
{
    public interface IMessageSerializable
    {
        void Serialize(Message message);
        void Deserialize(Message message);
    }

    public enum MessageSendMode : byte
    {
        Unreliable = 0,
        Notify = 6,
        Reliable = 7,
    }

    public sealed class Message
    {
        const int HeaderBits = 4;
        readonly ulong[] data = new ulong[1225 / 8 + 1];
        int readBit;
        int writeBit;

        public int ReadBits { get { return readBit; } }
        public int UnreadBits { get { return writeBit - readBit; } }
        public int WrittenBits { get { return writeBit; } }
        public int BytesInUse { get { return (writeBit + 7) / 8; } }

        public static Message Create()
        {
            return new Message();
        }

        /// <summary>An unreliable user message: the header, then the id as a VarULong.</summary>
        public static Message Create(MessageSendMode sendMode, ushort id)
        {
            if (sendMode != MessageSendMode.Unreliable) throw new NotSupportedException("the stand-in sends unreliable messages");
            var m = new Message();
            m.AddBits((byte)sendMode, HeaderBits);
            return m.AddVarULong(id);
        }

        /// <summary>A received datagram, read from after its header (as Riptide's Init does).</summary>
        public static Message FromDatagram(byte[] bytes)
        {
            var m = new Message();
            for (int i = 0; i < bytes.Length; i++) m.data[i / 8] |= (ulong)bytes[i] << (8 * (i % 8));
            m.writeBit = 8 * bytes.Length;
            m.readBit = HeaderBits;
            return m;
        }

        /// <summary>The datagram Riptide sends: the bytes in use.</summary>
        public byte[] ToDatagram()
        {
            var b = new byte[BytesInUse];
            for (int i = 0; i < b.Length; i++) b[i] = (byte)(data[i / 8] >> (8 * (i % 8)));
            return b;
        }

        public Message AddBits(byte bitfield, int amount)
        {
            if (amount > 8) throw new ArgumentOutOfRangeException("amount");
            for (int k = 0; k < amount; k++)
            {
                int bit = writeBit + k;
                ulong mask = 1UL << (bit % 64);
                if (((bitfield >> k) & 1) != 0) data[bit / 64] |= mask;
                else data[bit / 64] &= ~mask;
            }
            writeBit += amount;
            return this;
        }

        public Message PeekBits(int amount, int startBit, out byte bitfield)
        {
            if (amount > 8) throw new ArgumentOutOfRangeException("amount");
            int v = 0;
            for (int k = 0; k < amount; k++)
            {
                int bit = startBit + k;
                if (((data[bit / 64] >> (bit % 64)) & 1) != 0) v |= 1 << k;
            }
            bitfield = (byte)v;
            return this;
        }

        public Message GetBits(int amount, out byte bitfield)
        {
            PeekBits(amount, readBit, out bitfield);
            readBit += amount;
            return this;
        }

        public Message SkipBits(int amount)
        {
            if (UnreadBits < amount) throw new InvalidOperationException("skipping past the end");
            readBit += amount;
            return this;
        }

        public Message AddByte(byte value)
        {
            return AddBits(value, 8);
        }

        public byte GetByte()
        {
            byte b;
            GetBits(8, out b);
            return b;
        }

        public Message AddVarULong(ulong value)
        {
            do
            {
                byte b = (byte)(value & 0x7F);
                value >>= 7;
                if (value != 0) b |= 0x80;
                AddByte(b);
            } while (value != 0);
            return this;
        }

        public ulong GetVarULong()
        {
            ulong b, value = 0;
            int shift = 0;
            do
            {
                b = GetByte();
                value |= (b & 0x7F) << shift;
                shift += 7;
            } while ((b & 0x80) != 0);
            return value;
        }

        public Message AddSerializable<T>(T value) where T : IMessageSerializable
        {
            value.Serialize(this);
            return this;
        }

        public T GetSerializable<T>() where T : IMessageSerializable, new()
        {
            var t = new T();
            t.Deserialize(this);
            return t;
        }
    }
}
