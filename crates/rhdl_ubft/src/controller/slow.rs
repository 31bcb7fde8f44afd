//! SLOW: the kernel's SLOW machine, R7 to R12.
//!
//! Protocol (`Protocol::new`, `kernel::Kernel`) hands a slot to
//! this machine where FAST times out holding it (FastWaitCert with phase 1:
//! locked; FastWaitCommit with phase 2: delivered fast). docs/recovery.md
//! D10 designs the slow path; this block builds R7 to R12 (docs/slow.md,
//! "Departures from recovery.md"):
//!
//! - R7: the view's leader signs its PREPARE's PREP block B = [1, v, k, m,
//!   prev, 0, 0, 0] and writes prep_sig[s(k)] (B, then the signature: two
//!   beats) into every replica's mailbox;
//! - R8, slow delivery (phase 1): read prep_sig[s(k)]; its block must be B
//!   (the value this replica locked, prev = its dec[k - 1]) and its
//!   signature the leader's (SignerPort `verify`; a failure is a miss the
//!   first time, since a read may be torn, and refuses the slot the second,
//!   `prep_torn`: an honest leader writes one prep_sig per (v, k)); write it to
//!   echo_prep[s(k)][id] in a round (R13), then read the echo_prep row: an
//!   entry j of the same (PREP, v, k) with another block is a suspect, and
//!   a suspect whose signature verifies as the leader's proves that the
//!   leader equivocated (the slot is refused); one that does not verify is
//!   passed over (`checked`) and the row read again;
//! - R5 while undelivered (phase 1, `locks_ok`): between two reads of
//!   prep_sig that find nothing, read the will_cert row; n locks
//!   (`locks`) deliver the slot: will_commit (`set_w`), then R9. While
//!   bridging (seal mode), once after a miss at W's certify row: n locks
//!   certify the slot itself (`sharing`), with no will_commit (R15, R16);
//! - R9: having delivered (R5 or R8), sign the CERT block C = [2, v, k, m,
//!   prev, 0, 0, 0] and write certify[s(k)][id] (C, then the share);
//! - R10: read the certify row (2N beats); an entry j < n whose first beat
//!   is C, j not in `bad`, is a candidate while fewer than f + 1 are taken:
//!   its share goes into COMPOSE beat 2 + c (ascending replica order) and
//!   bit j into `bm`. With f + 1, verify over C each copied share that is
//!   not its own and not in `verified`, read back from COMPOSE (`sg_compose`,
//!   `cp_rd_data`); one that fails (`bad_share`, a miss) makes the row be
//!   read again, and goes into `bad` at its second failure (`torn` holds
//!   the first: a read may be torn). Then sign K = [3, id, v, k, m, prev, 0, 0]
//!   and write commit[s(k)][id]: K with `bm` at word 8, the signature, the
//!   f + 1 shares (3 + f beats). Its own COMMIT counts as delivered;
//! - R11: for each peer x (x < n, not delivered, not vetoed) in turn,
//!   fetch commit[s(k)][x]'s first two beats. The block must be K with
//!   j = x (only COMMITs of this replica's block count; their shares are
//!   not verified again: this replica verified f + 1 over C in R10). x's
//!   signature goes into COMPOSE beat 15 and is verified under x (a
//!   failure is a miss; at x's second this slot, `ctorn` holding the
//!   first, x goes into `vetoed` and is passed over); then it
//!   is echoed in a round to echo_commit[x][id] (no "if higher" check: one
//!   view only), and seal[x] and the echo_seal[x][*] row are read: a SEAL
//!   of x (kind 4, word 1 = x) for a view >= the current one whose
//!   signature verifies under x vetoes x; one that does not verify is
//!   passed over (`checked`). Otherwise x's COMMIT is delivered;
//! - R12: f + 1 delivered COMMITs (its own included) decide the slot
//!   (`decide`: Protocol decides it with its m, on the slow path).
//!
//! A SEAL whose signature fails is read again before it is passed over
//! (`retry`): a read may be torn, the block of a write landing during the
//! burst with the signature of the write before (docs/slow.md).
//!
//! While the machine holds the slot Protocol runs WATCH; a full will_commit
//! row for k (R26), or f + 1 CERT blocks of k + 1 with one prev (R24),
//! makes Protocol take the slot back with `abort`, which the machine
//! honours at a poll state (`at_poll`) and goes Off. A peer's COMMIT of
//! k above L, of a later view or of this one before the machine delivered
//! k (`undelivered`; R10's second half), makes Protocol raise `adopt`
//! there: adopt mode on its block D (SlowPollRecord), and
//! after its own COMMIT of D, R11 and R12 on D; a certificate that fails
//! takes the machine back to the poll state it left (`back`), as one in
//! a peer's COMMIT record does while bridging.
//!
//! Seal mode (`seal_start` with `start`: VIEW's bridge, R17, or
//! Protocol's Close after the run's last decision, R28): the target
//! is Protocol's W, whose blocks and addresses Protocol muxes in while
//! `seal_mode` is high. The machine goes from SlowStart to SlowSignCert (W was
//! delivered), runs R9 and R10 on W, and after SlowSendCommit goes Off with
//! `stop`, which Protocol hands to VIEW as a yield (in Close, it ends
//! Close); it ignores `expiring` (the bridge has no timer; Close's timer
//! is Protocol's, which aborts it) and never decides. With `share_start`
//! too (VIEW's `call_share`: R16's share of W with no obligation, the
//! Ledger's `share_due`) it signs and writes W's CERT share and goes Off
//! with `stop` after SlowSendCert, reading nothing.
//!
//! When a wait times out, a signature of its own or a round fails, or the
//! slot is refused, it hands the slot back with `stop`, and Protocol
//! starts the v3 view change (crate::controller::view).
//!
//! States (`sts_state` number, as in `status::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | SlowStart |
//! | 40 | SlowStart | adopt mode / deliver mode / seal mode / the view's leader / phase 2 / else | SlowPollRecord / SlowPollCommit (x := 0, nothing delivered) / SlowSignCert / SlowSignPrep (SignerPort `sign` of B) / SlowSignCert / SlowPollPrepSig |
//! | 41 | SlowSignPrep | the signer's response: OK / an error | SlowSendPrepSig (COMPOSE beat 1 := the signature) / Off, `stop` |
//! | 42 | SlowSendPrepSig | (first cycle: Broadcast and COMPOSE start) Broadcast's `done` | phase 2: SlowSignCert; else SlowPollPrepSig |
//! | 43 | SlowPollPrepSig | (fetch of prep_sig[s(k)], two beats) | SlowWaitPrepSig |
//! | 44 | SlowWaitPrepSig | the fetch is done: beat 0 is B and the signer is free / not / not, and it times out | SlowVerifyPrep (SignerPort `verify` of beat 1 under the leader; COMPOSE beat 1 := beat 1) / SlowPollPrepSig (a miss) / Off, `stop` |
//! | 45 | SlowVerifyPrep | the response: OK / an error / an error, and it times out | SlowEchoPrep (a round of B and the signature to echo_prep[s(k)][id]) / SlowPollPrepSig (a miss, `bad_share`, `prep_torn`); Off, `stop` if it failed before (forged: R8 refuses) / Off, `stop` |
//! | 46 | SlowEchoPrep | `round_done` / `round_error` | SlowPollEchoPrep / Off, `stop` |
//! | 47 | SlowPollEchoPrep | (fetch of the echo_prep row, 2N beats) | SlowWaitEchoPrep |
//! | 48 | SlowWaitEchoPrep | the fetch is done: no suspect / a suspect (kept: its block and signature) / an error | SlowSignCert (delivered) / SlowVerifySuspect / SlowPollEchoPrep |
//! | 49 | SlowVerifySuspect | the response: OK / an error | Off, `stop` (refused: the leader equivocated) / SlowPollEchoPrep (`checked` := the suspect) |
//! | 50 | SlowSignCert | the signer's response: OK / an error | SlowSendCert (COMPOSE beat 1 := the share) / Off, `stop` |
//! | 51 | SlowSendCert | (first cycle: Broadcast and COMPOSE start) Broadcast's `done`: share only / else | Off, `stop` (a yield) / SlowPollCertify |
//! | 52 | SlowPollCertify | (fetch of the certify row, 2N beats; c, `bm` := 0) | SlowWaitCertify |
//! | 53 | SlowWaitCertify | the fetch is done: an error / f + 1 candidates (shares copied as they arrived) / fewer / fewer, and it times out | SlowPollCertify / SlowVerifyShare / SlowPollCertify (a miss; adopting from the row: Off, `stop`) / Off, `stop` |
//! | 54 | SlowVerifyShare | every j < n taken in turn / a share's response: OK / an error / an error, and it times out | SlowSignCommit (adopt mode: Off, `stop` unless f + 1 were taken; in normal mode and from a record while bridging `back` instead) / the next j (`verified` += j) / SlowPollCertify (`torn` += j, or `bad` += j if j failed before; `bad_share`, a miss; adopt mode: SlowPollRecord, from the row SlowPollCertify, or, if j failed before, Off, `stop` (from a record while bridging `back`); in normal mode `back` at the first failure) / Off, `stop` |
//! | 55 | SlowSignCommit | the signer's response (`sign` of K): OK / an error | SlowSendCommit (COMPOSE beat 1 := the signature) / Off, `stop` |
//! | 56 | SlowSendCommit | (first cycle: Broadcast and COMPOSE start, 3 + f beats) Broadcast's `done`: seal mode / f + 1 = 1 / else | Off, `stop` (a yield) / Off, `decide` / SlowPollCommit (`delivered` := {id}, x := 0) |
//! | 57 | SlowPollCommit | x >= n / x delivered or vetoed / else | SlowPollCommit (x := 0, a miss; Off, `stop` if it times out, and in deliver mode at once) / SlowPollCommit (x + 1) / SlowWaitCommit (fetch of commit[s(k)][x], two beats) |
//! | 58 | SlowWaitCommit | the fetch is done: beat 0 is K with j = x / not / not, and it times out | SlowVerifyCommit (beat 1 in COMPOSE beat 15) / SlowPollCommit (x + 1, a miss) / Off, `stop` |
//! | 59 | SlowVerifyCommit | the response (`verify` under x, signature from COMPOSE beat 15): OK / an error / an error, and it times out | SlowPollOwnEcho / SlowPollCommit (x + 1, `bad_share`, a miss; `ctorn` += x, or `vetoed` += x if x failed before) / Off, `stop` |
//! | 97 | SlowPollOwnEcho | (fetch of its own echo_commit[x][id], one beat) | SlowWaitOwnEcho |
//! | 98 | SlowWaitOwnEcho | the fetch is done: the entry holds a COMMIT of x higher than the one verified (k, then view) / else, or an error | SlowPollSeal (R11.2's "if higher": not echoed) / SlowEchoCommit |
//! | 99 | SlowPollRecord | (adopt mode: fetch of D's record commit[s(D.k)][x], 3 + f beats; `verified` := none) | SlowWaitRecord |
//! | 100 | SlowWaitRecord | the fetch is done: beat 0 is D's COMMIT block of x with a signer bitmap below n (the shares copied into COMPOSE beats 2 to f + 2 as they arrived) / not, or an error | SlowVerifyShare / Off, `stop` (a miss; in normal mode and while bridging `back` instead) |
//! | 102 | SlowPollLocks | (fetch of the slot's will_cert row, one beat: R5 while undelivered in normal mode, after a miss at prep_sig; R16 while bridging, after a miss at the certify row, once) | SlowWaitLocks |
//! | 103 | SlowWaitLocks | the fetch is done: n locks (`locks`), bridging / n locks, normal mode / fewer, bridging / fewer, normal mode (a miss) / the same, and it times out | SlowSignCert (`sharing`: the slot's CERT, no will_commit) / SlowSendVote (`set_w`, will_commit broadcast) / SlowPollCertify / SlowPollPrepSig / Off, `stop` |
//! | 104 | SlowSendVote | Broadcast's `done` (the will_commit written) | SlowSignCert (R9, as from phase 2) |
//! | 60 | SlowEchoCommit | (first cycle: a round to echo_commit[x][id], the block and COMPOSE beat 15) `round_done` / `round_error` | SlowPollSeal / Off, `stop` |
//! | 61 | SlowPollSeal | (fetch of seal[x], two beats) | SlowWaitSeal |
//! | 62 | SlowWaitSeal | the fetch is done: an error / a SEAL of x (kept) / none | SlowPollSeal / SlowVerifySeal / SlowPollEchoSeal |
//! | 63 | SlowPollEchoSeal | (fetch of the echo_seal[x] row, 2N beats) | SlowWaitEchoSeal |
//! | 64 | SlowWaitEchoSeal | the fetch is done: an error / a SEAL of x above `checked` (kept) / none, and f + 1 delivered / none, fewer | SlowPollEchoSeal / SlowVerifySeal / Off, `decide` / SlowPollCommit (`delivered` += x, x + 1) |
//! | 65 | SlowVerifySeal | the response (`verify` of the kept SEAL under x): OK / an error, the SEAL's first / an error, its second | SlowPollCommit (`vetoed` += x, x + 1) / read again (`retry`): SlowPollSeal or SlowPollEchoSeal / SlowPollEchoSeal (`checked` := j, or the row from its start after seal[x]) |
//!
//! Requests to Protocol: `sg_sign` (C; B with `sg_prep`; K with
//! `sg_commit`), `sg_verify` (B with `sg_prep` and the fetched beat as the
//! signature; the suspect's block and signature with `sg_sus`; C, or K with
//! `sg_commit`, and COMPOSE's beat `cp_first` as the signature with
//! `sg_compose`), `sg_signer`, `sg_resp_take`; `cp_wr_en` with
//! `cp_wr_beat` (the signer's response, or with `cp_from_fetch` the fetched
//! beat); `cp_start` with `cp_first`, `cp_last` (with Broadcast's start);
//! `bc_start` with `bc_prep_sig` (beat 0 is B), `bc_cert` (C), `bc_commit`
//! (K and `bitmap`, f + 3 beats) or `bc_echo_commit` (`commit_block` with
//! `blk_j` = x), and `bc_round` for the echoes; `fetch_start` with
//! `fetch_pair` (two beats) or `fetch_row` (2N beats); `missed`,
//! `clear_wait`, `bad_share`; `stop`, `decide`.
//!
//! Timing: a request leaves in the cycle its state is entered when the
//! signer can take it (`sg_busy` low: one at a time). A fetched record is
//! checked beat by beat as it arrives; the verify of prep_sig leaves with
//! the fetch's `done` (beat 1 is its signature). A verify whose signature
//! is in COMPOSE waits a cycle for COMPOSE's read (`rd`). Broadcast and
//! COMPOSE start together, the cycle after COMPOSE's beat 1 was written.
//! Handovers are combinational. On v3 `wait_polls` must exceed a signer
//! step counted in polls: a replica waiting for a peer's record misses on
//! every poll while the peer's signer works.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use rust_hdl::prelude::*;

/// SLOW's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum SlowSt {
    Off,
    SlowStart,
    SlowSignPrep,
    SlowSendPrepSig,
    SlowPollPrepSig,
    SlowWaitPrepSig,
    SlowVerifyPrep,
    SlowEchoPrep,
    SlowPollEchoPrep,
    SlowWaitEchoPrep,
    SlowVerifySuspect,
    SlowSignCert,
    SlowSendCert,
    SlowPollCertify,
    SlowWaitCertify,
    SlowVerifyShare,
    SlowSignCommit,
    SlowSendCommit,
    SlowPollCommit,
    SlowWaitCommit,
    SlowVerifyCommit,
    SlowEchoCommit,
    SlowPollSeal,
    SlowWaitSeal,
    SlowPollEchoSeal,
    SlowWaitEchoSeal,
    SlowVerifySeal,
    /// (Numbered 97 and 98, after the others.)
    SlowPollOwnEcho,
    SlowWaitOwnEcho,
    SlowPollRecord,
    SlowWaitRecord,
    /// (Numbered 102 to 104.)
    SlowPollLocks,
    SlowWaitLocks,
    SlowSendVote,
}

/// Every state, in declaration order.
pub const SLOW_STATES: [SlowSt; 34] = [
    SlowSt::Off,
    SlowSt::SlowStart,
    SlowSt::SlowSignPrep,
    SlowSt::SlowSendPrepSig,
    SlowSt::SlowPollPrepSig,
    SlowSt::SlowWaitPrepSig,
    SlowSt::SlowVerifyPrep,
    SlowSt::SlowEchoPrep,
    SlowSt::SlowPollEchoPrep,
    SlowSt::SlowWaitEchoPrep,
    SlowSt::SlowVerifySuspect,
    SlowSt::SlowSignCert,
    SlowSt::SlowSendCert,
    SlowSt::SlowPollCertify,
    SlowSt::SlowWaitCertify,
    SlowSt::SlowVerifyShare,
    SlowSt::SlowSignCommit,
    SlowSt::SlowSendCommit,
    SlowSt::SlowPollCommit,
    SlowSt::SlowWaitCommit,
    SlowSt::SlowVerifyCommit,
    SlowSt::SlowEchoCommit,
    SlowSt::SlowPollSeal,
    SlowSt::SlowWaitSeal,
    SlowSt::SlowPollEchoSeal,
    SlowSt::SlowWaitEchoSeal,
    SlowSt::SlowVerifySeal,
    SlowSt::SlowPollOwnEcho,
    SlowSt::SlowWaitOwnEcho,
    SlowSt::SlowPollRecord,
    SlowSt::SlowWaitRecord,
    SlowSt::SlowPollLocks,
    SlowSt::SlowWaitLocks,
    SlowSt::SlowSendVote,
];

/// The signed block's width (`layout::records::BLOCK_BITS`).
const BB: usize = crate::layout::records::BLOCK_BITS;

#[derive(LogicBlock)]
pub struct Slow {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    /// Protocol takes the slot back (a decision WATCH found, R26): honoured
    /// in a poll state (`at_poll`), where nothing is in flight; the machine
    /// goes Off the next cycle and starts no fetch.
    pub abort: Signal<In, Bit>,
    /// Protocol holds the machine at its poll state (`at_poll`) while
    /// CertCheck borrows the Fetch and the signer (R24 from a COMMIT): it
    /// starts nothing and stays; `abort` still goes first.
    pub hold: Signal<In, Bit>,
    /// The machine is in a poll state (SlowPoll*): no fetch, signer request,
    /// broadcast or round of its own is outstanding, and `abort` is honoured.
    pub at_poll: Signal<Out, Bit>,
    /// In normal mode, the machine works on its delivery (R8: SlowPollPrepSig
    /// to SlowVerifySuspect): it has not certified the slot, and without
    /// the leader's signature it cannot. High through the poll loop, so
    /// that a MINE Protocol may adopt waits for the poll point.
    pub undelivered: Signal<Out, Bit>,
    /// In normal mode, its own certificate may never form: a share of its
    /// certify row failed at both of its reads (`bad`: the row holds a
    /// forged share), or it has polled the row for its shares for the base
    /// wait (`short`: a share it lacks may never come, since a peer that
    /// adopted writes none). Protocol may then adopt a peer's COMMIT of
    /// this view although the machine delivered (R10's second half).
    pub blocked: Signal<Out, Bit>,
    /// The Timer's `base_waited`: the misses in a row reached
    /// `wait_polls`.
    pub base_waited: Signal<In, Bit>,
    /// The machine holds the slot (not Off).
    pub holding: Signal<Out, Bit>,
    /// Delivery on n locks (R5 while undelivered, R16 while bridging):
    /// Protocol's `locks_ok` (this replica locked the slot in this view,
    /// phase 1, and did not refuse it), and with the will_cert row's fetch,
    /// `locks` (Tally: n locks for its (tag, m), the leader's lane its
    /// PREPARE); the row's address.
    pub locks_ok: Signal<In, Bit>,
    pub locks: Signal<In, Bit>,
    pub cert_row_word: Signal<In, Bits<32>>,
    /// R5 in normal mode: n locks while undelivered. One cycle: phase := 2
    /// (the Ledger takes the slot's block as W), with the will_commit's
    /// broadcast to `vote_row_word` + 2 id (the will_commit row's own lane).
    pub set_w: Signal<Out, Bit>,
    pub vote_row_word: Signal<In, Bits<32>>,
    /// While bridging, the machine certifies the slot itself (R16's share,
    /// after n locks): Protocol's target is the slot, not W.
    pub sharing: Signal<Out, Bit>,
    /// One cycle: R8 refuses the slot (the leader equivocated, or its
    /// signature failed twice); Protocol keeps it until the next round.
    pub refuse: Signal<Out, Bit>,
    /// One cycle, as the machine goes Off without a decision: the slot is
    /// given up in this view (a wait ran out, the leader equivocated, or
    /// the signer failed): Protocol starts VIEW.
    pub stop: Signal<Out, Bit>,
    /// With `start`: seal mode (VIEW's bridge, R17). The machine certifies
    /// and commits Protocol's W (its target, muxed by Protocol while
    /// `seal_mode` is high) and goes Off with `stop` once the COMMIT is
    /// written, or where it would otherwise stop; it ignores `expiring`
    /// (the bridge has no timer, recovery.md D11.1) and never decides.
    pub seal_start: Signal<In, Bit>,
    /// With `start` and `seal_start`: share only (R16 with no obligation,
    /// VIEW's `call_share`). Seal mode signs and writes W's CERT share,
    /// then goes Off with `stop` (a yield) instead of reading the row.
    pub share_start: Signal<In, Bit>,
    /// With `share_start`: the share is the remote read's late share, of K
    /// (VIEW's `call_late`; SlotRecords' target is K while `late_mode`).
    pub late_start: Signal<In, Bit>,
    /// The late share's mode (latched at `start`; kept after Off, as
    /// `seal_mode`).
    pub late_mode: Signal<Out, Bit>,
    /// The machine runs in seal mode (Protocol's target mux; its `stop` is
    /// then a yield to VIEW, not a handover).
    pub seal_mode: Signal<Out, Bit>,
    /// With `start`: deliver mode (R25 while VIEW awaits a NEW_VIEW). The
    /// target is a peer's COMMIT block of k that WATCH found (Protocol's
    /// D, muxed in while `deliver_mode` is high, with `view_no` its view
    /// w for R11's seal check). The machine goes from SlowStart to
    /// SlowPollCommit with nothing delivered (its own COMMIT too is read and
    /// counted if it is there) and runs R11 over every x once: f + 1
    /// delivered decide the slot (R12); a turn over every x with fewer, a
    /// miss at `expiring` (Protocol's T_vc count in this mode) or a failed
    /// round goes Off with `stop`, a yield to VIEW. It never signs, and
    /// asks no `clear_wait` (T_vc counts on).
    pub deliver_start: Signal<In, Bit>,
    pub deliver_mode: Signal<Out, Bit>,
    /// With `start` (and `deliver_start`): adopt mode first (R10's
    /// adoption while VIEW awaits a NEW_VIEW, recovery.md D11.13). The
    /// target is D, as in deliver mode; the machine reads D's record,
    /// commit[s(k)][`d_x`] (3 + f beats), checks that its first beat is D's
    /// COMMIT block of x with a signer bitmap below n, copies its f + 1
    /// shares into COMPOSE beats 2 to f + 2, verifies every one over D's
    /// CERT block (its own share too: the copy is x's), signs and writes
    /// its own COMMIT of D, and then runs deliver mode's R11 with its own
    /// COMMIT delivered. A record that does not match, or a share that
    /// fails twice, ends it with `stop` (a yield).
    pub adopt_start: Signal<In, Bit>,
    /// Protocol's grant while the machine bridges (seal mode): at a poll
    /// state it turns to adopt mode (the same steps, on D) and, its COMMIT
    /// written, goes Off with `stop` as seal mode does: L covers W.
    pub adopt: Signal<In, Bit>,
    /// With `adopt`: D's certificate is in the certify row (WATCH's ABOVE
    /// of W.b + 1), not in a COMMIT record. The machine reads D's certify
    /// row as R10 does (f + 1 entries whose first beat is D's CERT block,
    /// their shares into COMPOSE) and verifies every share taken; fewer
    /// than f + 1 entries, or a share that fails twice, ends it with
    /// `stop` (a yield).
    pub adopt_row: Signal<In, Bit>,
    /// The machine runs in adopt mode (Protocol's target mux: D).
    pub adopt_mode: Signal<Out, Bit>,
    /// D's writer x.
    pub d_x: Signal<In, Bits<8>>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    pub leader_id: Signal<In, Bits<8>>,
    pub phase: Signal<In, Bits<2>>,
    /// B, the slot's PREP block [1, v, k, m, prev, 0, 0, 0].
    pub prep_block: Signal<In, Bits<BB>>,
    /// prep_sig[s(k)], echo_prep[s(k)][0], echo_prep[s(k)][id] and
    /// certify[s(k)][id], in words.
    pub prep_sig_word: Signal<In, Bits<32>>,
    pub echo_row_word: Signal<In, Bits<32>>,
    pub echo_own_word: Signal<In, Bits<32>>,
    pub certify_own_word: Signal<In, Bits<32>>,
    /// The next miss is the (`wait_polls` << `streak`)-th in a row.
    pub expiring: Signal<In, Bit>,
    // Requests to Protocol.
    pub missed: Signal<Out, Bit>,
    pub clear_wait: Signal<Out, Bit>,
    pub bad_share: Signal<Out, Bit>,
    // Fetch, through Protocol.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    /// With `fetch_start`: two beats (a record, or a COMMIT's first two),
    /// or 2N (the echo_prep, certify or echo_seal row).
    pub fetch_pair: Signal<Out, Bit>,
    pub fetch_row: Signal<Out, Bit>,
    /// The fetch is a COMMIT record, 3 + f beats (Protocol's `fetch_len`
    /// is f + 2).
    pub fetch_rec: Signal<Out, Bit>,
    pub fetch_beat: Signal<In, Bits<{ crate::params::BEAT_BITS }>>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    // The signer service (crate::io::signer), through Protocol.
    pub sg_sign: Signal<Out, Bit>,
    pub sg_verify: Signal<Out, Bit>,
    /// The block is B (sign or verify); else C to sign (or K with
    /// `sg_commit`, a signature from COMPOSE with `sg_compose`).
    pub sg_prep: Signal<Out, Bit>,
    /// The block and signature are the suspect's (`sus_block`, `sus_sig`).
    pub sg_sus: Signal<Out, Bit>,
    pub sg_signer: Signal<Out, Bits<8>>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_take: Signal<Out, Bit>,
    pub sus_block: Signal<Out, Bits<BB>>,
    pub sus_sig: Signal<Out, Bits<{ crate::params::BEAT_BITS }>>,
    // COMPOSE (crate::io::compose), through Protocol: beat 1 (a signature),
    // beats 2.. (the COMMIT's shares, `cp_wr_beat`), beat 15 (a peer's
    // COMMIT signature).
    pub cp_wr_en: Signal<Out, Bit>,
    /// With `cp_wr_en`: the fetched beat, not the signer's response.
    pub cp_from_fetch: Signal<Out, Bit>,
    pub cp_start: Signal<Out, Bit>,
    // Broadcast, through Protocol: the first beat B, C or K (from
    // Protocol), the rest from COMPOSE (`bc_beats`).
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_prep_sig: Signal<Out, Bit>,
    pub bc_cert: Signal<Out, Bit>,
    pub bc_round: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    pub round_done: Signal<In, Bit>,
    pub round_error: Signal<In, Bit>,
    // R10 to R12.
    /// f + 1 (Protocol's `support`), and records per row of echo_commit and echo_seal
    /// (the build's N rounded up to a power of two, `Shape::row_records`).
    pub support: Signal<In, Bits<8>>,
    pub row_n: Signal<In, Bits<8>>,
    pub view_no: Signal<In, Bits<32>>,
    /// C, the slot's CERT block [2, v, k, m, prev, 0, 0, 0].
    pub cert_block: Signal<In, Bits<BB>>,
    /// The COMMIT block [3, `blk_j`, v, k, m, prev, 0, 0], from Protocol.
    pub commit_block: Signal<In, Bits<BB>>,
    /// certify[s(k)][0] and commit[s(k)][0] in words, commit's stride
    /// (log2 of its words), and the bases of echo_commit, seal, echo_seal.
    pub certify_row_word: Signal<In, Bits<32>>,
    pub commit_row_word: Signal<In, Bits<32>>,
    pub commit_shift: Signal<In, Bits<8>>,
    pub echo_commit_base: Signal<In, Bits<32>>,
    pub seal_base: Signal<In, Bits<32>>,
    pub echo_seal_base: Signal<In, Bits<32>>,
    /// One cycle, as the machine goes Off: the slot is decided (R12), on
    /// the slow path, with the slot's m.
    pub decide: Signal<Out, Bit>,
    /// The COMMIT block's replica: this replica's, or the peer x's whose
    /// COMMIT is being delivered.
    pub blk_j: Signal<Out, Bits<8>>,
    /// The COMMIT record's signer bitmap (word 8 of its first beat).
    pub bitmap: Signal<Out, Bits<8>>,
    /// With `sg_sign` or `sg_verify`: the block is `commit_block`.
    pub sg_commit: Signal<Out, Bit>,
    /// With `sg_verify`: the signature is COMPOSE's beat `cp_first`.
    pub sg_compose: Signal<Out, Bit>,
    /// COMPOSE: the beat written; the beats streamed (and, while COMPOSE
    /// is idle, `cp_first` is the beat on Protocol's `cp_rd_data` the next
    /// cycle, which Protocol sends to the signer with `sg_compose`).
    pub cp_wr_beat: Signal<Out, Bits<4>>,
    pub cp_first: Signal<Out, Bits<4>>,
    pub cp_last: Signal<Out, Bits<4>>,
    /// Broadcast: the COMMIT record (`commit_block` and the bitmap, then
    /// COMPOSE beats 1 to 1 + f + 1), or x's COMMIT echoed (the block,
    /// then COMPOSE beat 15).
    pub bc_commit: Signal<Out, Bit>,
    pub bc_echo_commit: Signal<Out, Bit>,
    /// One cycle, as its COMMIT of the slot is signed: Protocol's L (the
    /// latest commit, which a SEAL carries) becomes the slot's block.
    pub set_commit: Signal<Out, Bit>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<SlowSt>,
    /// Seal mode (latched at `start` from `seal_start`).
    sealing: DFF<Bit>,
    /// Share only (latched at `start` from `share_start`).
    share_only: DFF<Bit>,
    /// The late share (latched at `start` from `late_start`).
    late_q: DFF<Bit>,
    /// Deliver mode (latched at `start` from `deliver_start`).
    delivering: DFF<Bit>,
    /// Adopt mode (latched at `start` from `adopt_start`, or set by
    /// `adopt`).
    adopting: DFF<Bit>,
    /// Adopt mode from the certify row (set with `adopting` by `adopt`
    /// with `adopt_row`).
    rowing: DFF<Bit>,
    /// The poll state an adoption in normal mode left (set by `adopt`):
    /// where a certificate that fails takes the machine back, with
    /// `verified`, `torn` and `bad` cleared (they were of D's block).
    back: DFF<SlowSt>,
    /// Seal mode: the slot's own CERT is being signed and written (R16's
    /// share after n locks), and it was (once per start).
    share_q: DFF<Bit>,
    shared: DFF<Bit>,
    /// Adopt mode in normal mode (not sealing, not delivering): a failed
    /// adoption resumes at `back` instead of yielding.
    resume: Signal<Local, Bit>,
    /// Adopt mode from a record while bridging: a certificate that fails
    /// for good (a share's second failure, a record that is not D's)
    /// resumes at `back` too, so WATCH's memory of the record stands.
    seal_rec: Signal<Local, Bit>,
    /// This cycle's adoption failed: go back (`back`).
    to_back: Signal<Local, Bit>,
    /// Its own lane of the will_commit row: R5's will_commit.
    vote_word: Signal<Local, Bits<32>>,
    /// `expiring`, except in seal mode.
    exp: Signal<Local, Bit>,
    /// A request is out (sign and verify states), or Broadcast not yet
    /// started (send states).
    sent: DFF<Bit>,
    /// The fetched record's beat number, and beat 0 was B (prep_sig).
    beat_i: DFF<Bits<8>>,
    blk_ok: DFF<Bit>,
    /// The suspect: found, its replica, its block and signature, and its
    /// signature beat still to come.
    sus: DFF<Bit>,
    sus_j: DFF<Bits<8>>,
    sus_blk: DFF<Bits<BB>>,
    sus_sg: DFF<Bits<{ crate::params::BEAT_BITS }>>,
    grab: DFF<Bit>,
    /// Entries up to `checked` were suspects whose signature failed.
    checked: DFF<Bits<8>>,
    checked_any: DFF<Bit>,
    /// R10: shares copied into COMPOSE from the certify row, and whose;
    /// the entry on the fetch is a candidate (its share comes next).
    c: DFF<Bits<8>>,
    bm: DFF<Bits<8>>,
    take: DFF<Bit>,
    /// Shares over C that verified, that failed once (`torn`: read again,
    /// since a read may be torn, the block of a write landing during the
    /// burst with the share of the write before), and that failed twice
    /// (`bad`: passed over), this slot.
    verified: DFF<Bits<8>>,
    torn: DFF<Bits<8>>,
    bad: DFF<Bits<8>>,
    /// In normal mode, the machine was in a poll state of its certify row
    /// (SlowPollCertify, SlowWaitCertify) with `base_waited` high, this
    /// slot.
    short: DFF<Bit>,
    /// The share being checked: its replica, its place among the copied
    /// ones, and COMPOSE's read of it settled.
    sj: DFF<Bits<8>>,
    so: DFF<Bits<8>>,
    rd: DFF<Bit>,
    /// R11: the peer x whose COMMIT is polled, and x * R (R = `row_n`).
    x: DFF<Bits<8>>,
    xn: DFF<Bits<16>>,
    /// COMMITs of this replica's block delivered (its own counts, R12),
    /// their count, and the peers found sealed (R11.3: never counted).
    delivered: DFF<Bits<8>>,
    dcount: DFF<Bits<8>>,
    vetoed: DFF<Bits<8>>,
    /// The suspect SEAL came from seal[x] (else from echo_seal[x][*]).
    sus_seal: DFF<Bit>,
    /// A SEAL whose signature failed once is read again before it is
    /// passed over (a read may be torn: its block from a write landing
    /// during the burst, its signature from the write before). `retry`:
    /// the SEAL of (`retry_seal`, `retry_j`) failed once.
    retry: DFF<Bit>,
    retry_seal: DFF<Bit>,
    retry_j: DFF<Bits<8>>,
    /// The leader's prep_sig failed its verify once this slot (a read may
    /// be torn); a second failure refuses the slot (`stop`): an honest
    /// leader writes one prep_sig per (v, k), whole.
    prep_torn: DFF<Bit>,
    /// Peers whose COMMIT signature failed once this slot; a second
    /// failure puts the peer in `vetoed` (passed over), so a forged record
    /// costs at most two verifies, not one at every poll.
    ctorn: DFF<Bits<8>>,
    /// The entry of the beat on `fetch_beat`, and whether it is a suspect.
    entry: Signal<Local, Bits<8>>,
    suspect: Signal<Local, Bit>,
    /// The beat on `fetch_beat` is the C of a certify row's entry whose
    /// share may be taken; a SEAL of x for a view >= ours (not x = id in
    /// deliver mode).
    cand: Signal<Local, Bit>,
    seal_like: Signal<Local, Bit>,
    /// The certify row gave f + 1 shares, counting the one on the fetch now.
    full: Signal<Local, Bit>,
    /// x * R + id: echo_commit[x][id]'s record.
    xid: Signal<Local, Bits<16>>,
    /// The beat on `fetch_beat` is a COMMIT of x higher than `commit_block`
    /// (k, then view): this replica's echo_commit[x][id] holds more than
    /// the COMMIT it verified (R11.2's "if higher").
    own_higher: Signal<Local, Bit>,
    /// Adopt mode: the beat on `fetch_beat` is D's COMMIT block of x with
    /// a signer bitmap below n.
    rec_ok: Signal<Local, Bit>,
    status_ok: Constant<Bits<8>>,
    kind_seal: Constant<Bits<32>>,
    kind_commit: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
}

/// The literals `update` holds: a record of the echo_prep row is two
/// beats (`beat_i >> 1` is the entry), a block's kind, v and k are its
/// words 0, 1 and 2 (`get_bits::<96>(0)`).
pub fn check_literals() {
    use crate::layout::{records, stride_beats, Region};
    for n in [1, 3, 5, 7, 8] {
        assert_eq!(
            stride_beats(Region::EchoPrep, n, crate::params::SB),
            2,
            "slow.rs: echo_prep entries of two beats (beat_i >> 1)"
        );
    }
    assert_eq!(
        [records::KIND, records::BLOCK_V, records::BLOCK_K],
        [0, 1, 2],
        "slow.rs: kind, v, k are the block's first 96 bits"
    );
    assert_eq!(
        records::COMMIT_BITMAP * 32,
        256,
        "slow.rs: a COMMIT's signer bitmap is bit 256 of its first beat (get_bits::<8>(256))"
    );
    assert_eq!(
        [records::SEAL_J, records::SEAL_V],
        [1, 2],
        "slow.rs: a SEAL's replica and view are words 1 and 2 (bits 32, 64)"
    );
    for n in [1, 3, 5, 7, 8] {
        for r in [
            Region::Certify,
            Region::EchoCommit,
            Region::Seal,
            Region::EchoSeal,
        ] {
            assert_eq!(
                stride_beats(r, n, crate::params::SB),
                2,
                "slow.rs: {r:?} entries of two beats (<< 5, beat_i >> 1)"
            );
        }
    }
}

impl Default for Slow {
    fn default() -> Self {
        check_literals();
        Slow {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            abort: Default::default(),
            hold: Default::default(),
            at_poll: Default::default(),
            undelivered: Default::default(),
            blocked: Default::default(),
            base_waited: Default::default(),
            locks_ok: Default::default(),
            locks: Default::default(),
            cert_row_word: Default::default(),
            set_w: Default::default(),
            vote_row_word: Default::default(),
            sharing: Default::default(),
            refuse: Default::default(),
            holding: Default::default(),
            stop: Default::default(),
            seal_start: Default::default(),
            share_start: Default::default(),
            late_start: Default::default(),
            late_mode: Default::default(),
            seal_mode: Default::default(),
            deliver_start: Default::default(),
            deliver_mode: Default::default(),
            adopt_start: Default::default(),
            adopt: Default::default(),
            adopt_row: Default::default(),
            adopt_mode: Default::default(),
            d_x: Default::default(),
            id: Default::default(),
            n: Default::default(),
            leader_id: Default::default(),
            phase: Default::default(),
            prep_block: Default::default(),
            prep_sig_word: Default::default(),
            echo_row_word: Default::default(),
            echo_own_word: Default::default(),
            certify_own_word: Default::default(),
            expiring: Default::default(),
            missed: Default::default(),
            clear_wait: Default::default(),
            bad_share: Default::default(),
            fetch_start: Default::default(),
            fetch_word: Default::default(),
            fetch_pair: Default::default(),
            fetch_row: Default::default(),
            fetch_rec: Default::default(),
            fetch_beat: Default::default(),
            fetch_beat_valid: Default::default(),
            fetch_done: Default::default(),
            fetch_error: Default::default(),
            sg_sign: Default::default(),
            sg_verify: Default::default(),
            sg_prep: Default::default(),
            sg_sus: Default::default(),
            sg_signer: Default::default(),
            sg_busy: Default::default(),
            sg_resp_valid: Default::default(),
            sg_resp_status: Default::default(),
            sg_resp_take: Default::default(),
            sus_block: Default::default(),
            sus_sig: Default::default(),
            cp_wr_en: Default::default(),
            cp_from_fetch: Default::default(),
            cp_start: Default::default(),
            bc_start: Default::default(),
            bc_word: Default::default(),
            bc_prep_sig: Default::default(),
            bc_cert: Default::default(),
            bc_round: Default::default(),
            bc_done: Default::default(),
            round_done: Default::default(),
            round_error: Default::default(),
            support: Default::default(),
            row_n: Default::default(),
            view_no: Default::default(),
            cert_block: Default::default(),
            commit_block: Default::default(),
            certify_row_word: Default::default(),
            commit_row_word: Default::default(),
            commit_shift: Default::default(),
            echo_commit_base: Default::default(),
            seal_base: Default::default(),
            echo_seal_base: Default::default(),
            decide: Default::default(),
            blk_j: Default::default(),
            bitmap: Default::default(),
            sg_commit: Default::default(),
            sg_compose: Default::default(),
            cp_wr_beat: Default::default(),
            cp_first: Default::default(),
            cp_last: Default::default(),
            bc_commit: Default::default(),
            bc_echo_commit: Default::default(),
            set_commit: Default::default(),
            sts_state: Default::default(),
            state: Default::default(),
            sealing: Default::default(),
            share_only: Default::default(),
            late_q: Default::default(),
            delivering: Default::default(),
            adopting: Default::default(),
            rowing: Default::default(),
            back: Default::default(),
            resume: Default::default(),
            seal_rec: Default::default(),
            to_back: Default::default(),
            vote_word: Default::default(),
            exp: Default::default(),
            sent: Default::default(),
            beat_i: Default::default(),
            blk_ok: Default::default(),
            sus: Default::default(),
            sus_j: Default::default(),
            sus_blk: Default::default(),
            sus_sg: Default::default(),
            grab: Default::default(),
            checked: Default::default(),
            checked_any: Default::default(),
            entry: Default::default(),
            suspect: Default::default(),
            c: Default::default(),
            bm: Default::default(),
            take: Default::default(),
            verified: Default::default(),
            torn: Default::default(),
            bad: Default::default(),
            short: Default::default(),
            sj: Default::default(),
            so: Default::default(),
            rd: Default::default(),
            x: Default::default(),
            xn: Default::default(),
            delivered: Default::default(),
            dcount: Default::default(),
            vetoed: Default::default(),
            sus_seal: Default::default(),
            retry: Default::default(),
            retry_seal: Default::default(),
            retry_j: Default::default(),
            prep_torn: Default::default(),
            ctorn: Default::default(),
            share_q: Default::default(),
            shared: Default::default(),
            cand: Default::default(),
            seal_like: Default::default(),
            full: Default::default(),
            xid: Default::default(),
            own_higher: Default::default(),
            rec_ok: Default::default(),
            kind_commit: Constant::new((crate::layout::records::KIND_COMMIT as u64).into()),
            status_ok: Constant::new(crate::io::signer::code::OK.into()),
            kind_seal: Constant::new((crate::layout::records::KIND_SEAL as u64).into()),
            one8: Constant::new(1u64.into()),
        }
    }
}

impl Slow {
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
        let mut b = Self::default();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl Logic for Slow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            sealing,
            share_only,
            late_q,
            delivering,
            adopting,
            rowing,
            back,
            sent,
            beat_i,
            blk_ok,
            sus,
            sus_j,
            sus_blk,
            sus_sg,
            grab,
            checked,
            checked_any,
            c,
            bm,
            take,
            verified,
            torn,
            bad,
            short,
            sj,
            so,
            rd,
            x,
            xn,
            delivered,
            dcount,
            vetoed,
            sus_seal,
            retry,
            retry_seal,
            retry_j,
            prep_torn,
            ctorn,
            share_q,
            shared
        );
        // The echo_prep row's entry on `fetch_beat`, and whether it is a
        // suspect: another replica's, of the same (PREP, v, k) as B but not
        // B, above the entries passed over.
        self.exp.next = self.expiring.val() & !self.sealing.q.val();
        self.vote_word.next = self.vote_row_word.val() + (bit_cast::<32, 8>(self.id.val()) << 1);
        self.seal_mode.next = self.sealing.q.val();
        self.late_mode.next = self.late_q.q.val();
        self.sharing.next = self.share_q.q.val();
        self.refuse.next = false;
        self.set_w.next = false;
        self.deliver_mode.next = self.delivering.q.val();
        self.adopt_mode.next = self.adopting.q.val();
        self.resume.next = self.adopting.q.val() & !self.sealing.q.val() & !self.delivering.q.val();
        self.seal_rec.next = self.adopting.q.val()
            & self.sealing.q.val()
            & !self.rowing.q.val()
            & !self.delivering.q.val();
        self.to_back.next = false;
        // Adopt mode: the record's first beat is D's COMMIT block of x
        // (`commit_block` with `blk_j` = x) and its signer bitmap (word 8)
        // names no replica at or above n.
        self.rec_ok.next = (self.fetch_beat.val().get_bits::<BB>(0) == self.commit_block.val())
            & ((self.fetch_beat.val().get_bits::<8>(256) >> self.n.val()) == 0);
        self.entry.next = self.beat_i.q.val() >> 1;
        self.suspect.next = !self.beat_i.q.val().get_bit(0)
            & (self.entry.val() != self.id.val())
            & (self.entry.val() < self.n.val())
            & (!self.checked_any.q.val() | (self.entry.val() > self.checked.q.val()))
            & (self.fetch_beat.val().get_bits::<96>(0) == self.prep_block.val().get_bits::<96>(0))
            & (self.fetch_beat.val().get_bits::<BB>(0) != self.prep_block.val());
        // The certify row's entry on `fetch_beat` (R10): C, from a replica
        // whose share did not fail, while fewer than f + 1 are taken. (Bit
        // j of a bitmap is tested by a shift, which is 0 past bit 7.)
        self.cand.next = !self.beat_i.q.val().get_bit(0)
            & (self.entry.val() < self.n.val())
            & ((self.bad.q.val() & (self.one8.val() << self.entry.val())) == 0)
            & (self.c.q.val() < self.support.val())
            & (self.fetch_beat.val().get_bits::<BB>(0) == self.cert_block.val());
        self.full.next = (self.c.q.val() == self.support.val())
            | (((self.c.q.val() + 1) == self.support.val())
                & self.take.q.val()
                & self.fetch_beat_valid.val());
        self.xid.next = self.xn.q.val() + bit_cast::<16, 8>(self.id.val());
        // A SEAL block of x for a view >= this replica's (R11.3). In
        // deliver mode this replica's own COMMIT (x = id) is not vetoed by
        // its own SEAL: it committed before it sealed (R10), as the model's
        // count keeps it across the seal.
        self.seal_like.next = (self.fetch_beat.val().get_bits::<32>(0) == self.kind_seal.val())
            & (self.fetch_beat.val().get_bits::<32>(32) == bit_cast::<32, 8>(self.x.q.val()))
            & (self.fetch_beat.val().get_bits::<32>(64) >= self.view_no.val())
            & !(self.delivering.q.val() & (self.x.q.val() == self.id.val()));
        // An echo_commit entry: [COMMIT, x, view, k, m, prev, 0, 0].
        self.own_higher.next = (self.fetch_beat.val().get_bits::<32>(0) == self.kind_commit.val())
            & (self.fetch_beat.val().get_bits::<32>(32) == bit_cast::<32, 8>(self.x.q.val()))
            & ((self.fetch_beat.val().get_bits::<32>(96)
                > self.commit_block.val().get_bits::<32>(96))
                | ((self.fetch_beat.val().get_bits::<32>(96)
                    == self.commit_block.val().get_bits::<32>(96))
                    & (self.fetch_beat.val().get_bits::<32>(64)
                        > self.commit_block.val().get_bits::<32>(64))));
        // Outputs are zero unless a state drives them (see leader.rs).
        self.stop.next = false;
        self.missed.next = false;
        self.clear_wait.next = false;
        self.bad_share.next = false;
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.fetch_pair.next = false;
        self.fetch_row.next = false;
        self.fetch_rec.next = false;
        self.sg_sign.next = false;
        self.sg_verify.next = false;
        self.sg_prep.next = false;
        self.sg_sus.next = false;
        self.sg_signer.next = 0.into();
        self.sg_resp_take.next = false;
        self.sus_block.next = self.sus_blk.q.val();
        self.sus_sig.next = self.sus_sg.q.val();
        self.cp_wr_en.next = false;
        self.cp_from_fetch.next = false;
        self.cp_start.next = false;
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.bc_prep_sig.next = false;
        self.bc_cert.next = false;
        self.bc_round.next = false;
        self.decide.next = false;
        self.set_commit.next = false;
        self.blk_j.next = self.id.val();
        self.bitmap.next = self.bm.q.val();
        self.sg_commit.next = false;
        self.sg_compose.next = false;
        self.cp_wr_beat.next = 1.into();
        self.cp_first.next = 1.into();
        self.cp_last.next = 1.into();
        self.bc_commit.next = false;
        self.bc_echo_commit.next = false;
        match self.state.q.val() {
            SlowSt::Off => {
                if self.start.val() {
                    self.sealing.d.next = self.seal_start.val();
                    self.share_only.d.next = self.seal_start.val() & self.share_start.val();
                    self.late_q.d.next =
                        self.seal_start.val() & self.share_start.val() & self.late_start.val();
                    self.delivering.d.next = self.deliver_start.val();
                    self.adopting.d.next = self.adopt_start.val();
                    self.rowing.d.next = false;
                    self.state.d.next = SlowSt::SlowStart;
                }
            }
            SlowSt::SlowStart => {
                self.sent.d.next = false;
                self.share_q.d.next = false;
                self.shared.d.next = false;
                self.checked_any.d.next = false;
                self.verified.d.next = 0.into();
                self.torn.d.next = 0.into();
                self.bad.d.next = 0.into();
                self.short.d.next = false;
                self.prep_torn.d.next = false;
                self.clear_wait.next = true;
                if self.adopting.q.val() {
                    // Adopt mode (R10's adoption): D's record first.
                    self.state.d.next = SlowSt::SlowPollRecord;
                } else if self.delivering.q.val() {
                    // Deliver mode: R11 on the target's COMMITs, nothing
                    // delivered yet (R25).
                    self.delivered.d.next = 0.into();
                    self.dcount.d.next = 0.into();
                    self.vetoed.d.next = 0.into();
                    self.ctorn.d.next = 0.into();
                    self.retry.d.next = false;
                    self.x.d.next = 0.into();
                    self.xn.d.next = 0.into();
                    self.state.d.next = SlowSt::SlowPollCommit;
                } else if self.sealing.q.val() {
                    // Seal mode (R16, R17): W was delivered (FAST's will_commit
                    // at W.b): certify it (R9), then R10.
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                    self.state.d.next = SlowSt::SlowSignCert;
                } else if self.id.val() == self.leader_id.val() {
                    // R7: the leader signs its PREPARE.
                    self.sg_prep.next = true;
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                    self.state.d.next = SlowSt::SlowSignPrep;
                } else if self.phase.val() == 2 {
                    // Delivered on the fast path (R5): certify (R9).
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                    self.state.d.next = SlowSt::SlowSignCert;
                } else {
                    self.state.d.next = SlowSt::SlowPollPrepSig;
                }
            }
            SlowSt::SlowSignPrep => {
                self.sg_prep.next = true;
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // The signature is COMPOSE's beat 1 from this
                        // cycle's edge; its stream starts the next cycle.
                        self.cp_wr_en.next = true;
                        self.state.d.next = SlowSt::SlowSendPrepSig;
                    } else {
                        self.stop.next = true;
                        self.state.d.next = SlowSt::Off;
                    }
                }
            }
            SlowSt::SlowSendPrepSig => {
                self.bc_word.next = self.prep_sig_word.val();
                self.bc_prep_sig.next = true;
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() {
                    if self.phase.val() == 2 {
                        if !self.sg_busy.val() {
                            self.sg_sign.next = true;
                            self.sent.d.next = true;
                        }
                        self.state.d.next = SlowSt::SlowSignCert;
                    } else {
                        self.state.d.next = SlowSt::SlowPollPrepSig;
                    }
                }
            }
            SlowSt::SlowPollPrepSig => {
                self.fetch_start.next = true;
                self.fetch_pair.next = true;
                self.fetch_word.next = self.prep_sig_word.val();
                self.beat_i.d.next = 0.into();
                self.blk_ok.d.next = false;
                self.state.d.next = SlowSt::SlowWaitPrepSig;
            }
            SlowSt::SlowWaitPrepSig => {
                // (Values for the strobes below, by state: see leader.rs.)
                self.sg_prep.next = true;
                self.sg_signer.next = self.leader_id.val();
                self.cp_from_fetch.next = true;
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.beat_i.q.val() == 0 {
                        self.blk_ok.d.next =
                            self.fetch_beat.val().get_bits::<BB>(0) == self.prep_block.val();
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val()
                        & self.blk_ok.q.val()
                        & !self.sg_busy.val()
                        & self.fetch_beat.val().any()
                    {
                        // Beat 1, on `fetch_beat` now, is the signature:
                        // verify it, and keep it in COMPOSE for the echo.
                        // (A zero beat is no signature: the block landed
                        // and its signature not yet, a torn read of a
                        // fresh entry; polled again, no verify spent.)
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                        self.cp_wr_en.next = true;
                        self.state.d.next = SlowSt::SlowVerifyPrep;
                    } else {
                        self.missed.next = true;
                        if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else if self.locks_ok.val() {
                            // R5 while undelivered: the will_cert row
                            // between two reads of prep_sig.
                            self.state.d.next = SlowSt::SlowPollLocks;
                        } else {
                            self.state.d.next = SlowSt::SlowPollPrepSig;
                        }
                    }
                }
            }
            SlowSt::SlowVerifyPrep => {
                self.bc_word.next = self.echo_own_word.val();
                self.bc_prep_sig.next = true;
                if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // R8.1: the echo, in a round (B, then the leader's
                        // signature from COMPOSE).
                        self.bc_start.next = true;
                        self.bc_round.next = true;
                        self.cp_start.next = true;
                        self.clear_wait.next = true;
                        self.state.d.next = SlowSt::SlowEchoPrep;
                    } else {
                        self.bad_share.next = true;
                        self.missed.next = true;
                        self.prep_torn.d.next = true;
                        if self.exp.val() | self.prep_torn.q.val() {
                            // Failed twice: the leader's signature is
                            // forged (R8 refuses the slot).
                            self.refuse.next = self.prep_torn.q.val();
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollPrepSig;
                        }
                    }
                }
            }
            SlowSt::SlowEchoPrep => {
                if self.round_error.val() {
                    self.stop.next = true;
                    self.state.d.next = SlowSt::Off;
                } else if self.round_done.val() {
                    self.state.d.next = SlowSt::SlowPollEchoPrep;
                }
            }
            SlowSt::SlowPollEchoPrep => {
                self.fetch_start.next = true;
                self.fetch_row.next = true;
                self.fetch_word.next = self.echo_row_word.val();
                self.beat_i.d.next = 0.into();
                self.sus.d.next = false;
                self.grab.d.next = false;
                self.state.d.next = SlowSt::SlowWaitEchoPrep;
            }
            SlowSt::SlowWaitEchoPrep => {
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.grab.q.val() {
                        // The suspect's signature follows its block.
                        self.sus_sg.d.next = self.fetch_beat.val();
                        self.grab.d.next = false;
                    } else if self.suspect.val() & !self.sus.q.val() {
                        self.sus.d.next = true;
                        self.sus_j.d.next = self.entry.val();
                        self.sus_blk.d.next = self.fetch_beat.val().get_bits::<BB>(0);
                        self.grab.d.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        // A failed read finds nothing: a miss.
                        self.missed.next = true;
                        if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollEchoPrep;
                        }
                    } else if self.sus.q.val() | (self.suspect.val() & !self.grab.q.val()) {
                        // (A suspect in the last block beat cannot be: the
                        // last beat of the row is a signature.)
                        self.sent.d.next = false;
                        self.state.d.next = SlowSt::SlowVerifySuspect;
                    } else {
                        // R8.3: delivered. R9: certify.
                        self.clear_wait.next = true;
                        if !self.sg_busy.val() {
                            self.sg_sign.next = true;
                            self.sent.d.next = true;
                        } else {
                            self.sent.d.next = false;
                        }
                        self.state.d.next = SlowSt::SlowSignCert;
                    }
                }
            }
            SlowSt::SlowVerifySuspect => {
                self.sg_sus.next = true;
                self.sg_signer.next = self.leader_id.val();
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // Two blocks of (v, k) signed by the leader: it
                        // equivocated, and this replica never delivers the
                        // slot (R8.2).
                        self.refuse.next = true;
                        self.stop.next = true;
                        self.state.d.next = SlowSt::Off;
                    } else {
                        self.checked.d.next = self.sus_j.q.val();
                        self.checked_any.d.next = true;
                        self.state.d.next = SlowSt::SlowPollEchoPrep;
                    }
                }
            }
            SlowSt::SlowSignCert => {
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        self.cp_wr_en.next = true;
                        self.state.d.next = SlowSt::SlowSendCert;
                    } else {
                        self.stop.next = true;
                        self.state.d.next = SlowSt::Off;
                    }
                }
            }
            SlowSt::SlowSendCert => {
                self.bc_word.next = self.certify_own_word.val();
                self.bc_cert.next = true;
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() {
                    self.clear_wait.next = true;
                    // R16's share written: the target is W again.
                    if self.share_q.q.val() {
                        self.share_q.d.next = false;
                        self.shared.d.next = true;
                    }
                    if self.share_only.q.val() {
                        // R16 with no obligation: W's share is written,
                        // and that is all (a yield).
                        self.stop.next = true;
                        self.state.d.next = SlowSt::Off;
                    } else {
                        self.state.d.next = SlowSt::SlowPollCertify;
                    }
                }
            }
            SlowSt::SlowPollLocks => {
                // R16 while bridging: the slot's will_cert row, one beat.
                self.fetch_start.next = true;
                self.fetch_word.next = self.cert_row_word.val();
                self.state.d.next = SlowSt::SlowWaitLocks;
            }
            SlowSt::SlowWaitLocks => {
                self.bc_word.next = self.vote_word.val();
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.locks.val() & self.sealing.q.val() {
                        // Bridging (R16): delivered (fast), with no
                        // will_commit (R15); certify the slot (R9), then
                        // back to W.
                        self.share_q.d.next = true;
                        self.sent.d.next = false;
                        self.state.d.next = SlowSt::SlowSignCert;
                    } else if !self.fetch_error.val() & self.locks.val() {
                        // R5 in normal mode: delivered (fast). will_commit
                        // (phase 2, W), then certify (R9) as from phase 2.
                        self.set_w.next = true;
                        self.bc_start.next = true;
                        self.clear_wait.next = true;
                        self.state.d.next = SlowSt::SlowSendVote;
                    } else if self.sealing.q.val() {
                        self.state.d.next = SlowSt::SlowPollCertify;
                    } else {
                        // (A miss, as prep_sig's: the wait's length in
                        // cycles is about that of prep_sig's polls alone.)
                        self.missed.next = true;
                        if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollPrepSig;
                        }
                    }
                }
            }
            SlowSt::SlowSendVote => {
                self.bc_word.next = self.vote_word.val();
                if self.bc_done.val() {
                    self.sent.d.next = false;
                    self.state.d.next = SlowSt::SlowSignCert;
                }
            }
            SlowSt::SlowPollCertify => {
                // R10: the certify row, 2N beats.
                self.fetch_start.next = true;
                self.fetch_row.next = true;
                self.fetch_word.next = self.certify_row_word.val();
                self.beat_i.d.next = 0.into();
                self.c.d.next = 0.into();
                self.bm.d.next = 0.into();
                self.take.d.next = false;
                self.state.d.next = SlowSt::SlowWaitCertify;
            }
            SlowSt::SlowWaitCertify => {
                // A candidate's share goes into COMPOSE beat 2 + c as it
                // arrives: the COMMIT's shares, in ascending replica order.
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next = self.c.q.val().get_bits::<4>(0) + 2;
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.take.q.val() {
                        self.cp_wr_en.next = true;
                        self.bm.d.next = self.bm.q.val() | (self.one8.val() << self.entry.val());
                        self.c.d.next = self.c.q.val() + 1;
                        self.take.d.next = false;
                    } else if self.cand.val() {
                        self.take.d.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.full.val() {
                        self.sj.d.next = 0.into();
                        self.so.d.next = 0.into();
                        self.rd.d.next = false;
                        self.sent.d.next = false;
                        self.state.d.next = SlowSt::SlowVerifyShare;
                    } else {
                        // Fewer than f + 1 candidates, or a failed read
                        // (which finds nothing): a miss. Adopting from the
                        // row, the certificate WATCH saw is gone: a yield.
                        self.missed.next = true;
                        if self.exp.val() | self.rowing.q.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else if self.sealing.q.val()
                            & !self.adopting.q.val()
                            & self.locks_ok.val()
                            & !self.shared.q.val()
                        {
                            // Bridging: R16's delivery on n locks (once).
                            self.state.d.next = SlowSt::SlowPollLocks;
                        } else {
                            self.state.d.next = SlowSt::SlowPollCertify;
                        }
                    }
                }
            }
            SlowSt::SlowVerifyShare => {
                // Each copied share not this replica's and not verified
                // before, in turn: read from COMPOSE, verified over C.
                self.cp_first.next = self.so.q.val().get_bits::<4>(0) + 2;
                self.sg_compose.next = true;
                self.sg_signer.next = self.sj.q.val();
                if !self.sent.q.val() {
                    if (self.sj.q.val() >= self.n.val())
                        & self.adopting.q.val()
                        & (self.so.q.val() != self.support.val())
                    {
                        // Adopt mode: the record's bitmap named other than
                        // f + 1 replicas below n. In normal mode and from
                        // a record while bridging, back to the poll it
                        // left; else a yield.
                        if self.resume.val() | self.seal_rec.val() {
                            self.to_back.next = true;
                        } else {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        }
                    } else if self.sj.q.val() >= self.n.val() {
                        // f + 1 shares over C, each verified (R10).
                        self.state.d.next = SlowSt::SlowSignCommit;
                    } else if (self.bm.q.val() & (self.one8.val() << self.sj.q.val())) == 0 {
                        self.sj.d.next = self.sj.q.val() + 1;
                    } else if ((self.sj.q.val() == self.id.val()) & !self.adopting.q.val())
                        | ((self.verified.q.val() & (self.one8.val() << self.sj.q.val())) != 0)
                    {
                        self.sj.d.next = self.sj.q.val() + 1;
                        self.so.d.next = self.so.q.val() + 1;
                    } else if !self.rd.q.val() {
                        // COMPOSE reads the beat at this edge.
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
                        self.verified.d.next =
                            self.verified.q.val() | (self.one8.val() << self.sj.q.val());
                        self.sj.d.next = self.sj.q.val() + 1;
                        self.so.d.next = self.so.q.val() + 1;
                    } else {
                        // The row is read again; j is passed over from now
                        // on if it failed before (a torn read fails once).
                        if (self.torn.q.val() & (self.one8.val() << self.sj.q.val())) != 0 {
                            self.bad.d.next =
                                self.bad.q.val() | (self.one8.val() << self.sj.q.val());
                        }
                        self.torn.d.next = self.torn.q.val() | (self.one8.val() << self.sj.q.val());
                        self.bad_share.next = true;
                        self.missed.next = true;
                        if self.adopting.q.val() {
                            // Adopt mode: the record is read again once
                            // (a read may be torn); a second failure of j
                            // ends the pass: back to the poll it left
                            // from a record while bridging, a yield from
                            // the row. In normal mode the first failure
                            // takes the machine back: its own path is
                            // there to go on with, and a Byzantine record
                            // costs one pass of verifies, not two.
                            if self.resume.val() {
                                self.to_back.next = true;
                            } else if (self.torn.q.val() & (self.one8.val() << self.sj.q.val()))
                                != 0
                            {
                                if self.seal_rec.val() {
                                    self.to_back.next = true;
                                } else {
                                    self.stop.next = true;
                                    self.state.d.next = SlowSt::Off;
                                }
                            } else if self.rowing.q.val() {
                                self.state.d.next = SlowSt::SlowPollCertify;
                            } else {
                                self.state.d.next = SlowSt::SlowPollRecord;
                            }
                        } else if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollCertify;
                        }
                    }
                }
            }
            SlowSt::SlowPollRecord => {
                // Adopt mode: D's record, commit[s(k)][x], 3 + f beats.
                self.fetch_start.next = true;
                self.fetch_rec.next = true;
                self.fetch_word.next = self.commit_row_word.val()
                    + (bit_cast::<32, 8>(self.d_x.val()) << self.commit_shift.val());
                self.beat_i.d.next = 0.into();
                self.blk_ok.d.next = false;
                self.verified.d.next = 0.into();
                self.state.d.next = SlowSt::SlowWaitRecord;
            }
            SlowSt::SlowWaitRecord => {
                // Beat 0: D's COMMIT block of x and the bitmap; beat 1: x's
                // signature (not needed); beats 2 to f + 2: the shares, into
                // COMPOSE beat 2 + c as they arrive (ascending signer order,
                // as the record has them).
                self.blk_j.next = self.d_x.val();
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next = self.beat_i.q.val().get_bits::<4>(0);
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.beat_i.q.val() == 0 {
                        self.blk_ok.d.next = self.rec_ok.val();
                        self.bm.d.next = self.fetch_beat.val().get_bits::<8>(256);
                    } else if self.beat_i.q.val() >= 2 {
                        self.cp_wr_en.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.blk_ok.q.val() {
                        self.sj.d.next = 0.into();
                        self.so.d.next = 0.into();
                        self.rd.d.next = false;
                        self.sent.d.next = false;
                        self.state.d.next = SlowSt::SlowVerifyShare;
                    } else if self.resume.val() | self.seal_rec.val() {
                        // Not D's record any more, or a failed read: in
                        // normal mode and while bridging, back to the poll
                        // it left.
                        self.missed.next = true;
                        self.to_back.next = true;
                    } else {
                        // Not D's record any more, or a failed read.
                        self.missed.next = true;
                        self.stop.next = true;
                        self.state.d.next = SlowSt::Off;
                    }
                }
            }
            SlowSt::SlowSignCommit => {
                // R10: sign K = [3, id, v, k, m, prev]; COMPOSE beat 1.
                self.sg_commit.next = true;
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        self.cp_wr_en.next = true;
                        self.set_commit.next = true;
                        self.state.d.next = SlowSt::SlowSendCommit;
                    } else {
                        self.stop.next = true;
                        self.state.d.next = SlowSt::Off;
                    }
                }
            }
            SlowSt::SlowSendCommit => {
                // commit[s(k)][id]: K and the bitmap, the signature, the
                // f + 1 shares (3 + f beats).
                self.bc_word.next = self.commit_row_word.val()
                    + (bit_cast::<32, 8>(self.id.val()) << self.commit_shift.val());
                self.bc_commit.next = true;
                self.cp_last.next = self.support.val().get_bits::<4>(0) + 1;
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() & self.sealing.q.val() {
                    // Seal mode: W is committed (L covers it); back to VIEW,
                    // no R11 or R12 while sealing (recovery.md V2).
                    self.clear_wait.next = true;
                    self.stop.next = true;
                    self.state.d.next = SlowSt::Off;
                } else if self.bc_done.val() {
                    // Its own COMMIT counts (R12).
                    self.clear_wait.next = true;
                    self.delivered.d.next = self.one8.val() << self.id.val();
                    self.dcount.d.next = 1.into();
                    self.vetoed.d.next = 0.into();
                    self.ctorn.d.next = 0.into();
                    self.retry.d.next = false;
                    self.x.d.next = 0.into();
                    self.xn.d.next = 0.into();
                    if self.support.val() == 1 {
                        self.decide.next = true;
                        self.state.d.next = SlowSt::Off;
                    } else {
                        self.state.d.next = SlowSt::SlowPollCommit;
                    }
                }
            }
            SlowSt::SlowPollCommit => {
                // R11: commit[s(k)][x] for each peer x in turn, its first
                // two beats (the block and x's signature).
                if self.x.q.val() >= self.n.val() {
                    // A turn over every peer: a miss (deliver mode: one
                    // turn only, then back to VIEW).
                    self.x.d.next = 0.into();
                    self.xn.d.next = 0.into();
                    self.missed.next = true;
                    if self.exp.val() | self.delivering.q.val() {
                        self.stop.next = true;
                        self.state.d.next = SlowSt::Off;
                    }
                } else if ((self.delivered.q.val() | self.vetoed.q.val())
                    & (self.one8.val() << self.x.q.val()))
                    != 0
                {
                    self.x.d.next = self.x.q.val() + 1;
                    self.xn.d.next = self.xn.q.val() + bit_cast::<16, 8>(self.row_n.val());
                } else {
                    self.fetch_start.next = true;
                    self.fetch_pair.next = true;
                    self.fetch_word.next = self.commit_row_word.val()
                        + (bit_cast::<32, 8>(self.x.q.val()) << self.commit_shift.val());
                    self.beat_i.d.next = 0.into();
                    self.blk_ok.d.next = false;
                    self.state.d.next = SlowSt::SlowWaitCommit;
                }
            }
            SlowSt::SlowWaitCommit => {
                // x's block must be this replica's K with j = x; x's
                // signature goes into COMPOSE beat 15.
                self.blk_j.next = self.x.q.val();
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next = 15.into();
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.beat_i.q.val() == 0 {
                        self.blk_ok.d.next =
                            self.fetch_beat.val().get_bits::<BB>(0) == self.commit_block.val();
                    } else {
                        self.cp_wr_en.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.blk_ok.q.val() {
                        self.sent.d.next = false;
                        self.rd.d.next = false;
                        self.state.d.next = SlowSt::SlowVerifyCommit;
                    } else {
                        self.missed.next = true;
                        self.x.d.next = self.x.q.val() + 1;
                        self.xn.d.next = self.xn.q.val() + bit_cast::<16, 8>(self.row_n.val());
                        if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollCommit;
                        }
                    }
                }
            }
            SlowSt::SlowVerifyCommit => {
                // R11.1: x's signature over its COMMIT block.
                self.blk_j.next = self.x.q.val();
                self.sg_commit.next = true;
                self.sg_compose.next = true;
                self.sg_signer.next = self.x.q.val();
                self.cp_first.next = 15.into();
                self.cp_last.next = 15.into();
                if !self.sent.q.val() {
                    if !self.rd.q.val() {
                        self.rd.d.next = true;
                    } else if !self.sg_busy.val() {
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // R11.2: echo it, if higher than what this
                        // replica's echo_commit[x][id] holds.
                        self.state.d.next = SlowSt::SlowPollOwnEcho;
                    } else {
                        self.bad_share.next = true;
                        self.missed.next = true;
                        // Read again once (a read may be torn), then
                        // passed over: x's COMMIT is never counted.
                        if (self.ctorn.q.val() & (self.one8.val() << self.x.q.val())) != 0 {
                            self.vetoed.d.next =
                                self.vetoed.q.val() | (self.one8.val() << self.x.q.val());
                        }
                        self.ctorn.d.next =
                            self.ctorn.q.val() | (self.one8.val() << self.x.q.val());
                        self.x.d.next = self.x.q.val() + 1;
                        self.xn.d.next = self.xn.q.val() + bit_cast::<16, 8>(self.row_n.val());
                        if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollCommit;
                        }
                    }
                }
            }
            SlowSt::SlowPollOwnEcho => {
                // echo_commit[x][id]: written only by this replica (one
                // beat: neither a pair nor a row).
                self.fetch_start.next = true;
                self.fetch_word.next =
                    self.echo_commit_base.val() + (bit_cast::<32, 16>(self.xid.val()) << 5);
                self.state.d.next = SlowSt::SlowWaitOwnEcho;
            }
            SlowSt::SlowWaitOwnEcho => {
                // (One beat: it comes with `done`.) A higher entry stays:
                // Lemma 2's register only grows (recovery.md D11.8).
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.own_higher.val() {
                        self.state.d.next = SlowSt::SlowPollSeal;
                    } else {
                        self.sent.d.next = false;
                        self.state.d.next = SlowSt::SlowEchoCommit;
                    }
                }
            }
            SlowSt::SlowEchoCommit => {
                // R11.2: echo it in a round (the block, then x's signature
                // from COMPOSE beat 15).
                self.blk_j.next = self.x.q.val();
                self.cp_first.next = 15.into();
                self.cp_last.next = 15.into();
                self.bc_word.next =
                    self.echo_commit_base.val() + (bit_cast::<32, 16>(self.xid.val()) << 5);
                self.bc_echo_commit.next = true;
                if !self.sent.q.val() {
                    self.bc_start.next = true;
                    self.bc_round.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = true;
                } else if self.round_error.val() {
                    self.stop.next = true;
                    self.state.d.next = SlowSt::Off;
                } else if self.round_done.val() {
                    self.state.d.next = SlowSt::SlowPollSeal;
                }
            }
            SlowSt::SlowPollSeal => {
                // R11.3: seal[x], then echo_seal[x][*].
                self.fetch_start.next = true;
                self.fetch_pair.next = true;
                self.fetch_word.next =
                    self.seal_base.val() + (bit_cast::<32, 8>(self.x.q.val()) << 5);
                self.beat_i.d.next = 0.into();
                self.sus.d.next = false;
                self.grab.d.next = false;
                self.state.d.next = SlowSt::SlowWaitSeal;
            }
            SlowSt::SlowWaitSeal => {
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.grab.q.val() {
                        self.sus_sg.d.next = self.fetch_beat.val();
                        self.grab.d.next = false;
                    } else if (self.beat_i.q.val() == 0) & self.seal_like.val() {
                        self.sus.d.next = true;
                        self.sus_blk.d.next = self.fetch_beat.val().get_bits::<BB>(0);
                        self.grab.d.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        // A failed read finds nothing: a miss.
                        self.missed.next = true;
                        if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollSeal;
                        }
                    } else if self.sus.q.val() {
                        self.sus_seal.d.next = true;
                        self.sent.d.next = false;
                        self.state.d.next = SlowSt::SlowVerifySeal;
                    } else {
                        self.checked_any.d.next = false;
                        self.state.d.next = SlowSt::SlowPollEchoSeal;
                    }
                }
            }
            SlowSt::SlowPollEchoSeal => {
                self.fetch_start.next = true;
                self.fetch_row.next = true;
                self.fetch_word.next =
                    self.echo_seal_base.val() + (bit_cast::<32, 16>(self.xn.q.val()) << 5);
                self.beat_i.d.next = 0.into();
                self.sus.d.next = false;
                self.grab.d.next = false;
                self.state.d.next = SlowSt::SlowWaitEchoSeal;
            }
            SlowSt::SlowWaitEchoSeal => {
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.grab.q.val() {
                        self.sus_sg.d.next = self.fetch_beat.val();
                        self.grab.d.next = false;
                    } else if !self.sus.q.val()
                        & !self.beat_i.q.val().get_bit(0)
                        & (self.entry.val() < self.n.val())
                        & (!self.checked_any.q.val() | (self.entry.val() > self.checked.q.val()))
                        & self.seal_like.val()
                    {
                        self.sus.d.next = true;
                        self.sus_j.d.next = self.entry.val();
                        self.sus_blk.d.next = self.fetch_beat.val().get_bits::<BB>(0);
                        self.grab.d.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        // A failed read finds nothing: a miss.
                        self.missed.next = true;
                        if self.exp.val() {
                            self.stop.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.state.d.next = SlowSt::SlowPollEchoSeal;
                        }
                    } else if self.sus.q.val() {
                        self.sus_seal.d.next = false;
                        self.sent.d.next = false;
                        self.state.d.next = SlowSt::SlowVerifySeal;
                    } else {
                        // R11.4: x's COMMIT is delivered. R12: f + 1 of
                        // them for this replica's block decide the slot.
                        self.clear_wait.next = true;
                        self.retry.d.next = false;
                        self.delivered.d.next =
                            self.delivered.q.val() | (self.one8.val() << self.x.q.val());
                        self.dcount.d.next = self.dcount.q.val() + 1;
                        if (self.dcount.q.val() + 1) >= self.support.val() {
                            self.decide.next = true;
                            self.state.d.next = SlowSt::Off;
                        } else {
                            self.x.d.next = self.x.q.val() + 1;
                            self.xn.d.next = self.xn.q.val() + bit_cast::<16, 8>(self.row_n.val());
                            self.state.d.next = SlowSt::SlowPollCommit;
                        }
                    }
                }
            }
            SlowSt::SlowVerifySeal => {
                // A SEAL of x for a view >= w, signed by x, vetoes x's
                // COMMIT (x sealed w); a forged one is passed over.
                self.sg_sus.next = true;
                self.sg_signer.next = self.x.q.val();
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        self.retry.d.next = false;
                        self.vetoed.d.next =
                            self.vetoed.q.val() | (self.one8.val() << self.x.q.val());
                        self.x.d.next = self.x.q.val() + 1;
                        self.xn.d.next = self.xn.q.val() + bit_cast::<16, 8>(self.row_n.val());
                        self.state.d.next = SlowSt::SlowPollCommit;
                    } else if !self.retry.q.val()
                        | (self.retry_seal.q.val() != self.sus_seal.q.val())
                        | (!self.sus_seal.q.val() & (self.retry_j.q.val() != self.sus_j.q.val()))
                    {
                        // The first failure of this SEAL: read it again
                        // (the same entry is the first suspect again).
                        self.retry.d.next = true;
                        self.retry_seal.d.next = self.sus_seal.q.val();
                        self.retry_j.d.next = self.sus_j.q.val();
                        if self.sus_seal.q.val() {
                            self.state.d.next = SlowSt::SlowPollSeal;
                        } else {
                            self.state.d.next = SlowSt::SlowPollEchoSeal;
                        }
                    } else {
                        // Failed twice: forged (or torn twice), passed over.
                        self.retry.d.next = false;
                        if self.sus_seal.q.val() {
                            self.checked_any.d.next = false;
                        } else {
                            self.checked.d.next = self.sus_j.q.val();
                            self.checked_any.d.next = true;
                        }
                        self.state.d.next = SlowSt::SlowPollEchoSeal;
                    }
                }
            }
            _ => {
                self.state.d.next = SlowSt::Off;
            }
        }
        // A failed adoption in normal mode, or from a record while
        // bridging: back to the poll it left, with what it verified for D
        // forgotten.
        if self.to_back.val() {
            self.adopting.d.next = false;
            self.verified.d.next = 0.into();
            self.torn.d.next = 0.into();
            self.bad.d.next = 0.into();
            self.state.d.next = self.back.q.val();
        }
        // Deliver mode asks no `clear_wait`: its polls are VIEW's T_vc
        // wait's.
        if self.delivering.q.val() {
            self.clear_wait.next = false;
        }
        // R26 found by WATCH: Protocol takes the slot back at a poll state,
        // before the poll starts (nothing of this machine is in flight).
        self.at_poll.next = (self.state.q.val() == SlowSt::SlowPollPrepSig)
            | (self.state.q.val() == SlowSt::SlowPollEchoPrep)
            | (self.state.q.val() == SlowSt::SlowPollCertify)
            | (self.state.q.val() == SlowSt::SlowPollCommit)
            | (self.state.q.val() == SlowSt::SlowPollSeal)
            | (self.state.q.val() == SlowSt::SlowPollEchoSeal);
        self.undelivered.next = ((self.state.q.val() == SlowSt::SlowPollPrepSig)
            | (self.state.q.val() == SlowSt::SlowWaitPrepSig)
            | (self.state.q.val() == SlowSt::SlowVerifyPrep)
            | (self.state.q.val() == SlowSt::SlowEchoPrep)
            | (self.state.q.val() == SlowSt::SlowPollEchoPrep)
            | (self.state.q.val() == SlowSt::SlowWaitEchoPrep)
            | (self.state.q.val() == SlowSt::SlowVerifySuspect)
            | (self.state.q.val() == SlowSt::SlowPollLocks)
            | (self.state.q.val() == SlowSt::SlowWaitLocks))
            & !self.sealing.q.val()
            & !self.delivering.q.val()
            & !self.adopting.q.val();
        if ((self.state.q.val() == SlowSt::SlowPollCertify)
            | (self.state.q.val() == SlowSt::SlowWaitCertify))
            & self.base_waited.val()
            & !self.sealing.q.val()
            & !self.delivering.q.val()
            & !self.adopting.q.val()
        {
            self.short.d.next = true;
        }
        self.blocked.next = ((self.bad.q.val() != 0) | self.short.q.val())
            & (self.state.q.val() != SlowSt::Off)
            & (self.state.q.val() != SlowSt::SlowStart)
            & !self.sealing.q.val()
            & !self.delivering.q.val()
            & !self.adopting.q.val();
        self.holding.next = self.state.q.val() != SlowSt::Off;
        if self.abort.val() & self.at_poll.val() {
            self.fetch_start.next = false;
            self.missed.next = false;
            self.stop.next = false;
            self.state.d.next = SlowSt::Off;
        } else if self.adopt.val() & self.at_poll.val() {
            // Bridging, or in normal mode: Protocol granted an adoption
            // (D11.13; R10's second half). `back` keeps the poll state.
            self.fetch_start.next = false;
            self.fetch_word.next = 0.into();
            self.fetch_pair.next = false;
            self.fetch_row.next = false;
            self.missed.next = false;
            self.stop.next = false;
            self.clear_wait.next = false;
            self.adopting.d.next = true;
            self.rowing.d.next = self.adopt_row.val();
            self.back.d.next = self.state.q.val();
            self.torn.d.next = 0.into();
            self.bad.d.next = 0.into();
            if self.adopt_row.val() {
                // D's certificate from the certify row (R17): every share
                // taken is verified, its own too.
                self.verified.d.next = 0.into();
                self.state.d.next = SlowSt::SlowPollCertify;
            } else {
                self.state.d.next = SlowSt::SlowPollRecord;
            }
        } else if self.hold.val() & self.at_poll.val() {
            self.fetch_start.next = false;
            self.fetch_word.next = 0.into();
            self.fetch_pair.next = false;
            self.fetch_row.next = false;
            self.missed.next = false;
            self.stop.next = false;
            self.clear_wait.next = false;
            self.state.d.next = self.state.q.val();
        }
        if !self.rst_n.val() {
            self.state.d.next = SlowSt::Off;
        }
        match self.state.q.val() {
            SlowSt::SlowStart => {
                self.sts_state.next = 40.into();
            }
            SlowSt::SlowPollLocks => {
                self.sts_state.next = 102.into();
            }
            SlowSt::SlowWaitLocks => {
                self.sts_state.next = 103.into();
            }
            SlowSt::SlowSendVote => {
                self.sts_state.next = 104.into();
            }
            SlowSt::SlowSignPrep => {
                self.sts_state.next = 41.into();
            }
            SlowSt::SlowSendPrepSig => {
                self.sts_state.next = 42.into();
            }
            SlowSt::SlowPollPrepSig => {
                self.sts_state.next = 43.into();
            }
            SlowSt::SlowWaitPrepSig => {
                self.sts_state.next = 44.into();
            }
            SlowSt::SlowVerifyPrep => {
                self.sts_state.next = 45.into();
            }
            SlowSt::SlowEchoPrep => {
                self.sts_state.next = 46.into();
            }
            SlowSt::SlowPollEchoPrep => {
                self.sts_state.next = 47.into();
            }
            SlowSt::SlowWaitEchoPrep => {
                self.sts_state.next = 48.into();
            }
            SlowSt::SlowVerifySuspect => {
                self.sts_state.next = 49.into();
            }
            SlowSt::SlowSignCert => {
                self.sts_state.next = 50.into();
            }
            SlowSt::SlowSendCert => {
                self.sts_state.next = 51.into();
            }
            SlowSt::SlowPollCertify => {
                self.sts_state.next = 52.into();
            }
            SlowSt::SlowWaitCertify => {
                self.sts_state.next = 53.into();
            }
            SlowSt::SlowVerifyShare => {
                self.sts_state.next = 54.into();
            }
            SlowSt::SlowSignCommit => {
                self.sts_state.next = 55.into();
            }
            SlowSt::SlowSendCommit => {
                self.sts_state.next = 56.into();
            }
            SlowSt::SlowPollCommit => {
                self.sts_state.next = 57.into();
            }
            SlowSt::SlowWaitCommit => {
                self.sts_state.next = 58.into();
            }
            SlowSt::SlowVerifyCommit => {
                self.sts_state.next = 59.into();
            }
            SlowSt::SlowPollOwnEcho => {
                self.sts_state.next = 97.into();
            }
            SlowSt::SlowWaitOwnEcho => {
                self.sts_state.next = 98.into();
            }
            SlowSt::SlowPollRecord => {
                self.sts_state.next = 99.into();
            }
            SlowSt::SlowWaitRecord => {
                self.sts_state.next = 100.into();
            }
            SlowSt::SlowEchoCommit => {
                self.sts_state.next = 60.into();
            }
            SlowSt::SlowPollSeal => {
                self.sts_state.next = 61.into();
            }
            SlowSt::SlowWaitSeal => {
                self.sts_state.next = 62.into();
            }
            SlowSt::SlowPollEchoSeal => {
                self.sts_state.next = 63.into();
            }
            SlowSt::SlowWaitEchoSeal => {
                self.sts_state.next = 64.into();
            }
            SlowSt::SlowVerifySeal => {
                self.sts_state.next = 65.into();
            }
            _ => {
                self.sts_state.next = 0.into();
            }
        }
    }
}
