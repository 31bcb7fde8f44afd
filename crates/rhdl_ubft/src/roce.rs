//! RoCE: the RDMA WRITE command and completion formats the kernel speaks.
//!
//! The stack is fpga-network-stack's RoCE v2 core (the "Balboa" stack), whose
//! `hdl/common/roce_stack.sv` (VITIS_HLS branch) takes send-queue commands on
//! `s_rdma_sq` and returns completions on `m_rdma_ack` (fpga-network-stack
//! @75c32ba: the TDATA packing in `roce_stack.sv`, the fields in
//! `hls/ib_transport_protocol/ib_transport_protocol.cpp`'s `txMeta` and
//! `ackMeta`; `docs/roce.md` has the tables). The kernel's
//! `m_axis_sq_*` and `s_axis_cq_*` ports carry exactly these words, so the
//! stack's ports connect with a `stream_connect`. The payload is pulled: the
//! stack reads `laddr` from the sender's own HBM when it sends the WRITE, so
//! a record is written locally before its commands go out.
//!
//! Send-queue word (`SQ_BITS`, TDATA padded to whole bytes):
//!
//! | bits | field |
//! | --- | --- |
//! | [4:0] | opcode (`RC_RDMA_WRITE_ONLY` = 0x0A) |
//! | [41:32] | qpn |
//! | [42] | host (0: card memory) |
//! | [43] | last (1: a completion is returned) |
//! | [47:44] | offs |
//! | [111:48] | local vaddr |
//! | [175:112] | remote vaddr |
//! | [207:176] | length in bytes |
//! | [239:208] | params |
//!
//! Completion word (`CQ_BITS`): [23:0] ssn, [27:24] vfid, [33:28] pid,
//! [34] cmplt, [35] rd.

/// TDATA bits of a send-queue command.
pub const SQ_BITS: usize = 256;
/// TDATA bits of a completion.
pub const CQ_BITS: usize = 40;
/// The opcode of a single-packet RDMA WRITE.
pub const RC_RDMA_WRITE_ONLY: u64 = 0x0A;

pub const SQ_OPCODE: usize = 0;
pub const SQ_QPN: usize = 32;
pub const SQ_HOST: usize = 42;
pub const SQ_LAST: usize = 43;
pub const SQ_OFFS: usize = 44;
pub const SQ_LADDR: usize = 48;
pub const SQ_RADDR: usize = 112;
pub const SQ_LENGTH: usize = 176;
pub const SQ_PARAMS: usize = 208;

pub const CQ_SSN: usize = 0;
pub const CQ_VFID: usize = 24;
pub const CQ_PID: usize = 28;
pub const CQ_CMPLT: usize = 34;
pub const CQ_RD: usize = 35;

/// Bits of a queue-pair number.
pub const QPN_BITS: usize = 10;

/// An RDMA WRITE command, unpacked.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct SqCommand {
    pub opcode: u64,
    pub qpn: u64,
    pub host: bool,
    pub last: bool,
    pub offs: u64,
    pub laddr: u64,
    pub raddr: u64,
    pub length: u64,
    pub params: u64,
}

fn field(words: &[u64; 4], at: usize, bits: usize) -> u64 {
    let mut v: u128 = 0;
    for i in 0..bits {
        let b = at + i;
        if (words[b / 64] >> (b % 64)) & 1 == 1 {
            v |= 1 << i;
        }
    }
    v as u64
}

fn put(words: &mut [u64; 4], at: usize, bits: usize, value: u64) {
    for i in 0..bits {
        let b = at + i;
        let bit = (value >> i) & 1;
        words[b / 64] = (words[b / 64] & !(1 << (b % 64))) | (bit << (b % 64));
    }
}

impl SqCommand {
    /// Unpack TDATA given as four little-endian 64-bit words.
    pub fn unpack(words: &[u64; 4]) -> SqCommand {
        SqCommand {
            opcode: field(words, SQ_OPCODE, 5),
            qpn: field(words, SQ_QPN, QPN_BITS),
            host: field(words, SQ_HOST, 1) == 1,
            last: field(words, SQ_LAST, 1) == 1,
            offs: field(words, SQ_OFFS, 4),
            laddr: field(words, SQ_LADDR, 64),
            raddr: field(words, SQ_RADDR, 64),
            length: field(words, SQ_LENGTH, 32),
            params: field(words, SQ_PARAMS, 32),
        }
    }

    /// Pack into TDATA as four little-endian 64-bit words.
    pub fn pack(&self) -> [u64; 4] {
        let mut w = [0u64; 4];
        put(&mut w, SQ_OPCODE, 5, self.opcode);
        put(&mut w, SQ_QPN, QPN_BITS, self.qpn);
        put(&mut w, SQ_HOST, 1, self.host as u64);
        put(&mut w, SQ_LAST, 1, self.last as u64);
        put(&mut w, SQ_OFFS, 4, self.offs);
        put(&mut w, SQ_LADDR, 64, self.laddr);
        put(&mut w, SQ_RADDR, 64, self.raddr);
        put(&mut w, SQ_LENGTH, 32, self.length);
        put(&mut w, SQ_PARAMS, 32, self.params);
        w
    }
}

/// A completion, unpacked.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct CqCompletion {
    pub ssn: u64,
    pub vfid: u64,
    pub pid: u64,
    pub cmplt: bool,
    pub rd: bool,
}

impl CqCompletion {
    pub fn pack(&self) -> u64 {
        (self.ssn & 0xff_ffff)
            | ((self.vfid & 0xf) << CQ_VFID)
            | ((self.pid & 0x3f) << CQ_PID)
            | ((self.cmplt as u64) << CQ_CMPLT)
            | ((self.rd as u64) << CQ_RD)
    }

    pub fn unpack(v: u64) -> CqCompletion {
        CqCompletion {
            ssn: v & 0xff_ffff,
            vfid: (v >> CQ_VFID) & 0xf,
            pid: (v >> CQ_PID) & 0x3f,
            cmplt: (v >> CQ_CMPLT) & 1 == 1,
            rd: (v >> CQ_RD) & 1 == 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn sq_round_trips() {
        let c = SqCommand {
            opcode: RC_RDMA_WRITE_ONLY,
            qpn: 0x3ff,
            host: false,
            last: true,
            offs: 3,
            laddr: 0x1234_5678_9abc,
            raddr: 0xdead_beef_0040,
            length: 8,
            params: 0,
        };
        assert_eq!(SqCommand::unpack(&c.pack()), c);
        assert_eq!(c.pack()[0] & 0x1f, 0x0A);
        let a = CqCompletion {
            ssn: 77,
            vfid: 1,
            pid: 2,
            cmplt: true,
            rd: false,
        };
        assert_eq!(CqCompletion::unpack(a.pack()), a);
    }
}
