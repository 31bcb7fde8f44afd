//! The view splitter on the v3 layout: an equivocating leader that then
//! tells each half of its peers, in a SEAL it signs, that it committed
//! that half's value.
//!
//! What it models: the spec's split-view weakness (Atlas's counterexample)
//! with the liar's own key. While it leads it equivocates as
//! [`Equivocate`] does (the first (n − 1) / 2 of its peers in ascending
//! id get the client's request m, the others the next request m′, each
//! with a PREP block, lanes, a CERT share and a COMMIT it signs). When it
//! seals a view, each peer gets a SEAL of that view whose L claims a
//! COMMIT of the latest slot it proposed, (v, k, m or m′, prev), with the
//! value that peer's half was sent, signed by the liar; its true L, or
//! none, is dropped. So each honest replica sees a SEAL backing the value
//! its own half got. What must stop it: a SEAL's L counts only with its
//! certificate (R20, R21), and the COMMIT records the liar made up carry
//! its own share and zeros for the others, so no certificate of the lie
//! verifies unless f + 1 replicas, one honest at least, really certified
//! that block; then the lie is the truth for that half.
//!
//! Its own HBM keeps the true records (the kernel writes them locally).

use crate::adversary::equivocate::Equivocate;
use crate::adversary::lie_vc::reseal;
use crate::models::network::{Adversary, Write};
use crate::models::signer::signing_key;
use ed25519_dalek::SigningKey;
use rhdl_ubft::layout::records::{self, BLOCK_WORDS};
use rhdl_ubft::layout::{Mailbox, Region};

/// See the module's documentation.
pub struct SplitView {
    n: usize,
    mailbox: Mailbox,
    key: SigningKey,
    equivocate: Equivocate,
    /// The latest PREP block it signed, (v, k, m, prev) with the true m.
    latest: Option<[u32; 4]>,
}

impl SplitView {
    /// The splitter `id` of an n-replica run with `seed` (the client
    /// stream's and the signing keys').
    pub fn new(n: usize, mailbox: Mailbox, seed: u64, id: usize) -> Self {
        SplitView {
            n,
            key: signing_key(seed, id),
            equivocate: Equivocate::new(n, mailbox.clone(), seed, id),
            mailbox,
            latest: None,
        }
    }

    /// The L that `dst` is told: the latest slot it proposed, with the
    /// value dst's half was sent.
    fn told(&self, src: usize, dst: usize) -> Option<[u32; 4]> {
        let [v, k, m, prev] = self.latest?;
        let m = if Equivocate::misled(self.n, src, dst) {
            self.equivocate.alt(m)?
        } else {
            m
        };
        Some([v, k, m, prev])
    }
}

impl Adversary for SplitView {
    fn transform(&mut self, src: usize, dst: usize, mut write: Write, cycle: u64) -> Vec<Write> {
        let located = self.mailbox.locate(write.word);
        match located {
            Some((Region::PrepSig, off)) if off % self.mailbox.stride(Region::PrepSig) == 0 => {
                // Its true PREP block (before the equivocation rewrites it).
                let d = &write.data;
                if d.len() >= BLOCK_WORDS && d[records::KIND] == records::KIND_PREP {
                    let b = [
                        d[records::BLOCK_V],
                        d[records::BLOCK_K],
                        d[records::BLOCK_M],
                        d[records::BLOCK_PREV],
                    ];
                    if self.latest.is_none_or(|l| (b[1], b[0]) >= (l[1], l[0])) {
                        self.latest = Some(b);
                    }
                }
            }
            Some((Region::Seal, _)) => {
                if let Some(l) = self.told(src, dst) {
                    reseal(&self.mailbox, &self.key, src, &mut write, Some(l));
                }
                return vec![write];
            }
            _ => {}
        }
        self.equivocate.transform(src, dst, write, cycle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::client::proposal;
    use crate::models::signer::sign_block;
    use rhdl_ubft::params::{BEAT_WORDS, G, N, SB};

    const SEED: u64 = 9;

    fn mb() -> Mailbox {
        Mailbox::v3(N, G, SB)
    }

    fn verifies(id: usize, block: &[u32], sig: &[u32]) -> bool {
        crate::models::signer::block_verifies(SEED, id, block, sig)
    }

    fn signed(word: usize, block: [u32; BLOCK_WORDS]) -> Write {
        let mut data = vec![0u32; 2 * BEAT_WORDS];
        data[..BLOCK_WORDS].copy_from_slice(&block);
        let sig = sign_block(&signing_key(SEED, 0), &block);
        data[BEAT_WORDS..].copy_from_slice(&sig);
        Write { word, data }
    }

    #[test]
    fn each_half_is_told_a_commit_of_its_own_value_in_a_seal_the_leader_signs() {
        let m = mb();
        let (m0, m1) = (proposal(SEED, 0), proposal(SEED, 1));
        let mut split = SplitView::new(3, m.clone(), SEED, 0);
        // Its PREPARE of (k 1, m0, v 0, prev 0), then its PREP block, to
        // both followers.
        let mut p = vec![0u32; BEAT_WORDS];
        p[records::PREPARE_K] = 1;
        p[records::PREPARE_M] = m0;
        let prepare = Write {
            word: m.record(Region::Prepare, 0, 0),
            data: p,
        };
        for dst in [1, 2] {
            split.transform(0, dst, prepare.clone(), 0);
        }
        let prep = signed(
            m.record(Region::PrepSig, 0, 0),
            records::block(records::KIND_PREP, 0, 1, m0, 0),
        );
        for dst in [1, 2] {
            let out = split.transform(0, dst, prep.clone(), 0);
            // Equivocate's part: 2 gets m1 (and the made-up records).
            let got = out[0].data[records::BLOCK_M];
            assert_eq!(got, if dst == 1 { m0 } else { m1 });
        }
        // Its true SEAL of view 0, with no L.
        let seal = signed(
            m.record(Region::Seal, 0, 0),
            records::seal_block(0, 0, None),
        );
        for (dst, want) in [(1, m0), (2, m1)] {
            let out = split.transform(0, dst, seal.clone(), 0);
            assert_eq!(out.len(), 1);
            let d = &out[0].data;
            assert_eq!(
                &d[..BLOCK_WORDS],
                &records::seal_block(0, 0, Some([0, 1, want, 0]))
            );
            assert!(
                verifies(0, &d[..BLOCK_WORDS], &d[BEAT_WORDS..]),
                "dst {dst}"
            );
        }
    }

    #[test]
    fn before_it_proposes_its_seal_passes() {
        let m = mb();
        let mut split = SplitView::new(3, m.clone(), SEED, 0);
        let seal = signed(
            m.record(Region::Seal, 0, 0),
            records::seal_block(0, 2, None),
        );
        assert_eq!(split.transform(0, 2, seal.clone(), 0), vec![seal]);
    }
}
