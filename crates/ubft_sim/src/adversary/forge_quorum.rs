//! ForgeQuorum: the audit's E1, a leader that forges a fast-path quorum
//! in every peer's vote rows.
//!
//! Every forged entry belongs to another replica, so the receivers' slot
//! guards refuse it (`not_owner`); `tests/guard_kernel.rs` runs it through
//! the kernels' guards and without them (`Delivery::Bypass`), where it
//! splits the honest replicas.

use crate::models::client::proposal;
use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::{Mailbox, Region};
use rhdl_ubft::params::vote_tag;

/// The audit's E1: a leader that forges a fast-path
/// quorum at each peer. Replica 1 is sent the true prepare and replica
/// d > 1 one of the client's next request (the stream's request after m,
/// which every replica holds, as `Equivocate` does); with every prepare
/// and every vote it sends, it also writes, for that destination, every
/// node's will_cert and will_commit entries of the slot as (tag(v, k),
/// that destination's m). v3's prepare is (k, m, v, prev) and its vote
/// rows hold (tag, m) per node. The entries belong to the other replicas,
/// so each forged write is refused by the receiver's guard (`not_owner`).
/// Without a guard the honest replicas each see a full quorum for a
/// different m and decide differently. Everything else (its signed
/// records) passes unchanged. (With a made-up m instead, R2 keeps replica
/// 2 from locking it even with the guard bypassed and nobody decides
/// differently, so the attack needs a value every replica holds.)
#[derive(Clone, Debug)]
pub struct ForgeQuorum {
    pub n: usize,
    pub mailbox: Mailbox,
    pub seed: u64,
}

impl ForgeQuorum {
    /// The requests of the client stream it knows the successor of.
    const SPAN: u64 = 1024;

    /// The m destination `dst` is made to see: m for replica 1, the
    /// stream's next request for the others (m itself if m is not among
    /// the stream's first `SPAN`).
    fn value_for(&self, m: u32, dst: usize) -> u32 {
        if dst == 1 {
            return m;
        }
        (0..Self::SPAN)
            .find(|&i| proposal(self.seed, i) == m)
            .map_or(m, |i| proposal(self.seed, i + 1))
    }

    fn forged_row(&self, slot: usize, tag: u32, m: u32) -> Vec<Write> {
        let mut out = vec![];
        for region in [Region::WillCert, Region::WillCommit] {
            for node in 0..self.n {
                out.push(Write {
                    word: self.mailbox.vote(region, slot, node),
                    data: vec![tag, m],
                });
            }
        }
        out
    }
}

impl Adversary for ForgeQuorum {
    fn transform(&mut self, _src: usize, dst: usize, write: Write, _cycle: u64) -> Vec<Write> {
        match self.mailbox.locate(write.word) {
            // v3's prepare (k, m, v, prev), a beat per slot.
            Some((Region::Prepare, _)) if write.data.len() >= 4 => {
                let (k, m, view) = (write.data[0], write.data[1], write.data[2]);
                let mv = self.value_for(m, dst);
                let mut p = write.clone();
                p.data[1] = mv;
                let slot = (k as usize - 1) % self.mailbox.g;
                let mut out = vec![p];
                out.extend(self.forged_row(slot, vote_tag(view, k), mv));
                out
            }
            Some((r, off)) if self.mailbox.is_vote(r) && write.data.len() == 2 => {
                let slot = off / self.mailbox.vote_row_words();
                let mv = self.value_for(write.data[1], dst);
                let mut w = write.clone();
                w.data[1] = mv;
                let mut out = vec![w];
                out.extend(self.forged_row(slot, write.data[0], mv));
                out
            }
            _ => vec![write],
        }
    }
}
