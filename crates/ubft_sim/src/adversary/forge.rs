//! Forge: a replica that writes into others' records and garbage into its
//! own.
//!
//! Every write into one of its own records (votes, echo_prep, certify,
//! commit, echo_commit, seal, echo_seal) is replaced by garbage of the same
//! length in the same place, and a copy of the true write is aimed at the
//! same record of another replica (moved by whole records; vote entries by
//! entries). A write into a leader's record (prepare, prep_sig, new_view)
//! passes unchanged, and a copy of it goes into another replica's SEAL.
//! Every copy is refused by the receiver's slot guard (`not_owner`); the
//! garbage's signatures fail their verifies and its headers name no block.

use super::Rng;
use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::{Mailbox, Region, VOTE_WORDS};

/// Copies of its writes aimed at others' records, garbage in its own.
#[derive(Clone, Debug)]
pub struct Forge {
    pub n: usize,
    pub mailbox: Mailbox,
    rng: Rng,
}

impl Forge {
    pub fn new(n: usize, mailbox: Mailbox, seed: u64) -> Self {
        Forge {
            n,
            mailbox,
            rng: Rng::new(seed ^ 0xf0f0_5eed),
        }
    }

    /// The victim of a forged copy: never `src` itself (n >= 2).
    pub fn victim(n: usize, src: usize, dst: usize) -> usize {
        (src + 1 + dst % (n - 1)) % n
    }
}

/// The same place as `word` (in a record or vote entry a replica owns) in
/// node `to`'s: per-node records move by whole records, vote rows by
/// entries. `None` outside the owned records.
pub fn moved_to(mailbox: &Mailbox, word: usize, to: usize) -> Option<usize> {
    let (region, _) = mailbox.locate(word)?;
    let node = mailbox.owner(word)?;
    let stride = if mailbox.is_vote(region) {
        VOTE_WORDS
    } else {
        mailbox.stride(region)
    };
    Some(word + to * stride - node * stride)
}

impl Adversary for Forge {
    fn transform(&mut self, src: usize, dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
        let victim = Self::victim(self.n, src, dst);
        let own = (0..write.data.len()).all(|i| self.mailbox.owner(write.word + i) == Some(src));
        if own {
            let copy = Write {
                word: moved_to(&self.mailbox, write.word, victim).expect("an owned entry"),
                data: write.data.clone(),
            };
            let garbage = Write {
                word: write.word,
                data: write.data.iter().map(|_| self.rng.next_u32()).collect(),
            };
            vec![copy, garbage]
        } else {
            let word = self.mailbox.record(Region::Seal, 0, victim);
            let len = write.data.len().min(self.mailbox.stride(Region::Seal));
            let copy = Write {
                word,
                data: write.data[..len].to_vec(),
            };
            vec![copy, write]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 3;

    fn w(word: usize, data: &[u32]) -> Write {
        Write {
            word,
            data: data.to_vec(),
        }
    }

    #[test]
    fn forge_moves_whole_records_and_aims_leader_records_at_a_seal() {
        let m = Mailbox::v3(N, 16, 1);
        let mut f = Forge::new(N, m.clone(), 7);
        let cert = m.stride(Region::Certify);
        for (own, len) in [
            (m.vote(Region::WillCert, 4, 0), 2),
            (m.record(Region::Certify, 2, 0), cert),
            (m.record(Region::Commit, 3, 0), m.stride(Region::Commit)),
            (m.record(Region::EchoSeal, 1, 0), m.stride(Region::EchoSeal)),
            (m.record(Region::Seal, 0, 0), m.stride(Region::Seal)),
        ] {
            let data: Vec<u32> = (1..=len as u32).collect();
            for dst in 1..N {
                let out = f.transform(0, dst, w(own, &data), 0);
                let victim = Forge::victim(N, 0, dst);
                assert_ne!(victim, 0);
                // The copy lies wholly in the victim's record, at the same
                // offset; the garbage stays in place.
                for i in 0..data.len() {
                    assert_eq!(
                        m.owner(out[0].word + i),
                        Some(victim),
                        "{:?} -> {dst}",
                        m.locate(own)
                    );
                }
                assert_eq!(out[0].data, data);
                assert_eq!((out[1].word, out[1].data.len()), (own, data.len()));
                assert_ne!(out[1].data, data, "garbage");
            }
        }
        // A leader's record passes; its copy goes into a peer's SEAL.
        let prep = w(m.record(Region::PrepSig, 5, 0), &[7; 32]);
        let out = f.transform(0, 1, prep.clone(), 0);
        assert_eq!(out[1], prep);
        assert_eq!(
            out[0].word,
            m.record(Region::Seal, 0, Forge::victim(N, 0, 1))
        );
        assert_eq!(out[0].data.len(), m.stride(Region::Seal));
        assert_eq!(
            moved_to(&m, m.vote(Region::WillCommit, 5, 2) + 1, 0),
            Some(m.vote(Region::WillCommit, 5, 0) + 1)
        );
        assert_eq!(moved_to(&m, m.prepare(1), 2), None);
    }
}
