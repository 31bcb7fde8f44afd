//! SlotRecords: where the slot's records are in the mailbox, and the signed
//! blocks SLOW works on (combinational; docs/slot_records.md).
//!
//! SLOW works on a target: K in seal mode's late share (`slow_late`, the
//! remote read's kept lock, recovery.md D11.17); W in seal mode (the
//! bridge, recovery.md R17, and R28's close; W.b is k, or below it after a fast decision and catch-ups,
//! and W's slot s(W.b) = (W.b − 1) mod G is derived from W.b), D in deliver
//! or adopt mode (R25 while awaiting a NEW_VIEW, R10's adoption: D's view,
//! m and prev at D's slot, which is k, or W.b + 1 when a bridge adopts a
//! certificate of the next slot; `slow_deliver` is either mode), else the slot
//! itself. `seal_mode` is SLOW's mode register, which stays up after SLOW
//! goes Off, so the target stays W until the next start; deliver and
//! adopt mode count only while SLOW holds the slot, and go first (adopt
//! mode may start inside seal mode). From the target and
//! the slot, in words of the mailbox (docs/layout.md; R = the records of a
//! row, a power of two; G a power of two):
//!
//! | output | address or block |
//! | --- | --- |
//! | `prep_word` | prepare[slot], a beat (`slot << 4`) |
//! | `cert_row`, `commit_row` | will_cert[slot], will_commit[slot] (`slot << row_shift`) |
//! | `prep_sig_word` | prep_sig[s], two beats a slot (`s << 5`) |
//! | `echo_row_word`, `echo_own_word` | echo_prep[s][0], echo_prep[s][id] (`(s · R + j) << 5`) |
//! | `certify_row_word`, `certify_own_word` | certify[s][0], certify[s][id] |
//! | `commit_row_word` | commit[s][0] (`(s · R) << commit_shift`) |
//! | `cert_word` | commit[s(c*)][x_T], the COMMIT whose certificate VIEW's NEW_VIEW carries (R19) |
//! | `cc_word` | commit[s(k + 1)][x], the COMMIT CertCheck checks (R24; `cc_k1` = k + 1) |
//! | `prep_block` | [PREP, v, k, m, prev, 0, 0, 0] of the target |
//! | `cert_block` | [CERT, v, k, m, prev, 0, 0, 0] of the target |
//! | `commit_block` | [COMMIT, j, v, k, m, prev, 0, 0] of the target, j = SLOW's `blk_j` |
//! | `t_view`, `t_k`, `t_m`, `t_prev` | the target, whose COMMIT becomes L (crate::controller::ledger) |
//!
//! and the layout's constants SLOW and VIEW address their rows with:
//! `seal_word` (seal[0]), `seal_own_word` (seal[id]), `echo_seal_word`,
//! `echo_commit_word` and `new_view_word` (each region's base),
//! `commit_log` (log2 of a commit record's stride in words), `r_log` and
//! `row_n` (log2 of R, and R), `row2_len` (AxLEN of a row of 2N beats),
//! `remote_len` (AxLEN of remote_rows, N beats).
//!
//! Every output is assigned once on every path.

use crate::layout::records::{BLOCK_BITS, KIND_CERT, KIND_COMMIT, KIND_PREP};
use crate::layout::{Mailbox, Region};
use crate::params::{BEAT_WORDS, G};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct SlotRecords {
    // The slot's registers.
    pub id: Signal<In, Bits<8>>,
    pub view_no: Signal<In, Bits<32>>,
    pub k: Signal<In, Bits<32>>,
    pub m: Signal<In, Bits<32>>,
    pub prev: Signal<In, Bits<32>>,
    pub slot: Signal<In, Bits<8>>,
    /// slot · R.
    pub slot_n: Signal<In, Bits<16>>,
    /// W and D (crate::controller::ledger).
    pub w_w: Signal<In, Bits<32>>,
    pub w_k: Signal<In, Bits<32>>,
    pub w_m: Signal<In, Bits<32>>,
    pub w_prev: Signal<In, Bits<32>>,
    pub d_w: Signal<In, Bits<32>>,
    pub d_k: Signal<In, Bits<32>>,
    pub d_m: Signal<In, Bits<32>>,
    pub d_prev: Signal<In, Bits<32>>,
    /// The remote read's kept lock K (crate::controller::remote_read).
    pub l_w: Signal<In, Bits<32>>,
    pub l_k: Signal<In, Bits<32>>,
    pub l_m: Signal<In, Bits<32>>,
    pub l_prev: Signal<In, Bits<32>>,
    /// SLOW: holds the slot, its modes, the COMMIT block's j.
    pub slow_holding: Signal<In, Bit>,
    pub slow_seal: Signal<In, Bit>,
    /// SLOW's late share (seal mode on K).
    pub slow_late: Signal<In, Bit>,
    pub slow_deliver: Signal<In, Bit>,
    pub blk_j: Signal<In, Bits<8>>,
    /// VIEW's c* (its low 8 bits: its slot) and x_T (R19).
    pub cons_c: Signal<In, Bits<8>>,
    pub x_t: Signal<In, Bits<8>>,
    /// CertCheck's k + 1 (its low 8 bits) and the COMMIT's writer x.
    pub cc_k1: Signal<In, Bits<8>>,
    pub cc_x: Signal<In, Bits<8>>,
    pub t_view: Signal<Out, Bits<32>>,
    pub t_k: Signal<Out, Bits<32>>,
    pub t_m: Signal<Out, Bits<32>>,
    pub t_prev: Signal<Out, Bits<32>>,
    pub prep_word: Signal<Out, Bits<32>>,
    pub cert_row: Signal<Out, Bits<32>>,
    pub commit_row: Signal<Out, Bits<32>>,
    pub prep_sig_word: Signal<Out, Bits<32>>,
    pub echo_row_word: Signal<Out, Bits<32>>,
    pub echo_own_word: Signal<Out, Bits<32>>,
    pub certify_row_word: Signal<Out, Bits<32>>,
    pub certify_own_word: Signal<Out, Bits<32>>,
    pub commit_row_word: Signal<Out, Bits<32>>,
    pub cert_word: Signal<Out, Bits<32>>,
    pub cc_word: Signal<Out, Bits<32>>,
    pub prep_block: Signal<Out, Bits<BLOCK_BITS>>,
    pub cert_block: Signal<Out, Bits<BLOCK_BITS>>,
    pub commit_block: Signal<Out, Bits<BLOCK_BITS>>,
    pub seal_word: Signal<Out, Bits<32>>,
    pub seal_own_word: Signal<Out, Bits<32>>,
    pub echo_seal_word: Signal<Out, Bits<32>>,
    pub echo_commit_word: Signal<Out, Bits<32>>,
    pub new_view_word: Signal<Out, Bits<32>>,
    pub remote_rows_word: Signal<Out, Bits<32>>,
    pub commit_log: Signal<Out, Bits<8>>,
    pub r_log: Signal<Out, Bits<8>>,
    pub row_n: Signal<Out, Bits<8>>,
    pub row2_len: Signal<Out, Bits<8>>,
    pub remote_len: Signal<Out, Bits<8>>,
    // Combinational temporaries: the target's slot s and s · R.
    t_slot: Signal<Local, Bits<8>>,
    t_slot_n: Signal<Local, Bits<16>>,
    cert_slot: Signal<Local, Bits<8>>,
    cc_slot: Signal<Local, Bits<8>>,
    // Constants from `layout`.
    prepare_base: Constant<Bits<32>>,
    will_cert_base: Constant<Bits<32>>,
    will_commit_base: Constant<Bits<32>>,
    prep_sig_base: Constant<Bits<32>>,
    echo_prep_base: Constant<Bits<32>>,
    certify_base: Constant<Bits<32>>,
    commit_base: Constant<Bits<32>>,
    seal_base: Constant<Bits<32>>,
    echo_seal_base: Constant<Bits<32>>,
    echo_commit_base: Constant<Bits<32>>,
    new_view_base: Constant<Bits<32>>,
    remote_rows_base: Constant<Bits<32>>,
    /// R and the AxLEN of 2N beats.
    row_records: Constant<Bits<8>>,
    row2_beats: Constant<Bits<8>>,
    /// The AxLEN of remote_rows: N beats.
    remote_beats: Constant<Bits<8>>,
    /// log2 of a commit record's stride in words.
    commit_shift: Constant<Bits<8>>,
    /// log2 of a vote row's words.
    row_shift: Constant<Bits<8>>,
    /// log2 of R.
    row_log: Constant<Bits<8>>,
    /// G − 1.
    last_slot: Constant<Bits<8>>,
    prep_kind: Constant<Bits<BLOCK_BITS>>,
    cert_kind: Constant<Bits<BLOCK_BITS>>,
    commit_kind: Constant<Bits<BLOCK_BITS>>,
}

/// log2 of a commit record's stride in words (a power of two).
pub fn commit_shift(mb: &Mailbox) -> u64 {
    let words = crate::layout::stride_beats(Region::Commit, mb.n, mb.sb) * BEAT_WORDS;
    assert!(words.is_power_of_two(), "commit stride: a power of two");
    words.trailing_zeros() as u64
}

/// A constant of the block.
fn konst<const B: usize>(x: u64) -> Constant<Bits<B>> {
    Constant::new(x.into())
}

impl SlotRecords {
    /// The block for mailbox `mb`, whose rows hold `row_n` records (R).
    pub fn new(mb: &Mailbox, row_n: usize) -> Self {
        assert!(row_n.is_power_of_two(), "R a power of two (row_log)");
        assert!(G.is_power_of_two(), "s(k) = (k - 1) & (G - 1)");
        let base = |r: Region| Constant::new((mb.base(r) as u64).into());
        block!(SlotRecords {
            prepare_base: base(Region::Prepare),
            will_cert_base: base(Region::WillCert),
            will_commit_base: base(Region::WillCommit),
            prep_sig_base: base(Region::PrepSig),
            echo_prep_base: base(Region::EchoPrep),
            certify_base: base(Region::Certify),
            commit_base: base(Region::Commit),
            seal_base: base(Region::Seal),
            echo_seal_base: base(Region::EchoSeal),
            echo_commit_base: base(Region::EchoCommit),
            new_view_base: base(Region::NewViewRecord),
            remote_rows_base: base(Region::RemoteRows),
            row_records: konst(row_n as u64),
            row2_beats: konst((2 * mb.n - 1) as u64),
            remote_beats: konst((mb.span(Region::RemoteRows).words / BEAT_WORDS - 1) as u64),
            commit_shift: konst(commit_shift(mb)),
            row_shift: konst(mb.vote_row_words().trailing_zeros() as u64),
            row_log: konst(row_n.trailing_zeros() as u64),
            last_slot: konst((G - 1) as u64),
            prep_kind: konst(KIND_PREP as u64),
            cert_kind: konst(KIND_CERT as u64),
            commit_kind: konst(KIND_COMMIT as u64),
            ;
            defaults:
            id, view_no, k, m, prev, slot, slot_n, w_w, w_k, w_m, w_prev, d_w, d_k, d_m, d_prev,
            l_w, l_k, l_m, l_prev, slow_holding, slow_seal, slow_late, slow_deliver, blk_j, cons_c, x_t, cc_k1, cc_x, t_view, t_k,
            t_m, t_prev, prep_word, cert_row, commit_row, prep_sig_word, echo_row_word,
            echo_own_word, certify_row_word, certify_own_word, commit_row_word, cert_word,
            cc_word, prep_block, cert_block, commit_block, t_slot, t_slot_n, cert_slot, cc_slot,
            seal_word, seal_own_word, echo_seal_word, echo_commit_word, new_view_word,
            remote_rows_word, commit_log, r_log, row_n, row2_len, remote_len
        })
    }
}

impl Logic for SlotRecords {
    #[hdl_gen]
    fn update(&mut self) {
        // The layout's constants.
        self.seal_word.next = self.seal_base.val();
        self.seal_own_word.next = self.seal_base.val() + (bit_cast::<32, 8>(self.id.val()) << 5);
        self.echo_seal_word.next = self.echo_seal_base.val();
        self.echo_commit_word.next = self.echo_commit_base.val();
        self.new_view_word.next = self.new_view_base.val();
        self.remote_rows_word.next = self.remote_rows_base.val();
        self.commit_log.next = self.commit_shift.val();
        self.r_log.next = self.row_log.val();
        self.row_n.next = self.row_records.val();
        self.row2_len.next = self.row2_beats.val();
        self.remote_len.next = self.remote_beats.val();
        // prepare[slot] and the slot's vote rows.
        self.prep_word.next = self.prepare_base.val() + (bit_cast::<32, 8>(self.slot.val()) << 4);
        self.cert_row.next = self.will_cert_base.val()
            + (bit_cast::<32, 8>(self.slot.val()) << self.row_shift.val());
        self.commit_row.next = self.will_commit_base.val()
            + (bit_cast::<32, 8>(self.slot.val()) << self.row_shift.val());
        // SLOW's target: D in deliver or adopt mode (adopt mode may start
        // inside seal mode, D11.13), W in seal mode, else the slot.
        if self.slow_holding.val() & self.slow_deliver.val() {
            self.t_view.next = self.d_w.val();
            self.t_k.next = self.d_k.val();
            self.t_m.next = self.d_m.val();
            self.t_prev.next = self.d_prev.val();
            self.t_slot.next = (self.d_k.val().get_bits::<8>(0) - 1) & self.last_slot.val();
            self.t_slot_n.next =
                bit_cast::<16, 8>((self.d_k.val().get_bits::<8>(0) - 1) & self.last_slot.val())
                    << self.row_log.val();
        } else if self.slow_seal.val() & self.slow_late.val() {
            // The late share: K (the remote read).
            self.t_view.next = self.l_w.val();
            self.t_k.next = self.l_k.val();
            self.t_m.next = self.l_m.val();
            self.t_prev.next = self.l_prev.val();
            self.t_slot.next = (self.l_k.val().get_bits::<8>(0) - 1) & self.last_slot.val();
            self.t_slot_n.next =
                bit_cast::<16, 8>((self.l_k.val().get_bits::<8>(0) - 1) & self.last_slot.val())
                    << self.row_log.val();
        } else if self.slow_seal.val() {
            self.t_view.next = self.w_w.val();
            self.t_k.next = self.w_k.val();
            self.t_m.next = self.w_m.val();
            self.t_prev.next = self.w_prev.val();
            self.t_slot.next = (self.w_k.val().get_bits::<8>(0) - 1) & self.last_slot.val();
            self.t_slot_n.next =
                bit_cast::<16, 8>((self.w_k.val().get_bits::<8>(0) - 1) & self.last_slot.val())
                    << self.row_log.val();
        } else {
            self.t_view.next = self.view_no.val();
            self.t_k.next = self.k.val();
            self.t_m.next = self.m.val();
            self.t_prev.next = self.prev.val();
            self.t_slot.next = self.slot.val();
            self.t_slot_n.next = self.slot_n.val();
        }
        // prep_sig[s]: two beats a slot; echo_prep, certify and commit: R
        // records a slot.
        self.prep_sig_word.next =
            self.prep_sig_base.val() + (bit_cast::<32, 8>(self.t_slot.val()) << 5);
        self.echo_row_word.next =
            self.echo_prep_base.val() + (bit_cast::<32, 16>(self.t_slot_n.val()) << 5);
        self.echo_own_word.next = self.echo_prep_base.val()
            + (bit_cast::<32, 16>(self.t_slot_n.val()) << 5)
            + (bit_cast::<32, 8>(self.id.val()) << 5);
        self.certify_row_word.next =
            self.certify_base.val() + (bit_cast::<32, 16>(self.t_slot_n.val()) << 5);
        self.certify_own_word.next = self.certify_base.val()
            + (bit_cast::<32, 16>(self.t_slot_n.val()) << 5)
            + (bit_cast::<32, 8>(self.id.val()) << 5);
        self.commit_row_word.next = self.commit_base.val()
            + (bit_cast::<32, 16>(self.t_slot_n.val()) << self.commit_shift.val());
        // commit[s(c*)][x_T] and commit[s(k + 1)][x] (s(c) = (c - 1) mod G).
        self.cert_slot.next = (self.cons_c.val() - 1) & self.last_slot.val();
        self.cert_word.next = self.commit_base.val()
            + (((bit_cast::<32, 8>(self.cert_slot.val()) << self.row_log.val())
                + bit_cast::<32, 8>(self.x_t.val()))
                << self.commit_shift.val());
        self.cc_slot.next = (self.cc_k1.val() - 1) & self.last_slot.val();
        self.cc_word.next = self.commit_base.val()
            + (((bit_cast::<32, 8>(self.cc_slot.val()) << self.row_log.val())
                + bit_cast::<32, 8>(self.cc_x.val()))
                << self.commit_shift.val());
        // The target's signed blocks.
        self.prep_block.next = self.prep_kind.val()
            | (bit_cast::<BLOCK_BITS, 32>(self.t_view.val()) << 32)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_k.val()) << 64)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_m.val()) << 96)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_prev.val()) << 128);
        self.cert_block.next = self.cert_kind.val()
            | (bit_cast::<BLOCK_BITS, 32>(self.t_view.val()) << 32)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_k.val()) << 64)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_m.val()) << 96)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_prev.val()) << 128);
        self.commit_block.next = self.commit_kind.val()
            | (bit_cast::<BLOCK_BITS, 8>(self.blk_j.val()) << 32)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_view.val()) << 64)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_k.val()) << 96)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_m.val()) << 128)
            | (bit_cast::<BLOCK_BITS, 32>(self.t_prev.val()) << 160);
    }
}
