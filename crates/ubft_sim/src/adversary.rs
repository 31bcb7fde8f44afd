//! Adversaries: what a Byzantine replica does with the writes it makes.
//!
//! A faulty replica affects the others only through its RDMA writes, so an
//! adversary transforms each outgoing write (see `network::Adversary`): it
//! may drop it, change it, or add writes of its own. The receiver's slot
//! guard still applies to whatever it returns.

pub mod equivocate;
pub mod forge_cert;
pub mod lie_vc;
pub mod made_up;
pub mod omit_carried;
pub mod split_view;
pub mod wrong_history;

use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::{share_words, vote_words, Mailbox, Region, Version, VC_WORDS};
use rhdl_ubft::params::BEAT_WORDS;

pub use crate::models::network::Equivocate;

/// Corrupts every share it writes into certify (one byte flipped in each of
/// its 16 words; on v3 the share after the record's header beat) and sends no fast-path votes, so the slot goes to the slow
/// path and its shares arrive there, flagged valid but forged.
#[derive(Clone, Debug)]
pub struct ForgeShares {
    pub mailbox: Mailbox,
}

impl Adversary for ForgeShares {
    fn transform(&mut self, _src: usize, _dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        match self.mailbox.locate(write.word).map(|(r, _)| r) {
            Some(Region::WillCert | Region::WillCommit) => vec![],
            Some(Region::Certify) => {
                // v3: the share only, after the record's header beat (the
                // block it claims to sign stays as the protocol says).
                for (i, w) in write.data.iter_mut().enumerate() {
                    let share = self.mailbox.version != Version::V3
                        || self.mailbox.locate(write.word + i).is_some_and(|(_, off)| {
                            off % self.mailbox.stride(Region::Certify) >= BEAT_WORDS
                        });
                    if share {
                        *w ^= 0x0000_0100;
                    }
                }
                vec![write]
            }
            _ => vec![write],
        }
    }

    fn knows_v3(&self) -> bool {
        true
    }
}

/// Writes no fast-path votes (will_cert, will_commit) and follows the rest
/// of the protocol: the fast path cannot complete, the slow path can.
#[derive(Clone, Debug)]
pub struct MuteFast {
    pub mailbox: Mailbox,
}

impl Adversary for MuteFast {
    fn transform(&mut self, _src: usize, _dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
        match self.mailbox.locate(write.word).map(|(r, _)| r) {
            Some(Region::WillCert | Region::WillCommit) => vec![],
            _ => vec![write],
        }
    }

    fn only_drops(&self) -> bool {
        true
    }
}

/// Several adversaries on one replica, applied in order: each write the
/// first returns goes through the second, and so on (a scenario's faults on
/// one replica compose this way).
pub struct Chain(pub Vec<Box<dyn Adversary>>);

impl Adversary for Chain {
    fn transform(&mut self, src: usize, dst: usize, write: Write, cycle: u64) -> Vec<Write> {
        let mut writes = vec![write];
        for adv in self.0.iter_mut() {
            writes = writes
                .into_iter()
                .flat_map(|w| adv.transform(src, dst, w, cycle))
                .collect();
        }
        writes
    }

    fn only_drops(&self) -> bool {
        self.0.iter().all(|a| a.only_drops())
    }

    fn knows_v3(&self) -> bool {
        self.0.iter().all(|a| a.knows_v3())
    }
}

/// Goes silent: every write sent at or after `from_cycle` is dropped (the
/// replica keeps running and sees its commands complete; nobody hears it).
#[derive(Clone, Debug)]
pub struct Silent {
    pub from_cycle: u64,
}

impl Adversary for Silent {
    fn transform(&mut self, _src: usize, _dst: usize, write: Write, cycle: u64) -> Vec<Write> {
        if cycle >= self.from_cycle {
            vec![]
        } else {
            vec![write]
        }
    }

    fn only_drops(&self) -> bool {
        true
    }
}

/// Lies in the view change: each peer gets a different view-change record
/// (view, slot | phase << 16, k, m), with the flag (tag(view, k), m) that
/// matches it, so every lie passes `choose`'s validity test. Peers are
/// ranked by id without the liar (rank 0 is the lowest id): rank 0 is told
/// the true (k, m), the others `m ^ rank << 20`, and every record claims
/// phase 2 (will_commit or commit), the strongest report. Writes outside
/// the vc and vc_valid regions pass unchanged.
#[derive(Clone, Debug)]
pub struct LieVc {
    pub mailbox: Mailbox,
}

impl LieVc {
    pub fn new(mailbox: Mailbox) -> Self {
        LieVc { mailbox }
    }

    /// The m peer `dst` is told instead of `m` by liar `src`.
    pub fn lie(m: u32, src: usize, dst: usize) -> u32 {
        let rank = if dst > src { dst - 1 } else { dst } as u32;
        m ^ (rank << 20)
    }
}

impl Adversary for LieVc {
    fn transform(&mut self, src: usize, dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        let vw = vote_words(self.mailbox.version);
        for i in 0..write.data.len() {
            let v = &mut write.data[i];
            match self.mailbox.locate(write.word + i) {
                Some((Region::Vc, off)) => match off % VC_WORDS {
                    1 => *v = (*v & 0xffff) | (2 << 16),
                    3 => *v = Self::lie(*v, src, dst),
                    _ => {}
                },
                Some((Region::VcValid, off)) if vw == 2 && off % 2 == 1 => {
                    *v = Self::lie(*v, src, dst)
                }
                _ => {}
            }
        }
        vec![write]
    }
}

/// A small deterministic generator (splitmix64) for the adversaries that
/// make things up; the same seed gives the same run.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `0..n` (n >= 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `per_mille` / 1000.
    pub fn chance(&mut self, per_mille: u32) -> bool {
        self.below(1000) < per_mille as u64
    }
}

/// The same place as `word` (in a per-node entry: votes, flags, shares,
/// view-change records and flags) in node `to`'s entry.
/// On v3 the per-node records (echo_prep, certify, commit, echo_commit,
/// seal, echo_seal) move by whole records, the vote rows by entries.
pub fn moved_to(mailbox: &Mailbox, word: usize, to: usize) -> Option<usize> {
    let (region, _) = mailbox.locate(word)?;
    let node = mailbox.owner(word)?;
    let stride = match region {
        r if mailbox.version == Version::V3 && !mailbox.is_vote(r) => mailbox.stride(r),
        Region::Certify => share_words(mailbox.sb),
        Region::Vc => VC_WORDS,
        _ => vote_words(mailbox.version),
    };
    Some(word + to * stride - node * stride)
}

/// The first word of a record of the replica's own on v3, where a forged
/// copy of a leader's record is aimed: its SEAL (v2: its vc record).
fn own_record(mailbox: &Mailbox, node: usize) -> (usize, usize) {
    if mailbox.version == Version::V3 {
        (
            mailbox.record(Region::Seal, 0, node),
            mailbox.stride(Region::Seal),
        )
    } else {
        (mailbox.vc(node), VC_WORDS)
    }
}

/// Forges: every write it sends into its own entries (votes, flags, shares,
/// view-change records) is replaced by garbage of the same length in the
/// same place, and a copy of the true write is aimed at another replica's
/// entry (the slot guard refuses it and counts it, `NetworkReport::refused`).
/// A write into a leader's region (prepare, newview; v3: prepare, prep_sig,
/// new_view) passes unchanged, and a copy of it goes into another replica's
/// view-change record (v3: its SEAL record; refused). On v3 a garbage
/// record's signature fails its verify, and its header names no block.
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
            let (word, room) = own_record(&self.mailbox, victim);
            let len = write.data.len().min(room);
            let copy = Write {
                word,
                data: write.data[..len].to_vec(),
            };
            vec![copy, write]
        }
    }

    fn knows_v3(&self) -> bool {
        true
    }
}

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
    /// that entry from there (at least 1).
    fn own_word(&mut self, src: usize) -> (usize, usize) {
        if self.mailbox.version == Version::V3 {
            return self.own_word_v3(src);
        }
        let mb = &self.mailbox;
        let vw = vote_words(mb.version);
        let slot = self.rng.below(mb.g as u64) as usize;
        let (start, len) = match self.rng.below(6) {
            0 => (mb.vote(Region::WillCert, slot, src), vw),
            1 => (mb.vote(Region::WillCommit, slot, src), vw),
            2 => (mb.vote(Region::Commit, slot, src), vw),
            3 => (mb.vote(Region::CertifyValid, slot, src), vw),
            4 => (mb.share(slot, src), share_words(mb.sb)),
            _ => {
                if self.rng.chance(500) {
                    (mb.vc(src), VC_WORDS)
                } else {
                    (mb.vc_valid(src), vw)
                }
            }
        };
        let off = self.rng.below(len as u64) as usize;
        (start + off, len - off)
    }
}

impl RandomFaults {
    /// [`own_word`](Self::own_word) on v3: a word of one of `src`'s vote
    /// entries (will_cert, will_commit) or of one of its records
    /// (echo_prep, certify, commit of a slot; echo_commit, echo_seal about a
    /// replica; its seal).
    fn own_word_v3(&mut self, src: usize) -> (usize, usize) {
        let mb = &self.mailbox;
        let slot = self.rng.below(mb.g as u64) as usize;
        let peer = self.rng.below(mb.n as u64) as usize;
        let (start, len) = match self.rng.below(8) {
            0 => (mb.vote(Region::WillCert, slot, src), vote_words(mb.version)),
            1 => (
                mb.vote(Region::WillCommit, slot, src),
                vote_words(mb.version),
            ),
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

    fn knows_v3(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::params::vote_tag;

    const N: usize = 3;

    fn mb() -> Mailbox {
        Mailbox::v2(N, 16, 1)
    }

    fn w(word: usize, data: &[u32]) -> Write {
        Write {
            word,
            data: data.to_vec(),
        }
    }

    #[test]
    fn silent_drops_every_write_from_its_cycle_on() {
        let mut s = Silent { from_cycle: 100 };
        let v = w(mb().vote(Region::WillCert, 0, 1), &[vote_tag(0, 1), 7]);
        assert_eq!(s.transform(1, 0, v.clone(), 99), vec![v.clone()]);
        assert_eq!(s.transform(1, 0, v.clone(), 100), vec![]);
        assert_eq!(s.transform(1, 2, v, 5000), vec![]);
    }

    #[test]
    fn mute_fast_and_forge_shares_touch_only_their_regions() {
        let m = mb();
        let wc = w(m.vote(Region::WillCommit, 3, 2), &[vote_tag(1, 4), 9]);
        let commit = w(m.vote(Region::Commit, 3, 2), &[vote_tag(1, 4), 9]);
        let share = w(m.share(3, 2), &[0x1111_1111; 16]);
        let mut mute = MuteFast { mailbox: m.clone() };
        assert_eq!(mute.transform(2, 0, wc.clone(), 0), vec![]);
        assert_eq!(
            mute.transform(2, 0, commit.clone(), 0),
            vec![commit.clone()]
        );
        let mut fs = ForgeShares { mailbox: m.clone() };
        assert_eq!(fs.transform(2, 0, wc, 0), vec![]);
        assert_eq!(fs.transform(2, 0, commit.clone(), 0), vec![commit]);
        assert_eq!(
            fs.transform(2, 0, share, 0),
            vec![w(m.share(3, 2), &[0x1111_1011; 16])]
        );
    }

    #[test]
    fn lie_vc_tells_each_peer_a_different_self_consistent_record() {
        let m = mb();
        let src = 1;
        // (view 5, slot 2 | phase 1 << 16, k 3, m 0xabc) and its flag.
        let rec = w(m.vc(src), &[5, 2 | 1 << 16, 3, 0xabc]);
        let flag = w(m.vc_valid(src), &[vote_tag(5, 3), 0xabc]);
        let mut lie = LieVc::new(m.clone());
        let mut seen = vec![];
        for dst in [0, 2] {
            let r = lie.transform(src, dst, rec.clone(), 0);
            let f = lie.transform(src, dst, flag.clone(), 0);
            assert_eq!(r.len(), 1);
            assert_eq!(f.len(), 1);
            let (r, f) = (&r[0].data, &f[0].data);
            assert_eq!(
                (r[0], r[1], r[2]),
                (5, 2 | 2 << 16, 3),
                "view, slot, phase 2, k"
            );
            assert_eq!(
                f,
                &vec![vote_tag(r[0], r[2]), r[3]],
                "the flag matches the record"
            );
            seen.push(r[3]);
        }
        assert_eq!(
            seen,
            vec![0xabc, 0xabc ^ 1 << 20],
            "one peer the truth, one a lie"
        );
        // Other regions pass unchanged.
        let vote = w(m.vote(Region::Commit, 0, src), &[vote_tag(5, 3), 0xabc]);
        assert_eq!(lie.transform(src, 2, vote.clone(), 0), vec![vote]);
        // n = 5: four peers, four different values.
        let m5 = Mailbox::v2(5, 16, 1);
        let mut lie = LieVc::new(m5.clone());
        let ms: BTreeSet<u32> = [0, 1, 3, 4]
            .iter()
            .map(|&d| lie.transform(2, d, w(m5.vc(2), &[1, 0, 1, 7]), 0)[0].data[3])
            .collect();
        assert_eq!(ms.len(), 4);
    }

    use std::collections::BTreeSet;

    #[test]
    fn forge_aims_copies_at_other_replicas_and_writes_garbage_in_its_own() {
        let m = mb();
        let mut f = Forge::new(N, m.clone(), 7);
        for (own, region_victim) in [
            (m.vote(Region::WillCert, 4, 0), None),
            (m.share(2, 0), None),
            (m.vc(0), None),
            (m.vc_valid(0), None),
            (m.prepare(3), Some(())),
        ] {
            let len = if own == m.share(2, 0) { 16 } else { 2 };
            let data: Vec<u32> = (1..=len).collect();
            for dst in 1..N {
                let out = f.transform(0, dst, w(own, &data), 0);
                assert_eq!(out.len(), 2);
                let victim = Forge::victim(N, 0, dst);
                assert_ne!(victim, 0);
                // The copy lies wholly in the victim's entry.
                for i in 0..out[0].data.len() {
                    assert_eq!(m.owner(out[0].word + i), Some(victim), "{own} -> {dst}");
                }
                if region_victim.is_none() {
                    assert_eq!(out[0].data, data);
                    assert_eq!(out[1].word, own);
                    assert_eq!(out[1].data.len(), data.len());
                    assert_ne!(out[1].data, data, "garbage");
                } else {
                    assert_eq!(out[1], w(own, &data), "a leader's write passes");
                }
            }
        }
        assert_eq!(
            moved_to(&m, m.vote(Region::Commit, 5, 2) + 1, 0),
            Some(m.vote(Region::Commit, 5, 0) + 1)
        );
        assert_eq!(moved_to(&m, m.share(5, 1) + 3, 2), Some(m.share(5, 2) + 3));
        assert_eq!(moved_to(&m, m.prepare(1), 2), None);
    }

    #[test]
    fn chain_applies_its_adversaries_in_order() {
        let m = mb();
        let vote = w(m.vote(Region::WillCert, 0, 0), &[vote_tag(0, 1), 0xabc]);
        let mut c = Chain(vec![
            Box::new(Equivocate::new(N, m.clone())),
            Box::new(Silent { from_cycle: 10 }),
        ]);
        // It proposed k = 1 itself (its prepare), so it equivocates its votes.
        let prepare = w(m.prepare(0), &[1, 0xabc, 0, 0]);
        assert_eq!(
            c.transform(0, 1, prepare, 0)[0].data[1],
            Equivocate::forged(0xabc, 1)
        );
        assert_eq!(
            c.transform(0, 1, vote.clone(), 0),
            vec![w(
                vote.word,
                &[vote_tag(0, 1), Equivocate::forged(0xabc, 1)]
            )]
        );
        assert_eq!(c.transform(0, 1, vote.clone(), 10), vec![]);
        // Forge's two writes each go through the next one.
        let mut c = Chain(vec![
            Box::new(Forge::new(N, m.clone(), 1)),
            Box::new(MuteFast { mailbox: m.clone() }),
        ]);
        assert_eq!(c.transform(0, 1, vote, 0), vec![]);
    }

    fn sample_writes(m: &Mailbox) -> Vec<(usize, Write)> {
        (0..2000)
            .map(|i| {
                let dst = 1 + i % 2;
                let word = match i % 3 {
                    0 => m.vote(Region::WillCert, i % 16, 0),
                    1 => m.prepare(i % 16),
                    _ => m.share(i % 16, 0),
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

    fn mb3() -> Mailbox {
        Mailbox::v3(N, 16, 1)
    }

    #[test]
    fn forge_on_v3_moves_whole_records_and_aims_leader_records_at_a_seal() {
        let m = mb3();
        let mut f = Forge::new(N, m.clone(), 7);
        assert!(f.knows_v3());
        let cert = m.stride(Region::Certify);
        for (own, len) in [
            (m.vote(Region::WillCert, 4, 0), 2),
            (m.record(Region::Certify, 2, 0), cert),
            (m.record(Region::Commit, 3, 0), m.stride(Region::Commit)),
            (
                m.record(Region::EchoSeal, 1, 0),
                m.stride(Region::EchoSeal),
            ),
            (m.record(Region::Seal, 0, 0), m.stride(Region::Seal)),
        ] {
            let data: Vec<u32> = (1..=len as u32).collect();
            for dst in 1..N {
                let out = f.transform(0, dst, w(own, &data), 0);
                let victim = Forge::victim(N, 0, dst);
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
    }

    #[test]
    fn forge_shares_on_v3_keeps_the_cert_block_and_forges_the_share() {
        let m = mb3();
        let mut fs = ForgeShares { mailbox: m.clone() };
        let rec = m.record(Region::Certify, 3, 2);
        let data: Vec<u32> = (0..m.stride(Region::Certify) as u32).collect();
        let out = fs.transform(2, 0, w(rec, &data), 0);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].data[..BEAT_WORDS],
            data[..BEAT_WORDS],
            "the CERT block"
        );
        for i in BEAT_WORDS..data.len() {
            assert_eq!(out[0].data[i], data[i] ^ 0x100, "share word {i}");
        }
    }

    #[test]
    fn random_on_v3_writes_its_own_records_and_stays_in_the_mailboxes() {
        let m = mb3();
        let mut r = RandomFaults::with_rates(
            N,
            m.clone(),
            9,
            RandomRates {
                extra: 1000,
                ..NONE
            },
        );
        assert!(r.knows_v3());
        let (mut own, mut regions) = (0, std::collections::BTreeSet::new());
        for i in 0..2000 {
            let x = w(m.vote(Region::WillCert, i % 16, 0), &[1, 2]);
            let out = r.transform(0, 1, x.clone(), 0);
            assert_eq!((out.len(), &out[0]), (2, &x));
            let e = &out[1];
            assert!(e.word >= m.base(Region::Prepare) && e.word + e.data.len() <= m.end());
            if (0..e.data.len()).all(|i| m.owner(e.word + i) == Some(0)) {
                own += 1;
                regions.insert(m.locate(e.word).unwrap().0.name());
            }
        }
        assert!((800..1300).contains(&own), "{own}");
        // Every kind of record it owns: 2 vote rows and 6 records.
        assert_eq!(regions.len(), 8, "{regions:?}");
    }
}
