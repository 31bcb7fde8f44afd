//! Fast, cycle by cycle, against docs/fast.md: the three polls (prepare,
//! will_cert row, will_commit row) at their words and cycles, the votes'
//! broadcasts at row + 2·id with phase 1 and 2, the fast decision at the
//! exact cycle; a prepare refused (another k, another view, an m not held,
//! a prev that is not dec[k − 1], a fetch error) is a miss and never a
//! vote, and times out into VIEW after exactly the limit of misses
//! (`prep_expiring`, not `expiring`); a quorum short by one times out into
//! SLOW from either round (`expiring`); votes that arrive late; outputs
//! zero while Off; `sts_state`; reset. With the scoreboard (`live`): each
//! Wait state names its beat (`watch`), ends in the cycle its word is
//! there, before its poll's `done`, and abandons that poll; a failed
//! poll's `done` is a miss whatever the scoreboard holds.
//!
//! The block's `update()` is stepped directly. Around it, a model of what
//! Protocol gives it: a Fetch whose poll is done `P` cycles after
//! `fetch_start` (or `P_AHEAD` for a poll after a miss, Fetch's read
//! ahead), with the polled word's record and votes on `record`/`votes`
//! from that cycle; a Broadcast done `BC` cycles after `bc_start`; the miss
//! counts (`clear_wait` clears them) with separate limits for the prepare
//! and the votes. Tally's count, the leader's lane (D2), the read ahead's
//! real timing and the handovers to SLOW and VIEW are left to tally.rs,
//! fetch.rs and the cluster tests (ubft_sim).

use rhdl_ubft::controller::fast::{Fast, FastSt, FAST_STATES};
use rust_hdl::prelude::*;

/// Fetch's one-beat poll, `fetch_start` to `done` (H + 2 at H = 8), and a
/// poll after a miss that takes the read ahead.
const P: u64 = 10;
const P_AHEAD: u64 = 4;
/// Broadcast, `bc_start` to `done`.
const BC: u64 = 7;
const PREP: u64 = 0x100;
const CERT: u64 = 0x200;
const COMMIT: u64 = 0x300;
const K: u32 = 9;
const VIEW: u32 = 2;
const M: u32 = 0xabc;
const ID: u8 = 3;
const QUORUM: u8 = 5;

/// The block's inputs in one cycle.
#[derive(Clone, Copy, Default)]
struct Ins {
    rst: bool,
    start: bool,
    /// The polled prepare (k, m, view).
    record: (u32, u32, u32),
    votes: u8,
    m_held: bool,
    prev_ok: bool,
    expiring: bool,
    prep_expiring: bool,
    fetch_done: bool,
    fetch_error: bool,
    bc_done: bool,
    skip_votes: bool,
}

/// What the block drove in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Outs {
    decide: bool,
    start_slow: bool,
    failed: bool,
    start_view: bool,
    at_prepare: bool,
    set_m: Option<u32>,
    set_phase: Option<u8>,
    clear_wait: bool,
    missed: bool,
    fetch: Option<u64>,
    bc: Option<u64>,
    watch: u8,
    abandon: bool,
    sts_state: u8,
}

/// The one place the ports are driven and read.
fn drive(b: &mut Fast, i: &Ins) {
    b.rst_n.next = !i.rst;
    b.start.next = i.start;
    b.id.next = (ID as u64).into();
    b.k.next = (K as u64).into();
    b.view_no.next = (VIEW as u64).into();
    b.quorum.next = (QUORUM as u64).into();
    b.prep_word.next = PREP.into();
    b.cert_row.next = CERT.into();
    b.commit_row.next = COMMIT.into();
    let mut r = Bits::<96>::default();
    r.set_bits::<32>(0, (i.record.0 as u64).into());
    r.set_bits::<32>(32, (i.record.1 as u64).into());
    r.set_bits::<32>(64, (i.record.2 as u64).into());
    b.record.next = r;
    b.votes.next = (i.votes as u64).into();
    b.m_held.next = i.m_held;
    b.prev_ok.next = i.prev_ok;
    b.expiring.next = i.expiring;
    b.prep_expiring.next = i.prep_expiring;
    b.fetch_done.next = i.fetch_done;
    b.fetch_error.next = i.fetch_error;
    b.bc_done.next = i.bc_done;
    b.skip_votes.next = i.skip_votes;
}

fn sample(b: &Fast) -> Outs {
    Outs {
        decide: b.decide.val(),
        start_slow: b.start_slow.val(),
        failed: b.failed.val(),
        start_view: b.start_view.val(),
        at_prepare: b.at_prepare.val(),
        set_m: b.set_m.val().then(|| b.m_next.val().to_u64() as u32),
        set_phase: b.set_phase.val().then(|| b.phase_next.val().to_u64() as u8),
        clear_wait: b.clear_wait.val(),
        missed: b.missed.val(),
        fetch: b.fetch_start.val().then(|| b.fetch_word.val().to_u64()),
        bc: b.bc_start.val().then(|| b.bc_word.val().to_u64()),
        watch: b.watch.val().to_u8(),
        abandon: b.abandon.val(),
        sts_state: b.sts_state.val().to_u8(),
    }
}

/// What the mailbox holds at a cycle: the prepare, and the votes counted
/// in each row.
#[derive(Clone, Copy)]
struct Mailbox {
    prepare: (u32, u32, u32),
    m_held: bool,
    prev_ok: bool,
    cert_votes: u8,
    commit_votes: u8,
    error: bool,
}

impl Default for Mailbox {
    fn default() -> Self {
        Mailbox {
            prepare: (K, M, VIEW),
            m_held: true,
            prev_ok: true,
            cert_votes: QUORUM,
            commit_votes: QUORUM,
            error: false,
        }
    }
}

struct Bench {
    b: Fast,
    cycle: u64,
    /// The mailbox from a cycle on: (cycle, contents), the last that has
    /// started applies.
    mailbox: Vec<(u64, Mailbox)>,
    /// Protocol's limits, in misses, for FastWaitPrepare and the votes.
    prep_limit: u64,
    limit: u64,
    misses: u64,
    /// The poll in flight: (done cycle, word).
    fetch: Option<(u64, u64)>,
    after_miss: bool,
    ahead: bool,
    bc_at: Option<u64>,
    start_at: u64,
    reset_at: Option<u64>,
    /// Protocol's `skip_votes` (the sticky slow path), every cycle.
    skip: bool,
    /// The scoreboard: the watched word's contents on `record`/`votes` in
    /// every cycle of its Wait state, not only with `done`; an abandoned
    /// poll's `done` reaches nobody, and a poll asked for meanwhile starts
    /// at that `done` (Protocol's `stale` and held request).
    live: bool,
    stale_until: Option<u64>,
    trace: Vec<(u64, Outs, FastSt)>,
}

impl Bench {
    fn new() -> Self {
        let mut b = Fast::default();
        b.connect_all();
        Bench {
            b,
            cycle: 0,
            mailbox: vec![(0, Mailbox::default())],
            prep_limit: 100,
            limit: 100,
            misses: 0,
            fetch: None,
            after_miss: false,
            ahead: false,
            bc_at: None,
            start_at: 0,
            reset_at: None,
            skip: false,
            live: false,
            stale_until: None,
            trace: vec![],
        }
    }

    fn mailbox(&self, c: u64) -> Mailbox {
        self.mailbox.iter().rev().find(|m| m.0 <= c).unwrap().1
    }

    fn step(&mut self) {
        let c = self.cycle;
        let mb = self.mailbox(c);
        let stale = self.stale_until.is_some_and(|t| t >= c);
        let done = self.fetch.filter(|f| f.0 == c && !stale).map(|f| f.1);
        let mut i = Ins {
            rst: self.reset_at == Some(c),
            start: self.start_at == c,
            expiring: self.misses + 1 >= self.limit,
            prep_expiring: self.misses + 1 >= self.prep_limit,
            fetch_done: done.is_some(),
            bc_done: self.bc_at.is_some_and(|t| c == t + BC),
            skip_votes: self.skip,
            ..Default::default()
        };
        // The polled word's contents go with its done (Tally reads the
        // beat; Protocol checks m and prev against it).
        match done {
            Some(PREP) => {
                i.record = mb.prepare;
                i.m_held = mb.m_held;
                i.prev_ok = mb.prev_ok;
                i.fetch_error = mb.error;
            }
            Some(CERT) => {
                i.votes = mb.cert_votes;
                i.fetch_error = mb.error;
            }
            Some(COMMIT) => {
                i.votes = mb.commit_votes;
                i.fetch_error = mb.error;
            }
            _ => {}
        }
        if self.live && done.is_none() {
            // The scoreboard's copy of the beat the Wait state waits on.
            match self.b.state() {
                FastSt::FastWaitPrepare => {
                    i.record = mb.prepare;
                    i.m_held = mb.m_held;
                    i.prev_ok = mb.prev_ok;
                }
                FastSt::FastWaitCert => i.votes = mb.cert_votes,
                FastSt::FastWaitCommit => i.votes = mb.commit_votes,
                _ => {}
            }
        }
        drive(&mut self.b, &i);
        assert!(simulate(&mut self.b, 100));
        let o = sample(&self.b);
        self.trace.push((c, o, self.b.state()));
        if o.clear_wait {
            self.misses = 0;
        }
        if o.missed {
            self.misses += 1;
        }
        if let Some(w) = o.fetch {
            let lat = if self.after_miss && self.ahead {
                P_AHEAD
            } else {
                P
            };
            // Held until the abandoned poll's done, if one is in flight.
            let from = match self.stale_until {
                Some(t) if t >= c => t,
                _ => c,
            };
            assert!(self.fetch.is_none_or(|f| from >= f.0), "one poll at a time");
            self.fetch = Some((from + lat, w));
        }
        if o.abandon {
            let (t, _) = self.fetch.expect("an abandoned poll is in flight");
            assert!(t > c, "cycle {c}: abandon with the poll's done");
            self.stale_until = Some(t);
        }
        self.after_miss = o.missed;
        if o.bc.is_some() {
            self.bc_at = Some(c);
        }
        self.b.clock.next = Clock::from(true);
        assert!(simulate(&mut self.b, 100));
        self.b.clock.next = Clock::from(false);
        assert!(simulate(&mut self.b, 100));
        self.cycle += 1;
    }

    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Runs until the block has left Off and come back (or `max` cycles).
    fn run_slot(&mut self, max: u64) {
        let mut seen = false;
        for _ in 0..max {
            self.step();
            let st = self.trace.last().unwrap().2;
            seen |= st != FastSt::Off;
            if seen && st == FastSt::Off {
                return;
            }
        }
        panic!("the slot did not end in {max} cycles");
    }

    fn at(&self, pick: impl Fn(&Outs) -> bool) -> Vec<u64> {
        self.trace
            .iter()
            .filter(|(_, o, _)| pick(o))
            .map(|(c, _, _)| *c)
            .collect()
    }

    fn states(&self) -> Vec<(u64, FastSt)> {
        let mut out: Vec<(u64, FastSt)> = vec![];
        for &(c, _, st) in &self.trace {
            if out.last().map(|l| l.1) != Some(st) {
                out.push((c, st));
            }
        }
        out
    }

    fn ends(&self) -> Vec<(u64, &'static str)> {
        let mut out = vec![];
        for (c, o, _) in &self.trace {
            for (on, name) in [
                (o.decide, "decide"),
                (o.start_slow, "start_slow"),
                (o.start_view, "start_view"),
            ] {
                if on {
                    out.push((*c, name));
                }
            }
        }
        out
    }

    fn check_quiet_when_off(&self) {
        for (c, o, st) in &self.trace {
            if *st == FastSt::Off {
                assert_eq!(*o, Outs::default(), "cycle {c}: Off drives nothing");
            }
        }
    }
}

#[test]
fn the_fast_path_polls_votes_twice_and_decides_at_3_plus_3p_plus_2bc() {
    let mut t = Bench::new();
    t.run_slot(200);
    // start at 0. Each round: Poll (1 cycle, fetch), Wait until done P
    // cycles later (the vote's broadcast starts in that cycle), Send until
    // Broadcast's done BC cycles later.
    let p1 = 1;
    let v1 = p1 + P;
    let p2 = v1 + BC + 1;
    let v2 = p2 + P;
    let p3 = v2 + BC + 1;
    let d = p3 + P;
    assert_eq!(d, 3 + 3 * P + 2 * BC);
    assert_eq!(
        t.states(),
        vec![
            (0, FastSt::Off),
            (p1, FastSt::FastPollPrepare),
            (p1 + 1, FastSt::FastWaitPrepare),
            (v1 + 1, FastSt::FastSendCert),
            (p2, FastSt::FastPollCert),
            (p2 + 1, FastSt::FastWaitCert),
            (v2 + 1, FastSt::FastSendCommit),
            (p3, FastSt::FastPollCommit),
            (p3 + 1, FastSt::FastWaitCommit),
            (d + 1, FastSt::Off),
        ]
    );
    let fetches: Vec<(u64, u64)> = t
        .trace
        .iter()
        .filter_map(|(c, o, _)| o.fetch.map(|w| (*c, w)))
        .collect();
    assert_eq!(fetches, vec![(p1, PREP), (p2, CERT), (p3, COMMIT)]);
    let bcs: Vec<(u64, u64)> = t
        .trace
        .iter()
        .filter_map(|(c, o, _)| o.bc.map(|w| (*c, w)))
        .collect();
    let lane = 2 * ID as u64;
    assert_eq!(bcs, vec![(v1, CERT + lane), (v2, COMMIT + lane)]);
    assert_eq!(t.at(|o| o.set_m == Some(M)), vec![v1]);
    assert_eq!(t.at(|o| o.set_m.is_some()), vec![v1]);
    assert_eq!(t.at(|o| o.set_phase == Some(1)), vec![v1]);
    assert_eq!(t.at(|o| o.set_phase == Some(2)), vec![v2]);
    assert_eq!(t.at(|o| o.clear_wait), vec![v1, v2]);
    assert_eq!(t.ends(), vec![(d, "decide")]);
    assert!(t.at(|o| o.missed).is_empty());
    assert_eq!(
        t.at(|o| o.at_prepare),
        (p1..=v1).collect::<Vec<_>>(),
        "at_prepare in FastPollPrepare and FastWaitPrepare"
    );
    t.check_quiet_when_off();
}

/// Every way a prepare is refused: none of them is ever voted for, and
/// the wait times out into VIEW after exactly `prep_limit` misses.
#[test]
fn a_refused_prepare_is_a_miss_and_times_out_into_view_after_the_limit() {
    let refusals: [(&str, fn(&mut Mailbox)); 6] = [
        ("nothing written", |m| m.prepare = (0, 0, 0)),
        ("another k", |m| m.prepare.0 = K + 1),
        ("another view", |m| m.prepare.2 = VIEW - 1),
        ("an m not held", |m| m.m_held = false),
        ("prev not dec[k - 1]", |m| m.prev_ok = false),
        ("a fetch error", |m| m.error = true),
    ];
    for (name, spoil) in refusals {
        for limit in [1u64, 5] {
            let mut t = Bench::new();
            let mut mb = Mailbox::default();
            spoil(&mut mb);
            t.mailbox = vec![(0, mb)];
            t.prep_limit = limit;
            // The votes' limit is 1: used in FastWaitPrepare, it would end
            // the wait at the first miss.
            t.limit = 1;
            t.run_slot(400);
            let misses = t.at(|o| o.missed);
            assert_eq!(misses.len() as u64, limit, "{name}");
            let last = 1 + (limit - 1) * (P + 1) + P;
            assert_eq!(misses.last(), Some(&last), "{name}");
            assert_eq!(t.ends(), vec![(last, "start_view")], "{name}");
            assert!(
                t.at(|o| o.bc.is_some() || o.set_m.is_some() || o.set_phase.is_some())
                    .is_empty(),
                "{name}: never a vote"
            );
            assert!(t.trace.iter().all(|x| x.1.fetch.is_none_or(|w| w == PREP)));
            t.check_quiet_when_off();
        }
    }
}

#[test]
fn a_prepare_that_lands_late_is_voted_for_at_the_poll_that_sees_it() {
    let mut t = Bench::new();
    let mut none = Mailbox::default();
    none.prepare = (0, 0, 0);
    // Polls at 1, 1 + (P + 1), ...; the prepare lands at cycle 30: the
    // poll whose done is the first at or after 30 sees it.
    t.mailbox = vec![(0, none), (30, Mailbox::default())];
    t.prep_limit = 10;
    t.run_slot(300);
    let dones: Vec<u64> = (0..).map(|i| 1 + i * (P + 1) + P).take(10).collect();
    let seen = *dones.iter().find(|&&d| d >= 30).unwrap();
    assert_eq!(
        t.at(|o| o.missed),
        dones
            .iter()
            .copied()
            .filter(|&d| d < seen)
            .collect::<Vec<_>>()
    );
    assert_eq!(t.at(|o| o.set_phase == Some(1)), vec![seen]);
    assert_eq!(t.at(|o| o.clear_wait)[0], seen);
    assert_eq!(t.ends().len(), 1);
    assert_eq!(t.ends()[0].1, "decide");
}

#[test]
fn at_the_prepare_only_prep_expiring_counts_and_at_the_votes_only_expiring() {
    // A prepare that never comes, with `expiring` high from the start
    // (limit 1): FAST keeps polling until `prep_expiring`.
    let mut t = Bench::new();
    let mut none = Mailbox::default();
    none.prepare = (0, 0, 0);
    t.mailbox = vec![(0, none)];
    t.limit = 1;
    t.prep_limit = 3;
    t.run_slot(200);
    assert_eq!(t.at(|o| o.missed).len(), 3);
    assert_eq!(t.ends()[0].1, "start_view");
    // A will_cert row that never fills, with `prep_expiring` high from the
    // start: FAST keeps polling until `expiring`.
    let mut t = Bench::new();
    let mut short = Mailbox::default();
    short.cert_votes = QUORUM - 1;
    t.mailbox = vec![(0, short)];
    t.limit = 3;
    t.prep_limit = 1;
    t.run_slot(200);
    assert_eq!(t.at(|o| o.missed).len(), 3);
    assert_eq!(t.ends()[0].1, "start_slow");
}

#[test]
fn a_quorum_short_by_one_times_out_into_slow_from_either_round_and_never_decides() {
    for round in [1, 2] {
        for limit in [1u64, 4] {
            for ahead in [false, true] {
                let mut t = Bench::new();
                t.ahead = ahead;
                let mut mb = Mailbox::default();
                if round == 1 {
                    mb.cert_votes = QUORUM - 1;
                } else {
                    mb.commit_votes = QUORUM - 1;
                }
                t.mailbox = vec![(0, mb)];
                t.limit = limit;
                t.run_slot(400);
                let poll = if round == 1 { CERT } else { COMMIT };
                // The round's first poll: after the prepare's round (and
                // the will_cert round for round 2).
                let first = 1 + (P + BC + 1) * round;
                let again = if ahead { P_AHEAD } else { P };
                let last = first + P + (limit - 1) * (again + 1);
                let misses = t.at(|o| o.missed);
                assert_eq!(misses.len() as u64, limit, "round {round}, ahead {ahead}");
                assert_eq!(misses.last(), Some(&last));
                assert_eq!(t.ends(), vec![(last, "start_slow")], "round {round}");
                // A wait that ran out: the fast path failed.
                assert_eq!(t.at(|o| o.failed), vec![last]);
                let polls: Vec<u64> = t
                    .trace
                    .iter()
                    .filter(|x| x.1.fetch == Some(poll))
                    .map(|x| x.0)
                    .collect();
                assert_eq!(polls.len() as u64, limit);
                assert_eq!(polls[0], first);
                // Round 1 short: no will_commit vote.
                let bcs = t.at(|o| o.bc.is_some()).len();
                assert_eq!(bcs, round as usize);
                assert!(t.at(|o| o.decide).is_empty());
                t.check_quiet_when_off();
            }
        }
    }
}

#[test]
fn with_skip_votes_the_slot_goes_to_slow_as_its_will_cert_is_sent() {
    // The sticky slow path: the prepare is polled and voted for as usual,
    // and at Broadcast's done FAST hands the slot to SLOW, polling no
    // vote row, with every vote row full (the skip is Protocol's call,
    // not the votes').
    let mut t = Bench::new();
    t.skip = true;
    t.run_slot(200);
    let v1 = 1 + P;
    let end = v1 + 1 + BC - 1;
    assert_eq!(
        t.states(),
        vec![
            (0, FastSt::Off),
            (1, FastSt::FastPollPrepare),
            (2, FastSt::FastWaitPrepare),
            (v1 + 1, FastSt::FastSendCert),
            (end + 1, FastSt::Off),
        ]
    );
    assert_eq!(t.ends(), vec![(end, "start_slow")]);
    assert_eq!(t.at(|o| o.bc.is_some()), vec![v1]);
    assert_eq!(t.at(|o| o.set_phase == Some(1)), vec![v1]);
    assert!(t
        .at(|o| o.fetch == Some(CERT) || o.fetch == Some(COMMIT))
        .is_empty());
    assert!(t.at(|o| o.missed).is_empty(), "a skip is no miss");
    assert!(t.at(|o| o.failed).is_empty(), "a skip is no failure");
    t.check_quiet_when_off();
}

#[test]
fn a_fetch_error_with_a_full_row_is_a_miss() {
    let mut t = Bench::new();
    let mut bad = Mailbox::default();
    bad.error = true;
    // The prepare reads cleanly; from the first will_cert poll on, every
    // read fails though the rows are full.
    t.mailbox = vec![(0, Mailbox::default()), (1 + P + 1, bad)];
    t.limit = 2;
    t.run_slot(300);
    assert_eq!(t.at(|o| o.missed).len(), 2);
    assert_eq!(t.ends()[0].1, "start_slow");
    assert_eq!(t.at(|o| o.bc.is_some()).len(), 1);
}

#[test]
fn votes_that_arrive_late_decide_at_the_poll_that_counts_them() {
    let mut t = Bench::new();
    let mut short = Mailbox::default();
    short.commit_votes = QUORUM - 1;
    // The will_commit round starts at p3 = 3 + 2P + 2BC; the last vote
    // lands before its third poll's done.
    let p3 = 3 + 2 * P + 2 * BC;
    let third = p3 + 2 * (P + 1) + P;
    t.mailbox = vec![(0, short), (third - 1, Mailbox::default())];
    t.limit = 10;
    t.run_slot(300);
    assert_eq!(t.at(|o| o.missed), vec![p3 + P, p3 + (P + 1) + P]);
    assert_eq!(t.ends(), vec![(third, "decide")]);
}

#[test]
fn start_is_taken_only_in_off() {
    let mut t = Bench::new();
    t.run(5);
    // A start in FastWaitPrepare changes nothing.
    t.start_at = 5;
    t.run_slot(200);
    assert_eq!(t.ends(), vec![(3 + 3 * P + 2 * BC, "decide")]);
    assert_eq!(t.at(|o| o.fetch.is_some()).len(), 3);
}

#[test]
fn reset_puts_every_state_off_the_next_cycle() {
    // One reset cycle inside each state of the fast path.
    let p2 = 1 + P + BC + 1;
    let p3 = p2 + P + BC + 1;
    for at in [1, 3, 1 + P + 2, p2, p2 + 2, p2 + P + 2, p3, p3 + 2] {
        let mut t = Bench::new();
        t.reset_at = Some(at);
        t.run(3 + 3 * P + 2 * BC + 10);
        assert_ne!(t.trace[at as usize].2, FastSt::Off, "reset at {at}");
        assert!(t.trace[at as usize + 1..]
            .iter()
            .all(|x| x.2 == FastSt::Off));
        assert!(t.ends().iter().all(|e| e.0 <= at));
        t.check_quiet_when_off();
    }
}

#[test]
fn sts_state_numbers_the_states_as_the_page_does() {
    let want = [0u8, 5, 6, 7, 8, 9, 10, 11, 12];
    for (st, n) in FAST_STATES.iter().zip(want) {
        assert_eq!(Fast::reported(*st), n, "{st:?}");
    }
}

#[test]
fn each_wait_names_its_beat_for_the_scoreboard() {
    let mut t = Bench::new();
    t.run_slot(200);
    for (c, o, st) in &t.trace {
        let want = match st {
            FastSt::FastWaitPrepare => 1,
            FastSt::FastWaitCert => 2,
            FastSt::FastWaitCommit => 3,
            _ => 0,
        };
        assert_eq!(o.watch, want, "cycle {c}, {st:?}");
    }
}

#[test]
fn with_the_scoreboard_each_wait_ends_the_cycle_after_it_begins_and_abandons_its_poll() {
    // Everything is in the mailbox from the start: each Wait state sees
    // it on the scoreboard in its first cycle, long before its poll's
    // done, goes on and leaves that poll to nobody.
    let mut t = Bench::new();
    t.live = true;
    t.run_slot(200);
    let w1 = 2;
    let w2 = w1 + BC + 2;
    let w3 = w2 + BC + 2;
    assert_eq!(t.ends(), vec![(w3, "decide")]);
    assert_eq!(t.at(|o| o.abandon), vec![w1, w2, w3]);
    assert_eq!(t.at(|o| o.bc.is_some()), vec![w1, w2]);
    assert_eq!(t.at(|o| o.missed), Vec::<u64>::new());
    // The will_cert row's poll waited for the prepare's abandoned one.
    let fetches = t.at(|o| o.fetch.is_some());
    assert_eq!(fetches, vec![w1 - 1, w2 - 1, w3 - 1]);
    assert!(w3 < 3 + 3 * P + 2 * BC, "faster than the polls");
    t.check_quiet_when_off();
}

#[test]
fn with_the_scoreboard_a_vote_that_lands_mid_poll_ends_the_wait_in_that_cycle() {
    // The will_cert row is one vote short until cycle 15, in the middle
    // of the row's first poll (started at 11, done at 21): the wait ends
    // at 15, not at the poll's done.
    let mut t = Bench::new();
    t.live = true;
    t.mailbox = vec![
        (
            0,
            Mailbox {
                cert_votes: QUORUM - 1,
                ..Mailbox::default()
            },
        ),
        (15, Mailbox::default()),
    ];
    t.run_slot(200);
    let cert_wait = t
        .states()
        .iter()
        .find(|s| s.1 == FastSt::FastWaitCert)
        .unwrap()
        .0;
    assert!(cert_wait < 15 && 15 < cert_wait + P);
    let commit_bc = t.at(|o| o.bc == Some(COMMIT + 2 * ID as u64));
    assert_eq!(commit_bc, vec![15]);
    assert!(t.at(|o| o.abandon).contains(&15));
}

#[test]
fn a_wait_whose_poll_fails_finds_nothing_in_that_cycle_even_on_the_scoreboard() {
    // The will_cert row fills in the cycle its first poll is done (21:
    // that poll started at 11, when the prepare's abandoned poll was
    // done), but that poll failed: the cycle is a miss, whatever the
    // scoreboard holds. The next Wait state sees the quorum in its first
    // cycle (23) and goes on.
    let mut t = Bench::new();
    t.live = true;
    t.mailbox = vec![
        (
            0,
            Mailbox {
                cert_votes: 0,
                ..Mailbox::default()
            },
        ),
        (
            21,
            Mailbox {
                error: true,
                ..Mailbox::default()
            },
        ),
    ];
    t.run_slot(200);
    assert_eq!(t.at(|o| o.missed), vec![21]);
    assert_eq!(t.at(|o| o.bc == Some(COMMIT + 2 * ID as u64)), vec![23]);
}
