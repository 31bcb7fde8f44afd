//! Control: the `s_axi_control` AXI4-Lite slave and the ap_ctrl_hs handshake.
//!
//! The host reaches the kernel only through these registers (the map is
//! `regs::REGS`, rendered in docs/registers.md). Control holds the arguments
//! and hands them to the kernel as plain signals, turns the host's CTRL
//! writes into `ap_start`, latches the kernel's `ap_done`/`ap_ready` pulses
//! for the host to read, and raises `interrupt` the way Vitis expects.
//!
//! Ports:
//! - `s_axi_control_*`: AXI4-Lite slave, 12-bit byte addresses, 32-bit data.
//!   AW and W are taken independently (either first, or together) into
//!   one-deep holding registers; the write happens once both are held and
//!   no B response is pending; B is held until `bready`. AR is taken when
//!   no R response is pending; R is held until `rready`. Address bits [1:0]
//!   are ignored; unmapped offsets read 0 and ignore writes; responses are
//!   always OKAY. `wstrb` selects the bytes written.
//! - `interrupt`: GIER bit 0 and (IP_ISR bit 0 or bit 1).
//! - to the kernel: `ap_start`, `network_ptr` (64), `id` (8), `n` (8),
//!   `wait_polls` (16), `slots` (32), `qpns` (`roce::QPNS_BITS` = params::N ×
//!   10, packed: `qpn_i` is bits [10 i + 9 : 10 i]; Control<N> implements
//!   `qpn_0` … `qpn_{N-1}`, the rest of the field is 0).
//! - from the kernel: `ap_done`, `ap_ready` (pulses), `ap_idle` (level), and
//!   the status values `sts_*`, read live; from the guard, its counters
//!   `sts_guard_*` (`sts_guard_refused_by`: sender i's in bits
//!   [32 i + 31 : 32 i], `guard::REFUSED_BY_BITS` = params::N × 32), and
//!   from the local guard `sts_local_refused`, and from Chain `sts_chain_k`
//!   and `sts_chain_h` (word i of h_k in bits [32 i + 31 : 32 i]).
//!
//! ap_ctrl_hs: writing 1 to CTRL bit 0 sets `ap_start`; it stays high until
//! the kernel's `ap_ready`, when it takes the value of `auto_restart` (a
//! write of 1 in the same cycle wins). `ap_done` and `ap_ready` are latched
//! and cleared when a read of CTRL is accepted (a pulse in that cycle wins,
//! so none is lost). IP_ISR bit 0/1 is set by `ap_done`/`ap_ready` while
//! IP_IER bit 0/1 is set, and toggled by writing 1: a 1 clears a set bit and
//! sets a clear one (raising `interrupt` if GIER is 1), as in Vitis HLS.
//!
//! Timing: a write whose AW and W are accepted at cycle t lands at t + 1
//! (the register's output changes at t + 2) and its B is valid at t + 2;
//! a read accepted (AR) at t has R valid at t + 1 with the value the
//! register held at t. `awready`/`wready` are high while their holding
//! register is empty; `arready` while no R is pending. One write every three
//! cycles, one read every two, at full speed.
//!
//! Reset (`rst_n`, synchronous, active low): drops any half-done
//! transaction and clears ap_start, the ap_done/ap_ready latches,
//! auto_restart, GIER, IP_IER and IP_ISR; `awready`, `wready` and `arready`
//! are low during reset. Arguments keep their values (Vitis HLS's adapters
//! reset them to 0; XRT writes them before every start, docs/control.md).

use crate::guard::REFUSED_BY_BITS;
use crate::io::roce::QPNS_BITS;
use crate::regs;

// `gsh`, the bit offset of guard_refused_by_i, is eight bits.
const _: () = assert!(REFUSED_BY_BITS <= 256);
use crate::io::roce::QPN_BITS;
use crate::params::{CHAIN_BITS, CHAIN_WORDS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Control<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // AXI4-Lite write address, write data and write response channels.
    pub s_axi_control_awaddr: Signal<In, Bits<12>>,
    pub s_axi_control_awvalid: Signal<In, Bit>,
    pub s_axi_control_awready: Signal<Out, Bit>,
    pub s_axi_control_wdata: Signal<In, Bits<32>>,
    pub s_axi_control_wstrb: Signal<In, Bits<4>>,
    pub s_axi_control_wvalid: Signal<In, Bit>,
    pub s_axi_control_wready: Signal<Out, Bit>,
    pub s_axi_control_bresp: Signal<Out, Bits<2>>,
    pub s_axi_control_bvalid: Signal<Out, Bit>,
    pub s_axi_control_bready: Signal<In, Bit>,
    // AXI4-Lite read address and read data channels.
    pub s_axi_control_araddr: Signal<In, Bits<12>>,
    pub s_axi_control_arvalid: Signal<In, Bit>,
    pub s_axi_control_arready: Signal<Out, Bit>,
    pub s_axi_control_rdata: Signal<Out, Bits<32>>,
    pub s_axi_control_rresp: Signal<Out, Bits<2>>,
    pub s_axi_control_rvalid: Signal<Out, Bit>,
    pub s_axi_control_rready: Signal<In, Bit>,
    pub interrupt: Signal<Out, Bit>,
    // To the kernel.
    pub ap_start: Signal<Out, Bit>,
    pub network_ptr: Signal<Out, Bits<64>>,
    pub id: Signal<Out, Bits<8>>,
    pub n: Signal<Out, Bits<8>>,
    pub wait_polls: Signal<Out, Bits<16>>,
    pub slots: Signal<Out, Bits<32>>,
    pub qpns: Signal<Out, Bits<QPNS_BITS>>,
    // From the kernel.
    pub ap_done: Signal<In, Bit>,
    pub ap_idle: Signal<In, Bit>,
    pub ap_ready: Signal<In, Bit>,
    pub sts_cycles: Signal<In, Bits<32>>,
    pub sts_decisions: Signal<In, Bits<32>>,
    pub sts_fast: Signal<In, Bits<32>>,
    pub sts_slow: Signal<In, Bits<32>>,
    pub sts_view_changes: Signal<In, Bits<32>>,
    pub sts_view: Signal<In, Bits<32>>,
    pub sts_timeouts: Signal<In, Bits<32>>,
    pub sts_polls: Signal<In, Bits<32>>,
    pub sts_bad_shares: Signal<In, Bits<32>>,
    pub sts_acks: Signal<In, Bits<32>>,
    pub sts_write_errors: Signal<In, Bits<32>>,
    pub sts_error: Signal<In, Bits<8>>,
    pub sts_state: Signal<In, Bits<8>>,
    // From the guard (lifetime counters).
    pub sts_guard_accepted: Signal<In, Bits<32>>,
    pub sts_guard_write_errors: Signal<In, Bits<32>>,
    pub sts_guard_refused_unknown_qp: Signal<In, Bits<32>>,
    pub sts_guard_refused_length: Signal<In, Bits<32>>,
    pub sts_guard_refused_unaligned: Signal<In, Bits<32>>,
    pub sts_guard_refused_outside: Signal<In, Bits<32>>,
    pub sts_guard_refused_data: Signal<In, Bits<32>>,
    pub sts_guard_refused_not_owner: Signal<In, Bits<32>>,
    pub sts_guard_refused_not_leader: Signal<In, Bits<32>>,
    pub sts_guard_refused_shape: Signal<In, Bits<32>>,
    pub sts_guard_refused_unchecked: Signal<In, Bits<32>>,
    pub sts_guard_refused_by: Signal<In, Bits<REFUSED_BY_BITS>>,
    pub sts_local_refused: Signal<In, Bits<32>>,
    pub sts_chain_k: Signal<In, Bits<32>>,
    pub sts_chain_h: Signal<In, Bits<CHAIN_BITS>>,
    // AXI state.
    aw_full: DFF<Bit>,
    aw_addr: DFF<Bits<12>>,
    w_full: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    bvalid_q: DFF<Bit>,
    rvalid_q: DFF<Bit>,
    rdata_q: DFF<Bits<32>>,
    // CTRL and interrupts.
    start_q: DFF<Bit>,
    done_q: DFF<Bit>,
    ready_q: DFF<Bit>,
    idle_q: DFF<Bit>,
    auto_restart_q: DFF<Bit>,
    gie_q: DFF<Bit>,
    ier_q: DFF<Bits<2>>,
    isr_q: DFF<Bits<2>>,
    // Arguments.
    ptr_lo: DFF<Bits<32>>,
    ptr_hi: DFF<Bits<32>>,
    id_q: DFF<Bits<8>>,
    n_q: DFF<Bits<8>>,
    wait_q: DFF<Bits<16>>,
    slots_q: DFF<Bits<32>>,
    qpns_q: DFF<Bits<QPNS_BITS>>,
    // Combinational temporaries.
    do_write: Signal<Local, Bit>,
    ar_hs: Signal<Local, Bit>,
    wa: Signal<Local, Bits<12>>,
    ra: Signal<Local, Bits<12>>,
    wmask: Signal<Local, Bits<32>>,
    wsh: Signal<Local, Bits<12>>,
    rsh: Signal<Local, Bits<7>>,
    wq: Signal<Local, Bits<32>>,
    isr_n: Signal<Local, Bits<2>>,
    rmux: Signal<Local, Bits<32>>,
    gsh: Signal<Local, Bits<8>>,
    csh: Signal<Local, Bits<8>>,
    // Offsets (regs::REGS) and masks.
    a_ctrl: Constant<Bits<12>>,
    a_gier: Constant<Bits<12>>,
    a_ier: Constant<Bits<12>>,
    a_isr: Constant<Bits<12>>,
    a_ptr_lo: Constant<Bits<12>>,
    a_ptr_hi: Constant<Bits<12>>,
    a_id: Constant<Bits<12>>,
    a_n: Constant<Bits<12>>,
    a_wait: Constant<Bits<12>>,
    a_slots: Constant<Bits<12>>,
    a_qpn: Constant<Bits<12>>,
    a_qpn_end: Constant<Bits<12>>,
    a_cycles: Constant<Bits<12>>,
    a_decisions: Constant<Bits<12>>,
    a_fast: Constant<Bits<12>>,
    a_slow: Constant<Bits<12>>,
    a_view_changes: Constant<Bits<12>>,
    a_view: Constant<Bits<12>>,
    a_timeouts: Constant<Bits<12>>,
    a_polls: Constant<Bits<12>>,
    a_bad_shares: Constant<Bits<12>>,
    a_acks: Constant<Bits<12>>,
    a_write_errors: Constant<Bits<12>>,
    a_error: Constant<Bits<12>>,
    a_state: Constant<Bits<12>>,
    a_guard_accepted: Constant<Bits<12>>,
    a_guard_write_errors: Constant<Bits<12>>,
    a_guard_refused_unknown_qp: Constant<Bits<12>>,
    a_guard_refused_length: Constant<Bits<12>>,
    a_guard_refused_unaligned: Constant<Bits<12>>,
    a_guard_refused_outside: Constant<Bits<12>>,
    a_guard_refused_data: Constant<Bits<12>>,
    a_guard_refused_not_owner: Constant<Bits<12>>,
    a_guard_refused_not_leader: Constant<Bits<12>>,
    a_guard_refused_shape: Constant<Bits<12>>,
    a_guard_refused_unchecked: Constant<Bits<12>>,
    a_guard_by: Constant<Bits<12>>,
    a_guard_by_end: Constant<Bits<12>>,
    a_local_refused: Constant<Bits<12>>,
    a_chain_k: Constant<Bits<12>>,
    a_chain_h: Constant<Bits<12>>,
    a_chain_h_end: Constant<Bits<12>>,
    qpn_mask: Constant<Bits<QPNS_BITS>>,
}

impl<const N: usize> Control<N> {
    pub fn new() -> Self {
        assert!(
            N >= 1 && N <= crate::params::N,
            "Control<N>: the register map has params::N qpn registers"
        );
        let a = |x: u64| Constant::new(x.into());
        // The guard's per-reason counters: GUARD_REFUSED + 4 i for reason i + 1.
        let refused = |i: u64| a(regs::GUARD_REFUSED + 4 * i);
        Control {
            clock: Default::default(),
            rst_n: Default::default(),
            s_axi_control_awaddr: Default::default(),
            s_axi_control_awvalid: Default::default(),
            s_axi_control_awready: Default::default(),
            s_axi_control_wdata: Default::default(),
            s_axi_control_wstrb: Default::default(),
            s_axi_control_wvalid: Default::default(),
            s_axi_control_wready: Default::default(),
            s_axi_control_bresp: Default::default(),
            s_axi_control_bvalid: Default::default(),
            s_axi_control_bready: Default::default(),
            s_axi_control_araddr: Default::default(),
            s_axi_control_arvalid: Default::default(),
            s_axi_control_arready: Default::default(),
            s_axi_control_rdata: Default::default(),
            s_axi_control_rresp: Default::default(),
            s_axi_control_rvalid: Default::default(),
            s_axi_control_rready: Default::default(),
            interrupt: Default::default(),
            ap_start: Default::default(),
            network_ptr: Default::default(),
            id: Default::default(),
            n: Default::default(),
            wait_polls: Default::default(),
            slots: Default::default(),
            qpns: Default::default(),
            ap_done: Default::default(),
            ap_idle: Default::default(),
            ap_ready: Default::default(),
            sts_cycles: Default::default(),
            sts_decisions: Default::default(),
            sts_fast: Default::default(),
            sts_slow: Default::default(),
            sts_view_changes: Default::default(),
            sts_view: Default::default(),
            sts_timeouts: Default::default(),
            sts_polls: Default::default(),
            sts_bad_shares: Default::default(),
            sts_acks: Default::default(),
            sts_write_errors: Default::default(),
            sts_error: Default::default(),
            sts_state: Default::default(),
            sts_guard_accepted: Default::default(),
            sts_guard_write_errors: Default::default(),
            sts_guard_refused_unknown_qp: Default::default(),
            sts_guard_refused_length: Default::default(),
            sts_guard_refused_unaligned: Default::default(),
            sts_guard_refused_outside: Default::default(),
            sts_guard_refused_data: Default::default(),
            sts_guard_refused_not_owner: Default::default(),
            sts_guard_refused_not_leader: Default::default(),
            sts_guard_refused_shape: Default::default(),
            sts_guard_refused_unchecked: Default::default(),
            sts_guard_refused_by: Default::default(),
            sts_local_refused: Default::default(),
            sts_chain_k: Default::default(),
            sts_chain_h: Default::default(),
            aw_full: Default::default(),
            aw_addr: Default::default(),
            w_full: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            bvalid_q: Default::default(),
            rvalid_q: Default::default(),
            rdata_q: Default::default(),
            start_q: Default::default(),
            done_q: Default::default(),
            ready_q: Default::default(),
            idle_q: Default::default(),
            auto_restart_q: Default::default(),
            gie_q: Default::default(),
            ier_q: Default::default(),
            isr_q: Default::default(),
            ptr_lo: Default::default(),
            ptr_hi: Default::default(),
            id_q: Default::default(),
            n_q: Default::default(),
            wait_q: Default::default(),
            slots_q: Default::default(),
            qpns_q: Default::default(),
            do_write: Default::default(),
            ar_hs: Default::default(),
            wa: Default::default(),
            ra: Default::default(),
            wmask: Default::default(),
            wsh: Default::default(),
            rsh: Default::default(),
            wq: Default::default(),
            isr_n: Default::default(),
            rmux: Default::default(),
            gsh: Default::default(),
            csh: Default::default(),
            a_ctrl: a(regs::CTRL),
            a_gier: a(regs::GIER),
            a_ier: a(regs::IP_IER),
            a_isr: a(regs::IP_ISR),
            a_ptr_lo: a(regs::NETWORK_PTR_LO),
            a_ptr_hi: a(regs::NETWORK_PTR_HI),
            a_id: a(regs::ID),
            a_n: a(regs::NREPL),
            a_wait: a(regs::WAIT_POLLS),
            a_slots: a(regs::SLOTS),
            a_qpn: a(regs::QPN),
            a_qpn_end: a(regs::QPN + 4 * N as u64),
            a_cycles: a(regs::CYCLES),
            a_decisions: a(regs::DECISIONS),
            a_fast: a(regs::FAST),
            a_slow: a(regs::SLOW),
            a_view_changes: a(regs::VIEW_CHANGES),
            a_view: a(regs::VIEW),
            a_timeouts: a(regs::TIMEOUTS),
            a_polls: a(regs::POLLS),
            a_bad_shares: a(regs::BAD_SHARES),
            a_acks: a(regs::ACKS),
            a_write_errors: a(regs::WRITE_ERRORS),
            a_error: a(regs::ERROR_CODE),
            a_state: a(regs::STATE),
            a_guard_accepted: a(regs::GUARD_ACCEPTED),
            a_guard_write_errors: a(regs::GUARD_WRITE_ERRORS),
            a_guard_refused_unknown_qp: refused(0),
            a_guard_refused_length: refused(1),
            a_guard_refused_unaligned: refused(2),
            a_guard_refused_outside: refused(3),
            a_guard_refused_data: refused(4),
            a_guard_refused_not_owner: refused(5),
            a_guard_refused_not_leader: refused(6),
            a_guard_refused_shape: refused(7),
            a_guard_refused_unchecked: refused(8),
            a_guard_by: a(regs::GUARD_REFUSED_BY),
            a_guard_by_end: a(regs::GUARD_REFUSED_BY + 4 * N as u64),
            a_local_refused: a(regs::LOCAL_REFUSED),
            a_chain_k: a(regs::CHAIN_K),
            a_chain_h: a(regs::CHAIN_H),
            a_chain_h_end: a(regs::CHAIN_H + 4 * CHAIN_WORDS as u64),
            qpn_mask: Constant::new(((1u64 << QPN_BITS) - 1).into()),
        }
    }
}

impl<const N: usize> Default for Control<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Logic for Control<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            aw_full,
            aw_addr,
            w_full,
            w_data,
            w_strb,
            bvalid_q,
            rvalid_q,
            rdata_q,
            start_q,
            done_q,
            ready_q,
            idle_q,
            auto_restart_q,
            gie_q,
            ier_q,
            isr_q,
            ptr_lo,
            ptr_hi,
            id_q,
            n_q,
            wait_q,
            slots_q,
            qpns_q
        );
        // AXI outputs, all from registers.
        self.s_axi_control_awready.next = (!self.aw_full.q.val()) & self.rst_n.val();
        self.s_axi_control_wready.next = (!self.w_full.q.val()) & self.rst_n.val();
        self.s_axi_control_bvalid.next = self.bvalid_q.q.val();
        self.s_axi_control_bresp.next = 0.into();
        self.s_axi_control_arready.next = (!self.rvalid_q.q.val()) & self.rst_n.val();
        self.s_axi_control_rvalid.next = self.rvalid_q.q.val();
        self.s_axi_control_rdata.next = self.rdata_q.q.val();
        self.s_axi_control_rresp.next = 0.into();
        // AW and W into their holding registers, in either order.
        if self.s_axi_control_awvalid.val() & (!self.aw_full.q.val()) {
            self.aw_full.d.next = true;
            self.aw_addr.d.next = self.s_axi_control_awaddr.val();
        }
        if self.s_axi_control_wvalid.val() & (!self.w_full.q.val()) {
            self.w_full.d.next = true;
            self.w_data.d.next = self.s_axi_control_wdata.val();
            self.w_strb.d.next = self.s_axi_control_wstrb.val();
        }
        if self.bvalid_q.q.val() & self.s_axi_control_bready.val() {
            self.bvalid_q.d.next = false;
        }
        // The write: both held, no B pending.
        self.do_write.next = self.aw_full.q.val() & self.w_full.q.val() & (!self.bvalid_q.q.val());
        self.wa.next = self.aw_addr.q.val() & 0xffc;
        self.wmask.next = 0.into();
        if self.w_strb.q.val().get_bit(0) {
            self.wmask.next = self.wmask.val() | 0xff;
        }
        if self.w_strb.q.val().get_bit(1) {
            self.wmask.next = self.wmask.val() | 0xff00;
        }
        if self.w_strb.q.val().get_bit(2) {
            self.wmask.next = self.wmask.val() | 0xff_0000;
        }
        if self.w_strb.q.val().get_bit(3) {
            self.wmask.next = self.wmask.val() | 0xff00_0000_u64;
        }
        if self.do_write.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.bvalid_q.d.next = true;
        }
        // The read: AR taken when no R is pending; R carries the value now.
        self.ar_hs.next = self.s_axi_control_arvalid.val() & (!self.rvalid_q.q.val());
        self.ra.next = self.s_axi_control_araddr.val() & 0xffc;
        if self.rvalid_q.q.val() & self.s_axi_control_rready.val() {
            self.rvalid_q.d.next = false;
        }
        // CTRL.
        self.idle_q.d.next = self.ap_idle.val();
        if self.ap_ready.val() {
            self.start_q.d.next = self.auto_restart_q.q.val();
        }
        if self.do_write.val()
            & (self.wa.val() == self.a_ctrl.val())
            & self.w_strb.q.val().get_bit(0)
        {
            self.auto_restart_q.d.next = self.w_data.q.val().get_bit(7);
            if self.w_data.q.val().get_bit(0) {
                self.start_q.d.next = true;
            }
        }
        if self.ar_hs.val() & (self.ra.val() == self.a_ctrl.val()) {
            self.done_q.d.next = false;
            self.ready_q.d.next = false;
        }
        if self.ap_done.val() {
            self.done_q.d.next = true;
        }
        if self.ap_ready.val() {
            self.ready_q.d.next = true;
        }
        // Interrupts.
        if self.do_write.val()
            & (self.wa.val() == self.a_gier.val())
            & self.w_strb.q.val().get_bit(0)
        {
            self.gie_q.d.next = self.w_data.q.val().get_bit(0);
        }
        if self.do_write.val()
            & (self.wa.val() == self.a_ier.val())
            & self.w_strb.q.val().get_bit(0)
        {
            self.ier_q.d.next = self.w_data.q.val().get_bits::<2>(0);
        }
        self.isr_n.next = self.isr_q.q.val();
        if self.do_write.val()
            & (self.wa.val() == self.a_isr.val())
            & self.w_strb.q.val().get_bit(0)
        {
            self.isr_n.next = self.isr_n.val() ^ self.w_data.q.val().get_bits::<2>(0);
        }
        if self.ier_q.q.val().get_bit(0) & self.ap_done.val() {
            self.isr_n.next = self.isr_n.val() | 1;
        }
        if self.ier_q.q.val().get_bit(1) & self.ap_ready.val() {
            self.isr_n.next = self.isr_n.val() | 2;
        }
        self.isr_q.d.next = self.isr_n.val();
        self.interrupt.next = self.gie_q.q.val() & self.isr_q.q.val().any();
        // Arguments: the strobed bytes of the word.
        if self.do_write.val() & (self.wa.val() == self.a_ptr_lo.val()) {
            self.ptr_lo.d.next = (self.ptr_lo.q.val() & (!self.wmask.val()))
                | (self.w_data.q.val() & self.wmask.val());
        }
        if self.do_write.val() & (self.wa.val() == self.a_ptr_hi.val()) {
            self.ptr_hi.d.next = (self.ptr_hi.q.val() & (!self.wmask.val()))
                | (self.w_data.q.val() & self.wmask.val());
        }
        if self.do_write.val() & (self.wa.val() == self.a_id.val()) {
            self.id_q.d.next = bit_cast::<8, 32>(
                (bit_cast::<32, 8>(self.id_q.q.val()) & (!self.wmask.val()))
                    | (self.w_data.q.val() & self.wmask.val()),
            );
        }
        if self.do_write.val() & (self.wa.val() == self.a_n.val()) {
            self.n_q.d.next = bit_cast::<8, 32>(
                (bit_cast::<32, 8>(self.n_q.q.val()) & (!self.wmask.val()))
                    | (self.w_data.q.val() & self.wmask.val()),
            );
        }
        if self.do_write.val() & (self.wa.val() == self.a_wait.val()) {
            self.wait_q.d.next = bit_cast::<16, 32>(
                (bit_cast::<32, 16>(self.wait_q.q.val()) & (!self.wmask.val()))
                    | (self.w_data.q.val() & self.wmask.val()),
            );
        }
        if self.do_write.val() & (self.wa.val() == self.a_slots.val()) {
            self.slots_q.d.next = (self.slots_q.q.val() & (!self.wmask.val()))
                | (self.w_data.q.val() & self.wmask.val());
        }
        // qpn_i: 10 bits at 10 i of the packed field; shift = 10 i = 8 i + 2 i.
        self.wsh.next = (((self.wa.val() - self.a_qpn.val()) >> 2) << 3)
            + (((self.wa.val() - self.a_qpn.val()) >> 2) << 1);
        // (an index into qpns, below 10 N <= 80: seven bits)
        self.rsh.next = bit_cast::<7, 12>(
            (((self.ra.val() - self.a_qpn.val()) >> 2) << 3)
                + (((self.ra.val() - self.a_qpn.val()) >> 2) << 1),
        );
        self.wq.next = 0.into();
        if self.do_write.val()
            & (self.wa.val() >= self.a_qpn.val())
            & (self.wa.val() < self.a_qpn_end.val())
        {
            self.wq.next =
                ((bit_cast::<32, 10>(self.qpns_q.q.val().get_bits::<10>(self.wsh.val().index()))
                    & (!self.wmask.val()))
                    | (self.w_data.q.val() & self.wmask.val()))
                    & 0x3ff;
            self.qpns_q.d.next = (self.qpns_q.q.val() & (!(self.qpn_mask.val() << self.wsh.val())))
                | (bit_cast::<QPNS_BITS, 32>(self.wq.val()) << self.wsh.val());
        }
        // Read mux.
        self.rmux.next = 0.into();
        if self.ra.val() == self.a_ctrl.val() {
            if self.start_q.q.val() {
                self.rmux.next = self.rmux.val() | 1;
            }
            if self.done_q.q.val() {
                self.rmux.next = self.rmux.val() | 2;
            }
            if self.idle_q.q.val() {
                self.rmux.next = self.rmux.val() | 4;
            }
            if self.ready_q.q.val() {
                self.rmux.next = self.rmux.val() | 8;
            }
            if self.auto_restart_q.q.val() {
                self.rmux.next = self.rmux.val() | 0x80;
            }
        }
        if (self.ra.val() == self.a_gier.val()) & self.gie_q.q.val() {
            self.rmux.next = 1.into();
        }
        if self.ra.val() == self.a_ier.val() {
            self.rmux.next = bit_cast::<32, 2>(self.ier_q.q.val());
        }
        if self.ra.val() == self.a_isr.val() {
            self.rmux.next = bit_cast::<32, 2>(self.isr_q.q.val());
        }
        if self.ra.val() == self.a_ptr_lo.val() {
            self.rmux.next = self.ptr_lo.q.val();
        }
        if self.ra.val() == self.a_ptr_hi.val() {
            self.rmux.next = self.ptr_hi.q.val();
        }
        if self.ra.val() == self.a_id.val() {
            self.rmux.next = bit_cast::<32, 8>(self.id_q.q.val());
        }
        if self.ra.val() == self.a_n.val() {
            self.rmux.next = bit_cast::<32, 8>(self.n_q.q.val());
        }
        if self.ra.val() == self.a_wait.val() {
            self.rmux.next = bit_cast::<32, 16>(self.wait_q.q.val());
        }
        if self.ra.val() == self.a_slots.val() {
            self.rmux.next = self.slots_q.q.val();
        }
        if (self.ra.val() >= self.a_qpn.val()) & (self.ra.val() < self.a_qpn_end.val()) {
            self.rmux.next =
                bit_cast::<32, 10>(self.qpns_q.q.val().get_bits::<10>(self.rsh.val().index()));
        }
        if self.ra.val() == self.a_cycles.val() {
            self.rmux.next = self.sts_cycles.val();
        }
        if self.ra.val() == self.a_decisions.val() {
            self.rmux.next = self.sts_decisions.val();
        }
        if self.ra.val() == self.a_fast.val() {
            self.rmux.next = self.sts_fast.val();
        }
        if self.ra.val() == self.a_slow.val() {
            self.rmux.next = self.sts_slow.val();
        }
        if self.ra.val() == self.a_view_changes.val() {
            self.rmux.next = self.sts_view_changes.val();
        }
        if self.ra.val() == self.a_view.val() {
            self.rmux.next = self.sts_view.val();
        }
        if self.ra.val() == self.a_timeouts.val() {
            self.rmux.next = self.sts_timeouts.val();
        }
        if self.ra.val() == self.a_polls.val() {
            self.rmux.next = self.sts_polls.val();
        }
        if self.ra.val() == self.a_bad_shares.val() {
            self.rmux.next = self.sts_bad_shares.val();
        }
        if self.ra.val() == self.a_acks.val() {
            self.rmux.next = self.sts_acks.val();
        }
        if self.ra.val() == self.a_write_errors.val() {
            self.rmux.next = self.sts_write_errors.val();
        }
        if self.ra.val() == self.a_error.val() {
            self.rmux.next = bit_cast::<32, 8>(self.sts_error.val());
        }
        if self.ra.val() == self.a_state.val() {
            self.rmux.next = bit_cast::<32, 8>(self.sts_state.val());
        }
        if self.ra.val() == self.a_guard_accepted.val() {
            self.rmux.next = self.sts_guard_accepted.val();
        }
        if self.ra.val() == self.a_guard_write_errors.val() {
            self.rmux.next = self.sts_guard_write_errors.val();
        }
        if self.ra.val() == self.a_guard_refused_unknown_qp.val() {
            self.rmux.next = self.sts_guard_refused_unknown_qp.val();
        }
        if self.ra.val() == self.a_guard_refused_length.val() {
            self.rmux.next = self.sts_guard_refused_length.val();
        }
        if self.ra.val() == self.a_guard_refused_unaligned.val() {
            self.rmux.next = self.sts_guard_refused_unaligned.val();
        }
        if self.ra.val() == self.a_guard_refused_outside.val() {
            self.rmux.next = self.sts_guard_refused_outside.val();
        }
        if self.ra.val() == self.a_guard_refused_data.val() {
            self.rmux.next = self.sts_guard_refused_data.val();
        }
        if self.ra.val() == self.a_guard_refused_not_owner.val() {
            self.rmux.next = self.sts_guard_refused_not_owner.val();
        }
        if self.ra.val() == self.a_guard_refused_not_leader.val() {
            self.rmux.next = self.sts_guard_refused_not_leader.val();
        }
        if self.ra.val() == self.a_guard_refused_shape.val() {
            self.rmux.next = self.sts_guard_refused_shape.val();
        }
        if self.ra.val() == self.a_guard_refused_unchecked.val() {
            self.rmux.next = self.sts_guard_refused_unchecked.val();
        }
        // guard_refused_by_i: 32 bits at 32 i of the packed field (i < N <= 8,
        // so 32 i <= 224: eight bits).
        self.gsh.next = bit_cast::<8, 12>(((self.ra.val() - self.a_guard_by.val()) >> 2) << 5);
        if (self.ra.val() >= self.a_guard_by.val()) & (self.ra.val() < self.a_guard_by_end.val()) {
            self.rmux.next = self
                .sts_guard_refused_by
                .val()
                .get_bits::<32>(self.gsh.val().index());
        }
        if self.ra.val() == self.a_local_refused.val() {
            self.rmux.next = self.sts_local_refused.val();
        }
        if self.ra.val() == self.a_chain_k.val() {
            self.rmux.next = self.sts_chain_k.val();
        }
        // chain_h_i: 32 bits at 32 i of the packed field (i < 8: eight bits).
        self.csh.next = bit_cast::<8, 12>(((self.ra.val() - self.a_chain_h.val()) >> 2) << 5);
        if (self.ra.val() >= self.a_chain_h.val()) & (self.ra.val() < self.a_chain_h_end.val()) {
            self.rmux.next = self
                .sts_chain_h
                .val()
                .get_bits::<32>(self.csh.val().index());
        }
        if self.ar_hs.val() {
            self.rvalid_q.d.next = true;
            self.rdata_q.d.next = self.rmux.val();
        }
        // To the kernel.
        self.ap_start.next = self.start_q.q.val();
        self.network_ptr.next = (bit_cast::<64, 32>(self.ptr_hi.q.val()) << 32)
            | bit_cast::<64, 32>(self.ptr_lo.q.val());
        self.id.next = self.id_q.q.val();
        self.n.next = self.n_q.q.val();
        self.wait_polls.next = self.wait_q.q.val();
        self.slots.next = self.slots_q.q.val();
        self.qpns.next = self.qpns_q.q.val();
        // Reset.
        if !self.rst_n.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.bvalid_q.d.next = false;
            self.rvalid_q.d.next = false;
            self.start_q.d.next = false;
            self.done_q.d.next = false;
            self.ready_q.d.next = false;
            self.auto_restart_q.d.next = false;
            self.gie_q.d.next = false;
            self.ier_q.d.next = 0.into();
            self.isr_q.d.next = 0.into();
        }
    }
}

/// Verilog of a Control block alone (top module `top`), for tests and lint.
pub fn verilog<const N: usize>() -> String {
    let mut c = Control::<N>::new();
    c.connect_all_inputs();
    generate_verilog(&c)
}

impl<const N: usize> Control<N> {
    /// Marks every input as driven from outside (a top level or a test).
    pub fn connect_all_inputs(&mut self) {
        self.clock.connect();
        self.rst_n.connect();
        self.s_axi_control_awaddr.connect();
        self.s_axi_control_awvalid.connect();
        self.s_axi_control_wdata.connect();
        self.s_axi_control_wstrb.connect();
        self.s_axi_control_wvalid.connect();
        self.s_axi_control_bready.connect();
        self.s_axi_control_araddr.connect();
        self.s_axi_control_arvalid.connect();
        self.s_axi_control_rready.connect();
        self.ap_done.connect();
        self.ap_idle.connect();
        self.ap_ready.connect();
        self.sts_cycles.connect();
        self.sts_decisions.connect();
        self.sts_fast.connect();
        self.sts_slow.connect();
        self.sts_view_changes.connect();
        self.sts_view.connect();
        self.sts_timeouts.connect();
        self.sts_polls.connect();
        self.sts_bad_shares.connect();
        self.sts_acks.connect();
        self.sts_write_errors.connect();
        self.sts_error.connect();
        self.sts_state.connect();
        self.sts_guard_accepted.connect();
        self.sts_guard_write_errors.connect();
        self.sts_guard_refused_unknown_qp.connect();
        self.sts_guard_refused_length.connect();
        self.sts_guard_refused_unaligned.connect();
        self.sts_guard_refused_outside.connect();
        self.sts_guard_refused_data.connect();
        self.sts_guard_refused_not_owner.connect();
        self.sts_guard_refused_not_leader.connect();
        self.sts_guard_refused_shape.connect();
        self.sts_guard_refused_unchecked.connect();
        self.sts_guard_refused_by.connect();
        self.sts_local_refused.connect();
        self.sts_chain_k.connect();
        self.sts_chain_h.connect();
        self.connect_all();
    }
}
