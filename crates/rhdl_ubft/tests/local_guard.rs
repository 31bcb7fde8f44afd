//! LocalGuard, cycle by cycle, against docs/local_guard.md: the kernel's
//! own lane of a will_cert row passes, another lane's strobes are dropped
//! and counted, other regions pass unchanged; a burst into the rows is
//! checked beat by beat at the addresses HBM writes; a burst across 4 KiB
//! writes nothing; W waits for its AW and a master's extra beats belong
//! to its next AW; downstream WVALID never waits for AWREADY.

use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::local_guard::{own_lane_strobes, LocalGuard};
use rhdl_ubft::params::{G, N, SB};
use rust_hdl::prelude::*;

const PTR: u64 = 0x1_0000_0000;
const ALL: u64 = u64::MAX;

/// One beat as it went downstream: (strobes, WLAST).
type Beat = (u64, bool);

struct Bench {
    g: LocalGuard,
    mb: Mailbox,
    /// Downstream AWs taken: (address, AWLEN, AWSIZE, AWBURST).
    aws: Vec<(u64, u64, u64, u64)>,
    beats: Vec<Beat>,
    refused: usize,
}

impl Bench {
    fn new(id: usize) -> Self {
        let mut g = LocalGuard::default();
        g.connect_all();
        g.rst_n.next = true;
        g.id.next = (id as u64).into();
        g.network_ptr.next = PTR.into();
        g.m_awready.next = true;
        g.m_wready.next = true;
        let mut t = Bench {
            g,
            mb: Mailbox::v3(N, G, SB),
            aws: vec![],
            beats: vec![],
            refused: 0,
        };
        t.step(|_| {});
        t
    }

    /// One cycle with the master's inputs `f` sets (AW and W valid low
    /// otherwise); records what went downstream.
    fn step(&mut self, f: impl FnOnce(&mut LocalGuard)) {
        let g = &mut self.g;
        g.s_awvalid.next = false;
        g.s_wvalid.next = false;
        f(g);
        assert!(simulate(g, 100));
        if g.m_awvalid.val() && g.m_awready.val() {
            self.aws.push((
                g.m_awaddr.val().to_u64(),
                g.m_awlen.val().index() as u64,
                g.m_awsize.val().index() as u64,
                g.m_awburst.val().index() as u64,
            ));
        }
        if g.m_wvalid.val() && g.m_wready.val() {
            assert!(g.s_wready.val(), "a beat downstream is a beat taken");
            self.beats.push((g.m_wstrb.val().to_u64(), g.m_wlast.val()));
        }
        if g.refused.val() {
            self.refused += 1;
        }
        g.clock.next = Clock::from(true);
        assert!(simulate(g, 100));
        g.clock.next = Clock::from(false);
        assert!(simulate(g, 100));
    }

    /// A burst as Broadcast makes one: AW and the first beat together,
    /// each held until taken, then a beat a cycle.
    fn write(&mut self, word: usize, strobes: &[u64]) {
        let addr = PTR + 4 * word as u64;
        let len = strobes.len() - 1;
        let mut aw = true;
        let mut i = 0;
        for _ in 0..4 * strobes.len() + 8 {
            if !aw && i == strobes.len() {
                break;
            }
            let s = strobes[i.min(len)];
            let w = i < strobes.len();
            let (took_aw, took_w) = {
                let g = &mut self.g;
                g.s_awvalid.next = aw;
                g.s_awaddr.next = addr.into();
                g.s_awlen.next = (len as u64).into();
                g.s_wvalid.next = w;
                g.s_wstrb.next = s.into();
                g.s_wdata.next = Bits::default();
                assert!(simulate(g, 100));
                (aw && g.s_awready.val(), w && g.s_wready.val())
            };
            self.step(|g| {
                g.s_awvalid.next = aw;
                g.s_wvalid.next = w;
            });
            if took_aw {
                aw = false;
            }
            if took_w {
                i += 1;
            }
        }
        assert!(!aw && i == strobes.len(), "the burst was taken");
        // Let the guard close it.
        self.step(|_| {});
    }

    fn drain(&mut self) -> (Vec<(u64, u64, u64, u64)>, Vec<Beat>, usize) {
        let out = (
            std::mem::take(&mut self.aws),
            std::mem::take(&mut self.beats),
            self.refused,
        );
        self.refused = 0;
        out
    }
}

#[test]
fn the_own_lane_passes_and_another_lanes_strobes_are_dropped_and_counted() {
    let id = 3;
    let mut t = Bench::new(id);
    let row = t.mb.vote_row(Region::WillCert, 5);
    let own = own_lane_strobes(id);
    assert_eq!(own.count_ones(), 8, "a lane is two words at N = 8");
    // The honest vote: this replica's lane, strobes as they came.
    t.write(row, &[own]);
    let (aws, beats, refused) = t.drain();
    assert_eq!(aws, vec![(PTR + 4 * row as u64, 0, 6, 1)]);
    assert_eq!((beats, refused), (vec![(own, true)], 0));
    assert_eq!(t.g.sts_refused.val().to_u32(), 0);
    // Another replica's lane, or the whole row: only this replica's
    // strobes reach HBM, and the beat is counted.
    t.write(row, &[own_lane_strobes(1)]);
    t.write(row, &[ALL]);
    let (_, beats, refused) = t.drain();
    assert_eq!(beats, vec![(0, true), (own, true)]);
    assert_eq!(refused, 2);
    assert_eq!(t.g.sts_refused.val().to_u32(), 2);
    // Other regions pass whole: a certify record, the prepare (the
    // leader's), a seal.
    for at in [
        t.mb.record(Region::Certify, 2, id),
        t.mb.prepare(4),
        t.mb.record(Region::Seal, 0, 1),
    ] {
        t.write(at, &[ALL]);
    }
    let (_, beats, refused) = t.drain();
    assert_eq!(beats, vec![(ALL, true); 3]);
    assert_eq!(refused, 0);
    // will_commit rows are not read by a peer: not this rule's.
    t.write(t.mb.vote_row(Region::WillCommit, 0), &[ALL]);
    assert_eq!(t.drain().1, vec![(ALL, true)]);
}

#[test]
fn a_burst_is_checked_beat_by_beat_at_the_addresses_hbm_writes() {
    let id = 0;
    let mut t = Bench::new(id);
    let own = own_lane_strobes(id);
    let span = t.mb.span(Region::WillCert);
    // Four beats from two beats below the rows into their first two, an
    // unaligned start rounded down to the beat downstream.
    let start = span.start - 32;
    t.write(start + 3, &[ALL; 4]);
    let (aws, beats, refused) = t.drain();
    assert_eq!(aws, vec![(PTR + 4 * start as u64, 3, 6, 1)]);
    assert_eq!(
        beats,
        vec![(ALL, false), (ALL, false), (own, false), (own, true)]
    );
    assert_eq!(refused, 2);
    // The rows' last beat and the region after them.
    let last = span.start + span.words - 16;
    t.write(last, &[ALL, ALL]);
    assert_eq!(t.drain().1, vec![(own, false), (ALL, true)]);
}

#[test]
fn a_burst_across_4_kib_writes_nothing() {
    let mut t = Bench::new(2);
    // Two beats from the last beat of a page: every strobe low, each beat
    // counted.
    let page_end = 1024; // words
    t.write(page_end - 16, &[ALL, ALL]);
    let (aws, beats, refused) = t.drain();
    assert_eq!(aws.len(), 1);
    assert_eq!(beats, vec![(0, false), (0, true)]);
    assert_eq!(refused, 2);
    // The same two beats inside a page pass.
    t.write(page_end - 32, &[ALL, ALL]);
    assert_eq!(t.drain().1, vec![(ALL, false), (ALL, true)]);
    // One beat at an address inside the page's last beat does not cross:
    // its beat is the page's last.
    t.write(page_end - 8, &[ALL]);
    let (aws, beats, refused) = t.drain();
    assert_eq!(aws[0].0, PTR + 4 * (page_end as u64 - 16));
    assert_eq!((beats, refused), (vec![(ALL, true)], 0));
}

#[test]
fn w_waits_for_its_aw_and_extra_beats_belong_to_the_next_aw() {
    let id = 1;
    let mut t = Bench::new(id);
    let row = t.mb.vote_row(Region::WillCert, 2);
    let own = own_lane_strobes(id);
    // W alone: nothing goes downstream, nothing is taken.
    for _ in 0..3 {
        t.step(|g| {
            g.s_wvalid.next = true;
            g.s_wstrb.next = ALL.into();
        });
        assert!(!t.g.s_wready.val());
    }
    assert!(t.drain().1.is_empty());
    // AW of one beat into the rows, then the master changes AWADDR and
    // keeps W up for three beats: the burst is the AW taken (one beat,
    // masked); the other two beats wait for the next AW.
    t.step(|g| {
        g.s_awvalid.next = true;
        g.s_awaddr.next = (PTR + 4 * row as u64).into();
        g.s_awlen.next = 0.into();
    });
    for _ in 0..6 {
        t.step(|g| {
            g.s_awaddr.next = PTR.into();
            g.s_wvalid.next = true;
            g.s_wstrb.next = ALL.into();
        });
    }
    let (aws, beats, refused) = t.drain();
    assert_eq!(aws, vec![(PTR + 4 * row as u64, 0, 6, 1)]);
    assert_eq!((beats, refused), (vec![(own, true)], 1));
    assert!(!t.g.s_wready.val(), "no burst open: the extra beat waits");
}

#[test]
fn downstream_wvalid_does_not_wait_for_awready() {
    let mut t = Bench::new(0);
    t.g.m_awready.next = false;
    let at = t.mb.record(Region::Certify, 0, 0);
    t.step(|g| {
        g.s_awvalid.next = true;
        g.s_awaddr.next = (PTR + 4 * at as u64).into();
        g.s_awlen.next = 0.into();
        g.s_wvalid.next = true;
        g.s_wstrb.next = ALL.into();
    });
    // The AW is held downstream while the beat goes.
    t.step(|g| g.s_wvalid.next = true);
    assert!(t.g.m_awvalid.val());
    assert_eq!(t.beats, vec![(ALL, true)]);
    assert!(t.aws.is_empty());
    t.g.m_awready.next = true;
    t.step(|_| {});
    assert_eq!(t.aws.len(), 1);
    // B passes through.
    t.g.m_bvalid.next = true;
    t.g.m_bresp.next = 2.into();
    t.g.s_bready.next = true;
    assert!(simulate(&mut t.g, 100));
    assert!(t.g.s_bvalid.val() && t.g.m_bready.val());
    assert_eq!(t.g.s_bresp.val().index(), 2);
}
