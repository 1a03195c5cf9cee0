//! The analysis of datagrams numbered 0, 1, 2… with one removed, repeated or moved: the counts
//! are exactly those.

use super::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn place(number: u64, part: u64) -> Place {
    Place {
        channel: 0,
        number,
        part,
    }
}

fn numbered(number: u64, part: u64, last_part: bool, reliable: bool) -> Facts {
    Facts {
        sequence: Some(Numbered {
            place: place(number, part),
            reliable,
            last_part,
        }),
        ..Facts::default()
    }
}

/// Verdicts of the client's datagrams with these sequence numbers, one frame each, 1 ms apart.
fn run(wrap: u64, seqs: &[u64], reliable: bool) -> (Analyzer, Vec<Verdict>) {
    let mut a = Analyzer::new(&[wrap]);
    let verdicts = seqs
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            a.observe(
                i as u64 + 1,
                ms(i as u64),
                true,
                &numbered(s, 0, true, reliable),
            )
        })
        .collect();
    (a, verdicts)
}

fn lost(v: &[Verdict]) -> Vec<u64> {
    v.iter().map(|v| v.lost).collect()
}

#[test]
fn a_removed_datagram_is_one_lost() {
    let (_, v) = run(256, &[0, 1, 2, 4, 5], false);
    assert_eq!(lost(&v), [0, 0, 0, 1, 0]);
    assert!(v.iter().all(|v| v.repeat_of.is_none() && !v.out_of_order));
}

#[test]
fn a_repeated_datagram_is_a_duplicate_or_a_retransmission_of_its_first_frame() {
    let (_, v) = run(256, &[0, 1, 1, 2], false);
    assert_eq!((v[2].repeat_of, v[2].retransmission), (Some(2), false));
    let (_, v) = run(256, &[0, 1, 1, 2], true);
    assert_eq!((v[2].repeat_of, v[2].retransmission), (Some(2), true));
    assert_eq!(v[3], Verdict::default());
}

#[test]
fn a_moved_datagram_is_out_of_order_and_fills_the_gap_it_left() {
    let (_, v) = run(256, &[0, 2, 1, 3], false);
    assert_eq!(lost(&v), [0, 1, 0, 0], "the gap shows when 2 comes");
    assert!(v[2].out_of_order && !v[3].out_of_order);
}

#[test]
fn sequence_numbers_wrap() {
    let (_, v) = run(256, &[254, 255, 0, 2, 1], false);
    assert_eq!(v[2], Verdict::default(), "0 follows 255");
    assert_eq!(v[3].lost, 1);
    assert!(v[4].out_of_order);
    // DNP counts modulo 65,535: 65,534 is followed by 0.
    let (_, v) = run(65_535, &[65_533, 65_534, 0, 1], false);
    assert!(v.iter().all(|v| *v == Verdict::default()));
}

#[test]
fn a_number_just_below_the_first_one_is_out_of_order_not_a_wrap() {
    let (_, v) = run(65_536, &[5, 4], false);
    assert!(v[1].out_of_order && v[1].lost == 0);
}

#[test]
fn parts_of_a_number_count_one_by_one_and_a_number_without_its_last_part_counts_once() {
    // Number 0 in parts 0..=2 (2 last), number 1 in parts 0..=1: remove 0/1, then 1/1 (a last
    // part: seen when number 2 comes).
    let mut a = Analyzer::new(&[65_536]);
    let sent = [(0, 0, false), (0, 2, true), (1, 0, false), (2, 0, true)];
    let v: Vec<Verdict> = sent
        .iter()
        .enumerate()
        .map(|(i, &(n, p, last))| a.observe(i as u64, ms(0), false, &numbered(n, p, last, false)))
        .collect();
    assert_eq!(lost(&v), [0, 1, 0, 1]);
}

#[test]
fn an_ack_links_the_reliable_send_and_gives_the_round_trip() {
    let mut a = Analyzer::new(&[256]);
    a.observe(1, ms(10), true, &numbered(7, 0, true, true));
    a.observe(2, ms(12), true, &numbered(8, 0, true, true));
    let ack = |number, cumulative| Facts {
        acks: vec![Ack {
            place: place(number, 0),
            cumulative,
        }],
        ..Facts::default()
    };
    let v = a.observe(3, ms(25), false, &ack(8, false));
    assert_eq!(
        v.acked,
        [Acked {
            frame: 2,
            rtt: ms(13)
        }]
    );
    assert!(
        a.observe(4, ms(26), false, &ack(8, false)).acked.is_empty(),
        "acked once"
    );
    // A cumulative ack of 8 acks 7 too.
    let v = a.observe(5, ms(30), false, &ack(8, true));
    assert_eq!(v.acked.iter().map(|a| a.frame).collect::<Vec<_>>(), [1]);
}

#[test]
fn ack_bits_ack_the_numbers_before_wrapping() {
    let mut f = Facts::default();
    f.ack_bits(0, 1, 0b101, 16, 65_536);
    let numbers: Vec<u64> = f.acks.iter().map(|a| a.place.number).collect();
    assert_eq!(numbers, [0, 65_534]);
}

#[test]
fn a_ping_reply_gives_the_round_trip() {
    let mut a = Analyzer::new(&[]);
    let ping = |id, reply| Facts {
        ping: Some(Ping { id, reply }),
        ..Facts::default()
    };
    assert_eq!(a.observe(1, ms(100), true, &ping(3, false)).ping, None);
    let v = a.observe(2, ms(104), false, &ping(3, true));
    assert_eq!(
        v.ping,
        Some(Acked {
            frame: 1,
            rtt: ms(4)
        })
    );
}

#[test]
fn past_the_window_the_oldest_numbers_are_forgotten_and_counted() {
    let mut a = Analyzer::with_window(&[1 << 16], 4);
    for n in 0..10 {
        a.observe(n, ms(n), true, &numbered(n, 0, true, false));
    }
    assert_eq!(a.forgotten(), 6);
    let v = a.observe(10, ms(10), true, &numbered(1, 0, true, false));
    assert_eq!(v.repeat_of, None, "forgotten: not linked");
}

#[test]
fn channels_count_apart() {
    let mut a = Analyzer::new(&[256, 256]);
    let on = |channel, number| Facts {
        sequence: Some(Numbered {
            place: Place {
                channel,
                number,
                part: 0,
            },
            reliable: false,
            last_part: true,
        }),
        ..Facts::default()
    };
    a.observe(1, ms(0), true, &on(0, 10));
    a.observe(2, ms(0), true, &on(1, 0));
    assert_eq!(a.observe(3, ms(0), true, &on(0, 11)), Verdict::default());
    assert_eq!(a.observe(4, ms(0), true, &on(1, 1)), Verdict::default());
}

#[test]
fn a_send_acked_and_sent_again_is_not_evicted_by_its_first_place() {
    // Window 2. Send 1 is acked, then forgotten by `seen`; sent again it is new and waits once
    // more, behind its first (acked) place in the order: evicting the oldest must skip that
    // place and forget send 2, not the send just made.
    let mut a = Analyzer::with_window(&[1 << 16], 2);
    let ack = |number| Facts {
        acks: vec![Ack {
            place: place(number, 0),
            cumulative: false,
        }],
        ..Facts::default()
    };
    a.observe(1, ms(1), true, &numbered(1, 0, true, true));
    assert_eq!(a.observe(2, ms(2), false, &ack(1)).acked.len(), 1);
    a.observe(3, ms(3), true, &numbered(2, 0, true, true));
    a.observe(4, ms(4), true, &numbered(3, 0, true, true));
    let again = a.observe(5, ms(5), true, &numbered(1, 0, true, true));
    assert_eq!(again.repeat_of, None, "forgotten by `seen`: new again");
    let frames = |v: Verdict| v.acked.iter().map(|a| a.frame).collect::<Vec<_>>();
    assert_eq!(frames(a.observe(6, ms(9), false, &ack(1))), [5]);
    assert_eq!(
        frames(a.observe(7, ms(9), false, &ack(2))),
        [] as [u64; 0],
        "send 2 was the oldest waiting"
    );
    assert_eq!(frames(a.observe(8, ms(9), false, &ack(3))), [4]);
}
