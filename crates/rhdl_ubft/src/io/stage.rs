//! Stage: the payload of a one-beat broadcast, held where the RoCE stack
//! reads it.
//!
//! fpga-network-stack pulls an RDMA WRITE's payload when it sends the
//! WRITE: for each send-queue command it issues a memory-read command
//! (`memCmd`: the command's `laddr`, its length, its `host` bit and queue
//! pair) and takes the payload's beats back on its read-data stream, in
//! command order. The network kernel sends the reads of commands with
//! `host` = 1 here (`s_axis_tx_cmd`, `m_axis_tx_data`) and the others to
//! HBM (docs/roce.md, "Staged payloads"). Broadcast sends a one-beat
//! record that way (`cmd_staged`), so its commands need not wait for its
//! local write: the stack reads the record from this block's register
//! while HBM writes it.
//!
//! Ports:
//! - `put` (one cycle), `put_addr` (the record's byte address, its
//!   commands' `laddr`), `put_len` (bytes, 4 to 64), `put_data` (the
//!   payload: the record's words from lane 0, as the stack would read them
//!   from `put_addr`): Broadcast stages a record. Taken only while `busy` is
//!   low; Broadcast waits for that.
//! - `sent`: one cycle per staged command the stack takes (Broadcast's
//!   `stage_sent`, the cycle after the command's handshake): the stack owes
//!   one read of the record more. The read comes at the earliest in the
//!   same cycle (the stack asks the cycle after it takes the command), and
//!   a read served and a `sent` in one cycle leave `owed` as it was.
//! - `busy`: the stack owes reads of the record staged (`owed` ≠ 0), or
//!   a beat of it is presented and not yet taken.
//! - `s_cmd_tdata/tvalid/tready`: the stack's memory-read commands
//!   (AXI-Stream, `memCmd`, the receive side's format: `roce.rs`
//!   `WrCommand`). `tready` is high while no beat is presented, and in the
//!   cycle the last beat presented is taken.
//! - `m_data_tdata/tkeep/tlast/tvalid/tready`: the payload of each command,
//!   in command order (AXI-Stream), valid the cycle after the command is
//!   taken and held until `tready`. A command whose address and length are
//!   the staged record's gets the record, one beat, `tkeep` on its bytes;
//!   any other gets ⌈length / 64⌉ beats of zeros (a stack fault: what a
//!   peer's guard then takes is no vote and no lock).
//!
//! Timing: a read taken at cycle c is answered at c + 1; with `tready` high
//! one read a cycle.
//!
//! Reset (`rst_n`, synchronous, active low): `owed` goes to 0, so Broadcast
//! may stage again at once; the record and a beat presented are kept, since
//! the stack is not reset: a read of the record after the reset still gets
//! it, until the next `put` replaces it.

use crate::io::roce::{WR_CMD_BITS, WR_LEN, WR_VADDR};
use crate::params::BEAT_BITS;
use rust_hdl::prelude::*;

// The fields `update` reads as literals: vaddr at 0 (48 bits), len at 48.
const _: () = assert!(WR_VADDR == 0 && WR_LEN == 48);

#[derive(LogicBlock)]
pub struct Stage {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub put: Signal<In, Bit>,
    pub put_addr: Signal<In, Bits<48>>,
    pub put_len: Signal<In, Bits<8>>,
    pub put_data: Signal<In, Bits<BEAT_BITS>>,
    pub sent: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    pub s_cmd_tdata: Signal<In, Bits<WR_CMD_BITS>>,
    pub s_cmd_tvalid: Signal<In, Bit>,
    pub s_cmd_tready: Signal<Out, Bit>,
    pub m_data_tdata: Signal<Out, Bits<BEAT_BITS>>,
    pub m_data_tkeep: Signal<Out, Bits<64>>,
    pub m_data_tlast: Signal<Out, Bit>,
    pub m_data_tvalid: Signal<Out, Bit>,
    pub m_data_tready: Signal<In, Bit>,
    // The record staged.
    addr_q: DFF<Bits<48>>,
    len_q: DFF<Bits<16>>,
    data_q: DFF<Bits<BEAT_BITS>>,
    owed: DFF<Bits<8>>,
    // The beat presented, and the beats of its command after it.
    out_valid: DFF<Bit>,
    out_hit: DFF<Bit>,
    out_keep: DFF<Bits<64>>,
    out_left: DFF<Bits<16>>,
    out_tail: DFF<Bits<64>>,
    c_addr: Signal<Local, Bits<48>>,
    c_len: Signal<Local, Bits<28>>,
    hit: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    served: Signal<Local, Bit>,
    last_out: Signal<Local, Bit>,
    beats_m1: Signal<Local, Bits<16>>,
    tail: Signal<Local, Bits<64>>,
    tail_m1: Signal<Local, Bits<6>>,
    ones: Constant<Bits<64>>,
}

impl Default for Stage {
    fn default() -> Self {
        Stage {
            clock: Default::default(),
            rst_n: Default::default(),
            put: Default::default(),
            put_addr: Default::default(),
            put_len: Default::default(),
            put_data: Default::default(),
            sent: Default::default(),
            busy: Default::default(),
            s_cmd_tdata: Default::default(),
            s_cmd_tvalid: Default::default(),
            s_cmd_tready: Default::default(),
            m_data_tdata: Default::default(),
            m_data_tkeep: Default::default(),
            m_data_tlast: Default::default(),
            m_data_tvalid: Default::default(),
            m_data_tready: Default::default(),
            addr_q: Default::default(),
            len_q: Default::default(),
            data_q: Default::default(),
            owed: Default::default(),
            out_valid: Default::default(),
            out_hit: Default::default(),
            out_keep: Default::default(),
            out_left: Default::default(),
            out_tail: Default::default(),
            c_addr: Default::default(),
            c_len: Default::default(),
            hit: Default::default(),
            take: Default::default(),
            served: Default::default(),
            last_out: Default::default(),
            beats_m1: Default::default(),
            tail: Default::default(),
            tail_m1: Default::default(),
            ones: Constant::new(u64::MAX.into()),
        }
    }
}

impl Logic for Stage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, addr_q, len_q, data_q, owed, out_valid, out_hit, out_keep, out_left,
            out_tail
        );
        // Busy while a read is owed or the record's beat is presented: the
        // record stays put until the stack has taken every copy of it.
        self.busy.next = (self.owed.q.val() != 0) | (self.out_valid.q.val() & self.out_hit.q.val());
        // The command presented, against the record staged.
        self.c_addr.next = self.s_cmd_tdata.val().get_bits::<48>(0);
        self.c_len.next = self.s_cmd_tdata.val().get_bits::<28>(48);
        // (A record is held once `len_q` is not 0: every record has bytes.)
        self.hit.next = (self.len_q.q.val() != 0)
            & (self.c_addr.val() == self.addr_q.q.val())
            & (self.c_len.val() == bit_cast::<28, 16>(self.len_q.q.val()));
        // The beat presented is the last of its command.
        self.last_out.next = self.out_left.q.val() == 0;
        self.s_cmd_tready.next =
            !self.out_valid.q.val() | (self.m_data_tready.val() & self.last_out.val());
        self.take.next = self.s_cmd_tvalid.val() & self.s_cmd_tready.val();
        self.served.next = false;
        if self.out_valid.q.val() & self.m_data_tready.val() {
            if self.last_out.val() {
                self.out_valid.d.next = false;
            } else {
                self.out_left.d.next = self.out_left.q.val() - 1;
                // A later beat of a miss: whole, but the last.
                self.out_keep.d.next = self.ones.val();
                if self.out_left.q.val() == 1 {
                    self.out_keep.d.next = self.out_tail.q.val();
                }
            }
        }
        // ⌈length / 64⌉ - 1, and the last beat's bytes (0 for a length of
        // 0, which no command has).
        // (A six-bit signal, so that Verilog wraps 0 - 1 as Rust does.)
        self.tail_m1.next = self.c_len.val().get_bits::<6>(0) - 1;
        self.beats_m1.next = 0.into();
        self.tail.next = 0.into();
        if self.c_len.val() != 0 {
            self.beats_m1.next = bit_cast::<16, 28>((self.c_len.val() - 1) >> 6);
            self.tail.next = self.ones.val() >> (63 - bit_cast::<64, 6>(self.tail_m1.val()));
        }
        if self.take.val() {
            self.out_valid.d.next = true;
            self.out_hit.d.next = self.hit.val();
            self.served.next = self.hit.val();
            if self.hit.val() {
                self.out_left.d.next = 0.into();
                self.out_keep.d.next =
                    self.ones.val() >> (64 - bit_cast::<64, 16>(self.len_q.q.val()));
            } else {
                self.out_left.d.next = self.beats_m1.val();
                self.out_tail.d.next = self.tail.val();
                if self.beats_m1.val() == 0 {
                    self.out_keep.d.next = self.tail.val();
                } else {
                    self.out_keep.d.next = self.ones.val();
                }
            }
        }
        // Reads owed: one more per command sent, one fewer per read served.
        if self.sent.val() & !self.served.val() {
            self.owed.d.next = self.owed.q.val() + 1;
        } else if !self.sent.val() & self.served.val() & (self.owed.q.val() != 0) {
            self.owed.d.next = self.owed.q.val() - 1;
        }
        if self.put.val() & !self.busy.val() {
            self.addr_q.d.next = self.put_addr.val();
            self.len_q.d.next = bit_cast::<16, 8>(self.put_len.val());
            self.data_q.d.next = self.put_data.val();
        }
        if !self.rst_n.val() {
            self.owed.d.next = 0.into();
        }
        self.m_data_tvalid.next = self.out_valid.q.val();
        self.m_data_tlast.next = self.last_out.val();
        self.m_data_tkeep.next = self.out_keep.q.val();
        self.m_data_tdata.next = 0.into();
        if self.out_hit.q.val() {
            self.m_data_tdata.next = self.data_q.q.val();
        }
    }
}
