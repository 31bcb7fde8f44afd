//! CertCheck: verifies the certificate inside a peer's COMMIT record, for
//! R24 from a COMMIT (docs/recovery.md, section 7; docs/cert_check.md).
//!
//! A COMMIT record commit[s][x] carries its certificate: word 8 of its
//! first beat is the bitmap of the shares' signers, and beats 2 .. f + 2
//! are their f + 1 CERT shares in ascending signer order, each a signature
//! over the CERT block C = [2, w, k, m, prev, 0, 0, 0]. The record is
//! written by x, who may be Byzantine, so the shares are what count: f + 1
//! valid shares from distinct replicas include an honest one. WATCH reports
//! the COMMIT's first beat (block and bitmap); Protocol builds C from it,
//! holds the machine that owns the slot at a poll point (nothing of its
//! own in flight) and starts this block, which borrows Protocol's Fetch and
//! the signer (SignerPort) meanwhile.
//!
//! The check, one share at a time: the next signer j in the bitmap (j
//! scans 0 .. n - 1, a cycle per id it skips), a one-beat fetch of beat
//! 2 + c of the record (c shares verified so far), and a `verify` of C
//! under j with that beat as the signature, issued in the cycle the beat
//! arrives (Protocol routes `fetch_beat` to the signer while this block
//! is busy). When f + 1 shares verified the block is in `Pass` (`passed`
//! high) until `settle`; a share that fails, a fetch error or a bitmap
//! with fewer than f + 1 signers below n ends in `Fail` (`failed` high
//! for one cycle) and back to `Idle`. The outputs follow the state
//! register only, so Protocol may answer them combinationally (`settle`).
//! A beat that arrives while the signer cannot take a request is fetched
//! again.
//!
//! Ports: `start` (one cycle, taken in `Idle`) with `rec_word` (the
//! record's first word), `bitmap`, `n` and `support` (f + 1); `settle`
//! (Pass → Idle); `busy` (not Idle); the fetch port (`fetch_start`,
//! `fetch_word`, a one-beat burst; `fetch_beat_valid`, `fetch_done`,
//! `fetch_error`); the signer port (`sg_verify`, `sg_signer`; `sg_busy`,
//! `sg_resp_valid`, `sg_resp_status`; `sg_resp_take`).
//!
//! Timing: with HBM read latency H and a verify latency V, each share
//! costs a one-beat fetch and a verify, so f + 1 shares take about
//! (f + 1)(H + V) cycles plus a few handshake cycles per share.
//!
//! Reset (`rst_n` low, synchronous): Idle.

use crate::params::BEAT_WORDS;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CertSt {
    Idle,
    /// Pick the next signer, or pass.
    Next,
    /// Its share's beat is fetched; the verify goes with the beat.
    Wait,
    /// The verify's response.
    Resp,
    Pass,
    /// One cycle: `failed`, then Idle.
    Fail,
}

#[derive(LogicBlock)]
pub struct CertCheck {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub rec_word: Signal<In, Bits<32>>,
    pub bitmap: Signal<In, Bits<8>>,
    pub n: Signal<In, Bits<8>>,
    pub support: Signal<In, Bits<8>>,
    pub settle: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    pub passed: Signal<Out, Bit>,
    pub failed: Signal<Out, Bit>,
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    pub fetch_beat_valid: Signal<In, Bit>,
    pub fetch_done: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    pub sg_verify: Signal<Out, Bit>,
    pub sg_signer: Signal<Out, Bits<8>>,
    pub sg_busy: Signal<In, Bit>,
    pub sg_resp_valid: Signal<In, Bit>,
    pub sg_resp_status: Signal<In, Bits<8>>,
    pub sg_resp_take: Signal<Out, Bit>,
    state: DFF<CertSt>,
    /// The signers (the bitmap's first n bits).
    left: DFF<Bits<8>>,
    /// Shares verified.
    c: DFF<Bits<8>>,
    /// The signer being checked, or the next id to look at.
    j: DFF<Bits<8>>,
    base: DFF<Bits<32>>,
    /// The verify went with the beat.
    sent: DFF<Bit>,
    // Combinational temporaries.
    active: Signal<Local, Bits<8>>,
    /// The bitmap's signers among the first n.
    named: Signal<Local, Bits<8>>,
    have: Signal<Local, Bits<8>>,
    /// The verify goes with this cycle's beat.
    sending: Signal<Local, Bit>,
    one8: Constant<Bits<8>>,
    ones8: Constant<Bits<8>>,
    beat_shift: Constant<Bits<8>>,
}

impl Default for CertCheck {
    fn default() -> Self {
        CertCheck {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            rec_word: Default::default(),
            bitmap: Default::default(),
            n: Default::default(),
            support: Default::default(),
            settle: Default::default(),
            busy: Default::default(),
            passed: Default::default(),
            failed: Default::default(),
            fetch_start: Default::default(),
            fetch_word: Default::default(),
            fetch_beat_valid: Default::default(),
            fetch_done: Default::default(),
            fetch_error: Default::default(),
            sg_verify: Default::default(),
            sg_signer: Default::default(),
            sg_busy: Default::default(),
            sg_resp_valid: Default::default(),
            sg_resp_status: Default::default(),
            sg_resp_take: Default::default(),
            state: Default::default(),
            left: Default::default(),
            c: Default::default(),
            j: Default::default(),
            base: Default::default(),
            sent: Default::default(),
            active: Default::default(),
            named: Default::default(),
            have: Default::default(),
            sending: Default::default(),
            one8: Constant::new(1u64.to_bits()),
            ones8: Constant::new(0xffu64.to_bits()),
            beat_shift: Constant::new((BEAT_WORDS.trailing_zeros() as u64).to_bits()),
        }
    }
}

const _: () = assert!(BEAT_WORDS.is_power_of_two());

impl Logic for CertCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, left, c, j, base, sent);
        // The first n replicas (n <= 8).
        self.active.next = !(self.ones8.val() << self.n.val());
        // How many signers the bitmap names among the first n.
        self.named.next = self.bitmap.val() & self.active.val();
        self.have.next = 0.into();
        for i in 0..8 {
            if self.named.val().get_bit(i) {
                self.have.next = self.have.val() + 1;
            }
        }
        self.busy.next = self.state.q.val() != CertSt::Idle;
        self.passed.next = self.state.q.val() == CertSt::Pass;
        self.failed.next = self.state.q.val() == CertSt::Fail;
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.sg_verify.next = false;
        self.sg_signer.next = 0.into();
        self.sg_resp_take.next = false;
        self.sending.next = false;
        match self.state.q.val() {
            CertSt::Idle => {
                if self.start.val() {
                    self.left.d.next = self.named.val();
                    self.c.d.next = 0.into();
                    self.j.d.next = 0.into();
                    self.base.d.next = self.rec_word.val();
                    if self.have.val() < self.support.val() {
                        // Fewer than f + 1 signers: no certificate.
                        self.state.d.next = CertSt::Fail;
                    } else {
                        self.state.d.next = CertSt::Next;
                    }
                }
            }
            CertSt::Next => {
                if self.c.q.val() == self.support.val() {
                    self.state.d.next = CertSt::Pass;
                } else if self.j.q.val() >= self.n.val() {
                    self.state.d.next = CertSt::Fail;
                } else if (self.left.q.val() & (self.one8.val() << self.j.q.val())) != 0 {
                    // Beat 2 + c of the record: the share of signer j.
                    self.fetch_start.next = true;
                    self.fetch_word.next = self.base.q.val()
                        + (bit_cast::<32, 8>(self.c.q.val() + 2) << self.beat_shift.val());
                    self.sent.d.next = false;
                    self.state.d.next = CertSt::Wait;
                } else {
                    self.j.d.next = self.j.q.val() + 1;
                }
            }
            CertSt::Wait => {
                self.sg_signer.next = self.j.q.val();
                self.sending.next =
                    self.fetch_beat_valid.val() & !self.sg_busy.val() & !self.sent.q.val();
                if self.sending.val() {
                    self.sg_verify.next = true;
                    self.sent.d.next = true;
                }
                if self.fetch_done.val() {
                    if self.sent.q.val() | self.sending.val() {
                        self.state.d.next = CertSt::Resp;
                    } else if self.fetch_error.val() {
                        self.state.d.next = CertSt::Fail;
                    } else {
                        // The signer was busy as the beat went by.
                        self.state.d.next = CertSt::Next;
                    }
                }
            }
            CertSt::Resp => {
                if self.sg_resp_valid.val() {
                    self.sg_resp_take.next = true;
                    if self.sg_resp_status.val() == 0 {
                        self.j.d.next = self.j.q.val() + 1;
                        self.c.d.next = self.c.q.val() + 1;
                        self.state.d.next = CertSt::Next;
                    } else {
                        self.state.d.next = CertSt::Fail;
                    }
                }
            }
            CertSt::Pass => {
                if self.settle.val() {
                    self.state.d.next = CertSt::Idle;
                }
            }
            CertSt::Fail => {
                self.state.d.next = CertSt::Idle;
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = CertSt::Idle;
        }
    }
}

/// The block alone as Verilog (`cargo xtask lint --block cert_check`, `synth
/// --block cert_check`), module `rhdl_ubft_cert_check`: one size for every n.
pub fn verilog() -> String {
    let mut b = CertCheck::default();
    b.connect_all();
    let body = generate_verilog(&b)
        .replace("module top(", "module rhdl_ubft_cert_check(")
        .replace("top$", "rhdl_ubft_cert_check$");
    format!(
        "// Generated from crates/rhdl_ubft/src/cert_check.rs (rust-hdl 0.46).\n\
         // Do not edit: change the Rust source and regenerate.\n{body}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the block drove in one cycle.
    #[derive(Debug, Default, PartialEq)]
    struct Seen {
        fetch: Option<u32>,
        verify: Option<u32>,
        take: bool,
        passed: bool,
        failed: bool,
    }

    #[derive(Default)]
    struct In {
        start: bool,
        settle: bool,
        beat: bool,
        done: bool,
        error: bool,
        sg_busy: bool,
        resp: Option<u8>,
    }

    fn step(b: &mut CertCheck, i: &In) -> Seen {
        b.rst_n.next = true;
        b.start.next = i.start;
        b.settle.next = i.settle;
        b.fetch_beat_valid.next = i.beat;
        b.fetch_done.next = i.done;
        b.fetch_error.next = i.error;
        b.sg_busy.next = i.sg_busy;
        b.sg_resp_valid.next = i.resp.is_some();
        b.sg_resp_status.next = (i.resp.unwrap_or(0) as u64).to_bits();
        assert!(simulate(b, 100));
        let seen = Seen {
            fetch: b
                .fetch_start
                .val()
                .then(|| b.fetch_word.val().index() as u32),
            verify: b.sg_verify.val().then(|| b.sg_signer.val().index() as u32),
            take: b.sg_resp_take.val(),
            passed: b.passed.val(),
            failed: b.failed.val(),
        };
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
        seen
    }

    fn block(bitmap: u64, n: u64, support: u64) -> CertCheck {
        let mut b = CertCheck::default();
        b.connect_all();
        b.rst_n.next = false;
        b.clock.next = Clock::from(false);
        assert!(simulate(&mut b, 100));
        b.clock.next = Clock::from(true);
        assert!(simulate(&mut b, 100));
        b.clock.next = Clock::from(false);
        b.rec_word.next = 0x1000u64.to_bits();
        b.bitmap.next = bitmap.to_bits();
        b.n.next = n.to_bits();
        b.support.next = support.to_bits();
        assert!(simulate(&mut b, 100));
        b
    }

    /// Runs one share: waits for its fetch, answers the beat after `lat`
    /// cycles and the verify with `status`; returns (fetch word, signer).
    fn share(b: &mut CertCheck, lat: usize, status: u8) -> (u32, u32) {
        let mut word = None;
        for _ in 0..8 {
            if let Some(w) = step(b, &In::default()).fetch {
                word = Some(w);
                break;
            }
        }
        let word = word.expect("a fetch");
        for _ in 0..lat {
            assert_eq!(step(b, &In::default()), Seen::default());
        }
        let s = step(
            b,
            &In {
                beat: true,
                done: true,
                ..Default::default()
            },
        );
        let signer = s.verify.expect("the verify goes with the beat");
        // The response, two cycles later.
        assert!(!step(b, &In::default()).take);
        let s = step(
            b,
            &In {
                resp: Some(status),
                ..Default::default()
            },
        );
        assert!(s.take);
        (word, signer)
    }

    #[test]
    fn f_plus_1_shares_in_the_bitmap_order_pass_until_released() {
        // n = 5, f + 1 = 3, signers 0, 2 and 4: beats 2, 3 and 4.
        let mut b = block(0b1_0101, 5, 3);
        step(
            &mut b,
            &In {
                start: true,
                ..Default::default()
            },
        );
        let mut got = vec![];
        for _ in 0..3 {
            got.push(share(&mut b, 3, 0));
        }
        let beat = BEAT_WORDS as u32;
        assert_eq!(
            got,
            vec![
                (0x1000 + 2 * beat, 0),
                (0x1000 + 3 * beat, 2),
                (0x1000 + 4 * beat, 4)
            ]
        );
        // Next sees c = f + 1 and passes.
        assert_eq!(step(&mut b, &In::default()), Seen::default());
        for _ in 0..3 {
            let s = step(&mut b, &In::default());
            assert!(s.passed && !s.failed && s.fetch.is_none());
        }
        step(
            &mut b,
            &In {
                settle: true,
                ..Default::default()
            },
        );
        assert!(!b.busy.val());
    }

    #[test]
    fn a_share_that_fails_or_too_few_signers_fail_the_certificate() {
        let mut b = block(0b011, 3, 2);
        step(
            &mut b,
            &In {
                start: true,
                ..Default::default()
            },
        );
        share(&mut b, 2, 0);
        // The second share is invalid: failed, and Idle.
        let mut b2 = b;
        let mut failed = false;
        for _ in 0..8 {
            let s = step(&mut b2, &In::default());
            if let Some(_) = s.fetch {
                step(
                    &mut b2,
                    &In {
                        beat: true,
                        done: true,
                        ..Default::default()
                    },
                );
                step(&mut b2, &In::default());
                let s = step(
                    &mut b2,
                    &In {
                        resp: Some(1),
                        ..Default::default()
                    },
                );
                assert!(s.take && !s.failed);
                failed = step(&mut b2, &In::default()).failed;
                break;
            }
        }
        assert!(failed);
        assert!(!step(&mut b2, &In::default()).passed);
        assert!(!b2.busy.val());
        // One signer among the first n: no certificate, at once.
        let mut b = block(0b1000_0001, 3, 2);
        step(
            &mut b,
            &In {
                start: true,
                ..Default::default()
            },
        );
        assert!(step(&mut b, &In::default()).failed);
        assert!(!b.busy.val());
    }

    #[test]
    fn a_beat_the_signer_could_not_take_is_fetched_again() {
        let mut b = block(0b110, 3, 2);
        step(
            &mut b,
            &In {
                start: true,
                ..Default::default()
            },
        );
        let mut fetches = vec![];
        for _ in 0..6 {
            if let Some(w) = step(&mut b, &In::default()).fetch {
                fetches.push(w);
                break;
            }
        }
        let s = step(
            &mut b,
            &In {
                beat: true,
                done: true,
                sg_busy: true,
                ..Default::default()
            },
        );
        assert_eq!(s.verify, None);
        for _ in 0..6 {
            if let Some(w) = step(&mut b, &In::default()).fetch {
                fetches.push(w);
                break;
            }
        }
        let beat = BEAT_WORDS as u32;
        assert_eq!(fetches, vec![0x1000 + 2 * beat, 0x1000 + 2 * beat]);
    }
}
