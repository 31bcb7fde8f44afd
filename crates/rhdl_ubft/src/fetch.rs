//! Fetch: one HBM read burst per poll.
//!
//! The controller asks for a mailbox region (a beat-aligned byte address and
//! a burst length); Fetch issues one AXI4 INCR burst of 512-bit beats on the
//! AR channel, takes the R beats, and hands each beat to the controller.
//!
//! Ports:
//! - request: `start` (a one-cycle pulse; ignored while `busy`), `addr` (byte
//!   address, 64-byte aligned; the layout guarantees that no region the
//!   controller polls crosses 4 KiB), `len` (AXI AxLEN: beats - 1).
//! - result: `beat` and `beat_valid` for one cycle per beat; `done` with the
//!   last beat; `error` with `done` when any beat came back with a non-OKAY
//!   RRESP (the controller then treats the poll as having found nothing).
//! - `m_axi` read channels: `arvalid` is held with a stable payload until
//!   `arready`; `rready` is high while the burst is in flight.
//!
//! Timing: AR goes out the cycle after `start`; a beat accepted at cycle t
//! is on `beat` with `beat_valid` at t + 1; `busy` falls with `done`, so the
//! next `start` may come in the cycle `done` is seen. One burst in flight.
//! With HBM read latency H (AR accepted to first R beat), a one-beat poll
//! takes H + 2 cycles from `start` to `done` when `arready` is high.
//!
//! Reset (`rst_n`, synchronous, active low): abandons the burst and drops
//! `arvalid`/`rready` the next cycle. On the card, `ap_rst_n` resets the
//! kernel's AXI interconnect with it, so no beat of the abandoned burst is
//! delivered afterwards.

use crate::params::{AXI_BURST_INCR, AXI_SIZE_BEAT, BEAT_BITS};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum FetchState {
    Idle,
    Addr,
    Data,
}

#[derive(LogicBlock)]
pub struct Fetch {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Request.
    pub start: Signal<In, Bit>,
    pub addr: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<8>>,
    pub busy: Signal<Out, Bit>,
    // Result.
    pub beat: Signal<Out, Bits<BEAT_BITS>>,
    pub beat_valid: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    // AXI4 read address channel.
    pub araddr: Signal<Out, Bits<64>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arsize: Signal<Out, Bits<3>>,
    pub arburst: Signal<Out, Bits<2>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    // AXI4 read data channel.
    pub rdata: Signal<In, Bits<BEAT_BITS>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
    state: DFF<FetchState>,
    addr_q: DFF<Bits<64>>,
    len_q: DFF<Bits<8>>,
    beat_q: DFF<Bits<BEAT_BITS>>,
    beat_valid_q: DFF<Bit>,
    done_q: DFF<Bit>,
    error_q: DFF<Bit>,
    size: Constant<Bits<3>>,
    burst: Constant<Bits<2>>,
}

impl Default for Fetch {
    fn default() -> Self {
        Fetch {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            addr: Default::default(),
            len: Default::default(),
            busy: Default::default(),
            beat: Default::default(),
            beat_valid: Default::default(),
            done: Default::default(),
            error: Default::default(),
            araddr: Default::default(),
            arlen: Default::default(),
            arsize: Default::default(),
            arburst: Default::default(),
            arvalid: Default::default(),
            arready: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            rlast: Default::default(),
            rvalid: Default::default(),
            rready: Default::default(),
            state: Default::default(),
            addr_q: Default::default(),
            len_q: Default::default(),
            beat_q: Default::default(),
            beat_valid_q: Default::default(),
            done_q: Default::default(),
            error_q: Default::default(),
            size: Constant::new(AXI_SIZE_BEAT.into()),
            burst: Constant::new(AXI_BURST_INCR.into()),
        }
    }
}

impl Logic for Fetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            addr_q,
            len_q,
            beat_q,
            beat_valid_q,
            done_q,
            error_q
        );
        self.beat_valid_q.d.next = false;
        self.done_q.d.next = false;
        self.arvalid.next = false;
        self.rready.next = false;
        match self.state.q.val() {
            FetchState::Idle => {
                if self.start.val() {
                    self.addr_q.d.next = self.addr.val();
                    self.len_q.d.next = self.len.val();
                    self.error_q.d.next = false;
                    self.state.d.next = FetchState::Addr;
                }
            }
            FetchState::Addr => {
                self.arvalid.next = true;
                if self.arready.val() {
                    self.state.d.next = FetchState::Data;
                }
            }
            FetchState::Data => {
                self.rready.next = true;
                if self.rvalid.val() {
                    self.beat_q.d.next = self.rdata.val();
                    self.beat_valid_q.d.next = true;
                    if self.rresp.val() != 0 {
                        self.error_q.d.next = true;
                    }
                    if self.rlast.val() {
                        self.done_q.d.next = true;
                        self.state.d.next = FetchState::Idle;
                    }
                }
            }
            _ => {
                self.state.d.next = FetchState::Idle;
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = FetchState::Idle;
            self.beat_valid_q.d.next = false;
            self.done_q.d.next = false;
        }
        self.araddr.next = self.addr_q.q.val();
        self.arlen.next = self.len_q.q.val();
        self.arsize.next = self.size.val();
        self.arburst.next = self.burst.val();
        self.busy.next = self.state.q.val() != FetchState::Idle;
        self.beat.next = self.beat_q.q.val();
        self.beat_valid.next = self.beat_valid_q.q.val();
        self.done.next = self.done_q.q.val();
        self.error.next = self.error_q.q.val();
    }
}
