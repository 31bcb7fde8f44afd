//! Protocol: the consensus controller, as the spec's four machines
//! (docs/protocol.md has the full account: states, handovers, timing).
//!
//! LEADER proposes (crate::controller::leader), FAST runs two rounds of
//! votes (crate::controller::fast), SLOW runs signed shares and COMMITs
//! (crate::controller::slow, R7 to R12) and VIEW runs the view change
//! (crate::controller::view, R14 to R23). Protocol holds them, WATCH's
//! events and CertCheck (`cc`), and the blocks beside them (Timer, Ledger,
//! Grants, Encoder, SlotRecords, Position, Config, Counters, Tally,
//! Requests: one file and one docs page each), and owns what they share:
//! the slot's registers (the view and its leader, m, the phase, the vote
//! view, the decision path), the ports to Fetch, Broadcast, COMPOSE and the
//! signer service, ap_ctrl_hs, the decision stream and the status outputs.
//!
//! Its own states bracket the machines':
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | 0 | Idle | `ap_start`, configuration refused / accepted | Done (error code) / Run, LEADER started (k = 1, view = 0) |
//! | – | Run | a machine decides (`decided`) | Decide |
//! | 38 | Decide | the decision (k, m) is taken from `dec` | Run, LEADER started (k + 1), or after `slots` decisions: Close (W not covered: SLOW in seal mode on W, recovery.md R28) / Done |
//! | 39 | Done | (ap_done for one cycle) | Idle |
//! | 95 | Close | SLOW is Off: W's COMMIT written, a stop, or aborted at its poll point once its wait timed out (`close_to`) | Done |
//!
//! In Run exactly one machine is out of its Off state, and `sts_state` is
//! that machine's state number. A handover is combinational: the machine
//! handing over goes Off while it raises `start_*`, and the next machine's
//! first state begins at the same clock edge. No machine writes another's
//! registers: a machine asks Protocol to change the slot's registers
//! (`set_m`, `set_phase`, `open_round`, `next_view`, ...), and Protocol
//! ORs the requests and port outputs of the machines, since all but one
//! are Off and drive zeros. A broadcast request says where and what; the
//! Encoder lays the record's first beat out and COMPOSE streams the rest.
//!
//! Every child input is assigned once on every path (if/else, not a
//! default then an override): an override's glitch would wake the child
//! and the child's glitch this block, without end, in an event-driven
//! simulator (`hdl_tools::glitch`, run by `cargo xtask lint`).
//!
//! Reset (`rst_n`, synchronous, active low): Protocol returns to Idle and
//! every machine to Off, and the status counters to zero, the next cycle;
//! the slot registers are set afresh by the next `ap_start`.

use crate::controller::cert_check::CertCheck;
use crate::controller::config::Config;
use crate::controller::counters::Counters;
use crate::controller::encoder::Encoder;
use crate::controller::fast::Fast;
use crate::controller::grants::Grants;
use crate::controller::help::Help;
use crate::controller::leader::Leader;
use crate::controller::ledger::Ledger;
use crate::controller::position::Position;
use crate::controller::remote_read::RemoteRead;
use crate::controller::requests::Requests;
use crate::controller::slot_records::SlotRecords;
use crate::controller::slow::Slow;
use crate::controller::tally::Tally;
use crate::controller::timer::Timer;
use crate::controller::view::View;
use crate::io::roce::{QPNS_BITS, QPN_BITS};
use crate::layout::records::BLOCK_BITS;
use crate::params::{ConfigError, BEAT_BITS, BEAT_WORDS, G, K_LAST};
use rust_hdl::prelude::*;

mod inspect;

pub use crate::controller::tally::count_votes;
pub use crate::params::vote_tag;

/// Protocol's own states, around the machines'.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ProtocolSt {
    Idle,
    /// A machine holds the slot.
    Run,
    Decide,
    Done,
    /// After the run's last decision: SLOW, in seal mode, certifies
    /// and commits W, the last slot's will_commit (recovery.md R28).
    Close,
}

/// Every state, in declaration order.
pub const PROTOCOL_STATES: [ProtocolSt; 5] = [
    ProtocolSt::Idle,
    ProtocolSt::Run,
    ProtocolSt::Decide,
    ProtocolSt::Done,
    ProtocolSt::Close,
];

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
    /// With `fetch_start`: FAST's poll or LEADER's idle poll, which Fetch
    /// may answer from its read ahead (fetch.md).
    pub fetch_poll: Signal<Out, Bit>,
    /// With `fetch_poll`: the poll repeats the last one after a miss (the
    /// machine missed in the cycle before), so Fetch may answer it from
    /// its read ahead.
    pub fetch_again: Signal<Out, Bit>,
    pub fetch_beat: Signal<In, Bits<BEAT_BITS>>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    /// The scoreboard (docs/scoreboard.md): the beats it watches (the
    /// slot's prepare, will_cert row and will_commit row, in words), the
    /// one FAST waits on (`sb_sel`: 1, 2, 3; 0 none) and that beat as it
    /// stands (`sb_view`), which Tally counts while FAST waits.
    pub sb_prep_word: Signal<Out, Bits<32>>,
    pub sb_cert_word: Signal<Out, Bits<32>>,
    pub sb_commit_word: Signal<Out, Bits<32>>,
    pub sb_sel: Signal<Out, Bits<2>>,
    pub sb_view: Signal<In, Bits<BEAT_BITS>>,
    // Broadcast.
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_words: Signal<Out, Bits<5>>,
    pub bc_data: Signal<Out, Bits<BEAT_BITS>>,
    pub bc_local_only: Signal<Out, Bit>,
    /// The record's beats (1 to 16): the first is `bc_data`, the rest come
    /// from COMPOSE's stream.
    pub bc_beats: Signal<Out, Bits<5>>,
    /// A round (R13): Broadcast ends it with `bc_round_done`.
    pub bc_round: Signal<Out, Bit>,
    pub bc_round_done: Signal<In, Bit>,
    pub bc_round_error: Signal<In, Bit>,
    /// Broadcast failed stop after a round's or a staged record's failed
    /// local write: the run stops with `WriteFailed`.
    pub bc_failed: Signal<In, Bit>,
    pub bc_done: Signal<In, Bit>,
    pub bc_busy: Signal<In, Bit>,
    // The signer service (crate::io::signer).
    pub sg_sign: Signal<Out, Bit>,
    pub sg_verify: Signal<Out, Bit>,
    /// The CERT block a share signs or is verified against (recovery.md,
    /// section 3): [CERT, view, k, m, prev, 0, 0, 0].
    pub sg_block: Signal<Out, Bits<BLOCK_BITS>>,
    pub sg_signer: Signal<Out, Bits<8>>,
    pub sg_signature: Signal<Out, Bits<BEAT_BITS>>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_sig: Signal<In, Bits<BEAT_BITS>>,
    pub sg_resp_take: Signal<Out, Bit>,
    // COMPOSE (crate::io::compose): a record's later beats.
    pub cp_wr_en: Signal<Out, Bit>,
    pub cp_wr_beat: Signal<Out, Bits<4>>,
    pub cp_wr_data: Signal<Out, Bits<BEAT_BITS>>,
    pub cp_start: Signal<Out, Bit>,
    pub cp_first: Signal<Out, Bits<4>>,
    pub cp_last: Signal<Out, Bits<4>>,
    /// COMPOSE's read beat (`m_rec_tdata`): while it is idle, the beat
    /// `cp_first` named the cycle before (SLOW verifies shares from it).
    pub cp_rd_data: Signal<In, Bits<BEAT_BITS>>,
    // WATCH (crate::controller::watch): the background poller
    // on its own Fetch. Protocol enables it while SLOW holds the slot,
    // clears it when k changes, and acts on its FULL_ROW event (R26).
    pub wt_enable: Signal<Out, Bit>,
    pub wt_clear: Signal<Out, Bit>,
    pub wt_k: Signal<Out, Bits<32>>,
    pub wt_view: Signal<Out, Bits<32>>,
    /// VIEW awaits a NEW_VIEW: WATCH also polls this slot's COMMITs
    /// (MINE, R25).
    pub wt_awaiting: Signal<Out, Bit>,
    pub wt_ev_valid: Signal<In, Bit>,
    pub wt_ev_kind: Signal<In, Bits<3>>,
    pub wt_ev_view: Signal<In, Bits<32>>,
    pub wt_ev_m: Signal<In, Bits<32>>,
    /// ABOVE's prev: the value f + 1 CERT blocks of k + 1 carry for k (R24).
    pub wt_ev_prev: Signal<In, Bits<32>>,
    /// COMMIT: its writer x, and its certificate's signers.
    pub wt_ev_x: Signal<In, Bits<8>>,
    pub wt_ev_bits: Signal<In, Bits<N>>,
    pub wt_ev_take: Signal<Out, Bit>,
    // Proposals in, decisions out (AXI-Stream).
    pub prop_tdata: Signal<In, Bits<32>>,
    pub prop_tvalid: Signal<In, Bit>,
    pub prop_tready: Signal<Out, Bit>,
    pub dec_tdata: Signal<Out, Bits<64>>,
    pub dec_tuser: Signal<Out, Bit>,
    pub dec_tvalid: Signal<Out, Bit>,
    pub dec_tready: Signal<In, Bit>,
    // Status (`Status`; cleared on ap_start and on reset).
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
    /// The controller's state, as numbered in `STATE_NAMES`.
    pub sts_state: Signal<Out, Bits<8>>,
    /// High for the cycle Protocol takes an `ap_start` in Idle (accepted or
    /// refused): Broadcast clears its counters (`acks`, `write_errors`).
    pub started: Signal<Out, Bit>,
    /// The remote read's RDMA READs (RemoteRead; the RoceAdapter's READ
    /// port), and the queue pairs it names its peers by.
    pub qpns: Signal<In, Bits<QPNS_BITS>>,
    pub rd_qpn: Signal<Out, Bits<QPN_BITS>>,
    pub rd_laddr: Signal<Out, Bits<64>>,
    pub rd_raddr: Signal<Out, Bits<64>>,
    pub rd_valid: Signal<Out, Bit>,
    pub rd_ready: Signal<In, Bit>,
    /// The guard took a READ response's command.
    pub rd_taken: Signal<In, Bit>,
    // The four machines and the blocks beside them (protocol.md).
    leader: Leader,
    fast: Fast,
    /// SLOW, R7 to R12.
    slow: Slow,
    /// VIEW, the view change, R14 to R23.
    view: View,
    tally: Tally<N>,
    /// The client requests held (B): LEADER proposes the oldest, FAST votes
    /// only for a held one, and a decision retires its value.
    requests: Requests,
    /// The certificate inside a peer's COMMIT of k + 1, verified share by
    /// share on Protocol's Fetch and the signer while the slot's holder is
    /// held at a poll point (R24 from a COMMIT).
    cc: CertCheck,
    /// The wait, the timeouts and Close's timer.
    timer: Timer,
    /// W, L, D and the constraint (recovery.md D11).
    ledger: Ledger,
    /// When WATCH's event is acted on (R14, R17, R24 to R26).
    grants: Grants,
    /// The status counters.
    counters: Counters,
    /// The records' first beats and the signer's block (R3 to R19).
    encoder: Encoder,
    /// Where the slot's records are; SLOW's target and its blocks.
    records: SlotRecords,
    /// The remote read: the kept lock K, its READs and their check
    /// (recovery.md D11.17).
    rr: RemoteRead<N>,
    /// The decider's share for a bridger: the view of the block slot
    /// k − 1 was decided on, and the scan of its will_commit row
    /// (recovery.md section 11, D11.18).
    help: Help<N>,
    /// SLOW's late share is Help's block (VIEW's `call_help`), until SLOW
    /// yields.
    helping: DFF<Bit>,
    /// The view of the block the slot is being decided on, from the
    /// machine's `decide` to Position's `advance` (`dec_bv_ok`: known,
    /// not a catch-up; `dec_bv_short`: a full row's 8-bit tag field).
    dec_bv: DFF<Bits<32>>,
    dec_bv_ok: DFF<Bit>,
    dec_bv_short: DFF<Bit>,
    /// The run's end: a run that decided its last slot with Help armed
    /// lingers in Idle (VIEW's `linger`), writing the decider's share for
    /// a peer's will_commit of that slot, until the next `ap_start`.
    lingering: DFF<Bit>,
    linger_now: Signal<Local, Bit>,
    /// The sticky slow path: FAST skips its wait for votes at this slot;
    /// the slot is a probe (FAST's vote waits are the Timer's
    /// `probe_expiring`).
    skip: Signal<Local, Bit>,
    probe_slot: Signal<Local, Bit>,
    /// k, its slot, dec[k - 1], dec[k - 2] and the rerun flag.
    position: Position,
    /// The configuration's checks, and what follows from n.
    cfg: Config<N>,
    // Protocol's own state.
    state: DFF<ProtocolSt>,
    // The slot's registers (the spec's ProtocolState).
    view_no: DFF<Bits<32>>,
    leader_id: DFF<Bits<8>>,
    /// Last cycle's `missed`: a poll now repeats one that missed.
    missed_q: DFF<Bit>,
    /// FAST left a wait on the scoreboard's word while its poll was still
    /// in flight: that burst's beats and `done` reach no machine (`stale`).
    /// A request made meanwhile waits (`fheld`, with its address, length
    /// and poll flags) until the stale burst's `done`, when Fetch takes it.
    stale: DFF<Bit>,
    fheld: DFF<Bit>,
    fheld_addr: DFF<Bits<64>>,
    fheld_len: DFF<Bits<8>>,
    fheld_poll: DFF<Bit>,
    fheld_again: DFF<Bit>,
    /// Fetch's results as the machines see them (none of a stale burst).
    f_done: Signal<Local, Bit>,
    f_valid: Signal<Local, Bit>,
    /// The stale burst is still outstanding in this cycle.
    f_blocked: Signal<Local, Bit>,
    /// The beat Tally reads: the scoreboard's while FAST waits, else
    /// Fetch's.
    pbeat: Signal<Local, Bits<BEAT_BITS>>,
    m: DFF<Bits<32>>,
    phase: DFF<Bits<2>>,
    vote_view: DFF<Bits<32>>,
    vote_leader: DFF<Bits<8>>,
    /// The decision's path (TUSER): 1 slow.
    slow_path: DFF<Bit>,
    /// ap_done's cycle.
    done_q: DFF<Bit>,
    /// The configuration error or stop code (`sts_error`).
    error: DFF<Bits<8>>,
    /// `bridging` a cycle late: WATCH is cleared when the bridge ends, as
    /// `wt_k` moves back from W.b to k.
    bridged: DFF<Bit>,
    /// A catch-up was held back for the bridge's reach (Grants'
    /// `held_back`) since WATCH last forgot: it is cleared once `reach_ok`
    /// rises, so that it reports the catch-up again (recovery.md D11.16).
    held: DFF<Bit>,
    /// SLOW's `blocked` last cycle: WATCH forgets when it rises.
    blocked_q: DFF<Bit>,
    /// R8 refused the slot in this round (SLOW's `refuse`: the leader
    /// equivocated, or its signature failed twice), until the next round
    /// (`open_round`): no delivery on n locks while bridging.
    refused: DFF<Bit>,
    /// R28: the run's last decision leaves W uncovered (`close_now`),
    /// so Close starts SLOW in seal mode on W (`close_start`); at the
    /// timer's `close_to` SLOW is aborted at its poll point, and Close
    /// ends.
    close_now: Signal<Local, Bit>,
    /// WATCH's MINE may be adopted (R10, recovery.md D11.13): above L, and
    /// of the awaited view or later while VIEW awaits, of this view or a
    /// later one while SLOW bridges a W at slot k, or in SLOW's normal mode
    /// of a later view, or of this one before SLOW delivered k (R10's
    /// second half).
    adopt_ok: Signal<Local, Bit>,
    /// SLOW holds the slot in its normal mode (not sealing, not
    /// delivering for VIEW). Grants derives the same for itself; taken
    /// from a Grants output it would feed `grants.adopt_ok` back through
    /// Grants' one always block, a loop Verilator's lint refuses.
    slow_normal: Signal<Local, Bit>,
    close_start: Signal<Local, Bit>,
    close_abort: Signal<Local, Bit>,
    // Combinational temporaries.
    m_new: Signal<Local, Bits<32>>,
    run_start: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    next_leader: Signal<Local, Bits<8>>,
    poll_word: Signal<Local, Bits<32>>,
    missed: Signal<Local, Bit>,
    decided: Signal<Local, Bit>,
    start_leader: Signal<Local, Bit>,
    own_state: Signal<Local, Bits<8>>,
    /// A machine hands over to VIEW (as does SLOW's `stop`).
    hand_over: Signal<Local, Bit>,
    /// CertCheck's job (R24 from a COMMIT): k + 1 and its slot.
    cc_k1: Signal<Local, Bits<32>>,
    // Constants from `params`: the stop codes; 2^24 - 1 (`K_LAST`), the
    // last k a vote tag holds; a beat's word mask.
    err_round: Constant<Bits<8>>,
    err_k_wrapped: Constant<Bits<8>>,
    k_last: Constant<Bits<32>>,
    beat_words: Constant<Bits<32>>,
}

impl<const N: usize> Protocol<N> {
    /// The controller for the kernel's layout (`Mailbox::v3`): LEADER and FAST,
    /// with a prepare a beat that carries prev = dec[k - 1] (recovery.md
    /// R3, R4); FAST's timeout holding the slot starts SLOW (R7 to R12:
    /// the slot decided on f + 1 COMMITs). Where SLOW gives the slot up,
    /// and on LEADER's and FAST's other timeouts, VIEW starts the view
    /// change (R14 to R23: the bridge, a carried value, the rerun, the
    /// catch-up at install). A catch-up is granted only where it keeps an
    /// open obligation's W within the bridge's reach (recovery.md D11.16),
    /// so every bridge VIEW starts is one SLOW can run.
    pub fn new() -> Self {
        crate::controller::literals::check_literals::<N>();
        crate::controller::literals::check_record_literals::<N>();
        Self::of(crate::layout::Mailbox::v3(N, G, crate::params::SB))
    }

    fn of(mb: crate::layout::Mailbox) -> Self {
        assert!(
            (1..=8).contains(&N),
            "a slot's row of votes must fit one beat: N <= 8"
        );
        let row_n = crate::layout::Shape::SlotByNode.row_records(N, G);
        block!(Protocol {
            beat_words: Constant::new((!(BEAT_WORDS as u64 - 1) & 0xffff_ffff).into()),
            err_k_wrapped: Constant::new(ConfigError::KWrapped.code().into()),
            k_last: Constant::new(K_LAST.into()),
            err_round: Constant::new(ConfigError::WriteFailed.code().into()),
            records: SlotRecords::new(&mb, row_n),
            position: Position::new(row_n),
            ;
            defaults:
            run_start, taken,
            clock, rst_n, ap_start, ap_done, ap_idle, ap_ready, network_ptr, id, n,
            wait_polls, slots, fetch_start, fetch_addr, fetch_len, fetch_poll,
            fetch_again, fetch_beat, fetch_done, fetch_beat_valid, fetch_error,
            sb_prep_word, sb_cert_word, sb_commit_word, sb_sel, sb_view,
            stale, fheld, fheld_addr, fheld_len, fheld_poll, fheld_again, f_done, f_valid,
            f_blocked, pbeat,
            bc_start, bc_word, bc_words, bc_data, bc_local_only, bc_done, bc_busy,
            sg_sign, sg_verify, sg_block, sg_signer, sg_signature, sg_busy,
            sg_resp_valid, sg_resp_status, sg_resp_sig, sg_resp_take, prop_tdata,
            prop_tvalid, prop_tready, dec_tdata, dec_tuser, dec_tvalid, dec_tready,
            sts_cycles, sts_decisions, sts_fast, sts_slow, sts_view_changes, sts_view,
            sts_timeouts, sts_polls, sts_bad_shares, sts_error, sts_state, started,
            leader, fast, view, tally, requests, cc, timer, ledger, grants, counters, encoder,
            cfg, state, view_no, leader_id, missed_q, m, phase, vote_view, vote_leader,
            slow_path, done_q, error, m_new, next_leader, poll_word, missed, decided,
            start_leader, own_state, bridged, held, blocked_q, refused, close_now, adopt_ok, slow_normal, close_start, close_abort,
            bc_round, bc_round_done, bc_round_error, bc_failed, hand_over, cc_k1, wt_enable,
            wt_awaiting, wt_clear, wt_k, wt_view, wt_ev_valid, wt_ev_kind, wt_ev_view,
            wt_ev_m, wt_ev_prev, wt_ev_x, wt_ev_bits, wt_ev_take, slow, bc_beats,
            cp_wr_en, cp_wr_beat, cp_wr_data, cp_start, cp_first, cp_last, cp_rd_data,
            qpns, rd_qpn, rd_laddr, rd_raddr, rd_valid, rd_ready, rd_taken, rr,
            help, helping, dec_bv, dec_bv_ok, dec_bv_short, lingering, linger_now,
            skip, probe_slot
        })
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
            state,
            view_no,
            leader_id,
            missed_q,
            stale,
            fheld,
            fheld_addr,
            fheld_len,
            fheld_poll,
            fheld_again,
            m,
            phase,
            vote_view,
            vote_leader,
            slow_path,
            done_q,
            error,
            bridged,
            held,
            blocked_q,
            refused,
            helping,
            dec_bv,
            dec_bv_ok,
            dec_bv_short,
            lingering
        );
        // A run starts (Idle takes `ap_start`, accepted or refused); the
        // slot's decision is taken from `m_axis_dec` (not a rerun's).
        // (Not while VIEW is in a lingering step: it ends it first.)
        self.run_start.next = (self.state.q.val() == ProtocolSt::Idle)
            & self.ap_start.val()
            & !self.done_q.q.val()
            & !self.view.lingers.val();
        self.taken.next = (self.state.q.val() == ProtocolSt::Decide)
            & !self.position.rerun.val()
            & self.dec_tready.val();
        if (self.leader_id.q.val() + 1) >= self.n.val() {
            self.next_leader.next = 0.into();
        } else {
            self.next_leader.next = self.leader_id.q.val() + 1;
        }
        // CertCheck's slot: k + 1 (it does not run while bridging).
        self.cc_k1.next = self.position.k.val() + 1;
        // Where the slot's records are, and SLOW's target and its blocks
        // (W in seal mode, D in deliver mode, else the slot).
        self.records.id.next = self.id.val();
        self.records.view_no.next = self.view_no.q.val();
        self.records.k.next = self.position.k.val();
        self.records.m.next = self.m.q.val();
        self.records.prev.next = self.position.prev.val();
        self.records.slot.next = self.position.slot.val();
        self.records.slot_n.next = self.position.slot_n.val();
        self.records.w_w.next = self.ledger.w_w.val();
        self.records.w_k.next = self.ledger.w_k.val();
        self.records.w_m.next = self.ledger.w_m.val();
        self.records.w_prev.next = self.ledger.w_prev.val();
        self.records.d_w.next = self.ledger.d_w.val();
        self.records.d_k.next = self.ledger.d_k.val();
        self.records.d_m.next = self.ledger.d_m.val();
        self.records.d_prev.next = self.ledger.d_prev.val();
        self.records.slow_holding.next = self.slow.holding.val();
        // (While SLOW shares the slot's CERT in seal mode, its target is
        // the slot.)
        self.records.slow_seal.next = self.slow.seal_mode.val() & !self.slow.sharing.val();
        self.records.slow_deliver.next = self.slow.deliver_mode.val() | self.slow.adopt_mode.val();
        self.records.blk_j.next = self.slow.blk_j.val();
        self.records.cons_c.next = self.view.cons_c_out.val().get_bits::<8>(0);
        self.records.x_t.next = self.view.x_t_out.val();
        self.records.cc_k1.next = self.cc_k1.val().get_bits::<8>(0);
        self.records.cc_x.next = self.wt_ev_x.val();

        // The read side of the fetch port. A burst FAST no longer waits
        // for (it left on the scoreboard's word) reaches no machine.
        self.f_blocked.next = self.stale.q.val() & !self.fetch_done.val();
        self.f_done.next = self.fetch_done.val() & !self.stale.q.val();
        self.f_valid.next = self.fetch_beat_valid.val() & !self.stale.q.val();
        // While FAST waits, Tally counts the scoreboard's beat: what the
        // writes brought since the slot began, and the polls elsewhere.
        self.sb_prep_word.next = self.records.prep_word.val();
        self.sb_cert_word.next = self.records.cert_row.val();
        self.sb_commit_word.next = self.records.commit_row.val();
        self.sb_sel.next = self.fast.watch.val();
        self.pbeat.next = self.fetch_beat.val();
        if self.fast.watch.val() != 0 {
            self.pbeat.next = self.sb_view.val();
        }
        self.tally.beat.next = self.pbeat.val();
        self.tally.lane.next = self.records.cert_row.val().get_bits::<4>(0);
        self.tally.quarter.next = self.records.prep_word.val().get_bits::<2>(2);
        self.tally.active.next = self.cfg.active.val();
        // tag(vote_view, k), from the registers.
        self.tally.tag.next = (bit_cast::<32, 8>(self.vote_view.q.val().get_bits::<8>(0)) << 24)
            | bit_cast::<32, 24>(self.position.k.val().get_bits::<24>(0));
        self.tally.m.next = self.m.q.val();

        // The machines' inputs: the slot's registers, read only.
        self.leader.clock.next = self.clock.val();
        self.leader.rst_n.next = self.rst_n.val();
        self.leader.id.next = self.id.val();
        self.leader.leader_id.next = self.leader_id.q.val();
        self.leader.prep_word.next = self.records.prep_word.val();
        // LEADER's idle polls read ahead too (`fetch_poll`): FAST's wait.
        self.leader.expiring.next = self.timer.fast_expiring.val();
        // Under a constraint (R22, R23) the leader proposes only m*.
        if self.ledger.constrained.val() {
            self.leader.head_valid.next = true;
            self.leader.head_m.next = self.ledger.cons_m.val();
        } else {
            self.leader.head_valid.next = self.requests.head_valid.val();
            self.leader.head_m.next = self.requests.head_m.val();
        }
        self.leader.fetch_done.next = self.f_done.val();
        self.leader.bc_done.next = self.bc_done.val();

        self.fast.clock.next = self.clock.val();
        self.fast.rst_n.next = self.rst_n.val();
        self.fast.id.next = self.id.val();
        self.fast.k.next = self.position.k.val();
        self.fast.view_no.next = self.view_no.q.val();
        self.fast.quorum.next = self.cfg.quorum.val();
        self.fast.prep_word.next = self.records.prep_word.val();
        self.fast.cert_row.next = self.records.cert_row.val();
        self.fast.commit_row.next = self.records.commit_row.val();
        self.fast.record.next = self.tally.record.val();
        // D2 (recovery.md): the leader's lane of the will_cert row is
        // its PREPARE, which this replica read when it locked (phase 1 is
        // set only then), so the lock count is popcount(flags | leader),
        // whatever the leader's own will_cert says. The will_commit row
        // (phase 2) counts votes as written.
        if (self.phase.q.val() == 1)
            & !self
                .tally
                .flags
                .val()
                .get_bit(self.vote_leader.q.val().index())
        {
            self.fast.votes.next = self.tally.votes.val() + 1;
        } else {
            self.fast.votes.next = self.tally.votes.val();
        }
        // Under a constraint only m* is valid, held or not (it may have
        // been decided and retired before: a rerun, R23).
        if self.ledger.constrained.val() {
            self.fast.m_held.next =
                self.tally.record.val().get_bits::<32>(32) == self.ledger.cons_m.val();
        } else {
            self.fast.m_held.next = self.requests.holds.val();
        }
        // The prepare's prev (word 3 of its beat, quarter 0) is this
        // replica's dec[k - 1] (R4).
        self.fast.prev_ok.next = self.pbeat.val().get_bits::<32>(96) == self.position.prev.val();
        // The sticky slow path (protocol.md): no wait for votes once the
        // fast path failed (`skip`: k has a bit of the mask), but at the
        // probes, the k with no bit of a mask that is set, where FAST waits
        // for votes half its usual wait. All from registers only.
        self.skip.next =
            (self.position.k.val().get_bits::<5>(0) & self.timer.probe_mask.val()) != 0;
        self.probe_slot.next = (self.timer.probe_mask.val() != 0) & !self.skip.val();
        self.fast.skip_votes.next = self.skip.val();
        if self.probe_slot.val() {
            self.fast.expiring.next = self.timer.probe_expiring.val();
        } else {
            self.fast.expiring.next = self.timer.fast_expiring.val();
        }
        self.fast.prep_expiring.next = self.timer.prep_expiring.val();
        self.fast.fetch_done.next = self.f_done.val();
        self.fast.fetch_error.next = self.fetch_error.val();
        self.fast.bc_done.next = self.bc_done.val();

        self.slow.clock.next = self.clock.val();
        self.slow.rst_n.next = self.rst_n.val();
        self.slow.id.next = self.id.val();
        self.slow.leader_id.next = self.leader_id.q.val();
        self.slow.prep_sig_word.next = self.records.prep_sig_word.val();
        self.slow.n.next = self.n.val();
        self.slow.phase.next = self.phase.q.val();
        self.slow.prep_block.next = self.records.prep_block.val();
        self.slow.echo_row_word.next = self.records.echo_row_word.val();
        self.slow.echo_own_word.next = self.records.echo_own_word.val();
        self.slow.certify_own_word.next = self.records.certify_own_word.val();
        if self.slow.holding.val() & self.slow.deliver_mode.val() {
            // Deliver mode's polls are VIEW's: T_vc's count.
            self.slow.expiring.next = self.timer.vc_expiring.val();
        } else {
            self.slow.expiring.next = self.timer.slow_expiring.val();
        }
        self.slow.base_waited.next = self.timer.base_waited.val();
        self.slow.fetch_beat.next = self.fetch_beat.val();
        self.slow.fetch_beat_valid.next = self.f_valid.val();
        self.slow.fetch_done.next = self.f_done.val();
        self.slow.fetch_error.next = self.fetch_error.val();
        self.slow.round_done.next = self.bc_round_done.val();
        self.slow.round_error.next = self.bc_round_error.val();
        self.slow.sg_busy.next = self.sg_busy.val();
        self.slow.sg_resp_valid.next = self.sg_resp_valid.val();
        self.slow.sg_resp_status.next = self.sg_resp_status.val();
        self.slow.bc_done.next = self.bc_done.val();
        self.slow.support.next = self.cfg.support.val();
        self.slow.row_n.next = self.records.row_n.val();
        // R11's seal check is against the COMMITs' view: D's in deliver
        // mode (the replica itself is a view ahead).
        if self.slow.holding.val() & (self.slow.deliver_mode.val() | self.slow.adopt_mode.val()) {
            self.slow.view_no.next = self.ledger.d_w.val();
        } else {
            self.slow.view_no.next = self.view_no.q.val();
        }
        self.slow.cert_block.next = self.records.cert_block.val();
        // R16 while bridging: n locks for the slot this replica locked in
        // this view (phase 1), not refused (recovery.md R16; slow.md).
        self.slow.locks_ok.next = (self.phase.q.val() == 1)
            & (self.vote_view.q.val() == self.view_no.q.val())
            & !self.refused.q.val();
        // (FAST's `votes`: the lock count, D2's leader lane included.)
        self.slow.locks.next = self.fast.votes.val() >= self.cfg.quorum.val();
        self.slow.cert_row_word.next = self.records.cert_row.val();
        self.slow.vote_row_word.next = self.records.commit_row.val();
        self.slow.commit_block.next = self.records.commit_block.val();
        self.slow.certify_row_word.next = self.records.certify_row_word.val();
        self.slow.commit_row_word.next = self.records.commit_row_word.val();
        self.slow.commit_shift.next = self.records.commit_log.val();
        self.slow.echo_commit_base.next = self.records.echo_commit_word.val();
        self.slow.seal_base.next = self.records.seal_word.val();
        self.slow.echo_seal_base.next = self.records.echo_seal_word.val();

        self.view.clock.next = self.clock.val();
        self.view.rst_n.next = self.rst_n.val();
        self.view.id.next = self.id.val();
        self.view.n.next = self.n.val();
        self.view.support.next = self.cfg.support.val();
        self.view.view_no.next = self.view_no.q.val();
        self.view.next_leader.next = self.next_leader.val();
        // The obligation (D11.2); within the bridge's reach by D11.16.
        self.view.ob.next = self.ledger.ob.val();
        self.view.share_due.next = self.ledger.share_due.val();
        self.ledger.w_shared.next = self.view.call_share.val() & !self.view.call_late.val();
        // The remote read (recovery.md D11.17): K kept at a SEAL while the
        // slot is locked and not delivered (no will_commit), armed while k
        // stays; dropped once its late share is written, or once this
        // replica writes a CERT share of k from a later view.
        self.rr.clock.next = self.clock.val();
        self.rr.rst_n.next = self.rst_n.val();
        self.rr.n.next = self.n.val();
        self.rr.id.next = self.id.val();
        self.rr.network_ptr.next = self.network_ptr.val();
        self.rr.qpns.next = self.qpns.val();
        self.rr.active.next = self.cfg.active.val();
        self.rr.k.next = self.position.k.val();
        self.rr.keep.next = self.view.rr_keep.val() & (self.phase.q.val() == 1);
        self.rr.keep_view.next = self.vote_view.q.val();
        self.rr.keep_m.next = self.m.q.val();
        self.rr.keep_prev.next = self.position.prev.val();
        self.rr.keep_leader.next = self.vote_leader.q.val();
        self.rr.cancel.next =
            (self.slow.stop.val() & self.slow.late_mode.val() & !self.helping.q.val())
                | (self.slow.bc_start.val()
                    & self.slow.bc_cert.val()
                    & !self.slow.late_mode.val()
                    & (self.records.t_k.val() == self.rr.kk.val())
                    & (self.records.t_view.val() > self.rr.kv.val()));
        self.rr.issue.next = self.view.rr_issue.val();
        self.rr.scan_start.next = self.view.rr_scan.val();
        self.rr.beat.next = self.fetch_beat.val();
        self.rr.beat_valid.next = self.f_valid.val();
        self.rr.rd_ready.next = self.rd_ready.val();
        self.rr.rd_taken.next = self.rd_taken.val();
        self.rd_qpn.next = self.rr.rd_qpn.val();
        self.rd_laddr.next = self.rr.rd_laddr.val();
        self.rd_raddr.next = self.rr.rd_raddr.val();
        self.rd_valid.next = self.rr.rd_valid.val();
        self.view.rr_armed.next = self.rr.armed.val();
        self.view.rr_found.next = self.rr.found.val();
        self.view.remote_rows_word.next = self.records.remote_rows_word.val();
        // SLOW's late share: Help's block while helping, else K.
        if self.helping.q.val() {
            self.records.l_w.next = self.help.tv.val();
            self.records.l_k.next = self.help.tk.val();
            self.records.l_m.next = self.help.tm.val();
            self.records.l_prev.next = self.help.tprev.val();
        } else {
            self.records.l_w.next = self.rr.kv.val();
            self.records.l_k.next = self.rr.kk.val();
            self.records.l_m.next = self.rr.km.val();
            self.records.l_prev.next = self.rr.kprev.val();
        }
        // The decider's share (recovery.md D11.18): the view of the block
        // the slot is decided on, taken with the machine's `decide` (fast:
        // the votes' view; slow, in any mode: SLOW's target's; R26's full
        // row: its tag's view field; a catch-up's, R24, is not known), and
        // kept by Help at Position's `advance` (not a rerun's).
        if self.fast.decide.val() {
            self.dec_bv.d.next = self.vote_view.q.val();
            self.dec_bv_ok.d.next = true;
            self.dec_bv_short.d.next = false;
        } else if self.slow.decide.val() {
            self.dec_bv.d.next = self.records.t_view.val();
            self.dec_bv_ok.d.next = true;
            self.dec_bv_short.d.next = false;
        } else if self.grants.decide.val() & !self.grants.above.val() {
            self.dec_bv.d.next = self.wt_ev_view.val();
            self.dec_bv_ok.d.next = true;
            self.dec_bv_short.d.next = true;
        } else if self.grants.decide.val() | self.view.decide_prev.val() {
            self.dec_bv_ok.d.next = false;
        }
        self.help.clock.next = self.clock.val();
        self.help.rst_n.next = self.rst_n.val();
        self.help.id.next = self.id.val();
        self.help.active.next = self.cfg.active.val();
        self.help.k.next = self.position.k.val();
        self.help.prev.next = self.position.prev.val();
        self.help.prev2.next = self.position.prev2.val();
        self.help.prev2_ok.next = self.position.prev2_ok.val();
        self.help.view.next = self.view_no.q.val();
        // Lingering ends with the next `ap_start` (or reset).
        self.view.linger.next = self.lingering.q.val() & !self.ap_start.val();
        if (self.state.q.val() == ProtocolSt::Idle) & self.ap_start.val() {
            self.lingering.d.next = false;
        }
        self.help.dec_ok.next = self.dec_bv_ok.q.val();
        self.help.dec_view.next = self.dec_bv.q.val();
        self.help.dec_short.next = self.dec_bv_short.q.val();
        self.help.scan_start.next = self.view.help_scan.val();
        self.help.beat.next = self.fetch_beat.val();
        self.help.beat_valid.next = self.f_valid.val();
        self.help.helped.next = self.slow.stop.val() & self.helping.q.val();
        if self.view.call_help.val() {
            self.helping.d.next = true;
        } else if self.slow.stop.val() {
            self.helping.d.next = false;
        }
        self.view.help_armed.next = self.help.armed.val();
        self.view.help_found.next = self.help.found.val();
        self.view.help_row_word.next = self.help.row_word.val();
        self.records.slow_late.next = self.slow.late_mode.val();
        self.slow.late_start.next = self.view.call_late.val();
        self.view.k.next = self.position.k.val();
        self.view.prev.next = self.position.prev.val();
        self.view.prev2.next = self.position.prev2.val();
        self.view.prev2_ok.next = self.position.prev2_ok.val();
        self.view.cert_word.next = self.records.cert_word.val();
        self.view.fetch_hi.next = self.fetch_beat.val().get_bits::<8>(256);
        self.view.expiring.next = self.timer.vc_expiring.val();
        self.view.seal_row_word.next = self.records.seal_word.val();
        self.view.seal_own_word.next = self.records.seal_own_word.val();
        self.view.new_view_word.next = self.records.new_view_word.val();
        self.view.echo_seal_base.next = self.records.echo_seal_word.val();
        self.view.echo_commit_base.next = self.records.echo_commit_word.val();
        self.view.row_log.next = self.records.r_log.val();
        self.view.row2_len.next = self.records.row2_len.val();
        self.view.remote_len.next = self.records.remote_len.val();
        self.view.fetch_beat.next = self.fetch_beat.val().get_bits::<BLOCK_BITS>(0);
        self.view.fetch_beat_valid.next = self.f_valid.val();
        self.view.fetch_done.next = self.f_done.val();
        self.view.fetch_error.next = self.fetch_error.val();
        self.view.sg_busy.next = self.sg_busy.val();
        self.view.sg_resp_valid.next = self.sg_resp_valid.val();
        self.view.sg_resp_status.next = self.sg_resp_status.val();
        self.view.cp_rd_data.next = self.cp_rd_data.val().get_bits::<BLOCK_BITS>(0);
        self.view.bc_done.next = self.bc_done.val();
        self.view.bc_busy.next = self.bc_busy.val();
        self.view.round_done.next = self.bc_round_done.val();
        self.view.round_error.next = self.bc_round_error.val();

        // Handovers (combinational: see the header). LEADER's, which
        // Protocol also starts, is wired after Protocol's own states.
        self.fast.start.next = self.leader.start_fast.val();
        // FAST's timeout holding the slot goes to SLOW; where SLOW
        // gives the slot up, or a view change would start, VIEW starts.
        // (SLOW's `stop` in seal mode is a yield to VIEW, not a handover.)
        self.hand_over.next = self.leader.start_view.val()
            | self.fast.start_view.val()
            | (self.slow.stop.val() & !self.slow.seal_mode.val() & !self.slow.deliver_mode.val());
        // R28: Close's timer aborts SLOW at its poll point.
        self.close_abort.next =
            self.timer.close_to.val() & (self.state.q.val() == ProtocolSt::Close);
        // R28: the run's last decision, with its slot's will_commit W
        // not covered by a COMMIT of its own (L): Close certifies and
        // commits W, through SLOW's seal mode as the bridge does (W.b =
        // k - 1 once k moved on), so that a replica still at that slot
        // finds f + 1 shares and COMMITs; no later slot will carry its
        // decision (R24). (From registers: Close starts in Decide's last
        // cycle.)
        self.close_now.next = (self.slots.val() != 0)
            & ((self.counters.decisions.val() + 1) == self.slots.val())
            & !self.position.rerun.val()
            & self.ledger.ob.val()
            & (self.ledger.w_k.val() == self.position.k.val())
            & (self.ledger.w_m.val() == self.m.q.val());
        self.close_start.next = self.close_now.val()
            & (self.state.q.val() == ProtocolSt::Decide)
            & self.dec_tready.val();
        // WATCH's events (the grants' table): granted at the slot holder's
        // poll point, SLOW's or VIEW's.
        self.grants.ev_valid.next = self.wt_ev_valid.val();
        self.grants.ev_kind.next = self.wt_ev_kind.val();
        self.grants.ev_prev.next = self.wt_ev_prev.val();
        self.grants.running.next = self.state.q.val() == ProtocolSt::Run;
        self.grants.rerun.next = self.position.rerun.val();
        self.grants.prev.next = self.position.prev.val();
        self.grants.slow_holding.next = self.slow.holding.val();
        self.grants.slow_seal.next = self.slow.seal_mode.val();
        self.grants.slow_deliver.next = self.slow.deliver_mode.val();
        self.grants.slow_at_poll.next = self.slow.at_poll.val();
        self.grants.view_awaiting.next = self.view.awaiting.val();
        self.grants.view_await_poll.next = self.view.await_poll.val();
        self.grants.view_catch_poll.next = self.view.catch_poll.val();
        self.grants.cc_busy.next = self.cc.busy.val();
        self.grants.cc_passed.next = self.cc.passed.val();
        self.grants.cc_failed.next = self.cc.failed.val();
        self.grants.sg_busy.next = self.sg_busy.val();
        self.grants.bc_busy.next = self.bc_busy.val();
        self.slow_normal.next =
            self.slow.holding.val() & !self.slow.seal_mode.val() & !self.slow.deliver_mode.val();
        // (In SLOW's normal mode, R10's second half: of a later view, or
        // of this view while SLOW has not delivered k or its certificate is
        // blocked, by a forged share or a wait for shares as long as the
        // base wait, and one adoption per pass of SLOW, `slow_normal`.)
        self.adopt_ok.next = self.ledger.ev_above_l.val()
            & ((self.view.awaiting.val() & (self.wt_ev_view.val() >= self.view_no.q.val()))
                | (self.slow.holding.val()
                    & self.slow.seal_mode.val()
                    & (self.ledger.w_k.val() == self.position.k.val())
                    & (self.wt_ev_view.val() >= self.view_no.q.val()))
                | (self.slow_normal.val()
                    & !self.slow.adopt_mode.val()
                    & ((self.wt_ev_view.val() > self.view_no.q.val())
                        | ((self.wt_ev_view.val() == self.view_no.q.val())
                            & (self.slow.undelivered.val() | self.slow.blocked.val())))));
        self.grants.adopt_ok.next = self.adopt_ok.val();
        // A COMMIT or ABOVE of W.b + 1 (WATCH's event while bridging) of a
        // view this replica has not sealed: the view it is sealing, or
        // later. It is above L, which is below W.b while there is a bridge
        // (R17).
        self.grants.adopt_next_ok.next = self.slow.holding.val()
            & self.slow.seal_mode.val()
            & (self.wt_ev_view.val() >= self.view_no.q.val());
        self.grants.w_m.next = self.ledger.w_m.val();
        // D11.16: a catch-up to k + 1 keeps W within the bridge's reach.
        self.grants.reach_ok.next = self.ledger.reach_ok.val();
        // R25 while awaiting: SLOW in deliver mode on D; R17 and R28: SLOW
        // in seal mode on W.
        self.slow.start.next = self.fast.start_slow.val()
            | self.view.call_slow.val()
            | self.close_start.val()
            | self.grants.dl_grant.val();
        self.slow.deliver_start.next = self.grants.dl_grant.val();
        self.slow.adopt_start.next = self.grants.adopt_start.val();
        self.slow.adopt.next = self.grants.adopt.val();
        self.slow.adopt_row.next = self.grants.adopt_row.val();
        self.slow.d_x.next = self.ledger.d_x.val();
        self.slow.seal_start.next = self.view.call_slow.val() | self.close_start.val();
        self.slow.share_start.next = self.view.call_share.val();
        // WATCH polls while SLOW holds the slot and while VIEW catches up
        // or awaits a NEW_VIEW; while bridging, at W.b.
        self.wt_enable.next = (self.slow.holding.val() | self.view.catching.val())
            & (self.state.q.val() == ProtocolSt::Run);
        if self.grants.bridging.val() {
            self.wt_k.next = self.ledger.w_k.val();
        } else {
            self.wt_k.next = self.position.k.val();
        }
        self.wt_view.next = self.view_no.q.val();
        // The Mine poll: while awaiting (R25), while bridging a W at slot
        // k (R10's adoption, D11.13), and in SLOW's normal mode (R10's
        // second half).
        self.wt_awaiting.next = self.view.awaiting.val()
            | (self.slow.holding.val()
                & self.slow.seal_mode.val()
                & (self.ledger.w_k.val() == self.position.k.val()))
            | self.slow_normal.val();
        self.view.dlv_grant.next = self.grants.dl_grant.val();
        self.slow.hold.next = self.grants.cc_hold.val();
        self.view.hold.next = self.grants.cc_hold.val();
        // CertCheck: C of the COMMIT's slot (`cc_k1`, above) and its
        // record commit[s(k + 1)][x].
        self.cc.clock.next = self.clock.val();
        self.cc.rst_n.next = self.rst_n.val();
        self.cc.start.next = self.grants.cc_start.val();
        self.cc.rec_word.next = self.records.cc_word.val();
        self.cc.bitmap.next = bit_cast::<8, N>(self.wt_ev_bits.val());
        self.cc.n.next = self.n.val();
        self.cc.support.next = self.cfg.support.val();
        self.cc.fetch_beat_valid.next = self.f_valid.val();
        self.cc.fetch_done.next = self.f_done.val();
        self.cc.fetch_error.next = self.fetch_error.val();
        self.cc.sg_busy.next = self.sg_busy.val();
        self.cc.sg_resp_valid.next = self.sg_resp_valid.val();
        self.cc.sg_resp_status.next = self.sg_resp_status.val();
        // (R28: `close_abort`, above.)
        self.slow.abort.next = self.grants.slow_abort.val() | self.close_abort.val();
        // SLOW's yield to VIEW in seal mode: its `stop` (not Close's,
        // where VIEW is Off).
        self.view.slow_done.next = (self.slow.stop.val()
            & self.slow.seal_mode.val()
            & (self.state.q.val() != ProtocolSt::Close))
            | (self.slow.stop.val() & self.slow.deliver_mode.val());
        // VIEW at its poll points: the grant decides k (catch-up), or
        // the trigger seals.
        self.view.catch_grant.next = self.grants.decide.val();
        self.view.seal_grant.next = self.grants.grant.val() & self.grants.seals.val();
        self.view.start.next = self.hand_over.val() | self.grants.seal_trigger.val();
        // The run's end (recovery.md D11.18): in Done, its last slot
        // decided on a block whose view is known, it lingers.
        self.linger_now.next = (self.state.q.val() == ProtocolSt::Done)
            & (self.error.q.val() == 0)
            & (self.slots.val() != 0)
            & (self.counters.decisions.val() == self.slots.val())
            & self.help.armed.val();
        self.view.linger_start.next = self.linger_now.val();
        self.view.running.next =
            (self.state.q.val() == ProtocolSt::Run) | (self.state.q.val() == ProtocolSt::Decide);
        self.wt_ev_take.next = self.grants.take.val();
        self.cc.settle.next = self.grants.take.val();
        self.decided.next = self.fast.decide.val()
            | self.slow.decide.val()
            | self.grants.decide.val()
            | self.view.decide_prev.val();

        // m as it will be: a machine that takes a value sends it in the
        // same cycle (the proposal, the prepare's m, the chosen m).
        if self.view.decide_prev.val() {
            // R24 at install: prev* of the NEW_VIEW's certificate of c*.
            self.m_new.next = self.view.cons_prev_out.val();
        } else if self.grants.decide.val() & self.grants.above.val() {
            // R24: the prev of k + 1's certificate.
            self.m_new.next = self.wt_ev_prev.val();
        } else if self.grants.decide.val() {
            // R26: the full row's m (this replica's own lane is in the row,
            // so it is the m it sent will_commit for).
            self.m_new.next = self.wt_ev_m.val();
        } else if self.slow.decide.val()
            & (self.slow.deliver_mode.val() | self.slow.adopt_mode.val())
        {
            // R25 while awaiting, or R12 after an adoption in SLOW's
            // normal mode: D's m, which f + 1 COMMITs carried.
            self.m_new.next = self.ledger.d_m.val();
        } else if self.leader.set_m.val() | self.fast.set_m.val() {
            self.m_new.next = self.leader.m_next.val() | self.fast.m_next.val();
        } else {
            self.m_new.next = self.m.q.val();
        }

        // The shared ports: only the machine out of Off drives them.
        self.fetch_start.next = self.leader.fetch_start.val()
            | self.fast.fetch_start.val()
            | self.slow.fetch_start.val()
            | self.view.fetch_start.val()
            | self.cc.fetch_start.val();
        self.fetch_poll.next = self.fast.fetch_start.val() | self.leader.fetch_start.val();
        self.fetch_again.next = self.missed_q.q.val();
        self.poll_word.next = self.leader.fetch_word.val()
            | self.fast.fetch_word.val()
            | self.slow.fetch_word.val()
            | self.view.fetch_word.val()
            | self.cc.fetch_word.val();
        if self.slow.fetch_row.val() {
            self.fetch_len.next = self.records.row2_len.val();
        } else if self.slow.fetch_pair.val() {
            self.fetch_len.next = 1.into();
        } else if self.slow.fetch_rec.val() {
            self.fetch_len.next = self.cfg.support.val() + 1;
        } else {
            self.fetch_len.next = self.view.fetch_len.val();
        }
        self.fetch_addr.next = self.network_ptr.val()
            + (bit_cast::<64, 32>(self.poll_word.val() & self.beat_words.val()) << 2);
        // A burst FAST left is still outstanding: a request now waits for
        // its `done`, when Fetch takes it. FAST leaving the wait whose
        // request waits drops it (nobody waits for its beats); leaving one
        // whose burst is out makes that burst stale.
        if self.stale.q.val() & self.fetch_done.val() {
            self.stale.d.next = false;
        }
        if self.fetch_start.val() & self.f_blocked.val() {
            self.fheld.d.next = true;
            self.fheld_addr.d.next = self.fetch_addr.val();
            self.fheld_len.d.next = self.fetch_len.val();
            self.fheld_poll.d.next = self.fetch_poll.val();
            self.fheld_again.d.next = self.fetch_again.val();
            self.fetch_start.next = false;
        }
        if self.fast.abandon.val() {
            if self.fheld.q.val() {
                self.fheld.d.next = false;
            } else {
                self.stale.d.next = true;
            }
        } else if self.fheld.q.val() & !self.f_blocked.val() {
            self.fheld.d.next = false;
            self.fetch_start.next = true;
            self.fetch_addr.next = self.fheld_addr.q.val();
            self.fetch_len.next = self.fheld_len.q.val();
            self.fetch_poll.next = self.fheld_poll.q.val();
            self.fetch_again.next = self.fheld_again.q.val();
        }
        self.bc_start.next = self.leader.bc_start.val()
            | self.fast.bc_start.val()
            | self.slow.bc_start.val()
            | self.view.bc_start.val();
        self.bc_word.next = self.leader.bc_word.val()
            | self.fast.bc_word.val()
            | self.slow.bc_word.val()
            | self.view.bc_word.val();
        self.bc_local_only.next = false;
        // What the machine sends, laid out once (the encoder's table), and
        // what the signer signs or verifies.
        self.encoder.id.next = self.id.val();
        self.encoder.view_no.next = self.view_no.q.val();
        self.encoder.k.next = self.position.k.val();
        self.encoder.prev.next = self.position.prev.val();
        self.encoder.vote_view.next = self.vote_view.q.val().get_bits::<8>(0);
        self.encoder.support.next = self.cfg.support.val();
        self.encoder.m_new.next = self.m_new.val();
        self.encoder.leader_prepare.next = self.leader.bc_prepare.val();
        self.encoder.slow_prep_sig.next = self.slow.bc_prep_sig.val();
        self.encoder.slow_cert.next = self.slow.bc_cert.val();
        self.encoder.slow_commit.next = self.slow.bc_commit.val();
        self.encoder.slow_echo_commit.next = self.slow.bc_echo_commit.val();
        self.encoder.slow_bitmap.next = self.slow.bitmap.val();
        self.encoder.view_seal.next = self.view.bc_seal.val();
        self.encoder.view_echo_seal.next = self.view.bc_echo_seal.val();
        self.encoder.view_nv.next = self.view.bc_nv.val();
        self.encoder.view_beats.next = self.view.bc_beats.val();
        self.encoder.view_blk.next = self.view.blk_out.val();
        self.encoder.view_sb.next = self.view.sb_out.val();
        self.encoder.view_cb.next = self.view.cb_out.val();
        self.encoder.prep_block.next = self.records.prep_block.val();
        self.encoder.cert_block.next = self.records.cert_block.val();
        self.encoder.commit_block.next = self.records.commit_block.val();
        self.encoder.view_holding.next = self.view.holding.val();
        self.encoder.l_ok.next = self.ledger.l_ok.val();
        self.encoder.l_w.next = self.ledger.l_w.val();
        self.encoder.l_c.next = self.ledger.l_c.val();
        self.encoder.l_m.next = self.ledger.l_m.val();
        self.encoder.l_prev.next = self.ledger.l_prev.val();
        self.encoder.cc_busy.next = self.cc.busy.val();
        self.encoder.ev_view.next = self.wt_ev_view.val();
        self.encoder.cc_k1.next = self.cc_k1.val();
        self.encoder.ev_m.next = self.wt_ev_m.val();
        self.encoder.ev_prev.next = self.wt_ev_prev.val();
        self.encoder.slow_sg_sus.next = self.slow.sg_sus.val();
        self.encoder.slow_sus_block.next = self.slow.sus_block.val();
        self.encoder.slow_sus_sig.next = self.slow.sus_sig.val();
        self.encoder.slow_sg_prep.next = self.slow.sg_prep.val();
        self.encoder.slow_sg_commit.next = self.slow.sg_commit.val();
        self.encoder.slow_sg_compose.next = self.slow.sg_compose.val();
        self.encoder.view_sg_seal.next = self.view.sg_seal.val();
        self.encoder.view_sg_blk.next = self.view.sg_blk.val();
        self.encoder.view_sg_sus.next = self.view.sg_sus.val();
        self.encoder.view_sus_block.next = self.view.sus_block.val();
        self.encoder.cp_rd_data.next = self.cp_rd_data.val();
        self.encoder.fetch_beat.next = self.fetch_beat.val();
        self.bc_words.next = self.encoder.bc_words.val();
        self.bc_data.next = self.encoder.bc_data.val();
        self.bc_beats.next = self.encoder.bc_beats.val();
        self.sg_block.next = self.encoder.sg_block.val();
        self.sg_signature.next = self.encoder.sg_signature.val();
        self.bc_round.next = self.slow.bc_round.val() | self.view.bc_round.val();
        // COMPOSE's beat 1 takes the signer's response (SLOW's signature).
        // (VIEW and SLOW never hold the slot at once; their beat indices
        // are muxed, since both drive 1 when Off.)
        self.cp_wr_en.next = self.slow.cp_wr_en.val() | self.view.cp_wr_en.val();
        if self.view.holding.val() & !self.slow.holding.val() {
            self.cp_wr_beat.next = self.view.cp_wr_beat.val();
            self.cp_first.next = self.view.cp_first.val();
            self.cp_last.next = self.view.cp_last.val();
        } else {
            self.cp_wr_beat.next = self.slow.cp_wr_beat.val();
            self.cp_first.next = self.slow.cp_first.val();
            self.cp_last.next = self.slow.cp_last.val();
        }
        if self.slow.cp_from_fetch.val() | self.view.cp_from_fetch.val() {
            self.cp_wr_data.next = self.fetch_beat.val();
        } else {
            self.cp_wr_data.next = self.sg_resp_sig.val();
        }
        self.cp_start.next = self.slow.cp_start.val() | self.view.cp_start.val();
        self.sg_sign.next = self.slow.sg_sign.val() | self.view.sg_sign.val();
        self.sg_verify.next =
            self.slow.sg_verify.val() | self.view.sg_verify.val() | self.cc.sg_verify.val();
        self.sg_signer.next =
            self.slow.sg_signer.val() | self.view.sg_signer.val() | self.cc.sg_signer.val();
        self.sg_resp_take.next = self.slow.sg_resp_take.val()
            | self.view.sg_resp_take.val()
            | self.cc.sg_resp_take.val();
        // The client's requests: every one goes to every replica (R1).
        self.requests.clock.next = self.clock.val();
        self.requests.rst_n.next = self.rst_n.val();
        self.requests.prop_tdata.next = self.prop_tdata.val();
        self.requests.prop_tvalid.next = self.prop_tvalid.val();
        self.prop_tready.next = self.requests.prop_tready.val();
        // The prepare's m (FastWaitPrepare reads `holds` with the record).
        self.requests.probe_m.next = self.tally.record.val().get_bits::<32>(32);
        // A decision taken retires its value, whoever proposed it.
        self.requests.retire.next = self.taken.val();
        self.requests.retire_m.next = self.m.q.val();
        self.missed.next = self.leader.missed.val()
            | self.fast.missed.val()
            | self.slow.missed.val()
            | self.view.missed.val();

        // The machines' requests on the slot's registers.
        if self.slow.refuse.val() {
            self.refused.d.next = true;
        }
        if self.leader.open_round.val() | self.view.open_round.val() {
            // Votes from here on are cast in this view, from phase 0.
            self.refused.d.next = false;
            self.slow_path.d.next = false;
            self.phase.d.next = 0.into();
            self.vote_view.d.next = self.view_no.q.val();
            self.vote_leader.d.next = self.leader_id.q.val();
        }
        self.m.d.next = self.m_new.val();
        if self.fast.set_phase.val() {
            self.phase.d.next = self.fast.phase_next.val();
        }
        // R5 in SLOW (n locks while undelivered): will_commit, phase 2.
        if self.slow.set_w.val() {
            self.phase.d.next = 2.into();
        }
        // A SEAL's view change, or a view skipped on the way to a later
        // NEW_VIEW (VIEW's ViewJump, R14).
        if self.view.next_view.val() | self.view.step_view.val() {
            self.view_no.d.next = self.view_no.q.val() + 1;
            self.leader_id.d.next = self.next_leader.val();
        }
        if self.decided.val() {
            self.slow_path.d.next = self.slow.decide.val()
                | (self.grants.decide.val() & self.grants.above.val())
                | self.view.decide_prev.val();
        }
        // W, L, D and the constraint (the ledger's table): W at FAST's
        // will_commit (phase 2), L at SLOW's COMMIT of its target, D at
        // R25's grant while awaiting, the constraint at a NEW_VIEW with a
        // carried value (R22).
        self.ledger.clock.next = self.clock.val();
        self.ledger.start.next = self.run_start.val();
        self.ledger.k.next = self.position.k.val();
        self.ledger.view_no.next = self.view_no.q.val();
        self.ledger.m.next = self.m.q.val();
        self.ledger.prev.next = self.position.prev.val();
        self.ledger.set_w.next =
            (self.fast.set_phase.val() & (self.fast.phase_next.val() == 2)) | self.slow.set_w.val();
        self.ledger.deciding.next = self.state.q.val() == ProtocolSt::Decide;
        self.ledger.set_l.next = self.slow.set_commit.val();
        self.ledger.t_view.next = self.records.t_view.val();
        self.ledger.t_k.next = self.records.t_k.val();
        self.ledger.t_m.next = self.records.t_m.val();
        self.ledger.t_prev.next = self.records.t_prev.val();
        self.ledger.set_d.next = self.grants.dl_grant.val() | self.grants.adopt.val();
        self.ledger.ev_x.next = self.wt_ev_x.val();
        self.ledger.ev_view.next = self.wt_ev_view.val();
        // D's slot: WATCH's (k, or W.b while bridging), or W.b + 1 for a
        // COMMIT or an ABOVE of the next slot that a bridge adopts (R17).
        self.ledger.ev_k.next = self.wt_k.val();
        if self.grants.adopt_next.val() {
            self.ledger.ev_k.next = self.wt_k.val() + 1;
        }
        self.ledger.ev_m.next = self.wt_ev_m.val();
        self.ledger.ev_prev.next = self.wt_ev_prev.val();
        self.ledger.set_cons.next = self.view.cons_set.val();
        self.ledger.cons_c.next = self.view.cons_c_out.val();
        self.ledger.cons_in_m.next = self.view.cons_m_out.val();
        self.ledger.next_view.next = self.view.next_view.val();
        self.ledger.taken.next = self.taken.val();
        self.ledger.rerun_taken.next =
            (self.state.q.val() == ProtocolSt::Decide) & self.position.rerun.val();
        // k, its slot, dec[k - 1] and dec[k - 2]: set at a run's start,
        // advanced when the slot is decided (a rerun's too), stepped back
        // by R23 when this replica decided c* already.
        self.position.clock.next = self.clock.val();
        self.position.start.next = self.run_start.val();
        self.position.advance.next = (self.state.q.val() == ProtocolSt::Decide)
            & (self.position.rerun.val() | self.dec_tready.val());
        self.position.m.next = self.m.q.val();
        // (Help keeps the decided block's view at the advance, not a
        // rerun's: R23's rerun decides what it decided before.)
        self.help.decide.next = self.position.advance.val() & !self.position.rerun.val();
        self.position.step_back.next = self.view.step_back.val();
        self.position.cons_prev.next = self.view.cons_prev_out.val();
        self.cfg.clock.next = self.clock.val();
        self.cfg.start.next = self.run_start.val();
        self.cfg.network_ptr.next = self.network_ptr.val();
        self.cfg.id.next = self.id.val();
        self.cfg.n.next = self.n.val();
        self.cfg.slots.next = self.slots.val();

        // Protocol's own states.
        self.start_leader.next = false;
        self.started.next = false;
        // WATCH forgets what it reported when k changes (and at a start).
        self.wt_clear.next = false;
        self.dec_tvalid.next = false;
        self.done_q.d.next = false;
        match self.state.q.val() {
            ProtocolSt::Idle => {
                // ap_ctrl_hs for a kernel that reads its arguments for the
                // whole run: ap_ready comes with ap_done, and the start that
                // is still high in that cycle is not a new one.
                if self.run_start.val() {
                    // (The configuration's refusal code, 0 if accepted.)
                    self.started.next = true;
                    self.wt_clear.next = true;
                    self.error.d.next = self.cfg.refusal.val();
                    self.view_no.d.next = 0.into();
                    self.leader_id.d.next = 0.into();
                    if self.cfg.refusal.val() != 0 {
                        self.state.d.next = ProtocolSt::Done;
                    } else {
                        self.start_leader.next = true;
                        self.state.d.next = ProtocolSt::Run;
                    }
                }
            }
            ProtocolSt::Run => {
                if self.bc_failed.val() {
                    // A round failed: Broadcast writes nothing more, and
                    // the run stops, as a crashed card's (broadcast.md).
                    self.error.d.next = self.err_round.val();
                    self.state.d.next = ProtocolSt::Done;
                } else if self.decided.val() {
                    self.state.d.next = ProtocolSt::Decide;
                }
            }
            ProtocolSt::Decide => {
                self.dec_tvalid.next = !self.position.rerun.val();
                // (Position advances k in both cases.)
                if self.position.rerun.val() & self.bc_failed.val() {
                    // A round failed: stop (as in Run), and start nothing.
                    self.wt_clear.next = true;
                    self.error.d.next = self.err_round.val();
                    self.state.d.next = ProtocolSt::Done;
                } else if self.position.rerun.val() {
                    // R23: a rerun slot was decided and emitted before (with
                    // the same m, checked at install): not emitted, counted
                    // or retired again.
                    self.wt_clear.next = true;
                    // (Not while VIEW holds the slot: a rerun decided by
                    // a catch-up or a delivery while it awaits a NEW_VIEW
                    // leaves LEADER to the install, as below.)
                    self.start_leader.next = !self.view.holding.val();
                    self.state.d.next = ProtocolSt::Run;
                } else if self.dec_tready.val() {
                    self.wt_clear.next = true;
                    if self.bc_failed.val() {
                        // The decision is handed out; then the run stops.
                        self.error.d.next = self.err_round.val();
                        self.state.d.next = ProtocolSt::Done;
                    } else if (self.slots.val() != 0)
                        & ((self.counters.decisions.val() + 1) == self.slots.val())
                    {
                        if self.close_now.val() {
                            // R28: SLOW starts on W (`close_start`).
                            self.state.d.next = ProtocolSt::Close;
                        } else {
                            self.state.d.next = ProtocolSt::Done;
                        }
                    } else if self.position.k.val() == self.k_last.val() {
                        // The next k would be 2^24, whose vote tag has k's
                        // field at zero: stop (a run without a slot limit).
                        self.error.d.next = self.err_k_wrapped.val();
                        self.state.d.next = ProtocolSt::Done;
                    } else {
                        // (VIEW catching up below c* starts nothing: it
                        // looks at the next k itself.)
                        self.start_leader.next = !self.view.holding.val();
                        self.state.d.next = ProtocolSt::Run;
                    }
                }
            }
            ProtocolSt::Done => {
                self.done_q.d.next = true;
                self.state.d.next = ProtocolSt::Idle;
                if self.linger_now.val() {
                    self.lingering.d.next = true;
                }
            }
            ProtocolSt::Close => {
                // SLOW gave W up (it is Off): its COMMIT is written, or
                // it stopped (a signer or round error), or the timer
                // aborted it at its poll point. (SLOW's `holding`, a
                // register's, not its `stop`, which depends on `abort`.)
                if self.bc_failed.val() {
                    self.error.d.next = self.err_round.val();
                    self.state.d.next = ProtocolSt::Done;
                } else if !self.slow.holding.val() {
                    self.state.d.next = ProtocolSt::Done;
                }
            }
        }
        self.leader.start.next = self.start_leader.val() | self.view.start_leader.val();
        // WATCH forgets at an install too: the view changed, and with R23's
        // step back k did (a full row of c* it reported is reported again).
        if self.view.start_leader.val() | self.view.next_view.val() | self.view.step_view.val() {
            self.wt_clear.next = true;
        }
        // ... and when the bridge starts and ends, since `wt_k` moves to
        // W.b and back to k.
        self.bridged.d.next = self.grants.bridging.val();
        if self.view.call_slow.val() | (self.bridged.q.val() & !self.grants.bridging.val()) {
            self.wt_clear.next = true;
        }
        // ... and once a catch-up held back for the bridge's reach may be
        // acted on (this replica committed k, or W went), so that it is
        // reported again (D11.16).
        if self.held.q.val() & self.ledger.reach_ok.val() {
            self.wt_clear.next = true;
        }
        // ... and once SLOW's own certificate is blocked (a forged share, or
        // the base wait for shares), so that a peer's COMMIT of this view,
        // reported and not adopted while SLOW could still certify, is
        // reported again.
        if self.slow.blocked.val() & !self.blocked_q.q.val() {
            self.wt_clear.next = true;
        }
        self.blocked_q.d.next = self.slow.blocked.val();
        self.held.d.next = (self.held.q.val() | self.grants.held_back.val()) & !self.wt_clear.val();
        // Every fetch is a poll.
        self.counters.clock.next = self.clock.val();
        self.counters.rst_n.next = self.rst_n.val();
        self.counters.start.next = self.run_start.val();
        self.counters.running.next =
            (self.state.q.val() != ProtocolSt::Idle) & (self.state.q.val() != ProtocolSt::Done);
        self.counters.taken.next = self.taken.val();
        self.counters.taken_slow.next = self.slow_path.q.val();
        self.counters.next_view.next = self.view.next_view.val() | self.view.step_view.val();
        self.counters.poll.next = self.fetch_start.val();
        self.counters.bad_share.next = self.slow.bad_share.val() | self.view.bad_share.val();
        self.missed_q.d.next = self.missed.val();
        // The wait: a miss counts towards the wait of the machine that
        // missed (the timer's table); a run's start, a machine's new round
        // or wait, and Close's start restart it.
        self.timer.clock.next = self.clock.val();
        self.timer.rst_n.next = self.rst_n.val();
        self.timer.wait_polls.next = self.wait_polls.val();
        self.timer.n.next = self.n.val();
        self.timer.start.next = self.run_start.val();
        self.timer.clear.next = self.leader.open_round.val()
            | self.view.open_round.val()
            | self.fast.clear_wait.val()
            | self.slow.clear_wait.val()
            | self.view.clear_wait.val();
        self.timer.close_begin.next = self.close_start.val();
        self.timer.missed.next = self.missed.val();
        self.timer.fast_missed.next = self.fast.missed.val() | self.leader.missed.val();
        self.timer.at_prepare.next = self.fast.at_prepare.val();
        self.timer.slow_holding.next = self.slow.holding.val();
        self.timer.view_holding.next = self.view.holding.val();
        // FAST's miss in a wait for votes at a probe counts towards
        // `probe_expiring`.
        self.timer.probe_missed.next =
            self.probe_slot.val() & self.fast.missed.val() & !self.fast.at_prepare.val();
        // Every view passed doubles the waits, those a NEW_VIEW of a later
        // view skips (ViewJump's `step_view`) too (recovery.md R14).
        self.timer.next_view.next = self.view.next_view.val() | self.view.step_view.val();
        self.timer.decided.next = self.decided.val();
        self.timer.rerun.next = self.position.rerun.val();
        self.timer.slow_decided.next = self.slow.decide.val()
            | (self.grants.decide.val() & self.grants.above.val())
            | self.view.decide_prev.val();
        self.timer.closing.next = self.state.q.val() == ProtocolSt::Close;
        self.timer.fast_failed.next = self.fast.failed.val();
        self.timer.fast_decided.next = self.fast.decide.val();
        if !self.rst_n.val() {
            self.state.d.next = ProtocolSt::Idle;
            self.stale.d.next = false;
            self.fheld.d.next = false;
            self.done_q.d.next = false;
            self.error.d.next = 0.into();
            self.view_no.d.next = 0.into();
            self.helping.d.next = false;
            self.dec_bv_ok.d.next = false;
            self.lingering.d.next = false;
        }

        self.dec_tdata.next =
            bit_cast::<64, 32>(self.position.k.val()) | (bit_cast::<64, 32>(self.m.q.val()) << 32);
        self.dec_tuser.next = self.slow_path.q.val();
        self.ap_idle.next = self.state.q.val() == ProtocolSt::Idle;
        self.ap_done.next = self.done_q.q.val();
        self.ap_ready.next = self.done_q.q.val();
        self.sts_cycles.next = self.counters.cycles.val();
        self.sts_decisions.next = self.counters.decisions.val();
        self.sts_fast.next = self.counters.fast.val();
        self.sts_slow.next = self.counters.slow.val();
        self.sts_view_changes.next = self.counters.view_changes.val();
        self.sts_view.next = self.view_no.q.val();
        self.sts_timeouts.next = self.timer.timeouts.val();
        self.sts_polls.next = self.counters.polls.val();
        self.sts_bad_shares.next = self.counters.bad_shares.val();
        self.sts_error.next = self.error.q.val();
        // The state as a number: Protocol's own, or (in Run, which reports
        // 0) the active machine's; machines that are Off report 0.
        match self.state.q.val() {
            ProtocolSt::Decide => {
                self.own_state.next = 38.into();
            }
            ProtocolSt::Close => {
                // (SLOW's state while it holds W: below.)
                if self.slow.holding.val() {
                    self.own_state.next = 0.into();
                } else {
                    self.own_state.next = 95.into();
                }
            }
            ProtocolSt::Done => {
                self.own_state.next = 39.into();
            }
            _ => {
                self.own_state.next = 0.into();
            }
        }
        // (During VIEW's bridge both VIEW (ViewBridge) and SLOW, in seal
        // mode, hold the slot: the state is SLOW's, the one working.)
        // (A catch-up decision while VIEW holds, which waits for it in
        // ViewCatchNext or ViewAwaitNext: the state is VIEW's.)
        if self.slow.holding.val() {
            self.sts_state.next = self.own_state.val() | self.slow.sts_state.val();
        } else if self.view.holding.val() {
            self.sts_state.next = self.view.sts_state.val();
        } else {
            self.sts_state.next =
                self.own_state.val() | self.leader.sts_state.val() | self.fast.sts_state.val();
        }
    }
}
