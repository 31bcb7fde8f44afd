//! Regs: the `s_axi_control` register map, in one table.
//!
//! [`REGS`] is the only place the map is written down. Everything else is
//! rendered from it: the Control block's address constants
//! ([`crate::io::control`]), `docs/registers.md` ([`markdown`]), the C header for
//! host code `vivado/rhdl_ubft_regs.h` ([`c_header`]), the register part of
//! `vivado/package_kernel.tcl` ([`tcl_registers`]) and the `<args>` of
//! `vivado/kernel.xml` ([`crate::vitis::kernel_xml`]).
//!
//! Vitis conventions (UG1393 "Kernel Controls"): `0x00` CTRL, `0x04` GIER,
//! `0x08` IP_IER, `0x0C` IP_ISR, user arguments from `0x10`. Every register
//! is one 32-bit word except `network_ptr` (a 64-bit pointer: the low word,
//! then the high word). Offsets are not written by hand: [`REGS`] lists the
//! registers in address order and [`place`] packs them word after word from
//! `0x00`, so adding a register moves everything after it and every rendered
//! file follows. The queue-pair registers are one row with `count` =
//! `params::N` (`qpn_0` … `qpn_{N-1}`); a kernel built for fewer replicas
//! keeps the same map (the unused `qpn_i` read 0 and ignore writes), so host
//! code has a single map.

use crate::guard::REASONS;
use crate::io::roce::QPN_BITS;
use crate::params::{CHAIN_WORDS, COUNTER_BITS, N, WAIT_BITS};

/// How the host may use a register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// `0x00` CTRL: ap_start (W1S), ap_done (COR), ap_idle, ap_ready (COR),
    /// auto_restart.
    Ctrl,
    /// GIER and IP_IER: read/write interrupt enables.
    IntEnable,
    /// IP_ISR: read, toggle on write (TOW): a 1 clears a set bit and sets a
    /// clear one.
    IntStatus,
    /// A kernel argument: read/write, held while the kernel runs.
    Arg,
    /// A status value: read-only, live (the kernel's current value).
    Status,
}

impl Access {
    /// The access as the docs and the header spell it.
    pub const fn label(self) -> &'static str {
        match self {
            Access::Ctrl => "RW (control)",
            Access::IntEnable => "RW",
            Access::IntStatus => "R/TOW",
            Access::Arg => "RW (argument)",
            Access::Status => "RO (status)",
        }
    }
    /// IP-XACT `access` for `ipx::add_register`.
    pub const fn ipxact(self) -> &'static str {
        match self {
            Access::Status => "read-only",
            _ => "read-write",
        }
    }
}

/// One row of the map.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reg {
    /// Name: the kernel.xml argument name, the header's `RHDL_UBFT_<NAME>`.
    pub name: &'static str,
    /// Byte offset of the (first) word; filled by [`place`].
    pub offset: u64,
    /// Meaningful bits of one register (the rest of the word reads 0).
    pub bits: usize,
    /// Registers in this row (`qpn`: one per peer, `name_i` at offset + 4 i).
    pub count: usize,
    pub access: Access,
    pub desc: &'static str,
}

impl Reg {
    /// 32-bit words of one register of the row.
    pub const fn words(&self) -> u64 {
        ((self.bits as u64) + 31) / 32
    }
    /// Bytes the whole row takes.
    pub const fn bytes(&self) -> u64 {
        self.words() * 4 * (self.count as u64)
    }
    /// Byte offset of register `i` of the row.
    pub const fn offset_of(&self, i: usize) -> u64 {
        self.offset + (i as u64) * self.words() * 4
    }
    /// The name of register `i` of the row (`qpn_3`), or the name.
    pub fn name_of(&self, i: usize) -> String {
        if self.count == 1 {
            self.name.to_string()
        } else {
            format!("{}_{}", self.name, i)
        }
    }
    /// Is this a kernel argument (in kernel.xml's `<args>`)?
    pub const fn is_arg(&self) -> bool {
        matches!(self.access, Access::Arg | Access::Status)
    }
}

const fn reg(
    name: &'static str,
    bits: usize,
    count: usize,
    access: Access,
    desc: &'static str,
) -> Reg {
    Reg {
        name,
        offset: 0,
        bits,
        count,
        access,
        desc,
    }
}

/// Rows in [`REGS`].
pub const ROWS: usize = 30;

/// The register map, in address order. THE source of every offset.
pub const REGS: [Reg; ROWS] = place([
    reg("CTRL", 8, 1, Access::Ctrl,
        "bit 0 ap_start (write 1 to start; reads 1 until the kernel's ap_ready), bit 1 ap_done (set when the kernel finishes, cleared by reading this register), bit 2 ap_idle, bit 3 ap_ready (cleared by reading this register), bit 7 auto_restart (start again at every ap_ready)"),
    reg("GIER", 1, 1, Access::IntEnable, "bit 0: global interrupt enable"),
    reg("IP_IER", 2, 1, Access::IntEnable, "bit 0: interrupt on ap_done, bit 1: interrupt on ap_ready"),
    reg("IP_ISR", 2, 1, Access::IntStatus,
        "bit 0: ap_done happened, bit 1: ap_ready happened (an event sets its bit only while enabled in IP_IER). Writing 1 toggles a bit: it clears a set bit, and sets a clear one, which raises `interrupt` if GIER is 1 (as in Vitis HLS's adapters; the driver writes back the bits it read)"),
    reg("network_ptr", 64, 1, Access::Arg,
        "HBM byte address of this replica's mailbox buffer (4 KiB aligned); low word at the offset, high word at offset + 4"),
    reg("id", 8, 1, Access::Arg, "this replica's id, below n"),
    reg("n", 8, 1, Access::Arg, "replicas in the cluster: odd, at most the build's N"),
    reg("wait_polls", WAIT_BITS, 1, Access::Arg, "polls without progress before a timeout, doubled per view change since the last decision"),
    reg("slots", 32, 1, Access::Arg, "slots to decide before ap_done (0: run until reset; v3 closes the last slot first, R28)"),
    reg("qpn", QPN_BITS, N, Access::Arg,
        "RoCE queue pair on which this replica RDMA-writes to peer i (qpn_i; the entry for the replica's own id is unused)"),
    reg("cycles", COUNTER_BITS, 1, Access::Status, "kernel cycles since ap_start"),
    reg("decisions", COUNTER_BITS, 1, Access::Status, "slots decided"),
    reg("fast", COUNTER_BITS, 1, Access::Status, "slots decided on the fast path"),
    reg("slow", COUNTER_BITS, 1, Access::Status, "slots decided on the slow path"),
    reg("view_changes", COUNTER_BITS, 1, Access::Status, "view changes"),
    reg("view", COUNTER_BITS, 1, Access::Status, "the current view"),
    reg("timeouts", COUNTER_BITS, 1, Access::Status, "timeouts (wait_polls fruitless polls in a row)"),
    reg("polls", COUNTER_BITS, 1, Access::Status, "HBM polls issued"),
    reg("bad_shares", COUNTER_BITS, 1, Access::Status, "signature shares that failed verification"),
    reg("acks", COUNTER_BITS, 1, Access::Status, "RDMA WRITE completions received in this run (cleared on ap_start, as the other counters)"),
    reg("write_errors", COUNTER_BITS, 1, Access::Status, "local HBM writes answered with an error BRESP (their records were not sent) in this run (cleared on ap_start)"),
    reg("error", 8, 1, Access::Status,
        "why the configuration was refused, or the run stopped early (0: accepted, not stopped; 1-5: refused at ap_start; 6: stopped after k = 2^24 - 1; 7: not assigned; 8: a round's local HBM write failed, and the replica stopped writing; see params::ConfigError and protocol.md)"),
    reg("state", 8, 1, Access::Status,
        "the controller's state (status::STATE_NAMES), for bring-up and debugging"),
    reg("guard_accepted", COUNTER_BITS, 1, Access::Status,
        "incoming RDMA WRITEs the slot guard passed to HBM (m_axi_rx), since reset (a lifetime counter: the guard runs whenever the card is out of reset)"),
    reg("guard_write_errors", COUNTER_BITS, 1, Access::Status,
        "the guard's HBM writes answered with an error BRESP, since reset"),
    reg("guard_refused", COUNTER_BITS, REASONS, Access::Status,
        "incoming writes the slot guard refused, by reason (guard_refused_i counts reason code i + 1, docs/guard.md): 0 unknown_qp, 1 length, 2 unaligned, 3 outside, 4 data, 5 not_owner, 6 not_leader, 7 shape, 8 unchecked; since reset"),
    reg("guard_refused_by", COUNTER_BITS, N, Access::Status,
        "incoming writes the slot guard refused, by sender (guard_refused_by_i: peer i, named by its queue pair; an unknown_qp refusal names no sender), since reset"),
    reg("local_refused", COUNTER_BITS, 1, Access::Status,
        "beats of the kernel's own HBM writes whose strobes reached past its own lanes of a will_cert row, or that crossed 4 KiB, and that the local guard narrowed (docs/local_guard.md; an honest kernel makes none), since reset"),
    reg("chain_k", 32, 1, Access::Status,
        "the slot of the latest decision hashed into the chain (0: none in this run); chain_h is its h_k (docs/chain.md)"),
    reg("chain_h", 32, CHAIN_WORDS, Access::Status,
        "h_k = SHA-256(h_(k-1) || k || dec[k]) of the decisions of this run (h_0 = 0), as eight big-endian words, chain_h_0 first (docs/chain.md); chain_k and chain_h change in one cycle: read chain_k, the eight words, and chain_k again, and retry if it moved"),
]);

/// Packs the rows word after word from 0x00.
const fn place<const K: usize>(mut t: [Reg; K]) -> [Reg; K] {
    let mut off = 0;
    let mut i = 0;
    while i < K {
        t[i].offset = off;
        off += t[i].bytes();
        i += 1;
    }
    t
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The row named `name` (a compile error when there is none).
pub const fn row(name: &str) -> Reg {
    let mut i = 0;
    while i < ROWS {
        if str_eq(REGS[i].name, name) {
            return REGS[i];
        }
        i += 1;
    }
    panic!("no such register")
}

/// Byte offset of the row named `name`.
pub const fn offset(name: &str) -> u64 {
    row(name).offset
}

/// Bytes of the `s_axi_control` address space (Vitis: 0x1000, 12 address bits).
pub const RANGE: u64 = 0x1000;
/// Address bits of `s_axi_control`.
pub const ADDR_BITS: usize = 12;

// The offsets the Control block decodes (all computed from the table).
pub const CTRL: u64 = offset("CTRL");
pub const GIER: u64 = offset("GIER");
pub const IP_IER: u64 = offset("IP_IER");
pub const IP_ISR: u64 = offset("IP_ISR");
pub const NETWORK_PTR_LO: u64 = offset("network_ptr");
pub const NETWORK_PTR_HI: u64 = offset("network_ptr") + 4;
pub const ID: u64 = offset("id");
pub const NREPL: u64 = offset("n");
pub const WAIT_POLLS: u64 = offset("wait_polls");
pub const SLOTS: u64 = offset("slots");
/// `qpn_0`; `qpn_i` is at `QPN + 4 i`.
pub const QPN: u64 = offset("qpn");
pub const CYCLES: u64 = offset("cycles");
pub const DECISIONS: u64 = offset("decisions");
pub const FAST: u64 = offset("fast");
pub const SLOW: u64 = offset("slow");
pub const VIEW_CHANGES: u64 = offset("view_changes");
pub const VIEW: u64 = offset("view");
pub const TIMEOUTS: u64 = offset("timeouts");
pub const POLLS: u64 = offset("polls");
pub const BAD_SHARES: u64 = offset("bad_shares");
pub const ACKS: u64 = offset("acks");
pub const WRITE_ERRORS: u64 = offset("write_errors");
pub const ERROR_CODE: u64 = offset("error");
pub const STATE: u64 = offset("state");
pub const GUARD_ACCEPTED: u64 = offset("guard_accepted");
pub const GUARD_WRITE_ERRORS: u64 = offset("guard_write_errors");
/// `guard_refused_0`; `guard_refused_i` (reason code i + 1) is at
/// `GUARD_REFUSED + 4 i`.
pub const GUARD_REFUSED: u64 = offset("guard_refused");
/// `guard_refused_by_0`; sender i's is at `GUARD_REFUSED_BY + 4 i`.
pub const GUARD_REFUSED_BY: u64 = offset("guard_refused_by");
pub const LOCAL_REFUSED: u64 = offset("local_refused");
pub const CHAIN_K: u64 = offset("chain_k");
/// `chain_h_0`; word i of h_k is at `CHAIN_H + 4 i`.
pub const CHAIN_H: u64 = offset("chain_h");
/// One past the last register.
pub const END: u64 = REGS[ROWS - 1].offset + REGS[ROWS - 1].bytes();

/// CTRL bits.
pub mod ctrl {
    pub const AP_START: u32 = 1 << 0;
    pub const AP_DONE: u32 = 1 << 1;
    pub const AP_IDLE: u32 = 1 << 2;
    pub const AP_READY: u32 = 1 << 3;
    pub const AUTO_RESTART: u32 = 1 << 7;
}
/// IP_IER / IP_ISR bits.
pub mod isr {
    pub const DONE: u32 = 1 << 0;
    pub const READY: u32 = 1 << 1;
}

// The Vitis conventions the map must keep.
const _: () = assert!(CTRL == 0x00 && GIER == 0x04 && IP_IER == 0x08 && IP_ISR == 0x0C);
const _: () = assert!(NETWORK_PTR_LO == 0x10);
const _: () = assert!(END <= RANGE);

/// A register row as one line per register (rows with `count` > 1 expanded).
pub fn expanded() -> Vec<(String, u64, &'static Reg)> {
    let mut v = vec![];
    for r in REGS.iter() {
        for i in 0..r.count {
            v.push((r.name_of(i), r.offset_of(i), r));
        }
    }
    v
}

/// `docs/registers.md`, generated from [`REGS`].
pub fn markdown() -> String {
    let mut s = String::new();
    s +=
        "<!-- generated by `cargo xtask docs` from crates/rhdl_ubft/src/regs.rs; do not edit -->\n";
    s += "# Registers\n\n";
    s += "The `s_axi_control` register map of the `rhdl_ubft` kernel (AXI4-Lite, 32-bit data, \
12-bit byte addresses, a 0x1000 range). The table in `crates/rhdl_ubft/src/regs.rs` is its only \
source: the Control block's address decoder, `vivado/kernel.xml`, the register map in \
`vivado/package_kernel.tcl` and the C header `vivado/rhdl_ubft_regs.h` are generated from it.\n\n";
    s += &format!(
        "Offsets are packed word after word. The queue-pair registers are sized for the build's \
N = {N} (`params::N`); a kernel built for fewer replicas keeps this map, and its unused `qpn_i` read 0. \
Unmapped offsets read 0 and ignore writes; every response is OKAY.\n\n"
    );
    s += "| offset | name | bits | access | description |\n";
    s += "| ---: | --- | ---: | --- | --- |\n";
    for r in REGS.iter() {
        let name = if r.count == 1 {
            format!("`{}`", r.name)
        } else {
            format!("`{}_0` … `{}_{}`", r.name, r.name, r.count - 1)
        };
        let off = if r.count == 1 && r.words() == 1 {
            format!("0x{:02X}", r.offset)
        } else {
            format!("0x{:02X}–0x{:02X}", r.offset, r.offset + r.bytes() - 1)
        };
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            off,
            name,
            r.bits,
            r.access.label(),
            r.desc
        );
    }
    s += "\n## The handshake (ap_ctrl_hs)\n\n";
    s += "1. Write the arguments (`network_ptr` low then high word, `id`, `n`, `wait_polls`, `slots`, `qpn_i`).\n";
    s += "2. Write 1 to CTRL bit 0 (`ap_start`). It reads 1 until the kernel takes the start (its `ap_ready`); \
with `auto_restart` (bit 7) set it is set again at every `ap_ready`.\n";
    s += "3. Poll CTRL until bit 1 (`ap_done`) reads 1, or enable the interrupt (GIER bit 0 and IP_IER bit 0) \
and wait for it; write 1 to IP_ISR bit 0 to clear it.\n";
    s += "4. Reading CTRL clears `ap_done` and `ap_ready`. Status registers are live: they may be read while the kernel runs.\n\n";
    s += "A write takes effect when both its address and data have arrived; arguments must not change while \
the kernel runs (`ap_idle` = 0). A run that decided its last slot may leave the kernel lingering (`help.md`): \
Idle, with `ap_idle` = 1, it still reads its mailbox at `network_ptr` and writes its CERT share to its peers, \
until the next `ap_start`. Change the arguments then only together with `ap_start`, or reset the kernel \
(`ap_rst_n`) first.\n";
    s
}

/// `vivado/rhdl_ubft_regs.h`: offsets and bits for host code.
pub fn c_header() -> String {
    let mut s = String::new();
    s +=
        "/* Generated by `cargo xtask vivado` from crates/rhdl_ubft/src/regs.rs; do not edit. */\n";
    s += "/* The s_axi_control register map of the rhdl_ubft kernel (byte offsets). */\n";
    s += "#ifndef RHDL_UBFT_REGS_H\n#define RHDL_UBFT_REGS_H\n\n";
    s += &format!("#define RHDL_UBFT_QPN_COUNT {N} /* qpn registers in the map (params::N) */\n");
    s += &format!("#define RHDL_UBFT_CONTROL_RANGE 0x{RANGE:X}\n\n");
    for r in REGS.iter() {
        let up = r.name.to_uppercase();
        s += &format!(
            "/* {} [{} bits, {}]: {} */\n",
            r.name,
            r.bits,
            r.access.label(),
            r.desc
        );
        if r.count > 1 {
            s += &format!("#define RHDL_UBFT_{up}(i) (0x{:02X} + 4 * (i))\n", r.offset);
            for i in 0..r.count {
                s += &format!("#define RHDL_UBFT_{up}_{i} 0x{:02X}\n", r.offset_of(i));
            }
        } else if r.words() == 2 {
            s += &format!("#define RHDL_UBFT_{up}_LO 0x{:02X}\n", r.offset);
            s += &format!("#define RHDL_UBFT_{up}_HI 0x{:02X}\n", r.offset + 4);
        } else {
            s += &format!("#define RHDL_UBFT_{up} 0x{:02X}\n", r.offset);
        }
        s += &format!("#define RHDL_UBFT_{up}_BITS {}\n\n", r.bits);
    }
    s += &format!(
        "#define RHDL_UBFT_CTRL_AP_START 0x{:X}\n#define RHDL_UBFT_CTRL_AP_DONE 0x{:X}\n\
#define RHDL_UBFT_CTRL_AP_IDLE 0x{:X}\n#define RHDL_UBFT_CTRL_AP_READY 0x{:X}\n\
#define RHDL_UBFT_CTRL_AUTO_RESTART 0x{:X}\n#define RHDL_UBFT_ISR_DONE 0x{:X}\n#define RHDL_UBFT_ISR_READY 0x{:X}\n\n",
        ctrl::AP_START,
        ctrl::AP_DONE,
        ctrl::AP_IDLE,
        ctrl::AP_READY,
        ctrl::AUTO_RESTART,
        isr::DONE,
        isr::READY
    );
    s += "#endif /* RHDL_UBFT_REGS_H */\n";
    s
}

/// The `ipx::add_register` calls of `vivado/package_kernel.tcl`: one per
/// argument and status register (Vitis reads arguments from here), plus
/// the four control registers. `$addr_block` is the `s_axi_control` block.
pub fn tcl_registers() -> String {
    let mut s = String::new();
    s += "# --- register map: generated from crates/rhdl_ubft/src/regs.rs (cargo xtask vivado) ---\n";
    for (name, off, r) in expanded() {
        let size = r.words() * 32;
        s += &format!("set reg [::ipx::add_register -quiet \"{name}\" $addr_block]\n");
        s += &format!("  set_property address_offset 0x{off:03X} $reg\n");
        s += &format!("  set_property size [expr {{{size}}}] $reg\n");
        s += &format!("  set_property access {} $reg\n", r.access.ipxact());
        s += &format!(
            "  set_property description {{{}}} $reg\n",
            r.desc.replace(['{', '}'], "")
        );
        if r.name == "network_ptr" {
            s += "  set regparam [::ipx::add_register_parameter -quiet {ASSOCIATED_BUSIF} $reg]\n";
            // m_axi_rx writes the same buffer (docs/vivado.md).
            s += "  set_property value {m_axi_hbm:m_axi_rx} $regparam\n";
        }
    }
    s += "# --- end of generated register map ---\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_packed_aligned_and_in_range() {
        let mut next = 0;
        for r in &REGS {
            assert_eq!(r.offset, next, "{} is not packed", r.name);
            assert_eq!(r.offset % 4, 0);
            next = r.offset + r.bytes();
        }
        assert!(next <= RANGE);
        assert_eq!(QPN, 0x28);
        assert_eq!(
            expanded().len(),
            4 + 5 + N + 13 + 2 + REASONS + N + 1 + 1 + 8
        );
        // The guard's rows come last, then the local guard's, then the
        // chain's, so adding them moved no older offset.
        assert_eq!(STATE, 0x28 + 4 * N as u64 + 4 * 12);
        assert_eq!(GUARD_ACCEPTED, STATE + 4);
        assert_eq!(GUARD_REFUSED, GUARD_ACCEPTED + 8);
        assert_eq!(GUARD_REFUSED_BY, GUARD_REFUSED + 4 * REASONS as u64);
        assert_eq!(LOCAL_REFUSED, GUARD_REFUSED_BY + 4 * N as u64);
        assert_eq!(CHAIN_K, LOCAL_REFUSED + 4);
        assert_eq!(CHAIN_H, CHAIN_K + 4);
        assert_eq!(END, CHAIN_H + 4 * CHAIN_WORDS as u64);
        // guard_refused_i counts Refusal code i + 1.
        for (i, r) in crate::guard::Refusal::ALL.iter().enumerate() {
            assert_eq!(r.code(), i as u64 + 1);
        }
    }
}
