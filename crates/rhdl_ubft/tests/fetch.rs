//! Fetch, cycle by cycle: when the burst goes out, when each beat is handed
//! over, what a slow `arready` and a stalled R channel do, and reset.

use rhdl_ubft::fetch::Fetch;
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
