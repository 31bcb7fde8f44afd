//! Adversaries: what a Byzantine replica does with the writes it makes.
//!
//! A faulty replica affects the others only through its RDMA writes, so an
//! adversary transforms each outgoing write (see `network::Adversary`): it
//! may drop it, change it, or add writes of its own. The receiver's slot
//! guard still applies to whatever it returns. One kind per file, named by
//! its scenario kind; here the pieces they share: [`Chain`] (several on one
//! replica), [`After`] (one placed by an event) and [`Rng`].

pub mod equivocate;
pub mod flood;
pub mod forge;
pub mod forge_cert;
pub mod forge_quorum;
pub mod forge_shares;
pub mod lie_vc;
pub mod made_up;
pub mod mute_fast;
pub mod omit_carried;
pub mod random;
pub mod silent;
pub mod split_view;
pub mod wrong_fast_votes;
pub mod wrong_history;

use crate::cluster::event::Trigger;
pub use crate::models::network::{Adversary, Write};

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

    fn emit(&mut self, src: usize, cycle: u64) -> Vec<(usize, Write)> {
        self.0.iter_mut().flat_map(|a| a.emit(src, cycle)).collect()
    }

    fn only_drops(&self) -> bool {
        self.0.iter().all(|a| a.only_drops())
    }
}

/// An adversary that starts when an event happens (`cluster::Event`, a
/// fault placed by an event): the writes sent before the trigger's start
/// cycle pass unchanged and `inner` never sees them; from that cycle on
/// every write goes through `inner`. The cluster fires the trigger
/// (`Cluster::set_adversary_from`).
pub struct After {
    pub start: Trigger,
    pub inner: Box<dyn Adversary>,
}

impl Adversary for After {
    fn transform(&mut self, src: usize, dst: usize, write: Write, cycle: u64) -> Vec<Write> {
        if self.start.started(cycle) {
            self.inner.transform(src, dst, write, cycle)
        } else {
            vec![write]
        }
    }

    fn emit(&mut self, src: usize, cycle: u64) -> Vec<(usize, Write)> {
        if self.start.started(cycle) {
            self.inner.emit(src, cycle)
        } else {
            vec![]
        }
    }

    fn only_drops(&self) -> bool {
        self.inner.only_drops()
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

#[cfg(test)]
mod tests {
    use super::forge::Forge;
    use super::mute_fast::MuteFast;
    use super::silent::Silent;
    use super::wrong_fast_votes::WrongFastVotes;
    use super::*;
    use rhdl_ubft::layout::{Mailbox, Region};
    use rhdl_ubft::params::vote_tag;

    const N: usize = 3;

    fn w(word: usize, data: &[u32]) -> Write {
        Write {
            word,
            data: data.to_vec(),
        }
    }

    #[test]
    fn chain_applies_its_adversaries_in_order() {
        let m = Mailbox::v3(N, 16, 1);
        let vote = w(m.vote(Region::WillCert, 0, 0), &[vote_tag(0, 1), 0xabc]);
        let mut c = Chain(vec![
            Box::new(WrongFastVotes { mailbox: m.clone() }),
            Box::new(Silent { from_cycle: 10 }),
        ]);
        assert_eq!(
            c.transform(0, 1, vote.clone(), 0),
            vec![w(vote.word, &[vote_tag(0, 1), 0xabc ^ 2 << 20])]
        );
        assert_eq!(c.transform(0, 1, vote.clone(), 10), vec![]);
        assert!(!c.only_drops());
        // Forge's two writes each go through the next one: MuteFast drops
        // both (the copy and the garbage are will_cert entries).
        let mut c = Chain(vec![
            Box::new(Forge::new(N, m.clone(), 1)),
            Box::new(MuteFast { mailbox: m.clone() }),
        ]);
        assert_eq!(c.transform(0, 1, vote, 0), vec![]);
        let silent_twice = Chain(vec![
            Box::new(Silent { from_cycle: 1 }),
            Box::new(MuteFast { mailbox: m }),
        ]);
        assert!(silent_twice.only_drops());
    }

    #[test]
    fn after_passes_every_write_until_its_trigger_starts() {
        let m = Mailbox::v3(N, 16, 1);
        let vote = w(m.vote(Region::WillCert, 0, 0), &[vote_tag(0, 1), 0xabc]);
        let start = Trigger::new();
        let mut a = After {
            start: start.clone(),
            inner: Box::new(Silent { from_cycle: 0 }),
        };
        assert!(a.only_drops());
        assert_eq!(a.transform(0, 1, vote.clone(), 500), vec![vote.clone()]);
        start.fire(600);
        assert_eq!(a.transform(0, 1, vote.clone(), 599), vec![vote.clone()]);
        assert_eq!(a.transform(0, 1, vote.clone(), 600), vec![]);
        // Fired once: a second event does not move it.
        start.fire(700);
        assert_eq!(a.transform(0, 2, vote, 650), vec![]);
    }
}
