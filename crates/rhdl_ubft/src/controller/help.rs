//! Help: the decider's share for a bridger (docs/recovery.md section 11,
//! "A decider a view ahead of a bridger", and D11.18).
//!
//! A replica that decided slot j = m on a block of view w_d (a full
//! will_commit row's view, or the view of the COMMITs it counted; not a
//! catch-up, whose block it does not know) knows that every honest
//! delivery at slot j in a view ≥ w_d is of m (Lemma 1 at w_d, Lemma 2
//! above it). So while it is at slot j + 1 it may write its CERT share
//! of (w, j, m, dec[j − 1]) for any w ≥ w_d, and it does so for a peer's
//! will_commit of (w, j, m) with w > w_d in its will_commit row of slot
//! j: that peer delivered (w, j, m) fast and bridges on it (R17), and the
//! share is what its certificate lacks when no other honest replica
//! delivered it. (At w = w_d, R10's adoption of the decided block's
//! COMMIT or R16's share of a fast delivery covers the bridge.) An honest
//! peer's will_commit of (w, j) needs this replica's lock at (w, j), so
//! its view had reached w when it decided j: the block is armed only when
//! w_d is below the replica's view at the decision.
//!
//! The block keeps the decided block's view (`wd`) for the slot decided
//! last, j = k − 1 (`decide`, with `dec_ok` and `dec_view` from Protocol,
//! `dec_short` when it is a full row's tag field; a rerun's decision, R23,
//! keeps what the first one set), and is `armed`
//! while k = j + 1 and dec[j − 1] is known (`prev2_ok`). VIEW, awaiting or
//! collecting a NEW_VIEW, reads will_commit[s(j)] (`row_word`, one beat)
//! at a poll that missed, and the scan (`scan_start`, then the beat) finds
//! the first lane x ≠ id of the first n whose vote is (tag(w, j), m =
//! `prev`, which is dec[j]) with w_d < w ≤ `wv`, the replica's view at
//! the decision (an honest peer's w is at most that: a Byzantine peer's
//! will_commits of later views get no share, so the shares it can draw
//! are at most `wv` − w_d per decision), above the view it helped last
//! (`hv`, once `helped`): `found`, with the block (`tv`, `tk` = j, `tm` =
//! dec[j], `tprev` = dec[j − 1]) that SLOW's late share signs and writes
//! to certify[s(j)][id].
//!
//! The tag carries w's low 8 bits (`params::vote_tag`); w is that field
//! taken as the view nearest to this replica's (`view`): view + d, d the
//! field minus view's low 8 bits as a signed 8-bit number. A w read wrong
//! (a peer 128 views away) is still a view ≥ w_d or not helped: the share
//! is safe for every view ≥ w_d.
//!
//! Timing: `armed`, `hv` and the block are registers; `found` rises with
//! the beat that shows the vote (combinational on it) and stays until the
//! next `scan_start`, as RemoteRead's.
//!
//! Reset (`rst_n`, synchronous, active low): nothing armed.

use crate::layout::{Mailbox, Region};
use crate::params::{BEAT_WORDS, G, SB, TAG_K_BITS, TAG_K_MASK};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Help<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub id: Signal<In, Bits<8>>,
    /// The first n replicas' lanes.
    pub active: Signal<In, Bits<N>>,
    /// Position's k, dec[k − 1] (`prev`), dec[k − 2] (`prev2`, known
    /// when `prev2_ok`), and the replica's view.
    pub k: Signal<In, Bits<32>>,
    pub prev: Signal<In, Bits<32>>,
    pub prev2: Signal<In, Bits<32>>,
    pub prev2_ok: Signal<In, Bit>,
    pub view: Signal<In, Bits<32>>,
    /// Position's `advance` at slot k (not a rerun's), and the view of the
    /// block it was decided on (`dec_ok`: known).
    pub decide: Signal<In, Bit>,
    pub dec_ok: Signal<In, Bit>,
    pub dec_view: Signal<In, Bits<32>>,
    /// `dec_view` is a vote tag's 8-bit view field (R26's full row), taken
    /// as the view nearest to `view`.
    pub dec_short: Signal<In, Bit>,
    /// SLOW wrote (or gave up) the share of `tv`.
    pub helped: Signal<In, Bit>,
    pub scan_start: Signal<In, Bit>,
    pub beat: Signal<In, Bits<512>>,
    pub beat_valid: Signal<In, Bit>,
    pub armed: Signal<Out, Bit>,
    pub found: Signal<Out, Bit>,
    /// will_commit[s(k − 1)], in words.
    pub row_word: Signal<Out, Bits<32>>,
    pub tv: Signal<Out, Bits<32>>,
    pub tk: Signal<Out, Bits<32>>,
    pub tm: Signal<Out, Bits<32>>,
    pub tprev: Signal<Out, Bits<32>>,
    wd_ok: DFF<Bit>,
    wd: DFF<Bits<32>>,
    wd_k: DFF<Bits<32>>,
    /// The replica's view at the decision: an honest peer's will_commit of
    /// (w, j) has w at most that.
    wv: DFF<Bits<32>>,
    hv_ok: DFF<Bit>,
    hv: DFF<Bits<32>>,
    t_view: DFF<Bits<32>>,
    found_q: DFF<Bit>,
    j: Signal<Local, Bits<32>>,
    tag_k: Signal<Local, Bits<32>>,
    view8: Signal<Local, Bits<8>>,
    d8: Signal<Local, Bits<8>>,
    w: Signal<Local, Bits<32>>,
    dd8: Signal<Local, Bits<8>>,
    dw: Signal<Local, Bits<32>>,
    got: Signal<Local, Bit>,
    got_w: Signal<Local, Bits<32>>,
    id_bit: Signal<Local, Bits<N>>,
    one: Constant<Bits<N>>,
    will_commit_base: Constant<Bits<32>>,
    row_shift: Constant<Bits<32>>,
    last_slot: Constant<Bits<32>>,
}

impl<const N: usize> Default for Help<N> {
    fn default() -> Self {
        let mb = Mailbox::v3(N, G, SB);
        let row_words = mb.vote_row_words();
        assert!(row_words.is_power_of_two() && row_words <= BEAT_WORDS);
        assert!(G.is_power_of_two());
        // The literal `update` holds: a tag of k's low 24 bits under the
        // view's low 8 (`params::vote_tag`).
        assert_eq!(
            (TAG_K_BITS, TAG_K_MASK),
            (24, 0x00ff_ffff),
            "help.rs: tag = view << 24 | k & 0x00ff_ffff"
        );
        let k = |x: usize| Constant::new((x as u64).into());
        Help {
            clock: Default::default(),
            rst_n: Default::default(),
            id: Default::default(),
            active: Default::default(),
            k: Default::default(),
            prev: Default::default(),
            prev2: Default::default(),
            prev2_ok: Default::default(),
            view: Default::default(),
            decide: Default::default(),
            dec_ok: Default::default(),
            dec_view: Default::default(),
            dec_short: Default::default(),
            helped: Default::default(),
            scan_start: Default::default(),
            beat: Default::default(),
            beat_valid: Default::default(),
            armed: Default::default(),
            found: Default::default(),
            row_word: Default::default(),
            tv: Default::default(),
            tk: Default::default(),
            tm: Default::default(),
            tprev: Default::default(),
            wd_ok: Default::default(),
            wd: Default::default(),
            wd_k: Default::default(),
            wv: Default::default(),
            hv_ok: Default::default(),
            hv: Default::default(),
            t_view: Default::default(),
            found_q: Default::default(),
            j: Default::default(),
            tag_k: Default::default(),
            view8: Default::default(),
            d8: Default::default(),
            w: Default::default(),
            dd8: Default::default(),
            dw: Default::default(),
            got: Default::default(),
            got_w: Default::default(),
            id_bit: Default::default(),
            one: Constant::new(1u64.into()),
            will_commit_base: k(mb.base(Region::WillCommit)),
            row_shift: k(row_words.trailing_zeros() as usize),
            last_slot: k(G - 1),
        }
    }
}

impl<const N: usize> Logic for Help<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wd_ok, wd, wd_k, wv, hv_ok, hv, t_view, found_q);
        // The slot decided last, j = k − 1, and the decided block's view,
        // kept when it is below the replica's view.
        self.view8.next = self.view.val().get_bits::<8>(0);
        self.dd8.next = self.dec_view.val().get_bits::<8>(0) - self.view8.val();
        if !self.dec_short.val() {
            self.dw.next = self.dec_view.val();
        } else if self.dd8.val().get_bit(7) {
            self.dw.next = (self.view.val() + bit_cast::<32, 8>(self.dd8.val())) - 0x100;
        } else {
            self.dw.next = self.view.val() + bit_cast::<32, 8>(self.dd8.val());
        }
        if self.decide.val() {
            self.wd_ok.d.next = self.dec_ok.val() & (self.dw.val() < self.view.val());
            self.wd.d.next = self.dw.val();
            self.wd_k.d.next = self.k.val();
            self.wv.d.next = self.view.val();
            self.hv_ok.d.next = false;
        }
        if self.helped.val() {
            self.hv_ok.d.next = true;
            self.hv.d.next = self.t_view.q.val();
        }
        self.j.next = self.k.val() - 1;
        self.armed.next =
            self.wd_ok.q.val() & ((self.wd_k.q.val() + 1) == self.k.val()) & self.prev2_ok.val();
        self.row_word.next = self.will_commit_base.val()
            + (((self.j.val() - 1) & self.last_slot.val()) << self.row_shift.val());
        self.tv.next = self.t_view.q.val();
        self.tk.next = self.j.val();
        self.tm.next = self.prev.val();
        self.tprev.next = self.prev2.val();
        // The scan: the first lane x != id of the first n voting
        // (tag(w, j), dec[j]) with w_d < w <= wv, above the view helped
        // last.
        self.tag_k.next = self.j.val() & 0x00ff_ffff;
        self.id_bit.next = self.one.val() << self.id.val();
        self.got.next = false;
        self.got_w.next = 0.into();
        self.d8.next = 0.into();
        self.w.next = 0.into();
        for i in 0..N {
            // The tag's view field taken as the view nearest to this
            // replica's: view + d, d = field − view's low 8 bits read as
            // a signed 8-bit number. (Negative d as + d8 − 256 in 32 bits:
            // Verilog widens the operands of `~d8 + 1` to 32 bits before
            // it inverts them, rust-hdl does not.)
            self.d8.next = self.beat.val().get_bits::<8>(i * 64 + 24) - self.view8.val();
            if self.d8.val().get_bit(7) {
                self.w.next = (self.view.val() + bit_cast::<32, 8>(self.d8.val())) - 0x100;
            } else {
                self.w.next = self.view.val() + bit_cast::<32, 8>(self.d8.val());
            }
            if !self.got.val()
                & self.active.val().get_bit(i)
                & !self.id_bit.val().get_bit(i)
                & ((self.beat.val().get_bits::<32>(i * 64) & 0x00ff_ffff) == self.tag_k.val())
                & (self.beat.val().get_bits::<32>(i * 64 + 32) == self.prev.val())
                & (self.w.val() > self.wd.q.val())
                & (self.w.val() <= self.wv.q.val())
                & (!self.hv_ok.q.val() | (self.w.val() > self.hv.q.val()))
            {
                self.got.next = true;
                self.got_w.next = self.w.val();
            }
        }
        if self.scan_start.val() {
            self.found_q.d.next = false;
        } else if self.beat_valid.val() & self.got.val() & self.armed.val() {
            self.found_q.d.next = true;
            self.t_view.d.next = self.got_w.val();
        }
        // With the beat: VIEW reads it in the cycle of the fetch's `done`,
        // which comes with the (only) beat.
        self.found.next =
            self.found_q.q.val() | (self.beat_valid.val() & self.got.val() & self.armed.val());
        if !self.rst_n.val() {
            self.wd_ok.d.next = false;
            self.hv_ok.d.next = false;
            self.found_q.d.next = false;
        }
    }
}

/// The lane the scan picks in a will_commit row (its words): the first
/// x != id of the first n voting (tag(w, j), m) with w_d < w <= `wv` (the
/// view it decided in) and, when
/// `hv` is some, w > hv; w is the tag's view field taken nearest to
/// `view`. The reference the block is tested against.
pub fn help_lane(
    row: &[u32],
    n: usize,
    id: usize,
    (view, j, m): (u32, u32, u32),
    (wd, wv): (u32, u32),
    hv: Option<u32>,
) -> Option<(usize, u32)> {
    (0..n).filter(|&x| x != id).find_map(|x| {
        let tag = row[2 * x];
        let d = ((tag >> TAG_K_BITS) as u8).wrapping_sub(view as u8) as i8;
        let w = view.wrapping_add(d as i32 as u32);
        let ok = tag & TAG_K_MASK == j & TAG_K_MASK
            && row[2 * x + 1] == m
            && w > wd
            && w <= wv
            && hv.is_none_or(|h| w > h);
        ok.then_some((x, w))
    })
}
