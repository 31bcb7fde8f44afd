//! Watch, cycle by cycle: the rotation's polls (order, address, length,
//! start cycle), each event's cycle and payload for a planted record, the
//! event held until `ev_take`, a finding reported once and again after
//! `clear`, garbage that is never an event, `awaiting`, `fetch_error` and
//! reset. Watch drives the real Fetch, whose AXI read channel is answered
//! by an HBM model at latency H (AR accepted to first R beat) with beats
//! built from `Mailbox::v3` addresses and `records` positions.

use rhdl_ubft::controller::watch::{ev, Watch};
use rhdl_ubft::io::fetch::Fetch;
use rhdl_ubft::layout::{records, Mailbox, Region};
use rhdl_ubft::params::{faults, vote_tag, AXI_BOUNDARY_BYTES, BEAT_BYTES, G, SB};
use rust_hdl::prelude::*;

mod common;
use std::collections::{HashMap, HashSet};

/// `network_ptr`: 4 KiB aligned, as Protocol requires.
const NET: u64 = 0x2_0000_0000;
/// HBM read latency in these tests.
const H: u64 = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Burst {
    cycle: u64,
    addr: u64,
    len: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    cycle: u64,
    kind: u64,
    view: u32,
    m: u32,
    prev: u32,
    x: u32,
    bits: u64,
}

fn settle<B: Block>(b: &mut B, clock: &mut dyn FnMut(&mut B)) {
    clock(b);
    assert!(simulate(b, 100));
}

struct Bench<const N: usize> {
    w: Watch<N>,
    f: Fetch,
    mb: Mailbox,
    mem: HashMap<usize, u32>,
    /// Beat addresses (bytes) that answer SLVERR.
    bad: HashSet<u64>,
    cycle: u64,
    /// The burst on the R channel: (cycle of its first beat, addr, len).
    r: Option<(u64, u64, u64)>,
    bursts: Vec<Burst>,
    events: Vec<Event>,
    was_valid: bool,
    // Inputs.
    n: u64,
    k: u32,
    view: u32,
    awaiting: bool,
    enable: bool,
    clear_at: Option<u64>,
    reset_at: Option<u64>,
    /// Take an event this many cycles after it rose (None: never).
    take_after: Option<u64>,
    rose: u64,
}

impl<const N: usize> Bench<N> {
    fn new(k: u32, view: u32) -> Self {
        let mut w = Watch::<N>::new();
        for s in [
            &mut w.enable,
            &mut w.clear,
            &mut w.awaiting,
            &mut w.fetch_beat_valid,
            &mut w.fetch_done,
            &mut w.fetch_error,
            &mut w.ev_take,
            &mut w.rst_n,
        ] {
            s.connect();
        }
        w.clock.connect();
        w.network_ptr.connect();
        w.n.connect();
        w.k.connect();
        w.view.connect();
        w.fetch_beat.connect();
        w.connect_all();
        let f = common::fetch();
        Bench {
            w,
            f,
            mb: Mailbox::v3(N, G, SB),
            mem: HashMap::new(),
            bad: HashSet::new(),
            cycle: 0,
            r: None,
            bursts: vec![],
            events: vec![],
            was_valid: false,
            n: N as u64,
            k,
            view,
            awaiting: false,
            enable: true,
            clear_at: None,
            // Cycle 0 is in reset: the first poll starts at cycle 1.
            reset_at: Some(0),
            take_after: Some(5),
            rose: 0,
        }
    }

    fn put(&mut self, word: usize, words: &[u32]) {
        for (i, &v) in words.iter().enumerate() {
            self.mem.insert(word + i, v);
        }
    }

    fn beat(&self, addr: u64) -> Bits<512> {
        let word = ((addr - NET) / 4) as usize;
        let mut b = Bits::<512>::default();
        for i in 0..16 {
            let v = *self.mem.get(&(word + i)).unwrap_or(&0);
            b.set_bits::<32>(32 * i, (v as u64).into());
        }
        b
    }

    fn step(&mut self) {
        let c = self.cycle;
        let rst = self.reset_at != Some(c);
        // The R channel of this cycle.
        let (mut rvalid, mut rlast, mut rresp, mut rdata) = (false, false, 0u64, Bits::default());
        if let Some((first, addr, len)) = self.r {
            if c >= first && c <= first + len {
                let a = addr + (c - first) * BEAT_BYTES;
                rvalid = true;
                rlast = c == first + len;
                rresp = if self.bad.contains(&a) { 2 } else { 0 };
                rdata = self.beat(a);
            }
        }
        self.f.rvalid.next = rvalid;
        self.f.rlast.next = rlast;
        self.f.rresp.next = rresp.into();
        self.f.rdata.next = rdata;
        self.f.arready.next = true;
        self.f.rst_n.next = rst;
        settle(&mut self.f, &mut |f: &mut Fetch| {
            f.clock.next = Clock::from(false)
        });
        // Watch, on Fetch's registered outputs.
        let w = &mut self.w;
        w.rst_n.next = rst;
        w.enable.next = self.enable;
        w.clear.next = self.clear_at == Some(c);
        w.network_ptr.next = NET.into();
        w.n.next = self.n.into();
        w.k.next = (self.k as u64).into();
        w.view.next = (self.view as u64).into();
        w.awaiting.next = self.awaiting;
        w.fetch_beat.next = self.f.beat.val();
        w.fetch_beat_valid.next = self.f.beat_valid.val();
        w.fetch_done.next = self.f.done.val();
        w.fetch_error.next = self.f.error.val();
        w.ev_take.next = false;
        settle(w, &mut |w: &mut Watch<N>| w.clock.next = Clock::from(false));
        if w.ev_valid.val() && !self.was_valid {
            self.rose = c;
            self.events.push(Event {
                cycle: c,
                kind: w.ev_kind.val().to_u64(),
                view: w.ev_view.val().to_u64() as u32,
                m: w.ev_m.val().to_u64() as u32,
                prev: w.ev_prev.val().to_u64() as u32,
                x: w.ev_x.val().to_u64() as u32,
                bits: w.ev_bits.val().to_u64(),
            });
        }
        self.was_valid = w.ev_valid.val();
        if w.ev_valid.val() && self.take_after.is_some_and(|d| c >= self.rose + d) {
            w.ev_take.next = true;
            settle(w, &mut |w: &mut Watch<N>| w.clock.next = Clock::from(false));
        }
        if w.fetch_start.val() {
            self.bursts.push(Burst {
                cycle: c,
                addr: w.fetch_addr.val().to_u64(),
                len: w.fetch_len.val().to_u64(),
            });
        }
        self.f.start.next = w.fetch_start.val();
        self.f.addr.next = w.fetch_addr.val();
        self.f.len.next = w.fetch_len.val();
        settle(&mut self.f, &mut |f: &mut Fetch| {
            f.clock.next = Clock::from(false)
        });
        if self.f.arvalid.val() {
            // Accepted (arready is high): the first beat H cycles later.
            if let Some((first, _, len)) = self.r {
                assert!(c > first + len, "one burst in flight");
            }
            self.r = Some((
                c + H,
                self.f.araddr.val().to_u64(),
                self.f.arlen.val().to_u64(),
            ));
        }
        settle(&mut self.w, &mut |w: &mut Watch<N>| {
            w.clock.next = Clock::from(true)
        });
        settle(&mut self.f, &mut |f: &mut Fetch| {
            f.clock.next = Clock::from(true)
        });
        self.cycle += 1;
    }

    fn run_to(&mut self, cycle: u64) {
        while self.cycle < cycle {
            self.step();
        }
    }

    fn s(&self) -> usize {
        (self.k as usize - 1) % G
    }
    fn s1(&self) -> usize {
        self.k as usize % G
    }
    fn byte(&self, word: usize) -> u64 {
        NET + 4 * word as u64
    }

    // Where each poll reads, from the layout.
    fn row_addr(&self) -> u64 {
        self.byte(self.mb.vote_row(Region::WillCommit, self.s())) & !(BEAT_BYTES - 1)
    }
    fn commit_addr(&self, x: usize) -> u64 {
        self.byte(self.mb.record(Region::Commit, self.s1(), x))
    }
    fn nv_addr(&self) -> u64 {
        self.byte(self.mb.record(Region::NewViewRecord, 0, 0))
    }
    /// commit[s(k)][x], the Mine poll's record (R25 while awaiting).
    fn mine_addr(&self, x: usize) -> u64 {
        self.byte(self.mb.record(Region::Commit, self.s(), x))
    }
    /// A row of records' bursts: from record 0 to n - 1, split where a
    /// 4 KiB page ends (a record never straddles one).
    fn row_bursts(&self, region: Region, i: usize) -> Vec<(u64, u64)> {
        let stride = self.mb.stride(region) as u64 * 4 / BEAT_BYTES;
        let mut out: Vec<(u64, u64)> = vec![];
        for x in 0..self.n as usize {
            let a = self.byte(self.mb.record(region, i, x));
            match out.last_mut() {
                Some((first, len)) if a / AXI_BOUNDARY_BYTES == *first / AXI_BOUNDARY_BYTES => {
                    *len += stride
                }
                _ => out.push((a, 0)),
            }
        }
        out
    }

    // Planting records.
    fn row(&mut self, lanes: &[(u32, u32)]) {
        for (i, &(tag, m)) in lanes.iter().enumerate() {
            let w = self.mb.vote(Region::WillCommit, self.s(), i);
            self.put(w, &[tag, m]);
        }
    }
    fn cert(&mut self, x: usize, block: [u32; 8]) {
        let w = self.mb.record(Region::Certify, self.s1(), x);
        self.put(w, &block);
        // The share beat after it: not read as a block.
        self.put(w + 16, &[0xdead_beef; 16]);
    }
    /// commit[s(k + 1)][x]: the block, and word 8, the certificate's
    /// signers.
    fn commit(&mut self, x: usize, block: [u32; 8], signers: u32) {
        let w = self.mb.record(Region::Commit, self.s1(), x);
        self.put(w, &block);
        self.put(w + records::COMMIT_BITMAP, &[signers]);
    }
    fn seal(&mut self, j: usize, block: [u32; 8]) {
        let w = self.mb.record(Region::Seal, 0, j);
        self.put(w, &block);
        self.put(w + 16, &[0xdead_beef; 16]);
    }
    /// x's COMMIT of k itself, in commit[s(k)][x].
    fn mine(&mut self, x: usize, block: [u32; 8], signers: u32) {
        let w = self.mb.record(Region::Commit, self.s(), x);
        self.put(w, &block);
        self.put(w + records::COMMIT_BITMAP, &[signers]);
    }
    fn new_view(&mut self, v: u32) {
        let w = self.mb.record(Region::NewViewRecord, 0, 0);
        self.put(w, &[v, 0b11, 0b11]);
    }
}

/// The bursts of one rotation from `start` with nothing found: (addr, len)
/// per burst and the start cycle of each (a burst of b beats takes H + 1 +
/// b cycles to `done`; the next starts two cycles later).
fn expected_rotation<const N: usize>(
    b: &Bench<N>,
    start: u64,
    x: usize,
    awaiting: bool,
) -> (Vec<Burst>, u64) {
    let mut plan = vec![(b.row_addr(), 0)];
    plan.extend(b.row_bursts(Region::Certify, b.s1()));
    plan.push((b.commit_addr(x), 0));
    plan.extend(b.row_bursts(Region::Seal, 0));
    if awaiting {
        // Mine: commit[s(k)][x'], x' the next Commit poll's (x has moved
        // on by then). The NewView poll is not in the rotation.
        plan.push((b.mine_addr((x + 1) % b.n as usize), 0));
    }
    let mut t = start;
    let mut out = vec![];
    for (addr, len) in plan {
        out.push(Burst {
            cycle: t,
            addr,
            len,
        });
        t += H + (len + 1) + 3;
    }
    (out, t)
}

fn rotation<const N: usize>(awaiting: bool) {
    let mut b = Bench::<N>::new(5, 0);
    b.awaiting = awaiting;
    let mut want = vec![];
    let mut t = 1;
    for r in 0..N + 1 {
        let (polls, next) = expected_rotation(&b, t, r % N, awaiting);
        want.extend(polls);
        t = next;
    }
    b.run_to(t);
    assert_eq!(b.bursts, want);
    assert!(b.events.is_empty(), "nothing planted, nothing found");
}

#[test]
fn the_rotation_n3_polls_row_certify_commit_x_and_seals_at_their_addresses() {
    // Spelled out once: n = 3, k = 5 (slots 4 and 5), H = 8.
    let mut b = Bench::<3>::new(5, 0);
    b.run_to(58);
    let mb = Mailbox::v3(3, G, SB);
    let at = |w: usize| NET + 4 * w as u64;
    let want = [
        (1, at(mb.vote_row(Region::WillCommit, 4)) & !63, 0),
        (13, at(mb.record(Region::Certify, 5, 0)), 4), // 3 records, stride 2
        (29, at(mb.record(Region::Commit, 5, 0)), 0),  // slot k + 1's
        (41, at(mb.record(Region::Seal, 0, 0)), 4),
        (57, at(mb.vote_row(Region::WillCommit, 4)) & !63, 0),
    ];
    let got: Vec<_> = b.bursts.iter().map(|p| (p.cycle, p.addr, p.len)).collect();
    assert_eq!(got, want);
    rotation::<3>(false);
}

#[test]
fn the_rotation_n5_and_n3_with_awaiting_adds_the_mine_poll() {
    rotation::<5>(false);
    rotation::<5>(true);
    rotation::<3>(true);
}

#[test]
fn a_certify_row_is_one_burst_inside_a_page_at_every_slot() {
    // The v3 layout pads a row to N rounded up to a power of two records
    // and aligns the region to it (`Shape::row_records`): no certify row
    // crosses a 4 KiB page, so each is one burst (the split at a page
    // boundary is left for records longer than a page, DSig's).
    fn check<const N: usize>() {
        for k in 1..=G as u32 {
            let b = Bench::<N>::new(k, 0);
            let s = (k as usize) % G;
            let bursts = b.row_bursts(Region::Certify, s);
            assert_eq!(
                bursts,
                vec![(bursts[0].0, 2 * (N as u64 - 1))],
                "N = {N}, slot {s}"
            );
            assert!(
                bursts[0].0 % AXI_BOUNDARY_BYTES + 2 * N as u64 * 64 <= AXI_BOUNDARY_BYTES,
                "N = {N}, slot {s}"
            );
        }
        let mut b = Bench::<N>::new(2, 0);
        let (want, end) = expected_rotation(&b, 1, 0, false);
        b.run_to(end + 1);
        assert_eq!(b.bursts[..want.len()], want[..]);
    }
    check::<3>();
    check::<5>();
    check::<8>();
}

fn full_row<const N: usize>() {
    let (k, w, m) = (5, 3, 0xabc);
    let mut b = Bench::<N>::new(k, 7);
    b.row(&vec![(vote_tag(w, k), m); N]);
    b.run_to(200);
    // Row poll at 1, done at 1 + H + 2, evaluated the cycle after: the
    // event is on ev_valid at 1 + H + 4, taken 5 cycles later.
    let e0 = 1 + H + 4;
    assert_eq!(
        b.events,
        vec![Event {
            cycle: e0,
            kind: ev::FULL_ROW,
            view: w,
            m,
            prev: 0,
            x: 0,
            bits: 0
        }]
    );
    // Nothing polled while it was held; the certify poll the cycle after
    // ev_take.
    assert_eq!(b.bursts[0].cycle, 1);
    assert_eq!(b.bursts[1].cycle, e0 + 5 + 1);
    assert_eq!(b.bursts[1].addr, b.row_bursts(Region::Certify, b.s1())[0].0);
    assert!(b.bursts.len() > 5, "the rotation went on");
    // The rotations after: the same row, no second report. A changed m is
    // a change.
    b.row(&vec![(vote_tag(w, k), m + 1); N]);
    let t = b.cycle;
    b.run_to(t + 200);
    assert_eq!(b.events.len(), 2);
    assert_eq!((b.events[1].kind, b.events[1].m), (ev::FULL_ROW, m + 1));
    // clear two cycles into a burst: its beats are drained and ignored,
    // the rotation restarts the cycle after its done, and the row is
    // reported again.
    let before = b.bursts.len();
    while b.bursts.len() == before {
        b.step();
    }
    let p = b.bursts[before];
    let c = p.cycle + 2;
    b.clear_at = Some(c);
    b.run_to(c + 100);
    let first_after = b.bursts[before + 1];
    let restart = p.cycle + H + 1 + (p.len + 1) + 1;
    assert_eq!(
        (first_after.cycle, first_after.addr),
        (restart, b.row_addr())
    );
    assert_eq!(b.events.len(), 3);
    assert_eq!(b.events[2].cycle, restart + H + 4);
    assert_eq!(b.events[2].m, m + 1);
}

#[test]
fn a_full_will_commit_row_is_held_until_taken_reported_once_and_again_after_clear() {
    full_row::<3>();
    full_row::<5>();
}

#[test]
fn a_row_that_is_not_full_or_not_for_k_is_no_event() {
    let (k, w, m) = (5, 3, 0xabc);
    let mut b = Bench::<5>::new(k, 7);
    // One lane's m differs.
    let mut lanes = vec![(vote_tag(w, k), m); 5];
    lanes[4].1 = m + 1;
    b.row(&lanes);
    b.run_to(100);
    // Full, but for another k (the slot's previous use); then zeros.
    b.row(&vec![(vote_tag(w, k + G as u32), m); 5]);
    b.run_to(200);
    b.row(&vec![(0, 0); 5]);
    b.run_to(300);
    assert!(b.events.is_empty(), "{:?}", b.events);
    // Lanes beyond n do not count: n = 3 of a build of 5.
    let mut b = Bench::<5>::new(k, 7);
    b.n = 3;
    b.row(&[(vote_tag(w, k), m); 3]);
    b.run_to(100);
    assert_eq!(b.events.len(), 1);
}

fn cert(v: u32, k: u32, m: u32, prev: u32) -> [u32; 8] {
    records::block(records::KIND_CERT, v, k, m, prev)
}

/// f + 1 matching CERT blocks among garbage; then one fewer.
fn above<const N: usize>() {
    let k = 5;
    let f1 = faults(N) + 1;
    let mut b = Bench::<N>::new(k, 0);
    // Writers N - 1, N - 3, ...: f + 1 of them hold (2, k + 1, 77, 55).
    let good: Vec<usize> = (0..f1).map(|i| N - 1 - 2 * i).collect();
    for x in 0..N {
        let block = if good.contains(&x) {
            cert(2, k + 1, 77, 55)
        } else if x % 3 == 0 {
            cert(2, k, 77, 55) // wrong k
        } else {
            cert(1, k + 1, 78, 55) // another value
        };
        b.cert(x, block);
    }
    b.run_to(400);
    let bits: u64 = good.iter().map(|x| 1 << x).sum();
    // Row (1 beat), the certify row twice, then the event.
    let rows = b.row_bursts(Region::Certify, b.s1());
    let beats: u64 = rows.iter().map(|r| r.1 + 1).sum();
    let pass_end = |start: u64| start + beats + (H + 3) * rows.len() as u64;
    let p1 = 1 + H + 4;
    let p2 = pass_end(p1);
    let want_ev = pass_end(p2);
    let starts: Vec<_> = b.bursts.iter().map(|p| (p.cycle, p.addr, p.len)).collect();
    assert_eq!(starts[1], (p1, rows[0].0, rows[0].1));
    assert_eq!(starts[1 + rows.len()], (p2, rows[0].0, rows[0].1), "pass 2");
    assert_eq!(
        b.events,
        vec![Event {
            cycle: want_ev,
            kind: ev::ABOVE,
            view: 2,
            m: 77,
            prev: 55,
            x: 0,
            bits
        }]
    );
    // One writer fewer: no event (and the first finding is not repeated).
    let mut b = Bench::<N>::new(k, 0);
    for (i, &x) in good.iter().enumerate() {
        let block = if i == 0 {
            [4, 2, k + 1, 77, 55, 0, 0, 0] // wrong kind
        } else {
            cert(2, k + 1, 77, 55)
        };
        b.cert(x, block);
    }
    b.run_to(400);
    assert!(b.events.is_empty(), "{:?}", b.events);
}

#[test]
fn f_plus_one_cert_blocks_of_k_plus_one_are_above_and_f_are_not() {
    above::<3>();
    above::<5>();
}

#[test]
fn a_cert_block_with_nonzero_tail_words_is_not_counted() {
    let k = 5;
    let mut b = Bench::<3>::new(k, 0);
    b.cert(0, cert(2, k + 1, 77, 55));
    let mut bad = cert(2, k + 1, 77, 55);
    bad[7] = 1;
    b.cert(1, bad);
    b.run_to(300);
    assert!(b.events.is_empty());
    b.cert(2, cert(2, k + 1, 77, 55));
    b.run_to(600);
    assert_eq!(b.events.len(), 1);
    assert_eq!(b.events[0].bits, 0b101);
}

fn commit<const N: usize>() {
    let k = 5;
    let mut b = Bench::<N>::new(k, 0);
    // x = 1's COMMIT of k + 1; x = 0's names writer 2; x = 2's is for k
    // (not the slot above).
    b.commit(1, records::commit_block(1, 4, k + 1, 99, 98), 0b110);
    b.commit(0, records::commit_block(2, 4, k + 1, 99, 98), 0b110);
    b.commit(2, records::commit_block(2, 4, k, 99, 98), 0b110);
    b.take_after = Some(0);
    // Rotation 0 polls x = 0, rotation 1 x = 1.
    let (_, r1) = expected_rotation(&b, 1, 0, false);
    let (polls, _) = expected_rotation(&b, r1, 1, false);
    let c = polls.iter().find(|p| p.addr == b.commit_addr(1)).unwrap();
    b.run_to(r1 + 400 * N as u64);
    assert_eq!(
        b.events[0],
        Event {
            cycle: c.cycle + H + 4,
            kind: ev::COMMIT,
            view: 4,
            m: 99,
            prev: 98,
            x: 1,
            bits: 0b110
        }
    );
    assert_eq!(b.events.len(), 1, "x = 1 polled again: not repeated");
    let polled_x1 = b
        .bursts
        .iter()
        .filter(|p| p.addr == b.commit_addr(1))
        .count();
    assert!(polled_x1 >= 2);
    // x's next commit (a higher view) is a change.
    b.commit(1, records::commit_block(1, 6, k + 1, 99, 98), 0b011);
    let t = b.cycle;
    b.run_to(t + 400 * N as u64);
    assert_eq!(b.events.len(), 2);
    assert_eq!((b.events[1].x, b.events[1].view), (1, 6));
}

#[test]
fn a_commit_of_x_is_reported_when_the_rotation_reaches_x_and_garbage_is_not() {
    commit::<3>();
    commit::<5>();
}

fn seals<const N: usize>() {
    let f1 = faults(N) + 1;
    let view = 4;
    let mut b = Bench::<N>::new(5, view);
    // f good seals (views 4 and 5), and garbage: a stale view, a SEAL of
    // another writer, a malformed one.
    for j in 0..f1 - 1 {
        b.seal(
            j,
            records::seal_block(j as u32, view + (j as u32 % 2), None),
        );
    }
    b.seal(f1 - 1, records::seal_block(f1 as u32 - 1, view - 1, None));
    if f1 < N {
        b.seal(f1, records::seal_block(0, view, None));
    }
    let mut bad = records::seal_block(N as u32 - 1, view, None);
    bad[7] = 2;
    b.seal(N - 1, bad);
    let period = expected_rotation(&b, 1, 0, false).1 - 1;
    let t = 1 + 6 * period;
    b.run_to(t);
    assert!(b.events.is_empty(), "f seals: {:?}", b.events);
    // The f + 1-th, planted as rotation 6 starts.
    b.seal(
        f1 - 1,
        records::seal_block(f1 as u32 - 1, view, Some([3, 4, 5, 6])),
    );
    let (polls, _) = expected_rotation(&b, t, 6 % N, false);
    b.run_to(t + period + 10);
    let seal_polls = b.row_bursts(Region::Seal, 0).len();
    let last = polls[polls.len() - 1];
    assert_eq!(
        b.events,
        vec![Event {
            cycle: last.cycle + H + last.len + 1 + 3,
            kind: ev::SEALS,
            view: 0,
            m: 0,
            prev: 0,
            x: 0,
            bits: (1 << f1) - 1
        }]
    );
    assert!(seal_polls >= 1);
    let t = b.cycle;
    b.run_to(t + 200);
    assert_eq!(b.events.len(), 1, "the same seals: not repeated");
}

#[test]
fn f_plus_one_seals_of_views_at_least_view_trigger_and_f_or_garbage_do_not() {
    seals::<3>();
    seals::<5>();
}

/// R25 while awaiting: a COMMIT of k itself (commit[s(k)][x]) is polled
/// and reported (MINE) only while `awaiting`, once per x until `clear`;
/// one of another slot, or naming another writer, is nothing. NEW_VIEW is
/// never polled (VIEW reads new_view itself).
#[test]
fn a_commit_of_this_slot_is_reported_only_while_awaiting_once_per_x() {
    let k = 5;
    let mut b = Bench::<3>::new(k, 4);
    b.mine(1, records::commit_block(1, 4, k, 77, 76), 0b011);
    b.new_view(5);
    b.run_to(600);
    assert!(b.events.is_empty(), "{:?}", b.events);
    assert!(
        b.bursts.iter().all(|p| p.addr != b.mine_addr(1)),
        "not polled"
    );
    assert!(
        b.bursts.iter().all(|p| p.addr != b.nv_addr()),
        "never polled"
    );
    let mut b = Bench::<3>::new(k, 4);
    b.awaiting = true;
    // x = 0's names writer 2, x = 2's is of k + 1: neither is MINE.
    b.mine(0, records::commit_block(2, 4, k, 77, 76), 0b011);
    b.mine(2, records::commit_block(2, 4, k + 1, 77, 76), 0b011);
    b.mine(1, records::commit_block(1, 4, k, 77, 76), 0b011);
    b.new_view(5);
    b.take_after = Some(0);
    // Rotation 0's Mine poll reads x = 1 (the Commit poll read x = 0).
    let (polls, _) = expected_rotation(&b, 1, 0, true);
    let p = polls.last().unwrap();
    assert_eq!((p.addr, p.len), (b.mine_addr(1), 0));
    b.run_to(400 * 3 * 4);
    assert_eq!(
        b.events,
        vec![Event {
            cycle: p.cycle + H + 4,
            kind: ev::MINE,
            view: 4,
            m: 77,
            prev: 76,
            x: 1,
            bits: 0b011
        }],
        "x = 1 once, nothing else"
    );
    assert!(
        b.bursts.iter().all(|p| p.addr != b.nv_addr()),
        "never polled"
    );
    let polled_x1 = b.bursts.iter().filter(|q| q.addr == b.mine_addr(1)).count();
    assert!(polled_x1 >= 2, "x = 1 polled again, not reported again");
}

#[test]
fn a_commit_of_this_view_is_reported_again_after_one_of_an_older_view() {
    // x = 1's COMMIT of slot k in view 2 is reported, and once x replaces it
    // with its COMMIT of this replica's view 4, that one is reported too
    // (R10's second half may adopt it; the older one it may not); then
    // nothing more until a clear.
    let k = 5;
    let mut b = Bench::<3>::new(k, 4);
    b.awaiting = true;
    b.take_after = Some(0);
    b.mine(1, records::commit_block(1, 2, k, 77, 76), 0b011);
    b.run_to(400 * 3 * 4);
    let views: Vec<u32> = b.events.iter().map(|e| e.view).collect();
    assert_eq!(views, vec![2], "{:?}", b.events);
    b.mine(1, records::commit_block(1, 4, k, 78, 76), 0b101);
    b.run_to(2 * 400 * 3 * 4);
    let got: Vec<(u32, u32, u32, u64)> = b
        .events
        .iter()
        .map(|e| (e.view, e.m, e.x, e.bits))
        .collect();
    assert_eq!(got, vec![(2, 77, 1, 0b011), (4, 78, 1, 0b101)]);
    // A COMMIT of a later view after these is not reported before a clear.
    b.mine(1, records::commit_block(1, 6, k, 79, 76), 0b011);
    b.run_to(3 * 400 * 3 * 4);
    assert_eq!(b.events.len(), 2, "{:?}", b.events);
    let polled_x1 = b.bursts.iter().filter(|q| q.addr == b.mine_addr(1)).count();
    assert!(polled_x1 >= 3, "x = 1 polled on");
}

#[test]
fn a_poll_with_fetch_error_finds_nothing() {
    let (k, w, m) = (5, 3, 0xabc);
    let mut b = Bench::<3>::new(k, 0);
    b.row(&[(vote_tag(w, k), m); 3]);
    let a = b.row_addr();
    b.bad.insert(a);
    let (_, end) = expected_rotation(&b, 1, 0, false);
    b.run_to(end + 1);
    assert!(b.events.is_empty());
    b.bad.clear();
    b.run_to(end + H + 5);
    assert_eq!(b.events.len(), 1);
    assert_eq!(b.events[0].cycle, end + H + 4);
}

#[test]
fn reset_drops_the_held_event_and_the_memories() {
    let (k, w, m) = (5, 3, 0xabc);
    let mut b = Bench::<3>::new(k, 0);
    b.row(&[(vote_tag(w, k), m); 3]);
    b.take_after = None;
    b.run_to(40);
    assert_eq!(b.events.len(), 1);
    assert!(b.w.ev_valid.val(), "held, not taken");
    assert_eq!(b.bursts.len(), 1, "the rotation paused");
    b.reset_at = Some(40);
    b.run_to(41);
    b.take_after = Some(0);
    b.run_to(42);
    assert!(!b.was_valid, "reset drops the event");
    // The row poll again at 41 (the rotation restarted), reported again.
    b.run_to(100);
    assert_eq!(b.bursts[1].cycle, 41);
    assert_eq!(b.bursts[1].addr, b.row_addr());
    assert_eq!(b.events.len(), 2);
    assert_eq!(b.events[1].cycle, 41 + H + 4);
}

#[test]
fn the_verilog_names_its_top_rhdl_ubft_watch() {
    let v = rhdl_ubft::controller::watch::verilog::<8>();
    assert!(v.contains("module rhdl_ubft_watch("));
    assert!(!v.contains("module top("));
}

#[test]
fn the_certify_vote_finds_the_f_plus_one_value_when_another_comes_first() {
    // n = 5: writers 0 and 4 hold another value, 1, 2 and 3 the f + 1.
    let k = 5;
    let mut b = Bench::<5>::new(k, 0);
    for x in 0..5 {
        let block = if (1..=3).contains(&x) {
            cert(2, k + 1, 77, 55)
        } else {
            cert(3, k + 1, 70 + x as u32, 55)
        };
        b.cert(x, block);
    }
    b.run_to(300);
    assert_eq!(b.events.len(), 1);
    let e = b.events[0];
    assert_eq!(
        (e.kind, e.view, e.m, e.prev, e.bits),
        (ev::ABOVE, 2, 77, 55, 0b01110)
    );
}
