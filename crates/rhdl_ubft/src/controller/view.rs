//! VIEW: the kernel's VIEW machine, R14 to R23.
//!
//! Protocol (`Protocol::new`) hands the slot to this machine on LEADER's
//! idle timeout, FAST's timeout with nothing locked, and SLOW's `stop`. docs/recovery.md D11 designs the whole view
//! change; this block builds D11.12 steps 1 to 3 and R23's rerun
//! (docs/view.md, "What is built"):
//!
//! - R17, the bridge: with an obligation (Protocol's `ob`: a will_commit
//!   for W = (w, b, m, prev) that its latest COMMIT L does not cover), call
//!   SLOW in seal mode (`call_slow`), which certifies and commits W (R9,
//!   R10 on W's block; L := W) and yields (`slow_done`). W.b is at most
//!   (G - 1) / 2 slots behind k, or one above it after R23's step back:
//!   Protocol grants no catch-up that would leave it further back
//!   (recovery.md D11.16), so SLOW's seal mode reaches every W.
//! - R14, R18: with no obligation, sign the SEAL block S = [4, id, v, L.w,
//!   L.c, L.m, L.prev, L present] and write seal[id] (S, then the
//!   signature) into every mailbox in a round (R32: recovery.md section
//!   17); then view + 1, once the round has ended.
//! - R19 (the new leader): read the seal row (2N beats); take its own SEAL
//!   and the first f other well-formed SEALs of views >= view - 1 whose
//!   writers have not failed, copying each (block, signature) into COMPOSE
//!   beats 1 + 2p, 2 + 2p in ascending replica order (p its rank), and
//!   keep their highest L (R20: (w*, c*, m*, prev*), its sealer x_T).
//! - R21 for each taken SEAL of x != id, in rank order: verify x's
//!   signature; unless echo_seal[x][id] holds a SEAL of x of a later
//!   view, write the SEAL there in a round (R13); read the echo_commit[x]
//!   row: a COMMIT of x that x signed, of a view no later than the SEAL's
//!   and above its L, proves the SEAL false. The leader then drops x
//!   (`failed`) and collects again; a follower refuses the NEW_VIEW and
//!   seals the next view. A suspect COMMIT whose signature fails is read
//!   again once before it is passed over (a read may be torn, recovery.md
//!   D11.10); a SEAL whose signature fails is dropped by the leader after
//!   its second failure (`once`, `failed`). For a follower a failed
//!   signature in the NEW_VIEW (a SEAL's, or a share of its certificate)
//!   is a miss the first time (`nv_once`) and refuses the NEW_VIEW the
//!   second (ViewStart): an honest leader writes one NEW_VIEW per view,
//!   whole, and a forged one would otherwise cost a verify at every poll
//!   while T_vc counts polls.
//! - R19 (the new leader), with an L: read x_T's COMMIT (commit[s(c*)][x_T],
//!   f + 3 beats); its block must be K* = [3, x_T, w*, c*, m*, prev*] with
//!   a signer bitmap `cb` below n, and its f + 1 shares (into COMPOSE beats
//!   2f + 3 ..) must verify over C* (not checked when x_T is itself).
//! - R19: write NEW_VIEW(view) = [view, sb, cb], the f + 1 SEALs and, with
//!   an L, the f + 1 shares from COMPOSE into every mailbox, and install.
//! - R22 (a follower): poll new_view's first beat until it names this view,
//!   then read it whole (2f + 3 beats, 3f + 4 with a certificate) into
//!   COMPOSE, checking its form as it arrives, then R21 for each SEAL but
//!   its own (recovery.md V9) and, with an L, the f + 1 shares over C*.
//! - Install (R22, R23): votes from here on are cast in the new view
//!   (`open_round`), and LEADER starts. With a carried value: at k = c*
//!   the constraint (`cons_set`: only m* at c*); at k = c* + 1, after
//!   R23's check (m* = dec[c*], prev* = dec[c* - 1]), a step back to c*
//!   (`step_back`: Protocol reruns c* without emitting it again); at
//!   c* - 1, R24 from the NEW_VIEW's certificate (`decide_prev`: k is
//!   decided as prev*, then LEADER runs c*); lower, catch-up (ViewPollCatch:
//!   WATCH's ABOVE and FULL_ROW, granted there, move k up).
//! - While awaiting a NEW_VIEW (ViewPollNv, ViewPollSeals) and catching up,
//!   WATCH polls too and its events are granted at those poll points:
//!   ABOVE or FULL_ROW decides k (R24, R26) and the machine polls again
//!   once k moved (ViewAwaitNext); f + 1 SEALs of views >= this one seal
//!   the view (R14's trigger, `seal_grant`), as they stop SLOW.
//! - R25 while awaiting a NEW_VIEW: a peer's COMMIT of k that WATCH
//!   found (MINE), granted at ViewPollNv or ViewPollSeals (`dlv_grant`), makes
//!   Protocol start SLOW in deliver mode on that COMMIT's block: R11 over
//!   every x once (the echo round and the seal check, as on the slow
//!   path), and f + 1 delivered COMMITs decide k (R12). The machine waits
//!   in ViewDeliver: k moved (decided), back to the poll; SLOW yields
//!   without a decision, back to the poll, or to ViewStart if T_vc ran out
//!   meanwhile (SLOW's polls count towards it: `expiring`).
//!
//! T_vc: every poll here that finds nothing is a miss, and the
//! (`wait_polls` << `streak`)-th in a row (`expiring`) starts the machine
//! again, sealing the view it is in (each SEAL also doubles the timeout:
//! `next_view` adds one to `streak`). The bridge has no timer. A new
//! leader's wait for f + 1 SEALs is 2^LEAD_WAIT_SHIFT times T_vc
//! (recovery.md D11.14): a seal row with fewer is a miss only every
//! 2^LEAD_WAIT_SHIFT-th time (`few`), and SLOW's misses in ViewDeliver
//! take the leader back to its poll, not to ViewStart. A replica a view
//! ahead of the others so waits at the first view it leads while they
//! time out, view by view, up to it; with the same wait as theirs it
//! would move on again while they do (the soak's mid-run stalls).
//!
//! States (`sts_state` number, as in `status::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | ViewStart |
//! | 66 | ViewStart | a signer response due is dropped; SignerPort and Broadcast idle | ViewTurn |
//! | 67 | ViewTurn | an obligation / none, W's share owed (`share_due`) / neither | ViewBridge (`call_slow`) / ViewBridge (`call_slow`, `call_share`: the share only) / ViewSignSeal (SignerPort `sign` of S) |
//! | 68 | ViewSignSeal | the response: OK / an error | ViewSendSeal (COMPOSE beat 1 := the signature) / ViewSignSeal (again) |
//! | 69 | ViewSendSeal | (first cycle: Broadcast and COMPOSE start, 2 beats to seal[id], in a round, R32) `round_done` / `round_error` | `next_view`; this replica leads view + 1: ViewPollSeals / else ViewPollNv / ViewStart (the run stops: WriteFailed) |
//! | 70 | ViewPollSeals | (a poll point, as ViewPollCatch) `seal_grant` / `catch_grant` / `dlv_grant` / else (fetch of the seal row, 2N beats) | ViewStart / ViewAwaitNext (`catch_k` := k) / ViewDeliver (`catch_k` := k) / ViewWaitSeals |
//! | 71 | ViewWaitSeals | the fetch is done: f + 1 taken / fewer, not the 2^LEAD_WAIT_SHIFT-th in a row (`few`, D11.14) / fewer at the 2^LEAD_WAIT_SHIFT-th, or an error | ViewNext (p := 0) / ViewPollSeals / ViewPollSeals (a miss; ViewStart if it times out) |
//! | 72 | ViewNext | p = f + 1: leader with L / leader / follower with L / follower; else | ViewPollCert / ViewSendNv / ViewVerifyCert / ViewInstall (ViewJump for a later view's NEW_VIEW); ViewLoad |
//! | 73 | ViewLoad | (two cycles: COMPOSE reads SEAL p's block, then points at its signature) x = id / else | ViewNext (p + 1) / ViewVerify |
//! | 74 | ViewVerify | (SignerPort `verify` of the block under x, signature from COMPOSE) OK / an error | ViewPollOwnEcho / leader: `once` or `failed` += x, ViewPollSeals; follower ViewPollNv (a miss, `bad_share`, `nv_once`), or ViewStart if this NEW_VIEW failed a check before (refused) |
//! | 75 | ViewPollOwnEcho | (fetch of echo_seal[x][id], one beat) | ViewWaitOwnEcho |
//! | 76 | ViewWaitOwnEcho | the fetch is done: it holds a SEAL of x of a later view than the block's / not | ViewPollEchoCommit / ViewSendEchoSeal |
//! | 77 | ViewSendEchoSeal | (first cycle: a round of the block and its signature to echo_seal[x][id]) `round_done` / `round_error` | ViewPollEchoCommit / leader ViewPollSeals, follower ViewPollNv (a miss) |
//! | 78 | ViewPollEchoCommit | (fetch of the echo_commit[x] row, 2N beats) | ViewWaitEchoCommit |
//! | 79 | ViewWaitEchoCommit | the fetch is done: an error / a COMMIT of x above `checked`, of a view <= the SEAL's, above its L (kept; its signature into COMPOSE beat 15) / none | ViewPollEchoCommit (a miss) / ViewVerifySuspect / ViewNext (p + 1) |
//! | 80 | ViewVerifySuspect | the response (`verify` under x): OK / an error, the first / an error, the second | leader `failed` += x, ViewPollSeals; follower ViewStart (refused) / ViewPollEchoCommit (read again) / ViewPollEchoCommit (`checked` := the entry) |
//! | 81 | ViewSendNv | (first cycle: Broadcast and COMPOSE start, 2f + 3 or 3f + 4 beats to new_view) Broadcast's `done` | ViewInstall |
//! | 82 | ViewPollNv | (a poll point, as ViewPollCatch) `seal_grant` / `catch_grant` / `dlv_grant` / else (fetch of new_view's first beat) | ViewStart / ViewAwaitNext (`catch_k` := k) / ViewDeliver (`catch_k` := k) / ViewWaitNv |
//! | 83 | ViewWaitNv | the fetch is done: word 0 is this view or a later one, v′ (`nv_view` := v′, cb kept) / not / not, and it times out | ViewPollNvRec (the checks below are against v′) / ViewPollNv (a miss) / ViewStart |
//! | 84 | ViewPollNvRec | (fetch of new_view, 2f + 3 beats, 3f + 4 when cb != 0, each into COMPOSE at its index) | ViewWaitNvRec |
//! | 85 | ViewWaitNvRec | the fetch is done: well formed / not | ViewNext (p := 0) / ViewPollNv (a miss) |
//! | 86 | ViewInstall | (`open_round`) no L, k = c*, k > c* + 1 / k = c* + 1, R23's check holds / fails / k + 1 = c* / k + 1 < c* | Off, `start_leader` (`cons_set` at c*) / Off, `start_leader`, `cons_set`, `step_back` / ViewStart / Off, `cons_set`, `decide_prev` (R24 from the NEW_VIEW's certificate: k decided as prev*; Protocol then starts LEADER at c*) / ViewPollCatch |
//! | 87 | ViewBridge | SLOW yields (`slow_done`) | ViewTurn |
//! | 88 | ViewPollCert | (fetch of commit[s(c*)][x_T], f + 3 beats) | ViewWaitCert |
//! | 89 | ViewWaitCert | the fetch is done: K* and a bitmap below n / not / an error | ViewVerifyCert / `failed` += x_T, ViewPollSeals / ViewPollCert (a miss) |
//! | 90 | ViewVerifyCert | f + 1 signers of cb, each share verified over C* (the leader's own COMMIT's are not) / not | leader ViewSendNv, follower ViewInstall (ViewJump for a later view's NEW_VIEW) / leader `failed` += x_T, ViewPollSeals; follower ViewPollNv (a miss, `nv_once`), or ViewStart if this NEW_VIEW failed a check before (refused) |
//! | 91 | ViewPollCatch | (a poll point: WATCH's events are granted here, `catching`) SEALS granted (`seal_grant`, R14) / ABOVE or FULL_ROW granted (`catch_grant`: Protocol decides k) / else (fetch of new_view's first beat, the T_vc count's poll) | ViewStart / ViewCatchNext (`catch_k` := k) / ViewWaitCatch |
//! | 92 | ViewWaitCatch | the fetch is done (a miss) / and it times out | ViewPollCatch / ViewStart |
//! | 93 | ViewCatchNext | Protocol stopped running / k moved past `catch_k` (the decision is made) | Off / ViewInstall (k against c* again) |
//! | 94 | ViewAwaitNext | the same, after a grant while awaiting a NEW_VIEW | Off / the new leader ViewPollSeals, a follower ViewPollNv |
//! | 96 | ViewDeliver | Protocol stopped running / k moved past `catch_k` (SLOW decided it, R25) / SLOW yields (`slow_done`) with T_vc expiring, a follower / otherwise | Off / the poll it left (ViewPollSeals or ViewPollNv) / ViewStart / the poll it left |
//! | 101 | ViewJump | (R14: a later view's NEW_VIEW(v′) passed R21 and R22) view + 1 < v′ / else | ViewJump (`step_view`: view + 1, the leader rotates, no SEAL) / ViewStart (the SEAL of v′ − 1, then NEW_VIEW(v′) is read again as the awaited one) |
//! | 105 | ViewPollRemote | (the remote read: `rr_issue`, the next peer's READ; `rr_scan` with a fetch of `remote_rows`, N beats) | ViewWaitRemote |
//! | 106 | ViewWaitRemote | the fetch is done: n locks for K in a peer's row (`rr_found`) / not, or an error: the new leader / a follower | ViewLateShare (`call_slow`, `call_share`, `call_late`: SLOW writes K's share only) / ViewPollSeals / ViewPollNv (a miss; ViewStart if it times out) |
//! | 107 | ViewLateShare | SLOW (seal mode, the late share) yields (`slow_done`) | the poll it left (the new leader ViewPollSeals, a follower ViewPollNv) |
//! | 108 | ViewPollHelp | (the decider's share, `help.md`: a poll that missed with Help armed, taking turns with the remote read; `help_scan` with a fetch of will_commit[s(k − 1)], one beat) | ViewWaitHelp |
//! | 109 | ViewWaitHelp | the fetch is done: a peer's will_commit to help (`help_found`) / not, or an error: the new leader / a follower | ViewHelpShare (`call_slow`, `call_share`, `call_late`, `call_help`: SLOW writes Help's share only) / ViewPollSeals (counted as a seal poll with too few: `few`, and a miss at its 2^LEAD_WAIT_SHIFT-th) / ViewPollNv (a miss; ViewStart if it times out) |
//! | 110 | ViewHelpShare | SLOW (seal mode, the decider's share) yields (`slow_done`) | the poll it left (the new leader ViewPollSeals, a follower ViewPollNv) |
//!
//! Requests to Protocol: `sg_sign` with `sg_seal` (S, which Protocol lays
//! out from its registers), `sg_verify` with `sg_blk` (the block `blk`:
//! a taken SEAL) or `sg_sus` (`sus_block`: a suspect COMMIT), the signature
//! from COMPOSE's read beat (`sg_compose` is implied: Protocol takes
//! `cp_rd_data`), `sg_signer`, `sg_resp_take`; `cp_wr_en` with
//! `cp_wr_beat` (the signer's response, or with `cp_from_fetch` the fetched
//! beat); `cp_start` with `cp_first` and `cp_last`; `bc_start` with
//! `bc_seal` (S), `bc_echo_seal` (`blk`) or `bc_nv` (the header from
//! `view_no` and `sb`), `bc_beats`, and `bc_round` for the echo;
//! `fetch_start` with `fetch_word` and `fetch_len` (AxLEN); `next_view`,
//! `open_round`, `clear_wait`, `missed`, `bad_share`; `start_leader`.
//!
//! Timing: a request leaves in the cycle its state is entered when the
//! signer can take it (one at a time, as SLOW's). A fetched record is
//! checked beat by beat as it arrives. COMPOSE's read beat is the one
//! `cp_first` named the cycle before. Handovers are combinational.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use crate::params::LEAD_WAIT_SHIFT;
use rust_hdl::prelude::*;

/// VIEW's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ViewSt {
    Off,
    ViewStart,
    ViewTurn,
    ViewSignSeal,
    ViewSendSeal,
    ViewPollSeals,
    ViewWaitSeals,
    ViewNext,
    ViewLoad,
    ViewVerify,
    ViewPollOwnEcho,
    ViewWaitOwnEcho,
    ViewSendEchoSeal,
    ViewPollEchoCommit,
    ViewWaitEchoCommit,
    ViewVerifySuspect,
    ViewSendNv,
    ViewPollNv,
    ViewWaitNv,
    ViewPollNvRec,
    ViewWaitNvRec,
    ViewInstall,
    ViewBridge,
    ViewPollCert,
    ViewWaitCert,
    ViewVerifyCert,
    ViewPollCatch,
    ViewWaitCatch,
    ViewCatchNext,
    ViewAwaitNext,
    ViewDeliver,
    ViewJump,
    ViewPollRemote,
    ViewWaitRemote,
    ViewLateShare,
    ViewPollHelp,
    ViewWaitHelp,
    ViewHelpShare,
}

/// Every state, in declaration order.
pub const VIEW_STATES: [ViewSt; 38] = [
    ViewSt::Off,
    ViewSt::ViewStart,
    ViewSt::ViewTurn,
    ViewSt::ViewSignSeal,
    ViewSt::ViewSendSeal,
    ViewSt::ViewPollSeals,
    ViewSt::ViewWaitSeals,
    ViewSt::ViewNext,
    ViewSt::ViewLoad,
    ViewSt::ViewVerify,
    ViewSt::ViewPollOwnEcho,
    ViewSt::ViewWaitOwnEcho,
    ViewSt::ViewSendEchoSeal,
    ViewSt::ViewPollEchoCommit,
    ViewSt::ViewWaitEchoCommit,
    ViewSt::ViewVerifySuspect,
    ViewSt::ViewSendNv,
    ViewSt::ViewPollNv,
    ViewSt::ViewWaitNv,
    ViewSt::ViewPollNvRec,
    ViewSt::ViewWaitNvRec,
    ViewSt::ViewInstall,
    ViewSt::ViewBridge,
    ViewSt::ViewPollCert,
    ViewSt::ViewWaitCert,
    ViewSt::ViewVerifyCert,
    ViewSt::ViewPollCatch,
    ViewSt::ViewWaitCatch,
    ViewSt::ViewCatchNext,
    ViewSt::ViewAwaitNext,
    ViewSt::ViewDeliver,
    ViewSt::ViewJump,
    ViewSt::ViewPollRemote,
    ViewSt::ViewWaitRemote,
    ViewSt::ViewLateShare,
    ViewSt::ViewPollHelp,
    ViewSt::ViewWaitHelp,
    ViewSt::ViewHelpShare,
];

/// The signed block's width (`layout::records::BLOCK_BITS`).
const BB: usize = crate::layout::records::BLOCK_BITS;

#[derive(LogicBlock)]
pub struct View {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    /// One cycle, as the machine goes Off: the new view is installed and
    /// LEADER starts at the same k.
    pub start_leader: Signal<Out, Bit>,
    /// The machine holds the slot (not Off).
    pub holding: Signal<Out, Bit>,
    /// WATCH polls while the machine waits: catching up after an install
    /// below c* (ViewPollCatch, ViewWaitCatch) and awaiting a NEW_VIEW
    /// (ViewPollNv, ViewWaitNv, ViewPollSeals, ViewWaitSeals). `catch_poll` in
    /// ViewPollCatch, ViewPollNv and ViewPollSeals, the poll points where
    /// Protocol may grant an event: `catch_grant` (it decides k from
    /// WATCH's ABOVE or FULL_ROW in that cycle) or `seal_grant` (f + 1
    /// SEALs of views >= this one: R14's trigger, ViewStart).
    pub catching: Signal<Out, Bit>,
    pub catch_poll: Signal<Out, Bit>,
    pub catch_grant: Signal<In, Bit>,
    pub seal_grant: Signal<In, Bit>,
    /// `await_poll` in ViewPollNv and ViewPollSeals, where Protocol may grant
    /// WATCH's MINE (`dlv_grant`: it starts SLOW in deliver mode on that
    /// COMMIT's block this cycle, R25); SLOW yields with `slow_done`.
    pub await_poll: Signal<Out, Bit>,
    pub dlv_grant: Signal<In, Bit>,
    /// The machine awaits a NEW_VIEW (ViewPollNv, ViewWaitNv, ViewPollSeals,
    /// ViewWaitSeals) or delivers meanwhile (ViewDeliver): WATCH polls this
    /// slot's COMMITs too, and a MINE event waits for a poll point.
    pub awaiting: Signal<Out, Bit>,
    /// Protocol holds the machine at its poll point (`catch_poll`) while
    /// CertCheck borrows the Fetch and the signer (R24 from a COMMIT): it
    /// starts nothing and stays; the grants still go first.
    pub hold: Signal<In, Bit>,
    /// Protocol is running (state Run or Decide): catch-up ends when it
    /// stops (its last slot decided).
    pub running: Signal<In, Bit>,
    /// One cycle, in ViewInstall at k + 1 = c*: decide k as prev* (R24 from
    /// the NEW_VIEW's certificate, which an honest replica at c* made after
    /// deciding prev* at c* - 1); Protocol then starts LEADER at c*.
    pub decide_prev: Signal<Out, Bit>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    /// f + 1.
    pub support: Signal<In, Bits<8>>,
    pub view_no: Signal<In, Bits<32>>,
    /// The leader of view + 1 (Protocol's `next_leader`).
    pub next_leader: Signal<In, Bits<8>>,
    /// The obligation (D11.2): a will_commit of this replica's that its
    /// latest COMMIT does not cover. Its W.b is at most (G - 1) / 2 slots
    /// behind k, where SLOW's seal mode reaches it (D11.16).
    pub ob: Signal<In, Bit>,
    /// R16's share of W with no obligation (the Ledger's `share_due`): W
    /// is slot k - 1's fast delivery, decided, and L covers its slot only
    /// by a COMMIT of an earlier view, or a later slot.
    pub share_due: Signal<In, Bit>,
    /// The bridge: start SLOW in seal mode on W (one cycle); SLOW is
    /// back (its `stop` in seal mode: W committed, or a step failed).
    pub call_slow: Signal<Out, Bit>,
    /// With `call_slow`: SLOW only certifies W (R16) and yields; the
    /// Ledger marks W's share written.
    pub call_share: Signal<Out, Bit>,
    /// With `call_slow` and `call_share`: the share is the remote read's
    /// late share of K (recovery.md D11.17), not W's.
    pub call_late: Signal<Out, Bit>,
    pub slow_done: Signal<In, Bit>,
    /// The remote read (crate::controller::remote_read): `rr_keep` at
    /// each SEAL written (Protocol keeps K if the slot is locked and not
    /// delivered); K armed (`rr_armed`); at a poll that missed, `rr_issue`
    /// the next peer's READ and `rr_scan` remote_rows
    /// (`remote_rows_word`, N beats, `remote_len`), whose rows showed n
    /// locks for K (`rr_found`, with the fetch's `done`).
    pub rr_keep: Signal<Out, Bit>,
    pub rr_armed: Signal<In, Bit>,
    pub rr_issue: Signal<Out, Bit>,
    pub rr_scan: Signal<Out, Bit>,
    pub rr_found: Signal<In, Bit>,
    /// The decider's share (crate::controller::help, recovery.md D11.18):
    /// armed (`help_armed`); at a poll that missed, `help_scan` with a
    /// fetch of will_commit[s(k − 1)] (`help_row_word`, one beat), whose
    /// lane showed a peer's will_commit to help (`help_found`, with the
    /// fetch's `done`); with `call_slow`, `call_share` and `call_late`,
    /// `call_help`: the late share is Help's block, not K's.
    pub help_armed: Signal<In, Bit>,
    pub help_found: Signal<In, Bit>,
    pub help_row_word: Signal<In, Bits<32>>,
    pub help_scan: Signal<Out, Bit>,
    pub call_help: Signal<Out, Bit>,
    /// The run's end (Protocol Idle after a run that decided its last
    /// slot with Help armed): `linger_start` starts the machine at
    /// ViewPollHelp, and while `linger` stays up it reads the row and
    /// writes the share, with no timer; once it falls (`ap_start`, or
    /// reset) the machine finishes the step it is in and goes Off.
    pub linger: Signal<In, Bit>,
    pub linger_start: Signal<In, Bit>,
    /// In a lingering step (ViewPollHelp, ViewWaitHelp, ViewHelpShare
    /// with Protocol not running): Protocol takes no `ap_start` until it
    /// is done.
    pub lingers: Signal<Out, Bit>,
    pub remote_rows_word: Signal<In, Bits<32>>,
    /// The slot (k), dec[k - 1] and dec[k - 2] (`prev2_ok`: known), for
    /// R23's check at install.
    pub k: Signal<In, Bits<32>>,
    pub prev: Signal<In, Bits<32>>,
    pub prev2: Signal<In, Bits<32>>,
    pub prev2_ok: Signal<In, Bit>,
    /// commit[s(c*)][x_T] in words (Protocol's, from `cons_c_out` and
    /// `x_t_out`); the fetched beat's bits 256 to 263 (a COMMIT's bitmap).
    pub cert_word: Signal<In, Bits<32>>,
    pub fetch_hi: Signal<In, Bits<8>>,
    /// At install (with `start_leader`), a carried value: the constraint
    /// (c*, m*) for Protocol (`cons_set`), and R23's step back to c*
    /// (`step_back`, prev := prev*).
    pub cons_set: Signal<Out, Bit>,
    pub step_back: Signal<Out, Bit>,
    pub cons_c_out: Signal<Out, Bits<32>>,
    pub cons_m_out: Signal<Out, Bits<32>>,
    pub cons_prev_out: Signal<Out, Bits<32>>,
    pub x_t_out: Signal<Out, Bits<8>>,
    /// The certificate's signers (NEW_VIEW's word 2; 0 without L).
    pub cb_out: Signal<Out, Bits<8>>,
    /// The next miss is the (`wait_polls` << `streak`)-th in a row.
    pub expiring: Signal<In, Bit>,
    /// seal[id], new_view and the bases of echo_seal and echo_commit, in
    /// words; log2 of the records per row of those two (R, a power of two).
    pub seal_own_word: Signal<In, Bits<32>>,
    pub seal_row_word: Signal<In, Bits<32>>,
    pub new_view_word: Signal<In, Bits<32>>,
    pub echo_seal_base: Signal<In, Bits<32>>,
    pub echo_commit_base: Signal<In, Bits<32>>,
    pub row_log: Signal<In, Bits<8>>,
    /// AxLEN of a row of 2N beats.
    pub row2_len: Signal<In, Bits<8>>,
    /// AxLEN of remote_rows (N beats).
    pub remote_len: Signal<In, Bits<8>>,
    // Requests to Protocol.
    pub next_view: Signal<Out, Bit>,
    /// One cycle in ViewJump: view := view + 1 and the leader rotates,
    /// with no SEAL (a later NEW_VIEW accepted: the views below it are
    /// skipped; the SEAL of the last one follows, R14).
    pub step_view: Signal<Out, Bit>,
    pub open_round: Signal<Out, Bit>,
    pub clear_wait: Signal<Out, Bit>,
    pub missed: Signal<Out, Bit>,
    pub bad_share: Signal<Out, Bit>,
    // Fetch, through Protocol.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    pub fetch_len: Signal<Out, Bits<8>>,
    /// The fetched beat's first 256 bits (a block, or a header).
    pub fetch_beat: Signal<In, Bits<BB>>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    // The signer service, through Protocol.
    pub sg_sign: Signal<Out, Bit>,
    pub sg_verify: Signal<Out, Bit>,
    /// The block is S (Protocol's SEAL block).
    pub sg_seal: Signal<Out, Bit>,
    /// The block is `blk` (a taken SEAL), or `sus_block` (a suspect); the
    /// signature of a verify is COMPOSE's read beat.
    pub sg_blk: Signal<Out, Bit>,
    pub sg_sus: Signal<Out, Bit>,
    pub sg_signer: Signal<Out, Bits<8>>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_take: Signal<Out, Bit>,
    pub blk_out: Signal<Out, Bits<BB>>,
    pub sus_block: Signal<Out, Bits<BB>>,
    // COMPOSE, through Protocol.
    pub cp_wr_en: Signal<Out, Bit>,
    pub cp_from_fetch: Signal<Out, Bit>,
    pub cp_wr_beat: Signal<Out, Bits<4>>,
    pub cp_start: Signal<Out, Bit>,
    pub cp_first: Signal<Out, Bits<4>>,
    pub cp_last: Signal<Out, Bits<4>>,
    /// COMPOSE's read beat's first 256 bits (a block).
    pub cp_rd_data: Signal<In, Bits<BB>>,
    // Broadcast, through Protocol.
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_seal: Signal<Out, Bit>,
    pub bc_echo_seal: Signal<Out, Bit>,
    pub bc_nv: Signal<Out, Bit>,
    pub bc_beats: Signal<Out, Bits<5>>,
    pub bc_round: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    pub bc_busy: Signal<In, Bit>,
    pub round_done: Signal<In, Bit>,
    pub round_error: Signal<In, Bit>,
    /// The taken SEALs' writers (NEW_VIEW's word 1).
    pub sb_out: Signal<Out, Bits<8>>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<ViewSt>,
    /// A request is out (sign and verify states), or Broadcast not yet
    /// started (send states).
    sent: DFF<Bit>,
    /// COMPOSE's read is settled (load and verify states).
    rd: DFF<Bit>,
    /// This replica leads the view it waits in (collects, not polls).
    lead: DFF<Bit>,
    /// The leader's seal-row reads with fewer than f + 1 since the last one
    /// that counted as a miss (`LEAD_WAIT_SHIFT`, recovery.md D11.14).
    few: DFF<Bits<LEAD_WAIT_SHIFT>>,
    /// The remote read's poll went last: the next miss's side poll is
    /// the decider's share, when both are armed.
    hturn: DFF<Bit>,
    /// A miss's side poll is the decider's share (`help_armed`, and the
    /// remote read not armed or its turn taken).
    to_help: Signal<Local, Bit>,
    /// The fetched record's beat number.
    beat_i: DFF<Bits<8>>,
    /// Collection: SEALs taken, others than its own, their writers; the
    /// taken SEAL's signature is the next beat; one carries an L.
    cnt: DFF<Bits<8>>,
    others: DFF<Bits<8>>,
    sb: DFF<Bits<8>>,
    take: DFF<Bit>,
    has_l: DFF<Bit>,
    /// Writers whose SEAL failed a check once, and twice (not taken again
    /// until this replica seals).
    once: DFF<Bits<8>>,
    failed: DFF<Bits<8>>,
    /// A follower: this view's NEW_VIEW failed a signature check once (a
    /// read may be torn); a second failure refuses it (ViewStart), so a
    /// forged NEW_VIEW costs two verifies, not one at every poll.
    nv_once: DFF<Bit>,
    /// A follower's check of the NEW_VIEW's form: so far right, the last
    /// SEAL's writer, and the writers seen.
    nv_ok: DFF<Bit>,
    last_x: DFF<Bits<8>>,
    seen: DFF<Bits<8>>,
    /// R21: the rank of the SEAL checked, its block, its writer.
    p: DFF<Bits<8>>,
    blk: DFF<Bits<BB>>,
    x: DFF<Bits<8>>,
    /// The suspect COMMIT: found, its entry, its block, its signature
    /// still to come; entries up to `checked` were passed over; a failed
    /// verify is tried once more (`retry`).
    sus: DFF<Bit>,
    sus_j: DFF<Bits<8>>,
    sus_blk: DFF<Bits<BB>>,
    grab: DFF<Bit>,
    checked: DFF<Bits<8>>,
    checked_any: DFF<Bit>,
    retry: DFF<Bit>,
    /// R20: the highest L among the taken (or read) SEALs, (w*, c*, m*,
    /// prev*), and its sealer x_T; the certificate's signers (`cb`), as
    /// the NEW_VIEW's header announced them (`nv_cb`); shares counted and
    /// the replica whose share is checked (R22's certificate).
    cons_w: DFF<Bits<32>>,
    cons_c: DFF<Bits<32>>,
    cons_m: DFF<Bits<32>>,
    cons_prev: DFF<Bits<32>>,
    x_t: DFF<Bits<8>>,
    /// k when Protocol granted a catch-up event (ViewCatchNext waits for k
    /// to move past it).
    catch_k: DFF<Bits<32>>,
    cb: DFF<Bits<8>>,
    nv_cb: DFF<Bits<8>>,
    /// The view of the NEW_VIEW being read and checked: the awaited one,
    /// or a later one (R14's `pend`; ViewJump follows its checks).
    nv_view: DFF<Bits<32>>,
    ci: DFF<Bits<8>>,
    sj: DFF<Bits<8>>,
    /// The SEAL on the fetch carries an L above (c*, w*) so far.
    l_above: Signal<Local, Bit>,
    /// C* = [CERT, w*, c*, m*, prev*, 0, 0, 0] and x_T's COMMIT block
    /// K* = [COMMIT, x_T, w*, c*, m*, prev*, 0, 0].
    cstar: Signal<Local, Bits<BB>>,
    kstar: Signal<Local, Bits<BB>>,
    /// 3 (f + 1): the NEW_VIEW's beats after the header, with a certificate.
    sup3: Signal<Local, Bits<5>>,
    /// The entry of the beat on `fetch_beat`; the beat is a SEAL block of
    /// that entry's writer, well formed (collection); a SEAL of x in the
    /// NEW_VIEW, well formed, in order; a suspect COMMIT of x.
    entry: Signal<Local, Bits<8>>,
    wf_seal: Signal<Local, Bit>,
    seal_cand: Signal<Local, Bit>,
    nv_seal: Signal<Local, Bit>,
    suspect: Signal<Local, Bit>,
    /// The beat on the fetch is a SEAL of x of a later view than `blk`'s.
    own_echo: Signal<Local, Bit>,
    /// x * R + id, and x * R (echo_seal[x][id], echo_commit[x][0]).
    x_row: Signal<Local, Bits<32>>,
    /// The poll a wait while awaiting goes back to: the new leader's
    /// ViewPollSeals, a follower's ViewPollNv.
    await_back: Signal<Local, ViewSt>,
    /// 2 cnt, 2 p, 2 (f + 1): COMPOSE beat indices and lengths.
    cnt2: Signal<Local, Bits<4>>,
    p2: Signal<Local, Bits<4>>,
    sup2: Signal<Local, Bits<5>>,
    /// view - 1 (a SEAL's view word is at least this).
    view_m1: Signal<Local, Bits<32>>,
    /// `nv_view` - 1 (a NEW_VIEW's SEALs are of this view or later).
    nv_m1: Signal<Local, Bits<32>>,
    status_ok: Constant<Bits<8>>,
    kind_seal: Constant<Bits<32>>,
    kind_commit: Constant<Bits<32>>,
    kind_cert_b: Constant<Bits<BB>>,
    kind_commit_b: Constant<Bits<BB>>,
    one8: Constant<Bits<8>>,
    few_max: Constant<Bits<LEAD_WAIT_SHIFT>>,
}

/// The literals `update` holds: a SEAL and a COMMIT block as
/// `layout::records` lays them out, and records of two beats in seal,
/// echo_seal and echo_commit (`<< 5`, `beat_i >> 1`).
pub fn check_literals() {
    use crate::layout::{records, stride_beats, Region};
    use crate::params::WORD_BITS;
    assert_eq!(
        [
            records::KIND,
            records::SEAL_J,
            records::SEAL_V,
            records::SEAL_LW,
            records::SEAL_LPRESENT
        ]
        .map(|w| w * WORD_BITS),
        [0, 32, 64, 96, 224],
        "view.rs: a SEAL's kind, j, v, L (96..224) and L present (224)"
    );
    assert_eq!(
        [records::COMMIT_J, records::COMMIT_PREV + 1].map(|w| w * WORD_BITS),
        [32, 192],
        "view.rs: a COMMIT's j at 32, zero from 192"
    );
    // R20, R21 and the certificate: L's words in a SEAL, a COMMIT's (w, c,
    // m, prev) and a CERT block's (v, k, m, prev) where K* and C* put them.
    assert_eq!(
        [
            records::SEAL_LW,
            records::SEAL_LC,
            records::SEAL_LM,
            records::SEAL_LPREV
        ]
        .map(|w| w * WORD_BITS),
        [96, 128, 160, 192],
        "view.rs: a SEAL's L.w, L.c, L.m, L.prev"
    );
    assert_eq!(
        [
            records::COMMIT_V,
            records::COMMIT_K,
            records::COMMIT_M,
            records::COMMIT_PREV
        ]
        .map(|w| w * WORD_BITS),
        [64, 96, 128, 160],
        "view.rs: a COMMIT's w, c, m, prev (K*, R21's suspect)"
    );
    assert_eq!(
        [
            records::BLOCK_V,
            records::BLOCK_K,
            records::BLOCK_M,
            records::BLOCK_PREV
        ]
        .map(|w| w * WORD_BITS),
        [32, 64, 96, 128],
        "view.rs: a CERT block's v, k, m, prev (C*)"
    );
    assert_eq!(
        records::COMMIT_BITMAP * WORD_BITS,
        256,
        "view.rs: the COMMIT's bitmap is `fetch_hi` (bits 256 to 263)"
    );
    assert_eq!(
        [records::NV_VIEW, records::NV_SEALS, records::NV_CERT].map(|w| w * WORD_BITS),
        [0, 32, 64],
        "view.rs: new_view's header (view, sb << 32, cb << 64)"
    );
    for n in [1, 3, 5, 7, 8] {
        for r in [Region::Seal, Region::EchoSeal, Region::EchoCommit] {
            assert_eq!(
                stride_beats(r, n, crate::params::SB),
                2,
                "view.rs: {r:?} entries of two beats (<< 5, beat_i >> 1)"
            );
        }
    }
}

impl Default for View {
    fn default() -> Self {
        check_literals();
        View {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            start_leader: Default::default(),
            holding: Default::default(),
            catching: Default::default(),
            catch_poll: Default::default(),
            catch_grant: Default::default(),
            seal_grant: Default::default(),
            await_poll: Default::default(),
            dlv_grant: Default::default(),
            awaiting: Default::default(),
            hold: Default::default(),
            running: Default::default(),
            decide_prev: Default::default(),
            id: Default::default(),
            n: Default::default(),
            support: Default::default(),
            view_no: Default::default(),
            next_leader: Default::default(),
            ob: Default::default(),
            share_due: Default::default(),
            call_slow: Default::default(),
            call_share: Default::default(),
            call_late: Default::default(),
            rr_keep: Default::default(),
            rr_armed: Default::default(),
            rr_issue: Default::default(),
            rr_scan: Default::default(),
            rr_found: Default::default(),
            help_armed: Default::default(),
            help_found: Default::default(),
            help_row_word: Default::default(),
            help_scan: Default::default(),
            call_help: Default::default(),
            linger: Default::default(),
            linger_start: Default::default(),
            lingers: Default::default(),
            hturn: Default::default(),
            to_help: Default::default(),
            remote_rows_word: Default::default(),
            slow_done: Default::default(),
            k: Default::default(),
            prev: Default::default(),
            prev2: Default::default(),
            prev2_ok: Default::default(),
            cert_word: Default::default(),
            fetch_hi: Default::default(),
            cons_set: Default::default(),
            step_back: Default::default(),
            cons_c_out: Default::default(),
            cons_m_out: Default::default(),
            cons_prev_out: Default::default(),
            x_t_out: Default::default(),
            cb_out: Default::default(),
            expiring: Default::default(),
            seal_own_word: Default::default(),
            seal_row_word: Default::default(),
            new_view_word: Default::default(),
            echo_seal_base: Default::default(),
            echo_commit_base: Default::default(),
            row_log: Default::default(),
            row2_len: Default::default(),
            remote_len: Default::default(),
            next_view: Default::default(),
            step_view: Default::default(),
            open_round: Default::default(),
            clear_wait: Default::default(),
            missed: Default::default(),
            bad_share: Default::default(),
            fetch_start: Default::default(),
            fetch_word: Default::default(),
            fetch_len: Default::default(),
            fetch_beat: Default::default(),
            fetch_beat_valid: Default::default(),
            fetch_done: Default::default(),
            fetch_error: Default::default(),
            sg_sign: Default::default(),
            sg_verify: Default::default(),
            sg_seal: Default::default(),
            sg_blk: Default::default(),
            sg_sus: Default::default(),
            sg_signer: Default::default(),
            sg_busy: Default::default(),
            sg_resp_valid: Default::default(),
            sg_resp_status: Default::default(),
            sg_resp_take: Default::default(),
            blk_out: Default::default(),
            sus_block: Default::default(),
            cp_wr_en: Default::default(),
            cp_from_fetch: Default::default(),
            cp_wr_beat: Default::default(),
            cp_start: Default::default(),
            cp_first: Default::default(),
            cp_last: Default::default(),
            cp_rd_data: Default::default(),
            bc_start: Default::default(),
            bc_word: Default::default(),
            bc_seal: Default::default(),
            bc_echo_seal: Default::default(),
            bc_nv: Default::default(),
            bc_beats: Default::default(),
            bc_round: Default::default(),
            bc_done: Default::default(),
            bc_busy: Default::default(),
            round_done: Default::default(),
            round_error: Default::default(),
            sb_out: Default::default(),
            sts_state: Default::default(),
            state: Default::default(),
            sent: Default::default(),
            rd: Default::default(),
            lead: Default::default(),
            few: Default::default(),
            beat_i: Default::default(),
            cnt: Default::default(),
            others: Default::default(),
            sb: Default::default(),
            take: Default::default(),
            has_l: Default::default(),
            once: Default::default(),
            nv_once: Default::default(),
            failed: Default::default(),
            nv_ok: Default::default(),
            last_x: Default::default(),
            seen: Default::default(),
            p: Default::default(),
            blk: Default::default(),
            x: Default::default(),
            own_echo: Default::default(),
            sus: Default::default(),
            sus_j: Default::default(),
            sus_blk: Default::default(),
            grab: Default::default(),
            checked: Default::default(),
            checked_any: Default::default(),
            retry: Default::default(),
            cons_w: Default::default(),
            cons_c: Default::default(),
            cons_m: Default::default(),
            cons_prev: Default::default(),
            x_t: Default::default(),
            catch_k: Default::default(),
            cb: Default::default(),
            nv_cb: Default::default(),
            nv_view: Default::default(),
            ci: Default::default(),
            sj: Default::default(),
            l_above: Default::default(),
            cstar: Default::default(),
            kstar: Default::default(),
            sup3: Default::default(),
            entry: Default::default(),
            wf_seal: Default::default(),
            seal_cand: Default::default(),
            nv_seal: Default::default(),
            suspect: Default::default(),
            x_row: Default::default(),
            await_back: Default::default(),
            view_m1: Default::default(),
            nv_m1: Default::default(),
            cnt2: Default::default(),
            p2: Default::default(),
            sup2: Default::default(),
            status_ok: Constant::new(crate::io::signer::code::OK.into()),
            few_max: Constant::new(((1u64 << LEAD_WAIT_SHIFT) - 1).into()),
            kind_seal: Constant::new((crate::layout::records::KIND_SEAL as u64).into()),
            kind_commit: Constant::new((crate::layout::records::KIND_COMMIT as u64).into()),
            kind_cert_b: Constant::new((crate::layout::records::KIND_CERT as u64).into()),
            kind_commit_b: Constant::new((crate::layout::records::KIND_COMMIT as u64).into()),
            one8: Constant::new(1u64.into()),
        }
    }
}

impl View {
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
        let mut b = Self::default();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl Logic for View {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            sent,
            rd,
            lead,
            few,
            hturn,
            beat_i,
            cnt,
            others,
            sb,
            take,
            has_l,
            once,
            failed,
            nv_once,
            nv_ok,
            last_x,
            seen,
            p,
            blk,
            x,
            sus,
            sus_j,
            sus_blk,
            grab,
            checked,
            checked_any,
            retry,
            cons_w,
            cons_c,
            cons_m,
            cons_prev,
            x_t,
            catch_k,
            cb,
            nv_cb,
            nv_view,
            ci,
            sj
        );
        self.entry.next = self.beat_i.q.val() >> 1;
        self.view_m1.next = self.view_no.val() - 1;
        self.nv_m1.next = self.nv_view.q.val() - 1;
        self.cnt2.next = bit_cast::<4, 8>(self.cnt.q.val()) << 1;
        self.p2.next = bit_cast::<4, 8>(self.p.q.val()) << 1;
        self.sup2.next = bit_cast::<5, 8>(self.support.val()) << 1;
        self.sup3.next = self.sup2.val() + bit_cast::<5, 8>(self.support.val());
        // The checks of a fetched beat, each computed only in the state that
        // reads it (0 elsewhere): the simulator skips their 256-bit compares
        // while the machine is Off, as it is on the fast path
        // (a small saving: performance.md, "Simulation cost of the v3
        // machines").
        self.wf_seal.next = false;
        self.seal_cand.next = false;
        self.nv_seal.next = false;
        self.suspect.next = false;
        self.own_echo.next = false;
        if (self.state.q.val() == ViewSt::ViewWaitSeals)
            | (self.state.q.val() == ViewSt::ViewWaitNvRec)
        {
            // A SEAL block on the fetch, well formed: L present is 1, or 0
            // with L's words zero (layout::records::well_formed).
            self.wf_seal.next = (self.fetch_beat.val().get_bits::<32>(0) == self.kind_seal.val())
                & ((self.fetch_beat.val().get_bits::<32>(224) == 1)
                    | ((self.fetch_beat.val().get_bits::<32>(224) == 0)
                        & (self.fetch_beat.val().get_bits::<128>(96) == 0)));
        }
        self.l_above.next = false;
        if (self.state.q.val() == ViewSt::ViewWaitSeals)
            | (self.state.q.val() == ViewSt::ViewWaitNvRec)
        {
            // R20: the SEAL on the fetch carries an L above the highest so
            // far (slot first, then view; the first of equals is kept).
            self.l_above.next = (self.fetch_beat.val().get_bits::<32>(224) != 0)
                & (!self.has_l.q.val()
                    | (self.fetch_beat.val().get_bits::<32>(128) > self.cons_c.q.val())
                    | ((self.fetch_beat.val().get_bits::<32>(128) == self.cons_c.q.val())
                        & (self.fetch_beat.val().get_bits::<32>(96) > self.cons_w.q.val())));
        }
        self.cstar.next = 0.into();
        self.kstar.next = 0.into();
        if self.state.q.val() == ViewSt::ViewVerifyCert {
            self.cstar.next = self.kind_cert_b.val()
                | (bit_cast::<BB, 32>(self.cons_w.q.val()) << 32)
                | (bit_cast::<BB, 32>(self.cons_c.q.val()) << 64)
                | (bit_cast::<BB, 32>(self.cons_m.q.val()) << 96)
                | (bit_cast::<BB, 32>(self.cons_prev.q.val()) << 128);
        }
        if self.state.q.val() == ViewSt::ViewWaitCert {
            self.kstar.next = self.kind_commit_b.val()
                | (bit_cast::<BB, 8>(self.x_t.q.val()) << 32)
                | (bit_cast::<BB, 32>(self.cons_w.q.val()) << 64)
                | (bit_cast::<BB, 32>(self.cons_c.q.val()) << 96)
                | (bit_cast::<BB, 32>(self.cons_m.q.val()) << 128)
                | (bit_cast::<BB, 32>(self.cons_prev.q.val()) << 160);
        }
        if self.state.q.val() == ViewSt::ViewWaitSeals {
            // R19: the seal row's entry on the fetch is a SEAL of its writer
            // j, of a view >= view - 1, from a writer that has not failed
            // twice.
            self.seal_cand.next = !self.beat_i.q.val().get_bit(0)
                & (self.entry.val() < self.n.val())
                & self.wf_seal.val()
                & (self.fetch_beat.val().get_bits::<32>(32) == bit_cast::<32, 8>(self.entry.val()))
                & (self.fetch_beat.val().get_bits::<32>(64) >= self.view_m1.val())
                & ((self.failed.q.val() & (self.one8.val() << self.entry.val())) == 0);
        }
        if self.state.q.val() == ViewSt::ViewWaitNvRec {
            // R22's form: beat 1 + 2i is a SEAL of a replica x < n in the
            // NEW_VIEW's bitmap, above the one before, of a view >= view - 1.
            self.nv_seal.next = self.wf_seal.val()
                & (self.fetch_beat.val().get_bits::<32>(32) < bit_cast::<32, 8>(self.n.val()))
                & ((self.sb.q.val()
                    & (self.one8.val() << self.fetch_beat.val().get_bits::<8>(32)))
                    != 0)
                & (self.fetch_beat.val().get_bits::<24>(40) == 0)
                & ((self.cnt.q.val() == 0)
                    | (self.fetch_beat.val().get_bits::<8>(32) > self.last_x.q.val()))
                & (self.fetch_beat.val().get_bits::<32>(64) >= self.nv_m1.val());
        }
        if self.state.q.val() == ViewSt::ViewWaitEchoCommit {
            // R21: an echo_commit[x] entry above those passed over holding a
            // COMMIT block of x, of a view no later than the SEAL's, above
            // the SEAL's L (no L: any such COMMIT of x; else (c, w) >
            // (L.c, L.w)). (A COMMIT of a later view was made after the
            // SEAL: recovery.md R21, the view bound.)
            self.suspect.next = !self.beat_i.q.val().get_bit(0)
                & (self.entry.val() < self.n.val())
                & (!self.checked_any.q.val() | (self.entry.val() > self.checked.q.val()))
                & (self.fetch_beat.val().get_bits::<32>(0) == self.kind_commit.val())
                & (self.fetch_beat.val().get_bits::<32>(32) == bit_cast::<32, 8>(self.x.q.val()))
                & (self.fetch_beat.val().get_bits::<64>(192) == 0)
                & (self.fetch_beat.val().get_bits::<32>(64) <= self.blk.q.val().get_bits::<32>(64))
                & ((self.blk.q.val().get_bits::<32>(224) == 0)
                    | (self.fetch_beat.val().get_bits::<32>(96)
                        > self.blk.q.val().get_bits::<32>(128))
                    | ((self.fetch_beat.val().get_bits::<32>(96)
                        == self.blk.q.val().get_bits::<32>(128))
                        & (self.fetch_beat.val().get_bits::<32>(64)
                            > self.blk.q.val().get_bits::<32>(96))));
        }
        if self.state.q.val() == ViewSt::ViewWaitOwnEcho {
            // echo_seal[x][id] holds a SEAL of x of a later view.
            self.own_echo.next = (self.fetch_beat.val().get_bits::<32>(0) == self.kind_seal.val())
                & (self.fetch_beat.val().get_bits::<32>(32) == bit_cast::<32, 8>(self.x.q.val()))
                & (self.fetch_beat.val().get_bits::<32>(64) > self.blk.q.val().get_bits::<32>(64));
        }
        self.x_row.next = bit_cast::<32, 8>(self.x.q.val()) << self.row_log.val();
        self.await_back.next = ViewSt::ViewPollNv;
        if self.lead.q.val() {
            self.await_back.next = ViewSt::ViewPollSeals;
        }
        // Outputs are zero unless a state drives them (see leader.rs).
        self.start_leader.next = false;
        self.holding.next = self.state.q.val() != ViewSt::Off;
        self.catching.next = (self.state.q.val() == ViewSt::ViewPollCatch)
            | (self.state.q.val() == ViewSt::ViewWaitCatch)
            | (self.state.q.val() == ViewSt::ViewPollNv)
            | (self.state.q.val() == ViewSt::ViewWaitNv)
            | (self.state.q.val() == ViewSt::ViewPollSeals)
            | (self.state.q.val() == ViewSt::ViewWaitSeals)
            | (self.state.q.val() == ViewSt::ViewPollRemote)
            | (self.state.q.val() == ViewSt::ViewWaitRemote)
            | (self.state.q.val() == ViewSt::ViewPollHelp)
            | (self.state.q.val() == ViewSt::ViewWaitHelp);
        self.catch_poll.next = (self.state.q.val() == ViewSt::ViewPollCatch)
            | (self.state.q.val() == ViewSt::ViewPollNv)
            | (self.state.q.val() == ViewSt::ViewPollSeals);
        self.await_poll.next = (self.state.q.val() == ViewSt::ViewPollNv)
            | (self.state.q.val() == ViewSt::ViewPollSeals);
        self.awaiting.next = (self.state.q.val() == ViewSt::ViewPollNv)
            | (self.state.q.val() == ViewSt::ViewWaitNv)
            | (self.state.q.val() == ViewSt::ViewPollSeals)
            | (self.state.q.val() == ViewSt::ViewWaitSeals)
            | (self.state.q.val() == ViewSt::ViewPollRemote)
            | (self.state.q.val() == ViewSt::ViewWaitRemote)
            | (self.state.q.val() == ViewSt::ViewPollHelp)
            | (self.state.q.val() == ViewSt::ViewWaitHelp)
            | (self.state.q.val() == ViewSt::ViewDeliver);
        self.decide_prev.next = false;
        self.next_view.next = false;
        self.step_view.next = false;
        self.open_round.next = false;
        self.clear_wait.next = false;
        self.missed.next = false;
        self.bad_share.next = false;
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.fetch_len.next = 0.into();
        self.sg_sign.next = false;
        self.sg_verify.next = false;
        self.sg_seal.next = false;
        self.sg_blk.next = false;
        self.sg_sus.next = false;
        self.sg_signer.next = 0.into();
        self.sg_resp_take.next = false;
        self.blk_out.next = self.blk.q.val();
        self.sus_block.next = self.sus_blk.q.val();
        self.cp_wr_en.next = false;
        self.cp_from_fetch.next = false;
        self.cp_wr_beat.next = 1.into();
        self.cp_start.next = false;
        self.cp_first.next = 1.into();
        self.cp_last.next = 1.into();
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.bc_seal.next = false;
        self.bc_echo_seal.next = false;
        self.bc_nv.next = false;
        self.bc_beats.next = 2.into();
        self.bc_round.next = false;
        self.sb_out.next = self.sb.q.val();
        self.call_slow.next = false;
        self.call_share.next = false;
        self.call_late.next = false;
        self.call_help.next = false;
        self.help_scan.next = false;
        self.lingers.next = !self.running.val()
            & ((self.state.q.val() == ViewSt::ViewPollHelp)
                | (self.state.q.val() == ViewSt::ViewWaitHelp)
                | (self.state.q.val() == ViewSt::ViewHelpShare));
        // The next side poll at a miss: the decider's share, taking turns
        // with the remote read when both are armed.
        self.to_help.next = self.help_armed.val() & (!self.rr_armed.val() | !self.hturn.q.val());
        self.rr_keep.next = false;
        self.rr_issue.next = false;
        self.rr_scan.next = false;
        self.cons_set.next = false;
        self.step_back.next = false;
        self.cons_c_out.next = self.cons_c.q.val();
        self.cons_m_out.next = self.cons_m.q.val();
        self.cons_prev_out.next = self.cons_prev.q.val();
        self.x_t_out.next = self.x_t.q.val();
        self.cb_out.next = 0.into();
        if self.has_l.q.val() {
            self.cb_out.next = self.cb.q.val();
        }
        match self.state.q.val() {
            ViewSt::Off => {
                if self.start.val() {
                    self.state.d.next = ViewSt::ViewStart;
                } else if self.linger_start.val() {
                    self.state.d.next = ViewSt::ViewPollHelp;
                }
            }
            ViewSt::ViewStart => {
                // R15: FAST is Off, so no vote follows. A signer response
                // still due is dropped; SignerPort and Broadcast drain.
                self.few.d.next = 0.into();
                self.sent.d.next = false;
                self.rd.d.next = false;
                self.clear_wait.next = true;
                if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                } else if !self.sg_busy.val() & !self.bc_busy.val() {
                    self.state.d.next = ViewSt::ViewTurn;
                }
            }
            ViewSt::ViewTurn => {
                if self.ob.val() {
                    // R17, the bridge: SLOW certifies and commits W (seal
                    // mode); back here when it yields.
                    self.call_slow.next = true;
                    self.state.d.next = ViewSt::ViewBridge;
                } else if self.share_due.val() {
                    // R16: W's share with no obligation (L covers W.b
                    // from an earlier view), so that a peer's bridge on W
                    // finds it; SLOW signs and writes it, and yields.
                    self.call_slow.next = true;
                    self.call_share.next = true;
                    self.state.d.next = ViewSt::ViewBridge;
                } else {
                    // R18: seal.
                    self.sg_seal.next = true;
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                    self.state.d.next = ViewSt::ViewSignSeal;
                }
            }
            ViewSt::ViewSignSeal => {
                self.sg_seal.next = true;
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // COMPOSE beat 1 := the signature; the stream
                        // starts the next cycle.
                        self.cp_wr_en.next = true;
                        self.state.d.next = ViewSt::ViewSendSeal;
                    } else {
                        self.sent.d.next = false;
                    }
                }
            }
            ViewSt::ViewSendSeal => {
                // R32: the SEAL in a round; this replica acts in the next
                // view only once it is in every replica's HBM.
                self.bc_word.next = self.seal_own_word.val();
                self.bc_seal.next = true;
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.bc_round.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.round_error.val() {
                    // Its local write failed: Broadcast fails stop and
                    // Protocol ends the run (WriteFailed); nothing acts in
                    // the next view.
                    self.state.d.next = ViewSt::ViewStart;
                } else if self.round_done.val() {
                    self.next_view.next = true;
                    self.rr_keep.next = true;
                    self.clear_wait.next = true;
                    self.once.d.next = 0.into();
                    self.failed.d.next = 0.into();
                    self.nv_once.d.next = false;
                    if self.next_leader.val() == self.id.val() {
                        self.lead.d.next = true;
                        self.state.d.next = ViewSt::ViewPollSeals;
                    } else {
                        self.lead.d.next = false;
                        self.state.d.next = ViewSt::ViewPollNv;
                    }
                }
            }
            ViewSt::ViewPollSeals => {
                if self.seal_grant.val() {
                    // R14: f + 1 replicas sealed this view too.
                    self.state.d.next = ViewSt::ViewStart;
                } else if self.catch_grant.val() {
                    // R24, R26 while awaiting the NEW_VIEW: Protocol
                    // decides k this cycle.
                    self.catch_k.d.next = self.k.val();
                    self.state.d.next = ViewSt::ViewAwaitNext;
                } else if self.dlv_grant.val() {
                    // R25: SLOW delivers a peer's COMMITs of k.
                    self.catch_k.d.next = self.k.val();
                    self.state.d.next = ViewSt::ViewDeliver;
                } else {
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.seal_row_word.val();
                    self.fetch_len.next = self.row2_len.val();
                    self.beat_i.d.next = 0.into();
                    self.cnt.d.next = 0.into();
                    self.others.d.next = 0.into();
                    self.sb.d.next = 0.into();
                    self.take.d.next = false;
                    self.has_l.d.next = false;
                    self.state.d.next = ViewSt::ViewWaitSeals;
                }
            }
            ViewSt::ViewWaitSeals => {
                // A taken SEAL's block and signature go into COMPOSE beats
                // 1 + 2p and 2 + 2p as they arrive (p = `cnt`).
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next = self.cnt2.val() + 1;
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.take.q.val() {
                        // Its signature (beat 2 + 2p: cnt counts it now).
                        self.cp_wr_beat.next = self.cnt2.val();
                        self.cp_wr_en.next = true;
                        self.take.d.next = false;
                    } else if self.seal_cand.val()
                        & ((self.entry.val() == self.id.val())
                            | (self.others.q.val() < (self.support.val() - 1)))
                    {
                        self.cp_wr_en.next = true;
                        self.take.d.next = true;
                        self.cnt.d.next = self.cnt.q.val() + 1;
                        self.sb.d.next = self.sb.q.val() | (self.one8.val() << self.entry.val());
                        if self.entry.val() != self.id.val() {
                            self.others.d.next = self.others.q.val() + 1;
                        }
                        if self.fetch_beat.val().get_bits::<32>(224) != 0 {
                            self.has_l.d.next = true;
                        }
                        if self.l_above.val() {
                            // R20: the highest L so far, and its sealer.
                            self.cons_w.d.next = self.fetch_beat.val().get_bits::<32>(96);
                            self.cons_c.d.next = self.fetch_beat.val().get_bits::<32>(128);
                            self.cons_m.d.next = self.fetch_beat.val().get_bits::<32>(160);
                            self.cons_prev.d.next = self.fetch_beat.val().get_bits::<32>(192);
                            self.x_t.d.next = self.entry.val();
                        }
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & (self.cnt.q.val() == self.support.val()) {
                        self.p.d.next = 0.into();
                        self.state.d.next = ViewSt::ViewNext;
                    } else if !self.fetch_error.val() & (self.few.q.val() != self.few_max.val()) {
                        // Fewer than f + 1: a miss only every
                        // 2^LEAD_WAIT_SHIFT-th time, so the leader waits
                        // that much longer for the SEALs (recovery.md
                        // D11.14).
                        self.few.d.next = self.few.q.val() + 1;
                        self.state.d.next = ViewSt::ViewPollSeals;
                        if self.to_help.val() {
                            self.state.d.next = ViewSt::ViewPollHelp;
                        } else if self.rr_armed.val() {
                            self.state.d.next = ViewSt::ViewPollRemote;
                        }
                    } else {
                        self.few.d.next = 0.into();
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        } else if self.to_help.val() {
                            self.state.d.next = ViewSt::ViewPollHelp;
                        } else if self.rr_armed.val() {
                            self.state.d.next = ViewSt::ViewPollRemote;
                        } else {
                            self.state.d.next = ViewSt::ViewPollSeals;
                        }
                    }
                }
            }
            ViewSt::ViewNext => {
                self.rd.d.next = false;
                self.sent.d.next = false;
                self.checked_any.d.next = false;
                self.retry.d.next = false;
                self.ci.d.next = 0.into();
                self.sj.d.next = 0.into();
                if self.p.q.val() == self.support.val() {
                    if self.lead.q.val() & self.has_l.q.val() {
                        // R19: the certificate of the highest L, from x_T's
                        // COMMIT.
                        self.state.d.next = ViewSt::ViewPollCert;
                    } else if self.lead.q.val() {
                        self.sent.d.next = true;
                        self.state.d.next = ViewSt::ViewSendNv;
                    } else if self.has_l.q.val() {
                        // R22: the NEW_VIEW's certificate.
                        self.state.d.next = ViewSt::ViewVerifyCert;
                    } else if self.nv_view.q.val() != self.view_no.val() {
                        // R14: a later view's NEW_VIEW passed.
                        self.state.d.next = ViewSt::ViewJump;
                    } else {
                        self.state.d.next = ViewSt::ViewInstall;
                    }
                } else {
                    self.state.d.next = ViewSt::ViewLoad;
                }
            }
            ViewSt::ViewLoad => {
                // COMPOSE's read: SEAL p's block, then its signature.
                self.cp_first.next = self.p2.val() + 1;
                if self.rd.q.val() {
                    self.cp_first.next = self.p2.val() + 2;
                    self.blk.d.next = self.cp_rd_data.val();
                    self.x.d.next = self.cp_rd_data.val().get_bits::<8>(32);
                    self.rd.d.next = false;
                    if self.cp_rd_data.val().get_bits::<8>(32) == self.id.val() {
                        // Its own SEAL (V9).
                        self.p.d.next = self.p.q.val() + 1;
                        self.state.d.next = ViewSt::ViewNext;
                    } else {
                        self.state.d.next = ViewSt::ViewVerify;
                    }
                } else {
                    self.rd.d.next = true;
                }
            }
            ViewSt::ViewVerify => {
                // The signature is COMPOSE's read of beat 2 + 2p.
                self.cp_first.next = self.p2.val() + 2;
                self.sg_blk.next = true;
                self.sg_signer.next = self.x.q.val();
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    self.sent.d.next = false;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        self.state.d.next = ViewSt::ViewPollOwnEcho;
                    } else {
                        self.bad_share.next = true;
                        self.missed.next = true;
                        if self.lead.q.val() {
                            if (self.once.q.val() & (self.one8.val() << self.x.q.val())) != 0 {
                                self.failed.d.next =
                                    self.failed.q.val() | (self.one8.val() << self.x.q.val());
                            } else {
                                self.once.d.next =
                                    self.once.q.val() | (self.one8.val() << self.x.q.val());
                            }
                            self.state.d.next = ViewSt::ViewPollSeals;
                        } else {
                            self.nv_once.d.next = true;
                            self.state.d.next = ViewSt::ViewPollNv;
                            if self.nv_once.q.val() {
                                // Failed twice: refused.
                                self.state.d.next = ViewSt::ViewStart;
                            }
                        }
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        }
                    }
                }
            }
            ViewSt::ViewPollOwnEcho => {
                // echo_seal[x][id]: written only by this replica.
                self.fetch_start.next = true;
                self.fetch_word.next = self.echo_seal_base.val()
                    + ((self.x_row.val() + bit_cast::<32, 8>(self.id.val())) << 5);
                self.fetch_len.next = 0.into();
                self.state.d.next = ViewSt::ViewWaitOwnEcho;
            }
            ViewSt::ViewWaitOwnEcho => {
                // (One beat: it comes with `done`.)
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.own_echo.val() {
                        self.state.d.next = ViewSt::ViewPollEchoCommit;
                    } else {
                        self.sent.d.next = true;
                        self.state.d.next = ViewSt::ViewSendEchoSeal;
                    }
                }
            }
            ViewSt::ViewSendEchoSeal => {
                // R21's register: x's SEAL, then its signature (COMPOSE
                // beat 2 + 2p), to echo_seal[x][id], in a round (R13).
                self.bc_word.next = self.echo_seal_base.val()
                    + ((self.x_row.val() + bit_cast::<32, 8>(self.id.val())) << 5);
                self.bc_echo_seal.next = true;
                self.cp_first.next = self.p2.val() + 2;
                self.cp_last.next = self.p2.val() + 2;
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.bc_round.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.round_error.val() {
                    self.missed.next = true;
                    if self.expiring.val() {
                        self.state.d.next = ViewSt::ViewStart;
                    } else if self.lead.q.val() {
                        self.state.d.next = ViewSt::ViewPollSeals;
                    } else {
                        self.state.d.next = ViewSt::ViewPollNv;
                    }
                } else if self.round_done.val() {
                    self.clear_wait.next = true;
                    self.state.d.next = ViewSt::ViewPollEchoCommit;
                }
            }
            ViewSt::ViewPollEchoCommit => {
                self.fetch_start.next = true;
                self.fetch_word.next = self.echo_commit_base.val() + (self.x_row.val() << 5);
                self.fetch_len.next = self.row2_len.val();
                self.beat_i.d.next = 0.into();
                self.sus.d.next = false;
                self.grab.d.next = false;
                self.state.d.next = ViewSt::ViewWaitEchoCommit;
            }
            ViewSt::ViewWaitEchoCommit => {
                // A suspect's signature goes into COMPOSE beat 15.
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next = 15.into();
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.grab.q.val() {
                        self.cp_wr_en.next = true;
                        self.grab.d.next = false;
                    } else if self.suspect.val() & !self.sus.q.val() {
                        self.sus.d.next = true;
                        self.sus_j.d.next = self.entry.val();
                        self.sus_blk.d.next = self.fetch_beat.val();
                        self.grab.d.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        } else {
                            self.state.d.next = ViewSt::ViewPollEchoCommit;
                        }
                    } else if self.sus.q.val() {
                        // (A suspect's block is never the row's last beat.)
                        self.sent.d.next = false;
                        self.rd.d.next = false;
                        self.state.d.next = ViewSt::ViewVerifySuspect;
                    } else {
                        self.p.d.next = self.p.q.val() + 1;
                        self.state.d.next = ViewSt::ViewNext;
                    }
                }
            }
            ViewSt::ViewVerifySuspect => {
                self.cp_first.next = 15.into();
                self.sg_sus.next = true;
                self.sg_signer.next = self.x.q.val();
                if !self.sent.q.val() {
                    if !self.rd.q.val() {
                        // COMPOSE reads beat 15 at this edge.
                        self.rd.d.next = true;
                    } else if !self.sg_busy.val() {
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    self.sent.d.next = false;
                    self.rd.d.next = false;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // x signed a COMMIT its SEAL does not cover: the
                        // SEAL is false (R21).
                        if self.lead.q.val() {
                            self.failed.d.next =
                                self.failed.q.val() | (self.one8.val() << self.x.q.val());
                            self.state.d.next = ViewSt::ViewPollSeals;
                        } else {
                            self.state.d.next = ViewSt::ViewStart;
                        }
                    } else if !self.retry.q.val() {
                        // Read the entry again before passing it over.
                        self.retry.d.next = true;
                        self.state.d.next = ViewSt::ViewPollEchoCommit;
                    } else {
                        self.retry.d.next = false;
                        self.checked.d.next = self.sus_j.q.val();
                        self.checked_any.d.next = true;
                        self.state.d.next = ViewSt::ViewPollEchoCommit;
                    }
                }
            }
            ViewSt::ViewSendNv => {
                // NEW_VIEW(view): the header, then the f + 1 SEALs from
                // COMPOSE beats 1 to 2f + 2 (2f + 3 beats), and with a
                // carried value the certificate's f + 1 shares, beats
                // 2f + 3 to 3f + 3 (3f + 4 beats).
                self.bc_word.next = self.new_view_word.val();
                self.bc_nv.next = true;
                self.cp_first.next = 1.into();
                if self.has_l.q.val() {
                    self.bc_beats.next = self.sup3.val() + 1;
                    self.cp_last.next = bit_cast::<4, 5>(self.sup3.val());
                } else {
                    self.bc_beats.next = self.sup2.val() + 1;
                    self.cp_last.next = bit_cast::<4, 5>(self.sup2.val());
                }
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() {
                    self.state.d.next = ViewSt::ViewInstall;
                }
            }
            ViewSt::ViewPollNv => {
                if self.seal_grant.val() {
                    // R14: f + 1 replicas sealed this view too.
                    self.state.d.next = ViewSt::ViewStart;
                } else if self.catch_grant.val() {
                    // R24, R26 while awaiting the NEW_VIEW: Protocol
                    // decides k this cycle.
                    self.catch_k.d.next = self.k.val();
                    self.state.d.next = ViewSt::ViewAwaitNext;
                } else if self.dlv_grant.val() {
                    // R25: SLOW delivers a peer's COMMITs of k.
                    self.catch_k.d.next = self.k.val();
                    self.state.d.next = ViewSt::ViewDeliver;
                } else {
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.new_view_word.val();
                    self.fetch_len.next = 0.into();
                    self.state.d.next = ViewSt::ViewWaitNv;
                }
            }
            ViewSt::ViewWaitNv => {
                // (One beat: it comes with `done`.)
                if self.fetch_done.val() {
                    if !self.fetch_error.val()
                        & (self.fetch_beat.val().get_bits::<32>(0) >= self.view_no.val())
                    {
                        // This view's, or a later one's (R14: checked, then
                        // ViewJump). Its length follows from cb (0: no
                        // certificate).
                        self.nv_view.d.next = self.fetch_beat.val().get_bits::<32>(0);
                        self.nv_cb.d.next = self.fetch_beat.val().get_bits::<8>(64);
                        self.state.d.next = ViewSt::ViewPollNvRec;
                    } else {
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        } else if self.to_help.val() {
                            self.state.d.next = ViewSt::ViewPollHelp;
                        } else if self.rr_armed.val() {
                            self.state.d.next = ViewSt::ViewPollRemote;
                        } else {
                            self.state.d.next = ViewSt::ViewPollNv;
                        }
                    }
                }
            }
            ViewSt::ViewPollRemote => {
                // The remote read (recovery.md D11.17): the next peer's
                // READs go out, and remote_rows is read whole, checked
                // beat by beat for n locks for K.
                self.rr_issue.next = true;
                self.rr_scan.next = true;
                self.hturn.d.next = true;
                self.fetch_start.next = true;
                self.fetch_word.next = self.remote_rows_word.val();
                self.fetch_len.next = self.remote_len.val();
                self.state.d.next = ViewSt::ViewWaitRemote;
            }
            ViewSt::ViewWaitRemote => {
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.rr_found.val() {
                        // The late share: SLOW signs and writes K's CERT
                        // share (seal mode, share only), and yields.
                        self.call_slow.next = true;
                        self.call_share.next = true;
                        self.call_late.next = true;
                        self.state.d.next = ViewSt::ViewLateShare;
                    } else if self.lead.q.val() {
                        // A new leader's wait for its SEALs counts its
                        // own misses (`few`, D11.14).
                        self.state.d.next = ViewSt::ViewPollSeals;
                    } else {
                        // A follower's remote poll is one of its T_vc
                        // polls: the wait stays as long in cycles as
                        // without the remote read.
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        } else {
                            self.state.d.next = ViewSt::ViewPollNv;
                        }
                    }
                }
            }
            ViewSt::ViewLateShare => {
                if self.slow_done.val() {
                    self.clear_wait.next = true;
                    self.state.d.next = self.await_back.val();
                }
            }
            ViewSt::ViewPollHelp => {
                // The decider's share (recovery.md D11.18): the will_commit
                // row of slot k − 1, one beat, scanned by Help as it comes.
                // (At the run's end, once `linger` fell: Off.)
                if !self.running.val() & !self.linger.val() {
                    self.state.d.next = ViewSt::Off;
                } else {
                    self.help_scan.next = true;
                    self.hturn.d.next = false;
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.help_row_word.val();
                    self.fetch_len.next = 0.into();
                    self.state.d.next = ViewSt::ViewWaitHelp;
                }
            }
            ViewSt::ViewWaitHelp => {
                if self.fetch_done.val() {
                    if !self.running.val() & !self.linger.val() {
                        self.state.d.next = ViewSt::Off;
                    } else if !self.fetch_error.val() & self.help_found.val() {
                        // SLOW signs and writes Help's CERT share (seal
                        // mode, share only, as the late share), and yields.
                        self.call_slow.next = true;
                        self.call_share.next = true;
                        self.call_late.next = true;
                        self.call_help.next = true;
                        self.state.d.next = ViewSt::ViewHelpShare;
                    } else if !self.running.val() {
                        // Lingering at the run's end: no timer, no seal.
                        self.state.d.next = ViewSt::ViewPollHelp;
                    } else if self.lead.q.val() {
                        // One of the new leader's polls for its SEALs, as
                        // a seal row with fewer than f + 1 (`few`, D11.14):
                        // its wait is as long in polls as without the help.
                        self.state.d.next = ViewSt::ViewPollSeals;
                        if self.few.q.val() != self.few_max.val() {
                            self.few.d.next = self.few.q.val() + 1;
                        } else {
                            self.few.d.next = 0.into();
                            self.missed.next = true;
                            if self.expiring.val() {
                                self.state.d.next = ViewSt::ViewStart;
                            }
                        }
                    } else {
                        // One of a follower's T_vc polls, as the remote
                        // read's.
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        } else {
                            self.state.d.next = ViewSt::ViewPollNv;
                        }
                    }
                }
            }
            ViewSt::ViewHelpShare => {
                // (The wait is not restarted: a share for a peer is no
                // progress of this replica's.)
                if self.slow_done.val() {
                    if self.running.val() {
                        self.state.d.next = self.await_back.val();
                    } else {
                        // Lingering (ViewPollHelp goes Off once it ends).
                        self.state.d.next = ViewSt::ViewPollHelp;
                    }
                }
            }
            ViewSt::ViewPollNvRec => {
                // 2f + 3 beats (AxLEN 2(f + 1)), or 3f + 4 with a
                // certificate (AxLEN 3(f + 1)).
                self.fetch_start.next = true;
                self.fetch_word.next = self.new_view_word.val();
                self.fetch_len.next = self.support.val() << 1;
                if self.nv_cb.q.val() != 0 {
                    self.fetch_len.next = bit_cast::<8, 5>(self.sup3.val());
                }
                self.beat_i.d.next = 0.into();
                self.cnt.d.next = 0.into();
                self.seen.d.next = 0.into();
                self.has_l.d.next = false;
                self.nv_ok.d.next = true;
                self.state.d.next = ViewSt::ViewWaitNvRec;
            }
            ViewSt::ViewWaitNvRec => {
                // Each beat into COMPOSE at its index (beat 0 too: unused).
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next = self.beat_i.q.val().get_bits::<4>(0);
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    self.cp_wr_en.next = true;
                    if self.beat_i.q.val() == 0 {
                        self.sb.d.next = self.fetch_beat.val().get_bits::<8>(32);
                        self.cb.d.next = self.fetch_beat.val().get_bits::<8>(64);
                        if (self.fetch_beat.val().get_bits::<32>(0) != self.nv_view.q.val())
                            | (self.fetch_beat.val().get_bits::<24>(40) != 0)
                            | (self.fetch_beat.val().get_bits::<8>(64) != self.nv_cb.q.val())
                            | (self.fetch_beat.val().get_bits::<24>(72) != 0)
                        {
                            self.nv_ok.d.next = false;
                        }
                    } else if self.beat_i.q.val().get_bit(0)
                        & (self.beat_i.q.val() <= bit_cast::<8, 5>(self.sup2.val()))
                    {
                        // A SEAL block (beat 1 + 2i).
                        if self.nv_seal.val() {
                            self.cnt.d.next = self.cnt.q.val() + 1;
                            self.last_x.d.next = self.fetch_beat.val().get_bits::<8>(32);
                            self.seen.d.next = self.seen.q.val()
                                | (self.one8.val() << self.fetch_beat.val().get_bits::<8>(32));
                            if self.fetch_beat.val().get_bits::<32>(224) != 0 {
                                self.has_l.d.next = true;
                            }
                            if self.l_above.val() {
                                self.cons_w.d.next = self.fetch_beat.val().get_bits::<32>(96);
                                self.cons_c.d.next = self.fetch_beat.val().get_bits::<32>(128);
                                self.cons_m.d.next = self.fetch_beat.val().get_bits::<32>(160);
                                self.cons_prev.d.next = self.fetch_beat.val().get_bits::<32>(192);
                                self.x_t.d.next = self.fetch_beat.val().get_bits::<8>(32);
                            }
                        } else {
                            self.nv_ok.d.next = false;
                        }
                    }
                }
                if self.fetch_done.val() {
                    // (A certificate exactly when a SEAL carries an L, of
                    // replicas below n.)
                    if !self.fetch_error.val()
                        & self.nv_ok.q.val()
                        & (self.cnt.q.val() == self.support.val())
                        & (self.seen.q.val() == self.sb.q.val())
                        & (self.has_l.q.val() == (self.cb.q.val() != 0))
                        & ((bit_cast::<16, 8>(self.cb.q.val()) >> self.n.val()) == 0)
                    {
                        self.p.d.next = 0.into();
                        self.state.d.next = ViewSt::ViewNext;
                    } else {
                        // Malformed, or torn: a miss (recovery.md V5).
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        } else {
                            self.state.d.next = ViewSt::ViewPollNv;
                        }
                    }
                }
            }
            ViewSt::ViewInstall => {
                // R22: votes from here on are cast in this view, and LEADER
                // starts. With a carried value (c*, m*): at k = c* the
                // constraint; at k = c* + 1, R23: c* was decided here, so
                // m* must be dec[c*] and prev* dec[c* - 1], and the replica
                // steps back to rerun c*; at c* - 1, R24 from the
                // certificate; below, catch-up (ViewPollCatch); above c* + 1
                // nothing is carried to it.
                self.state.d.next = ViewSt::Off;
                if !self.has_l.q.val() {
                    self.open_round.next = true;
                    self.start_leader.next = true;
                } else if self.k.val() == self.cons_c.q.val() {
                    self.open_round.next = true;
                    self.start_leader.next = true;
                    self.cons_set.next = true;
                } else if self.k.val() == (self.cons_c.q.val() + 1) {
                    if (self.prev.val() == self.cons_m.q.val())
                        & (!self.prev2_ok.val() | (self.prev2.val() == self.cons_prev.q.val()))
                    {
                        self.open_round.next = true;
                        self.start_leader.next = true;
                        self.cons_set.next = true;
                        self.step_back.next = true;
                    } else {
                        // R23's check fails: refuse (R14).
                        self.state.d.next = ViewSt::ViewStart;
                    }
                } else if (self.k.val() + 1) == self.cons_c.q.val() {
                    // R24 from the NEW_VIEW's certificate: an honest
                    // certifier of c* decided prev* at c* - 1. Protocol
                    // decides k as prev* (emitted: this replica had not
                    // decided it), then starts LEADER at c* under the
                    // constraint.
                    self.open_round.next = true;
                    self.cons_set.next = true;
                    self.decide_prev.next = true;
                } else if self.k.val() < self.cons_c.q.val() {
                    // Catch-up: WATCH's ABOVE (R24) and FULL_ROW (R26),
                    // granted in ViewPollCatch, move k up to c* - 1.
                    self.open_round.next = true;
                    self.state.d.next = ViewSt::ViewPollCatch;
                } else {
                    self.open_round.next = true;
                    self.start_leader.next = true;
                }
            }
            ViewSt::ViewPollCatch => {
                if self.seal_grant.val() {
                    // R14: f + 1 replicas sealed the installed view.
                    self.state.d.next = ViewSt::ViewStart;
                } else if self.catch_grant.val() {
                    // Protocol decides k from WATCH's event this cycle.
                    self.catch_k.d.next = self.k.val();
                    self.state.d.next = ViewSt::ViewCatchNext;
                } else {
                    // A one-beat poll of new_view: nothing to find (the
                    // NEW_VIEW is installed), but each is a miss towards
                    // T_vc, so a catch-up that stalls seals the view.
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.new_view_word.val();
                    self.fetch_len.next = 0.into();
                    self.state.d.next = ViewSt::ViewWaitCatch;
                }
            }
            ViewSt::ViewWaitCatch => {
                if self.fetch_done.val() {
                    self.missed.next = true;
                    if self.expiring.val() {
                        self.state.d.next = ViewSt::ViewStart;
                    } else {
                        self.state.d.next = ViewSt::ViewPollCatch;
                    }
                }
            }
            ViewSt::ViewCatchNext => {
                if !self.running.val() {
                    self.state.d.next = ViewSt::Off;
                } else if self.k.val() != self.catch_k.q.val() {
                    self.state.d.next = ViewSt::ViewInstall;
                }
            }
            ViewSt::ViewAwaitNext => {
                // The same wait while awaiting a NEW_VIEW: then back to
                // the poll it left, the new leader's or a follower's.
                if !self.running.val() {
                    self.state.d.next = ViewSt::Off;
                } else if self.k.val() != self.catch_k.q.val() {
                    self.state.d.next = self.await_back.val();
                }
            }
            ViewSt::ViewJump => {
                // R14: NEW_VIEW(v') of a later view passed R21 and R22.
                // Step the view up to v' - 1 without a SEAL, then seal
                // v' - 1 from ViewStart (the bridge first, if W is
                // uncovered), which moves to v' and reads NEW_VIEW(v')
                // again, now the awaited one.
                if (self.view_no.val() + 1) < self.nv_view.q.val() {
                    self.step_view.next = true;
                } else {
                    self.state.d.next = ViewSt::ViewStart;
                }
            }
            ViewSt::ViewDeliver => {
                // SLOW holds the slot (deliver mode): it decides k (R25)
                // or yields; then back to the poll it left, or, if T_vc
                // ran out on SLOW's last miss, the next view.
                if !self.running.val() {
                    self.state.d.next = ViewSt::Off;
                } else if self.k.val() != self.catch_k.q.val() {
                    self.state.d.next = self.await_back.val();
                } else if self.slow_done.val() {
                    if self.expiring.val() & !self.lead.q.val() {
                        self.state.d.next = ViewSt::ViewStart;
                    } else {
                        self.state.d.next = self.await_back.val();
                    }
                }
            }
            ViewSt::ViewBridge => {
                // SLOW holds the slot (seal mode) until it yields.
                if self.slow_done.val() {
                    self.clear_wait.next = true;
                    self.state.d.next = ViewSt::ViewTurn;
                }
            }
            ViewSt::ViewPollCert => {
                // commit[s(c*)][x_T]: K*, bitmap at word 8, x_T's
                // signature, the f + 1 shares (f + 3 beats).
                self.fetch_start.next = true;
                self.fetch_word.next = self.cert_word.val();
                self.fetch_len.next = self.support.val() + 1;
                self.beat_i.d.next = 0.into();
                self.nv_ok.d.next = true;
                self.state.d.next = ViewSt::ViewWaitCert;
            }
            ViewSt::ViewWaitCert => {
                // Beat 0 must be K* with a bitmap of replicas below n; the
                // shares (beats 2 to f + 2) go into COMPOSE beats 2f + 3
                // to 3f + 3, the NEW_VIEW's certificate.
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next =
                    self.beat_i.q.val().get_bits::<4>(0) + bit_cast::<4, 5>(self.sup2.val()) - 1;
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.beat_i.q.val() == 0 {
                        self.cb.d.next = self.fetch_hi.val();
                        if (self.fetch_beat.val() != self.kstar.val())
                            | ((bit_cast::<16, 8>(self.fetch_hi.val()) >> self.n.val()) != 0)
                        {
                            self.nv_ok.d.next = false;
                        }
                    } else if self.beat_i.q.val() >= 2 {
                        self.cp_wr_en.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = ViewSt::ViewStart;
                        } else {
                            self.state.d.next = ViewSt::ViewPollCert;
                        }
                    } else if self.nv_ok.q.val() {
                        self.rd.d.next = false;
                        self.sent.d.next = false;
                        self.state.d.next = ViewSt::ViewVerifyCert;
                    } else {
                        // x_T's COMMIT is not its L: x_T's SEAL is not
                        // taken again in this view.
                        self.missed.next = true;
                        self.failed.d.next =
                            self.failed.q.val() | (self.one8.val() << self.x_t.q.val());
                        if self.expiring.val() | (self.x_t.q.val() == self.id.val()) {
                            self.state.d.next = ViewSt::ViewStart;
                        } else {
                            self.state.d.next = ViewSt::ViewPollSeals;
                        }
                    }
                }
            }
            ViewSt::ViewVerifyCert => {
                // R19, R22: each signer j of cb in turn, its share (COMPOSE
                // beat 2f + 3 + ci) verified over C* under j; the leader
                // trusts its own COMMIT's shares (x_T = id). Exactly f + 1.
                self.cp_first.next =
                    bit_cast::<4, 5>(self.sup2.val()) + 1 + self.ci.q.val().get_bits::<4>(0);
                self.blk_out.next = self.cstar.val();
                self.sg_blk.next = true;
                self.sg_signer.next = self.sj.q.val();
                if !self.sent.q.val() {
                    if self.sj.q.val() >= self.n.val() {
                        if self.ci.q.val() == self.support.val() {
                            if self.lead.q.val() {
                                self.sent.d.next = true;
                                self.state.d.next = ViewSt::ViewSendNv;
                            } else if self.nv_view.q.val() != self.view_no.val() {
                                // R14: a later view's NEW_VIEW passed.
                                self.state.d.next = ViewSt::ViewJump;
                            } else {
                                self.state.d.next = ViewSt::ViewInstall;
                            }
                        } else {
                            // Not f + 1 valid shares over C*: the leader
                            // drops x_T's SEAL (ViewWaitCert); a follower
                            // misses (recovery.md V5).
                            self.missed.next = true;
                            if self.lead.q.val() {
                                self.failed.d.next =
                                    self.failed.q.val() | (self.one8.val() << self.x_t.q.val());
                                self.state.d.next = ViewSt::ViewPollSeals;
                                if self.x_t.q.val() == self.id.val() {
                                    self.state.d.next = ViewSt::ViewStart;
                                }
                            } else {
                                self.nv_once.d.next = true;
                                self.state.d.next = ViewSt::ViewPollNv;
                                if self.nv_once.q.val() {
                                    // Failed twice: refused.
                                    self.state.d.next = ViewSt::ViewStart;
                                }
                            }
                            if self.expiring.val() {
                                self.state.d.next = ViewSt::ViewStart;
                            }
                        }
                    } else if (self.cb.q.val() & (self.one8.val() << self.sj.q.val())) == 0 {
                        self.sj.d.next = self.sj.q.val() + 1;
                    } else if self.ci.q.val() == self.support.val() {
                        // More than f + 1 signers: malformed.
                        self.sj.d.next = self.n.val();
                        self.ci.d.next = 0.into();
                    } else if self.lead.q.val() & (self.x_t.q.val() == self.id.val()) {
                        self.ci.d.next = self.ci.q.val() + 1;
                        self.sj.d.next = self.sj.q.val() + 1;
                    } else if !self.rd.q.val() {
                        // COMPOSE reads the share at this edge.
                        self.rd.d.next = true;
                    } else if !self.sg_busy.val() {
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    self.sent.d.next = false;
                    self.rd.d.next = false;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        self.ci.d.next = self.ci.q.val() + 1;
                        self.sj.d.next = self.sj.q.val() + 1;
                    } else {
                        self.bad_share.next = true;
                        self.sj.d.next = self.n.val();
                        self.ci.d.next = 0.into();
                    }
                }
            }
            _ => {
                self.state.d.next = ViewSt::Off;
            }
        }
        if self.hold.val()
            & self.catch_poll.val()
            & !self.catch_grant.val()
            & !self.seal_grant.val()
        {
            self.fetch_start.next = false;
            self.fetch_word.next = 0.into();
            self.fetch_len.next = 0.into();
            self.missed.next = false;
            self.clear_wait.next = false;
            self.state.d.next = self.state.q.val();
        }
        if !self.rst_n.val() {
            self.state.d.next = ViewSt::Off;
        }
        match self.state.q.val() {
            ViewSt::ViewStart => {
                self.sts_state.next = 66.into();
            }
            ViewSt::ViewTurn => {
                self.sts_state.next = 67.into();
            }
            ViewSt::ViewSignSeal => {
                self.sts_state.next = 68.into();
            }
            ViewSt::ViewSendSeal => {
                self.sts_state.next = 69.into();
            }
            ViewSt::ViewPollSeals => {
                self.sts_state.next = 70.into();
            }
            ViewSt::ViewWaitSeals => {
                self.sts_state.next = 71.into();
            }
            ViewSt::ViewNext => {
                self.sts_state.next = 72.into();
            }
            ViewSt::ViewLoad => {
                self.sts_state.next = 73.into();
            }
            ViewSt::ViewVerify => {
                self.sts_state.next = 74.into();
            }
            ViewSt::ViewPollOwnEcho => {
                self.sts_state.next = 75.into();
            }
            ViewSt::ViewWaitOwnEcho => {
                self.sts_state.next = 76.into();
            }
            ViewSt::ViewSendEchoSeal => {
                self.sts_state.next = 77.into();
            }
            ViewSt::ViewPollEchoCommit => {
                self.sts_state.next = 78.into();
            }
            ViewSt::ViewWaitEchoCommit => {
                self.sts_state.next = 79.into();
            }
            ViewSt::ViewVerifySuspect => {
                self.sts_state.next = 80.into();
            }
            ViewSt::ViewSendNv => {
                self.sts_state.next = 81.into();
            }
            ViewSt::ViewPollNv => {
                self.sts_state.next = 82.into();
            }
            ViewSt::ViewWaitNv => {
                self.sts_state.next = 83.into();
            }
            ViewSt::ViewPollNvRec => {
                self.sts_state.next = 84.into();
            }
            ViewSt::ViewWaitNvRec => {
                self.sts_state.next = 85.into();
            }
            ViewSt::ViewInstall => {
                self.sts_state.next = 86.into();
            }
            ViewSt::ViewBridge => {
                self.sts_state.next = 87.into();
            }
            ViewSt::ViewPollCert => {
                self.sts_state.next = 88.into();
            }
            ViewSt::ViewWaitCert => {
                self.sts_state.next = 89.into();
            }
            ViewSt::ViewVerifyCert => {
                self.sts_state.next = 90.into();
            }
            ViewSt::ViewPollCatch => {
                self.sts_state.next = 91.into();
            }
            ViewSt::ViewWaitCatch => {
                self.sts_state.next = 92.into();
            }
            ViewSt::ViewCatchNext => {
                self.sts_state.next = 93.into();
            }
            ViewSt::ViewAwaitNext => {
                self.sts_state.next = 94.into();
            }
            ViewSt::ViewDeliver => {
                self.sts_state.next = 96.into();
            }
            ViewSt::ViewJump => {
                self.sts_state.next = 101.into();
            }
            ViewSt::ViewPollRemote => {
                self.sts_state.next = 105.into();
            }
            ViewSt::ViewWaitRemote => {
                self.sts_state.next = 106.into();
            }
            ViewSt::ViewLateShare => {
                self.sts_state.next = 107.into();
            }
            ViewSt::ViewPollHelp => {
                self.sts_state.next = 108.into();
            }
            ViewSt::ViewWaitHelp => {
                self.sts_state.next = 109.into();
            }
            ViewSt::ViewHelpShare => {
                self.sts_state.next = 110.into();
            }
            _ => {
                self.sts_state.next = 0.into();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The install and catch-up transitions, one `update` at a time: the
    //! registers and inputs are set, and the next state and the outputs are
    //! read from what `update` drives (as `VIEW::reported` does for the
    //! state register).
    use super::*;

    /// A VIEW in `st` with an accepted NEW_VIEW carrying c* (`has_l`),
    /// at slot k, Protocol running.
    fn at(st: ViewSt, k: u32, c_star: u32) -> View {
        let mut b = View::default();
        b.rst_n.next = true;
        b.rst_n.update_all();
        b.state.q.next = st;
        b.state.q.update_all();
        b.has_l.q.next = true;
        b.has_l.q.update_all();
        b.cons_c.q.next = (c_star as u64).into();
        b.cons_c.q.update_all();
        b.cons_prev.q.next = 0xbeef.into();
        b.cons_prev.q.update_all();
        b.k.next = (k as u64).into();
        b.k.update_all();
        b.running.next = true;
        b.running.update_all();
        b
    }

    fn step(b: &mut View) -> ViewSt {
        b.update();
        b.state.d.next
    }

    #[test]
    fn an_install_below_c_star_minus_1_catches_up_and_at_c_star_minus_1_decides_prev_star() {
        // k + 1 < c*: catch-up, in the new view (open_round), nothing
        // started, nothing decided.
        let mut b = at(ViewSt::ViewInstall, 4, 7);
        assert_eq!(step(&mut b), ViewSt::ViewPollCatch);
        assert!(b.open_round.next && !b.start_leader.next && !b.decide_prev.next);
        // k + 1 = c*: R24 from the NEW_VIEW's certificate: decide k as
        // prev*, set the constraint for c*, and go Off (Protocol starts
        // LEADER at c* after the decision).
        let mut b = at(ViewSt::ViewInstall, 6, 7);
        assert_eq!(step(&mut b), ViewSt::Off);
        assert!(b.decide_prev.next && b.cons_set.next && b.open_round.next);
        assert!(!b.start_leader.next);
        assert_eq!(b.cons_prev_out.next, Bits::<32>::from(0xbeef));
        // k = c* and k > c* + 1 are as before: LEADER starts.
        for k in [7, 9] {
            let mut b = at(ViewSt::ViewInstall, k, 7);
            assert_eq!(step(&mut b), ViewSt::Off);
            assert!(b.start_leader.next && !b.decide_prev.next, "k = {k}");
        }
    }

    #[test]
    fn catch_up_polls_for_t_vc_takes_a_grant_and_looks_again_when_k_moves() {
        // ViewPollCatch: a one-beat poll of new_view, WATCH on, a poll point.
        let mut b = at(ViewSt::ViewPollCatch, 4, 7);
        assert_eq!(step(&mut b), ViewSt::ViewWaitCatch);
        assert!(b.fetch_start.next && b.catching.next && b.catch_poll.next);
        assert_eq!(b.fetch_len.next, Bits::<8>::from(0));
        // A grant: no fetch; k is kept to see the decision land.
        let mut b = at(ViewSt::ViewPollCatch, 4, 7);
        b.catch_grant.next = true;
        b.catch_grant.update_all();
        assert_eq!(step(&mut b), ViewSt::ViewCatchNext);
        assert!(!b.fetch_start.next);
        assert_eq!(b.catch_k.d.next, Bits::<32>::from(4));
        // The poll's answer is a miss; at T_vc the view is sealed again.
        let mut b = at(ViewSt::ViewWaitCatch, 4, 7);
        b.fetch_done.next = true;
        b.fetch_done.update_all();
        assert_eq!(step(&mut b), ViewSt::ViewPollCatch);
        assert!(b.missed.next && b.catching.next && !b.catch_poll.next);
        b.expiring.next = true;
        b.expiring.update_all();
        assert_eq!(step(&mut b), ViewSt::ViewStart);
        // ViewCatchNext waits for k to move, then installs again (k against
        // c*); it goes Off if Protocol stops (the run's last slot decided).
        let mut b = at(ViewSt::ViewCatchNext, 4, 7);
        b.catch_k.q.next = 4.into();
        b.catch_k.q.update_all();
        assert_eq!(step(&mut b), ViewSt::ViewCatchNext);
        b.k.next = 5.into();
        b.k.update_all();
        assert_eq!(step(&mut b), ViewSt::ViewInstall);
        b.running.next = false;
        b.running.update_all();
        assert_eq!(step(&mut b), ViewSt::Off);
    }

    #[test]
    fn awaiting_a_new_view_takes_grants_and_the_trigger_at_its_polls() {
        for (poll, wait, lead) in [
            (ViewSt::ViewPollNv, ViewSt::ViewWaitNv, false),
            (ViewSt::ViewPollSeals, ViewSt::ViewWaitSeals, true),
        ] {
            // No event: the machine's own fetch, WATCH on, a poll point.
            let mut b = at(poll, 4, 7);
            b.lead.q.next = lead;
            b.lead.q.update_all();
            assert_eq!(step(&mut b), wait);
            assert!(b.fetch_start.next && b.catching.next && b.catch_poll.next);
            // While the fetch runs WATCH stays on, but nothing is granted.
            let mut w = at(wait, 4, 7);
            w.update();
            assert!(w.catching.next && !w.catch_poll.next, "{wait:?}");
            // ABOVE or FULL_ROW: Protocol decides k; no fetch; k is kept.
            b.catch_grant.next = true;
            b.catch_grant.update_all();
            assert_eq!(step(&mut b), ViewSt::ViewAwaitNext);
            assert!(!b.fetch_start.next);
            assert_eq!(b.catch_k.d.next, Bits::<32>::from(4));
            // ViewAwaitNext: back to the same poll once k moved.
            let mut n = at(ViewSt::ViewAwaitNext, 4, 7);
            n.lead.q.next = lead;
            n.lead.q.update_all();
            n.catch_k.q.next = 4.into();
            n.catch_k.q.update_all();
            assert_eq!(step(&mut n), ViewSt::ViewAwaitNext);
            n.k.next = 5.into();
            n.k.update_all();
            assert_eq!(step(&mut n), poll);
            n.running.next = false;
            n.running.update_all();
            assert_eq!(step(&mut n), ViewSt::Off);
            // SEALS (R14): seal the view.
            let mut t = at(poll, 4, 7);
            t.seal_grant.next = true;
            t.seal_grant.update_all();
            assert_eq!(step(&mut t), ViewSt::ViewStart);
            assert!(!t.fetch_start.next);
        }
        // The trigger in ViewPollCatch too.
        let mut t = at(ViewSt::ViewPollCatch, 4, 7);
        t.seal_grant.next = true;
        t.seal_grant.update_all();
        assert_eq!(step(&mut t), ViewSt::ViewStart);
    }
}
