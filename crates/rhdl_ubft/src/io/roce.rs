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
//!
//! The receive side: for every incoming RDMA WRITE packet the stack's HLS
//! core (`hls/ib_transport_protocol/ib_transport_protocol.cpp`, `rx_exh_fsm`)
//! emits one memory-write command `memCmd` on `m_axis_mem_write_cmd`
//! (`roce_stack.sv`: `m_rdma_wr_req`) and the packet's payload on the 512-bit
//! `m_axis_mem_write_data` (`m_axis_rdma_wr`; TDATA, TKEEP, TLAST), payload
//! byte 0 in lane 0 of the first beat (the RETH is shifted out), the last
//! beat with TLAST. The kernel's guard (`guard.rs`) takes both streams.
//!
//! Memory-write command (`WR_CMD_BITS` = 96, TDATA; `hls/ib_transport_protocol/
//! ib_transport_protocol.hpp` struct `memCmd`, unpacked the same way by
//! `roce_stack.sv`):
//!
//! | bits | field |
//! | --- | --- |
//! | [47:0] | vaddr: the RETH's virtual address (bits 47:0) |
//! | [75:48] | len: payload bytes of this packet |
//! | [76] | ctl: last packet of the message (`PKG_F`) |
//! | [77] | strm: vaddr bit 52 |
//! | [78] | sync |
//! | [79] | host: 1 (`PKG_HOST`) for RDMA WRITE payload, 0 for SEND |
//! | [83:80] | dest: vaddr bits 51:48 |
//! | [89:84] | pid: qpn bits 5:0 |
//! | [93:90] | vfid: qpn bits 9:6 |
//!
//! So the local queue pair the packet arrived on (the BTH's destination QP)
//! is bits [93:84], `WR_QPN`.

pub mod adapter;

/// TDATA bits of a send-queue command.
pub const SQ_BITS: usize = 256;
/// TDATA bits of a completion.
pub const CQ_BITS: usize = 40;
/// The opcode of a single-packet RDMA WRITE.
pub const RC_RDMA_WRITE_ONLY: u64 = 0x0A;
/// The opcode of an RDMA READ request (the remote read, recovery.md
/// section 11): the peer's stack answers with its memory at `raddr`, which
/// this stack writes at `laddr`.
pub const RC_RDMA_READ_REQUEST: u64 = 0x0C;

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
/// Bits of the packed `qpns` (Control's output, the guard's and
/// Broadcast's input): `qpn_i` is bits `[QPN_BITS·i + QPN_BITS-1 : QPN_BITS·i]`.
pub const QPNS_BITS: usize = crate::params::N * QPN_BITS;

/// TDATA bits of a memory-write command (95 used, padded to whole bytes).
pub const WR_CMD_BITS: usize = 96;
/// TDATA bits of a memory-write data beat.
pub const WR_DATA_BITS: usize = 512;
/// Bits of `vaddr` and `len` in a memory-write command.
pub const WR_VADDR_BITS: usize = 48;
pub const WR_LEN_BITS: usize = 28;

pub const WR_VADDR: usize = 0;
pub const WR_LEN: usize = 48;
pub const WR_CTL: usize = 76;
pub const WR_STRM: usize = 77;
pub const WR_SYNC: usize = 78;
pub const WR_HOST: usize = 79;
pub const WR_DEST: usize = 80;
pub const WR_PID: usize = 84;
pub const WR_VFID: usize = 90;
/// The queue pair, `{vfid, pid}`: `QPN_BITS` bits from here.
pub const WR_QPN: usize = WR_PID;
/// The stack's mark on a READ response's payload (a change to the stack,
/// docs/roce.md, "Read responses"): 1 for the response to an RDMA READ this
/// card sent, 0 for an incoming WRITE. The guard takes a marked write only
/// into `remote_rows`, and an unmarked one never there.
pub const WR_RD: usize = 94;
const _: () = assert!(WR_VFID == WR_PID + 6 && WR_QPN + QPN_BITS <= WR_RD && WR_RD < WR_CMD_BITS);

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

/// A memory-write command of the receive path, unpacked.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct WrCommand {
    /// Bits 47:0 of the RETH's virtual address.
    pub vaddr: u64,
    /// Payload bytes of this packet.
    pub len: u64,
    pub ctl: bool,
    /// vaddr bit 52.
    pub strm: bool,
    pub sync: bool,
    /// 1 for an RDMA WRITE's payload (`PKG_HOST`), 0 for a SEND's.
    pub host: bool,
    /// vaddr bits 51:48.
    pub dest: u64,
    /// The local queue pair the packet arrived on (`{vfid, pid}`).
    pub qpn: u64,
    /// A READ response's payload (`WR_RD`), not an incoming WRITE's.
    pub rd: bool,
}

impl WrCommand {
    /// The command the stack emits for an RDMA WRITE_ONLY of `len` bytes at
    /// `vaddr` arriving on queue pair `qpn`.
    pub fn write(qpn: u64, vaddr: u64, len: u64) -> WrCommand {
        WrCommand {
            vaddr: vaddr & ((1 << WR_VADDR_BITS) - 1),
            len,
            ctl: true,
            strm: (vaddr >> 52) & 1 == 1,
            sync: false,
            host: true,
            dest: (vaddr >> 48) & 0xf,
            qpn,
            rd: false,
        }
    }

    /// The stack's memory-read command for the payload of a WRITE it sends
    /// (`mem_cmd_merger`: the send-queue command's `laddr`, its length, its
    /// `host` bit and queue pair, in the same `memCmd` format), as for a
    /// staged command: `host` = 1, so it goes to the kernel's Stage
    /// (docs/stage.md).
    pub fn payload_read(qpn: u64, laddr: u64, len: u64) -> WrCommand {
        WrCommand::write(qpn, laddr, len)
    }

    /// The command the stack emits for the response of `len` bytes to an
    /// RDMA READ this card sent on queue pair `qpn`, to be written at
    /// `vaddr` (the READ's `laddr`), marked `rd`.
    pub fn read_response(qpn: u64, vaddr: u64, len: u64) -> WrCommand {
        WrCommand {
            rd: true,
            ..WrCommand::write(qpn, vaddr, len)
        }
    }

    /// Pack into TDATA (the low `WR_CMD_BITS` bits).
    pub fn pack(&self) -> u128 {
        let m = |v: u64, bits: usize| (v as u128) & ((1u128 << bits) - 1);
        m(self.vaddr, WR_VADDR_BITS) << WR_VADDR
            | m(self.len, WR_LEN_BITS) << WR_LEN
            | (self.ctl as u128) << WR_CTL
            | (self.strm as u128) << WR_STRM
            | (self.sync as u128) << WR_SYNC
            | (self.host as u128) << WR_HOST
            | m(self.dest, 4) << WR_DEST
            | m(self.qpn, QPN_BITS) << WR_QPN
            | (self.rd as u128) << WR_RD
    }

    /// TDATA as three 32-bit words, the low first.
    pub fn to_words(&self) -> [u32; 3] {
        let v = self.pack();
        [v as u32, (v >> 32) as u32, (v >> 64) as u32]
    }

    /// Unpack TDATA given as three 32-bit words, the low first.
    pub fn from_words(w: [u32; 3]) -> WrCommand {
        WrCommand::unpack(w[0] as u128 | (w[1] as u128) << 32 | (w[2] as u128) << 64)
    }

    /// Unpack TDATA.
    pub fn unpack(v: u128) -> WrCommand {
        let f = |at: usize, bits: usize| ((v >> at) & ((1u128 << bits) - 1)) as u64;
        WrCommand {
            vaddr: f(WR_VADDR, WR_VADDR_BITS),
            len: f(WR_LEN, WR_LEN_BITS),
            ctl: f(WR_CTL, 1) == 1,
            strm: f(WR_STRM, 1) == 1,
            sync: f(WR_SYNC, 1) == 1,
            host: f(WR_HOST, 1) == 1,
            dest: f(WR_DEST, 4),
            qpn: f(WR_QPN, QPN_BITS),
            rd: f(WR_RD, 1) == 1,
        }
    }

    /// The stack's `pid` field (qpn bits 5:0) and `vfid` field (bits 9:6).
    pub fn pid_vfid(&self) -> (u64, u64) {
        (self.qpn & 0x3f, (self.qpn >> 6) & 0xf)
    }
}

/// The data beats of a payload as the stack presents them: `(tdata, tkeep,
/// tlast)` per beat, payload byte 0 in lane 0 of the first beat; `words` are
/// the payload's 32-bit words, little-endian.
pub fn wr_data_beats(words: &[u32]) -> Vec<([u32; 16], u64, bool)> {
    let beats = words.len().div_ceil(16).max(1);
    (0..beats)
        .map(|b| {
            let mut d = [0u32; 16];
            let chunk = &words[(16 * b).min(words.len())..(16 * b + 16).min(words.len())];
            d[..chunk.len()].copy_from_slice(chunk);
            let keep = if chunk.len() >= 16 {
                u64::MAX
            } else {
                (1u64 << (4 * chunk.len())) - 1
            };
            (d, keep, b + 1 == beats)
        })
        .collect()
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

    #[test]
    fn wr_command_round_trips_in_the_stacks_layout() {
        let c = WrCommand {
            vaddr: 0xba98_7654_3210,
            len: 0xabc_def0,
            ctl: true,
            strm: false,
            sync: true,
            host: true,
            dest: 0x5,
            qpn: 0x2c7,
            rd: true,
        };
        assert_eq!(WrCommand::unpack(c.pack()), c);
        let v = c.pack();
        // memCmd: addr 48, len 28, ctl, strm, sync, host, tdst 4, pid 6, vfid 4.
        assert_eq!(v & ((1 << 48) - 1), 0xba98_7654_3210);
        assert_eq!((v >> 48) & 0xfff_ffff, 0xabc_def0);
        assert_eq!((v >> 76) & 0xf, 0b1101, "ctl, strm, sync, host");
        assert_eq!((v >> 80) & 0xf, 0x5);
        assert_eq!(v >> 94, 1, "rd at bit 94, bit 95 clear");
        let (pid, vfid) = c.pid_vfid();
        assert_eq!((v >> 84) & 0x3f, pid as u128);
        assert_eq!((v >> 90) & 0xf, vfid as u128);
        assert_eq!((pid, vfid), (0x07, 0xb), "qpn(5,0) and qpn(9,6)");
    }

    #[test]
    fn a_write_command_carries_the_address_bits_above_47_in_strm_and_dest() {
        let c = WrCommand::write(17, 0x0013_0000_0000_0040, 8);
        assert_eq!(c.vaddr, 0x40);
        assert_eq!(c.dest, 0x3);
        assert!(c.strm && c.host && c.ctl);
        let beats = wr_data_beats(&[1, 2, 3]);
        assert_eq!(beats.len(), 1);
        assert_eq!(beats[0].1, 0xfff);
        assert!(beats[0].2);
        let beats = wr_data_beats(&(0..17).collect::<Vec<u32>>());
        assert_eq!(beats.len(), 2);
        assert_eq!((beats[0].1, beats[0].2), (u64::MAX, false));
        assert_eq!((beats[1].0[0], beats[1].1, beats[1].2), (16, 0xf, true));
    }
}
