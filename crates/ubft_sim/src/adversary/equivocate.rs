//! The equivocating leader on the v3 layout: it signs what it makes up.
//!
//! What it models: a Byzantine leader holding its own signing key (a real
//! uBFT replica does), which proposes two different client requests for the
//! same slot, one to each half of its peers, and backs each half's value
//! with everything it writes for that slot: its PREPARE, its signed PREP
//! block (prep_sig and its own echo_prep entry, re-signed), its fast-path
//! lanes (will_cert and will_commit), its CERT share and its COMMIT
//! (re-signed; the COMMIT's f + 1 shares are other replicas' signatures,
//! which it cannot make, so they pass as they were). It does not wait for
//! its kernel to certify and commit (its honest kernel would see the
//! conflicting echoes and refuse the slot): with each destination's
//! prep_sig it also makes up, for that destination's value, its CERT share
//! and a COMMIT signed with its key, whose certificate holds its own share
//! and zeros for the others. So a replica that delivers its value from the
//! signed PREP block finds f + 1 shares once f honest ones certified, and
//! a delivered COMMIT of the same block from the leader. Both values are
//! requests every replica holds (recovery.md R1: every request goes to
//! every replica), so the honest replicas' validity check (R2) does not
//! stop it: what must stop it is consistent broadcast (the echo of the
//! signed PREP block, R8) and the certificates. The run is safe when no two
//! honest replicas decide differently.
//!
//! The halves: of the peers in ascending id (the faulty replica left out),
//! the first (n - 1) / 2 are sent the true value m, the others `alt(m)`, the
//! client stream's next request after m ([`crate::models::client::proposal`] with the
//! run's seed). A value that is not one of the stream's first
//! [`Equivocate::SPAN`] requests (a no-op, a value carried by a NEW_VIEW
//! that is not the stream's) passes unchanged.
//!
//! Which slots: those it proposed, as (v, k) from its own PREPAREs; its
//! records of other slots, and every record that is not a vote, a prepare,
//! a PREP, CERT or COMMIT block (echo_commit, seal, echo_seal, new_view),
//! pass unchanged. Its own HBM keeps the true records (the kernel writes
//! them locally).

use crate::models::client::proposal;
use crate::models::network::{Adversary, Write};
use crate::models::signer::{sign_block, signing_key};
use ed25519_dalek::SigningKey;
use rhdl_ubft::layout::records::{self, BLOCK_WORDS};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{vote_tag, BEAT_WORDS};
use std::collections::HashMap;

/// See the module's documentation.
pub struct Equivocate {
    n: usize,
    mailbox: Mailbox,
    key: SigningKey,
    /// The stream's value → its index, for the first `SPAN` requests.
    index: HashMap<u32, u64>,
    seed: u64,
    /// (v, k) of the slots it proposed → the true m.
    led: HashMap<(u32, u32), u32>,
}

impl Equivocate {
    /// How many of the stream's requests it knows the successor of.
    pub const SPAN: u64 = 1 << 16;

    /// The equivocator `id` of an n-replica run with `seed` (the seed of
    /// the client stream and of the signing keys: [`signing_key`]).
    pub fn new(n: usize, mailbox: Mailbox, seed: u64, id: usize) -> Self {
        Equivocate {
            n,
            mailbox,
            key: signing_key(seed, id),
            index: (0..Self::SPAN).map(|i| (proposal(seed, i), i)).collect(),
            seed,
            led: HashMap::new(),
        }
    }

    /// Whether `dst` is in the half that is sent `alt(m)`.
    pub fn misled(n: usize, src: usize, dst: usize) -> bool {
        let rank = if dst > src { dst - 1 } else { dst };
        rank >= (n - 1) / 2
    }

    /// The value the misled half is sent instead of m: the stream's next
    /// request, or none when m is not one of the stream's first SPAN.
    pub fn alt(&self, m: u32) -> Option<u32> {
        self.index.get(&m).map(|&i| proposal(self.seed, i + 1))
    }

    /// The misled value of block `b` (kind PREP, CERT or COMMIT) for a
    /// slot this replica proposed with the block's m, re-signed into
    /// `sig`; false when the block is not such a one.
    fn mislead_block(&self, b: &mut [u32], sig: Option<&mut [u32]>) -> bool {
        let (v, k, m) = match b[records::KIND] {
            records::KIND_PREP | records::KIND_CERT => {
                (records::BLOCK_V, records::BLOCK_K, records::BLOCK_M)
            }
            records::KIND_COMMIT => (records::COMMIT_V, records::COMMIT_K, records::COMMIT_M),
            _ => return false,
        };
        if self.led.get(&(b[v], b[k])) != Some(&b[m]) {
            return false;
        }
        let Some(alt) = self.alt(b[m]) else {
            return false;
        };
        b[m] = alt;
        if let Some(sig) = sig {
            let block: [u32; BLOCK_WORDS] = b[..BLOCK_WORDS].try_into().expect("a block");
            let beat = sign_block(&self.key, &block);
            sig.copy_from_slice(&beat[..sig.len()]);
        }
        true
    }
}

impl Equivocate {
    fn sign(&self, b: &[u32; BLOCK_WORDS]) -> [u32; BEAT_WORDS] {
        sign_block(&self.key, b)
    }

    /// For `dst`, whose PREP block is `prep`: `src`'s CERT share over it
    /// (certify\[s(k)\]\[src\]) and a COMMIT of it (commit\[s(k)\]\[src\]),
    /// signed with its key, whose certificate names src, dst and the
    /// lowest others up to f + 1 signers. Only src's share in it is a
    /// signature; the others are zeros, since src cannot sign for them.
    fn made_up(&self, src: usize, dst: usize, prep: &[u32; BLOCK_WORDS]) -> Vec<Write> {
        let (v, k, m, prev) = (
            prep[records::BLOCK_V],
            prep[records::BLOCK_K],
            prep[records::BLOCK_M],
            prep[records::BLOCK_PREV],
        );
        let slot = (k as usize).wrapping_sub(1) % self.mailbox.g;
        let cert = records::block(records::KIND_CERT, v, k, m, prev);
        let share = self.sign(&cert);
        let mut certify = vec![0u32; 2 * BEAT_WORDS];
        certify[..BLOCK_WORDS].copy_from_slice(&cert);
        certify[BEAT_WORDS..].copy_from_slice(&share);
        let f = (self.n - 1) / 2;
        let mut signers = vec![src, dst];
        signers.extend((0..self.n).filter(|&j| j != src && j != dst));
        signers.truncate(f + 1);
        signers.sort_unstable();
        let kb = records::commit_block(src as u32, v, k, m, prev);
        let mut commit = vec![0u32; (3 + f) * BEAT_WORDS];
        commit[..BLOCK_WORDS].copy_from_slice(&kb);
        commit[records::COMMIT_BITMAP] = signers.iter().map(|&j| 1u32 << j).sum();
        commit[BEAT_WORDS..2 * BEAT_WORDS].copy_from_slice(&self.sign(&kb));
        for (c, &j) in signers.iter().enumerate() {
            if j == src {
                let at = (2 + c) * BEAT_WORDS;
                commit[at..at + BEAT_WORDS].copy_from_slice(&share);
            }
        }
        vec![
            Write {
                word: self.mailbox.record(Region::Certify, slot, src),
                data: certify,
            },
            Write {
                word: self.mailbox.record(Region::Commit, slot, src),
                data: commit,
            },
        ]
    }
}

impl Adversary for Equivocate {
    fn transform(&mut self, src: usize, dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        let Some((region, off)) = self.mailbox.locate(write.word) else {
            return vec![write];
        };
        let misled = Self::misled(self.n, src, dst);
        match region {
            Region::Prepare => {
                // A PREPARE (k, m, v, prev) starts its slot's beat.
                if off % BEAT_WORDS == 0 && write.data.len() > records::PREPARE_PREV {
                    let d = &mut write.data;
                    let (k, m, v) = (
                        d[records::PREPARE_K],
                        d[records::PREPARE_M],
                        d[records::PREPARE_V],
                    );
                    self.led.insert((v, k), m);
                    if misled {
                        if let Some(alt) = self.alt(m) {
                            d[records::PREPARE_M] = alt;
                        }
                    }
                }
            }
            Region::WillCert | Region::WillCommit => {
                // Its own lane (tag(v, k), m), in a slot it proposed.
                if misled && off % 2 == 0 && write.data.len() >= 2 {
                    let (tag, m) = (write.data[0], write.data[1]);
                    let ours = self
                        .led
                        .iter()
                        .any(|(&(v, k), &lm)| vote_tag(v, k) == tag && lm == m);
                    if ours {
                        if let Some(alt) = self.alt(m) {
                            write.data[1] = alt;
                        }
                    }
                }
            }
            Region::PrepSig if off % self.mailbox.stride(region) == 0 => {
                // The PREP block, then: its own CERT share and COMMIT for
                // the value this destination is sent, made up at once.
                if write.data.len() >= 2 * BEAT_WORDS {
                    let (head, tail) = write.data.split_at_mut(BEAT_WORDS);
                    if misled {
                        self.mislead_block(head, Some(&mut tail[..BEAT_WORDS]));
                    }
                    let b: [u32; BLOCK_WORDS] = head[..BLOCK_WORDS].try_into().expect("a block");
                    if b[records::KIND] == records::KIND_PREP
                        && self
                            .led
                            .get(&(b[records::BLOCK_V], b[records::BLOCK_K]))
                            .is_some()
                    {
                        let extra = self.made_up(src, dst, &b);
                        return std::iter::once(write).chain(extra).collect();
                    }
                }
            }
            Region::PrepSig | Region::EchoPrep | Region::Certify | Region::Commit => {
                // Whole records from their first beat: the block, then the
                // signature over it on the next beat.
                let stride = self.mailbox.stride(region);
                if misled && off % stride == 0 {
                    let mut at = 0;
                    while at + 2 * BEAT_WORDS <= write.data.len() {
                        let (head, tail) = write.data[at..].split_at_mut(BEAT_WORDS);
                        self.mislead_block(head, Some(&mut tail[..BEAT_WORDS]));
                        at += stride;
                    }
                }
            }
            _ => {}
        }
        vec![write]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::signer::block_verifies as verifies;
    use rhdl_ubft::params::{G, N, SB};

    const SEED: u64 = 77;

    fn mb() -> Mailbox {
        Mailbox::v3(N, G, SB)
    }

    fn signed_record(block: [u32; BLOCK_WORDS], beats: usize) -> Vec<u32> {
        let mut d = vec![0u32; beats * BEAT_WORDS];
        d[..BLOCK_WORDS].copy_from_slice(&block);
        let sig = sign_block(&signing_key(SEED, 0), &block);
        d[BEAT_WORDS..2 * BEAT_WORDS].copy_from_slice(&sig);
        d
    }

    #[test]
    fn the_halves_split_the_peers() {
        // n = 3, leader 0: 1 is sent m, 2 alt(m).
        assert!(!Equivocate::misled(3, 0, 1));
        assert!(Equivocate::misled(3, 0, 2));
        // n = 5, leader 2: peers 0, 1 | 3, 4.
        let misled: Vec<usize> = (0..5)
            .filter(|&d| d != 2 && Equivocate::misled(5, 2, d))
            .collect();
        assert_eq!(misled, vec![3, 4]);
    }

    #[test]
    fn the_misled_half_gets_the_next_request_signed_by_the_leader() {
        let m = mb();
        let mut e = Equivocate::new(3, m.clone(), SEED, 0);
        let (v, k) = (0u32, 5u32);
        let true_m = proposal(SEED, 4);
        let alt = proposal(SEED, 5);
        assert_eq!(e.alt(true_m), Some(alt));
        let slot = (k as usize - 1) % G;
        let prep = Write {
            word: m.record(Region::Prepare, slot, 0),
            data: {
                let mut d = vec![0; BEAT_WORDS];
                d[..4].copy_from_slice(&[k, true_m, v, 9]);
                d
            },
        };
        // The faithful half sees the true prepare, the misled one alt.
        assert_eq!(e.transform(0, 1, prep.clone(), 0)[0].data, prep.data);
        let out = e.transform(0, 2, prep.clone(), 0);
        assert_eq!(out[0].data[..4], [k, alt, v, 9]);

        // prep_sig: the block's m and a signature over the new block.
        let block = records::block(records::KIND_PREP, v, k, true_m, 9);
        let rec = Write {
            word: m.record(Region::PrepSig, slot, 0),
            data: signed_record(block, 2),
        };
        assert_eq!(e.transform(0, 1, rec.clone(), 0)[0].data, rec.data);
        let out = e.transform(0, 2, rec.clone(), 0).remove(0);
        assert_eq!(out.data[records::BLOCK_M], alt);
        assert!(verifies(SEED, 0, &out.data, &out.data[BEAT_WORDS..]));
        assert!(!verifies(SEED, 1, &out.data, &out.data[BEAT_WORDS..]));

        // Its COMMIT: K's m, re-signed; the bitmap and shares as they were.
        let mut commit = signed_record(records::commit_block(0, v, k, true_m, 9), 4);
        commit[records::COMMIT_BITMAP] = 0b011;
        commit[2 * BEAT_WORDS] = 0xabcd;
        let rec = Write {
            word: m.record(Region::Commit, slot, 0),
            data: commit.clone(),
        };
        let out = e.transform(0, 2, rec, 0).remove(0);
        assert_eq!(out.data[records::COMMIT_M], alt);
        assert_eq!(out.data[records::COMMIT_BITMAP], 0b011);
        assert_eq!(out.data[2 * BEAT_WORDS..], commit[2 * BEAT_WORDS..]);
        assert!(verifies(SEED, 0, &out.data, &out.data[BEAT_WORDS..]));

        // Its will_commit lane in the slot; a lane of another slot passes.
        let lane = m.base(Region::WillCommit) + slot * m.vote_row_words();
        let vote = Write {
            word: lane,
            data: vec![vote_tag(v, k), true_m],
        };
        assert_eq!(
            e.transform(0, 2, vote, 0)[0].data,
            vec![vote_tag(v, k), alt]
        );
        let other = Write {
            word: lane,
            data: vec![vote_tag(v, k + 1), true_m],
        };
        assert_eq!(e.transform(0, 2, other.clone(), 0)[0].data, other.data);
    }

    #[test]
    fn with_each_prep_sig_it_makes_up_a_share_and_a_commit_for_that_value() {
        let m = mb();
        let n = 5;
        let mut e = Equivocate::new(n, m.clone(), SEED, 2);
        let (v, k) = (2u32, 3u32);
        let (true_m, alt) = (proposal(SEED, 7), proposal(SEED, 8));
        let slot = (k as usize - 1) % G;
        e.transform(
            2,
            0,
            Write {
                word: m.record(Region::Prepare, slot, 0),
                data: vec![k, true_m, v, 5],
            },
            0,
        );
        let block = records::block(records::KIND_PREP, v, k, true_m, 5);
        let rec = Write {
            word: m.record(Region::PrepSig, slot, 0),
            data: signed_record(block, 2),
        };
        for (dst, value) in [(1, true_m), (4, alt)] {
            let out = e.transform(2, dst, rec.clone(), 0);
            assert_eq!(out.len(), 3, "the PREP record, a share and a COMMIT");
            assert_eq!(out[0].data[records::BLOCK_M], value);
            let share = &out[1];
            assert_eq!(share.word, m.record(Region::Certify, slot, 2));
            assert_eq!(
                share.data[..BLOCK_WORDS],
                records::block(records::KIND_CERT, v, k, value, 5)
            );
            assert!(verifies(SEED, 2, &share.data, &share.data[BEAT_WORDS..]));
            let commit = &out[2];
            assert_eq!(commit.word, m.record(Region::Commit, slot, 2));
            assert_eq!(commit.data.len(), (3 + 2) * BEAT_WORDS);
            assert_eq!(
                commit.data[..BLOCK_WORDS],
                records::commit_block(2, v, k, value, 5)
            );
            assert!(verifies(SEED, 2, &commit.data, &commit.data[BEAT_WORDS..]));
            // f + 1 = 3 signers: 2, dst and the lowest other, ascending;
            // its own share in its place, zeros for the others.
            let mut signers = vec![2, dst, if dst == 0 { 1 } else { 0 }];
            signers.sort_unstable();
            let bitmap: u32 = signers.iter().map(|&j| 1u32 << j).sum();
            assert_eq!(commit.data[records::COMMIT_BITMAP], bitmap);
            for (c, &j) in signers.iter().enumerate() {
                let at = (2 + c) * BEAT_WORDS;
                let beat = &commit.data[at..at + BEAT_WORDS];
                if j == 2 {
                    assert_eq!(beat, &share.data[BEAT_WORDS..]);
                } else {
                    assert!(beat.iter().all(|&x| x == 0));
                }
            }
        }
    }

    #[test]
    fn slots_it_did_not_propose_and_other_records_pass() {
        let m = mb();
        let mut e = Equivocate::new(3, m.clone(), SEED, 0);
        let true_m = proposal(SEED, 2);
        // A CERT block of a slot another leader proposed.
        let rec = Write {
            word: m.record(Region::Certify, 0, 0),
            data: signed_record(records::block(records::KIND_CERT, 1, 1, true_m, 0), 2),
        };
        assert_eq!(e.transform(0, 2, rec.clone(), 0)[0].data, rec.data);
        // A SEAL passes even in a slot it proposed.
        let prep = Write {
            word: m.record(Region::Prepare, 0, 0),
            data: vec![1, true_m, 0, 0],
        };
        e.transform(0, 2, prep, 0);
        let seal = Write {
            word: m.record(Region::Seal, 0, 0),
            data: signed_record(records::seal_block(0, 1, Some([0, 1, true_m, 0])), 2),
        };
        assert_eq!(e.transform(0, 2, seal.clone(), 0)[0].data, seal.data);
        // A value outside the stream (a no-op) passes.
        assert_eq!(e.alt(0), None);
    }
}
