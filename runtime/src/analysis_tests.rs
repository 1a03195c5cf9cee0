//! The analysis of datagrams numbered 0, 1, 2… with one removed, repeated or moved: the counts
//! are exactly those.

use super::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn numbered(seq: u64, reliable: bool) -> Facts {
    Facts {
        sequence: Some(seq),
        reliable,
        ..Facts::default()
    }
}

/// Verdicts of the client's datagrams with these sequence numbers, one frame each, 1 ms apart.
fn run(wrap: u64, seqs: &[u64], reliable: bool) -> (Analyzer, Vec<Verdict>) {
    let mut a = Analyzer::new(wrap);
    let verdicts = seqs
        .iter()
        .enumerate()
        .map(|(i, &s)| a.observe(i as u64 + 1, ms(i as u64), true, &numbered(s, reliable)))
        .collect();
    (a, verdicts)
}

#[test]
fn a_removed_datagram_is_one_lost() {
    let (a, v) = run(256, &[0, 1, 2, 4, 5], false);
    assert_eq!(
        v.iter().map(|v| v.lost).collect::<Vec<_>>(),
        [0, 0, 0, 1, 0]
    );
    assert_eq!(a.missing(true), 1);
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
fn a_moved_datagram_is_out_of_order_and_not_lost() {
    let (a, v) = run(256, &[0, 2, 1, 3], false);
    assert_eq!(v[1].lost, 1, "the gap shows when 2 comes");
    assert!(v[2].out_of_order);
    assert_eq!(a.missing(true), 0, "1 came: nothing is lost");
}

#[test]
fn sequence_numbers_wrap() {
    let (a, v) = run(256, &[254, 255, 0, 2, 1], false);
    assert_eq!(v[2], Verdict::default(), "0 follows 255");
    assert_eq!(v[3].lost, 1);
    assert!(v[4].out_of_order);
    assert_eq!(a.missing(true), 0);
    // A capture that starts just after a wrap: numbers just below the first are older ones.
    let (_, v) = run(256, &[0, 255], false);
    assert!(v[1].out_of_order);
}

#[test]
fn an_ack_links_to_the_frame_it_acks_with_the_round_trip_once() {
    let mut a = Analyzer::new(65536);
    a.observe(1, ms(10), true, &numbered(7, true));
    let ack = Facts {
        acks: vec![7],
        ..Facts::default()
    };
    assert_eq!(a.observe(2, ms(35), false, &ack).acked, [(1, ms(25))]);
    assert!(
        a.observe(3, ms(40), false, &ack).acked.is_empty(),
        "acked once"
    );
}

#[test]
fn a_retransmission_is_acked_from_its_first_send() {
    let mut a = Analyzer::new(65536);
    a.observe(1, ms(0), true, &numbered(3, true));
    let again = a.observe(2, ms(100), true, &numbered(3, true));
    assert!(again.retransmission);
    let ack = Facts {
        acks: vec![3],
        ..Facts::default()
    };
    assert_eq!(a.observe(3, ms(120), false, &ack).acked, [(1, ms(120))]);
}

#[test]
fn a_ping_reply_gives_the_round_trip_of_its_request() {
    let mut a = Analyzer::new(256);
    let ping = |id, reply| Facts {
        ping: Some(Ping { id, reply }),
        ..Facts::default()
    };
    assert_eq!(a.observe(1, ms(5), true, &ping(9, false)).ping, None);
    assert_eq!(
        a.observe(2, ms(18), false, &ping(9, true)).ping,
        Some((1, ms(13)))
    );
    assert_eq!(
        a.observe(3, ms(20), false, &ping(9, true)).ping,
        None,
        "answered once"
    );
}

#[test]
fn past_the_window_the_oldest_entries_are_forgotten_and_counted() {
    let mut a = Analyzer::with_window(65536, 4);
    for i in 0..10 {
        a.observe(i + 1, ms(i), true, &numbered(i, true));
    }
    // Sequence numbers 0..6 and sends 0..6 fell out of the window of 4.
    assert_eq!(a.forgotten(), 12);
    let again = a.observe(11, ms(11), true, &numbered(2, true));
    assert_eq!(again.repeat_of, None, "too old to be linked");
    assert!(again.out_of_order);
}
