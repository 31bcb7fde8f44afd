//! The leader that proposes a made-up value, on the v3 layout: it signs
//! what it makes up.
//!
//! What it models: a Byzantine leader holding its own signing key that
//! proposes, for every slot it leads, a value no client sent, the same
//! value to every replica (no equivocation), and backs it with everything
//! it writes for that slot: its PREPARE, its signed PREP block (prep_sig
//! and its own echo_prep entry, re-signed), its fast-path lanes (will_cert
//! and will_commit) and its CERT share and COMMIT (re-signed). As
//! [`crate::adversary::equivocate::Equivocate`] does, it does not wait for its
//! honest kernel to certify (the kernel never delivers the made-up value,
//! which is not in its own buffer either): with its prep_sig it also makes
//! up its CERT share and a COMMIT of the made-up value, signed with its
//! key, whose certificate holds its own share and zeros for the others.
//! The signatures all verify; what must stop it is validity (recovery.md
//! R1, R2, section 4): no honest replica holds the value in its request
//! buffer B, and no accepted NEW_VIEW carries it, so none locks, delivers,
//! certifies or decides it (a value not valid yet is a miss: the replica
//! polls again, times out with nothing locked, and changes view, R14).
//!
//! The made-up value of slot k is [`MadeUp::value`]: the client stream's
//! request at index 2^32 − 2 − k ([`crate::models::client::proposal`] with the
//! run's seed), which no client sends in a run (a run's clients send the
//! stream from index 0 on, a few hundred requests at most), is nonzero,
//! and is distinct from every request a client does send (the stream is a
//! bijection of its index).
//!
//! Which slots: those it proposed, as (v, k) from its own PREPAREs; its
//! records of other slots (it follows honestly when it does not lead), and
//! every record that is not a vote, a prepare, a PREP, CERT or COMMIT
//! block (echo_commit, seal, echo_seal, new_view), pass unchanged. Its own
//! HBM keeps the true records (the kernel writes them locally).

use crate::models::client::proposal;
use crate::models::network::{Adversary, Write};
use crate::models::signer::{sign_block, signing_key};
use ed25519_dalek::SigningKey;
use rhdl_ubft::layout::records::{self, BLOCK_WORDS};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::{vote_tag, BEAT_WORDS};
use std::collections::HashMap;

/// See the module's documentation.
pub struct MadeUp {
    n: usize,
    mailbox: Mailbox,
    key: SigningKey,
    seed: u64,
    /// (v, k) of the slots it proposed → the true m.
    led: HashMap<(u32, u32), u32>,
}

/// `src`'s CERT share over `cert` (a CERT block (v, k, m, prev)) as its
/// certify\[s(k)\]\[src\] record, and a COMMIT of it (commit\[s(k)\]\[src\])
/// signed with `key`, whose certificate names src, `with` and the lowest
/// others up to f + 1 signers: src's share in its place, and in each other
/// signer's place `other(j)` (src cannot sign for them). (`MadeUp` with
/// zeros; `forge_cert::ForgeCert` with a share of another block.)
pub fn share_and_commit(
    mailbox: &Mailbox,
    n: usize,
    key: &SigningKey,
    src: usize,
    with: usize,
    cert: &[u32; BLOCK_WORDS],
    other: impl Fn(usize) -> [u32; BEAT_WORDS],
) -> Vec<Write> {
    let (v, k, m, prev) = (
        cert[records::BLOCK_V],
        cert[records::BLOCK_K],
        cert[records::BLOCK_M],
        cert[records::BLOCK_PREV],
    );
    let slot = (k as usize).wrapping_sub(1) % mailbox.g;
    let share = sign_block(key, cert);
    let mut certify = vec![0u32; 2 * BEAT_WORDS];
    certify[..BLOCK_WORDS].copy_from_slice(cert);
    certify[BEAT_WORDS..].copy_from_slice(&share);
    let f = (n - 1) / 2;
    let mut signers = vec![src, with];
    signers.extend((0..n).filter(|&j| j != src && j != with));
    signers.dedup();
    signers.truncate(f + 1);
    signers.sort_unstable();
    let kb = records::commit_block(src as u32, v, k, m, prev);
    let mut commit = vec![0u32; (3 + f) * BEAT_WORDS];
    commit[..BLOCK_WORDS].copy_from_slice(&kb);
    commit[records::COMMIT_BITMAP] = signers.iter().map(|&j| 1u32 << j).sum();
    commit[BEAT_WORDS..2 * BEAT_WORDS].copy_from_slice(&sign_block(key, &kb));
    for (c, &j) in signers.iter().enumerate() {
        let at = (2 + c) * BEAT_WORDS;
        let beat = if j == src { share } else { other(j) };
        commit[at..at + BEAT_WORDS].copy_from_slice(&beat);
    }
    vec![
        Write {
            word: mailbox.record(Region::Certify, slot, src),
            data: certify,
        },
        Write {
            word: mailbox.record(Region::Commit, slot, src),
            data: commit,
        },
    ]
}

impl MadeUp {
    /// The liar `id` of an n-replica run with `seed` (the seed of the
    /// client stream and of the signing keys: [`signing_key`]).
    pub fn new(n: usize, mailbox: Mailbox, seed: u64, id: usize) -> Self {
        MadeUp {
            n,
            mailbox,
            key: signing_key(seed, id),
            seed,
            led: HashMap::new(),
        }
    }

    /// The value it proposes at slot k in a run with `seed`: a request no
    /// client sends (see the module's documentation).
    pub fn value(seed: u64, k: u32) -> u32 {
        proposal(seed, u32::MAX as u64 - 2 - k as u64)
    }

    /// Makes block `b` (kind PREP, CERT or COMMIT) of a slot it proposed,
    /// with the true m, the made-up value's, re-signed into `sig`; false
    /// when the block is not such a one.
    fn make_up(&self, b: &mut [u32], sig: &mut [u32]) -> bool {
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
        b[m] = Self::value(self.seed, b[k]);
        let block: [u32; BLOCK_WORDS] = b[..BLOCK_WORDS].try_into().expect("a block");
        sig.copy_from_slice(&sign_block(&self.key, &block)[..sig.len()]);
        true
    }
}

impl Adversary for MadeUp {
    fn transform(&mut self, src: usize, dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        let Some((region, off)) = self.mailbox.locate(write.word) else {
            return vec![write];
        };
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
                    d[records::PREPARE_M] = Self::value(self.seed, k);
                }
            }
            Region::WillCert | Region::WillCommit => {
                // Its own lane (tag(v, k), m), in a slot it proposed.
                if off % 2 == 0 && write.data.len() >= 2 {
                    let (tag, m) = (write.data[0], write.data[1]);
                    let k = self
                        .led
                        .iter()
                        .find(|e| vote_tag(e.0 .0, e.0 .1) == tag && *e.1 == m)
                        .map(|e| e.0 .1);
                    if let Some(k) = k {
                        write.data[1] = Self::value(self.seed, k);
                    }
                }
            }
            Region::PrepSig if off % self.mailbox.stride(region) == 0 => {
                // The PREP block, then its CERT share and COMMIT of the
                // made-up value, made up at once.
                if write.data.len() >= 2 * BEAT_WORDS {
                    let (head, tail) = write.data.split_at_mut(BEAT_WORDS);
                    if self.make_up(head, &mut tail[..BEAT_WORDS]) {
                        let b: [u32; BLOCK_WORDS] =
                            head[..BLOCK_WORDS].try_into().expect("a block");
                        let cert = records::block(
                            records::KIND_CERT,
                            b[records::BLOCK_V],
                            b[records::BLOCK_K],
                            b[records::BLOCK_M],
                            b[records::BLOCK_PREV],
                        );
                        let extra = share_and_commit(
                            &self.mailbox,
                            self.n,
                            &self.key,
                            src,
                            dst,
                            &cert,
                            |_| [0; BEAT_WORDS],
                        );
                        return std::iter::once(write).chain(extra).collect();
                    }
                }
            }
            Region::PrepSig | Region::EchoPrep | Region::Certify | Region::Commit => {
                // Whole records from their first beat: the block, then the
                // signature over it on the next beat.
                let stride = self.mailbox.stride(region);
                if off % stride == 0 {
                    let mut at = 0;
                    while at + 2 * BEAT_WORDS <= write.data.len() {
                        let (head, tail) = write.data[at..].split_at_mut(BEAT_WORDS);
                        self.make_up(head, &mut tail[..BEAT_WORDS]);
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
    use crate::models::signer::block_verifies;
    use rhdl_ubft::params::{G, N, SB};

    const SEED: u64 = 31;

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
    fn the_made_up_value_is_no_request_a_client_sends() {
        let sent: std::collections::HashSet<u32> =
            (0..100_000).map(|i| proposal(SEED, i)).collect();
        for k in 1..1000 {
            let x = MadeUp::value(SEED, k);
            assert!(x != 0 && !sent.contains(&x), "k {k}");
            assert_ne!(x, MadeUp::value(SEED, k + 1));
        }
    }

    #[test]
    fn every_peer_gets_the_made_up_value_signed_by_the_leader_with_its_share_and_commit() {
        let m = mb();
        let (v, k, prev) = (0u32, 1u32, 0u32);
        let true_m = proposal(SEED, 0);
        let x = MadeUp::value(SEED, k);
        let mut e = MadeUp::new(3, m.clone(), SEED, 0);
        let prepare = Write {
            word: m.record(Region::Prepare, 0, 0),
            data: vec![k, true_m, v, prev],
        };
        for dst in [1, 2] {
            assert_eq!(
                e.transform(0, dst, prepare.clone(), 0)[0].data,
                vec![k, x, v, prev]
            );
        }
        let lane = m.base(Region::WillCert);
        let vote = Write {
            word: lane,
            data: vec![vote_tag(v, k), true_m],
        };
        assert_eq!(e.transform(0, 2, vote, 0)[0].data, vec![vote_tag(v, k), x]);
        let rec = Write {
            word: m.record(Region::PrepSig, 0, 0),
            data: signed_record(records::block(records::KIND_PREP, v, k, true_m, prev), 2),
        };
        for dst in [1, 2] {
            let out = e.transform(0, dst, rec.clone(), 0);
            assert_eq!(out.len(), 3, "the PREP record, a share and a COMMIT");
            let d = &out[0].data;
            assert_eq!(
                d[..BLOCK_WORDS],
                records::block(records::KIND_PREP, v, k, x, prev)
            );
            assert!(block_verifies(SEED, 0, d, &d[BEAT_WORDS..]));
            let share = &out[1].data;
            assert_eq!(
                share[..BLOCK_WORDS],
                records::block(records::KIND_CERT, v, k, x, prev)
            );
            assert!(block_verifies(SEED, 0, share, &share[BEAT_WORDS..]));
            let commit = &out[2].data;
            assert_eq!(out[2].word, m.record(Region::Commit, 0, 0));
            assert_eq!(
                commit[..BLOCK_WORDS],
                records::commit_block(0, v, k, x, prev)
            );
            assert_eq!(commit[records::COMMIT_BITMAP], 1 | 1 << dst);
            assert!(block_verifies(SEED, 0, commit, &commit[BEAT_WORDS..]));
        }
        // A slot it did not propose passes, and so does a SEAL.
        let other = Write {
            word: m.record(Region::Certify, 1, 0),
            data: signed_record(records::block(records::KIND_CERT, 1, 2, true_m, 0), 2),
        };
        assert_eq!(e.transform(0, 1, other.clone(), 0), vec![other]);
        let seal = Write {
            word: m.record(Region::Seal, 0, 0),
            data: signed_record(records::seal_block(0, 0, None), 2),
        };
        assert_eq!(e.transform(0, 1, seal.clone(), 0), vec![seal]);
    }
}
