//! Leader, cycle by cycle, against docs/leader.md: the follower's one-cycle
//! LeaderCheck and its handover to FAST; the leader's proposal (the oldest
//! request, the prepare's broadcast at prepare[slot]) and its handover
//! after Broadcast's `done`; the idle polls of a leader with nothing to
//! propose, a request that arrives between them, and the timeout into VIEW
//! after exactly the limit of misses; outputs zero while Off; `sts_state`;
//! reset.
//!
//! The block's `update()` is stepped directly. Around it, a model of what
//! Protocol gives it: a Fetch whose poll is done `P` cycles after
//! `fetch_start`, a Broadcast done `BC` cycles after `bc_start`, the miss
//! count (`expiring` when the next miss reaches the limit; `open_round`
//! clears it) and a request queue. The kernel's Fetch and Broadcast, the
//! read ahead and the prepare's layout are left to the cluster tests
//! (ubft_sim) and to fetch.rs and broadcast.rs.

use rhdl_ubft::controller::leader::{Leader, LeaderSt, LEADER_STATES};
use rust_hdl::prelude::*;

/// Fetch's one-beat poll, `fetch_start` to `done` (H + 2 at H = 8).
const P: u64 = 10;
/// Broadcast, `bc_start` to `done`.
const BC: u64 = 7;
const PREP_WORD: u64 = 0x1234;

/// The block's inputs in one cycle.
#[derive(Clone, Copy, Default)]
struct Ins {
    rst: bool,
    start: bool,
    id: u8,
    leader_id: u8,
    expiring: bool,
    head: Option<u32>,
    fetch_done: bool,
    bc_done: bool,
}

/// What the block drove in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Outs {
    start_fast: bool,
    start_view: bool,
    open_round: bool,
    set_m: Option<u32>,
    missed: bool,
    fetch: Option<u64>,
    /// `bc_start`: (`bc_word`, `bc_prepare`).
    bc: Option<(u64, bool)>,
    sts_state: u8,
}

impl Outs {
    /// Every request and handshake low (what an Off machine drives).
    fn quiet(&self) -> bool {
        *self
            == Outs {
                sts_state: self.sts_state,
                ..Default::default()
            }
    }
}

/// The one place the ports are driven and read.
fn drive(b: &mut Leader, i: &Ins) {
    b.rst_n.next = !i.rst;
    b.start.next = i.start;
    b.id.next = (i.id as u64).into();
    b.leader_id.next = (i.leader_id as u64).into();
    b.prep_word.next = PREP_WORD.into();
    b.expiring.next = i.expiring;
    b.head_valid.next = i.head.is_some();
    b.head_m.next = (i.head.unwrap_or(0xdead) as u64).into();
    b.fetch_done.next = i.fetch_done;
    b.bc_done.next = i.bc_done;
}

fn sample(b: &Leader) -> Outs {
    Outs {
        start_fast: b.start_fast.val(),
        start_view: b.start_view.val(),
        open_round: b.open_round.val(),
        set_m: b.set_m.val().then(|| b.m_next.val().to_u64() as u32),
        missed: b.missed.val(),
        fetch: b.fetch_start.val().then(|| b.fetch_word.val().to_u64()),
        bc: b
            .bc_start
            .val()
            .then(|| (b.bc_word.val().to_u64(), b.bc_prepare.val())),
        sts_state: b.sts_state.val().to_u8(),
    }
}

/// The block and the part of Protocol it talks to.
struct Bench {
    b: Leader,
    cycle: u64,
    id: u8,
    leader_id: u8,
    /// Misses allowed (Protocol's limit) and misses so far.
    limit: u64,
    misses: u64,
    /// Requests: (cycle from which it is held, m).
    requests: Vec<(u64, u32)>,
    fetch_at: Option<u64>,
    bc_at: Option<u64>,
    start_at: Vec<u64>,
    reset_at: Option<u64>,
    trace: Vec<(u64, Outs, LeaderSt)>,
}

impl Bench {
    fn new(id: u8, leader_id: u8) -> Self {
        let mut b = Leader::default();
        b.connect_all();
        Bench {
            b,
            cycle: 0,
            id,
            leader_id,
            limit: 4,
            misses: 0,
            requests: vec![],
            fetch_at: None,
            bc_at: None,
            start_at: vec![0],
            reset_at: None,
            trace: vec![],
        }
    }

    fn step(&mut self) {
        let c = self.cycle;
        let i = Ins {
            rst: self.reset_at == Some(c),
            start: self.start_at.contains(&c),
            id: self.id,
            leader_id: self.leader_id,
            expiring: self.misses + 1 >= self.limit,
            head: self.requests.iter().find(|r| r.0 <= c).map(|r| r.1),
            fetch_done: self.fetch_at.is_some_and(|t| c == t + P),
            bc_done: self.bc_at.is_some_and(|t| c == t + BC),
        };
        drive(&mut self.b, &i);
        assert!(simulate(&mut self.b, 100));
        let o = sample(&self.b);
        let st = self.b.state();
        self.trace.push((c, o, st));
        // Protocol's side of the requests.
        if o.open_round {
            self.misses = 0;
        }
        if o.missed {
            self.misses += 1;
        }
        if o.fetch.is_some() {
            assert!(
                self.fetch_at.is_none_or(|t| c > t + P),
                "one poll at a time"
            );
            self.fetch_at = Some(c);
        }
        if o.bc.is_some() {
            self.bc_at = Some(c);
        }
        if let Some(m) = o.set_m {
            // A decision would retire it; here the proposal takes it.
            self.requests.retain(|r| r.1 != m);
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

    /// Cycles at which `pick` holds.
    fn at(&self, pick: impl Fn(&Outs) -> bool) -> Vec<u64> {
        self.trace
            .iter()
            .filter(|(_, o, _)| pick(o))
            .map(|(c, _, _)| *c)
            .collect()
    }

    fn states(&self) -> Vec<(u64, LeaderSt)> {
        let mut out: Vec<(u64, LeaderSt)> = vec![];
        for &(c, _, st) in &self.trace {
            if out.last().map(|l| l.1) != Some(st) {
                out.push((c, st));
            }
        }
        out
    }

    /// While Off the block drives nothing.
    fn check_quiet_when_off(&self) {
        for (c, o, st) in &self.trace {
            if *st == LeaderSt::Off {
                assert!(o.quiet(), "cycle {c}: Off drives {o:?}");
                assert_eq!(o.sts_state, 0);
            }
        }
    }
}

#[test]
fn a_follower_opens_the_round_in_one_cycle_and_hands_the_slot_to_fast() {
    let mut t = Bench::new(2, 0);
    t.run(6);
    // start at 0: LeaderCheck at 1, which opens the round and hands over.
    assert_eq!(
        t.states(),
        vec![
            (0, LeaderSt::Off),
            (1, LeaderSt::LeaderCheck),
            (2, LeaderSt::Off)
        ]
    );
    assert_eq!(t.at(|o| o.open_round), vec![1]);
    assert_eq!(t.at(|o| o.start_fast), vec![1]);
    assert!(t
        .at(|o| o.start_view || o.fetch.is_some() || o.bc.is_some() || o.set_m.is_some())
        .is_empty());
    assert_eq!(t.trace[1].1.sts_state, 1);
    t.check_quiet_when_off();
}

#[test]
fn the_leader_proposes_the_oldest_request_and_hands_over_after_the_broadcast() {
    let mut t = Bench::new(1, 1);
    t.requests = vec![(0, 0x11), (0, 0x22)];
    t.run(16);
    // LeaderCheck at 1, LeaderWaitValue at 2 proposes at once (a request
    // is held), LeaderSendPrepare from 3 until Broadcast's done at 2 + BC.
    assert_eq!(
        t.states(),
        vec![
            (0, LeaderSt::Off),
            (1, LeaderSt::LeaderCheck),
            (2, LeaderSt::LeaderWaitValue),
            (3, LeaderSt::LeaderSendPrepare),
            (3 + BC, LeaderSt::Off),
        ]
    );
    assert_eq!(t.at(|o| o.open_round), vec![1]);
    assert_eq!(t.at(|o| o.set_m == Some(0x11)), vec![2], "the oldest");
    assert_eq!(t.at(|o| o.set_m.is_some()), vec![2]);
    assert_eq!(t.at(|o| o.bc == Some((PREP_WORD, true))), vec![2]);
    assert_eq!(t.at(|o| o.bc.is_some()), vec![2]);
    assert_eq!(t.at(|o| o.start_fast), vec![2 + BC]);
    assert!(t
        .at(|o| o.fetch.is_some() || o.missed || o.start_view)
        .is_empty());
    let sts: Vec<u8> = t.trace[1..4].iter().map(|x| x.1.sts_state).collect();
    assert_eq!(sts, vec![1, 2, 4]);
    t.check_quiet_when_off();
}

#[test]
fn a_leader_with_nothing_idles_in_polls_and_proposes_a_request_that_arrives() {
    let mut t = Bench::new(0, 0);
    t.limit = 100;
    // Polls start at 2, 2 + (P + 1), ...; a request held from cycle 30
    // (mid poll) is proposed at the first LeaderWaitValue after it.
    t.requests = vec![(30, 0x77)];
    t.run(60);
    let polls = t.at(|o| o.fetch.is_some());
    let period = P + 1;
    let first_after = (30u64 - 2).div_ceil(period) * period + 2;
    let want: Vec<u64> = (0..)
        .map(|i| 2 + i * period)
        .take_while(|&c| c < first_after)
        .collect();
    assert_eq!(polls, want, "an idle poll every P + 1 cycles");
    assert!(t
        .trace
        .iter()
        .all(|(_, o, _)| o.fetch.is_none_or(|w| w == PREP_WORD)));
    // Each poll's done is a miss (LEADER counts in polls).
    let misses = t.at(|o| o.missed);
    assert_eq!(misses, want.iter().map(|c| c + P).collect::<Vec<_>>());
    assert_eq!(t.at(|o| o.set_m.is_some()), vec![first_after]);
    assert_eq!(t.at(|o| o.set_m == Some(0x77)), vec![first_after]);
    assert_eq!(t.at(|o| o.bc.is_some()), vec![first_after]);
    assert_eq!(t.at(|o| o.start_fast), vec![first_after + BC]);
    assert!(t.at(|o| o.start_view).is_empty());
    let idle: Vec<u8> = t.trace[3..5].iter().map(|x| x.1.sts_state).collect();
    assert_eq!(idle, vec![3, 3]);
}

#[test]
fn a_leader_with_nothing_times_out_into_view_after_exactly_the_limit_of_misses() {
    for limit in [1u64, 3, 6] {
        let mut t = Bench::new(2, 2);
        t.limit = limit;
        t.run(2 + limit * (P + 1) + 5);
        let misses = t.at(|o| o.missed);
        assert_eq!(misses.len() as u64, limit, "limit {limit}");
        // The last poll's done: start_view, and Off the next cycle.
        let last = 2 + (limit - 1) * (P + 1) + P;
        assert_eq!(*misses.last().unwrap(), last);
        assert_eq!(t.at(|o| o.start_view), vec![last], "limit {limit}");
        assert_eq!(t.states().last(), Some(&(last + 1, LeaderSt::Off)));
        assert!(t
            .at(|o| o.start_fast || o.bc.is_some() || o.set_m.is_some())
            .is_empty());
        t.check_quiet_when_off();
    }
}

#[test]
fn start_is_taken_only_in_off_and_each_start_opens_a_round() {
    let mut t = Bench::new(1, 1);
    t.requests = vec![(0, 5), (0, 6)];
    // A second start while the prepare goes out is ignored; one after the
    // handover (a decision) opens the next slot and proposes the next m.
    t.start_at = vec![0, 4, 3 + BC + 2];
    t.run(3 + BC + 2 + 4 + BC);
    assert_eq!(t.at(|o| o.open_round), vec![1, 3 + BC + 3]);
    assert_eq!(t.at(|o| o.set_m.is_some()), vec![2, 3 + BC + 4]);
    assert_eq!(
        t.trace.iter().filter_map(|x| x.1.set_m).collect::<Vec<_>>(),
        vec![5, 6]
    );
    assert_eq!(t.at(|o| o.start_fast), vec![2 + BC, 3 + BC + 4 + BC]);
}

#[test]
fn reset_puts_every_state_off_the_next_cycle() {
    // Reset in LeaderCheck (1), LeaderWaitValue (2), LeaderIdle (4) and
    // LeaderSendPrepare (with a request: 3).
    for (req, at) in [(false, 1), (false, 2), (false, 4), (true, 3)] {
        let mut t = Bench::new(0, 0);
        t.limit = 100;
        if req {
            t.requests = vec![(0, 9)];
        }
        t.reset_at = Some(at);
        t.run(at + 30);
        assert_ne!(t.trace[at as usize].2, LeaderSt::Off);
        assert!(
            t.trace[at as usize + 1..]
                .iter()
                .all(|x| x.2 == LeaderSt::Off),
            "reset at {at}"
        );
        assert!(t
            .at(|o| o.start_fast || o.start_view)
            .iter()
            .all(|&c| c <= at));
        t.check_quiet_when_off();
    }
}

#[test]
fn sts_state_numbers_the_states_as_the_page_does() {
    let want = [0u8, 1, 2, 3, 4];
    for (st, n) in LEADER_STATES.iter().zip(want) {
        assert_eq!(Leader::reported(*st), n, "{st:?}");
    }
}
