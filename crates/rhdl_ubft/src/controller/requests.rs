//! Requests: the client requests a replica holds and has not seen decided
//! (the buffer B of docs/recovery.md, R1 and R2).
//!
//! Every client request goes to every replica (R1), so each replica keeps
//! its own copy of the pending requests, taken from its `prop` stream. A
//! request leaves B when this replica decides its value, under any leader,
//! in any slot. What B answers:
//!
//! - `head_valid`, `head_m`: the oldest request held, which LEADER proposes
//!   (it stays in B until decided: a proposal that a view change drops is
//!   proposed again);
//! - `holds`: whether a request with value `probe_m` is held, which FAST
//!   checks before it votes for a prepare (R2: a made-up value is never
//!   voted for, so never decided; a value not held *yet* is a miss, and the
//!   poll is tried again).
//!
//! Structure: `params::REQUESTS` entries in arrival order, entry 0 the
//! oldest, and a thermometer of valid bits (`valid`: entries 0 .. count-1).
//! A retirement (`retire` with the decided `retire_m`) removes the oldest
//! entry holding that value and moves every entry above it down by one, so
//! the order is kept and the free entries stay on top. A request taken in
//! the same cycle goes into the first free entry after the removal.
//!
//! Ports: `prop_tdata`, `prop_tvalid`, `prop_tready` (AXI-Stream from the
//! client: `tready` is high whenever an entry is free and the block is not
//! in reset, and does not depend on `tvalid`); `probe_m` → `holds` and
//! `head_*` (combinational); `retire`, `retire_m` (one retirement a cycle).
//!
//! Timing: a request taken at cycle c is in `head_*` and `holds` from
//! c + 1; a retirement at c is out of them from c + 1. B is full at
//! `REQUESTS` entries; a full B holds the stream back (`tready` low).
//!
//! Reset (`rst_n`, synchronous, active low): empty the next cycle. B is not
//! emptied by `ap_start`: requests taken before a run, or left by the last
//! one, are still pending, and none is lost.

use crate::params::REQUESTS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Requests {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Requests in (AXI-Stream).
    pub prop_tdata: Signal<In, Bits<32>>,
    pub prop_tvalid: Signal<In, Bit>,
    pub prop_tready: Signal<Out, Bit>,
    /// The oldest request held.
    pub head_valid: Signal<Out, Bit>,
    pub head_m: Signal<Out, Bits<32>>,
    /// Is a request with value `probe_m` held?
    pub probe_m: Signal<In, Bits<32>>,
    pub holds: Signal<Out, Bit>,
    /// With `retire`: the value decided, removed (its oldest entry).
    pub retire: Signal<In, Bit>,
    pub retire_m: Signal<In, Bits<32>>,
    ent: [DFF<Bits<32>>; REQUESTS],
    valid: DFF<Bits<REQUESTS>>,
    // Combinational temporaries.
    room: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    /// Running OR of the retirement's matches, entry 0 up.
    gone: Signal<Local, Bit>,
    /// Entry i is at or above the retired one: it takes entry i + 1.
    hole: [Signal<Local, Bit>; REQUESTS],
    /// The entries and valid bits after the retirement.
    mid: [Signal<Local, Bits<32>>; REQUESTS],
    midv: [Signal<Local, Bit>; REQUESTS],
    placed: Signal<Local, Bit>,
    /// The entries that hold `probe_m`.
    hits: Signal<Local, Bits<REQUESTS>>,
    nv: Signal<Local, Bits<REQUESTS>>,
    all: Constant<Bits<REQUESTS>>,
}

impl Default for Requests {
    fn default() -> Self {
        Requests {
            clock: Default::default(),
            rst_n: Default::default(),
            prop_tdata: Default::default(),
            prop_tvalid: Default::default(),
            prop_tready: Default::default(),
            head_valid: Default::default(),
            head_m: Default::default(),
            probe_m: Default::default(),
            holds: Default::default(),
            retire: Default::default(),
            retire_m: Default::default(),
            ent: std::array::from_fn(|_| Default::default()),
            valid: Default::default(),
            room: Default::default(),
            take: Default::default(),
            gone: Default::default(),
            hole: std::array::from_fn(|_| Default::default()),
            mid: std::array::from_fn(|_| Default::default()),
            midv: std::array::from_fn(|_| Default::default()),
            placed: Default::default(),
            hits: Default::default(),
            nv: Default::default(),
            all: Constant::new(((1u64 << REQUESTS) - 1).to_bits()),
        }
    }
}

/// The last entry (the loops below treat it apart: nothing is above it).
const LAST: usize = REQUESTS - 1;
const _: () = assert!(REQUESTS >= 2 && REQUESTS <= 32);

impl Requests {
    /// The values held, oldest first (for tests and the simulator's view).
    pub fn held(&self) -> Vec<u32> {
        let v = self.valid.q.val().index() as u64;
        (0..REQUESTS)
            .filter(|&i| v >> i & 1 == 1)
            .map(|i| self.ent[i].q.val().index() as u32)
            .collect()
    }
}

impl Logic for Requests {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid);
        for i in 0..REQUESTS {
            self.ent[i].clock.next = self.clock.val();
            self.ent[i].d.next = self.ent[i].q.val();
        }
        self.room.next = self.rst_n.val() & (self.valid.q.val() != self.all.val());
        self.take.next = self.prop_tvalid.val() & self.room.val();
        self.prop_tready.next = self.room.val();
        self.head_valid.next = self.valid.q.val().get_bit(0);
        self.head_m.next = self.ent[0].q.val();
        // Membership. Every output is assigned once per pass: a port set to
        // a default and then overridden glitches in event-driven simulators
        // (Icarus loops forever when two blocks glitch into each other).
        self.hits.next = 0.into();
        for i in 0..REQUESTS {
            if self.valid.q.val().get_bit(i) & (self.ent[i].q.val() == self.probe_m.val()) {
                self.hits.next = self.hits.val().replace_bit(i, true);
            }
        }
        self.holds.next = self.hits.val().any();
        // The retirement: from the oldest match up, each entry takes the
        // one above it.
        self.gone.next = false;
        for i in 0..REQUESTS {
            if self.retire.val()
                & self.valid.q.val().get_bit(i)
                & (self.ent[i].q.val() == self.retire_m.val())
            {
                self.gone.next = true;
            }
            self.hole[i].next = self.gone.val();
        }
        for i in 0..LAST {
            if self.hole[i].val() {
                self.mid[i].next = self.ent[i + 1].q.val();
                self.midv[i].next = self.valid.q.val().get_bit(i + 1);
            } else {
                self.mid[i].next = self.ent[i].q.val();
                self.midv[i].next = self.valid.q.val().get_bit(i);
            }
        }
        for i in LAST..REQUESTS {
            self.mid[i].next = self.ent[i].q.val();
            self.midv[i].next = self.valid.q.val().get_bit(i) & !self.hole[i].val();
        }
        // The request taken goes into the first free entry.
        self.placed.next = false;
        self.nv.next = 0.into();
        for i in 0..REQUESTS {
            self.ent[i].d.next = self.mid[i].val();
            if self.midv[i].val() {
                self.nv.next = self.nv.val().replace_bit(i, true);
            } else if self.take.val() & !self.placed.val() {
                self.ent[i].d.next = self.prop_tdata.val();
                self.nv.next = self.nv.val().replace_bit(i, true);
                self.placed.next = true;
            }
        }
        self.valid.d.next = self.nv.val();
        if !self.rst_n.val() {
            self.valid.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// One clock edge with these inputs; returns (tready, head, holds) as
    /// seen before the edge.
    fn step(
        b: &mut Requests,
        prop: Option<u32>,
        probe: u32,
        retire: Option<u32>,
    ) -> (bool, Option<u32>, bool) {
        b.rst_n.next = true;
        b.prop_tvalid.next = prop.is_some();
        b.prop_tdata.next = (prop.unwrap_or(0) as u64).to_bits();
        b.probe_m.next = (probe as u64).to_bits();
        b.retire.next = retire.is_some();
        b.retire_m.next = (retire.unwrap_or(0) as u64).to_bits();
        assert!(simulate(b, 100));
        let seen = (
            b.prop_tready.val(),
            b.head_valid.val().then(|| b.head_m.val().index() as u32),
            b.holds.val(),
        );
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
        seen
    }

    fn block() -> Requests {
        let mut b = Requests::default();
        b.connect_all();
        b.rst_n.next = false;
        b.clock.next = Clock::from(false);
        assert!(simulate(&mut b, 100));
        b.clock.next = Clock::from(true);
        assert!(simulate(&mut b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(&mut b, 100));
        b
    }

    #[test]
    fn takes_in_order_holds_back_when_full_and_proposes_the_oldest() {
        let mut b = block();
        assert_eq!(b.held(), Vec::<u32>::new());
        let mut taken = vec![];
        for v in 1..=(REQUESTS as u32 + 3) {
            let (ready, _, _) = step(&mut b, Some(100 + v), 0, None);
            if ready {
                taken.push(100 + v);
            }
        }
        assert_eq!(taken.len(), REQUESTS, "tready falls when B is full");
        assert_eq!(b.held(), taken);
        let (ready, head, holds) = step(&mut b, None, 103, None);
        assert!(!ready);
        assert_eq!(head, Some(101));
        assert!(holds);
        let (_, _, holds) = step(&mut b, None, 999, None);
        assert!(!holds, "a value never taken is not held");
    }

    #[test]
    fn a_retirement_removes_the_value_keeps_the_order_and_frees_an_entry() {
        let mut b = block();
        for v in [5, 6, 7, 8] {
            step(&mut b, Some(v), 0, None);
        }
        // Retire from the middle while a request is taken in the same cycle.
        step(&mut b, Some(9), 0, Some(6));
        assert_eq!(b.held(), vec![5, 7, 8, 9]);
        // A value not held retires nothing.
        step(&mut b, None, 0, Some(42));
        assert_eq!(b.held(), vec![5, 7, 8, 9]);
        // The head.
        step(&mut b, None, 0, Some(5));
        assert_eq!(b.held(), vec![7, 8, 9]);
        let (_, head, holds) = step(&mut b, None, 5, None);
        assert_eq!(head, Some(7));
        assert!(!holds, "a decided value is no longer valid");
        // A duplicate request: one retirement removes its oldest copy only.
        step(&mut b, Some(8), 0, None);
        step(&mut b, None, 0, Some(8));
        assert_eq!(b.held(), vec![7, 9, 8]);
    }

    #[test]
    fn matches_a_queue_over_random_traffic() {
        // A reference deque, driven with random takes, retirements of held
        // and unheld values, and probes, cycle by cycle.
        let mut b = block();
        let mut q: VecDeque<u32> = VecDeque::new();
        let mut x: u64 = 0x1234_5678;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..20_000 {
            let prop = (rnd(3) != 0).then(|| 1 + rnd(12) as u32);
            let retire = match rnd(4) {
                0 => None,
                1 => Some(1 + rnd(12) as u32),
                _ => q.get(rnd(q.len().max(1) as u64) as usize).copied(),
            };
            let probe = 1 + rnd(13) as u32;
            let (ready, head, holds) = step(&mut b, prop, probe, retire);
            assert_eq!(ready, q.len() < REQUESTS);
            assert_eq!(head, q.front().copied());
            assert_eq!(holds, q.contains(&probe));
            if let Some(m) = retire {
                if let Some(p) = q.iter().position(|&v| v == m) {
                    q.remove(p);
                }
            }
            if let (Some(v), true) = (prop, ready) {
                q.push_back(v);
            }
            assert_eq!(b.held(), q.iter().copied().collect::<Vec<_>>());
        }
    }

    #[test]
    fn reset_empties_it() {
        let mut b = block();
        step(&mut b, Some(3), 0, None);
        assert_eq!(b.held(), vec![3]);
        b.rst_n.next = false;
        assert!(simulate(&mut b, 100));
        assert!(!b.prop_tready.val(), "not ready in reset");
        b.clock.next = Clock::from(true);
        assert!(simulate(&mut b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(&mut b, 100));
        assert!(b.held().is_empty());
    }

    #[test]
    fn it_exports_to_verilog() {
        // The kernel's lint and `cargo xtask verilog --check` cover it as
        // part of the kernel; this catches an hdl_gen construct that does
        // not export, in this block alone.
        let mut b = Requests::default();
        b.connect_all();
        let v = generate_verilog(&b);
        assert!(v.contains("module top"));
        assert!(v.contains("ent$7"), "one register per entry");
    }
}
