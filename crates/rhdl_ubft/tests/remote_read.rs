//! RemoteRead, cycle by cycle, against docs/remote_read.md: K kept at a
//! SEAL and armed while k stays; the READ of the next peer's will_cert row
//! (round robin, this replica skipped) with the layout's addresses and the
//! peer's queue pair; one READ in flight until the guard took its
//! response; the scan of remote_rows against the reference `n_locks`;
//! `cancel`.

use rhdl_ubft::controller::remote_read::{n_locks, RemoteRead};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{vote_tag, BEAT_BITS, G, SB};
use rust_hdl::prelude::*;

const N: usize = 8;
const PTR: u64 = 0x1_0000_0000;

struct Bench {
    b: RemoteRead<N>,
    mb: Mailbox,
}

/// K: (w, k, m, prev), and leader(w).
const W: u32 = 3;
const K: u32 = 21;
const M: u32 = 0xabc;
const PREV: u32 = 0x99;

impl Bench {
    /// n replicas, this one `id`; qpn of peer i is 100 + i.
    fn new(n: usize, id: usize) -> Self {
        let mut b = RemoteRead::<N>::default();
        b.connect_all();
        b.rst_n.next = true;
        b.n.next = (n as u64).into();
        b.id.next = (id as u64).into();
        b.network_ptr.next = PTR.into();
        let mut qpns = Bits::default();
        for i in 0..N {
            qpns.set_bits::<10>(10 * i, (100 + i as u64).into());
        }
        b.qpns.next = qpns;
        b.active.next = ((1u64 << n) - 1).into();
        b.k.next = (K as u64).into();
        let mut t = Bench {
            b,
            mb: Mailbox::v3(N, G, SB),
        };
        t.step(|_| {});
        t
    }

    /// One cycle: every strobe low but what `f` sets.
    fn step(&mut self, f: impl FnOnce(&mut RemoteRead<N>)) {
        let b = &mut self.b;
        for s in [
            &mut b.keep,
            &mut b.cancel,
            &mut b.issue,
            &mut b.rd_ready,
            &mut b.rd_taken,
            &mut b.scan_start,
            &mut b.beat_valid,
        ] {
            s.next = false;
        }
        f(b);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
    }

    fn keep(&mut self, leader: u32) {
        self.step(|b| {
            b.keep.next = true;
            b.keep_view.next = (W as u64).into();
            b.keep_m.next = (M as u64).into();
            b.keep_prev.next = (PREV as u64).into();
            b.keep_leader.next = (leader as u64).into();
        });
    }

    /// `issue`, then the READs it presents, each taken at once: (qpn,
    /// laddr, raddr) per READ.
    fn issue(&mut self) -> Vec<(u64, u64, u64)> {
        self.step(|b| b.issue.next = true);
        let mut got = vec![];
        for _ in 0..4 {
            if self.b.rd_valid.val() {
                got.push((
                    self.b.rd_qpn.val().index() as u64,
                    self.b.rd_laddr.val().to_u64(),
                    self.b.rd_raddr.val().to_u64(),
                ));
                self.step(|b| b.rd_ready.next = true);
            } else {
                self.step(|_| {});
            }
        }
        got
    }

    /// The scan of a remote_rows image (N beats), beat by beat; `found`
    /// with the last beat, as VIEW reads it with the fetch's `done`.
    fn scan(&mut self, beats: &[[u32; 16]]) -> bool {
        self.step(|b| b.scan_start.next = true);
        let mut found = false;
        for beat in beats {
            let mut v = Bits::<BEAT_BITS>::default();
            for (i, w) in beat.iter().enumerate() {
                v.set_bits::<32>(32 * i, (*w as u64).into());
            }
            self.b.beat.next = v;
            self.b.beat_valid.next = true;
            assert!(simulate(&mut self.b, 100));
            found = self.b.found.val();
            self.step(|b| {
                b.beat_valid.next = true;
            });
        }
        found
    }

    fn word(&self, w: usize) -> u64 {
        PTR + 4 * w as u64
    }
}

/// A will_cert row beat holding the n − 1 locks for K that with the
/// leader's lane (K itself) are n, the leader `ld`'s lane empty.
fn locked_row(n: usize, ld: usize) -> [u32; 16] {
    let mut row = [0; 16];
    for j in 0..n {
        if j != ld {
            row[2 * j] = vote_tag(W, K);
            row[2 * j + 1] = M;
        }
    }
    row
}

#[test]
fn k_is_kept_at_a_seal_and_armed_while_k_stays() {
    let mut t = Bench::new(5, 3);
    assert!(!t.b.armed.val());
    t.keep(0);
    assert!(t.b.armed.val());
    assert_eq!(
        (
            t.b.kv.val().to_u32(),
            t.b.kk.val().to_u32(),
            t.b.km.val().to_u32(),
            t.b.kprev.val().to_u32()
        ),
        (W, K, M, PREV)
    );
    // k moves: K is dropped for good (back at k, still dropped).
    t.b.k.next = ((K + 1) as u64).into();
    t.step(|_| {});
    assert!(!t.b.armed.val());
    t.b.k.next = (K as u64).into();
    t.step(|_| {});
    assert!(!t.b.armed.val());
    // `cancel` drops it too.
    t.keep(0);
    assert!(t.b.armed.val());
    t.step(|b| b.cancel.next = true);
    assert!(!t.b.armed.val());
    // Nothing is read without K.
    assert!(t.issue().is_empty());
}

#[test]
fn each_issue_reads_the_next_peers_row_into_its_remote_rows_record() {
    let mut t = Bench::new(5, 2);
    t.keep(0);
    let s = ((K - 1) as usize) % G;
    let mut peers = vec![];
    for _ in 0..5 {
        let got = t.issue();
        assert_eq!(got.len(), 1, "one READ");
        let p = (got[0].0 - 100) as usize;
        peers.push(p);
        let rec = t.mb.record(Region::RemoteRows, 0, p);
        assert_eq!(
            got[0],
            (
                100 + p as u64,
                t.word(rec),
                t.word(t.mb.vote_row(Region::WillCert, s))
            )
        );
        // Its response taken by the guard: the next READ may go.
        t.step(|b| b.rd_taken.next = true);
    }
    // Round robin over the first n, this replica (2) skipped.
    assert_eq!(peers, vec![1, 3, 4, 0, 1]);
}

#[test]
fn one_read_is_in_flight_until_the_guard_takes_its_response() {
    let mut t = Bench::new(3, 0);
    t.keep(1);
    assert_eq!(t.issue().len(), 1);
    // No response yet: the next polls send nothing.
    assert!(t.issue().is_empty());
    assert!(t.issue().is_empty());
    t.step(|b| b.rd_taken.next = true);
    assert_eq!(t.issue().len(), 1);
}

#[test]
fn the_scan_finds_n_locks_in_one_peers_row_as_the_reference_does() {
    let n = 5;
    let ld = 0;
    let mut t = Bench::new(n, 4);
    t.keep(ld as u32);
    let empty = [[0u32; 16]; N];
    assert!(!t.scan(&empty));
    // Peer 2's row holds the n − 1 other locks: found.
    let row = locked_row(n, ld);
    assert!(n_locks(&row, n, ld, (W, K, M)));
    let mut img = empty;
    img[2] = row;
    assert!(t.scan(&img));
    // Each single fault in the row: not found, by the block and the
    // reference alike.
    let faults: Vec<Box<dyn Fn(&mut [u32; 16])>> = vec![
        Box::new(|r| r[2 * 3 + 1] = M + 1),          // lane 3 another m
        Box::new(|r| r[2 * 1] = vote_tag(W, K + 1)), // lane 1 another slot
        Box::new(|r| r[2 * 2] = vote_tag(W + 1, K)), // lane 2 another view
        Box::new(|r| r[2 * 4] = 0),                  // lane 4 empty
    ];
    for (i, f) in faults.iter().enumerate() {
        let mut r = locked_row(n, ld);
        f(&mut r);
        assert!(!n_locks(&r, n, ld, (W, K, M)), "fault {i}");
        let mut img = empty;
        img[2] = r;
        assert!(!t.scan(&img), "fault {i}");
    }
    // n − 1 locks spread over two peers' rows are not found: the row of
    // one peer must hold them all.
    let mut a = locked_row(n, ld);
    a[2 * 3] = 0;
    let mut b = locked_row(n, ld);
    b[2 * 1] = 0;
    let mut img = empty;
    img[1] = a;
    img[3] = b;
    assert!(!t.scan(&img));
    // The last peer's row (n = N: beat N − 1) is found with the last
    // beat, the one the fetch's `done` comes with.
    let mut t8 = Bench::new(N, 0);
    t8.keep(1);
    let mut img = empty;
    img[N - 1] = locked_row(N, 1);
    assert!(t8.scan(&img));
    // Lanes past n do not count, nor does the leader's lane: K proves it.
    let mut row = locked_row(n, ld);
    row[2 * 6] = 7;
    row[2 * ld] = 1;
    let mut img = empty;
    img[0] = row;
    assert!(t.scan(&img));
    // Another leader named in K: lane 0 then counts, and is empty there.
    let mut t1 = Bench::new(n, 4);
    t1.keep(1);
    let mut img = empty;
    img[2] = locked_row(n, 0);
    assert!(!t1.scan(&img));
}
