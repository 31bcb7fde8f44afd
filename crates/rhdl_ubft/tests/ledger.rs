//! Ledger, cycle by cycle, against docs/ledger.md: W set by FAST's
//! will_commit and ended by the discharge or by a decision of another
//! value at its slot; L only going up (slot first, then view); `ob` and
//! `near`; D at its grant; the constraint at c* only, until the next view
//! change or c*'s decision; a run's start.

use rhdl_ubft::controller::ledger::Ledger;
use rhdl_ubft::params::G;
use rust_hdl::prelude::*;

struct Bench {
    b: Ledger,
}

/// The slot's registers: (k, view, m, prev).
type Slot = (u32, u32, u32, u32);

impl Bench {
    fn new() -> Self {
        let mut b = Ledger::default();
        b.connect_all();
        let mut t = Bench { b };
        t.step(|b| b.start.next = true);
        t
    }

    /// One cycle: every strobe low but what `f` sets.
    fn step(&mut self, f: impl FnOnce(&mut Ledger)) {
        let b = &mut self.b;
        for s in [
            &mut b.start,
            &mut b.set_w,
            &mut b.deciding,
            &mut b.set_l,
            &mut b.set_d,
            &mut b.set_cons,
            &mut b.next_view,
            &mut b.taken,
            &mut b.rerun_taken,
            &mut b.w_shared,
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

    fn at(&mut self, (k, v, m, prev): Slot) {
        self.b.k.next = (k as u64).into();
        self.b.view_no.next = (v as u64).into();
        self.b.m.next = (m as u64).into();
        self.b.prev.next = (prev as u64).into();
        assert!(simulate(&mut self.b, 100));
    }

    fn commit(&mut self, (k, v, m, prev): Slot) {
        self.step(|b| {
            b.set_l.next = true;
            b.t_k.next = (k as u64).into();
            b.t_view.next = (v as u64).into();
            b.t_m.next = (m as u64).into();
            b.t_prev.next = (prev as u64).into();
        });
    }

    fn l(&self) -> Option<Slot> {
        let b = &self.b;
        b.l_ok.val().then(|| {
            (
                b.l_c.val().to_u32(),
                b.l_w.val().to_u32(),
                b.l_m.val().to_u32(),
                b.l_prev.val().to_u32(),
            )
        })
    }

    fn w(&self) -> Slot {
        let b = &self.b;
        (
            b.w_k.val().to_u32(),
            b.w_w.val().to_u32(),
            b.w_m.val().to_u32(),
            b.w_prev.val().to_u32(),
        )
    }
}

#[test]
fn l_only_goes_up_slot_first_then_view() {
    let mut t = Bench::new();
    assert_eq!(t.l(), None);
    t.commit((5, 1, 50, 40));
    assert_eq!(t.l(), Some((5, 1, 50, 40)));
    // Lower slot in a higher view (R23's rerun below a later COMMIT): kept.
    t.commit((4, 3, 41, 30));
    assert_eq!(t.l(), Some((5, 1, 50, 40)));
    // Same slot, same view: kept; same slot, higher view: taken.
    t.commit((5, 1, 51, 40));
    assert_eq!(t.l(), Some((5, 1, 50, 40)));
    t.commit((5, 2, 52, 40));
    assert_eq!(t.l(), Some((5, 2, 52, 40)));
    t.commit((6, 0, 60, 52));
    assert_eq!(t.l(), Some((6, 0, 60, 52)));
    // A run's start forgets it.
    t.step(|b| b.start.next = true);
    assert_eq!(t.l(), None);
}

#[test]
fn w_is_an_obligation_until_l_covers_it_or_it_ends() {
    let mut t = Bench::new();
    assert!(!t.b.ob.val());
    t.at((7, 2, 70, 60));
    t.step(|b| b.set_w.next = true);
    assert_eq!(t.w(), (7, 2, 70, 60));
    assert!(t.b.ob.val());
    // L below W.b does not cover it; at W.b it does.
    t.commit((6, 3, 60, 50));
    assert!(t.b.ob.val());
    t.commit((7, 2, 70, 60));
    assert!(!t.b.ob.val());

    // A decision at W.b: of W's value, W stays; of another, it ends.
    let mut t = Bench::new();
    t.at((7, 2, 70, 60));
    t.step(|b| b.set_w.next = true);
    t.step(|b| b.deciding.next = true);
    assert!(t.b.ob.val());
    t.at((7, 2, 71, 60));
    t.step(|b| b.deciding.next = true);
    assert!(!t.b.ob.val());
    // ... but not a decision at another slot.
    t.at((8, 2, 80, 70));
    t.step(|b| b.set_w.next = true);
    t.at((9, 2, 99, 80));
    t.step(|b| b.deciding.next = true);
    assert!(t.b.ob.val());
}

#[test]
fn reach_ok_keeps_w_within_half_the_window_below_k_plus_1_while_the_obligation_stands() {
    let mut t = Bench::new();
    t.at((10, 0, 1, 0));
    t.step(|b| b.set_w.next = true);
    let half = ((G - 1) / 2) as u32;
    for (k, ok) in [
        (10, true),
        // A catch-up of k leaves W.b at (k + 1) - 10 below the new k.
        (9 + half, true),
        (10 + half, false),
        // One above k, after R23's step back, is within reach; two are not.
        (9, true),
        (8, false),
    ] {
        t.at((k, 0, 1, 0));
        assert_eq!(t.b.reach_ok.val(), ok, "k = {k}, W.b = 10");
    }
    // Without an obligation (a COMMIT at W.b covers W) any catch-up is.
    t.at((10 + half, 0, 1, 0));
    t.commit((10, 0, 1, 0));
    t.at((10 + half, 0, 1, 0));
    assert!(!t.b.ob.val() && t.b.reach_ok.val());
}

#[test]
fn share_due_asks_once_for_ws_share_where_l_covers_its_slot_only_from_an_earlier_view() {
    // W = (k 5, view 1), decided; k moves on to 6.
    let w = |l: Option<Slot>| {
        let mut t = Bench::new();
        if let Some(l) = l {
            t.commit(l);
        }
        t.at((5, 1, 50, 40));
        t.step(|b| b.set_w.next = true);
        t.at((6, 1, 60, 50));
        t
    };
    // L = (5, view 0): covers the slot, not the view. Due, with no
    // obligation, until the share is written; then not for this W.
    let mut t = w(Some((5, 0, 50, 40)));
    assert!(!t.b.ob.val());
    assert!(t.b.share_due.val());
    t.step(|b| b.w_shared.next = true);
    assert!(!t.b.share_due.val());
    // A new W asks again: W = (6, view 1), once L covers slot 6.
    t.at((6, 1, 60, 50));
    t.step(|b| b.set_w.next = true);
    t.at((7, 1, 70, 60));
    assert!(t.b.ob.val() && !t.b.share_due.val());
    t.commit((6, 0, 60, 50));
    assert!(t.b.share_due.val());
    // ... unless it is an obligation: the bridge writes the share.
    let t = w(None);
    assert!(t.b.ob.val() && !t.b.share_due.val());
    // L at W's slot from W's view or later covers it.
    let t = w(Some((5, 1, 50, 40)));
    assert!(!t.b.share_due.val());
    let t = w(Some((5, 2, 50, 40)));
    assert!(!t.b.share_due.val());
    // L at a later slot: due, as the model's prev1 share is.
    let mut t = w(None);
    t.commit((6, 1, 60, 50));
    assert!(!t.b.ob.val() && t.b.share_due.val());
    // Only while W.b = k - 1: not at k = W.b, nor two slots on.
    let mut t = w(Some((5, 0, 50, 40)));
    t.at((7, 1, 70, 60));
    assert!(!t.b.share_due.val());
    t.at((5, 1, 50, 40));
    assert!(!t.b.share_due.val());
}

#[test]
fn d_is_taken_at_its_grant() {
    let mut t = Bench::new();
    t.step(|b| {
        b.set_d.next = true;
        b.ev_view.next = 3.into();
        b.ev_m.next = 33.into();
        b.ev_prev.next = 22.into();
        b.ev_x.next = 2.into();
    });
    t.step(|b| {
        b.ev_view.next = 4.into();
        b.ev_m.next = 44.into();
        b.ev_x.next = 0.into();
    });
    let b = &t.b;
    assert_eq!(
        (
            b.d_w.val().to_u32(),
            b.d_m.val().to_u32(),
            b.d_prev.val().to_u32(),
            b.d_x.val().to_u32()
        ),
        (3, 33, 22, 2)
    );
}

#[test]
fn ev_above_l_compares_the_events_view_at_k_with_l() {
    let above = |t: &mut Bench, k: u32, view: u32| {
        t.b.k.next = (k as u64).into();
        t.b.ev_view.next = (view as u64).into();
        assert!(simulate(&mut t.b, 100));
        t.b.ev_above_l.val()
    };
    let mut t = Bench::new();
    // No L: every COMMIT is above it.
    assert!(above(&mut t, 5, 0));
    // L = (k 5, view 2): a later view at 5, or any view at a later slot.
    t.commit((5, 2, 7, 6));
    assert!(!above(&mut t, 5, 1));
    assert!(!above(&mut t, 5, 2));
    assert!(above(&mut t, 5, 3));
    assert!(above(&mut t, 6, 0));
    assert!(!above(&mut t, 4, 9));
}

#[test]
fn the_constraint_holds_at_c_star_until_its_decision_or_the_next_view() {
    let set = |b: &mut Ledger| {
        b.set_cons.next = true;
        b.cons_c.next = 7.into();
        b.cons_in_m.next = 77.into();
    };
    let mut t = Bench::new();
    t.at((6, 1, 0, 0));
    t.step(set);
    assert!(!t.b.constrained.val(), "only at c*");
    assert_eq!(t.b.cons_m.val().to_u32(), 77);
    // A decision below c* keeps it.
    t.step(|b| b.taken.next = true);
    t.at((7, 1, 0, 0));
    assert!(t.b.constrained.val());
    t.step(|b| b.taken.next = true);
    assert!(!t.b.constrained.val(), "c*'s decision ends it");

    for end in [
        (|b: &mut Ledger| b.next_view.next = true) as fn(&mut Ledger),
        |b| b.rerun_taken.next = true,
        |b| b.start.next = true,
    ] {
        let mut t = Bench::new();
        t.at((7, 1, 0, 0));
        t.step(set);
        assert!(t.b.constrained.val());
        t.step(end);
        assert!(!t.b.constrained.val());
    }
}
