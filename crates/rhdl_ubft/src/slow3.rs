//! Slow3: the v3 build's SLOW machine, R7 to R9 so far.
//!
//! The v3 build (`Protocol::new_v3`, `kernel::KernelV3`) hands a slot to
//! this machine where FAST times out holding it (FastWaitCert with phase 1:
//! locked; FastWaitCommit with phase 2: delivered fast). docs/recovery.md
//! D10 designs the whole slow path; this block is built up to R9:
//!
//! - R7: the view's leader signs its PREPARE's PREP block B = [1, v, k, m,
//!   prev, 0, 0, 0] and writes prep_sig[s(k)] (B, then the signature: two
//!   beats) into every replica's mailbox;
//! - R8, slow delivery (phase 1): read prep_sig[s(k)]; its block must be B
//!   (the value this replica locked, prev = its dec[k - 1]) and its
//!   signature the leader's (Setup `verify`); write it to
//!   echo_prep[s(k)][id] in a round (R13), then read the echo_prep row: an
//!   entry j of the same (PREP, v, k) with another block is a suspect, and
//!   a suspect whose signature verifies as the leader's proves that the
//!   leader equivocated (the slot is refused); one that does not verify is
//!   passed over (`checked`) and the row read again;
//! - R9: having delivered (R5 or R8), sign the CERT block C = [2, v, k, m,
//!   prev, 0, 0, 0] and write certify[s(k)][id] (C, then the share).
//!
//! Then, or when a wait times out, or when the slot is refused, it hands
//! the slot back with `stop`: R10 to R12 (the certificate, COMMIT, the
//! decision) and VIEW on v3 are not built, and Protocol stops the run with
//! `RecoveryNotBuilt`.
//!
//! States (`sts_state` number, as in `protocol::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | S3Start |
//! | 40 | S3Start | the view's leader / phase 2 / else | S3SignPrep (Setup `sign` of B) / S3SignCert / S3PollPrepSig |
//! | 41 | S3SignPrep | the signer's response: OK / an error | S3SendPrepSig (COMPOSE beat 1 := the signature) / Off, `stop` |
//! | 42 | S3SendPrepSig | (first cycle: Broadcast and COMPOSE start) Broadcast's `done` | phase 2: S3SignCert; else S3PollPrepSig |
//! | 43 | S3PollPrepSig | (fetch of prep_sig[s(k)], two beats) | S3WaitPrepSig |
//! | 44 | S3WaitPrepSig | the fetch is done: beat 0 is B and the signer is free / not / not, and it times out | S3VerifyPrep (Setup `verify` of beat 1 under the leader; COMPOSE beat 1 := beat 1) / S3PollPrepSig (a miss) / Off, `stop` |
//! | 45 | S3VerifyPrep | the response: OK / an error / an error, and it times out | S3EchoPrep (a round of B and the signature to echo_prep[s(k)][id]) / S3PollPrepSig (a miss, `bad_share`) / Off, `stop` |
//! | 46 | S3EchoPrep | `round_done` / `round_error` | S3PollEchoPrep / Off, `stop` |
//! | 47 | S3PollEchoPrep | (fetch of the echo_prep row, 2N beats) | S3WaitEchoPrep |
//! | 48 | S3WaitEchoPrep | the fetch is done: no suspect / a suspect (kept: its block and signature) / an error | S3SignCert (delivered) / S3VerifySuspect / S3PollEchoPrep |
//! | 49 | S3VerifySuspect | the response: OK / an error | Off, `stop` (refused: the leader equivocated) / S3PollEchoPrep (`checked` := the suspect) |
//! | 50 | S3SignCert | the signer's response: OK / an error | S3SendCert (COMPOSE beat 1 := the share) / Off, `stop` |
//! | 51 | S3SendCert | (first cycle: Broadcast and COMPOSE start) Broadcast's `done` | Off, `stop` |
//!
//! Requests to Protocol: `sg_sign` (C, or B with `sg_prep`), `sg_verify`
//! (B with `sg_prep` and the fetched beat as the signature, or the suspect's
//! block and signature with `sg_sus`), `sg_signer`, `sg_resp_take`;
//! `cp_wr_en` (COMPOSE beat 1 := the signer's response, or with
//! `cp_from_fetch` the fetched beat); `cp_start` (stream COMPOSE beat 1,
//! with Broadcast's start); `bc_start` with `bc_prep_sig` (beat 0 is B) or
//! `bc_cert` (beat 0 is C), two beats, and `bc_round` for echo_prep;
//! `fetch_start` with `fetch_pair` (two beats) or `fetch_row` (2N beats);
//! `missed`, `bad_share`.
//!
//! Timing: a request leaves in the cycle its state is entered when the
//! signer can take it (`sg_busy` low). A fetched record is checked beat by
//! beat as it arrives; the verify of prep_sig leaves with the fetch's
//! `done` (beat 1 is its signature). Broadcast and COMPOSE start together,
//! the cycle after COMPOSE's beat 1 was written. Handovers are
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
    S3PollPrepSig,
    S3WaitPrepSig,
    S3VerifyPrep,
    S3EchoPrep,
    S3PollEchoPrep,
    S3WaitEchoPrep,
    S3VerifySuspect,
    S3SignCert,
    S3SendCert,
}

/// Every state, in declaration order.
pub const SLOW3_STATES: [Slow3St; 13] = [
    Slow3St::Off,
    Slow3St::S3Start,
    Slow3St::S3SignPrep,
    Slow3St::S3SendPrepSig,
    Slow3St::S3PollPrepSig,
    Slow3St::S3WaitPrepSig,
    Slow3St::S3VerifyPrep,
    Slow3St::S3EchoPrep,
    Slow3St::S3PollEchoPrep,
    Slow3St::S3WaitEchoPrep,
    Slow3St::S3VerifySuspect,
    Slow3St::S3SignCert,
    Slow3St::S3SendCert,
];

/// The signed block's width (`layout::field3::BLOCK_BITS`).
const BB: usize = crate::layout::field3::BLOCK_BITS;

#[derive(LogicBlock)]
pub struct Slow3 {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    /// One cycle, as the machine goes Off: the slot goes no further (R10
    /// on are not built).
    pub stop: Signal<Out, Bit>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    pub leader_id: Signal<In, Bits<8>>,
    pub phase: Signal<In, Bits<2>>,
    /// B, the slot's PREP block [1, v, k, m, prev, 0, 0, 0].
    pub prep_block: Signal<In, Bits<BB>>,
    /// prep_sig[s(k)], echo_prep[s(k)][0], echo_prep[s(k)][id] and
    /// certify[s(k)][id], in words.
    pub prep_sig_word: Signal<In, Bits<32>>,
    pub echo_row_word: Signal<In, Bits<32>>,
    pub echo_own_word: Signal<In, Bits<32>>,
    pub certify_own_word: Signal<In, Bits<32>>,
    /// The next miss is the (`wait_polls` << `streak`)-th in a row.
    pub expiring: Signal<In, Bit>,
    // Requests to Protocol.
    pub missed: Signal<Out, Bit>,
    pub clear_wait: Signal<Out, Bit>,
    pub bad_share: Signal<Out, Bit>,
    // Fetch, through Protocol.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    /// With `fetch_start`: two beats (a record), or 2N (the echo_prep row).
    pub fetch_pair: Signal<Out, Bit>,
    pub fetch_row: Signal<Out, Bit>,
    pub fetch_beat: Signal<In, Bits<{ crate::params::BEAT_BITS }>>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    // The signer service (crate::setup), through Protocol.
    pub sg_sign: Signal<Out, Bit>,
    pub sg_verify: Signal<Out, Bit>,
    /// The block is B (sign or verify); else C to sign.
    pub sg_prep: Signal<Out, Bit>,
    /// The block and signature are the suspect's (`sus_block`, `sus_sig`).
    pub sg_sus: Signal<Out, Bit>,
    pub sg_signer: Signal<Out, Bits<8>>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_take: Signal<Out, Bit>,
    pub sus_block: Signal<Out, Bits<BB>>,
    pub sus_sig: Signal<Out, Bits<{ crate::params::BEAT_BITS }>>,
    // COMPOSE (crate::compose), through Protocol: beat 1.
    pub cp_wr_en: Signal<Out, Bit>,
    /// With `cp_wr_en`: the fetched beat, not the signer's response.
    pub cp_from_fetch: Signal<Out, Bit>,
    pub cp_start: Signal<Out, Bit>,
    // Broadcast, through Protocol: two beats, the first B or C.
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_prep_sig: Signal<Out, Bit>,
    pub bc_cert: Signal<Out, Bit>,
    pub bc_round: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    pub round_done: Signal<In, Bit>,
    pub round_error: Signal<In, Bit>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<Slow3St>,
    /// A request is out (sign and verify states), or Broadcast not yet
    /// started (send states).
    sent: DFF<Bit>,
    /// The fetched record's beat number, and beat 0 was B (prep_sig).
    beat_i: DFF<Bits<8>>,
    blk_ok: DFF<Bit>,
    /// The suspect: found, its replica, its block and signature, and its
    /// signature beat still to come.
    sus: DFF<Bit>,
    sus_j: DFF<Bits<8>>,
    sus_blk: DFF<Bits<BB>>,
    sus_sg: DFF<Bits<{ crate::params::BEAT_BITS }>>,
    grab: DFF<Bit>,
    /// Entries up to `checked` were suspects whose signature failed.
    checked: DFF<Bits<8>>,
    checked_any: DFF<Bit>,
    /// The entry of the beat on `fetch_beat`, and whether it is a suspect.
    entry: Signal<Local, Bits<8>>,
    suspect: Signal<Local, Bit>,
    status_ok: Constant<Bits<8>>,
}

/// The literals `update` holds: a record of the echo_prep row is two
/// beats (`beat_i >> 1` is the entry), a block's kind, v and k are its
/// words 0, 1 and 2 (`get_bits::<96>(0)`).
pub fn check_literals() {
    use crate::layout::{field3, stride3_beats, Region};
    for n in [1, 3, 5, 7, 8] {
        assert_eq!(
            stride3_beats(Region::EchoPrep, n, crate::params::SB),
            2,
            "slow3.rs: echo_prep entries of two beats (beat_i >> 1)"
        );
    }
    assert_eq!(
        [field3::KIND, field3::BLOCK_V, field3::BLOCK_K],
        [0, 1, 2],
        "slow3.rs: kind, v, k are the block's first 96 bits"
    );
}

impl Default for Slow3 {
    fn default() -> Self {
        check_literals();
        Slow3 {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            id: Default::default(),
            n: Default::default(),
            leader_id: Default::default(),
            phase: Default::default(),
            prep_block: Default::default(),
            prep_sig_word: Default::default(),
            echo_row_word: Default::default(),
            echo_own_word: Default::default(),
            certify_own_word: Default::default(),
            expiring: Default::default(),
            missed: Default::default(),
            clear_wait: Default::default(),
            bad_share: Default::default(),
            fetch_start: Default::default(),
            fetch_word: Default::default(),
            fetch_pair: Default::default(),
            fetch_row: Default::default(),
            fetch_beat: Default::default(),
            fetch_beat_valid: Default::default(),
            fetch_done: Default::default(),
            fetch_error: Default::default(),
            sg_sign: Default::default(),
            sg_verify: Default::default(),
            sg_prep: Default::default(),
            sg_sus: Default::default(),
            sg_signer: Default::default(),
            sg_busy: Default::default(),
            sg_resp_valid: Default::default(),
            sg_resp_status: Default::default(),
            sg_resp_take: Default::default(),
            sus_block: Default::default(),
            sus_sig: Default::default(),
            cp_wr_en: Default::default(),
            cp_from_fetch: Default::default(),
            cp_start: Default::default(),
            bc_start: Default::default(),
            bc_word: Default::default(),
            bc_prep_sig: Default::default(),
            bc_cert: Default::default(),
            bc_round: Default::default(),
            bc_done: Default::default(),
            round_done: Default::default(),
            round_error: Default::default(),
            sts_state: Default::default(),
            state: Default::default(),
            sent: Default::default(),
            beat_i: Default::default(),
            blk_ok: Default::default(),
            sus: Default::default(),
            sus_j: Default::default(),
            sus_blk: Default::default(),
            sus_sg: Default::default(),
            grab: Default::default(),
            checked: Default::default(),
            checked_any: Default::default(),
            entry: Default::default(),
            suspect: Default::default(),
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
        dff_setup!(
            self,
            clock,
            state,
            sent,
            beat_i,
            blk_ok,
            sus,
            sus_j,
            sus_blk,
            sus_sg,
            grab,
            checked,
            checked_any
        );
        // The echo_prep row's entry on `fetch_beat`, and whether it is a
        // suspect: another replica's, of the same (PREP, v, k) as B but not
        // B, above the entries passed over.
        self.entry.next = self.beat_i.q.val() >> 1;
        self.suspect.next = !self.beat_i.q.val().get_bit(0)
            & (self.entry.val() != self.id.val())
            & (self.entry.val() < self.n.val())
            & (!self.checked_any.q.val() | (self.entry.val() > self.checked.q.val()))
            & (self.fetch_beat.val().get_bits::<96>(0) == self.prep_block.val().get_bits::<96>(0))
            & (self.fetch_beat.val().get_bits::<BB>(0) != self.prep_block.val());
        // Outputs are zero unless a state drives them (see leader.rs).
        self.stop.next = false;
        self.missed.next = false;
        self.clear_wait.next = false;
        self.bad_share.next = false;
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.fetch_pair.next = false;
        self.fetch_row.next = false;
        self.sg_sign.next = false;
        self.sg_verify.next = false;
        self.sg_prep.next = false;
        self.sg_sus.next = false;
        self.sg_signer.next = 0.into();
        self.sg_resp_take.next = false;
        self.sus_block.next = self.sus_blk.q.val();
        self.sus_sig.next = self.sus_sg.q.val();
        self.cp_wr_en.next = false;
        self.cp_from_fetch.next = false;
        self.cp_start.next = false;
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.bc_prep_sig.next = false;
        self.bc_cert.next = false;
        self.bc_round.next = false;
        match self.state.q.val() {
            Slow3St::Off => {
                if self.start.val() {
                    self.state.d.next = Slow3St::S3Start;
                }
            }
            Slow3St::S3Start => {
                self.sent.d.next = false;
                self.checked_any.d.next = false;
                self.clear_wait.next = true;
                if self.id.val() == self.leader_id.val() {
                    // R7: the leader signs its PREPARE.
                    self.sg_prep.next = true;
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                    self.state.d.next = Slow3St::S3SignPrep;
                } else if self.phase.val() == 2 {
                    // Delivered on the fast path (R5): certify (R9).
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                    self.state.d.next = Slow3St::S3SignCert;
                } else {
                    self.state.d.next = Slow3St::S3PollPrepSig;
                }
            }
            Slow3St::S3SignPrep => {
                self.sg_prep.next = true;
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
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
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() {
                    if self.phase.val() == 2 {
                        if !self.sg_busy.val() {
                            self.sg_sign.next = true;
                            self.sent.d.next = true;
                        }
                        self.state.d.next = Slow3St::S3SignCert;
                    } else {
                        self.state.d.next = Slow3St::S3PollPrepSig;
                    }
                }
            }
            Slow3St::S3PollPrepSig => {
                self.fetch_start.next = true;
                self.fetch_pair.next = true;
                self.fetch_word.next = self.prep_sig_word.val();
                self.beat_i.d.next = 0.into();
                self.blk_ok.d.next = false;
                self.state.d.next = Slow3St::S3WaitPrepSig;
            }
            Slow3St::S3WaitPrepSig => {
                // (Values for the strobes below, by state: see leader.rs.)
                self.sg_prep.next = true;
                self.sg_signer.next = self.leader_id.val();
                self.cp_from_fetch.next = true;
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.beat_i.q.val() == 0 {
                        self.blk_ok.d.next =
                            self.fetch_beat.val().get_bits::<BB>(0) == self.prep_block.val();
                    }
                }
                if self.fetch_done.val() {
                    if !self.fetch_error.val() & self.blk_ok.q.val() & !self.sg_busy.val() {
                        // Beat 1, on `fetch_beat` now, is the signature:
                        // verify it, and keep it in COMPOSE for the echo.
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                        self.cp_wr_en.next = true;
                        self.state.d.next = Slow3St::S3VerifyPrep;
                    } else {
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.stop.next = true;
                            self.state.d.next = Slow3St::Off;
                        } else {
                            self.state.d.next = Slow3St::S3PollPrepSig;
                        }
                    }
                }
            }
            Slow3St::S3VerifyPrep => {
                self.bc_word.next = self.echo_own_word.val();
                self.bc_prep_sig.next = true;
                if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // R8.1: the echo, in a round (B, then the leader's
                        // signature from COMPOSE).
                        self.bc_start.next = true;
                        self.bc_round.next = true;
                        self.cp_start.next = true;
                        self.clear_wait.next = true;
                        self.state.d.next = Slow3St::S3EchoPrep;
                    } else {
                        self.bad_share.next = true;
                        self.missed.next = true;
                        if self.expiring.val() {
                            self.stop.next = true;
                            self.state.d.next = Slow3St::Off;
                        } else {
                            self.state.d.next = Slow3St::S3PollPrepSig;
                        }
                    }
                }
            }
            Slow3St::S3EchoPrep => {
                if self.round_error.val() {
                    self.stop.next = true;
                    self.state.d.next = Slow3St::Off;
                } else if self.round_done.val() {
                    self.state.d.next = Slow3St::S3PollEchoPrep;
                }
            }
            Slow3St::S3PollEchoPrep => {
                self.fetch_start.next = true;
                self.fetch_row.next = true;
                self.fetch_word.next = self.echo_row_word.val();
                self.beat_i.d.next = 0.into();
                self.sus.d.next = false;
                self.grab.d.next = false;
                self.state.d.next = Slow3St::S3WaitEchoPrep;
            }
            Slow3St::S3WaitEchoPrep => {
                if self.fetch_beat_valid.val() {
                    self.beat_i.d.next = self.beat_i.q.val() + 1;
                    if self.grab.q.val() {
                        // The suspect's signature follows its block.
                        self.sus_sg.d.next = self.fetch_beat.val();
                        self.grab.d.next = false;
                    } else if self.suspect.val() & !self.sus.q.val() {
                        self.sus.d.next = true;
                        self.sus_j.d.next = self.entry.val();
                        self.sus_blk.d.next = self.fetch_beat.val().get_bits::<BB>(0);
                        self.grab.d.next = true;
                    }
                }
                if self.fetch_done.val() {
                    if self.fetch_error.val() {
                        self.state.d.next = Slow3St::S3PollEchoPrep;
                    } else if self.sus.q.val() | (self.suspect.val() & !self.grab.q.val()) {
                        // (A suspect in the last block beat cannot be: the
                        // last beat of the row is a signature.)
                        self.sent.d.next = false;
                        self.state.d.next = Slow3St::S3VerifySuspect;
                    } else {
                        // R8.3: delivered. R9: certify.
                        self.clear_wait.next = true;
                        if !self.sg_busy.val() {
                            self.sg_sign.next = true;
                            self.sent.d.next = true;
                        } else {
                            self.sent.d.next = false;
                        }
                        self.state.d.next = Slow3St::S3SignCert;
                    }
                }
            }
            Slow3St::S3VerifySuspect => {
                self.sg_sus.next = true;
                self.sg_signer.next = self.leader_id.val();
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_verify.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        // Two blocks of (v, k) signed by the leader: it
                        // equivocated, and this replica never delivers the
                        // slot (R8.2).
                        self.stop.next = true;
                        self.state.d.next = Slow3St::Off;
                    } else {
                        self.checked.d.next = self.sus_j.q.val();
                        self.checked_any.d.next = true;
                        self.state.d.next = Slow3St::S3PollEchoPrep;
                    }
                }
            }
            Slow3St::S3SignCert => {
                if !self.sent.q.val() {
                    if !self.sg_busy.val() {
                        self.sg_sign.next = true;
                        self.sent.d.next = true;
                    }
                } else if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == self.status_ok.val() {
                        self.cp_wr_en.next = true;
                        self.state.d.next = Slow3St::S3SendCert;
                    } else {
                        self.stop.next = true;
                        self.state.d.next = Slow3St::Off;
                    }
                }
            }
            Slow3St::S3SendCert => {
                self.bc_word.next = self.certify_own_word.val();
                self.bc_cert.next = true;
                if self.sent.q.val() {
                    self.bc_start.next = true;
                    self.cp_start.next = true;
                    self.sent.d.next = false;
                } else if self.bc_done.val() {
                    // R10 on are not built.
                    self.stop.next = true;
                    self.state.d.next = Slow3St::Off;
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
            Slow3St::S3PollPrepSig => {
                self.sts_state.next = 43.into();
            }
            Slow3St::S3WaitPrepSig => {
                self.sts_state.next = 44.into();
            }
            Slow3St::S3VerifyPrep => {
                self.sts_state.next = 45.into();
            }
            Slow3St::S3EchoPrep => {
                self.sts_state.next = 46.into();
            }
            Slow3St::S3PollEchoPrep => {
                self.sts_state.next = 47.into();
            }
            Slow3St::S3WaitEchoPrep => {
                self.sts_state.next = 48.into();
            }
            Slow3St::S3VerifySuspect => {
                self.sts_state.next = 49.into();
            }
            Slow3St::S3SignCert => {
                self.sts_state.next = 50.into();
            }
            Slow3St::S3SendCert => {
                self.sts_state.next = 51.into();
            }
            _ => {
                self.sts_state.next = 0.into();
            }
        }
    }
}
