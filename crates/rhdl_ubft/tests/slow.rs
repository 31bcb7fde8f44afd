//! Slow, cycle by cycle, against docs/slow.md, at n = 3 (f + 1 = 2) on a
//! follower (id 1, leader 0) that FAST handed the slot in phase 1.
//!
//! Covered: the normal slot from `start` to a decision on f + 1 COMMITs
//! (R8: prep_sig fetched, verified under the leader as its `done` comes,
//! echoed in a round, the echo_prep row read; R9: C signed, certify
//! written; R10: the certify row, the shares taken in replica order with
//! the peer's verified from COMPOSE a cycle after its read, K signed,
//! `set_commit`, the COMMIT written with its bitmap; R11: the peer's COMMIT
//! fetched, verified under it, echoed in a round, seal[x] and echo_seal[x]
//! read; R12: `decide`), every request's cycle from the page's timing
//! rules; phase 2 going straight to SlowSignCert; refusals that never
//! decide: an equivocating leader (a suspect in the echo_prep row that
//! verifies), a forged prep_sig (refused at its second failure), a peer's
//! COMMIT of another block (never counted: the wait times out), a peer's
//! signed SEAL (a veto); a suspect that fails its verify is passed over;
//! a fetch error is a miss; `abort` and `hold` at a poll state;
//! `sts_state`.
//!
//! Adopt mode (R10's adoption, recovery.md D11.13): D's record read,
//! its shares copied and each verified (its own too), K signed and
//! written with the record's bitmap, then R11; a record of another block
//! or with a bitmap at or above n refused; a failed share read again
//! once; the grant while bridging, which yields after the COMMIT.
//!
//! Left to the cluster tests (ubft_sim: slow_path.rs, cluster.rs): the
//! leader's own R7 path, seal mode and deliver mode, the `torn`/`bad`
//! and SEAL `retry` rules, timeouts in every wait, and Protocol's muxes
//! (the blocks, COMPOSE, Broadcast's records, the signer's routing).
//!
//! Around the block, models of what Protocol gives it: a Fetch whose beat
//! i of a burst started at t is on `fetch_beat` at t + H + 2 + i, `done`
//! with the last (fetch.md); a mailbox of beats that the replica's own
//! broadcasts land in; a Broadcast done BC cycles after `bc_start`, a
//! round done RD cycles after; COMPOSE (16 beats; a beat written at an
//! edge, read back the cycle after `cp_first` names it); a signer taking
//! one request at a time (`sg_busy` while one is out), answering a sign
//! after S cycles and a verify after V, checking a signature as the beat
//! (SIG + signer, a hash of the block); the miss count (`expiring` at the
//! limit, cleared by `clear_wait`); `commit_block` built from `blk_j`.
//! Addresses are made up (entries of two beats, commit's stride
//! 1 << COMMIT_SHIFT words), so the bench does not follow the layout.

use rhdl_ubft::controller::slow::{Slow, SlowSt, SLOW_STATES};
use rust_hdl::prelude::*;
use std::collections::HashMap;

const H: u64 = 8;
const BC: u64 = 6;
const RD: u64 = 9;
const S: u64 = 10;
const V: u64 = 14;
/// The build's N (a row is 2N beats) and R, records per row.
const NB: u64 = rhdl_ubft::params::N as u64;
const R: u64 = 8;
const N: u8 = 3;
const ID: u8 = 1;
const LEADER: u8 = 0;
const VIEW: u32 = 2;
const K: u32 = 9;
const M: u32 = 0x77;
const PREV: u32 = 0x55;
const SIG: u32 = 0x5160_0000;

// Word addresses.
const PREP_SIG: u64 = 0x1000;
const ECHO_ROW: u64 = 0x2000;
const CERT_ROW: u64 = 0x3000;
const COMMIT_ROW: u64 = 0x4000;
const COMMIT_SHIFT: u64 = 7;
const ECHO_COMMIT: u64 = 0x10000;
const SEAL: u64 = 0x20000;
const ECHO_SEAL: u64 = 0x30000;
/// The slot's will_cert row and will_commit row (R5 while undelivered).
const LOCK_ROW: u64 = 0x5000;
const VOTE_ROW: u64 = 0x6000;
/// A vote's first word in the bench's broadcast log (the Encoder lays
/// the vote out; the bench names it only).
const VOTE: u32 = 0xb07e;

type Blk = [u32; 8];
type Beat = [u32; 16];

fn b_block(m: u32) -> Blk {
    [1, VIEW, K, m, PREV, 0, 0, 0]
}
fn c_block() -> Blk {
    [2, VIEW, K, M, PREV, 0, 0, 0]
}
fn k_block(j: u8, m: u32) -> Blk {
    [3, j as u32, VIEW, K, m, PREV, 0, 0]
}
fn seal_block(x: u8, w: u32) -> Blk {
    [4, x as u32, w, 0, 0, 0, 0, 0]
}
/// The signature of `signer` over `block`.
fn sig(block: &Blk, signer: u8) -> Beat {
    let mut h = 0x811c_9dc5u32;
    for w in block {
        h = (h ^ w).wrapping_mul(0x0100_0193);
    }
    let mut b = [0; 16];
    b[0] = SIG + signer as u32;
    b[1] = h;
    b
}
fn beat_of(block: &Blk) -> Beat {
    let mut b = [0; 16];
    b[..8].copy_from_slice(block);
    b
}
fn to_bits(b: &Beat) -> Bits<512> {
    let mut x = Bits::<512>::default();
    for (i, w) in b.iter().enumerate() {
        x.set_bits::<32>(32 * i, (*w as u64).into());
    }
    x
}
fn from_bits<const W: usize>(x: Bits<W>) -> Vec<u32> {
    (0..W / 32)
        .map(|i| x.get_bits::<32>(32 * i).to_u64() as u32)
        .collect()
}
fn block_bits(b: &Blk) -> Bits<256> {
    let mut x = Bits::<256>::default();
    for (i, w) in b.iter().enumerate() {
        x.set_bits::<32>(32 * i, (*w as u64).into());
    }
    x
}
fn as_block(v: &[u32]) -> Blk {
    v[..8].try_into().unwrap()
}

/// What the block asked for, in order.
#[derive(Clone, Debug, PartialEq)]
enum Ev {
    /// A fetch: word, beats.
    Fetch(u64, u64),
    /// A sign of a block (its kind word).
    Sign(u32),
    /// A verify: the block's kind, the signer, and whether it verified.
    Verify(u32, u8, bool),
    /// A broadcast: beat 0's kind, word, round, beats.
    Bc(u32, u64, bool, u64),
    SetCommit,
    /// `set_w`: phase 2, W (R5 in normal mode).
    SetW,
    Missed,
    Decide,
    Stop,
}

/// The block's inputs in one cycle (the slot's registers are constants
/// in `drive`).
#[derive(Clone, Copy, Default)]
struct Ins {
    start: bool,
    phase: u8,
    abort: bool,
    hold: bool,
    expiring: bool,
    base_waited: bool,
    beat: Option<(Beat, bool, bool)>,
    sg_busy: bool,
    resp: Option<u8>,
    bc_done: bool,
    round_done: bool,
    commit_block: Blk,
    seal_start: bool,
    share_start: bool,
    deliver_start: bool,
    adopt_start: bool,
    adopt: bool,
    adopt_row: bool,
    d_x: u8,
    locks_ok: bool,
    locks: bool,
}

/// The one place the ports are driven.
fn drive(b: &mut Slow, i: &Ins) {
    b.rst_n.next = true;
    b.start.next = i.start;
    b.seal_start.next = i.seal_start;
    b.share_start.next = i.share_start;
    b.deliver_start.next = i.deliver_start;
    b.adopt_start.next = i.adopt_start;
    b.adopt.next = i.adopt;
    b.adopt_row.next = i.adopt_row;
    b.d_x.next = (i.d_x as u64).into();
    b.locks_ok.next = i.locks_ok;
    b.locks.next = i.locks;
    b.cert_row_word.next = LOCK_ROW.into();
    b.vote_row_word.next = VOTE_ROW.into();
    b.abort.next = i.abort;
    b.hold.next = i.hold;
    b.id.next = (ID as u64).into();
    b.n.next = (N as u64).into();
    b.leader_id.next = (LEADER as u64).into();
    b.phase.next = (i.phase as u64).into();
    b.prep_block.next = block_bits(&b_block(M));
    b.prep_sig_word.next = PREP_SIG.into();
    b.echo_row_word.next = ECHO_ROW.into();
    b.echo_own_word.next = (ECHO_ROW + ((ID as u64) << 5)).into();
    b.certify_own_word.next = (CERT_ROW + ((ID as u64) << 5)).into();
    b.expiring.next = i.expiring;
    b.base_waited.next = i.base_waited;
    let (beat, valid, done, error) = match i.beat {
        Some((b, done, error)) => (b, true, done, error),
        None => ([0; 16], false, false, false),
    };
    b.fetch_beat.next = to_bits(&beat);
    b.fetch_beat_valid.next = valid;
    b.fetch_done.next = done;
    b.fetch_error.next = error;
    b.sg_busy.next = i.sg_busy;
    b.sg_resp_valid.next = i.resp.is_some();
    b.sg_resp_status.next = (i.resp.unwrap_or(0) as u64).into();
    b.bc_done.next = i.bc_done;
    b.round_done.next = i.round_done;
    b.round_error.next = false;
    b.support.next = ((N as u64 - 1) / 2 + 1).into();
    b.row_n.next = R.into();
    b.view_no.next = (VIEW as u64).into();
    b.cert_block.next = block_bits(&c_block());
    b.commit_block.next = block_bits(&i.commit_block);
    b.certify_row_word.next = CERT_ROW.into();
    b.commit_row_word.next = COMMIT_ROW.into();
    b.commit_shift.next = COMMIT_SHIFT.into();
    b.echo_commit_base.next = ECHO_COMMIT.into();
    b.seal_base.next = SEAL.into();
    b.echo_seal_base.next = ECHO_SEAL.into();
}

struct Bench {
    b: Slow,
    cycle: u64,
    phase: u8,
    /// Beats by word address.
    mem: HashMap<u64, Beat>,
    /// The burst: (start cycle, word, beats, fails).
    fetch: Option<(u64, u64, u64, bool)>,
    /// Fetches (by start word) that answer an error, once each.
    errors: Vec<u64>,
    bc: Option<(u64, bool)>,
    compose: [Beat; 16],
    rd_data: Beat,
    /// The request out: (response cycle, status, signature).
    sg: Option<(u64, u8, Beat)>,
    limit: u64,
    /// Misses in a row at which the Timer's `base_waited` is high.
    base: u64,
    misses: u64,
    start_at: u64,
    abort_at: Option<u64>,
    hold: std::ops::Range<u64>,
    /// The mode `start` brings: (seal, deliver, adopt).
    mode: (bool, bool, bool),
    /// With seal mode: VIEW's `call_share` (W's share only, R16).
    share_only: bool,
    /// Protocol's `adopt`, raised at the first SlowPollCertify while set.
    adopt_at_poll: bool,
    /// With it, `adopt_row` (an ABOVE of W.b + 1: D's certificate is in
    /// the certify row).
    adopt_row: bool,
    d_x: u8,
    /// Protocol's `locks_ok`, and the cycle from which the will_cert row
    /// shows n locks (Tally's count, `locks`).
    locks_ok: bool,
    locks_from: Option<u64>,
    events: Vec<(u64, Ev)>,
    states: Vec<(u64, SlowSt)>,
}

impl Bench {
    /// The mailbox of a slot that goes well: the leader's prep_sig and its
    /// echo; replica 0's and 2's CERT records; replica 0's COMMIT; no SEAL.
    fn new() -> Self {
        let mut b = Slow::default();
        b.connect_all();
        let mut t = Bench {
            b,
            cycle: 0,
            phase: 1,
            mem: HashMap::new(),
            fetch: None,
            errors: vec![],
            bc: None,
            compose: [[0; 16]; 16],
            rd_data: [0; 16],
            sg: None,
            limit: 1000,
            base: u64::MAX,
            misses: 0,
            start_at: 0,
            abort_at: None,
            hold: 0..0,
            mode: (false, false, false),
            share_only: false,
            adopt_at_poll: false,
            adopt_row: false,
            d_x: 0,
            locks_ok: false,
            locks_from: None,
            events: vec![],
            states: vec![],
        };
        let bb = b_block(M);
        t.record(PREP_SIG, &bb, sig(&bb, LEADER));
        t.record(ECHO_ROW, &bb, sig(&bb, LEADER));
        for j in [0u8, 2] {
            t.record(CERT_ROW + ((j as u64) << 5), &c_block(), sig(&c_block(), j));
        }
        t.commit(0, k_block(0, M), 0b101);
        t
    }

    fn record(&mut self, word: u64, block: &Blk, sig: Beat) {
        self.mem.insert(word, beat_of(block));
        self.mem.insert(word + 16, sig);
    }

    /// commit[s][x]: K with the bitmap at word 8, x's signature.
    fn commit(&mut self, x: u8, block: Blk, bitmap: u32) {
        let w = COMMIT_ROW + ((x as u64) << COMMIT_SHIFT);
        self.record(w, &block, sig(&block, x));
        self.mem.get_mut(&w).unwrap()[8] = bitmap;
    }

    fn step(&mut self) {
        let c = self.cycle;
        let beat = self.fetch.and_then(|(t, w, n, fails)| {
            let i = c.checked_sub(t + H + 2)?;
            (i < n).then(|| {
                let data = *self.mem.get(&(w + 16 * i)).unwrap_or(&[0; 16]);
                (data, i + 1 == n, fails && i + 1 == n)
            })
        });
        let resp = self.sg.filter(|s| c >= s.0).map(|s| (s.1, s.2));
        let adopt = self.adopt_at_poll && self.b.state() == SlowSt::SlowPollCertify;
        if adopt {
            self.adopt_at_poll = false;
        }
        let mut i = Ins {
            start: self.start_at == c,
            phase: self.phase,
            abort: self.abort_at == Some(c),
            hold: self.hold.contains(&c),
            expiring: self.misses + 1 >= self.limit,
            base_waited: self.misses >= self.base,
            beat,
            sg_busy: self.sg.is_some(),
            resp: resp.map(|r| r.0),
            bc_done: self.bc.is_some_and(|(t, round)| !round && c == t + BC),
            round_done: self.bc.is_some_and(|(t, round)| round && c == t + RD),
            commit_block: k_block(ID, M),
            seal_start: self.mode.0,
            share_start: self.share_only,
            deliver_start: self.mode.1,
            adopt_start: self.mode.2,
            adopt,
            adopt_row: adopt && self.adopt_row,
            d_x: self.d_x,
            locks_ok: self.locks_ok,
            locks: self.locks_from.is_some_and(|t| c >= t),
        };
        drive(&mut self.b, &i);
        assert!(simulate(&mut self.b, 100));
        // Protocol builds K from `blk_j`.
        let j = self.b.blk_j.val().to_u64() as u8;
        i.commit_block = k_block(j, M);
        drive(&mut self.b, &i);
        assert!(simulate(&mut self.b, 100));
        self.observe(c, &i, beat, resp);
        self.b.clock.next = Clock::from(true);
        assert!(simulate(&mut self.b, 100));
        self.b.clock.next = Clock::from(false);
        assert!(simulate(&mut self.b, 100));
        self.cycle += 1;
    }

    /// Protocol's side of one cycle: what the block asked for.
    fn observe(
        &mut self,
        c: u64,
        i: &Ins,
        beat: Option<(Beat, bool, bool)>,
        resp: Option<(u8, Beat)>,
    ) {
        let b = &self.b;
        self.states.push((c, b.state()));
        let mut ev = vec![];
        let fetch_beat = beat.map(|x| x.0).unwrap_or([0; 16]);
        if b.sg_sign.val() || b.sg_verify.val() {
            assert!(!i.sg_busy, "one signer request at a time");
            let block: Blk = if b.sg_sus.val() {
                as_block(&from_bits(b.sus_block.val()))
            } else if b.sg_prep.val() {
                b_block(M)
            } else if b.sg_commit.val() {
                i.commit_block
            } else {
                c_block()
            };
            if b.sg_sign.val() {
                ev.push(Ev::Sign(block[0]));
                self.sg = Some((c + S, 0, sig(&block, ID)));
            } else {
                let signature: Beat = if b.sg_sus.val() {
                    from_bits(b.sus_sig.val()).try_into().unwrap()
                } else if b.sg_compose.val() {
                    self.rd_data
                } else {
                    fetch_beat
                };
                let signer = b.sg_signer.val().to_u64() as u8;
                let ok = signature == sig(&block, signer);
                ev.push(Ev::Verify(block[0], signer, ok));
                self.sg = Some((c + V, if ok { 0 } else { 1 }, [0; 16]));
            }
        }
        if b.sg_resp_take.val() {
            assert!(resp.is_some(), "a response is taken only when there");
            self.sg = None;
        }
        // COMPOSE: written at this edge, read back the next cycle.
        let mut compose = self.compose;
        if b.cp_wr_en.val() {
            let data = if b.cp_from_fetch.val() {
                assert!(beat.is_some(), "COMPOSE takes a fetched beat only with it");
                fetch_beat
            } else {
                resp.expect("COMPOSE takes the signer's response with it").1
            };
            compose[b.cp_wr_beat.val().to_u64() as usize] = data;
        }
        if b.bc_start.val() {
            assert!(self.bc.is_none_or(|(t, r)| c > t + if r { RD } else { BC }));
            let word = b.bc_word.val().to_u64();
            let round = b.bc_round.val();
            let (first, lo, hi) = if b.bc_prep_sig.val() {
                (beat_of(&b_block(M)), 1, 1)
            } else if b.bc_cert.val() {
                (beat_of(&c_block()), 1, 1)
            } else if b.bc_commit.val() || b.bc_echo_commit.val() {
                let mut f = beat_of(&i.commit_block);
                if b.bc_commit.val() {
                    f[8] = b.bitmap.val().to_u64() as u32;
                }
                (f, b.cp_first.val().to_u64(), b.cp_last.val().to_u64())
            } else {
                // No record named: the vote (tag, m), one beat.
                let mut v = [0; 16];
                v[0] = VOTE;
                v[1] = M;
                (v, 1, 0)
            };
            assert!(
                b.cp_start.val() || first[0] == VOTE,
                "Broadcast and COMPOSE start together"
            );
            // The record lands in this replica's mailbox too: beat 0 from
            // Protocol, the rest streamed from COMPOSE as it stands.
            self.mem.insert(word, first);
            for (n, k) in (lo..=hi).enumerate() {
                self.mem
                    .insert(word + 16 * (n as u64 + 1), self.compose[k as usize]);
            }
            ev.push(Ev::Bc(first[0], word, round, 2 + hi - lo));
            self.bc = Some((c, round));
        }
        self.compose = compose;
        self.rd_data = self.compose[b.cp_first.val().to_u64() as usize];
        if b.fetch_start.val() {
            assert!(self.fetch.is_none_or(|(t, _, n, _)| c >= t + H + 1 + n));
            let beats = match (b.fetch_pair.val(), b.fetch_row.val(), b.fetch_rec.val()) {
                (true, false, false) => 2,
                (false, true, false) => 2 * NB,
                (false, false, true) => N as u64 / 2 + 3,
                (false, false, false) => 1,
                _ => panic!("cycle {c}: a fetch of two kinds at once"),
            };
            let word = b.fetch_word.val().to_u64();
            let fails = match self.errors.iter().position(|&w| w == word) {
                Some(p) => {
                    self.errors.remove(p);
                    true
                }
                None => false,
            };
            self.fetch = Some((c, word, beats, fails));
            ev.push(Ev::Fetch(word, beats));
        }
        if b.set_commit.val() {
            ev.push(Ev::SetCommit);
        }
        if b.set_w.val() {
            ev.push(Ev::SetW);
        }
        if b.clear_wait.val() {
            self.misses = 0;
        }
        if b.missed.val() {
            self.misses += 1;
            ev.push(Ev::Missed);
        }
        if b.decide.val() {
            ev.push(Ev::Decide);
        }
        if b.stop.val() {
            ev.push(Ev::Stop);
        }
        if b.state() == SlowSt::Off {
            assert!(
                ev.is_empty() || c == self.start_at,
                "cycle {c}: Off asks {ev:?}"
            );
        }
        self.events.extend(ev.into_iter().map(|e| (c, e)));
    }

    /// Runs until the block is back Off after `start` (or panics).
    fn run_slot(&mut self, max: u64) {
        let mut seen = false;
        for _ in 0..max {
            self.step();
            let st = self.b.state();
            seen |= st != SlowSt::Off;
            if seen && st == SlowSt::Off {
                return;
            }
        }
        panic!(
            "the slot did not end in {max} cycles: {:?}",
            self.events.last()
        );
    }

    fn kinds(&self) -> Vec<Ev> {
        self.events.iter().map(|e| e.1.clone()).collect()
    }

    fn entered(&self, st: SlowSt) -> Vec<u64> {
        let mut out = vec![];
        for w in self.states.windows(2) {
            if w[1].1 == st && w[0].1 != st {
                out.push(w[1].0);
            }
        }
        out
    }
}

fn commit_word(x: u8) -> u64 {
    COMMIT_ROW + ((x as u64) << COMMIT_SHIFT)
}

/// echo_commit[x][id], this replica's echo of x's COMMIT.
fn own_echo(x: u8) -> u64 {
    ECHO_COMMIT + (((x as u64 * R) + ID as u64) << 5)
}

/// The events of the normal slot, with the cycle of each from the page's
/// timing rules, `start` at cycle 0.
fn normal_slot() -> Vec<(u64, Ev)> {
    let one = H + 2; // a one-beat fetch: start to done
    let pair = H + 3; // a two-beat fetch: start to done
    let row = H + 1 + 2 * NB; // a 2N-beat fetch
    let mut e = vec![];
    // SlowStart at 1, SlowPollPrepSig at 2.
    let mut t = 2;
    e.push((t, Ev::Fetch(PREP_SIG, 2)));
    // The verify leaves with the fetch's done (beat 1 is the signature).
    t += pair;
    e.push((t, Ev::Verify(1, LEADER, true)));
    // The echo's round starts with the response.
    t += V;
    e.push((t, Ev::Bc(1, ECHO_ROW + ((ID as u64) << 5), true, 2)));
    // round_done, then SlowPollEchoPrep.
    t += RD + 1;
    e.push((t, Ev::Fetch(ECHO_ROW, 2 * NB)));
    // No suspect: C is signed with the done.
    t += row;
    e.push((t, Ev::Sign(2)));
    // The share into COMPOSE with the response; Broadcast the next cycle.
    t += S + 1;
    e.push((t, Ev::Bc(2, CERT_ROW + ((ID as u64) << 5), false, 2)));
    // Broadcast's done, then SlowPollCertify.
    t += BC + 1;
    e.push((t, Ev::Fetch(CERT_ROW, 2 * NB)));
    // f + 1 = 2 candidates, 0 and 1 (its own, just written); share 0 is
    // verified: SlowVerifyShare steps j = 0, reads COMPOSE, then verifies.
    t += row + 2;
    e.push((t, Ev::Verify(2, 0, true)));
    // The response; j = 1 (its own), 2 (not taken), 3 = n: SlowSignCommit
    // at t + V + 4, which signs K in its first cycle.
    t += V + 4;
    e.push((t, Ev::Sign(3)));
    t += S;
    e.push((t, Ev::SetCommit));
    // The COMMIT: K and the bitmap {0, 1}, the signature, f + 1 shares.
    t += 1;
    e.push((t, Ev::Bc(3, commit_word(ID), false, 4)));
    // Done: SlowPollCommit x = 0 the next cycle, which fetches at once.
    t += BC + 1;
    e.push((t, Ev::Fetch(commit_word(0), 2)));
    // K(0) matches: SlowVerifyCommit the cycle after done, a cycle for
    // COMPOSE's read of beat 15, then the verify.
    t += pair + 2;
    e.push((t, Ev::Verify(3, 0, true)));
    // R11.2's "if higher": its own echo_commit[0][id] first (one beat),
    // the cycle after the response; empty, so the echo's round starts the
    // cycle after its done.
    t += V + 1;
    e.push((t, Ev::Fetch(own_echo(0), 1)));
    t += one + 1;
    e.push((t, Ev::Bc(3, own_echo(0), true, 2)));
    t += RD + 1;
    e.push((t, Ev::Fetch(SEAL, 2)));
    t += pair + 1;
    e.push((t, Ev::Fetch(ECHO_SEAL, 2 * NB)));
    t += row;
    e.push((t, Ev::Decide));
    e
}

#[test]
fn a_normal_slot_is_decided_on_f_plus_1_commits_at_the_cycles_the_page_gives() {
    let mut t = Bench::new();
    t.run_slot(2000);
    let want = normal_slot();
    assert_eq!(t.events, want);
    // The COMMIT as it landed: K(1) with the bitmap {0, 1}, its signature,
    // share 0 then its own share (ascending replica order).
    let w = commit_word(ID);
    assert_eq!(t.mem[&w][..9], [3, 1, VIEW, K, M, PREV, 0, 0, 0b011]);
    assert_eq!(t.mem[&(w + 16)], sig(&k_block(ID, M), ID));
    assert_eq!(t.mem[&(w + 32)], sig(&c_block(), 0));
    assert_eq!(t.mem[&(w + 48)], sig(&c_block(), ID));
    // The echoes: the leader's prep_sig and replica 0's COMMIT, whole.
    let echo = ECHO_ROW + ((ID as u64) << 5);
    assert_eq!(t.mem[&(echo + 16)], sig(&b_block(M), LEADER));
    let ec = ECHO_COMMIT + (ID as u64) * 32;
    assert_eq!(t.mem[&(ec + 16)], sig(&k_block(0, M), 0));
    let decide = want.last().unwrap().0;
    // Off the cycle after `decide`.
    assert_eq!(t.states.last(), Some(&(decide, SlowSt::SlowWaitEchoSeal)));
    assert_eq!(t.b.state(), SlowSt::Off);
    assert_eq!(t.entered(SlowSt::SlowStart), vec![1]);
}

#[test]
fn phase_2_goes_from_slow_start_to_signing_c() {
    let mut t = Bench::new();
    t.phase = 2;
    t.run_slot(2000);
    assert_eq!(t.entered(SlowSt::SlowSignCert), vec![2]);
    assert_eq!(t.events[0], (1, Ev::Sign(2)));
    assert!(!t.kinds().contains(&Ev::Fetch(PREP_SIG, 2)));
    assert_eq!(t.kinds().last(), Some(&Ev::Decide));
}

#[test]
fn an_equivocating_leader_is_refused_and_nothing_is_signed() {
    // Replica 2's echo holds another block of (PREP, v, k), signed by the
    // leader: the slot is refused with `stop`, C is never signed.
    let mut t = Bench::new();
    let other = b_block(M + 1);
    t.record(ECHO_ROW + (2 << 5), &other, sig(&other, LEADER));
    t.run_slot(2000);
    let k = t.kinds();
    assert!(
        k.contains(&Ev::Verify(1, LEADER, true)),
        "the suspect's verify"
    );
    assert_eq!(k.last(), Some(&Ev::Stop));
    assert!(!k.contains(&Ev::Decide));
    assert!(!k.iter().any(|e| matches!(e, Ev::Sign(_))));
    // The suspect's verify leaves the cycle SlowVerifySuspect is entered.
    let vs = t.entered(SlowSt::SlowVerifySuspect);
    assert_eq!(vs.len(), 1);
    assert!(t
        .events
        .iter()
        .any(|e| e.0 == vs[0] && e.1 == Ev::Verify(1, LEADER, true)));
}

#[test]
fn a_suspect_whose_signature_fails_is_passed_over_and_the_row_read_again() {
    let mut t = Bench::new();
    let other = b_block(M + 1);
    t.record(ECHO_ROW + (2 << 5), &other, sig(&other, 2));
    t.run_slot(3000);
    let k = t.kinds();
    let echo_reads = k
        .iter()
        .filter(|e| **e == Ev::Fetch(ECHO_ROW, 2 * NB))
        .count();
    assert_eq!(echo_reads, 2);
    assert!(k.contains(&Ev::Verify(1, LEADER, false)));
    assert_eq!(k.last(), Some(&Ev::Decide));
}

#[test]
fn a_forged_prep_sig_is_refused_at_its_second_failure() {
    let mut t = Bench::new();
    let bb = b_block(M);
    t.record(PREP_SIG, &bb, sig(&bb, 2));
    t.run_slot(2000);
    assert_eq!(
        t.kinds(),
        vec![
            Ev::Fetch(PREP_SIG, 2),
            Ev::Verify(1, LEADER, false),
            Ev::Missed,
            Ev::Fetch(PREP_SIG, 2),
            Ev::Verify(1, LEADER, false),
            Ev::Missed,
            Ev::Stop,
        ]
    );
}

#[test]
fn a_prep_sig_of_another_block_or_not_yet_signed_is_a_miss_without_a_verify() {
    for (name, block, signature) in [
        ("another m", b_block(M + 1), sig(&b_block(M + 1), LEADER)),
        ("no signature yet", b_block(M), [0; 16]),
    ] {
        let mut t = Bench::new();
        t.record(PREP_SIG, &block, signature);
        t.limit = 3;
        t.run_slot(2000);
        let k = t.kinds();
        assert_eq!(k.iter().filter(|e| **e == Ev::Missed).count(), 3, "{name}");
        assert!(!k.iter().any(|e| matches!(e, Ev::Verify(..))), "{name}");
        assert_eq!(k.last(), Some(&Ev::Stop), "{name}");
        // The polls follow each other: done, then SlowPollPrepSig.
        let polls: Vec<u64> = t
            .events
            .iter()
            .filter(|e| e.1 == Ev::Fetch(PREP_SIG, 2))
            .map(|e| e.0)
            .collect();
        assert_eq!(polls, vec![2, 2 + H + 4, 2 + 2 * (H + 4)]);
    }
}

#[test]
fn a_commit_of_another_block_is_never_counted_and_the_wait_times_out() {
    // Replica 0 committed another m; replica 2 wrote nothing. Each turn
    // over the peers is a miss per peer and one for the turn.
    let mut t = Bench::new();
    t.commit(0, k_block(0, M + 1), 0b101);
    t.limit = 6;
    t.run_slot(3000);
    let k = t.kinds();
    assert!(!k.contains(&Ev::Decide));
    assert_eq!(k.last(), Some(&Ev::Stop));
    // After the COMMIT is sent: only fetches of commit[0] and commit[2]
    // (1 is its own, delivered), never a verify or an echo of them.
    let sent = k
        .iter()
        .position(|e| matches!(e, Ev::Bc(3, _, false, 4)))
        .unwrap();
    let after = &k[sent + 1..];
    assert!(after
        .iter()
        .all(|e| matches!(e, Ev::Fetch(_, 2) | Ev::Missed | Ev::Stop)));
    let polled: Vec<u64> = after
        .iter()
        .filter_map(|e| match e {
            Ev::Fetch(w, _) => Some(*w),
            _ => None,
        })
        .collect();
    assert_eq!(
        polled,
        vec![
            commit_word(0),
            commit_word(2),
            commit_word(0),
            commit_word(2)
        ]
    );
    assert_eq!(after.iter().filter(|e| **e == Ev::Missed).count(), 6);
}

#[test]
fn a_signed_seal_of_the_peer_vetoes_its_commit() {
    // Replica 0 sealed view 2 (seal[0], signed by 0): its COMMIT is not
    // counted; replica 2's COMMIT decides the slot instead.
    let mut t = Bench::new();
    let s = seal_block(0, VIEW);
    t.record(SEAL, &s, sig(&s, 0));
    t.commit(2, k_block(2, M), 0b101);
    t.run_slot(4000);
    let k = t.kinds();
    assert!(
        k.contains(&Ev::Verify(4, 0, true)),
        "the SEAL verified under 0"
    );
    assert!(
        !k.contains(&Ev::Fetch(ECHO_SEAL, 2 * NB)),
        "x = 0 vetoed at seal[0]"
    );
    assert!(k.contains(&Ev::Verify(3, 2, true)));
    assert!(k.contains(&Ev::Fetch(SEAL + (2 << 5), 2)));
    assert_eq!(k.last(), Some(&Ev::Decide));
    // Vetoed for good: commit[0] is fetched once.
    assert_eq!(
        k.iter()
            .filter(|e| **e == Ev::Fetch(commit_word(0), 2))
            .count(),
        1
    );
    // A SEAL of an older view vetoes nothing: the normal slot.
    let mut t = Bench::new();
    let s = seal_block(0, VIEW - 1);
    t.record(SEAL, &s, sig(&s, 0));
    t.run_slot(4000);
    assert_eq!(t.events, normal_slot());
}

#[test]
fn a_fetch_error_on_the_certify_row_is_a_miss_and_the_row_is_read_again() {
    let mut t = Bench::new();
    t.errors = vec![CERT_ROW];
    t.run_slot(3000);
    let k = t.kinds();
    let i = k
        .iter()
        .position(|e| *e == Ev::Fetch(CERT_ROW, 2 * NB))
        .unwrap();
    assert_eq!(k[i + 1], Ev::Missed);
    assert_eq!(k[i + 2], Ev::Fetch(CERT_ROW, 2 * NB));
    assert_eq!(k.last(), Some(&Ev::Decide));
}

#[test]
fn abort_at_a_poll_state_goes_off_without_a_fetch_and_hold_stays() {
    // SlowPollEchoPrep is entered at the cycle of its fetch in the normal
    // slot. Held there for 20 cycles: no fetch, no miss, then the slot
    // goes on 20 cycles late.
    let want = normal_slot();
    let poll = want[3].0;
    let mut t = Bench::new();
    t.hold = poll..poll + 20;
    t.run_slot(3000);
    let shifted: Vec<(u64, Ev)> = want
        .iter()
        .map(|(c, e)| (if *c >= poll { c + 20 } else { *c }, e.clone()))
        .collect();
    assert_eq!(t.events, shifted);
    assert!(!t.b.holding.val());
    // Aborted there: Off the next cycle, no fetch, no stop, no decision.
    let mut t = Bench::new();
    t.abort_at = Some(poll);
    t.run_slot(3000);
    assert_eq!(t.events, want[..3].to_vec());
    assert_eq!(t.states.last(), Some(&(poll, SlowSt::SlowPollEchoPrep)));
    assert_eq!(t.b.state(), SlowSt::Off);
    // An abort outside a poll state is not honoured.
    let mut t = Bench::new();
    t.abort_at = Some(poll - 3);
    t.run_slot(3000);
    assert_eq!(t.events, want);
}

#[test]
fn sts_state_numbers_the_states_as_the_page_does() {
    for (i, st) in SLOW_STATES.iter().enumerate() {
        // Off 0, SlowStart to SlowVerifySeal 40 to 65, then 97 to 100,
        // then 102 to 104.
        let want = match i {
            0 => 0,
            1..=26 => 39 + i as u8,
            27..=30 => 70 + i as u8,
            _ => 71 + i as u8,
        };
        assert_eq!(Slow::reported(*st), want, "{st:?}");
    }
}

#[test]
fn an_echo_commit_entry_holding_a_higher_commit_of_x_is_not_overwritten() {
    // What this replica's echo_commit[0][id] holds before the slot, and
    // whether replica 0's COMMIT of (VIEW, K) is echoed over it: only a
    // COMMIT of x = 0 higher in k, or in view at the same k, is kept.
    let k_at = |x: u32, w: u32, k: u32| -> Blk { [3, x, w, k, M, PREV, 0, 0] };
    let cases: [(Option<Blk>, bool); 6] = [
        (None, true),
        (Some(k_at(0, VIEW, K)), true),
        (Some(k_at(0, VIEW - 1, K + 1)), false),
        (Some(k_at(0, VIEW + 1, K)), false),
        (Some(k_at(0, VIEW + 5, K - 1)), true),
        (Some(k_at(2, VIEW, K + 1)), true),
    ];
    for (held, echoed) in cases {
        let mut t = Bench::new();
        if let Some(b) = held {
            t.record(own_echo(0), &b, sig(&b, 0));
        }
        t.run_slot(2000);
        let verify = t
            .events
            .iter()
            .position(|e| e.1 == Ev::Verify(3, 0, true))
            .expect("replica 0's COMMIT verified");
        let after: Vec<Ev> = t.events[verify + 1..].iter().map(|e| e.1.clone()).collect();
        let mut want = vec![Ev::Fetch(own_echo(0), 1)];
        if echoed {
            want.push(Ev::Bc(3, own_echo(0), true, 2));
        }
        want.extend([Ev::Fetch(SEAL, 2), Ev::Fetch(ECHO_SEAL, 2 * NB), Ev::Decide]);
        assert_eq!(after, want, "held {held:?}");
        let entry = as_block(&t.mem[&own_echo(0)]);
        match (held, echoed) {
            (_, true) => assert_eq!(entry, k_block(0, M), "held {held:?}"),
            (Some(h), false) => assert_eq!(entry, h, "kept"),
            (None, false) => unreachable!(),
        }
        // The decision is the same either way: f + 1 COMMITs of K.
        assert_eq!(t.kinds().last(), Some(&Ev::Decide));
    }
}

/// Adopt mode (recovery.md D11.13): replica 2's COMMIT record of the
/// target (Protocol's D, here the bench's block) with the certificate of
/// replicas 0 and 1.
fn adopt_bench(bitmap: u32, shares: [Beat; 2]) -> Bench {
    let mut t = Bench::new();
    t.commit(2, k_block(2, M), bitmap);
    let w = commit_word(2);
    t.mem.insert(w + 32, shares[0]);
    t.mem.insert(w + 48, shares[1]);
    t.d_x = 2;
    t
}

/// An adoption while bridging after its read: replica 0's share and its
/// own verified over C, K signed and written, and the yield to VIEW.
fn adopted_and_yielded() -> Vec<Ev> {
    vec![
        Ev::Verify(2, 0, true),
        Ev::Verify(2, ID, true),
        Ev::Sign(3),
        Ev::SetCommit,
        Ev::Bc(3, commit_word(ID), false, 4),
        Ev::Stop,
    ]
}

fn good_shares() -> [Beat; 2] {
    [sig(&c_block(), 0), sig(&c_block(), ID)]
}

#[test]
fn adopt_mode_copies_and_verifies_a_peers_certificate_commits_it_then_runs_r11() {
    let mut t = adopt_bench(0b011, good_shares());
    t.mode = (false, true, true);
    t.run_slot(3000);
    let k = t.kinds();
    // D's record, 3 + f beats; every share verified, its own too (the copy
    // is replica 2's); K signed and written with the record's bitmap.
    assert_eq!(
        k[..6],
        [
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, true),
            Ev::Verify(2, ID, true),
            Ev::Sign(3),
            Ev::SetCommit,
            Ev::Bc(3, commit_word(ID), false, 4),
        ]
    );
    let w = commit_word(ID);
    assert_eq!(t.mem[&w][..9], [3, 1, VIEW, K, M, PREV, 0, 0, 0b011]);
    assert_eq!(t.mem[&(w + 32)], sig(&c_block(), 0));
    assert_eq!(t.mem[&(w + 48)], sig(&c_block(), ID));
    // Then deliver mode's R11 with its own COMMIT delivered: replica 0's
    // COMMIT makes f + 1.
    assert_eq!(k[6], Ev::Fetch(commit_word(0), 2));
    assert_eq!(k.last(), Some(&Ev::Decide));
    assert!(
        !k.contains(&Ev::Fetch(CERT_ROW, 2 * NB)),
        "no certify row read"
    );
    assert!(!k.contains(&Ev::Sign(2)), "no share of its own signed");
}

#[test]
fn adopt_mode_refuses_a_record_that_is_not_ds_or_names_a_replica_at_or_above_n() {
    // Another value in the record's block; then a bitmap with bit 3 (n = 3).
    for (block, bitmap) in [(k_block(2, M + 1), 0b011), (k_block(2, M), 0b1001)] {
        let mut t = adopt_bench(bitmap, good_shares());
        t.commit(2, block, bitmap);
        t.mode = (false, true, true);
        t.run_slot(3000);
        assert_eq!(
            t.kinds(),
            [Ev::Fetch(commit_word(2), 4), Ev::Missed, Ev::Stop],
            "{block:?} {bitmap:#b}"
        );
    }
    // A bitmap naming one replica: its share verifies, but f + 1 = 2 were
    // not taken.
    let mut t = adopt_bench(0b001, good_shares());
    t.mode = (false, true, true);
    t.run_slot(3000);
    assert_eq!(
        t.kinds(),
        [
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, true),
            Ev::Stop
        ]
    );
}

#[test]
fn adopt_mode_reads_the_record_again_once_when_a_share_fails() {
    // Replica 0's share forged: read again (a read may be torn), then
    // given up at its second failure; nothing signed.
    let forged = sig(&c_block(), 2);
    let mut t = adopt_bench(0b011, [forged, sig(&c_block(), ID)]);
    t.mode = (false, true, true);
    t.run_slot(3000);
    assert_eq!(
        t.kinds(),
        [
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, false),
            Ev::Missed,
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, false),
            Ev::Missed,
            Ev::Stop,
        ]
    );
    // A forged copy of its own share is caught too.
    let mut t = adopt_bench(0b011, [sig(&c_block(), 0), forged]);
    t.mode = (false, true, true);
    t.run_slot(3000);
    assert!(t.kinds().contains(&Ev::Verify(2, ID, false)));
    assert!(!t.kinds().contains(&Ev::Sign(3)));
}

#[test]
fn share_only_signs_and_writes_ws_share_then_yields_without_reading_the_row() {
    // VIEW's `call_share` (R16 with no obligation): seal mode signs C (the
    // bench's block stands for W) in SlowStart, writes the share, and goes
    // Off with `stop` the cycle after Broadcast's done.
    let mut t = Bench::new();
    t.mode = (true, false, false);
    t.share_only = true;
    t.run_slot(2000);
    let c = c_block()[0];
    assert_eq!(
        t.events,
        vec![
            (1, Ev::Sign(c)),
            (
                1 + S + 1,
                Ev::Bc(c, CERT_ROW + ((ID as u64) << 5), false, 2)
            ),
            (1 + S + 1 + BC, Ev::Stop),
        ]
    );
    assert_eq!(
        t.mem[&(CERT_ROW + ((ID as u64) << 5) + 16)],
        sig(&c_block(), ID)
    );
    assert!(t.entered(SlowSt::SlowPollCertify).is_empty());
    // Without it, the same start is the bridge: the row is read next.
    let mut t = Bench::new();
    t.mode = (true, false, false);
    t.run_slot(3000);
    assert_eq!(
        t.kinds()[..3],
        [
            Ev::Sign(c),
            Ev::Bc(c, CERT_ROW + ((ID as u64) << 5), false, 2),
            Ev::Fetch(CERT_ROW, 2 * NB)
        ]
    );
}

#[test]
fn adopt_granted_while_bridging_commits_d_and_yields_without_r11() {
    // Seal mode (the bridge on the bench's block), then Protocol's `adopt`
    // at its certify poll: D's record, its COMMIT, and `stop` (a yield to
    // VIEW), no R11 and no decision.
    let mut t = adopt_bench(0b011, good_shares());
    t.mode = (true, false, false);
    t.adopt_at_poll = true;
    t.run_slot(3000);
    let k = t.kinds();
    let poll = t.entered(SlowSt::SlowPollCertify)[0];
    assert_eq!(t.entered(SlowSt::SlowPollRecord), vec![poll + 1]);
    assert!(
        !k.contains(&Ev::Fetch(CERT_ROW, 2 * NB)),
        "the poll was taken over"
    );
    let at = k
        .iter()
        .position(|e| *e == Ev::Fetch(commit_word(2), 4))
        .unwrap();
    assert_eq!(
        k[at..],
        [vec![Ev::Fetch(commit_word(2), 4)], adopted_and_yielded()].concat()
    );
    assert!(t.b.adopt_mode.val() && t.b.seal_mode.val());
}

/// `adopt` granted at the certify poll, in seal mode (`seal`) or normal
/// mode: the bench's block stands for D, whose record is replica 2's
/// COMMIT with the certificate of replicas 0 and 1 (with `shares`), the
/// mailbox changed by `setup` first. The bench, and what the block asked
/// for from its read of D's record on.
fn adoption_at_poll(
    seal: bool,
    shares: [Beat; 2],
    setup: impl FnOnce(&mut Bench),
) -> (Bench, Vec<Ev>) {
    let mut t = adopt_bench(0b011, shares);
    setup(&mut t);
    t.mode = (seal, false, false);
    t.adopt_at_poll = true;
    t.run_slot(5000);
    let k = t.kinds();
    let at = k
        .iter()
        .position(|e| *e == Ev::Fetch(commit_word(2), 4))
        .expect("D's record read");
    (t, k[at..].to_vec())
}

/// `adopt` granted at the certify poll on a record that is not D's
/// (another value in its block): one read, a miss, and back to the certify
/// poll, in seal mode (`seal`) or normal mode. The bench and what it asked
/// for from the record's read on.
fn not_ds_record(seal: bool) -> (Bench, Vec<Ev>) {
    let (t, k) = adoption_at_poll(seal, good_shares(), |t| {
        t.commit(2, k_block(2, M + 1), 0b011);
    });
    assert_eq!(
        k[..3],
        [
            Ev::Fetch(commit_word(2), 4),
            Ev::Missed,
            Ev::Fetch(CERT_ROW, 2 * NB)
        ]
    );
    (t, k)
}

/// A certificate that fails for good while bridging (a share that fails
/// at both reads of the record, or a record that is not D's) takes the
/// machine back to the poll it left, as in normal mode: no yield, so the
/// bridge is not restarted, WATCH's memory of the record stands, and a
/// Byzantine COMMIT costs one pass, not one per restart. The bridge goes
/// on from its certify row: replica 0's share there is good, so W is
/// committed (with the row's bitmap), and then the yield.
#[test]
fn a_failed_adoption_while_bridging_returns_to_its_poll_and_the_bridge_goes_on() {
    let forged = sig(&c_block(), 2);
    let (t, k) = adoption_at_poll(true, [forged, sig(&c_block(), ID)], |_| {});
    assert_eq!(
        k,
        [
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, false),
            Ev::Missed,
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, false),
            Ev::Missed,
            Ev::Fetch(CERT_ROW, 2 * NB),
            // W's own certificate: its own share is not verified.
            Ev::Verify(2, 0, true),
            Ev::Sign(3),
            Ev::SetCommit,
            Ev::Bc(3, commit_word(ID), false, 4),
            Ev::Stop,
        ]
    );
    assert_eq!(
        t.kinds().iter().filter(|e| **e == Ev::Stop).count(),
        1,
        "one yield, after W's COMMIT"
    );
    assert!(!t.b.adopt_mode.val() && t.b.seal_mode.val());
    assert_eq!(t.entered(SlowSt::SlowPollCertify).len(), 2);

    // Not D's record (another value in its block).
    let (t, _) = not_ds_record(true);
    assert_eq!(t.kinds().iter().filter(|e| **e == Ev::Stop).count(), 1);
}

/// Seal mode on the bench's block with Protocol's `adopt` and `adopt_row`
/// at its first certify poll, the mailbox changed by `setup` first: the
/// bench, and what the block asked for from its first certify row read on.
fn row_adoption(setup: impl FnOnce(&mut Bench)) -> (Bench, Vec<Ev>) {
    let mut t = Bench::new();
    setup(&mut t);
    t.mode = (true, false, false);
    t.adopt_at_poll = true;
    t.adopt_row = true;
    t.run_slot(3000);
    let k = t.kinds();
    let at = k
        .iter()
        .position(|e| *e == Ev::Fetch(CERT_ROW, 2 * NB))
        .expect("a certify row read");
    (t, k[at..].to_vec())
}

/// An ABOVE of W.b + 1 adopted while bridging (`adopt` with `adopt_row`,
/// recovery.md R17): D's certificate is f + 1 CERT records in the certify
/// row (the bench's target stands for D, Protocol's mux; replica 0's and
/// 2's, and this replica's own, written in seal mode before the grant).
/// The machine reads the row, takes the first f + 1 (0 and its own),
/// verifies both, its own too, signs and writes its COMMIT with the row's
/// bitmap, and yields: no COMMIT record is read.
#[test]
fn adopt_from_the_row_while_bridging_verifies_the_rows_shares_commits_d_and_yields() {
    let (t, k) = row_adoption(|_| {});
    assert_eq!(
        k,
        [vec![Ev::Fetch(CERT_ROW, 2 * NB)], adopted_and_yielded()].concat()
    );
    // The granted poll was taken over: the one row read is the next
    // cycle's, and no COMMIT record is read.
    let poll = t.entered(SlowSt::SlowPollCertify)[0];
    assert!(t
        .states
        .iter()
        .any(|&(c, st)| c == poll + 1 && st == SlowSt::SlowPollCertify));
    let all = t.kinds();
    assert_eq!(
        all.iter()
            .filter(|e| **e == Ev::Fetch(CERT_ROW, 2 * NB))
            .count(),
        1
    );
    assert!(!all.iter().any(|e| matches!(e, Ev::Fetch(_, 4))));
    let w = commit_word(ID);
    assert_eq!(t.mem[&w][..9], [3, 1, VIEW, K, M, PREV, 0, 0, 0b011]);
    assert_eq!(t.mem[&(w + 32)], sig(&c_block(), 0));
    assert_eq!(t.mem[&(w + 48)], sig(&c_block(), ID));
    assert!(t.b.adopt_mode.val() && t.b.seal_mode.val());
}

/// Adopting from the row, fewer than f + 1 CERT records of D (the row
/// changed since WATCH read it: here only this replica's own) end the pass
/// at once, and a share that fails twice ends it after one more read: a
/// yield, nothing signed.
#[test]
fn adopt_from_the_row_yields_on_a_short_row_or_a_share_that_fails_twice() {
    let (_, k) = row_adoption(|t| {
        t.mem.remove(&CERT_ROW);
        t.mem.remove(&(CERT_ROW + (2 << 5)));
    });
    assert_eq!(k, [Ev::Fetch(CERT_ROW, 2 * NB), Ev::Missed, Ev::Stop]);
    let (_, k) = row_adoption(|t| {
        t.mem.insert(CERT_ROW + 16, sig(&c_block(), 2));
    });
    assert_eq!(
        k,
        [
            Ev::Fetch(CERT_ROW, 2 * NB),
            Ev::Verify(2, 0, false),
            Ev::Missed,
            Ev::Fetch(CERT_ROW, 2 * NB),
            Ev::Verify(2, 0, false),
            Ev::Missed,
            Ev::Stop,
        ]
    );
}

/// Adopted in normal mode, the machine commits D and goes on to R11 and
/// R12 on D's COMMITs (replica 0's makes f + 1): it decides, and yields
/// nothing.
#[test]
fn adopt_in_normal_mode_commits_d_then_decides_on_f_plus_1_commits() {
    let (t, k) = adoption_at_poll(false, good_shares(), |_| {});
    let poll = t.entered(SlowSt::SlowPollCertify)[0];
    assert_eq!(t.entered(SlowSt::SlowPollRecord), vec![poll + 1]);
    assert_eq!(
        k[..7],
        [
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, true),
            Ev::Verify(2, ID, true),
            Ev::Sign(3),
            Ev::SetCommit,
            Ev::Bc(3, commit_word(ID), false, 4),
            Ev::Fetch(commit_word(0), 2),
        ]
    );
    assert_eq!(k.last(), Some(&Ev::Decide));
    assert!(!k.contains(&Ev::Stop));
    // The granted poll was taken over: no certify row read after it.
    assert!(!k.contains(&Ev::Fetch(CERT_ROW, 2 * NB)));
    assert!(t.b.adopt_mode.val() && !t.b.seal_mode.val() && !t.b.deliver_mode.val());
}

/// A certificate that fails in normal mode (a share that fails once, or a
/// record that is not D's) takes the machine back to the poll it left, with
/// what it verified for D forgotten, so that the slot's own R10 goes on
/// from its row: replica 0's share there is verified and counted although
/// its forged copy in replica 2's record failed. No yield and no second
/// read: a Byzantine record costs one pass, not a view change.
#[test]
fn a_failed_adoption_in_normal_mode_returns_to_its_poll_and_the_slot_goes_on() {
    let forged = sig(&c_block(), 2);
    let (t, k) = adoption_at_poll(false, [forged, sig(&c_block(), ID)], |_| {});
    assert_eq!(
        k[..4],
        [
            Ev::Fetch(commit_word(2), 4),
            Ev::Verify(2, 0, false),
            Ev::Missed,
            Ev::Fetch(CERT_ROW, 2 * NB),
        ]
    );
    assert!(k.contains(&Ev::Verify(2, 0, true)), "{k:?}");
    assert_eq!(k.last(), Some(&Ev::Decide));
    assert!(!k.contains(&Ev::Stop));
    assert!(!t.b.adopt_mode.val());
    let poll = t.entered(SlowSt::SlowPollCertify);
    assert_eq!(poll.len(), 2, "the poll left, then the poll resumed");

    // Not D's record (another value in its block).
    let (_, k) = not_ds_record(false);
    assert_eq!(k.last(), Some(&Ev::Decide));
    assert!(!k.contains(&Ev::Stop));
}

/// `undelivered`, which lets Protocol adopt a certificate of this view in
/// normal mode (R10's second half, `grants.md`): high exactly through R8
/// (SlowPollPrepSig to SlowWaitEchoPrep here) in normal mode, and never
/// in seal mode or once it delivered.
#[test]
fn undelivered_is_high_only_while_it_works_on_its_delivery_in_normal_mode() {
    for seal in [false, true] {
        let mut t = Bench::new();
        t.mode = (seal, false, false);
        let mut seen = vec![];
        for _ in 0..2000 {
            t.step();
            let st = t.b.state();
            let want = !seal
                && matches!(
                    st,
                    SlowSt::SlowPollPrepSig
                        | SlowSt::SlowWaitPrepSig
                        | SlowSt::SlowVerifyPrep
                        | SlowSt::SlowEchoPrep
                        | SlowSt::SlowPollEchoPrep
                        | SlowSt::SlowWaitEchoPrep
                        | SlowSt::SlowVerifySuspect
                );
            assert_eq!(t.b.undelivered.val(), want, "{st:?}, seal mode {seal}");
            if t.b.undelivered.val() && seen.last() != Some(&st) {
                seen.push(st);
            }
            if st == SlowSt::Off && t.cycle > 2 {
                break;
            }
        }
        // The normal slot's R8: prep_sig read, verified, echoed, the echo
        // row read; then SlowSignCert.
        assert_eq!(
            seen,
            if seal {
                vec![]
            } else {
                vec![
                    SlowSt::SlowPollPrepSig,
                    SlowSt::SlowWaitPrepSig,
                    SlowSt::SlowVerifyPrep,
                    SlowSt::SlowEchoPrep,
                    SlowSt::SlowPollEchoPrep,
                    SlowSt::SlowWaitEchoPrep,
                ]
            }
        );
    }
}

/// R5 in normal mode (recovery.md R16, slow.md "Delivery on n locks"):
/// while undelivered (no prep_sig: the leader fell silent), the
/// will_cert row is read between two reads of prep_sig; n locks there
/// deliver the slot fast: will_commit (phase 2, W) on its own lane of the
/// will_commit row, then R9 as from phase 2, and the slot is decided on
/// f + 1 COMMITs.
#[test]
fn undelivered_in_normal_mode_n_locks_will_commit_and_certify() {
    let mut t = Bench::new();
    t.mem.remove(&PREP_SIG);
    t.mem.remove(&(PREP_SIG + 16));
    t.locks_ok = true;
    t.locks_from = Some(60);
    t.run_slot(4000);
    let k = t.kinds();
    let first_lock = k.iter().position(|e| *e == Ev::Fetch(LOCK_ROW, 1)).unwrap();
    assert_eq!(
        k[first_lock - 2..first_lock],
        [Ev::Fetch(PREP_SIG, 2), Ev::Missed]
    );
    // At the read's end, in one cycle: the will_commit and phase 2.
    let w = k.iter().position(|e| *e == Ev::SetW).expect("phase 2 set");
    assert_eq!(k[w - 2], Ev::Fetch(LOCK_ROW, 1));
    assert_eq!(k[w - 1], Ev::Bc(VOTE, VOTE_ROW + 2 * ID as u64, false, 1));
    assert_eq!(k[w + 1], Ev::Sign(2));
    assert_eq!(k.iter().filter(|e| **e == Ev::SetW).count(), 1);
    // Each read of the row that finds fewer is a miss, as prep_sig's.
    let lock_polls = k[..w]
        .iter()
        .filter(|e| **e == Ev::Fetch(LOCK_ROW, 1))
        .count();
    let misses = k[..w].iter().filter(|e| **e == Ev::Missed).count();
    assert_eq!(misses, 2 * lock_polls - 1, "{k:?}");
    assert!(
        !k.contains(&Ev::Verify(1, LEADER, true)),
        "no prep_sig was read"
    );
    assert_eq!(k.last(), Some(&Ev::Decide));
    assert_eq!(t.b.state(), SlowSt::Off);
}

/// Without n locks the reads alternate and the wait ends as before, on
/// the misses; without `locks_ok` (not locked in this view, or refused)
/// the row is not read.
#[test]
fn without_n_locks_the_wait_times_out_and_without_locks_ok_the_row_is_not_read() {
    for ok in [true, false] {
        let mut t = Bench::new();
        t.mem.remove(&PREP_SIG);
        t.mem.remove(&(PREP_SIG + 16));
        t.limit = 6;
        t.locks_ok = ok;
        t.run_slot(4000);
        let k = t.kinds();
        assert_eq!(k.last(), Some(&Ev::Stop));
        assert_eq!(k.iter().filter(|e| **e == Ev::Missed).count(), 6);
        let lock_polls = k.iter().filter(|e| **e == Ev::Fetch(LOCK_ROW, 1)).count();
        assert_eq!(lock_polls, if ok { 3 } else { 0 }, "{k:?}");
        assert!(!k.contains(&Ev::SetW));
    }
}

/// R16 while bridging (seal mode): after a read of the certify row that
/// finds fewer than f + 1 shares over W, the will_cert row is read once;
/// with n locks the machine certifies the slot itself (`sharing`: Protocol
/// makes the slot its target), writes no will_commit (R15), and goes back
/// to W's row.
#[test]
fn bridging_n_locks_certify_the_slot_once_with_no_will_commit() {
    let mut t = Bench::new();
    t.mode = (true, false, false);
    t.phase = 1;
    // No share but its own over W: the bridge waits.
    for j in [0u8, 2] {
        t.mem.remove(&(CERT_ROW + ((j as u64) << 5)));
    }
    t.locks_ok = true;
    t.locks_from = Some(0);
    let mut sharing = vec![];
    for _ in 0..600 {
        t.step();
        if t.b.sharing.val() {
            sharing.push((t.cycle - 1, t.b.state()));
        }
    }
    let k = t.kinds();
    // W's CERT, then its row (one share), then the locks, once.
    assert_eq!(k[0], Ev::Sign(2));
    assert_eq!(
        k.iter().filter(|e| **e == Ev::Fetch(LOCK_ROW, 1)).count(),
        1,
        "{k:?}"
    );
    let l = k.iter().position(|e| *e == Ev::Fetch(LOCK_ROW, 1)).unwrap();
    assert_eq!(k[l + 1], Ev::Sign(2));
    assert!(matches!(k[l + 2], Ev::Bc(2, _, false, 2)), "{k:?}");
    assert_eq!(k[l + 3], Ev::Fetch(CERT_ROW, 2 * NB));
    assert!(!k.contains(&Ev::SetW) && !k.iter().any(|e| matches!(e, Ev::Bc(VOTE, ..))));
    // `sharing` from the locks' answer until the CERT is written.
    let states: Vec<SlowSt> = sharing.iter().map(|s| s.1).collect();
    assert!(states.contains(&SlowSt::SlowSignCert) && states.contains(&SlowSt::SlowSendCert));
    assert!(states
        .iter()
        .all(|s| matches!(s, SlowSt::SlowSignCert | SlowSt::SlowSendCert)));
    // The bridge goes on polling W's row, as seal mode does (no timeout).
    assert_ne!(t.b.state(), SlowSt::Off);
}

/// `blocked` (Protocol may adopt a peer's COMMIT of this view although the
/// machine delivered, R10's second half): in normal mode, high from the
/// cycle after a share of its certify row fails at its second read, until
/// the slot ends; never at the first failure (a read may be torn), never
/// in a slot whose shares verify, never in seal mode.
#[test]
fn blocked_rises_when_a_share_of_its_row_fails_twice_in_normal_mode() {
    for seal in [false, true] {
        // Replica 0's share in the row is signed by replica 2: forged.
        let mut t = Bench::new();
        t.mode = (seal, false, false);
        t.mem.insert(CERT_ROW + 16, sig(&c_block(), 2));
        let mut rose = None;
        let mut fails = 0;
        for _ in 0..4000 {
            let before = t.events.len();
            t.step();
            fails += t.events[before..]
                .iter()
                .filter(|e| e.1 == Ev::Verify(2, 0, false))
                .count();
            if t.b.blocked.val() && rose.is_none() {
                rose = Some((t.cycle, fails));
            }
            if rose.is_some() && t.b.state() != SlowSt::Off {
                assert!(t.b.blocked.val(), "blocked fell at {}", t.cycle);
            }
            if t.b.state() == SlowSt::Off && t.cycle > 2 {
                break;
            }
        }
        assert_eq!(fails, 2, "seal mode {seal}: {:?}", t.kinds());
        if seal {
            assert_eq!(rose, None);
        } else {
            assert_eq!(rose.map(|r| r.1), Some(2), "after the second failure");
        }
    }
    // Good shares: never.
    let mut t = Bench::new();
    for _ in 0..4000 {
        t.step();
        assert!(!t.b.blocked.val());
        if t.b.state() == SlowSt::Off && t.cycle > 2 {
            break;
        }
    }
}

/// `blocked` also once a poll of its certify row is missed with the
/// Timer's `base_waited` high (the base wait for shares that may never
/// come): in normal mode, from that miss until the slot ends; not in seal
/// mode, and not while the base wait has not passed.
#[test]
fn blocked_rises_when_its_certify_row_stays_short_for_the_base_wait() {
    for (seal, base) in [(false, 5), (true, 5), (false, u64::MAX)] {
        // No peer's share: its own certificate is one short for good.
        let mut t = Bench::new();
        t.mode = (seal, false, false);
        t.base = base;
        t.limit = 40;
        for j in [0u64, 2] {
            t.mem.remove(&(CERT_ROW + (j << 5)));
            t.mem.remove(&(CERT_ROW + (j << 5) + 16));
        }
        let mut rose = None;
        for _ in 0..20_000 {
            t.step();
            if t.b.blocked.val() && rose.is_none() {
                rose = Some((t.misses, t.b.state()));
            }
            if rose.is_some() && t.b.state() != SlowSt::Off {
                assert!(t.b.blocked.val(), "blocked fell at {}", t.cycle);
            }
            if (t.b.state() == SlowSt::Off && t.cycle > 2) || t.cycle > 15_000 {
                break;
            }
        }
        match (seal, base) {
            (false, 5) => {
                let (misses, state) = rose.expect("blocked rises");
                assert!(misses >= base, "after the base wait: {misses}");
                assert!(
                    matches!(state, SlowSt::SlowPollCertify | SlowSt::SlowWaitCertify),
                    "{state:?}"
                );
            }
            _ => assert_eq!(rose, None, "seal mode {seal}, base {base}"),
        }
    }
}
