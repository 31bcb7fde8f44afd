//! Watch: the v3 replica's background poller (design decision D3 of the v3
//! controller; docs/recovery.md R11, R14, R22, R24, R26).
//!
//! The model enables catch-up, COMMIT delivery, the seal trigger and
//! reading a NEW_VIEW in every waiting state. Watch polls those sources on
//! a read port of its own (the signals Protocol drives towards Fetch), so
//! the machines' poll loops do not grow. It only reads: what it finds is
//! held as an event for Protocol, which verifies the signatures and acts.
//! In the v3 kernel on a Fetch of its own (docs/watch.md): Protocol acts
//! on FULL_ROW, ABOVE and SEALS.
//!
//! Ports:
//! - `enable` (poll while high; a burst in flight finishes), `clear`
//!   (Protocol pulses it when k or the view changes: drops the held event
//!   and every "already reported" memory and restarts the rotation; a burst
//!   in flight is drained and its beats ignored), `network_ptr` (4 KiB
//!   aligned, as Protocol requires), `n`, `k` (slot s(k) = (k - 1) mod G),
//!   `view`, `awaiting` (the replica waits for a NEW_VIEW).
//! - read port: `fetch_start` (one cycle), `fetch_addr` (byte address),
//!   `fetch_len` (AxLEN, beats - 1); `fetch_beat`, `fetch_beat_valid`,
//!   `fetch_done`, `fetch_error` (Fetch's `beat`, `beat_valid`, `done`,
//!   `error`). One burst in flight.
//! - events: `ev_valid` with `ev_kind` ([`ev`]) and the payload (`ev_view`,
//!   `ev_m`, `ev_prev`, `ev_x`, `ev_bits`), held until `ev_take`; the
//!   rotation pauses meanwhile.
//!
//! The rotation, one poll each, in this order:
//! 1. `Row` (R26): will_commit[s(k)], one beat. A full row: the n lanes
//!    hold one (tag, m) whose tag's k field is k's (any view). Event
//!    `FULL_ROW` (view = the tag's view field, m).
//! 2. `Cert` (R24): the first beats of certify[s(k + 1)][0 .. n]. f + 1
//!    CERT blocks [2, v', k + 1, m', prev, 0, 0, 0] with the same (v', m',
//!    prev). f + 1 of n = 2f + 1 is a strict majority, so pass 1 finds the
//!    only possible value (a majority vote over the valid blocks: one
//!    candidate and a counter) and pass 2, only when pass 1 left a
//!    candidate, counts its writers. Event `ABOVE` (v', m', prev, the
//!    writers' bitmap).
//! 3. `Commit` (R24): the first beat of commit[s(k + 1)][x], x = 0, 1, ..
//!    n - 1 over successive rotations: [3, x, w, k + 1, m, prev, 0, 0] and
//!    word 8, the bitmap of its certificate's signers. Event `COMMIT` (x,
//!    w, m, prev, the bitmap); Protocol verifies the certificate's shares
//!    (crate::controller::cert_check) before it decides k as prev.
//! 4. `Seal` (R14): the first beats of seal[0 .. n]: SEAL blocks
//!    [4, j, v_s, ..] at seal[j], v_s >= view, well formed. f + 1 of them:
//!    event `SEALS` (their bitmap).
//! 5. `NewView` (R22): new_view's first beat; its view word > `view`:
//!    event `NEW_VIEW` (the view word). Not in the rotation: VIEW polls
//!    new_view itself, and the kernel never asked for it (`awaiting` was
//!    tied low until `Mine`); its logic is left for removal.
//! 6. `Mine` (R25 while awaiting a NEW_VIEW), only while `awaiting`
//!    (sampled after the seal poll): the first beat of commit[s(k)][x],
//!    x the next Commit poll's: [3, x, w, k, m, prev, 0, 0] and its
//!    bitmap. Event `MINE` (x, w, m, prev, the bitmap): a peer's COMMIT
//!    of this replica's own slot, which VIEW hands to SLOW's R11
//!    (deliver mode). Reported once per x until `clear` (k or the view
//!    changes), whatever the block: a later COMMIT of x at the same k
//!    waits for the next clear.
//!
//! A row of records (Cert, Seal) is one burst from the first record's first
//! beat to the last one's (AxLEN = (n - 1) · stride), the share beats
//! between them included, unless it crosses a 4 KiB page: then it is split
//! at the page boundary (records never straddle one: `stride_beats`).
//!
//! Nothing is reported twice: per source (the row; the ABOVE block; each
//! x's COMMIT block; the seal bitmap; the NEW_VIEW view) Watch remembers
//! what it last reported and reports only a change, until `clear`. A
//! `fetch_error` ends the poll with nothing found. Signatures are not
//! checked here (docs/watch.md, "What WATCH does not do").
//!
//! Timing: a burst starts two cycles after the previous one's `done` (an
//! evaluation cycle between), or the cycle after `ev_take`. With Fetch at
//! read latency H, a burst of b beats takes H + 1 + b cycles from
//! `fetch_start` to `done`, so a poll of one beat every H + 4 cycles.
//!
//! Reset (`rst_n`, synchronous, active low): idle at the start of the
//! rotation, no event, memories cleared. Fetch resets with it.

use crate::layout::{records, stride_beats, Mailbox, Region};
use crate::params::{
    check_tag_literals, faults, AXI_BOUNDARY_BYTES, BEAT_BITS, BEAT_WORDS, G, SB, TAG_K_MASK,
    WORD_BITS, WORD_BYTES,
};
use rust_hdl::prelude::*;

/// `ev_kind`'s values.
pub mod ev {
    pub const FULL_ROW: u64 = 1;
    pub const ABOVE: u64 = 2;
    pub const COMMIT: u64 = 3;
    pub const SEALS: u64 = 4;
    pub const NEW_VIEW: u64 = 5;
    pub const MINE: u64 = 6;
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum WatchState {
    /// Ready to start the next burst (while `enable`).
    Idle,
    /// A burst in flight.
    Wait,
    /// The cycle after `done`: another burst of the poll, an event, or the
    /// next poll.
    Eval,
    /// An event on `ev_valid`, until `ev_take`.
    Hold,
    /// `clear` came during a burst: wait for its `done`, ignore its beats.
    Drain,
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum Poll {
    Row,
    Cert,
    Commit,
    Seal,
    NewView,
    Mine,
}

/// The literals `update` holds, checked against the layout and params
/// constants they stand for whenever a Watch is built.
pub fn check_literals() {
    use records::*;
    let at = |word: usize| word * WORD_BITS;
    check_tag_literals("watch.rs");
    assert_eq!(TAG_K_MASK, 0x00ff_ffff, "watch.rs: tag_k_mask");
    assert_eq!(
        (
            at(KIND),
            at(BLOCK_V),
            at(BLOCK_K),
            at(BLOCK_M),
            at(BLOCK_PREV)
        ),
        (0, 32, 64, 96, 128),
        "watch.rs: CERT block words at 0, 32, 64, 96, 128"
    );
    assert_eq!(
        (at(BLOCK_PREV + 1), BLOCK_WORDS - BLOCK_PREV - 1),
        (160, 3),
        "watch.rs: a CERT block's zero words: get_bits::<96>(160)"
    );
    assert_eq!(
        (
            at(COMMIT_J),
            at(COMMIT_V),
            at(COMMIT_K),
            at(COMMIT_M),
            at(COMMIT_PREV)
        ),
        (32, 64, 96, 128, 160),
        "watch.rs: COMMIT block words at 32, 64, 96, 128, 160"
    );
    assert_eq!(
        (at(COMMIT_PREV + 1), BLOCK_WORDS - COMMIT_PREV - 1),
        (192, 2),
        "watch.rs: a COMMIT block's zero words: get_bits::<64>(192)"
    );
    assert_eq!(
        (at(SEAL_J), at(SEAL_V), at(SEAL_LW), at(SEAL_LPRESENT)),
        (32, 64, 96, 224),
        "watch.rs: SEAL block j, v, L at 32, 64, 96..224, L present at 224"
    );
    assert_eq!(
        SEAL_LPRESENT - SEAL_LW,
        4,
        "watch.rs: L's words: get_bits::<128>(96)"
    );
    assert_eq!(at(NV_VIEW), 0, "watch.rs: new_view's view word at 0");
    assert_eq!(
        (
            crate::layout::VOTE_WORDS * WORD_BITS,
            at(crate::layout::records::VOTE_M)
        ),
        (64, 32),
        "watch.rs: vote entries at i * 64, m at + 32"
    );
    assert_eq!(
        (WORD_BITS, BEAT_WORDS, WORD_BYTES),
        (1 << 5, 1 << 4, 1 << 2),
        "watch.rs: lane << 5 bits, lane get_bits::<4>, word << 2 bytes"
    );
    assert_eq!(BEAT_BITS, 512, "watch.rs: Bits<512> beats");
    // support = ((n - 1) >> 1) + 1 is f + 1; the tag's view field is
    // tag >> 24 (check_tag_literals: k's field is 24 bits).
    for n in (1..=255usize).step_by(2) {
        assert_eq!(
            ((n - 1) >> 1) + 1,
            faults(n) + 1,
            "watch.rs: support, n = {n}"
        );
    }
    // A SEAL's L present is 0 or 1 (`records::well_formed`).
    assert!(records::well_formed(&records::seal_block(
        0,
        0,
        Some([1, 1, 1, 1])
    )));
    assert!(!records::well_formed(&[KIND_SEAL, 0, 0, 0, 0, 0, 0, 2]));
}

#[derive(LogicBlock)]
pub struct Watch<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // From Protocol.
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub network_ptr: Signal<In, Bits<64>>,
    pub n: Signal<In, Bits<8>>,
    pub k: Signal<In, Bits<32>>,
    pub view: Signal<In, Bits<32>>,
    pub awaiting: Signal<In, Bit>,
    // The read port (towards a Fetch).
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_addr: Signal<Out, Bits<64>>,
    pub fetch_len: Signal<Out, Bits<8>>,
    pub fetch_beat: Signal<In, Bits<BEAT_BITS>>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    // Events.
    pub ev_valid: Signal<Out, Bit>,
    pub ev_kind: Signal<Out, Bits<3>>,
    pub ev_view: Signal<Out, Bits<32>>,
    pub ev_m: Signal<Out, Bits<32>>,
    pub ev_prev: Signal<Out, Bits<32>>,
    pub ev_x: Signal<Out, Bits<8>>,
    pub ev_bits: Signal<Out, Bits<N>>,
    pub ev_take: Signal<In, Bit>,
    // The rotation.
    state: DFF<WatchState>,
    poll: DFF<Poll>,
    /// The COMMIT poll's x.
    cx: DFF<Bits<8>>,
    /// Cert, Seal: the first record of the next burst.
    cur_x: DFF<Bits<8>>,
    /// Records in the burst in flight.
    cnt_q: DFF<Bits<8>>,
    /// The record the next beat belongs to, and the beat within it.
    rec: DFF<Bits<8>>,
    sub: DFF<Bits<8>>,
    /// Cert: the second pass (counting the candidate's writers).
    pass: DFF<Bit>,
    err: DFF<Bit>,
    lane_q: DFF<Bits<4>>,
    // What the poll found: a hit (Row, Commit, NewView), the block's words
    // (Cert: the candidate), a counter (Cert: the majority vote's, then
    // the writers'; Seal: the seals) and a bitmap of writers.
    hit: DFF<Bit>,
    r_view: DFF<Bits<32>>,
    r_m: DFF<Bits<32>>,
    r_prev: DFF<Bits<32>>,
    tally: DFF<Bits<8>>,
    bits: DFF<Bits<N>>,
    // The event held.
    ev_valid_q: DFF<Bit>,
    ev_kind_q: DFF<Bits<3>>,
    ev_view_q: DFF<Bits<32>>,
    ev_m_q: DFF<Bits<32>>,
    ev_prev_q: DFF<Bits<32>>,
    ev_x_q: DFF<Bits<8>>,
    ev_bits_q: DFF<Bits<N>>,
    // What was last reported, per source.
    row_seen: DFF<Bit>,
    row_w: DFF<Bits<32>>,
    row_m: DFF<Bits<32>>,
    above_seen: DFF<Bit>,
    above_v: DFF<Bits<32>>,
    above_m: DFF<Bits<32>>,
    above_prev: DFF<Bits<32>>,
    com_seen: DFF<Bits<N>>,
    /// Mine: the x whose COMMIT of k was reported.
    mine_seen: DFF<Bits<N>>,
    /// Mine: the x whose COMMIT of k in this replica's view was reported.
    /// A COMMIT of x in the view is reported once more after one of
    /// another view (R10's second half may adopt it where it could not
    /// adopt the other).
    mine_cur: DFF<Bits<N>>,
    /// x's last reported COMMIT: (w, m << 32, prev << 64).
    com_mem: [DFF<Bits<96>>; N],
    seal_last: DFF<Bits<N>>,
    nv_seen: DFF<Bit>,
    nv_last: DFF<Bits<32>>,
    // Combinational.
    active: Signal<Local, Bits<N>>,
    support: Signal<Local, Bits<8>>,
    s: Signal<Local, Bits<16>>,
    s1: Signal<Local, Bits<16>>,
    s1n: Signal<Local, Bits<32>>,
    rb: Signal<Local, Bits<32>>,
    shw: Signal<Local, Bits<8>>,
    shb: Signal<Local, Bits<8>>,
    sub_mask: Signal<Local, Bits<8>>,
    rec_word: Signal<Local, Bits<32>>,
    in_page: Signal<Local, Bits<32>>,
    left: Signal<Local, Bits<8>>,
    count: Signal<Local, Bits<8>>,
    row_word: Signal<Local, Bits<32>>,
    word: Signal<Local, Bits<32>>,
    len: Signal<Local, Bits<8>>,
    go: Signal<Local, Bit>,
    // The beat, decoded.
    w0: Signal<Local, Bits<32>>,
    w1: Signal<Local, Bits<32>>,
    w2: Signal<Local, Bits<32>>,
    w3: Signal<Local, Bits<32>>,
    w4: Signal<Local, Bits<32>>,
    w5: Signal<Local, Bits<32>>,
    w7: Signal<Local, Bits<32>>,
    row: Signal<Local, Bits<BEAT_BITS>>,
    tag0: Signal<Local, Bits<32>>,
    m0: Signal<Local, Bits<32>>,
    same_lanes: Signal<Local, Bits<N>>,
    full: Signal<Local, Bit>,
    cert_ok: Signal<Local, Bit>,
    same: Signal<Local, Bit>,
    com_ok: Signal<Local, Bit>,
    mine_ok: Signal<Local, Bit>,
    /// s(k)'s first record's index (s(k) · R).
    sn: Signal<Local, Bits<32>>,
    seal_ok: Signal<Local, Bit>,
    rec_bit: Signal<Local, Bits<N>>,
    // The evaluation.
    advance: Signal<Local, Bit>,
    x_sel: Signal<Local, Bits<N>>,
    com_old: Signal<Local, Bits<96>>,
    com_new: Signal<Local, Bits<96>>,
    found: Signal<Local, Bit>,
    // The build's layout (Mailbox::v3(N, G, SB)) and constants.
    wc_base: Constant<Bits<32>>,
    row_shift: Constant<Bits<8>>,
    cert_base: Constant<Bits<32>>,
    cert_shw: Constant<Bits<8>>,
    cert_shb: Constant<Bits<8>>,
    commit_base: Constant<Bits<32>>,
    commit_shw: Constant<Bits<8>>,
    seal_base: Constant<Bits<32>>,
    seal_shw: Constant<Bits<8>>,
    seal_shb: Constant<Bits<8>>,
    nv_base: Constant<Bits<32>>,
    slot_mask: Constant<Bits<16>>,
    /// Records per row of certify and commit: N rounded up to a power of
    /// two (`Shape::row_records`).
    row_n16: Constant<Bits<16>>,
    all_lanes: Constant<Bits<N>>,
    one_n: Constant<Bits<N>>,
    one8: Constant<Bits<8>>,
    page_words: Constant<Bits<32>>,
    page_mask: Constant<Bits<32>>,
    beat_mask: Constant<Bits<32>>,
    tag_k_mask: Constant<Bits<32>>,
    kind_cert: Constant<Bits<32>>,
    kind_commit: Constant<Bits<32>>,
    kind_seal: Constant<Bits<32>>,
    ev_full_row: Constant<Bits<3>>,
    ev_above: Constant<Bits<3>>,
    ev_commit: Constant<Bits<3>>,
    ev_seals: Constant<Bits<3>>,
    ev_new_view: Constant<Bits<3>>,
    ev_mine: Constant<Bits<3>>,
}

fn log2(x: usize) -> u64 {
    assert!(x.is_power_of_two(), "watch.rs: {x} is not a power of two");
    x.trailing_zeros() as u64
}

impl<const N: usize> Watch<N> {
    /// The watcher of a v3 build of N replicas (`Mailbox::v3(N, G, SB)`).
    pub fn new() -> Self {
        assert!(
            (1..=8).contains(&N),
            "a slot's row of votes must fit one beat: N <= 8"
        );
        assert!(
            G.is_power_of_two() && G <= 1 << 16,
            "s(k) = (k - 1) & (G - 1), s · N a 16 x 16 product"
        );
        check_literals();
        let mb = Mailbox::v3(N, G, SB);
        let beats = |r: Region| stride_beats(r, N, SB);
        for r in [Region::Certify, Region::Commit, Region::Seal] {
            assert!(
                beats(r).is_power_of_two(),
                "watch.rs: {r:?}'s stride is a shift (SB = {SB})"
            );
        }
        assert_eq!(
            mb.base(Region::WillCommit) % BEAT_WORDS,
            0,
            "will_commit's rows start a beat"
        );
        assert_eq!(
            BEAT_WORDS % mb.vote_row_words(),
            0,
            "a row never straddles a beat"
        );
        let page_words = (AXI_BOUNDARY_BYTES / WORD_BYTES) as usize;
        for r in [Region::Certify, Region::Seal] {
            assert!(
                page_words % mb.stride(r) == 0 || mb.stride(r) % page_words == 0,
                "{r:?}: a page boundary falls between records"
            );
        }
        let c = |x: u64| Constant::new(x.to_bits());
        let c8 = |x: u64| Constant::new(x.to_bits());
        let c3 = |x: u64| Constant::new(x.to_bits());
        Watch {
            clock: Default::default(),
            rst_n: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            network_ptr: Default::default(),
            n: Default::default(),
            k: Default::default(),
            view: Default::default(),
            awaiting: Default::default(),
            fetch_start: Default::default(),
            fetch_addr: Default::default(),
            fetch_len: Default::default(),
            fetch_beat: Default::default(),
            fetch_beat_valid: Default::default(),
            fetch_done: Default::default(),
            fetch_error: Default::default(),
            ev_valid: Default::default(),
            ev_kind: Default::default(),
            ev_view: Default::default(),
            ev_m: Default::default(),
            ev_prev: Default::default(),
            ev_x: Default::default(),
            ev_bits: Default::default(),
            ev_take: Default::default(),
            state: Default::default(),
            poll: Default::default(),
            cx: Default::default(),
            cur_x: Default::default(),
            cnt_q: Default::default(),
            rec: Default::default(),
            sub: Default::default(),
            pass: Default::default(),
            err: Default::default(),
            lane_q: Default::default(),
            hit: Default::default(),
            r_view: Default::default(),
            r_m: Default::default(),
            r_prev: Default::default(),
            tally: Default::default(),
            bits: Default::default(),
            ev_valid_q: Default::default(),
            ev_kind_q: Default::default(),
            ev_view_q: Default::default(),
            ev_m_q: Default::default(),
            ev_prev_q: Default::default(),
            ev_x_q: Default::default(),
            ev_bits_q: Default::default(),
            row_seen: Default::default(),
            row_w: Default::default(),
            row_m: Default::default(),
            above_seen: Default::default(),
            above_v: Default::default(),
            above_m: Default::default(),
            above_prev: Default::default(),
            com_seen: Default::default(),
            mine_seen: Default::default(),
            mine_cur: Default::default(),
            com_mem: std::array::from_fn(|_| Default::default()),
            seal_last: Default::default(),
            nv_seen: Default::default(),
            nv_last: Default::default(),
            active: Default::default(),
            support: Default::default(),
            s: Default::default(),
            s1: Default::default(),
            s1n: Default::default(),
            rb: Default::default(),
            shw: Default::default(),
            shb: Default::default(),
            sub_mask: Default::default(),
            rec_word: Default::default(),
            in_page: Default::default(),
            left: Default::default(),
            count: Default::default(),
            row_word: Default::default(),
            word: Default::default(),
            len: Default::default(),
            go: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            w4: Default::default(),
            w5: Default::default(),
            w7: Default::default(),
            row: Default::default(),
            tag0: Default::default(),
            m0: Default::default(),
            same_lanes: Default::default(),
            full: Default::default(),
            cert_ok: Default::default(),
            same: Default::default(),
            com_ok: Default::default(),
            mine_ok: Default::default(),
            sn: Default::default(),
            seal_ok: Default::default(),
            rec_bit: Default::default(),
            advance: Default::default(),
            x_sel: Default::default(),
            com_old: Default::default(),
            com_new: Default::default(),
            found: Default::default(),
            wc_base: c(mb.base(Region::WillCommit) as u64),
            row_shift: c8(log2(mb.vote_row_words())),
            cert_base: c(mb.base(Region::Certify) as u64),
            cert_shw: c8(log2(mb.stride(Region::Certify))),
            cert_shb: c8(log2(beats(Region::Certify))),
            commit_base: c(mb.base(Region::Commit) as u64),
            commit_shw: c8(log2(mb.stride(Region::Commit))),
            seal_base: c(mb.base(Region::Seal) as u64),
            seal_shw: c8(log2(mb.stride(Region::Seal))),
            seal_shb: c8(log2(beats(Region::Seal))),
            nv_base: c(mb.record(Region::NewViewRecord, 0, 0) as u64),
            slot_mask: Constant::new(((G - 1) as u64).to_bits()),
            row_n16: Constant::new(
                (crate::layout::Shape::SlotByNode.row_records(N, G) as u64).to_bits(),
            ),
            all_lanes: Constant::new(((1u64 << N) - 1).to_bits()),
            one_n: Constant::new(1u64.to_bits()),
            one8: c8(1),
            page_words: c(page_words as u64),
            page_mask: c(page_words as u64 - 1),
            beat_mask: c(!(BEAT_WORDS as u64 - 1) & 0xffff_ffff),
            tag_k_mask: c(TAG_K_MASK as u64),
            kind_cert: c(records::KIND_CERT as u64),
            kind_commit: c(records::KIND_COMMIT as u64),
            kind_seal: c(records::KIND_SEAL as u64),
            ev_full_row: c3(ev::FULL_ROW),
            ev_above: c3(ev::ABOVE),
            ev_commit: c3(ev::COMMIT),
            ev_seals: c3(ev::SEALS),
            ev_new_view: c3(ev::NEW_VIEW),
            ev_mine: c3(ev::MINE),
        }
    }
}

impl<const N: usize> Default for Watch<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for Watch<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, poll, cx, cur_x, cnt_q, rec, sub, pass, err, lane_q, hit, r_view,
            r_m, r_prev, tally, bits, ev_valid_q, ev_kind_q, ev_view_q, ev_m_q, ev_prev_q, ev_x_q,
            ev_bits_q, row_seen, row_w, row_m, above_seen, above_v, above_m, above_prev, com_seen,
            mine_seen, mine_cur, seal_last, nv_seen, nv_last
        );
        for i in 0..N {
            self.com_mem[i].clock.next = self.clock.val();
            self.com_mem[i].d.next = self.com_mem[i].q.val();
        }
        // The configuration: lanes of the first n replicas, f + 1.
        self.active.next = !(self.all_lanes.val() << self.n.val());
        self.support.next = ((self.n.val() - 1) >> 1) + 1;
        // s(k) and s(k + 1), and s(k + 1)'s first record's index (slot · R, R
        // = N rounded up to a power of two).
        // (G divides 2^16, so k's low 16 bits suffice.)
        self.s.next = (self.k.val().get_bits::<16>(0) - 1) & self.slot_mask.val();
        self.s1.next = self.k.val().get_bits::<16>(0) & self.slot_mask.val();
        self.s1n.next = self.s1.val() * self.row_n16.val();
        self.sn.next = self.s.val() * self.row_n16.val();

        // The next burst. A row of records (Cert, Seal) from record cur_x
        // to the last of the row or of the 4 KiB page, whichever is first.
        self.rb.next = self.seal_base.val();
        self.shw.next = self.seal_shw.val();
        self.shb.next = self.seal_shb.val();
        if self.poll.q.val() == Poll::Cert {
            self.rb.next = self.cert_base.val() + (self.s1n.val() << self.cert_shw.val());
            self.shw.next = self.cert_shw.val();
            self.shb.next = self.cert_shb.val();
        }
        self.sub_mask.next = (self.one8.val() << self.shb.val()) - 1;
        self.rec_word.next =
            self.rb.val() + (bit_cast::<32, 8>(self.cur_x.q.val()) << self.shw.val());
        self.in_page.next = (self.page_words.val() - (self.rec_word.val() & self.page_mask.val()))
            >> self.shw.val();
        self.left.next = self.n.val() - self.cur_x.q.val();
        self.count.next = self.left.val();
        if self.in_page.val() < bit_cast::<32, 8>(self.left.val()) {
            self.count.next = self.in_page.val().get_bits::<8>(0);
        }
        if self.count.val() == 0 {
            // A record of more than a page (DSig): one first beat a burst.
            self.count.next = 1.into();
        }
        self.row_word.next =
            self.wc_base.val() + (bit_cast::<32, 16>(self.s.val()) << self.row_shift.val());
        self.word.next = self.rec_word.val();
        self.len.next = (self.count.val() - 1) << self.shb.val();
        if self.poll.q.val() == Poll::Row {
            self.word.next = self.row_word.val() & self.beat_mask.val();
            self.len.next = 0.into();
        }
        if self.poll.q.val() == Poll::Commit {
            // commit[s(k + 1)][x] (R24: its certificate decides k).
            self.word.next = self.commit_base.val()
                + ((self.s1n.val() + bit_cast::<32, 8>(self.cx.q.val())) << self.commit_shw.val());
            self.len.next = 0.into();
        }
        if self.poll.q.val() == Poll::NewView {
            self.word.next = self.nv_base.val();
            self.len.next = 0.into();
        }
        if self.poll.q.val() == Poll::Mine {
            // commit[s(k)][x] (R25 while awaiting a NEW_VIEW).
            self.word.next = self.commit_base.val()
                + ((self.sn.val() + bit_cast::<32, 8>(self.cx.q.val())) << self.commit_shw.val());
            self.len.next = 0.into();
        }
        self.go.next = (self.state.q.val() == WatchState::Idle)
            & self.enable.val()
            & self.rst_n.val()
            & !self.clear.val();
        self.fetch_start.next = self.go.val();
        self.fetch_addr.next = self.network_ptr.val() + (bit_cast::<64, 32>(self.word.val()) << 2);
        self.fetch_len.next = self.len.val();

        // The beat, decoded: a block's words.
        self.w0.next = self.fetch_beat.val().get_bits::<32>(0);
        self.w1.next = self.fetch_beat.val().get_bits::<32>(32);
        self.w2.next = self.fetch_beat.val().get_bits::<32>(64);
        self.w3.next = self.fetch_beat.val().get_bits::<32>(96);
        self.w4.next = self.fetch_beat.val().get_bits::<32>(128);
        self.w5.next = self.fetch_beat.val().get_bits::<32>(160);
        self.w7.next = self.fetch_beat.val().get_bits::<32>(224);
        // Row: the will_commit row moved to lane 0; full when every lane of
        // the first n holds lane 0's (tag, m) and the tag's k field is k's.
        self.row.next = self.fetch_beat.val() >> (bit_cast::<10, 4>(self.lane_q.q.val()) << 5);
        self.tag0.next = self.row.val().get_bits::<32>(0);
        self.m0.next = self.row.val().get_bits::<32>(32);
        self.same_lanes.next = 0.into();
        for i in 0..N {
            if (self.row.val().get_bits::<32>(i * 64) == self.tag0.val())
                & (self.row.val().get_bits::<32>(i * 64 + 32) == self.m0.val())
            {
                self.same_lanes.next = self.same_lanes.val().replace_bit(i, true);
            }
        }
        self.full.next = ((self.tag0.val() & self.tag_k_mask.val())
            == (self.k.val() & self.tag_k_mask.val()))
            & ((self.same_lanes.val() & self.active.val()) == self.active.val());
        // Cert: [2, v', k + 1, m', prev, 0, 0, 0], and whether it is the
        // candidate's (v', m', prev).
        self.cert_ok.next = (self.w0.val() == self.kind_cert.val())
            & (self.w2.val() == (self.k.val() + 1))
            & (self.fetch_beat.val().get_bits::<96>(160) == 0);
        self.same.next = (self.w1.val() == self.r_view.q.val())
            & (self.w3.val() == self.r_m.q.val())
            & (self.w4.val() == self.r_prev.q.val());
        // Commit: [3, x, w, k + 1, m, prev, 0, 0].
        self.com_ok.next = (self.w0.val() == self.kind_commit.val())
            & (self.w1.val() == bit_cast::<32, 8>(self.cx.q.val()))
            & (self.w3.val() == (self.k.val() + 1))
            & (self.fetch_beat.val().get_bits::<64>(192) == 0);
        // Mine: [3, x, w, k, m, prev, 0, 0].
        self.mine_ok.next = (self.w0.val() == self.kind_commit.val())
            & (self.w1.val() == bit_cast::<32, 8>(self.cx.q.val()))
            & (self.w3.val() == self.k.val())
            & (self.fetch_beat.val().get_bits::<64>(192) == 0);
        // Seal: [4, j, v_s, L, L present] at seal[j], v_s >= view, well
        // formed (no L: L's words zero; else L present = 1).
        self.seal_ok.next = (self.w0.val() == self.kind_seal.val())
            & (self.w1.val() == bit_cast::<32, 8>(self.rec.q.val()))
            & (self.w2.val() >= self.view.val())
            & (((self.w7.val() == 0) & (self.fetch_beat.val().get_bits::<128>(96) == 0))
                | (self.w7.val() == 1));
        self.rec_bit.next = self.one_n.val() << self.rec.q.val();

        // The evaluation's defaults.
        self.advance.next = false;
        self.found.next = false;
        self.x_sel.next = self.one_n.val() << self.cx.q.val();
        self.com_old.next = 0.into();
        for i in 0..N {
            if self.x_sel.val().get_bit(i) {
                self.com_old.next = self.com_mem[i].q.val();
            }
        }
        self.com_new.next = bit_cast::<96, 32>(self.r_view.q.val())
            | (bit_cast::<96, 32>(self.r_m.q.val()) << 32)
            | (bit_cast::<96, 32>(self.r_prev.q.val()) << 64);

        match self.state.q.val() {
            WatchState::Idle => {
                if self.go.val() {
                    self.state.d.next = WatchState::Wait;
                    self.cnt_q.d.next = self.count.val();
                    self.rec.d.next = self.cur_x.q.val();
                    self.sub.d.next = 0.into();
                    self.lane_q.d.next = self.row_word.val().get_bits::<4>(0);
                }
            }
            WatchState::Wait => {
                if self.fetch_beat_valid.val() {
                    self.sub.d.next = (self.sub.q.val() + 1) & self.sub_mask.val();
                    if ((self.sub.q.val() + 1) & self.sub_mask.val()) == 0 {
                        self.rec.d.next = self.rec.q.val() + 1;
                    }
                    if self.poll.q.val() == Poll::Row {
                        self.hit.d.next = self.full.val();
                        self.r_view.d.next = self.tag0.val() >> 24;
                        self.r_m.d.next = self.m0.val();
                    }
                    if (self.poll.q.val() == Poll::Cert)
                        & (self.sub.q.val() == 0)
                        & self.cert_ok.val()
                    {
                        if !self.pass.q.val() {
                            // The majority vote.
                            if self.tally.q.val() == 0 {
                                self.r_view.d.next = self.w1.val();
                                self.r_m.d.next = self.w3.val();
                                self.r_prev.d.next = self.w4.val();
                                self.tally.d.next = 1.into();
                            } else if self.same.val() {
                                self.tally.d.next = self.tally.q.val() + 1;
                            } else {
                                self.tally.d.next = self.tally.q.val() - 1;
                            }
                        } else if self.same.val() {
                            self.tally.d.next = self.tally.q.val() + 1;
                            self.bits.d.next = self.bits.q.val() | self.rec_bit.val();
                        }
                    }
                    if self.poll.q.val() == Poll::Commit {
                        self.hit.d.next = self.com_ok.val();
                        self.r_view.d.next = self.w2.val();
                        self.r_m.d.next = self.w4.val();
                        self.r_prev.d.next = self.w5.val();
                        // Word 8: the bitmap of the certificate's signers.
                        self.bits.d.next = self.fetch_beat.val().get_bits::<N>(256);
                    }
                    if (self.poll.q.val() == Poll::Seal)
                        & (self.sub.q.val() == 0)
                        & self.seal_ok.val()
                    {
                        self.tally.d.next = self.tally.q.val() + 1;
                        self.bits.d.next = self.bits.q.val() | self.rec_bit.val();
                    }
                    if self.poll.q.val() == Poll::NewView {
                        self.hit.d.next = self.w0.val() > self.view.val();
                        self.r_view.d.next = self.w0.val();
                    }
                    if self.poll.q.val() == Poll::Mine {
                        self.hit.d.next = self.mine_ok.val();
                        self.r_view.d.next = self.w2.val();
                        self.r_m.d.next = self.w4.val();
                        self.r_prev.d.next = self.w5.val();
                        self.bits.d.next = self.fetch_beat.val().get_bits::<N>(256);
                    }
                }
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        self.err.d.next = true;
                    }
                    self.cur_x.d.next = self.cur_x.q.val() + self.cnt_q.q.val();
                    self.state.d.next = WatchState::Eval;
                }
            }
            WatchState::Eval => {
                if self.err.q.val() {
                    // The poll found nothing.
                    self.advance.next = true;
                } else if ((self.poll.q.val() == Poll::Cert) | (self.poll.q.val() == Poll::Seal))
                    & (self.cur_x.q.val() < self.n.val())
                {
                    // The row's next burst, past a 4 KiB boundary.
                    self.state.d.next = WatchState::Idle;
                } else if (self.poll.q.val() == Poll::Cert) & !self.pass.q.val() {
                    if self.tally.q.val() == 0 {
                        // No candidate: no f + 1.
                        self.advance.next = true;
                    } else {
                        self.pass.d.next = true;
                        self.cur_x.d.next = 0.into();
                        self.tally.d.next = 0.into();
                        self.state.d.next = WatchState::Idle;
                    }
                } else {
                    self.ev_view_q.d.next = self.r_view.q.val();
                    self.ev_m_q.d.next = self.r_m.q.val();
                    self.ev_prev_q.d.next = 0.into();
                    self.ev_x_q.d.next = 0.into();
                    self.ev_bits_q.d.next = 0.into();
                    match self.poll.q.val() {
                        Poll::Row => {
                            self.ev_kind_q.d.next = self.ev_full_row.val();
                            if self.hit.q.val()
                                & (!self.row_seen.q.val()
                                    | (self.row_w.q.val() != self.r_view.q.val())
                                    | (self.row_m.q.val() != self.r_m.q.val()))
                            {
                                self.found.next = true;
                                self.row_seen.d.next = true;
                                self.row_w.d.next = self.r_view.q.val();
                                self.row_m.d.next = self.r_m.q.val();
                            }
                        }
                        Poll::Cert => {
                            self.ev_kind_q.d.next = self.ev_above.val();
                            self.ev_prev_q.d.next = self.r_prev.q.val();
                            self.ev_bits_q.d.next = self.bits.q.val();
                            if (self.tally.q.val() >= self.support.val())
                                & (!self.above_seen.q.val()
                                    | (self.above_v.q.val() != self.r_view.q.val())
                                    | (self.above_m.q.val() != self.r_m.q.val())
                                    | (self.above_prev.q.val() != self.r_prev.q.val()))
                            {
                                self.found.next = true;
                                self.above_seen.d.next = true;
                                self.above_v.d.next = self.r_view.q.val();
                                self.above_m.d.next = self.r_m.q.val();
                                self.above_prev.d.next = self.r_prev.q.val();
                            }
                        }
                        Poll::Commit => {
                            self.ev_kind_q.d.next = self.ev_commit.val();
                            self.ev_prev_q.d.next = self.r_prev.q.val();
                            self.ev_x_q.d.next = self.cx.q.val();
                            self.ev_bits_q.d.next = self.bits.q.val();
                            if self.hit.q.val()
                                & (((self.com_seen.q.val() & self.x_sel.val()) == 0)
                                    | (self.com_old.val() != self.com_new.val()))
                            {
                                self.found.next = true;
                                self.com_seen.d.next = self.com_seen.q.val() | self.x_sel.val();
                                for i in 0..N {
                                    if self.x_sel.val().get_bit(i) {
                                        self.com_mem[i].d.next = self.com_new.val();
                                    }
                                }
                            }
                        }
                        Poll::Seal => {
                            self.ev_kind_q.d.next = self.ev_seals.val();
                            self.ev_view_q.d.next = 0.into();
                            self.ev_m_q.d.next = 0.into();
                            self.ev_bits_q.d.next = self.bits.q.val();
                            if (self.tally.q.val() >= self.support.val())
                                & (self.bits.q.val() != self.seal_last.q.val())
                            {
                                self.found.next = true;
                                self.seal_last.d.next = self.bits.q.val();
                            }
                        }
                        Poll::Mine => {
                            self.ev_kind_q.d.next = self.ev_mine.val();
                            self.ev_prev_q.d.next = self.r_prev.q.val();
                            self.ev_x_q.d.next = self.cx.q.val();
                            self.ev_bits_q.d.next = self.bits.q.val();
                            if self.hit.q.val()
                                & (((self.mine_seen.q.val() & self.x_sel.val()) == 0)
                                    | ((self.r_view.q.val() == self.view.val())
                                        & ((self.mine_cur.q.val() & self.x_sel.val()) == 0)))
                            {
                                self.found.next = true;
                                self.mine_seen.d.next = self.mine_seen.q.val() | self.x_sel.val();
                                if self.r_view.q.val() == self.view.val() {
                                    self.mine_cur.d.next = self.mine_cur.q.val() | self.x_sel.val();
                                }
                            }
                        }
                        _ => {
                            self.ev_kind_q.d.next = self.ev_new_view.val();
                            self.ev_m_q.d.next = 0.into();
                            if self.hit.q.val()
                                & (!self.nv_seen.q.val()
                                    | (self.nv_last.q.val() != self.r_view.q.val()))
                            {
                                self.found.next = true;
                                self.nv_seen.d.next = true;
                                self.nv_last.d.next = self.r_view.q.val();
                            }
                        }
                    }
                    if self.found.val() {
                        self.ev_valid_q.d.next = true;
                        self.state.d.next = WatchState::Hold;
                    } else {
                        self.advance.next = true;
                    }
                }
            }
            WatchState::Hold => {
                if self.ev_take.val() {
                    self.ev_valid_q.d.next = false;
                    self.advance.next = true;
                }
            }
            WatchState::Drain => {
                if self.fetch_done.val() {
                    self.state.d.next = WatchState::Idle;
                }
            }
            _ => {
                self.state.d.next = WatchState::Idle;
            }
        }

        // The next poll of the rotation.
        if self.advance.val() {
            self.state.d.next = WatchState::Idle;
            self.cur_x.d.next = 0.into();
            self.pass.d.next = false;
            self.err.d.next = false;
            self.hit.d.next = false;
            self.tally.d.next = 0.into();
            self.bits.d.next = 0.into();
            match self.poll.q.val() {
                Poll::Row => {
                    self.poll.d.next = Poll::Cert;
                }
                Poll::Cert => {
                    self.poll.d.next = Poll::Commit;
                }
                Poll::Commit => {
                    self.poll.d.next = Poll::Seal;
                    if (self.cx.q.val() + 1) >= self.n.val() {
                        self.cx.d.next = 0.into();
                    } else {
                        self.cx.d.next = self.cx.q.val() + 1;
                    }
                }
                Poll::Seal => {
                    if self.awaiting.val() {
                        self.poll.d.next = Poll::Mine;
                    } else {
                        self.poll.d.next = Poll::Row;
                    }
                }
                _ => {
                    self.poll.d.next = Poll::Row;
                }
            }
        }

        // clear: forget, restart the rotation; reset: the same, and idle.
        if self.clear.val() | !self.rst_n.val() {
            self.ev_valid_q.d.next = false;
            self.poll.d.next = Poll::Row;
            self.cx.d.next = 0.into();
            self.cur_x.d.next = 0.into();
            self.pass.d.next = false;
            self.err.d.next = false;
            self.hit.d.next = false;
            self.tally.d.next = 0.into();
            self.bits.d.next = 0.into();
            self.row_seen.d.next = false;
            self.above_seen.d.next = false;
            self.com_seen.d.next = 0.into();
            self.mine_seen.d.next = 0.into();
            self.mine_cur.d.next = 0.into();
            self.seal_last.d.next = 0.into();
            self.nv_seen.d.next = false;
            self.state.d.next = WatchState::Idle;
            if (self.state.q.val() == WatchState::Wait) | (self.state.q.val() == WatchState::Drain)
            {
                if !self.fetch_done.val() {
                    self.state.d.next = WatchState::Drain;
                }
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = WatchState::Idle;
        }

        self.ev_valid.next = self.ev_valid_q.q.val();
        self.ev_kind.next = self.ev_kind_q.q.val();
        self.ev_view.next = self.ev_view_q.q.val();
        self.ev_m.next = self.ev_m_q.q.val();
        self.ev_prev.next = self.ev_prev_q.q.val();
        self.ev_x.next = self.ev_x_q.q.val();
        self.ev_bits.next = self.ev_bits_q.q.val();
    }
}

/// Verilog of the watcher of a v3 build of N replicas alone (for lint and
/// synthesis), top module `rhdl_ubft_watch`.
pub fn verilog<const N: usize>() -> String {
    let mut uut = Watch::<N>::new();
    uut.connect_all();
    let body = generate_verilog(&uut)
        .replace("module top(", "module rhdl_ubft_watch(")
        .replace("top$", "rhdl_ubft_watch$");
    format!(
        "// Generated from crates/rhdl_ubft/src/watch.rs (rust-hdl 0.46), v3 layout, N = {N}.\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}
