//! Compose, cycle by cycle: beats written one at a time from anywhere, then
//! streamed to Broadcast in order, held under back-pressure; and the two
//! together sending a six-beat record as one burst.

use rhdl_ubft::io::compose::Compose;
use rust_hdl::prelude::*;

mod common;

fn block() -> Compose {
    let mut c = Compose::default();
    c.clock.connect();
    c.rst_n.connect();
    c.wr_en.connect();
    c.wr_beat.connect();
    c.wr_data.connect();
    c.start.connect();
    c.first.connect();
    c.last.connect();
    c.m_rec_tready.connect();
    c.connect_all();
    c.rst_n.next = true;
    c
}

/// Beat i of a test record: every word names the record and the beat.
fn beat(tag: u64, i: u64) -> Bits<512> {
    let mut b = Bits::<512>::default();
    for w in 0..16 {
        b.set_bits::<32>(32 * w, ((tag << 16) | (i << 8) | w as u64).into());
    }
    b
}

fn low(c: &mut Compose) {
    c.clock.next = Clock::from(false);
    assert!(simulate(c, 100));
}
fn high(c: &mut Compose) {
    c.clock.next = Clock::from(true);
    assert!(simulate(c, 100));
}

/// Writes beats `first..=last` of record `tag`, one a cycle, from cycle 0.
/// Returns the cycle after the last write.
fn write_record(c: &mut Compose, tag: u64, first: u64, last: u64) -> u64 {
    let mut cycle = 0;
    for i in first..=last {
        c.wr_en.next = true;
        c.wr_beat.next = i.into();
        c.wr_data.next = beat(tag, i);
        low(c);
        high(c);
        cycle += 1;
    }
    c.wr_en.next = false;
    cycle
}

/// Streams beats first..=last with TREADY `ready(cycle)` from `start` at
/// cycle 0 (relative); returns (cycle, beat index taken, tlast) per
/// handshake, and checks TDATA stable while TVALID waits.
fn stream(
    c: &mut Compose,
    tag: u64,
    first: u64,
    last: u64,
    ready: impl Fn(u64) -> bool,
    budget: u64,
) -> Vec<(u64, u64, bool)> {
    let mut took = vec![];
    let mut waiting: Option<Bits<512>> = None;
    for cycle in 0..budget {
        c.start.next = cycle == 0;
        c.first.next = first.into();
        c.last.next = last.into();
        c.m_rec_tready.next = ready(cycle);
        low(c);
        if cycle == 0 {
            assert!(!c.m_rec_tvalid.val(), "nothing valid in the start cycle");
        }
        if c.m_rec_tvalid.val() {
            let d = c.m_rec_tdata.val();
            if let Some(w) = waiting {
                assert_eq!(w, d, "TDATA changed while TVALID waited (cycle {cycle})");
            }
            if ready(cycle) {
                let i = (first..=last)
                    .find(|&i| beat(tag, i) == d)
                    .unwrap_or_else(|| panic!("cycle {cycle}: TDATA is no beat of the record"));
                took.push((cycle, i, c.m_rec_tlast.val()));
                waiting = None;
            } else {
                waiting = Some(d);
            }
        }
        high(c);
    }
    took
}

#[test]
fn beats_stream_in_order_one_a_cycle_from_the_cycle_after_start() {
    let mut c = block();
    write_record(&mut c, 7, 1, 5);
    let took = stream(&mut c, 7, 1, 5, |_| true, 12);
    assert_eq!(
        took,
        vec![
            (1, 1, false),
            (2, 2, false),
            (3, 3, false),
            (4, 4, false),
            (5, 5, true)
        ]
    );
    // busy falls the cycle after the last beat is taken, and nothing more
    // goes out.
    low(&mut c);
    assert!(!c.busy.val() && !c.m_rec_tvalid.val());
}

#[test]
fn back_pressure_holds_each_beat_stable_until_taken() {
    let mut c = block();
    write_record(&mut c, 3, 0, 15);
    // TREADY low on every third cycle and for a stretch in the middle.
    let ready = |t: u64| t % 3 != 2 && !(8..12).contains(&t);
    let took = stream(&mut c, 3, 2, 9, ready, 40);
    let beats: Vec<u64> = took.iter().map(|x| x.1).collect();
    assert_eq!(beats, (2..=9).collect::<Vec<_>>());
    let cycles: Vec<u64> = took.iter().map(|x| x.0).collect();
    // Every cycle from 1 with TREADY high takes the next beat.
    let expect: Vec<u64> = (1..40).filter(|&t| ready(t)).take(8).collect();
    assert_eq!(cycles, expect);
    assert_eq!(took.iter().filter(|x| x.2).count(), 1);
    assert!(took.last().unwrap().2, "TLAST on the last beat only");
}

#[test]
fn a_write_while_streaming_is_ignored_and_one_beat_records_work() {
    let mut c = block();
    write_record(&mut c, 1, 4, 6);
    // Start, then try to overwrite beat 6 while beat 4 waits for TREADY.
    c.start.next = true;
    c.first.next = 4.into();
    c.last.next = 6.into();
    c.m_rec_tready.next = false;
    low(&mut c);
    high(&mut c);
    c.start.next = false;
    c.wr_en.next = true;
    c.wr_beat.next = 6.into();
    c.wr_data.next = beat(9, 6);
    low(&mut c);
    assert!(c.busy.val() && c.m_rec_tvalid.val());
    high(&mut c);
    c.wr_en.next = false;
    let mut got = vec![];
    for _ in 0..6 {
        c.m_rec_tready.next = true;
        low(&mut c);
        if c.m_rec_tvalid.val() {
            got.push(c.m_rec_tdata.val());
        }
        high(&mut c);
    }
    assert_eq!(got, vec![beat(1, 4), beat(1, 5), beat(1, 6)]);
    // A one-beat record: first = last, TLAST with it.
    let took = stream(&mut c, 1, 5, 5, |_| true, 4);
    assert_eq!(took, vec![(1, 5, true)]);
}

#[test]
fn reset_abandons_the_stream() {
    let mut c = block();
    write_record(&mut c, 2, 1, 8);
    c.start.next = true;
    c.first.next = 1.into();
    c.last.next = 8.into();
    c.m_rec_tready.next = true;
    low(&mut c);
    high(&mut c);
    c.start.next = false;
    low(&mut c);
    high(&mut c);
    c.rst_n.next = false;
    low(&mut c);
    assert!(c.m_rec_tvalid.val(), "still streaming in the reset cycle");
    high(&mut c);
    c.rst_n.next = true;
    low(&mut c);
    assert!(!c.busy.val() && !c.m_rec_tvalid.val());
    // The buffer is kept: the record streams again whole.
    high(&mut c);
    let took = stream(&mut c, 2, 1, 8, |_| true, 12);
    assert_eq!(took.len(), 8);
}

/// Compose feeding Broadcast: a six-beat record (a COMMIT's shape: block,
/// signature, four shares) written into Compose, beat 0 on Broadcast's
/// `data`, the rest streamed, goes out as one AXI burst of six beats with
/// the record's beats in order and WLAST on the last, then one RDMA WRITE
/// of 384 bytes per peer.
#[test]
fn compose_and_broadcast_send_a_six_beat_record_as_one_burst() {
    let mut c = block();
    write_record(&mut c, 5, 1, 5);
    let mut b = common::broadcast();
    let mut w_beats = vec![];
    let mut awlen = None;
    let mut lens = vec![];
    let mut b_at = None;
    for cycle in 0..60u64 {
        // Both start together; W is ready two cycles in three.
        let start = cycle == 1;
        b.start.next = start;
        b.word.next = (16 * 64u64).into();
        b.words.next = 16.into();
        b.beats.next = 6.into();
        b.data.next = beat(5, 0);
        b.network_ptr.next = 0x8000_0000u64.into();
        b.n.next = 3u64.into();
        b.id.next = 0u64.into();
        b.awready.next = true;
        b.wready.next = cycle % 3 != 0;
        b.cmd_ready.next = true;
        b.bvalid.next = b_at == Some(cycle);
        c.start.next = start;
        c.first.next = 1.into();
        c.last.next = 5.into();
        // The wiring the kernel will have: Compose's stream is Broadcast's.
        c.m_rec_tready.next = b.s_rec_tready.val();
        b.s_rec_tdata.next = c.m_rec_tdata.val();
        b.s_rec_tvalid.next = c.m_rec_tvalid.val();
        b.s_rec_tlast.next = c.m_rec_tlast.val();
        for _ in 0..3 {
            // Settle the pair: each one's outputs are the other's inputs.
            b.clock.next = Clock::from(false);
            c.clock.next = Clock::from(false);
            assert!(simulate(&mut b, 100));
            assert!(simulate(&mut c, 100));
            c.m_rec_tready.next = b.s_rec_tready.val();
            b.s_rec_tdata.next = c.m_rec_tdata.val();
            b.s_rec_tvalid.next = c.m_rec_tvalid.val();
            b.s_rec_tlast.next = c.m_rec_tlast.val();
        }
        if b.awvalid.val() && awlen.is_none() {
            awlen = Some(b.awlen.val().to_u64());
        }
        if b.wvalid.val() && b.wready.val() {
            w_beats.push((b.wdata.val(), b.wlast.val()));
            if b.wlast.val() {
                b_at = Some(cycle + 5);
            }
        }
        if b.cmd_valid.val() {
            lens.push(b.cmd_len.val().to_u64());
        }
        b.clock.next = Clock::from(true);
        c.clock.next = Clock::from(true);
        assert!(simulate(&mut b, 100));
        assert!(simulate(&mut c, 100));
    }
    assert_eq!(awlen, Some(5));
    let data: Vec<Bits<512>> = w_beats.iter().map(|x| x.0).collect();
    assert_eq!(data, (0..6).map(|i| beat(5, i)).collect::<Vec<_>>());
    let lasts: Vec<bool> = w_beats.iter().map(|x| x.1).collect();
    assert_eq!(lasts, vec![false, false, false, false, false, true]);
    assert_eq!(lens, vec![384, 384], "one WRITE of six beats to each peer");
}
