//! Broadcast: one record into every replica's mailbox, nothing dropped.
//!
//! A record is up to one 512-bit beat of words at a word index of the mailbox
//! buffer (`word`, `words`, `data` with the record in its low words). The
//! RoCE stack has no connection to the replica itself and pulls a WRITE's
//! payload from local HBM when it sends it, so Broadcast first writes the
//! record into its own HBM (one AXI4 write of one beat with byte strobes),
//! waits for the write response, then issues one RDMA WRITE command per peer
//! (`roce.rs` format, on the queue pair configured for that peer), in peer
//! order.
//!
//! Ports:
//! - request: `start` (one-cycle pulse, ignored while `busy`), `word`,
//!   `words` (1..=16), `data`, `local_only` (write the replica's own HBM
//!   only: the view change installs a chosen value in its own prepare); `network_ptr`, `n`, `id`, `qpns` (peer i's queue pair in bits [10 i + 9 : 10 i]) are the
//!   configuration. `done` pulses two cycles after the last command is taken.
//! - `m_axi` write channels: `awvalid` and `wvalid` rise together and each is
//!   held, payload stable, until its ready; `bready` is high while waiting.
//! - send queue (AXI-Stream): `sq_tvalid` is held with stable `sq_tdata`
//!   until `sq_tready`. Back-pressure holds the record: nothing is dropped.
//! - completions (AXI-Stream): always ready; `acks` counts completions with
//!   `cmplt` set, `write_errors` counts non-OKAY write responses.
//!
//! Timing: AW and W go out the cycle after `start`; with W the HBM write
//! latency and the send queue ready, the first command is valid W + 2 cycles
//! after `start` (one more when peer 0 is the replica itself) and one
//! command goes out per cycle; `done` follows the last.
//!
//! Reset (`rst_n`, synchronous, active low): abandons the record; `busy`
//! falls the next cycle.

use crate::params::{AXI_BURST_INCR, AXI_SIZE_BEAT, BEAT_BITS};
use crate::regs::QPNS_BITS;
use crate::roce::{
    CQ_BITS, CQ_CMPLT, RC_RDMA_WRITE_ONLY, SQ_BITS, SQ_LADDR, SQ_LAST, SQ_LENGTH, SQ_QPN, SQ_RADDR,
};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum BroadcastState {
    Idle,
    Local,
    Resp,
    Send,
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
    pub busy: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
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
    pub sq_tdata: Signal<Out, Bits<SQ_BITS>>,
    pub sq_tvalid: Signal<Out, Bit>,
    pub sq_tready: Signal<In, Bit>,
    pub cq_tdata: Signal<In, Bits<CQ_BITS>>,
    pub cq_tvalid: Signal<In, Bit>,
    pub cq_tready: Signal<Out, Bit>,
    pub acks: Signal<Out, Bits<32>>,
    pub write_errors: Signal<Out, Bits<32>>,
    state: DFF<BroadcastState>,
    byte_addr: DFF<Bits<64>>,
    length: DFF<Bits<8>>,
    wdata_q: DFF<Bits<BEAT_BITS>>,
    wstrb_q: DFF<Bits<64>>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    peer: DFF<Bits<8>>,
    local_q: DFF<Bit>,
    done_q: DFF<Bit>,
    acks_q: DFF<Bits<32>>,
    errors_q: DFF<Bits<32>>,
    lane_shift: Signal<Local, Bits<10>>,
    strb_shift: Signal<Local, Bits<7>>,
    qpn: Signal<Local, Bits<10>>,
    qpn_off: Signal<Local, Bits<7>>,
    size: Constant<Bits<3>>,
    burst: Constant<Bits<2>>,
    opcode: Constant<Bits<SQ_BITS>>,
    last: Constant<Bits<SQ_BITS>>,
    ones: Constant<Bits<64>>,
    qpn_at: Constant<Bits<8>>,
    laddr_at: Constant<Bits<8>>,
    raddr_at: Constant<Bits<8>>,
    length_at: Constant<Bits<8>>,
    cmplt_mask: Constant<Bits<CQ_BITS>>,
    beat_mask: Constant<Bits<64>>,
}

impl Default for Broadcast {
    fn default() -> Self {
        let mut last = Bits::<SQ_BITS>::default();
        last.set_bits::<1>(SQ_LAST, 1u64.into());
        Broadcast {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            word: Default::default(),
            words: Default::default(),
            data: Default::default(),
            local_only: Default::default(),
            busy: Default::default(),
            done: Default::default(),
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
            sq_tdata: Default::default(),
            sq_tvalid: Default::default(),
            sq_tready: Default::default(),
            cq_tdata: Default::default(),
            cq_tvalid: Default::default(),
            cq_tready: Default::default(),
            acks: Default::default(),
            write_errors: Default::default(),
            state: Default::default(),
            byte_addr: Default::default(),
            length: Default::default(),
            wdata_q: Default::default(),
            wstrb_q: Default::default(),
            aw_done: Default::default(),
            w_done: Default::default(),
            peer: Default::default(),
            local_q: Default::default(),
            done_q: Default::default(),
            acks_q: Default::default(),
            errors_q: Default::default(),
            lane_shift: Default::default(),
            strb_shift: Default::default(),
            qpn: Default::default(),
            qpn_off: Default::default(),
            size: Constant::new(AXI_SIZE_BEAT.into()),
            burst: Constant::new(AXI_BURST_INCR.into()),
            opcode: Constant::new(RC_RDMA_WRITE_ONLY.into()),
            last: Constant::new(last),
            ones: Constant::new(u64::MAX.into()),
            qpn_at: Constant::new((SQ_QPN as u64).into()),
            laddr_at: Constant::new((SQ_LADDR as u64).into()),
            raddr_at: Constant::new((SQ_RADDR as u64).into()),
            length_at: Constant::new((SQ_LENGTH as u64).into()),
            cmplt_mask: Constant::new((1u64 << CQ_CMPLT).into()),
            beat_mask: Constant::new((!63u64).into()),
        }
    }
}

impl Logic for Broadcast {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, byte_addr, length, wdata_q, wstrb_q, aw_done, w_done, peer,
            local_q, done_q, acks_q, errors_q
        );
        // The record's lane in the beat: word mod 16.
        self.lane_shift.next = bit_cast::<10, 4>(self.word.val().get_bits::<4>(0)) << 5;
        self.strb_shift.next = bit_cast::<7, 4>(self.word.val().get_bits::<4>(0)) << 2;
        // Peer p's queue pair: bits [10 p + 9 : 10 p] of qpns.
        // (below 10 N <= 80: seven bits)
        self.qpn_off.next = bit_cast::<7, 8>((self.peer.q.val() << 3) + (self.peer.q.val() << 1));
        self.qpn.next = self.qpns.val().get_bits::<10>(self.qpn_off.val().index());
        self.done_q.d.next = false;
        self.awvalid.next = false;
        self.wvalid.next = false;
        self.bready.next = false;
        self.sq_tvalid.next = false;
        match self.state.q.val() {
            BroadcastState::Idle => {
                if self.start.val() {
                    self.byte_addr.d.next =
                        self.network_ptr.val() + (bit_cast::<64, 32>(self.word.val()) << 2);
                    self.length.d.next = bit_cast::<8, 5>(self.words.val()) << 2;
                    self.wdata_q.d.next = self.data.val() << self.lane_shift.val();
                    self.wstrb_q.d.next = (self.ones.val()
                        >> (64 - (bit_cast::<8, 5>(self.words.val()) << 2)))
                        << self.strb_shift.val();
                    self.aw_done.d.next = false;
                    self.w_done.d.next = false;
                    self.local_q.d.next = self.local_only.val();
                    self.state.d.next = BroadcastState::Local;
                }
            }
            BroadcastState::Local => {
                self.awvalid.next = !self.aw_done.q.val();
                self.wvalid.next = !self.w_done.q.val();
                if self.awready.val() {
                    self.aw_done.d.next = true;
                }
                if self.wready.val() {
                    self.w_done.d.next = true;
                }
                if (self.aw_done.q.val() | self.awready.val())
                    & (self.w_done.q.val() | self.wready.val())
                {
                    self.state.d.next = BroadcastState::Resp;
                }
            }
            BroadcastState::Resp => {
                self.bready.next = true;
                if self.bvalid.val() {
                    if self.bresp.val() != 0 {
                        self.errors_q.d.next = self.errors_q.q.val() + 1;
                    }
                    self.peer.d.next = 0.into();
                    if self.local_q.q.val() {
                        self.done_q.d.next = true;
                        self.state.d.next = BroadcastState::Idle;
                    } else {
                        self.state.d.next = BroadcastState::Send;
                    }
                }
            }
            BroadcastState::Send => {
                if self.peer.q.val() >= self.n.val() {
                    self.done_q.d.next = true;
                    self.state.d.next = BroadcastState::Idle;
                } else if self.peer.q.val() == self.id.val() {
                    self.peer.d.next = self.peer.q.val() + 1;
                } else {
                    self.sq_tvalid.next = true;
                    if self.sq_tready.val() {
                        self.peer.d.next = self.peer.q.val() + 1;
                    }
                }
            }
            _ => {
                self.state.d.next = BroadcastState::Idle;
            }
        }
        self.cq_tready.next = true;
        if self.cq_tvalid.val() & ((self.cq_tdata.val() & self.cmplt_mask.val()) != 0) {
            self.acks_q.d.next = self.acks_q.q.val() + 1;
        }
        if !self.rst_n.val() {
            self.state.d.next = BroadcastState::Idle;
            self.done_q.d.next = false;
            self.acks_q.d.next = 0.into();
            self.errors_q.d.next = 0.into();
        }
        self.awaddr.next = self.byte_addr.q.val() & self.beat_mask.val();
        self.awlen.next = 0.into();
        self.awsize.next = self.size.val();
        self.awburst.next = self.burst.val();
        self.wdata.next = self.wdata_q.q.val();
        self.wstrb.next = self.wstrb_q.q.val();
        self.wlast.next = true;
        self.sq_tdata.next = self.opcode.val()
            | (bit_cast::<SQ_BITS, 10>(self.qpn.val()) << self.qpn_at.val())
            | self.last.val()
            | (bit_cast::<SQ_BITS, 64>(self.byte_addr.q.val()) << self.laddr_at.val())
            | (bit_cast::<SQ_BITS, 64>(self.byte_addr.q.val()) << self.raddr_at.val())
            | (bit_cast::<SQ_BITS, 8>(self.length.q.val()) << self.length_at.val());
        self.busy.next = self.state.q.val() != BroadcastState::Idle;
        self.done.next = self.done_q.q.val();
        self.acks.next = self.acks_q.q.val();
        self.write_errors.next = self.errors_q.q.val();
    }
}
