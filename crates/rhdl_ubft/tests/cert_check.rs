//! CertCheck, cycle by cycle, against docs/cert_check.md, on the real Fetch
//! (an HBM model answers its AXI read channel at latency H) and a signer
//! model: the shares fetched (beat 2 + c of the record, one beat each, in
//! ascending signer order, bits at or above n ignored), each verified under
//! its signer with the beat as it arrives, Pass at an exact cycle and held
//! until `settle`; refusals that never pass: a forged share at any
//! position, a share signed over another block, a share moved to another
//! signer's place, fewer than f + 1 signers below n (Fail the next cycle,
//! nothing fetched), a fetch error; a beat the signer could not take
//! fetched again; `start` ignored while busy; reset.
//!
//! The signer model takes a `verify` when it is not busy (busy for the two
//! cycles its request beats go out, and in any cycle a test marks), answers
//! `V` cycles after the request and holds the response until
//! `sg_resp_take`. A share of signer j over C is the beat (SIG + j, C's k);
//! the model checks that, as a signer checks a signature. Building C and
//! routing the beat to the signer are Protocol's, left to the cluster tests
//! (ubft_sim, `a_follower_behind_catches_up_from_the_certificate_in_a_commit_of_the_next_slot`).

use rhdl_ubft::controller::cert_check::CertCheck;
use rhdl_ubft::io::fetch::Fetch;
use rhdl_ubft::params::BEAT_WORDS;
use rust_hdl::prelude::*;
use std::collections::{HashMap, HashSet};

mod common;

/// `network_ptr`: 4 KiB aligned.
const NET: u64 = 0x2_0000_0000;
/// HBM read latency (AR accepted to first R beat).
const H: u64 = 8;
/// The signer's verify latency (request to response).
const V: u64 = 12;
/// The record's first word, commit[s][x] (a beat multiple).
const REC: u64 = 0x4000;
/// A signature's first word for signer j is SIG + j.
const SIG: u32 = 0x5160_0000;
/// C's k (word 2 of the CERT block, standing for C).
const CK: u32 = 41;
/// Request to response for the verify's request beats: the model's
/// `busy` after a request.
const SEND: u64 = 2;

/// The block's inputs in one cycle.
#[derive(Clone, Copy, Default)]
struct Ins {
    rst: bool,
    start: bool,
    bitmap: u8,
    n: u8,
    support: u8,
    settle: bool,
    beat_valid: bool,
    done: bool,
    error: bool,
    sg_busy: bool,
    resp: Option<u8>,
}

/// What the block drove in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Outs {
    busy: bool,
    passed: bool,
    failed: bool,
    fetch: Option<u64>,
    verify: Option<u8>,
    take: bool,
}

/// The one place the block's ports are driven and read.
fn drive(b: &mut CertCheck, i: &Ins) {
    b.rst_n.next = !i.rst;
    b.start.next = i.start;
    b.rec_word.next = REC.into();
    b.bitmap.next = (i.bitmap as u64).into();
    b.n.next = (i.n as u64).into();
    b.support.next = (i.support as u64).into();
    b.settle.next = i.settle;
    b.fetch_beat_valid.next = i.beat_valid;
    b.fetch_done.next = i.done;
    b.fetch_error.next = i.error;
    b.sg_busy.next = i.sg_busy;
    b.sg_resp_valid.next = i.resp.is_some();
    b.sg_resp_status.next = (i.resp.unwrap_or(0) as u64).into();
}

fn sample(b: &CertCheck) -> Outs {
    Outs {
        busy: b.busy.val(),
        passed: b.passed.val(),
        failed: b.failed.val(),
        fetch: b.fetch_start.val().then(|| b.fetch_word.val().to_u64()),
        verify: b.sg_verify.val().then(|| b.sg_signer.val().to_u64() as u8),
        take: b.sg_resp_take.val(),
    }
}

struct Bench {
    cc: CertCheck,
    f: Fetch,
    mem: HashMap<u64, u32>,
    /// Beat addresses (bytes) that answer SLVERR.
    bad: HashSet<u64>,
    cycle: u64,
    bitmap: u8,
    n: u8,
    support: u8,
    start_at: Vec<u64>,
    settle_at: Option<u64>,
    reset_at: Option<u64>,
    /// Cycles in which the signer is busy with another requester.
    sg_stall: HashSet<u64>,
    /// The R channel: (first beat cycle, addr).
    r: Option<(u64, u64)>,
    /// The signer: its last request's cycle, and the response (cycle,
    /// status) not yet taken.
    sg_req: Option<u64>,
    sg_resp: Option<(u64, u8)>,
    trace: Vec<(u64, Outs)>,
    /// Verifies: (cycle, signer, the beat's first two words).
    verifies: Vec<(u64, u8, u32, u32)>,
}

impl Bench {
    fn new(n: u8, bitmap: u8) -> Self {
        let mut cc = CertCheck::default();
        cc.connect_all();
        let f = common::fetch();
        let mut b = Bench {
            cc,
            f,
            mem: HashMap::new(),
            bad: HashSet::new(),
            cycle: 0,
            bitmap,
            n,
            support: (n - 1) / 2 + 1,
            start_at: vec![1],
            settle_at: None,
            // Cycle 0 is in reset.
            reset_at: Some(0),
            sg_stall: HashSet::new(),
            r: None,
            sg_req: None,
            sg_resp: None,
            trace: vec![],
            verifies: vec![],
        };
        // The record: beat 0 (the block, the bitmap at word 8), beat 1
        // (x's signature), then the shares of the bitmap's signers below
        // n, in ascending order.
        b.put(REC, &[3, 1, 0, CK - 1, 7, 6]);
        b.put(REC + 8, &[bitmap as u32]);
        b.put(REC + 16, &[0x0bad_0001]);
        let mut c = 0;
        for j in 0..n {
            if bitmap >> j & 1 == 1 {
                b.share(c, SIG + j as u32, CK);
                c += 1;
            }
        }
        b
    }

    fn put(&mut self, word: u64, words: &[u32]) {
        for (i, &v) in words.iter().enumerate() {
            self.mem.insert(word + i as u64, v);
        }
    }

    /// Beat 2 + c of the record: a share (sig, over the block with k).
    fn share(&mut self, c: u64, sig: u32, k: u32) {
        self.put(REC + (2 + c) * BEAT_WORDS as u64, &[sig, k]);
    }

    fn beat_addr(&self, c: u64) -> u64 {
        NET + 4 * (REC + (2 + c) * BEAT_WORDS as u64)
    }

    fn beat(&self, addr: u64) -> Bits<512> {
        let word = (addr - NET) / 4;
        let mut b = Bits::<512>::default();
        for i in 0..16 {
            let v = *self.mem.get(&(word + i)).unwrap_or(&0);
            b.set_bits::<32>(32 * i as usize, (v as u64).into());
        }
        b
    }

    fn step(&mut self) {
        let c = self.cycle;
        let rst = self.reset_at == Some(c);
        // The R channel (one-beat bursts).
        let (mut rvalid, mut rresp, mut rdata) = (false, 0u64, Bits::default());
        if let Some((first, addr)) = self.r {
            if c == first {
                rvalid = true;
                rresp = if self.bad.contains(&addr) { 2 } else { 0 };
                rdata = self.beat(addr);
            }
        }
        self.f.rvalid.next = rvalid;
        self.f.rlast.next = rvalid;
        self.f.rresp.next = rresp.into();
        self.f.rdata.next = rdata;
        self.f.arready.next = true;
        self.f.rst_n.next = !rst;
        self.f.clock.next = Clock::from(false);
        assert!(simulate(&mut self.f, 100));
        // The signer's side this cycle.
        let sg_busy = self.sg_stall.contains(&c)
            || self.sg_req.is_some_and(|r| c <= r + SEND)
            || self.sg_resp.is_some();
        let resp = self.sg_resp.filter(|r| c >= r.0).map(|r| r.1);
        let i = Ins {
            rst,
            start: self.start_at.contains(&c),
            bitmap: self.bitmap,
            n: self.n,
            support: self.support,
            settle: self.settle_at == Some(c),
            beat_valid: self.f.beat_valid.val(),
            done: self.f.done.val(),
            error: self.f.error.val(),
            sg_busy,
            resp,
        };
        drive(&mut self.cc, &i);
        self.cc.clock.next = Clock::from(false);
        assert!(simulate(&mut self.cc, 100));
        let o = sample(&self.cc);
        self.trace.push((c, o));
        if let Some(j) = o.verify {
            assert!(!sg_busy, "a verify only when the signer is free");
            assert!(self.f.beat_valid.val(), "the verify goes with the beat");
            let beat = self.f.beat.val();
            let (w0, w1) = (
                beat.get_bits::<32>(0).to_u64() as u32,
                beat.get_bits::<32>(32).to_u64() as u32,
            );
            self.verifies.push((c, j, w0, w1));
            let ok = w0 == SIG + j as u32 && w1 == CK;
            self.sg_req = Some(c);
            self.sg_resp = Some((c + V, if ok { 0 } else { 1 }));
        }
        if o.take {
            assert!(resp.is_some(), "take only a response that is there");
            self.sg_resp = None;
        }
        // Fetch's request.
        self.f.start.next = o.fetch.is_some();
        self.f.addr.next = (NET + 4 * o.fetch.unwrap_or(0)).into();
        self.f.len.next = 0.into();
        assert!(simulate(&mut self.f, 100));
        if self.f.arvalid.val() {
            assert_eq!(self.f.arlen.val().to_u64(), 0, "one beat per share");
            self.r = Some((c + H, self.f.araddr.val().to_u64()));
        }
        self.cc.clock.next = Clock::from(true);
        assert!(simulate(&mut self.cc, 100));
        self.f.clock.next = Clock::from(true);
        assert!(simulate(&mut self.f, 100));
        self.cycle += 1;
    }

    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    fn at(&self, pick: impl Fn(&Outs) -> bool) -> Vec<u64> {
        self.trace
            .iter()
            .filter(|(_, o)| pick(o))
            .map(|(c, _)| *c)
            .collect()
    }

    fn fetches(&self) -> Vec<(u64, u64)> {
        self.trace
            .iter()
            .filter_map(|(c, o)| o.fetch.map(|w| (*c, NET + 4 * w)))
            .collect()
    }
}

/// start at cycle s, signers j_0 < .. < j_f checked: share i is fetched
/// at s + 1 + j_i + i (H + V + 2) (a cycle per id skipped; H + 2 to the
/// beat, V to the response, a cycle back to Next), and Pass is entered
/// at s + 3 + j_f + (f + 1)(H + V + 2).
fn fetch_cycle(s: u64, j: u64, i: u64) -> u64 {
    s + 1 + j + i * (H + V + 2)
}
fn pass_cycle(s: u64, j_last: u64, f1: u64) -> u64 {
    s + 3 + j_last + f1 * (H + V + 2)
}

#[test]
fn f_plus_1_shares_are_fetched_and_verified_in_signer_order_and_pass_at_the_cycle() {
    // n = 5 (f + 1 = 3), signers 1, 2, 4; n = 3 (f + 1 = 2), 0 and 2; n =
    // 7 (f + 1 = 4), 0, 3, 5, 6.
    for (n, bitmap, signers) in [
        (5u8, 0b1_0110u8, vec![1u64, 2, 4]),
        (3, 0b101, vec![0, 2]),
        (7, 0b110_1001, vec![0, 3, 5, 6]),
    ] {
        let mut t = Bench::new(n, bitmap);
        let f1 = signers.len() as u64;
        let pass = pass_cycle(1, *signers.last().unwrap(), f1);
        t.settle_at = Some(pass + 5);
        t.run(pass + 10);
        let want: Vec<(u64, u64)> = signers
            .iter()
            .enumerate()
            .map(|(i, &j)| (fetch_cycle(1, j, i as u64), t.beat_addr(i as u64)))
            .collect();
        assert_eq!(t.fetches(), want, "n = {n}");
        // Each verify under its signer, with its share, as the beat lands
        // (H + 2 after its fetch).
        let got: Vec<(u64, u8, u32)> = t.verifies.iter().map(|v| (v.0, v.1, v.2)).collect();
        let want: Vec<(u64, u8, u32)> = signers
            .iter()
            .enumerate()
            .map(|(i, &j)| (fetch_cycle(1, j, i as u64) + H + 2, j as u8, SIG + j as u32))
            .collect();
        assert_eq!(got, want, "n = {n}");
        assert_eq!(t.at(|o| o.take).len(), signers.len());
        // Pass from `pass` until the cycle after `settle`, then Idle.
        assert_eq!(
            t.at(|o| o.passed),
            (pass..=pass + 5).collect::<Vec<_>>(),
            "n = {n}"
        );
        assert!(t.at(|o| o.failed).is_empty());
        assert_eq!(t.at(|o| o.busy), (2..=pass + 5).collect::<Vec<_>>());
    }
}

#[test]
fn bits_at_or_above_n_are_ignored() {
    // n = 3, f + 1 = 2: signers 0 and 1 below n, 5 and 7 above.
    let mut t = Bench::new(3, 0b1010_0011);
    t.run(pass_cycle(1, 1, 2) + 3);
    assert_eq!(
        t.verifies.iter().map(|v| v.1).collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert_eq!(t.at(|o| o.passed)[0], pass_cycle(1, 1, 2));
    // Signer 0 and 6 (above n = 5): one below n is not f + 1.
    let mut t = Bench::new(5, 0b0100_0001);
    t.support = 2;
    t.run(40);
    assert_eq!(t.at(|o| o.failed), vec![2]);
    assert!(t.fetches().is_empty() && t.at(|o| o.passed).is_empty());
}

#[test]
fn fewer_than_f_plus_1_signers_fail_the_next_cycle_without_a_fetch() {
    for (n, bitmap) in [(3u8, 0b001u8), (5, 0b1_0001), (5, 0), (7, 0b100_0101)] {
        let mut t = Bench::new(n, bitmap);
        t.run(30);
        assert_eq!(t.at(|o| o.failed), vec![2], "n = {n}, bitmap {bitmap:b}");
        assert_eq!(t.at(|o| o.busy), vec![2], "one cycle in Fail, then Idle");
        assert!(t.fetches().is_empty() && t.verifies.is_empty());
        assert!(t.at(|o| o.passed).is_empty());
    }
}

#[test]
fn a_forged_share_at_any_position_fails_the_check_and_never_passes() {
    // n = 5, signers 0, 2, 3. The share at position `bad` is spoiled
    // three ways: not a signature, signed over another block, and
    // another signer's share (the shares of 2 and 3 swapped).
    let signers = [0u64, 2, 3];
    for bad in 0..3u64 {
        for how in 0..3 {
            let mut t = Bench::new(5, 0b1101);
            match how {
                0 => t.share(bad, 0xffff_ffff, CK),
                1 => t.share(bad, SIG + signers[bad as usize] as u32, CK + 1),
                _ => {
                    t.share(1, SIG + 3, CK);
                    t.share(2, SIG + 2, CK);
                }
            }
            t.run(200);
            let first_bad = if how == 2 { 1 } else { bad };
            // Fail the cycle after the failing response is taken.
            let resp = fetch_cycle(1, signers[first_bad as usize], first_bad) + H + 2 + V;
            assert_eq!(t.at(|o| o.failed), vec![resp + 1], "share {bad}, way {how}");
            assert_eq!(t.verifies.len() as u64, first_bad + 1);
            assert!(t.at(|o| o.passed).is_empty());
            assert!(!t.trace.last().unwrap().1.busy, "back to Idle");
        }
    }
}

#[test]
fn a_fetch_error_never_passes() {
    // The share's beat answers SLVERR with a garbage beat: with the
    // signer free the beat is verified and fails; with the signer busy
    // as it goes by, the error alone fails the check, without a verify.
    for busy in [false, true] {
        let mut t = Bench::new(3, 0b011);
        let a = t.beat_addr(1);
        t.bad.insert(a);
        t.share(1, 0, 0);
        let second = fetch_cycle(1, 1, 1);
        if busy {
            t.sg_stall.insert(second + H + 2);
        }
        t.run(100);
        assert!(t.at(|o| o.passed).is_empty(), "busy {busy}");
        assert_eq!(t.at(|o| o.failed).len(), 1);
        let fail = t.at(|o| o.failed)[0];
        if busy {
            assert_eq!(t.verifies.len(), 1);
            assert_eq!(fail, second + H + 3);
        } else {
            assert_eq!(t.verifies.len(), 2);
            assert_eq!(fail, second + H + 2 + V + 1);
        }
    }
}

#[test]
fn a_beat_the_signer_could_not_take_is_fetched_again() {
    // n = 3, signers 1, 2: the signer is busy in the cycle the first
    // share's beat arrives, so that beat is fetched again the cycle after
    // Fetch's done, and the check passes H + 3 cycles later than it would.
    let mut t = Bench::new(3, 0b110);
    let first = fetch_cycle(1, 1, 0);
    t.sg_stall.insert(first + H + 2);
    let pass = pass_cycle(1, 2, 2) + H + 3;
    t.run(pass + 3);
    let a0 = t.beat_addr(0);
    assert_eq!(
        t.fetches(),
        vec![
            (first, a0),
            (first + H + 3, a0),
            (fetch_cycle(1, 2, 1) + H + 3, t.beat_addr(1))
        ]
    );
    assert_eq!(
        t.verifies.iter().map(|v| v.1).collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert_eq!(t.at(|o| o.passed)[0], pass);
}

#[test]
fn start_is_ignored_while_busy_and_a_check_runs_again_after_settle() {
    let mut t = Bench::new(3, 0b011);
    let pass = pass_cycle(1, 1, 2);
    // Starts mid-check and in Pass change nothing; settle at pass + 2;
    // a start two cycles later runs the same check again.
    t.start_at = vec![1, 5, pass + 1, pass + 5];
    t.settle_at = Some(pass + 2);
    t.run(pass_cycle(pass + 5, 1, 2) + 2);
    assert_eq!(t.fetches().len(), 4);
    assert_eq!(
        t.at(|o| o.passed),
        [
            pass,
            pass + 1,
            pass + 2,
            pass_cycle(pass + 5, 1, 2),
            pass_cycle(pass + 5, 1, 2) + 1
        ]
    );
}

#[test]
fn reset_returns_the_block_to_idle() {
    // Reset while the first share's fetch is out, and in Pass.
    let pass = pass_cycle(1, 1, 2);
    for at in [5, pass + 1] {
        let mut t = Bench::new(3, 0b011);
        t.reset_at = Some(at);
        t.run(pass + 30);
        assert!(t.trace[at as usize].1.busy);
        assert!(t.trace[at as usize + 1..]
            .iter()
            .all(|x| !x.1.busy && !x.1.passed));
        assert!(t.trace[at as usize + 1..]
            .iter()
            .all(|x| x.1.fetch.is_none()));
    }
}
