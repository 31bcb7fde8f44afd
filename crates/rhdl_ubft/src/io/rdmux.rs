//! RdMux: two AXI4 read masters onto one AXI4 read channel, responses in
//! order.
//!
//! The kernel has one `m_axi_hbm` read channel and two Fetch blocks: the
//! controller's (master `a`, priority) and WATCH's background poller's
//! (master `b`). RdMux grants the AR channel to one of them at a time,
//! remembers whose burst each accepted AR was, and routes the R beats back
//! to their owner. The HBM answers bursts in the order their AR handshakes
//! happened (one AXI ID), so a first-in first-out list of owners is enough.
//!
//! Ports (widths as Fetch's):
//! - master a: `a_araddr`, `a_arlen`, `a_arsize`, `a_arburst`, `a_arvalid`
//!   (in), `a_arready` (out); `a_rdata`, `a_rresp`, `a_rlast`, `a_rvalid`
//!   (out), `a_rready` (in);
//! - master b: the same with prefix `b_`;
//! - the channel: `m_araddr`, `m_arlen`, `m_arsize`, `m_arburst`,
//!   `m_arvalid` (out), `m_arready` (in); `m_rdata`, `m_rresp`, `m_rlast`,
//!   `m_rvalid` (in), `m_rready` (out).
//!
//! AR grant: while last cycle's AR was pending (`m_arvalid` high, `m_arready`
//! low), the same master keeps the grant (`lock`, `lock_b`): AXI requires a
//! valid's payload to stay stable until it is taken. Otherwise `a` when
//! `a_arvalid`, `b` when only `b_arvalid`, and `a` when neither (so with `b`
//! idle, `m_ar*` are `a_ar*` in every cycle). `m_ar*` are the granted
//! master's, combinationally; the granted master's `arready` is `m_arready`,
//! the other's is 0.
//!
//! Order FIFO (`head`, `tail`, `third`, `count`; depth 3): an AR handshake pushes its
//! owner (0 = a, 1 = b); an R handshake with `m_rlast` pops. Push and pop in
//! one cycle both happen. While the FIFO is full, `m_arvalid` and both
//! `arready` are 0. This never drops a pending AR: the lock is set only by a
//! cycle with `m_arvalid` high, so with the FIFO not full, and without a
//! handshake that cycle pushes nothing, so the FIFO is not full while the
//! lock holds. Master a (the controller's Fetch) has at most two bursts
//! outstanding (its own and a read ahead, `fetch.md`) and master b (WATCH's
//! Fetch) one, so at most three are outstanding, the FIFO is never full
//! when a master raises `arvalid`, and the full case never stalls anyone.
//!
//! R routing (combinational): the head's owner gets `m_rvalid` on its
//! `*_rvalid`, the other's `rvalid` is 0, and `m_rready` is the owner's
//! `rready`; with the FIFO empty, `m_rready` is 0 and no `rvalid` is high.
//! `m_rdata`, `m_rresp` and `m_rlast` go to both masters unmuxed (they mean
//! nothing without `rvalid`; this saves a 512-bit multiplexer).
//!
//! Timing: no registers on any path. An AR handshake at cycle t is in the
//! FIFO from t + 1, and AXI lets a slave raise the burst's first RVALID no
//! earlier than t + 1. So with `b_arvalid` always 0, master a sees exactly
//! what it would see connected straight to the channel (and the channel
//! sees exactly a's outputs): no cycle is added anywhere.
//!
//! Reset (`rst_n`, synchronous, active low): empties the FIFO and clears the
//! lock the next cycle. On the card `ap_rst_n` resets the AXI interconnect
//! with the kernel, so no beat of an abandoned burst arrives later.

use crate::params::BEAT_BITS;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RdMux {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Master a (priority): AXI4 read address and data channels.
    pub a_araddr: Signal<In, Bits<64>>,
    pub a_arlen: Signal<In, Bits<8>>,
    pub a_arsize: Signal<In, Bits<3>>,
    pub a_arburst: Signal<In, Bits<2>>,
    pub a_arvalid: Signal<In, Bit>,
    pub a_arready: Signal<Out, Bit>,
    pub a_rdata: Signal<Out, Bits<BEAT_BITS>>,
    pub a_rresp: Signal<Out, Bits<2>>,
    pub a_rlast: Signal<Out, Bit>,
    pub a_rvalid: Signal<Out, Bit>,
    pub a_rready: Signal<In, Bit>,
    // Master b.
    pub b_araddr: Signal<In, Bits<64>>,
    pub b_arlen: Signal<In, Bits<8>>,
    pub b_arsize: Signal<In, Bits<3>>,
    pub b_arburst: Signal<In, Bits<2>>,
    pub b_arvalid: Signal<In, Bit>,
    pub b_arready: Signal<Out, Bit>,
    pub b_rdata: Signal<Out, Bits<BEAT_BITS>>,
    pub b_rresp: Signal<Out, Bits<2>>,
    pub b_rlast: Signal<Out, Bit>,
    pub b_rvalid: Signal<Out, Bit>,
    pub b_rready: Signal<In, Bit>,
    // The channel (to HBM).
    pub m_araddr: Signal<Out, Bits<64>>,
    pub m_arlen: Signal<Out, Bits<8>>,
    pub m_arsize: Signal<Out, Bits<3>>,
    pub m_arburst: Signal<Out, Bits<2>>,
    pub m_arvalid: Signal<Out, Bit>,
    pub m_arready: Signal<In, Bit>,
    pub m_rdata: Signal<In, Bits<BEAT_BITS>>,
    pub m_rresp: Signal<In, Bits<2>>,
    pub m_rlast: Signal<In, Bit>,
    pub m_rvalid: Signal<In, Bit>,
    pub m_rready: Signal<Out, Bit>,
    /// Last cycle's AR was pending: keep the grant.
    lock: DFF<Bit>,
    /// Who was granted last cycle (1 = b).
    lock_b: DFF<Bit>,
    /// FIFO entry 0, the oldest outstanding burst's owner (1 = b).
    head: DFF<Bit>,
    /// FIFO entry 1.
    tail: DFF<Bit>,
    /// FIFO entry 2 (the controller's Fetch may have two bursts
    /// outstanding, one a read ahead, and WATCH's one).
    third: DFF<Bit>,
    /// Bursts outstanding, 0 to 3.
    count: DFF<Bits<2>>,
    grant_b: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    ar_valid: Signal<Local, Bit>,
    r_ready: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
}

impl Logic for RdMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lock, lock_b, head, tail, third, count);
        // AR grant: locked while pending, else a first, b only alone.
        if self.lock.q.val() {
            self.grant_b.next = self.lock_b.q.val();
        } else if self.a_arvalid.val() {
            self.grant_b.next = false;
        } else if self.b_arvalid.val() {
            self.grant_b.next = true;
        } else {
            self.grant_b.next = false;
        }
        self.full.next = self.count.q.val() == 3;
        self.a_arready.next = false;
        self.b_arready.next = false;
        if self.grant_b.val() {
            self.m_araddr.next = self.b_araddr.val();
            self.m_arlen.next = self.b_arlen.val();
            self.m_arsize.next = self.b_arsize.val();
            self.m_arburst.next = self.b_arburst.val();
            self.ar_valid.next = self.b_arvalid.val() & !self.full.val();
            if !self.full.val() {
                self.b_arready.next = self.m_arready.val();
            }
        } else {
            self.m_araddr.next = self.a_araddr.val();
            self.m_arlen.next = self.a_arlen.val();
            self.m_arsize.next = self.a_arsize.val();
            self.m_arburst.next = self.a_arburst.val();
            self.ar_valid.next = self.a_arvalid.val() & !self.full.val();
            if !self.full.val() {
                self.a_arready.next = self.m_arready.val();
            }
        }
        self.m_arvalid.next = self.ar_valid.val();
        self.lock.d.next = self.ar_valid.val() & !self.m_arready.val();
        self.lock_b.d.next = self.grant_b.val();
        // R routing: to the head's owner; nobody while the FIFO is empty.
        self.a_rdata.next = self.m_rdata.val();
        self.a_rresp.next = self.m_rresp.val();
        self.a_rlast.next = self.m_rlast.val();
        self.b_rdata.next = self.m_rdata.val();
        self.b_rresp.next = self.m_rresp.val();
        self.b_rlast.next = self.m_rlast.val();
        self.a_rvalid.next = false;
        self.b_rvalid.next = false;
        self.r_ready.next = false;
        if self.count.q.val() != 0 {
            if self.head.q.val() {
                self.b_rvalid.next = self.m_rvalid.val();
                self.r_ready.next = self.b_rready.val();
            } else {
                self.a_rvalid.next = self.m_rvalid.val();
                self.r_ready.next = self.a_rready.val();
            }
        }
        self.m_rready.next = self.r_ready.val();
        // The order FIFO.
        self.push.next = self.ar_valid.val() & self.m_arready.val();
        self.pop.next = (self.m_rvalid.val() & self.r_ready.val()) & self.m_rlast.val();
        if self.push.val() & !self.pop.val() {
            if self.count.q.val() == 0 {
                self.head.d.next = self.grant_b.val();
            } else if self.count.q.val() == 1 {
                self.tail.d.next = self.grant_b.val();
            } else {
                self.third.d.next = self.grant_b.val();
            }
            self.count.d.next = self.count.q.val() + 1;
        }
        if self.pop.val() & !self.push.val() {
            self.head.d.next = self.tail.q.val();
            self.tail.d.next = self.third.q.val();
            self.count.d.next = self.count.q.val() - 1;
        }
        if self.push.val() & self.pop.val() {
            // The count stays. A push needs the FIFO not full, a pop not
            // empty: the head leaves and the new entry goes last.
            if self.count.q.val() == 1 {
                self.head.d.next = self.grant_b.val();
            } else {
                self.head.d.next = self.tail.q.val();
                self.tail.d.next = self.grant_b.val();
            }
        }
        if !self.rst_n.val() {
            self.count.d.next = 0.into();
            self.lock.d.next = false;
        }
    }
}

/// RdMux's Verilog alone, as module `rhdl_ubft_rdmux`.
pub fn verilog() -> String {
    let mut m = RdMux::default();
    m.connect_all();
    let body = generate_verilog(&m)
        .replace("module top(", "module rhdl_ubft_rdmux(")
        .replace("top$", "rhdl_ubft_rdmux$");
    format!(
        "// Generated from crates/rhdl_ubft/src/rdmux.rs (rust-hdl 0.46).\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}
