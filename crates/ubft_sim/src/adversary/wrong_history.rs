//! The replica with a wrong history on the v3 layout: its SEAL, which it
//! signs, claims a commit it never made.
//!
//! What it models: a Byzantine replica holding its own signing key that,
//! when it seals a view, tells every peer the same lie about its latest
//! commit L (recovery.md R18: SEAL (j, v, L) under j's signature). Where
//! its true L is (w, c, m, prev), the SEAL it sends claims (v, c + 1, m′,
//! m): a commit in the view it seals (a later view than w, or the same),
//! at the slot after its true one, of m′, the client stream's request
//! after m (a value every replica holds), whose prev is its true value.
//! Where it has no L, it claims (v, 1, the stream's first request, 0).
//! No certificate is behind the claim: nobody certified (v, c + 1, m′, m),
//! and its commit\[s(c + 1)\] record holds no COMMIT of it. Unlike
//! `lie_vc` (`LieVc`: L omitted, to some peers) and `split_view`
//! (`SplitView`: one L per half), every peer gets the same SEAL, and its
//! L is above the truth, not below: R21 (no echoed COMMIT of the sealer
//! above L) does not refuse it. What must: R19 and R22's certificate of
//! the highest L (R20). A leader that takes the SEAL finds its L the
//! highest, reads commit\[s(c*)\]\[x_T\] for the certificate, finds no
//! COMMIT of that block there, and collects again without the liar
//! (view.md, "R19: the certificate"); a follower refuses a NEW_VIEW
//! whose certificate of the highest L fails (R22).
//!
//! When it leads a view, its NEW_VIEW names its own SEAL (R19: the
//! leader's own and f others): there too its SEAL is the lie, re-signed,
//! so that it says what seal\[src\] said. Its kernel's certificate is of
//! the true highest L, so a follower that takes the lie as C* (R20) finds
//! shares that do not verify over it and refuses the NEW_VIEW (R22).
//!
//! Only its own SEAL record (seal\[src\], block then signature) and its
//! SEAL inside its NEW_VIEW change, re-signed with its key
//! ([`crate::adversary::lie_vc::reseal`]); its COMMITs, its echoes of others' SEALs
//! and every other write pass unchanged. Its own HBM keeps the truth.

use crate::adversary::equivocate::Equivocate;
use crate::adversary::lie_vc::reseal;
use crate::models::client::proposal;
use crate::models::network::{Adversary, Write};
use crate::models::signer::{sign_block, signing_key};
use ed25519_dalek::SigningKey;
use rhdl_ubft::layout::records::{self, BLOCK_WORDS};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::BEAT_WORDS;

/// See the module's documentation.
pub struct WrongHistory {
    n: usize,
    mailbox: Mailbox,
    key: SigningKey,
    seed: u64,
    /// For the client stream's successor of a value (`Equivocate::alt`).
    stream: Equivocate,
    /// The signature of a SEAL it rewrote in its NEW_VIEW, for the beat
    /// after it when that comes in a later write: (its offset in
    /// new_view, the beat).
    pending: Option<(usize, [u32; BEAT_WORDS])>,
}

impl WrongHistory {
    /// The liar `id` of an n-replica run with `seed` (the client stream's
    /// and the signing keys').
    pub fn new(n: usize, mailbox: Mailbox, seed: u64, id: usize) -> Self {
        WrongHistory {
            n,
            key: signing_key(seed, id),
            seed,
            stream: Equivocate::new(n, mailbox.clone(), seed, id),
            mailbox,
            pending: None,
        }
    }

    /// The L it claims in a SEAL of view `v` whose true L is `l`.
    pub fn claimed(&self, v: u32, l: Option<[u32; 4]>) -> [u32; 4] {
        match l {
            Some([_, c, m, _]) => [v, c + 1, self.stream.alt(m).unwrap_or(!m), m],
            None => [v, 1, proposal(self.seed, 0), 0],
        }
    }
}

impl WrongHistory {
    /// In a write of its new_view record: its own SEAL (a SEAL beat at
    /// beat 1 + 2p naming src) becomes the lie, and the beat after it its
    /// signature over the lie (now or in a later write).
    fn new_view(&mut self, src: usize, write: &mut Write) {
        let base = self.mailbox.record(Region::NewViewRecord, 0, 0);
        let at = |w: usize| w.checked_sub(base);
        for i in (0..write.data.len()).step_by(BEAT_WORDS) {
            let Some(off) = at(write.word + i) else {
                continue;
            };
            if let Some((p, sig)) = self.pending {
                if p == off {
                    let n = BEAT_WORDS.min(write.data.len() - i);
                    write.data[i..i + n].copy_from_slice(&sig[..n]);
                    self.pending = None;
                    continue;
                }
            }
            let d = &write.data[i..];
            // The SEALs: beats 1 + 2p, p < f + 1 (the certificate after).
            if off % (2 * BEAT_WORDS) == BEAT_WORDS
                && off < (2 * ((self.n - 1) / 2) + 3) * BEAT_WORDS
                && d.len() >= BLOCK_WORDS
                && d[records::KIND] == records::KIND_SEAL
                && d[records::SEAL_J] == src as u32
            {
                let l = (d[records::SEAL_LPRESENT] == 1).then(|| {
                    [
                        d[records::SEAL_LW],
                        d[records::SEAL_LC],
                        d[records::SEAL_LM],
                        d[records::SEAL_LPREV],
                    ]
                });
                let block = records::seal_block(
                    src as u32,
                    d[records::SEAL_V],
                    Some(self.claimed(d[records::SEAL_V], l)),
                );
                write.data[i..i + BLOCK_WORDS].copy_from_slice(&block);
                self.pending = Some((off + BEAT_WORDS, sign_block(&self.key, &block)));
            }
        }
    }
}

impl Adversary for WrongHistory {
    fn transform(&mut self, src: usize, _dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        if let Some((Region::Seal, _)) = self.mailbox.locate(write.word) {
            let d = &write.data;
            if d.len() > records::SEAL_LPRESENT && d[records::KIND] == records::KIND_SEAL {
                let l = (d[records::SEAL_LPRESENT] == 1).then(|| {
                    [
                        d[records::SEAL_LW],
                        d[records::SEAL_LC],
                        d[records::SEAL_LM],
                        d[records::SEAL_LPREV],
                    ]
                });
                let claim = self.claimed(d[records::SEAL_V], l);
                reseal(&self.mailbox, &self.key, src, &mut write, Some(claim));
            }
        }
        if let Some((Region::NewViewRecord, _)) = self.mailbox.locate(write.word) {
            self.new_view(src, &mut write);
        }
        vec![write]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::signer::block_verifies;
    use rhdl_ubft::params::{G, N, SB};

    const SEED: u64 = 17;

    fn mb() -> Mailbox {
        Mailbox::v3(N, G, SB)
    }

    fn seal(m: &Mailbox, v: u32, l: Option<[u32; 4]>) -> Write {
        let block = records::seal_block(2, v, l);
        let mut data = vec![0u32; 2 * BEAT_WORDS];
        data[..BLOCK_WORDS].copy_from_slice(&block);
        data[BEAT_WORDS..].copy_from_slice(&sign_block(&signing_key(SEED, 2), &block));
        Write {
            word: m.record(Region::Seal, 0, 2),
            data,
        }
    }

    #[test]
    fn every_peer_gets_a_seal_claiming_the_next_slot_in_the_sealed_view() {
        let m = mb();
        let mut w = WrongHistory::new(5, m.clone(), SEED, 2);
        let (m3, m4) = (proposal(SEED, 3), proposal(SEED, 4));
        let truth = seal(&m, 1, Some([0, 4, m3, 77]));
        for dst in [0, 1, 3, 4] {
            let out = w.transform(2, dst, truth.clone(), 0);
            assert_eq!(out.len(), 1);
            let d = &out[0].data;
            assert_eq!(
                d[..BLOCK_WORDS],
                records::seal_block(2, 1, Some([1, 5, m4, m3]))
            );
            assert!(block_verifies(SEED, 2, d, &d[BEAT_WORDS..]));
        }
        // Without L: slot 1 in the sealed view, the stream's first request.
        let out = w.transform(2, 0, seal(&m, 0, None), 0);
        assert_eq!(
            out[0].data[..BLOCK_WORDS],
            records::seal_block(2, 0, Some([0, 1, proposal(SEED, 0), 0]))
        );
        // In its NEW_VIEW (SEALs of 0, 2 and 3 at beats 1, 3 and 5), its
        // own SEAL becomes the lie, re-signed, whole or beat by beat.
        let nv = m.record(Region::NewViewRecord, 0, 0);
        let mut rec = vec![0u32; 10 * BEAT_WORDS];
        for (p, j) in [0u32, 2, 3].into_iter().enumerate() {
            let at = (1 + 2 * p) * BEAT_WORDS;
            let b = records::seal_block(j, 1, Some([0, 4, m3, 77]));
            rec[at..at + BLOCK_WORDS].copy_from_slice(&b);
            rec[at + BEAT_WORDS] = 0x5151;
        }
        let lie = records::seal_block(2, 1, Some([1, 5, m4, m3]));
        let whole = w
            .transform(
                2,
                1,
                Write {
                    word: nv,
                    data: rec.clone(),
                },
                0,
            )
            .remove(0);
        let beats: Vec<u32> = (0..10)
            .flat_map(|b| {
                let part = Write {
                    word: nv + b * BEAT_WORDS,
                    data: rec[b * BEAT_WORDS..(b + 1) * BEAT_WORDS].to_vec(),
                };
                w.transform(2, 1, part, 0).remove(0).data
            })
            .collect();
        for d in [&whole.data, &beats] {
            let at = 3 * BEAT_WORDS;
            assert_eq!(d[at..at + BLOCK_WORDS], lie);
            assert!(block_verifies(SEED, 2, &lie, &d[at + BEAT_WORDS..]));
            assert_eq!(d[..at], rec[..at], "the header and 0's SEAL");
            assert_eq!(d[at + 2 * BEAT_WORDS..], rec[at + 2 * BEAT_WORDS..]);
        }
        // Other records pass.
        let mut echo = truth.clone();
        echo.word = m.record(Region::EchoSeal, 0, 2);
        assert_eq!(w.transform(2, 0, echo.clone(), 0), vec![echo]);
    }
}
