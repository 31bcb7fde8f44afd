//! RdMux, cycle by cycle: two real Fetch blocks through RdMux to an
//! in-order HBM read model (AR accepted at cycle c, first beat at c + H, one
//! beat a cycle; `arready` and R `rvalid` can be given back-pressure
//! patterns; each beat carries its own byte address). Checked: a alone is
//! cycle-identical to a Fetch wired straight to the model; the AR grant
//! (priority, the lock while pending); every beat reaches its own Fetch; an
//! RRESP error is reported by its burst's Fetch only; reset empties the
//! order FIFO. Every cycle of every run also checks the channel's rules
//! (AR payload stable while pending, one arready, one rvalid, `m_rready`
//! the owner's).

use rhdl_ubft::io::fetch::Fetch;
use rhdl_ubft::io::rdmux::RdMux;
use rhdl_ubft::params::BEAT_BYTES;
use rust_hdl::prelude::*;

mod common;
use common::fetch;
use std::collections::{HashSet, VecDeque};

/// HBM read latency in these tests.
const H: u64 = 6;

/// The test top: Fetch `fa` (master a) and Fetch `fb` (master b) through
/// RdMux; the channel's slave side is driven by the test.
#[derive(LogicBlock, Default)]
struct Pair {
    clock: Signal<In, Clock>,
    rst_n: Signal<In, Bit>,
    a_start: Signal<In, Bit>,
    a_addr: Signal<In, Bits<64>>,
    a_len: Signal<In, Bits<8>>,
    a_poll: Signal<In, Bit>,
    b_start: Signal<In, Bit>,
    b_addr: Signal<In, Bits<64>>,
    b_len: Signal<In, Bits<8>>,
    m_arready: Signal<In, Bit>,
    m_rdata: Signal<In, Bits<512>>,
    m_rresp: Signal<In, Bits<2>>,
    m_rlast: Signal<In, Bit>,
    m_rvalid: Signal<In, Bit>,
    fa: Fetch,
    fb: Fetch,
    mux: RdMux,
}

impl Logic for Pair {
    #[hdl_gen]
    fn update(&mut self) {
        self.fa.clock.next = self.clock.val();
        self.fb.clock.next = self.clock.val();
        self.mux.clock.next = self.clock.val();
        self.fa.rst_n.next = self.rst_n.val();
        self.fb.rst_n.next = self.rst_n.val();
        self.mux.rst_n.next = self.rst_n.val();
        self.fa.start.next = self.a_start.val();
        self.fa.addr.next = self.a_addr.val();
        self.fa.len.next = self.a_len.val();
        self.fa.poll.next = self.a_poll.val();
        self.fa.again.next = self.a_poll.val();
        self.fb.poll.next = false;
        self.fb.again.next = false;
        self.fb.start.next = self.b_start.val();
        self.fb.addr.next = self.b_addr.val();
        self.fb.len.next = self.b_len.val();
        // Master a.
        self.mux.a_araddr.next = self.fa.araddr.val();
        self.mux.a_arlen.next = self.fa.arlen.val();
        self.mux.a_arsize.next = self.fa.arsize.val();
        self.mux.a_arburst.next = self.fa.arburst.val();
        self.mux.a_arvalid.next = self.fa.arvalid.val();
        self.fa.arready.next = self.mux.a_arready.val();
        self.fa.rdata.next = self.mux.a_rdata.val();
        self.fa.rresp.next = self.mux.a_rresp.val();
        self.fa.rlast.next = self.mux.a_rlast.val();
        self.fa.rvalid.next = self.mux.a_rvalid.val();
        self.mux.a_rready.next = self.fa.rready.val();
        // Master b.
        self.mux.b_araddr.next = self.fb.araddr.val();
        self.mux.b_arlen.next = self.fb.arlen.val();
        self.mux.b_arsize.next = self.fb.arsize.val();
        self.mux.b_arburst.next = self.fb.arburst.val();
        self.mux.b_arvalid.next = self.fb.arvalid.val();
        self.fb.arready.next = self.mux.b_arready.val();
        self.fb.rdata.next = self.mux.b_rdata.val();
        self.fb.rresp.next = self.mux.b_rresp.val();
        self.fb.rlast.next = self.mux.b_rlast.val();
        self.fb.rvalid.next = self.mux.b_rvalid.val();
        self.mux.b_rready.next = self.fb.rready.val();
        // The channel.
        self.mux.m_arready.next = self.m_arready.val();
        self.mux.m_rdata.next = self.m_rdata.val();
        self.mux.m_rresp.next = self.m_rresp.val();
        self.mux.m_rlast.next = self.m_rlast.val();
        self.mux.m_rvalid.next = self.m_rvalid.val();
    }
}

fn pair() -> Pair {
    let mut t = Pair::default();
    t.clock.connect();
    t.rst_n.connect();
    t.a_start.connect();
    t.a_addr.connect();
    t.a_len.connect();
    t.a_poll.connect();
    t.b_start.connect();
    t.b_addr.connect();
    t.b_len.connect();
    t.m_arready.connect();
    t.m_rdata.connect();
    t.m_rresp.connect();
    t.m_rlast.connect();
    t.m_rvalid.connect();
    t.connect_all();
    t.rst_n.next = true;
    t
}

/// The beat at byte address `addr`: the address in bits 0..64, its
/// complement in bits 448..512.
fn beat(addr: u64) -> Bits<512> {
    let mut b = Bits::<512>::default();
    b.set_bits::<64>(0, addr.into());
    b.set_bits::<64>(448, (!addr).into());
    b
}

/// A stray R beat (no burst): only for probing that nobody takes it.
const STRAY: u64 = 0xdead_0000;

/// The R channel as the model drives it in one cycle.
#[derive(Clone, Copy, Debug, Default)]
struct R {
    valid: bool,
    last: bool,
    resp: u64,
    data: Bits<512>,
    stray: bool,
}

/// An in-order AXI4 read slave: one ID, bursts answered in AR order, the
/// first beat of a burst accepted at c no earlier than c + H, one beat a
/// cycle while `r_ok` and `rready`. A beat once shown stays until taken.
struct Hbm {
    /// (first beat's earliest cycle, address, AxLEN, beats taken).
    bursts: VecDeque<(u64, u64, u64, u64)>,
    ar_ready: fn(u64) -> bool,
    r_ok: fn(u64) -> bool,
    /// Beat addresses that answer SLVERR.
    bad: HashSet<u64>,
    /// Cycles with a stray RVALID (no burst at the head).
    stray: HashSet<u64>,
    held: bool,
}

impl Hbm {
    fn new() -> Self {
        Hbm {
            bursts: VecDeque::new(),
            ar_ready: |_| true,
            r_ok: |_| true,
            bad: HashSet::new(),
            stray: HashSet::new(),
            held: false,
        }
    }

    fn drive(&self, c: u64) -> (bool, R) {
        let mut r = R::default();
        match self.bursts.front() {
            Some(&(first, addr, len, i)) if c >= first && (self.held || (self.r_ok)(c)) => {
                let a = addr + i * BEAT_BYTES;
                r = R {
                    valid: true,
                    last: i == len,
                    resp: if self.bad.contains(&a) { 2 } else { 0 },
                    data: beat(a),
                    stray: false,
                };
            }
            _ => {
                if self.stray.contains(&c) {
                    r = R {
                        valid: true,
                        last: true,
                        resp: 0,
                        data: beat(STRAY),
                        stray: true,
                    };
                }
            }
        }
        ((self.ar_ready)(c), r)
    }

    /// This cycle's handshakes, as the master settled.
    fn observe(
        &mut self,
        c: u64,
        rst_n: bool,
        ar: Option<(u64, u64)>,
        arready: bool,
        r: R,
        rready: bool,
    ) {
        if !rst_n {
            // The interconnect is reset with the kernel: all abandoned.
            self.bursts.clear();
            self.held = false;
            return;
        }
        assert!(!(r.stray && rready), "cycle {c}: a stray beat was taken");
        self.held = r.valid && !rready && !r.stray;
        if r.valid && rready {
            let head = self.bursts.front_mut().unwrap();
            head.3 += 1;
            if r.last {
                self.bursts.pop_front();
            }
        }
        if let (Some((addr, len)), true) = (ar, arready) {
            self.bursts.push_back((c + H, addr, len, 0));
        }
    }
}

/// A Fetch's requests: each starts at the first cycle at or after `.0`
/// with the Fetch idle.
#[derive(Clone, Default)]
struct Script(VecDeque<(u64, u64, u64)>);

impl Script {
    fn new(reqs: &[(u64, u64, u64)]) -> Self {
        Script(reqs.iter().copied().collect())
    }
    /// (start, addr, len) for cycle c.
    fn at(&mut self, c: u64, busy: bool) -> (bool, u64, u64) {
        match self.0.front() {
            Some(&(at, addr, len)) if c >= at && !busy => {
                self.0.pop_front();
                (true, addr, len)
            }
            _ => (false, 0, 0),
        }
    }
}

/// What one Fetch saw and did in one cycle (every port).
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    cycle: u64,
    start: bool,
    busy: bool,
    arvalid: bool,
    araddr: u64,
    arlen: u64,
    arsize: u64,
    arburst: u64,
    arready: bool,
    rvalid: bool,
    rdata: (u64, u64),
    rresp: u64,
    rlast: bool,
    rready: bool,
    beat_valid: bool,
    beat: (u64, u64),
    done: bool,
    error: bool,
}

fn seen(f: &Fetch, cycle: u64) -> Seen {
    let lo_hi = |b: Bits<512>| (b.get_bits::<64>(0).to_u64(), b.get_bits::<64>(448).to_u64());
    Seen {
        cycle,
        start: f.start.val(),
        busy: f.busy.val(),
        arvalid: f.arvalid.val(),
        araddr: f.araddr.val().to_u64(),
        arlen: f.arlen.val().to_u64(),
        arsize: f.arsize.val().to_u64(),
        arburst: f.arburst.val().to_u64(),
        arready: f.arready.val(),
        rvalid: f.rvalid.val(),
        rdata: lo_hi(f.rdata.val()),
        rresp: f.rresp.val().to_u64(),
        rlast: f.rlast.val(),
        rready: f.rready.val(),
        beat_valid: f.beat_valid.val(),
        beat: lo_hi(f.beat.val()),
        done: f.done.val(),
        error: f.error.val(),
    }
}

/// A Fetch's beats (cycle, address) and its `done`s (cycle, error).
fn beats(trace: &[Seen]) -> Vec<(u64, u64)> {
    trace
        .iter()
        .filter(|s| s.beat_valid)
        .map(|s| {
            assert_eq!(
                s.beat.1, !s.beat.0,
                "cycle {}: a beat's two copies",
                s.cycle
            );
            (s.cycle, s.beat.0)
        })
        .collect()
}
fn dones(trace: &[Seen]) -> Vec<(u64, bool)> {
    trace
        .iter()
        .filter(|s| s.done)
        .map(|s| (s.cycle, s.error))
        .collect()
}

/// One run's inputs.
struct Run {
    a: Script,
    b: Script,
    hbm: Hbm,
    cycles: u64,
    reset: Vec<u64>,
    /// Every request of `a` is a `poll` (Fetch reads ahead).
    a_poll: bool,
}

impl Run {
    fn new(cycles: u64) -> Self {
        Run {
            a: Script::default(),
            b: Script::default(),
            hbm: Hbm::new(),
            cycles,
            reset: vec![],
            a_poll: false,
        }
    }
}

/// A run through RdMux: what each Fetch saw, the AR handshakes (cycle,
/// owner 'a'/'b', address, len), and the stray probes (cycle, seen by a,
/// seen by b, m_rready), and the channel's outputs.
struct PairOut {
    a: Vec<Seen>,
    b: Vec<Seen>,
    ars: Vec<(u64, char, u64, u64)>,
    strays: Vec<(u64, bool, bool, bool)>,
    /// The channel's outputs each cycle: (m_arvalid, m_araddr, m_arlen,
    /// m_arsize, m_arburst, m_rready).
    m: Vec<(bool, u64, u64, u64, u64, bool)>,
}

fn run_pair(mut run: Run) -> PairOut {
    let mut t = pair();
    let mut out = PairOut {
        a: vec![],
        b: vec![],
        ars: vec![],
        strays: vec![],
        m: vec![],
    };
    // The channel's AR of last cycle if pending: (addr, len, size, burst).
    let mut pending: Option<(u64, u64, u64, u64)> = None;
    for c in 0..run.cycles {
        let rst_n = !run.reset.contains(&c);
        t.rst_n.next = rst_n;
        let (s, addr, len) = run.a.at(c, t.fa.busy.val());
        t.a_start.next = s;
        t.a_addr.next = addr.into();
        t.a_len.next = len.into();
        t.a_poll.next = run.a_poll;
        let (s, addr, len) = run.b.at(c, t.fb.busy.val());
        t.b_start.next = s;
        t.b_addr.next = addr.into();
        t.b_len.next = len.into();
        let (arready, r) = run.hbm.drive(c);
        t.m_arready.next = arready;
        t.m_rvalid.next = r.valid;
        t.m_rlast.next = r.last;
        t.m_rresp.next = r.resp.into();
        t.m_rdata.next = r.data;
        t.clock.next = Clock::from(false);
        assert!(simulate(&mut t, 100));
        let m = &t.mux;
        let ar = (
            m.m_araddr.val().to_u64(),
            m.m_arlen.val().to_u64(),
            m.m_arsize.val().to_u64(),
            m.m_arburst.val().to_u64(),
        );
        // The channel's rules.
        if let Some(p) = pending {
            if rst_n {
                assert!(m.m_arvalid.val(), "cycle {c}: a pending AR was dropped");
                assert_eq!(ar, p, "cycle {c}: the AR payload changed while pending");
            }
        }
        pending = (m.m_arvalid.val() && !arready && rst_n).then_some(ar);
        assert!(
            !(m.a_arready.val() && m.b_arready.val()),
            "cycle {c}: one arready"
        );
        assert!(
            !(m.a_rvalid.val() && m.b_rvalid.val()),
            "cycle {c}: one rvalid"
        );
        if m.a_rvalid.val() || m.b_rvalid.val() {
            assert!(r.valid);
            let owner_rready = if m.a_rvalid.val() {
                t.fa.rready.val()
            } else {
                t.fb.rready.val()
            };
            assert_eq!(
                m.m_rready.val(),
                owner_rready,
                "cycle {c}: m_rready is the owner's"
            );
        }
        if m.m_arvalid.val() && arready {
            let (who, f) = if m.a_arready.val() {
                ('a', &t.fa)
            } else {
                assert!(
                    m.b_arready.val(),
                    "cycle {c}: an AR handshake with nobody's arready"
                );
                ('b', &t.fb)
            };
            assert!(f.arvalid.val());
            assert_eq!(
                ar,
                (
                    f.araddr.val().to_u64(),
                    f.arlen.val().to_u64(),
                    f.arsize.val().to_u64(),
                    f.arburst.val().to_u64()
                ),
                "cycle {c}: the granted master's payload"
            );
            if rst_n {
                out.ars.push((c, who, ar.0, ar.1));
            }
        }
        // A master's AR handshake is the channel's (none is lost).
        if (m.a_arready.val() && t.fa.arvalid.val()) || (m.b_arready.val() && t.fb.arvalid.val()) {
            assert!(
                m.m_arvalid.val() && arready,
                "cycle {c}: a handshake off the channel"
            );
        }
        out.m
            .push((m.m_arvalid.val(), ar.0, ar.1, ar.2, ar.3, m.m_rready.val()));
        if r.stray {
            out.strays
                .push((c, m.a_rvalid.val(), m.b_rvalid.val(), m.m_rready.val()));
        }
        out.a.push(seen(&t.fa, c));
        out.b.push(seen(&t.fb, c));
        let ar_valid = t.mux.m_arvalid.val().then_some((ar.0, ar.1));
        let rready = t.mux.m_rready.val();
        run.hbm.observe(c, rst_n, ar_valid, arready, r, rready);
        t.clock.next = Clock::from(true);
        assert!(simulate(&mut t, 100));
    }
    out
}

/// The same with one Fetch wired straight to the model (script `a`).
fn run_direct(mut run: Run) -> Vec<Seen> {
    let mut f = fetch();
    let mut out = vec![];
    for c in 0..run.cycles {
        let rst_n = !run.reset.contains(&c);
        f.rst_n.next = rst_n;
        let (s, addr, len) = run.a.at(c, f.busy.val());
        f.start.next = s;
        f.addr.next = addr.into();
        f.len.next = len.into();
        let (arready, r) = run.hbm.drive(c);
        f.arready.next = arready;
        f.rvalid.next = r.valid;
        f.rlast.next = r.last;
        f.rresp.next = r.resp.into();
        f.rdata.next = r.data;
        f.clock.next = Clock::from(false);
        assert!(simulate(&mut f, 100));
        out.push(seen(&f, c));
        let ar = f
            .arvalid
            .val()
            .then_some((f.araddr.val().to_u64(), f.arlen.val().to_u64()));
        let rready = f.rready.val();
        run.hbm.observe(c, rst_n, ar, arready, r, rready);
        f.clock.next = Clock::from(true);
        assert!(simulate(&mut f, 100));
    }
    out
}

/// Master a's requests used by the identity test.
const A_REQS: [(u64, u64, u64); 4] = [
    (2, 0x1000, 0),
    (0, 0x2040, 3),
    (0, 0x3000, 1),
    (40, 0x4_0000_0fc0, 0),
];

fn identity(make: &dyn Fn() -> Run) -> Vec<Seen> {
    let direct = run_direct(make());
    let through = run_pair(make());
    assert_eq!(through.a.len(), direct.len());
    for ((x, y), m) in through.a.iter().zip(&direct).zip(&through.m) {
        assert_eq!(x, y, "master a through RdMux vs straight to the channel");
        // And the channel sees exactly a's outputs, valid or not.
        assert_eq!(
            *m,
            (y.arvalid, y.araddr, y.arlen, y.arsize, y.arburst, y.rready),
            "cycle {}: the channel vs master a",
            y.cycle
        );
    }
    assert!(beats(&through.b).is_empty() && dones(&through.b).is_empty());
    assert!(through.ars.iter().all(|ar| ar.1 == 'a'));
    direct
}

#[test]
fn master_a_alone_sees_exactly_what_it_sees_straight_on_the_channel() {
    // Full rate: every timing spelled out once.
    let trace = identity(&|| {
        let mut r = Run::new(60);
        r.a = Script::new(&A_REQS);
        r
    });
    // start 2, AR 3, beat on R at 3 + H, handed over a cycle later: done
    // H + 2 after start. The next start comes with done.
    let b1 = 3 + H + 1;
    let b2 = b1 + 1 + H + 1; // start at b1, AR at b1 + 1, R at b1 + 1 + H
    let b3 = b2 + 3 + 1 + H + 1;
    let b4 = 41 + H + 1;
    assert_eq!(
        beats(&trace),
        vec![
            (b1, 0x1000),
            (b2, 0x2040),
            (b2 + 1, 0x2080),
            (b2 + 2, 0x20c0),
            (b2 + 3, 0x2100),
            (b3, 0x3000),
            (b3 + 1, 0x3040),
            (b4, 0x4_0000_0fc0),
        ]
    );
    assert_eq!(b1 - 2, H + 2);
    assert_eq!(
        dones(&trace),
        vec![(b1, false), (b2 + 3, false), (b3 + 1, false), (b4, false)]
    );
    // Back-pressure on AR and gaps on R.
    identity(&|| {
        let mut r = Run::new(120);
        r.a = Script::new(&A_REQS);
        r.hbm.ar_ready = |c| c % 3 == 0;
        r.hbm.r_ok = |c| c % 4 != 1 && c % 7 != 3;
        r
    });
    // Reset in the middle of the second burst, and again just as an AR
    // is pending (arready low), then more bursts.
    identity(&|| {
        let mut r = Run::new(120);
        r.a = Script::new(&[
            (2, 0x1000, 0),
            (0, 0x2040, 3),
            (30, 0x5000, 2),
            (0, 0x6000, 0),
            (70, 0x7000, 1),
        ]);
        r.hbm.ar_ready = |c| !(31..=34).contains(&c);
        r.reset = vec![b2 + 1, 33];
        r
    });
}

#[test]
fn both_start_together_a_is_granted_first_and_each_fetch_gets_its_own_beats() {
    // arready high: a's AR at 3, b's at 4 (a has dropped arvalid).
    let mut r = Run::new(40);
    r.a = Script::new(&[(2, 0x1_0000, 1)]);
    r.b = Script::new(&[(2, 0x2_0000, 2)]);
    let out = run_pair(r);
    assert_eq!(out.ars, vec![(3, 'a', 0x1_0000, 1), (4, 'b', 0x2_0000, 2)]);
    // a's beats on R at 3 + H, 4 + H; b's first is due at 4 + H but comes
    // after a's last, at 5 + H. Each handed over a cycle later.
    assert_eq!(beats(&out.a), vec![(4 + H, 0x1_0000), (5 + H, 0x1_0040)]);
    assert_eq!(
        beats(&out.b),
        vec![(6 + H, 0x2_0000), (7 + H, 0x2_0040), (8 + H, 0x2_0080)]
    );
    assert_eq!(dones(&out.a), vec![(5 + H, false)]);
    assert_eq!(dones(&out.b), vec![(8 + H, false)]);
    // Both pending under arready low (3 and 4): a holds the channel until
    // its handshake at 5, b's comes at 6; every cycle of it checked stable.
    let mut r = Run::new(40);
    r.a = Script::new(&[(2, 0x1_0000, 1)]);
    r.b = Script::new(&[(2, 0x2_0000, 2)]);
    r.hbm.ar_ready = |c| c >= 5;
    r.hbm.r_ok = |c| c != 12;
    let out = run_pair(r);
    assert_eq!(out.ars, vec![(5, 'a', 0x1_0000, 1), (6, 'b', 0x2_0000, 2)]);
    // R: a's beats at 5 + H = 11 and 13 (no beat at 12), b's at 14..=16.
    assert_eq!(beats(&out.a), vec![(12, 0x1_0000), (14, 0x1_0040)]);
    assert_eq!(
        beats(&out.b),
        vec![(15, 0x2_0000), (16, 0x2_0040), (17, 0x2_0080)]
    );
    assert_eq!(dones(&out.a), vec![(14, false)]);
    assert_eq!(dones(&out.b), vec![(17, false)]);
    // While a's AR was pending, b saw no arready.
    assert!(out.b[3..=5].iter().all(|s| s.arvalid && !s.arready));
    assert!(out.a[3..=4].iter().all(|s| s.arvalid && !s.arready));
}

#[test]
fn a_pending_ar_of_b_keeps_the_grant_until_its_handshake_then_a() {
    // b's AR from 3, arready low until 7; a's arvalid from 5.
    let mut r = Run::new(40);
    r.a = Script::new(&[(4, 0x1_0000, 0)]);
    r.b = Script::new(&[(2, 0x2_0000, 0)]);
    r.hbm.ar_ready = |c| c >= 7;
    let out = run_pair(r);
    assert!(out.a[5].arvalid && out.b[5].arvalid, "both valid at 5");
    assert_eq!(out.ars, vec![(7, 'b', 0x2_0000, 0), (8, 'a', 0x1_0000, 0)]);
    for c in 5..=7 {
        assert!(!out.a[c].arready, "cycle {c}: the grant stays with b");
    }
    assert!(out.b[7].arready && out.a[8].arready);
    // b's beat on R at 7 + H, a's at 8 + H; each handed over a cycle later.
    assert_eq!(beats(&out.b), vec![(8 + H, 0x2_0000)]);
    assert_eq!(beats(&out.a), vec![(9 + H, 0x1_0000)]);
    assert_eq!(dones(&out.b), vec![(8 + H, false)]);
    assert_eq!(dones(&out.a), vec![(9 + H, false)]);
}

#[test]
fn a_push_and_a_pop_in_the_same_cycle_keep_the_order() {
    // The first master's one beat is on R at 3 + H = 9 (its burst popped)
    // as the second's AR is accepted (pushed): then the second's beat, at
    // 9 + H, is routed to the second.
    for first_a in [true, false] {
        let mut r = Run::new(30);
        let (first, second) = (
            Script::new(&[(2, 0x1_0000, 0)]),
            Script::new(&[(8, 0x2_0000, 0)]),
        );
        if first_a {
            (r.a, r.b) = (first, second);
        } else {
            (r.b, r.a) = (first, second);
        }
        let out = run_pair(r);
        let (f1, f2, w1, w2) = if first_a {
            (&out.a, &out.b, 'a', 'b')
        } else {
            (&out.b, &out.a, 'b', 'a')
        };
        assert_eq!(
            out.ars,
            vec![(3, w1, 0x1_0000, 0), (3 + H, w2, 0x2_0000, 0)]
        );
        let p = &f1[3 + H as usize];
        assert!(
            p.rvalid && p.rready && p.rlast,
            "the pop in the push's cycle"
        );
        assert_eq!(beats(f1), vec![(4 + H, 0x1_0000)]);
        assert_eq!(beats(f2), vec![(4 + 2 * H, 0x2_0000)]);
        assert_eq!(dones(f1), vec![(4 + H, false)]);
        assert_eq!(dones(f2), vec![(4 + 2 * H, false)]);
    }
}

#[test]
fn an_rresp_error_is_reported_by_its_own_fetch_only() {
    for bad_b in [true, false] {
        let mut r = Run::new(40);
        r.a = Script::new(&[(2, 0x1_0000, 1)]);
        r.b = Script::new(&[(2, 0x2_0000, 1)]);
        // The second beat of one burst answers SLVERR.
        r.hbm.bad.insert(if bad_b { 0x2_0040 } else { 0x1_0040 });
        let out = run_pair(r);
        assert_eq!(dones(&out.a), vec![(5 + H, !bad_b)]);
        assert_eq!(dones(&out.b), vec![(7 + H, bad_b)]);
        assert_eq!(beats(&out.a), vec![(4 + H, 0x1_0000), (5 + H, 0x1_0040)]);
        assert_eq!(beats(&out.b), vec![(6 + H, 0x2_0000), (7 + H, 0x2_0040)]);
    }
}

#[test]
fn reset_mid_burst_empties_the_fifo_and_a_new_burst_by_a_works() {
    // a (4 beats) and b (2 beats) outstanding: ARs at 3 and 4, a's beats on
    // R from 3 + H = 9. Reset at 10, mid a's burst with b's queued behind.
    let mut r = Run::new(60);
    r.a = Script::new(&[(2, 0x1_0000, 3), (20, 0x5_0000, 0)]);
    r.b = Script::new(&[(2, 0x2_0000, 1), (30, 0x6_0000, 0)]);
    r.reset = vec![10];
    // Stray RVALIDs after the reset, and after the new bursts: with the
    // FIFO empty nobody sees them and m_rready is low.
    r.hbm.stray = [11, 12, 15, 29, 40, 45].into_iter().collect();
    let out = run_pair(r);
    assert_eq!(
        out.strays,
        [11, 12, 15, 29, 40, 45]
            .iter()
            .map(|&c| (c, false, false, false))
            .collect::<Vec<_>>()
    );
    assert_eq!(out.ars[..2], [(3, 'a', 0x1_0000, 3), (4, 'b', 0x2_0000, 1)]);
    // Beat 0 of a's burst handed over at 10; the one taken in the reset
    // cycle is dropped with the burst; b's never comes, and neither
    // reports done for the abandoned bursts (checked below).
    assert_eq!(beats(&out.a)[0], (10, 0x1_0000));
    // New bursts: a starts at 20 (AR 21), b at 30 (AR 31).
    assert_eq!(
        out.ars[2..],
        [(21, 'a', 0x5_0000, 0), (31, 'b', 0x6_0000, 0)]
    );
    assert_eq!(beats(&out.a)[1..], [(22 + H, 0x5_0000)]);
    assert_eq!(dones(&out.a), vec![(22 + H, false)]);
    assert_eq!(beats(&out.b), vec![(32 + H, 0x6_0000)]);
    assert_eq!(dones(&out.b), vec![(32 + H, false)]);
    assert!(!out.a[11].busy && !out.b[11].busy);
}

#[test]
fn the_verilog_names_its_top_rhdl_ubft_rdmux() {
    let v = rhdl_ubft::io::rdmux::verilog();
    assert!(v.contains("module rhdl_ubft_rdmux("));
    assert!(!v.contains("module top("));
}

#[test]
fn a_read_ahead_of_a_and_a_burst_of_b_are_three_outstanding_each_beat_to_its_owner() {
    // a polls one beat five times (each poll as soon as the last is done),
    // reading ahead; b reads once while a has two bursts outstanding.
    let mut r = Run::new(70);
    r.a_poll = true;
    r.a = Script::new(&[(2, 0x1_0000, 0); 5]);
    r.b = Script::new(&[(16, 0x2_0000, 0)]);
    let out = run_pair(r);
    // a: its first poll at 3 measures the round trip; the second (11) is
    // read ahead at 15, which the third poll takes; b's at 17.
    let (x, y) = (0x1_0000, 0x2_0000);
    assert_eq!(
        out.ars,
        vec![
            (3, 'a', x, 0),
            (11, 'a', x, 0),
            (15, 'a', x, 0),
            (17, 'b', y, 0),
            (19, 'a', x, 0),
            (23, 'a', x, 0),
            (27, 'a', x, 0)
        ]
    );
    let mut outstanding = 0i64;
    let mut most = 0;
    for c in 0..70usize {
        outstanding += out.ars.iter().filter(|a| a.0 == c as u64).count() as i64;
        most = most.max(outstanding);
        for t in [&out.a, &out.b] {
            let s = &t[c];
            if s.rvalid && s.rready && s.rlast {
                outstanding -= 1;
            }
        }
    }
    assert_eq!(most, 3, "a's poll, its read ahead and b's burst");
    assert_eq!(outstanding, 0);
    assert!(beats(&out.a).iter().all(|b| b.1 == 0x1_0000));
    assert_eq!(dones(&out.a).len(), 5, "each poll done once");
    assert_eq!(beats(&out.b).len(), 1);
    assert_eq!(beats(&out.b)[0].1, 0x2_0000);
    assert_eq!(dones(&out.b).len(), 1);
}
