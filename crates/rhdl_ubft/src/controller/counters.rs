//! Counters: the run's status counters (docs/counters.md, docs/registers.md).
//!
//! | counter | counts, one a cycle at most |
//! | --- | --- |
//! | `cycles` | the cycles of a run (`running`: Protocol out of Idle and Done) |
//! | `decisions` | the decisions taken from the decision stream (`taken`; a rerun's is not) |
//! | `fast`, `slow` | the same, by path (`taken_slow`) |
//! | `view_changes` | the views installed (`next_view`) |
//! | `polls` | the fetches started (`poll`) |
//! | `bad_shares` | the shares and signatures that failed a check (`bad_share`) |
//!
//! Every counter is 0 from the cycle after a run starts (`start`, with
//! every machine Off: nothing polls in that cycle) and after reset
//! (`rst_n`, synchronous, active low), and wraps at 2^32. The
//! outputs are the registers: a count at cycle c shows from c + 1.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Counters {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub running: Signal<In, Bit>,
    pub taken: Signal<In, Bit>,
    pub taken_slow: Signal<In, Bit>,
    pub next_view: Signal<In, Bit>,
    pub poll: Signal<In, Bit>,
    pub bad_share: Signal<In, Bit>,
    pub cycles: Signal<Out, Bits<32>>,
    pub decisions: Signal<Out, Bits<32>>,
    pub fast: Signal<Out, Bits<32>>,
    pub slow: Signal<Out, Bits<32>>,
    pub view_changes: Signal<Out, Bits<32>>,
    pub polls: Signal<Out, Bits<32>>,
    pub bad_shares: Signal<Out, Bits<32>>,
    cycles_q: DFF<Bits<32>>,
    decisions_q: DFF<Bits<32>>,
    fast_q: DFF<Bits<32>>,
    slow_q: DFF<Bits<32>>,
    views_q: DFF<Bits<32>>,
    polls_q: DFF<Bits<32>>,
    bad_q: DFF<Bits<32>>,
}

impl Logic for Counters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            cycles_q,
            decisions_q,
            fast_q,
            slow_q,
            views_q,
            polls_q,
            bad_q
        );
        self.cycles.next = self.cycles_q.q.val();
        self.decisions.next = self.decisions_q.q.val();
        self.fast.next = self.fast_q.q.val();
        self.slow.next = self.slow_q.q.val();
        self.view_changes.next = self.views_q.q.val();
        self.polls.next = self.polls_q.q.val();
        self.bad_shares.next = self.bad_q.q.val();
        if self.running.val() {
            self.cycles_q.d.next = self.cycles_q.q.val() + 1;
        }
        if self.next_view.val() {
            self.views_q.d.next = self.views_q.q.val() + 1;
        }
        if self.bad_share.val() {
            self.bad_q.d.next = self.bad_q.q.val() + 1;
        }
        if self.taken.val() {
            self.decisions_q.d.next = self.decisions_q.q.val() + 1;
            if self.taken_slow.val() {
                self.slow_q.d.next = self.slow_q.q.val() + 1;
            } else {
                self.fast_q.d.next = self.fast_q.q.val() + 1;
            }
        }
        if self.poll.val() {
            self.polls_q.d.next = self.polls_q.q.val() + 1;
        }
        if self.start.val() | !self.rst_n.val() {
            self.cycles_q.d.next = 0.into();
            self.decisions_q.d.next = 0.into();
            self.fast_q.d.next = 0.into();
            self.slow_q.d.next = 0.into();
            self.views_q.d.next = 0.into();
            self.polls_q.d.next = 0.into();
            self.bad_q.d.next = 0.into();
        }
    }
}
