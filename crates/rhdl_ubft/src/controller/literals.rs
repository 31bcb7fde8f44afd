//! The literals Protocol's `update` holds, checked against the layout and
//! params constants they stand for (hdl_gen takes no constants in
//! `get_bits` widths and offsets, and the machines' shifts by a record's
//! size are written out). Every Protocol checks them when it is built, so
//! a change of layout fails here, not silently in the hardware.

use crate::params::{vc_shift, BEAT_WORDS, FAST_POLL_SHIFT, G, VC_SHIFT, VC_SHIFT_F1, WAITED_BITS};

/// The literals `update` holds (hdl_gen takes no constants in `get_bits`
/// widths and offsets, and the machines' shifts by a record's size are
/// written out), checked against the layout and params constants they
/// stand for whenever a Protocol is built: a change of layout fails here,
/// not silently in the hardware. `tests/protocol.rs` calls it too.
pub fn check_literals<const N: usize>() {
    use crate::layout::{records, Mailbox, Region, PREPARE_WORDS, VOTE_WORDS};
    use crate::params::{
        check_tag_literals, faults, quorum, AXI_BOUNDARY_BYTES, SB, WAIT_BITS, WORD_BITS,
        WORD_BYTES,
    };
    let w = WORD_BITS;
    let mb = Mailbox::v3(N, G, SB);
    let row = mb.vote_row_words();
    // tag, tally.tag: (view[7:0] << 24) | k[23:0].
    check_tag_literals("protocol.rs");
    // The shifts and record sizes written in `update` and the machines'.
    assert_eq!(VOTE_WORDS, 2, "votes: id << 1, bc_words 2");
    assert_eq!(BEAT_WORDS, 16, "bc_words 16: a beat is 16 words");
    assert_eq!(WORD_BYTES, 4, "fetch_addr: word << 2 bytes");
    assert_eq!(w, 32, "records: a field every 32 bits");
    assert_eq!(
        [WAIT_BITS, WAITED_BITS],
        [16, 29],
        "timer.rs: bit_cast::<WAITED_BITS, 16>(wait_polls), WAITED_BITS = 29"
    );
    assert_eq!(
        crate::params::PROBE_SHIFT,
        5,
        "protocol.rs, skip: k.get_bits::<5>(0) against timer.rs's Bits<5> probe_mask"
    );
    assert_eq!(
        FAST_POLL_SHIFT, 1,
        "timer.rs, FAST's limits: wait_polls << (streak + 1)"
    );
    assert_eq!(
        [VC_SHIFT_F1, VC_SHIFT],
        [vc_shift(3), vc_shift(5)],
        "timer.rs, vc_shift: n <= 3 picks VC_SHIFT_F1"
    );
    // Records as the encoder lays them out in bc_data, at these bit offsets.
    let at = |word: usize| word * w;
    assert_eq!(
        [at(records::VOTE_TAG), at(records::VOTE_M)],
        [0, 32],
        "votes: (tag, m << 32)"
    );
    assert_eq!(
        [
            at(records::PREPARE_K),
            at(records::PREPARE_M),
            at(records::PREPARE_V)
        ],
        [0, 32, 64],
        "prepare: (k, m << 32, view << 64)"
    );
    {
        use crate::layout::records::{BLOCK_K, BLOCK_M, BLOCK_PREV, BLOCK_V, KIND};
        assert_eq!(
            [
                at(KIND),
                at(BLOCK_V),
                at(BLOCK_K),
                at(BLOCK_M),
                at(BLOCK_PREV)
            ],
            [0, 32, 64, 96, 128],
            "sg_block: (CERT, view << 32, k << 64, m << 96, prev << 128 = 0)"
        );
    }
    // Tally's inputs: the row's lane is the polled word's get_bits::<4>(0)
    // (16 words a beat); the prepare's quarter is get_bits::<2>(2) (four
    // words, four to a beat).
    assert_eq!(BEAT_WORDS, 1 << 4, "tally.lane: get_bits::<4>(0)");
    assert_eq!(
        (PREPARE_WORDS, BEAT_WORDS / PREPARE_WORDS),
        (1 << 2, 1 << 2),
        "tally.quarter: get_bits::<2>(2)"
    );
    // quorum = ((n - 1) & 0xfe) + 1 and support = ((n - 1) >> 1) + 1.
    for n in (1..=255usize).step_by(2) {
        assert_eq!(((n - 1) & 0xfe) + 1, quorum(n), "quorum for n = {n}");
        assert_eq!(((n - 1) >> 1) + 1, faults(n) + 1, "support for n = {n}");
    }
    // Tally finds the slot's rows at (slot << row_shift) mod 16 in their
    // beats: the regions start a beat, and a row never straddles one.
    for region in [Region::WillCert, Region::WillCommit] {
        assert_eq!(
            mb.base(region) % BEAT_WORDS,
            0,
            "{region:?}: rows start a beat"
        );
    }
    assert_eq!(BEAT_WORDS % row, 0, "a row of votes never straddles a beat");
    assert_eq!(
        mb.base(Region::Prepare) % PREPARE_WORDS,
        0,
        "a prepare sits in a quarter of its beat"
    );
    assert!(
        AXI_BOUNDARY_BYTES.is_power_of_two(),
        "page_mask is AXI_BOUNDARY_BYTES - 1"
    );
    crate::controller::tally::check_literals();
    crate::controller::fast::check_literals();
    crate::io::scoreboard::check_literals();
    // Broadcast places records aligned to their size only.
    crate::io::broadcast::check_lanes(&mb);
}

/// The literals `update` and the machines hold for the records
/// (`Protocol::new`): a prepare a beat (`slot << 4`, quarter 0 for Tally, prev at word 3:
/// `fetch_beat.get_bits::<32>(96)`), and the will_cert and will_commit
/// rows (`row_shift`, lanes `id << 1`).
pub fn check_record_literals<const N: usize>() {
    use crate::layout::{records, Mailbox, Region, PREPARE_WORDS, VOTE_WORDS};
    use crate::params::{SB, WORD_BITS};
    let mb = Mailbox::v3(N, G, SB);
    assert_eq!(
        mb.prepare(1) - mb.prepare(0),
        BEAT_WORDS,
        "v3 prepare: slot << 4, a beat"
    );
    assert_eq!(BEAT_WORDS, 1 << 4, "v3 prepare: slot << 4");
    assert_eq!(
        mb.base(Region::Prepare) % BEAT_WORDS,
        0,
        "v3 prepare: quarter 0 of its beat (prep_word bits 3:2 are 0)"
    );
    assert_eq!(
        [
            records::PREPARE_K,
            records::PREPARE_M,
            records::PREPARE_V,
            records::PREPARE_PREV
        ],
        [0, 1, 2, 3],
        "v3 prepare: (k, m, v, prev), prev at word 3 (<< 96)"
    );
    assert_eq!(records::PREPARE_PREV * WORD_BITS, 96, "prev at bit 96");
    assert_eq!(PREPARE_WORDS, 4, "bc_words 4 for the prepare");
    assert_eq!(
        (mb.vote_row_words(), VOTE_WORDS),
        ((2 * N).next_power_of_two(), 2),
        "will_cert and will_commit rows: row_shift, id << 1"
    );
    for region in [Region::WillCert, Region::WillCommit] {
        assert_eq!(
            mb.base(region) % BEAT_WORDS,
            0,
            "{region:?}: rows start a beat"
        );
    }
    // prep_sig[s(k)] = prep_sig + (slot << 5): two beats a slot, the first
    // the PREP block as `prep_block` lays it out.
    assert_eq!(
        mb.record(Region::PrepSig, 1, 0) - mb.record(Region::PrepSig, 0, 0),
        2 * BEAT_WORDS,
        "prep_sig: slot << 5, two beats"
    );
    assert_eq!(2 * BEAT_WORDS, 1 << 5, "prep_sig: slot << 5");
    assert_eq!(
        mb.base(Region::PrepSig) % BEAT_WORDS,
        0,
        "prep_sig starts a beat"
    );
    // echo_prep[s][j] and certify[s][j] = base + ((s * R + j) << 5), R = N
    // rounded up to a power of two (`Shape::row_records`): two beats a
    // record (slot_n = s * R, `row_n16`).
    // VIEW's certificate read: a COMMIT's signer bitmap at bit 256
    // (`fetch_hi`), and s(c) = (c - 1) & (G - 1).
    assert_eq!(
        records::COMMIT_BITMAP * WORD_BITS,
        256,
        "the COMMIT bitmap at bit 256 (view fetch_hi)"
    );
    assert!(G.is_power_of_two(), "s(c*) = (c* - 1) & (G - 1)");
    let r = crate::layout::Shape::SlotByNode.row_records(N, G);
    for region in [Region::EchoPrep, Region::Certify] {
        for (slot, j) in [(0, 0), (0, N - 1), (G - 1, 0), (G - 1, N - 1)] {
            assert_eq!(
                mb.record(region, slot, j),
                mb.base(region) + ((slot * r + j) << 5),
                "{region:?}[{slot}][{j}]: base + ((slot_n + id) << 5)"
            );
        }
    }
    assert!(2 * N - 1 <= 255, "row2_len: AxLEN of 2N beats");
    {
        use crate::layout::records::{BLOCK_K, BLOCK_M, BLOCK_PREV, BLOCK_V, KIND};
        assert_eq!(
            [KIND, BLOCK_V, BLOCK_K, BLOCK_M, BLOCK_PREV].map(|w| w * WORD_BITS),
            [0, 32, 64, 96, 128],
            "prep_block: (PREP, view << 32, k << 64, m << 96, prev << 128)"
        );
    }
    // Broadcast places a record aligned to its size (a prepare: 4 words).
    for slot in 0..G {
        assert_eq!(
            mb.prepare(slot) % 4,
            0,
            "v3 prepare of slot {slot}: 4-aligned"
        );
    }
    // commit[s][j] = base + ((s * R + j) << commit_shift); echo_commit[x][j]
    // and echo_seal[x][j] = base + ((x * R + j) << 5); seal[j] = base +
    // (j << 5) (SLOW, R10 and R11).
    let commit_shift =
        (crate::layout::stride_beats(Region::Commit, N, SB) * BEAT_WORDS).trailing_zeros();
    for (a, b) in [(0, 0), (0, N - 1), (G - 1, 0), (G - 1, N - 1)] {
        assert_eq!(
            mb.record(Region::Commit, a, b),
            mb.base(Region::Commit) + ((a * r + b) << commit_shift),
            "commit[{a}][{b}]: base + ((slot_n + j) << commit_shift)"
        );
        if a < N {
            for region in [Region::EchoCommit, Region::EchoSeal] {
                assert_eq!(
                    mb.record(region, a, b),
                    mb.base(region) + ((a * r + b) << 5),
                    "{region:?}[{a}][{b}]: base + ((x * R + j) << 5)"
                );
            }
        }
    }
    for j in [0, N - 1] {
        assert_eq!(
            mb.record(Region::Seal, 0, j),
            mb.base(Region::Seal) + (j << 5),
            "seal[{j}]: base + (j << 5)"
        );
    }
    // A COMMIT is 3 + f beats, streamed from COMPOSE beats 1 to f + 2
    // (`bc_beats` = support + 2, SLOW's `cp_last` = support + 1); beat 15
    // holds a peer's signature for its echo, apart from them.
    let f1 = crate::params::faults(N) + 1;
    assert_eq!(
        crate::layout::record_beats(Region::Commit, N, SB),
        f1 + 2,
        "commit: support + 2 beats"
    );
    assert!(f1 + 2 < 15, "COMPOSE beat 15 is not a COMMIT's");
    // The rows SLOW reads whole, 2N beats (`row2_len`), are each one burst
    // inside a 4 KiB page (an AXI burst must not cross one).
    for (region, rows) in [
        (Region::EchoPrep, G),
        (Region::Certify, G),
        (Region::EchoSeal, N),
    ] {
        for row in 0..rows {
            let byte = mb.record(region, row, 0) as u64 * crate::params::WORD_BYTES;
            assert!(
                byte % crate::params::AXI_BOUNDARY_BYTES
                    + (2 * N) as u64 * crate::params::BEAT_BYTES
                    <= crate::params::AXI_BOUNDARY_BYTES,
                "{region:?} row {row} at byte {byte:#x} crosses 4 KiB"
            );
        }
    }
    {
        use crate::layout::records::{
            COMMIT_BITMAP, COMMIT_J, COMMIT_K, COMMIT_M, COMMIT_PREV, COMMIT_V, KIND,
        };
        assert_eq!(
            [KIND, COMMIT_J, COMMIT_V, COMMIT_K, COMMIT_M, COMMIT_PREV, COMMIT_BITMAP]
                .map(|w| w * WORD_BITS),
            [0, 32, 64, 96, 128, 160, 256],
            "commit_block: (COMMIT, j << 32, view << 64, k << 96, m << 128, prev << 160), bitmap << 256"
        );
    }
}
