//! Encoder: the first beat of every record a replica sends, and the block
//! and signature the signer signs or verifies (combinational;
//! docs/encoder.md).
//!
//! The machines say what to send (a vote or flag by default, or one of the
//! selects below) and where (`bc_word`, Protocol's); the encoder lays the
//! record's first beat out once, from the slot's registers and the m taken
//! in that cycle (`m_new`), and says how many beats it has (`bc_beats`:
//! COMPOSE streams the later ones, the signature and shares). Words are
//! 32 bits, word 0 lowest (docs/layout.md):
//!
//! | select | record | beat 0 | words | beats |
//! | --- | --- | --- | ---: | ---: |
//! | (none) | a vote or flag | [tag(vote_view, k), m] | 2 | 1 |
//! | `leader_prepare` | prepare | [k, m, view, prev] | 4 | 1 |
//! | `slow_prep_sig` | prep_sig or its echo | the PREP block | 16 | 2 |
//! | `slow_cert` | certify | the CERT block | 16 | 2 |
//! | `slow_commit` | commit | the COMMIT block, the signer bitmap in word 8 | 16 | f + 3 |
//! | `slow_echo_commit` | echo_commit | x's COMMIT block | 16 | 2 |
//! | `view_seal` | seal | the SEAL block | 16 | VIEW's |
//! | `view_echo_seal` | echo_seal | x's SEAL block (`view_blk`) | 16 | VIEW's |
//! | `view_nv` | new_view | [view, sb, cb] | 16 | VIEW's |
//!
//! The SEAL block (R18) is [SEAL, id, view, L.w, L.c, L.m, L.prev, 1] with
//! L, [SEAL, id, view, 0, ...] without; it is built only while VIEW holds
//! the slot, the one time it is read (0 otherwise). CertCheck's block is
//! the CERT block [CERT, v, k + 1, m, prev] of the COMMIT event it checks
//! (`cc_k1`).
//!
//! The signer's block, in priority order: CertCheck's while it runs, SLOW's
//! suspect, the SEAL, VIEW's block, VIEW's suspect, the PREP block, the
//! COMMIT block, else the CERT block. Its signature: the fetched beat for
//! CertCheck, SLOW's suspect's, COMPOSE's read beat for what COMPOSE holds
//! (`slow_sg_compose`, VIEW's block and suspect), else the fetched beat.
//!
//! Every output is assigned once on every path (if/else chains).

use crate::layout::records::{BLOCK_BITS, KIND_CERT, KIND_SEAL};
use crate::params::BEAT_BITS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Encoder {
    // The slot's registers.
    pub id: Signal<In, Bits<8>>,
    pub view_no: Signal<In, Bits<32>>,
    pub k: Signal<In, Bits<32>>,
    pub prev: Signal<In, Bits<32>>,
    /// The view the slot's votes carry: its low 8 bits, the tag's field.
    pub vote_view: Signal<In, Bits<8>>,
    pub support: Signal<In, Bits<8>>,
    /// The m taken in this cycle.
    pub m_new: Signal<In, Bits<32>>,
    // What to send.
    pub leader_prepare: Signal<In, Bit>,
    pub slow_prep_sig: Signal<In, Bit>,
    pub slow_cert: Signal<In, Bit>,
    pub slow_commit: Signal<In, Bit>,
    pub slow_echo_commit: Signal<In, Bit>,
    pub slow_bitmap: Signal<In, Bits<8>>,
    pub view_seal: Signal<In, Bit>,
    pub view_echo_seal: Signal<In, Bit>,
    pub view_nv: Signal<In, Bit>,
    pub view_beats: Signal<In, Bits<5>>,
    pub view_blk: Signal<In, Bits<BLOCK_BITS>>,
    pub view_sb: Signal<In, Bits<8>>,
    pub view_cb: Signal<In, Bits<8>>,
    /// SLOW's target's PREP, CERT and COMMIT blocks (Protocol's).
    pub prep_block: Signal<In, Bits<BLOCK_BITS>>,
    pub cert_block: Signal<In, Bits<BLOCK_BITS>>,
    pub commit_block: Signal<In, Bits<BLOCK_BITS>>,
    /// The SEAL: VIEW holds the slot; L.
    pub view_holding: Signal<In, Bit>,
    pub l_ok: Signal<In, Bit>,
    pub l_w: Signal<In, Bits<32>>,
    pub l_c: Signal<In, Bits<32>>,
    pub l_m: Signal<In, Bits<32>>,
    pub l_prev: Signal<In, Bits<32>>,
    /// CertCheck: running, and its COMMIT event's view, k + 1, m, prev.
    pub cc_busy: Signal<In, Bit>,
    pub ev_view: Signal<In, Bits<32>>,
    pub cc_k1: Signal<In, Bits<32>>,
    pub ev_m: Signal<In, Bits<32>>,
    pub ev_prev: Signal<In, Bits<32>>,
    // What the signer signs or verifies.
    pub slow_sg_sus: Signal<In, Bit>,
    pub slow_sus_block: Signal<In, Bits<BLOCK_BITS>>,
    pub slow_sus_sig: Signal<In, Bits<BEAT_BITS>>,
    pub slow_sg_prep: Signal<In, Bit>,
    pub slow_sg_commit: Signal<In, Bit>,
    pub slow_sg_compose: Signal<In, Bit>,
    pub view_sg_seal: Signal<In, Bit>,
    pub view_sg_blk: Signal<In, Bit>,
    pub view_sg_sus: Signal<In, Bit>,
    pub view_sus_block: Signal<In, Bits<BLOCK_BITS>>,
    pub cp_rd_data: Signal<In, Bits<BEAT_BITS>>,
    pub fetch_beat: Signal<In, Bits<BEAT_BITS>>,
    pub bc_words: Signal<Out, Bits<5>>,
    pub bc_data: Signal<Out, Bits<BEAT_BITS>>,
    pub bc_beats: Signal<Out, Bits<5>>,
    pub sg_block: Signal<Out, Bits<BLOCK_BITS>>,
    pub sg_signature: Signal<Out, Bits<BEAT_BITS>>,
    // Combinational temporaries.
    /// tag(vote_view, k).
    tag: Signal<Local, Bits<32>>,
    seal_block: Signal<Local, Bits<BLOCK_BITS>>,
    cc_block: Signal<Local, Bits<BLOCK_BITS>>,
    seal_kind: Constant<Bits<BLOCK_BITS>>,
    cert_kind: Constant<Bits<BLOCK_BITS>>,
    one32: Constant<Bits<32>>,
}

impl Default for Encoder {
    fn default() -> Self {
        block!(Encoder {
            seal_kind: Constant::new((KIND_SEAL as u64).into()),
            cert_kind: Constant::new((KIND_CERT as u64).into()),
            one32: Constant::new(1u64.into()),
            ;
            defaults:
            id, view_no, k, prev, vote_view, support, m_new, leader_prepare,
            slow_prep_sig, slow_cert, slow_commit, slow_echo_commit, slow_bitmap,
            view_seal, view_echo_seal, view_nv, view_beats, view_blk, view_sb, view_cb,
            prep_block, cert_block, commit_block, view_holding, l_ok, l_w, l_c, l_m,
            l_prev, cc_busy, ev_view, cc_k1, ev_m, ev_prev, slow_sg_sus, slow_sus_block,
            slow_sus_sig, slow_sg_prep, slow_sg_commit, slow_sg_compose, view_sg_seal,
            view_sg_blk, view_sg_sus, view_sus_block, cp_rd_data, fetch_beat, bc_words,
            bc_data, bc_beats, sg_block, sg_signature, tag, seal_block, cc_block
        })
    }
}

impl Logic for Encoder {
    #[hdl_gen]
    fn update(&mut self) {
        // The SEAL block (R18): L's words only with L.
        if self.view_holding.val() & self.l_ok.val() {
            self.seal_block.next = self.seal_kind.val()
                | (bit_cast::<BLOCK_BITS, 8>(self.id.val()) << 32)
                | (bit_cast::<BLOCK_BITS, 32>(self.view_no.val()) << 64)
                | (bit_cast::<BLOCK_BITS, 32>(self.l_w.val()) << 96)
                | (bit_cast::<BLOCK_BITS, 32>(self.l_c.val()) << 128)
                | (bit_cast::<BLOCK_BITS, 32>(self.l_m.val()) << 160)
                | (bit_cast::<BLOCK_BITS, 32>(self.l_prev.val()) << 192)
                | (bit_cast::<BLOCK_BITS, 32>(self.one32.val()) << 224);
        } else if self.view_holding.val() {
            self.seal_block.next = self.seal_kind.val()
                | (bit_cast::<BLOCK_BITS, 8>(self.id.val()) << 32)
                | (bit_cast::<BLOCK_BITS, 32>(self.view_no.val()) << 64);
        } else {
            self.seal_block.next = 0.into();
        }
        self.tag.next = (bit_cast::<32, 8>(self.vote_view.val()) << 24)
            | bit_cast::<32, 24>(self.k.val().get_bits::<24>(0));
        // CertCheck's CERT block of k + 1.
        self.cc_block.next = self.cert_kind.val()
            | (bit_cast::<BLOCK_BITS, 32>(self.ev_view.val()) << 32)
            | (bit_cast::<BLOCK_BITS, 32>(self.cc_k1.val()) << 64)
            | (bit_cast::<BLOCK_BITS, 32>(self.ev_m.val()) << 96)
            | (bit_cast::<BLOCK_BITS, 32>(self.ev_prev.val()) << 128);

        // The record's first beat, its words and its beats.
        if self.view_nv.val() {
            self.bc_words.next = 16.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.view_no.val())
                | (bit_cast::<BEAT_BITS, 8>(self.view_sb.val()) << 32)
                | (bit_cast::<BEAT_BITS, 8>(self.view_cb.val()) << 64);
            self.bc_beats.next = self.view_beats.val();
        } else if self.view_echo_seal.val() {
            self.bc_words.next = 16.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.view_blk.val());
            self.bc_beats.next = self.view_beats.val();
        } else if self.view_seal.val() {
            self.bc_words.next = 16.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.seal_block.val());
            self.bc_beats.next = self.view_beats.val();
        } else if self.slow_echo_commit.val() {
            self.bc_words.next = 16.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.commit_block.val());
            self.bc_beats.next = 2.into();
        } else if self.slow_commit.val() {
            self.bc_words.next = 16.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.commit_block.val())
                | (bit_cast::<BEAT_BITS, 8>(self.slow_bitmap.val()) << 256);
            self.bc_beats.next = bit_cast::<5, 8>(self.support.val()) + 2;
        } else if self.slow_cert.val() {
            self.bc_words.next = 16.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.cert_block.val());
            self.bc_beats.next = 2.into();
        } else if self.slow_prep_sig.val() {
            self.bc_words.next = 16.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, BLOCK_BITS>(self.prep_block.val());
            self.bc_beats.next = 2.into();
        } else if self.leader_prepare.val() {
            self.bc_words.next = 4.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.k.val())
                | (bit_cast::<BEAT_BITS, 32>(self.m_new.val()) << 32)
                | (bit_cast::<BEAT_BITS, 32>(self.view_no.val()) << 64)
                | (bit_cast::<BEAT_BITS, 32>(self.prev.val()) << 96);
            self.bc_beats.next = 1.into();
        } else {
            // A vote or flag: tag(vote_view, k) and m.
            self.bc_words.next = 2.into();
            self.bc_data.next = bit_cast::<BEAT_BITS, 32>(self.tag.val())
                | (bit_cast::<BEAT_BITS, 32>(self.m_new.val()) << 32);
            self.bc_beats.next = 1.into();
        }

        // The signer's block and signature.
        if self.cc_busy.val() {
            self.sg_block.next = self.cc_block.val();
        } else if self.slow_sg_sus.val() {
            self.sg_block.next = self.slow_sus_block.val();
        } else if self.view_sg_seal.val() {
            self.sg_block.next = self.seal_block.val();
        } else if self.view_sg_blk.val() {
            self.sg_block.next = self.view_blk.val();
        } else if self.view_sg_sus.val() {
            self.sg_block.next = self.view_sus_block.val();
        } else if self.slow_sg_prep.val() {
            self.sg_block.next = self.prep_block.val();
        } else if self.slow_sg_commit.val() {
            self.sg_block.next = self.commit_block.val();
        } else {
            self.sg_block.next = self.cert_block.val();
        }
        if self.cc_busy.val() {
            self.sg_signature.next = self.fetch_beat.val();
        } else if self.slow_sg_sus.val() {
            self.sg_signature.next = self.slow_sus_sig.val();
        } else if self.slow_sg_compose.val() | self.view_sg_blk.val() | self.view_sg_sus.val() {
            self.sg_signature.next = self.cp_rd_data.val();
        } else {
            self.sg_signature.next = self.fetch_beat.val();
        }
    }
}
