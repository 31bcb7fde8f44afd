//! Timer: the poll wait of the slot's machines, the timeouts, and how long
//! each machine's wait is (docs/timer.md).
//!
//! A machine reports each poll that found nothing (`missed`); the timer
//! counts them in `waited` and tells the machines when the next miss is the
//! last of their wait (`*_expiring`), so the machine that misses then hands
//! over itself, and the timer counts a timeout (`timeouts`). A wait is
//! `wait_polls` << d polls, with d:
//!
//! | wait | d | output |
//! | --- | --- | --- |
//! | LEADER's idle polls, FAST's votes | `streak` + 1 | `fast_expiring` |
//! | FAST's votes at a probe | `streak` | `probe_expiring` |
//! | FAST's prepare after a slow decision (`prep_long`) | `streak` + `slow_shift` + 1 | `prep_expiring` |
//! | FAST's prepare otherwise | `streak` + 1 | `prep_expiring` |
//! | SLOW (normal and seal mode) | `streak` + `slow_shift` | `slow_expiring` |
//! | VIEW, and SLOW in deliver mode (T_vc) | `streak` + `vc_wait` | `vc_expiring` |
//!
//! - `streak`: the view changes since the last decision (`next_view`), up
//!   to `WAIT_DOUBLINGS`; each decision that is not a rerun's halves the
//!   wait again (docs/recovery.md R14).
//! - `vc_wait`: `params::vc_shift(n)` while VIEW holds the slot, 0 from
//!   the first decision after it that is not a rerun's: T_vc, the view
//!   change's signer steps.
//! - `slow_shift`: `params::vc_shift(n)` at every slot (a slow-path wait
//!   spans its peers' signer steps).
//! - `prep_long`: the last decision of this run was on the slow path (set
//!   at each decision, cleared at a view change and a run's start).
//! - The +1: LEADER's and FAST's polls read ahead (`fetch_poll`,
//!   docs/fetch.md), two reads per round trip (`FAST_POLL_SHIFT`).
//!
//! Every output is a function of the registers and of `wait_polls` only,
//! so a machine's `missed` never reaches its own `expiring` in the same
//! cycle.
//!
//! Which wait a miss counts towards (the machine that missed): FAST's or
//! LEADER's (`fast_missed`; the prepare's wait when `at_prepare`), VIEW's
//! while `view_holding`, SLOW's while `slow_holding`, else the base wait
//! (`wait_polls` << `streak`). A miss at its wait's limit is a timeout:
//! `timeouts` counts up and `waited` restarts at 0; any other miss counts
//! `waited` up.
//!
//! Close's timer (recovery.md R28): `close_to` is cleared at `close_begin`
//! and set by a timeout while `closing`.
//!
//! The sticky slow path (protocol.md): `probe_mask` is 2^j − 1, j the
//! times FAST's wait for votes ran out (`fast_failed`) since FAST last
//! decided (`fast_decided`), the view changed (`next_view`) or the run
//! started, up to `PROBE_SHIFT`;
//! Protocol skips FAST's wait at a slot whose k has a bit of the mask set.
//! At the other slots, the probes, FAST waits for votes half its usual
//! wait (Protocol gives FAST `probe_expiring` there, and marks its misses
//! `probe_missed`): a timely cluster's votes come within a round trip,
//! and a probe that gives up early costs a slow slot, never safety.
//!
//! Ports in: `wait_polls`, `n`; the strobes `start` (a run starts: every
//! count to 0), `clear` (a machine restarts its wait), `close_begin`,
//! `missed` and its source (`fast_missed`, `at_prepare`, `slow_holding`,
//! `view_holding`, `probe_missed`), `next_view`, `decided` with `rerun`
//! and `slow_decided`, `closing`, `fast_failed`, `fast_decided`. Out: the five `*_expiring`,
//! `timeouts`, `close_to`, `probe_mask`.
//!
//! Timing: a strobe at cycle c shows in the outputs from c + 1. Reset
//! (`rst_n`, synchronous, active low): `waited`, `streak`, `vc_wait`,
//! `timeouts`, `prep_long`, `close_to` and `probe_mask` are 0 the next
//! cycle.

use crate::params::{STREAK_BITS, VC_SHIFT, VC_SHIFT_F1, WAITED_BITS, WAIT_DOUBLINGS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Timer {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub wait_polls: Signal<In, Bits<16>>,
    pub n: Signal<In, Bits<8>>,
    /// A run starts: `waited`, `streak`, `vc_wait` and `timeouts` to 0.
    pub start: Signal<In, Bit>,
    /// A machine restarts its wait (a new round, a state that waits).
    pub clear: Signal<In, Bit>,
    /// Close begins (R28): its wait starts, `close_to` clears.
    pub close_begin: Signal<In, Bit>,
    /// A poll found nothing; LEADER's or FAST's (`fast_missed`), at FAST's
    /// prepare (`at_prepare`); who holds the slot.
    pub missed: Signal<In, Bit>,
    pub fast_missed: Signal<In, Bit>,
    pub at_prepare: Signal<In, Bit>,
    pub slow_holding: Signal<In, Bit>,
    pub view_holding: Signal<In, Bit>,
    /// The miss is FAST's, waiting for votes at a probe of the sticky
    /// slow path: it counts towards `probe_expiring`'s wait.
    pub probe_missed: Signal<In, Bit>,
    /// A view change installs the next view.
    pub next_view: Signal<In, Bit>,
    /// The slot is decided; a rerun's decision (R23); on the slow path.
    pub decided: Signal<In, Bit>,
    pub rerun: Signal<In, Bit>,
    pub slow_decided: Signal<In, Bit>,
    /// Protocol is in Close.
    pub closing: Signal<In, Bit>,
    /// FAST's wait for votes ran out (FAST's `failed`: it hands the slot
    /// to SLOW); FAST decides its slot.
    pub fast_failed: Signal<In, Bit>,
    pub fast_decided: Signal<In, Bit>,
    /// The sticky slow path's probes (protocol.md, "The sticky slow
    /// path"): 2^j − 1, j the fast path's failures since the last fast
    /// decision or view change, up to `PROBE_SHIFT`; a slot whose k has a
    /// bit of it set skips FAST's wait.
    pub probe_mask: Signal<Out, Bits<5>>,
    /// The next miss ends the wait: LEADER's and FAST's votes, FAST's
    /// prepare, SLOW's, VIEW's (T_vc).
    pub fast_expiring: Signal<Out, Bit>,
    /// FAST's wait for votes at a probe: half of `fast_expiring`'s.
    pub probe_expiring: Signal<Out, Bit>,
    pub prep_expiring: Signal<Out, Bit>,
    pub slow_expiring: Signal<Out, Bit>,
    pub vc_expiring: Signal<Out, Bit>,
    pub timeouts: Signal<Out, Bits<32>>,
    pub close_to: Signal<Out, Bit>,
    /// The misses in a row reach the base wait, `wait_polls` (no
    /// doublings). SLOW takes it: a certificate short that long lets
    /// Protocol adopt a peer's COMMIT of its own view (protocol.md, "SLOW's
    /// normal mode adopts a peer's certificate only where it cannot do
    /// better").
    pub base_waited: Signal<Out, Bit>,
    waited: DFF<Bits<WAITED_BITS>>,
    streak: DFF<Bits<STREAK_BITS>>,
    vc_wait: DFF<Bits<STREAK_BITS>>,
    slow_shift: DFF<Bits<STREAK_BITS>>,
    prep_long: DFF<Bit>,
    count: DFF<Bits<32>>,
    close_q: DFF<Bit>,
    mask: DFF<Bits<5>>,
    // Combinational temporaries.
    vc_shift: Signal<Local, Bits<STREAK_BITS>>,
    timeout: Signal<Local, Bit>,
    fast_shift: Signal<Local, Bits<STREAK_BITS>>,
    max_streak: Constant<Bits<STREAK_BITS>>,
    vc_shift_f1: Constant<Bits<STREAK_BITS>>,
    vc_shift_big: Constant<Bits<STREAK_BITS>>,
}

impl Default for Timer {
    fn default() -> Self {
        block!(Timer {
            max_streak: Constant::new((WAIT_DOUBLINGS as u64).into()),
            vc_shift_f1: Constant::new((VC_SHIFT_F1 as u64).into()),
            vc_shift_big: Constant::new((VC_SHIFT as u64).into()),
            ;
            defaults:
            clock, rst_n, wait_polls, n, start, clear, close_begin, missed, fast_missed,
            at_prepare, slow_holding, view_holding, probe_missed, next_view, decided, rerun,
            slow_decided, closing, fast_failed, fast_decided, probe_mask, fast_expiring,
            probe_expiring,
            prep_expiring, slow_expiring,
            vc_expiring, timeouts, close_to, base_waited, waited, streak, vc_wait, slow_shift,
            prep_long, count, close_q, mask, vc_shift, timeout, fast_shift
        })
    }
}

impl Logic for Timer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, waited, streak, vc_wait, slow_shift, prep_long, count, close_q, mask
        );
        // The outputs, from the registers and `wait_polls` only.
        self.fast_expiring.next = (self.waited.q.val() + 1)
            >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val()) << (self.streak.q.val() + 1));
        self.probe_expiring.next = (self.waited.q.val() + 1)
            >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val()) << self.streak.q.val());
        // The wait FAST's or LEADER's miss counts towards: half for FAST's
        // wait for votes at a probe.
        if self.probe_missed.val() {
            self.fast_shift.next = self.streak.q.val();
        } else {
            self.fast_shift.next = self.streak.q.val() + 1;
        }
        if self.prep_long.q.val() {
            self.prep_expiring.next = (self.waited.q.val() + 1)
                >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                    << ((self.streak.q.val() + self.slow_shift.q.val()) + 1));
        } else {
            self.prep_expiring.next = (self.waited.q.val() + 1)
                >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                    << (self.streak.q.val() + 1));
        }
        self.slow_expiring.next = (self.waited.q.val() + 1)
            >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                << (self.streak.q.val() + self.slow_shift.q.val()));
        self.vc_expiring.next = (self.waited.q.val() + 1)
            >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                << (self.streak.q.val() + self.vc_wait.q.val()));
        self.timeouts.next = self.count.q.val();
        self.base_waited.next =
            self.waited.q.val() >= bit_cast::<WAITED_BITS, 16>(self.wait_polls.val());
        self.close_to.next = self.close_q.q.val();
        self.probe_mask.next = self.mask.q.val();
        // The sticky slow path: each failure of the fast path doubles the
        // gap between probes (the shift drops the top bit: at 2^5 - 1 it
        // stays); a fast decision ends it, and so does a view change (a
        // new leader, which may be what the fast path missed).
        if self.fast_failed.val() {
            self.mask.d.next = (self.mask.q.val() << 1) | 1;
        }
        if self.fast_decided.val() | self.next_view.val() {
            self.mask.d.next = 0.into();
        }

        // T_vc's doublings (params.rs `vc_shift`): VC_SHIFT_F1 at n = 3,
        // VC_SHIFT at n >= 5.
        if self.n.val() <= 3 {
            self.vc_shift.next = self.vc_shift_f1.val();
        } else {
            self.vc_shift.next = self.vc_shift_big.val();
        }
        self.slow_shift.d.next = self.vc_shift.val();
        // The miss at its wait's limit: the wait of the machine that missed.
        self.timeout.next = self.missed.val()
            & ((self.fast_missed.val()
                & (((self.waited.q.val() + 1)
                    >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                        << ((self.streak.q.val() + self.slow_shift.q.val()) + 1)))
                    & (self.at_prepare.val() & self.prep_long.q.val())
                    | ((self.waited.q.val() + 1)
                        >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                            << self.fast_shift.val()))
                        & !(self.at_prepare.val() & self.prep_long.q.val())))
                | (!self.fast_missed.val()
                    & ((((self.waited.q.val() + 1)
                        >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                            << self.streak.q.val()))
                        & !(self.slow_holding.val() | self.view_holding.val()))
                        | (((self.waited.q.val() + 1)
                            >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                                << (self.streak.q.val() + self.vc_wait.q.val())))
                            & self.view_holding.val())
                        | (((self.waited.q.val() + 1)
                            >= (bit_cast::<WAITED_BITS, 16>(self.wait_polls.val())
                                << (self.streak.q.val() + self.slow_shift.q.val())))
                            & self.slow_holding.val()
                            & !self.view_holding.val()))));

        if self.clear.val() | self.start.val() | self.close_begin.val() {
            self.waited.d.next = 0.into();
        }
        if self.next_view.val() {
            self.prep_long.d.next = false;
            if self.streak.q.val() != self.max_streak.val() {
                self.streak.d.next = self.streak.q.val() + 1;
            }
        }
        if self.decided.val() {
            // A rerun's decision (R23: the slot was decided before) is no
            // progress: the wait stays as long.
            if (self.streak.q.val() != 0) & !self.rerun.val() {
                self.streak.d.next = self.streak.q.val() - 1;
            }
            if !self.rerun.val() {
                self.vc_wait.d.next = 0.into();
            }
            self.prep_long.d.next = self.slow_decided.val();
        }
        if self.view_holding.val() {
            self.vc_wait.d.next = self.vc_shift.val();
        }
        if self.start.val() {
            self.count.d.next = 0.into();
            self.vc_wait.d.next = 0.into();
            self.streak.d.next = 0.into();
            self.prep_long.d.next = false;
            self.mask.d.next = 0.into();
        }
        if self.close_begin.val() {
            self.close_q.d.next = false;
        }
        if self.missed.val() {
            if self.timeout.val() {
                self.count.d.next = self.count.q.val() + 1;
                self.waited.d.next = 0.into();
                if self.closing.val() {
                    self.close_q.d.next = true;
                }
            } else {
                self.waited.d.next = self.waited.q.val() + 1;
            }
        }
        if !self.rst_n.val() {
            self.waited.d.next = 0.into();
            self.streak.d.next = 0.into();
            self.vc_wait.d.next = 0.into();
            self.count.d.next = 0.into();
            self.prep_long.d.next = false;
            self.close_q.d.next = false;
            self.mask.d.next = 0.into();
        }
    }
}
