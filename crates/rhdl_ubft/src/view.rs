//! View: the VIEW machine, the view change.
//!
//! States (`sts_state` number, as in `protocol::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | VcStart |
//! | 25 | VcStart | (view + 1, the leader rotates) | VcSendRecord |
//! | 26 | VcSendRecord | (broadcast (view, slot \| phase << 16, k, m) into vc[id]) | VcSendFlag |
//! | 27 | VcSendFlag | the record is sent (broadcast the flag (tag(view, k), m)) | VcPollCatch |
//! | 34 | VcPollCatch | (fetch of the will_commit row) | VcWaitCatch |
//! | 35 | VcWaitCatch | a full quorum for some m, in any view (R26) / not | Off, `decide` (fast; back in vote_view if the row is of it) / VcPollCatchSlow |
//! | 36 | VcPollCatchSlow | (fetch of the commit row) | VcWaitCatchSlow |
//! | 37 | VcWaitCatchSlow | a full quorum for some m, in any view (R26) / not | Off, `decide` (slow; back in vote_view if the row is of it) / VcPollFlags |
//! | 28 | VcPollFlags | (fetch of vc_valid) | VcWaitFlags |
//! | 29 | VcWaitFlags | the flags are back / a fetch error (a miss) | VcPollRecords / VcPollCatch |
//! | 30 | VcPollRecords | (burst fetch of vc) | VcWaitRecords |
//! | 31 | VcWaitRecords | the last beat / a fetch error (a miss) | VcDecide / VcPollCatch |
//! | 32 | VcDecide | signer or Broadcast busy | stays (drains; signer responses are dropped) |
//! | 32 | VcDecide | a valid record of a later view | VcStart (follow it) |
//! | 32 | VcDecide | fewer than 2f + 1 valid records (a miss) | VcPollCatch |
//! | 32 | VcDecide | Choose found (k, m) for this k / nothing | VcInstall (write (k, m, view, 0) into own prepare) / Off, `start_leader` |
//! | 33 | VcInstall | the local write is done | Off, `start_fast` |
//!
//! A view change never times out into the next view (the replicas would
//! chase each other through the views): its misses count towards
//! `timeouts`, and it keeps waiting.
//!
//! Handshakes: `start` comes from LEADER (LeaderIdle), FAST
//! (FastWaitPrepare) or SLOW (SlowWaitFlags, SlowWaitCommit) when they time
//! out. The machine ends by deciding a slot decided without it (`decide`,
//! `decide_slow` for the commit row), by running the recovered value on the
//! fast path (`start_fast`), or by letting the new leader propose
//! (`start_leader`), and goes Off in the same cycle.
//!
//! Requests to Protocol: `next_view` (view + 1, leader + 1 mod n, count a
//! view change), `restore_view` (back to the view the votes were cast in,
//! with a catch-up decision), `open_round` (VcInstall: votes now carry the
//! new view), `set_m`, `clear_wait`, `missed`. It reads the slot's k and
//! view, and the polled row's probe (crate::tally) for the catch-up. A
//! broadcast request says where (`bc_word`) and what (`bc_record`,
//! `bc_vc_flag`, `bc_prepare`); Protocol lays the record out from the
//! slot's registers.
//!
//! Registers, this machine's own: the fetched vc_valid beat (`vc_flags`)
//! and vc beats (`vc_lo`, `vc_hi`: records 0-3 and 4-7), on which Choose
//! (crate::choose, a block inside this one) applies the f + 1 rule.
//!
//! Timing: as FAST's; VcPollRecords is Fetch's only multi-beat burst
//! (`vc_len` + 1 beats). Handovers are combinational and cost no cycle.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use crate::choose::Choose;
use crate::params::{BEAT_BITS, BEAT_WORDS};
use rust_hdl::prelude::*;

/// VIEW's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ViewSt {
    Off,
    VcStart,
    VcSendRecord,
    VcSendFlag,
    VcPollFlags,
    VcWaitFlags,
    VcPollRecords,
    VcWaitRecords,
    VcDecide,
    VcInstall,
    VcPollCatch,
    VcWaitCatch,
    VcPollCatchSlow,
    VcWaitCatchSlow,
}

/// Every state, in declaration order.
pub const VIEW_STATES: [ViewSt; 14] = [
    ViewSt::Off,
    ViewSt::VcStart,
    ViewSt::VcSendRecord,
    ViewSt::VcSendFlag,
    ViewSt::VcPollFlags,
    ViewSt::VcWaitFlags,
    ViewSt::VcPollRecords,
    ViewSt::VcWaitRecords,
    ViewSt::VcDecide,
    ViewSt::VcInstall,
    ViewSt::VcPollCatch,
    ViewSt::VcWaitCatch,
    ViewSt::VcPollCatchSlow,
    ViewSt::VcWaitCatchSlow,
];

/// `N` is the most replicas the build supports.
#[derive(LogicBlock)]
pub struct View<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    pub decide: Signal<Out, Bit>,
    /// With `decide`: 1 for a slow decision (TUSER), 0 for a fast one.
    pub decide_slow: Signal<Out, Bit>,
    pub start_fast: Signal<Out, Bit>,
    pub start_leader: Signal<Out, Bit>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    pub k: Signal<In, Bits<32>>,
    pub view_no: Signal<In, Bits<32>>,
    /// 2f + 1, f + 1, and the lanes of the first n replicas.
    pub quorum: Signal<In, Bits<8>>,
    pub support: Signal<In, Bits<8>>,
    pub active: Signal<In, Bits<N>>,
    /// prepare[slot] and the slot's will_commit and commit rows, in words.
    pub prep_word: Signal<In, Bits<32>>,
    pub commit_row: Signal<In, Bits<32>>,
    pub slow_commit_row: Signal<In, Bits<32>>,
    /// The polled row's first m under tag(vote_view, k) and its votes
    /// (crate::tally).
    pub probe_m: Signal<In, Bits<32>>,
    pub probe_votes: Signal<In, Bits<8>>,
    /// The probed row is of vote_view (else of another view, R26).
    pub probe_same_view: Signal<In, Bit>,
    // Requests to Protocol.
    pub next_view: Signal<Out, Bit>,
    pub restore_view: Signal<Out, Bit>,
    pub open_round: Signal<Out, Bit>,
    pub set_m: Signal<Out, Bit>,
    pub m_next: Signal<Out, Bits<32>>,
    pub clear_wait: Signal<Out, Bit>,
    pub missed: Signal<Out, Bit>,
    // Fetch, Broadcast and the signer's responses, through Protocol.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    pub fetch_len: Signal<Out, Bits<8>>,
    pub fetch_beat: Signal<In, Bits<BEAT_BITS>>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    /// With `bc_start`: write at `bc_word` the record (`bc_record`), its
    /// flag (`bc_vc_flag`) or, into the replica's own HBM only
    /// (`bc_local_only`), the prepare (`bc_prepare`).
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_record: Signal<Out, Bit>,
    pub bc_vc_flag: Signal<Out, Bit>,
    pub bc_prepare: Signal<Out, Bit>,
    pub bc_local_only: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    pub bc_busy: Signal<In, Bit>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_take: Signal<Out, Bit>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<ViewSt>,
    vc_lo: DFF<Bits<BEAT_BITS>>,
    vc_hi: DFF<Bits<BEAT_BITS>>,
    vc_flags: DFF<Bits<BEAT_BITS>>,
    beat_ix: DFF<Bit>,
    choose: Choose,
    // Constants from `layout`.
    vc_base: Constant<Bits<32>>,
    vc_valid_base: Constant<Bits<32>>,
    vc_len: Constant<Bits<8>>,
    /// The machine is in this build: 1 in the v2 kernel, 0 in the v3
    /// kernel, where View3 takes its place and `start` is tied low. At 0
    /// every output is its default and no register moves, so Verilator
    /// folds the logic away at compile time instead of evaluating it every
    /// cycle, and synthesis drops it (`docs/view.md`, "In the v3
    /// kernel").
    present: Constant<Bit>,
}

/// The literals `update` holds, checked against the layout whenever a View
/// is built: a record is four words (`id << 2`), a flag two (`id << 1`);
/// the vc region of N records is read in at most two beats (`vc_lo`,
/// `vc_hi`, four records each), and Choose looks at 8 lanes
/// (`bit_cast::<8, N>`). Choose's own are checked with them.
pub fn check_literals<const N: usize>() {
    use crate::layout::{vote_words, Version, VC_WORDS};
    assert_eq!(VC_WORDS, 1 << 2, "view.rs: a record at vc + (id << 2)");
    assert_eq!(
        vote_words(Version::V2),
        1 << 1,
        "view.rs: a flag at vc_valid + (id << 1)"
    );
    assert!(
        N * VC_WORDS <= 2 * BEAT_WORDS,
        "view.rs: the records fit vc_lo and vc_hi"
    );
    assert!(N <= crate::choose::LANES, "view.rs: bit_cast::<8, N>");
    crate::choose::check_literals();
}

impl<const N: usize> View<N> {
    /// The view change for the v2 layout of a build of N replicas.
    pub fn new() -> Self {
        Self::built(true)
    }

    /// [`View::new`], or (`present` false) the machine compiled out: the
    /// v3 kernel's, whose View3 replaces it (see the `present` field).
    pub fn built(present: bool) -> Self {
        check_literals::<N>();
        use crate::layout::{Mailbox, Region, VC_WORDS};
        let mb = Mailbox::v2(N, crate::params::G, crate::params::SB);
        View {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            decide: Default::default(),
            decide_slow: Default::default(),
            start_fast: Default::default(),
            start_leader: Default::default(),
            id: Default::default(),
            k: Default::default(),
            view_no: Default::default(),
            quorum: Default::default(),
            support: Default::default(),
            active: Default::default(),
            prep_word: Default::default(),
            commit_row: Default::default(),
            slow_commit_row: Default::default(),
            probe_m: Default::default(),
            probe_votes: Default::default(),
            probe_same_view: Default::default(),
            next_view: Default::default(),
            restore_view: Default::default(),
            open_round: Default::default(),
            set_m: Default::default(),
            m_next: Default::default(),
            clear_wait: Default::default(),
            missed: Default::default(),
            fetch_start: Default::default(),
            fetch_word: Default::default(),
            fetch_len: Default::default(),
            fetch_beat: Default::default(),
            fetch_beat_valid: Default::default(),
            fetch_done: Default::default(),
            fetch_error: Default::default(),
            bc_start: Default::default(),
            bc_word: Default::default(),
            bc_record: Default::default(),
            bc_vc_flag: Default::default(),
            bc_prepare: Default::default(),
            bc_local_only: Default::default(),
            bc_done: Default::default(),
            bc_busy: Default::default(),
            sg_busy: Default::default(),
            sg_resp_take: Default::default(),
            sts_state: Default::default(),
            state: Default::default(),
            vc_lo: Default::default(),
            vc_hi: Default::default(),
            vc_flags: Default::default(),
            beat_ix: Default::default(),
            choose: Default::default(),
            vc_base: Constant::new((mb.base(Region::Vc) as u64).into()),
            vc_valid_base: Constant::new((mb.base(Region::VcValid) as u64).into()),
            vc_len: Constant::new((((N * VC_WORDS - 1) / BEAT_WORDS) as u64).into()),
            present: Constant::new(present),
        }
    }

    /// The state register.
    pub fn state(&self) -> ViewSt {
        self.state.q.val()
    }

    /// Is the machine holding the slot (not Off)?
    pub fn active(&self) -> bool {
        self.state.q.val() != ViewSt::Off
    }

    /// The number `sts_state` reports in state `st`, read from the logic.
    pub fn reported(st: ViewSt) -> u8 {
        let mut b = Self::new();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl<const N: usize> Default for View<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for View<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, vc_lo, vc_hi, vc_flags, beat_ix);
        // The view change's rule, on what was fetched.
        // (Constant zero when the machine is compiled out, so that Choose's
        // logic folds away with it. Each input is assigned once on every
        // path: Choose's outputs come back into this block, and an input
        // set to 0 and then to its value in one evaluation loops Icarus.)
        if self.present.val() {
            self.choose.rec_lo.next = self.vc_lo.q.val();
            self.choose.rec_hi.next = self.vc_hi.q.val();
            self.choose.flags.next = self.vc_flags.q.val();
            self.choose.view.next = self.view_no.val();
            self.choose.active.next = bit_cast::<8, N>(self.active.val());
            self.choose.support.next = self.support.val();
        } else {
            self.choose.rec_lo.next = 0.into();
            self.choose.rec_hi.next = 0.into();
            self.choose.flags.next = 0.into();
            self.choose.view.next = 0.into();
            self.choose.active.next = 0.into();
            self.choose.support.next = 0.into();
        }
        // Outputs are zero unless a state drives them (see leader.rs).
        self.decide.next = false;
        self.decide_slow.next = false;
        self.start_fast.next = false;
        self.start_leader.next = false;
        self.next_view.next = false;
        self.restore_view.next = false;
        self.open_round.next = false;
        self.set_m.next = false;
        self.m_next.next = 0.into();
        self.clear_wait.next = false;
        self.missed.next = false;
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.fetch_len.next = 0.into();
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.bc_record.next = false;
        self.bc_vc_flag.next = false;
        self.bc_prepare.next = false;
        self.bc_local_only.next = false;
        self.sg_resp_take.next = false;
        // Nothing moves when the machine is compiled out (`present`).
        if self.present.val() {
            match self.state.q.val() {
                ViewSt::Off => {
                    if self.start.val() {
                        self.state.d.next = ViewSt::VcStart;
                    }
                }
                ViewSt::VcStart => {
                    // The view advances, the leader rotates.
                    self.next_view.next = true;
                    self.clear_wait.next = true;
                    self.state.d.next = ViewSt::VcSendRecord;
                }
                ViewSt::VcSendRecord => {
                    // What this replica voted for in the slot (the view
                    // register already holds the new view): (view, slot |
                    // phase << 16, k, m).
                    self.bc_start.next = true;
                    self.bc_word.next =
                        self.vc_base.val() + (bit_cast::<32, 8>(self.id.val()) << 2);
                    self.bc_record.next = true;
                    self.state.d.next = ViewSt::VcSendFlag;
                }
                ViewSt::VcSendFlag => {
                    // (Values for the strobes below, by state: see leader.rs.)
                    self.bc_word.next =
                        self.vc_valid_base.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                    if self.bc_done.val() {
                        // Then its valid flag: (tag(view, k), m).
                        self.bc_start.next = true;
                        self.bc_vc_flag.next = true;
                        self.state.d.next = ViewSt::VcPollCatch;
                    }
                }
                ViewSt::VcPollCatch => {
                    // Did the slot decide without this replica (a full quorum of
                    // will_commit in the view its votes were cast in)?
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.commit_row.val();
                    self.state.d.next = ViewSt::VcWaitCatch;
                }
                ViewSt::VcWaitCatch => {
                    self.m_next.next = self.probe_m.val();
                    if self.fetch_done.val() {
                        if !self.fetch_error.val() & (self.probe_votes.val() >= self.quorum.val()) {
                            // Decided in the view the row names (R26): back
                            // to vote_view if it is that one, else stay.
                            self.set_m.next = true;
                            self.restore_view.next = self.probe_same_view.val();
                            self.decide.next = true;
                            self.decide_slow.next = false;
                            self.state.d.next = ViewSt::Off;
                        } else {
                            self.state.d.next = ViewSt::VcPollCatchSlow;
                        }
                    }
                }
                ViewSt::VcPollCatchSlow => {
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.slow_commit_row.val();
                    self.state.d.next = ViewSt::VcWaitCatchSlow;
                }
                ViewSt::VcWaitCatchSlow => {
                    self.m_next.next = self.probe_m.val();
                    if self.fetch_done.val() {
                        if !self.fetch_error.val() & (self.probe_votes.val() >= self.quorum.val()) {
                            self.set_m.next = true;
                            self.restore_view.next = self.probe_same_view.val();
                            self.decide.next = true;
                            self.decide_slow.next = true;
                            self.state.d.next = ViewSt::Off;
                        } else {
                            self.state.d.next = ViewSt::VcPollFlags;
                        }
                    }
                }
                ViewSt::VcPollFlags => {
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.vc_valid_base.val();
                    self.state.d.next = ViewSt::VcWaitFlags;
                }
                ViewSt::VcWaitFlags => {
                    if self.fetch_done.val() {
                        if self.fetch_error.val() {
                            self.missed.next = true;
                            self.state.d.next = ViewSt::VcPollCatch;
                        } else {
                            self.vc_flags.d.next = self.fetch_beat.val();
                            self.state.d.next = ViewSt::VcPollRecords;
                        }
                    }
                }
                ViewSt::VcPollRecords => {
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.vc_base.val();
                    self.fetch_len.next = self.vc_len.val();
                    self.beat_ix.d.next = false;
                    self.vc_hi.d.next = 0.into();
                    self.state.d.next = ViewSt::VcWaitRecords;
                }
                ViewSt::VcWaitRecords => {
                    if self.fetch_beat_valid.val() {
                        if self.beat_ix.q.val() {
                            self.vc_hi.d.next = self.fetch_beat.val();
                        } else {
                            self.vc_lo.d.next = self.fetch_beat.val();
                        }
                        self.beat_ix.d.next = true;
                    }
                    if self.fetch_done.val() {
                        if self.fetch_error.val() {
                            // A failed read holds no records: poll again.
                            self.vc_flags.d.next = 0.into();
                            self.missed.next = true;
                            self.state.d.next = ViewSt::VcPollCatch;
                        } else {
                            self.state.d.next = ViewSt::VcDecide;
                        }
                    }
                }
                ViewSt::VcDecide => {
                    // Any signer response still due belongs to the old slot.
                    self.sg_resp_take.next = true;
                    self.m_next.next = self.choose.chosen_m.val();
                    self.bc_word.next = self.prep_word.val();
                    if self.sg_busy.val() | self.bc_busy.val() {
                        // Wait for the signer and the record's broadcast to drain.
                    } else if self.choose.higher.val() {
                        // Others are in a later view: follow them, one view at a time.
                        self.state.d.next = ViewSt::VcStart;
                    } else if self.choose.valid.val() < self.quorum.val() {
                        // Not all records of this view are in yet: wait (a miss;
                        // a view change does not time out into the next view:
                        // the replicas would chase each other through the views).
                        self.missed.next = true;
                        self.state.d.next = ViewSt::VcPollCatch;
                    } else if self.choose.chosen.val()
                        & (self.choose.chosen_k.val() == self.k.val())
                    {
                        // Install the value reported by f + 1 in our own prepare
                        // and run the slot again on the fast path.
                        self.set_m.next = true;
                        self.bc_start.next = true;
                        self.bc_local_only.next = true;
                        self.bc_prepare.next = true;
                        self.state.d.next = ViewSt::VcInstall;
                    } else {
                        // No value can have been decided: the new leader proposes.
                        self.start_leader.next = true;
                        self.state.d.next = ViewSt::Off;
                    }
                }
                ViewSt::VcInstall => {
                    if self.bc_done.val() {
                        self.open_round.next = true;
                        self.start_fast.next = true;
                        self.state.d.next = ViewSt::Off;
                    }
                }
                _ => {
                    self.state.d.next = ViewSt::Off;
                }
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = ViewSt::Off;
        }
        // One assignment on every path (no default then override): an
        // output that changes twice in one evaluation can set event-driven
        // simulators (Icarus) looping through the blocks that read it.
        if self.present.val() {
            match self.state.q.val() {
                ViewSt::VcStart => {
                    self.sts_state.next = 25.into();
                }
                ViewSt::VcSendRecord => {
                    self.sts_state.next = 26.into();
                }
                ViewSt::VcSendFlag => {
                    self.sts_state.next = 27.into();
                }
                ViewSt::VcPollFlags => {
                    self.sts_state.next = 28.into();
                }
                ViewSt::VcWaitFlags => {
                    self.sts_state.next = 29.into();
                }
                ViewSt::VcPollRecords => {
                    self.sts_state.next = 30.into();
                }
                ViewSt::VcWaitRecords => {
                    self.sts_state.next = 31.into();
                }
                ViewSt::VcDecide => {
                    self.sts_state.next = 32.into();
                }
                ViewSt::VcInstall => {
                    self.sts_state.next = 33.into();
                }
                ViewSt::VcPollCatch => {
                    self.sts_state.next = 34.into();
                }
                ViewSt::VcWaitCatch => {
                    self.sts_state.next = 35.into();
                }
                ViewSt::VcPollCatchSlow => {
                    self.sts_state.next = 36.into();
                }
                ViewSt::VcWaitCatchSlow => {
                    self.sts_state.next = 37.into();
                }
                _ => {
                    self.sts_state.next = 0.into();
                }
            }
        } else {
            self.sts_state.next = 0.into();
        }
    }
}
