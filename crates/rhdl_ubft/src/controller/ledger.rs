//! Ledger: the registers of uBFT's recovery a replica keeps across slots
//! and views (docs/recovery.md, D11): W, L, D and the constraint
//! (docs/ledger.md).
//!
//! | register | what | set | cleared |
//! | --- | --- | --- | --- |
//! | W (`w_*`) | this replica's will_commit (w, b, m, prev): the obligation the bridge keeps (R17) | FAST sends will_commit (`set_w`: the slot's view, k, m, prev) | a decision at b of another value than W.m (`deciding`: that value has a certificate, so W's was not decided); a run's start |
//! | L (`l_*`) | its latest COMMIT (w, c, m, prev), which its SEAL carries (R18) | SLOW writes a COMMIT (`set_l`, SLOW's target), if higher: slot first, then view | a run's start |
//! | D (`d_*`) | the block of a peer x's COMMIT (w, slot, m, prev) and x: SLOW's target in deliver mode (R25 while awaiting a NEW_VIEW) and in adopt mode (R10's adoption, recovery.md D11.13 and R17); its slot is k, or W.b + 1 for a bridge's adoption of the next slot's COMMIT | its grant (`set_d`, WATCH's MINE or COMMIT event) | (overwritten) |
//! | constraint (`cons_*`) | at slot c* only m* is valid (R22: LEADER proposes it, FAST locks only it) | a NEW_VIEW with a carried value (`set_cons`) | the next view change; a decision at c* (`taken`), a rerun's decision (`rerun_taken`); a run's start |
//!
//! L only goes up: after R23's step back a rerun's COMMIT of (v + 1, c*)
//! is below a COMMIT at c* + 1, and is not recorded. W's `wc_done` of the
//! model is not kept: the bridge's COMMIT makes L cover W.
//!
//! What Protocol and the machines read, from the registers (and k) only:
//! the registers; `ob`, the obligation (W not covered by L: no L, or
//! L.c < W.b); `reach_ok`, no obligation, or one whose W.b is at most
//! (G - 1) / 2 slots below k + 1 (the bridge's reach: SLOW works on W's
//! own slot, whose records a replica at most G / 2 slots ahead has not
//! reused; a catch-up to k + 1 is granted only with it, recovery.md
//! D11.16, so a bridge never starts beyond it); `share_due`, W's share owed
//! with no obligation (R16: W.b = k - 1, L covers W.b but is no COMMIT of
//! W's slot from W's view or later, once per W); `constrained`, the constraint holds
//! at k; `ev_above_l`, a COMMIT of (WATCH's event view, k) would be
//! above L.
//!
//! Timing: a strobe at cycle c shows from c + 1. No reset: `start` clears
//! W, L and the constraint at a run's start (D is only read after its
//! grant).

use crate::params::BRIDGE_REACH;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Ledger {
    pub clock: Signal<In, Clock>,
    /// A run starts.
    pub start: Signal<In, Bit>,
    /// The slot's registers: k, its view, m and prev = dec[k - 1].
    pub k: Signal<In, Bits<32>>,
    pub view_no: Signal<In, Bits<32>>,
    pub m: Signal<In, Bits<32>>,
    pub prev: Signal<In, Bits<32>>,
    /// FAST sends will_commit for the slot.
    pub set_w: Signal<In, Bit>,
    /// Protocol decides k as m (its Decide state).
    pub deciding: Signal<In, Bit>,
    /// SLOW writes its COMMIT of its target (`t_*`).
    pub set_l: Signal<In, Bit>,
    pub t_view: Signal<In, Bits<32>>,
    pub t_k: Signal<In, Bits<32>>,
    pub t_m: Signal<In, Bits<32>>,
    pub t_prev: Signal<In, Bits<32>>,
    /// R25's grant while awaiting, or an adoption's: the peer's COMMIT's
    /// view, slot, m, prev and writer.
    pub set_d: Signal<In, Bit>,
    pub ev_view: Signal<In, Bits<32>>,
    pub ev_k: Signal<In, Bits<32>>,
    pub ev_m: Signal<In, Bits<32>>,
    pub ev_prev: Signal<In, Bits<32>>,
    pub ev_x: Signal<In, Bits<8>>,
    /// A NEW_VIEW with a carried value (c*, m*) is installed.
    pub set_cons: Signal<In, Bit>,
    pub cons_c: Signal<In, Bits<32>>,
    pub cons_in_m: Signal<In, Bits<32>>,
    /// SLOW certifies W with no obligation (VIEW's `call_share`, R16).
    pub w_shared: Signal<In, Bit>,
    /// A view change installs the next view.
    pub next_view: Signal<In, Bit>,
    /// The slot's decision is taken from the decision stream; a rerun's
    /// decision (R23) ends.
    pub taken: Signal<In, Bit>,
    pub rerun_taken: Signal<In, Bit>,
    pub w_w: Signal<Out, Bits<32>>,
    pub w_k: Signal<Out, Bits<32>>,
    pub w_m: Signal<Out, Bits<32>>,
    pub w_prev: Signal<Out, Bits<32>>,
    pub l_ok: Signal<Out, Bit>,
    pub l_w: Signal<Out, Bits<32>>,
    pub l_c: Signal<Out, Bits<32>>,
    pub l_m: Signal<Out, Bits<32>>,
    pub l_prev: Signal<Out, Bits<32>>,
    pub d_w: Signal<Out, Bits<32>>,
    /// D's slot: k, or W.b + 1 for a bridge's adoption (recovery.md R17).
    pub d_k: Signal<Out, Bits<32>>,
    pub d_m: Signal<Out, Bits<32>>,
    pub d_prev: Signal<Out, Bits<32>>,
    /// D's writer x (its COMMIT record is commit[s(D.k)][x]: R10's adoption
    /// copies the certificate from it, recovery.md D11.13).
    pub d_x: Signal<Out, Bits<8>>,
    /// A COMMIT of (`ev_view`, k) would be above L (slot first, then view):
    /// R10's adoption takes only such a certificate.
    pub ev_above_l: Signal<Out, Bit>,
    pub cons_m: Signal<Out, Bits<32>>,
    pub constrained: Signal<Out, Bit>,
    pub ob: Signal<Out, Bit>,
    /// No obligation, or W.b within the bridge's reach of k + 1: a
    /// catch-up of k may be granted (D11.16).
    pub reach_ok: Signal<Out, Bit>,
    /// R16's share of W is due with no obligation: W is slot k - 1's (its
    /// fast delivery, and decided: a decision of another value drops W),
    /// L covers W.b without being a COMMIT of W's slot from W's view or
    /// later, and this W's share was not written so (`w_shared`).
    pub share_due: Signal<Out, Bit>,
    wc_ok: DFF<Bit>,
    /// W's share was written with no obligation (`w_shared`): once per W.
    wc_shared: DFF<Bit>,
    wc_w: DFF<Bits<32>>,
    wc_k: DFF<Bits<32>>,
    wc_m: DFF<Bits<32>>,
    wc_prev: DFF<Bits<32>>,
    lc_ok: DFF<Bit>,
    lc_w: DFF<Bits<32>>,
    lc_c: DFF<Bits<32>>,
    lc_m: DFF<Bits<32>>,
    lc_prev: DFF<Bits<32>>,
    dl_w: DFF<Bits<32>>,
    dl_k: DFF<Bits<32>>,
    dl_m: DFF<Bits<32>>,
    dl_prev: DFF<Bits<32>>,
    dl_x: DFF<Bits<8>>,
    c_ok: DFF<Bit>,
    c_k: DFF<Bits<32>>,
    c_m: DFF<Bits<32>>,
    /// `BRIDGE_REACH`, (G - 1) / 2.
    half: Constant<Bits<32>>,
    /// The obligation, as `ob` drives it.
    open: Signal<Local, Bit>,
}

impl Default for Ledger {
    fn default() -> Self {
        block!(Ledger {
            half: Constant::new((BRIDGE_REACH as u64).into()),
            ;
            defaults:
            clock, start, k, view_no, m, prev, set_w, deciding, set_l,
            t_view, t_k, t_m, t_prev, set_d, ev_view, ev_k, ev_m, ev_prev, ev_x, set_cons, cons_c,
            cons_in_m, w_shared, next_view, taken, rerun_taken, w_w, w_k, w_m, w_prev, l_ok, l_w,
            l_c, l_m, l_prev, d_w, d_k, d_m, d_prev, d_x, ev_above_l, cons_m, constrained, ob, reach_ok, share_due, open, wc_ok, wc_shared,
            wc_w, wc_k, wc_m, wc_prev, lc_ok, lc_w, lc_c, lc_m, lc_prev, dl_w, dl_k, dl_m,
            dl_prev, dl_x, c_ok, c_k, c_m
        })
    }
}

impl Logic for Ledger {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wc_ok, wc_shared, wc_w, wc_k, wc_m, wc_prev, lc_ok, lc_w, lc_c, lc_m,
            lc_prev, dl_w, dl_k, dl_m, dl_prev, dl_x, c_ok, c_k, c_m
        );
        self.w_w.next = self.wc_w.q.val();
        self.w_k.next = self.wc_k.q.val();
        self.w_m.next = self.wc_m.q.val();
        self.w_prev.next = self.wc_prev.q.val();
        self.l_ok.next = self.lc_ok.q.val();
        self.l_w.next = self.lc_w.q.val();
        self.l_c.next = self.lc_c.q.val();
        self.l_m.next = self.lc_m.q.val();
        self.l_prev.next = self.lc_prev.q.val();
        self.d_w.next = self.dl_w.q.val();
        self.d_k.next = self.dl_k.q.val();
        self.d_m.next = self.dl_m.q.val();
        self.d_prev.next = self.dl_prev.q.val();
        self.d_x.next = self.dl_x.q.val();
        self.ev_above_l.next = !self.lc_ok.q.val()
            | (self.k.val() > self.lc_c.q.val())
            | ((self.k.val() == self.lc_c.q.val()) & (self.ev_view.val() > self.lc_w.q.val()));
        self.cons_m.next = self.c_m.q.val();
        self.constrained.next = self.c_ok.q.val() & (self.c_k.q.val() == self.k.val());
        self.open.next =
            self.wc_ok.q.val() & !(self.lc_ok.q.val() & (self.lc_c.q.val() >= self.wc_k.q.val()));
        self.ob.next = self.open.val();
        // A catch-up to k + 1 keeps W within the bridge's reach: W.b at
        // most (G - 1) / 2 below k + 1 (W.b = k + 1 after R23's step back
        // gives 0).
        self.reach_ok.next =
            !self.open.val() | (((self.k.val() + 1) - self.wc_k.q.val()) <= self.half.val());
        // R16 with no obligation (the model's prev1 share at the trigger):
        // a peer that holds W's will_commit uncovered bridges on W, and may
        // need this share, which the bridge here does not write.
        self.share_due.next = self.wc_ok.q.val()
            & !self.open.val()
            & !self.wc_shared.q.val()
            & ((self.wc_k.q.val() + 1) == self.k.val())
            & !((self.lc_c.q.val() == self.wc_k.q.val())
                & (self.lc_w.q.val() >= self.wc_w.q.val()));
        if self.w_shared.val() {
            self.wc_shared.d.next = true;
        }

        // W: FAST's will_commit (its phase 2).
        if self.set_w.val() {
            self.wc_ok.d.next = true;
            self.wc_shared.d.next = false;
            self.wc_k.d.next = self.k.val();
            self.wc_w.d.next = self.view_no.val();
            self.wc_m.d.next = self.m.val();
            self.wc_prev.d.next = self.prev.val();
        }
        // D: the event's block, at its grant (R25 while awaiting, or an
        // adoption).
        if self.set_d.val() {
            self.dl_w.d.next = self.ev_view.val();
            self.dl_k.d.next = self.ev_k.val();
            self.dl_m.d.next = self.ev_m.val();
            self.dl_prev.d.next = self.ev_prev.val();
            self.dl_x.d.next = self.ev_x.val();
        }
        // L only goes up (slot first, then view).
        if self.set_l.val()
            & (!self.lc_ok.q.val()
                | (self.t_k.val() > self.lc_c.q.val())
                | ((self.t_k.val() == self.lc_c.q.val()) & (self.t_view.val() > self.lc_w.q.val())))
        {
            self.lc_ok.d.next = true;
            self.lc_w.d.next = self.t_view.val();
            self.lc_c.d.next = self.t_k.val();
            self.lc_m.d.next = self.t_m.val();
            self.lc_prev.d.next = self.t_prev.val();
        }
        // The constraint (R22), until the next view change.
        if self.set_cons.val() {
            self.c_ok.d.next = true;
            self.c_k.d.next = self.cons_c.val();
            self.c_m.d.next = self.cons_in_m.val();
        }
        if self.next_view.val() {
            self.c_ok.d.next = false;
        }
        if self.start.val() {
            self.wc_ok.d.next = false;
            self.lc_ok.d.next = false;
            self.c_ok.d.next = false;
        }
        // A decision of another value than W's at W's slot ends the
        // obligation: that value has a certificate, so W's was not decided
        // (agreement), and a share or COMMIT of it would be of a value this
        // replica did not decide (model.md, the prev1 finding).
        if self.deciding.val()
            & self.wc_ok.q.val()
            & (self.wc_k.q.val() == self.k.val())
            & (self.wc_m.q.val() != self.m.val())
        {
            self.wc_ok.d.next = false;
        }
        // The constraint is c*'s: a decision below it (R24 at install,
        // catch-up) keeps it; a rerun's (R23) ends it.
        if self.rerun_taken.val() | (self.taken.val() & (self.c_k.q.val() == self.k.val())) {
            self.c_ok.d.next = false;
        }
    }
}
