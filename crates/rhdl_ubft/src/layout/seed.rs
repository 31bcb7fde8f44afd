//! Seed: ubft_new's mailbox layout, word for word, as its ubft() lays it out
//! at init: one-word votes and flags, a two-word prepare, regions back to
//! back from `UBFT_BASE_PTR` in the spec's order. No kernel runs it; it is
//! printed (`rhdl-ubft layout --version v1`, `docs/layout.md`) so that the
//! kernel's layout ([`super::Mailbox`]) can be read against it.

use super::UBFT_BASE_PTR;
use crate::params::BEAT_WORDS;

/// Words per vote or flag entry.
pub const VOTE_WORDS: usize = 1;
/// Words per slot in prepare: (k, m).
pub const PREPARE_WORDS: usize = 2;
/// Words in one view-change record (view, slot | phase << 16, k, m), and in
/// the new leader's newview record (view, slot, k, m).
pub const VC_WORDS: usize = 4;
/// Words in the reserved view region.
pub const VIEW_WORDS: usize = 32;

/// ubft_new's eleven mailboxes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    Prepare,
    WillCert,
    WillCommit,
    Commit,
    CertifyValid,
    Certify,
    Vc,
    VcValid,
    Newview,
    NewviewValid,
    View,
}

impl Region {
    /// In the spec's order, which is the address order.
    pub const ALL: [Region; 11] = [
        Region::Prepare,
        Region::WillCert,
        Region::WillCommit,
        Region::Commit,
        Region::CertifyValid,
        Region::Certify,
        Region::Vc,
        Region::VcValid,
        Region::Newview,
        Region::NewviewValid,
        Region::View,
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
            Region::Newview => "newview",
            Region::NewviewValid => "newview_valid",
            Region::View => "view",
        }
    }

    /// What a peer writes there (the spec's column).
    pub fn what(self) -> &'static str {
        match self {
            Region::Prepare => "the leader's proposal",
            Region::WillCert => "fast path, first vote",
            Region::WillCommit => "fast path, second vote",
            Region::Commit => "slow path commit vote",
            Region::CertifyValid => "\"my certify share is in place\"",
            Region::Certify => "slow path: the node's share",
            Region::Vc => "view change: what the node last saw",
            Region::VcValid => "view change record present",
            Region::Newview => "the new leader's decision",
            Region::NewviewValid => "new view present",
            Region::View => "reserved",
        }
    }

    /// A row of one-word entries per slot, one per node.
    pub fn is_vote(self) -> bool {
        matches!(
            self,
            Region::WillCert | Region::WillCommit | Region::Commit | Region::CertifyValid
        )
    }

    /// The index formula, for the docs.
    fn formula(self) -> &'static str {
        match self {
            Region::Prepare => "slot·2 + {0: k, 1: m}",
            r if r.is_vote() => "slot·N + node",
            Region::Certify => "(slot·N + node)·16·SB + word",
            Region::Vc => "node·4 + {view, slot | phase << 16, k, m}",
            Region::VcValid => "node",
            Region::Newview => "{view, slot, k, m}",
            _ => "",
        }
    }
}

/// One region's place.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub region: Region,
    /// First word, an absolute word index from `network_ptr`.
    pub start: usize,
    /// Words.
    pub words: usize,
}

/// ubft_new's mailboxes for `n` nodes, a window of `g` slots and shares of
/// `sb` beats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mailbox {
    pub n: usize,
    pub g: usize,
    pub sb: usize,
    spans: Vec<Span>,
}

impl Mailbox {
    /// The layout, computed exactly as ubft_new's ubft() does at init.
    pub fn new(n: usize, g: usize, sb: usize) -> Mailbox {
        assert!(n >= 1 && g >= 1 && sb >= 1, "layout needs n, g, sb >= 1");
        let mut at = UBFT_BASE_PTR;
        let spans = Region::ALL
            .iter()
            .map(|&region| {
                let words = match region {
                    Region::Prepare => g * PREPARE_WORDS,
                    r if r.is_vote() => g * n * VOTE_WORDS,
                    Region::Certify => g * n * sb * BEAT_WORDS,
                    Region::Vc => n * VC_WORDS,
                    Region::VcValid => n * VOTE_WORDS,
                    Region::Newview => VC_WORDS,
                    Region::NewviewValid => VOTE_WORDS,
                    _ => VIEW_WORDS,
                };
                let span = Span {
                    region,
                    start: at,
                    words,
                };
                at += words;
                span
            })
            .collect();
        Mailbox { n, g, sb, spans }
    }

    /// The regions in the spec's order.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// A region's place.
    pub fn span(&self, region: Region) -> Span {
        self.spans[region as usize]
    }

    /// A region's first word.
    pub fn base(&self, region: Region) -> usize {
        self.span(region).start
    }

    /// The word of `node`'s entry for `slot` in a vote region.
    pub fn vote(&self, region: Region, slot: usize, node: usize) -> usize {
        assert!(region.is_vote() && slot < self.g && node < self.n);
        self.base(region) + slot * self.n + node
    }

    /// The layout as JSON (the CLI's `layout --version v1 --json`).
    pub fn to_json(&self) -> String {
        let regions: Vec<(&str, usize, usize)> = self
            .spans
            .iter()
            .map(|s| (s.region.name(), s.start, s.words))
            .collect();
        super::json(self.n, self.g, self.sb, "v1", &regions)
    }

    /// A markdown table of this layout.
    pub fn markdown_table(&self) -> String {
        let rows: Vec<[String; 5]> = self
            .spans
            .iter()
            .map(|s| {
                [
                    s.region.name().into(),
                    s.start.to_string(),
                    s.words.to_string(),
                    s.region.formula().into(),
                    s.region.what().into(),
                ]
            })
            .collect();
        super::table(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_contiguous_from_the_base_in_spec_order() {
        let m = Mailbox::new(5, 16, 1);
        assert_eq!(m.spans()[0].start, UBFT_BASE_PTR);
        for w in m.spans().windows(2) {
            assert_eq!(w[0].start + w[0].words, w[1].start, "{:?}", w[1].region);
        }
        assert_eq!(m.span(Region::WillCert).words, 16 * 5);
        assert_eq!(m.span(Region::Certify).words, 16 * 5 * 16);
        assert_eq!(
            m.vote(Region::Commit, 3, 2),
            m.base(Region::Commit) + 3 * 5 + 2
        );
    }
}
