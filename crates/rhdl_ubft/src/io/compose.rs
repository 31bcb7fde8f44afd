//! Compose: a record of more than one beat, put together before it is sent.
//!
//! A v3 COMMIT is its block and signer bitmap, the replica's signature and
//! f + 1 CERT shares; a NEW_VIEW is a header, f + 1 SEALs and f + 1 shares
//! (docs/recovery.md, sections 3 and 13). Their beats come from different
//! places at different times: registers, the signer's responses, and bursts
//! of the replica's own HBM. Compose holds them in a small RAM of
//! `RECORD_BEATS_MAX` beats until the record is whole, and then streams
//! beats `first` to `last` to Broadcast's `s_rec` (a record's beat 0 is
//! Broadcast's `data`, built from registers). Design decision D5 of the v3
//! controller (recovery.md, section 16).
//!
//! Ports:
//! - write: `wr_en` with `wr_beat` (0 to 15) and `wr_data` writes one beat,
//!   taken at the clock edge; ignored while `busy` (a record being sent
//!   does not change under the stream).
//! - stream: `start` (one-cycle pulse, ignored while `busy`) with `first`
//!   and `last` (0 to 15, `first` <= `last`); beats `first` to `last` then
//!   go out on `m_rec_*` (AXI4-Stream: TDATA, TVALID, TLAST on beat `last`,
//!   TREADY), in order, each held, payload stable, until taken. `busy` is
//!   high from the cycle after `start` until the last beat is taken.
//!
//! Timing: the first beat is valid the cycle after `start` (the RAM reads
//! synchronously: the address of the beat to present is set the cycle
//! before), and with TREADY high one beat goes out per cycle: beats
//! `first`..=`last` take `last - first + 1` cycles after `start`, and
//! `busy` falls the cycle after the last is taken.
//!
//! Reset (`rst_n`, synchronous, active low): abandons the stream; `busy`
//! and TVALID fall the next cycle. The RAM's contents are kept (a record is
//! written whole before each send).

use crate::params::{BEAT_BITS, RECORD_BEATS_MAX};
use rust_hdl::prelude::*;

/// Bits of a beat's index in the buffer.
pub const COMPOSE_INDEX_BITS: usize = 4;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ComposeState {
    Idle,
    Stream,
}

#[derive(LogicBlock)]
pub struct Compose {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // A beat into the buffer.
    pub wr_en: Signal<In, Bit>,
    pub wr_beat: Signal<In, Bits<COMPOSE_INDEX_BITS>>,
    pub wr_data: Signal<In, Bits<BEAT_BITS>>,
    // Beats first..=last out, to Broadcast's s_rec.
    pub start: Signal<In, Bit>,
    pub first: Signal<In, Bits<COMPOSE_INDEX_BITS>>,
    pub last: Signal<In, Bits<COMPOSE_INDEX_BITS>>,
    pub busy: Signal<Out, Bit>,
    pub m_rec_tdata: Signal<Out, Bits<BEAT_BITS>>,
    pub m_rec_tvalid: Signal<Out, Bit>,
    pub m_rec_tlast: Signal<Out, Bit>,
    pub m_rec_tready: Signal<In, Bit>,
    ram: RAM<Bits<BEAT_BITS>, COMPOSE_INDEX_BITS>,
    state: DFF<ComposeState>,
    // The beat on m_rec now, and the last to send.
    at: DFF<Bits<COMPOSE_INDEX_BITS>>,
    last_q: DFF<Bits<COMPOSE_INDEX_BITS>>,
    // The beat the RAM reads for the next cycle.
    next_at: Signal<Local, Bits<COMPOSE_INDEX_BITS>>,
}

// The buffer holds every beat of the longest record Broadcast sends.
const _: () = assert!(RECORD_BEATS_MAX == 1 << COMPOSE_INDEX_BITS);

impl Default for Compose {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            wr_en: Default::default(),
            wr_beat: Default::default(),
            wr_data: Default::default(),
            start: Default::default(),
            first: Default::default(),
            last: Default::default(),
            busy: Default::default(),
            m_rec_tdata: Default::default(),
            m_rec_tvalid: Default::default(),
            m_rec_tlast: Default::default(),
            m_rec_tready: Default::default(),
            ram: Default::default(),
            state: Default::default(),
            at: Default::default(),
            last_q: Default::default(),
            next_at: Default::default(),
        }
    }
}

impl Logic for Compose {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, at, last_q);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.write_address.next = self.wr_beat.val();
        self.ram.write_data.next = self.wr_data.val();
        self.ram.write_enable.next = self.wr_en.val() & (self.state.q.val() == ComposeState::Idle);
        self.m_rec_tdata.next = self.ram.read_data.val();
        self.m_rec_tvalid.next = false;
        self.m_rec_tlast.next = false;
        self.next_at.next = self.at.q.val();
        match self.state.q.val() {
            ComposeState::Idle => {
                // Idle, the RAM reads beat `first`: it is on TDATA (TVALID
                // low) the next cycle, for a caller that reads the buffer.
                self.next_at.next = self.first.val();
                if self.start.val() {
                    self.at.d.next = self.first.val();
                    self.last_q.d.next = self.last.val();
                    self.state.d.next = ComposeState::Stream;
                }
            }
            ComposeState::Stream => {
                self.m_rec_tvalid.next = true;
                self.m_rec_tlast.next = self.at.q.val() == self.last_q.q.val();
                if self.m_rec_tready.val() {
                    if self.at.q.val() == self.last_q.q.val() {
                        self.state.d.next = ComposeState::Idle;
                    } else {
                        self.at.d.next = self.at.q.val() + 1;
                        self.next_at.next = self.at.q.val() + 1;
                    }
                }
            }
            _ => {
                self.state.d.next = ComposeState::Idle;
            }
        }
        // The RAM reads at the edge what is presented the cycle after: the
        // beat at `at` again while TREADY is low, so TDATA stays stable.
        self.ram.read_address.next = self.next_at.val();
        if !self.rst_n.val() {
            self.state.d.next = ComposeState::Idle;
        }
        self.busy.next = self.state.q.val() != ComposeState::Idle;
    }
}

/// Compose's Verilog alone, as module `rhdl_ubft_compose`.
pub fn verilog() -> String {
    let mut c = Compose::default();
    c.connect_all();
    let body = generate_verilog(&c)
        .replace("module top(", "module rhdl_ubft_compose(")
        .replace("top$", "rhdl_ubft_compose$");
    format!(
        "// Generated from crates/rhdl_ubft/src/compose.rs (rust-hdl 0.46).\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}
