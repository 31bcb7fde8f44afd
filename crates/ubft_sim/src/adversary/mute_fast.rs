//! MuteFast: a replica that never votes on the fast path.
//!
//! It drops its will_cert and will_commit writes and follows the rest of
//! the protocol: the fast path (n votes) cannot complete, the f + 1 slow
//! path can (`bench::measure` measures the slow path with it).

use crate::models::network::{Adversary, Write};
use rhdl_ubft::layout::{Mailbox, Region};

/// Drops every fast-path vote (will_cert, will_commit).
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

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::params::vote_tag;

    #[test]
    fn mute_fast_drops_the_fast_votes_only() {
        let m = Mailbox::v3(3, 16, 1);
        let w = |word, data: &[u32]| Write {
            word,
            data: data.to_vec(),
        };
        let mut mute = MuteFast { mailbox: m.clone() };
        for region in [Region::WillCert, Region::WillCommit] {
            let v = w(m.vote(region, 3, 2), &[vote_tag(1, 4), 9]);
            assert_eq!(mute.transform(2, 0, v, 0), vec![]);
        }
        let commit = w(m.record(Region::Commit, 3, 2), &[3, 2, 1, 4, 9, 0, 0, 0]);
        assert_eq!(mute.transform(2, 0, commit.clone(), 0), vec![commit]);
        assert!(mute.only_drops());
    }
}
