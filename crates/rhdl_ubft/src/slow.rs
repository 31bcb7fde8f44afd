//! Slow: the SLOW machine, signed shares and then commit votes.
//!
//! States (`sts_state` number, as in `protocol::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | SlowStart |
//! | 13 | SlowStart | (the slot's bitmaps cleared) | SlowStep |
//! | 14 | SlowStep | a signer response waits | take it: own signature → SlowSendShare; a verify marks the peer valid or bad |
//! | 14 | SlowStep | own share not asked for, signer idle | ask for it (sign the slot's CERT block) |
//! | 14 | SlowStep | 2f + 1 valid shares, signer idle | SlowSendCommit (broadcast commit (tag, m)) |
//! | 14 | SlowStep | peer vp flagged, not yet checked, signer idle | SlowWaitShare (fetch vp's share) |
//! | 14 | SlowStep | otherwise | vp + 1, or SlowPollFlags after the last peer |
//! | 15 | SlowWaitShare | the share is back | SlowStep (verify it through the signer) |
//! | 16 | SlowSendShare | the broadcast is done | SlowSendFlag (broadcast certify_valid (tag, m)) |
//! | 17 | SlowSendFlag | the broadcast is done | SlowStep (own share valid) |
//! | 18 | SlowPollFlags | (fetch of the certify_valid row) | SlowWaitFlags |
//! | 19 | SlowWaitFlags | the row is back / a miss that times out | SlowPollFast / Off, `start_view` |
//! | 20 | SlowPollFast | (fetch of the will_commit row) | SlowWaitFast |
//! | 21 | SlowWaitFast | a fast quorum and the signer idle / not | Off, `decide` (fast) / SlowStep |
//! | 22 | SlowSendCommit | the broadcast is done | SlowPollCommit |
//! | 23 | SlowPollCommit | (fetch of the commit row) | SlowWaitCommit |
//! | 24 | SlowWaitCommit | 2f + 1 for (tag, m) / fewer / and it times out | Off, `decide` (slow) / SlowPollCommit (a miss) / Off, `start_view` |
//!
//! A round of the loop (SlowStep ... SlowWaitFlags) is a miss only when
//! nothing progressed (no share sent or verified) and the signer is idle:
//! the wait measures the network, not the signer's latency.
//!
//! Handshakes: `start` comes from FAST only (a timeout in FastWaitCert or
//! FastWaitCommit; the slot, its m and its phase stay as FAST left them).
//! The machine ends by deciding (`decide`, with `decide_slow` = 0 for a fast
//! quorum found on the way, 1 for a slow one) or, stuck, by handing the slot
//! to VIEW (`start_view`), and goes Off in the same cycle.
//!
//! Requests to Protocol: `set_phase` (2 with commit), `clear_wait`,
//! `missed`, `bad_share` (a peer share refused: the `bad_shares` counter).
//! The signer service (crate::setup) is this machine's alone, except that
//! VIEW drops responses still due in VcDecide. Inputs from Protocol: the
//! slot's rows and shares' address, and the polled row's `votes` and
//! `flags` (crate::tally). A broadcast request says where (`bc_word`) and,
//! with `bc_share`, that it is the share (the signer's response, which
//! Protocol sends); otherwise Protocol sends (tag, m).
//!
//! Registers, this machine's own: the bitmaps `flagged` (certify_valid
//! seen), `verified` and `bad`, `sign_sent`, the peer `vp` under
//! examination, `vq` whose verify is in flight, `progress`.
//!
//! Timing: as FAST's; a share's fetch is one beat. Handovers are
//! combinational and cost no cycle.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use rust_hdl::prelude::*;

/// SLOW's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum SlowSt {
    Off,
    SlowStart,
    SlowStep,
    SlowWaitShare,
    SlowSendShare,
    SlowSendFlag,
    SlowPollFlags,
    SlowWaitFlags,
    SlowPollFast,
    SlowWaitFast,
    SlowSendCommit,
    SlowPollCommit,
    SlowWaitCommit,
}

/// Every state, in declaration order.
pub const SLOW_STATES: [SlowSt; 13] = [
    SlowSt::Off,
    SlowSt::SlowStart,
    SlowSt::SlowStep,
    SlowSt::SlowWaitShare,
    SlowSt::SlowSendShare,
    SlowSt::SlowSendFlag,
    SlowSt::SlowPollFlags,
    SlowSt::SlowWaitFlags,
    SlowSt::SlowPollFast,
    SlowSt::SlowWaitFast,
    SlowSt::SlowSendCommit,
    SlowSt::SlowPollCommit,
    SlowSt::SlowWaitCommit,
];

/// `N` is the most replicas the build supports (the bitmaps' width).
#[derive(LogicBlock)]
pub struct Slow<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    pub decide: Signal<Out, Bit>,
    /// With `decide`: 1 for a slow decision (TUSER), 0 for a fast quorum.
    pub decide_slow: Signal<Out, Bit>,
    pub start_view: Signal<Out, Bit>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    /// 2f + 1.
    pub quorum: Signal<In, Bits<8>>,
    /// The slot's shares (certify, share of replica 0), certify_valid,
    /// will_commit and commit rows, in words.
    pub share_row: Signal<In, Bits<32>>,
    pub flag_row: Signal<In, Bits<32>>,
    pub commit_row: Signal<In, Bits<32>>,
    pub slow_commit_row: Signal<In, Bits<32>>,
    /// The polled row (crate::tally): its votes for (tag, m), and where.
    pub votes: Signal<In, Bits<8>>,
    pub flags: Signal<In, Bits<N>>,
    /// The next miss is the `wait_polls`-th in a row.
    pub expiring: Signal<In, Bit>,
    // Requests to Protocol.
    pub set_phase: Signal<Out, Bit>,
    pub phase_next: Signal<Out, Bits<2>>,
    pub clear_wait: Signal<Out, Bit>,
    pub missed: Signal<Out, Bit>,
    pub bad_share: Signal<Out, Bit>,
    // Fetch and Broadcast, through Protocol.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    /// With `bc_start`: write at `bc_word` the vote or flag (tag, m), or
    /// with `bc_share` the signer's response (the share, one beat).
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_share: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    // The signer service (crate::setup); the CERT block and the signature to
    // verify come from Protocol.
    pub sg_sign: Signal<Out, Bit>,
    pub sg_verify: Signal<Out, Bit>,
    pub sg_signer: Signal<Out, Bits<8>>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_sign: Signal<In, Bit>,
    pub sg_resp_take: Signal<Out, Bit>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<SlowSt>,
    flagged: DFF<Bits<N>>,
    verified: DFF<Bits<N>>,
    bad: DFF<Bits<N>>,
    sign_sent: DFF<Bit>,
    vp: DFF<Bits<8>>,
    vq: DFF<Bits<8>>,
    progress: DFF<Bit>,
    valid_shares: Signal<Local, Bits<8>>,
    candidate: Signal<Local, Bit>,
    lane_one: Constant<Bits<N>>,
    status_ok: Constant<Bits<8>>,
    /// The machine is in this build: 1 in the v2 kernel, 0 in the v3
    /// kernel, where Slow3 takes its place and `start` is tied low; as
    /// View's `present` (`docs/slow.md`, "In the v3 kernel").
    present: Constant<Bit>,
}

/// The literals `update` holds, checked against the layout whenever a Slow
/// is built: a share is one beat (`<< 4`: 16 words), a flag or commit vote
/// two words (`id << 1`).
pub fn check_literals() {
    use crate::layout::{share_words, vote_words, Version};
    assert_eq!(
        share_words(crate::params::SB),
        1 << 4,
        "slow.rs: a share at share_row + (node << 4)"
    );
    assert_eq!(
        vote_words(Version::V2),
        1 << 1,
        "slow.rs: a flag or vote at row + (id << 1)"
    );
}

impl<const N: usize> Slow<N> {
    pub fn new() -> Self {
        Self::built(true)
    }

    /// [`Slow::new`], or (`present` false) the machine compiled out: the
    /// v3 kernel's, whose Slow3 replaces it.
    pub fn built(present: bool) -> Self {
        check_literals();
        Slow {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            decide: Default::default(),
            decide_slow: Default::default(),
            start_view: Default::default(),
            id: Default::default(),
            n: Default::default(),
            quorum: Default::default(),
            share_row: Default::default(),
            flag_row: Default::default(),
            commit_row: Default::default(),
            slow_commit_row: Default::default(),
            votes: Default::default(),
            flags: Default::default(),
            expiring: Default::default(),
            set_phase: Default::default(),
            phase_next: Default::default(),
            clear_wait: Default::default(),
            missed: Default::default(),
            bad_share: Default::default(),
            fetch_start: Default::default(),
            fetch_word: Default::default(),
            fetch_done: Default::default(),
            fetch_error: Default::default(),
            bc_start: Default::default(),
            bc_word: Default::default(),
            bc_share: Default::default(),
            bc_done: Default::default(),
            sg_sign: Default::default(),
            sg_verify: Default::default(),
            sg_signer: Default::default(),
            sg_busy: Default::default(),
            sg_resp_valid: Default::default(),
            sg_resp_status: Default::default(),
            sg_resp_sign: Default::default(),
            sg_resp_take: Default::default(),
            sts_state: Default::default(),
            state: Default::default(),
            flagged: Default::default(),
            verified: Default::default(),
            bad: Default::default(),
            sign_sent: Default::default(),
            vp: Default::default(),
            vq: Default::default(),
            progress: Default::default(),
            valid_shares: Default::default(),
            candidate: Default::default(),
            lane_one: Constant::new(1u64.into()),
            status_ok: Constant::new(crate::setup::code::OK.into()),
            present: Constant::new(present),
        }
    }

    /// The state register.
    pub fn state(&self) -> SlowSt {
        self.state.q.val()
    }

    /// Is the machine holding the slot (not Off)?
    pub fn active(&self) -> bool {
        self.state.q.val() != SlowSt::Off
    }

    /// The number `sts_state` reports in state `st`, read from the logic.
    pub fn reported(st: SlowSt) -> u8 {
        let mut b = Self::new();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl<const N: usize> Default for Slow<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for Slow<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, flagged, verified, bad, sign_sent, vp, vq, progress);
        self.valid_shares.next = 0.into();
        for i in 0..N {
            if self.verified.q.val().get_bit(i) {
                self.valid_shares.next = self.valid_shares.val() + 1;
            }
        }
        // Peer vp's share is flagged and neither verified nor refused yet.
        self.candidate.next = self.flagged.q.val().get_bit(self.vp.q.val().index())
            & !self.verified.q.val().get_bit(self.vp.q.val().index())
            & !self.bad.q.val().get_bit(self.vp.q.val().index())
            & (self.vp.q.val() != self.id.val());
        // Outputs are zero unless a state drives them (see leader.rs).
        self.decide.next = false;
        self.decide_slow.next = false;
        self.start_view.next = false;
        self.set_phase.next = false;
        self.phase_next.next = 0.into();
        self.clear_wait.next = false;
        self.missed.next = false;
        self.bad_share.next = false;
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.bc_share.next = false;
        self.sg_sign.next = false;
        self.sg_verify.next = false;
        self.sg_signer.next = self.vp.q.val();
        self.sg_resp_take.next = false;
        // Nothing moves when the machine is compiled out (`present`).
        if self.present.val() {
            match self.state.q.val() {
                SlowSt::Off => {
                    if self.start.val() {
                        self.state.d.next = SlowSt::SlowStart;
                    }
                }
                SlowSt::SlowStart => {
                    self.flagged.d.next = 0.into();
                    self.verified.d.next = 0.into();
                    self.bad.d.next = 0.into();
                    self.sign_sent.d.next = false;
                    self.vp.d.next = 0.into();
                    self.progress.d.next = false;
                    self.clear_wait.next = true;
                    self.state.d.next = SlowSt::SlowStep;
                }
                SlowSt::SlowStep => {
                    // (Values for the strobes below, by state: see leader.rs.)
                    self.fetch_word.next =
                        self.share_row.val() + (bit_cast::<32, 8>(self.vp.q.val()) << 4);
                    if self.sg_resp_valid.val() {
                        self.bc_word.next =
                            self.share_row.val() + (bit_cast::<32, 8>(self.id.val()) << 4);
                    } else {
                        self.bc_word.next =
                            self.slow_commit_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                    }
                    if self.sg_resp_valid.val() {
                        // A response waits: take it first.
                        self.sg_resp_take.next = true;
                        if self.sg_resp_sign.val() {
                            if self.sg_resp_status.val() == self.status_ok.val() {
                                // Our share: into certify on every replica.
                                self.bc_start.next = true;
                                self.bc_share.next = true;
                                self.state.d.next = SlowSt::SlowSendShare;
                            } else {
                                self.sign_sent.d.next = false;
                            }
                        } else if self.sg_resp_status.val() == self.status_ok.val() {
                            self.verified.d.next =
                                self.verified.q.val() | (self.lane_one.val() << self.vq.q.val());
                            self.progress.d.next = true;
                        } else {
                            self.bad.d.next =
                                self.bad.q.val() | (self.lane_one.val() << self.vq.q.val());
                            self.bad_share.next = true;
                        }
                    } else if !self.sign_sent.q.val() & !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sign_sent.d.next = true;
                    } else if (self.valid_shares.val() >= self.quorum.val()) & !self.sg_busy.val() {
                        self.set_phase.next = true;
                        self.phase_next.next = 2.into();
                        self.bc_start.next = true;
                        self.state.d.next = SlowSt::SlowSendCommit;
                    } else if self.candidate.val() & !self.sg_busy.val() {
                        // Fetch peer vp's share, then verify it.
                        self.fetch_start.next = true;
                        self.state.d.next = SlowSt::SlowWaitShare;
                    } else if (self.vp.q.val() + 1) >= self.n.val() {
                        self.vp.d.next = 0.into();
                        self.state.d.next = SlowSt::SlowPollFlags;
                    } else {
                        self.vp.d.next = self.vp.q.val() + 1;
                    }
                }
                SlowSt::SlowWaitShare => {
                    if self.fetch_done.val() {
                        if self.fetch_error.val() {
                            self.bad.d.next =
                                self.bad.q.val() | (self.lane_one.val() << self.vp.q.val());
                        } else {
                            // The signature is the fetched beat (Protocol wires it).
                            self.sg_verify.next = true;
                            self.vq.d.next = self.vp.q.val();
                        }
                        self.state.d.next = SlowSt::SlowStep;
                    }
                }
                SlowSt::SlowSendShare => {
                    self.bc_word.next =
                        self.flag_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                    if self.bc_done.val() {
                        // Then the flag that says the share is in place.
                        self.bc_start.next = true;
                        self.state.d.next = SlowSt::SlowSendFlag;
                    }
                }
                SlowSt::SlowSendFlag => {
                    if self.bc_done.val() {
                        self.verified.d.next =
                            self.verified.q.val() | (self.lane_one.val() << self.id.val());
                        self.progress.d.next = true;
                        self.state.d.next = SlowSt::SlowStep;
                    }
                }
                SlowSt::SlowPollFlags => {
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.flag_row.val();
                    self.state.d.next = SlowSt::SlowWaitFlags;
                }
                SlowSt::SlowWaitFlags => {
                    if self.fetch_done.val() {
                        // A round without progress is a miss, unless the signer
                        // is still working for us.
                        self.missed.next = !self.progress.q.val() & !self.sg_busy.val();
                        self.progress.d.next = false;
                        if !self.fetch_error.val() {
                            self.flagged.d.next = self.flags.val();
                        }
                        if !self.progress.q.val() & !self.sg_busy.val() & self.expiring.val() {
                            // The slow path is stuck: change the view.
                            self.start_view.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollFast;
                        }
                    }
                }
                SlowSt::SlowPollFast => {
                    // A fast quorum may still have formed (a peer decided fast).
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.commit_row.val();
                    self.state.d.next = SlowSt::SlowWaitFast;
                }
                SlowSt::SlowWaitFast => {
                    if self.fetch_done.val() {
                        if !self.fetch_error.val()
                            & (self.votes.val() >= self.quorum.val())
                            & !self.sg_busy.val()
                        {
                            self.decide.next = true;
                            self.decide_slow.next = false;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowStep;
                        }
                    }
                }
                SlowSt::SlowSendCommit => {
                    if self.bc_done.val() {
                        self.clear_wait.next = true;
                        self.state.d.next = SlowSt::SlowPollCommit;
                    }
                }
                SlowSt::SlowPollCommit => {
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.slow_commit_row.val();
                    self.state.d.next = SlowSt::SlowWaitCommit;
                }
                SlowSt::SlowWaitCommit => {
                    if self.fetch_done.val() {
                        if !self.fetch_error.val() & (self.votes.val() >= self.quorum.val()) {
                            self.decide.next = true;
                            self.decide_slow.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.missed.next = true;
                            if self.expiring.val() {
                                self.start_view.next = true;
                                self.state.d.next = SlowSt::Off;
                            } else {
                                self.state.d.next = SlowSt::SlowPollCommit;
                            }
                        }
                    }
                }
                _ => {
                    self.state.d.next = SlowSt::Off;
                }
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = SlowSt::Off;
        }
        // One assignment on every path (no default then override): an
        // output that changes twice in one evaluation can set event-driven
        // simulators (Icarus) looping through the blocks that read it.
        if self.present.val() {
            match self.state.q.val() {
                SlowSt::SlowStart => {
                    self.sts_state.next = 13.into();
                }
                SlowSt::SlowStep => {
                    self.sts_state.next = 14.into();
                }
                SlowSt::SlowWaitShare => {
                    self.sts_state.next = 15.into();
                }
                SlowSt::SlowSendShare => {
                    self.sts_state.next = 16.into();
                }
                SlowSt::SlowSendFlag => {
                    self.sts_state.next = 17.into();
                }
                SlowSt::SlowPollFlags => {
                    self.sts_state.next = 18.into();
                }
                SlowSt::SlowWaitFlags => {
                    self.sts_state.next = 19.into();
                }
                SlowSt::SlowPollFast => {
                    self.sts_state.next = 20.into();
                }
                SlowSt::SlowWaitFast => {
                    self.sts_state.next = 21.into();
                }
                SlowSt::SlowSendCommit => {
                    self.sts_state.next = 22.into();
                }
                SlowSt::SlowPollCommit => {
                    self.sts_state.next = 23.into();
                }
                SlowSt::SlowWaitCommit => {
                    self.sts_state.next = 24.into();
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
