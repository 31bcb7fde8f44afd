//! WrongFastVotes: a follower whose fast-path votes name a different m
//! at each peer.
//!
//! ubft_new's vote was the word 1 and bound nothing; the kernel's votes are
//! (tag, m), so a vote for another m must not count towards anyone's
//! quorum of all n (`tests/fast_path.rs`, `a_vote_for_another_m_does_not_count`).

use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::{Mailbox, Region};

/// Votes, in every slot, for a different m at each peer: the m word of
/// every fast-path vote it writes (will_cert and will_commit, (tag, m))
/// becomes `m ^ (dst + 1) << 20`; its other
/// records (the slow path's) pass unchanged.
#[derive(Clone, Debug)]
pub struct WrongFastVotes {
    pub mailbox: Mailbox,
}

impl Adversary for WrongFastVotes {
    fn transform(&mut self, _src: usize, dst: usize, mut write: Write, _cycle: u64) -> Vec<Write> {
        let vote = self
            .mailbox
            .locate(write.word)
            .is_some_and(|(r, _)| matches!(r, Region::WillCert | Region::WillCommit));
        if vote && write.data.len() == 2 {
            write.data[1] ^= (dst as u32 + 1) << 20;
        }
        vec![write]
    }
}
