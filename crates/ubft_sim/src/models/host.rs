//! Host: the AXI4-Lite master on a kernel's `s_axi_control` (what XRT does
//! through the shell), one replica each.
//!
//! The host runs a queue of register operations, one at a time, with real
//! handshakes: a write raises `awvalid` and `wvalid` together and holds each
//! until its ready, then takes the B response; a read raises `arvalid` until
//! `arready`, then takes R. `bready` and `rready` are high while a response
//! is awaited. The model checks the slave's side of AXI4-Lite and records a
//! break in [`Host::violations`]: a B before both AW and W were taken, an R
//! before AR, a response other than OKAY.
//!
//! On top of the queue: [`Host::configure`] (the arguments, then CTRL.ap_start,
//! as an XRT run does), [`Host::read_status`] (every status register, the
//! guard's counters last: [`Host::guard`]) and [`Host::poll_ctrl`].

use crate::ports::{KernelIn, KernelOut, Status};
use rhdl_ubft::guard::{Refusal, REASONS};
use rhdl_ubft::params::{CHAIN_WORDS, N as BUILD_N};
use rhdl_ubft::regs;
use std::collections::VecDeque;

/// One register operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Write { addr: u64, data: u32 },
    Read { addr: u64 },
}

/// The arguments of a run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Args {
    pub network_ptr: u64,
    pub id: u32,
    pub n: u32,
    pub wait_polls: u32,
    pub slots: u32,
    /// Queue pair of peer p is `qpn_base + p`.
    pub qpn_base: u32,
}

#[derive(Clone, Debug, Default)]
struct InFlight {
    op: Option<Op>,
    aw_done: bool,
    w_done: bool,
    ar_done: bool,
}

/// The guard's counters as the host read them (`guard_*` registers).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GuardStatus {
    pub accepted: u32,
    pub write_errors: u32,
    /// `refused[i]`: reason code i + 1 (`guard::Refusal::ALL[i]`).
    pub refused: [u32; REASONS],
    /// `refused_by[i]`: refusals of writes from peer i.
    pub refused_by: [u32; BUILD_N],
    /// The local guard's narrowed beats (`local_refused`).
    pub local_refused: u32,
}

impl GuardStatus {
    /// Refusals, all reasons.
    pub fn refused_total(&self) -> u64 {
        self.refused.iter().map(|&x| x as u64).sum()
    }

    /// Refusals for `reason`.
    pub fn refused_for(&self, reason: Refusal) -> u32 {
        self.refused[reason.code() as usize - 1]
    }
}

/// One replica's host.
#[derive(Clone, Debug, Default)]
pub struct Host {
    queue: VecDeque<Op>,
    now: InFlight,
    /// Every completed read: (address, data, cycle).
    pub reads: Vec<(u64, u32, u64)>,
    /// Writes completed.
    pub writes: u64,
    violations: Vec<(u64, String)>,
    /// The last status read back whole.
    status: Status,
    guard: GuardStatus,
    ctrl: u32,
}

impl Host {
    pub fn new() -> Host {
        Host::default()
    }

    /// Drops every queued and in-flight operation (the kernel was reset).
    pub fn abandon(&mut self) {
        self.queue.clear();
        self.now = InFlight::default();
    }

    /// Queues an operation.
    pub fn push(&mut self, op: Op) {
        self.queue.push_back(op);
    }

    /// True when no operation is queued or in flight.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.now.op.is_none()
    }

    /// AXI4-Lite rules the kernel broke.
    pub fn violations(&self) -> &[(u64, String)] {
        &self.violations
    }

    /// The status registers as last read by [`Host::read_status`].
    pub fn status(&self) -> Status {
        self.status
    }

    /// The guard's counters as last read by [`Host::read_status`].
    pub fn guard(&self) -> GuardStatus {
        self.guard
    }

    /// CTRL as last read.
    pub fn ctrl(&self) -> u32 {
        self.ctrl
    }

    /// Writes the arguments, then sets CTRL.ap_start.
    pub fn configure(&mut self, a: &Args) {
        let w = |addr: u64, data: u32| Op::Write { addr, data };
        self.push(w(regs::NETWORK_PTR_LO, a.network_ptr as u32));
        self.push(w(regs::NETWORK_PTR_HI, (a.network_ptr >> 32) as u32));
        self.push(w(regs::ID, a.id));
        self.push(w(regs::NREPL, a.n));
        self.push(w(regs::WAIT_POLLS, a.wait_polls));
        self.push(w(regs::SLOTS, a.slots));
        for p in 0..BUILD_N as u64 {
            self.push(w(regs::QPN + 4 * p, a.qpn_base + p as u32));
        }
        self.start();
    }

    /// Sets CTRL.ap_start.
    pub fn start(&mut self) {
        self.push(Op::Write {
            addr: regs::CTRL,
            data: regs::ctrl::AP_START,
        });
    }

    /// Reads CTRL (ap_done is cleared by the read).
    pub fn poll_ctrl(&mut self) {
        self.push(Op::Read { addr: regs::CTRL });
    }

    /// Did the last reads of the chain's registers straddle a hash (the
    /// two `chain_k` reads differ)?
    pub fn chain_torn(&self) -> bool {
        let mut ks = self.reads.iter().rev().filter(|r| r.0 == regs::CHAIN_K);
        match (ks.next(), ks.next()) {
            (Some(a), Some(b)) => a.1 != b.1,
            _ => false,
        }
    }

    /// Reads the chain's registers again (after [`Host::chain_torn`]).
    pub fn read_chain(&mut self) {
        for addr in chain_regs() {
            self.push(Op::Read { addr });
        }
    }

    /// Reads every status register, then the guard's, then the chain's.
    pub fn read_status(&mut self) {
        for addr in STATUS_REGS {
            self.push(Op::Read { addr });
        }
        for addr in guard_regs() {
            self.push(Op::Read { addr });
        }
        for addr in chain_regs() {
            self.push(Op::Read { addr });
        }
    }

    pub fn drive(&mut self, inp: &mut KernelIn) {
        if self.now.op.is_none() {
            self.now = InFlight {
                op: self.queue.pop_front(),
                ..InFlight::default()
            };
        }
        inp.ctl_awvalid = false;
        inp.ctl_wvalid = false;
        inp.ctl_arvalid = false;
        inp.ctl_bready = false;
        inp.ctl_rready = false;
        match self.now.op {
            Some(Op::Write { addr, data }) => {
                inp.ctl_awaddr = addr as u16;
                inp.ctl_wdata = data;
                inp.ctl_wstrb = 0xf;
                inp.ctl_awvalid = !self.now.aw_done;
                inp.ctl_wvalid = !self.now.w_done;
                inp.ctl_bready = self.now.aw_done && self.now.w_done;
            }
            Some(Op::Read { addr }) => {
                inp.ctl_araddr = addr as u16;
                inp.ctl_arvalid = !self.now.ar_done;
                inp.ctl_rready = self.now.ar_done;
            }
            None => {}
        }
    }

    pub fn observe(&mut self, inp: &KernelIn, out: &KernelOut, cycle: u64) {
        match self.now.op {
            Some(Op::Write { .. }) => {
                if out.ctl_bvalid && !(self.now.aw_done && self.now.w_done) {
                    self.violations
                        .push((cycle, "B valid before AW and W were taken".into()));
                }
                if inp.ctl_bready && out.ctl_bvalid {
                    if out.ctl_bresp != 0 {
                        self.violations
                            .push((cycle, format!("BRESP {}", out.ctl_bresp)));
                    }
                    self.writes += 1;
                    self.now.op = None;
                }
                if inp.ctl_awvalid && out.ctl_awready {
                    self.now.aw_done = true;
                }
                if inp.ctl_wvalid && out.ctl_wready {
                    self.now.w_done = true;
                }
            }
            Some(Op::Read { addr }) => {
                if out.ctl_rvalid && !self.now.ar_done {
                    self.violations
                        .push((cycle, "R valid before AR was taken".into()));
                }
                if inp.ctl_rready && out.ctl_rvalid {
                    if out.ctl_rresp != 0 {
                        self.violations
                            .push((cycle, format!("RRESP {}", out.ctl_rresp)));
                    }
                    self.reads.push((addr, out.ctl_rdata, cycle));
                    self.record(addr, out.ctl_rdata);
                    self.now.op = None;
                }
                if inp.ctl_arvalid && out.ctl_arready {
                    self.now.ar_done = true;
                }
            }
            None => {}
        }
    }

    fn record(&mut self, addr: u64, v: u32) {
        let s = &mut self.status;
        match addr {
            regs::CTRL => self.ctrl = v,
            regs::CYCLES => s.cycles = v,
            regs::DECISIONS => s.decisions = v,
            regs::FAST => s.fast = v,
            regs::SLOW => s.slow = v,
            regs::VIEW_CHANGES => s.view_changes = v,
            regs::VIEW => s.view = v,
            regs::TIMEOUTS => s.timeouts = v,
            regs::POLLS => s.polls = v,
            regs::BAD_SHARES => s.bad_shares = v,
            regs::ACKS => s.acks = v,
            regs::WRITE_ERRORS => s.write_errors = v,
            regs::ERROR_CODE => s.error = v as u8,
            regs::STATE => s.state = v as u8,
            regs::GUARD_ACCEPTED => self.guard.accepted = v,
            regs::GUARD_WRITE_ERRORS => self.guard.write_errors = v,
            a if (regs::GUARD_REFUSED..regs::GUARD_REFUSED + 4 * REASONS as u64).contains(&a) => {
                self.guard.refused[((a - regs::GUARD_REFUSED) / 4) as usize] = v
            }
            a if (regs::GUARD_REFUSED_BY..regs::GUARD_REFUSED_BY + 4 * BUILD_N as u64)
                .contains(&a) =>
            {
                self.guard.refused_by[((a - regs::GUARD_REFUSED_BY) / 4) as usize] = v
            }
            regs::LOCAL_REFUSED => self.guard.local_refused = v,
            regs::CHAIN_K => s.chain_k = v,
            a if (regs::CHAIN_H..regs::CHAIN_H + 4 * CHAIN_WORDS as u64).contains(&a) => {
                s.chain_h[((a - regs::CHAIN_H) / 4) as usize] = v
            }
            _ => {}
        }
    }
}

/// The guards' status registers, in map order: accepted, write errors,
/// refused by reason, refused by sender, and the local guard's count.
pub fn guard_regs() -> Vec<u64> {
    let mut v = vec![regs::GUARD_ACCEPTED, regs::GUARD_WRITE_ERRORS];
    v.extend((0..REASONS as u64).map(|i| regs::GUARD_REFUSED + 4 * i));
    v.extend((0..BUILD_N as u64).map(|i| regs::GUARD_REFUSED_BY + 4 * i));
    v.push(regs::LOCAL_REFUSED);
    v
}

/// The chain's registers as a host reads them (registers.md): `chain_k`,
/// h_k's eight words, and `chain_k` again; if the two `chain_k` differ, a
/// hash ended between them and the host reads all ten again
/// ([`Host::chain_torn`]).
pub fn chain_regs() -> Vec<u64> {
    let mut v = vec![regs::CHAIN_K];
    v.extend((0..CHAIN_WORDS as u64).map(|i| regs::CHAIN_H + 4 * i));
    v.push(regs::CHAIN_K);
    v
}

/// The status registers, in map order.
pub const STATUS_REGS: [u64; 14] = [
    regs::CYCLES,
    regs::DECISIONS,
    regs::FAST,
    regs::SLOW,
    regs::VIEW_CHANGES,
    regs::VIEW,
    regs::TIMEOUTS,
    regs::POLLS,
    regs::BAD_SHARES,
    regs::ACKS,
    regs::WRITE_ERRORS,
    regs::ERROR_CODE,
    regs::STATE,
    regs::CTRL,
];
