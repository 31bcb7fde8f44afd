//! Choose: the view change's rule, as combinational logic.
//!
//! Inputs are what a replica fetched in a view change: its vc region (the
//! records (view, slot | phase << 16, k, m) of up to eight replicas, four per
//! beat: `rec_lo` holds replicas 0-3, `rec_hi` 4-7) and its vc_valid region
//! (`flags`: one (tag(view, k), m) per replica). A record counts only when
//! its replica is one of the first n (`active`), it names the current view,
//! and its flag is there and matches it (tag(view, k) and m).
//!
//! Outputs: `valid` (how many records count) and, among the records with
//! phase >= 1, the (k, m) reported by at least `support` (f + 1) of them, the
//! highest such k (`chosen`, `chosen_k`, `chosen_m`). At most one value per
//! k can have f + 1 reports among 2f + 1 records (2(f + 1) > n).
//!
//! `higher`: some replica posted a record, with its flag, for a later view
//! than ours (it completed our view and moved on; we follow one view at a
//! time, since the leader rotates with each).
//!
//! Timing: combinational; the controller registers what it uses.

use crate::layout::field;
use rust_hdl::prelude::*;

/// Replicas the rule looks at: the most a build supports.
pub const LANES: usize = 8;

/// The literals `update` holds, checked against the layout (called by
/// `view::check_literals` whenever a View is built): records of four words
/// (`i * 128`; view at `+ 0`, phase at `+ 48`, k at `+ 64`, m at `+ 96`),
/// four to a beat (`rec_lo` 0-3, `rec_hi` 4-7); flags of two words
/// (`i * 64`, m at `+ 32`); and the tags (`& 0xff` and `<< 24` of the
/// view, `& 0x00ff_ffff` of k).
pub fn check_literals() {
    use crate::layout::{vote_words, Version, VC_WORDS};
    use crate::params::{check_tag_literals, BEAT_BITS, WORD_BITS};
    let w = WORD_BITS;
    assert_eq!(VC_WORDS * w, 128, "choose.rs: records at i * 128");
    assert_eq!(
        (BEAT_BITS / (VC_WORDS * w), 2 * 4),
        (4, LANES),
        "choose.rs: four records a beat, two beats"
    );
    assert_eq!(
        [
            field::VC_VIEW * w,
            field::VC_SLOT * w + field::VC_PHASE_SHIFT,
            field::VC_K * w,
            field::VC_M * w
        ],
        [0, 48, 64, 96],
        "choose.rs: a record's view, phase, k, m at + 0, 48, 64, 96"
    );
    assert_eq!(
        (
            vote_words(Version::V2) * w,
            field::VOTE_TAG * w,
            field::VOTE_M * w
        ),
        (64, 0, 32),
        "choose.rs: flags at i * 64, tag at + 0, m at + 32"
    );
    check_tag_literals("choose.rs");
}

#[derive(LogicBlock, Default)]
pub struct Choose {
    pub rec_lo: Signal<In, Bits<512>>,
    pub rec_hi: Signal<In, Bits<512>>,
    pub flags: Signal<In, Bits<512>>,
    pub view: Signal<In, Bits<32>>,
    pub active: Signal<In, Bits<8>>,
    pub support: Signal<In, Bits<8>>,
    pub valid: Signal<Out, Bits<8>>,
    pub chosen: Signal<Out, Bit>,
    pub chosen_k: Signal<Out, Bits<32>>,
    pub chosen_m: Signal<Out, Bits<32>>,
    /// A replica posted a valid record for a later view than ours.
    pub higher: Signal<Out, Bit>,
    rv: [Signal<Local, Bits<32>>; LANES],
    rp: [Signal<Local, Bits<2>>; LANES],
    rk: [Signal<Local, Bits<32>>; LANES],
    rm: [Signal<Local, Bits<32>>; LANES],
    rt: [Signal<Local, Bits<32>>; LANES],
    ht: [Signal<Local, Bits<32>>; LANES],
    sup: [Signal<Local, Bits<8>>; LANES],
    ok: Signal<Local, Bits<8>>,
    elig: Signal<Local, Bits<8>>,
    tag_hi: Signal<Local, Bits<32>>,
}

impl Logic for Choose {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..4 {
            self.rv[i].next = self.rec_lo.val().get_bits::<32>(i * 128);
            self.rp[i].next = self.rec_lo.val().get_bits::<2>(i * 128 + 48);
            self.rk[i].next = self.rec_lo.val().get_bits::<32>(i * 128 + 64);
            self.rm[i].next = self.rec_lo.val().get_bits::<32>(i * 128 + 96);
            self.rv[i + 4].next = self.rec_hi.val().get_bits::<32>(i * 128);
            self.rp[i + 4].next = self.rec_hi.val().get_bits::<2>(i * 128 + 48);
            self.rk[i + 4].next = self.rec_hi.val().get_bits::<32>(i * 128 + 64);
            self.rm[i + 4].next = self.rec_hi.val().get_bits::<32>(i * 128 + 96);
        }
        self.tag_hi.next = bit_cast::<32, 8>(self.view.val().get_bits::<8>(0)) << 24;
        self.ok.next = 0.into();
        self.elig.next = 0.into();
        self.valid.next = 0.into();
        for i in 0..LANES {
            self.rt[i].next = self.tag_hi.val() | (self.rk[i].val() & 0x00ff_ffff);
            self.ht[i].next = ((self.rv[i].val() & 0xff) << 24) | (self.rk[i].val() & 0x00ff_ffff);
        }
        // A record of a later view, with its flag: the others have moved on.
        self.higher.next = false;
        for i in 0..LANES {
            if self.active.val().get_bit(i)
                & (self.rv[i].val() > self.view.val())
                & (self.flags.val().get_bits::<32>(i * 64) == self.ht[i].val())
                & (self.flags.val().get_bits::<32>(i * 64 + 32) == self.rm[i].val())
            {
                self.higher.next = true;
            }
        }
        for i in 0..LANES {
            if self.active.val().get_bit(i)
                & (self.rv[i].val() == self.view.val())
                & (self.flags.val().get_bits::<32>(i * 64) == self.rt[i].val())
                & (self.flags.val().get_bits::<32>(i * 64 + 32) == self.rm[i].val())
            {
                self.ok.next = self.ok.val().replace_bit(i, true);
                self.valid.next = self.valid.val() + 1;
                if self.rp[i].val() != 0 {
                    self.elig.next = self.elig.val().replace_bit(i, true);
                }
            }
        }
        for i in 0..LANES {
            self.sup[i].next = 0.into();
            for j in 0..LANES {
                if self.elig.val().get_bit(j)
                    & (self.rk[j].val() == self.rk[i].val())
                    & (self.rm[j].val() == self.rm[i].val())
                {
                    self.sup[i].next = self.sup[i].val() + 1;
                }
            }
        }
        self.chosen.next = false;
        self.chosen_k.next = 0.into();
        self.chosen_m.next = 0.into();
        for i in 0..LANES {
            if self.elig.val().get_bit(i)
                & (self.sup[i].val() >= self.support.val())
                & (!self.chosen.val() | (self.rk[i].val() > self.chosen_k.val()))
            {
                self.chosen.next = true;
                self.chosen_k.next = self.rk[i].val();
                self.chosen_m.next = self.rm[i].val();
            }
        }
    }
}

/// A view-change record as a replica posts it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct VcRecord {
    pub view: u32,
    pub slot: u32,
    pub phase: u32,
    pub k: u32,
    pub m: u32,
}

impl VcRecord {
    /// The four words in the vc region.
    pub fn words(&self) -> [u32; crate::layout::VC_WORDS] {
        let mut w = [0; crate::layout::VC_WORDS];
        w[field::VC_VIEW] = self.view;
        w[field::VC_SLOT] = self.slot | (self.phase << field::VC_PHASE_SHIFT);
        w[field::VC_K] = self.k;
        w[field::VC_M] = self.m;
        w
    }
}

/// choose: the (k, m) reported by at least `support` of the records with
/// phase >= 1, the highest such k, if any (the reference the block is
/// tested against; records are the valid ones).
pub fn choose(records: &[VcRecord], support: usize) -> Option<(u32, u32)> {
    let elig: Vec<&VcRecord> = records.iter().filter(|r| r.phase >= 1).collect();
    elig.iter()
        .filter(|r| elig.iter().filter(|o| o.k == r.k && o.m == r.m).count() >= support)
        .map(|r| (r.k, r.m))
        .max_by_key(|&(k, _)| k)
}
