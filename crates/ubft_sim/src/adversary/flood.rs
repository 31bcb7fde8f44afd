//! Flood: a replica that writes at the link's line rate.
//!
//! From `from_cycle` to `to_cycle` (absent: to the end) it sends a write
//! of its own every [`LINE_RATE_CYCLES`], whatever its kernel does, to
//! `target` or, absent, to each peer in turn; its kernel's writes pass
//! unchanged. Half are garbage in its own vote entries (will_cert or
//! will_commit of a random slot: the guard accepts them, 8 cycles each),
//! half a beat of garbage anywhere else in the mailbox (refused, 6 cycles
//! each, or accepted where it lands in its own entries). Since the guard
//! takes one write every 6 to 8 cycles and the flood brings one every 4,
//! a target's receive queue for the flooder fills and drops
//! (`NetStats::rx_dropped`); the stack serves the other senders' queues
//! round robin beside it (`NetStats::rx_wait_max`).

use super::Rng;
use crate::models::network::{Adversary, Write, LINE_RATE_CYCLES};
use rhdl_ubft::layout::{Mailbox, Region, VOTE_WORDS};
use rhdl_ubft::params::{BEAT_WORDS, G};

pub struct Flood {
    pub n: usize,
    pub mailbox: Mailbox,
    pub target: Option<usize>,
    pub from_cycle: u64,
    pub to_cycle: Option<u64>,
    pub rng: Rng,
    /// The next peer in turn, without a target.
    next: usize,
}

impl Flood {
    pub fn new(
        n: usize,
        mailbox: Mailbox,
        target: Option<usize>,
        from_cycle: u64,
        to_cycle: Option<u64>,
        seed: u64,
    ) -> Flood {
        Flood {
            n,
            mailbox,
            target,
            from_cycle,
            to_cycle,
            rng: Rng::new(seed),
            next: 0,
        }
    }

    fn garbage(&mut self, src: usize) -> Write {
        let mb = &self.mailbox;
        if self.rng.below(2) == 0 {
            let region = [Region::WillCert, Region::WillCommit][self.rng.below(2) as usize];
            let slot = self.rng.below(G as u64) as usize;
            let word = mb.vote(region, slot, src);
            let data = (0..VOTE_WORDS).map(|_| self.rng.next_u32()).collect();
            Write { word, data }
        } else {
            let beats = (mb.end() / BEAT_WORDS) as u64;
            let word = self.rng.below(beats) as usize * BEAT_WORDS;
            let data = (0..BEAT_WORDS).map(|_| self.rng.next_u32()).collect();
            Write { word, data }
        }
    }
}

impl Adversary for Flood {
    fn transform(&mut self, _src: usize, _dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
        vec![write]
    }

    fn emit(&mut self, src: usize, cycle: u64) -> Vec<(usize, Write)> {
        let on = cycle >= self.from_cycle && self.to_cycle.is_none_or(|t| cycle < t);
        if !on || (cycle - self.from_cycle) % LINE_RATE_CYCLES != 0 {
            return vec![];
        }
        let dst = match self.target {
            Some(t) => t,
            None => {
                let mut d = self.next % self.n;
                if d == src {
                    d = (d + 1) % self.n;
                }
                self.next = d + 1;
                d
            }
        };
        vec![(dst, self.garbage(src))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_write_per_line_rate_slot_in_its_window_to_the_peers_in_turn() {
        let mb = Mailbox::v3(3, G, 1);
        let mut f = Flood::new(3, mb.clone(), None, 100, Some(140), 7);
        let mut sent = vec![];
        for c in 0..200 {
            for (dst, w) in f.emit(1, c) {
                assert!(w.word + w.data.len() <= mb.end());
                sent.push((c, dst));
            }
        }
        let cycles: Vec<u64> = sent.iter().map(|s| s.0).collect();
        assert_eq!(
            cycles,
            (100..140)
                .step_by(LINE_RATE_CYCLES as usize)
                .collect::<Vec<_>>()
        );
        assert!(sent.iter().all(|s| s.1 != 1));
        assert_eq!(sent[0].1, 0);
        assert_eq!(sent[1].1, 2);
        assert_eq!(sent[2].1, 0);
        let mut t = Flood::new(3, mb, Some(2), 0, None, 7);
        assert!((0..40).flat_map(|c| t.emit(0, c)).all(|(d, _)| d == 2));
    }
}
