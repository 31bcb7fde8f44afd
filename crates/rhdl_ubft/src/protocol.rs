//! Protocol: the consensus controller, machines LEADER, FAST, SLOW and VIEW.
//!
//! One state machine; its states are named for what they wait on, as in
//! ubft_new (a `*Poll*` state starts a fetch, its `*Wait*` state reads the
//! result; a `*Send*` state waits for a broadcast). docs/protocol.md has the
//! full account; the transitions:
//!
//! | state | leaves when | to |
//! | --- | --- | --- |
//! | Idle | `ap_start`, configuration refused / accepted | Done (error code) / LeaderCheck (k = 1, view = 0) |
//! | LeaderCheck | id is the view's leader / is not | LeaderWaitValue / FastPollPrepare |
//! | LeaderWaitValue | a proposal m is taken / none offered | LeaderSendPrepare (broadcast (k, m, view, 0)) / LeaderIdle (an idle poll) |
//! | LeaderIdle | the idle poll is back | LeaderWaitValue (a miss) |
//! | LeaderSendPrepare | the broadcast is done | FastPollPrepare |
//! | FastWaitPrepare | prepare holds (k, view) / not | FastSendCert (broadcast will_cert (tag, m)) / FastPollPrepare (a miss) |
//! | FastWaitCert | 2f + 1 will_cert for (tag, m) / fewer | FastSendCommit (broadcast will_commit) / FastPollCert (a miss) |
//! | FastWaitCommit | 2f + 1 will_commit for (tag, m) / fewer | Decide / FastPollCommit (a miss) |
//! | SlowStart | (the slot's slow-path registers cleared) | SlowStep |
//! | SlowStep | a signer response waits | take it: own signature → SlowSendShare; a verify marks the peer valid or bad |
//! | SlowStep | own share not asked for, signer idle | ask for it (sign the summary) |
//! | SlowStep | 2f + 1 valid shares, signer idle | SlowSendCommit (broadcast commit (tag, m)) |
//! | SlowStep | peer vp flagged, not yet checked, signer idle | SlowWaitShare (fetch vp's share) |
//! | SlowStep | otherwise | vp + 1, or SlowPollFlags after the last peer |
//! | SlowWaitShare | the share is back | SlowStep (verify it through the signer) |
//! | SlowSendShare / SlowSendFlag | the broadcast is done | SlowSendFlag (broadcast certify_valid) / SlowStep |
//! | SlowWaitFlags | the certify_valid row is back | SlowPollFast (a miss if nothing progressed and the signer is idle) |
//! | SlowWaitFast | a fast quorum of will_commit / none | Decide (fast) / SlowStep |
//! | SlowWaitCommit | 2f + 1 commits for (tag, m) / fewer | Decide (slow) / SlowPollCommit (a miss) |
//! | VcStart | (view + 1, the leader rotates) | VcSendRecord (broadcast (view, slot \| phase << 16, k, m)) |
//! | VcSendFlag | the record is sent | VcPollCatch (broadcast the flag (tag(view, k), m)) |
//! | VcWaitCatch / VcWaitCatchSlow | a full quorum of will_commit / commit in the votes' view | Decide, back in that view |
//! | VcWaitFlags / VcWaitRecords | the vc_valid row / the vc records are back | VcPollRecords / VcDecide |
//! | VcDecide | signer or broadcast busy | stays (drains) |
//! | VcDecide | a valid record of a later view | VcStart (follow it) |
//! | VcDecide | fewer than 2f + 1 valid records | VcPollCatch (a miss) |
//! | VcDecide | Choose found (k, m) for this k / nothing | VcInstall (write (k, m, view, 0) into own prepare) / LeaderCheck |
//! | VcInstall | the local write is done | FastPollPrepare |
//! | Decide | the decision (k, m) is taken from `dec` | LeaderCheck (k + 1), or Done after `slots` decisions |
//! | Done | (ap_done for one cycle) | Idle |
//!
//! Timeouts: a miss counts towards `waited`; after `wait_polls` misses a
//! timeout is counted. In FastWaitCert or FastWaitCommit it starts the slow
//! path for the same slot; in FastWaitPrepare, LeaderIdle, SlowWaitFlags or
//! SlowWaitCommit it starts a view change. A view change does not time out
//! into the next view (the replicas would chase each other through views).
//!
//! k is the sequence number and slot = (k - 1) mod G; every vote carries
//! tag(view, k), so a reused slot never counts a stale vote, and a quorum
//! counts only votes for the replica's own m. The leader votes like everyone
//! else and returns to LeaderCheck after every decision.
//!
//! Reset (`rst_n`, synchronous, active low): the state returns to Idle and
//! the status counters to zero the next cycle; the slot registers (k, view,
//! m, ...) are set afresh by the next `ap_start`.

use crate::choose::Choose;
use crate::params::{ConfigError, BEAT_BITS, BEAT_WORDS, G};
use rust_hdl::prelude::*;

pub use crate::params::vote_tag;

/// Controller states (the spec's `st`); `sts_state` reports them in this
/// order.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum St {
    Idle,
    LeaderCheck,
    LeaderWaitValue,
    LeaderIdle,
    LeaderSendPrepare,
    FastPollPrepare,
    FastWaitPrepare,
    FastSendCert,
    FastPollCert,
    FastWaitCert,
    FastSendCommit,
    FastPollCommit,
    FastWaitCommit,
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
    Decide,
    Done,
}

/// The controller. `N` is the most replicas the build supports (at most 8:
/// a slot's row of votes must fit one beat).
#[derive(LogicBlock)]
pub struct Protocol<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub ap_start: Signal<In, Bit>,
    pub ap_done: Signal<Out, Bit>,
    pub ap_idle: Signal<Out, Bit>,
    pub ap_ready: Signal<Out, Bit>,
    // Configuration.
    pub network_ptr: Signal<In, Bits<64>>,
    pub id: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    pub wait_polls: Signal<In, Bits<16>>,
    pub slots: Signal<In, Bits<32>>,
    // Fetch.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_addr: Signal<Out, Bits<64>>,
    pub fetch_len: Signal<Out, Bits<8>>,
    pub fetch_beat: Signal<In, Bits<BEAT_BITS>>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    // Broadcast.
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_words: Signal<Out, Bits<5>>,
    pub bc_data: Signal<Out, Bits<BEAT_BITS>>,
    pub bc_local_only: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    pub bc_busy: Signal<In, Bit>,
    // The signer service (crate::setup).
    pub sg_sign: Signal<Out, Bit>,
    pub sg_verify: Signal<Out, Bit>,
    pub sg_summary: Signal<Out, Bits<128>>,
    pub sg_signer: Signal<Out, Bits<8>>,
    pub sg_signature: Signal<Out, Bits<BEAT_BITS>>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_sig: Signal<In, Bits<BEAT_BITS>>,
    pub sg_resp_sign: Signal<In, Bit>,
    pub sg_resp_take: Signal<Out, Bit>,
    // Proposals in, decisions out (AXI-Stream).
    pub prop_tdata: Signal<In, Bits<32>>,
    pub prop_tvalid: Signal<In, Bit>,
    pub prop_tready: Signal<Out, Bit>,
    pub dec_tdata: Signal<Out, Bits<64>>,
    pub dec_tuser: Signal<Out, Bit>,
    pub dec_tvalid: Signal<Out, Bit>,
    pub dec_tready: Signal<In, Bit>,
    // Status (the `fresh_status` set).
    pub sts_cycles: Signal<Out, Bits<32>>,
    pub sts_decisions: Signal<Out, Bits<32>>,
    pub sts_fast: Signal<Out, Bits<32>>,
    pub sts_slow: Signal<Out, Bits<32>>,
    pub sts_view_changes: Signal<Out, Bits<32>>,
    pub sts_view: Signal<Out, Bits<32>>,
    pub sts_timeouts: Signal<Out, Bits<32>>,
    pub sts_polls: Signal<Out, Bits<32>>,
    pub sts_bad_shares: Signal<Out, Bits<32>>,
    pub sts_error: Signal<Out, Bits<8>>,
    /// The controller's state, `St` in declaration order.
    pub sts_state: Signal<Out, Bits<8>>,
    // Registers (the spec's ProtocolState).
    st: DFF<St>,
    view: DFF<Bits<32>>,
    leader: DFF<Bits<8>>,
    k: DFF<Bits<32>>,
    slot: DFF<Bits<8>>,
    slot_n: DFF<Bits<16>>,
    m: DFF<Bits<32>>,
    slow: DFF<Bit>,
    phase: DFF<Bits<2>>,
    vote_view: DFF<Bits<32>>,
    vote_leader: DFF<Bits<8>>,
    vc_lo: DFF<Bits<BEAT_BITS>>,
    vc_hi: DFF<Bits<BEAT_BITS>>,
    vc_flags: DFF<Bits<BEAT_BITS>>,
    beat_ix: DFF<Bit>,
    view_changes: DFF<Bits<32>>,
    support: DFF<Bits<8>>,
    choose: Choose,
    flagged: DFF<Bits<N>>,
    verified: DFF<Bits<N>>,
    bad: DFF<Bits<N>>,
    sign_sent: DFF<Bit>,
    vp: DFF<Bits<8>>,
    vq: DFF<Bits<8>>,
    progress: DFF<Bit>,
    slow_count: DFF<Bits<32>>,
    bad_shares: DFF<Bits<32>>,
    quorum: DFF<Bits<8>>,
    active: DFF<Bits<N>>,
    waited: DFF<Bits<16>>,
    lane: DFF<Bits<4>>,
    done_q: DFF<Bit>,
    cycles: DFF<Bits<32>>,
    decisions: DFF<Bits<32>>,
    fast: DFF<Bits<32>>,
    timeouts: DFF<Bits<32>>,
    polls: DFF<Bits<32>>,
    error: DFF<Bits<8>>,
    // Combinational temporaries.
    tag: Signal<Local, Bits<32>>,
    vc_tag: Signal<Local, Bits<32>>,
    next_leader: Signal<Local, Bits<8>>,
    probe_found: Signal<Local, Bit>,
    probe_m: Signal<Local, Bits<32>>,
    probe_votes: Signal<Local, Bits<8>>,
    prep_word: Signal<Local, Bits<32>>,
    cert_row: Signal<Local, Bits<32>>,
    commit_row: Signal<Local, Bits<32>>,
    poll_word: Signal<Local, Bits<32>>,
    row: Signal<Local, Bits<BEAT_BITS>>,
    votes: Signal<Local, Bits<8>>,
    flags: Signal<Local, Bits<N>>,
    valid_shares: Signal<Local, Bits<8>>,
    share_row: Signal<Local, Bits<32>>,
    flag_row: Signal<Local, Bits<32>>,
    slow_commit_row: Signal<Local, Bits<32>>,
    candidate: Signal<Local, Bit>,
    missed: Signal<Local, Bit>,
    timeout: Signal<Local, Bit>,
    // Constants from `layout` and `params`.
    prepare_base: Constant<Bits<32>>,
    will_cert_base: Constant<Bits<32>>,
    will_commit_base: Constant<Bits<32>>,
    commit_base: Constant<Bits<32>>,
    certify_valid_base: Constant<Bits<32>>,
    certify_base: Constant<Bits<32>>,
    vc_base: Constant<Bits<32>>,
    vc_valid_base: Constant<Bits<32>>,
    vc_len: Constant<Bits<8>>,
    build_n16: Constant<Bits<16>>,
    last_slot_n: Constant<Bits<16>>,
    lane_one: Constant<Bits<N>>,
    status_ok: Constant<Bits<8>>,
    row_shift: Constant<Bits<8>>,
    last_slot: Constant<Bits<8>>,
    build_n: Constant<Bits<8>>,
    all_lanes: Constant<Bits<N>>,
    beat_words: Constant<Bits<32>>,
    page_mask: Constant<Bits<64>>,
    err_even: Constant<Bits<8>>,
    err_too_many: Constant<Bits<8>>,
    err_id: Constant<Bits<8>>,
    err_align: Constant<Bits<8>>,
}

impl<const N: usize> Protocol<N> {
    /// The controller for the v2 layout of a build of N replicas.
    pub fn new() -> Self {
        assert!(
            (1..=8).contains(&N),
            "a slot's row of votes must fit one beat: N <= 8"
        );
        let mb = crate::layout::Mailbox::v2(N, G, crate::params::SB);
        use crate::layout::Region;
        let row = mb.vote_row_words();
        assert_eq!(
            mb.share(1, 0) - mb.share(0, 0),
            N * crate::layout::share_words(crate::params::SB),
            "one beat per share"
        );
        // The shifts and record sizes written in `update` (hdl_gen takes no
        // computed shift amounts there) are the layout's: checked here, so a
        // change of layout fails at construction, not silently.
        use crate::layout::{prepare_words, share_words, vote_words, Version, VC_WORDS};
        assert_eq!(prepare_words(Version::V2), 4, "prepare: slot << 2, 4 words");
        assert_eq!(
            vote_words(Version::V2),
            2,
            "votes and flags: id << 1, 2 words"
        );
        assert_eq!(
            share_words(crate::params::SB),
            BEAT_WORDS,
            "shares: << 4, one beat"
        );
        assert_eq!(VC_WORDS, 4, "vc records: id << 2, 4 words");
        assert_eq!(BEAT_WORDS, 16, "a beat is 16 words");
        Protocol {
            clock: Default::default(),
            rst_n: Default::default(),
            ap_start: Default::default(),
            ap_done: Default::default(),
            ap_idle: Default::default(),
            ap_ready: Default::default(),
            network_ptr: Default::default(),
            id: Default::default(),
            n: Default::default(),
            wait_polls: Default::default(),
            slots: Default::default(),
            fetch_start: Default::default(),
            fetch_addr: Default::default(),
            fetch_len: Default::default(),
            fetch_beat: Default::default(),
            fetch_done: Default::default(),
            fetch_beat_valid: Default::default(),
            fetch_error: Default::default(),
            bc_start: Default::default(),
            bc_word: Default::default(),
            bc_words: Default::default(),
            bc_data: Default::default(),
            bc_local_only: Default::default(),
            bc_done: Default::default(),
            bc_busy: Default::default(),
            prop_tdata: Default::default(),
            prop_tvalid: Default::default(),
            prop_tready: Default::default(),
            dec_tdata: Default::default(),
            dec_tuser: Default::default(),
            dec_tvalid: Default::default(),
            dec_tready: Default::default(),
            sts_cycles: Default::default(),
            sts_decisions: Default::default(),
            sts_fast: Default::default(),
            sts_slow: Default::default(),
            sts_view_changes: Default::default(),
            sts_view: Default::default(),
            sts_timeouts: Default::default(),
            sts_polls: Default::default(),
            sts_bad_shares: Default::default(),
            sts_error: Default::default(),
            sts_state: Default::default(),
            sg_sign: Default::default(),
            sg_verify: Default::default(),
            sg_summary: Default::default(),
            sg_signer: Default::default(),
            sg_signature: Default::default(),
            sg_busy: Default::default(),
            sg_resp_valid: Default::default(),
            sg_resp_status: Default::default(),
            sg_resp_sig: Default::default(),
            sg_resp_sign: Default::default(),
            sg_resp_take: Default::default(),
            st: Default::default(),
            view: Default::default(),
            leader: Default::default(),
            k: Default::default(),
            slot: Default::default(),
            slot_n: Default::default(),
            m: Default::default(),
            slow: Default::default(),
            phase: Default::default(),
            vote_view: Default::default(),
            vote_leader: Default::default(),
            vc_lo: Default::default(),
            vc_hi: Default::default(),
            vc_flags: Default::default(),
            beat_ix: Default::default(),
            view_changes: Default::default(),
            support: Default::default(),
            choose: Default::default(),
            flagged: Default::default(),
            verified: Default::default(),
            bad: Default::default(),
            sign_sent: Default::default(),
            vp: Default::default(),
            vq: Default::default(),
            progress: Default::default(),
            slow_count: Default::default(),
            bad_shares: Default::default(),
            quorum: Default::default(),
            active: Default::default(),
            waited: Default::default(),
            lane: Default::default(),
            done_q: Default::default(),
            cycles: Default::default(),
            decisions: Default::default(),
            fast: Default::default(),
            timeouts: Default::default(),
            polls: Default::default(),
            error: Default::default(),
            tag: Default::default(),
            vc_tag: Default::default(),
            next_leader: Default::default(),
            probe_found: Default::default(),
            probe_m: Default::default(),
            probe_votes: Default::default(),
            prep_word: Default::default(),
            cert_row: Default::default(),
            commit_row: Default::default(),
            poll_word: Default::default(),
            row: Default::default(),
            votes: Default::default(),
            flags: Default::default(),
            valid_shares: Default::default(),
            share_row: Default::default(),
            flag_row: Default::default(),
            slow_commit_row: Default::default(),
            candidate: Default::default(),
            missed: Default::default(),
            timeout: Default::default(),
            prepare_base: Constant::new((mb.base(Region::Prepare) as u64).into()),
            will_cert_base: Constant::new((mb.base(Region::WillCert) as u64).into()),
            will_commit_base: Constant::new((mb.base(Region::WillCommit) as u64).into()),
            commit_base: Constant::new((mb.base(Region::Commit) as u64).into()),
            certify_valid_base: Constant::new((mb.base(Region::CertifyValid) as u64).into()),
            certify_base: Constant::new((mb.base(Region::Certify) as u64).into()),
            vc_base: Constant::new((mb.base(Region::Vc) as u64).into()),
            vc_valid_base: Constant::new((mb.base(Region::VcValid) as u64).into()),
            vc_len: Constant::new((((N * crate::layout::VC_WORDS - 1) / BEAT_WORDS) as u64).into()),
            build_n16: Constant::new((N as u64).into()),
            last_slot_n: Constant::new((((G - 1) * N) as u64).into()),
            lane_one: Constant::new(1u64.into()),
            status_ok: Constant::new(crate::setup::code::OK.into()),
            row_shift: Constant::new((row.trailing_zeros() as u64).into()),
            last_slot: Constant::new(((G - 1) as u64).into()),
            build_n: Constant::new((N as u64).into()),
            all_lanes: Constant::new(Bits::<N>::mask()),
            beat_words: Constant::new((!15u64 & 0xffff_ffff).into()),
            page_mask: Constant::new(4095u64.into()),
            err_even: Constant::new(ConfigError::EvenReplicas.code().into()),
            err_too_many: Constant::new(ConfigError::TooManyReplicas.code().into()),
            err_id: Constant::new(ConfigError::IdOutOfRange.code().into()),
            err_align: Constant::new(ConfigError::BufferMisaligned.code().into()),
        }
    }
}

impl<const N: usize> Default for Protocol<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for Protocol<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            st,
            view,
            leader,
            k,
            slot,
            slot_n,
            m,
            slow,
            phase,
            vote_view,
            vote_leader,
            vc_lo,
            vc_hi,
            vc_flags,
            beat_ix,
            view_changes,
            support,
            flagged,
            verified,
            bad,
            sign_sent,
            vp,
            vq,
            progress,
            slow_count,
            bad_shares,
            quorum,
            active,
            waited,
            lane,
            done_q,
            cycles,
            decisions,
            fast,
            timeouts,
            polls,
            error
        );
        // Where this slot's records are, and the vote word for (view, k).
        // Votes of this slot carry the view they were cast in; a view
        // change's flag carries the new view.
        self.tag.next = (bit_cast::<32, 8>(self.vote_view.q.val().get_bits::<8>(0)) << 24)
            | bit_cast::<32, 24>(self.k.q.val().get_bits::<24>(0));
        self.vc_tag.next = (bit_cast::<32, 8>(self.view.q.val().get_bits::<8>(0)) << 24)
            | bit_cast::<32, 24>(self.k.q.val().get_bits::<24>(0));
        if (self.leader.q.val() + 1) >= self.n.val() {
            self.next_leader.next = 0.into();
        } else {
            self.next_leader.next = self.leader.q.val() + 1;
        }
        // The view change's rule, on what was fetched.
        self.choose.rec_lo.next = self.vc_lo.q.val();
        self.choose.rec_hi.next = self.vc_hi.q.val();
        self.choose.flags.next = self.vc_flags.q.val();
        self.choose.view.next = self.view.q.val();
        self.choose.active.next = bit_cast::<8, N>(self.active.q.val());
        self.choose.support.next = self.support.q.val();
        self.prep_word.next = self.prepare_base.val() + (bit_cast::<32, 8>(self.slot.q.val()) << 2);
        self.cert_row.next = self.will_cert_base.val()
            + (bit_cast::<32, 8>(self.slot.q.val()) << self.row_shift.val());
        self.commit_row.next = self.will_commit_base.val()
            + (bit_cast::<32, 8>(self.slot.q.val()) << self.row_shift.val());
        self.flag_row.next = self.certify_valid_base.val()
            + (bit_cast::<32, 8>(self.slot.q.val()) << self.row_shift.val());
        self.slow_commit_row.next =
            self.commit_base.val() + (bit_cast::<32, 8>(self.slot.q.val()) << self.row_shift.val());
        // A share is one beat: certify + (slot * N + node) * 16 words.
        self.share_row.next =
            self.certify_base.val() + (bit_cast::<32, 16>(self.slot_n.q.val()) << 4);
        self.poll_word.next = self.prep_word.val();
        // The polled record, moved to lane 0 of the beat.
        self.row.next = self.fetch_beat.val() >> (bit_cast::<10, 4>(self.lane.q.val()) << 5);
        // count_votes: entries i < n holding (tag, m).
        self.votes.next = 0.into();
        self.flags.next = 0.into();
        self.valid_shares.next = 0.into();
        for i in 0..N {
            if self.active.q.val().get_bit(i)
                & (self.row.val().get_bits::<32>(i * 64) == self.tag.val())
                & (self.row.val().get_bits::<32>(i * 64 + 32) == self.m.q.val())
            {
                self.votes.next = self.votes.val() + 1;
                self.flags.next = self.flags.val().replace_bit(i, true);
            }
            if self.verified.q.val().get_bit(i) {
                self.valid_shares.next = self.valid_shares.val() + 1;
            }
        }
        // A full quorum for some m in the polled row (the catch-up of a
        // replica that fell behind: it may not know the slot's m).
        self.probe_found.next = false;
        self.probe_m.next = 0.into();
        for i in 0..N {
            if self.active.q.val().get_bit(i)
                & (self.row.val().get_bits::<32>(i * 64) == self.tag.val())
                & !self.probe_found.val()
            {
                self.probe_found.next = true;
                self.probe_m.next = self.row.val().get_bits::<32>(i * 64 + 32);
            }
        }
        self.probe_votes.next = 0.into();
        for i in 0..N {
            if self.active.q.val().get_bit(i)
                & (self.row.val().get_bits::<32>(i * 64) == self.tag.val())
                & (self.row.val().get_bits::<32>(i * 64 + 32) == self.probe_m.val())
            {
                self.probe_votes.next = self.probe_votes.val() + 1;
            }
        }
        // Peer vp's share is flagged and neither verified nor refused yet.
        self.candidate.next = self.flagged.q.val().get_bit(self.vp.q.val().index())
            & !self.verified.q.val().get_bit(self.vp.q.val().index())
            & !self.bad.q.val().get_bit(self.vp.q.val().index())
            & (self.vp.q.val() != self.id.val());
        self.sg_sign.next = false;
        self.sg_verify.next = false;
        self.sg_resp_take.next = false;
        self.sg_summary.next = bit_cast::<128, 32>(self.view.q.val())
            | (bit_cast::<128, 8>(self.slot.q.val()) << 32)
            | (bit_cast::<128, 32>(self.k.q.val()) << 64)
            | (bit_cast::<128, 32>(self.m.q.val()) << 96);
        self.sg_signer.next = self.vp.q.val();
        self.sg_signature.next = self.fetch_beat.val();
        self.missed.next = false;
        self.timeout.next = false;
        self.fetch_start.next = false;
        self.fetch_len.next = 0.into();
        self.bc_start.next = false;
        self.bc_word.next = self.prep_word.val();
        self.bc_words.next = 2.into();
        self.bc_local_only.next = false;
        self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.tag.val())
            | (bit_cast::<BEAT_BITS, 32>(self.m.q.val()) << 32);
        self.prop_tready.next = false;
        self.dec_tvalid.next = false;
        self.done_q.d.next = false;
        if (self.st.q.val() != St::Idle) & (self.st.q.val() != St::Done) {
            self.cycles.d.next = self.cycles.q.val() + 1;
        }
        match self.st.q.val() {
            St::Idle => {
                // ap_ctrl_hs for a kernel that reads its arguments for the
                // whole run: ap_ready comes with ap_done, and the start that
                // is still high in that cycle is not a new one.
                if self.ap_start.val() & !self.done_q.q.val() {
                    self.error.d.next = 0.into();
                    self.cycles.d.next = 0.into();
                    self.decisions.d.next = 0.into();
                    self.fast.d.next = 0.into();
                    self.timeouts.d.next = 0.into();
                    self.polls.d.next = 0.into();
                    self.view.d.next = 0.into();
                    self.leader.d.next = 0.into();
                    self.k.d.next = 1.into();
                    self.slot.d.next = 0.into();
                    self.slot_n.d.next = 0.into();
                    self.slow_count.d.next = 0.into();
                    self.bad_shares.d.next = 0.into();
                    self.view_changes.d.next = 0.into();
                    self.support.d.next = ((self.n.val() - 1) >> 1) + 1;
                    self.waited.d.next = 0.into();
                    self.quorum.d.next = ((self.n.val() - 1) & 0xfe) + 1;
                    self.active.d.next = !(self.all_lanes.val() << self.n.val());
                    self.st.d.next = St::LeaderCheck;
                    if !self.n.val().get_bit(0) {
                        self.error.d.next = self.err_even.val();
                        self.st.d.next = St::Done;
                    } else if self.n.val() > self.build_n.val() {
                        self.error.d.next = self.err_too_many.val();
                        self.st.d.next = St::Done;
                    } else if self.id.val() >= self.n.val() {
                        self.error.d.next = self.err_id.val();
                        self.st.d.next = St::Done;
                    } else if (self.network_ptr.val() & self.page_mask.val()) != 0 {
                        self.error.d.next = self.err_align.val();
                        self.st.d.next = St::Done;
                    }
                }
            }
            St::LeaderCheck => {
                self.waited.d.next = 0.into();
                self.slow.d.next = false;
                self.phase.d.next = 0.into();
                self.vote_view.d.next = self.view.q.val();
                self.vote_leader.d.next = self.leader.q.val();
                if self.id.val() == self.leader.q.val() {
                    self.st.d.next = St::LeaderWaitValue;
                } else {
                    self.st.d.next = St::FastPollPrepare;
                }
            }
            St::LeaderWaitValue => {
                self.prop_tready.next = true;
                if self.prop_tvalid.val() {
                    self.m.d.next = self.prop_tdata.val();
                    self.bc_start.next = true;
                    self.bc_word.next = self.prep_word.val();
                    self.bc_words.next = 4.into();
                    self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.k.q.val())
                        | (bit_cast::<BEAT_BITS, 32>(self.prop_tdata.val()) << 32)
                        | (bit_cast::<BEAT_BITS, 32>(self.view.q.val()) << 64);
                    self.st.d.next = St::LeaderSendPrepare;
                } else {
                    // No value yet: an idle poll, so the wait counts in polls
                    // and a leader with nothing to propose times out too.
                    self.fetch_start.next = true;
                    self.st.d.next = St::LeaderIdle;
                }
            }
            St::LeaderIdle => {
                if self.fetch_done.val() {
                    self.missed.next = true;
                    self.st.d.next = St::LeaderWaitValue;
                }
            }
            St::LeaderSendPrepare => {
                if self.bc_done.val() {
                    self.st.d.next = St::FastPollPrepare;
                }
            }
            St::FastPollPrepare => {
                self.poll_word.next = self.prep_word.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::FastWaitPrepare;
            }
            St::FastWaitPrepare => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val()
                        & (self.row.val().get_bits::<32>(0) == self.k.q.val())
                        & (self.row.val().get_bits::<32>(64) == self.view.q.val())
                    {
                        self.m.d.next = self.row.val().get_bits::<32>(32);
                        self.phase.d.next = 1.into();
                        self.bc_start.next = true;
                        self.bc_word.next =
                            self.cert_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                        self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.tag.val())
                            | (bit_cast::<BEAT_BITS, 32>(self.row.val().get_bits::<32>(32)) << 32);
                        self.waited.d.next = 0.into();
                        self.st.d.next = St::FastSendCert;
                    } else {
                        self.missed.next = true;
                        self.st.d.next = St::FastPollPrepare;
                    }
                }
            }
            St::FastSendCert => {
                if self.bc_done.val() {
                    self.st.d.next = St::FastPollCert;
                }
            }
            St::FastPollCert => {
                self.poll_word.next = self.cert_row.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::FastWaitCert;
            }
            St::FastWaitCert => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & (self.votes.val() >= self.quorum.q.val()) {
                        self.phase.d.next = 2.into();
                        self.bc_start.next = true;
                        self.bc_word.next =
                            self.commit_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                        self.waited.d.next = 0.into();
                        self.st.d.next = St::FastSendCommit;
                    } else {
                        self.missed.next = true;
                        self.st.d.next = St::FastPollCert;
                    }
                }
            }
            St::FastSendCommit => {
                if self.bc_done.val() {
                    self.st.d.next = St::FastPollCommit;
                }
            }
            St::FastPollCommit => {
                self.poll_word.next = self.commit_row.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::FastWaitCommit;
            }
            St::FastWaitCommit => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & (self.votes.val() >= self.quorum.q.val()) {
                        self.st.d.next = St::Decide;
                    } else {
                        self.missed.next = true;
                        self.st.d.next = St::FastPollCommit;
                    }
                }
            }
            St::SlowStart => {
                self.flagged.d.next = 0.into();
                self.verified.d.next = 0.into();
                self.bad.d.next = 0.into();
                self.sign_sent.d.next = false;
                self.vp.d.next = 0.into();
                self.progress.d.next = false;
                self.waited.d.next = 0.into();
                self.st.d.next = St::SlowStep;
            }
            St::SlowStep => {
                if self.sg_resp_valid.val() {
                    // A response waits: take it first.
                    self.sg_resp_take.next = true;
                    if self.sg_resp_sign.val() {
                        if self.sg_resp_status.val() == self.status_ok.val() {
                            // Our share: into certify on every replica.
                            self.bc_start.next = true;
                            self.bc_word.next =
                                self.share_row.val() + (bit_cast::<32, 8>(self.id.val()) << 4);
                            self.bc_words.next = 16.into();
                            self.bc_data.next = self.sg_resp_sig.val();
                            self.st.d.next = St::SlowSendShare;
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
                        self.bad_shares.d.next = self.bad_shares.q.val() + 1;
                    }
                } else if !self.sign_sent.q.val() & !self.sg_busy.val() {
                    self.sg_sign.next = true;
                    self.sign_sent.d.next = true;
                } else if (self.valid_shares.val() >= self.quorum.q.val()) & !self.sg_busy.val() {
                    self.phase.d.next = 2.into();
                    self.bc_start.next = true;
                    self.bc_word.next =
                        self.slow_commit_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                    self.st.d.next = St::SlowSendCommit;
                } else if self.candidate.val() & !self.sg_busy.val() {
                    // Fetch peer vp's share, then verify it.
                    self.poll_word.next =
                        self.share_row.val() + (bit_cast::<32, 8>(self.vp.q.val()) << 4);
                    self.fetch_start.next = true;
                    self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                    self.st.d.next = St::SlowWaitShare;
                } else if (self.vp.q.val() + 1) >= self.n.val() {
                    self.vp.d.next = 0.into();
                    self.st.d.next = St::SlowPollFlags;
                } else {
                    self.vp.d.next = self.vp.q.val() + 1;
                }
            }
            St::SlowWaitShare => {
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        self.bad.d.next =
                            self.bad.q.val() | (self.lane_one.val() << self.vp.q.val());
                    } else {
                        self.sg_verify.next = true;
                        self.vq.d.next = self.vp.q.val();
                    }
                    self.st.d.next = St::SlowStep;
                }
            }
            St::SlowSendShare => {
                if self.bc_done.val() {
                    // Then the flag that says the share is in place.
                    self.bc_start.next = true;
                    self.bc_word.next =
                        self.flag_row.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                    self.st.d.next = St::SlowSendFlag;
                }
            }
            St::SlowSendFlag => {
                if self.bc_done.val() {
                    self.verified.d.next =
                        self.verified.q.val() | (self.lane_one.val() << self.id.val());
                    self.progress.d.next = true;
                    self.st.d.next = St::SlowStep;
                }
            }
            St::SlowPollFlags => {
                self.poll_word.next = self.flag_row.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::SlowWaitFlags;
            }
            St::SlowWaitFlags => {
                if self.fetch_done.val() {
                    // A round of the slow loop without progress counts as a
                    // miss, unless the signer is still working for us: the
                    // wait measures the network, not the signer's latency.
                    self.missed.next = !self.progress.q.val() & !self.sg_busy.val();
                    self.progress.d.next = false;
                    if !self.fetch_error.val() {
                        self.flagged.d.next = self.flags.val();
                    }
                    self.st.d.next = St::SlowPollFast;
                }
            }
            St::SlowPollFast => {
                // A fast quorum may still have formed (a peer decided fast).
                self.poll_word.next = self.commit_row.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::SlowWaitFast;
            }
            St::SlowWaitFast => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val()
                        & (self.votes.val() >= self.quorum.q.val())
                        & !self.sg_busy.val()
                    {
                        self.slow.d.next = false;
                        self.st.d.next = St::Decide;
                    } else {
                        self.st.d.next = St::SlowStep;
                    }
                }
            }
            St::SlowSendCommit => {
                if self.bc_done.val() {
                    self.waited.d.next = 0.into();
                    self.st.d.next = St::SlowPollCommit;
                }
            }
            St::SlowPollCommit => {
                self.poll_word.next = self.slow_commit_row.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::SlowWaitCommit;
            }
            St::SlowWaitCommit => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & (self.votes.val() >= self.quorum.q.val()) {
                        self.slow.d.next = true;
                        self.st.d.next = St::Decide;
                    } else {
                        self.missed.next = true;
                        self.st.d.next = St::SlowPollCommit;
                    }
                }
            }
            St::VcStart => {
                // The view advances, the leader rotates; post what this
                // replica voted for in the slot: (view, slot | phase << 16, k, m).
                self.view.d.next = self.view.q.val() + 1;
                self.leader.d.next = self.next_leader.val();
                self.view_changes.d.next = self.view_changes.q.val() + 1;
                self.waited.d.next = 0.into();
                self.st.d.next = St::VcSendRecord;
            }
            St::VcSendRecord => {
                // (the view register already holds the new view)
                self.bc_start.next = true;
                self.bc_word.next = self.vc_base.val() + (bit_cast::<32, 8>(self.id.val()) << 2);
                self.bc_words.next = 4.into();
                self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.view.q.val())
                    | (bit_cast::<BEAT_BITS, 8>(self.slot.q.val()) << 32)
                    | (bit_cast::<BEAT_BITS, 2>(self.phase.q.val()) << 48)
                    | (bit_cast::<BEAT_BITS, 32>(self.k.q.val()) << 64)
                    | (bit_cast::<BEAT_BITS, 32>(self.m.q.val()) << 96);
                self.st.d.next = St::VcSendFlag;
            }
            St::VcSendFlag => {
                if self.bc_done.val() {
                    // Then its valid flag: (tag(view, k), m).
                    self.bc_start.next = true;
                    self.bc_word.next =
                        self.vc_valid_base.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
                    self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.vc_tag.val())
                        | (bit_cast::<BEAT_BITS, 32>(self.m.q.val()) << 32);
                    self.st.d.next = St::VcPollCatch;
                }
            }
            St::VcPollCatch => {
                // Did the slot decide without this replica (a full quorum of
                // will_commit in the view its votes were cast in)?
                self.poll_word.next = self.commit_row.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::VcWaitCatch;
            }
            St::VcWaitCatch => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & (self.probe_votes.val() >= self.quorum.q.val()) {
                        self.m.d.next = self.probe_m.val();
                        self.slow.d.next = false;
                        self.view.d.next = self.vote_view.q.val();
                        self.leader.d.next = self.vote_leader.q.val();
                        self.st.d.next = St::Decide;
                    } else {
                        self.st.d.next = St::VcPollCatchSlow;
                    }
                }
            }
            St::VcPollCatchSlow => {
                self.poll_word.next = self.slow_commit_row.val();
                self.fetch_start.next = true;
                self.lane.d.next = self.poll_word.val().get_bits::<4>(0);
                self.st.d.next = St::VcWaitCatchSlow;
            }
            St::VcWaitCatchSlow => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & (self.probe_votes.val() >= self.quorum.q.val()) {
                        self.m.d.next = self.probe_m.val();
                        self.slow.d.next = true;
                        self.view.d.next = self.vote_view.q.val();
                        self.leader.d.next = self.vote_leader.q.val();
                        self.st.d.next = St::Decide;
                    } else {
                        self.st.d.next = St::VcPollFlags;
                    }
                }
            }
            St::VcPollFlags => {
                self.poll_word.next = self.vc_valid_base.val();
                self.fetch_start.next = true;
                self.lane.d.next = 0.into();
                self.st.d.next = St::VcWaitFlags;
            }
            St::VcWaitFlags => {
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        self.missed.next = true;
                        self.st.d.next = St::VcPollCatch;
                    } else {
                        self.vc_flags.d.next = self.fetch_beat.val();
                        self.st.d.next = St::VcPollRecords;
                    }
                }
            }
            St::VcPollRecords => {
                self.poll_word.next = self.vc_base.val();
                self.fetch_start.next = true;
                self.fetch_len.next = self.vc_len.val();
                self.lane.d.next = 0.into();
                self.beat_ix.d.next = false;
                self.vc_hi.d.next = 0.into();
                self.st.d.next = St::VcWaitRecords;
            }
            St::VcWaitRecords => {
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
                        self.st.d.next = St::VcPollCatch;
                    } else {
                        self.st.d.next = St::VcDecide;
                    }
                }
            }
            St::VcDecide => {
                // Any signer response still due belongs to the old slot.
                self.sg_resp_take.next = true;
                if self.sg_busy.val() | self.bc_busy.val() {
                    // Wait for the signer and the record's broadcast to drain.
                } else if self.choose.higher.val() {
                    // Others are in a later view: follow them, one view at a time.
                    self.st.d.next = St::VcStart;
                } else if self.choose.valid.val() < self.quorum.q.val() {
                    // Not all records of this view are in yet: wait (a miss;
                    // a view change does not time out into the next view:
                    // the replicas would chase each other through the views).
                    self.missed.next = true;
                    self.st.d.next = St::VcPollCatch;
                } else if self.choose.chosen.val() & (self.choose.chosen_k.val() == self.k.q.val())
                {
                    // Install the value reported by f + 1 in our own prepare
                    // and run the slot again on the fast path.
                    self.m.d.next = self.choose.chosen_m.val();
                    self.bc_start.next = true;
                    self.bc_local_only.next = true;
                    self.bc_word.next = self.prep_word.val();
                    self.bc_words.next = 4.into();
                    self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.k.q.val())
                        | (bit_cast::<BEAT_BITS, 32>(self.choose.chosen_m.val()) << 32)
                        | (bit_cast::<BEAT_BITS, 32>(self.view.q.val()) << 64);
                    self.st.d.next = St::VcInstall;
                } else {
                    // No value can have been decided: the new leader proposes.
                    self.st.d.next = St::LeaderCheck;
                }
            }
            St::VcInstall => {
                if self.bc_done.val() {
                    self.waited.d.next = 0.into();
                    self.phase.d.next = 0.into();
                    self.vote_view.d.next = self.view.q.val();
                    self.vote_leader.d.next = self.leader.q.val();
                    self.st.d.next = St::FastPollPrepare;
                }
            }
            St::Decide => {
                self.dec_tvalid.next = true;
                if self.dec_tready.val() {
                    self.decisions.d.next = self.decisions.q.val() + 1;
                    if self.slow.q.val() {
                        self.slow_count.d.next = self.slow_count.q.val() + 1;
                    } else {
                        self.fast.d.next = self.fast.q.val() + 1;
                    }
                    self.k.d.next = self.k.q.val() + 1;
                    if self.slot.q.val() == self.last_slot.val() {
                        self.slot.d.next = 0.into();
                        self.slot_n.d.next = 0.into();
                    } else {
                        self.slot.d.next = self.slot.q.val() + 1;
                        self.slot_n.d.next = self.slot_n.q.val() + self.build_n16.val();
                    }
                    if (self.slots.val() != 0) & ((self.decisions.q.val() + 1) == self.slots.val())
                    {
                        self.st.d.next = St::Done;
                    } else {
                        self.st.d.next = St::LeaderCheck;
                    }
                }
            }
            St::Done => {
                self.done_q.d.next = true;
                self.st.d.next = St::Idle;
            }
            _ => {
                self.st.d.next = St::Idle;
            }
        }
        // A poll that found nothing counts towards the timeout.
        if self.fetch_start.val() {
            self.polls.d.next = self.polls.q.val() + 1;
        }
        if self.missed.val() {
            if (self.waited.q.val() + 1) >= self.wait_polls.val() {
                self.timeout.next = true;
                self.timeouts.d.next = self.timeouts.q.val() + 1;
                self.waited.d.next = 0.into();
            } else {
                self.waited.d.next = self.waited.q.val() + 1;
            }
        }
        // Past the wait, a replica that holds the slot's value falls back
        // to the slow path for the same slot.
        if self.timeout.val()
            & ((self.st.q.val() == St::FastWaitCert) | (self.st.q.val() == St::FastWaitCommit))
        {
            self.st.d.next = St::SlowStart;
        }
        // A timeout without the slot's value, in the slow path, or in a view
        // change starts a view change.
        if self.timeout.val()
            & ((self.st.q.val() == St::FastWaitPrepare)
                | (self.st.q.val() == St::LeaderIdle)
                | (self.st.q.val() == St::SlowWaitFlags)
                | (self.st.q.val() == St::SlowWaitCommit))
        {
            self.st.d.next = St::VcStart;
        }
        if !self.rst_n.val() {
            self.st.d.next = St::Idle;
            self.done_q.d.next = false;
            self.error.d.next = 0.into();
            self.cycles.d.next = 0.into();
            self.decisions.d.next = 0.into();
            self.fast.d.next = 0.into();
            self.timeouts.d.next = 0.into();
            self.polls.d.next = 0.into();
            self.view.d.next = 0.into();
            self.waited.d.next = 0.into();
            self.slow_count.d.next = 0.into();
            self.bad_shares.d.next = 0.into();
            self.view_changes.d.next = 0.into();
        }
        self.fetch_addr.next = self.network_ptr.val()
            + (bit_cast::<64, 32>(self.poll_word.val() & self.beat_words.val()) << 2);

        self.dec_tdata.next =
            bit_cast::<64, 32>(self.k.q.val()) | (bit_cast::<64, 32>(self.m.q.val()) << 32);
        self.dec_tuser.next = self.slow.q.val();
        self.ap_idle.next = self.st.q.val() == St::Idle;
        self.ap_done.next = self.done_q.q.val();
        self.ap_ready.next = self.done_q.q.val();
        self.sts_cycles.next = self.cycles.q.val();
        self.sts_decisions.next = self.decisions.q.val();
        self.sts_fast.next = self.fast.q.val();
        self.sts_slow.next = self.slow_count.q.val();
        self.sts_view_changes.next = self.view_changes.q.val();
        self.sts_view.next = self.view.q.val();
        self.sts_timeouts.next = self.timeouts.q.val();
        self.sts_polls.next = self.polls.q.val();
        self.sts_bad_shares.next = self.bad_shares.q.val();
        self.sts_error.next = self.error.q.val();
        // The state as a number (declaration order), for the status registers.
        match self.st.q.val() {
            St::Idle => {
                self.sts_state.next = 0.into();
            }
            St::LeaderCheck => {
                self.sts_state.next = 1.into();
            }
            St::LeaderWaitValue => {
                self.sts_state.next = 2.into();
            }
            St::LeaderIdle => {
                self.sts_state.next = 3.into();
            }
            St::LeaderSendPrepare => {
                self.sts_state.next = 4.into();
            }
            St::FastPollPrepare => {
                self.sts_state.next = 5.into();
            }
            St::FastWaitPrepare => {
                self.sts_state.next = 6.into();
            }
            St::FastSendCert => {
                self.sts_state.next = 7.into();
            }
            St::FastPollCert => {
                self.sts_state.next = 8.into();
            }
            St::FastWaitCert => {
                self.sts_state.next = 9.into();
            }
            St::FastSendCommit => {
                self.sts_state.next = 10.into();
            }
            St::FastPollCommit => {
                self.sts_state.next = 11.into();
            }
            St::FastWaitCommit => {
                self.sts_state.next = 12.into();
            }
            St::SlowStart => {
                self.sts_state.next = 13.into();
            }
            St::SlowStep => {
                self.sts_state.next = 14.into();
            }
            St::SlowWaitShare => {
                self.sts_state.next = 15.into();
            }
            St::SlowSendShare => {
                self.sts_state.next = 16.into();
            }
            St::SlowSendFlag => {
                self.sts_state.next = 17.into();
            }
            St::SlowPollFlags => {
                self.sts_state.next = 18.into();
            }
            St::SlowWaitFlags => {
                self.sts_state.next = 19.into();
            }
            St::SlowPollFast => {
                self.sts_state.next = 20.into();
            }
            St::SlowWaitFast => {
                self.sts_state.next = 21.into();
            }
            St::SlowSendCommit => {
                self.sts_state.next = 22.into();
            }
            St::SlowPollCommit => {
                self.sts_state.next = 23.into();
            }
            St::SlowWaitCommit => {
                self.sts_state.next = 24.into();
            }
            St::VcStart => {
                self.sts_state.next = 25.into();
            }
            St::VcSendRecord => {
                self.sts_state.next = 26.into();
            }
            St::VcSendFlag => {
                self.sts_state.next = 27.into();
            }
            St::VcPollFlags => {
                self.sts_state.next = 28.into();
            }
            St::VcWaitFlags => {
                self.sts_state.next = 29.into();
            }
            St::VcPollRecords => {
                self.sts_state.next = 30.into();
            }
            St::VcWaitRecords => {
                self.sts_state.next = 31.into();
            }
            St::VcDecide => {
                self.sts_state.next = 32.into();
            }
            St::VcInstall => {
                self.sts_state.next = 33.into();
            }
            St::VcPollCatch => {
                self.sts_state.next = 34.into();
            }
            St::VcWaitCatch => {
                self.sts_state.next = 35.into();
            }
            St::VcPollCatchSlow => {
                self.sts_state.next = 36.into();
            }
            St::VcWaitCatchSlow => {
                self.sts_state.next = 37.into();
            }
            St::Decide => {
                self.sts_state.next = 38.into();
            }
            St::Done => {
                self.sts_state.next = 39.into();
            }
            _ => {
                self.sts_state.next = 255.into();
            }
        }
    }
}

/// count_votes: votes for (tag, m) among the first n two-word entries of a
/// row (the reference the hardware's lane compare is tested against).
pub fn count_votes(row: &[u32], n: usize, tag: u32, m: u32) -> usize {
    (0..n)
        .filter(|&i| row.get(2 * i) == Some(&tag) && row.get(2 * i + 1) == Some(&m))
        .count()
}

/// count_flags: how many of the first n flags (two-word v2 entries) carry tag.
pub fn count_flags(row: &[u32], n: usize, tag: u32) -> usize {
    (0..n).filter(|&i| row.get(2 * i) == Some(&tag)).count()
}

/// The status counters, as the kernel reports them (`sts_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub cycles: u32,
    pub decisions: u32,
    pub fast: u32,
    pub slow: u32,
    pub view_changes: u32,
    pub view: u32,
    pub timeouts: u32,
    pub polls: u32,
    /// Peer shares the signer found invalid.
    pub bad_shares: u32,
    /// RDMA WRITE completions received.
    pub acks: u32,
    /// Local HBM writes answered with an error response.
    pub write_errors: u32,
    /// A refused configuration's code (`params::ConfigError`), 0 if accepted.
    pub error: u8,
    /// The controller's state (`St` in declaration order).
    pub state: u8,
}

/// The names of the states, in `sts_state` order.
pub const STATE_NAMES: [&str; 40] = [
    "Idle",
    "LeaderCheck",
    "LeaderWaitValue",
    "LeaderIdle",
    "LeaderSendPrepare",
    "FastPollPrepare",
    "FastWaitPrepare",
    "FastSendCert",
    "FastPollCert",
    "FastWaitCert",
    "FastSendCommit",
    "FastPollCommit",
    "FastWaitCommit",
    "SlowStart",
    "SlowStep",
    "SlowWaitShare",
    "SlowSendShare",
    "SlowSendFlag",
    "SlowPollFlags",
    "SlowWaitFlags",
    "SlowPollFast",
    "SlowWaitFast",
    "SlowSendCommit",
    "SlowPollCommit",
    "SlowWaitCommit",
    "VcStart",
    "VcSendRecord",
    "VcSendFlag",
    "VcPollFlags",
    "VcWaitFlags",
    "VcPollRecords",
    "VcWaitRecords",
    "VcDecide",
    "VcInstall",
    "VcPollCatch",
    "VcWaitCatch",
    "VcPollCatchSlow",
    "VcWaitCatchSlow",
    "Decide",
    "Done",
];

/// fresh_status: a run's measurements before it starts.
pub fn fresh_status() -> Status {
    Status::default()
}
