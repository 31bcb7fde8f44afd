//! Position against docs/position.md: a run's start at k = 1; each
//! advance moves k, the slot (wrapping at G) and slot · R, and shifts
//! dec[k - 1] into dec[k - 2]; R23's step back, across the window's
//! wrap, marks a rerun that the next advance ends; the strobes'
//! priorities; the test aid `preset_k`.

use rhdl_ubft::controller::position::Position;
use rhdl_ubft::params::G;
use rust_hdl::prelude::*;

const R: usize = 4;

struct Bench {
    b: Position,
}

#[derive(Debug, PartialEq)]
struct Seen {
    k: u32,
    slot: u32,
    slot_n: u32,
    prev: u32,
    prev2: Option<u32>,
    rerun: bool,
}

impl Bench {
    fn new() -> Self {
        let mut b = Position::new(R);
        b.connect_all();
        let mut t = Bench { b };
        t.step(|b| b.start.next = true);
        t
    }

    fn step(&mut self, f: impl FnOnce(&mut Position)) {
        let b = &mut self.b;
        b.start.next = false;
        b.advance.next = false;
        b.step_back.next = false;
        f(b);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
    }

    fn advance(&mut self, m: u32) {
        self.step(|b| {
            b.advance.next = true;
            b.m.next = (m as u64).into();
        });
    }

    fn seen(&self) -> Seen {
        let b = &self.b;
        Seen {
            k: b.k.val().to_u32(),
            slot: b.slot.val().index() as u32,
            slot_n: b.slot_n.val().index() as u32,
            prev: b.prev.val().to_u32(),
            prev2: b.prev2_ok.val().then(|| b.prev2.val().to_u32()),
            rerun: b.rerun.val(),
        }
    }
}

fn at(k: u32, prev: u32, prev2: Option<u32>, rerun: bool) -> Seen {
    let slot = (k - 1) % G as u32;
    Seen {
        k,
        slot,
        slot_n: slot * R as u32,
        prev,
        prev2,
        rerun,
    }
}

#[test]
fn a_run_starts_at_k_1_and_each_advance_moves_one_slot_wrapping_at_g() {
    let mut t = Bench::new();
    assert_eq!(t.seen(), at(1, 0, None, false));
    for k in 1..=(2 * G as u32 + 1) {
        t.advance(100 + k);
        let prev2 = if k == 1 { Some(0) } else { Some(100 + k - 1) };
        assert_eq!(t.seen(), at(k + 1, 100 + k, prev2, false), "after k = {k}");
    }
    // Without a strobe, everything holds.
    let before = t.seen();
    t.step(|_| {});
    assert_eq!(t.seen(), before);
}

#[test]
fn a_step_back_across_the_wrap_is_a_rerun_that_the_next_advance_ends() {
    let mut t = Bench::new();
    for k in 1..=G as u32 {
        t.advance(k);
    }
    // k = G + 1, slot 0: the step back goes to slot G - 1.
    assert_eq!(t.seen().slot, 0);
    t.step(|b| {
        b.step_back.next = true;
        b.cons_prev.next = 77u64.into();
    });
    assert_eq!(t.seen(), at(G as u32, 77, None, true));
    t.advance(G as u32);
    assert_eq!(t.seen(), at(G as u32 + 1, G as u32, Some(77), false));
}

#[test]
fn start_wins_over_advance_and_advance_over_step_back() {
    let mut t = Bench::new();
    t.advance(5);
    t.advance(6);
    t.step(|b| {
        b.start.next = true;
        b.advance.next = true;
        b.step_back.next = true;
    });
    assert_eq!(t.seen().k, 1);
    assert!(!t.seen().rerun);
    t.advance(5);
    t.step(|b| {
        b.advance.next = true;
        b.m.next = 9u64.into();
        b.step_back.next = true;
    });
    assert_eq!(t.seen(), at(3, 9, Some(5), false));
}

#[test]
fn preset_k_sets_k_and_its_slot_between_edges() {
    let mut t = Bench::new();
    let k = (1 << 24) - 3;
    t.b.preset_k(k);
    assert!(simulate(&mut t.b, 100));
    assert_eq!(t.b.k_now(), k);
    assert_eq!(t.seen().slot, (k - 1) % G as u32);
    assert_eq!(t.seen().slot_n, ((k - 1) % G as u32) * R as u32);
    t.advance(1);
    assert_eq!(t.seen().k, k + 1);
}
