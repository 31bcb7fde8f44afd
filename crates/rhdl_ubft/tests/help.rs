//! Help, cycle by cycle, against docs/help.md: the decided block's view
//! kept at a decision and armed while k is the next slot; the will_commit
//! row of slot k − 1 at the layout's address; the scan of that row against
//! the reference `help_lane`, on hand-made rows and on random ones; the
//! view helped last; a full row's 8-bit view field widened.

use rhdl_ubft::controller::help::{help_lane, Help};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{vote_tag, BEAT_BITS, G, SB};
use rust_hdl::prelude::*;

const N: usize = 8;

/// The slot decided (j), its value, dec[j − 1].
const J: u32 = 21;
const M: u32 = 0xabc;
const PREV: u32 = 0x99;

struct Bench {
    b: Help<N>,
}

impl Bench {
    /// n replicas, this one `id`, in view `view`, at k = J (slot J not
    /// decided yet).
    fn new(n: usize, id: usize, view: u32) -> Self {
        let mut b = Help::<N>::default();
        b.connect_all();
        b.rst_n.next = true;
        b.id.next = (id as u64).into();
        b.active.next = ((1u64 << n) - 1).into();
        b.view.next = (view as u64).into();
        b.k.next = (J as u64).into();
        b.prev.next = (PREV as u64).into();
        b.prev2.next = 0x55u64.into();
        b.prev2_ok.next = true;
        let mut t = Bench { b };
        t.step(|_| {});
        t
    }

    /// One cycle: every strobe low but what `f` sets.
    fn step(&mut self, f: impl FnOnce(&mut Help<N>)) {
        let b = &mut self.b;
        for s in [
            &mut b.decide,
            &mut b.helped,
            &mut b.scan_start,
            &mut b.beat_valid,
        ] {
            s.next = false;
        }
        f(b);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
    }

    /// Slot J decided as M on a block of view `wd` (`short`: a full row's
    /// 8-bit field), as Protocol's `advance` does it: k moves to J + 1,
    /// prev to M, prev2 to PREV.
    fn decide(&mut self, wd: Option<u32>, short: bool) {
        self.step(|b| {
            b.decide.next = true;
            b.dec_ok.next = wd.is_some();
            b.dec_view.next = (wd.unwrap_or(0) as u64).into();
            b.dec_short.next = short;
        });
        self.b.k.next = ((J + 1) as u64).into();
        self.b.prev.next = (M as u64).into();
        self.b.prev2.next = (PREV as u64).into();
        self.step(|_| {});
    }

    /// The scan of one will_commit row beat; `found` with it, as VIEW
    /// reads it with the fetch's `done`; and the block's view once
    /// registered.
    fn scan(&mut self, row: &[u32; 16]) -> Option<u32> {
        self.step(|b| b.scan_start.next = true);
        let mut v = Bits::<BEAT_BITS>::default();
        for (i, w) in row.iter().enumerate() {
            v.set_bits::<32>(32 * i, (*w as u64).into());
        }
        self.b.beat.next = v;
        self.b.beat_valid.next = true;
        assert!(simulate(&mut self.b, 100));
        let found = self.b.found.val();
        self.step(|b| b.beat_valid.next = true);
        self.step(|_| {});
        assert_eq!(self.b.found.val(), found, "found stays until the next scan");
        found.then(|| self.b.tv.val().to_u32())
    }
}

/// A will_commit row beat with (tag(w, k), m) in the lanes given.
fn row(lanes: &[(usize, u32, u32, u32)]) -> [u32; 16] {
    let mut r = [0; 16];
    for &(x, w, k, m) in lanes {
        r[2 * x] = vote_tag(w, k);
        r[2 * x + 1] = m;
    }
    r
}

#[test]
fn the_decided_blocks_view_is_armed_while_k_is_the_next_slot() {
    let mut t = Bench::new(3, 0, 2);
    assert!(!t.b.armed.val(), "nothing decided");
    t.decide(Some(1), false);
    assert!(t.b.armed.val());
    assert_eq!(
        (
            t.b.tk.val().to_u32(),
            t.b.tm.val().to_u32(),
            t.b.tprev.val().to_u32()
        ),
        (J, M, PREV),
        "the block: slot k − 1, dec[k − 1], dec[k − 2]"
    );
    // The row read: will_commit[s(k − 1)].
    let mb = Mailbox::v3(N, G, SB);
    assert_eq!(
        t.b.row_word.val().to_u32() as usize,
        mb.vote_row(Region::WillCommit, (J as usize - 1) % G)
    );
    // dec[k − 2] unknown (after R23's step back): not armed.
    t.b.prev2_ok.next = false;
    t.step(|_| {});
    assert!(!t.b.armed.val());
    t.b.prev2_ok.next = true;
    // k moves on: slot J is no longer the one decided last.
    t.b.k.next = ((J + 2) as u64).into();
    t.step(|_| {});
    assert!(!t.b.armed.val());
    // A catch-up's decision (view not known): not armed.
    let mut t = Bench::new(3, 0, 2);
    t.decide(None, false);
    assert!(!t.b.armed.val());
    // A decision on a block of the replica's own view: not armed (no
    // honest peer's will_commit of a later view can be in the row).
    let mut t = Bench::new(3, 0, 2);
    t.decide(Some(2), false);
    assert!(!t.b.armed.val());
    // Reset drops it.
    let mut t = Bench::new(3, 0, 2);
    t.decide(Some(0), false);
    assert!(t.b.armed.val());
    t.step(|b| b.rst_n.next = false);
    t.b.rst_n.next = true;
    t.step(|_| {});
    assert!(!t.b.armed.val());
}

#[test]
fn a_peers_will_commit_of_a_view_above_the_decided_blocks_is_helped() {
    // Decided at view 0; this replica (0) is in view 2.
    let mut t = Bench::new(3, 0, 2);
    t.decide(Some(0), false);
    assert_eq!(t.scan(&[0; 16]), None, "an empty row");
    // Replica 1's will_commit of (1, J, M): helped at view 1.
    assert_eq!(t.scan(&row(&[(1, 1, J, M)])), Some(1));
    // Of view 2, the view it decided in: helped at 2.
    assert_eq!(t.scan(&row(&[(2, 2, J, M)])), Some(2));
    // Of view 3, above it: no honest peer's, not helped (a Byzantine
    // peer's will_commits draw at most one share per view passed).
    assert_eq!(t.scan(&row(&[(2, 3, J, M)])), None);
    // Not helped: of the decided block's view, another m, another slot,
    // this replica's own lane, a lane past n.
    for (what, r) in [
        ("view 0", row(&[(1, 0, J, M)])),
        ("another m", row(&[(1, 1, J, M + 1)])),
        ("another slot", row(&[(1, 1, J + 1, M)])),
        ("its own lane", row(&[(0, 1, J, M)])),
        ("a lane past n", row(&[(3, 1, J, M)])),
    ] {
        assert_eq!(t.scan(&r), None, "{what}");
    }
    // Not armed (k moved on): nothing is found.
    t.b.k.next = ((J + 2) as u64).into();
    t.step(|_| {});
    assert_eq!(t.scan(&row(&[(1, 1, J, M)])), None);
}

#[test]
fn a_view_helped_is_not_helped_again_a_later_one_is() {
    let mut t = Bench::new(5, 3, 4);
    t.decide(Some(2), false);
    assert_eq!(t.scan(&row(&[(1, 2, J, M)])), None, "the decided view");
    assert_eq!(t.scan(&row(&[(1, 3, J, M)])), Some(3));
    t.step(|b| b.helped.next = true);
    assert_eq!(t.scan(&row(&[(1, 3, J, M)])), None, "helped at 3");
    assert_eq!(t.scan(&row(&[(1, 2, J, M)])), None, "below the one helped");
    // The first lane that qualifies: lane 1's view 3 is helped, lane 4's
    // view 4 is.
    assert_eq!(t.scan(&row(&[(1, 3, J, M), (4, 4, J, M)])), Some(4));
    t.step(|b| b.helped.next = true);
    assert_eq!(t.scan(&row(&[(4, 4, J, M)])), None);
    // The next decision (slot J + 1, m = M + 1) forgets the view helped.
    t.step(|b| {
        b.decide.next = true;
        b.dec_ok.next = true;
        b.dec_view.next = 2u64.into();
        b.dec_short.next = false;
    });
    t.b.k.next = ((J + 2) as u64).into();
    t.b.prev.next = ((M + 1) as u64).into();
    t.step(|_| {});
    assert_eq!(t.b.tk.val().to_u32(), J + 1);
    assert_eq!(t.scan(&row(&[(1, 3, J + 1, M + 1)])), Some(3));
}

#[test]
fn views_are_read_from_the_tags_field_nearest_to_the_replicas_view() {
    // This replica in view 300 (field 44); decided at 290.
    let mut t = Bench::new(3, 1, 300);
    t.decide(Some(290), false);
    // A tag of view 295 (field 39): 295.
    assert_eq!(t.scan(&row(&[(0, 295, J, M)])), Some(295));
    // A tag of view 310 (field 54): above the view it decided in, which
    // no honest peer's will_commit can be: not helped.
    assert_eq!(t.scan(&row(&[(2, 310, J, M)])), None);
    // The view it decided in itself: helped.
    assert_eq!(t.scan(&row(&[(2, 300, J, M)])), Some(300));
    // A tag of view 280 (field 24): below 290, not helped.
    assert_eq!(t.scan(&row(&[(0, 280, J, M)])), None);
    // A full row's view field (R26) is widened the same way: field 34
    // in view 300 is view 290, so 290 is not above it and 291 is.
    let mut t = Bench::new(3, 1, 300);
    t.decide(Some(290 & 0xff), true);
    assert_eq!(t.scan(&row(&[(0, 290, J, M)])), None);
    assert_eq!(t.scan(&row(&[(0, 291, J, M)])), Some(291));
    // Field 44 in view 300 is view 300 itself: not armed.
    let mut t = Bench::new(3, 1, 300);
    t.decide(Some(300 & 0xff), true);
    assert!(!t.b.armed.val());
}

/// xorshift64*: the random rows below, reproducible.
fn rng(s: &mut u64) -> u64 {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

#[test]
fn the_scan_picks_the_lane_the_reference_picks_on_random_rows() {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut helped = 0;
    for case in 0..300 {
        let n = [3usize, 5, 7, 8][(rng(&mut s) % 4) as usize];
        let id = (rng(&mut s) % n as u64) as usize;
        let view = 250 + (rng(&mut s) % 20) as u32;
        let wd = view - 1 - (rng(&mut s) % 6) as u32;
        let mut t = Bench::new(n, id, view);
        t.decide(Some(wd), false);
        let mut r = [0u32; 16];
        for x in 0..N {
            // Each lane: empty, or a vote near the decided one.
            match rng(&mut s) % 5 {
                0 => {}
                1 => {
                    r[2 * x] = vote_tag(wd + (rng(&mut s) % 8) as u32 - 4, J);
                    r[2 * x + 1] = M;
                }
                2 => {
                    r[2 * x] = vote_tag(wd, J + (rng(&mut s) % 3) as u32);
                    r[2 * x + 1] = M + (rng(&mut s) % 2) as u32;
                }
                _ => {
                    r[2 * x] = vote_tag(wd + (rng(&mut s) % 4) as u32, J);
                    r[2 * x + 1] = M;
                }
            }
        }
        let want = help_lane(&r, n, id, (view, J, M), (wd, view), None).map(|(_, w)| w);
        assert_eq!(t.scan(&r), want, "case {case}: n {n}, id {id}, row {r:x?}");
        if let Some(w) = want {
            helped += 1;
            t.step(|b| b.helped.next = true);
            let again = help_lane(&r, n, id, (view, J, M), (wd, view), Some(w)).map(|(_, w)| w);
            assert_eq!(t.scan(&r), again, "case {case}, after helping {w}");
        }
    }
    assert!(helped > 100, "the random rows help often: {helped}");
}
