//! Fetch, cycle by cycle: when the burst goes out, when each beat is handed
//! over, what a slow `arready` and a stalled R channel do, and reset.

use rhdl_ubft::io::fetch::Fetch;
use rust_hdl::prelude::*;

mod common;
use common::fetch;

/// Settle with the clock low (the cycle's inputs applied), then the edge.
fn settle(f: &mut Fetch) {
    f.clock.next = Clock::from(false);
    assert!(simulate(f, 100));
}
fn edge(f: &mut Fetch) {
    f.clock.next = Clock::from(true);
    assert!(simulate(f, 100));
}

fn beat(v: u64) -> Bits<512> {
    let mut b = Bits::<512>::default();
    b.set_bits::<64>(448, v.into());
    b.set_bits::<64>(0, (v + 1).into());
    b
}

#[test]
fn ar_goes_out_the_cycle_after_start_and_beats_are_handed_over_one_cycle_later() {
    let mut f = fetch();
    let h = 5; // HBM read latency in this test
    let mut ar_cycle = None;
    let mut beats = vec![];
    let mut done_cycle = None;
    let mut ar_accept = None;
    for cycle in 0..40u64 {
        f.start.next = cycle == 2;
        f.addr.next = 0x4000_0040u64.into();
        f.len.next = 1.into(); // two beats
                               // arready is low for two cycles after AR rises: arvalid must hold.
        let ar_rise = ar_cycle.unwrap_or(u64::MAX);
        f.arready.next = cycle >= ar_rise.saturating_add(2);
        // R beats: H cycles after AR accepted, one per cycle.
        let first = ar_accept.map(|a: u64| a + h);
        let idx = first.and_then(|fst| cycle.checked_sub(fst));
        f.rvalid.next = matches!(idx, Some(0) | Some(1));
        f.rlast.next = idx == Some(1);
        f.rresp.next = 0.into();
        f.rdata.next = beat(100 + idx.unwrap_or(0));
        settle(&mut f);
        if f.arvalid.val() {
            ar_cycle.get_or_insert(cycle);
            assert_eq!(f.araddr.val().to_u64(), 0x4000_0040);
            assert_eq!(f.arlen.val().to_u64(), 1);
            assert_eq!(f.arsize.val().to_u64(), 6);
            assert_eq!(f.arburst.val().to_u64(), 1);
            if f.arready.val() {
                ar_accept = Some(cycle);
            }
        }
        if f.rvalid.val() {
            assert!(
                f.rready.val(),
                "rready is high while the burst is in flight"
            );
        }
        if f.beat_valid.val() {
            beats.push((cycle, f.beat.val().get_bits::<64>(448).to_u64()));
        }
        if f.done.val() {
            done_cycle = Some(cycle);
            assert!(!f.busy.val(), "busy falls with done");
        }
        edge(&mut f);
    }
    assert_eq!(ar_cycle, Some(3), "AR goes out the cycle after start");
    assert_eq!(ar_accept, Some(5), "arvalid held until arready");
    assert_eq!(
        beats,
        vec![(11, 100), (12, 101)],
        "each beat one cycle after R"
    );
    assert_eq!(done_cycle, Some(12), "done with the last beat");
}

#[test]
fn a_start_while_busy_is_ignored_and_reset_abandons_the_burst() {
    let mut f = fetch();
    let mut ars = 0;
    for cycle in 0..20u64 {
        f.start.next = cycle == 0 || cycle == 3;
        f.addr.next = (0x1000u64 + cycle * 64).into();
        f.arready.next = cycle == 4;
        f.rvalid.next = false;
        f.rst_n.next = cycle != 8;
        settle(&mut f);
        if f.arvalid.val() && f.arready.val() {
            ars += 1;
            assert_eq!(
                f.araddr.val().to_u64(),
                0x1000,
                "the second start was ignored"
            );
        }
        if cycle == 9 {
            assert!(
                !f.busy.val() && !f.rready.val(),
                "reset returns Fetch to idle"
            );
        }
        edge(&mut f);
    }
    assert_eq!(ars, 1);
}

#[test]
fn an_error_response_is_reported_with_done() {
    let mut f = fetch();
    let mut seen = false;
    for cycle in 0..12u64 {
        f.start.next = cycle == 0;
        f.addr.next = 0x2000u64.into();
        f.len.next = 0.into();
        f.arready.next = true;
        f.rvalid.next = cycle == 4;
        f.rlast.next = cycle == 4;
        f.rresp.next = 2.into(); // SLVERR
        settle(&mut f);
        if f.done.val() {
            assert_eq!(cycle, 5);
            assert!(f.error.val());
            seen = true;
        }
        edge(&mut f);
    }
    assert!(seen);
}

/// The read ahead (`poll`), against an in-order one-ID HBM read model: an
/// AR accepted at cycle c samples memory at c and has its one beat at
/// c + H. A beat carries the address it read (bits 448..), the AR cycle
/// (bits 0..64) and whether the watched word had landed (bit 64).
struct Bench {
    f: Fetch,
    h: u64,
    /// (cycle of the beat, its data), in AR order.
    pending: std::collections::VecDeque<(u64, u64, u64, bool)>,
    /// Accepted ARs: (cycle, address).
    ars: Vec<(u64, u64)>,
    /// Delivered beats: (cycle, address, AR cycle, landed).
    beats: Vec<(u64, u64, u64, bool)>,
    dones: Vec<u64>,
    max_outstanding: usize,
}

const A: u64 = 0x4000_0040;
const B: u64 = 0x4000_1000;

impl Bench {
    fn new(h: u64) -> Bench {
        Bench {
            f: fetch(),
            h,
            pending: Default::default(),
            ars: vec![],
            beats: vec![],
            dones: vec![],
            max_outstanding: 0,
        }
    }

    /// One cycle: the request (start, poll, again, addr), `arready`,
    /// `rst_n`, and the cycle the word at A lands.
    fn cycle(
        &mut self,
        c: u64,
        req: Option<(bool, bool, u64)>,
        arready: bool,
        rst: bool,
        land: u64,
    ) {
        let f = &mut self.f;
        f.start.next = req.is_some();
        f.poll.next = req.map(|r| r.0).unwrap_or(false);
        f.again.next = req.map(|r| r.1).unwrap_or(false);
        f.addr.next = req.map(|r| r.2).unwrap_or(A).into();
        f.len.next = 0.into();
        f.arready.next = arready;
        f.rst_n.next = !rst;
        let head = self.pending.front().copied().filter(|p| p.0 <= c);
        f.rvalid.next = head.is_some();
        f.rlast.next = head.is_some();
        f.rresp.next = 0.into();
        let mut d = Bits::<512>::default();
        if let Some((_, addr, ar, landed)) = head {
            d.set_bits::<64>(448, addr.into());
            d.set_bits::<64>(0, ar.into());
            d.set_bits::<1>(64, landed.into());
        }
        f.rdata.next = d;
        settle(f);
        if f.arvalid.val() && f.arready.val() && !rst {
            let a = f.araddr.val().to_u64();
            self.ars.push((c, a));
            self.pending
                .push_back((c + self.h, a, c, a == A && c >= land));
        }
        if f.rvalid.val() {
            assert!(f.rready.val(), "cycle {c}: rvalid without rready");
            self.pending.pop_front();
        }
        if f.beat_valid.val() {
            let b = f.beat.val();
            self.beats.push((
                c,
                b.get_bits::<64>(448).to_u64(),
                b.get_bits::<64>(0).to_u64(),
                b.get_bits::<1>(64).any(),
            ));
        }
        if f.done.val() {
            self.dones.push(c);
        }
        if rst {
            // The interconnect is reset with the kernel.
            self.pending.clear();
        }
        self.max_outstanding = self.max_outstanding.max(self.pending.len());
        edge(f);
    }
}

/// FAST's loop: poll A from cycle 2; on `done` without the landed word,
/// poll again the next cycle (its Poll state, `again`); stop at the first
/// hit. Returns the cycle of the hit's `done`.
fn poll_loop(b: &mut Bench, poll: bool, land: u64, until: u64) -> Option<u64> {
    let mut next = Some(2u64);
    let mut hit = None;
    for c in 0..until {
        let req = (next == Some(c)).then_some((poll, poll && c > 2, A));
        b.cycle(c, req, true, false, land);
        if b.dones.last() == Some(&c) && hit.is_none() {
            let &(_, addr, _, landed) = b.beats.last().unwrap();
            assert_eq!(addr, A);
            if landed {
                hit = Some(c);
                next = None;
            } else {
                next = Some(c + 1);
            }
        }
    }
    hit
}

#[test]
fn a_poll_loop_reads_ahead_twice_per_round_trip_and_sees_a_landing_sooner() {
    let h = 20;
    // Without `poll`: one burst in flight, a poll every H + 3 cycles.
    let mut plain = Bench::new(h);
    let plain_hit = poll_loop(&mut plain, false, 51, 200);
    let plain_ars: Vec<u64> = plain.ars.iter().map(|a| a.0).collect();
    assert_eq!(plain_ars, vec![3, 26, 49, 72], "a poll every H + 3");
    assert_eq!(plain_hit, Some(72 + h + 1));
    assert_eq!(plain.max_outstanding, 1);
    // With `poll`: the first burst measures the round trip (rt = 19, half
    // 9); from the second on, a read ahead goes out once the poll's burst
    // has been alone for 9 cycles, and the next poll takes it; the poll
    // that takes one starts the next read ahead in the same cycle.
    let mut ahead = Bench::new(h);
    let hit = poll_loop(&mut ahead, true, 51, 200);
    let ars: Vec<u64> = ahead.ars.iter().map(|a| a.0).collect();
    // The plain loop's ARs (26, 49, 72: every H + 3) stay, and a read
    // ahead goes out between each two: two reads per H + 3 cycles.
    assert_eq!(ars, vec![3, 26, 37, 49, 60, 72], "{ars:?}");
    // A landing at 51 is read by the read ahead of 60, which the poll after
    // the miss of 49 takes: delivered at 60 + H + 1, where the plain loop
    // delivers it at 72 + H + 1.
    assert_eq!(hit, Some(60 + h + 1));
    assert!(ahead.max_outstanding <= 2);
    // Every poll got one beat, and each beat was read after the one
    // before it: a poll's data is never older than its predecessor's.
    assert_eq!(ahead.beats.len(), ahead.dones.len());
    let order: Vec<u64> = ahead.beats.iter().map(|b| b.2).collect();
    assert_eq!(order, vec![3, 26, 37, 49, 60], "the delivered reads");
    // The read ahead issued before the hit (at 72) is drained, not
    // delivered.
    assert!(ahead.pending.is_empty());
}

#[test]
fn another_request_lets_the_read_ahead_drain_and_gets_its_own_beat() {
    let h = 20;
    for arready_low in [None, Some((37u64, 60u64))] {
        let mut b = Bench::new(h);
        // Poll A at 2 and at 25 (the loop's second poll, whose burst is read
        // ahead at 37); at 48, after its done, read B without `poll`.
        let mut got_b = None;
        for c in 0..160u64 {
            let req = match c {
                2 => Some((true, false, A)),
                25 => Some((true, true, A)),
                48 => Some((false, false, B)),
                _ => None,
            };
            let ready = arready_low.is_none_or(|(lo, hi)| c < lo || c >= hi);
            b.cycle(c, req, ready, false, u64::MAX);
            if b.dones.last() == Some(&c) && b.beats.last().unwrap().1 == B {
                got_b = Some(c);
            }
        }
        let ars: Vec<(u64, u64)> = b.ars.clone();
        let delivered: Vec<u64> = b.beats.iter().map(|x| x.1).collect();
        assert_eq!(delivered, vec![A, A, B], "the read ahead's beat is dropped");
        match arready_low {
            None => {
                // B's AR goes out at once, behind the read ahead.
                assert_eq!(ars, vec![(3, A), (26, A), (37, A), (49, B)]);
                assert_eq!(got_b, Some(49 + h + 1));
            }
            Some(_) => {
                // The read ahead's AR is pending from 37 and keeps the
                // channel (AXI: a valid holds its payload); B waits for it.
                assert_eq!(ars, vec![(3, A), (26, A), (60, A), (61, B)]);
                assert_eq!(got_b, Some(61 + h + 1));
            }
        }
        assert!(b.pending.is_empty());
    }
}

#[test]
fn a_poll_takes_a_read_ahead_whose_ar_is_still_pending() {
    let h = 20;
    let mut b = Bench::new(h);
    let mut dones = vec![];
    for c in 0..140u64 {
        let req = match c {
            2 => Some((true, false, A)),
            25 | 48 => Some((true, true, A)),
            _ => None,
        };
        // arready low from 37 to 55: the read ahead (raised at 37) is
        // still pending when the third poll comes at 48.
        b.cycle(c, req, !(37..55).contains(&c), false, u64::MAX);
        if b.dones.last() == Some(&c) {
            dones.push(c);
        }
    }
    // No new AR for the poll of 48: it took the pending one (accepted at
    // 55), whose own read ahead follows 11 cycles later.
    assert_eq!(b.ars, vec![(3, A), (26, A), (55, A), (66, A)]);
    assert_eq!(dones, vec![24, 47, 55 + h + 1]);
    assert_eq!(b.beats.len(), 3, "the last read ahead is not delivered");
}

#[test]
fn reset_abandons_a_read_ahead() {
    let h = 20;
    let mut b = Bench::new(h);
    for c in 0..60u64 {
        let req = matches!(c, 2 | 25).then_some((true, c == 25, A));
        b.cycle(c, req, true, c == 40, u64::MAX);
        if c == 41 {
            assert!(!b.f.busy.val() && !b.f.rready.val() && !b.f.arvalid.val());
        }
    }
    // The poll of 25 (AR 26) and its read ahead (AR 37) were abandoned.
    assert_eq!(b.ars, vec![(3, A), (26, A), (37, A)]);
    assert_eq!(b.beats.len(), 1);
}

#[test]
fn a_poll_without_again_reads_afresh_even_with_a_read_ahead_of_its_beat() {
    // A loop's first request (after a write of the replica's own, say) must
    // not take a read issued before it: the poll at 48 is `poll` but not
    // `again`, so the read ahead of 37 drains and a new AR goes out.
    let h = 20;
    let mut b = Bench::new(h);
    for c in 0..120u64 {
        let req = match c {
            2 => Some((true, false, A)),
            25 => Some((true, true, A)),
            48 => Some((true, false, A)),
            _ => None,
        };
        b.cycle(c, req, true, false, u64::MAX);
    }
    assert_eq!(b.ars[..4], [(3, A), (26, A), (37, A), (49, A)]);
    let delivered: Vec<u64> = b.beats.iter().map(|x| x.2).collect();
    assert_eq!(
        delivered,
        vec![3, 26, 49],
        "the read ahead of 37 is dropped"
    );
}
