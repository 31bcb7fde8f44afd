//! Tally: what a polled beat holds, as combinational logic.
//!
//! Protocol owns the fetch port, so it owns the read side too: every
//! machine that polls a row reads the count from here, and the comparators
//! exist once, not once per machine.
//!
//! Inputs: the beat Fetch hands over (`beat`); where the slot's rows start
//! in their beats (`lane`, in words: a row of votes or flags is 2N words
//! rounded up to a power of two, so with N = 8 every row is a whole beat
//! and `lane` is 0); the quarter of its beat the slot's prepare sits in
//! (`quarter`: a prepare is four words); the lanes of the first n replicas
//! (`active`); and the slot's vote: `tag` = tag(vote_view, k) and the
//! replica's own `m`. Protocol derives `lane` and `quarter` from the slot,
//! so synthesis sees which lanes are possible.
//!
//! Outputs:
//! - `record`: the prepare's first three words, (k, m, view).
//! - `votes`, `flags`: how many of the first n two-word entries of the row
//!   equal (tag, m), and which (`count_votes`; `flags` is a bitmap over
//!   lanes).
//!
//! Timing: combinational; the machines decide on it in the cycle Fetch
//! raises `done`.

use crate::params::BEAT_BITS;
use rust_hdl::prelude::*;

/// The literals `update` holds, checked against the layout (called by
/// `literals::check_literals` whenever a Protocol is built): entries of two
/// words (tag at `i * 64`, m at `+ 32`); a prepare's quarter at 128, 256,
/// 384 and its first three words (k, m, view: `get_bits::<96>`); a lane of
/// one word (`lane << 5`) among 16 (`lane` is 4 bits).
pub fn check_literals() {
    use crate::layout::{records, PREPARE_WORDS, VOTE_WORDS};
    use crate::params::{BEAT_WORDS, WORD_BITS};
    let w = WORD_BITS;
    assert_eq!(
        (VOTE_WORDS * w, records::VOTE_TAG * w, records::VOTE_M * w),
        (64, 0, 32),
        "tally.rs: entries at i * 64, tag at + 0, m at + 32"
    );
    assert_eq!(
        PREPARE_WORDS * w,
        128,
        "tally.rs: a prepare's quarters at 128, 256, 384"
    );
    assert_eq!(
        (records::PREPARE_V + 1) * w,
        96,
        "tally.rs: record = get_bits::<96>: (k, m, view)"
    );
    assert_eq!(
        (w, BEAT_WORDS),
        (1 << 5, 1 << 4),
        "tally.rs: lane << 5 bits, lane is 4 bits"
    );
    assert_eq!(
        crate::params::TAG_K_MASK,
        0x00ff_ffff,
        "tally.rs: a tag's k field is & 0x00ff_ffff"
    );
}

#[derive(LogicBlock, Default)]
pub struct Tally<const N: usize> {
    pub beat: Signal<In, Bits<BEAT_BITS>>,
    pub lane: Signal<In, Bits<4>>,
    pub quarter: Signal<In, Bits<2>>,
    pub active: Signal<In, Bits<N>>,
    pub tag: Signal<In, Bits<32>>,
    pub m: Signal<In, Bits<32>>,
    pub record: Signal<Out, Bits<96>>,
    pub votes: Signal<Out, Bits<8>>,
    pub flags: Signal<Out, Bits<N>>,
    /// The beat moved so that the row starts at lane 0.
    row: Signal<Local, Bits<BEAT_BITS>>,
}

impl<const N: usize> Logic for Tally<N> {
    #[hdl_gen]
    fn update(&mut self) {
        // The prepare, from its quarter of the beat. (A chain of 2:1
        // selections: as a `match`, Yosys turns the 4-way choice into a
        // 480-bit shifter.)
        self.record.next = self.beat.val().get_bits::<96>(0);
        if self.quarter.val() == 1 {
            self.record.next = self.beat.val().get_bits::<96>(128);
        }
        if self.quarter.val() == 2 {
            self.record.next = self.beat.val().get_bits::<96>(256);
        }
        if self.quarter.val() == 3 {
            self.record.next = self.beat.val().get_bits::<96>(384);
        }
        // The row, moved to lane 0 of the beat.
        self.row.next = self.beat.val() >> (bit_cast::<10, 4>(self.lane.val()) << 5);
        // count_votes: entries i < n holding (tag, m).
        self.votes.next = 0.into();
        self.flags.next = 0.into();
        for i in 0..N {
            if self.active.val().get_bit(i)
                & (self.row.val().get_bits::<32>(i * 64) == self.tag.val())
                & (self.row.val().get_bits::<32>(i * 64 + 32) == self.m.val())
            {
                self.votes.next = self.votes.val() + 1;
                self.flags.next = self.flags.val().replace_bit(i, true);
            }
        }
    }
}

/// count_votes: votes for (tag, m) among the first n two-word entries of a
/// row (the reference the hardware's lane compare is tested against).
pub fn count_votes(row: &[u32], n: usize, tag: u32, m: u32) -> usize {
    (0..n)
        .filter(|&i| row.get(2 * i) == Some(&tag) && row.get(2 * i + 1) == Some(&m))
        .count()
}
