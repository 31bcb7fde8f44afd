//! Chain, cycle by cycle, against docs/chain.md and the `sha2` crate:
//! h_c = SHA-256(h_{c−1} ‖ c ‖ dec[c]) for every decision handed out, in
//! order; `chain::next` (the simulator's software copy) agrees with
//! `sha2`; the stream passes through unchanged in the cycle it is
//! offered while the queue has room, waits while it is full (TVALID
//! steady, nothing lost), and a decision's h_k shows `CHAIN_CYCLES`
//! after its load; `start` and reset take the chain back to h_0 = 0.

use rhdl_ubft::controller::chain::{self, Chain};
use rhdl_ubft::params::{CHAIN_CYCLES, CHAIN_QUEUE};
use rust_hdl::prelude::*;
use sha2::{Digest, Sha256};

/// h_c from the `sha2` crate: the 44 bytes h_{c−1} ‖ c ‖ m, big-endian.
fn reference(h: &[u32; 8], c: u64, m: u32) -> [u32; 8] {
    let mut bytes = Vec::with_capacity(44);
    for w in h {
        bytes.extend_from_slice(&w.to_be_bytes());
    }
    bytes.extend_from_slice(&c.to_be_bytes());
    bytes.extend_from_slice(&m.to_be_bytes());
    let d = Sha256::digest(&bytes);
    std::array::from_fn(|i| u32::from_be_bytes(d[4 * i..4 * i + 4].try_into().unwrap()))
}

/// A deterministic stream of values (xorshift).
fn values(seed: u64, count: usize) -> Vec<u32> {
    let mut x = seed | 1;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        })
        .collect()
}

#[test]
fn the_software_chain_is_sha256_of_the_44_bytes() {
    let mut h = [0u32; 8];
    for (i, m) in values(7, 40).into_iter().enumerate() {
        let c = if i % 3 == 0 {
            (1u64 << 40) + i as u64
        } else {
            i as u64 + 1
        };
        let want = reference(&h, c, m);
        assert_eq!(chain::next(&h, c, m), want, "c = {c}");
        h = want;
    }
    // c is 8 bytes, high word first: c = 1 and c = 2^32 are different
    // messages (a 32-bit c, or the words swapped, would hash them alike
    // or both wrongly against `sha2`).
    let h1 = chain::next(&[0; 8], 1, 0);
    assert_eq!(h1, reference(&[0; 8], 1, 0));
    assert_ne!(h1, chain::next(&[0; 8], 1 << 32, 0));
}

struct Bench {
    b: Chain,
    cycle: u64,
}

/// What one cycle showed before its edge.
#[derive(Clone, Copy, Debug)]
struct Seen {
    s_tready: bool,
    m_tvalid: bool,
    m_tdata: u64,
    m_tuser: bool,
    k: u32,
    h: [u32; 8],
}

impl Bench {
    fn new() -> Self {
        let mut b = Chain::default();
        b.connect_all();
        let mut t = Bench { b, cycle: 0 };
        t.step(None, true, false, false);
        t.step(None, true, true, true);
        t
    }

    /// One edge: Protocol offers `offer` = (k, m, slow), the host's
    /// `tready`, `start`, and reset (`rst`).
    fn step(
        &mut self,
        offer: Option<(u32, u32, bool)>,
        tready: bool,
        start: bool,
        rst: bool,
    ) -> Seen {
        let b = &mut self.b;
        b.rst_n.next = !rst;
        b.start.next = start;
        let (k, m, slow) = offer.unwrap_or((0, 0, false));
        b.s_tvalid.next = offer.is_some();
        b.s_tdata.next = ((k as u64) | ((m as u64) << 32)).into();
        b.s_tuser.next = slow;
        b.m_tready.next = tready;
        assert!(simulate(b, 100));
        let seen = Seen {
            s_tready: b.s_tready.val(),
            m_tvalid: b.m_tvalid.val(),
            m_tdata: b.m_tdata.val().to_u64(),
            m_tuser: b.m_tuser.val(),
            k: b.k.val().index() as u32,
            h: std::array::from_fn(|i| b.h.val().get_bits::<32>(32 * i).to_u64() as u32),
        };
        b.clock.next = Clock::from(true);
        assert!(simulate(b, 100));
        b.clock.next = Clock::from(false);
        assert!(simulate(b, 100));
        self.cycle += 1;
        seen
    }
}

/// Protocol's side: offers decisions k = first.., m from `ms`, holding
/// each until it is taken (AXI), `gap` idle cycles between; the host is
/// ready when `ready(cycle)`. Checks the stream and returns, per
/// decision, the cycle it was taken and the cycle its h_k showed.
fn drive(
    t: &mut Bench,
    first: u32,
    ms: &[u32],
    gap: u64,
    ready: &dyn Fn(u64) -> bool,
) -> (Vec<u64>, Vec<u64>) {
    let mut h = [0u32; 8];
    let mut want = vec![];
    let mut taken = vec![];
    let mut shown = vec![];
    let mut i = 0;
    let mut idle = 0;
    let mut was_valid = false;
    let mut last_k = t.step(None, true, false, false).k;
    for _ in 0..(ms.len() as u64 * (CHAIN_CYCLES + gap + 40) + 400) {
        let offer = (i < ms.len() && idle == 0).then(|| (first + i as u32, ms[i], i % 2 == 1));
        let r = ready(t.cycle);
        let s = t.step(offer, r, false, false);
        // The tap: data and the path pass through; TVALID only with room,
        // and once high it stays until taken.
        if let Some((k, m, slow)) = offer {
            assert_eq!(s.m_tdata, (k as u64) | ((m as u64) << 32));
            assert_eq!(s.m_tuser, slow);
            assert_eq!(s.s_tready, r && s.m_tvalid, "cycle {}", t.cycle);
            if was_valid {
                assert!(
                    s.m_tvalid,
                    "TVALID fell before its handshake at cycle {}",
                    t.cycle
                );
            }
            was_valid = s.m_tvalid && !r;
            if s.m_tvalid && r {
                taken.push(t.cycle);
                h = reference(&h, k as u64, m);
                want.push((k, h));
                i += 1;
                idle = gap;
            }
        } else {
            assert!(!s.m_tvalid);
            idle = idle.saturating_sub(1);
        }
        if s.k != last_k {
            let j = shown.len();
            assert!(j < want.len(), "h_k {} shown before its decision", s.k);
            assert_eq!((s.k, s.h), want[j], "decision {j}");
            shown.push(t.cycle);
            last_k = s.k;
        }
        if i == ms.len() && shown.len() == ms.len() {
            break;
        }
    }
    assert_eq!(taken.len(), ms.len(), "not every decision was taken");
    assert_eq!(shown.len(), ms.len(), "not every decision was hashed");
    (taken, shown)
}

#[test]
fn spaced_decisions_each_show_their_chain_chain_cycles_after_they_are_taken() {
    let mut t = Bench::new();
    let ms = values(11, 12);
    let (taken, shown) = drive(&mut t, 1, &ms, 200, &|_| true);
    for (a, b) in taken.iter().zip(&shown) {
        // Taken at a: queued at a's edge, loaded at the next, and h_k is
        // in the registers CHAIN_CYCLES after the load.
        assert_eq!(b - a, CHAIN_CYCLES + 1, "taken at {a}, shown at {b}");
    }
}

#[test]
fn a_burst_fills_the_queue_and_the_stream_waits_losing_nothing() {
    let mut t = Bench::new();
    let ms = values(23, 3 * CHAIN_QUEUE + 2);
    let (taken, shown) = drive(&mut t, 1, &ms, 0, &|_| true);
    // Back to back: the first CHAIN_QUEUE + 1 go out in consecutive
    // cycles (one loads at once), then one per hash.
    for w in taken.windows(2).take(CHAIN_QUEUE) {
        assert_eq!(w[1] - w[0], 1, "{taken:?}");
    }
    let slow: Vec<u64> = taken
        .windows(2)
        .skip(CHAIN_QUEUE + 1)
        .map(|w| w[1] - w[0])
        .collect();
    assert!(slow.iter().all(|&d| d == CHAIN_CYCLES), "{slow:?}");
    // Hashed one after another, with no idle cycle between.
    for w in shown.windows(2) {
        assert_eq!(w[1] - w[0], CHAIN_CYCLES, "{shown:?}");
    }
}

#[test]
fn a_host_that_is_not_ready_holds_the_decision_and_the_chain_follows() {
    let mut t = Bench::new();
    let ms = values(5, 10);
    drive(&mut t, 1 << 20, &ms, 3, &|c| c % 7 < 2 || c % 11 == 0);
}

#[test]
fn start_and_reset_take_the_chain_back_to_h0() {
    let mut t = Bench::new();
    let ms = values(9, 3);
    drive(&mut t, 1, &ms, 0, &|_| true);
    let s = t.step(None, true, false, false);
    assert_eq!(s.k, 3);
    assert_ne!(s.h, [0; 8]);
    t.step(None, true, true, false);
    let s = t.step(None, true, false, false);
    assert_eq!((s.k, s.h), (0, [0; 8]));
    // After a start the chain begins again from h_0.
    drive(&mut t, 1, &ms[..1], 0, &|_| true);
    let s = t.step(None, true, false, false);
    assert_eq!((s.k, s.h), (1, reference(&[0; 8], 1, ms[0])));
    // Reset in the middle of a hash: nothing of it shows.
    t.step(Some((2, 5, false)), true, false, false);
    for _ in 0..10 {
        t.step(None, true, false, false);
    }
    t.step(None, true, false, true);
    for _ in 0..(CHAIN_CYCLES + 5) {
        let s = t.step(None, true, false, false);
        assert_eq!((s.k, s.h), (0, [0; 8]));
    }
}

#[test]
fn the_verilog_names_its_top_rhdl_ubft_chain() {
    let v = chain::verilog();
    assert!(v.contains("module rhdl_ubft_chain("));
    assert!(!v.contains("module top("));
}
