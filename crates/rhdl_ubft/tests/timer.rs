//! Timer, cycle by cycle, against docs/timer.md: how many misses each wait
//! allows (`wait_polls` << d, d from the table), the doubling at a view
//! change and the halving at a decision (not a rerun's), T_vc while VIEW
//! holds the slot and after, the timeouts count and the restart of the
//! wait, Close's timer, and reset.
//!
//! The block's `update()` is stepped directly; each test drives the
//! strobes a cycle at a time as Protocol would.

use rhdl_ubft::controller::timer::Timer;
use rhdl_ubft::params::{VC_SHIFT, VC_SHIFT_F1, WAIT_DOUBLINGS};
use rust_hdl::prelude::*;

const WAIT: u64 = 4;

/// The strobes of one cycle.
#[derive(Clone, Copy, Default)]
struct Ins {
    rst: bool,
    start: bool,
    clear: bool,
    close_begin: bool,
    missed: bool,
    fast_missed: bool,
    at_prepare: bool,
    slow_holding: bool,
    view_holding: bool,
    next_view: bool,
    decided: bool,
    rerun: bool,
    slow_decided: bool,
    closing: bool,
    fast_failed: bool,
    fast_decided: bool,
    probe_missed: bool,
}

struct Bench {
    b: Timer,
}

impl Bench {
    fn new(n: u8) -> Self {
        let mut b = Timer::default();
        b.connect_all();
        b.wait_polls.next = WAIT.into();
        b.n.next = (n as u64).into();
        let mut t = Bench { b };
        // A cycle for `slow_shift` to follow n, then a run's start.
        t.step(Ins::default());
        t.step(Ins {
            start: true,
            ..Ins::default()
        });
        t
    }

    fn step(&mut self, i: Ins) {
        let b = &mut self.b;
        b.rst_n.next = !i.rst;
        b.start.next = i.start;
        b.clear.next = i.clear;
        b.close_begin.next = i.close_begin;
        b.missed.next = i.missed;
        b.fast_missed.next = i.fast_missed;
        b.at_prepare.next = i.at_prepare;
        b.slow_holding.next = i.slow_holding;
        b.view_holding.next = i.view_holding;
        b.next_view.next = i.next_view;
        b.decided.next = i.decided;
        b.rerun.next = i.rerun;
        b.slow_decided.next = i.slow_decided;
        b.closing.next = i.closing;
        b.fast_failed.next = i.fast_failed;
        b.fast_decided.next = i.fast_decided;
        b.probe_missed.next = i.probe_missed;
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
    }

    fn timeouts(&self) -> u32 {
        self.b.timeouts.val().to_u32()
    }

    /// Misses, each counted towards the wait `miss` describes, until
    /// `expiring` says the next one ends it; then that miss. Returns the
    /// misses the wait allowed (the one that timed out included) and
    /// checks that it counted one timeout and restarted the wait.
    fn wait(&mut self, miss: Ins, expiring: impl Fn(&Timer) -> bool) -> u64 {
        let before = self.timeouts();
        let mut misses = 0;
        while !expiring(&self.b) {
            self.step(miss);
            misses += 1;
            assert!(misses < 1 << 20, "the wait never ends");
            assert_eq!(self.timeouts(), before, "a timeout before `expiring`");
        }
        self.step(miss);
        assert_eq!(self.timeouts(), before + 1, "the last miss is a timeout");
        assert!(!expiring(&self.b), "the wait restarts at 0");
        misses + 1
    }
}

fn fast_miss() -> Ins {
    Ins {
        missed: true,
        fast_missed: true,
        ..Ins::default()
    }
}

fn slow_miss() -> Ins {
    Ins {
        missed: true,
        slow_holding: true,
        ..Ins::default()
    }
}

fn view_miss() -> Ins {
    Ins {
        missed: true,
        view_holding: true,
        ..Ins::default()
    }
}

#[test]
fn each_wait_allows_wait_polls_shifted_by_its_doublings() {
    for (n, vc) in [(3, VC_SHIFT_F1), (5, VC_SHIFT)] {
        let mut t = Bench::new(n);
        // LEADER's idle polls and FAST's votes: `streak` + 1 = 1.
        assert_eq!(t.wait(fast_miss(), |b| b.fast_expiring.val()), WAIT << 1);
        // SLOW's: `streak` + `slow_shift`.
        assert_eq!(t.wait(slow_miss(), |b| b.slow_expiring.val()), WAIT << vc);
        // VIEW's: `vc_wait` follows n while VIEW holds the slot (set on the
        // first cycle it holds, so the first miss counts against T_vc).
        t.step(Ins {
            view_holding: true,
            ..Ins::default()
        });
        assert_eq!(t.wait(view_miss(), |b| b.vc_expiring.val()), WAIT << vc);
        assert_eq!(t.timeouts(), 3);
    }
}

#[test]
fn a_view_change_doubles_the_wait_and_a_decision_halves_it() {
    let mut t = Bench::new(3);
    let nv = Ins {
        next_view: true,
        ..Ins::default()
    };
    t.step(nv);
    t.step(nv);
    assert_eq!(t.wait(fast_miss(), |b| b.fast_expiring.val()), WAIT << 3);
    // A rerun's decision is no progress.
    t.step(Ins {
        decided: true,
        rerun: true,
        ..Ins::default()
    });
    assert_eq!(t.wait(fast_miss(), |b| b.fast_expiring.val()), WAIT << 3);
    t.step(Ins {
        decided: true,
        ..Ins::default()
    });
    assert_eq!(t.wait(fast_miss(), |b| b.fast_expiring.val()), WAIT << 2);
    // Up to WAIT_DOUBLINGS view changes count.
    for _ in 0..WAIT_DOUBLINGS + 3 {
        t.step(nv);
    }
    assert_eq!(
        t.wait(fast_miss(), |b| b.fast_expiring.val()),
        WAIT << (WAIT_DOUBLINGS + 1)
    );
}

#[test]
fn t_vc_lasts_until_the_first_decision_that_is_not_a_rerun() {
    let base_miss = Ins {
        missed: true,
        ..Ins::default()
    };
    let mut t = Bench::new(3);
    t.step(Ins {
        view_holding: true,
        ..Ins::default()
    });
    // VIEW lets go; T_vc stays through a rerun's decision: WAIT - 1
    // misses are far from its end.
    t.step(Ins {
        decided: true,
        rerun: true,
        ..Ins::default()
    });
    for _ in 0..WAIT - 1 {
        t.step(base_miss);
    }
    assert!(!t.b.vc_expiring.val());
    // After the next decision it is the path's wait again.
    t.step(Ins {
        decided: true,
        clear: true,
        ..Ins::default()
    });
    for _ in 0..WAIT - 1 {
        t.step(base_miss);
    }
    assert!(t.b.vc_expiring.val());
}

#[test]
fn fasts_prepare_waits_as_long_as_slow_after_a_slow_decision() {
    let mut t = Bench::new(3);
    let at_prepare = Ins {
        at_prepare: true,
        ..fast_miss()
    };
    assert_eq!(t.wait(at_prepare, |b| b.prep_expiring.val()), WAIT << 1);
    t.step(Ins {
        decided: true,
        slow_decided: true,
        ..Ins::default()
    });
    assert_eq!(
        t.wait(at_prepare, |b| b.prep_expiring.val()),
        WAIT << (VC_SHIFT_F1 + 1)
    );
    // FAST's vote waits are not lengthened.
    assert_eq!(t.wait(fast_miss(), |b| b.fast_expiring.val()), WAIT << 1);
    // A view change ends it (and doubles every wait once).
    t.step(Ins {
        next_view: true,
        ..Ins::default()
    });
    assert_eq!(t.wait(at_prepare, |b| b.prep_expiring.val()), WAIT << 2);
    // So does the next run's start.
    t.step(Ins {
        decided: true,
        slow_decided: true,
        ..Ins::default()
    });
    t.step(Ins {
        start: true,
        ..Ins::default()
    });
    assert_eq!(t.wait(at_prepare, |b| b.prep_expiring.val()), WAIT << 1);
}

#[test]
fn clear_restarts_the_wait_and_start_and_reset_zero_the_count() {
    let mut t = Bench::new(3);
    for _ in 0..(WAIT << 1) - 1 {
        t.step(fast_miss());
    }
    assert!(t.b.fast_expiring.val());
    t.step(Ins {
        clear: true,
        ..Ins::default()
    });
    assert!(!t.b.fast_expiring.val());
    for _ in 0..3 {
        t.wait(fast_miss(), |b| b.fast_expiring.val());
    }
    assert_eq!(t.timeouts(), 3);
    t.step(Ins {
        start: true,
        ..Ins::default()
    });
    assert_eq!(t.timeouts(), 0);
    t.wait(fast_miss(), |b| b.fast_expiring.val());
    t.step(Ins {
        rst: true,
        ..Ins::default()
    });
    assert_eq!(t.timeouts(), 0);
    assert_eq!(t.wait(fast_miss(), |b| b.fast_expiring.val()), WAIT << 1);
}

#[test]
fn closes_timer_is_set_by_a_timeout_while_closing() {
    let mut t = Bench::new(3);
    // A timeout outside Close does not set it.
    t.wait(slow_miss(), |b| b.slow_expiring.val());
    assert!(!t.b.close_to.val());
    t.step(Ins {
        close_begin: true,
        ..Ins::default()
    });
    let closing = Ins {
        closing: true,
        ..slow_miss()
    };
    for _ in 0..(WAIT << VC_SHIFT_F1) - 1 {
        t.step(closing);
        assert!(!t.b.close_to.val(), "set before the timeout");
    }
    t.step(closing);
    assert_eq!(t.timeouts(), 2);
    assert!(t.b.close_to.val());
    t.step(Ins {
        close_begin: true,
        ..Ins::default()
    });
    assert!(!t.b.close_to.val());
}

#[test]
fn a_probe_waits_for_votes_half_the_fast_wait_and_leaves_the_others_alone() {
    let probe_miss = Ins {
        probe_missed: true,
        ..fast_miss()
    };
    let mut t = Bench::new(3);
    assert_eq!(t.wait(probe_miss, |b| b.probe_expiring.val()), WAIT);
    // The wait is as long as ever once FAST is past the probe.
    assert_eq!(t.wait(fast_miss(), |b| b.fast_expiring.val()), WAIT << 1);
    // It doubles with the view changes like the others: `streak`.
    let nv = Ins {
        next_view: true,
        ..Ins::default()
    };
    t.step(nv);
    t.step(nv);
    assert_eq!(t.wait(probe_miss, |b| b.probe_expiring.val()), WAIT << 2);
    // `probe_missed` does not reach SLOW's and VIEW's waits (Protocol
    // raises it only with FAST's misses, but the Timer does not rely on
    // that for the others).
    let vc = VC_SHIFT_F1;
    assert_eq!(
        t.wait(
            Ins {
                probe_missed: true,
                ..slow_miss()
            },
            |b| b.slow_expiring.val()
        ),
        WAIT << (2 + vc)
    );
    assert_eq!(t.timeouts(), 4);
}

#[test]
fn the_probe_mask_doubles_at_each_failure_to_2_to_the_5_and_clears_at_a_fast_decision_or_a_view() {
    use rhdl_ubft::params::{PROBE_SHIFT, PROBE_SLOTS};
    let mask = |t: &Bench| t.b.probe_mask.val().to_u64();
    let failed = Ins {
        fast_failed: true,
        ..Ins::default()
    };
    let mut t = Bench::new(3);
    assert_eq!(mask(&t), 0, "a run starts with no skip");
    // 2^j - 1 after j failures, up to PROBE_SHIFT; then it stays.
    for j in 1..=PROBE_SHIFT + 2 {
        t.step(failed);
        assert_eq!(
            mask(&t),
            (1 << j.min(PROBE_SHIFT)) - 1,
            "after {j} failures"
        );
    }
    assert_eq!(mask(&t) + 1, PROBE_SLOTS);
    // A slow decision and a miss leave it.
    for i in [
        Ins {
            decided: true,
            slow_decided: true,
            ..Ins::default()
        },
        fast_miss(),
    ] {
        t.step(i);
        assert_eq!(mask(&t), 31);
    }
    // A fast decision clears it; a failure in the same cycle loses.
    t.step(Ins {
        fast_decided: true,
        fast_failed: true,
        ..Ins::default()
    });
    assert_eq!(mask(&t), 0);
    for (end, i) in [
        (
            "a view change",
            Ins {
                next_view: true,
                ..Ins::default()
            },
        ),
        (
            "start",
            Ins {
                start: true,
                ..Ins::default()
            },
        ),
        (
            "reset",
            Ins {
                rst: true,
                ..Ins::default()
            },
        ),
    ] {
        t.step(failed);
        t.step(failed);
        assert_eq!(mask(&t), 3);
        t.step(i);
        assert_eq!(mask(&t), 0, "{end} clears it");
    }
}

#[test]
fn base_waited_rises_after_wait_polls_misses_in_a_row_at_any_streak() {
    let mut t = Bench::new(5);
    // Two view changes: SLOW's own wait is wait_polls << (2 + VC_SHIFT), the
    // base wait still wait_polls.
    for _ in 0..2 {
        t.step(Ins {
            next_view: true,
            ..Ins::default()
        });
    }
    for _ in 0..WAIT {
        assert!(!t.b.base_waited.val());
        t.step(slow_miss());
    }
    assert!(t.b.base_waited.val(), "after wait_polls misses");
    assert!(!t.b.slow_expiring.val(), "long before SLOW's timeout");
    t.step(slow_miss());
    assert!(t.b.base_waited.val(), "and on");
    t.step(Ins {
        clear: true,
        ..Ins::default()
    });
    assert!(!t.b.base_waited.val(), "a clear restarts it");
}
