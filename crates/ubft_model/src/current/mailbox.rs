//! The mailbox `current` writes into: the records of the retired v2 layout
//! that this design needs, and only those. The kernel runs `Mailbox::v3`
//! (`rhdl_ubft::layout`); `current` is the all-n design whose counterexample
//! docs/model.md documents, and it is kept as it was checked: a prepare
//! (k, m, view, 0), rows of (tag(view, k), m) votes and certify_valid flags,
//! a share per node and slot, and a view-change record (view, slot | phase
//! << 16, k, m) with its vc_valid flag. The addresses are v2's, so a
//! counterexample prints the words where v2 put them.

use rhdl_ubft::layout::UBFT_BASE_PTR;
use rhdl_ubft::params::BEAT_WORDS;

/// Words of a prepare: (k, m, view, 0).
pub const PREPARE_WORDS: usize = 4;
/// Words of a vote or flag entry: (tag(view, k), m).
pub const VOTE_WORDS: usize = 2;
/// Words of a view-change record: (view, slot | phase << 16, k, m).
pub const VC_WORDS: usize = 4;

/// Where each field of a view-change record sits, as word indices.
pub mod field {
    pub const VC_VIEW: usize = 0;
    pub const VC_SLOT: usize = 1;
    /// The phase's bit offset in the slot word.
    pub const VC_PHASE_SHIFT: usize = 16;
    pub const VC_K: usize = 2;
    pub const VC_M: usize = 3;
}

/// The regions `current` writes, in v2's address order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Region {
    Prepare,
    WillCert,
    WillCommit,
    Commit,
    CertifyValid,
    Certify,
    Vc,
    VcValid,
}

impl Region {
    const ALL: [Region; 8] = [
        Region::Prepare,
        Region::WillCert,
        Region::WillCommit,
        Region::Commit,
        Region::CertifyValid,
        Region::Certify,
        Region::Vc,
        Region::VcValid,
    ];

    /// The spec's name.
    pub fn name(self) -> &'static str {
        match self {
            Region::Prepare => "prepare",
            Region::WillCert => "will_cert",
            Region::WillCommit => "will_commit",
            Region::Commit => "commit",
            Region::CertifyValid => "certify_valid",
            Region::Certify => "certify",
            Region::Vc => "vc",
            Region::VcValid => "vc_valid",
        }
    }

    /// A row of per-node entries per slot.
    fn is_vote(self) -> bool {
        matches!(
            self,
            Region::WillCert | Region::WillCommit | Region::Commit | Region::CertifyValid
        )
    }
}

/// The bases for n replicas, a window of g slots and shares of sb beats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mailbox {
    pub n: usize,
    pub g: usize,
    pub sb: usize,
    /// (region, first word, words), in address order.
    spans: Vec<(Region, usize, usize)>,
}

impl Mailbox {
    pub fn new(n: usize, g: usize, sb: usize) -> Mailbox {
        assert!(n >= 1 && g >= 1 && sb >= 1, "layout needs n, g, sb >= 1");
        let row = (VOTE_WORDS * n).next_power_of_two();
        let mut at = UBFT_BASE_PTR;
        let mut spans = Vec::new();
        for region in Region::ALL {
            // Every region on a beat; vc, read whole in one burst, on its
            // own power-of-two size.
            let align = match region {
                Region::Vc => (n * VC_WORDS).next_power_of_two().max(BEAT_WORDS),
                _ => BEAT_WORDS,
            };
            at = at.next_multiple_of(align);
            let words = match region {
                Region::Prepare => g * PREPARE_WORDS,
                r if r.is_vote() => g * row,
                Region::Certify => g * n * sb * BEAT_WORDS,
                Region::Vc => n * VC_WORDS,
                _ => n * VOTE_WORDS,
            };
            spans.push((region, at, words));
            at += words;
        }
        Mailbox { n, g, sb, spans }
    }

    fn base(&self, region: Region) -> usize {
        self.spans[region as usize].1
    }

    fn vote_row_words(&self) -> usize {
        (VOTE_WORDS * self.n).next_power_of_two()
    }

    /// First word of the prepare of `slot`.
    pub fn prepare(&self, slot: usize) -> usize {
        assert!(slot < self.g);
        self.base(Region::Prepare) + slot * PREPARE_WORDS
    }

    /// First word of `node`'s entry for `slot` in a row region.
    pub fn vote(&self, region: Region, slot: usize, node: usize) -> usize {
        assert!(region.is_vote() && slot < self.g && node < self.n);
        self.base(region) + slot * self.vote_row_words() + node * VOTE_WORDS
    }

    /// First word of `node`'s share for `slot`.
    pub fn share(&self, slot: usize, node: usize) -> usize {
        assert!(slot < self.g && node < self.n);
        self.base(Region::Certify) + (slot * self.n + node) * self.sb * BEAT_WORDS
    }

    /// First word of `node`'s view-change record.
    pub fn vc(&self, node: usize) -> usize {
        assert!(node < self.n);
        self.base(Region::Vc) + node * VC_WORDS
    }

    /// First word of `node`'s view-change flag.
    pub fn vc_valid(&self, node: usize) -> usize {
        assert!(node < self.n);
        self.base(Region::VcValid) + node * VOTE_WORDS
    }

    /// Which region holds `word`, and its offset there.
    pub fn locate(&self, word: usize) -> Option<(Region, usize)> {
        self.spans
            .iter()
            .find(|&&(_, start, words)| word >= start && word < start + words)
            .map(|&(region, start, _)| (region, word - start))
    }

    /// Which node owns `word` under the trust model (a replica writes only
    /// its own entries), or `None` (prepare: the view's leader; padding).
    pub fn owner(&self, word: usize) -> Option<usize> {
        let (region, off) = self.locate(word)?;
        let node = match region {
            r if r.is_vote() => (off % self.vote_row_words()) / VOTE_WORDS,
            Region::Certify => (off / (self.sb * BEAT_WORDS)) % self.n,
            Region::Vc => off / VC_WORDS,
            Region::VcValid => off / VOTE_WORDS,
            _ => return None,
        };
        (node < self.n).then_some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{mailbox, Prep, Rec, Row, Share, VcRecord, Vote, Write};
    use super::*;
    use crate::Config;
    use rhdl_ubft::params::vote_tag;

    #[test]
    fn the_models_records_are_the_layouts() {
        let c = Config::new(3, 2, 1, 2);
        let mb = mailbox(&c);
        let p = Prep {
            k: 2,
            m: 1,
            view: 1,
        };
        assert_eq!(p.words().len(), PREPARE_WORDS);
        assert_eq!(p.words(), [2, 1, 1, 0]);
        let v = Vote {
            view: 1,
            k: 2,
            m: 2,
        };
        assert_eq!(v.words().len(), VOTE_WORDS);
        assert_eq!(v.words(), [vote_tag(1, 2), 2]);
        let r = Rec {
            view: 2,
            phase: 1,
            k: 2,
            m: 1,
        };
        assert_eq!(
            r.record(1).words(),
            [2, 1 << field::VC_PHASE_SHIFT, 2, 1],
            "(view, slot | phase << 16, k, m)"
        );
        assert_eq!(
            r.record(1),
            VcRecord {
                view: 2,
                slot: 0,
                phase: 1,
                k: 2,
                m: 1
            }
        );
        assert_eq!(r.flag(), [vote_tag(2, 2), 1]);
        // Every entry a replica writes is its own under the slot guard's
        // rule (Mailbox::owner), in the region the model says.
        for node in 0..3u8 {
            for row in [Row::WillCert, Row::WillCommit, Row::Commit] {
                let w = Write::Vote {
                    row,
                    slot: 0,
                    node,
                    v,
                };
                let placed = w.placed(&mb, 1);
                assert_eq!(placed[0].0, mb.vote(row.region(), 0, node as usize));
                assert_eq!(mb.locate(placed[0].0).unwrap().0, row.region());
                assert_eq!(mb.owner(placed[0].0), Some(node as usize));
            }
            let w = Write::Share {
                slot: 0,
                node,
                s: Share {
                    view: 1,
                    k: 2,
                    m: 1,
                },
            };
            let placed = w.placed(&mb, 1);
            assert_eq!(mb.locate(placed[0].0).unwrap().0, Region::Certify);
            assert_eq!(mb.locate(placed[1].0).unwrap().0, Region::CertifyValid);
            assert!(placed
                .iter()
                .all(|(a, _)| mb.owner(*a) == Some(node as usize)));
            let w = Write::Vc { node, r };
            let placed = w.placed(&mb, 1);
            assert_eq!(placed[0].0, mb.vc(node as usize));
            assert_eq!(placed[1].0, mb.vc_valid(node as usize));
            assert!(placed
                .iter()
                .all(|(a, _)| mb.owner(*a) == Some(node as usize)));
        }
        let w = Write::Prepare { slot: 0, p };
        assert_eq!(w.placed(&mb, 1)[0].0, mb.prepare(0));
        assert_eq!(
            mb.owner(mb.prepare(0)),
            None,
            "prepare is the leader's region, not a node's"
        );
    }

    /// The addresses are v2's: docs/model.md's counterexample prints
    /// prepare[0] at 14250128 and will_commit[0][1] at 14250162 (n = 3, a
    /// window of one slot).
    #[test]
    fn the_addresses_are_the_documented_counterexamples() {
        let mb = Mailbox::new(3, 1, 1);
        assert_eq!(mb.prepare(0), 14_250_128);
        assert_eq!(mb.vote(Region::WillCommit, 0, 1), 14_250_162);
    }
}
