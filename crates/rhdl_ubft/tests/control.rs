//! Control, cycle by cycle, through a small AXI4-Lite master: every register
//! written and read back, AW/W in either order, back-pressure on B and R,
//! byte strobes, the ap_ctrl_hs handshake (ap_start held until ap_ready,
//! ap_done latched and cleared on read, auto_restart), interrupts, reset.
//! Every offset comes from `rhdl_ubft::regs`.

use rhdl_ubft::io::control::Control;
use rhdl_ubft::regs::{self, ctrl, isr};
use rust_hdl::prelude::*;

/// A Control block, the cycle counter and the kernel side's inputs.
struct Tb<const N: usize> {
    c: Control<N>,
    cycle: u64,
    /// Cycles at which the kernel pulses ap_done / ap_ready.
    done_at: Vec<u64>,
    ready_at: Vec<u64>,
    idle: bool,
    /// Cycles at which rst_n is low.
    reset_at: Vec<u64>,
}

/// How the master orders the write channels.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Order {
    Together,
    /// AW first; W this many cycles after AW is accepted.
    AwFirst(u64),
    /// W first; AW this many cycles after W is accepted.
    WFirst(u64),
}

/// When each handshake of a write happened.
#[derive(Debug)]
struct WriteCycles {
    aw: u64,
    w: u64,
    b: u64,
    /// First cycle bvalid was seen.
    bvalid: u64,
}

/// When each handshake of a read happened, and the data.
#[derive(Debug)]
struct Read {
    data: u32,
    ar: u64,
    r: u64,
    rvalid: u64,
}

impl<const N: usize> Tb<N> {
    fn new() -> Self {
        let mut c = Control::<N>::new();
        c.connect_all_inputs();
        c.rst_n.next = true;
        c.s_axi_control_wstrb.next = 0xf.into();
        let mut tb = Tb {
            c,
            cycle: 0,
            done_at: vec![],
            ready_at: vec![],
            idle: true,
            reset_at: vec![],
        };
        tb.set_status(0);
        tb
    }

    /// Status inputs: register i reads `base + i`.
    fn set_status(&mut self, base: u32) {
        let c = &mut self.c;
        c.sts_cycles.next = (base as u64).into();
        c.sts_decisions.next = (base as u64 + 1).into();
        c.sts_fast.next = (base as u64 + 2).into();
        c.sts_slow.next = (base as u64 + 3).into();
        c.sts_view_changes.next = (base as u64 + 4).into();
        c.sts_view.next = (base as u64 + 5).into();
        c.sts_timeouts.next = (base as u64 + 6).into();
        c.sts_polls.next = (base as u64 + 7).into();
        c.sts_bad_shares.next = (base as u64 + 8).into();
        c.sts_acks.next = (base as u64 + 9).into();
        c.sts_write_errors.next = (base as u64 + 10).into();
        c.sts_error.next = ((base as u64 + 11) & 0xff).into();
        c.sts_state.next = ((base as u64 + 12) & 0xff).into();
        c.sts_guard_accepted.next = (base as u64 + 13).into();
        c.sts_guard_write_errors.next = (base as u64 + 14).into();
        c.sts_guard_refused_unknown_qp.next = (base as u64 + 15).into();
        c.sts_guard_refused_length.next = (base as u64 + 16).into();
        c.sts_guard_refused_unaligned.next = (base as u64 + 17).into();
        c.sts_guard_refused_outside.next = (base as u64 + 18).into();
        c.sts_guard_refused_data.next = (base as u64 + 19).into();
        c.sts_guard_refused_not_owner.next = (base as u64 + 20).into();
        c.sts_guard_refused_not_leader.next = (base as u64 + 21).into();
        c.sts_guard_refused_shape.next = (base as u64 + 22).into();
        c.sts_guard_refused_unchecked.next = (base as u64 + 23).into();
        // guard_refused_by_i: base + 24 + i, packed 32 bits per sender.
        let mut by = Bits::<{ rhdl_ubft::guard::REFUSED_BY_BITS }>::default();
        for i in 0..rhdl_ubft::params::N {
            by.set_bits::<32>(32 * i, (base as u64 + 24 + i as u64).into());
        }
        c.sts_guard_refused_by.next = by;
        // local_refused: base + 24 + N.
        c.sts_local_refused.next = (base as u64 + 24 + rhdl_ubft::params::N as u64).into();
        // chain_k: base + 25 + N; chain_h_i: base + 26 + N + i.
        let n = rhdl_ubft::params::N as u64;
        c.sts_chain_k.next = (base as u64 + 25 + n).into();
        let mut h = Bits::<{ rhdl_ubft::params::CHAIN_BITS }>::default();
        for i in 0..rhdl_ubft::params::CHAIN_WORDS {
            h.set_bits::<32>(32 * i, (base as u64 + 26 + n + i as u64).into());
        }
        c.sts_chain_h.next = h;
    }

    /// Applies the kernel-side inputs, settles with the clock low (the
    /// cycle's outputs are then valid), and returns; `edge` ends the cycle.
    fn settle(&mut self) {
        let cy = self.cycle;
        self.c.ap_done.next = self.done_at.contains(&cy);
        self.c.ap_ready.next = self.ready_at.contains(&cy);
        self.c.ap_idle.next = self.idle;
        self.c.rst_n.next = !self.reset_at.contains(&cy);
        self.c.clock.next = Clock::from(false);
        assert!(simulate(&mut self.c, 100));
    }
    fn edge(&mut self) {
        self.c.clock.next = Clock::from(true);
        assert!(simulate(&mut self.c, 100));
        self.cycle += 1;
    }
    /// One idle cycle of the master.
    fn idle_cycle(&mut self) {
        self.master_idle();
        self.settle();
        self.edge();
    }
    fn idle_cycles(&mut self, n: u64) {
        for _ in 0..n {
            self.idle_cycle();
        }
    }
    fn master_idle(&mut self) {
        let c = &mut self.c;
        c.s_axi_control_awvalid.next = false;
        c.s_axi_control_wvalid.next = false;
        c.s_axi_control_arvalid.next = false;
        c.s_axi_control_bready.next = true;
        c.s_axi_control_rready.next = true;
    }

    /// One AXI4-Lite write; bready is held low for `b_stall` cycles after
    /// bvalid rises. Asserts the handshake rules on the way.
    fn write_with(
        &mut self,
        addr: u64,
        data: u32,
        strb: u64,
        order: Order,
        b_stall: u64,
    ) -> WriteCycles {
        let (mut aw, mut w, mut b, mut bvalid) = (None, None, None, None);
        let mut bdata_stable = None;
        for _ in 0..100 {
            let cy = self.cycle;
            let aw_on = aw.is_none()
                && match order {
                    Order::Together | Order::AwFirst(_) => true,
                    Order::WFirst(d) => w.map_or(false, |wc: u64| cy >= wc + d),
                };
            let w_on = w.is_none()
                && match order {
                    Order::Together | Order::WFirst(_) => true,
                    Order::AwFirst(d) => aw.map_or(false, |ac: u64| cy >= ac + d),
                };
            let c = &mut self.c;
            c.s_axi_control_awvalid.next = aw_on;
            c.s_axi_control_awaddr.next = addr.into();
            c.s_axi_control_wvalid.next = w_on;
            c.s_axi_control_wdata.next = (data as u64).into();
            c.s_axi_control_wstrb.next = strb.into();
            c.s_axi_control_arvalid.next = false;
            c.s_axi_control_rready.next = true;
            let bready = bvalid.map_or(b_stall == 0, |bv: u64| cy >= bv + b_stall);
            c.s_axi_control_bready.next = bready;
            self.settle();
            let c = &self.c;
            if aw_on && c.s_axi_control_awready.val() {
                aw = Some(cy);
            }
            if w_on && c.s_axi_control_wready.val() {
                w = Some(cy);
            }
            if c.s_axi_control_bvalid.val() {
                assert!(
                    aw.is_some() && w.is_some(),
                    "B before AW and W at cycle {cy}"
                );
                assert_eq!(c.s_axi_control_bresp.val().to_u64(), 0, "bresp OKAY");
                bvalid.get_or_insert(cy);
                bdata_stable.get_or_insert(true);
                if bready {
                    b = Some(cy);
                }
            } else {
                assert!(
                    bvalid.is_none(),
                    "bvalid dropped before bready at cycle {cy}"
                );
            }
            self.edge();
            if b.is_some() {
                break;
            }
        }
        self.master_idle();
        WriteCycles {
            aw: aw.expect("AW never accepted"),
            w: w.expect("W never accepted"),
            b: b.expect("B never taken"),
            bvalid: bvalid.unwrap(),
        }
    }

    fn write(&mut self, addr: u64, data: u32) -> WriteCycles {
        self.write_with(addr, data, 0xf, Order::Together, 0)
    }

    /// One AXI4-Lite read; rready is held low for `r_stall` cycles after
    /// rvalid rises; rdata must stay put while it waits.
    fn read_with(&mut self, addr: u64, r_stall: u64) -> Read {
        let (mut ar, mut r, mut rvalid, mut data) = (None, None, None, None::<u32>);
        for _ in 0..100 {
            let cy = self.cycle;
            let ar_on = ar.is_none();
            let rready = rvalid.map_or(r_stall == 0, |rv: u64| cy >= rv + r_stall);
            let c = &mut self.c;
            c.s_axi_control_arvalid.next = ar_on;
            c.s_axi_control_araddr.next = addr.into();
            c.s_axi_control_rready.next = rready;
            c.s_axi_control_awvalid.next = false;
            c.s_axi_control_wvalid.next = false;
            c.s_axi_control_bready.next = true;
            self.settle();
            let c = &self.c;
            if ar_on && c.s_axi_control_arready.val() {
                ar = Some(cy);
            }
            if c.s_axi_control_rvalid.val() {
                assert!(ar.is_some(), "R before AR");
                assert!(
                    !c.s_axi_control_arready.val(),
                    "arready while an R is pending"
                );
                assert_eq!(c.s_axi_control_rresp.val().to_u64(), 0, "rresp OKAY");
                let d = c.s_axi_control_rdata.val().to_u64() as u32;
                if let Some(prev) = data {
                    assert_eq!(prev, d, "rdata changed while rvalid waited");
                }
                data = Some(d);
                rvalid.get_or_insert(cy);
                if rready {
                    r = Some(cy);
                }
            } else {
                assert!(rvalid.is_none(), "rvalid dropped before rready");
            }
            self.edge();
            if r.is_some() {
                break;
            }
        }
        self.master_idle();
        Read {
            data: data.unwrap(),
            ar: ar.unwrap(),
            r: r.expect("R never taken"),
            rvalid: rvalid.unwrap(),
        }
    }

    fn read(&mut self, addr: u64) -> u32 {
        self.read_with(addr, 0).data
    }
}

fn mask(bits: usize) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

#[test]
fn after_reset_the_slave_is_ready_and_quiet() {
    let mut tb = Tb::<8>::new();
    tb.reset_at = vec![0, 1];
    tb.master_idle();
    tb.settle();
    assert!(
        !tb.c.s_axi_control_awready.val(),
        "no AW taken during reset"
    );
    assert!(
        !tb.c.s_axi_control_arready.val(),
        "no AR taken during reset"
    );
    tb.edge();
    tb.idle_cycles(2);
    tb.settle();
    let c = &tb.c;
    assert!(
        c.s_axi_control_awready.val()
            && c.s_axi_control_wready.val()
            && c.s_axi_control_arready.val()
    );
    assert!(!c.s_axi_control_bvalid.val() && !c.s_axi_control_rvalid.val());
    assert!(!c.interrupt.val() && !c.ap_start.val());
    tb.edge();
    // CTRL reads ap_idle only.
    assert_eq!(tb.read(regs::CTRL), ctrl::AP_IDLE);
}

#[test]
fn every_register_is_written_and_read_back_at_its_table_offset() {
    let mut tb = Tb::<8>::new();
    tb.set_status(0x1000);
    tb.idle_cycles(2);
    for (name, off, r) in regs::expanded() {
        let pattern = 0xA5C3_0F00u32.wrapping_add(off as u32 * 0x0101_0101);
        match r.access {
            regs::Access::Arg => {
                tb.write(off, pattern);
                if r.bits > 32 {
                    tb.write(off + 4, !pattern);
                    assert_eq!(tb.read(off), pattern, "{name} lo");
                    assert_eq!(tb.read(off + 4), !pattern, "{name} hi");
                } else {
                    assert_eq!(tb.read(off), pattern & mask(r.bits), "{name}");
                }
            }
            regs::Access::Status => {
                tb.write(off, pattern); // ignored
                let i = [
                    "cycles",
                    "decisions",
                    "fast",
                    "slow",
                    "view_changes",
                    "view",
                    "timeouts",
                    "polls",
                    "bad_shares",
                    "acks",
                    "write_errors",
                    "error",
                    "state",
                    "guard_accepted",
                    "guard_write_errors",
                    "guard_refused_0",
                    "guard_refused_1",
                    "guard_refused_2",
                    "guard_refused_3",
                    "guard_refused_4",
                    "guard_refused_5",
                    "guard_refused_6",
                    "guard_refused_7",
                    "guard_refused_8",
                    "guard_refused_by_0",
                    "guard_refused_by_1",
                    "guard_refused_by_2",
                    "guard_refused_by_3",
                    "guard_refused_by_4",
                    "guard_refused_by_5",
                    "guard_refused_by_6",
                    "guard_refused_by_7",
                    "local_refused",
                    "chain_k",
                    "chain_h_0",
                    "chain_h_1",
                    "chain_h_2",
                    "chain_h_3",
                    "chain_h_4",
                    "chain_h_5",
                    "chain_h_6",
                    "chain_h_7",
                ]
                .iter()
                .position(|s| *s == name)
                .unwrap() as u32;
                assert_eq!(tb.read(off), (0x1000 + i) & mask(r.bits), "{name}");
            }
            _ => {}
        }
    }
    // The kernel-side outputs carry the arguments.
    tb.settle();
    let c = &tb.c;
    let pat = |off: u64| 0xA5C3_0F00u32.wrapping_add(off as u32 * 0x0101_0101);
    let lo = pat(regs::NETWORK_PTR_LO) as u64;
    let hi = (!pat(regs::NETWORK_PTR_LO)) as u64;
    assert_eq!(c.network_ptr.val().to_u64(), (hi << 32) | lo);
    assert_eq!(c.id.val().to_u64(), (pat(regs::ID) & 0xff) as u64);
    assert_eq!(c.n.val().to_u64(), (pat(regs::NREPL) & 0xff) as u64);
    assert_eq!(
        c.wait_polls.val().to_u64(),
        (pat(regs::WAIT_POLLS) & 0xffff) as u64
    );
    assert_eq!(c.slots.val().to_u64(), pat(regs::SLOTS) as u64);
    for i in 0..8 {
        let q = c.qpns.val().get_bits::<10>(10 * i).to_u64();
        assert_eq!(q, (pat(regs::QPN + 4 * i as u64) & 0x3ff) as u64, "qpn_{i}");
    }
    tb.edge();
    // Unmapped offsets read 0 and ignore writes.
    tb.write(regs::END, 0xffff_ffff);
    assert_eq!(tb.read(regs::END), 0);
    assert_eq!(tb.read(0xffc), 0);
}

#[test]
fn a_write_with_aw_and_w_together_lands_one_cycle_later_and_b_follows() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(2);
    let t = tb.cycle;
    let wc = tb.write(regs::SLOTS, 77);
    assert_eq!((wc.aw, wc.w), (t, t), "AW and W taken in the first cycle");
    assert_eq!(wc.bvalid, t + 2, "B valid two cycles after AW/W");
    assert_eq!(wc.b, t + 2);
    // The register's output changed at t + 2 (it is 77 now).
    tb.settle();
    assert_eq!(tb.c.slots.val().to_u64(), 77);
    tb.edge();
}

#[test]
fn aw_before_w_and_w_before_aw_both_write() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    // AW first, W three cycles after: awready falls while AW is held.
    let t = tb.cycle;
    let wc = tb.write_with(regs::ID, 0x12, 0xf, Order::AwFirst(3), 0);
    assert_eq!(wc.aw, t);
    assert_eq!(wc.w, t + 3);
    assert_eq!(wc.bvalid, wc.w + 2, "B two cycles after the later channel");
    assert_eq!(tb.read(regs::ID), 0x12);
    // W first, AW four cycles after.
    let t = tb.cycle;
    let wc = tb.write_with(regs::NREPL, 0x5, 0xf, Order::WFirst(4), 0);
    assert_eq!(wc.w, t);
    assert_eq!(wc.aw, t + 4);
    assert_eq!(wc.bvalid, wc.aw + 2);
    assert_eq!(tb.read(regs::NREPL), 0x5);
}

#[test]
fn holding_registers_block_a_second_aw_until_its_w_comes() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    // AW alone at t: held; awready is low from t + 1 and no B comes.
    let t = tb.cycle;
    for i in 0..8u64 {
        let c = &mut tb.c;
        c.s_axi_control_awvalid.next = i == 0;
        c.s_axi_control_awaddr.next = regs::SLOTS.into();
        c.s_axi_control_wvalid.next = i == 5;
        c.s_axi_control_wdata.next = 9.into();
        c.s_axi_control_bready.next = true;
        tb.settle();
        let c = &tb.c;
        assert_eq!(
            c.s_axi_control_awready.val(),
            i == 0 || i >= 7,
            "awready at t + {i}"
        );
        assert!(c.s_axi_control_wready.val() || i == 6, "wready at t + {i}");
        assert_eq!(c.s_axi_control_bvalid.val(), i == 7, "bvalid at t + {i}");
        tb.edge();
    }
    let _ = t;
    assert_eq!(tb.read(regs::SLOTS), 9);
}

#[test]
fn b_back_pressure_holds_bvalid_and_delays_the_next_write() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    let t = tb.cycle;
    let wc = tb.write_with(regs::SLOTS, 1, 0xf, Order::Together, 5);
    assert_eq!(wc.bvalid, t + 2);
    assert_eq!(wc.b, t + 7, "bvalid held five cycles until bready");
    // A second write whose channels arrive while B is pending: it is held,
    // and lands only after the first B is taken.
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    let t = tb.cycle;
    // Cycle t: first write AW+W; keep bready low.
    for i in 0..12u64 {
        let c = &mut tb.c;
        c.s_axi_control_awvalid.next = i == 0 || i == 3;
        c.s_axi_control_wvalid.next = i == 0 || i == 3;
        c.s_axi_control_awaddr.next = regs::SLOTS.into();
        c.s_axi_control_wdata.next = (100 + i).into();
        c.s_axi_control_wstrb.next = 0xf.into();
        c.s_axi_control_bready.next = i >= 8;
        tb.settle();
        let c = &tb.c;
        if i == 3 {
            assert!(
                c.s_axi_control_awready.val() && c.s_axi_control_wready.val(),
                "second write held"
            );
        }
        if (2..=8).contains(&i) {
            assert!(c.s_axi_control_bvalid.val(), "first B held at t + {i}");
            assert_eq!(
                c.slots.val().to_u64(),
                100,
                "second write waits for the first B"
            );
        }
        if i == 10 {
            assert!(c.s_axi_control_bvalid.val(), "second B");
            assert_eq!(c.slots.val().to_u64(), 103);
        }
        tb.edge();
    }
    let _ = t;
}

#[test]
fn r_comes_one_cycle_after_ar_and_is_held_under_back_pressure() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    tb.write(regs::SLOTS, 0xdead_beef);
    let t = tb.cycle;
    let r = tb.read_with(regs::SLOTS, 0);
    assert_eq!(
        (r.ar, r.rvalid, r.r, r.data),
        (t, t + 1, t + 1, 0xdead_beef)
    );
    let t = tb.cycle;
    let r = tb.read_with(regs::SLOTS, 4);
    assert_eq!(
        (r.ar, r.rvalid, r.r),
        (t, t + 1, t + 5),
        "rvalid held four cycles"
    );
    assert_eq!(r.data, 0xdead_beef);
}

#[test]
fn byte_strobes_write_only_their_bytes() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    tb.write(regs::SLOTS, 0x1122_3344);
    tb.write_with(regs::SLOTS, 0xaabb_ccdd, 0b0101, Order::Together, 0);
    assert_eq!(tb.read(regs::SLOTS), 0x11bb_33dd);
    tb.write_with(regs::SLOTS, 0xaabb_ccdd, 0b1000, Order::Together, 0);
    assert_eq!(tb.read(regs::SLOTS), 0xaabb_33dd);
    // A 10-bit qpn: byte 1 carries bits 9:8.
    let q3 = regs::QPN + 12;
    tb.write(q3, 0x2ff);
    tb.write_with(q3, 0x100, 0b0010, Order::Together, 0);
    assert_eq!(tb.read(q3), 0x1ff);
    tb.write_with(q3, 0x0ab, 0b0001, Order::Together, 0);
    assert_eq!(tb.read(q3), 0x1ab);
    assert_eq!(tb.read(regs::QPN + 8), 0, "neighbours untouched");
    assert_eq!(tb.read(regs::QPN + 16), 0);
    // No strobe: nothing written.
    tb.write_with(regs::ID, 0x55, 0, Order::Together, 0);
    assert_eq!(tb.read(regs::ID), 0);
    // The 64-bit pointer's words, byte by byte.
    tb.write(regs::NETWORK_PTR_HI, 0x0000_0001);
    tb.write_with(
        regs::NETWORK_PTR_LO,
        0x0000_4000,
        0b0010,
        Order::Together,
        0,
    );
    tb.settle();
    assert_eq!(tb.c.network_ptr.val().to_u64(), 0x1_0000_4000);
    tb.edge();
}

#[test]
fn ap_start_is_held_until_ap_ready_and_ap_done_is_cleared_on_read() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    let wc = tb.write(regs::CTRL, ctrl::AP_START);
    // ap_start rose when the write landed: the cycle bvalid rose.
    let start = wc.bvalid;
    tb.idle = false;
    // The kernel takes the start (ap_ready) 6 cycles later, finishes at 20.
    tb.ready_at = vec![start + 6];
    tb.done_at = vec![start + 20];
    let mut seen = vec![];
    while tb.cycle < start + 25 {
        tb.master_idle();
        tb.settle();
        seen.push((tb.cycle, tb.c.ap_start.val()));
        tb.edge();
        if tb.cycle == start + 3 {
            // CTRL while running: ap_start set, not idle (ap_idle reads one cycle late).
            let v = tb.read(regs::CTRL);
            assert_eq!(
                v & (ctrl::AP_START | ctrl::AP_DONE | ctrl::AP_IDLE),
                ctrl::AP_START
            );
        }
    }
    for (cy, s) in seen {
        assert_eq!(s, cy <= start + 6, "ap_start at cycle {cy} (start {start})");
    }
    tb.idle = true;
    tb.idle_cycles(1);
    let v = tb.read(regs::CTRL);
    assert_eq!(
        v,
        ctrl::AP_DONE | ctrl::AP_IDLE | ctrl::AP_READY,
        "done and ready latched"
    );
    assert_eq!(tb.read(regs::CTRL), ctrl::AP_IDLE, "cleared by the read");
}

#[test]
fn ap_start_rose_at_the_cycle_the_write_landed() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    let t = tb.cycle;
    for i in 0..4u64 {
        let c = &mut tb.c;
        c.s_axi_control_awvalid.next = i == 0;
        c.s_axi_control_wvalid.next = i == 0;
        c.s_axi_control_awaddr.next = regs::CTRL.into();
        c.s_axi_control_wdata.next = 1.into();
        tb.settle();
        assert_eq!(tb.c.ap_start.val(), i >= 2, "ap_start at t + {i}");
        tb.edge();
    }
    let _ = t;
}

#[test]
fn a_done_pulse_during_the_read_of_ctrl_is_not_lost() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    tb.done_at = vec![tb.cycle]; // AR of CTRL is accepted this same cycle
    let r = tb.read_with(regs::CTRL, 0);
    assert_eq!(
        r.data & ctrl::AP_DONE,
        0,
        "R carries the value before the pulse"
    );
    assert_eq!(
        tb.read(regs::CTRL) & ctrl::AP_DONE,
        ctrl::AP_DONE,
        "the pulse is kept"
    );
    assert_eq!(tb.read(regs::CTRL) & ctrl::AP_DONE, 0);
}

#[test]
fn auto_restart_sets_ap_start_again_at_ap_ready() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    tb.write(regs::CTRL, ctrl::AP_START | ctrl::AUTO_RESTART);
    tb.ready_at = vec![tb.cycle + 3, tb.cycle + 10];
    for _ in 0..15 {
        tb.master_idle();
        tb.settle();
        assert!(
            tb.c.ap_start.val(),
            "auto_restart keeps ap_start at cycle {}",
            tb.cycle
        );
        tb.edge();
    }
    // Clearing auto_restart: ap_start falls at the next ap_ready.
    tb.write(regs::CTRL, 0);
    assert_eq!(
        tb.read(regs::CTRL) & (ctrl::AP_START | ctrl::AUTO_RESTART),
        ctrl::AP_START
    );
    tb.ready_at = vec![tb.cycle + 2];
    tb.idle_cycles(4);
    tb.settle();
    assert!(!tb.c.ap_start.val());
    tb.edge();
}

#[test]
fn interrupt_follows_gier_ier_and_isr() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    // Not enabled: ap_done sets nothing in ISR.
    tb.done_at = vec![tb.cycle];
    tb.idle_cycles(2);
    assert_eq!(tb.read(regs::IP_ISR), 0);
    tb.read(regs::CTRL);
    tb.write(regs::GIER, 1);
    tb.write(regs::IP_IER, isr::DONE);
    assert_eq!(tb.read(regs::GIER), 1);
    assert_eq!(tb.read(regs::IP_IER), isr::DONE);
    // ap_ready alone: IER bit 1 is off, no interrupt.
    tb.ready_at = vec![tb.cycle];
    tb.idle_cycles(2);
    tb.settle();
    assert!(!tb.c.interrupt.val());
    tb.edge();
    // ap_done: interrupt the cycle after.
    let d = tb.cycle;
    tb.done_at = vec![d];
    tb.master_idle();
    tb.settle();
    assert!(!tb.c.interrupt.val());
    tb.edge();
    tb.settle();
    assert!(tb.c.interrupt.val(), "interrupt at ap_done + 1");
    tb.edge();
    assert_eq!(tb.read(regs::IP_ISR), isr::DONE);
    // Reading CTRL does not clear ISR; writing 1 toggles it off.
    tb.read(regs::CTRL);
    tb.settle();
    assert!(tb.c.interrupt.val());
    tb.edge();
    tb.write(regs::IP_ISR, isr::DONE);
    tb.settle();
    assert!(!tb.c.interrupt.val());
    tb.edge();
    assert_eq!(tb.read(regs::IP_ISR), 0);
    // GIER off masks the output but ISR still records.
    tb.write(regs::GIER, 0);
    tb.done_at = vec![tb.cycle];
    tb.idle_cycles(2);
    tb.settle();
    assert!(!tb.c.interrupt.val());
    tb.edge();
    assert_eq!(tb.read(regs::IP_ISR), isr::DONE);
}

/// IP_ISR is toggle-on-write, as in Vitis HLS: a 1 written to a clear bit
/// sets it, and with GIER on that raises `interrupt` with no event at all;
/// writing 1 again clears it.
#[test]
fn writing_1_to_a_clear_isr_bit_sets_it_and_interrupts() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    tb.write(regs::GIER, 1);
    assert_eq!(tb.read(regs::IP_ISR), 0);
    tb.settle();
    assert!(!tb.c.interrupt.val());
    tb.edge();
    tb.write(regs::IP_ISR, isr::READY);
    tb.settle();
    assert!(tb.c.interrupt.val(), "a toggled-on ISR bit interrupts");
    tb.edge();
    assert_eq!(tb.read(regs::IP_ISR), isr::READY);
    tb.write(regs::IP_ISR, isr::READY | isr::DONE);
    assert_eq!(tb.read(regs::IP_ISR), isr::DONE, "each 1 toggles its bit");
    tb.write(regs::IP_ISR, isr::DONE);
    tb.settle();
    assert!(!tb.c.interrupt.val());
    tb.edge();
    assert_eq!(tb.read(regs::IP_ISR), 0);
}

#[test]
fn reset_drops_a_half_done_write_and_clears_control_but_keeps_arguments() {
    let mut tb = Tb::<8>::new();
    tb.idle_cycles(1);
    tb.write(regs::SLOTS, 42);
    tb.write(regs::GIER, 1);
    tb.write(regs::CTRL, ctrl::AP_START | ctrl::AUTO_RESTART);
    // AW only, then reset.
    tb.c.s_axi_control_awvalid.next = true;
    tb.c.s_axi_control_awaddr.next = regs::ID.into();
    tb.settle();
    tb.edge();
    tb.reset_at = vec![tb.cycle];
    tb.c.s_axi_control_awvalid.next = false;
    tb.settle();
    tb.edge();
    tb.reset_at.clear();
    // The W that follows has no AW: no B, no write.
    tb.c.s_axi_control_wvalid.next = true;
    tb.c.s_axi_control_wdata.next = 0x77.into();
    for _ in 0..4 {
        tb.settle();
        assert!(!tb.c.s_axi_control_bvalid.val());
        tb.edge();
        tb.c.s_axi_control_wvalid.next = false;
    }
    assert_eq!(tb.read(regs::SLOTS), 42, "arguments survive reset");
    assert_eq!(tb.read(regs::GIER), 0);
    assert_eq!(
        tb.read(regs::CTRL) & (ctrl::AP_START | ctrl::AUTO_RESTART),
        0
    );
    // The held W pairs with the next AW.
    tb.c.s_axi_control_awvalid.next = true;
    tb.c.s_axi_control_awaddr.next = regs::ID.into();
    tb.settle();
    assert!(!tb.c.s_axi_control_wready.val(), "W held since the reset");
    tb.edge();
    tb.c.s_axi_control_awvalid.next = false;
    tb.idle_cycles(2);
    assert_eq!(
        tb.read(regs::ID),
        0x77,
        "the W accepted after reset met this AW"
    );
}

#[test]
fn a_smaller_build_keeps_the_map_and_ignores_missing_qpns() {
    let mut tb = Tb::<3>::new();
    tb.idle_cycles(1);
    for i in 0..8u64 {
        tb.write(regs::QPN + 4 * i, 100 + i as u32);
    }
    for i in 0..8u64 {
        let want = if i < 3 { 100 + i as u32 } else { 0 };
        assert_eq!(tb.read(regs::QPN + 4 * i), want, "qpn_{i}");
    }
    tb.settle();
    assert_eq!(tb.c.qpns.val().get_bits::<10>(20).to_u64(), 102);
    assert_eq!(tb.c.qpns.val().get_bits::<10>(30).to_u64(), 0);
    tb.edge();
    assert_eq!(tb.read(regs::CYCLES), 0);
}

/// The checks of rust-hdl's `yosys_validate` (no latches, undriven or
/// implicit wires), on the Yosys on PATH or the pinned one (`hdl_tools`):
/// never skipped.
#[test]
fn the_verilog_passes_yosys_checks() {
    let v = rhdl_ubft::io::control::verilog::<8>();
    assert!(v.contains("module top("));
    let yosys = hdl_tools::Yosys::get().unwrap_or_else(|e| panic!("{e}"));
    let scratch = hdl_tools::target_dir().join("yosys-tests/control");
    yosys
        .check(&v, "top", &scratch)
        .unwrap_or_else(|e| panic!("{e}"));
}
