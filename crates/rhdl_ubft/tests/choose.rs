//! Choose against its reference: random sets of view-change records, some
//! valid, some from other views, some with missing or mismatched flags.

use rhdl_ubft::choose::{choose, Choose, VcRecord};
use rhdl_ubft::params::{faults, vote_tag};
use rust_hdl::prelude::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn put(b: &mut Bits<512>, word: usize, v: u32) {
    b.set_bits::<32>(word * 32, (v as u64).into());
}

#[test]
fn the_block_chooses_what_the_reference_chooses() {
    check(0, 0, 0x1234_5678);
}

#[test]
fn the_block_tags_any_view_and_k_as_vote_tag_does() {
    // Views whose low byte wraps and k around and above 2^24: the block's
    // tag masks and shifts (hdl_gen literals) must agree with vote_tag.
    check(0x0123_45fd, 0x00ff_fffc, 0x0bad_cafe);
    check(0xffff_fffa, 0x7f00_0000, 0x5eed_0001);
}

/// Random cases with views base_view + 0..4 and k = base_k + 1..=3.
fn check(base_view: u32, base_k: u32, seed: u64) {
    let mut block = Choose::default();
    block.rec_lo.connect();
    block.rec_hi.connect();
    block.flags.connect();
    block.view.connect();
    block.active.connect();
    block.support.connect();
    block.connect_all();
    let mut rng = Rng(seed);
    let mut chosen_some = 0;
    for _ in 0..3000 {
        let n = [1usize, 3, 5, 7][rng.below(4) as usize];
        let view = base_view.wrapping_add(rng.below(4) as u32);
        let (mut lo, mut hi, mut flags) = (
            Bits::<512>::default(),
            Bits::<512>::default(),
            Bits::<512>::default(),
        );
        let mut valid = vec![];
        for i in 0..8 {
            // Few distinct values, so that f + 1 reports happen.
            let r = VcRecord {
                view: if rng.below(6) == 0 {
                    view.wrapping_add(1)
                } else {
                    view
                },
                slot: rng.below(16) as u32,
                phase: rng.below(3) as u32,
                k: base_k.wrapping_add(1 + rng.below(3) as u32),
                m: 100 + rng.below(2) as u32,
            };
            let words = r.words();
            for (w, v) in words.iter().enumerate() {
                if i < 4 {
                    put(&mut lo, 4 * i + w, *v);
                } else {
                    put(&mut hi, 4 * (i - 4) + w, *v);
                }
            }
            let flag_ok = rng.below(8) != 0;
            let (ft, fm) = if flag_ok {
                (vote_tag(view, r.k), r.m)
            } else {
                (vote_tag(view, r.k), r.m ^ 1)
            };
            put(&mut flags, 2 * i, ft);
            put(&mut flags, 2 * i + 1, fm);
            if i < n && r.view == view && flag_ok {
                valid.push(r);
            }
        }
        let f1 = faults(n) + 1;
        block.rec_lo.next = lo;
        block.rec_hi.next = hi;
        block.flags.next = flags;
        block.view.next = (view as u64).into();
        block.active.next = ((1u64 << n) - 1).into();
        block.support.next = (f1 as u64).into();
        assert!(simulate(&mut block, 20));
        assert_eq!(block.valid.val().to_u32() as usize, valid.len());
        let want = choose(&valid, f1);
        let got = block
            .chosen
            .val()
            .then(|| (block.chosen_k.val().to_u32(), block.chosen_m.val().to_u32()));
        assert_eq!(got, want, "records {valid:?}");
        chosen_some += want.is_some() as u32;
    }
    assert!(
        chosen_some > 300,
        "the random cases exercise a choice ({chosen_some})"
    );
}
