//! RandomFaults: arbitrary behaviour, deterministic from a seed.
//!
//! Each outgoing write may be dropped, have bits flipped, be moved to a
//! random address inside the mailboxes, be sent twice, and be followed by
//! an extra write of random words into one of its own records or anywhere.
//! The slot guard refuses what lands outside the sender's records; what it
//! writes into its own must be harmless.

use super::Rng;
use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::{Mailbox, Region, VOTE_WORDS};

/// How often [`RandomFaults`] does each thing to a write, per mille.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomRates {
    pub drop: u32,
    pub flip: u32,
    pub rewrite: u32,
    pub duplicate: u32,
    pub extra: u32,
}

impl Default for RandomRates {
    fn default() -> Self {
        RandomRates {
            drop: 100,
            flip: 100,
            rewrite: 100,
            duplicate: 100,
            extra: 150,
        }
    }
}

/// Arbitrary behaviour, deterministic from a seed: each outgoing write is,
/// with the probabilities of [`RandomRates`], dropped; or has 1 to 3 random
/// bits flipped; or is moved to a random address inside the mailboxes; and
/// independently may be sent twice, and may be followed by an extra write of
/// its own (1 to 4 random words into a random word of one of its own entries,
/// or, half the time, anywhere in the mailboxes). The slot guard refuses what
/// lands outside the sender's entries.
#[derive(Clone, Debug)]
pub struct RandomFaults {
    pub n: usize,
    pub mailbox: Mailbox,
    pub rates: RandomRates,
    rng: Rng,
}

impl RandomFaults {
    pub fn new(n: usize, mailbox: Mailbox, seed: u64) -> Self {
        Self::with_rates(n, mailbox, seed, RandomRates::default())
    }

    pub fn with_rates(n: usize, mailbox: Mailbox, seed: u64, rates: RandomRates) -> Self {
        RandomFaults {
            n,
            mailbox,
            rates,
            rng: Rng::new(seed),
        }
    }

    /// A random word from which `len` words stay inside the mailboxes.
    fn anywhere(&mut self, len: usize) -> usize {
        let lo = self.mailbox.base(Region::Prepare);
        let hi = self.mailbox.end() - len;
        lo + self.rng.below((hi - lo + 1) as u64) as usize
    }

    /// A random word of one of `src`'s own entries, with the words left in
    /// that entry from there (at least 1): a word of one of its vote
    /// entries (will_cert, will_commit) or of one of its records
    /// (echo_prep, certify, commit of a slot; echo_commit, echo_seal about a
    /// replica; its seal).
    fn own_word(&mut self, src: usize) -> (usize, usize) {
        let mb = &self.mailbox;
        let slot = self.rng.below(mb.g as u64) as usize;
        let peer = self.rng.below(mb.n as u64) as usize;
        let (start, len) = match self.rng.below(8) {
            0 => (mb.vote(Region::WillCert, slot, src), VOTE_WORDS),
            1 => (mb.vote(Region::WillCommit, slot, src), VOTE_WORDS),
            2 => (
                mb.record(Region::EchoPrep, slot, src),
                mb.stride(Region::EchoPrep),
            ),
            3 => (
                mb.record(Region::Certify, slot, src),
                mb.stride(Region::Certify),
            ),
            4 => (
                mb.record(Region::Commit, slot, src),
                mb.stride(Region::Commit),
            ),
            5 => (
                mb.record(Region::EchoCommit, peer, src),
                mb.stride(Region::EchoCommit),
            ),
            6 => (
                mb.record(Region::EchoSeal, peer, src),
                mb.stride(Region::EchoSeal),
            ),
            _ => (mb.record(Region::Seal, 0, src), mb.stride(Region::Seal)),
        };
        let off = self.rng.below(len as u64) as usize;
        (start + off, len - off)
    }
}

impl Adversary for RandomFaults {
    fn transform(&mut self, src: usize, _dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        let mut out = vec![];
        if !self.rng.chance(self.rates.drop) {
            if self.rng.chance(self.rates.flip) && !write.data.is_empty() {
                for _ in 0..1 + self.rng.below(3) {
                    let i = self.rng.below(write.data.len() as u64) as usize;
                    write.data[i] ^= 1 << self.rng.below(32);
                }
            }
            if self.rng.chance(self.rates.rewrite) {
                write.word = self.anywhere(write.data.len());
            }
            if self.rng.chance(self.rates.duplicate) {
                out.push(write.clone());
            }
            out.push(write);
        }
        if self.rng.chance(self.rates.extra) {
            let (word, room) = if self.rng.chance(500) {
                self.own_word(src)
            } else {
                let w = self.anywhere(4);
                (w, 4)
            };
            let len = 1 + self.rng.below(room.min(4) as u64) as usize;
            let data = (0..len).map(|_| self.rng.next_u32()).collect();
            out.push(Write { word, data });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 3;

    fn mb() -> Mailbox {
        Mailbox::v3(N, 16, 1)
    }

    fn w(word: usize, data: &[u32]) -> Write {
        Write {
            word,
            data: data.to_vec(),
        }
    }

    fn sample_writes(m: &Mailbox) -> Vec<(usize, Write)> {
        (0..2000)
            .map(|i| {
                let dst = 1 + i % 2;
                let word = match i % 3 {
                    0 => m.vote(Region::WillCert, i % 16, 0),
                    1 => m.prepare(i % 16),
                    _ => m.record(Region::Certify, i % 16, 0),
                };
                let len = [2, 4, 16][i % 3];
                (dst, w(word, &vec![i as u32 + 1; len]))
            })
            .collect()
    }

    fn run_random(m: &Mailbox, seed: u64, rates: RandomRates) -> Vec<Vec<Write>> {
        let mut r = RandomFaults::with_rates(N, m.clone(), seed, rates);
        sample_writes(m)
            .into_iter()
            .map(|(d, x)| r.transform(0, d, x, 0))
            .collect()
    }

    const NONE: RandomRates = RandomRates {
        drop: 0,
        flip: 0,
        rewrite: 0,
        duplicate: 0,
        extra: 0,
    };

    #[test]
    fn random_is_deterministic_and_stays_in_the_mailboxes() {
        let m = mb();
        let a = run_random(&m, 42, RandomRates::default());
        assert_eq!(a, run_random(&m, 42, RandomRates::default()));
        assert_ne!(a, run_random(&m, 43, RandomRates::default()));
        let lo = m.base(Region::Prepare);
        for x in a.iter().flatten() {
            assert!(
                x.word >= lo && x.word + x.data.len() <= m.end(),
                "inside the mailboxes"
            );
            assert!(!x.data.is_empty() && x.data.len() <= 16);
        }
        let unchanged = sample_writes(&m)
            .iter()
            .zip(&a)
            .filter(|((_, o), out)| out == &&vec![o.clone()])
            .count();
        assert!(
            (700..1400).contains(&unchanged),
            "about half pass untouched: {unchanged}"
        );
        assert_eq!(
            run_random(&m, 1, NONE),
            sample_writes(&m)
                .into_iter()
                .map(|(_, x)| vec![x])
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn random_does_each_of_its_things() {
        let m = mb();
        let orig = sample_writes(&m);
        // Drop.
        let out = run_random(&m, 5, RandomRates { drop: 1000, ..NONE });
        assert!(out.iter().all(|o| o.is_empty()));
        // Flip 1 to 3 bits in place.
        let out = run_random(&m, 5, RandomRates { flip: 1000, ..NONE });
        for ((_, o), x) in orig.iter().zip(&out) {
            assert_eq!((x.len(), x[0].word), (1, o.word));
            let bits: u32 = o
                .data
                .iter()
                .zip(&x[0].data)
                .map(|(a, b)| (a ^ b).count_ones())
                .sum();
            assert!((1..=3).contains(&bits) || bits == 0, "{bits}");
        }
        assert!(
            orig.iter()
                .zip(&out)
                .filter(|((_, o), x)| x[0].data != o.data)
                .count()
                > 1900
        );
        // Rewrite to a random address.
        let out = run_random(
            &m,
            5,
            RandomRates {
                rewrite: 1000,
                ..NONE
            },
        );
        assert!(orig
            .iter()
            .zip(&out)
            .all(|((_, o), x)| x.len() == 1 && x[0].data == o.data));
        assert!(
            orig.iter()
                .zip(&out)
                .filter(|((_, o), x)| x[0].word != o.word)
                .count()
                > 1990
        );
        // Duplicate.
        let out = run_random(
            &m,
            5,
            RandomRates {
                duplicate: 1000,
                ..NONE
            },
        );
        assert!(orig
            .iter()
            .zip(&out)
            .all(|((_, o), x)| x == &vec![o.clone(), o.clone()]));
        // An extra write: into its own entries about half the time.
        let out = run_random(
            &m,
            5,
            RandomRates {
                extra: 1000,
                ..NONE
            },
        );
        let mut own = 0;
        for ((_, o), x) in orig.iter().zip(&out) {
            assert_eq!(x.len(), 2);
            assert_eq!(&x[0], o);
            assert!((1..=4).contains(&x[1].data.len()));
            if (0..x[1].data.len()).all(|i| m.owner(x[1].word + i) == Some(0)) {
                own += 1;
            }
        }
        assert!((800..1300).contains(&own), "{own}");
    }

    #[test]
    fn random_writes_its_own_records_and_stays_in_the_mailboxes() {
        let m = mb();
        let mut r = RandomFaults::with_rates(
            N,
            m.clone(),
            9,
            RandomRates {
                extra: 1000,
                ..NONE
            },
        );
        let (mut own, mut regions) = (0, std::collections::BTreeSet::new());
        for i in 0..2000 {
            let x = w(m.vote(Region::WillCert, i % 16, 0), &[1, 2]);
            let out = r.transform(0, 1, x.clone(), 0);
            assert_eq!((out.len(), &out[0]), (2, &x));
            let e = &out[1];
            assert!(e.word >= m.base(Region::Prepare) && e.word + e.data.len() <= m.end());
            // (remote_rows' owners take READ responses only, never a
            // WRITE: not its own records.)
            let region = m.locate(e.word).map(|(r, _)| r);
            if region != Some(Region::RemoteRows)
                && (0..e.data.len()).all(|i| m.owner(e.word + i) == Some(0))
            {
                own += 1;
                regions.insert(m.locate(e.word).unwrap().0.name());
            }
        }
        assert!((800..1300).contains(&own), "{own}");
        // Every kind of record it owns: 2 vote rows and 6 records.
        assert_eq!(regions.len(), 8, "{regions:?}");
    }
}
