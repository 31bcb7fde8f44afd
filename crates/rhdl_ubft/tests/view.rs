//! View, cycle by cycle, against docs/view.md, at n = 3 (f + 1 = 2) on a
//! follower (id 1) in view 4, whose next view's leader is 2.
//!
//! Covered: sealing (ViewStart, ViewTurn, S signed, the SEAL written to
//! seal[id] with the signature from COMPOSE, `next_view`) at exact cycles;
//! a follower installing a NEW_VIEW without a carried value (its first
//! beat polled until it names the view, the record read whole, its own
//! SEAL skipped, the other SEAL verified under its writer from COMPOSE,
//! echo_seal[x][id] read and the SEAL echoed in a round, the echo_commit[x]
//! row read, `open_round` and `start_leader`) at exact cycles; T_vc: a
//! NEW_VIEW that never comes seals the next view after exactly the limit
//! of misses; refusals that never install: a NEW_VIEW of another view, one
//! whose SEALs do not match its bitmap, one whose SEAL is forged (a miss,
//! then refused at the second failure), one whose writer signed a COMMIT
//! its SEAL does not cover (R21); the bridge (`call_slow`, `slow_done`)
//! and an obligation out of reach (`stop`); `seal_grant` at the poll
//! point; `sts_state`; a new leader short of f + 1 SEALs, whose reads of
//! the seal row are a miss only every 2^LEAD_WAIT_SHIFT-th time
//! (recovery.md D11.14).
//!
//! Left to the cluster tests (ubft_sim: view_change.rs, cluster.rs): the
//! new leader's collection and NEW_VIEW, a carried value (the certificate,
//! the constraint, R23's step back, `decide_prev`, catch-up), the grants
//! of WATCH's events other than `seal_grant`, deliver mode, and Protocol's
//! muxes (S and the NEW_VIEW header, COMPOSE, Broadcast's records).
//!
//! The environment is slow.rs's: a Fetch with beat i of a burst started
//! at t on `fetch_beat` at t + H + 2 + i, `done` with the last; a mailbox
//! the replica's own broadcasts land in; Broadcast done BC cycles after
//! `bc_start`, a round RD; COMPOSE (read beat = the one `cp_first` named
//! the cycle before); a one-at-a-time signer (S to sign, V to verify);
//! the view register (`next_view`), the miss count (`clear_wait`) and
//! made-up addresses.

use rhdl_ubft::controller::view::{View, ViewSt, VIEW_STATES};
use rust_hdl::prelude::*;
use std::collections::HashMap;

const H: u64 = 8;
const BC: u64 = 6;
const RD: u64 = 9;
const S: u64 = 10;
const V: u64 = 14;
const NB: u64 = rhdl_ubft::params::N as u64;
const ROW_LOG: u64 = 3;
const N: u8 = 3;
const ID: u8 = 1;
const VIEW0: u32 = 4;
const SIG: u32 = 0x5160_0000;

const SEAL_ROW: u64 = 0x1000;
const NEW_VIEW: u64 = 0x2000;
const ECHO_SEAL: u64 = 0x10000;
const ECHO_COMMIT: u64 = 0x20000;

type Blk = [u32; 8];
type Beat = [u32; 16];

/// A SEAL of x for view w without an L.
fn seal(x: u8, w: u32) -> Blk {
    [4, x as u32, w, 0, 0, 0, 0, 0]
}
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
fn bits<const W: usize>(words: &[u32]) -> Bits<W> {
    let mut x = Bits::<W>::default();
    for (i, w) in words.iter().enumerate().take(W / 32) {
        x.set_bits::<32>(32 * i, (*w as u64).into());
    }
    x
}
fn words<const W: usize>(x: Bits<W>) -> Vec<u32> {
    (0..W / 32)
        .map(|i| x.get_bits::<32>(32 * i).to_u64() as u32)
        .collect()
}
fn echo_seal(x: u8) -> u64 {
    ECHO_SEAL + ((((x as u64) << ROW_LOG) + ID as u64) << 5)
}
fn echo_commit_row(x: u8) -> u64 {
    ECHO_COMMIT + (((x as u64) << ROW_LOG) << 5)
}

#[derive(Clone, Debug, PartialEq)]
enum Ev {
    Fetch(u64, u64),
    /// A sign of S (kind), a verify of a block (kind, signer, valid).
    Sign(u32),
    Verify(u32, u8, bool),
    /// A broadcast: beat 0's first word, word, round, beats.
    Bc(u32, u64, bool, u64),
    NextView,
    /// `step_view`: a view skipped (ViewJump).
    StepView,
    Missed,
    OpenRound,
    StartLeader,
    CallSlow,
    /// `call_share` (with `call_slow`): W's share only (R16).
    CallShare,
}

#[derive(Clone, Copy, Default)]
struct Ins {
    start: bool,
    view: u32,
    ob: bool,
    share_due: bool,
    slow_done: bool,
    seal_grant: bool,
    expiring: bool,
    beat: Option<(Beat, bool, bool)>,
    sg_busy: bool,
    resp: Option<u8>,
    bc_done: bool,
    bc_busy: bool,
    round_done: bool,
    round_error: bool,
    rd_data: Beat,
}

/// The one place the ports are driven.
fn drive(b: &mut View, i: &Ins) {
    b.rst_n.next = true;
    b.start.next = i.start;
    b.catch_grant.next = false;
    b.seal_grant.next = i.seal_grant;
    b.dlv_grant.next = false;
    b.hold.next = false;
    b.running.next = true;
    b.id.next = (ID as u64).into();
    b.n.next = (N as u64).into();
    b.support.next = ((N as u64 - 1) / 2 + 1).into();
    b.view_no.next = (i.view as u64).into();
    b.next_leader.next = ((i.view as u64 + 1) % N as u64).into();
    b.ob.next = i.ob;
    b.share_due.next = i.share_due;
    b.slow_done.next = i.slow_done;
    b.k.next = 20u64.into();
    b.prev.next = 0.into();
    b.prev2.next = 0.into();
    b.prev2_ok.next = false;
    b.cert_word.next = 0.into();
    b.expiring.next = i.expiring;
    b.seal_own_word.next = (SEAL_ROW + ((ID as u64) << 5)).into();
    b.seal_row_word.next = SEAL_ROW.into();
    b.new_view_word.next = NEW_VIEW.into();
    b.echo_seal_base.next = ECHO_SEAL.into();
    b.echo_commit_base.next = ECHO_COMMIT.into();
    b.row_log.next = ROW_LOG.into();
    b.row2_len.next = (2 * NB - 1).into();
    let (beat, valid, done, error) = match i.beat {
        Some((b, done, error)) => (b, true, done, error),
        None => ([0; 16], false, false, false),
    };
    b.fetch_beat.next = bits(&beat[..8]);
    b.fetch_hi.next = (beat[8] as u64 & 0xff).into();
    b.fetch_beat_valid.next = valid;
    b.fetch_done.next = done;
    b.fetch_error.next = error;
    b.sg_busy.next = i.sg_busy;
    b.sg_resp_valid.next = i.resp.is_some();
    b.sg_resp_status.next = (i.resp.unwrap_or(0) as u64).into();
    b.cp_rd_data.next = bits(&i.rd_data[..8]);
    b.bc_done.next = i.bc_done;
    b.bc_busy.next = i.bc_busy;
    b.round_done.next = i.round_done;
    b.round_error.next = i.round_error;
}

struct Bench {
    b: View,
    cycle: u64,
    view: u32,
    mem: HashMap<u64, Beat>,
    fetch: Option<(u64, u64, u64)>,
    bc: Option<(u64, bool)>,
    compose: [Beat; 16],
    rd_data: Beat,
    sg: Option<(u64, u8, Beat)>,
    limit: u64,
    misses: u64,
    ob: bool,
    share_due: bool,
    slow_done_at: Option<u64>,
    seal_grant_at: Option<u64>,
    /// Every round ends with `round_error` (its local write failed).
    rounds_fail: bool,
    events: Vec<(u64, Ev)>,
    states: Vec<(u64, ViewSt)>,
}

impl Bench {
    fn new() -> Self {
        let mut b = View::default();
        b.connect_all();
        Bench {
            b,
            cycle: 0,
            view: VIEW0,
            mem: HashMap::new(),
            fetch: None,
            bc: None,
            compose: [[0; 16]; 16],
            rd_data: [0; 16],
            sg: None,
            limit: 1000,
            misses: 0,
            ob: false,
            share_due: false,
            slow_done_at: None,
            seal_grant_at: None,
            rounds_fail: false,
            events: vec![],
            states: vec![],
        }
    }

    /// NEW_VIEW(v): the header [v, sb, 0], then each SEAL and its
    /// signature.
    fn new_view(&mut self, v: u32, sb: u32, seals: &[(Blk, Beat)]) {
        let mut h = [0; 16];
        h[0] = v;
        h[1] = sb;
        self.mem.insert(NEW_VIEW, h);
        for (i, (blk, s)) in seals.iter().enumerate() {
            self.mem
                .insert(NEW_VIEW + 16 * (1 + 2 * i as u64), beat_of(blk));
            self.mem.insert(NEW_VIEW + 16 * (2 + 2 * i as u64), *s);
        }
    }

    /// The NEW_VIEW of view 5 an honest leader 2 writes: its SEAL and
    /// this replica's, both of view 4.
    fn honest_new_view(&mut self) {
        let (s1, s2) = (seal(1, VIEW0), seal(2, VIEW0));
        self.new_view(VIEW0 + 1, 0b110, &[(s1, sig(&s1, 1)), (s2, sig(&s2, 2))]);
    }

    fn step(&mut self) {
        let c = self.cycle;
        let beat = self.fetch.and_then(|(t, w, n)| {
            let i = c.checked_sub(t + H + 2)?;
            (i < n).then(|| {
                (
                    *self.mem.get(&(w + 16 * i)).unwrap_or(&[0; 16]),
                    i + 1 == n,
                    false,
                )
            })
        });
        let resp = self.sg.filter(|s| c >= s.0).map(|s| (s.1, s.2));
        let i = Ins {
            start: c == 0,
            view: self.view,
            ob: self.ob,
            share_due: self.share_due,
            slow_done: self.slow_done_at == Some(c),
            seal_grant: self.seal_grant_at == Some(c),
            expiring: self.misses + 1 >= self.limit,
            beat,
            sg_busy: self.sg.is_some(),
            resp: resp.map(|r| r.0),
            bc_done: self.bc.is_some_and(|(t, r)| !r && c == t + BC),
            bc_busy: self
                .bc
                .is_some_and(|(t, r)| c < t + if r { RD } else { BC }),
            round_done: self.bc.is_some_and(|(t, r)| r && c == t + RD),
            round_error: self.rounds_fail && self.bc.is_some_and(|(t, r)| r && c == t + RD),
            rd_data: self.rd_data,
        };
        drive(&mut self.b, &i);
        assert!(simulate(&mut self.b, 100));
        self.observe(c, &i, beat, resp);
        self.b.clock.next = Clock::from(true);
        assert!(simulate(&mut self.b, 100));
        self.b.clock.next = Clock::from(false);
        assert!(simulate(&mut self.b, 100));
        self.cycle += 1;
    }

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
            if b.sg_sign.val() {
                assert!(b.sg_seal.val(), "VIEW signs only S");
                let s = seal(ID, self.view);
                ev.push(Ev::Sign(4));
                self.sg = Some((c + S, 0, sig(&s, ID)));
            } else {
                let blk: Blk = if b.sg_sus.val() {
                    words(b.sus_block.val()).try_into().unwrap()
                } else {
                    assert!(b.sg_blk.val());
                    words(b.blk_out.val()).try_into().unwrap()
                };
                let signer = b.sg_signer.val().to_u64() as u8;
                let ok = self.rd_data == sig(&blk, signer);
                ev.push(Ev::Verify(blk[0], signer, ok));
                self.sg = Some((c + V, if ok { 0 } else { 1 }, [0; 16]));
            }
        }
        if b.sg_resp_take.val() {
            assert!(resp.is_some());
            self.sg = None;
        }
        let mut compose = self.compose;
        if b.cp_wr_en.val() {
            let data = if b.cp_from_fetch.val() {
                assert!(beat.is_some());
                fetch_beat
            } else {
                resp.expect("COMPOSE takes the signer's response with it").1
            };
            compose[b.cp_wr_beat.val().to_u64() as usize] = data;
        }
        if b.bc_start.val() {
            assert!(b.cp_start.val(), "Broadcast and COMPOSE start together");
            let word = b.bc_word.val().to_u64();
            let first = if b.bc_seal.val() {
                beat_of(&seal(ID, self.view))
            } else if b.bc_echo_seal.val() {
                let mut f = [0; 16];
                f[..8].copy_from_slice(&words(b.blk_out.val()));
                f
            } else {
                assert!(b.bc_nv.val());
                let mut f = [0; 16];
                f[0] = self.view;
                f[1] = b.sb_out.val().to_u64() as u32;
                f[2] = b.cb_out.val().to_u64() as u32;
                f
            };
            let (lo, hi) = (b.cp_first.val().to_u64(), b.cp_last.val().to_u64());
            assert_eq!(b.bc_beats.val().to_u64(), 2 + hi - lo);
            self.mem.insert(word, first);
            for (n, k) in (lo..=hi).enumerate() {
                self.mem
                    .insert(word + 16 * (n as u64 + 1), self.compose[k as usize]);
            }
            ev.push(Ev::Bc(first[0], word, b.bc_round.val(), 2 + hi - lo));
            self.bc = Some((c, b.bc_round.val()));
        }
        self.compose = compose;
        self.rd_data = self.compose[b.cp_first.val().to_u64() as usize];
        if b.fetch_start.val() {
            let n = b.fetch_len.val().to_u64() + 1;
            self.fetch = Some((c, b.fetch_word.val().to_u64(), n));
            ev.push(Ev::Fetch(b.fetch_word.val().to_u64(), n));
        }
        if b.next_view.val() {
            ev.push(Ev::NextView);
        }
        if b.step_view.val() {
            ev.push(Ev::StepView);
        }
        if b.clear_wait.val() {
            self.misses = 0;
        }
        if b.missed.val() {
            self.misses += 1;
            ev.push(Ev::Missed);
        }
        for (on, e) in [
            (b.open_round.val(), Ev::OpenRound),
            (b.start_leader.val(), Ev::StartLeader),
            (b.call_slow.val(), Ev::CallSlow),
            (b.call_share.val(), Ev::CallShare),
        ] {
            if on {
                ev.push(e);
            }
        }
        // Protocol's view register: view + 1 at this edge.
        if b.next_view.val() || b.step_view.val() {
            self.view += 1;
        }
        self.events.extend(ev.into_iter().map(|e| (c, e)));
    }

    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Runs until the machine is Off after the start (or panics).
    fn run_slot(&mut self, max: u64) {
        for _ in 0..max {
            self.step();
            if self.cycle > 1 && self.b.state() == ViewSt::Off {
                return;
            }
        }
        panic!("VIEW did not end in {max} cycles: {:?}", self.events.last());
    }

    fn kinds(&self) -> Vec<Ev> {
        self.events.iter().map(|e| e.1.clone()).collect()
    }
}

/// Sealing view 4, start at 0: the events up to ViewPollNv's first poll,
/// and that poll's cycle.
fn sealing() -> (Vec<(u64, Ev)>, u64) {
    // ViewStart at 1 (signer and Broadcast idle), ViewTurn at 2 signs S.
    let sign = 2;
    // The response writes COMPOSE beat 1; SEAL goes out the next cycle,
    // in a round (R32): the next view once it has ended.
    let send = sign + S + 1;
    let done = send + RD;
    let poll = done + 1;
    (
        vec![
            (sign, Ev::Sign(4)),
            (send, Ev::Bc(4, SEAL_ROW + ((ID as u64) << 5), true, 2)),
            (done, Ev::NextView),
            (poll, Ev::Fetch(NEW_VIEW, 1)),
        ],
        poll,
    )
}

#[test]
fn a_follower_seals_and_installs_a_new_view_at_the_cycles_the_page_gives() {
    let mut t = Bench::new();
    t.honest_new_view();
    t.run_slot(2000);
    let (mut want, poll) = sealing();
    // The first beat names view 5: the record, 2f + 3 = 5 beats.
    let rec = poll + H + 3;
    want.push((rec, Ev::Fetch(NEW_VIEW, 5)));
    // Its done (H + 6 later), ViewNext, ViewLoad two cycles (SEAL 0 is
    // its own: skipped), ViewNext, ViewLoad two cycles, then ViewVerify's
    // first cycle verifies SEAL 1 under 2.
    let verify = rec + H + 6 + 7;
    want.push((verify, Ev::Verify(4, 2, true)));
    let own_echo = verify + V + 1;
    want.push((own_echo, Ev::Fetch(echo_seal(2), 1)));
    // Nothing there: the SEAL is echoed in a round.
    let echo = own_echo + H + 3;
    want.push((echo, Ev::Bc(4, echo_seal(2), true, 2)));
    let row = echo + RD + 1;
    want.push((row, Ev::Fetch(echo_commit_row(2), 2 * NB)));
    // No suspect: ViewNext, then ViewInstall.
    let install = row + H + 1 + 2 * NB + 2;
    want.push((install, Ev::OpenRound));
    want.push((install, Ev::StartLeader));
    assert_eq!(t.events, want);
    assert_eq!(t.view, VIEW0 + 1);
    // What landed: its SEAL of view 4, signed; the echo of 2's SEAL.
    let own = SEAL_ROW + ((ID as u64) << 5);
    assert_eq!(t.mem[&own], beat_of(&seal(ID, VIEW0)));
    assert_eq!(t.mem[&(own + 16)], sig(&seal(ID, VIEW0), ID));
    assert_eq!(t.mem[&echo_seal(2)], beat_of(&seal(2, VIEW0)));
    assert_eq!(t.mem[&(echo_seal(2) + 16)], sig(&seal(2, VIEW0), 2));
}

#[test]
fn a_new_view_that_never_comes_seals_the_next_view_after_exactly_the_limit() {
    let mut t = Bench::new();
    t.limit = 4;
    let (_, poll) = sealing();
    // Four polls (one beat, H + 2 to done, one cycle back to ViewPollNv),
    // the fourth's miss starts the machine again: ViewStart the next
    // cycle, and ViewTurn the one after signs S of view 5.
    let last = poll + 3 * (H + 3) + H + 2;
    t.run(last + 4);
    let k = t.kinds();
    assert_eq!(k.iter().filter(|e| **e == Ev::Missed).count(), 4);
    assert_eq!(
        t.events
            .iter()
            .filter(|e| e.1 == Ev::Missed)
            .last()
            .unwrap()
            .0,
        last
    );
    assert_eq!(t.events.last(), Some(&(last + 2, Ev::Sign(4))));
    assert_eq!(t.states[(last + 1) as usize].1, ViewSt::ViewStart);
    assert_eq!(t.view, VIEW0 + 1);
    assert!(!k.contains(&Ev::StartLeader));
}

/// Runs a follower against a spoiled NEW_VIEW for `cycles`: it never
/// installs.
fn refused(spoil: impl Fn(&mut Bench), cycles: u64) -> Bench {
    let mut t = Bench::new();
    t.honest_new_view();
    spoil(&mut t);
    t.run(cycles);
    let k = t.kinds();
    assert!(!k.contains(&Ev::StartLeader) && !k.contains(&Ev::OpenRound));
    t
}

#[test]
fn a_new_view_of_another_view_or_out_of_form_is_a_miss_and_never_installed() {
    // An earlier view in the first beat: polled again, never read whole.
    let t = refused(
        |t| {
            let mut h = t.mem[&NEW_VIEW];
            h[0] = VIEW0;
            t.mem.insert(NEW_VIEW, h);
        },
        300,
    );
    assert!(!t.kinds().contains(&Ev::Fetch(NEW_VIEW, 5)));
    assert!(t.kinds().iter().filter(|e| **e == Ev::Missed).count() >= 5);
    // The bitmap names 0 and 2 but the SEALs are 1's and 2's; a SEAL of
    // an old view; one of a writer above n: read whole, a miss, no verify.
    for spoil in [
        |t: &mut Bench| {
            let mut h = t.mem[&NEW_VIEW];
            h[1] = 0b101;
            t.mem.insert(NEW_VIEW, h);
        },
        |t: &mut Bench| {
            let s = seal(2, VIEW0 - 2);
            t.mem.insert(NEW_VIEW + 48, beat_of(&s));
        },
        |t: &mut Bench| {
            let s = seal(3, VIEW0);
            let mut h = t.mem[&NEW_VIEW];
            h[1] = 0b1010;
            t.mem.insert(NEW_VIEW, h);
            t.mem.insert(NEW_VIEW + 48, beat_of(&s));
        },
    ] {
        let t = refused(spoil, 400);
        let k = t.kinds();
        assert!(k.iter().filter(|e| **e == Ev::Fetch(NEW_VIEW, 5)).count() >= 2);
        assert!(!k.iter().any(|e| matches!(e, Ev::Verify(..))));
        // Every whole read is followed by a miss at its done.
        let reads = k.iter().filter(|e| **e == Ev::Fetch(NEW_VIEW, 5)).count();
        let after: usize = k
            .windows(2)
            .filter(|w| w[0] == Ev::Fetch(NEW_VIEW, 5) && w[1] == Ev::Missed)
            .count();
        assert!(after + 1 >= reads);
    }
}

#[test]
fn a_forged_seal_in_the_new_view_is_a_miss_then_refused_at_its_second_failure() {
    let t = refused(
        |t| {
            let s2 = seal(2, VIEW0);
            t.mem.insert(NEW_VIEW + 64, sig(&s2, 0));
        },
        600,
    );
    let k = t.kinds();
    let verifies: Vec<usize> = k
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Ev::Verify(..)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(verifies.len(), 2, "{k:?}");
    assert_eq!(k[verifies[0]], Ev::Verify(4, 2, false));
    assert_eq!(k[verifies[0] + 1], Ev::Missed);
    assert_eq!(k[verifies[1]], Ev::Verify(4, 2, false));
    // The second failure refuses the NEW_VIEW: the next view is sealed.
    assert_eq!(k[verifies[1] + 1], Ev::Missed);
    assert_eq!(k[verifies[1] + 2], Ev::Sign(4));
    assert_eq!(t.view, VIEW0 + 2);
    // No echo of a SEAL that did not verify: its own SEALs are the only
    // records it wrote.
    let own = SEAL_ROW + ((ID as u64) << 5);
    assert!(!k
        .iter()
        .any(|e| matches!(e, Ev::Bc(_, a, _, _) if *a != own)));
}

#[test]
fn a_seal_its_writer_contradicted_with_a_signed_commit_refuses_the_new_view() {
    // echo_commit[2][0] holds a COMMIT of 2 for view 4, signed by 2: 2's
    // SEAL (no L) is false (R21), and the follower seals the next view.
    let t = refused(
        |t| {
            let k: Blk = [3, 2, VIEW0, 19, 0x77, 0x55, 0, 0];
            t.mem.insert(echo_commit_row(2), beat_of(&k));
            t.mem.insert(echo_commit_row(2) + 16, sig(&k, 2));
        },
        600,
    );
    let k = t.kinds();
    assert!(k.contains(&Ev::Verify(3, 2, true)), "{k:?}");
    let i = k.iter().position(|e| *e == Ev::Verify(3, 2, true)).unwrap();
    assert_eq!(k[i + 1], Ev::Sign(4));
    assert_eq!(t.view, VIEW0 + 2);
}

#[test]
fn an_obligation_calls_slow_and_seals_when_it_yields() {
    let mut t = Bench::new();
    t.ob = true;
    t.slow_done_at = Some(40);
    t.run(41);
    // ViewTurn at 2 calls SLOW; nothing else until it yields.
    assert_eq!(t.events, vec![(2, Ev::CallSlow)]);
    assert!(t.states[3..41].iter().all(|s| s.1 == ViewSt::ViewBridge));
    // Back to ViewTurn at 41: W is committed now (`ob` falls).
    t.ob = false;
    t.run(3);
    assert_eq!(t.events.last(), Some(&(41, Ev::Sign(4))));
}

#[test]
fn a_share_due_without_an_obligation_calls_slow_for_the_share_then_seals() {
    let mut t = Bench::new();
    t.share_due = true;
    t.slow_done_at = Some(10);
    t.run(11);
    assert_eq!(t.events, vec![(2, Ev::CallSlow), (2, Ev::CallShare)]);
    assert!(t.states[3..11].iter().all(|s| s.1 == ViewSt::ViewBridge));
    // The Ledger marks the share written (`share_due` falls): the seal.
    t.share_due = false;
    t.run(3);
    assert_eq!(t.events.last(), Some(&(11, Ev::Sign(4))));
    // An obligation comes first: the bridge writes W's share itself.
    let mut t = Bench::new();
    t.ob = true;
    t.share_due = true;
    t.run(4);
    assert_eq!(t.events, vec![(2, Ev::CallSlow)]);
}

#[test]
fn a_seal_whose_round_fails_moves_to_no_view() {
    // R32: the next view only once the SEAL is in every HBM. A failed
    // round (its local write: Broadcast fails stop and Protocol ends the
    // run) leaves the view as it is and starts the machine again.
    let mut t = Bench::new();
    t.rounds_fail = true;
    let (want, _) = sealing();
    let end = want[2].0;
    t.run(end + 2);
    assert_eq!(&t.events[..2], &want[..2]);
    assert!(!t.kinds().contains(&Ev::NextView));
    assert_eq!(t.view, VIEW0);
    assert_eq!(t.states[(end + 1) as usize].1, ViewSt::ViewStart);
}

#[test]
fn seal_grant_at_the_poll_point_seals_the_next_view_without_a_fetch() {
    let mut t = Bench::new();
    let (_, poll) = sealing();
    t.seal_grant_at = Some(poll);
    t.run(poll + 4);
    assert_eq!(t.events.last(), Some(&(poll + 2, Ev::Sign(4))));
    assert!(!t.kinds().contains(&Ev::Fetch(NEW_VIEW, 1)));
}

#[test]
fn sts_state_numbers_the_states_as_the_page_does() {
    // 66 to 94, then 96 for ViewDeliver (95 is not a VIEW state), 101
    // for ViewJump (99 and 100 are SLOW's), 105 to 107 for the remote
    // read's (102 to 104 are SLOW's) and 108 to 110 for the decider's
    // share.
    for (i, st) in VIEW_STATES.iter().enumerate() {
        let want = match i {
            0 => 0,
            30 => 96,
            31 => 101,
            32..=37 => 73 + i as u8,
            _ => 65 + i as u8,
        };
        assert_eq!(View::reported(*st), want, "{st:?}");
    }
}

#[test]
fn a_later_views_new_view_is_checked_then_the_views_below_it_are_skipped_and_it_is_installed() {
    // Sealing view 4, it awaits NEW_VIEW(5); new_view holds NEW_VIEW(8)
    // (leader 2's), with replicas 0's and 2's SEALs of view 7 (R14).
    let mut t = Bench::new();
    let (s0, s2) = (seal(0, VIEW0 + 3), seal(2, VIEW0 + 3));
    t.new_view(VIEW0 + 4, 0b101, &[(s0, sig(&s0, 0)), (s2, sig(&s2, 2))]);
    t.run_slot(4000);
    let k = t.kinds();
    // Read whole and checked against view 8: both SEALs verified.
    let first = k.iter().position(|e| *e == Ev::Fetch(NEW_VIEW, 5)).unwrap();
    let jump = k.iter().position(|e| *e == Ev::StepView).unwrap();
    assert!(k[first..jump].contains(&Ev::Verify(4, 0, true)));
    assert!(k[first..jump].contains(&Ev::Verify(4, 2, true)));
    // Two views skipped (5 and 6), then the SEAL of view 7, and view 8.
    assert_eq!(k.iter().filter(|e| **e == Ev::StepView).count(), 2);
    assert_eq!(k.iter().filter(|e| **e == Ev::Sign(4)).count(), 2);
    let own = SEAL_ROW + ((ID as u64) << 5);
    assert_eq!(t.mem[&own], beat_of(&seal(ID, VIEW0 + 3)));
    assert_eq!(t.mem[&(own + 16)], sig(&seal(ID, VIEW0 + 3), ID));
    // NEW_VIEW(8) is read again as the awaited one, and installed.
    assert_eq!(
        k.iter().filter(|e| **e == Ev::Fetch(NEW_VIEW, 5)).count(),
        2
    );
    assert_eq!(k.last(), Some(&Ev::StartLeader));
    assert_eq!(t.view, VIEW0 + 4);
    // A later view's NEW_VIEW whose SEALs are of an older view is a miss:
    // read whole, nothing skipped, never installed.
    let t = refused(
        |t| {
            let (s0, s2) = (seal(0, VIEW0 + 2), seal(2, VIEW0 + 2));
            t.new_view(VIEW0 + 4, 0b101, &[(s0, sig(&s0, 0)), (s2, sig(&s2, 2))]);
        },
        400,
    );
    assert!(t.kinds().contains(&Ev::Fetch(NEW_VIEW, 5)));
    assert!(!t.kinds().contains(&Ev::StepView));
    assert_eq!(t.view, VIEW0 + 1);
}

#[test]
fn a_leader_short_of_f_plus_1_seals_misses_once_every_2_lead_wait_shift_reads() {
    // In view 3 this replica (1) seals and leads view 4. The seal row
    // holds its own SEAL only, fewer than f + 1 = 2: a read of the row is
    // a miss only every 2^LEAD_WAIT_SHIFT-th time (recovery.md D11.14),
    // so with a limit of two misses it reads the row 2 · 2^LEAD_WAIT_SHIFT
    // times, then seals view 4. A follower's poll that finds nothing is a
    // miss every time (the test above).
    use rhdl_ubft::params::LEAD_WAIT_SHIFT;
    let per = 1usize << LEAD_WAIT_SHIFT;
    let mut t = Bench::new();
    t.view = VIEW0 - 1;
    t.limit = 2;
    t.run(200 + 2 * per as u64 * (H + 2 * NB + 6));
    let k = t.kinds();
    let row = Ev::Fetch(SEAL_ROW, 2 * NB);
    // Up to the second SEAL's sign: the reads and misses in order.
    let first = k.iter().position(|e| *e == Ev::Sign(4)).unwrap();
    let second = first
        + 1
        + k[first + 1..]
            .iter()
            .position(|e| *e == Ev::Sign(4))
            .unwrap();
    let between: Vec<&Ev> = k[first + 1..second]
        .iter()
        .filter(|e| **e == row || **e == Ev::Missed)
        .collect();
    let mut want = vec![];
    for _ in 0..2 {
        want.extend(std::iter::repeat(&row).take(per));
        want.push(&Ev::Missed);
    }
    assert_eq!(between, want);
    // Sealing view 4 moves it to view 5, led by 2: its next read is a
    // follower's poll of new_view.
    assert!(!k.contains(&Ev::StartLeader));
    let after: Vec<&Ev> = k[second..]
        .iter()
        .filter(|e| matches!(e, Ev::Fetch(..) | Ev::NextView))
        .take(2)
        .collect();
    assert_eq!(after, vec![&Ev::NextView, &Ev::Fetch(NEW_VIEW, 1)]);
}
