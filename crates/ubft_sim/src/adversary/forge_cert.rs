//! The certificate forger on the v3 layout: it signs COMMIT records whose
//! certificates do not hold.
//!
//! What it models: a Byzantine replica holding its own signing key, which
//! cannot sign for the others but can put any bitmap and any beats in the
//! certificate of a COMMIT it signs (recovery.md section 3: a COMMIT is
//! the block (j, v, k, m, prev), the signer bitmap, σ_j, and f + 1 CERT
//! shares). For every COMMIT record its kernel writes, of (v, k, m, prev)
//! with its true certificate, each peer is sent two COMMITs it signs:
//!
//! - at commit\[s(k)\]\[src\], in place of the true one, a COMMIT of the same
//!   (v, k) and prev with another value m′ (the client stream's request
//!   after m, which every replica holds, so validity does not stop it):
//!   the same bitmap, its own CERT share over (v, k, m′, prev), and in
//!   each honest signer's place that signer's true share, a valid
//!   signature over the other block (a replayed share);
//! - at commit\[s(k + 1)\]\[src\], a COMMIT of (v, k + 1, m″, prev = m′),
//!   with m″ the request after m′: a certificate of a value nobody
//!   certified at slot k + 1 whose prev says slot k decided m′. Its bitmap
//!   names src and the lowest other signers up to f + 1: its own share
//!   over the block, and in each other place the first honest share of the
//!   true certificate (of slot k's block). This one targets the catch-up
//!   from a certificate above (R24; WATCH's COMMIT poll and CertCheck,
//!   `docs/cert_check.md`): an honest replica still at slot k that took it
//!   would decide (k, m′).
//!
//! Each record's signature verifies as src's; each certificate holds one
//! valid share (its own) and f that do not verify over its block. What
//! must stop it: R11 step 1 (the certificate of a COMMIT is checked before
//! it is counted or adopted, R10) and CertCheck before R24. Honest
//! replicas must not decide, commit or catch up from either.
//!
//! When it leads a view, the certificate of the NEW_VIEW it writes
//! (R19: the f + 1 shares over the highest L its SEALs carry) is forged
//! too: every share of a signer other than itself gets one bit flipped
//! (a bad signature under an honest signer's bit; its own share, if it is
//! a signer, stays valid). What must stop that is R22: a follower
//! verifies each share over C* and refuses the NEW_VIEW at the second
//! failure, then seals the view it is in.
//!
//! Its CERT shares (certify), votes, SEAL and every other record pass
//! unchanged, so its kernel takes part in the slow path honestly; only
//! the COMMITs and the NEW_VIEW's certificate lie. Its own HBM keeps the
//! true records.

use crate::adversary::equivocate::Equivocate;
use crate::models::network::{Adversary, Write};
use crate::models::signer::{sign_block, signing_key};
use ed25519_dalek::SigningKey;
use rhdl_ubft::layout::records::{self, BLOCK_WORDS};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::BEAT_WORDS;

/// See the module's documentation.
pub struct ForgeCert {
    n: usize,
    mailbox: Mailbox,
    key: SigningKey,
    /// For the client stream's successor of a value (`Equivocate::alt`).
    stream: Equivocate,
    /// The certificate bitmap of the NEW_VIEW it last wrote.
    nv_signers: Option<u32>,
}

impl ForgeCert {
    /// The forger `id` of an n-replica run with `seed` (the client
    /// stream's and the signing keys').
    pub fn new(n: usize, mailbox: Mailbox, seed: u64, id: usize) -> Self {
        ForgeCert {
            n,
            key: signing_key(seed, id),
            stream: Equivocate::new(n, mailbox.clone(), seed, id),
            mailbox,
            nv_signers: None,
        }
    }

    /// The value it claims instead of m: the client stream's request after
    /// m (a value outside the stream's first `Equivocate::SPAN`, a no-op,
    /// gets its bits flipped).
    pub fn other(&self, m: u32) -> u32 {
        self.stream.alt(m).unwrap_or(!m)
    }

    /// A COMMIT record of `src` for (v, k, m, prev) with signers `bitmap`
    /// and the certificate `shares` (f + 1 beats, ascending signer), signed
    /// with its key.
    fn commit(&self, src: usize, b: [u32; 4], bitmap: u32, shares: &[[u32; BEAT_WORDS]]) -> Write {
        let [v, k, m, prev] = b;
        let slot = (k as usize).wrapping_sub(1) % self.mailbox.g;
        let kb = records::commit_block(src as u32, v, k, m, prev);
        let mut d = vec![0u32; (2 + shares.len()) * BEAT_WORDS];
        d[..BLOCK_WORDS].copy_from_slice(&kb);
        d[records::COMMIT_BITMAP] = bitmap;
        d[BEAT_WORDS..2 * BEAT_WORDS].copy_from_slice(&sign_block(&self.key, &kb));
        for (c, s) in shares.iter().enumerate() {
            d[(2 + c) * BEAT_WORDS..(3 + c) * BEAT_WORDS].copy_from_slice(s);
        }
        Write {
            word: self.mailbox.record(Region::Commit, slot, src),
            data: d,
        }
    }

    /// The first word of a NEW_VIEW's certificate (after the header beat
    /// and the f + 1 SEALs of two beats each).
    pub fn nv_cert_word(n: usize) -> usize {
        (2 * ((n - 1) / 2) + 3) * BEAT_WORDS
    }

    /// Flips bit 8 of word 0 of every certificate share in `write` (a part
    /// of its new_view record) whose signer is not `src`: the signers are
    /// the header's certificate bitmap, in ascending order, when the write
    /// holds the header (else the bitmap it last saw; else every share).
    fn forge_new_view(&mut self, src: usize, write: &mut Write) {
        let cert = Self::nv_cert_word(self.n);
        let f1 = (self.n - 1) / 2 + 1;
        for i in 0..write.data.len() {
            let Some((Region::NewViewRecord, off)) = self.mailbox.locate(write.word + i) else {
                continue;
            };
            if off == records::NV_CERT {
                self.nv_signers = Some(write.data[i]);
            }
            if off >= cert && off < cert + f1 * BEAT_WORDS && (off - cert) % BEAT_WORDS == 0 {
                let c = (off - cert) / BEAT_WORDS;
                let signer = self
                    .nv_signers
                    .and_then(|b| (0..32).filter(|&j| b >> j & 1 == 1).nth(c));
                if signer != Some(src) {
                    write.data[i] ^= 0x100;
                }
            }
        }
    }

    /// Its own CERT share over (v, k, m, prev).
    fn share(&self, b: [u32; 4]) -> [u32; BEAT_WORDS] {
        let [v, k, m, prev] = b;
        sign_block(
            &self.key,
            &records::block(records::KIND_CERT, v, k, m, prev),
        )
    }
}

impl Adversary for ForgeCert {
    fn transform(&mut self, src: usize, _dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        let f1 = (self.n - 1) / 2 + 1;
        if let Some((Region::NewViewRecord, _)) = self.mailbox.locate(write.word) {
            self.forge_new_view(src, &mut write);
            return vec![write];
        }
        let Some((Region::Commit, off)) = self.mailbox.locate(write.word) else {
            return vec![write];
        };
        let d = &write.data;
        if off % self.mailbox.stride(Region::Commit) != 0
            || d.len() < (2 + f1) * BEAT_WORDS
            || d[records::KIND] != records::KIND_COMMIT
            || d[records::COMMIT_J] != src as u32
        {
            return vec![write];
        }
        let (v, k, m, prev) = (
            d[records::COMMIT_V],
            d[records::COMMIT_K],
            d[records::COMMIT_M],
            d[records::COMMIT_PREV],
        );
        let bitmap = d[records::COMMIT_BITMAP];
        let signers: Vec<usize> = (0..32).filter(|&j| bitmap >> j & 1 == 1).collect();
        let true_shares: Vec<[u32; BEAT_WORDS]> = (0..f1)
            .map(|c| {
                d[(2 + c) * BEAT_WORDS..(3 + c) * BEAT_WORDS]
                    .try_into()
                    .expect("a beat")
            })
            .collect();
        // The same slot, another value: its share re-signed, the others'
        // replayed from the true certificate.
        let m1 = self.other(m);
        let same = [v, k, m1, prev];
        let shares: Vec<_> = (0..f1)
            .map(|c| {
                if signers.get(c) == Some(&src) {
                    self.share(same)
                } else {
                    true_shares[c]
                }
            })
            .collect();
        let forged = self.commit(src, same, bitmap, &shares);
        // Slot k + 1, whose prev says k decided m1.
        let above = [v, k + 1, self.other(m1), m1];
        let replayed = signers
            .iter()
            .position(|&j| j != src)
            .map(|c| true_shares[c])
            .unwrap_or([0; BEAT_WORDS]);
        let mut names = vec![src];
        names.extend((0..self.n).filter(|&j| j != src));
        names.truncate(f1);
        names.sort_unstable();
        let shares: Vec<_> = names
            .iter()
            .map(|&j| {
                if j == src {
                    self.share(above)
                } else {
                    replayed
                }
            })
            .collect();
        let bitmap_above = names.iter().map(|&j| 1u32 << j).sum();
        let forged_above = self.commit(src, above, bitmap_above, &shares);
        vec![forged, forged_above]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::client::proposal;
    use crate::models::signer::block_verifies;
    use rhdl_ubft::params::{G, N, SB};

    const SEED: u64 = 13;

    fn mb() -> Mailbox {
        Mailbox::v3(N, G, SB)
    }

    /// Replica j's true share over `cert`.
    fn share_of(j: usize, cert: &[u32; BLOCK_WORDS]) -> [u32; BEAT_WORDS] {
        sign_block(&signing_key(SEED, j), cert)
    }

    #[test]
    fn each_commit_becomes_two_signed_commits_whose_certificates_fail() {
        let m = mb();
        let n = 3;
        let (v, k, prev) = (0u32, 4u32, proposal(SEED, 2));
        let (m0, m1, m2) = (proposal(SEED, 3), proposal(SEED, 4), proposal(SEED, 5));
        let cert = records::block(records::KIND_CERT, v, k, m0, prev);
        // Replica 2's true COMMIT: signers 0 and 2.
        let kb = records::commit_block(2, v, k, m0, prev);
        let mut d = vec![0u32; 4 * BEAT_WORDS];
        d[..BLOCK_WORDS].copy_from_slice(&kb);
        d[records::COMMIT_BITMAP] = 0b101;
        d[BEAT_WORDS..2 * BEAT_WORDS].copy_from_slice(&sign_block(&signing_key(SEED, 2), &kb));
        d[2 * BEAT_WORDS..3 * BEAT_WORDS].copy_from_slice(&share_of(0, &cert));
        d[3 * BEAT_WORDS..4 * BEAT_WORDS].copy_from_slice(&share_of(2, &cert));
        let slot = (k as usize - 1) % G;
        let rec = Write {
            word: m.record(Region::Commit, slot, 2),
            data: d,
        };
        let mut fc = ForgeCert::new(n, m.clone(), SEED, 2);
        let out = fc.transform(2, 0, rec, 0);
        assert_eq!(out.len(), 2);
        // The same slot, m1: signed by 2, bitmap kept; 2's share verifies
        // over the forged block, 0's (replayed) does not.
        let same = &out[0];
        assert_eq!(same.word, m.record(Region::Commit, slot, 2));
        let b = &same.data;
        assert_eq!(b[..BLOCK_WORDS], records::commit_block(2, v, k, m1, prev));
        assert_eq!(b[records::COMMIT_BITMAP], 0b101);
        assert!(block_verifies(SEED, 2, b, &b[BEAT_WORDS..]));
        let forged_cert = records::block(records::KIND_CERT, v, k, m1, prev);
        assert!(!block_verifies(SEED, 0, &forged_cert, &b[2 * BEAT_WORDS..]));
        assert!(block_verifies(SEED, 2, &forged_cert, &b[3 * BEAT_WORDS..]));
        // Slot k + 1: (v, k + 1, m2, prev = m1), signers 0 and 2.
        let above = &out[1];
        assert_eq!(above.word, m.record(Region::Commit, slot + 1, 2));
        let b = &above.data;
        assert_eq!(b[..BLOCK_WORDS], records::commit_block(2, v, k + 1, m2, m1));
        assert_eq!(b[records::COMMIT_BITMAP], 0b101);
        assert!(block_verifies(SEED, 2, b, &b[BEAT_WORDS..]));
        let above_cert = records::block(records::KIND_CERT, v, k + 1, m2, m1);
        assert!(!block_verifies(SEED, 0, &above_cert, &b[2 * BEAT_WORDS..]));
        assert!(block_verifies(SEED, 2, &above_cert, &b[3 * BEAT_WORDS..]));
    }

    #[test]
    fn a_new_views_shares_of_other_signers_are_flipped_and_its_own_kept() {
        let m = mb();
        let n = 5;
        let mut fc = ForgeCert::new(n, m.clone(), SEED, 1);
        let at = m.record(Region::NewViewRecord, 0, 0);
        let cert = ForgeCert::nv_cert_word(n);
        assert_eq!(cert, 7 * BEAT_WORDS);
        let mut data: Vec<u32> = (1..=10 * BEAT_WORDS as u32).collect();
        data[records::NV_CERT] = 0b01110; // signers 1, 2, 3
        let out = fc.transform(
            1,
            2,
            Write {
                word: at,
                data: data.clone(),
            },
            0,
        );
        let d = &out[0].data;
        for (c, flipped) in [(0, false), (1, true), (2, true)] {
            let w = cert + c * BEAT_WORDS;
            assert_eq!(d[w] != data[w], flipped, "share {c}");
            assert_eq!(d[w + 1..w + BEAT_WORDS], data[w + 1..w + BEAT_WORDS]);
        }
        assert_eq!(d[..cert], data[..cert], "the header and the SEALs");
    }

    #[test]
    fn other_records_pass() {
        let m = mb();
        let mut fc = ForgeCert::new(3, m.clone(), SEED, 2);
        let share = Write {
            word: m.record(Region::Certify, 0, 2),
            data: vec![7; 2 * BEAT_WORDS],
        };
        assert_eq!(fc.transform(2, 0, share.clone(), 0), vec![share]);
        let seal = Write {
            word: m.record(Region::Seal, 0, 2),
            data: vec![records::KIND_SEAL; 2 * BEAT_WORDS],
        };
        assert_eq!(fc.transform(2, 0, seal.clone(), 0), vec![seal]);
    }
}
