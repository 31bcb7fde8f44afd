//! Config: the run's configuration checked, and what follows from n
//! (docs/config.md).
//!
//! `refusal` is the code of the first rule the configuration breaks, 0
//! when it breaks none (`ConfigError`, docs/registers.md):
//!
//! | rule | code |
//! | --- | --- |
//! | n is odd | `EvenReplicas` |
//! | n ≤ N, the build's replicas | `TooManyReplicas` |
//! | id < n | `IdOutOfRange` |
//! | `network_ptr` on an AXI page boundary (`AXI_BOUNDARY_BYTES`) | `BufferMisaligned` |
//! | `slots` < 2^24 (`K_WRAP`: k's field in a vote tag) | `SlotsWrap` |
//!
//! At `start` (a run starts) the block registers, from n: the support
//! f + 1 = (n - 1) / 2 + 1, the quorum 2f + 1 = n, and `active`, a bit per
//! replica below n. They hold until the next `start`.
//!
//! Timing: `refusal` is combinational in the configuration ports (which
//! the host holds for the whole run); `support`, `quorum` and `active`
//! show from the cycle after `start`.

use crate::params::{ConfigError, AXI_BOUNDARY_BYTES, K_WRAP};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Config<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub start: Signal<In, Bit>,
    pub network_ptr: Signal<In, Bits<64>>,
    pub id: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    pub slots: Signal<In, Bits<32>>,
    pub refusal: Signal<Out, Bits<8>>,
    pub support: Signal<Out, Bits<8>>,
    pub quorum: Signal<Out, Bits<8>>,
    pub active: Signal<Out, Bits<N>>,
    support_q: DFF<Bits<8>>,
    quorum_q: DFF<Bits<8>>,
    active_q: DFF<Bits<N>>,
    build_n: Constant<Bits<8>>,
    all_lanes: Constant<Bits<N>>,
    page_mask: Constant<Bits<64>>,
    k_wrap: Constant<Bits<32>>,
    err_even: Constant<Bits<8>>,
    err_too_many: Constant<Bits<8>>,
    err_id: Constant<Bits<8>>,
    err_align: Constant<Bits<8>>,
    err_slots: Constant<Bits<8>>,
}

impl<const N: usize> Default for Config<N> {
    fn default() -> Self {
        block!(Config {
            build_n: Constant::new((N as u64).into()),
            all_lanes: Constant::new(Bits::<N>::mask()),
            page_mask: Constant::new((AXI_BOUNDARY_BYTES - 1).into()),
            k_wrap: Constant::new(K_WRAP.into()),
            err_even: Constant::new(ConfigError::EvenReplicas.code().into()),
            err_too_many: Constant::new(ConfigError::TooManyReplicas.code().into()),
            err_id: Constant::new(ConfigError::IdOutOfRange.code().into()),
            err_align: Constant::new(ConfigError::BufferMisaligned.code().into()),
            err_slots: Constant::new(ConfigError::SlotsWrap.code().into()),
            ;
            defaults:
            clock, start, network_ptr, id, n, slots, refusal, support, quorum, active,
            support_q, quorum_q, active_q
        })
    }
}

impl<const N: usize> Logic for Config<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, support_q, quorum_q, active_q);
        self.support.next = self.support_q.q.val();
        self.quorum.next = self.quorum_q.q.val();
        self.active.next = self.active_q.q.val();
        if self.start.val() {
            self.support_q.d.next = ((self.n.val() - 1) >> 1) + 1;
            self.quorum_q.d.next = ((self.n.val() - 1) & 0xfe) + 1;
            self.active_q.d.next = !(self.all_lanes.val() << self.n.val());
        }
        if !self.n.val().get_bit(0) {
            self.refusal.next = self.err_even.val();
        } else if self.n.val() > self.build_n.val() {
            self.refusal.next = self.err_too_many.val();
        } else if self.id.val() >= self.n.val() {
            self.refusal.next = self.err_id.val();
        } else if (self.network_ptr.val() & self.page_mask.val()) != 0 {
            self.refusal.next = self.err_align.val();
        } else if self.slots.val() >= self.k_wrap.val() {
            self.refusal.next = self.err_slots.val();
        } else {
            self.refusal.next = 0.into();
        }
    }
}
