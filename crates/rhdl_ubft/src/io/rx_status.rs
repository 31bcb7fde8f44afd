//! RxStatus: one status per incoming RDMA WRITE, after the write is in HBM.
//!
//! The RoCE stack hands the kernel each incoming WRITE as a memory-write
//! command (`s_axis_rx_cmd`) and its payload; the guard checks it and writes
//! what it accepts to HBM through `m_axi_rx`. RxStatus sits on the command
//! stream between the stack and the guard and tells the stack, on
//! `m_axis_rx_sts`, when each command is finished: refused, or accepted and
//! every one of its HBM writes answered by B. A stack that acknowledges a
//! WRITE only on its status (`docs/roce.md`, "Write status") gives the
//! sender a completion that means the record is in the receiver's HBM, so a
//! round (R13) rests on trusted hardware alone: D_land = 0
//! (`docs/recovery.md` section 2, `params::D_LAND`).
//!
//! Ports:
//! - `s_cmd_tdata/tvalid/tready`: the stack's command stream; `g_cmd_tvalid`
//!   (out) and `g_cmd_tready` (in) are the guard's side of it. The stream
//!   passes through (`g_cmd_tvalid = s_cmd_tvalid`, `s_cmd_tready =
//!   g_cmd_tready`) while the status FIFO has room; with the FIFO full both
//!   are 0, so the guard takes no command whose status could not be queued.
//! - `awvalid` (the guard's), `awready` (HBM's), `bvalid` and `bresp`
//!   (HBM's), `bready` (the guard's): `m_axi_rx`'s handshakes, watched only.
//! - `m_sts_tdata/tvalid/tready`: AXI4-Stream, one status per command taken,
//!   in the order the commands were taken: bits [9:0] the command's queue
//!   pair (`roce.rs` `WR_QPN`), bits [21:16] the HBM beats written for it
//!   (0: refused whole), the rest 0. `tvalid` is held, `tdata` stable, until
//!   `tready`.
//!
//! How a command's end is seen. The guard's `wr_cmd_tready` is high only in
//! its Idle state, which it reaches after a write's last AW and W (or its
//! refusal, or a payload drained). So a command taken is finished at the
//! next cycle in which the guard's `tready` is high again: RxStatus then
//! queues {queue pair, AW handshakes since the command was taken}. B
//! responses come in AW order (one AXI ID), so a counter of B handshakes not
//! yet matched (`bs`) is enough: the head status goes out once `bs` covers
//! its beats, and the pop subtracts them. A refused command has 0 beats and
//! goes out as soon as it is at the head, after every earlier one.
//!
//! FIFO: `RX_STS_DEPTH` = 8 entries, a ring (`head`, `tail`). A status
//! waits at most for its B's, `defaults::HBM_WRITE_LATENCY` = 20 cycles
//! after its last AW, and the guard writes a one-beat record every 4 cycles
//! at most, so with HBM at that latency and the stack taking statuses as
//! they come, at most five are queued and the FIFO never holds the guard
//! up.
//!
//! A write HBM refused: after a B whose `bresp` is not OKAY, no status goes
//! out again (`failed`, until the card is configured again). The write's
//! record is not in HBM, so its sender must not be told it is; the status
//! FIFO then fills, the command stream stops, and the card's receive path
//! is a crashed card's: the trusted hardware fails only by crashing
//! (docs/recovery.md section 2). The guard counts the error
//! (`guard_write_errors`).
//!
//! Reset (`rst_n`, `ap_rst_n`): the FIFO and `bs` are kept, since the
//! stack is not reset and every command it handed over gets its status.
//! A command the reset abandons is finished when the guard is Idle again,
//! with the beats it wrote (0 if none). The reset takes the AXI
//! interconnect with it, so the B's of the writes in flight (`pend`) never
//! come: in each cycle of the reset they count as answered
//! (docs/rx_status.md, Reset). The registers start at 0 on configuration.
//!
//! Timing: no register on the command stream's path; a status is valid the
//! cycle after its command is finished (a refusal) or the cycle after its
//! last B (an accepted write), whichever is later, and after every earlier
//! status is taken.

use crate::io::roce::{QPN_BITS, WR_CMD_BITS, WR_QPN};
use crate::params::RX_STS_DEPTH;
use rust_hdl::prelude::*;

/// Bits of a status word on `m_axis_rx_sts`.
pub const STS_BITS: usize = 32;
/// Where a status holds the HBM beats written.
pub const STS_BEATS: usize = 16;
/// Bits of the beats field (a record is at most 17 HBM beats: 16 payload
/// beats at a word offset).
pub const STS_BEATS_BITS: usize = 6;

const _: () = assert!(QPN_BITS == 10 && STS_BEATS_BITS == 6 && STS_BEATS == 16);
// The queue pair's field of a command, as a literal in `update`.
const _: () = assert!(WR_QPN == 84);
const _: () = assert!(
    RX_STS_DEPTH == 8,
    "rx_status.rs: eight FIFO registers, 3-bit pointers, a 4-bit count"
);

#[derive(LogicBlock)]
pub struct RxStatus {
    pub clock: Signal<In, Clock>,
    /// The kernel's reset (`ap_rst_n`): it resets the AXI interconnect
    /// too, so the B's of writes in flight never come (see Reset).
    pub rst_n: Signal<In, Bit>,
    // The stack's command stream, and the guard's side of it.
    pub s_cmd_tdata: Signal<In, Bits<WR_CMD_BITS>>,
    pub s_cmd_tvalid: Signal<In, Bit>,
    pub s_cmd_tready: Signal<Out, Bit>,
    pub g_cmd_tvalid: Signal<Out, Bit>,
    pub g_cmd_tready: Signal<In, Bit>,
    // m_axi_rx's handshakes.
    pub awvalid: Signal<In, Bit>,
    pub awready: Signal<In, Bit>,
    pub bvalid: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub bready: Signal<In, Bit>,
    // The status stream.
    pub m_sts_tdata: Signal<Out, Bits<STS_BITS>>,
    pub m_sts_tvalid: Signal<Out, Bit>,
    pub m_sts_tready: Signal<In, Bit>,
    /// A command is taken and not yet finished.
    taken: DFF<Bit>,
    /// Its queue pair.
    qpn: DFF<Bits<QPN_BITS>>,
    /// Its AW handshakes so far.
    aws: DFF<Bits<STS_BEATS_BITS>>,
    /// B handshakes not yet matched to a status taken.
    bs: DFF<Bits<8>>,
    /// AW handshakes whose B has not come.
    pend: DFF<Bits<8>>,
    /// The FIFO, a ring: {beats [15:10], queue pair [9:0]}; `head` the
    /// oldest entry, `tail` the next free one, `count` the entries.
    e: [DFF<Bits<16>>; RX_STS_DEPTH],
    head: DFF<Bits<3>>,
    tail: DFF<Bits<3>>,
    count: DFF<Bits<4>>,
    /// A B was not OKAY: no status goes out again.
    failed: DFF<Bit>,
    room: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    valid: Signal<Local, Bit>,
    entry: Signal<Local, Bits<16>>,
    /// The head entry.
    first: Signal<Local, Bits<16>>,
    /// Entry i's index, in bits [3 i + 2 : 3 i] (the loops compare the
    /// pointers with it).
    ids: Constant<Bits<24>>,
    head_beats: Signal<Local, Bits<8>>,
    aw_fire: Signal<Local, Bits<STS_BEATS_BITS>>,
    b_fire: Signal<Local, Bits<8>>,
    /// The B's a reset takes away, counted as answered.
    lost: Signal<Local, Bits<8>>,
    pnext: Signal<Local, Bits<8>>,
}

impl Default for RxStatus {
    fn default() -> Self {
        let mut ids = Bits::<24>::default();
        for i in 0..RX_STS_DEPTH {
            ids.set_bits::<3>(3 * i, (i as u64).into());
        }
        RxStatus {
            clock: Default::default(),
            rst_n: Default::default(),
            s_cmd_tdata: Default::default(),
            s_cmd_tvalid: Default::default(),
            s_cmd_tready: Default::default(),
            g_cmd_tvalid: Default::default(),
            g_cmd_tready: Default::default(),
            awvalid: Default::default(),
            awready: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            bready: Default::default(),
            m_sts_tdata: Default::default(),
            m_sts_tvalid: Default::default(),
            m_sts_tready: Default::default(),
            taken: Default::default(),
            qpn: Default::default(),
            aws: Default::default(),
            bs: Default::default(),
            pend: Default::default(),
            e: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            count: Default::default(),
            failed: Default::default(),
            room: Default::default(),
            take: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            valid: Default::default(),
            entry: Default::default(),
            first: Default::default(),
            ids: Constant::new(ids),
            head_beats: Default::default(),
            aw_fire: Default::default(),
            b_fire: Default::default(),
            lost: Default::default(),
            pnext: Default::default(),
        }
    }
}

impl Logic for RxStatus {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, taken, qpn, aws, bs, pend, head, tail, count, failed);
        for i in 0..RX_STS_DEPTH {
            self.e[i].clock.next = self.clock.val();
            self.e[i].d.next = self.e[i].q.val();
        }
        self.room.next = self.count.q.val() != 8;
        self.g_cmd_tvalid.next = self.s_cmd_tvalid.val() & self.room.val();
        self.s_cmd_tready.next = self.g_cmd_tready.val() & self.room.val();
        self.take.next = (self.s_cmd_tvalid.val() & self.g_cmd_tready.val()) & self.room.val();
        self.push.next = (self.taken.q.val() & self.g_cmd_tready.val()) & self.room.val();
        self.aw_fire.next = 0.into();
        if self.awvalid.val() & self.awready.val() {
            self.aw_fire.next = 1.into();
        }
        self.b_fire.next = 0.into();
        if self.bvalid.val() & self.bready.val() {
            self.b_fire.next = 1.into();
            if self.bresp.val() != 0 {
                self.failed.d.next = true;
            }
        }
        // The command in hand: its queue pair and its AWs.
        self.entry.next = bit_cast::<16, 10>(self.qpn.q.val())
            | (bit_cast::<16, 6>(self.aws.q.val() + self.aw_fire.val()) << 10);
        if self.take.val() {
            self.taken.d.next = true;
            self.qpn.d.next = self.s_cmd_tdata.val().get_bits::<QPN_BITS>(84);
            self.aws.d.next = 0.into();
        } else {
            if self.push.val() {
                self.taken.d.next = false;
            }
            self.aws.d.next = self.aws.q.val() + self.aw_fire.val();
        }
        // The head goes out once its B's are in.
        self.first.next = 0.into();
        for i in 0..RX_STS_DEPTH {
            if self.head.q.val() == self.ids.val().get_bits::<3>(i * 3) {
                self.first.next = self.e[i].q.val();
            }
        }
        self.head_beats.next = bit_cast::<8, 6>(self.first.val().get_bits::<6>(10));
        self.valid.next = ((self.count.q.val() != 0) & (self.bs.q.val() >= self.head_beats.val()))
            & !self.failed.q.val();
        self.m_sts_tvalid.next = self.valid.val();
        self.m_sts_tdata.next = bit_cast::<STS_BITS, 10>(self.first.val().get_bits::<10>(0))
            | (bit_cast::<STS_BITS, 6>(self.first.val().get_bits::<6>(10)) << 16);
        self.pop.next = self.valid.val() & self.m_sts_tready.val();
        // The writes in flight: a reset takes their B's away with the
        // interconnect, and they count as answered.
        self.pnext.next = self.pend.q.val() + bit_cast::<8, STS_BEATS_BITS>(self.aw_fire.val());
        if (self.b_fire.val() != 0) & (self.pend.q.val() != 0) {
            self.pnext.next =
                (self.pend.q.val() - 1) + bit_cast::<8, STS_BEATS_BITS>(self.aw_fire.val());
        }
        self.pend.d.next = self.pnext.val();
        self.lost.next = 0.into();
        if !self.rst_n.val() {
            self.lost.next = self.pnext.val();
            self.pend.d.next = 0.into();
        }
        if self.pop.val() {
            self.bs.d.next =
                ((self.bs.q.val() + self.b_fire.val()) + self.lost.val()) - self.head_beats.val();
        } else {
            self.bs.d.next = (self.bs.q.val() + self.b_fire.val()) + self.lost.val();
        }
        // The FIFO: a push goes in at the tail, a pop moves the head on
        // (the pointers wrap at 8).
        if self.push.val() {
            for i in 0..RX_STS_DEPTH {
                if self.tail.q.val() == self.ids.val().get_bits::<3>(i * 3) {
                    self.e[i].d.next = self.entry.val();
                }
            }
            self.tail.d.next = self.tail.q.val() + 1;
        }
        if self.pop.val() {
            self.head.d.next = self.head.q.val() + 1;
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + 1;
        } else if self.pop.val() & !self.push.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
    }
}

/// RxStatus's Verilog alone, as module `rhdl_ubft_rx_status`.
pub fn verilog() -> String {
    let mut m = RxStatus::default();
    m.connect_all();
    let body = generate_verilog(&m)
        .replace("module top(", "module rhdl_ubft_rx_status(")
        .replace("top$", "rhdl_ubft_rx_status$");
    format!(
        "// Generated from crates/rhdl_ubft/src/io/rx_status.rs (rust-hdl 0.46).\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}
