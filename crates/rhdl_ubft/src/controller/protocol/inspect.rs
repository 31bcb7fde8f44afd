//! Protocol seen from a simulation: which machine is active, its state's
//! name and number, and the test aid that presets k. Not hardware: these
//! read and set the registers between clock edges.

use super::{Protocol, ProtocolSt};
use rust_hdl::prelude::*;

impl<const N: usize> Protocol<N> {
    /// Which machines are out of Off: LEADER, FAST, SLOW, VIEW (a debugging
    /// aid and the single-active-machine check of the tests; Protocol's own
    /// state is Run exactly when one of them is).
    pub fn machines(&self) -> [bool; 4] {
        [
            self.leader.active(),
            self.fast.active(),
            self.slow.active(),
            self.view.active(),
        ]
    }

    /// Starts the slot registers at sequence number `k` (slot (k - 1) mod
    /// G) as if the run had begun there: a test aid (not hardware) that
    /// reaches the k at which a run stops (`params::K_LAST`) without 16.7 M
    /// decisions. Call it between clock edges, before the slot's first poll
    /// (the cycle Protocol enters Run); the decision counters are left alone.
    pub fn preset_k(&mut self, k: u32) {
        self.position.preset_k(k);
    }

    /// The sequence number register.
    pub fn k(&self) -> u32 {
        self.position.k_now()
    }

    /// Protocol's own state.
    pub fn own_state(&self) -> ProtocolSt {
        self.state.q.val()
    }

    /// The state's name, read from the state registers (the active
    /// machine's, else Protocol's own): what `sts_state` should name.
    pub fn state_name(&self) -> String {
        let [l, f, s, v] = self.machines();
        if l {
            format!("{:?}", self.leader.state())
        } else if f {
            format!("{:?}", self.fast.state())
        } else if s {
            format!("{:?}", self.slow.state())
        } else if v {
            format!("{:?}", self.view.state())
        } else {
            format!("{:?}", self.own_state())
        }
    }

    /// The number `sts_state` reports in Protocol's own state `st` (Run
    /// reports 0: the active machine's number is ORed in), read from the
    /// logic with every machine Off.
    pub fn reported(st: ProtocolSt) -> u8 {
        let mut b = Self::new();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.own_state.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}
