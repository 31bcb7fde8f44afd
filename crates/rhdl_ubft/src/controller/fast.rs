//! Fast: the FAST machine, two rounds of votes.
//!
//! States (`sts_state` number, as in `status::STATE_NAMES`). A `*Poll*`
//! state starts a fetch and its `*Wait*` state reads the result; a `*Send*`
//! state waits for a broadcast.
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | FastPollPrepare |
//! | 5 | FastPollPrepare | (fetch of prepare[slot]) | FastWaitPrepare |
//! | 6 | FastWaitPrepare | holds (k, view) and an m this replica holds as a request / not / and it times out | FastSendCert (broadcast will_cert (tag, m)) / FastPollPrepare (a miss) / Off, `start_view` |
//! | 7 | FastSendCert | the broadcast is done / and `skip_votes` | FastPollCert / Off, `start_slow` |
//! | 8 | FastPollCert | (fetch of the will_cert row) | FastWaitCert |
//! | 9 | FastWaitCert | 2f + 1 for (tag, m) (v3: the leader's lane counts, D2) / fewer / and it times out | FastSendCommit (broadcast will_commit) / FastPollCert (a miss) / Off, `start_slow` |
//! | 10 | FastSendCommit | the broadcast is done | FastPollCommit |
//! | 11 | FastPollCommit | (fetch of the will_commit row) | FastWaitCommit |
//! | 12 | FastWaitCommit | 2f + 1 for (tag, m) / fewer / and it times out | Off, `decide` / FastPollCommit (a miss) / Off, `start_slow` |
//!
//! Handshakes: `start` comes from LEADER (after LeaderCheck on a follower,
//! after the prepare's broadcast on the leader; after a view change,
//! LEADER reruns a carried value in the new view). The machine ends by
//! deciding (`decide`: Protocol takes the decision, always a fast one), by
//! handing the same slot to SLOW (SLOW, `start_slow`: it holds the slot's
//! value, and the slow path can still decide it) or to VIEW (VIEW,
//! `start_view`: no value in this view), and goes Off in the same cycle.
//!
//! The prepare's m must be a client request this replica holds (`m_held`,
//! from crate::controller::requests: recovery.md R2). A prepare of the right (k, view)
//! with any other m, a value the leader made up or one already decided, is
//! a miss like no prepare at all: the poll is tried again (the request may
//! not have arrived yet) and the wait times out into a view change. The
//! same check covers a value a NEW_VIEW carried (the constraint: only m*
//! is valid, `constrained` in Protocol).
//!
//! Requests to Protocol: `set_m` (the prepare's m), `set_phase` (1 with
//! will_cert, 2 with will_commit), `clear_wait` at each step forward,
//! `missed` for each poll that did not find what it waits for. Inputs from
//! Protocol: the slot's registers, its row addresses, and the polled row's
//! `record` and `votes` (crate::controller::tally). A broadcast request says where
//! (`bc_word`); Protocol lays out what, here always the vote (tag, m).
//!
//! Timing: a poll is Poll (one cycle, `fetch_start`) then Wait until Fetch's
//! `done`. Every FAST poll is a `poll` to Fetch (Protocol's `fetch_poll`),
//! so the poll after a miss may take Fetch's read ahead of the same beat
//! and be done sooner (docs/fetch.md, "Reading ahead"); Protocol counts
//! FAST's misses against twice the others' limit. The Wait state decides
//! in the `done` cycle, starting the next broadcast in it. Handovers are
//! combinational and cost no cycle (see `leader.rs`).
//!
//! The sticky slow path (protocol.md): with `skip_votes` (Protocol's: the
//! fast path failed since the last fast decision, and the slot is not a
//! probe) FAST hands the slot to SLOW as its will_cert vote is sent, with
//! no wait for votes: the same handover as a timeout in FastWaitCert, at
//! its earliest. At a probe (no `skip_votes` while the fast path has
//! failed) Protocol's `expiring` is the Timer's shorter `probe_expiring`.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use rust_hdl::prelude::*;

/// FAST's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum FastSt {
    Off,
    FastPollPrepare,
    FastWaitPrepare,
    FastSendCert,
    FastPollCert,
    FastWaitCert,
    FastSendCommit,
    FastPollCommit,
    FastWaitCommit,
}

/// Every state, in declaration order.
pub const FAST_STATES: [FastSt; 9] = [
    FastSt::Off,
    FastSt::FastPollPrepare,
    FastSt::FastWaitPrepare,
    FastSt::FastSendCert,
    FastSt::FastPollCert,
    FastSt::FastWaitCert,
    FastSt::FastSendCommit,
    FastSt::FastPollCommit,
    FastSt::FastWaitCommit,
];

#[derive(LogicBlock, Default)]
pub struct Fast {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    pub decide: Signal<Out, Bit>,
    pub start_slow: Signal<Out, Bit>,
    /// With `start_slow` after a wait for votes that ran out (not a skip):
    /// the fast path failed (the Timer's `fast_failed`).
    pub failed: Signal<Out, Bit>,
    pub start_view: Signal<Out, Bit>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    pub k: Signal<In, Bits<32>>,
    pub view_no: Signal<In, Bits<32>>,
    /// 2f + 1.
    pub quorum: Signal<In, Bits<8>>,
    /// prepare[slot] and the slot's will_cert and will_commit rows, in words.
    pub prep_word: Signal<In, Bits<32>>,
    pub cert_row: Signal<In, Bits<32>>,
    pub commit_row: Signal<In, Bits<32>>,
    /// The polled row (crate::controller::tally): its first record, and its votes for
    /// (tag, m); on v3 in FastWaitCert (phase 1) with the leader's lane
    /// counted, as its PREPARE is its lock (recovery.md D2).
    pub record: Signal<In, Bits<96>>,
    pub votes: Signal<In, Bits<8>>,
    /// The polled prepare's m is a request this replica holds (R2).
    pub m_held: Signal<In, Bit>,
    /// The polled prepare's prev is this replica's dec[k - 1] (R4).
    pub prev_ok: Signal<In, Bit>,
    /// The next miss is the `wait_polls`-th in a row.
    pub expiring: Signal<In, Bit>,
    /// The same for the wait for a prepare (FastWaitPrepare): on v3 after
    /// a slot decided on the slow path it is SLOW's wait (Protocol), as
    /// the leader may still be delivering that slot's COMMITs.
    pub prep_expiring: Signal<In, Bit>,
    /// Hand the slot to SLOW once the will_cert vote is sent (the sticky
    /// slow path, Protocol's).
    pub skip_votes: Signal<In, Bit>,
    /// In FastPollPrepare or FastWaitPrepare (Protocol counts the misses
    /// there against `prep_expiring`).
    pub at_prepare: Signal<Out, Bit>,
    // Requests to Protocol.
    pub set_m: Signal<Out, Bit>,
    pub m_next: Signal<Out, Bits<32>>,
    pub set_phase: Signal<Out, Bit>,
    pub phase_next: Signal<Out, Bits<2>>,
    pub clear_wait: Signal<Out, Bit>,
    pub missed: Signal<Out, Bit>,
    // Fetch and Broadcast, through Protocol.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    /// With `bc_start`: write the vote (tag, m) at `bc_word`.
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_done: Signal<In, Bit>,
    /// The beat a Wait state waits on, for the scoreboard (Protocol's
    /// `sb_sel`): 1 the prepare (FastWaitPrepare), 2 the will_cert row
    /// (FastWaitCert), 3 the will_commit row (FastWaitCommit); 0 in any
    /// other state.
    pub watch: Signal<Out, Bits<2>>,
    /// One cycle as a Wait state ends on what it waits for before its
    /// poll is done: that poll's burst is no longer anybody's (Protocol's
    /// `stale`).
    pub abandon: Signal<Out, Bit>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<FastSt>,
}

/// The literals `update` holds, checked against the layout (called by
/// `literals::check_literals` whenever a Protocol is built): the prepare's
/// fields in `record` (k at bit 0, m at 32, view at 64) and a vote's size
/// (`id << 1`: two words).
pub fn check_literals() {
    use crate::layout::{records, VOTE_WORDS};
    use crate::params::WORD_BITS;
    assert_eq!(
        [
            records::PREPARE_K * WORD_BITS,
            records::PREPARE_M * WORD_BITS,
            records::PREPARE_V * WORD_BITS
        ],
        [0, 32, 64],
        "fast.rs: record.get_bits::<32>(0 / 32 / 64) are the prepare's k, m, view"
    );
    assert_eq!(WORD_BITS, 32, "fast.rs: get_bits::<32> reads a word");
    assert_eq!(
        VOTE_WORDS,
        1 << 1,
        "fast.rs: a vote entry at row + (id << 1)"
    );
}

impl Fast {
    /// The state register.
    pub fn state(&self) -> FastSt {
        self.state.q.val()
    }

    /// Is the machine holding the slot (not Off)?
    pub fn active(&self) -> bool {
        self.state.q.val() != FastSt::Off
    }

    /// The number `sts_state` reports in state `st`, read from the logic.
    pub fn reported(st: FastSt) -> u8 {
        let mut b = Self::default();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl Logic for Fast {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        // Outputs are zero unless a state drives them (see leader.rs).
        self.decide.next = false;
        self.start_slow.next = false;
        self.failed.next = false;
        self.start_view.next = false;
        self.set_m.next = false;
        self.m_next.next = 0.into();
        self.set_phase.next = false;
        self.phase_next.next = 0.into();
        self.clear_wait.next = false;
        self.missed.next = false;
        self.at_prepare.next = (self.state.q.val() == FastSt::FastPollPrepare)
            | (self.state.q.val() == FastSt::FastWaitPrepare);
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.abandon.next = false;
        self.watch.next = 0.into();
        match self.state.q.val() {
            FastSt::Off => {
                if self.start.val() {
                    self.state.d.next = FastSt::FastPollPrepare;
                }
            }
            FastSt::FastPollPrepare => {
                self.fetch_start.next = true;
                self.fetch_word.next = self.prep_word.val();
                self.state.d.next = FastSt::FastWaitPrepare;
            }
            FastSt::FastWaitPrepare => {
                // (Values for the strobes below, by state: see leader.rs.)
                self.watch.next = 1.into();
                self.m_next.next = self.record.val().get_bits::<32>(32);
                self.bc_word.next = self.cert_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                // What it waits for may be there before the poll is done
                // (the scoreboard's beat): a failed read shows nothing.
                if !(self.fetch_done.val() & self.fetch_error.val())
                    & (self.record.val().get_bits::<32>(0) == self.k.val())
                    & (self.record.val().get_bits::<32>(64) == self.view_no.val())
                    & self.m_held.val()
                    & self.prev_ok.val()
                {
                    // The prepare of this k in this view, with a value a
                    // client sent: vote for its m (the vote carries the
                    // m taken in this cycle).
                    self.set_m.next = true;
                    self.set_phase.next = true;
                    self.phase_next.next = 1.into();
                    self.bc_start.next = true;
                    self.clear_wait.next = true;
                    self.abandon.next = !self.fetch_done.val();
                    self.state.d.next = FastSt::FastSendCert;
                } else if self.fetch_done.val() {
                    self.missed.next = true;
                    if self.prep_expiring.val() {
                        // No value in this view: change it.
                        self.start_view.next = true;
                        self.state.d.next = FastSt::Off;
                    } else {
                        self.state.d.next = FastSt::FastPollPrepare;
                    }
                }
            }
            FastSt::FastSendCert => {
                if self.bc_done.val() {
                    if self.skip_votes.val() {
                        // The sticky slow path: SLOW at once, as a timeout
                        // in FastWaitCert would hand it over.
                        self.start_slow.next = true;
                        self.state.d.next = FastSt::Off;
                    } else {
                        self.state.d.next = FastSt::FastPollCert;
                    }
                }
            }
            FastSt::FastPollCert => {
                self.fetch_start.next = true;
                self.fetch_word.next = self.cert_row.val();
                self.state.d.next = FastSt::FastWaitCert;
            }
            FastSt::FastWaitCert => {
                self.watch.next = 2.into();
                self.bc_word.next = self.commit_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                if !(self.fetch_done.val() & self.fetch_error.val())
                    & (self.votes.val() >= self.quorum.val())
                {
                    self.set_phase.next = true;
                    self.phase_next.next = 2.into();
                    self.bc_start.next = true;
                    self.clear_wait.next = true;
                    self.abandon.next = !self.fetch_done.val();
                    self.state.d.next = FastSt::FastSendCommit;
                } else if self.fetch_done.val() {
                    self.missed.next = true;
                    if self.expiring.val() {
                        // It holds the slot's value: the slow path can
                        // still decide it.
                        self.start_slow.next = true;
                        self.failed.next = true;
                        self.state.d.next = FastSt::Off;
                    } else {
                        self.state.d.next = FastSt::FastPollCert;
                    }
                }
            }
            FastSt::FastSendCommit => {
                if self.bc_done.val() {
                    self.state.d.next = FastSt::FastPollCommit;
                }
            }
            FastSt::FastPollCommit => {
                self.fetch_start.next = true;
                self.fetch_word.next = self.commit_row.val();
                self.state.d.next = FastSt::FastWaitCommit;
            }
            FastSt::FastWaitCommit => {
                self.watch.next = 3.into();
                if !(self.fetch_done.val() & self.fetch_error.val())
                    & (self.votes.val() >= self.quorum.val())
                {
                    self.decide.next = true;
                    self.abandon.next = !self.fetch_done.val();
                    self.state.d.next = FastSt::Off;
                } else if self.fetch_done.val() {
                    self.missed.next = true;
                    if self.expiring.val() {
                        self.start_slow.next = true;
                        self.failed.next = true;
                        self.state.d.next = FastSt::Off;
                    } else {
                        self.state.d.next = FastSt::FastPollCommit;
                    }
                }
            }
            _ => {
                self.state.d.next = FastSt::Off;
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = FastSt::Off;
        }
        match self.state.q.val() {
            FastSt::FastPollPrepare => {
                self.sts_state.next = 5.into();
            }
            FastSt::FastWaitPrepare => {
                self.sts_state.next = 6.into();
            }
            FastSt::FastSendCert => {
                self.sts_state.next = 7.into();
            }
            FastSt::FastPollCert => {
                self.sts_state.next = 8.into();
            }
            FastSt::FastWaitCert => {
                self.sts_state.next = 9.into();
            }
            FastSt::FastSendCommit => {
                self.sts_state.next = 10.into();
            }
            FastSt::FastPollCommit => {
                self.sts_state.next = 11.into();
            }
            FastSt::FastWaitCommit => {
                self.sts_state.next = 12.into();
            }
            _ => {
                self.sts_state.next = 0.into();
            }
        }
    }
}
