//! Grants: when WATCH's event is acted on, and by which machine
//! (combinational; docs/grants.md).
//!
//! WATCH (crate::controller::watch) polls while SLOW holds the slot and
//! while VIEW catches up or awaits a NEW_VIEW, and reports one event at a
//! time (`ev_*`) until it is taken (`take`). An event is granted at a poll
//! point of the slot's holder, where nothing of its own is in flight (no
//! fetch; no signer request, broadcast or round outstanding: `sg_busy`,
//! `bc_busy` low), and only while Protocol runs (`running`):
//!
//! | event | granted at | output | what follows |
//! | --- | --- | --- | --- |
//! | FULL_ROW (R26), ABOVE (R24) | SLOW's poll point in normal mode, VIEW's `catch_poll` | `grant`, `decide` | k is decided (SLOW aborted: `slow_abort`) |
//! | COMMIT of k + 1 (R24) | the same | `cc_start` | CertCheck verifies its certificate's f + 1 shares while the holder waits (`cc_hold`); passed, the event is as good as ABOVE (`above`); failed, it is taken |
//! | ABOVE or COMMIT of k + 1 while an obligation's W would fall out of the bridge's reach (`reach_ok` low, not bridging) | (not acted on) | `take` at once, `held_back` | recovery.md D11.16: the replica commits k itself first; Protocol has WATCH report it again once `reach_ok` rises (a FULL_ROW holds this replica's will_commit of k, so it is not held back) |
//! | SEALS (R14's trigger) | the same as FULL_ROW | `grant`, `seals` | VIEW seals (from SLOW: `seal_trigger`, a handover) |
//! | MINE (R25 while VIEW awaits: a peer's COMMIT of k on dec[k - 1]) | VIEW's `await_poll`, CertCheck idle | `dl_grant` | SLOW starts in deliver mode on its block, D; with `adopt_ok` (D of the awaited view or later, above L), in adopt mode too (`adopt_start`: R10's adoption, then R11) |
//! | MINE while bridging W at slot k (`adopt_ok`: of this view or a later one, above L) | SLOW's poll point (seal mode), CertCheck idle | `adopt` | SLOW turns to adopt mode at its poll point: it copies and verifies the COMMIT's certificate and commits D (R10's adoption, recovery.md D11.13), which covers W |
//! | MINE in SLOW's normal mode (`adopt_ok`: above L, of a later view or of this one before SLOW delivered k, SLOW not adopting already) | SLOW's poll point (normal mode), CertCheck idle | `adopt` | the same, then R11 and R12 on D (R10's second half); a certificate that fails takes SLOW back to the poll state it left |
//! | COMMIT of W.b + 1 on W.m while bridging (`adopt_next_ok`: of the view being sealed or later) | the same | `adopt`, `adopt_next` | the same, on D at slot W.b + 1: the COMMIT covers W (recovery.md R17) |
//! | ABOVE of W.b + 1 on W.m while bridging (`adopt_next_ok`) | the same | `adopt`, `adopt_next`, `adopt_row` | the same, on D at slot W.b + 1, from the certify row: SLOW reads the row's f + 1 shares over D's CERT block and verifies them (R10 on D) |
//! | NEW_VIEW; a MINE neither granted nor to adopt; any other event while bridging; a COMMIT not checked; FULL_ROW at a rerun slot (`rerun`) | (not acted on) | `take` at once | VIEW polls new_view itself; the rotation goes on; a rerun goes on to its own R12 (recovery.md D11.15) |
//!
//! `bridging` is SLOW in seal mode holding the slot (`seal_mode` is SLOW's
//! mode register, which stays up after it goes Off). A certificate of
//! W.b + 1 does not end the bridge by being seen: it ends it once this
//! replica commits it. A SEAL whose L is below W's slot could carry
//! nothing into the next view, and a Byzantine replica could then have a
//! laggard decide another value there (recovery.md R17; the model's
//! `recovery:discharge_b1`).
//!
//! Every output is assigned once, as one expression of the inputs.

use crate::controller::watch::ev;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Grants {
    /// WATCH's event: valid, its kind (`watch::ev`) and its prev.
    pub ev_valid: Signal<In, Bit>,
    pub ev_kind: Signal<In, Bits<3>>,
    pub ev_prev: Signal<In, Bits<32>>,
    /// Protocol is in Run.
    pub running: Signal<In, Bit>,
    /// k is a rerun (R23): the slot was decided before the view change.
    pub rerun: Signal<In, Bit>,
    /// dec[k - 1], and W's m (the prev of a COMMIT of W.b + 1 to adopt).
    pub prev: Signal<In, Bits<32>>,
    pub w_m: Signal<In, Bits<32>>,
    /// SLOW: holds the slot, its modes, at a poll point.
    pub slow_holding: Signal<In, Bit>,
    pub slow_seal: Signal<In, Bit>,
    pub slow_deliver: Signal<In, Bit>,
    pub slow_at_poll: Signal<In, Bit>,
    /// VIEW: awaits a NEW_VIEW, at that wait's poll point, at a catch-up
    /// poll point.
    pub view_awaiting: Signal<In, Bit>,
    pub view_await_poll: Signal<In, Bit>,
    pub view_catch_poll: Signal<In, Bit>,
    /// CertCheck: verifying, passed, failed.
    pub cc_busy: Signal<In, Bit>,
    pub cc_passed: Signal<In, Bit>,
    pub cc_failed: Signal<In, Bit>,
    pub sg_busy: Signal<In, Bit>,
    pub bc_busy: Signal<In, Bit>,
    /// WATCH's event, as a COMMIT of k, may be adopted (recovery.md
    /// D11.13): above L, and of the awaited view or later while VIEW
    /// awaits, of this view or a later one while bridging a W at slot k, or
    /// in SLOW's normal mode of a later view, or of this one before SLOW
    /// delivered k (R10's second half).
    pub adopt_ok: Signal<In, Bit>,
    /// WATCH's event, as a COMMIT of W.b + 1, may be adopted while
    /// bridging: of the view being sealed or later (recovery.md R17).
    pub adopt_next_ok: Signal<In, Bit>,
    /// Ledger's `reach_ok`: no obligation, or W.b within the bridge's reach
    /// of k + 1. An ABOVE or a COMMIT of k + 1 (a catch-up to k + 1) is
    /// acted on only with it (recovery.md D11.16).
    pub reach_ok: Signal<In, Bit>,
    pub bridging: Signal<Out, Bit>,
    pub grant: Signal<Out, Bit>,
    pub decide: Signal<Out, Bit>,
    /// The event is ABOVE, or a COMMIT whose certificate passed.
    pub above: Signal<Out, Bit>,
    /// The grant is SEALS'.
    pub seals: Signal<Out, Bit>,
    /// SEALS granted at SLOW's poll point: VIEW starts.
    pub seal_trigger: Signal<Out, Bit>,
    /// SLOW is aborted at its poll point (a grant there).
    pub slow_abort: Signal<Out, Bit>,
    pub dl_grant: Signal<Out, Bit>,
    /// With `dl_grant`: deliver mode adopts D first (SLOW's `adopt_start`).
    pub adopt_start: Signal<Out, Bit>,
    /// MINE, or a COMMIT or ABOVE of W.b + 1, granted while bridging, or
    /// MINE in SLOW's normal mode: SLOW turns to adopt mode at its poll
    /// point (SLOW's `adopt`); D is latched as with `dl_grant`.
    pub adopt: Signal<Out, Bit>,
    /// The event is a COMMIT or an ABOVE of W.b + 1 to adopt: D's slot is
    /// W.b + 1.
    pub adopt_next: Signal<Out, Bit>,
    /// The event to adopt is an ABOVE: SLOW takes D's certificate from the
    /// certify row, not from a COMMIT record.
    pub adopt_row: Signal<Out, Bit>,
    pub cc_start: Signal<Out, Bit>,
    pub cc_hold: Signal<Out, Bit>,
    pub take: Signal<Out, Bit>,
    /// An ABOVE or a COMMIT of k + 1 taken unacted on for `reach_ok` low.
    pub held_back: Signal<Out, Bit>,
    // Combinational temporaries.
    slow_point: Signal<Local, Bit>,
    slow_normal: Signal<Local, Bit>,
    dl_ev: Signal<Local, Bit>,
    ad_ev: Signal<Local, Bit>,
    an_ev: Signal<Local, Bit>,
    ar_ev: Signal<Local, Bit>,
    cc_ev: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    row_ev: Signal<Local, Bit>,
    ev_full_row: Constant<Bits<3>>,
    ev_above: Constant<Bits<3>>,
    ev_seals: Constant<Bits<3>>,
    ev_commit: Constant<Bits<3>>,
    ev_mine: Constant<Bits<3>>,
}

impl Default for Grants {
    fn default() -> Self {
        block!(Grants {
            ev_full_row: Constant::new(ev::FULL_ROW.into()),
            ev_above: Constant::new(ev::ABOVE.into()),
            ev_seals: Constant::new(ev::SEALS.into()),
            ev_commit: Constant::new(ev::COMMIT.into()),
            ev_mine: Constant::new(ev::MINE.into()),
            ;
            defaults:
            ev_valid, ev_kind, ev_prev, running, rerun, prev, w_m, slow_holding, slow_seal,
            slow_deliver, slow_at_poll, view_awaiting, view_await_poll, view_catch_poll,
            cc_busy, cc_passed, cc_failed, sg_busy, bc_busy, adopt_ok, adopt_next_ok, reach_ok, bridging, grant,
            decide, above, seals, seal_trigger, slow_abort, dl_grant, adopt_start, adopt,
            adopt_next, adopt_row, cc_start, cc_hold, take, held_back, slow_point, slow_normal, dl_ev, ad_ev, an_ev, ar_ev,
            cc_ev, free, row_ev
        })
    }
}

impl Logic for Grants {
    #[hdl_gen]
    fn update(&mut self) {
        // Nothing of the holder's own in flight, and Protocol runs.
        self.free.next = !self.sg_busy.val() & !self.bc_busy.val() & self.running.val();
        self.bridging.next = self.slow_holding.val() & self.slow_seal.val();
        self.slow_normal.next =
            self.slow_holding.val() & !self.slow_seal.val() & !self.slow_deliver.val();
        self.slow_point.next = self.slow_at_poll.val() & self.slow_normal.val();
        // MINE while VIEW awaits, on this replica's dec[k - 1].
        self.dl_ev.next = self.ev_valid.val()
            & (self.ev_kind.val() == self.ev_mine.val())
            & (self.ev_prev.val() == self.prev.val())
            & self.view_awaiting.val();
        self.dl_grant.next =
            self.dl_ev.val() & self.view_await_poll.val() & !self.cc_busy.val() & self.free.val();
        self.adopt_start.next = self.dl_grant.val() & self.adopt_ok.val();
        // MINE while bridging W at slot k, or in SLOW's normal mode, to
        // adopt (R10, D11.13; `adopt_ok` says which view each may have).
        self.ad_ev.next = self.ev_valid.val()
            & (self.ev_kind.val() == self.ev_mine.val())
            & (self.ev_prev.val() == self.prev.val())
            & (self.bridging.val() | self.slow_normal.val())
            & self.adopt_ok.val();
        // A COMMIT of W.b + 1 on W.m while bridging, to adopt (R17).
        self.an_ev.next = self.ev_valid.val()
            & (self.ev_kind.val() == self.ev_commit.val())
            & (self.ev_prev.val() == self.w_m.val())
            & self.bridging.val()
            & self.adopt_next_ok.val();
        // f + 1 CERT blocks of W.b + 1 on W.m in the certify row while
        // bridging, to adopt from the row (R17).
        self.ar_ev.next = self.ev_valid.val()
            & (self.ev_kind.val() == self.ev_above.val())
            & (self.ev_prev.val() == self.w_m.val())
            & self.bridging.val()
            & self.adopt_next_ok.val();
        self.adopt_next.next = self.an_ev.val() | self.ar_ev.val();
        self.adopt_row.next = self.ar_ev.val();
        self.adopt.next = (self.ad_ev.val() | self.an_ev.val() | self.ar_ev.val())
            & self.slow_at_poll.val()
            & !self.cc_busy.val()
            & self.free.val();
        // A COMMIT of k + 1 (not while bridging), within the bridge's
        // reach (D11.16).
        self.cc_ev.next = self.ev_valid.val()
            & (self.ev_kind.val() == self.ev_commit.val())
            & !self.bridging.val()
            & self.reach_ok.val();
        // A catch-up to k + 1 that would leave W beyond the bridge's reach
        // (D11.16): taken at once, not acted on.
        self.held_back.next = self.ev_valid.val()
            & ((self.ev_kind.val() == self.ev_above.val())
                | (self.ev_kind.val() == self.ev_commit.val()))
            & !self.bridging.val()
            & !self.reach_ok.val();
        self.above.next = (self.ev_kind.val() == self.ev_above.val())
            | ((self.ev_kind.val() == self.ev_commit.val()) & self.cc_passed.val());
        self.seals.next = self.ev_kind.val() == self.ev_seals.val();
        // FULL_ROW of a rerun slot (R23) is not granted: this replica
        // decided it before, and the rerun is for the others, who need its
        // share and COMMIT (recovery.md D11.15).
        self.row_ev.next = (self.ev_kind.val() == self.ev_full_row.val()) & !self.rerun.val();
        self.grant.next = self.ev_valid.val()
            & (self.row_ev.val() | (self.above.val() & self.reach_ok.val()) | self.seals.val())
            & (self.slow_point.val() | self.view_catch_poll.val())
            & self.free.val();
        self.decide.next = self.grant.val() & !self.seals.val();
        self.seal_trigger.next = self.grant.val() & self.seals.val() & self.slow_point.val();
        self.cc_start.next = self.cc_ev.val()
            & !self.cc_busy.val()
            & (self.slow_point.val() | self.view_catch_poll.val())
            & self.free.val();
        self.cc_hold.next = self.cc_start.val() | self.cc_busy.val();
        self.slow_abort.next = self.grant.val() & self.slow_point.val();
        // Taken: when acted on; a COMMIT whose certificate failed; at
        // once, a catch-up held back (D11.16), a NEW_VIEW, a COMMIT that is not checked, and while
        // bridging every event but a MINE, a COMMIT or an ABOVE to adopt.
        self.take.next = self.grant.val()
            | self.cc_failed.val()
            | self.held_back.val()
            | self.dl_grant.val()
            | self.adopt.val()
            | (self.ev_valid.val()
                & (self.ev_kind.val() == self.ev_full_row.val())
                & self.rerun.val())
            | (self.ev_valid.val()
                & (self.ev_kind.val() != self.ev_full_row.val())
                & (self.ev_kind.val() != self.ev_commit.val())
                & !self.above.val()
                & !self.seals.val()
                & !self.dl_ev.val()
                & !self.ad_ev.val())
            | (self.ev_valid.val()
                & (self.ev_kind.val() == self.ev_commit.val())
                & !self.cc_ev.val()
                & !self.an_ev.val())
            | (self.ev_valid.val()
                & self.bridging.val()
                & !self.ad_ev.val()
                & !self.an_ev.val()
                & !self.ar_ev.val());
    }
}
