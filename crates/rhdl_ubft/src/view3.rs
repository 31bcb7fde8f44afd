//! View3: the v3 build's VIEW machine, R14 to R22 without a carried value.
//!
//! The v3 build (`Protocol::new_v3`) hands the slot to this machine where
//! v2 would start VIEW: LEADER's idle timeout, FAST's timeout with nothing
//! locked, and Slow3's `stop`. docs/recovery.md D11 designs the whole view
//! change; this block builds the part that needs no bridge and carries no
//! value (D11.12 steps 1 and 2; docs/view3.md, "What is built"):
//!
//! - R14, R18: with no obligation (Protocol's `ob`: no will_commit of its
//!   own that its latest COMMIT L does not cover), sign the SEAL block
//!   S = [4, id, v, L.w, L.c, L.m, L.prev, L present] and write seal[id]
//!   (S, then the signature) into every mailbox; then view + 1. With an
//!   obligation the bridge (R16, R17) would have to run first: it is not
//!   built, and the machine hands back with `stop` (Protocol stops with
//!   `RecoveryNotBuilt`, error 7).
//! - R19 (the new leader): read the seal row (2N beats); take its own SEAL
//!   and the first f other well-formed SEALs of views >= view - 1 whose
//!   writers have not failed, copying each (block, signature) into COMPOSE
//!   beats 1 + 2p, 2 + 2p in ascending replica order (p its rank).
//! - R21 for each taken SEAL of x != id, in rank order: verify x's
//!   signature; unless echo_seal[x][id] holds a SEAL of x of a later
//!   view, write the SEAL there in a round (R13); read the
//!   echo_commit[x] row: a COMMIT of x that x signed, which a SEAL without
//!   L does not cover, proves the SEAL false. The leader then drops x
//!   (`failed`) and collects again; a follower refuses the NEW_VIEW and
//!   seals the next view. A suspect COMMIT whose signature fails is read
//!   again once before it is passed over (a read may be torn, recovery.md
//!   D11.10); a SEAL whose signature fails is dropped by the leader after
//!   its second failure (`once`, `failed`) and is a miss for a follower.
//! - R19 (the new leader): write NEW_VIEW(view) = [view, sb, 0] and the
//!   f + 1 SEALs from COMPOSE into every mailbox, and install.
//! - R22 (a follower): poll new_view's first beat until it names this view,
//!   then read it whole (2f + 3 beats) into COMPOSE, checking its form as it
//!   arrives (f + 1 seals in ascending replica order, each of a replica in
//!   its bitmap, of a view >= view - 1, well formed), then R21 for each
//!   SEAL but its own (recovery.md V9), and install.
//! - Install (R22 without c*): votes from here on are cast in the new
//!   view (`open_round`), and LEADER starts at the same k.
//!
//! A SEAL that carries an L (a COMMIT of its writer) needs the carried
//! certificate and the constraint (R20, R23, D11.12 step 3): not built, so
//! a leader that takes one, or a follower that reads one in a NEW_VIEW,
//! hands back with `stop` (error 7).
//!
//! T_vc: every poll here that finds nothing is a miss, and the
//! (`wait_polls` << `streak`)-th in a row (`expiring`) starts the machine
//! again, sealing the view it is in (each SEAL also doubles the timeout:
//! `next_view` adds one to `streak`).
//!
//! States (`sts_state` number, as in `protocol::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | V3Start |
//! | 66 | V3Start | a signer response due is dropped; Setup and Broadcast idle | V3Turn |
//! | 67 | V3Turn | an obligation (`ob`) / none | Off, `stop` (the bridge is not built) / V3SignSeal (Setup `sign` of S) |
//! | 68 | V3SignSeal | the response: OK / an error | V3SendSeal (COMPOSE beat 1 := the signature) / V3SignSeal (again) |
//! | 69 | V3SendSeal | (first cycle: Broadcast and COMPOSE start, 2 beats to seal[id]) Broadcast's `done` | `next_view`; this replica leads view + 1: V3PollSeals / else V3PollNv |
//! | 70 | V3PollSeals | (fetch of the seal row, 2N beats) | V3WaitSeals |
//! | 71 | V3WaitSeals | the fetch is done: f + 1 taken, none with L / one with L / fewer, or an error | V3Next (p := 0) / Off, `stop` / V3PollSeals (a miss; V3Start if it times out) |
//! | 72 | V3Next | p = f + 1 / else | leader V3SendNv, follower V3Install / V3Load |
//! | 73 | V3Load | (two cycles: COMPOSE reads SEAL p's block, then points at its signature) x = id / else | V3Next (p + 1) / V3Verify |
//! | 74 | V3Verify | (Setup `verify` of the block under x, signature from COMPOSE) OK / an error | V3PollOwnEcho / leader: `once` or `failed` += x, V3PollSeals; follower V3PollNv (a miss, `bad_share`) |
//! | 75 | V3PollOwnEcho | (fetch of echo_seal[x][id], one beat) | V3WaitOwnEcho |
//! | 76 | V3WaitOwnEcho | the fetch is done: it holds a SEAL of x of a later view than the block's / not | V3PollEchoCommit / V3SendEchoSeal |
//! | 77 | V3SendEchoSeal | (first cycle: a round of the block and its signature to echo_seal[x][id]) `round_done` / `round_error` | V3PollEchoCommit / leader V3PollSeals, follower V3PollNv (a miss) |
//! | 78 | V3PollEchoCommit | (fetch of the echo_commit[x] row, 2N beats) | V3WaitEchoCommit |
//! | 79 | V3WaitEchoCommit | the fetch is done: an error / a COMMIT of x above `checked` (kept; its signature into COMPOSE beat 15) / none | V3PollEchoCommit (a miss) / V3VerifySuspect / V3Next (p + 1) |
//! | 80 | V3VerifySuspect | the response (`verify` under x): OK / an error, the first / an error, the second | leader `failed` += x, V3PollSeals; follower V3Start (refused) / V3PollEchoCommit (read again) / V3PollEchoCommit (`checked` := the entry) |
//! | 81 | V3SendNv | (first cycle: Broadcast and COMPOSE start, 2f + 3 beats to new_view) Broadcast's `done` | V3Install |
//! | 82 | V3PollNv | (fetch of new_view's first beat) | V3WaitNv |
//! | 83 | V3WaitNv | the fetch is done: word 0 is this view / not / not, and it times out | V3PollNvRec / V3PollNv (a miss) / V3Start |
//! | 84 | V3PollNvRec | (fetch of new_view, 2f + 3 beats, each into COMPOSE at its index) | V3WaitNvRec |
//! | 85 | V3WaitNvRec | the fetch is done: well formed, no L / well formed, an L / not | V3Next (p := 0) / Off, `stop` / V3PollNv (a miss) |
//! | 86 | V3Install | (`open_round`) | Off, `start_leader` |
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
//! `open_round`, `clear_wait`, `missed`, `bad_share`; `stop`,
//! `start_leader`.
//!
//! Timing: a request leaves in the cycle its state is entered when the
//! signer can take it (one at a time, as Slow3's). A fetched record is
//! checked beat by beat as it arrives. COMPOSE's read beat is the one
//! `cp_first` named the cycle before. Handovers are combinational.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use rust_hdl::prelude::*;

/// View3's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum View3St {
    Off,
    V3Start,
    V3Turn,
    V3SignSeal,
    V3SendSeal,
    V3PollSeals,
    V3WaitSeals,
    V3Next,
    V3Load,
    V3Verify,
    V3PollOwnEcho,
    V3WaitOwnEcho,
    V3SendEchoSeal,
    V3PollEchoCommit,
    V3WaitEchoCommit,
    V3VerifySuspect,
    V3SendNv,
    V3PollNv,
    V3WaitNv,
    V3PollNvRec,
    V3WaitNvRec,
    V3Install,
}

/// Every state, in declaration order.
pub const VIEW3_STATES: [View3St; 22] = [
    View3St::Off,
    View3St::V3Start,
    View3St::V3Turn,
    View3St::V3SignSeal,
    View3St::V3SendSeal,
    View3St::V3PollSeals,
    View3St::V3WaitSeals,
    View3St::V3Next,
    View3St::V3Load,
    View3St::V3Verify,
    View3St::V3PollOwnEcho,
    View3St::V3WaitOwnEcho,
    View3St::V3SendEchoSeal,
    View3St::V3PollEchoCommit,
    View3St::V3WaitEchoCommit,
    View3St::V3VerifySuspect,
    View3St::V3SendNv,
    View3St::V3PollNv,
    View3St::V3WaitNv,
    View3St::V3PollNvRec,
    View3St::V3WaitNvRec,
    View3St::V3Install,
];

/// The signed block's width (`layout::field3::BLOCK_BITS`).
const BB: usize = crate::layout::field3::BLOCK_BITS;

#[derive(LogicBlock)]
pub struct View3 {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    /// One cycle, as the machine goes Off without a new view: what follows
    /// is not built (the bridge, or a carried value), and Protocol stops
    /// the run with `RecoveryNotBuilt`.
    pub stop: Signal<Out, Bit>,
    /// One cycle, as the machine goes Off: the new view is installed and
    /// LEADER starts at the same k.
    pub start_leader: Signal<Out, Bit>,
    /// The machine holds the slot (not Off).
    pub holding: Signal<Out, Bit>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    /// f + 1.
    pub support: Signal<In, Bits<8>>,
    pub view_no: Signal<In, Bits<32>>,
    /// The leader of view + 1 (Protocol's `next_leader`).
    pub next_leader: Signal<In, Bits<8>>,
    /// The obligation (D11.2): a will_commit of this replica's that its
    /// latest COMMIT does not cover.
    pub ob: Signal<In, Bit>,
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
    // Requests to Protocol.
    pub next_view: Signal<Out, Bit>,
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
    state: DFF<View3St>,
    /// A request is out (sign and verify states), or Broadcast not yet
    /// started (send states).
    sent: DFF<Bit>,
    /// COMPOSE's read is settled (load and verify states).
    rd: DFF<Bit>,
    /// This replica leads the view it waits in (collects, not polls).
    lead: DFF<Bit>,
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
    /// 2 cnt, 2 p, 2 (f + 1): COMPOSE beat indices and lengths.
    cnt2: Signal<Local, Bits<4>>,
    p2: Signal<Local, Bits<4>>,
    sup2: Signal<Local, Bits<5>>,
    /// view - 1 (a SEAL's view word is at least this).
    view_m1: Signal<Local, Bits<32>>,
    status_ok: Constant<Bits<8>>,
    kind_seal: Constant<Bits<32>>,
    kind_commit: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
}

/// The literals `update` holds: a SEAL and a COMMIT block as
/// `layout::field3` lays them out, and records of two beats in seal,
/// echo_seal and echo_commit (`<< 5`, `beat_i >> 1`).
pub fn check_literals() {
    use crate::layout::{field3, stride3_beats, Region};
    use crate::params::WORD_BITS;
    assert_eq!(
        [
            field3::KIND,
            field3::SEAL_J,
            field3::SEAL_V,
            field3::SEAL_LW,
            field3::SEAL_LPRESENT
        ]
        .map(|w| w * WORD_BITS),
        [0, 32, 64, 96, 224],
        "view3.rs: a SEAL's kind, j, v, L (96..224) and L present (224)"
    );
    assert_eq!(
        [field3::COMMIT_J, field3::COMMIT_PREV + 1].map(|w| w * WORD_BITS),
        [32, 192],
        "view3.rs: a COMMIT's j at 32, zero from 192"
    );
    assert_eq!(
        [field3::NV_VIEW, field3::NV_SEALS, field3::NV_CERT].map(|w| w * WORD_BITS),
        [0, 32, 64],
        "view3.rs: new_view's header (view, sb << 32, cb << 64)"
    );
    for n in [1, 3, 5, 7, 8] {
        for r in [Region::Seal, Region::EchoSeal, Region::EchoCommit] {
            assert_eq!(
                stride3_beats(r, n, crate::params::SB),
                2,
                "view3.rs: {r:?} entries of two beats (<< 5, beat_i >> 1)"
            );
        }
    }
}

impl Default for View3 {
    fn default() -> Self {
        check_literals();
        View3 {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            start_leader: Default::default(),
            holding: Default::default(),
            id: Default::default(),
            n: Default::default(),
            support: Default::default(),
            view_no: Default::default(),
            next_leader: Default::default(),
            ob: Default::default(),
            expiring: Default::default(),
            seal_own_word: Default::default(),
            seal_row_word: Default::default(),
            new_view_word: Default::default(),
            echo_seal_base: Default::default(),
            echo_commit_base: Default::default(),
            row_log: Default::default(),
            row2_len: Default::default(),
            next_view: Default::default(),
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
            beat_i: Default::default(),
            cnt: Default::default(),
            others: Default::default(),
            sb: Default::default(),
            take: Default::default(),
            has_l: Default::default(),
            once: Default::default(),
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
            entry: Default::default(),
            wf_seal: Default::default(),
            seal_cand: Default::default(),
            nv_seal: Default::default(),
            suspect: Default::default(),
            x_row: Default::default(),
            view_m1: Default::default(),
            cnt2: Default::default(),
            p2: Default::default(),
            sup2: Default::default(),
            status_ok: Constant::new(crate::setup::code::OK.into()),
            kind_seal: Constant::new((crate::layout::field3::KIND_SEAL as u64).into()),
            kind_commit: Constant::new((crate::layout::field3::KIND_COMMIT as u64).into()),
            one8: Constant::new(1u64.into()),
        }
    }
}

impl View3 {
    /// The state register.
    pub fn state(&self) -> View3St {
        self.state.q.val()
    }

    /// Is the machine holding the slot (not Off)?
    pub fn active(&self) -> bool {
        self.state.q.val() != View3St::Off
    }

    /// The number `sts_state` reports in state `st`, read from the logic.
    pub fn reported(st: View3St) -> u8 {
        let mut b = Self::default();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl Logic for View3 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            sent,
            rd,
            lead,
            beat_i,
            cnt,
            others,
            sb,
            take,
            has_l,
            once,
            failed,
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
            retry
        );
        self.entry.next = self.beat_i.q.val() >> 1;
        self.view_m1.next = self.view_no.val() - 1;
        self.cnt2.next = bit_cast::<4, 8>(self.cnt.q.val()) << 1;
        self.p2.next = bit_cast::<4, 8>(self.p.q.val()) << 1;
        self.sup2.next = bit_cast::<5, 8>(self.support.val()) << 1;
        // The checks of a fetched beat, each computed only in the state that
        // reads it (0 elsewhere): the simulator skips their 256-bit compares
        // while the machine is Off, as it is in v2 and on the fast path
        // (a small saving: performance.md, "Simulation cost of the v3
        // machines").
        self.wf_seal.next = false;
        self.seal_cand.next = false;
        self.nv_seal.next = false;
        self.suspect.next = false;
        self.own_echo.next = false;
        if (self.state.q.val() == View3St::V3WaitSeals)
            | (self.state.q.val() == View3St::V3WaitNvRec)
        {
            // A SEAL block on the fetch, well formed: L present is 1, or 0
            // with L's words zero (layout::field3::well_formed).
            self.wf_seal.next = (self.fetch_beat.val().get_bits::<32>(0) == self.kind_seal.val())
                & ((self.fetch_beat.val().get_bits::<32>(224) == 1)
                    | ((self.fetch_beat.val().get_bits::<32>(224) == 0)
                        & (self.fetch_beat.val().get_bits::<128>(96) == 0)));
        }
        if self.state.q.val() == View3St::V3WaitSeals {
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
        if self.state.q.val() == View3St::V3WaitNvRec {
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
                & (self.fetch_beat.val().get_bits::<32>(64) >= self.view_m1.val());
        }
        if self.state.q.val() == View3St::V3WaitEchoCommit {
            // R21: an echo_commit[x] entry above those passed over holding a
            // COMMIT block of x (no L: any COMMIT of x is above the SEAL's).
            self.suspect.next = !self.beat_i.q.val().get_bit(0)
                & (self.entry.val() < self.n.val())
                & (!self.checked_any.q.val() | (self.entry.val() > self.checked.q.val()))
                & (self.fetch_beat.val().get_bits::<32>(0) == self.kind_commit.val())
                & (self.fetch_beat.val().get_bits::<32>(32) == bit_cast::<32, 8>(self.x.q.val()))
                & (self.fetch_beat.val().get_bits::<64>(192) == 0);
        }
        if self.state.q.val() == View3St::V3WaitOwnEcho {
            // echo_seal[x][id] holds a SEAL of x of a later view.
            self.own_echo.next = (self.fetch_beat.val().get_bits::<32>(0) == self.kind_seal.val())
                & (self.fetch_beat.val().get_bits::<32>(32) == bit_cast::<32, 8>(self.x.q.val()))
                & (self.fetch_beat.val().get_bits::<32>(64) > self.blk.q.val().get_bits::<32>(64));
        }
        self.x_row.next = bit_cast::<32, 8>(self.x.q.val()) << self.row_log.val();
        // Outputs are zero unless a state drives them (see leader.rs).
        self.stop.next = false;
        self.start_leader.next = false;
        self.holding.next = self.state.q.val() != View3St::Off;
        self.next_view.next = false;
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
        match self.state.q.val() {
            View3St::Off => {
                if self.start.val() {
                    self.state.d.next = View3St::V3Start;
                }
            }
            View3St::V3Start => {
                // R15: FAST is Off, so no vote follows. A signer response
                // still due is dropped; Setup and Broadcast drain.
                self.sent.d.next = false;
                self.rd.d.next = false;
                self.clear_wait.next = true;
                if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                } else if !self.sg_busy.val() & !self.bc_busy.val() {
                    self.state.d.next = View3St::V3Turn;
                }
            }
            View3St::V3Turn => {
                if self.ob.val() {
                    // R16, R17: the bridge is not built.
                    self.stop.next = true;
                    self.state.d.next = View3St::Off;
                } else {
                    // R18: seal.
                    self.sg_seal.next = true;
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                    self.state.d.next = View3St::V3SignSeal;
                }
            }
            View3St::V3SignSeal => {
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
                        self.state.d.next = View3St::V3SendSeal;
                    } else {
                        self.sent.d.next = false;
                    }
                }
            }
            View3St::V3SendSeal => {
                self.bc_word.next = self.seal_own_word.val();
                self.bc_seal.next = true;
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() {
                    self.next_view.next = true;
                    self.clear_wait.next = true;
                    self.once.d.next = 0.into();
                    self.failed.d.next = 0.into();
                    if self.next_leader.val() == self.id.val() {
                        self.lead.d.next = true;
                        self.state.d.next = View3St::V3PollSeals;
                    } else {
                        self.lead.d.next = false;
                        self.state.d.next = View3St::V3PollNv;
                    }
                }
            }
            View3St::V3PollSeals => {
                self.fetch_start.next = true;
                self.fetch_word.next = self.seal_row_word.val();
                self.fetch_len.next = self.row2_len.val();
                self.beat_i.d.next = 0.into();
                self.cnt.d.next = 0.into();
                self.others.d.next = 0.into();
                self.sb.d.next = 0.into();
                self.take.d.next = false;
                self.has_l.d.next = false;
                self.state.d.next = View3St::V3WaitSeals;
            }
            View3St::V3WaitSeals => {
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
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & (self.cnt.q.val() == self.support.val()) {
                        if self.has_l.q.val() {
                            // R20: a carried value is not built.
                            self.stop.next = true;
                            self.state.d.next = View3St::Off;
                        } else {
                            self.p.d.next = 0.into();
                            self.state.d.next = View3St::V3Next;
                        }
                    } else {
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = View3St::V3Start;
                        } else {
                            self.state.d.next = View3St::V3PollSeals;
                        }
                    }
                }
            }
            View3St::V3Next => {
                self.rd.d.next = false;
                self.sent.d.next = false;
                self.checked_any.d.next = false;
                self.retry.d.next = false;
                if self.p.q.val() == self.support.val() {
                    if self.lead.q.val() {
                        self.sent.d.next = true;
                        self.state.d.next = View3St::V3SendNv;
                    } else {
                        self.state.d.next = View3St::V3Install;
                    }
                } else {
                    self.state.d.next = View3St::V3Load;
                }
            }
            View3St::V3Load => {
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
                        self.state.d.next = View3St::V3Next;
                    } else {
                        self.state.d.next = View3St::V3Verify;
                    }
                } else {
                    self.rd.d.next = true;
                }
            }
            View3St::V3Verify => {
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
                        self.state.d.next = View3St::V3PollOwnEcho;
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
                            self.state.d.next = View3St::V3PollSeals;
                        } else {
                            self.state.d.next = View3St::V3PollNv;
                        }
                        if self.expiring.val() {
                            self.state.d.next = View3St::V3Start;
                        }
                    }
                }
            }
            View3St::V3PollOwnEcho => {
                // echo_seal[x][id]: written only by this replica.
                self.fetch_start.next = true;
                self.fetch_word.next = self.echo_seal_base.val()
                    + ((self.x_row.val() + bit_cast::<32, 8>(self.id.val())) << 5);
                self.fetch_len.next = 0.into();
                self.state.d.next = View3St::V3WaitOwnEcho;
            }
            View3St::V3WaitOwnEcho => {
                // (One beat: it comes with `done`.)
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.own_echo.val() {
                        self.state.d.next = View3St::V3PollEchoCommit;
                    } else {
                        self.sent.d.next = true;
                        self.state.d.next = View3St::V3SendEchoSeal;
                    }
                }
            }
            View3St::V3SendEchoSeal => {
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
                        self.state.d.next = View3St::V3Start;
                    } else if self.lead.q.val() {
                        self.state.d.next = View3St::V3PollSeals;
                    } else {
                        self.state.d.next = View3St::V3PollNv;
                    }
                } else if self.round_done.val() {
                    self.clear_wait.next = true;
                    self.state.d.next = View3St::V3PollEchoCommit;
                }
            }
            View3St::V3PollEchoCommit => {
                self.fetch_start.next = true;
                self.fetch_word.next = self.echo_commit_base.val() + (self.x_row.val() << 5);
                self.fetch_len.next = self.row2_len.val();
                self.beat_i.d.next = 0.into();
                self.sus.d.next = false;
                self.grab.d.next = false;
                self.state.d.next = View3St::V3WaitEchoCommit;
            }
            View3St::V3WaitEchoCommit => {
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
                            self.state.d.next = View3St::V3Start;
                        } else {
                            self.state.d.next = View3St::V3PollEchoCommit;
                        }
                    } else if self.sus.q.val() {
                        // (A suspect's block is never the row's last beat.)
                        self.sent.d.next = false;
                        self.rd.d.next = false;
                        self.state.d.next = View3St::V3VerifySuspect;
                    } else {
                        self.p.d.next = self.p.q.val() + 1;
                        self.state.d.next = View3St::V3Next;
                    }
                }
            }
            View3St::V3VerifySuspect => {
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
                            self.state.d.next = View3St::V3PollSeals;
                        } else {
                            self.state.d.next = View3St::V3Start;
                        }
                    } else if !self.retry.q.val() {
                        // Read the entry again before passing it over.
                        self.retry.d.next = true;
                        self.state.d.next = View3St::V3PollEchoCommit;
                    } else {
                        self.retry.d.next = false;
                        self.checked.d.next = self.sus_j.q.val();
                        self.checked_any.d.next = true;
                        self.state.d.next = View3St::V3PollEchoCommit;
                    }
                }
            }
            View3St::V3SendNv => {
                // NEW_VIEW(view): the header, then the f + 1 SEALs from
                // COMPOSE beats 1 to 2f + 2 (2f + 3 beats).
                self.bc_word.next = self.new_view_word.val();
                self.bc_nv.next = true;
                self.bc_beats.next = self.sup2.val() + 1;
                self.cp_first.next = 1.into();
                self.cp_last.next = bit_cast::<4, 5>(self.sup2.val());
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() {
                    self.state.d.next = View3St::V3Install;
                }
            }
            View3St::V3PollNv => {
                self.fetch_start.next = true;
                self.fetch_word.next = self.new_view_word.val();
                self.fetch_len.next = 0.into();
                self.state.d.next = View3St::V3WaitNv;
            }
            View3St::V3WaitNv => {
                // (One beat: it comes with `done`.)
                if self.fetch_done.val() {
                    if !self.fetch_error.val()
                        & (self.fetch_beat.val().get_bits::<32>(0) == self.view_no.val())
                    {
                        self.state.d.next = View3St::V3PollNvRec;
                    } else {
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = View3St::V3Start;
                        } else {
                            self.state.d.next = View3St::V3PollNv;
                        }
                    }
                }
            }
            View3St::V3PollNvRec => {
                // 2f + 3 beats: AxLEN 2(f + 1).
                self.fetch_start.next = true;
                self.fetch_word.next = self.new_view_word.val();
                self.fetch_len.next = self.support.val() << 1;
                self.beat_i.d.next = 0.into();
                self.cnt.d.next = 0.into();
                self.seen.d.next = 0.into();
                self.has_l.d.next = false;
                self.nv_ok.d.next = true;
                self.state.d.next = View3St::V3WaitNvRec;
            }
            View3St::V3WaitNvRec => {
                // Each beat into COMPOSE at its index (beat 0 too: unused).
                self.cp_from_fetch.next = true;
                self.cp_wr_beat.next = self.beat_i.q.val().get_bits::<4>(0);
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    self.cp_wr_en.next = true;
                    if self.beat_i.q.val() == 0 {
                        self.sb.d.next = self.fetch_beat.val().get_bits::<8>(32);
                        if (self.fetch_beat.val().get_bits::<32>(0) != self.view_no.val())
                            | (self.fetch_beat.val().get_bits::<24>(40) != 0)
                        {
                            self.nv_ok.d.next = false;
                        }
                    } else if self.beat_i.q.val().get_bit(0) {
                        // A SEAL block (beat 1 + 2i).
                        if self.nv_seal.val() {
                            self.cnt.d.next = self.cnt.q.val() + 1;
                            self.last_x.d.next = self.fetch_beat.val().get_bits::<8>(32);
                            self.seen.d.next = self.seen.q.val()
                                | (self.one8.val() << self.fetch_beat.val().get_bits::<8>(32));
                            if self.fetch_beat.val().get_bits::<32>(224) != 0 {
                                self.has_l.d.next = true;
                            }
                        } else {
                            self.nv_ok.d.next = false;
                        }
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val()
                        & self.nv_ok.q.val()
                        & (self.cnt.q.val() == self.support.val())
                        & (self.seen.q.val() == self.sb.q.val())
                    {
                        if self.has_l.q.val() {
                            // R23: a carried value is not built.
                            self.stop.next = true;
                            self.state.d.next = View3St::Off;
                        } else {
                            self.p.d.next = 0.into();
                            self.state.d.next = View3St::V3Next;
                        }
                    } else {
                        // Malformed, or torn: a miss (recovery.md V5).
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.state.d.next = View3St::V3Start;
                        } else {
                            self.state.d.next = View3St::V3PollNv;
                        }
                    }
                }
            }
            View3St::V3Install => {
                // R22: votes from here on are cast in this view; LEADER
                // starts at the same k (no carried value).
                self.open_round.next = true;
                self.start_leader.next = true;
                self.state.d.next = View3St::Off;
            }
            _ => {
                self.state.d.next = View3St::Off;
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = View3St::Off;
        }
        match self.state.q.val() {
            View3St::V3Start => {
                self.sts_state.next = 66.into();
            }
            View3St::V3Turn => {
                self.sts_state.next = 67.into();
            }
            View3St::V3SignSeal => {
                self.sts_state.next = 68.into();
            }
            View3St::V3SendSeal => {
                self.sts_state.next = 69.into();
            }
            View3St::V3PollSeals => {
                self.sts_state.next = 70.into();
            }
            View3St::V3WaitSeals => {
                self.sts_state.next = 71.into();
            }
            View3St::V3Next => {
                self.sts_state.next = 72.into();
            }
            View3St::V3Load => {
                self.sts_state.next = 73.into();
            }
            View3St::V3Verify => {
                self.sts_state.next = 74.into();
            }
            View3St::V3PollOwnEcho => {
                self.sts_state.next = 75.into();
            }
            View3St::V3WaitOwnEcho => {
                self.sts_state.next = 76.into();
            }
            View3St::V3SendEchoSeal => {
                self.sts_state.next = 77.into();
            }
            View3St::V3PollEchoCommit => {
                self.sts_state.next = 78.into();
            }
            View3St::V3WaitEchoCommit => {
                self.sts_state.next = 79.into();
            }
            View3St::V3VerifySuspect => {
                self.sts_state.next = 80.into();
            }
            View3St::V3SendNv => {
                self.sts_state.next = 81.into();
            }
            View3St::V3PollNv => {
                self.sts_state.next = 82.into();
            }
            View3St::V3WaitNv => {
                self.sts_state.next = 83.into();
            }
            View3St::V3PollNvRec => {
                self.sts_state.next = 84.into();
            }
            View3St::V3WaitNvRec => {
                self.sts_state.next = 85.into();
            }
            View3St::V3Install => {
                self.sts_state.next = 86.into();
            }
            _ => {
                self.sts_state.next = 0.into();
            }
        }
    }
}
