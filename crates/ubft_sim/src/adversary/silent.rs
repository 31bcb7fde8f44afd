//! Silent: a replica nobody hears from a cycle on (a crashed NIC).
//!
//! Every write it sends at or after `from_cycle` is dropped; the kernel
//! keeps running and sees its commands complete. Placed by an event
//! (`cluster::Event`), the cluster wraps it in [`super::After`] with
//! `from_cycle` 0.

use crate::models::network::{Adversary, Write};

/// Drops every write sent at or after `from_cycle`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use rhdl_ubft::layout::{Mailbox, Region};
    use rhdl_ubft::params::vote_tag;

    #[test]
    fn silent_drops_every_write_from_its_cycle_on() {
        let mb = Mailbox::v3(3, 16, 1);
        let mut s = Silent { from_cycle: 100 };
        let v = Write {
            word: mb.vote(Region::WillCert, 0, 1),
            data: vec![vote_tag(0, 1), 7],
        };
        assert_eq!(s.transform(1, 0, v.clone(), 99), vec![v.clone()]);
        assert_eq!(s.transform(1, 0, v.clone(), 100), vec![]);
        assert_eq!(s.transform(1, 2, v, 5000), vec![]);
    }
}
