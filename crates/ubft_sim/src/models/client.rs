//! Client: the request stream into one replica's kernel, and its decision
//! stream out.
//!
//! What it models: the clients' requests, which go to every replica
//! (docs/recovery.md, R1): every replica's client offers the same stream,
//! [`proposal`]`(seed, 0)`, `(seed, 1)`, ... with the run's seed, on
//! `prop_tvalid`/`prop_tdata`, and each replica takes it at its own pace
//! (the kernel's `requests` block takes a request whenever it has a free
//! entry). Whichever replica leads proposes the oldest request it holds,
//! and a decided request leaves every replica's buffer when that replica
//! decides it. The values are nonzero (a cleared mailbox word is never a
//! proposal) and distinct for a seed, so a decided m names the one request
//! it came from. Decisions (`dec_k`, `dec_m`, `dec_slow`) are recorded when
//! `dec_tvalid && dec_tready`.
//!
//! Timing: a value offered at cycle c is taken at c if `prop_tready` is high
//! then, and the next value is offered from c + 1. A decision is recorded at
//! the cycle of its handshake. Both are plain AXI-Stream: the client holds
//! its value until taken, and checks that the kernel holds a decision (valid
//! and payload) until it is taken; a break is logged in
//! [`Client::violations`] (not checked while `ap_rst_n` is low).
//!
//! Knobs: the seed; `limit`, how many values to offer in all (none: forever);
//! `dec_ready`, the `dec_tready` pattern, to exercise back-pressure.

use crate::ports::{KernelIn, KernelOut, Ready};

/// The `index`-th request of the stream with `seed` (index 0 first): nonzero,
/// and distinct from every other index below `u32::MAX` for the same seed.
pub fn proposal(seed: u64, index: u64) -> u32 {
    assert!(index < u32::MAX as u64, "the stream has 2^32 - 1 values");
    let key = splitmix64(seed);
    // A keyed bijection of u32, so distinct indices give distinct values.
    let permute = |x: u32| {
        let mut x = x ^ key as u32;
        x ^= x >> 16;
        x = x.wrapping_mul(0x7feb_352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846c_a68b);
        x ^= x >> 16;
        x ^ (key >> 32) as u32
    };
    match permute(index as u32) {
        // The one index that maps to 0 takes the image of u32::MAX, which no
        // index below u32::MAX has, and which is not 0.
        0 => permute(u32::MAX),
        v => v,
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A value the kernel took.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Taken {
    /// Its index in the stream.
    pub index: u64,
    pub m: u32,
    pub cycle: u64,
}

/// A decision the kernel emitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    pub k: u32,
    pub m: u32,
    pub cycle: u64,
    /// Decided on the slow path.
    pub slow: bool,
}

/// One replica's client (see the module header).
#[derive(Clone, Debug)]
pub struct Client {
    seed: u64,
    /// Values to offer in all; `None`: forever.
    pub limit: Option<u64>,
    /// `dec_tready`'s pattern.
    pub dec_ready: Ready,
    /// Index of the value on offer.
    next: u64,
    /// The cycle the next `drive` is for.
    now: u64,
    taken: Vec<Taken>,
    decided: Vec<Decided>,
    /// Last cycle's decision if it was valid and not taken.
    dec_waiting: Option<(u32, u32, bool)>,
    violations: Vec<(u64, String)>,
}

impl Client {
    /// A client offering the stream of `seed` forever, always ready for
    /// decisions.
    pub fn new(seed: u64) -> Client {
        Client {
            seed,
            limit: None,
            dec_ready: Ready::Always,
            next: 0,
            now: 0,
            taken: Vec::new(),
            decided: Vec::new(),
            dec_waiting: None,
            violations: Vec::new(),
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The values taken, in order.
    pub fn taken(&self) -> &[Taken] {
        &self.taken
    }

    /// The decisions, in the order emitted.
    pub fn decisions(&self) -> &[Decided] {
        &self.decided
    }

    /// AXI-Stream rules the kernel broke on the decision stream: (cycle, rule).
    pub fn violations(&self) -> &[(u64, String)] {
        &self.violations
    }

    /// Drive `prop_*` and `dec_tready` for the current cycle.
    pub fn drive(&mut self, inp: &mut KernelIn) {
        let offer = !matches!(self.limit, Some(l) if self.next >= l);
        inp.prop_tvalid = offer;
        inp.prop_tdata = if offer {
            proposal(self.seed, self.next)
        } else {
            0
        };
        inp.dec_tready = self.dec_ready.at(self.now);
    }

    /// Take this cycle's handshakes and advance to the next cycle.
    pub fn observe(&mut self, inp: &KernelIn, out: &KernelOut, cycle: u64) {
        self.now = cycle + 1;
        if inp.prop_tvalid && out.prop_tready {
            self.taken.push(Taken {
                index: self.next,
                m: inp.prop_tdata,
                cycle,
            });
            self.next += 1;
        }
        let dec = (out.dec_k, out.dec_m, out.dec_slow);
        if inp.ap_rst_n {
            match self.dec_waiting {
                Some(_) if !out.dec_tvalid => self.violations.push((
                    cycle,
                    "dec: TVALID was high and not accepted, so it must stay high until TREADY"
                        .into(),
                )),
                Some(w) if w != dec => self.violations.push((
                    cycle,
                    "dec: (k, m, slow) must stay stable while TVALID is high and not accepted"
                        .into(),
                )),
                _ => {}
            }
        }
        self.dec_waiting = (out.dec_tvalid && !inp.dec_tready && inp.ap_rst_n).then_some(dec);
        if out.dec_tvalid && inp.dec_tready {
            self.decided.push(Decided {
                k: out.dec_k,
                m: out.dec_m,
                cycle,
                slow: out.dec_slow,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn proposals_are_deterministic_nonzero_and_distinct() {
        let a: Vec<u32> = (0..50_000).map(|i| proposal(7, i)).collect();
        let b: Vec<u32> = (0..50_000).map(|i| proposal(7, i)).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|&v| v != 0));
        assert_eq!(a.iter().collect::<HashSet<_>>().len(), a.len());
        assert_ne!(proposal(7, 0), proposal(8, 0));
        // The bijection's fix-up keeps the stream nonzero for every seed.
        for seed in 0..1000 {
            assert_ne!(proposal(seed, 0), 0);
        }
    }

    fn step(client: &mut Client, out: &KernelOut, cycle: u64) -> KernelIn {
        let mut inp = KernelIn::default();
        client.drive(&mut inp);
        client.observe(&inp, out, cycle);
        inp
    }

    #[test]
    fn values_are_offered_in_order_and_taken_on_prop_tready() {
        let mut client = Client::new(3);
        client.limit = Some(2);
        let mut offered = Vec::new();
        for c in 0..6 {
            let out = KernelOut {
                prop_tready: c == 2 || c == 3 || c == 5,
                ..Default::default()
            };
            let inp = step(&mut client, &out, c);
            offered.push((inp.prop_tvalid, inp.prop_tdata));
        }
        let (p0, p1) = (proposal(3, 0), proposal(3, 1));
        assert_eq!(
            offered,
            vec![
                (true, p0),
                (true, p0),
                (true, p0),
                (true, p1),
                (false, 0),
                (false, 0)
            ]
        );
        assert_eq!(
            client.taken(),
            &[
                Taken {
                    index: 0,
                    m: p0,
                    cycle: 2
                },
                Taken {
                    index: 1,
                    m: p1,
                    cycle: 3
                }
            ]
        );
    }

    fn decision(k: u32, m: u32, slow: bool) -> KernelOut {
        KernelOut {
            dec_tvalid: true,
            dec_k: k,
            dec_m: m,
            dec_slow: slow,
            ..Default::default()
        }
    }

    #[test]
    fn decisions_wait_out_back_pressure() {
        let mut client = Client::new(0);
        client.dec_ready = Ready::LowDuring { from: 5, to: 8 };
        let mut ready = Vec::new();
        for c in 0..5 {
            ready.push(step(&mut client, &KernelOut::default(), c).dec_tready);
        }
        let mut queue = vec![decision(1, 11, false), decision(2, 22, true)];
        for c in 5..12 {
            let out = queue.first().cloned().unwrap_or_default();
            let inp = step(&mut client, &out, c);
            ready.push(inp.dec_tready);
            if inp.dec_tready && out.dec_tvalid {
                queue.remove(0);
            }
        }
        assert_eq!(ready.iter().filter(|r| !**r).count(), 3);
        assert!(!ready[5] && !ready[7] && ready[8]);
        assert_eq!(
            client.decisions(),
            &[
                Decided {
                    k: 1,
                    m: 11,
                    cycle: 8,
                    slow: false
                },
                Decided {
                    k: 2,
                    m: 22,
                    cycle: 9,
                    slow: true
                }
            ]
        );
        assert!(client.violations().is_empty());
    }

    #[test]
    fn a_decision_changed_or_dropped_before_tready_is_a_violation() {
        let mut client = Client::new(0);
        client.dec_ready = Ready::Never;
        step(&mut client, &decision(1, 11, false), 0);
        step(&mut client, &decision(1, 12, false), 1);
        step(&mut client, &KernelOut::default(), 2);
        let cycles: Vec<u64> = client.violations().iter().map(|v| v.0).collect();
        assert_eq!(cycles, vec![1, 2]);
        assert!(client.violations()[0].1.contains("stable"));
        assert!(client.decisions().is_empty());
    }
}
