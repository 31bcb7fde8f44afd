//! Mailbox: the kernel's mailboxes (docs/recovery.md, section 13): the
//! regions, their bases, and each record's size and stride.
//!
//! A record is whole beats whose first beat is the block its signature
//! covers ([`super::records`]); each record's stride is its size rounded up
//! to a power of two beats and each region is aligned to its stride, so that
//! no record crosses a 4 KiB boundary and each is one burst. will_cert and
//! will_commit are rows of two-word entries (tag(v, k), m), one row per
//! slot padded to a power of two words, so that a slot's row is one aligned
//! burst.
//!
//! [`Mailbox::v3`] is the layout the kernel runs. [`Mailbox::v4`] is
//! section 13's v4: 48-bit slots and views (four-word vote entries,
//! one-beat blocks) and the ckpt region of section 17; the CLI and
//! docs/layout.md print it, and no kernel of this crate runs it.

use super::{records, Version, UBFT_BASE_PTR};
use crate::params::BEAT_WORDS;

/// The kernel's mailbox regions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    /// The leader's PREPARE (k, m, v, prev), unsigned.
    Prepare,
    /// The PREP block of a slot and the leader's signature over it.
    PrepSig,
    /// Fast path, first vote: (tag(v, k), m) per node.
    WillCert,
    /// Fast path, second vote: (tag(v, k), m) per node.
    WillCommit,
    /// The PREPARE and its signature as each replica read them.
    EchoPrep,
    /// Each replica's CERT block and its share.
    Certify,
    /// Each replica's COMMIT with its certificate.
    Commit,
    /// The highest COMMIT of each replica that each replica delivered.
    EchoCommit,
    /// Each replica's SEAL.
    Seal,
    /// The latest SEAL of each replica that each replica accepted.
    EchoSeal,
    /// The new leader's NEW_VIEW record (spelled `new_view`).
    NewViewRecord,
    /// Per peer p, p's will_cert row of a slot (one beat in v3, two at
    /// N = 8 in v4), as this replica's RDMA READ of p's mailbox returned
    /// it (the remote read, recovery.md section 11): READ responses only,
    /// never a WRITE.
    RemoteRows,
    /// v4 only: each replica's two latest CKPT records (recovery.md R29).
    Ckpt,
}

impl Region {
    /// v3's regions, in docs/recovery.md's order (section 13), which is the
    /// address order; the kernel and its guard have a rule for each.
    pub const ALL: [Region; 12] = [
        Region::Prepare,
        Region::PrepSig,
        Region::WillCert,
        Region::WillCommit,
        Region::EchoPrep,
        Region::Certify,
        Region::Commit,
        Region::EchoCommit,
        Region::Seal,
        Region::EchoSeal,
        Region::NewViewRecord,
        Region::RemoteRows,
    ];

    /// v4's regions in address order: v3's, then ckpt.
    pub const V4: [Region; 13] = {
        let mut all = [Region::Ckpt; 13];
        let mut i = 0;
        while i < Region::ALL.len() {
            all[i] = Region::ALL[i];
            i += 1;
        }
        all
    };

    /// A layout's regions in address order.
    pub fn of_version(version: Version) -> &'static [Region] {
        match version {
            Version::V1 => panic!("v1's regions are layout::seed's"),
            Version::V3 => &Region::ALL,
            Version::V4 => &Region::V4,
        }
    }

    /// The spec's name.
    pub fn name(self) -> &'static str {
        match self {
            Region::Prepare => "prepare",
            Region::PrepSig => "prep_sig",
            Region::WillCert => "will_cert",
            Region::WillCommit => "will_commit",
            Region::EchoPrep => "echo_prep",
            Region::Certify => "certify",
            Region::Commit => "commit",
            Region::EchoCommit => "echo_commit",
            Region::Seal => "seal",
            Region::EchoSeal => "echo_seal",
            Region::NewViewRecord => "new_view",
            Region::RemoteRows => "remote_rows",
            Region::Ckpt => "ckpt",
        }
    }

    /// What a peer writes there (docs/recovery.md, section 3).
    pub fn what(self) -> &'static str {
        match self {
            Region::Prepare => "the leader's PREPARE (k, m, v, prev)",
            Region::PrepSig => "the slot's PREP block and the leader's signature",
            Region::WillCert => "fast path: the lock on (v, k, m), and the PREPARE's echo",
            Region::WillCommit => "fast path: delivered, a COMMIT promised before sealing v",
            Region::EchoPrep => "the PREPARE and its signature as the node read them",
            Region::Certify => "the node's CERT block and its signature (share)",
            Region::Commit => "COMMIT block, signer bitmap, signature, f + 1 CERT shares",
            Region::EchoCommit => "the highest COMMIT of x the node delivered, x's signature",
            Region::Seal => "the node's SEAL block (its latest commit) and signature",
            Region::EchoSeal => "the latest SEAL of x the node accepted, x's signature",
            Region::NewViewRecord => "the new leader's f + 1 SEALs and the carried certificate",
            Region::RemoteRows => {
                "the node's will_cert row of a slot, as a READ of its mailbox returned it"
            }
            Region::Ckpt => {
                "the node's CKPT block (c, dec[c], h_c) and signature, entry (c / C) mod 2"
            }
        }
    }
}

/// Words per will_cert or will_commit entry: (tag(v, k), m).
pub const VOTE_WORDS: usize = 2;
/// Words of the prepare record (k, m, v, prev); its slot's stride is a beat
/// ([`Mailbox::prepare`]).
pub const PREPARE_WORDS: usize = 4;

/// Words per slot's row of votes: n entries padded to a power of two words.
pub const fn vote_row_words(n: usize) -> usize {
    (VOTE_WORDS * n).next_power_of_two()
}

/// Words per vote entry in `version`: v3's (tag(v, k), m), v4's three tag
/// words and m.
pub const fn vote_words_of(version: Version) -> usize {
    match version {
        Version::V4 => records::v4::VOTE_WORDS,
        _ => VOTE_WORDS,
    }
}

/// [`vote_row_words`] in `version`.
pub const fn vote_row_words_of(version: Version, n: usize) -> usize {
    (vote_words_of(version) * n).next_power_of_two()
}

/// How a region's records are indexed: record \[i\]\[j\] is the
/// (i · cols + j)-th of the region ([`Shape::dims`]), and in the per-node
/// shapes j is its writer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A row of per-node votes per slot: will_cert, will_commit.
    VoteRows,
    /// One record per slot, the leader's: prepare, prep_sig.
    PerSlot,
    /// Per slot, one record per writer j: echo_prep, certify, commit.
    SlotByNode,
    /// Per replica x, one record per writer j: echo_commit, echo_seal.
    PeerByNode,
    /// One record per writer j: seal, remote_rows.
    PerNode,
    /// One record, the leader's: new_view.
    Single,
    /// Two records per writer j, entry e of the two (v4's ckpt).
    EntryByNode,
}

/// Entries per replica in v4's ckpt region: the checkpoints of the two
/// latest multiples of C.
pub const CKPT_ENTRIES: usize = 2;

impl Shape {
    /// The shape of a region.
    pub const fn of(region: Region) -> Shape {
        match region {
            Region::WillCert | Region::WillCommit => Shape::VoteRows,
            Region::Prepare | Region::PrepSig => Shape::PerSlot,
            Region::EchoPrep | Region::Certify | Region::Commit => Shape::SlotByNode,
            Region::EchoCommit | Region::EchoSeal => Shape::PeerByNode,
            Region::Seal | Region::RemoteRows => Shape::PerNode,
            Region::NewViewRecord => Shape::Single,
            Region::Ckpt => Shape::EntryByNode,
        }
    }

    /// (rows, cols) of records, for n replicas and a window of g slots.
    pub const fn dims(self, n: usize, g: usize) -> (usize, usize) {
        match self {
            Shape::VoteRows => (g, n),
            Shape::PerSlot => (g, 1),
            Shape::SlotByNode => (g, n),
            Shape::PeerByNode => (n, n),
            Shape::PerNode => (1, n),
            Shape::Single => (1, 1),
            Shape::EntryByNode => (CKPT_ENTRIES, n),
        }
    }

    /// Records per row as laid out: a row of n records, one per writer
    /// (slot by node, peer by node), takes n rounded up to a power of two,
    /// so that a row read whole (SLOW: echo_prep, certify, echo_seal) is
    /// one burst inside a 4 KiB page for any n; the other shapes take n.
    /// The padding records have no owner.
    pub const fn row_records(self, n: usize, g: usize) -> usize {
        match self {
            Shape::SlotByNode | Shape::PeerByNode | Shape::EntryByNode => n.next_power_of_two(),
            _ => self.dims(n, g).1,
        }
    }

    /// Whether record \[i\]\[j\] is replica j's (else the leader's, named
    /// by the record's view; the vote rows have their own rule).
    pub const fn per_node(self) -> bool {
        matches!(
            self,
            Shape::SlotByNode | Shape::PeerByNode | Shape::PerNode | Shape::EntryByNode
        )
    }
}

/// Beats of one record of `region` in v3 (its words are a whole number of
/// beats), for n replicas (certificates of f + 1 shares) and shares of `sb`
/// beats. The vote rows hold no record of their own: 0.
pub const fn record_beats(region: Region, n: usize, sb: usize) -> usize {
    let f1 = crate::params::faults(n) + 1;
    match region {
        Region::Prepare => 1,
        Region::PrepSig
        | Region::EchoPrep
        | Region::Certify
        | Region::EchoCommit
        | Region::Seal
        | Region::EchoSeal => 1 + sb,
        Region::Commit => 1 + sb + f1 * sb,
        Region::NewViewRecord => 1 + f1 * (1 + sb) + f1 * sb,
        Region::WillCert | Region::WillCommit => 0,
        Region::RemoteRows => 1,
        Region::Ckpt => panic!("v3 has no ckpt region"),
    }
}

/// Beats of one record of `region` in `version` (v3: [`record_beats`]).
/// v4's (recovery.md section 13, "v4"): a commit's signer bitmap takes a
/// beat of its own after the block; a SEAL has room for a floor's
/// certificate (a header beat and f + 1 CKPT signatures); a NEW_VIEW for
/// f + 1 SEALs and the larger of the two certificates; a remote row is a
/// whole vote row; a CKPT is its block and signature.
pub const fn record_beats_of(version: Version, region: Region, n: usize, sb: usize) -> usize {
    let f1 = crate::params::faults(n) + 1;
    match version {
        Version::V1 => panic!("v1's records are layout::seed's"),
        Version::V3 => record_beats(region, n, sb),
        Version::V4 => match region {
            Region::Commit => 2 + sb + f1 * sb,
            Region::Seal => 1 + sb + 1 + f1 * sb,
            Region::NewViewRecord => 1 + f1 * (1 + sb) + 1 + f1 * sb,
            Region::RemoteRows => vote_row_words_of(version, n).div_ceil(BEAT_WORDS),
            Region::Ckpt => 1 + sb,
            _ => record_beats(region, n, sb),
        },
    }
}

/// Beats between two records of `region` (and the alignment of the region):
/// the record rounded up to a power of two while it fits in 4 KiB (64
/// beats), so that a record aligned to its stride is one burst that never
/// crosses a 4 KiB boundary; a longer record (DSig's shares) is rounded up
/// to whole 4 KiB pages and read in several bursts.
pub const fn stride_beats(region: Region, n: usize, sb: usize) -> usize {
    stride_beats_of(Version::V3, region, n, sb)
}

/// [`stride_beats`] of `version`'s records.
pub const fn stride_beats_of(version: Version, region: Region, n: usize, sb: usize) -> usize {
    let beats = record_beats_of(version, region, n, sb);
    let page = (crate::params::AXI_BOUNDARY_BYTES / crate::params::BEAT_BYTES) as usize;
    if beats <= page {
        beats.next_power_of_two()
    } else {
        beats.next_multiple_of(page)
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

/// The mailbox bases for a cluster sized for `n` replicas and a window of
/// `g` slots, with `sb` beats per signature share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mailbox {
    /// V3 or V4.
    pub version: Version,
    pub n: usize,
    pub g: usize,
    pub sb: usize,
    spans: Vec<Span>,
}

impl Mailbox {
    /// The kernel's layout (docs/recovery.md, section 13) for n replicas, a
    /// window of g slots and shares of sb beats; the CLI and the docs call
    /// it v3.
    pub fn v3(n: usize, g: usize, sb: usize) -> Mailbox {
        Mailbox::of(Version::V3, n, g, sb)
    }

    /// Section 13's v4 (48-bit slots and views, and the ckpt region of
    /// section 17) for n replicas, a window of g slots and shares of sb
    /// beats. Laid out by the same rules as v3, with v4's record sizes
    /// ([`record_beats_of`]) and vote entries of four words.
    pub fn v4(n: usize, g: usize, sb: usize) -> Mailbox {
        Mailbox::of(Version::V4, n, g, sb)
    }

    fn of(version: Version, n: usize, g: usize, sb: usize) -> Mailbox {
        assert!(n >= 1 && g >= 1 && sb >= 1, "layout needs n, g, sb >= 1");
        let page = (crate::params::AXI_BOUNDARY_BYTES / crate::params::BEAT_BYTES) as usize;
        let mut at = UBFT_BASE_PTR;
        let mut spans = Vec::new();
        for &region in Region::of_version(version) {
            let shape = Shape::of(region);
            let stride = stride_beats_of(version, region, n, sb);
            // Every region on its records' stride (at most a 4 KiB page), so
            // that no record crosses a 4 KiB boundary; a region of rows of n
            // records (one per writer), on the row's size rounded up to a
            // power of two, so that a row read whole (echo_prep, certify,
            // echo_seal: SLOW) is one burst inside a page.
            let row = match shape {
                Shape::SlotByNode | Shape::PeerByNode => shape.row_records(n, g) * stride,
                _ => stride,
            };
            at = at.next_multiple_of(row.clamp(1, page) * BEAT_WORDS);
            let (rows, _) = shape.dims(n, g);
            let words = match shape {
                Shape::VoteRows => rows * vote_row_words_of(version, n),
                _ => rows * shape.row_records(n, g) * stride * BEAT_WORDS,
            };
            spans.push(Span {
                region,
                start: at,
                words,
            });
            at += words;
        }
        Mailbox {
            version,
            n,
            g,
            sb,
            spans,
        }
    }

    /// The regions in address order.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// A region's place.
    pub fn span(&self, region: Region) -> Span {
        *self
            .spans
            .get(region as usize)
            .unwrap_or_else(|| panic!("no {} region in {}", region.name(), self.version.name()))
    }

    /// Whether `region` is a row of per-node votes per slot (will_cert,
    /// will_commit).
    pub fn is_vote(&self, region: Region) -> bool {
        Shape::of(region) == Shape::VoteRows
    }

    /// A region's first word.
    pub fn base(&self, region: Region) -> usize {
        self.span(region).start
    }

    /// The word after the last region.
    pub fn end(&self) -> usize {
        let last = self.spans[self.spans.len() - 1];
        last.start + last.words
    }

    /// Words per slot's row of votes.
    pub fn vote_row_words(&self) -> usize {
        vote_row_words_of(self.version, self.n)
    }

    /// Words per vote entry.
    pub fn vote_words(&self) -> usize {
        vote_words_of(self.version)
    }

    /// First word of the prepare of `slot` (one beat per slot).
    pub fn prepare(&self, slot: usize) -> usize {
        assert!(slot < self.g);
        self.base(Region::Prepare) + slot * BEAT_WORDS
    }

    /// First word of the row of `slot` in a vote region.
    pub fn vote_row(&self, region: Region, slot: usize) -> usize {
        assert!(self.is_vote(region) && slot < self.g);
        self.base(region) + slot * self.vote_row_words()
    }

    /// First word of `node`'s entry for `slot` in a vote region.
    pub fn vote(&self, region: Region, slot: usize, node: usize) -> usize {
        assert!(node < self.n);
        self.vote_row(region, slot) + node * self.vote_words()
    }

    /// First word of `node`'s share for `slot`: the share after the certify
    /// record's block beat.
    pub fn share(&self, slot: usize, node: usize) -> usize {
        self.record(Region::Certify, slot, node) + BEAT_WORDS
    }

    /// Words between two records of a region.
    pub fn stride(&self, region: Region) -> usize {
        stride_beats_of(self.version, region, self.n, self.sb) * BEAT_WORDS
    }

    /// Beats of one record of `region` ([`record_beats_of`]).
    pub fn record_beats(&self, region: Region) -> usize {
        record_beats_of(self.version, region, self.n, self.sb)
    }

    /// First word of a record: `record(region, i, j)` is
    /// - prepare\[i\], prep_sig\[i\] (slot i; j = 0);
    /// - echo_prep\[i\]\[j\], certify\[i\]\[j\], commit\[i\]\[j\] (slot i, written by j);
    /// - echo_commit\[i\]\[j\], echo_seal\[i\]\[j\] (about replica i, written by j);
    /// - seal\[j\] (i = 0);
    /// - new_view (i = j = 0);
    /// - v4: ckpt\[j\]\[e\] as `record(Ckpt, e, j)` (entry e, written by j).
    ///
    /// The vote rows hold entries, not records ([`Mailbox::vote`]).
    pub fn record(&self, region: Region, i: usize, j: usize) -> usize {
        let (n, g) = (self.n, self.g);
        let shape = Shape::of(region);
        let (rows, cols) = match shape {
            Shape::VoteRows => (0, 0),
            _ => shape.dims(n, g),
        };
        assert!(
            i < rows && j < cols,
            "no record {}[{i}][{j}] (n = {n}, G = {g})",
            region.name()
        );
        self.base(region) + (i * shape.row_records(n, g) + j) * self.stride(region)
    }

    /// Which region holds `word`, and its offset there.
    pub fn locate(&self, word: usize) -> Option<(Region, usize)> {
        self.spans
            .iter()
            .find(|s| word >= s.start && word < s.start + s.words)
            .map(|s| (s.region, word - s.start))
    }

    /// Which node owns `word` under the trust model (a replica writes only its
    /// own vote entries and records), or `None` where no single node owns it
    /// (prepare, prep_sig and new_view: the leader of the record's view;
    /// padding; gaps between regions).
    pub fn owner(&self, word: usize) -> Option<usize> {
        let (region, off) = self.locate(word)?;
        let node = match Shape::of(region) {
            Shape::VoteRows => (off % self.vote_row_words()) / self.vote_words(),
            s if s.per_node() => (off / self.stride(region)) % s.row_records(self.n, self.g),
            _ => return None,
        };
        (node < self.n).then_some(node)
    }

    /// The layout as JSON (the CLI's `layout --json`).
    pub fn to_json(&self) -> String {
        let regions: Vec<(&str, usize, usize)> = self
            .spans
            .iter()
            .map(|s| (s.region.name(), s.start, s.words))
            .collect();
        super::json(self.n, self.g, self.sb, self.version.name(), &regions)
    }

    /// The index formula of each region, for the docs.
    fn formula(&self, region: Region) -> String {
        let s = self.stride(region);
        let row = self.n.next_power_of_two();
        let v4 = self.version == Version::V4;
        match (region, Shape::of(region)) {
            (Region::Prepare, _) if v4 => {
                format!("slot·{s} + {{0, 1: k, 2: m, 3, 4: v, 5: prev}}")
            }
            (Region::Prepare, _) => format!("slot·{s} + {{0: k, 1: m, 2: v, 3: prev}}"),
            (_, Shape::VoteRows) if v4 => format!(
                "slot·R + node·4 + {{0..=2: tag(v, k), 3: m}}, R = {}",
                self.vote_row_words()
            ),
            (_, Shape::VoteRows) => format!(
                "slot·R + node·2 + {{0: tag(v, k), 1: m}}, R = {}",
                self.vote_row_words()
            ),
            (_, Shape::EntryByNode) => format!("(e·{row} + node)·{s} + word, e = (c / C) mod 2"),
            (_, Shape::PerSlot) => format!("slot·{s} + word"),
            (_, Shape::SlotByNode) => format!("(slot·{row} + node)·{s} + word"),
            (_, Shape::PeerByNode) => format!("(x·{row} + node)·{s} + word"),
            (_, Shape::PerNode) => format!("node·{s} + word"),
            (_, Shape::Single) => "word".into(),
        }
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
                    self.formula(s.region),
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
    use crate::params::{AXI_BOUNDARY_BYTES, BEAT_BYTES, SB_DSIG, WORD_BYTES};

    /// Every record: (region, i, j, writer), the writer being None for the
    /// leader's records.
    fn all_records(m: &Mailbox) -> Vec<(Region, usize, usize, Option<usize>)> {
        let (n, g) = (m.n, m.g);
        let mut out = vec![(Region::NewViewRecord, 0, 0, None)];
        for i in 0..g {
            out.push((Region::Prepare, i, 0, None));
            out.push((Region::PrepSig, i, 0, None));
            for j in 0..n {
                for r in [Region::EchoPrep, Region::Certify, Region::Commit] {
                    out.push((r, i, j, Some(j)));
                }
            }
        }
        for j in 0..n {
            out.push((Region::Seal, 0, j, Some(j)));
            for x in 0..n {
                out.push((Region::EchoCommit, x, j, Some(j)));
                out.push((Region::EchoSeal, x, j, Some(j)));
            }
            if m.version == Version::V4 {
                for e in 0..CKPT_ENTRIES {
                    out.push((Region::Ckpt, e, j, Some(j)));
                }
            }
        }
        out
    }

    #[test]
    fn records_are_aligned_bursts_disjoint_and_owned_by_their_writer() {
        for (n, g, sb) in [
            (1, 1, 1),
            (3, 1, 1),
            (3, 16, 1),
            (5, 16, 1),
            (7, 16, 1),
            (8, 16, 1),
            (8, 64, 1),
            (5, 4, SB_DSIG),
        ] {
            for m in [Mailbox::v3(n, g, sb), Mailbox::v4(n, g, sb)] {
                check_records(&m);
            }
        }
    }

    fn check_records(m: &Mailbox) {
        let (n, g, sb) = (m.n, m.g, m.sb);
        {
            assert_eq!(
                m.spans().iter().map(|s| s.region).collect::<Vec<_>>(),
                Region::of_version(m.version),
                "the regions in section 13's order"
            );
            assert!(m.spans()[0].start >= UBFT_BASE_PTR);
            for w in m.spans().windows(2) {
                assert!(
                    w[0].start + w[0].words <= w[1].start,
                    "{:?} overlaps",
                    w[1].region
                );
            }
            let mut ranges = Vec::new();
            for (r, i, j, writer) in all_records(m) {
                let at = m.record(r, i, j);
                let words = m.record_beats(r) * BEAT_WORDS;
                let span = m.span(r);
                assert!(
                    at >= span.start && at + words <= span.start + span.words,
                    "{r:?}[{i}][{j}] outside its region"
                );
                assert_eq!(m.locate(at), Some((r, at - span.start)));
                let first = at as u64 * WORD_BYTES;
                let last = first + words as u64 * WORD_BYTES - 1;
                assert_eq!(first % BEAT_BYTES, 0, "{r:?} starts on a beat");
                if sb == 1 {
                    // Ed25519: every record is one burst inside a 4 KiB page.
                    assert_eq!(
                        first / AXI_BOUNDARY_BYTES,
                        last / AXI_BOUNDARY_BYTES,
                        "n={n} {r:?}[{i}][{j}] crosses 4 KiB"
                    );
                } else if words as u64 * WORD_BYTES > AXI_BOUNDARY_BYTES {
                    assert_eq!(
                        first % AXI_BOUNDARY_BYTES,
                        0,
                        "a record of several pages starts on one"
                    );
                }
                for w in [at, at + words - 1] {
                    assert_eq!(m.owner(w), writer, "n={n} {r:?}[{i}][{j}] word {w}");
                }
                ranges.push((at, at + words, r, i, j));
            }
            ranges.sort();
            for p in ranges.windows(2) {
                assert!(p[0].1 <= p[1].0, "n={n}: {:?} and {:?} overlap", p[0], p[1]);
            }
            // The vote rows: each entry its node's, the padding nobody's,
            // a slot's row one aligned burst: inside a beat for n <= 8 in
            // v3, on its own size (two beats at n = 5 to 8) in v4.
            let vw = m.vote_words();
            for slot in 0..g {
                for node in 0..n {
                    let w = m.vote(Region::WillCert, slot, node);
                    for x in w..w + vw {
                        assert_eq!(m.owner(x), Some(node));
                    }
                    assert_eq!(m.locate(w).map(|l| l.0), Some(Region::WillCert));
                }
                let row = m.vote_row(Region::WillCommit, slot);
                let first = row as u64 * WORD_BYTES;
                let bytes = m.vote_row_words() as u64 * WORD_BYTES;
                assert_eq!(
                    first % bytes.min(AXI_BOUNDARY_BYTES),
                    0,
                    "n={n} slot {slot}"
                );
                if n <= 8 && m.version == Version::V3 {
                    assert!(bytes <= BEAT_BYTES);
                }
                if vw * n < m.vote_row_words() {
                    assert_eq!(m.owner(row + vw * n), None, "padding");
                }
            }
        }
    }

    #[test]
    fn sizes_are_recovery_md_section_13_for_the_default_build() {
        // N = 8, G = 16, Ed25519, f + 1 = 4: the record sizes that section 13
        // derives (certify 2 beats, commit 6, new_view 1 + 2·4 + 4), and
        // their strides.
        let (n, sb) = (super::super::UPSTREAM_NUM_NODES, 1);
        let r = |x| (record_beats(x, n, sb), stride_beats(x, n, sb));
        assert_eq!(r(Region::Certify), (2, 2));
        assert_eq!(r(Region::EchoPrep), (2, 2));
        assert_eq!(r(Region::Commit), (6, 8));
        assert_eq!(r(Region::NewViewRecord), (13, 16));
        assert_eq!(r(Region::PrepSig), (2, 2));
        // A DSig commit (1 + 26 + 4·26 beats) takes whole 4 KiB pages.
        assert_eq!(stride_beats(Region::Commit, n, SB_DSIG), 192);
    }

    #[test]
    fn v4_sizes_are_recovery_md_section_13s_for_the_default_build() {
        // N = 8, G = 16, Ed25519, f + 1 = 4 (section 13, "v4"): commit
        // 3 + f + 1 = 7 beats in 8, seal 7 in 8, new_view 14 in 16, a vote
        // row two beats, a remote row two, a CKPT two; the others as v3.
        let (n, g, sb) = (super::super::UPSTREAM_NUM_NODES, 16, 1);
        let m = Mailbox::v4(n, g, sb);
        let r = |x| (m.record_beats(x), m.stride(x) / BEAT_WORDS);
        assert_eq!(r(Region::Commit), (7, 8));
        assert_eq!(r(Region::Seal), (7, 8));
        assert_eq!(r(Region::NewViewRecord), (14, 16));
        assert_eq!(r(Region::RemoteRows), (2, 2));
        assert_eq!(r(Region::Ckpt), (2, 2));
        for x in [
            Region::Prepare,
            Region::PrepSig,
            Region::EchoPrep,
            Region::Certify,
            Region::EchoCommit,
            Region::EchoSeal,
        ] {
            assert_eq!(m.record_beats(x), record_beats(x, n, sb), "{x:?} as in v3");
        }
        assert_eq!(m.vote_row_words(), 2 * BEAT_WORDS);
        // A row is one beat at n <= 4 and two at n = 5 and 7.
        for (n, beats) in [(3, 1), (4, 1), (5, 2), (7, 2)] {
            assert_eq!(
                Mailbox::v4(n, g, sb).vote_row_words(),
                beats * BEAT_WORDS,
                "n = {n}"
            );
        }
        // ckpt[j][e]: replica j's two entries, j's alone.
        assert_eq!(m.owner(m.record(Region::Ckpt, 1, 5) + 31), Some(5));
        assert!(m.span(Region::Ckpt).start >= m.base(Region::RemoteRows));
        assert_eq!(
            m.span(Region::Ckpt).words,
            CKPT_ENTRIES * 8 * 2 * BEAT_WORDS
        );
    }

    #[test]
    #[should_panic(expected = "no ckpt region in v3")]
    fn v3_has_no_ckpt_region() {
        Mailbox::v3(3, 16, 1).span(Region::Ckpt);
    }

    #[test]
    fn the_leaders_records_have_no_owner() {
        let m = Mailbox::v3(5, 16, 1);
        assert_eq!(m.owner(m.prepare(3)), None);
        assert_eq!(m.owner(m.record(Region::PrepSig, 3, 0) + 20), None);
        assert_eq!(m.owner(m.base(Region::NewViewRecord)), None);
        for node in 0..5 {
            assert_eq!(m.owner(m.share(7, node) + 15), Some(node));
        }
    }
}
