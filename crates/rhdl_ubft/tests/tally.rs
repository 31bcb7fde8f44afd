//! Tally against its reference: random rows of votes at each lane a row can
//! start at, some for the replica's (tag, m), some for another m or another
//! tag, and the prepare at each lane it can sit at.

use rhdl_ubft::controller::tally::{count_votes, Tally};
use rhdl_ubft::params::{vote_tag, BEAT_WORDS, N as BUILD_N};
use rust_hdl::prelude::*;

mod common;
use common::Rng;

#[test]
fn the_block_counts_what_count_votes_counts() {
    // The default build (N = 8: a row is a whole beat) and a build of 3
    // (a row is half a beat, at lane 0 or 8).
    check::<BUILD_N>();
    check::<3>();
}

fn check<const N: usize>() {
    let mut block = Tally::<N>::default();
    block.beat.connect();
    block.lane.connect();
    block.quarter.connect();
    block.active.connect();
    block.tag.connect();
    block.m.connect();
    block.connect_all();
    let mut rng = Rng(0x9e37_79b9);
    let mut quorums = 0;
    for _ in 0..3000 {
        let n = [1usize, 3, 5, 7][rng.below(4) as usize].min(N);
        let (tag, m) = (vote_tag(rng.below(3) as u32, 1 + rng.below(3) as u32), 7);
        // Some rows are another view's votes for the same k (R26's case).
        let row_tag = if rng.below(4) == 0 {
            vote_tag(3 + rng.below(3) as u32, tag & 0x00ff_ffff)
        } else {
            tag
        };
        // A row of votes (2n words rounded up to a power of two) starts at
        // a multiple of its length; the prepare (four words) sits at a
        // multiple of four.
        let row_words = (2 * N).next_power_of_two();
        let row_lane = row_words * rng.below((BEAT_WORDS / row_words) as u64) as usize;
        let lane = [0usize, 4, 8, 12][rng.below(4) as usize];
        let mut beat = [0u32; BEAT_WORDS];
        for w in beat.iter_mut() {
            *w = rng.below(4) as u32;
        }
        for i in 0..N {
            if rng.below(4) != 0 {
                beat[row_lane + 2 * i] = if rng.below(6) == 0 {
                    row_tag ^ 1
                } else {
                    row_tag
                };
                beat[row_lane + 2 * i + 1] = if rng.below(5) == 0 { 8 } else { m };
            }
        }
        let mut bits = Bits::<512>::default();
        for (i, w) in beat.iter().enumerate() {
            bits.set_bits::<32>(32 * i, (*w as u64).into());
        }
        block.beat.next = bits;
        block.lane.next = (row_lane as u64).into();
        block.quarter.next = (lane as u64 / 4).into();
        block.active.next = ((1u64 << n) - 1).into();
        block.tag.next = (tag as u64).into();
        block.m.next = (m as u64).into();
        assert!(simulate(&mut block, 20));
        let row = &beat[row_lane..];
        let want = count_votes(row, n, tag, m);
        assert_eq!(block.votes.val().to_u32() as usize, want, "row {row:x?}");
        // `flags` marks the lanes counted.
        let lanes: Vec<usize> = (0..N).filter(|&i| block.flags.val().get_bit(i)).collect();
        let expect: Vec<usize> = (0..n)
            .filter(|&i| row.get(2 * i) == Some(&tag) && row.get(2 * i + 1) == Some(&m))
            .collect();
        assert_eq!(lanes, expect, "row {row:x?}");
        // The prepare (k, m, view) is the three words at the lane.
        for w in 0..3 {
            let got = block.record.val().get_bits::<32>(32 * w).to_u32();
            assert_eq!(got, beat[lane + w]);
        }
        quorums += (want == n) as u32;
    }
    assert!(
        quorums > 100,
        "N = {N}: the random cases reach a quorum ({quorums})"
    );
}
