//! Adversaries: what a Byzantine replica does with the writes it makes.
//!
//! A faulty replica affects the others only through its RDMA writes, so an
//! adversary transforms each outgoing write (see `network::Adversary`): it
//! may drop it, change it, or add writes of its own. The receiver's slot
//! guard still applies to whatever it returns.

use crate::network::{Adversary, Write};
use rhdl_ubft::layout::{Mailbox, Region};

pub use crate::network::Equivocate;

/// Corrupts every share it writes into certify (one byte flipped in each of
/// its 16 words) and sends no fast-path votes, so the slot goes to the slow
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
                for w in write.data.iter_mut() {
                    *w ^= 0x0000_0100;
                }
                vec![write]
            }
            _ => vec![write],
        }
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
}
