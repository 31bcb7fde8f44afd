//! Position: where the replica is in the log (docs/position.md).
//!
//! k is the sequence number and `slot` = (k - 1) mod G its slot;
//! `slot_n` = slot · R, R the records of a row (`Shape::row_records`),
//! the slot's offset in rows of R records. `prev` is dec[k - 1], the value
//! decided at k - 1 (0 before the first decision): what a prepare carries
//! and a lock checks (recovery.md R3, R4). `prev2` is dec[k - 2], known
//! when `prev2_ok` (R23's check of a carried prev). `rerun`: the slot was
//! decided and emitted before (R23's step back), so its decision is not
//! emitted, counted or retired again.
//!
//! | strobe | k | slot, slot_n | prev | prev2, prev2_ok | rerun |
//! | --- | --- | --- | --- | --- | --- |
//! | `start` (a run starts) | 1 | 0, 0 | 0 | –, 0 | 0 |
//! | `advance` (the slot is decided) | k + 1 | the next, wrapping at G | `m` | prev, 1 | 0 |
//! | `step_back` (R23: c* was decided here) | k - 1 | the one before, wrapping | `cons_prev` | –, 0 | 1 |
//!
//! `start` wins over `advance`, and `advance` over `step_back`; without
//! a strobe every register holds. Reset does not touch them: the next
//! `start` sets them afresh.
//!
//! Timing: a strobe at cycle c shows in the outputs from c + 1; every
//! output is a register's.

use crate::params::G;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Position {
    pub clock: Signal<In, Clock>,
    pub start: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    pub step_back: Signal<In, Bit>,
    /// The value decided at k (`advance`): the next slot's prev.
    pub m: Signal<In, Bits<32>>,
    /// dec[k - 2] once k steps back (`step_back`).
    pub cons_prev: Signal<In, Bits<32>>,
    pub k: Signal<Out, Bits<32>>,
    pub slot: Signal<Out, Bits<8>>,
    pub slot_n: Signal<Out, Bits<16>>,
    pub prev: Signal<Out, Bits<32>>,
    pub prev2: Signal<Out, Bits<32>>,
    pub prev2_ok: Signal<Out, Bit>,
    pub rerun: Signal<Out, Bit>,
    k_q: DFF<Bits<32>>,
    slot_q: DFF<Bits<8>>,
    slot_n_q: DFF<Bits<16>>,
    prev_q: DFF<Bits<32>>,
    prev2_q: DFF<Bits<32>>,
    prev2_ok_q: DFF<Bit>,
    rerun_q: DFF<Bit>,
    /// R, G - 1 and (G - 1) · R.
    row_n: Constant<Bits<16>>,
    last_slot: Constant<Bits<8>>,
    last_slot_n: Constant<Bits<16>>,
}

impl Position {
    /// The block for rows of `row_n` records.
    pub fn new(row_n: usize) -> Self {
        block!(Position {
            row_n: Constant::new((row_n as u64).into()),
            last_slot: Constant::new(((G - 1) as u64).into()),
            last_slot_n: Constant::new((((G - 1) * row_n) as u64).into()),
            ;
            defaults:
            clock, start, advance, step_back, m, cons_prev, k, slot, slot_n, prev,
            prev2, prev2_ok, rerun, k_q, slot_q, slot_n_q, prev_q, prev2_q,
            prev2_ok_q, rerun_q
        })
    }

    /// Sets k (and its slot) between clock edges, as if the run had begun
    /// there: a test aid, not hardware (`Protocol::preset_k`).
    pub fn preset_k(&mut self, k: u32) {
        assert!(k >= 1, "k starts at 1");
        let slot = (k as u64 - 1) % G as u64;
        self.k_q.q.next = (k as u64).into();
        self.k_q.q.update_all();
        self.slot_q.q.next = slot.into();
        self.slot_q.q.update_all();
        self.slot_n_q.q.next = (slot * self.row_n.val().index() as u64).into();
        self.slot_n_q.q.update_all();
    }

    /// The sequence number register.
    pub fn k_now(&self) -> u32 {
        self.k_q.q.val().to_u32()
    }
}

impl Logic for Position {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, k_q, slot_q, slot_n_q, prev_q, prev2_q, prev2_ok_q, rerun_q);
        self.k.next = self.k_q.q.val();
        self.slot.next = self.slot_q.q.val();
        self.slot_n.next = self.slot_n_q.q.val();
        self.prev.next = self.prev_q.q.val();
        self.prev2.next = self.prev2_q.q.val();
        self.prev2_ok.next = self.prev2_ok_q.q.val();
        self.rerun.next = self.rerun_q.q.val();
        if self.start.val() {
            self.k_q.d.next = 1.into();
            self.slot_q.d.next = 0.into();
            self.slot_n_q.d.next = 0.into();
            self.prev_q.d.next = 0.into();
            self.prev2_ok_q.d.next = false;
            self.rerun_q.d.next = false;
        } else if self.advance.val() {
            self.k_q.d.next = self.k_q.q.val() + 1;
            self.prev_q.d.next = self.m.val();
            self.prev2_q.d.next = self.prev_q.q.val();
            self.prev2_ok_q.d.next = true;
            self.rerun_q.d.next = false;
            if self.slot_q.q.val() == self.last_slot.val() {
                self.slot_q.d.next = 0.into();
                self.slot_n_q.d.next = 0.into();
            } else {
                self.slot_q.d.next = self.slot_q.q.val() + 1;
                self.slot_n_q.d.next = self.slot_n_q.q.val() + self.row_n.val();
            }
        } else if self.step_back.val() {
            self.k_q.d.next = self.k_q.q.val() - 1;
            self.prev_q.d.next = self.cons_prev.val();
            self.prev2_ok_q.d.next = false;
            self.rerun_q.d.next = true;
            if self.slot_q.q.val() == 0 {
                self.slot_q.d.next = self.last_slot.val();
                self.slot_n_q.d.next = self.last_slot_n.val();
            } else {
                self.slot_q.d.next = self.slot_q.q.val() - 1;
                self.slot_n_q.d.next = self.slot_n_q.q.val() - self.row_n.val();
            }
        }
    }
}
