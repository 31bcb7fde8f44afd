//! Slow3: the v3 build's SLOW machine, its first step (R7).
//!
//! The v3 build (`Protocol::new_v3`, `kernel::KernelV3`) hands a slot to
//! this machine where FAST times out holding it (FastWaitCert,
//! FastWaitCommit). docs/recovery.md D10 designs the whole slow path; this
//! block is its first step, R7: the leader of the view signs its PREPARE's
//! PREP block [1, v, k, m, prev, 0, 0, 0] and writes prep_sig[s(k)] (the
//! block, then the signature: two beats) into every replica's mailbox. Then,
//! and at once on a follower, it hands the slot back with `stop`: the rest
//! of D10 (R8-R12) is not built, and Protocol stops the run with
//! `RecoveryNotBuilt`.
//!
//! States (`sts_state` number, as in `protocol::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | S3Start |
//! | 40 | S3Start | the view's leader / a follower | S3SignPrep (Setup `sign` of the PREP block) / Off, `stop` |
//! | 41 | S3SignPrep | the signer's response: OK / an error | S3SendPrepSig (COMPOSE beat 1 := the signature; Broadcast of beat 0, the block, and beat 1 from COMPOSE to prep_sig) / Off, `stop` |
//! | 42 | S3SendPrepSig | Broadcast's `done` | Off, `stop` |
//!
//! Requests to Protocol: `sg_sign` with `sg_prep` (the block is PREP, not
//! CERT), `sg_resp_take`; `cp_wr_en` (COMPOSE beat 1 := the signer's
//! response); `cp_start` (stream COMPOSE beat 1, with Broadcast's start);
//! `bc_start` with `bc_prep_sig` (Protocol sends the PREP block as the first
//! beat, `bc_words` 16, `bc_beats` 2).
//!
//! Timing: S3Start asks for the signature in its cycle when the signer can
//! take it (`sg_busy` low); the response is taken the cycle it is valid, and
//! Broadcast and COMPOSE start in the same cycle. Handovers are
//! combinational.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use rust_hdl::prelude::*;

/// Slow3's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum Slow3St {
    Off,
    S3Start,
    S3SignPrep,
    S3SendPrepSig,
}

/// Every state, in declaration order.
pub const SLOW3_STATES: [Slow3St; 4] = [
    Slow3St::Off,
    Slow3St::S3Start,
    Slow3St::S3SignPrep,
    Slow3St::S3SendPrepSig,
];

#[derive(LogicBlock)]
pub struct Slow3 {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    /// One cycle, as the machine goes Off: the slot goes no further (the
    /// rest of the slow path is not built).
    pub stop: Signal<Out, Bit>,
    // The slot (Protocol's registers).
    pub id: Signal<In, Bits<8>>,
    pub leader_id: Signal<In, Bits<8>>,
    /// prep_sig[s(k)], in words.
    pub prep_sig_word: Signal<In, Bits<32>>,
    // The signer service (crate::setup), through Protocol.
    pub sg_sign: Signal<Out, Bit>,
    /// With `sg_sign`: the block is the PREP block.
    pub sg_prep: Signal<Out, Bit>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_take: Signal<Out, Bit>,
    // COMPOSE (crate::compose), through Protocol: beat 1 := the response.
    pub cp_wr_en: Signal<Out, Bit>,
    pub cp_start: Signal<Out, Bit>,
    // Broadcast, through Protocol.
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    /// With `bc_start`: the record is prep_sig (the PREP block, then
    /// COMPOSE's beat 1).
    pub bc_prep_sig: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<Slow3St>,
    sign_sent: DFF<Bit>,
    status_ok: Constant<Bits<8>>,
}

impl Default for Slow3 {
    fn default() -> Self {
        Slow3 {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            id: Default::default(),
            leader_id: Default::default(),
            prep_sig_word: Default::default(),
            sg_sign: Default::default(),
            sg_prep: Default::default(),
            sg_busy: Default::default(),
            sg_resp_valid: Default::default(),
            sg_resp_status: Default::default(),
            sg_resp_take: Default::default(),
            cp_wr_en: Default::default(),
            cp_start: Default::default(),
            bc_start: Default::default(),
            bc_word: Default::default(),
            bc_prep_sig: Default::default(),
            bc_done: Default::default(),
            sts_state: Default::default(),
            state: Default::default(),
            sign_sent: Default::default(),
            status_ok: Constant::new(crate::setup::code::OK.into()),
        }
    }
}

impl Slow3 {
    /// The state register.
    pub fn state(&self) -> Slow3St {
        self.state.q.val()
    }

    /// Is the machine holding the slot (not Off)?
    pub fn active(&self) -> bool {
        self.state.q.val() != Slow3St::Off
    }

    /// The number `sts_state` reports in state `st`, read from the logic.
    pub fn reported(st: Slow3St) -> u8 {
        let mut b = Self::default();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl Logic for Slow3 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, sign_sent);
        // Outputs are zero unless a state drives them (see leader.rs).
        self.stop.next = false;
        self.sg_sign.next = false;
        self.sg_prep.next = false;
        self.sg_resp_take.next = false;
        self.cp_wr_en.next = false;
        self.cp_start.next = false;
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.bc_prep_sig.next = false;
        match self.state.q.val() {
            Slow3St::Off => {
                if self.start.val() {
                    self.state.d.next = Slow3St::S3Start;
                }
            }
            Slow3St::S3Start => {
                self.sign_sent.d.next = false;
                if self.id.val() == self.leader_id.val() {
                    // R7: the leader signs its PREPARE.
                    self.sg_prep.next = true;
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sign_sent.d.next = true;
                    }
                    self.state.d.next = Slow3St::S3SignPrep;
                } else {
                    self.stop.next = true;
                    self.state.d.next = Slow3St::Off;
                }
            }
            Slow3St::S3SignPrep => {
                self.sg_prep.next = true;
                self.bc_word.next = self.prep_sig_word.val();
                if !self.sign_sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sign_sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // The signature is COMPOSE's beat 1 from this
                        // cycle's edge; its stream starts the next cycle.
                        self.cp_wr_en.next = true;
                        self.state.d.next = Slow3St::S3SendPrepSig;
                    } else {
                        self.stop.next = true;
                        self.state.d.next = Slow3St::Off;
                    }
                }
            }
            Slow3St::S3SendPrepSig => {
                self.bc_word.next = self.prep_sig_word.val();
                self.bc_prep_sig.next = true;
                if !self.sign_sent.q.val() {
                    // Broadcast and COMPOSE have started: wait for done.
                    if self.bc_done.val() {
                        self.stop.next = true;
                        self.state.d.next = Slow3St::Off;
                    }
                } else {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sign_sent.d.next = false;
                }
            }
            _ => {
                self.state.d.next = Slow3St::Off;
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = Slow3St::Off;
        }
        match self.state.q.val() {
            Slow3St::S3Start => {
                self.sts_state.next = 40.into();
            }
            Slow3St::S3SignPrep => {
                self.sts_state.next = 41.into();
            }
            Slow3St::S3SendPrepSig => {
                self.sts_state.next = 42.into();
            }
            _ => {
                self.sts_state.next = 0.into();
            }
        }
    }
}
