//! RoceAdapter: the kernel's RDMA WRITE and READ commands in a RoCE stack's
//! format.
//!
//! Broadcast speaks stack-neutral commands (queue pair, address, length, on
//! a valid/ready handshake) and takes completion pulses; this block, alone,
//! knows the stack. It packs each command into the send-queue word of
//! fpga-network-stack's RoCE v2 core (`roce.rs`: opcode RC_RDMA_WRITE_ONLY,
//! qpn, last = 1 so that every WRITE is acknowledged, local and remote
//! address, length; `host` = 1 when the payload is staged, `cmd_staged`)
//! on `sq` (AXI-Stream), and turns each completion word on
//! `cq` with `cmplt` set into an `ack` pulse. Another stack (Coyote's
//! `sq_wr`/`cq_wr`, ERNIC) needs another adapter only.
//!
//! A second command port, `rd_*`, takes the remote read's RDMA READs (the
//! peer's beat at `rd_raddr` into this card's memory at `rd_laddr`, one
//! beat; recovery.md D11.17): opcode RC_RDMA_READ_REQUEST, last = 0, so no
//! completion comes for it. Broadcast's commands go first; a READ is sent
//! when Broadcast has none, and once presented it stays on `sq` until taken
//! (AXI-Stream keeps TDATA while TVALID waits for TREADY).
//!
//! Timing: combinational both ways: `sq_tvalid` is the chosen port's valid,
//! its ready is `sq_tready`, and TDATA is stable while the command is (its
//! sender holds it); `cq_tready` is always high and `ack` comes in the
//! cycle of the completion's handshake.
//!
//! Reset: none needed (`rd_on` follows `rd_valid`, which the requester
//! drops at its reset).

use crate::io::roce::{
    CQ_BITS, CQ_CMPLT, QPN_BITS, RC_RDMA_READ_REQUEST, RC_RDMA_WRITE_ONLY, SQ_BITS, SQ_HOST,
    SQ_LADDR, SQ_LAST, SQ_LENGTH, SQ_PARAMS, SQ_QPN, SQ_RADDR,
};
use crate::params::{BEAT_BYTES, CMD_LEN_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RoceAdapter {
    pub clock: Signal<In, Clock>,
    // Stack-neutral side (Broadcast).
    pub cmd_qpn: Signal<In, Bits<QPN_BITS>>,
    pub cmd_addr: Signal<In, Bits<64>>,
    pub cmd_len: Signal<In, Bits<CMD_LEN_BITS>>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_ready: Signal<Out, Bit>,
    /// With `cmd_valid`: the payload is staged (Stage, docs/stage.md): the
    /// command's `host` bit is 1, and the network kernel sends the stack's
    /// read of it to the kernel's `s_axis_tx_cmd` instead of HBM.
    pub cmd_staged: Signal<In, Bit>,
    pub ack: Signal<Out, Bit>,
    // The remote read's READs (one beat each).
    pub rd_qpn: Signal<In, Bits<QPN_BITS>>,
    pub rd_laddr: Signal<In, Bits<64>>,
    pub rd_raddr: Signal<In, Bits<64>>,
    pub rd_valid: Signal<In, Bit>,
    pub rd_ready: Signal<Out, Bit>,
    // The stack's send queue and completions.
    pub sq_tdata: Signal<Out, Bits<SQ_BITS>>,
    pub sq_tvalid: Signal<Out, Bit>,
    pub sq_tready: Signal<In, Bit>,
    pub cq_tdata: Signal<In, Bits<CQ_BITS>>,
    pub cq_tvalid: Signal<In, Bit>,
    pub cq_tready: Signal<Out, Bit>,
    opcode: Constant<Bits<SQ_BITS>>,
    rd_opcode: Constant<Bits<SQ_BITS>>,
    rd_length: Constant<Bits<SQ_BITS>>,
    last: Constant<Bits<SQ_BITS>>,
    host: Constant<Bits<SQ_BITS>>,
    /// A READ is on `sq`, not yet taken.
    rd_on: DFF<Bit>,
    sel_rd: Signal<Local, Bit>,
    host_bit: Signal<Local, Bits<SQ_BITS>>,
    qpn_at: Constant<Bits<8>>,
    laddr_at: Constant<Bits<8>>,
    raddr_at: Constant<Bits<8>>,
    length_at: Constant<Bits<8>>,
    cmplt_mask: Constant<Bits<CQ_BITS>>,
}

impl Default for RoceAdapter {
    fn default() -> Self {
        // The widths `update` writes as literals (hdl_gen takes no constants
        // in `bit_cast`), against the format's constants: the fields must
        // fit the word and not overlap.
        assert_eq!(
            QPN_BITS, 10,
            "roce_adapter.rs: bit_cast::<_, 10> of cmd_qpn"
        );
        assert!(SQ_QPN + QPN_BITS <= SQ_BITS.min(SQ_LADDR).min(SQ_HOST));
        assert!(SQ_LADDR + 64 <= SQ_RADDR && SQ_RADDR + 64 <= SQ_LENGTH);
        // cmd_len (bit_cast::<_, 16>) is 16 bits, in a 32-bit length field.
        assert_eq!(
            CMD_LEN_BITS, 16,
            "roce_adapter.rs: bit_cast::<_, 16> of cmd_len"
        );
        assert!(SQ_LENGTH + CMD_LEN_BITS <= SQ_BITS && SQ_LENGTH + 32 <= SQ_PARAMS);
        assert!(CQ_CMPLT < 64 && CQ_CMPLT < CQ_BITS);
        let mut last = Bits::<SQ_BITS>::default();
        last.set_bits::<1>(SQ_LAST, 1u64.into());
        let mut host = Bits::<SQ_BITS>::default();
        host.set_bits::<1>(SQ_HOST, 1u64.into());
        let mut rd_length = Bits::<SQ_BITS>::default();
        rd_length.set_bits::<32>(SQ_LENGTH, BEAT_BYTES.into());
        RoceAdapter {
            clock: Default::default(),
            rd_qpn: Default::default(),
            rd_laddr: Default::default(),
            rd_raddr: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            rd_opcode: Constant::new(RC_RDMA_READ_REQUEST.into()),
            rd_length: Constant::new(rd_length),
            rd_on: Default::default(),
            sel_rd: Default::default(),
            host_bit: Default::default(),
            cmd_qpn: Default::default(),
            cmd_addr: Default::default(),
            cmd_len: Default::default(),
            cmd_valid: Default::default(),
            cmd_ready: Default::default(),
            cmd_staged: Default::default(),
            ack: Default::default(),
            sq_tdata: Default::default(),
            sq_tvalid: Default::default(),
            sq_tready: Default::default(),
            cq_tdata: Default::default(),
            cq_tvalid: Default::default(),
            cq_tready: Default::default(),
            opcode: Constant::new(RC_RDMA_WRITE_ONLY.into()),
            last: Constant::new(last),
            host: Constant::new(host),
            qpn_at: Constant::new((SQ_QPN as u64).into()),
            laddr_at: Constant::new((SQ_LADDR as u64).into()),
            raddr_at: Constant::new((SQ_RADDR as u64).into()),
            length_at: Constant::new((SQ_LENGTH as u64).into()),
            cmplt_mask: Constant::new((1u64 << CQ_CMPLT).into()),
        }
    }
}

impl Logic for RoceAdapter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_on);
        // A READ presented stays until taken; else Broadcast's command
        // first.
        self.host_bit.next = 0.into();
        if self.cmd_staged.val() {
            self.host_bit.next = self.host.val();
        }
        self.sel_rd.next = self.rd_on.q.val() | (!self.cmd_valid.val() & self.rd_valid.val());
        self.rd_on.d.next = self.sel_rd.val() & self.rd_valid.val() & !self.sq_tready.val();
        if self.sel_rd.val() {
            self.sq_tvalid.next = self.rd_valid.val();
            self.cmd_ready.next = false;
            self.rd_ready.next = self.sq_tready.val();
            self.sq_tdata.next = self.rd_opcode.val()
                | (bit_cast::<SQ_BITS, 10>(self.rd_qpn.val()) << self.qpn_at.val())
                | (bit_cast::<SQ_BITS, 64>(self.rd_laddr.val()) << self.laddr_at.val())
                | (bit_cast::<SQ_BITS, 64>(self.rd_raddr.val()) << self.raddr_at.val())
                | self.rd_length.val();
        } else {
            self.sq_tvalid.next = self.cmd_valid.val();
            self.cmd_ready.next = self.sq_tready.val();
            self.rd_ready.next = false;
            self.sq_tdata.next = self.opcode.val()
                | (bit_cast::<SQ_BITS, 10>(self.cmd_qpn.val()) << self.qpn_at.val())
                | self.last.val()
                | (bit_cast::<SQ_BITS, 64>(self.cmd_addr.val()) << self.laddr_at.val())
                | (bit_cast::<SQ_BITS, 64>(self.cmd_addr.val()) << self.raddr_at.val())
                | (bit_cast::<SQ_BITS, 16>(self.cmd_len.val()) << self.length_at.val())
                | self.host_bit.val();
        }
        self.cq_tready.next = true;
        self.ack.next = self.cq_tvalid.val() & ((self.cq_tdata.val() & self.cmplt_mask.val()) != 0);
    }
}
