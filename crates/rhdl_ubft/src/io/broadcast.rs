//! Broadcast: one record into every replica's mailbox, nothing dropped.
//!
//! A record is up to one 512-bit beat of words at a word index of the mailbox
//! buffer (`word`, `words`, `data` with the record in its low words), or
//! (`beats` > 1) up to 16 whole beats on a beat: the first is `data`, the
//! rest come on `s_rec`. The RoCE stack has no connection to the replica
//! itself, so Broadcast writes the record into its own HBM (one AXI4 burst
//! of `beats` beats, byte strobes on a one-beat record's words) and issues
//! one RDMA WRITE command per peer (on the queue pair configured for that
//! peer), in peer order. The stack pulls a WRITE's payload when it sends
//! it: a one-beat record that is not a round is staged (Stage,
//! docs/stage.md: `stage_put`, `cmd_staged`), and its commands go out
//! beside its local write; any other record is read from HBM, so its
//! commands wait for the write response. A round (`round`, R13 of
//! docs/recovery.md) then waits for every command taken so far to complete,
//! and D_LAND cycles more, before `round_done`.
//!
//! Ports:
//! - request: `start` (one-cycle pulse, ignored while `busy`), `word`,
//!   `words` (2, 4 or 16, at a `word` that is a multiple of it: see
//!   `check_lanes`), `data` (zero above the record), `local_only` (write the
//!   replica's own HBM only: the view change installs a chosen value in its
//!   own prepare), `round` (end with `round_done`), `beats` (1 to 16; 0 is
//!   1; above 1 `words` is ignored, `word` is on a beat and the record does
//!   not cross 4 KiB: `check_beats`); `network_ptr`, `n`, `id`, `qpns` (peer
//!   i's queue pair in bits [10 i + 9 : 10 i]) are the configuration.
//!   `done` pulses two cycles after the last command is taken. `busy` is
//!   high from the cycle after `start` until `done`, or a round's
//!   `round_done`.
//! - `s_rec_*`: AXI4-Stream, the beats after the first of a record of more
//!   than one beat, passed to W as they come (`s_rec_tready` is `wready`
//!   while a beat is due). `s_rec_tlast` must mark beat `beats` - 1; a
//!   stream that disagrees still gives a burst of `beats` beats, and the
//!   record is then sent to no peer (as after a failed local write).
//! - `m_axi` write channels: `awvalid` and `wvalid` rise together and each is
//!   held, payload stable, until its ready; AWLEN = `beats` - 1, WLAST on the
//!   last beat, full strobes after the first; `bready` is high while waiting.
//! - RDMA WRITE commands, stack-neutral (`cmd_*`, a valid/ready handshake):
//!   `cmd_qpn`, `cmd_addr` (local and remote byte address: every card has
//!   the same layout) and `cmd_len` (bytes: 4 `words`, or 64 `beats`; 16
//!   bits) are held stable with `cmd_valid` until `cmd_ready`. Back-pressure
//!   holds the record: nothing is dropped. `roce_adapter` turns them into a
//!   RoCE stack's send-queue words, so another stack needs another adapter
//!   only.
//! - `ack`: a completion pulse from the adapter; `acks` counts them,
//!   `write_errors` counts non-OKAY write responses (after one, no command
//!   goes out and nothing is retried; a staged record whose commands went
//!   out fails Broadcast stop, as a failed round does). `clear` (Protocol's `started`: the cycle it takes an
//!   `ap_start`) zeroes both, so they count one run, as the other status
//!   counters do; a completion in that very cycle (of the run before) is
//!   not counted.
//! - Rounds: `outstanding` counts commands taken minus completions, over
//!   every broadcast. A round, once its commands are taken (or after its B
//!   with `local_only`), waits until `outstanding` is 0 and then D_LAND
//!   cycles: `round_done` pulses D_LAND + 2 cycles after the last
//!   completion (D_LAND + 1 after `done` if none is outstanding). A round
//!   whose local write fails sends nothing and ends at once: `round_done`
//!   and `round_error` pulse with `done`.
//! - A failed round fails Broadcast stop (`failed`): HBM may hold the
//!   round's local copy without the peers', which a later check would take
//!   for a round that landed everywhere. From then on every `start` writes
//!   nothing, locally or to a peer, and ends the cycle after (`done`, and
//!   `round_done` with `round_error` for a round), until `clear` (the next
//!   run). Protocol stops the run (`WriteFailed`): the replica stops as a
//!   crashed card's (docs/recovery.md section 2). So does a staged
//!   record's failed local write once Stage has it: its peers may hold it
//!   while HBM does not (docs/recovery.md D7.3).
//!
//! Timing: AW and W go out the cycle after `start`, a beat a cycle; with the
//! send queue ready a staged record's first command is valid then too
//! (Stage free), any other's W + 1 cycles after the last beat (W the HBM
//! write latency), one more when peer 0 is the replica itself, and one
//! command goes out per cycle; `done` comes two cycles after the later of
//! B and the last command.
//!
//! Reset (`rst_n`, synchronous, active low): abandons the record and zeroes
//! `outstanding`; `busy` falls the next cycle.

use crate::io::roce::QPNS_BITS;
use crate::io::roce::QPN_BITS;
use crate::layout::{record_beats, Mailbox, Region, Shape, PREPARE_WORDS, VOTE_WORDS};
use crate::params::{
    AXI_BOUNDARY_BYTES, AXI_BURST_INCR, AXI_SIZE_BEAT, BEAT_BITS, BEAT_BYTES, BEAT_WORDS,
    CMD_LEN_BITS, D_LAND, RECORD_BEATS_MAX, WORD_BITS, WORD_BYTES,
};
use rust_hdl::prelude::*;
use std::collections::BTreeSet;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum BroadcastState {
    Idle,
    Local,
    Resp,
    Send,
    /// A round's end: every command taken has its completion, then D_land.
    Land,
}

#[derive(LogicBlock)]
pub struct Broadcast {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Request.
    pub start: Signal<In, Bit>,
    pub word: Signal<In, Bits<32>>,
    pub words: Signal<In, Bits<5>>,
    pub data: Signal<In, Bits<BEAT_BITS>>,
    pub local_only: Signal<In, Bit>,
    /// With `start`: a round (R13), which ends with `round_done`.
    pub round: Signal<In, Bit>,
    /// With `start`: the record's beats (1 to 16; 0 and 1 are one beat).
    pub beats: Signal<In, Bits<5>>,
    pub busy: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub round_done: Signal<Out, Bit>,
    pub round_error: Signal<Out, Bit>,
    // A record's beats after the first (AXI4-Stream).
    pub s_rec_tdata: Signal<In, Bits<BEAT_BITS>>,
    pub s_rec_tvalid: Signal<In, Bit>,
    pub s_rec_tlast: Signal<In, Bit>,
    pub s_rec_tready: Signal<Out, Bit>,
    // Configuration.
    pub network_ptr: Signal<In, Bits<64>>,
    pub n: Signal<In, Bits<8>>,
    pub id: Signal<In, Bits<8>>,
    pub qpns: Signal<In, Bits<QPNS_BITS>>,
    // AXI4 write channels.
    pub awaddr: Signal<Out, Bits<64>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub awsize: Signal<Out, Bits<3>>,
    pub awburst: Signal<Out, Bits<2>>,
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    pub wdata: Signal<Out, Bits<BEAT_BITS>>,
    pub wstrb: Signal<Out, Bits<64>>,
    pub wlast: Signal<Out, Bit>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    // RoCE send queue and completions.
    pub cmd_qpn: Signal<Out, Bits<QPN_BITS>>,
    pub cmd_addr: Signal<Out, Bits<64>>,
    pub cmd_len: Signal<Out, Bits<CMD_LEN_BITS>>,
    pub cmd_valid: Signal<Out, Bit>,
    pub cmd_ready: Signal<In, Bit>,
    pub ack: Signal<In, Bit>,
    /// Zero `acks` and `write_errors` (a run starts).
    pub clear: Signal<In, Bit>,
    pub acks: Signal<Out, Bits<32>>,
    pub write_errors: Signal<Out, Bits<32>>,
    /// A round, or a staged record's local write, failed in this run:
    /// nothing is written until `clear`.
    pub failed: Signal<Out, Bit>,
    /// One cycle as a one-beat record's local write is answered OKAY:
    /// `awaddr`, `wdata` and `wstrb` are that beat, in HBM. The
    /// scoreboard's `tx_*` (docs/scoreboard.md).
    pub written: Signal<Out, Bit>,
    /// With `cmd_valid`: the command's payload is staged (a one-beat
    /// record that is not a round): the stack reads it from Stage, not
    /// HBM (docs/stage.md). The adapter sets the command's `host` bit.
    pub cmd_staged: Signal<Out, Bit>,
    /// One cycle: stage the record (`stage_addr`, `stage_len` bytes,
    /// `stage_data` its words from lane 0); Stage's `put`.
    pub stage_put: Signal<Out, Bit>,
    /// (Bits 47:0 of the address: the stack's memory commands carry 48.)
    pub stage_addr: Signal<Out, Bits<48>>,
    pub stage_len: Signal<Out, Bits<8>>,
    pub stage_data: Signal<Out, Bits<BEAT_BITS>>,
    /// Stage still owes reads of the record staged before: the next one
    /// waits.
    pub stage_busy: Signal<In, Bit>,
    /// One cycle, the cycle after a staged command is taken: Stage's
    /// `sent` (registered, so that Stage's `busy` and this block's
    /// commands form no combinational circle through the adapter).
    pub stage_sent: Signal<Out, Bit>,
    state: DFF<BroadcastState>,
    byte_addr: DFF<Bits<64>>,
    length: DFF<Bits<8>>,
    data_q: DFF<Bits<BEAT_BITS>>,
    pair_q: DFF<Bits<3>>,
    wstrb_q: DFF<Bits<64>>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    peer: DFF<Bits<8>>,
    local_q: DFF<Bit>,
    done_q: DFF<Bit>,
    acks_q: DFF<Bits<32>>,
    errors_q: DFF<Bits<32>>,
    round_q: DFF<Bit>,
    last_q: DFF<Bits<5>>,
    wbeat: DFF<Bits<5>>,
    bad_q: DFF<Bit>,
    outstanding: DFF<Bits<16>>,
    land: DFF<Bits<8>>,
    round_done_q: DFF<Bit>,
    round_error_q: DFF<Bit>,
    failed_q: DFF<Bit>,
    /// The record is staged: its commands go out beside its local write.
    staged_q: DFF<Bit>,
    /// A staged record waits for Stage.
    put_q: DFF<Bit>,
    /// Commands to issue, from `peer` on.
    send_q: DFF<Bit>,
    sent_q: DFF<Bit>,
    words_eff: Signal<Local, Bits<5>>,
    send_end: Signal<Local, Bit>,
    put_now: Signal<Local, Bit>,
    stage_now: Signal<Local, Bit>,
    /// The local write failed this cycle: nothing is staged or sent after.
    fail_now: Signal<Local, Bit>,
    req_addr: Signal<Local, Bits<48>>,
    taken: Signal<Local, Bit>,
    w_take: Signal<Local, Bit>,
    w_last: Signal<Local, Bit>,
    pair_shift: Signal<Local, Bits<10>>,
    quad_shift: Signal<Local, Bits<10>>,
    upper: Signal<Local, Bits<64>>,
    strb_shift: Signal<Local, Bits<7>>,
    qpn: Signal<Local, Bits<QPN_BITS>>,
    qpn_off: Signal<Local, Bits<7>>,
    size: Constant<Bits<3>>,
    burst: Constant<Bits<2>>,
    ones: Constant<Bits<64>>,
    beat_mask: Constant<Bits<64>>,
    d_land: Constant<Bits<8>>,
}

/// The literals `update` cannot name (hdl_gen takes no constants in shifts
/// or `get_bits` widths), checked against the constants they stand for
/// whenever a Broadcast is built.
fn check_literals() {
    // qpn_off = (peer << 3) + (peer << 1) is peer × QPN_BITS, and
    // get_bits::<10> reads one queue pair.
    assert_eq!(
        QPN_BITS, 10,
        "broadcast.rs: qpn_off and get_bits::<10> assume 10-bit qpns"
    );
    // qpn_off is 7 bits: the highest offset, QPN_BITS (N - 1), must fit.
    assert!(
        QPNS_BITS <= 1 << 7,
        "broadcast.rs: qpn_off (7 bits) cannot address qpns"
    );
    // strb_shift = lane << 2 (bytes per word), for the 16 lanes (4-bit
    // lane) of a beat; pair_q = word[3:1] and pair_shift = pair_q << 6
    // (64 bits a pair of words), quad_shift = (pair_q[2:1] << 7) + 64 (128
    // bits a quad, its upper pair 64 bits in), the record's second pair is
    // data_q.get_bits::<64>(64).
    assert_eq!(
        (BEAT_BITS, WORD_BITS, BEAT_WORDS),
        (16 * 32, 32, 16),
        "broadcast.rs: lane shifts assume 16 32-bit words a beat"
    );
    // length = words << 2 (bytes): its bit 4 is a four-word record, its
    // bit 6 a sixteen-word one (RECORD_WORDS: 2, 4, 16).
    assert_eq!(WORD_BYTES, 4, "broadcast.rs: length = words << 2");
    assert_eq!(
        RECORD_WORDS.map(|w| w as u64 * WORD_BYTES),
        [1 << 3, 1 << 4, 1 << 6],
        "broadcast.rs: length.get_bit(4) and get_bit(6) name the record sizes"
    );
    // beats, last_q and wbeat are 5 bits; cmd_len = (last_q + 1) << 6 in
    // bit_cast::<16, _>, bytes of a beat = 1 << 6.
    assert!(RECORD_BEATS_MAX < 1 << 5, "broadcast.rs: 5-bit beats");
    assert_eq!(BEAT_BYTES, 1 << 6, "broadcast.rs: cmd_len = beats << 6");
    assert!(
        CMD_LEN_BITS == 16 && (31 << 6) < 1u64 << CMD_LEN_BITS,
        "broadcast.rs: cmd_len is bit_cast::<16, _> and holds 31 beats"
    );
    // land counts up to D_LAND in 8 bits.
    assert!(
        D_LAND < 1 << 8,
        "broadcast.rs: land (8 bits) cannot count D_LAND"
    );
}

/// The sizes of what Broadcast places in one beat, in words: a vote, a
/// prepare, a record's first beat.
pub const RECORD_WORDS: [usize; 3] = [VOTE_WORDS, PREPARE_WORDS, BEAT_WORDS];

/// Every write of one beat or less the kernel can broadcast in layout `mb`,
/// as (region, first word, words): every slot's prepare, every node's vote
/// in every slot's will_cert and will_commit rows, and the first beat of
/// every record of more beats (the rest are whole beats of the stream,
/// [`check_beats`]). A superset of what the machines address: they take
/// the bases and strides from the same layout, with their own id as the
/// node.
pub fn records(mb: &Mailbox) -> Vec<(Region, usize, usize)> {
    bursts(mb)
        .into_iter()
        .map(|(region, word, beats)| match region {
            Region::Prepare => (region, word, PREPARE_WORDS),
            _ if mb.is_vote(region) => (region, word, VOTE_WORDS),
            _ => {
                assert!(beats >= 1);
                (region, word, BEAT_WORDS)
            }
        })
        .collect()
}

/// The (lane, words) pairs of the records in `mb`: where in a beat a
/// record starts (word mod 16) and its size. Broadcast's shifter serves
/// exactly the records aligned to their size, which [`check_lanes`]
/// asserts these are.
pub fn lane_positions(mb: &Mailbox) -> BTreeSet<(usize, usize)> {
    records(mb)
        .into_iter()
        .map(|(_, word, words)| (word % BEAT_WORDS, words))
        .collect()
}

/// Asserts that every record the kernel broadcasts in `mb` is one
/// Broadcast places as its old 16-lane shifter (`data << 32 lane`) did: 2,
/// 4 or 16 words, at a lane that is a multiple of its size (so within one
/// beat). Protocol's `check_literals` calls it for the build's layout.
pub fn check_lanes(mb: &Mailbox) {
    for (region, word, words) in records(mb) {
        assert!(
            RECORD_WORDS.contains(&words),
            "broadcast.rs: a {region:?} record of {words} words (2, 4 or 16 only)"
        );
        assert_eq!(
            word % words,
            0,
            "broadcast.rs: the {region:?} record at word {word} ({words} words) is not \
             aligned to its size: Broadcast's pair and quad shifts cannot place it"
        );
    }
}

/// Every record of the layout (docs/recovery.md section 13) as (region,
/// first word, beats): every region's every record ([`Mailbox::record`]),
/// and the vote rows' votes as records of one beat (they are a part of
/// one).
pub fn bursts(mb: &Mailbox) -> Vec<(Region, usize, usize)> {
    let mut r = Vec::new();
    for region in Region::ALL {
        let shape = Shape::of(region);
        let (rows, cols) = shape.dims(mb.n, mb.g);
        for i in 0..rows {
            for j in 0..cols {
                if shape == Shape::VoteRows {
                    r.push((region, mb.vote(region, i, j), 1));
                } else {
                    let beats = record_beats(region, mb.n, mb.sb);
                    r.push((region, mb.record(region, i, j), beats));
                }
            }
        }
    }
    r
}

/// Asserts that every record of more than one beat is one Broadcast can
/// write as one burst and one RDMA WRITE: at most [`RECORD_BEATS_MAX`]
/// beats, starting on a beat (its first beat is `data` whole, the rest
/// whole beats of the stream), and not crossing a 4 KiB boundary (an AXI
/// burst must not; `network_ptr` is 4 KiB aligned, `ConfigError`). The
/// layout's strides guarantee it; this checks that it keeps them.
pub fn check_beats(mb: &Mailbox) {
    for (region, word, beats) in bursts(mb) {
        if beats <= 1 {
            continue;
        }
        assert!(
            beats <= RECORD_BEATS_MAX,
            "broadcast.rs: a {region:?} record of {beats} beats (at most {RECORD_BEATS_MAX})"
        );
        assert_eq!(
            word % BEAT_WORDS,
            0,
            "broadcast.rs: the {region:?} record at word {word} ({beats} beats) does not \
             start on a beat"
        );
        let byte = word as u64 * WORD_BYTES;
        assert!(
            byte % AXI_BOUNDARY_BYTES + beats as u64 * BEAT_BYTES <= AXI_BOUNDARY_BYTES,
            "broadcast.rs: the {region:?} record at word {word} ({beats} beats) crosses 4 KiB"
        );
    }
}

impl Default for Broadcast {
    fn default() -> Self {
        check_literals();
        Broadcast {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            word: Default::default(),
            words: Default::default(),
            data: Default::default(),
            local_only: Default::default(),
            round: Default::default(),
            beats: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            round_done: Default::default(),
            round_error: Default::default(),
            s_rec_tdata: Default::default(),
            s_rec_tvalid: Default::default(),
            s_rec_tlast: Default::default(),
            s_rec_tready: Default::default(),
            network_ptr: Default::default(),
            n: Default::default(),
            id: Default::default(),
            qpns: Default::default(),
            awaddr: Default::default(),
            awlen: Default::default(),
            awsize: Default::default(),
            awburst: Default::default(),
            awvalid: Default::default(),
            awready: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            wlast: Default::default(),
            wvalid: Default::default(),
            wready: Default::default(),
            bresp: Default::default(),
            bvalid: Default::default(),
            bready: Default::default(),
            cmd_qpn: Default::default(),
            cmd_addr: Default::default(),
            cmd_len: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            ack: Default::default(),
            clear: Default::default(),
            acks: Default::default(),
            write_errors: Default::default(),
            failed: Default::default(),
            written: Default::default(),
            cmd_staged: Default::default(),
            stage_put: Default::default(),
            stage_addr: Default::default(),
            stage_len: Default::default(),
            stage_data: Default::default(),
            stage_busy: Default::default(),
            stage_sent: Default::default(),
            state: Default::default(),
            byte_addr: Default::default(),
            length: Default::default(),
            data_q: Default::default(),
            pair_q: Default::default(),
            wstrb_q: Default::default(),
            aw_done: Default::default(),
            w_done: Default::default(),
            peer: Default::default(),
            local_q: Default::default(),
            done_q: Default::default(),
            acks_q: Default::default(),
            errors_q: Default::default(),
            round_q: Default::default(),
            last_q: Default::default(),
            wbeat: Default::default(),
            bad_q: Default::default(),
            outstanding: Default::default(),
            land: Default::default(),
            round_done_q: Default::default(),
            round_error_q: Default::default(),
            failed_q: Default::default(),
            staged_q: Default::default(),
            put_q: Default::default(),
            send_q: Default::default(),
            sent_q: Default::default(),
            words_eff: Default::default(),
            send_end: Default::default(),
            put_now: Default::default(),
            stage_now: Default::default(),
            fail_now: Default::default(),
            req_addr: Default::default(),
            taken: Default::default(),
            w_take: Default::default(),
            w_last: Default::default(),
            pair_shift: Default::default(),
            quad_shift: Default::default(),
            upper: Default::default(),
            strb_shift: Default::default(),
            qpn: Default::default(),
            qpn_off: Default::default(),
            size: Constant::new(AXI_SIZE_BEAT.into()),
            burst: Constant::new(AXI_BURST_INCR.into()),
            ones: Constant::new(u64::MAX.into()),
            beat_mask: Constant::new((!63u64).into()),
            d_land: Constant::new(D_LAND.into()),
        }
    }
}

impl Logic for Broadcast {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            byte_addr,
            length,
            data_q,
            pair_q,
            wstrb_q,
            aw_done,
            w_done,
            peer,
            local_q,
            done_q,
            acks_q,
            errors_q,
            round_q,
            last_q,
            wbeat,
            bad_q,
            outstanding,
            land,
            round_done_q,
            round_error_q,
            failed_q,
            staged_q,
            put_q,
            send_q,
            sent_q
        );
        // The beat written, from the record as taken at `start` (`data_q`,
        // its pair of lanes `pair_q` = word[3:1], its size in `length`):
        // a record is aligned to its size (`check_lanes`), so its first
        // pair of words goes to pair word[3:1] (64 bits a pair), a
        // four-word record's second pair to the upper pair of its quad
        // word[3:2] (128 bits a quad), and a sixteen-word record is the
        // beat. Shifting the registered record, rather than registering
        // the shifted one, keeps the shifter off Protocol's request logic.
        self.pair_shift.next = bit_cast::<10, 3>(self.pair_q.q.val()) << 6;
        self.quad_shift.next = (bit_cast::<10, 2>(self.pair_q.q.val().get_bits::<2>(1)) << 7) + 64;
        self.upper.next = 0.into();
        if self.length.q.val().get_bit(4) {
            // Four words (16 bytes): the second pair.
            self.upper.next = self.data_q.q.val().get_bits::<64>(64);
        }
        self.wdata.next = (bit_cast::<BEAT_BITS, 64>(self.data_q.q.val().get_bits::<64>(0))
            << self.pair_shift.val())
            | (bit_cast::<BEAT_BITS, 64>(self.upper.val()) << self.quad_shift.val());
        if self.length.q.val().get_bit(6) {
            // Sixteen words (64 bytes): the beat, at lane 0.
            self.wdata.next = self.data_q.q.val();
        }
        self.wstrb.next = self.wstrb_q.q.val();
        if self.wbeat.q.val() != 0 {
            // A later beat of a longer record: the stream's, whole.
            self.wdata.next = self.s_rec_tdata.val();
            self.wstrb.next = self.ones.val();
        }
        // A record of more than one beat is a whole first beat (`data`).
        self.words_eff.next = self.words.val();
        if self.beats.val() > 1 {
            self.words_eff.next = 16.into();
        }
        // A one-beat record that is not a round is staged: its commands go
        // out as soon as Stage holds it.
        self.stage_now.next = (self.beats.val() <= 1) & !self.local_only.val() & !self.round.val();
        // What Stage takes: the request itself at `start`, the registers
        // after it.
        self.stage_put.next = false;
        self.fail_now.next = false;
        self.req_addr.next =
            bit_cast::<48, 64>(self.network_ptr.val()) + (bit_cast::<48, 32>(self.word.val()) << 2);
        if self.state.q.val() == BroadcastState::Idle {
            self.stage_addr.next = self.req_addr.val();
            self.stage_len.next = bit_cast::<8, 5>(self.words_eff.val()) << 2;
            self.stage_data.next = self.data.val();
        } else {
            self.stage_addr.next = self.byte_addr.q.val().get_bits::<48>(0);
            self.stage_len.next = self.length.q.val();
            self.stage_data.next = self.data_q.q.val();
        }
        self.strb_shift.next = bit_cast::<7, 4>(self.word.val().get_bits::<4>(0)) << 2;
        // Peer p's queue pair: bits [10 p + 9 : 10 p] of qpns.
        // (below 10 N <= 80: seven bits)
        self.qpn_off.next = bit_cast::<7, 8>((self.peer.q.val() << 3) + (self.peer.q.val() << 1));
        self.qpn.next = self.qpns.val().get_bits::<10>(self.qpn_off.val().index());
        self.w_last.next = self.wbeat.q.val() == self.last_q.q.val();
        self.done_q.d.next = false;
        self.round_done_q.d.next = false;
        self.round_error_q.d.next = false;
        self.awvalid.next = false;
        self.wvalid.next = false;
        self.w_take.next = false;
        self.s_rec_tready.next = false;
        self.bready.next = false;
        self.written.next = false;
        self.cmd_valid.next = false;
        self.taken.next = false;
        match self.state.q.val() {
            BroadcastState::Idle => {
                if self.start.val() & self.failed_q.q.val() {
                    // Failed stop: nothing is written; the request ends.
                    self.done_q.d.next = true;
                    self.round_done_q.d.next = self.round.val();
                    self.round_error_q.d.next = self.round.val();
                } else if self.start.val() {
                    self.byte_addr.d.next =
                        self.network_ptr.val() + (bit_cast::<64, 32>(self.word.val()) << 2);
                    self.length.d.next = bit_cast::<8, 5>(self.words_eff.val()) << 2;
                    self.data_q.d.next = self.data.val();
                    self.pair_q.d.next = self.word.val().get_bits::<3>(1);
                    self.wstrb_q.d.next = (self.ones.val()
                        >> (64 - (bit_cast::<8, 5>(self.words_eff.val()) << 2)))
                        << self.strb_shift.val();
                    self.aw_done.d.next = false;
                    self.w_done.d.next = false;
                    self.local_q.d.next = self.local_only.val();
                    self.round_q.d.next = self.round.val();
                    self.last_q.d.next = 0.into();
                    if self.beats.val() > 1 {
                        self.last_q.d.next = self.beats.val() - 1;
                    }
                    self.wbeat.d.next = 0.into();
                    self.bad_q.d.next = false;
                    self.land.d.next = 0.into();
                    // A one-beat record that is not a round is staged: its
                    // commands go out as soon as Stage holds it.
                    self.staged_q.d.next = self.stage_now.val();
                    self.put_q.d.next = self.stage_now.val() & self.stage_busy.val();
                    self.send_q.d.next = false;
                    if self.stage_now.val() & !self.stage_busy.val() {
                        // Staged as it is taken: its commands start with
                        // its local write.
                        self.stage_put.next = true;
                        self.send_q.d.next = true;
                        self.peer.d.next = 0.into();
                    }
                    self.state.d.next = BroadcastState::Local;
                }
            }
            BroadcastState::Local => {
                self.awvalid.next = !self.aw_done.q.val();
                if self.wbeat.q.val() == 0 {
                    // The first beat, from the record taken at `start`.
                    self.wvalid.next = !self.w_done.q.val();
                    self.w_take.next = !self.w_done.q.val() & self.wready.val();
                } else {
                    // A later beat passes from the stream to W.
                    self.wvalid.next = !self.w_done.q.val() & self.s_rec_tvalid.val();
                    self.s_rec_tready.next = !self.w_done.q.val() & self.wready.val();
                    self.w_take.next =
                        !self.w_done.q.val() & self.s_rec_tvalid.val() & self.wready.val();
                    if self.w_take.val() & (self.s_rec_tlast.val() != self.w_last.val()) {
                        // The stream disagrees with `beats`: the burst ends
                        // by the count, and the record goes nowhere.
                        self.bad_q.d.next = true;
                    }
                }
                if self.awready.val() {
                    self.aw_done.d.next = true;
                }
                if self.w_take.val() {
                    if self.w_last.val() {
                        self.w_done.d.next = true;
                    } else {
                        self.wbeat.d.next = self.wbeat.q.val() + 1;
                    }
                }
                if (self.aw_done.q.val() | self.awready.val())
                    & (self.w_done.q.val() | (self.w_take.val() & self.w_last.val()))
                {
                    self.state.d.next = BroadcastState::Resp;
                }
            }
            BroadcastState::Resp => {
                self.bready.next = true;
                if self.bvalid.val() {
                    if (self.bresp.val() != 0) | self.bad_q.q.val() {
                        // The record is not in local HBM: a record read
                        // from there is sent to no peer (the peers'
                        // quorums time out rather than count garbage). A
                        // round ends here, failed: nothing was sent.
                        self.errors_q.d.next = self.errors_q.q.val() + 1;
                        self.done_q.d.next = true;
                        self.round_done_q.d.next = self.round_q.q.val();
                        self.round_error_q.d.next = self.round_q.q.val();
                        self.put_q.d.next = false;
                        self.send_q.d.next = false;
                        self.fail_now.next = true;
                        // A round's local copy may be in HBM without the
                        // peers', and a staged record may be at peers
                        // without the local copy: stop writing (see the
                        // module's doc).
                        if self.round_q.q.val() | (self.staged_q.q.val() & !self.put_q.q.val()) {
                            self.failed_q.d.next = true;
                        }
                        self.state.d.next = BroadcastState::Idle;
                    } else if self.local_q.q.val() {
                        self.written.next = self.last_q.q.val() == 0;
                        self.done_q.d.next = true;
                        self.state.d.next = BroadcastState::Idle;
                        if self.round_q.q.val() {
                            self.state.d.next = BroadcastState::Land;
                        }
                    } else {
                        self.written.next = self.last_q.q.val() == 0;
                        if !self.staged_q.q.val() {
                            // Read from HBM: the commands go out now.
                            self.peer.d.next = 0.into();
                            self.send_q.d.next = true;
                        }
                        self.state.d.next = BroadcastState::Send;
                    }
                }
            }
            BroadcastState::Send => {
                // Every command taken (a staged record's may all be out
                // before its B).
                if (!self.put_q.q.val() & !self.send_q.q.val()) | self.send_end.val() {
                    self.done_q.d.next = true;
                    self.state.d.next = BroadcastState::Idle;
                    if self.round_q.q.val() {
                        self.state.d.next = BroadcastState::Land;
                    }
                }
            }
            BroadcastState::Land => {
                // Every command taken so far, this round's and any earlier
                // broadcast's, has its completion; then D_land cycles.
                if self.outstanding.q.val() != 0 {
                    self.land.d.next = 0.into();
                } else if self.land.q.val() == self.d_land.val() {
                    self.round_done_q.d.next = true;
                    self.state.d.next = BroadcastState::Idle;
                } else {
                    self.land.d.next = self.land.q.val() + 1;
                }
            }
            _ => {
                self.state.d.next = BroadcastState::Idle;
            }
        }
        // Staging: once Stage is free, the record goes in (at `start`, from
        // the request; later, from the registers), and its commands start;
        // they go out beside the local write (Local, Resp) and after it
        // (Send).
        self.put_now.next = self.put_q.q.val()
            & !self.stage_busy.val()
            & (self.state.q.val() != BroadcastState::Idle)
            & !self.fail_now.val();
        if self.put_now.val() {
            self.stage_put.next = true;
            self.put_q.d.next = false;
            self.send_q.d.next = true;
            self.peer.d.next = 0.into();
        }
        // The commands, one per peer in peer order, skipping this replica.
        self.send_end.next = self.send_q.q.val() & (self.peer.q.val() >= self.n.val());
        if self.send_end.val() {
            self.send_q.d.next = false;
        } else if self.send_q.q.val() {
            if self.peer.q.val() == self.id.val() {
                self.peer.d.next = self.peer.q.val() + 1;
            } else {
                self.cmd_valid.next = true;
                if self.cmd_ready.val() {
                    self.taken.next = true;
                    self.peer.d.next = self.peer.q.val() + 1;
                }
            }
        }
        // Commands taken minus completions. A completion with nothing
        // outstanding (one of a write from before a reset) is not counted.
        if self.taken.val() & !self.ack.val() {
            self.outstanding.d.next = self.outstanding.q.val() + 1;
        } else if !self.taken.val() & self.ack.val() & (self.outstanding.q.val() != 0) {
            self.outstanding.d.next = self.outstanding.q.val() - 1;
        }
        if self.ack.val() {
            self.acks_q.d.next = self.acks_q.q.val() + 1;
        }
        if self.clear.val() {
            self.acks_q.d.next = 0.into();
            self.errors_q.d.next = 0.into();
            self.failed_q.d.next = false;
        }
        if !self.rst_n.val() {
            self.state.d.next = BroadcastState::Idle;
            self.put_q.d.next = false;
            self.send_q.d.next = false;
            self.done_q.d.next = false;
            self.round_done_q.d.next = false;
            self.round_error_q.d.next = false;
            self.outstanding.d.next = 0.into();
            self.acks_q.d.next = 0.into();
            self.errors_q.d.next = 0.into();
            self.failed_q.d.next = false;
        }
        self.awaddr.next = self.byte_addr.q.val() & self.beat_mask.val();
        self.awlen.next = bit_cast::<8, 5>(self.last_q.q.val());
        self.awsize.next = self.size.val();
        self.awburst.next = self.burst.val();
        self.wlast.next = self.w_last.val();
        self.cmd_qpn.next = self.qpn.val();
        self.cmd_addr.next = self.byte_addr.q.val();
        self.cmd_len.next = bit_cast::<16, 8>(self.length.q.val());
        if self.last_q.q.val() != 0 {
            self.cmd_len.next = (bit_cast::<16, 5>(self.last_q.q.val()) + 1) << 6;
        }
        self.cmd_staged.next = self.staged_q.q.val();
        self.sent_q.d.next = self.taken.val() & self.staged_q.q.val();
        self.stage_sent.next = self.sent_q.q.val();
        self.busy.next = self.state.q.val() != BroadcastState::Idle;
        self.done.next = self.done_q.q.val();
        self.round_done.next = self.round_done_q.q.val();
        self.round_error.next = self.round_error_q.q.val();
        self.acks.next = self.acks_q.q.val();
        self.write_errors.next = self.errors_q.q.val();
        self.failed.next = self.failed_q.q.val();
    }
}
