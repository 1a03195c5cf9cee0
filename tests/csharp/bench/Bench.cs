// The generated C# codec next to a hand-written one (HandRtype.cs), in one run under Mono:
// median nanoseconds per operation over interleaved rounds, and bytes allocated per operation
// (GC.GetAllocatedBytesForCurrentThread). tests/csharp/bench.sh builds and runs it; the figures
// are in docs/performance.md. Each implementation is first checked to give the other's result.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using Wiregen;
using Wiregen.Protocols.Rtype;

static class Bench
{
    static Packet Login()
    {
        return new Packet
        {
            Flags = PacketFlags.Reliable,
            Sequence = 1,
            Payload = new PacketPayload.ReqLogin { Value = new ReqLogin { Username = "Player1", Version = 1, PreferredFragmentSize = 1004 } },
        };
    }

    static Packet World(int n)
    {
        var es = new List<EntityState>(n);
        for (int i = 0; i < n; i++) es.Add(new EntityState { EntityId = (uint)i, X = (ushort)i, Y = 7, Type = 1 });
        return new Packet { Sequence = 1, Payload = new PacketPayload.SEntityState { Value = new SEntityState { Entities = es } } };
    }

    static HandRtype.Packet Hand(Packet p)
    {
        var h = new HandRtype.Packet { Flags = (byte)p.Flags, Sequence = p.Sequence, Ack = p.Ack, FragmentId = p.FragmentId, FragmentIndex = p.FragmentIndex, FragmentCount = p.FragmentCount };
        var login = p.Payload as PacketPayload.ReqLogin;
        if (login != null)
        {
            h.Command = 1;
            h.Username = login.Value.Username;
            h.Version = login.Value.Version;
            h.PreferredFragmentSize = login.Value.PreferredFragmentSize;
        }
        else
        {
            h.Command = 0x11;
            h.Entities = new List<HandRtype.Entity>();
            foreach (var e in ((PacketPayload.SEntityState)p.Payload).Value.Entities)
                h.Entities.Add(new HandRtype.Entity { EntityId = e.EntityId, X = e.X, Y = e.Y, Kind = e.Type });
        }
        return h;
    }

    /// <summary>Median ns per call of each action over interleaved rounds, and bytes allocated per call.</summary>
    static void Race(string what, params Tuple<string, Action>[] contenders)
    {
        int calls = 1;
        while (true)
        {
            var sw = Stopwatch.StartNew();
            for (int i = 0; i < calls; i++) contenders[0].Item2();
            if (sw.Elapsed.TotalMilliseconds > 5 || calls > 1 << 22) break;
            calls *= 2;
        }
        const int rounds = 31;
        var samples = new double[contenders.Length][];
        var allocated = new double[contenders.Length];
        for (int k = 0; k < contenders.Length; k++) samples[k] = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            for (int k = 0; k < contenders.Length; k++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                var sw = Stopwatch.StartNew();
                for (int i = 0; i < calls; i++) contenders[k].Item2();
                samples[k][r] = sw.Elapsed.TotalMilliseconds * 1e6 / calls;
                allocated[k] = (double)(GC.GetAllocatedBytesForCurrentThread() - before) / calls;
            }
        }
        Array.Sort(samples[0]);
        double generated = samples[0][rounds / 2];
        for (int k = 0; k < contenders.Length; k++)
        {
            Array.Sort(samples[k]);
            double median = samples[k][rounds / 2];
            Console.WriteLine("| {0} | {1} | {2:F0} ns | {3:F2} | {4:F0} B |", what, contenders[k].Item1, median, median / generated, allocated[k]);
        }
    }

    static int Main()
    {
        Console.WriteLine("| operation | implementation | time | vs generated | allocated |");
        Console.WriteLine("| --- | --- | --- | --- | --- |");
        foreach (var c in new[] { Tuple.Create("R-Type login (34 B)", Login()), Tuple.Create("R-Type world, 100 entities (920 B)", World(100)) })
        {
            var packet = c.Item2;
            var bytes = packet.Encode();
            var hand = Hand(packet);
            // The same bytes both ways: a fast wrong codec would prove nothing.
            if (Convert.ToBase64String(HandRtype.Encode(hand)) != Convert.ToBase64String(bytes)) throw new Exception("hand encode differs");
            if (HandRtype.Decode(bytes).Sequence != Packet.Decode(bytes).Sequence) throw new Exception("hand decode differs");
            var writer = new WireWriter(1024);
            Race("decode " + c.Item1,
                Tuple.Create<string, Action>("generated", () => Packet.Decode(bytes)),
                Tuple.Create<string, Action>("hand-written", () => HandRtype.Decode(bytes)));
            Race("encode " + c.Item1,
                Tuple.Create<string, Action>("generated (Encode)", () => packet.Encode()),
                Tuple.Create<string, Action>("generated (Write into a reused WireWriter)", () => { writer.Clear(); packet.Write(writer); }),
                Tuple.Create<string, Action>("hand-written", () => HandRtype.Encode(hand)));
        }
        return 0;
    }
}
