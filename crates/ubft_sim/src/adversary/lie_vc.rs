//! The view-change liar on the v3 layout: it signs the SEALs it makes up.
//!
//! What it models: a Byzantine replica holding its own signing key, which
//! tells its peers different things about its latest commit when it seals
//! a view. A v3 SEAL is (j, v, L) under j's signature (recovery.md R18), so
//! the lie is a SEAL that the liar signs itself: of the peers in ascending
//! id (the liar left out), rank 0 is sent the true SEAL, and every other
//! peer a SEAL of the same view with no L (words 3 to 7 zero), re-signed.
//! That is the "SEAL_VIEW without the bridge": a SEAL that omits a
//! commit the liar made, shown to some peers and not to others. What must
//! stop it is R21: a SEAL whose L is below a COMMIT of its signer that
//! some replica echoed (echo_commit) fails at the new leader and at every
//! follower, so the NEW_VIEW that counts it is refused, and an honest
//! leader leaves it out.
//! Where the liar committed nothing, its lie is the truth.
//!
//! Only its own SEAL record (seal\[src\], block then signature) changes;
//! every other write, its echoes of other replicas' SEALs included, passes
//! unchanged. Its own HBM keeps the true SEAL (the kernel writes it
//! locally).

use crate::models::network::{Adversary, Write};
use crate::models::signer::{sign_block, signing_key};
use ed25519_dalek::SigningKey;
use rhdl_ubft::layout::records::{self, BLOCK_WORDS};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::BEAT_WORDS;

/// When `write` is `src`'s own SEAL record from its start (seal\[src\]: the
/// SEAL block naming src, then its signature), makes its L `l` (none, or
/// (w, c, m, prev)) in the same view and signs the block anew with `key`.
/// Returns whether it did. (`LieVc` and `split_view::SplitView`.)
pub fn reseal(
    mailbox: &Mailbox,
    key: &SigningKey,
    src: usize,
    write: &mut Write,
    l: Option<[u32; 4]>,
) -> bool {
    let Some((Region::Seal, off)) = mailbox.locate(write.word) else {
        return false;
    };
    let d = &mut write.data;
    if off % mailbox.stride(Region::Seal) != 0
        || d.len() < 2 * BEAT_WORDS
        || d[records::KIND] != records::KIND_SEAL
        || d[records::SEAL_J] != src as u32
    {
        return false;
    }
    let block = records::seal_block(src as u32, d[records::SEAL_V], l);
    d[..BLOCK_WORDS].copy_from_slice(&block);
    d[BEAT_WORDS..2 * BEAT_WORDS].copy_from_slice(&sign_block(key, &block));
    true
}

/// See the module's documentation.
pub struct LieVc {
    mailbox: Mailbox,
    key: SigningKey,
}

impl LieVc {
    /// The liar `id` of a run with `seed` (the seed of the signing keys:
    /// [`signing_key`]).
    pub fn new(mailbox: Mailbox, seed: u64, id: usize) -> Self {
        LieVc {
            mailbox,
            key: signing_key(seed, id),
        }
    }

    /// Whether `dst` is told the lie: every peer but the lowest (rank 0).
    pub fn lied_to(src: usize, dst: usize) -> bool {
        let rank = if dst > src { dst - 1 } else { dst };
        rank > 0
    }
}

impl Adversary for LieVc {
    fn transform(&mut self, src: usize, dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        if Self::lied_to(src, dst) {
            reseal(&self.mailbox, &self.key, src, &mut write, None);
        }
        vec![write]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::params::{G, N, SB};

    const SEED: u64 = 5;

    fn mb() -> Mailbox {
        Mailbox::v3(N, G, SB)
    }

    fn verifies(id: usize, block: &[u32], sig: &[u32]) -> bool {
        crate::models::signer::block_verifies(SEED, id, block, sig)
    }

    /// Replica 1's SEAL of view 3 with L = (w 2, c 7, m 0xabc, prev 0x55).
    fn seal(m: &Mailbox) -> Write {
        let block = [records::KIND_SEAL, 1, 3, 2, 7, 0xabc, 0x55, 1];
        let mut data = vec![0u32; 2 * BEAT_WORDS];
        data[..BLOCK_WORDS].copy_from_slice(&block);
        let sig = sign_block(&signing_key(SEED, 1), &block);
        data[BEAT_WORDS..].copy_from_slice(&sig);
        Write {
            word: m.record(Region::Seal, 0, 1),
            data,
        }
    }

    #[test]
    fn the_lowest_peer_gets_the_true_seal_and_the_others_one_without_l_signed_by_the_liar() {
        let m = mb();
        let true_seal = seal(&m);
        let mut lie = LieVc::new(m.clone(), SEED, 1);
        // n = 3, liar 1: replica 0 is rank 0, replica 2 rank 1.
        assert_eq!(
            lie.transform(1, 0, true_seal.clone(), 0),
            vec![true_seal.clone()]
        );
        let out = lie.transform(1, 2, true_seal.clone(), 0);
        assert_eq!(out.len(), 1);
        let d = &out[0].data;
        assert_eq!(out[0].word, true_seal.word);
        assert_eq!(
            &d[..BLOCK_WORDS],
            &[records::KIND_SEAL, 1, 3, 0, 0, 0, 0, 0]
        );
        assert!(verifies(1, &d[..BLOCK_WORDS], &d[BEAT_WORDS..]));
        assert!(verifies(
            1,
            &true_seal.data[..BLOCK_WORDS],
            &true_seal.data[BEAT_WORDS..]
        ));
        // n = 5, liar 2: 0 is told the truth, 1, 3 and 4 the lie.
        assert!(!LieVc::lied_to(2, 0));
        assert!([1, 3, 4].iter().all(|&d| LieVc::lied_to(2, d)));
    }

    #[test]
    fn other_records_and_other_replicas_seals_pass() {
        let m = mb();
        let mut lie = LieVc::new(m.clone(), SEED, 1);
        // Its echo of replica 0's SEAL (echo_seal[0][1]) passes.
        let mut echo = seal(&m);
        echo.word = m.record(Region::EchoSeal, 0, 1);
        assert_eq!(lie.transform(1, 2, echo.clone(), 0), vec![echo]);
        // A CERT share passes.
        let share = Write {
            word: m.record(Region::Certify, 0, 1),
            data: vec![7; 2 * BEAT_WORDS],
        };
        assert_eq!(lie.transform(1, 2, share.clone(), 0), vec![share]);
        // A SEAL block in its seal entry that names another replica passes.
        let mut other = seal(&m);
        other.data[records::SEAL_J] = 0;
        assert_eq!(lie.transform(1, 2, other.clone(), 0), vec![other]);
    }
}
